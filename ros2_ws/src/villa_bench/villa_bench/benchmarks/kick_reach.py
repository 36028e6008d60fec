"""Where each robot type's leg IK reaches each kick's curve (UT Austin Villa 2011 report §13.1.1, "close enough").

A kick's BALL line (the ball's position in the robot frame to stand at) is learned for robot type 0; the other
types' legs differ (SimSpark's naorobottypes), and from type 0's offset type 1's IK reaches too little of the
forward kick's curve: the kick is refused (3 v 3 kick-offs on villa sim: the taker, type 1, never kicked). Per robot
type and kick (left-foot kick; the right one is its mirror) this maps the ball offsets on a 1 cm grid around the
kick's own where villa_motion.kick.reachable holds from the near-ball walk set's stand, and picks the offset nearest
the kick's own with a 1 cm margin inside that region. Prints the map and the choice; ``--yaml`` prints the
``robot_types`` section for config/kick_params.yaml (or its world's overlay) for the types whose own offset is not
reachable with the approach's margin. No simulator runs: --world picks whose motion data (kick and walk parameter
overlays) the map is made for.

    villa bench kick_reach [--world villa|simspark] [--robot-types 0,1,2,3,4] [--set tuned] [--kicks forward,...]
        [--jobs 2] [--yaml]
"""

from __future__ import annotations

import time

import numpy as np

from villa_bench import common

WORLDS = ()
RUN_TIME = "about 1 min (5 robot types x 7 kicks, 2 processes; estimated from one type and kick)"
SMOKE = ["--robot-types", "1", "--kicks", "forward"]

GRID = 0.01                                   # m
DX = np.round(np.arange(-0.06, 0.121, GRID), 3)   # around the kick's own offset, m
DY = np.round(np.arange(-0.06, 0.101, GRID), 3)   # +y: outward for a left-foot kick
MARGIN = 0.01                                 # m: behaviours.KickBehaviour's reach_margin


def stand(world: str):
    """The stand pose of the near-ball walk set, `world`'s walk sets."""
    from villa_motion.params import load_parameter_sets
    from villa_nao.params import config_path
    from villa_strategy import behaviours as B

    sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"), world)
    return B.Body.from_walk_sets(sets).stand(B.NEAR_BALL_SET)


def reach_map(job) -> tuple:
    """(job, the kick's own offset, the reach map over DX x DY, whether the own offset is reachable with MARGIN)."""
    from villa_motion import kick as KK

    set_name, world, robot_type, base = job
    kick = KK.load_kick_set(set_name, simulator=world, robot_type=None)[f"{base}_L"]   # the kick's own offset
    st = stand(world)
    bx, by = kick.ball
    ok = np.array([[KK.reachable(kick, (bx + dx, by + dy), st, robot_type) for dy in DY] for dx in DX])
    own = KK.reachable(kick, (bx, by), st, robot_type, margin=MARGIN)
    return job, (bx, by), ok, own


def choose(ok: np.ndarray) -> tuple[int, int, int] | None:
    """The reachable grid cell nearest the kick's own offset with every neighbour reachable too (the approach's 1 cm
    margin; the kick was learned at its own offset, so the least displacement keeps it closest to what was learned:
    type 1's forward kick from the region's deepest cell, 6 cm outward, fell 4 times in 12 and went 1.1 m, from 3.5 cm
    outward once in 16 and 1.4 m), else the deepest cell; None when nothing is reachable. Depth: chessboard distance
    to the nearest unreachable cell or the map's edge."""
    from scipy.ndimage import distance_transform_cdt

    if not ok.any():
        return None
    depth = distance_transform_cdt(np.pad(ok, 1), metric="chessboard")[1:-1, 1:-1]
    i0, j0 = int(np.argmin(np.abs(DX))), int(np.argmin(np.abs(DY)))
    cells = [(i, j) for i, j in zip(*np.nonzero(depth >= 2), strict=True)] or \
        [(i, j) for i, j in zip(*np.nonzero(depth == depth.max()), strict=True)]
    i, j = min(cells, key=lambda c: (c[0] - i0) ** 2 + (c[1] - j0) ** 2)
    return int(i), int(j), int(depth[i, j])


def add_arguments(ap) -> None:
    ap.add_argument("--world", choices=common.WORLDS, default="villa",
                    help="whose motion data: villa (villa sim's) or simspark (with SimSpark's overlays); default villa")
    common.add_robot_types(ap, "0,1,2,3,4")
    ap.add_argument("--set", default="tuned", help="kick parameter set of config/kick_params.yaml")
    ap.add_argument("--kicks", default="", help="comma-separated kick names without _L/_R (default: all; with "
                                                "--world simspark: the kicks its overlay replaces)")
    ap.add_argument("--jobs", type=common.positive_int, default=2, help="processes (default 2)")
    ap.add_argument("--yaml", action="store_true", help="print the robot_types section to paste")


def run(args) -> int:
    from concurrent.futures import ProcessPoolExecutor

    from villa_motion import kick as KK
    from villa_nao.params import config_path, overlay_path

    try:
        all_kicks = KK.load_kick_set(args.set, simulator=args.world, robot_type=None)
        if args.kicks:
            bases = args.kicks.split(",")
        elif args.world != "villa":
            overlay = overlay_path(config_path("villa_motion", "kick_params.yaml"), args.world)
            bases = sorted(KK.load_kick_parameters(overlay, args.set)) if overlay is not None else []
        else:
            bases = sorted({k.base for k in all_kicks.values()})
    except (OSError, ValueError) as e:
        return common.fail("kick_reach", f"--set: {e}")
    unknown = [b for b in bases if f"{b}_L" not in all_kicks]
    if unknown:
        return common.fail("kick_reach", f"unknown kicks {', '.join(unknown)}; have "
                                         f"{', '.join(sorted({k.base for k in all_kicks.values()}))}")
    print(f"kick reach for {args.world}'s motion data: set {args.set}, robot types "
          f"{','.join(map(str, args.robot_types))}, kicks {', '.join(bases) or '(none)'}", flush=True)
    jobs = [(args.set, args.world, t, b) for t in args.robot_types for b in bases]
    t0 = time.time()
    section: dict[int, dict[str, tuple[float, float]]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for (_, _, t, base), (bx, by), ok, own in pool.map(reach_map, jobs):
            pick = choose(ok)
            print(f"type {t} {base}: own offset ({bx:.4f}, {by:.4f}) {'reachable' if own else 'NOT reachable'} "
                  f"with a {MARGIN * 100:.0f} cm margin; {int(ok.sum())} of {ok.size} grid cells reachable")
            print("      dy " + "".join(f"{d * 100:+4.0f}" for d in DY) + "  (cm)")
            for i, dx in enumerate(DX):
                print(f"   dx {dx * 100:+4.0f} " + "".join("   #" if v else "   ." for v in ok[i]))
            if pick is None:
                print("   nothing reachable", flush=True)
                continue
            i, j, depth = pick
            x, y = bx + DX[i], by + DY[j]
            print(f"   chosen: ({x:.3f}, {y:.3f}), {depth} cell(s) from the region's edge", flush=True)
            if not own and (abs(x - bx) > 0.005 or abs(y - by) > 0.005):
                section.setdefault(t, {})[base] = (round(float(x), 3), round(float(y), 3))
    print(f"({time.time() - t0:.0f} s)")
    if args.yaml:
        print("robot_types:")
        print(f"  {args.set}:")
        for t in sorted(section):
            kicks = ", ".join(f"{b}: {{ball.x: {x}, ball.y: {y}}}" for b, (x, y) in sorted(section[t].items()))
            print(f"    {t}: {{{kicks}}}")
    return 0
