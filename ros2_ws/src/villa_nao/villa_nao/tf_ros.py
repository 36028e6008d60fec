"""The frame tree on ROS (rclpy; the nodes only): /tf, /tf_static and robot_description, as tf2 and
robot_state_publisher put them (REP-105; the frames and their transforms: villa_nao.frames).

Moving transforms go on the global /tf (reliable, keep-last 100, volatile: tf2's broadcaster), fixed ones on
/tf_static (reliable, keep-last 1, transient local: the static broadcaster's; one message with all of a node's static
transforms), the URDF on ``<namespace>/robot_description`` (std_msgs/String, reliable, keep-last 1, transient local, as
robot_state_publisher latches it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from geometry_msgs.msg import TransformStamped
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from villa_nao.frames import quaternions
from villa_nao.ros import wanted

TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST,
                    durability=DurabilityPolicy.VOLATILE)
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def transform_messages(frames: Sequence[tuple[str, str]], matrices: np.ndarray, stamp,
                       out: list[TransformStamped] | None = None) -> list[TransformStamped]:
    """geometry_msgs/TransformStamped (parent <- child) of (parent, child) pairs and their 4x4s at `stamp`; filled
    into `out` (the same pairs' messages from an earlier call) when given, which is cheaper than new ones."""
    m = np.asarray(matrices, dtype=float)
    q = quaternions(m[:, :3, :3]).tolist()
    p = m[:, :3, 3].tolist()
    if out is None:
        out = []
        for parent, child in frames:
            t = TransformStamped(child_frame_id=child)
            t.header.frame_id = parent
            out.append(t)
    for t, (x, y, z), (qw, qx, qy, qz) in zip(out, p, q, strict=True):
        t.header.stamp = stamp
        tr, rot = t.transform.translation, t.transform.rotation
        tr.x, tr.y, tr.z = x, y, z
        rot.w, rot.x, rot.y, rot.z = qw, qx, qy, qz
    return out


class TfPublisher:
    """One node's /tf (and, when it has fixed frames, /tf_static) publisher; moving transforms are built only while
    something subscribes to /tf (rviz, Foxglove, a tf2 listener, `villa record`)."""

    def __init__(self, node) -> None:
        self.node = node
        self.pub = node.create_publisher(TFMessage, "/tf", TF_QOS)
        self._static = None
        self._cache: dict[tuple, list[TransformStamped]] = {}

    def wanted(self) -> bool:
        return wanted(self.pub)

    def publish(self, stamp, frames: Sequence[tuple[str, str]], matrices: np.ndarray) -> None:
        key = tuple(frames)
        msgs = transform_messages(frames, matrices, stamp, self._cache.get(key))
        self._cache[key] = msgs
        self.pub.publish(TFMessage(transforms=msgs))

    def publish_static(self, stamp, transforms: Sequence[tuple[str, str, np.ndarray]]) -> None:
        """The node's fixed frames, latched (a later call replaces them for late subscribers)."""
        if self._static is None:
            self._static = self.node.create_publisher(TFMessage, "/tf_static", LATCHED)
        msgs = transform_messages([(a, b) for a, b, _ in transforms], np.stack([m for _, _, m in transforms]), stamp)
        self._static.publish(TFMessage(transforms=msgs))


def publish_robot_description(node, urdf: str):
    """The URDF as the node's read-only ``robot_description`` parameter and latched on ``robot_description``
    (relative: ``<namespace>/robot_description``); returns the publisher (keep it: it holds the latched message)."""
    from rcl_interfaces.msg import ParameterDescriptor

    node.declare_parameter("robot_description", urdf, ParameterDescriptor(
        read_only=True, description="the URDF of this player's Nao (villa_nao.urdf), link names frame-prefixed"))
    pub = node.create_publisher(String, "robot_description", LATCHED)
    pub.publish(String(data=urdf))
    return pub
