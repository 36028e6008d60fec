"""One vision frame -> observations: the processing the perception node runs (UT Austin Villa 2011 report §4.2).

Inputs are plain values (the node converts messages): landmarks, ball, players and lines in polar camera
coordinates (m, rad), head angles at the time of the image, the accelerometer. Our own arms and feet, which SimSpark
reports as a player with our team and uniform number, are dropped; so is anything closer than `self_radius`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from villa_perception.vision import NoiseModel, Seen, camera_to_footprint, ground_observation, polar_to_camera


@dataclass(frozen=True)
class Polar:
    distance: float
    azimuth: float
    elevation: float


@dataclass(frozen=True)
class PlayerSeen:
    team: str
    unum: int
    teammate: bool
    parts: dict[str, Polar]


@dataclass(frozen=True)
class Frame:
    landmarks: dict[str, Polar]                     # flags and goal posts by team-relative name
    ball: Polar | None
    players: list[PlayerSeen]
    lines: list[tuple[Polar, Polar]]


def _points(polars: list[Polar]) -> np.ndarray:
    if not polars:
        return np.zeros((0, 3))
    return polar_to_camera([p.distance for p in polars], [p.azimuth for p in polars], [p.elevation for p in polars])


def process(frame: Frame, head_yaw: float, head_pitch: float, acc=None, our_team: str = "", our_unum: int = 0,
            robot_type: int = 0, noise: NoiseModel | None = None, self_radius: float = 0.35) -> list[Seen]:
    noise = noise or NoiseModel()
    out: list[Seen] = []
    names = list(frame.landmarks)
    pts = camera_to_footprint(_points([frame.landmarks[n] for n in names]), head_yaw, head_pitch, acc, robot_type)
    for n, p in zip(names, pts, strict=True):
        out.append(ground_observation(p, "flag" if n.startswith("F") else "goal_post", n, noise))
    if frame.ball is not None:
        p = camera_to_footprint(_points([frame.ball]), head_yaw, head_pitch, acc, robot_type)[0]
        out.append(ground_observation(p, "ball", "B", noise))
    for pl in frame.players:
        if pl.teammate and pl.unum == our_unum or (pl.team == our_team and pl.unum == our_unum and our_team):
            continue                                    # our own arms and feet
        parts = [pl.parts[k] for k in ("head", "rfoot", "lfoot", "rlowerarm", "llowerarm") if k in pl.parts]
        if not parts:
            continue
        p = camera_to_footprint(_points(parts), head_yaw, head_pitch, acc, robot_type)
        xy = p[:, :2].mean(axis=0)
        if np.hypot(*xy) < self_radius:
            continue
        kind = "teammate" if pl.teammate else "opponent"
        out.append(ground_observation(np.array([xy[0], xy[1], 0.0]), kind, f"{pl.team}/{pl.unum}", noise))
    for a, b in frame.lines:
        ends = camera_to_footprint(_points([a, b]), head_yaw, head_pitch, acc, robot_type)
        # project along the view ray onto the ground plane (z = -torso height) is unnecessary: lines lie on the
        # ground, so the levelled torso-frame x, y of the endpoints are already their ground positions
        out.append(ground_observation(ends[0], "line", "line", noise, end=ends[1]))
    return out
