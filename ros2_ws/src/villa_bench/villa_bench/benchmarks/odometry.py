"""The motion arbiter's odometry against the ground truth, on a course of walks through the game's motion arbiter.

Each heading source of `odometry_heading` (motion.yaml: the gyro's yaw rate, or the walk's steps as told) walks the
same course; a third estimate, "legs" (not used by the arbiter), integrates the torso's move over the stance sole
(forward kinematics of the sensed leg joints) with the gyro's heading.

    villa bench odometry [--world villa|simspark [--socket]] [--robot-types 0] [--runs 2] [--seed 0]

The course: line-up steps (0.05-0.1 of full speed, as before a kick), full speed forward, sideways, turning in
place, a curve, backward and a mixed command, each followed by a stop. The odometry is compared with the truth from
the end of one stop to the end of the next (SimSpark's monitor sends the robot's pose only every few tenths of a
second, and late, so only a standing robot's truth is current): per block the error of the odometry's x, y (robot
frame at the block's start) and heading change. Prints per block and source the truth and the error, and per source
the rms errors over every block and run. Run i starts from seed S + i: seed 0 at the nominal pose, the others within
5 cm and 5° of it.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from villa_bench import common, courses
from villa_nao import field as F
from villa_nao.joints import LEFT_LEG, RIGHT_LEG

WORLDS = ("villa", "simspark")
RUN_TIME = ("about 10 s on villa sim in process, about 25 s on SimSpark (2 runs of the 44 s course per "
            "heading source; SimSpark measured at 1 run)")
SMOKE = ["--runs", "1"]

COURSE = [  # (name, seconds, normalized walk command or None = stand)
    ("stand", 1.0, None),
    ("line-up forward", 2.0, (0.1, 0.0, 0.0)), ("stop", 1.0, None),
    ("line-up diagonal", 2.0, (0.05, 0.08, 0.0)), ("stop", 1.0, None),
    ("line-up back", 1.5, (-0.1, 0.0, 0.0)), ("stop", 1.0, None),
    ("forward", 4.0, (1.0, 0.0, 0.0)), ("stop", 1.5, None),
    ("left, then right slowly", 3.0, (0.0, 1.0, 0.0)), ("", 2.0, (0.0, -0.3, 0.0)), ("stop", 1.0, None),
    ("turn in place", 3.0, (0.0, 0.0, 1.0)), ("stop", 1.0, None),
    ("curve, then back", 3.0, (1.0, 0.0, 0.4)), ("", 2.0, (-1.0, 0.0, 0.0)), ("stop", 1.5, None),
    ("mixed", 3.0, (0.5, 0.2, -0.2)), ("stop", 1.5, None),
]
SOURCES = ("walk", "gyro")
SHOWN = SOURCES + ("legs",)


def relative(a, b) -> tuple[float, float, float]:
    """Pose b in the frame of pose a (x, y, theta)."""
    return (*F.to_local(b[:2], a[:2], a[2]), math.remainder(b[2] - a[2], 2 * math.pi))


class Course:
    """Walk COURSE with the arbiter; per cycle the truth pose and the arbiter's odometry pose, and the segment."""

    def __init__(self, start, arbiter) -> None:
        self.task = courses.Start(start, sum(s for _, s, _ in COURSE) + 0.5)
        self.w = arbiter
        self.t0: float | None = None
        self.done = False
        self.fell = False
        self.rows: list[tuple] = []           # (segment, truth x, y, yaw, odometry x, y, theta)
        self.sensed: list[tuple] = []         # (t, upright, left and right leg joints, feet in contact, gyro z)

    def step(self, o) -> dict[str, float]:
        from villa_motion import arbiter as A
        from villa_optimize.tasks import motion_cycle

        if self.t0 is None:
            self.t0 = o.t
        t, seg = o.t - self.t0, None
        for i, (_, secs, _) in enumerate(COURSE):
            if t < secs:
                seg = i
                break
            t -= secs
        if seg is None or o.upright < 0.5:
            self.done, self.fell = True, o.upright < 0.5
            seg = len(COURSE) - 1
        cmd = COURSE[seg][2]
        self.w.walk_request(A.WalkRequest(A.WALK_STAND) if cmd is None else A.WalkRequest(A.WALK_NORMALIZED, *cmd))
        out = motion_cycle(self.w, o)
        self.rows.append((seg, o.x, o.y, o.yaw, *out.odometry))
        self.sensed.append((o.t, o.upright, *(o.joints.get(n, 0.0) for n in LEFT_LEG + RIGHT_LEG),
                            *(o.feet or (True, True)), (o.gyro or (0.0, 0.0, 0.0))[2]))
        return out.targets

    def timed_out(self) -> bool:
        return False

    def result(self):
        return self

    def legs(self, robot_type: int) -> np.ndarray:
        """The "legs" odometry pose per cycle (module docstring)."""
        from villa_nao import kinematics as K

        s = np.array(self.sensed, dtype=float)
        soles = [np.linalg.inv(K.leg_fk(side, s[:, cols], robot_type)) for side, cols in
                 (("L", slice(2, 8)), ("R", slice(8, 14)))]          # the torso in each sole's frame
        pose, out = np.zeros(3), [np.zeros(3)]
        for i in range(1, len(s)):
            left, right = s[i, 14] > 0.5, s[i, 15] > 0.5
            lower = 0 if soles[0][i][2, 3] > soles[1][i][2, 3] else 1   # the torso highest above it
            k = 0 if left and not right else 1 if right and not left else lower
            a, b = soles[k][i - 1], soles[k][i]
            if s[i, 1] >= 0.5:                                  # upright: the torso's move over the sole, robot frame
                step = F.to_local(b[:2, 3], a[:2, 3], math.atan2(a[1, 0], a[0, 0]))
                pose = np.array((*F.from_local(step, pose[:2], pose[2]), pose[2] + s[i, 16] * (s[i, 0] - s[i - 1, 0])))
            out.append(pose.copy())
        return np.array(out)

    def blocks(self, odometry: np.ndarray | None = None) -> list[tuple[str, tuple, tuple]]:
        """(name, truth, odometry) from the end of each stop to the end of the next: (dx, dy, dtheta) each; the
        arbiter's odometry unless `odometry` (a pose per cycle) is given."""
        rows = np.array(self.rows)
        if odometry is not None:
            rows[:, 4:7] = odometry
        ends = [0]
        for i, (_, _, cmd) in enumerate(COURSE):
            idx = np.nonzero(rows[:, 0] == i)[0]
            if cmd is None and len(idx):
                ends.append(int(idx[-1]))
        out = []
        for a, b in zip(ends[:-1], ends[1:], strict=False):
            name = COURSE[int(rows[a + 1, 0])][0] if a + 1 < len(rows) else "?"
            out.append((name, relative(rows[a, 1:4], rows[b, 1:4]), relative(rows[a, 4:7], rows[b, 4:7])))
        return out


def add_arguments(ap) -> None:
    common.add_common(ap, runs=2, what="courses per robot type and heading source", seed=0)


def run(args) -> int:
    for rt in args.robot_types:
        print(f"{common.world_label(args)}: robot type {rt}, {args.runs} runs (seed {args.seed}), "
              f"heading sources {', '.join(SOURCES)}", flush=True)
        measure(args, rt)
    return 0


def measure(args, rt: int) -> None:
    from villa_motion import arbiter as A

    errors: dict[str, list] = {s: [] for s in SHOWN}
    w = common.make_world(args, rt)
    try:
        for run in range(args.runs):
            results = {}
            for source in SOURCES:
                arbiter = courses.walk_engine(rt, args.world)
                arbiter = A.MotionArbiter(replace(arbiter.config, odometry_heading=source))
                results[source] = w.run_episode(Course(courses.start_pose(-5.0, args.seed + run), arbiter))
            print(f"run {run} ({args.world}, robot type {rt}): truth and odometry error per block "
                  f"(x, y cm; heading deg)" + "".join(" fell" for r in results.values() if r.fell))
            print(f"  {'block':<26}{'truth':>22}" + "".join(f"{'error, ' + s:>24}" for s in SHOWN))
            blocks = {s: r.blocks() for s, r in results.items()}
            blocks["legs"] = results["gyro"].blocks(results["gyro"].legs(rt))
            for k, (name, truth, _) in enumerate(blocks[SOURCES[0]]):
                line = f"  {name:<26}{truth[0] * 100:8.1f}{truth[1] * 100:7.1f}{math.degrees(truth[2]):7.1f}"
                for s in SHOWN:
                    if k >= len(blocks[s]):
                        continue
                    _, tr, od = blocks[s][k]
                    e = (od[0] - tr[0], od[1] - tr[1], math.remainder(od[2] - tr[2], 2 * math.pi))
                    errors[s].append(e)
                    line += f"{e[0] * 100:9.1f}{e[1] * 100:7.1f}{math.degrees(e[2]):8.1f}"
                print(line, flush=True)
    finally:
        w.close()
    print(f"robot type {rt}: rms error over every block and run:")
    for s in SHOWN:
        e = np.array(errors[s])
        rms = np.sqrt(np.mean(e ** 2, axis=0))
        name = f"odometry_heading {s}" if s in SOURCES else f"{s} (not used)"
        print(f"  {name:<23}  x {rms[0] * 100:5.1f} cm  y {rms[1] * 100:5.1f} cm  "
              f"heading {math.degrees(rms[2]):5.1f} deg  ({len(e)} blocks)", flush=True)
