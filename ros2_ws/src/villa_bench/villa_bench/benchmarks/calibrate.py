"""villa sim against the real SimSpark: the same joint-target sequences played in both, the differences.

    villa bench calibrate [--world villa [--socket] | --world simspark] [--robot-types 0] [--sequences stand,walk,...]
        [--save traces.npz]

Each sequence is a list of joint targets per 20 ms cycle (NAOqi names), made up front and played open-loop through
each world's own joint actuation (villa_optimize.worlds): first on the real rcssserver3d (sync, no pacing), the
reference, then on --world: villa sim in process (default), villa sim on its socket (--socket), or SimSpark again
(its run-to-run spread). Sequences: stand; walk (8 s forward at full speed), side (5 s left), turn (6 s in place),
kick (the forward kick from standing), getup_back / getup_front (the get-up skills from lying, after the world tipped
the robot over). The walk engine runs without sensing, so every world gets the same targets.

Printed per robot type, sequence and world against SimSpark: the torso's horizontal distance from SimSpark's (mean and
at the end), how far each moved, its height and heading differences (mean), the joints' RMS difference (legs), how
often the feet's contacts agree and the uprightness at the end. SimSpark's torso pose comes from its monitor at
25 Hz; both traces are compared at those times. --save writes every trace (keys robot type/world/sequence/field).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field

import numpy as np

from villa_bench import common

WORLDS = ("simspark",)          # the reference; villa sim is compared with it
RUN_TIME = "about 15 s per robot type (the seven sequences, 37 simulated s, on SimSpark and on villa sim)"
SMOKE = ["--sequences", "stand"]
REFERENCE = "simspark"

CYCLE = 0.02
START = (-3.0, 0.0, 0.0)
SEQUENCES = ("stand", "walk", "side", "turn", "kick", "getup_back", "getup_front")


@dataclass(frozen=True)
class Sequence:
    name: str
    targets: list[dict[str, float]] | None      # None: made from the robot's first joint reading (skills)
    lying: str | None = None
    skill: str | None = None
    seconds: float = 0.0
    ball: tuple[float, float] | None = None      # m, robot frame: a ball placed there (the kick)

    def duration(self) -> float:
        return self.seconds


@dataclass
class Task:
    """What a world needs from a task (placement, ball, lying)."""

    seq: Sequence
    ball: tuple[float, float] | None = None

    @property
    def lying(self) -> str | None:
        return self.seq.lying

    def placement(self) -> tuple[float, float, float]:
        return START

    def duration(self) -> float:
        return self.seq.seconds


@dataclass
class Trace:
    t: list[float] = field(default_factory=list)
    pose: list[tuple[float, float, float, float, float]] = field(default_factory=list)   # x y z yaw up
    joints: list[np.ndarray] = field(default_factory=list)
    feet: list[tuple[bool, bool]] = field(default_factory=list)


class Replay:
    """An episode that plays a target sequence and records what the world reports."""

    def __init__(self, seq: Sequence, skills, learned) -> None:
        self.task = Task(seq, ball=(START[0] + seq.ball[0], START[1] + seq.ball[1]) if seq.ball is not None else None)
        self.seq, self.skills, self.learned = seq, skills, learned
        self.trace = Trace()
        self.i = 0
        self.done = False
        self.player = None

    def step(self, o) -> dict[str, float]:
        from villa_motion.skills import SkillPlayer
        from villa_nao.joints import LEFT_LEG, RIGHT_LEG

        tr = self.trace
        tr.t.append(o.t)
        tr.pose.append((o.x, o.y, o.z, o.yaw, o.upright))
        tr.joints.append(np.array([o.joints.get(n, np.nan) for n in LEFT_LEG + RIGHT_LEG]))
        tr.feet.append(o.feet or (False, False))
        if self.seq.skill is not None:
            if self.player is None:
                self.player = SkillPlayer(self.skills[self.seq.skill], o.joints, self.learned[self.seq.skill])
            out = dict(self.player.update(CYCLE))
        else:
            out = self.seq.targets[min(self.i, len(self.seq.targets) - 1)]
        self.i += 1
        self.done = self.i * CYCLE >= self.seq.seconds
        return out

    def timed_out(self) -> bool:
        return self.i * CYCLE > self.seq.seconds + 2.0

    def result(self) -> Trace:
        return self.trace


def make_sequences(robot_type: int, names: list[str]) -> dict[str, Sequence]:
    """The sequences of `names` for `robot_type` (the kick from that type's own ball offset)."""
    from villa_motion import kick as KK
    from villa_motion.params import load_parameter_sets
    from villa_motion.walk import WalkEngine
    from villa_nao.params import config_path

    sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))

    def walk(seconds: float, cmd: tuple[float, float, float] | None) -> list[dict[str, float]]:
        w = WalkEngine(sets, "goToTarget", robot_type=robot_type)
        out = []
        for k in range(int(round(seconds / CYCLE))):
            if cmd is not None and k == 50:             # 1 s standing first
                w.command_normalized(*cmd)
            out.append(dict(w.update(CYCLE, None).joints))
        return out

    def kick() -> Sequence:
        w = WalkEngine(sets, "goToTarget", robot_type=robot_type)
        stand = [dict(w.update(CYCLE, None).joints) for _ in range(50)]
        kicks = KK.load_kick_set(robot_type=robot_type)
        k = kicks["forward_R"] if "forward_R" in kicks else next(iter(kicks.values()))
        engine = KK.KickEngine(k, KK.StandPose.from_walk(sets["goToTarget"]), robot_type)
        if not engine.start(k.ball):
            raise RuntimeError(f"the {k.name} kick refused its own ball: {engine.reason}")
        out = stand
        while not engine.done:
            out.append(dict(engine.update(CYCLE, None)))
        out += [out[-1]] * 50
        return Sequence("kick", out, seconds=len(out) * CYCLE, ball=k.ball)

    make = {"stand": lambda: Sequence("stand", walk(3.0, None), seconds=3.0),
            "walk": lambda: Sequence("walk", walk(9.0, (1, 0, 0)), seconds=9.0),
            "side": lambda: Sequence("side", walk(6.0, (0, 1, 0)), seconds=6.0),
            "turn": lambda: Sequence("turn", walk(7.0, (0, 0, 1)), seconds=7.0),
            "kick": kick,
            "getup_back": lambda: Sequence("getup_back", None, "back", "getup_back", 5.0),
            "getup_front": lambda: Sequence("getup_front", None, "front", "getup_front", 5.0)}
    return {n: make[n]() for n in names}


def compare(ref: Trace, other: Trace) -> dict[str, float]:
    """Errors of `other` against `ref` (SimSpark) at the times where ref's pose changed (its monitor samples)."""
    rt, ot = np.array(ref.t) - ref.t[0], np.array(other.t) - other.t[0]
    rp, op = np.array(ref.pose), np.array(other.pose)
    keep = np.r_[True, np.any(np.abs(np.diff(rp, axis=0)) > 1e-9, axis=1)]   # a new monitor sample
    rt, rp = rt[keep], rp[keep]
    idx = np.clip(np.searchsorted(ot, rt), 0, len(ot) - 1)
    op = op[idx]
    xy = np.hypot(rp[:, 0] - op[:, 0], rp[:, 1] - op[:, 1])
    yaw = np.degrees(np.abs(np.remainder(rp[:, 3] - op[:, 3] + np.pi, 2 * np.pi) - np.pi))
    n = min(len(ref.joints), len(other.joints))
    jr, jo = np.array(ref.joints[:n]), np.array(other.joints[:n])
    joint_rms = float(np.degrees(np.sqrt(np.nanmean((jr - jo) ** 2))))
    feet = float(np.mean([a == b for a, b in zip(ref.feet[:n], other.feet[:n], strict=True)]))
    return {"xy_mean": float(xy.mean()), "xy_end": float(xy[-1]), "z_mean": float(np.abs(rp[:, 2] - op[:, 2]).mean()),
            "yaw_mean": float(yaw.mean()), "joint_rms_deg": joint_rms, "feet_agree": feet,
            "up_end_ref": float(rp[-1, 4]), "up_end": float(op[-1, 4]),
            "moved_ref": float(math.hypot(*(rp[-1, :2] - rp[0, :2]))),
            "moved": float(math.hypot(*(op[-1, :2] - op[0, :2])))}


def sequences_arg(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    unknown = sorted(set(names) - set(SEQUENCES))
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"sequences are {', '.join(SEQUENCES)}, comma-separated, not {text!r}")
    return names


def add_arguments(ap) -> None:
    common.add_world(ap)
    common.add_robot_types(ap)
    ap.add_argument("--sequences", type=sequences_arg, default=list(SEQUENCES),
                    help=f"comma-separated, of {', '.join(SEQUENCES)} (default all)")
    ap.add_argument("--save", default=None, help="write every trace to this .npz")


def run(args) -> int:
    from villa_motion.params import load_skill_variables
    from villa_motion.skills import load_dir
    from villa_nao.params import config_path, share_path
    from villa_optimize.worlds import make_world

    other = common.world_label(args) + (" again" if args.world == REFERENCE else "")
    skills = load_dir(share_path("villa_motion", "skills"))
    learned = load_skill_variables(config_path("villa_motion", "skill_params.yaml"))
    saved = {}
    for rt in args.robot_types:
        print(f"SimSpark (rcssserver3d) against {other}: robot type {rt}, sequences {', '.join(args.sequences)}",
              flush=True)
        seqs = make_sequences(rt, args.sequences)
        traces: dict[str, dict[str, Trace]] = {}
        for label, world_name, socket in (("simspark", REFERENCE, False),
                                          (args.world + ("-socket" if args.socket else "") +
                                           ("-2" if args.world == REFERENCE else ""), args.world, args.socket)):
            world = make_world(world_name, rt, socket=socket)
            traces[label] = {}
            try:
                for name in args.sequences:
                    traces[label][name] = world.run_episode(Replay(seqs[name], skills, learned))
                    print(f"  {label}: {name} done", flush=True)
            finally:
                world.close()
        ref, worlds = "simspark", list(traces)
        print(f"\nrobot type {rt}; reference {ref}; distances in m, angles in degrees")
        print(f"{'sequence':<12} {'world':<12} {'xy mean':>8} {'xy end':>7} {'moved':>11} {'z mean':>7} {'yaw':>6} "
              f"{'joints':>7} {'feet':>5} {'upright at end':>15}")
        for name in args.sequences:
            for w in worlds[1:]:
                c = compare(traces[ref][name], traces[w][name])
                print(f"{name:<12} {w:<12} {c['xy_mean']:8.3f} {c['xy_end']:7.3f} {c['moved']:5.2f}/"
                      f"{c['moved_ref']:5.2f} {c['z_mean']:7.3f} {c['yaw_mean']:6.1f} {c['joint_rms_deg']:7.2f} "
                      f"{100 * c['feet_agree']:4.0f}% {c['up_end']:7.2f}/{c['up_end_ref']:.2f}", flush=True)
        saved.update({f"{rt}/{w}/{n}/{k}": np.array(getattr(tr, k)) for w, d in traces.items()
                      for n, tr in d.items() for k in ("t", "pose", "joints", "feet")})
    if args.save:
        np.savez_compressed(args.save, **saved)
        print(f"wrote {args.save}")
    return 0
