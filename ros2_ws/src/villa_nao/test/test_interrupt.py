"""villa_nao.interrupt: a job started with SIGINT ignored (a script's background start) still stops on SIGINT and
SIGTERM (villa games and villa optimize call it)."""

import signal
import subprocess
import sys

import pytest

CHILD = """
import signal, sys, time
from villa_nao.interrupt import interruptible
assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
if sys.argv[1] == "on":
    interruptible()
try:
    print("ready", flush=True)    # inside: the signal may arrive while print returns (seen on a loaded machine)
    time.sleep(30)
    print("slept", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_background_start_stops_on_the_signal(sig):
    p = subprocess.Popen([sys.executable, "-c", CHILD, "on"], stdout=subprocess.PIPE, text=True,
                         preexec_fn=_ignore_sigint)
    try:
        assert p.stdout.readline().strip() == "ready"
        p.send_signal(sig)
        out, _ = p.communicate(timeout=20)
    finally:
        p.kill()
        p.stdout.close()
    assert out.strip() == "interrupted"


def test_without_it_sigint_is_lost():
    """The reason for the module: the same child without interruptible() sleeps through SIGINT."""
    p = subprocess.Popen([sys.executable, "-c", CHILD.replace("time.sleep(30)", "time.sleep(1.5)"), "off"],
                         stdout=subprocess.PIPE, text=True, preexec_fn=_ignore_sigint)
    try:
        assert p.stdout.readline().strip() == "ready"
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=20)
    finally:
        p.kill()
        p.stdout.close()
    assert out.strip() == "slept"
