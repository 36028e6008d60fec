"""What a game is measured by, from the server's ground truth (`villa match` and `villa games` both count this way).

Sampled while the game runs (after the kick-off): ball possession (the team whose player is nearest the ball),
falls (a robot whose torso up-axis drops below FALLEN_UPRIGHT; one per fall: a fall ends only when the robot has
stood upright, up-axis above RECOVERED_UPRIGHT, for RECOVERED_TIME, so a get-up that folds the torso forward or fails
and starts again is not counted as new falls), the share of robot samples down, and each upright robot's localization
error (its own pose estimate against the truth, in its team's field frame).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from villa_nao import field as F

FALLEN_UPRIGHT = 0.5          # torso up-axis z below this counts as lying on the ground
RECOVERED_UPRIGHT = 0.9       # ... and a fall ends after RECOVERED_TIME s above this
RECOVERED_TIME = 1.0


def team_relative(side: str, x: float, y: float, yaw: float) -> tuple[float, float, float]:
    """The server's global (left team's) frame -> a team's own field frame (the right team's is turned 180°)."""
    if side == "left":
        return x, y, yaw
    return -x, -y, math.remainder(yaw + math.pi, 2 * math.pi)


def beamed(gt) -> bool:
    """Every player stands upright on the field in its own half: the beams before the kick-off have happened (the
    servers put a joining robot upright outside the side line, on its own half)."""
    return all(p.upright > 0.9 and (p.position[0] < 0) == (side == "left") and abs(p.position[1]) < F.HALF_WIDTH
               and abs(p.position[0]) < F.HALF_LENGTH for (side, _), p in gt.players.items())


@dataclass
class TeamStats:
    name: str
    side: str
    score: int = 0
    possession_samples: int = 0
    falls: int = 0
    robot_samples: int = 0
    down_samples: int = 0
    loc_errors: list[float] = field(default_factory=list)
    heading_errors: list[float] = field(default_factory=list)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    v = sorted(values)
    k = (len(v) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


class Accounting:
    """Per-team statistics from ground-truth samples (villa_sim.trainer.GroundTruth)."""

    def __init__(self, left: str, right: str) -> None:
        self.stats = {"left": TeamStats(left, "left"), "right": TeamStats(right, "right")}
        self.samples = 0
        self._fallen: dict[tuple[str, int], bool] = {}        # a fall counted and not ended yet
        self._up_since: dict[tuple[str, int], float | None] = {}

    def sample(self, gt, estimates: Mapping[tuple[str, int], tuple[float, float, float]] | None = None) -> None:
        """One ground-truth sample; `estimates`: (team name, unum) -> the player's own pose estimate (x, y, yaw)."""
        best, best_d = None, math.inf
        for (side, unum), p in gt.players.items():
            st = self.stats[side]
            d = math.dist(p.position[:2], gt.ball[:2])
            if d < best_d:
                best, best_d = side, d
            key = (side, unum)
            down = p.upright < FALLEN_UPRIGHT
            st.robot_samples += 1
            st.down_samples += down
            if down:
                if not self._fallen.get(key, False):
                    st.falls += 1
                self._fallen[key], self._up_since[key] = True, None
            elif p.upright > RECOVERED_UPRIGHT:
                since = self._up_since.get(key)
                if since is None:
                    self._up_since[key] = since = gt.sim_time
                if gt.sim_time - since >= RECOVERED_TIME - 1e-9:
                    self._fallen[key] = False
            else:
                self._up_since[key] = None
            est = estimates.get((st.name, unum)) if estimates is not None else None
            if est is not None and not down:
                tx, ty, tyaw = team_relative(side, p.position[0], p.position[1], p.yaw)
                st.loc_errors.append(math.hypot(est[0] - tx, est[1] - ty))
                st.heading_errors.append(abs(math.degrees(math.remainder(est[2] - tyaw, 2 * math.pi))))
        if best is not None:
            self.stats[best].possession_samples += 1
        self.samples += 1
        self.stats["left"].score, self.stats["right"].score = gt.score_left, gt.score_right

    def summary(self, side: str) -> dict:
        s = self.stats[side]

        def mean(v):
            return sum(v) / len(v) if v else None

        return {"team": s.name, "score": s.score, "possession": s.possession_samples / max(self.samples, 1),
                "falls": s.falls, "down": s.down_samples / max(s.robot_samples, 1),
                "loc_error_mean": mean(s.loc_errors), "loc_error_p95": percentile(s.loc_errors, 0.95),
                "heading_error_mean": mean(s.heading_errors), "loc_samples": len(s.loc_errors)}
