import os
import subprocess
import sys

import pytest

from villa_bringup.domain import DOMAIN_IDS, NoFreeDomain, lease_domain


def test_leases_are_exclusive_within_a_process():
    with lease_domain() as a, lease_domain() as b:
        assert a.domain_id != b.domain_id
        assert a.domain_id in DOMAIN_IDS and b.domain_id in DOMAIN_IDS


def test_preferred_domain_is_taken_when_free_and_skipped_when_leased():
    with lease_domain() as a:
        with lease_domain(preferred=a.domain_id) as b:
            assert b.domain_id != a.domain_id
    with lease_domain(preferred=a.domain_id) as c:
        assert c.domain_id == a.domain_id  # released, so free again


def test_lease_is_exclusive_across_processes():
    with lease_domain() as a:
        code = (
            "from villa_bringup.domain import lease_domain\n"
            f"l = lease_domain(preferred={a.domain_id})\n"
            "print(l.domain_id)\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert int(out.stdout) != a.domain_id


def test_run_has_a_leased_domain(ros_domain):
    assert os.environ["ROS_DOMAIN_ID"] == str(ros_domain)


def test_exhaustion_raises(monkeypatch):
    import villa_bringup.domain as d

    monkeypatch.setattr(d, "DOMAIN_IDS", range(1, 3))
    held = []
    try:
        while True:
            held.append(d.lease_domain())
    except NoFreeDomain as e:
        assert "leased" in str(e)
    finally:
        for h in held:
            h.release()
    assert len(held) <= 2
    with pytest.raises(NoFreeDomain):
        with d.lease_domain(), d.lease_domain(), d.lease_domain():
            pass
