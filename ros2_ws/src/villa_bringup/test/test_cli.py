import subprocess
import sys

import pytest

from villa_bringup import cli, doctor


def test_no_subcommand_prints_help_and_fails(capsys):
    assert cli.main([]) == 2
    assert "doctor" in capsys.readouterr().out


def test_unknown_subcommand_is_an_argparse_error():
    with pytest.raises(SystemExit) as e:
        cli.main(["no-such-command"])
    assert e.value.code == 2


def test_doctor_check_functions_pass_here():
    for check in (doctor.check_python(), doctor.check_rclpy(), doctor.check_interfaces(), doctor.check_install(),
                  doctor.check_shm()):
        assert check.ok, check


def test_doctor_reports_a_workspace_whose_executables_and_data_ros_cannot_find(tmp_path, monkeypatch):
    # every villa package in the ament index, but laid out the wrong way: console scripts in bin/, no skills
    from ament_index_python.packages import get_packages_with_prefixes

    prefix = tmp_path / "install"
    index = prefix / "share" / "ament_index" / "resource_index" / "packages"
    index.mkdir(parents=True)
    for package in (p for p in get_packages_with_prefixes() if p.startswith("villa_")):
        (index / package).touch()
        (prefix / "share" / package / "config").mkdir(parents=True)
    (prefix / "bin").mkdir()
    (prefix / "bin" / "player").write_text("#!/bin/sh\n")
    (prefix / "bin" / "player").chmod(0o755)
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(prefix))
    c = doctor.check_install()
    assert not c.ok and f"{prefix}/lib/villa_bridge/bridge" in c.detail and "more" in c.detail
    assert "lib/<package>" in c.fix and "colcon build" in c.fix
    (prefix / "share" / "villa_motion" / "config" / "motion.yaml").touch()
    for exe in doctor._executables():   # the executables in place: what is left is the data
        path = prefix / "lib" / exe[0] / exe[1]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
    c = doctor.check_install()
    assert not c.ok and "lib/" not in c.detail and "share/villa_bridge/config/bridge.yaml" in c.detail


def test_doctor_flags_bad_domain(monkeypatch):
    monkeypatch.setenv("ROS_DOMAIN_ID", "150")
    c = doctor.check_domain()
    assert not c.ok and "ephemeral" in c.detail and c.fix
    monkeypatch.setenv("ROS_DOMAIN_ID", "abc")
    assert not doctor.check_domain().ok


def test_doctor_reports_missing_interfaces(monkeypatch):
    monkeypatch.setattr(doctor, "VILLA_MSGS", doctor.VILLA_MSGS + ("NoSuchMessage",))
    c = doctor.check_interfaces()
    assert not c.ok and "NoSuchMessage" in c.detail and "make setup" in c.fix


def test_doctor_reports_a_missing_tf2_msgs(monkeypatch):
    import importlib

    real = importlib.import_module

    def without_tf2(name, *a):
        if name.startswith("tf2_msgs"):
            raise ImportError("No module named 'tf2_msgs'")
        return real(name, *a)

    monkeypatch.setattr(doctor.importlib, "import_module", without_tf2)
    c = doctor.check_interfaces()
    assert not c.ok and "tf2_msgs" in c.detail and "make setup" in c.fix
    monkeypatch.undo()
    assert doctor.check_interfaces().ok


@pytest.mark.integration
def test_villa_doctor_command_end_to_end(ros_domain):
    res = subprocess.run(["villa", "doctor"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "[ ok ] dds" in res.stdout
    assert res.stdout.strip().endswith("all checks passed")


@pytest.mark.integration
def test_villa_doctor_explains_a_broken_environment(tmp_path):
    # A bare interpreter without the workspace: doctor must say what is wrong, not crash.
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)}
    code = "import sys; sys.path[:0]=[%r]; from villa_bringup import doctor; sys.exit(doctor.main())"
    import villa_bringup

    pkg_parent = str(__import__("pathlib").Path(villa_bringup.__file__).resolve().parents[1])
    res = subprocess.run([sys.executable, "-I", "-c", code % pkg_parent], capture_output=True, text=True,
                         env=env, timeout=60)
    assert res.returncode == 1
    assert "FAIL" in res.stdout and "fix: run `make setup`" in res.stdout
