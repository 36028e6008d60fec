"""Processes that end with their parent.

A server, player or worker that villa starts must not outlive a villa that crashed or was killed with SIGKILL: its
clean stop (SIGINT to the child's process group) never ran then, and the child would play on alone. On Linux the
kernel's parent-death signal (prctl PR_SET_PDEATHSIG) covers that, for Python children and rcssserver3d alike.

The signal comes when the *thread* that started the child ends, so start children from a thread that outlives them
(villa starts them from the main thread). Elsewhere than Linux these calls do nothing.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys

PR_SET_PDEATHSIG = 1                                    # <linux/prctl.h>
_prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None  # looked up before fork


def die_with_parent(parent: int, sig: int = signal.SIGTERM) -> None:
    """In the child: have `sig` sent to this process when its parent (pid `parent`) ends, and send it now if the
    parent ended already (before this call)."""
    if _prctl is None:
        return
    if _prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


def tied_to_parent(sig: int = signal.SIGTERM):
    """A `preexec_fn` for subprocess.Popen: the child gets `sig` when this process ends."""
    return functools.partial(die_with_parent, os.getpid(), sig)
