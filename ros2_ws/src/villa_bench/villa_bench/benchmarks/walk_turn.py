"""Turning in place (and turning while stepping) through the game's motion arbiter (§10: the walk's turn input).

On villa sim or the real SimSpark, the same commands and starts on each, side by side.

    villa bench walk_turn [--world villa|simspark [--socket]] [--robot-types 0] [--seconds 5] [--runs 2] [--seed 0]
        [--set positioning] [--heading] [--params FILE]

For each normalized command (x, y, theta) held for --seconds after 0.5 s of standing, prints the heading change
(ground truth, summed cycle by cycle so full turns count), the mean turn rate, the rate over the last 2 s and the
distance moved, per run (run i starts from seed S + i: seed 0 at the nominal pose, the others within 5 cm and 5 deg
of it). Turning in place with the outward-only foot yaw (docs/motion.md) is slip-driven on villa sim: this is how its
turn rate compares with SimSpark's. With --heading the commands are walks without a turn (forward, forward and
sideways, sideways) and turns in place: how far the heading drifts where it should hold. --commands N measures the
first N commands only.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

from villa_bench import common, courses

WORLDS = ("villa", "simspark")
RUN_TIME = ("about 7 s on villa sim in process, about 20 s on SimSpark (8 commands x 2 runs; SimSpark "
            "estimated from 2 commands)")
SMOKE = ["--runs", "1", "--seconds", "1", "--commands", "1"]

COMMANDS = [(0.0, 0.0, 0.3), (0.0, 0.0, -0.3), (0.0, 0.0, 0.6), (0.0, 0.0, -0.6), (0.0, 0.0, 1.0), (0.0, 0.0, -1.0),
            (0.0, -0.5, 0.6), (0.3, 0.0, 0.6)]
HEADING = [(1.0, 0.0, 0.0), (1.0, -0.6, 0.0), (0.5, -1.0, 0.0), (0.5, 1.0, 0.0), (0.0, -1.0, 0.0), (0.0, 1.0, 0.0),
           (0.0, 0.0, 0.6), (0.0, 0.0, -0.6)]


class Turn(courses.Walk):
    """Stand 0.5 s, then hold one command; records the ground-truth heading and position while it is held."""

    def __init__(self, start, engine, command, seconds: float) -> None:
        super().__init__(start, engine, segments=[("turn", seconds, lambda t: command)])
        self.yaws: list[float] = []
        self.path: list[tuple[float, float]] = []

    def step(self, o):
        if self.t0 is not None and o.t - self.t0 >= 0.5 and not self.done:
            self.yaws.append(o.yaw)
            self.path.append((o.x, o.y))
        return super().step(o)

    def turned(self, last: int = 0) -> float:
        """rad, the heading change summed over cycles (more than a full turn counts); over the `last` cycles only
        when given."""
        return sum(math.remainder(b - a, 2 * math.pi) for a, b in itertools.pairwise(self.yaws[-last - 1:] if last
                                                                                        else self.yaws))


def measure(args, rt: int, commands=COMMANDS, sets=None) -> Iterator[dict]:
    """A row per command and run: the turn (deg, rate, the last 2 s' rate), the distance moved and any fall; the walk
    sets `sets`, else args.params' file or the shipped one, walking args.set."""
    w = common.make_world(args, rt)
    rows = []
    try:
        for cmd in commands:
            for run in range(args.runs):
                engine = courses.walk_engine(rt, args.world, sets, name=args.set, params=args.params)
                ep = w.run_episode(Turn(courses.start_pose(0.0, args.seed + run), engine, cmd, args.seconds))
                moved = math.dist(ep.path[0], ep.path[-1]) if len(ep.path) > 1 else 0.0
                rows.append({"command": cmd, "run": run, "turned_deg": math.degrees(ep.turned()),
                             "rate": ep.turned() / args.seconds, "moved": moved, "fell": ep.fell_in,
                             "last_rate": ep.turned(last=100) / 2.0 if len(ep.yaws) > 100 else math.nan})
                yield rows[-1]
    finally:
        w.close()


def add_arguments(ap) -> None:
    common.add_common(ap, runs=2, what="runs per command", seed=0)
    ap.add_argument("--seconds", type=common.positive_float, default=5.0, help="s each command is held (default 5)")
    ap.add_argument("--set", default="positioning", help="walk parameter set (default positioning, used near the ball)")
    ap.add_argument("--heading", action="store_true", help="walks without a turn command and turns in place instead")
    ap.add_argument("--commands", type=common.positive_int, default=None, metavar="N",
                    help="the first N commands only (default all 8)")
    ap.add_argument("--params", default=None, help="walk parameter sets YAML (default villa_motion's)")


def run(args) -> int:
    commands = (HEADING if args.heading else COMMANDS)[:args.commands]
    for rt in args.robot_types:
        try:
            courses.walk_engine(rt, args.world, name=args.set, params=args.params)
        except (OSError, ValueError) as e:
            return common.fail("walk_turn", f"--params/--set: {e}")
        print(f"{common.world_label(args)}: robot type {rt}, set {args.set}, {len(commands)} commands, each held "
              f"{args.seconds:g} s, {args.runs} runs (seed {args.seed})", flush=True)
        for r in measure(args, rt, commands):
            x, y, th = r["command"]
            print(f"  command ({x:+.1f}, {y:+.1f}, {th:+.1f}) run {r['run']}: turned {r['turned_deg']:+7.1f} deg "
                  f"({r['rate']:+.2f} rad/s; last 2 s {r['last_rate']:+.2f} rad/s), moved {r['moved']:.2f} m"
                  + (f", FELL in {r['fell']}" if r["fell"] else ""), flush=True)
    return 0
