"""The walk on 10 m forward and on a goToTarget course of the §10.3 trajectory kinds through the game's motion arbiter.

The head scans as in a game; on villa sim or the real SimSpark (vision irrelevant here: the course is open loop, the
ground truth scores).

    villa bench motion_course [--world villa|simspark [--socket]] [--robot-types 0] [--runs 3] [--seed 0]
        [--params FILE --set NAME | --game-sets]

--params/--set evaluate another walk parameter set (e.g. one written by `villa optimize walk`); default: villa_motion's
config/walk_params.yaml, set goToTarget. --game-sets walks each command in the set the game's §10.3 rule would pick
(sprint straight ahead, goToTarget otherwise): how a learned sprint set is checked.

The 10 m walk also reports how often the leg pitch joints (hips, knees, ankles) run at their speed limit after its
first 2 s (a joint's sensed speed within 5 % of the limit) and how far they lag the walk's targets: where the walk asks
for more than the motors give, the feet do not go where the engine puts them.

Course (Figure 4 kinds, villa_bench.courses.COURSE): long walks forward / backward / left / right, a curve, quick
direction changes, stop-and-go, a spiral. Each segment is a command held for a time (MoveOptPhase / StopOptPhase of
§10.4.2); the robot turns toward waypoints for the curve and spiral. Prints per robot type the 10 m speed (m/s), its
heading change, the joints' saturation, the time from standing to 0.5 m/s, and falls per course. The simulation is
deterministic: run i starts from seed S + i, seed 0 at the nominal pose, every other within 5 cm and 5° of it, so
runs are distinct trials. --no-course walks the 10 m alone. --turns walks, instead of both, a course of in-place
turns handing over to walks forward, backward and sideways and to stops (villa_bench.courses.TURN_COURSE, 18.5 s):
where the walk has a turn set (docs/motion.md, "The turn set"), its hand-overs.
"""

from __future__ import annotations

import numpy as np

from villa_bench import common, courses

WORLDS = ("villa", "simspark")
RUN_TIME = ("about 15 s on villa sim in process, about 45 s on SimSpark (3 runs of the 10 m walk and the "
            "48 s course; SimSpark estimated from one 10 m walk)")
SMOKE = ["--runs", "1", "--no-course"]


def add_arguments(ap) -> None:
    common.add_common(ap, runs=3, what="runs of the 10 m walk and the course per robot type", seed=0)
    ap.add_argument("--params", default=None, help="walk parameter sets YAML (default villa_motion's)")
    ap.add_argument("--set", default="goToTarget", help="parameter set to walk with (default goToTarget)")
    ap.add_argument("--game-sets", action="store_true",
                    help="each command in the set the game's §10.3 rule picks: sprint straight ahead (within 15°, "
                         "hardly turning), goToTarget otherwise (instead of --set)")
    ap.add_argument("--no-course", action="store_true", help="the 10 m forward walk only")
    ap.add_argument("--turns", action="store_true",
                    help="instead: a course of in-place turns handing over to walks each way and to stops "
                         "(courses.TURN_COURSE; the walk's turn set where it has one)")


def run(args) -> int:
    name = "goToTarget" if args.game_sets else args.set
    for rt in args.robot_types:
        try:
            courses.walk_engine(rt, args.world, name=name, params=args.params)
        except (OSError, ValueError) as e:
            return common.fail("motion_course", f"--params/--set: {e}")
        print(f"{common.world_label(args)}: robot type {rt}, {args.runs} runs (seed {args.seed}), "
              f"{'the game sets (sprint straight ahead)' if args.game_sets else 'set ' + args.set} of "
              f"{args.params or 'walk_params.yaml'}", flush=True)
        if args.turns:
            m = courses.measure_course(args, rt, name=name, segments=courses.TURN_COURSE, forward=False)
            print(f"  turn course ({sum(s for _, s, _ in courses.TURN_COURSE):.1f} s, {len(courses.TURN_COURSE)} "
                  f"segments): falls per course {np.mean(m['course_falls']):.2f} ({m['course_falls']})"
                  + (f", in: {', '.join(m['where'])}" if m["where"] else ""), flush=True)
            continue
        m = courses.measure_course(args, rt, name=name, game_sets=args.game_sets, course=not args.no_course)
        print(f"  10 m forward: {m['speed']:.3f} m/s mean ({m['completed']}/{args.runs} completed, "
              f"{m['forward_falls']} falls); heading change over it (deg): "
              + (", ".join(f"{h:+.1f}" for h in m["heading_deg"]) or "-"))
        print(f"  leg pitch joints at their speed limit (after its first 2 s): {100 * m['at_limit']:.0f} % of "
              f"joint-cycles; behind the walk's targets by {m['lag_deg']:.1f} deg on average")
        print("  standing to 0.5 m/s (s, over 0.4 s): " + ", ".join(f"{h:.2f}" for h in m["to_half"]))
        if not args.no_course:
            print(f"  goToTarget course ({sum(s for _, s, _ in courses.COURSE):.0f} s, {len(courses.COURSE)} "
                  f"segments): falls per course {np.mean(m['course_falls']):.2f} ({m['course_falls']})"
                  + (f", in: {', '.join(m['where'])}" if m["where"] else ""), flush=True)
    return 0
