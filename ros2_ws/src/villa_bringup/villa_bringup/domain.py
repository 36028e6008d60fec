"""ROS domain IDs leased through lock files, so concurrent games and test runs never share one.

Fast DDS maps domain d to UDP ports 7400 + 250 d + ...; above d = 101 those ports reach Linux's
ephemeral range, so leases come from 1..100 (0 is left to users' default).
"""

from __future__ import annotations

import fcntl
import os
import random
import tempfile
from pathlib import Path

DOMAIN_IDS = range(1, 101)
LOCK_DIR = Path(tempfile.gettempdir()) / "villa-ros-domains"


class NoFreeDomain(RuntimeError):
    """Every domain ID in DOMAIN_IDS is leased by a live process."""


class DomainLease:
    """An exclusive lease on one ROS domain ID, held for as long as the lock file is open."""

    def __init__(self, domain_id: int, fd: int):
        self.domain_id = domain_id
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock; the file stays for the next lease
            self._fd = None

    def __enter__(self) -> DomainLease:
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def __del__(self):
        self.release()


def lease_domain(preferred: int | None = None) -> DomainLease:
    """Lease a free domain ID (the preferred one if it is free), or raise NoFreeDomain."""
    LOCK_DIR.mkdir(parents=True, exist_ok=True)
    ids = list(DOMAIN_IDS)
    random.shuffle(ids)  # spread concurrent runs so they rarely contend for the same lock
    if preferred is not None:
        ids.insert(0, preferred)
    for domain_id in ids:
        fd = os.open(LOCK_DIR / f"{domain_id}.lock", os.O_CREAT | os.O_RDWR, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return DomainLease(domain_id, fd)
    raise NoFreeDomain(
        f"all ROS domain IDs {DOMAIN_IDS.start}..{DOMAIN_IDS.stop - 1} are leased (lock files in {LOCK_DIR})"
    )
