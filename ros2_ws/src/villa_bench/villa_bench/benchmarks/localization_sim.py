"""Particle filter + ball filter on villa sim's own vision (SimSpark noise), in process: pose, kidnap and ball errors.

The robot is placed kinematically along a course each vision frame (player.drop_at; no walking robot), the head
yaw scans, odometry = ground-truth deltas + Gaussian noise (drawn from --seed). A kidnap to a random spot happens
mid-run. The ball is moved kinematically at constant velocity (set in MuJoCo qpos each frame, not a physical roll);
the ball filter runs in the robot frame (odometry moves it) and its error is measured in the field frame through
the pose estimate. Prints the position and heading errors (mean, p95), the kidnap recovery time, the filter's time
per vision frame and the ball's error (seen and unseen frames).

    villa bench localization_sim [--frames 600] [--seed 1]
"""

from __future__ import annotations

import math
import sys
import time

import mujoco
import numpy as np
from rcsssmj.sim.actions import InitRequest
from rcsssmj.sim.perceptions import AgentDetection, VisionPerception

from villa_bench import common
from villa_localization.ball_filter import BallFilter
from villa_localization.particle_filter import Landmark, ParticleFilter
from villa_nao import field as F
from villa_perception.vision import NoiseModel, camera_to_footprint, ground_observation, polar_to_camera
from villa_sim.simulation import VillaSoccerSimulation

WORLDS = ("villa",)
RUN_TIME = "about 5 s (600 frames)"
SMOKE = ["--frames", "120"]

DT = 0.06  # s, one SimSpark vision frame every 3 cycles


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def _course(t: float) -> np.ndarray:
    """An ellipse on the own half and the centre, heading along the path."""
    w = 0.05  # rad/s -> about 0.3 m/s
    x, y = -3.0 + 3.0 * math.cos(w * t), 2.0 * math.sin(w * t)
    th = math.atan2(2.0 * math.cos(w * t), -3.0 * math.sin(w * t))
    return np.array([x, y, th])


def _seen(vision, head_yaw: float, noise: NoiseModel):
    """Adapter: rcsssmj VisionPerception (degrees) -> metres/radians ground observations."""
    lms, ball = [], None
    for o in vision.obj_detections:
        if isinstance(o, AgentDetection):
            continue
        name = getattr(o, "name", "")
        p = polar_to_camera([o.distance], [math.radians(o.azimuth)], [math.radians(o.inclination)])
        lvl = camera_to_footprint(p, head_yaw, 0.0)[0]
        s = ground_observation(lvl, "ball" if name == "B" else "landmark", name, noise)
        if name == "B":
            ball = s
        elif name in F.LANDMARKS:
            lx, ly = F.LANDMARKS[name][:2]
            lms.append(Landmark(lx, ly, s.distance, s.bearing, s.distance_sigma, s.bearing_sigma))
    return lms, ball


def _mean(v: np.ndarray) -> str:
    return f"{v.mean():.3f} m" if v.size else "n/a"


def add_arguments(ap) -> None:
    common.add_world(ap, worlds=("villa",), socket=False)
    ap.add_argument("--frames", type=int, default=600,
                    help="vision frames (default 600; the kidnap at half of them; at least 120)")
    common.add_seed(ap)


def run(args) -> int:
    if args.frames < 120:
        print("localization_sim: --frames must be at least 120 (errors are measured from frame 50 to the kidnap at "
              "half the frames)", file=sys.stderr)
        return 2
    print(f"{common.world_label(args)}: robot type 0, {args.frames} vision frames, seed {args.seed}", flush=True)
    rng = np.random.default_rng(args.seed)
    sim = VillaSoccerSimulation(vision_noise=True, seed=args.seed)
    assert sim.init()
    (player,) = sim.add_players([InitRequest("nao", "villa", 1)])
    hj1 = sim.mj_data.joint(player.agent_id.prefix + "hj1")
    ball_j = sim.mj_data.joint("ball-root")
    noise = NoiseModel()
    pf, bf = ParticleFilter(seed=args.seed), BallFilter()
    truth = _course(0.0)
    pf.seed_pose(*truth)
    kidnap_at = args.frames // 2
    ball0, ball_v = np.array([-2.0, -1.5]), np.array([0.4, 0.25])
    pos_err, head_err, pf_ms, ball_err, ball_seen = [], [], [], [], []
    recovered_at = None
    prev = truth.copy()
    for k in range(args.frames):
        t = k * DT
        truth = _course(t)
        if k >= kidnap_at:  # kidnapped: a fixed random spot, then the course shifted there
            if k == kidnap_at:
                kid = np.array([rng.uniform(-6, 6), rng.uniform(-4, 4), rng.uniform(-math.pi, math.pi)])
                prev = kid.copy()
            truth = kid + (_course(t) - _course(kidnap_at * DT)) * np.array([1.0, 1.0, 1.0])
            truth[2] = _wrap(truth[2])
        yaw = math.radians(100.0) * math.sin(2 * math.pi * t / 4.0)
        player.drop_at(float(truth[0]), float(truth[1]), float(truth[2]))
        hj1.qpos[0] = yaw
        bxy = ball0 + ball_v * t
        ball_j.qpos[:3] = [bxy[0], bxy[1], F.BALL_RADIUS]
        mujoco.mj_forward(sim.mj_model, sim.mj_data)
        sim.generate_perceptions(gen_vision=True)
        (vis,) = [p for p in player.perceptions if isinstance(p, VisionPerception)]
        lms, ball = _seen(vis, yaw, noise)
        # odometry in the previous body frame with noise (not applied across the kidnap)
        d = truth[:2] - prev[:2]
        c, s = math.cos(prev[2]), math.sin(prev[2])
        odo = np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1], _wrap(truth[2] - prev[2])])
        if k == kidnap_at:
            odo[:] = 0.0
        odo += rng.normal(0.0, [0.005, 0.005, 0.01])
        prev = truth.copy()
        t0 = time.perf_counter()
        pf.predict(*odo)
        if lms:
            pf.update(lms)
        est, cov = pf.estimate()
        pf_ms.append((time.perf_counter() - t0) * 1e3)
        e = float(np.hypot(*(est[:2] - truth[:2])))
        bf.move(*odo)                       # the ball filter runs in the robot frame: odometry moves it
        if ball is not None:
            z, r = BallFilter.measurement(ball.position, ball.distance_sigma, ball.bearing_sigma)
            bf.update(z, r, t)
        else:
            bf.predict(t)
        if k < kidnap_at and k >= 50:
            pos_err.append(e)
            head_err.append(abs(math.degrees(_wrap(est[2] - truth[2]))))
            if bf.x is not None:               # the field-frame ball: our pose estimate composed with it
                ball_err.append(float(np.hypot(*(bf.in_field(est, cov)[0][:2] - bxy))))
                ball_seen.append(ball is not None)
        if k > kidnap_at and recovered_at is None and e < 0.3:
            recovered_at = (k - kidnap_at) * DT
    pe, he, be, pm = (np.array(v) for v in (pos_err, head_err, ball_err, pf_ms))
    print(f"frames {args.frames} (dt {DT} s), 1000 particles, SimSpark vision noise, head scan +-100 deg")
    print(f"position error: mean {pe.mean():.3f} m, p95 {np.percentile(pe, 95):.3f} m")
    print(f"heading error: mean {he.mean():.2f} deg, p95 {np.percentile(he, 95):.2f} deg")
    rec = "not recovered" if recovered_at is None else f"{recovered_at:.2f} s"
    print(f"kidnap recovery (error < 0.3 m): {rec}")
    print(f"filter time per vision frame: mean {pm.mean():.3f} ms, p95 {np.percentile(pm, 95):.3f} ms")
    if be.size:
        seen = np.array(ball_seen)
        print(f"ball error (ball moving 0.47 m/s): mean {be.mean():.3f} m, p95 {np.percentile(be, 95):.3f} m; in the "
              f"{100 * seen.mean():.0f} % of frames that see it {_mean(be[seen])}, in the others "
              f"{_mean(be[~seen])} (the filter's friction slows an unseen ball; this ball keeps its speed)")
    return 0
