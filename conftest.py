"""Repository-wide pytest set-up: a leased ROS domain for the run and one per test game."""

from __future__ import annotations

import os

import pytest

try:
    from villa_bringup.domain import lease_domain
except ImportError as e:  # pragma: no cover - only without the environment
    raise pytest.UsageError(
        f"villa's workspace is not on the path ({e}); run the tests with `make test` "
        "(or `source scripts/env.sh` first)"
    ) from e

_run_lease = None


def pytest_configure(config):
    global _run_lease
    _run_lease = lease_domain()
    os.environ["ROS_DOMAIN_ID"] = str(_run_lease.domain_id)
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")


def pytest_unconfigure(config):
    if _run_lease is not None:
        _run_lease.release()


def pytest_report_header(config):
    return f"ROS_DOMAIN_ID={os.environ.get('ROS_DOMAIN_ID')} (leased for this run)"


@pytest.fixture
def ros_domain(monkeypatch):
    """A ROS domain of the test's own (a test game): sets ROS_DOMAIN_ID for processes it starts."""
    with lease_domain() as lease:
        monkeypatch.setenv("ROS_DOMAIN_ID", str(lease.domain_id))
        yield lease.domain_id
