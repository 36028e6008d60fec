"""Vision of the embedded simulator, in process (no sockets): landmark geometry and SimSpark noise."""

import math

import mujoco
import numpy as np
import pytest
from rcsssmj.sim.actions import InitRequest
from rcsssmj.sim.perceptions import AgentDetection, VisionPerception

from villa_nao import field as F
from villa_sim.simulation import VillaSoccerSimulation

MODELS = ["nao"]


def _sim(model, noise, poses):
    sim = VillaSoccerSimulation(vision_noise=noise, seed=7)
    assert sim.init()
    players = sim.add_players([InitRequest(model, team, unum) for team, unum, _ in poses])
    assert all(p is not None for p in players)
    for p, (_, _, (x, y, th)) in zip(players, poses, strict=True):
        p.drop_at(x, y, th)
    mujoco.mj_forward(sim.mj_model, sim.mj_data)
    return sim, players


def _vision(player):
    (v,) = [p for p in player.perceptions if isinstance(p, VisionPerception)]
    return v


def _expected_polar(sim, player, point):
    site = sim.mj_data.site(player.agent_id.prefix + "camera")
    rel = site.xmat.reshape(3, 3).T @ (np.asarray(point) - site.xpos)
    d = np.linalg.norm(rel)
    return d, math.degrees(math.atan2(rel[1], rel[0])), math.degrees(math.asin(rel[2] / d))


@pytest.mark.parametrize("model", MODELS)
def test_noise_off_landmarks_where_geometry_puts_them(model):
    sim, (p,) = _sim(model, False, [("villa", 1, (-5.0, 0.5, 0.2))])
    sim.generate_perceptions(gen_vision=True)
    seen = {o.name: o for o in _vision(p).obj_detections if not isinstance(o, AgentDetection)}
    assert {"G1R", "G2R", "F1R", "F2R", "B"} <= set(seen)  # facing the opponent goal from -5 m
    assert not any(n.startswith(("l_", "t_", "x_", "p_", "g_")) for n in seen)  # rcssservermj's markers gone
    for name in ("G1R", "G2R", "F1R", "F2R"):
        d, az, el = _expected_polar(sim, p, F.LANDMARKS[name])
        o = seen[name]
        assert abs(o.distance - d) <= 0.01 and abs(o.azimuth - az) <= 0.1 and abs(o.inclination - el) <= 0.1, name
    d, az, el = _expected_polar(sim, p, sim.ball.xpos)
    assert abs(seen["B"].distance - d) <= 0.01
    assert sim.ball.radius == F.BALL_RADIUS and sim.mj_model.geom("ball").size[0] == F.BALL_RADIUS


@pytest.mark.parametrize("model", MODELS)
def test_noise_on_error_statistics_match_simspark(model):
    sim, (p,) = _sim(model, True, [("villa", 1, (-3.0, 0.0, 0.0))])
    errs = {"d": [], "az": [], "el": []}
    target = F.LANDMARKS["G1R"]
    d0, az0, el0 = _expected_polar(sim, p, target)
    for _ in range(3000):
        sim.generate_perceptions(gen_vision=True)
        (o,) = [o for o in _vision(p).obj_detections if getattr(o, "name", "") == "G1R"]
        errs["d"].append(o.distance - d0)
        errs["az"].append(o.azimuth - az0)
        errs["el"].append(o.inclination - el0)
    e = {k: np.array(v) for k, v in errs.items()}
    assert np.std(e["az"]) == pytest.approx(0.1480, rel=0.15)
    assert np.std(e["el"]) == pytest.approx(0.1225, rel=0.15)
    assert np.std(e["d"]) == pytest.approx(math.hypot(0.000965 * d0, 0.0029), rel=0.3)
    # the fixed calibration offset (<= 5 mm per axis) biases every reading the same way
    bias_m = abs(np.mean(e["d"]))
    assert bias_m <= 0.005 * math.sqrt(3) + 0.006


@pytest.mark.parametrize("model", MODELS)
def test_players_see_each_other_with_team_and_id(model):
    sim, (a, b) = _sim(model, False, [("villaA", 1, (-2.0, 0.0, 0.0)), ("villaB", 2, (2.0, 0.0, math.pi))])
    sim.generate_perceptions(gen_vision=True)
    seen_by_a = [o for o in _vision(a).obj_detections if isinstance(o, AgentDetection)]
    assert any(o.team_name == "villaB" and o.player_no == 2 for o in seen_by_a)
    assert "(P (team villaB)(id 2)" in _vision(a).to_sexp()
