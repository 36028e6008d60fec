"""Ctrl-C for long command-line jobs, however they were started.

A script that starts a command in the background (`cmd &` in a non-interactive shell) starts it with SIGINT ignored,
and Python then installs no KeyboardInterrupt handler: `kill -INT` and a later Ctrl-C would do nothing. Long jobs
(`villa games`, `villa optimize`) call `interruptible()` so SIGINT and SIGTERM both raise KeyboardInterrupt in the
main thread, where the job stops cleanly and keeps what it finished.
"""

from __future__ import annotations

import signal


def _raise(signum, frame) -> None:
    raise KeyboardInterrupt


def interruptible() -> None:
    """SIGINT and SIGTERM raise KeyboardInterrupt in the main thread from now on."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise)
