"""What a game is measured by, from the server's ground truth (`villa match` and `villa games` both count this way).

Sampled while the game runs (after the kick-off): ball possession (the team whose player is nearest the ball),
territory (the ball's mean x in the team's own frame and the share of samples in its attacking third: how far a
team carries the ball short of a goal),
falls (a robot whose torso up-axis drops below FALLEN_UPRIGHT; one per fall: a fall ends only when the robot has
stood upright, up-axis above RECOVERED_UPRIGHT, for RECOVERED_TIME, so a get-up that folds the torso forward or fails
and starts again is not counted as new falls), the share of robot samples down, and each upright robot's localization
error (its own pose estimate against the truth, in its team's field frame), per kick-off the s until the ball moved
off its spot, the free kicks each team was awarded (a foul of the other team's: on SimSpark mostly a set piece's
taker touching the ball twice), and the field players' speeds in play: each robot's track cut into SPEED_WINDOW-s
windows, a window counted when the robot stood upright (up-axis above RECOVERED_UPRIGHT) in play on through all of it
and was not moved by the referee (the goalie, unum 1, left out).

Every fall is logged with its context, to find its cause: the ball's distance and the nearest other
robot's from the truth (when the fall is detected, and the closest any came in the CONTACT_WINDOW before: a teammate or
an opponent), and, where the player's pipeline runs in process (`villa games`), what its motion did in the last cycle
it was upright (mode, walk speed and turn, time since its last get-up ended). `fall_cause` names one cause per fall;
the summary counts them.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from villa_nao import field as F

FALLEN_UPRIGHT = 0.5          # torso up-axis z below this counts as lying on the ground
RECOVERED_UPRIGHT = 0.9       # ... and a fall ends after RECOVERED_TIME s above this
RECOVERED_TIME = 1.0
NEAR_ROBOT = 0.4              # m between torsos: another robot this close when a robot falls counts as a collision
CONTACT_WINDOW = 1.0          # s before the fall is detected in which that closeness counts (a pushed robot tips over
                              # for up to a second before its torso is down, and the other one walks on)
AFTER_GETUP = 3.0             # s: a fall this soon after a get-up ended is the get-up's
TURNING = 0.3                 # rad/s: a walk turning faster than this is "turning"
WALKING = 0.05                # m/s: slower than this (and not turning) the walk is standing or jogging in place
ATTACK_THIRD = F.HALF_LENGTH / 3   # m: the ball beyond this x (team frame) is in the team's attacking third
KICKOFF_MOVED = 0.3           # m from its spot at the kick-off: the ball moved this far has been kicked off
KICKOFF_KICK_WITHIN = 3.0     # s: a kick-off kicked within this is kicked at once (§11.2.1)
SPEED_WINDOW = 1.0            # s: the windows a field player's speed in play is measured over
RELOCATED = 3.0               # m/s between two samples: faster than any robot walks, a referee's relocation or a beam
GOALIE_UNUM = 1               # the goalie's unum (villa's and the league's convention): not a field player's speed
FREE_KICK_MODES = {"free_kick_left": "left", "direct_free_kick_left": "left",      # play mode -> the side awarded it
                   "free_kick_right": "right", "direct_free_kick_right": "right"}


@dataclass(frozen=True)
class MotionContext:
    """What a player's motion did in the last cycle it was upright (villa_bringup.pipeline)."""

    time: float
    mode: str                     # villa_motion.arbiter.Mode value
    active: str                   # the motion status' active name (walk, stand, kick_..., a skill)
    speed: float                  # m/s of the walk's current steps
    turn: float                   # rad/s
    since_getup: float | None     # s since its last get-up ended, None if none yet


def fall_cause(ctx: MotionContext | None, nearest: float) -> str:
    """One cause per fall, the first that applies: after a get-up, collision (another robot within NEAR_ROBOT m:
    `nearest`, the closest one came in the CONTACT_WINDOW before the fall), kick, skill, turning, walking, standing (or
    unknown motion when no context is known, e.g. `villa match`, which sees only the truth)."""
    if ctx is not None and ctx.since_getup is not None and ctx.since_getup < AFTER_GETUP:
        return "after a get-up"
    if nearest < NEAR_ROBOT:
        return "collision"
    if ctx is None:
        return "unknown motion"
    if ctx.mode in ("kick", "stopping"):
        return "kick"
    if ctx.mode in ("skill", "getup"):
        return "skill"
    if abs(ctx.turn) > TURNING:
        return "turning"
    if ctx.speed > WALKING:
        return "walking"
    return "standing"


def team_relative(side: str, x: float, y: float, yaw: float) -> tuple[float, float, float]:
    """The server's global (left team's) frame -> a team's own field frame (the right team's is turned 180°)."""
    if side == "left":
        return x, y, yaw
    return -x, -y, math.remainder(yaw + math.pi, 2 * math.pi)


SETTLE = 3.0      # simulated s every player stands beamed on its half before a host gives the kick-off (the kick-off
                  # taker settles after its drop, then lines up its kick: villa_strategy.decision)


GAME_LENGTH = 2 * F.HALF_TIME   # simulated s of play after which both servers end a game (GameOver, the clock
                                # stops): two halves (villa sim's referee plays the second as SimSpark's does)
SERVER_NAMES = {"villa": "villa sim", "simspark": "SimSpark"}


def duration_error(server: str, duration: float) -> str | None:
    """Why `duration` simulated s of play cannot be had on `server` (the game ends at GameOver before), or None."""
    if duration > GAME_LENGTH:
        return (f"--duration {duration:g}: {SERVER_NAMES.get(server, server)} ends a game after {GAME_LENGTH:.0f} "
                f"simulated s (two halves of {F.HALF_TIME:.0f} s)")
    return None


HALF_TIME_WAIT = 10.0   # s of the players' time a host waits at most at half time for every player to stand beamed


class HalfTime:
    """The second half's kick-off. At half time both servers' referees go back to BeforeKickOff (SimSpark at 300 s;
    villa sim as SimSpark, VillaSoccerSimulation.half_time) and the players beam to their half. The host gives the
    right team the kick-off once every player has stood beamed on its half for SETTLE s of the players' time, as before
    the first kick-off, or after HALF_TIME_WAIT s whatever they do (a robot that is down must not stop the game).
    Kicked off at once, the players had not beamed: the referee put the left team's robot in the right team's kick-off
    circle off the field."""

    def __init__(self) -> None:
        self.started: float | None = None     # the players' time when the half time began
        self.since: float | None = None       # ... since when every player stands beamed
        self.kicked_off = False

    @property
    def pending(self) -> bool:
        """Between the first half's end and the second half's kick-off."""
        return self.started is not None and not self.kicked_off

    def due(self, gt, now: float) -> bool:
        """True once, when the host should kick the second half off; `now` is the players' time (s)."""
        if self.kicked_off:
            return False
        if self.started is None:
            if not (gt.play_mode == "BeforeKickOff" and gt.game_time > 1.0):
                return False
            self.started = now
        self.since = (self.since if self.since is not None else now) if beamed(gt) else None
        self.kicked_off = (self.since is not None and now - self.since >= SETTLE - 1e-9) or \
            now - self.started >= HALF_TIME_WAIT
        return self.kicked_off


def game_over(gt) -> bool:
    """The server ended the game (after its second half): a host stops there, whatever --duration asked."""
    return gt.play_mode == "GameOver"


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
    fall_log: list[dict] = field(default_factory=list)
    ball_x_sum: float = 0.0           # the ball's x in the team's own frame, summed over samples (territory)
    attack_samples: int = 0           # samples with the ball in the team's attacking third
    walked: float = 0.0               # m the team's upright robots moved between samples, summed
    kickoffs: list[float | None] = field(default_factory=list)   # per own kick-off: s until the ball moved
    free_kicks: int = 0               # free kicks the team was awarded (the referee's calls on the other team's fouls)
    speeds: list[float] = field(default_factory=list)   # m/s of its field players per SPEED_WINDOW upright in play


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    v = sorted(values)
    k = (len(v) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


class Accounting:
    """Per-team statistics from ground-truth samples (villa_sim.trainer.GroundTruth)."""

    def __init__(self, left: str, right: str,
                 context: Callable[[str, int], MotionContext | None] | None = None) -> None:
        """`context(team name, unum)`: the player's motion context for a fall's log, when it is known."""
        self.stats = {"left": TeamStats(left, "left"), "right": TeamStats(right, "right")}
        self.context = context
        self.samples = 0
        self._fallen: dict[tuple[str, int], bool] = {}        # a fall counted and not ended yet
        self._up_since: dict[tuple[str, int], float | None] = {}
        self._closest: dict[tuple[str, int], deque] = {}       # (sim time, nearest other robot m) in CONTACT_WINDOW
        self._last_xy: dict[tuple[str, int], tuple[float, float]] = {}
        self._window: dict[tuple[str, int], tuple[float, float, float] | None] = {}   # (start time, x, y) or None
        self._last_t = -math.inf                               # the last sample's simulated time
        self._mode: str | None = None
        self._kickoff: tuple[str, float, tuple[float, float]] | None = None   # side, game time, ball: not moved yet
        self._game_time = 0.0                                  # the last sample's

    def sample(self, gt, estimates: Mapping[tuple[str, int], tuple[float, float, float]] | None = None) -> None:
        """One ground-truth sample; `estimates`: (team name, unum) -> the player's own pose estimate (x, y, yaw)."""
        best, best_d = None, math.inf
        for (side, unum), p in gt.players.items():
            st = self.stats[side]
            d = math.dist(p.position[:2], gt.ball[:2])
            if d < best_d:
                best, best_d = side, d
            key = (side, unum)
            recent = self._closest.setdefault(key, deque())
            recent.append((gt.sim_time, *self._nearest(gt, key)))
            while recent[0][0] < gt.sim_time - CONTACT_WINDOW - 1e-9:
                recent.popleft()
            down = p.upright < FALLEN_UPRIGHT
            last = self._last_xy.get(key)
            moved = last is not None and math.dist(last, p.position[:2]) > RELOCATED * (gt.sim_time - self._last_t)
            if last is not None and not down:
                st.walked += math.dist(last, p.position[:2])
            self._last_xy[key] = (p.position[0], p.position[1])
            if unum != GOALIE_UNUM:
                self._speed_window(st, key, gt.sim_time, p.position,
                                   p.upright > RECOVERED_UPRIGHT and gt.play_mode == "PlayOn" and not moved)
            st.robot_samples += 1
            st.down_samples += down
            if down:
                if not self._fallen.get(key, False):
                    st.falls += 1
                    self._log_fall(st, unum, gt, p, d)
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
        self._watch_play_mode(gt)
        for side, st in self.stats.items():
            bx = team_relative(side, gt.ball[0], gt.ball[1], 0.0)[0]
            st.ball_x_sum += bx
            st.attack_samples += bx > ATTACK_THIRD
        self.samples += 1
        self._last_t = gt.sim_time
        self.stats["left"].score, self.stats["right"].score = gt.score_left, gt.score_right

    def _speed_window(self, st: TeamStats, key, t: float, position, in_play: bool) -> None:
        """The robot's speed window: a window that ends with the robot upright in play throughout gives one speed; a
        sample down, out of play or relocated ends it unmeasured (the next window starts at the next sample in play)."""
        w = self._window.get(key)
        if not in_play:
            self._window[key] = None
            return
        if w is None:
            self._window[key] = (t, position[0], position[1])
        elif t - w[0] >= SPEED_WINDOW - 1e-6:
            st.speeds.append(math.hypot(position[0] - w[1], position[1] - w[2]) / (t - w[0]))
            self._window[key] = (t, position[0], position[1])

    def _watch_play_mode(self, gt) -> None:
        """The play mode's changes: each free kick (FREE_KICK_MODES) is counted for the side awarded it; each kick-off
        (the mode turning KickOff_Left / _Right) gets the s until the ball, seen on the centre spot, first lies
        KICKOFF_MOVED m from it, on the kicking team's list (None while it has not moved; SimSpark's referee turns the
        mode to PlayOn after its kick-off time, the ball still on the spot)."""
        mode = gt.play_mode
        self._game_time = gt.game_time
        if mode != self._mode:
            if mode in FREE_KICK_MODES:
                self.stats[FREE_KICK_MODES[mode]].free_kicks += 1
            elif mode in ("KickOff_Left", "KickOff_Right"):
                side = "left" if mode == "KickOff_Left" else "right"
                self.stats[side].kickoffs.append(None)
                self._kickoff = (side, gt.game_time, False)
        self._mode = mode
        if self._kickoff is not None:
            # timed from the centre spot once the ball was seen there: SimSpark's referee moves the ball there from the
            # net after the kick-off has begun (its first sample showed it in the net, and every kick-off after a goal
            # was timed at 0.2 s, the next sample)
            side, since, placed = self._kickoff
            off = math.hypot(gt.ball[0], gt.ball[1])
            if not placed:
                self._kickoff = (side, since, off < KICKOFF_MOVED)
            elif off >= KICKOFF_MOVED:
                self.stats[side].kickoffs[-1] = round(gt.game_time - since, 2)
                self._kickoff = None

    @staticmethod
    def _nearest(gt, key) -> tuple[float, str | None]:
        """The nearest other robot's distance (m) and side (None: no other robot)."""
        p = gt.players[key]
        return min(((math.dist(p.position[:2], q.position[:2]), k[0]) for k, q in gt.players.items() if k != key),
                   default=(math.inf, None))

    def _log_fall(self, st: TeamStats, unum: int, gt, p, ball: float) -> None:
        nearest, _ = self._nearest(gt, (st.side, unum))
        _, closest, side = min(self._closest[(st.side, unum)], key=lambda e: e[1])
        ctx = self.context(st.name, unum) if self.context is not None else None

        def metres(d):
            return round(d, 2) if math.isfinite(d) else None

        entry = {"time": round(gt.game_time, 2), "unum": unum, "cause": fall_cause(ctx, closest),
                 "ball": round(ball, 2), "nearest_robot": metres(nearest), "closest_robot": metres(closest),
                 "closest_is": None if side is None else ("teammate" if side == st.side else "opponent")}
        if ctx is not None:
            entry.update(mode=ctx.mode, active=ctx.active, speed=round(ctx.speed, 3), turn=round(ctx.turn, 3),
                         since_getup=None if ctx.since_getup is None else round(ctx.since_getup, 2))
        st.fall_log.append(entry)

    def _kickoffs(self, side: str) -> list[float | None]:
        """The side's kick-off times; a kick-off that began less than KICKOFF_KICK_WITHIN s before the last sample
        and has not moved the ball yet is left out: the game ended before it could be kicked in time or not."""
        times = list(self.stats[side].kickoffs)
        if (self._kickoff is not None and self._kickoff[0] == side
                and self._game_time - self._kickoff[1] < KICKOFF_KICK_WITHIN):
            times.pop()
        return times

    def summary(self, side: str) -> dict:
        s = self.stats[side]

        def mean(v):
            return sum(v) / len(v) if v else None

        return {"team": s.name, "score": s.score, "possession": s.possession_samples / max(self.samples, 1),
                "ball_x_mean": s.ball_x_sum / max(self.samples, 1),
                "attacking_third": s.attack_samples / max(self.samples, 1),
                "falls": s.falls, "down": s.down_samples / max(s.robot_samples, 1), "walked": s.walked,
                "loc_error_mean": mean(s.loc_errors), "loc_error_p95": percentile(s.loc_errors, 0.95),
                "heading_error_mean": mean(s.heading_errors), "loc_samples": len(s.loc_errors),
                "kickoff_times": self._kickoffs(side), "free_kicks": s.free_kicks,
                "speed_median": percentile(s.speeds, 0.5), "speed_p90": percentile(s.speeds, 0.9),
                "speeds": [round(v, 3) for v in s.speeds],
                "falls_by_cause": dict(Counter(f["cause"] for f in s.fall_log).most_common()),
                "fall_log": list(s.fall_log)}
