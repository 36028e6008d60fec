"""Processes that end with their parent.

A server, player or worker that villa starts must not outlive a villa that crashed or was killed with SIGKILL: its
clean stop (SIGINT to the child's process group) never ran then, and the child would play on alone. On Linux the
kernel's parent-death signal (prctl PR_SET_PDEATHSIG) covers that, for Python children and rcssserver3d alike.

The signal comes when the *thread* that started the child ends, so start children from a thread that outlives them
(villa starts them from the main thread). Elsewhere than Linux these calls do nothing.

A process asked to stop (SIGINT or SIGTERM, from its supervisor or from the kernel when its parent died) must end
even when its clean stop hangs: stop_on_signals bounds the clean stop by a grace period.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys
import threading

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


def stop_on_signals(grace: float, name: str, signals=(signal.SIGINT, signal.SIGTERM)) -> threading.Event:
    """The process's stop request: the first of `signals` sets the returned event (the main loop's cue for a clean
    stop); if the process still runs `grace` s later, or at a second signal, it ends at once (os._exit with 128 + the
    signal's number) after one line on stderr naming `name`.

    The signals are blocked and taken by a thread of their own (sigwait), not by a Python handler, which runs only
    when the main thread returns to the interpreter: a main thread stuck in native code (a middleware call) would
    never see it. Call it from the main thread before any other thread starts (threads inherit the mask; so do child
    processes, which this process must then not start)."""
    sigs = set(signals)
    signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    stop = threading.Event()

    def watch() -> None:
        first = signal.sigwait(sigs)
        stop.set()
        again = signal.sigtimedwait(sigs, grace)
        why = (f"a second {signal.Signals(again.si_signo).name}" if again is not None
               else f"its clean stop took more than {grace:g} s")
        print(f"{name}: {why}: ending now", file=sys.stderr, flush=True)
        os._exit(128 + int(first))

    threading.Thread(target=watch, name="stop-on-signals", daemon=True).start()
    return stop
