"""A team of one on the real SimSpark: going for the ball, a referee relocation, a fall (localization error, sigma).

One villa player (the full ROS stack, `villa_bringup.player`, robot type of villa_bringup's team.yaml's first player)
on rcssserver3d in sync mode; the benchmark is its trainer (ground truth over the monitor port) and listens to the
player's `pose` and `fall_state`. Four phases:

1. ball: from the kick-off (ball on the centre spot), the simulated time until the robot first touches the ball
   (the ball moved 0.1 m), at most --ball-time s;
2. relocation: the trainer moves the robot across the field (a referee's relocation) with the ball placed far away;
   localization error and the reported position sigma (sqrt of the larger of the pose covariance's x, y variances)
   over --phase-time s;
3. fall: the trainer moves a second robot (a bare agent of another team) onto ours, which knocks both down (a
   collision; SimSpark's dives do not throw our robot over); the same figures over --phase-time s, and how many
   times `fall_state` changed while the robot lay still (torso below 0.5 upright, moving < 0.05 m/s);
4. lying relocation: the trainer moves the robot, still lying after phase 3 (get-ups may fail on SimSpark), to
   --relocate-lying (the server stands it up there); the same figures over --phase-time s.

Prints one table per phase and writes every sample (and the accelerometer during the fall) to the log directory.

    villa bench simspark_lost [--phase-time 15] [--ball-time 20] [--log-dir DIR]
"""

from __future__ import annotations

import csv
import json
import math
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

from villa_bench import common
from villa_bridge import framing
from villa_nao import field as F

WORLDS = ("simspark",)
RUN_TIME = "about 2 min (phases of 15 s, the ball at most 20 s, plus start-up; estimated from a smaller run)"
SMOKE = ["--phase-time", "2", "--ball-time", "2"]

TEAM = "villa"


class BareAgent:
    """A robot of another team that only keeps itself awake: the trainer moves it onto ours to knock it over."""

    def __init__(self, port: int, team: str = "bump") -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.sendall(framing.encode("(scene rsg/agent/nao/nao_hetero.rsg 0)"))
        framing.recv_frame(self.sock)
        self.sock.sendall(framing.encode(f"(init (unum 1)(teamname {team}))(syn)"))
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop:
                framing.recv_frame(self.sock)
                self.sock.sendall(framing.encode("(he1 0.001)(syn)"))   # a nonzero command: no auto-disable
        except OSError:
            pass

    def close(self) -> None:
        self._stop = True
        self.sock.close()
        self._thread.join(timeout=5)


class Listener:
    """The player's pose (with covariance), fall_state and imu; publishes motion requests."""

    def __init__(self, unum: int) -> None:
        from geometry_msgs.msg import PoseWithCovarianceStamped
        from sensor_msgs.msg import Imu

        from villa_msgs.msg import FallState, MotionRequest
        from villa_nao.ros import BackgroundNode

        self.pose: tuple[float, float, float, float] | None = None     # x, y, theta, position sigma
        self.fall_state = 0
        self.fall_changes: list[tuple[float, int]] = []                # (stamp, new state)
        self.acc: list[tuple[float, float, float, float]] = []
        self.record_acc = False
        self._bg = BackgroundNode("villa_bench_lost")
        self._node = self._bg.node
        ns = f"/{TEAM}/p{unum}"
        self._node.create_subscription(PoseWithCovarianceStamped, f"{ns}/pose", self._on_pose, 5)
        self._node.create_subscription(FallState, f"{ns}/fall_state", self._on_fall, 50)
        self._node.create_subscription(Imu, f"{ns}/imu", self._on_imu, 50)
        self._request = self._node.create_publisher(MotionRequest, f"{ns}/motion_request", 5)
        self._msg = MotionRequest
        self._bg.start()

    def _on_pose(self, m) -> None:
        p, q, c = m.pose.pose.position, m.pose.pose.orientation, m.pose.covariance
        self.pose = (p.x, p.y, F.yaw_upright((q.w, q.x, q.y, q.z))[0], math.sqrt(max(c[0], c[7], 0.0)))

    def _on_fall(self, m) -> None:
        if m.state != self.fall_state:
            self.fall_changes.append((m.header.stamp.sec + m.header.stamp.nanosec * 1e-9, int(m.state)))
        self.fall_state = int(m.state)

    def _on_imu(self, m) -> None:
        if self.record_acc:
            a = m.linear_acceleration
            self.acc.append((m.header.stamp.sec + m.header.stamp.nanosec * 1e-9, a.x, a.y, a.z))

    def request(self, skill: str) -> None:
        self._request.publish(self._msg(request_id=1000, skill=skill, interrupt=True))

    def close(self) -> None:
        self._bg.close()


def sample(trainer, lis: Listener, unum: int, t0: float) -> dict | None:
    g = trainer.truth()
    p = g.players.get(("left", unum)) if g else None
    if p is None:
        return None
    row = {"t": g.sim_time - t0, "x": p.position[0], "y": p.position[1], "z": p.position[2],
           "upright": p.upright, "ball_d": math.dist(p.position[:2], g.ball[:2]), "fall_state": lis.fall_state,
           "fall_changes": len(lis.fall_changes)}
    if lis.pose is not None:
        ex, ey, eth, sigma = lis.pose
        row.update(est_x=ex, est_y=ey, error=math.hypot(ex - p.position[0], ey - p.position[1]), sigma=sigma)
    return row


def run_phase(trainer, lis, unum: int, seconds: float, until=None) -> list[dict]:
    """Samples every monitor update for `seconds` simulated s (or until `until(row)`)."""
    g = trainer.wait_updates(1)
    t0, rows = g.sim_time, []
    while True:
        trainer.wait_updates(1)
        row = sample(trainer, lis, unum, t0)
        if row is None:
            continue
        rows.append(row)
        if row["t"] >= seconds or (until is not None and until(row)):
            return rows


def still_lying_changes(rows: list[dict]) -> tuple[int, float]:
    """fall_state changes while the torso lay still (upright < 0.5, moving < 0.05 m/s), and the seconds of that."""
    changes, still = 0, 0.0
    for a, b in zip(rows, rows[1:], strict=False):
        dt = b["t"] - a["t"]
        v = math.dist((a["x"], a["y"], a["z"]), (b["x"], b["y"], b["z"])) / dt if dt > 0 else 0.0
        if a["upright"] < 0.5 and b["upright"] < 0.5 and v < 0.05:
            changes += b["fall_changes"] - a["fall_changes"]
            still += dt
    return changes, still


def table(rows: list[dict], marks=(0, 0.5, 1, 2, 3, 5, 8, 12, 15, 20)) -> str:
    out = ["    t (s)  error (m)  sigma (m)  upright  fall_state"]
    for m in marks:
        r = next((r for r in rows if r["t"] >= m), None)
        if r is None:
            break
        err = f"{r['error']:9.2f}" if "error" in r else "      n/a"
        sig = f"{r['sigma']:9.3f}" if "sigma" in r else "      n/a"
        out.append(f"  {r['t']:7.1f}  {err}  {sig}  {r['upright']:7.2f}  {r['fall_state']:10d}")
    over = [r for r in rows if "error" in r and r["error"] > 1.0 and r["error"] > 3 * r["sigma"]]
    out.append(f"  samples {len(rows)}; overconfident (error > 1 m and > 3 sigma): {len(over)} "
               f"({100 * len(over) / max(len(rows), 1):.0f} %)"
               + (f", worst error {max(r['error'] for r in over):.2f} m at sigma "
                  f"{min(r['sigma'] for r in over):.3f} m" if over else ""))
    return "\n".join(out)


def add_arguments(ap) -> None:
    common.add_world(ap, default="simspark", worlds=("simspark",), socket=False)
    ap.add_argument("--phase-time", type=float, default=15.0, help="simulated s of each of phases 2-4 (default 15)")
    ap.add_argument("--ball-time", type=float, default=20.0, help="simulated s at most for phase 1 (default 20)")
    ap.add_argument("--relocate", type=float, nargs=3, default=(-7.0, 4.0, -math.pi / 2),
                    help="x y theta (field frame) the trainer moves the robot to in phase 2")
    ap.add_argument("--relocate-lying", type=float, nargs=3, default=(3.0, -3.0, math.pi),
                    help="x y theta the trainer moves the robot to in phase 4")
    ap.add_argument("--log-dir", default=None, help="where the samples go (default .villa-logs/bench-lost-<time>)")


def run(args) -> int:
    from villa_bringup.domain import lease_domain
    from villa_bringup.match import team_file
    from villa_bringup.team import TeamRunner
    from villa_bringup.team_config import default_path, load
    from villa_sim.simspark import SimSparkServer, SimSparkTrainer, available

    if args.phase_time <= 0 or args.ball_time <= 0:
        print("simspark_lost: --phase-time and --ball-time must be positive", file=sys.stderr)
        return 2
    ok, why = available()
    if not ok:
        print(f"simspark_lost: --world simspark: {why}", file=sys.stderr)
        return 2
    print(f"SimSpark (rcssserver3d): one villa player, robot type of villa_bringup's team.yaml's player 1, phases of "
          f"{args.phase_time:.0f} s, the ball at most {args.ball_time:.0f} s", flush=True)
    log_dir = Path(args.log_dir or f".villa-logs/bench-lost-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    log_dir.mkdir(parents=True, exist_ok=True)
    lease = lease_domain()
    os.environ["ROS_DOMAIN_ID"] = str(lease.domain_id)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    unum = 1
    runner = trainer = lis = bump = None
    results: dict = {}
    failed = None
    try:
        with SimSparkServer(directory=log_dir / "simspark") as server:
            cfg = load(team_file(default_path(), TEAM, "villa", server.agent_port, 1,
                                 Path(tempfile.mkdtemp(dir=log_dir)), None, "simspark"))
            trainer = SimSparkTrainer(port=server.monitor_port)
            lis = Listener(unum)
            runner = TeamRunner(cfg, log_dir, env=env, ready_timeout=60)
            runner.start()
            # on the field, upright and beamed to its kick-off spot by the centre (a new robot stands at the side
            # line until its first beam; a kick-off before it leaves the ball 17 m away and beams are refused)
            trainer.wait_for(lambda g: ("left", unum) in g.players and g.players[("left", unum)].upright > 0.9
                             and math.hypot(*g.players[("left", unum)].position[:2]) < 1.0, 120)
            bump = BareAgent(server.agent_port)
            trainer.wait_for(lambda g: ("right", 1) in g.players, 60)
            trainer.move_player("Right", 1, 12.0, 9.0, 0.0)
            trainer.wait_updates(25, 60)      # the beam has settled, the filter has seen landmarks
            trainer.kick_off("Left")
            print(f"simspark_lost: kick-off; logs in {log_dir}", flush=True)

            # 1. the ball
            ball0 = trainer.truth().ball
            rows = run_phase(trainer, lis, unum, args.ball_time,
                             until=lambda r: math.dist(trainer.truth().ball[:2], ball0[:2]) > 0.1)
            touched = rows[-1]["t"] if rows[-1]["t"] < args.ball_time else None
            results["ball"] = {"first_touch_s": touched, "closest_m": min(r["ball_d"] for r in rows),
                               "rows": rows}
            print("\n1. ball: first touch " + (f"after {touched:.1f} simulated s" if touched is not None else
                  f"never within {args.ball_time:.0f} s") + f" (closest {results['ball']['closest_m']:.2f} m)")

            # 2. the referee moves the robot
            trainer.play_mode("PlayOn")
            trainer.place_ball(8.0, -5.0)
            trainer.wait_updates(25, 60)
            x, y, th = args.relocate
            trainer.move_player(TEAM, unum, x, y, th)
            rows = run_phase(trainer, lis, unum, args.phase_time)
            results["relocation"] = {"to": [x, y, th], "rows": rows}
            print(f"\n2. relocation to ({x:.1f}, {y:.1f}, {math.degrees(th):.0f} deg):\n" + table(rows))

            # 3. a fall
            trainer.place_ball(8.0, -5.0)
            lis.record_acc = True
            g0, n_changes = trainer.truth(), len(lis.fall_changes)
            x, y = g0.players[("left", unum)].position[:2]
            trainer.move_player("Right", 1, x + 0.08, y, math.pi / 2)      # into our robot: both fall
            trainer.wait_for(lambda g: g.sim_time > g0.sim_time + 1.0, 60)
            trainer.move_player("Right", 1, 12.0, 9.0, 0.0)                # and away again
            rows = run_phase(trainer, lis, unum, args.phase_time)
            lis.record_acc = False
            changes, lying = still_lying_changes(rows)
            total = len(lis.fall_changes) - n_changes
            results["fall"] = {"fall_state_changes": total, "changes_lying_still": changes, "lying_still_s": lying,
                               "rows": rows}
            print(f"\n3. fall (collision): fall_state changed {total} times; {changes} of them while lying still "
                  f"({lying:.1f} s lying still)\n" + table(rows))
            with open(log_dir / "fall_acc.csv", "w", newline="") as f:
                csv.writer(f).writerows([("t", "ax", "ay", "az"), *lis.acc])

            # 4. the referee moves the robot that fell
            x, y, th = args.relocate_lying
            lying = trainer.truth().players[("left", unum)].upright < 0.5
            trainer.move_player(TEAM, unum, x, y, th)
            rows = run_phase(trainer, lis, unum, args.phase_time)
            results["relocation_lying"] = {"to": [x, y, th], "was_lying": lying, "rows": rows}
            print(f"\n4. relocation of the {'lying' if lying else 'standing (it got up)'} robot to ({x:.1f}, {y:.1f}, "
                  f"{math.degrees(th):.0f} deg):\n" + table(rows))
    except (RuntimeError, OSError) as e:          # the server or the player did not start, or stopped answering
        failed = str(e)
    finally:
        if runner is not None:
            runner.stop()
        if lis is not None:
            lis.close()
        if bump is not None:
            bump.close()
        if trainer is not None:
            trainer.close()
        lease.release()
    (log_dir / "bench_lost.json").write_text(json.dumps(results, indent=1))
    print(f"\nsamples in {log_dir / 'bench_lost.json'}")
    if failed is not None:
        print(f"simspark_lost: the run stopped: {failed}", file=sys.stderr)
        return 1
    return 0
