"""A short game through the nodes, recorded with `villa record`: each player's frame tree is in the MCAP file, at
10 Hz or more, and puts the robot where the simulator has it (integration; docs/architecture.md, "Frames")."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from bisect import bisect_left

import numpy as np
import pytest

pytestmark = pytest.mark.integration

PLAYERS = {"villa/p1/": "left", "allball/p1/": "right"}      # villa match 1 v 1: villa on the left
LEG = ["l_sole", "lfoot", "lankle", "lshank", "lthigh", "lhip2", "lhip1", "base_link", "odom"]


def _stamp(h) -> float:
    return h.stamp.sec + h.stamp.nanosec * 1e-9


def _matrix(tr) -> np.ndarray:
    from transforms3d.quaternions import quat2mat

    m = np.eye(4)
    r, p = tr.rotation, tr.translation
    m[:3, :3] = quat2mat((r.w, r.x, r.y, r.z))
    m[:3, 3] = (p.x, p.y, p.z)
    return m


def _pose_matrix(pose) -> np.ndarray:
    from geometry_msgs.msg import Transform, Vector3

    p = pose.position
    return _matrix(Transform(translation=Vector3(x=p.x, y=p.y, z=p.z), rotation=pose.orientation))


class Recorded:
    """The MCAP file's transforms by edge ((parent, child) -> sorted [(stamp, 4x4)]) and its other messages by topic."""

    def __init__(self, path) -> None:
        from mcap_ros2.reader import read_ros2_messages

        self.tf: dict[tuple[str, str], list[tuple[float, np.ndarray]]] = {}
        self.static: dict[tuple[str, str], np.ndarray] = {}
        self.topics: dict[str, list] = {}
        for m in read_ros2_messages(str(path)):
            topic = m.channel.topic
            if topic in ("/tf", "/tf_static"):
                for t in m.ros_msg.transforms:
                    edge = (t.header.frame_id, t.child_frame_id)
                    if topic == "/tf":
                        self.tf.setdefault(edge, []).append((_stamp(t.header), _matrix(t.transform)))
                    else:
                        self.static[edge] = _matrix(t.transform)
            else:
                self.topics.setdefault(topic, []).append(m.ros_msg)
        for samples in self.tf.values():
            samples.sort(key=lambda s: s[0])
        self.parent = {c: p for p, c in [*self.tf, *self.static]}

    def at(self, edge, t: float, within: float) -> np.ndarray | None:
        """The edge's transform nearest to time t, when one is within `within` s."""
        samples = self.tf[edge]
        stamps = [s for s, _ in samples]
        i = bisect_left(stamps, t)
        best = min((j for j in (i - 1, i) if 0 <= j < len(samples)), key=lambda j: abs(stamps[j] - t))
        return samples[best][1] if abs(stamps[best] - t) <= within else None

    def chain(self, frame: str) -> list[str]:
        out = [frame]
        while out[-1] in self.parent:
            out.append(self.parent[out[-1]])
        return out


def _yaw(m: np.ndarray) -> float:
    return math.atan2(m[1, 0], m[0, 0])


def test_a_recorded_game_carries_every_players_frame_tree(tmp_path, ros_domain):
    from villa_bringup import match as M
    from villa_nao import frames as Fr

    out = tmp_path / "game.mcap"
    rec: dict[str, subprocess.Popen] = {}

    def record(runners) -> None:     # at the kick-off, in the match's own ROS domain (play() sets it)
        # the topics the checks read (a recorder of every topic of both players falls behind an idle machine's
        # game, 2-3 times real time, and drops messages); /tf and /tf_static come with any selection
        rec["proc"] = subprocess.Popen([sys.executable, "-m", "villa_bringup.cli", "record", "-o", str(out),
                                        "/(villa|allball)/p1/(pose|odom|ground_truth|robot_description)"],
                                       stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True, env=dict(os.environ))

    try:
        # 24 simulated s: the recorder joins some wall seconds after the kick-off, when an idle machine has played
        # 6-7 simulated s (the match leases its ROS domain itself, so the recorder cannot start before it)
        result = M.play(M.match_args(duration=24.0, players=1, seed=1, log_dir=str(tmp_path / "match"),
                                     on_start=record))
    finally:
        proc = rec.get("proc")
        if proc is not None:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
            try:
                text = proc.communicate(timeout=60)[0]
            except subprocess.TimeoutExpired:
                proc.kill()
                text = proc.communicate()[0]
    assert result["duration"] >= 24.0
    assert proc.returncode == 0 and "recording /tf\n" in text and "recording /tf_static" in text, text
    got = Recorded(out)

    for prefix, side in PLAYERS.items():
        # the chain field -> odom -> base_link -> the leg's links -> sole; base_footprint below base_link
        assert got.chain(prefix + "l_sole") == [prefix + f for f in LEG] + ["field"]
        assert got.chain(prefix + "r_sole")[1:7] == [prefix + f for f in ("rfoot", "rankle", "rshank", "rthigh",
                                                                          "rhip2", "rhip1")]
        assert got.parent[prefix + "base_footprint"] == prefix + "base_link"
        # every link of the player's URDF (its latched robot_description) is a frame of the tree
        (urdf,) = got.topics[f"/{prefix}robot_description"]
        links = {lk.get("name") for lk in ET.fromstring(urdf.data).iter("link")}
        assert links <= set(got.parent) and prefix + "base_link" in links

        # the moving transforms at 10 Hz or more of simulated time, over most of the game
        for edge in [("field", prefix + "odom"), (prefix + "odom", prefix + "base_link"),
                     (prefix + "lankle", prefix + "lfoot")]:
            stamps = sorted({s for s, _ in got.tf[edge]})
            span = stamps[-1] - stamps[0]
            assert span > 6.0, (edge, span)
            assert (len(stamps) - 1) / span >= 10.0, (edge, len(stamps), span)

        # field -> base_link is the player's pose estimate: field -> odom at the estimate's stamp composed with the
        # walk odometry of that cycle (the odom topic) is the estimate, and odom -> base_link's planar part is that
        # odometry wherever it was published (the two rates need not meet at a stamp)
        odom = {round(_stamp(m.header), 6): _pose_matrix(m.pose.pose) for m in got.topics[f"/{prefix}odom"]}
        composed = 0
        for est in got.topics[f"/{prefix}pose"]:
            t = _stamp(est.header)
            c, o = got.at(("field", prefix + "odom"), t, 1e-6), odom.get(round(t, 6))
            if c is None or o is None:
                continue
            base = c @ o
            mine = Fr.planar_matrix((0.0, 0.0, Fr.side_yaw(side))) @ _pose_matrix(est.pose.pose)
            np.testing.assert_allclose(base[:2, 3], mine[:2, 3], atol=1e-6)
            assert abs(math.remainder(_yaw(base) - _yaw(mine), 2 * math.pi)) < 1e-6
            composed += 1
        assert composed >= 100, composed
        walked = 0
        for t, b in got.tf[(prefix + "odom", prefix + "base_link")]:
            o = odom.get(round(t, 6))
            if o is None:
                continue
            np.testing.assert_allclose(b[:2, 3], o[:2, 3], atol=1e-6)
            if math.hypot(b[0, 0], b[1, 0]) > 0.5:      # the heading, unless the torso is pitched near 90 deg (lying)
                assert abs(math.remainder(_yaw(b) - _yaw(o), 2 * math.pi)) < 1e-6
            walked += 1
        assert walked >= 60, walked

        # ... and where the simulator has the robot (its ground truth, team-relative) within localization's error
        errors = []
        for gt in got.topics[f"/{prefix}ground_truth"]:
            t = _stamp(gt.header)
            c = got.at(("field", prefix + "odom"), t, 0.045)
            b = got.at((prefix + "odom", prefix + "base_link"), t, 0.045)
            if c is None or b is None:
                continue
            truth = Fr.planar_matrix((0.0, 0.0, Fr.side_yaw(side))) @ _pose_matrix(gt.pose)
            base = c @ b
            if truth[2, 2] < 0.9:                       # lying or falling: neither pose nor tilt is the walk's
                continue
            tilt = math.acos(min(1.0, float(base[:3, 2] @ truth[:3, 2])))
            errors.append((math.dist(base[:2, 3], truth[:2, 3]), abs(math.remainder(_yaw(base) - _yaw(truth),
                                                                                        2 * math.pi)),
                           abs(base[2, 3] - truth[2, 3]), tilt))
        assert len(errors) >= 100, len(errors)
        position, heading, height, tilt = np.median(np.array(errors), axis=0)
        assert position < 0.3 and heading < 0.3, (prefix, position, heading)
        assert height < 0.05 and tilt < 0.15, (prefix, height, tilt)   # the torso over the floor, tilted as it is
