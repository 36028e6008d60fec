"""team.launch.py is a real launch_ros file (checked here without launch; test_launch_live.py runs it with ROS 2's
own tools) and every package/executable the team configuration names is a console script some package declares."""

import ast
import re
from pathlib import Path

from villa_bringup.team_config import NODE_KINDS

SRC = Path(__file__).resolve().parents[2]
LAUNCH = SRC / "villa_bringup" / "launch" / "team.launch.py"


def _console_scripts(package: str) -> dict[str, str]:
    text = (SRC / package / "setup.py").read_text()
    return dict(re.findall(r'"(\w+) = ([\w.]+:\w+)"', text))


def test_launch_file_uses_launch_ros_and_declares_its_arguments():
    tree = ast.parse(LAUNCH.read_text())
    imports = {(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert ("launch_ros.actions", "Node") in imports and ("launch", "LaunchDescription") in imports
    assert ("villa_bringup.team_config", "load") in imports
    funcs = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "generate_launch_description" in funcs
    declared = {n.args[0].value for n in ast.walk(tree) if isinstance(n, ast.Call)
                and getattr(n.func, "id", "") == "DeclareLaunchArgument"}
    assert declared == {"team_config", "nao", "respawn"}
    text = LAUNCH.read_text()
    assert text.count("respawn_max_retries=RESTART_LIMIT") == 2            # both compositions: no endless respawn


def test_every_node_kind_is_a_declared_console_script():
    for kind in NODE_KINDS.values():
        scripts = _console_scripts(kind.package)
        assert kind.executable in scripts, f"{kind.package} declares no console script {kind.executable}"
        module, cls = kind.cls.split(":")
        assert scripts[kind.executable] == f"{module}:main"
        path = SRC / kind.package / Path(*module.split(".")).with_suffix(".py")
        assert path.exists(), path
        assert f"class {cls}(" in path.read_text()
    assert _console_scripts("villa_bringup")["player"] == "villa_bringup.player:main"


def test_every_python_package_installs_its_executables_where_ros_looks():
    # launch_ros and `ros2 run` find executables in <prefix>/lib/<package> only (the ROS 2 setup.cfg convention)
    import configparser

    packages = sorted(p.parent.name for p in SRC.glob("*/setup.py"))
    assert len(packages) >= 9
    for package in packages:
        cfg = configparser.ConfigParser()
        assert cfg.read(SRC / package / "setup.cfg"), f"{package} has no setup.cfg"
        assert cfg.get("develop", "script_dir") == f"$base/lib/{package}", package      # --symlink-install
        assert cfg.get("install", "install_scripts") == f"$base/lib/{package}", package  # plain colcon build


def test_villa_command_stays_on_path():
    text = (SRC / "villa_bringup" / "setup.py").read_text()
    assert '("bin", ["scripts/villa"])' in text
    wrapper = SRC / "villa_bringup" / "scripts" / "villa"
    assert wrapper.stat().st_mode & 0o111 and "../lib/villa_bringup/villa" in wrapper.read_text()


def test_launch_file_is_installed():
    assert 'glob("launch/*.launch.py")' in (SRC / "villa_bringup" / "setup.py").read_text()
