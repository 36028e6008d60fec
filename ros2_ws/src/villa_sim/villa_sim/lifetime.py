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
import socket
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
    signal's number) after one line on stderr naming `name`. Call it from the main thread.

    A Python handler runs only in the main thread, when that returns to the interpreter: a main thread stuck in
    native code (a middleware call) would never run it. So the handlers do nothing themselves; the signal's number
    reaches a thread of its own through the wakeup fd (signal.set_wakeup_fd), which whichever thread the kernel
    interrupts writes at once (native threads too: numpy's BLAS pool, the middleware's)."""
    wanted = {int(s) for s in signals}
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    for s in signals:
        signal.signal(s, lambda *_: None)
    signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    stop = threading.Event()

    def next_signal(timeout: float | None) -> int | None:
        reader.settimeout(timeout)
        while True:
            try:
                got = reader.recv(1)
            except TimeoutError:
                return None
            if got and got[0] in wanted:
                return got[0]

    def watch() -> None:
        first = next_signal(None)
        stop.set()
        again = next_signal(grace)
        why = (f"a second {signal.Signals(again).name}" if again is not None
               else f"its clean stop took more than {grace:g} s")
        print(f"{name}: {why}: ending now", file=sys.stderr, flush=True)
        os._exit(128 + first)

    watcher = threading.Thread(target=watch, name="stop-on-signals", daemon=True)
    watcher.sockets = (reader, writer)          # kept open for the process's life
    watcher.start()
    return stop
