"""Particle filter (§5) and ball Kalman filter (§9.2) on generated observation streams from known trajectories."""

import math

import numpy as np
import pytest

from villa_localization.ball_filter import BallFilter
from villa_localization.particle_filter import Landmark, ParticleFilter, PFParams
from villa_localization.world_model import Observed, WorldModel
from villa_nao import field as F

DT = 0.04                      # one vision frame every 2 cycles (rcssservermj)
NAMES = list(F.LANDMARKS)


def _trajectory(t):
    """A walk around the own half: (x, y, theta) at time t."""
    return np.array([-6 + 3 * math.sin(0.2 * t), 2 * math.cos(0.15 * t), 0.4 * math.sin(0.3 * t)])


HALF_FOV, SIGMA_B = math.radians(60), math.radians(1)


def _observe(pose, t, rng, half_fov=HALF_FOV, scan_period=8.0, sigma_d=0.03, sigma_b=SIGMA_B):
    """Landmarks in view of a head scanning ±120° over 8 s (§4.1), with noise."""
    head = math.radians(120) * math.sin(2 * math.pi * t / scan_period)
    out = []
    for n in NAMES:
        lx, ly = F.LANDMARKS[n][:2]
        dx, dy = lx - pose[0], ly - pose[1]
        b = math.remainder(math.atan2(dy, dx) - pose[2], 2 * math.pi)
        if abs(math.remainder(b - head, 2 * math.pi)) > half_fov:
            continue
        d = math.hypot(dx, dy)
        out.append(Landmark(lx, ly, d + rng.normal(0, sigma_d * (1 + d / 10)), b + rng.normal(0, sigma_b),
                            sigma_d * (1 + d / 10) * 2, sigma_b * 2))
    return out


def _run(pf, rng, t0, t1, start_pose=None):
    errors = []
    prev = _trajectory(t0)
    t = t0
    while t < t1:
        t += DT
        pose = _trajectory(t)
        d = pose - prev
        c, s = math.cos(prev[2]), math.sin(prev[2])
        pf.predict(c * d[0] + s * d[1], -s * d[0] + c * d[1], math.remainder(d[2], 2 * math.pi))
        pf.update(_observe(pose, t, rng))
        est, _ = pf.estimate()
        errors.append((t, math.hypot(*(est[:2] - pose[:2])), abs(math.remainder(est[2] - pose[2], 2 * math.pi))))
        prev = pose
    return errors


def test_converges_from_uniform_within_3_s_and_stays():
    rng = np.random.default_rng(0)
    pf = ParticleFilter(PFParams(), seed=1)
    errors = _run(pf, rng, 0.0, 20.0)
    after3 = [e for t, e, _ in errors if t >= 3.0]
    assert max(after3) < 0.2, max(after3)
    assert max(h for t, _, h in errors if t >= 3.0) < math.radians(5)


def test_kidnapped_robot_recovers():
    rng = np.random.default_rng(2)
    pf = ParticleFilter(PFParams(), seed=3)
    _run(pf, rng, 0.0, 5.0)
    pf.seed_pose(8.0, -5.0, 2.0)           # the filter is sure of a wrong pose (the robot was moved)
    errors = _run(pf, rng, 5.0, 25.0)
    assert errors[0][1] > 5.0
    assert max(e for t, e, _ in errors if t > 20.0) < 0.3


def test_one_landmark_reduces_error_when_roughly_localized():
    rng = np.random.default_rng(4)
    improved = 0
    for trial in range(10):
        pf = ParticleFilter(PFParams(random_fraction=0.0), seed=10 + trial)
        truth = np.array([-5.0, 1.0, 0.3])
        pf.seed_pose(truth[0] + 0.4, truth[1] - 0.3, truth[2] + 0.05, sigma=(0.4, 0.4, 0.05))
        before = math.hypot(*(pf.estimate()[0][:2] - truth[:2]))
        lx, ly = F.LANDMARKS["G1R"][:2]
        d = math.hypot(lx - truth[0], ly - truth[1])
        b = math.atan2(ly - truth[1], lx - truth[0]) - truth[2]
        for _ in range(3):
            pf.update([Landmark(lx, ly, d + rng.normal(0, 0.05), b + rng.normal(0, 0.01), 0.1, 0.02)])
        after = math.hypot(*(pf.estimate()[0][:2] - truth[:2]))
        improved += after < before
    assert improved >= 8


def test_field_lines_alone_keep_a_rough_estimate_in_place():
    pf = ParticleFilter(PFParams(random_fraction=0.0), seed=5)
    truth = np.array([-10.0, 0.0, 0.0])
    pf.seed_pose(-9.7, 0.2, 0.0, sigma=(0.3, 0.3, 0.02))
    # the penalty-area front line (x = -13.2) seen 3.2 m behind... in front: we face +x, so use the centre line
    seg = np.array([[10.0, -1.0], [10.0, 1.0]])         # centre line x = 0, seen 10 m ahead
    for _ in range(10):
        pf.update([], [seg])
    est = pf.estimate()[0]
    assert abs(est[0] - truth[0]) < 0.2


def test_ball_filter_predicts_constant_velocity_within_covariance():
    rng = np.random.default_rng(6)
    kf = BallFilter()
    v = np.array([1.2, -0.5])
    r = np.diag([0.05 ** 2, 0.05 ** 2])
    t = 0.0
    for _ in range(50):
        t += DT
        kf.update(np.array([1.0, 2.0]) + v * t + rng.normal(0, 0.05, 2), r, t)
    assert kf.x[2:] == pytest.approx(v, abs=0.15)
    kf.predict(t + 1.0)                                   # one second ahead, no measurement
    truth = np.array([1.0, 2.0]) + v * (t + 1.0)
    err = kf.x[:2] - truth
    mahal = err @ np.linalg.inv(kf.P[:2, :2]) @ err
    assert mahal < 9.21                                   # inside the 99 % ellipse (chi^2, 2 dof)


def test_world_model_tracks_ball_and_players_in_the_field_frame():
    wm = WorldModel(seed=0)
    wm.known_pose(-3.0, 1.0, math.pi / 2)                 # beam: facing +y
    obs = [Observed("ball", "B", (2.0, 0.0), 2.0, 0.0, 0.05, 0.02),
           Observed("opponent", "them/4", (1.0, -1.0), math.sqrt(2), -math.pi / 4, 0.05, 0.02),
           Observed("teammate", "villa/2", (0.0, 1.0), 1.0, math.pi / 2, 0.05, 0.02)]
    wm.observe(obs, 1.0)
    assert wm.ball.x[:2] == pytest.approx([-3.0, 3.0], abs=0.15)
    assert wm.opponents["them/4"].position == pytest.approx([-2.0, 2.0], abs=0.15)
    assert wm.teammates[2].position == pytest.approx([-4.0, 1.0], abs=0.15)
    assert wm.ball_valid(2.0) and not wm.ball_valid(10.0)
