#!/usr/bin/env python3
"""Benchmark: turning in place (and turning while stepping) through the game's motion arbiter, on villa sim in process
or the real SimSpark, side by side with the same commands and starts (§10: the walk's turn input).

    source scripts/env.sh && python bench/walk_turn.py [--world inprocess|sim|simspark] [--robot-type 0]
                                                       [--seconds 5] [--runs 2] [--set positioning] [--heading]
                                                       [--params FILE]

For each normalized command (x, y, theta) held for --seconds after 0.5 s of standing, prints the heading change
(ground truth, summed cycle by cycle so full turns count), the mean turn rate and the distance moved, per run (run 0
starts at the nominal pose, the others within 5 cm and 5 deg of it). Turning in place with the outward-only foot yaw
(docs/motion.md) is slip-driven on villa sim: this is how its turn rate compares with SimSpark's. With --heading the
commands are walks without a turn (forward, forward and sideways, sideways) and turns in place: how far the heading
drifts where it should hold.
"""

from __future__ import annotations

import argparse
import itertools
import math

import motion_course as MC

from villa_optimize.worlds import make_world

COMMANDS = [(0.0, 0.0, 0.3), (0.0, 0.0, -0.3), (0.0, 0.0, 0.6), (0.0, 0.0, -0.6), (0.0, 0.0, 1.0), (0.0, 0.0, -1.0),
            (0.0, -0.5, 0.6), (0.3, 0.0, 0.6)]
HEADING = [(1.0, 0.0, 0.0), (1.0, -0.6, 0.0), (0.5, -1.0, 0.0), (0.5, 1.0, 0.0), (0.0, -1.0, 0.0), (0.0, 1.0, 0.0),
           (0.0, 0.0, 0.6), (0.0, 0.0, -0.6)]


class Turn(MC.Walk):
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


def measure(world: str, rt: int, seconds: float, runs: int, set_name: str, commands=COMMANDS) -> list[dict]:
    w = make_world(world, rt)
    rows = []
    try:
        for cmd in commands:
            for run in range(runs):
                engine = MC.walk_engine(rt, name=set_name, world=world)
                ep = w.run_episode(Turn(MC.start_pose(0.0, run), engine, cmd, seconds))
                moved = math.dist(ep.path[0], ep.path[-1]) if len(ep.path) > 1 else 0.0
                rows.append({"command": cmd, "run": run, "turned_deg": math.degrees(ep.turned()),
                             "rate": ep.turned() / seconds, "moved": moved, "fell": ep.fell_in,
                             "last_rate": ep.turned(last=100) / 2.0 if len(ep.yaws) > 100 else math.nan})
    finally:
        w.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", choices=("inprocess", "sim", "simspark"), default="inprocess")
    ap.add_argument("--robot-type", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--set", default="positioning", help="walk parameter set (default positioning, used near the ball)")
    ap.add_argument("--heading", action="store_true", help="walks without a turn command and turns in place instead")
    ap.add_argument("--params", default=None, help="walk parameter sets YAML (default villa_motion's)")
    args = ap.parse_args()
    MC.PARAMS.update(file=args.params)
    if args.seconds <= 0 or args.runs < 1:
        ap.error("--seconds must be > 0 and --runs >= 1")
    print(f"{args.world}: robot type {args.robot_type}, set {args.set}, each command held {args.seconds:g} s")
    commands = HEADING if args.heading else COMMANDS
    for r in measure(args.world, args.robot_type, args.seconds, args.runs, args.set, commands):
        x, y, th = r["command"]
        print(f"  command ({x:+.1f}, {y:+.1f}, {th:+.1f}) run {r['run']}: turned {r['turned_deg']:+7.1f} deg "
              f"({r['rate']:+.2f} rad/s; last 2 s {r['last_rate']:+.2f} rad/s), moved {r['moved']:.2f} m"
              + (f", FELL in {r['fell']}" if r["fell"] else ""), flush=True)


if __name__ == "__main__":
    main()
