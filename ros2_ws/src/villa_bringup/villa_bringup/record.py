"""`villa record`: write chosen topics of a running team to an MCAP file with ROS 2 message encoding.

    villa record -o game.mcap '/villa/p1/.*'            # regular expressions over topic names
    villa record -o game.mcap /villa/p1/pose /villa/p1/clock --duration 30

Messages are stored as they travel (CDR, subscribed raw), each channel with its `ros2msg` schema (the .msg definition
with its dependencies appended, as rosbag2 writes them), so `ros2 bag info/play`, Foxglove and `mcap_ros2` read the
file. Topics that appear after the start are picked up (discovery is repeated every second). `/tf` and `/tf_static`
are recorded with the chosen topics (`--no-tf`: not), so a recording shows the robots in the field; a topic whose
publishers all latch it (transient local: `/tf_static`, `robot_description`) is subscribed transient local, as rosbag2
does, so what they published before the recording began is in it too. Ctrl-C closes the file cleanly.
"""

from __future__ import annotations

import argparse
import importlib
import re
import signal
import sys
import threading
import time
from pathlib import Path

PRIMITIVES = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
              "int64", "uint64", "string", "wstring", "octet"}
SEPARATOR = "=" * 80
TF_TOPICS = ("/tf", "/tf_static")       # recorded with any selection unless --no-tf


class RecordError(RuntimeError):
    pass


def _msg_file(full_type: str) -> Path:
    pkg, _, name = full_type.partition("/")
    from ament_index_python.packages import PackageNotFoundError, get_package_share_directory

    try:
        path = Path(get_package_share_directory(pkg)) / "msg" / f"{name}.msg"
    except PackageNotFoundError as e:
        raise RecordError(f"no interface package {pkg!r} for {full_type}") from e
    if not path.exists():
        raise RecordError(f"no definition {path} for {full_type}")
    return path


def _dependencies(text: str, pkg: str) -> list[str]:
    deps = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or "=" in line.split()[0] or len(line.split()) < 2:
            continue
        ftype = re.sub(r"\[.*\]$", "", line.split()[0])
        ftype = re.sub(r"<=\d+$", "", ftype)
        if ftype in PRIMITIVES or ftype.startswith(("string<=", "wstring<=")):
            continue
        if len(line.split()) >= 3 and "=" in line:   # a constant: "uint8 A = 1"
            continue
        if ftype == "Header":
            ftype = "std_msgs/Header"
        deps.append(ftype if "/" in ftype else f"{pkg}/{ftype}")
    return deps


def message_definition(full_type: str) -> str:
    """`pkg/msg/Type` or `pkg/Type` -> the ros2msg schema text: the type's .msg and every dependency's, once each."""
    full_type = full_type.replace("/msg/", "/")
    root = _msg_file(full_type).read_text()
    parts, seen = [root], {full_type}
    queue = _dependencies(root, full_type.split("/")[0])
    while queue:
        dep = queue.pop(0)
        if dep in seen:
            continue
        seen.add(dep)
        text = _msg_file(dep).read_text()
        parts.append(f"{SEPARATOR}\nMSG: {dep}\n{text}")
        queue.extend(_dependencies(text, dep.split("/")[0]))
    return "\n".join(parts)


def message_class(type_name: str):
    pkg, kind, name = type_name.split("/")
    return getattr(importlib.import_module(f"{pkg}.{kind}"), name)


class Recorder:
    """Subscribes (raw) to the topics matching the patterns and appends every message to an MCAP file."""

    def __init__(self, node, output: Path, patterns: list[str], extra: tuple[str, ...] = TF_TOPICS) -> None:
        from mcap.writer import CompressionType, Writer

        self.node = node
        self.patterns = [re.compile(p if p.startswith("^") else f"^{p}$") for p in patterns]
        self.extra = set(extra)                     # topics recorded besides the patterns' (exact names)
        self._file = open(output, "wb")
        self.writer = Writer(self._file, compression=CompressionType.ZSTD)
        self.writer.start(profile="ros2", library="villa record")
        self.channels: dict[str, int] = {}
        self.schemas: dict[str, int] = {}
        self.count = 0
        self._lock = threading.Lock()
        self._closed = False

    def selected(self, topic: str) -> bool:
        """Whether the patterns (not the extra topics) select `topic`."""
        return any(p.match(topic) for p in self.patterns)

    DEPTH = 1000      # messages a subscription holds while the recorder is busy (/tf of a team: ~100 per second)

    def qos(self, topic: str):
        """The subscription's QoS: reliable, keep-last DEPTH (a burst of a game that runs faster than real time
        waits there instead of being overwritten); transient local when every publisher of the topic offers
        it (a latched topic), volatile otherwise (a transient-local subscription would not match a volatile
        publisher)."""
        from rclpy.qos import DurabilityPolicy, QoSProfile

        infos = self.node.get_publishers_info_by_topic(topic)
        latched = bool(infos) and all(i.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL for i in infos)
        return QoSProfile(depth=self.DEPTH, durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else
                          DurabilityPolicy.VOLATILE)

    def discover(self) -> list[str]:
        """Subscribe to matching topics not yet recorded; returns the new ones."""
        new = []
        for topic, types in self.node.get_topic_names_and_types():
            if topic in self.channels or not (topic in self.extra or self.selected(topic)):
                continue
            type_name = types[0]
            schema_name = type_name.replace("/msg/", "/")
            if schema_name not in self.schemas:
                self.schemas[schema_name] = self.writer.register_schema(
                    name=schema_name, encoding="ros2msg", data=message_definition(type_name).encode())
            cid = self.writer.register_channel(topic=topic, message_encoding="cdr",
                                               schema_id=self.schemas[schema_name])
            self.channels[topic] = cid
            self.node.create_subscription(message_class(type_name), topic,
                                          lambda data, c=cid: self._write(c, data), self.qos(topic), raw=True)
            new.append(topic)
        return new

    def _write(self, channel: int, data: bytes) -> None:
        now = time.time_ns()
        with self._lock:
            if not self._closed:
                self.writer.add_message(channel_id=channel, log_time=now, data=data, publish_time=now)
                self.count += 1

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self.writer.finish()
                self._file.close()


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("topics", nargs="+", help="topic names or regular expressions (e.g. '/villa/p1/.*')")
    p.add_argument("-o", "--output", default="villa.mcap", help="MCAP file to write (default villa.mcap)")
    p.add_argument("--duration", type=float, default=0.0, help="wall seconds to record (default: until Ctrl-C)")
    p.add_argument("--wait", type=float, default=5.0, help="s to wait for a matching topic before giving up")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument("--no-tf", action="store_true", help="leave out /tf and /tf_static (recorded by default)")


def main(args: argparse.Namespace | None = None) -> int:
    if args is None:
        parser = argparse.ArgumentParser(prog="villa record", description=__doc__.splitlines()[0])
        add_arguments(parser)
        args = parser.parse_args()
    out = Path(args.output)
    if out.exists() and not args.force:
        print(f"villa record: {out} exists (use --force to overwrite)", file=sys.stderr)
        return 2
    for p in args.topics:
        try:
            re.compile(p)
        except re.error as e:
            print(f"villa record: {p!r} is not a valid pattern: {e}", file=sys.stderr)
            return 2
    import rclpy
    from rclpy.experimental import EventsExecutor

    rclpy.init(signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    node = rclpy.create_node("villa_record")
    executor = EventsExecutor()       # a fraction of the other executors' cost per message: the recorder keeps up
    executor.add_node(node)
    rec = Recorder(node, out, args.topics, () if args.no_tf else TF_TOPICS)
    code = 0
    try:
        start = time.monotonic()
        last_discover = last_print = 0.0
        while not stop.is_set():
            now = time.monotonic()
            if now - last_discover > 1.0:
                last_discover = now
                for t in rec.discover():
                    print(f"villa record: recording {t}", flush=True)
                if not any(rec.selected(t) for t in rec.channels) and now - start > args.wait:
                    print(f"villa record: no topic matches {' '.join(args.topics)} after {args.wait:.0f} s "
                          f"(is the team running, with the same ROS_DOMAIN_ID?)", file=sys.stderr)
                    code = 1
                    break
            if now - last_print > 2.0 and rec.channels:
                last_print = now
                print(f"villa record: {rec.count} messages on {len(rec.channels)} topics, {now - start:.0f} s",
                      flush=True)
            if args.duration and now - start >= args.duration:
                break
            executor.spin_once(timeout_sec=0.05)
    except RecordError as e:
        print(f"villa record: {e}", file=sys.stderr)
        code = 1
    finally:
        rec.close()
        node.destroy_node()
        rclpy.try_shutdown()
    print(f"villa record: wrote {rec.count} messages on {len(rec.channels)} topics to {out}")
    return code
