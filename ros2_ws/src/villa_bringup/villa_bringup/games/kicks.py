"""Where each executed kick of a game sent the ball (KickTracker), from the ground truth the game samples."""

from __future__ import annotations

import math

from villa_bringup.accounting import team_relative
from villa_nao.field import HALF_LENGTH as F_HALF_LENGTH

KICK_FOLLOW = 3.0                 # simulated s after a kick started: where the ball is then is where the kick sent it


class KickTracker:
    """One player's kick requests (villa_motion.arbiter.KickRecord) with where each executed kick sent the ball: the
    ball's truth when the sample first sees the kick started and KICK_FOLLOW s later, in the team's field frame; the
    true ball in the kicker's torso frame then (against the ball the kick engine started with); and the nearest any
    other robot came to the ball in those KICK_FOLLOW s (a kick into a robot's legs stops short)."""

    def __init__(self, side: str, unum: int) -> None:
        self.key = (side, unum)
        self.seen: dict[int, tuple[float, object]] = {}                    # record number -> (game time, record)
        self.follow: dict[int, tuple[float, tuple[float, float]]] = {}     # -> (game time, ball at the start)
        self.moved: dict[int, tuple] = {}   # -> (m moved, degrees off the goal, ball at the start, KICK_FOLLOW s later)
        self.truth: dict[int, tuple[float, float]] = {}     # -> the true ball in the kicker's torso frame at the start
        self.others: dict[int, float] = {}                  # -> m, the nearest another robot came to the ball

    def sample(self, log, gt) -> None:
        side = self.key[0]
        bx, by, _ = team_relative(side, gt.ball[0], gt.ball[1], 0.0)
        near = min((math.dist(p.position[:2], gt.ball[:2]) for k, p in gt.players.items() if k != self.key),
                   default=math.inf)
        for r in log:
            self.seen.setdefault(r.n, (gt.game_time, r))
            if r.started is None or r.n in self.moved:
                continue
            if r.n not in self.follow:
                self.follow[r.n] = (gt.game_time, (bx, by))
                me = gt.players.get(self.key)
                if me is not None:
                    c, s = math.cos(me.yaw), math.sin(me.yaw)
                    dx, dy = gt.ball[0] - me.position[0], gt.ball[1] - me.position[1]
                    self.truth[r.n] = (c * dx + s * dy, -s * dx + c * dy)
            self.others[r.n] = min(self.others.get(r.n, math.inf), near)
            if gt.game_time - self.follow[r.n][0] >= KICK_FOLLOW - 1e-9:
                x0, y0 = self.follow[r.n][1]
                goal = math.atan2(-y0, F_HALF_LENGTH - x0)
                off = math.degrees(math.remainder(math.atan2(by - y0, bx - x0) - goal, 2 * math.pi))
                self.moved[r.n] = (math.hypot(bx - x0, by - y0), off, (x0, y0), (bx, by))

    def entries(self, unum: int) -> list[dict]:
        out = []
        for n, (time_seen, r) in sorted(self.seen.items()):
            e = {"time": round(time_seen, 2), "unum": unum, "kick": r.kick,
                 "ball": [round(r.ball[0], 3), round(r.ball[1], 3)], "outcome": r.outcome}
            if r.reason:
                e["reason"] = r.reason
            if n in self.moved:
                moved, off, start, end = self.moved[n]
                e["ball_moved"], e["off_goal_deg"] = round(moved, 2), round(off, 1)
                e["from"], e["to"] = [round(v, 2) for v in start], [round(v, 2) for v in end]
                e["others_within"] = round(self.others[n], 2) if math.isfinite(self.others[n]) else None
            if r.started_ball is not None:
                e["started_ball"] = [round(v, 3) for v in r.started_ball]
            if n in self.truth:
                e["ball_truth"] = [round(v, 3) for v in self.truth[n]]
            out.append(e)
        return out

