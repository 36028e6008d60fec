"""What every villa node shares: the topic QoS and the spin loop of a node's main() (rclpy; the nodes only).

    def main(args=None) -> int:
        return spin(MotionNode, "motion", args)
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable

import rclpy
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

# every villa topic: reliable, keep-last 5 (docs/architecture.md)
QOS = QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)


def wanted(publisher) -> bool:
    """Whether anything subscribes to the publisher's topic now (rviz, `ros2 topic echo`, `villa record`): the
    visualization and diagnostic messages no node takes are not built while nobody listens."""
    return publisher.get_subscription_count() > 0


def stamp_seconds(stamp) -> float:
    """builtin_interfaces/Time -> s."""
    return stamp.sec + stamp.nanosec * 1e-9


def spin(make_node: Callable[[], object], name: str, args=None, errors: tuple[type[Exception], ...] = (ValueError,)
         ) -> int:
    """Run one node on an EventsExecutor until Ctrl-C / SIGTERM. A node whose constructor raises one of `errors`
    (bad parameters, missing data) exits 2 with one line ``<name>: <reason>``; a clean stop exits 0; an exception in
    a callback ends the process with its traceback."""
    from rclpy.executors import ExternalShutdownException
    from rclpy.experimental import EventsExecutor

    rclpy.init(args=args, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())     # EventsExecutor.spin() would not wake: poll a flag
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    node = None
    try:
        try:
            node = make_node()
        except errors as e:
            print(f"{name}: {e}", file=sys.stderr)
            return 2
        executor = EventsExecutor()
        executor.add_node(node)
        # a callback's exception ends the process with its traceback (as the player process does): caught with the
        # constructor's, a ValueError in a callback looked like bad parameters, in one line saying nothing of where
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0


class BackgroundNode:
    """A node in its own rclpy context, spun on a daemon thread: for tools that watch a team while doing other work
    (`villa match`, benchmarks). Create subscriptions on `node`, then `start()`; `close()` stops it."""

    def __init__(self, name: str) -> None:
        from rclpy.context import Context

        self._ctx = Context()
        rclpy.init(context=self._ctx, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
        self.node = rclpy.create_node(name, context=self._ctx)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self) -> None:
        from rclpy.executors import SingleThreadedExecutor

        self._exec = SingleThreadedExecutor(context=self._ctx)
        self._exec.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, daemon=True, name=f"{self.node.get_name()}-spin")
        self._thread.start()

    def _spin(self) -> None:
        try:
            while self._ctx.ok() and not self._stop.is_set():
                self._exec.spin_once(timeout_sec=0.1)
        except Exception:  # the context was shut down
            pass

    def close(self) -> None:
        """Stop spinning, then destroy the node, then shut the context down (the order `spin` above keeps): the
        context shut down under the spinning executor can crash the process (a `villa match` test's died of a
        segmentation fault while closing so)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.node.destroy_node()
        rclpy.try_shutdown(context=self._ctx)
