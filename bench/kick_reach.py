"""Where each robot type's leg IK reaches each kick's curve (UT Austin Villa 2011 report §13.1.1, "close enough").

A kick's BALL line (the ball's position in the robot frame to stand at) is learned for robot type 0; the other
types' legs differ (SimSpark's naorobottypes), and from type 0's offset type 1's IK reaches too little of the
forward kick's curve: the kick is refused (3 v 3 kick-offs on villa sim: the taker, type 1, never kicked). Per robot
type and kick (left-foot kick; the right one is its mirror) this maps the ball offsets on a 1 cm grid around the
kick's own where villa_motion.kick.reachable holds from the near-ball walk set's stand, and picks the offset deepest
nearest the kick's own with a 1 cm margin inside that region. Prints the map and the choice; ``--yaml`` prints the
``robot_types`` section for config/kick_params.yaml (or its simulator overlay) for the types whose own offset is not
reachable with the approach's margin.

    python bench/kick_reach.py [--set tuned] [--simulator simspark] [--types 0,1,2,3,4] [--kicks forward,...] [--yaml]
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy.ndimage import distance_transform_cdt

from villa_motion import kick as KK
from villa_motion.params import load_parameter_sets
from villa_nao.params import config_path, overlay_path
from villa_strategy import behaviours as B

GRID = 0.01                                   # m
DX = np.round(np.arange(-0.06, 0.121, GRID), 3)   # around the kick's own offset, m
DY = np.round(np.arange(-0.06, 0.101, GRID), 3)   # +y: outward for a left-foot kick
MARGIN = 0.01                                 # m: behaviours.KickBehaviour's reach_margin


def stand(simulator: str | None) -> KK.StandPose:
    sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"), simulator)
    return B.Body.from_walk_sets(sets).stand(B.NEAR_BALL_SET)


def reach_map(job) -> tuple:
    set_name, simulator, robot_type, base = job
    kick = KK.load_kick_set(set_name, simulator=simulator, robot_type=None)[f"{base}_L"]   # the kick's own offset
    st = stand(simulator)
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
    if not ok.any():
        return None
    depth = distance_transform_cdt(np.pad(ok, 1), metric="chessboard")[1:-1, 1:-1]
    i0, j0 = int(np.argmin(np.abs(DX))), int(np.argmin(np.abs(DY)))
    cells = [(i, j) for i, j in zip(*np.nonzero(depth >= 2), strict=True)] or \
        [(i, j) for i, j in zip(*np.nonzero(depth == depth.max()), strict=True)]
    i, j = min(cells, key=lambda c: (c[0] - i0) ** 2 + (c[1] - j0) ** 2)
    return int(i), int(j), int(depth[i, j])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="tuned", help="kick parameter set of config/kick_params.yaml")
    ap.add_argument("--simulator", default="", help="the per-simulator overlay to apply (simspark), default none")
    ap.add_argument("--types", default="0,1,2,3,4", help="comma-separated robot types")
    ap.add_argument("--kicks", default="", help="comma-separated kick names without _L/_R (default: all; with "
                                                "--simulator: the kicks its overlay replaces)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--yaml", action="store_true", help="print the robot_types section to paste")
    a = ap.parse_args()
    simulator = a.simulator or None
    types = [int(t) for t in a.types.split(",")]
    if a.kicks:
        bases = a.kicks.split(",")
    elif simulator:
        path = config_path("villa_motion", "kick_params.yaml")
        bases = sorted(KK.load_kick_parameters(overlay_path(path, simulator), a.set))
    else:
        bases = sorted({k.base for k in KK.load_kick_set(a.set, robot_type=None).values()})
    jobs = [(a.set, simulator, t, b) for t in types for b in bases]
    t0 = time.time()
    section: dict[int, dict[str, tuple[float, float]]] = {}
    with ProcessPoolExecutor(a.jobs) as pool:
        for (_, _, t, base), (bx, by), ok, own in pool.map(reach_map, jobs):
            pick = choose(ok)
            print(f"type {t} {base}: own offset ({bx:.4f}, {by:.4f}) {'reachable' if own else 'NOT reachable'} "
                  f"with a {MARGIN * 100:.0f} cm margin; {int(ok.sum())} of {ok.size} grid cells reachable")
            print("      dy " + "".join(f"{d * 100:+4.0f}" for d in DY) + "  (cm)")
            for i, dx in enumerate(DX):
                print(f"   dx {dx * 100:+4.0f} " + "".join("   #" if v else "   ." for v in ok[i]))
            if pick is None:
                print("   nothing reachable")
                continue
            i, j, depth = pick
            x, y = bx + DX[i], by + DY[j]
            print(f"   chosen: ({x:.3f}, {y:.3f}), {depth} cell(s) from the region's edge")
            if not own and (abs(x - bx) > 0.005 or abs(y - by) > 0.005):
                section.setdefault(t, {})[base] = (round(float(x), 3), round(float(y), 3))
    print(f"({time.time() - t0:.0f} s)")
    if a.yaml:
        print("robot_types:")
        print(f"  {a.set}:")
        for t in sorted(section):
            kicks = ", ".join(f"{b}: {{ball.x: {x}, ball.y: {y}}}" for b, (x, y) in sorted(section[t].items()))
            print(f"    {t}: {{{kicks}}}")


if __name__ == "__main__":
    main()
