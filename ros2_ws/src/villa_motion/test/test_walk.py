"""Walk engine (§10.1, §10.4): equations at chosen phases, step-size control, parameter sets, odometry, stopping."""

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest

from villa_motion.params import load_parameter_sets, walk_sets_path
from villa_motion.walk import SETTLE_TIME, WalkEngine, WalkParams
from villa_nao import kinematics as K
from villa_nao.params import config_path

P = WalkParams(y_shift=0.01, y_sep=0.1, z_torso=0.35, z_step=0.02, f_g=0.1, f_s=0.1, x_offset=-0.01, x_factor=0.0)


def _engine(p=P, step=(0.04, 0.0, 0.2), left=True):
    w = WalkEngine({"p": p})
    w.step = np.array(step, dtype=float)
    w.left_stance = left
    return w


def test_feet_at_mid_step_match_hand_computed_values():
    w = _engine()
    feet, _ = w._feet(P, 0.5, 0.0)
    sx, _, sth = w.step
    stance, swing = feet["L"], feet["R"]
    # lift: z_frac(0.5) = 0.5 (1 - cos(2 pi (0.5 - 0.1) / 0.8)) = 1
    assert swing[2] == pytest.approx(-P.z_torso + P.z_step)
    assert stance[2] == pytest.approx(-P.z_torso)
    # side shift: y_stance(phi = 0) = 0.5 y_sep + y_shift (-1.5 + 0.5 cosh 0) = 0.05 - 0.01
    assert stance[1] == pytest.approx(0.04)
    assert swing[1] == pytest.approx(-(P.y_sep - 0.04))
    # forward: sigmoid(0) = 0.5 -> x_frac = -0.5 - f_s + (1 + 2 f_s) 0.5 = 0; stance 0.5 - t = 0; both + x_offset
    assert swing[0] == pytest.approx(P.x_offset) and stance[0] == pytest.approx(P.x_offset)
    # turning left (step_theta > 0) with the left foot standing: the right foot swings straight, the left one was
    # put down straight (this is the first step)
    assert swing[3] == pytest.approx(0.0) and stance[3] == pytest.approx(0.0)
    # at the ends of the step
    f0, _ = w._feet(P, 0.0, -0.5)
    f1, _ = w._feet(P, 1.0, 0.5)
    assert f0["R"][2] == f1["R"][2] == pytest.approx(-P.z_torso)       # swing foot on the ground
    assert f0["R"][0] == pytest.approx(-0.5 * sx + P.x_offset)         # starts behind ...
    assert f1["R"][0] == pytest.approx(0.5 * sx + P.x_offset)          # ... ends ahead
    assert f0["L"][0] == pytest.approx(0.5 * sx + P.x_offset) and f1["L"][0] == pytest.approx(-0.5 * sx + P.x_offset)
    assert f1["R"][3] == pytest.approx(0.0) and f0["R"][3] == pytest.approx(0.0)


def test_turning_opens_the_foot_on_the_side_of_the_turn_only():
    """Outward foot yaw only (the hip yaw-pitch stops at +1 degree): turning left, the left foot swings open to
    2 step_theta (groin: 0.5 (1 - cos(pi 0.5)) = half of it mid-step) and the torso turns over it back to straight while
    it stands; turning right, the right foot does the same with negative yaw."""
    for sth in (0.2, -0.2):
        opening, other = ("L", "R") if sth > 0 else ("R", "L")
        w = _engine(step=(0.0, 0.0, sth), left=other == "L")          # the opening foot swings
        f_mid, _ = w._feet(P, 0.5, 0.0)
        f_end, _ = w._feet(P, 1.0, 0.5)
        assert f_mid[opening][3] == pytest.approx(sth) and f_end[opening][3] == pytest.approx(2 * sth)
        assert f_mid[other][3] == pytest.approx(0.0) and f_end[other][3] == pytest.approx(0.0)
        w._new_step(P)                                                   # the opening foot stands
        w.step[:] = (0.0, 0.0, sth)
        f0, _ = w._feet(P, 0.0, w.phi_start)
        f_mid, _ = w._feet(P, 0.5, 0.0)
        f1, _ = w._feet(P, 1.0, w.phi_end)
        assert f0[opening][3] == pytest.approx(2 * sth) and f_mid[opening][3] == pytest.approx(sth)
        assert f1[opening][3] == pytest.approx(0.0) and f1[other][3] == pytest.approx(0.0)


def test_the_physical_naos_walk_turns_both_feet_alike():
    """On a physical Nao (one motor for both hip yaw-pitch joints) each foot turns half the step, one out, one in."""
    w = _engine(step=(0.0, 0.0, 0.2))
    w.outward_turn = False
    f1, _ = w._feet(P, 1.0, 0.5)
    assert f1["R"][3] == pytest.approx(0.1) and f1["L"][3] == pytest.approx(-0.1)
    from villa_motion import arbiter as A
    assert not A.MotionConfig.from_params(A.motion_parameters({"simulator": "naoqi"})).outward_turn
    assert A.MotionConfig.from_params(A.motion_parameters({"simulator": "simspark"})).outward_turn


def test_turning_in_place_stays_within_the_legs_reach():
    """Every cycle of turning in place either way has its leg IK in reach (turning each foot inward
    would need the hip yaw-pitch past its +1 degree stop on every other step)."""
    for theta in (1.0, -1.0, 0.5):
        w = WalkEngine(load_parameter_sets(config_path("villa_motion", "walk_params.yaml")), "positioning")
        w.command_normalized(0.0, 0.0, theta, "positioning")
        outs = [w.update(0.02) for _ in range(150)]
        assert all(o.reachable for o in outs), theta


def test_feet_are_continuous_across_the_stance_switch():
    w = _engine()
    w.command_normalized(1.0, 0.3, 0.2)
    w.step = w.desired.copy()
    prev = None
    jumps = []
    for _ in range(200):
        w.update(0.02)
        feet, _ = w._feet(w.p, min(1, (w.phi - w.phi_start) / (w.phi_end - w.phi_start)), w.phi)
        cur = np.array([feet["L"][:3], feet["R"][:3]])
        if prev is not None:
            jumps.append(np.abs(cur - prev).max())
        prev = cur
    assert max(jumps) < 0.012   # no foot target jumps more than ~1 cm in a 20 ms cycle


def test_phase_matching_is_symmetric_at_the_default_pendulum_height():
    w = _engine()
    w.phi_end = 0.5
    w._new_step(P)
    assert w.phi_start == pytest.approx(-0.5, abs=1e-3) and w.phi_end == pytest.approx(0.5, abs=1e-3)
    w2 = _engine(WalkParams(pendulum_height=0.3))
    w2._new_step(w2.p)
    assert w2.phi_start != pytest.approx(-0.5, abs=1e-3)          # other heights: the seed's matching shifts it


def test_step_sizes_follow_p_control_and_clamp():
    w = _engine(step=(0, 0, 0))
    w.command_normalized(1.0, 0.0, 0.0)
    w._new_step(P)
    assert w.step[0] == pytest.approx(P.delta * P.max_step_x)
    for _ in range(200):
        w._new_step(P)
    assert w.step[0] == pytest.approx(P.max_step_x, rel=1e-3)
    w.command_velocity(10.0, 0.0, 0.0)                                # far beyond the maximum
    assert w.desired[0] == pytest.approx(P.max_step_x)


def test_com_error_shrinks_the_steps():
    w = _engine(step=(0.04, 0.0, 0.0))
    w.command_normalized(1.0, 0.0, 0.0)
    w.com_error = P.err_max + 0.01
    w._new_step(P)
    assert w.step[0] == pytest.approx(0.0)
    w.com_error = 0.5 * (P.err_norm + P.err_max)
    w.step[:] = (0.04, 0, 0)
    w._new_step(P)
    assert 0 < w.step[0] < 0.04


def test_parameter_set_switch_keeps_step_sizes_continuous():
    a = WalkParams(max_step_x=0.08)
    b = WalkParams(max_step_x=0.03, phase_length=0.3, z_step=0.03)
    w = WalkEngine({"a": a, "b": b}, "a")
    w.command_normalized(1.0, 0.0, 0.0, "a")
    steps = []
    for _ in range(300):
        w.update(0.02)
        steps.append(w.step[0])
    w.command_normalized(1.0, 0.0, 0.0, "b")
    for _ in range(300):
        w.update(0.02)
        steps.append(w.step[0])
    d = np.abs(np.diff(steps[299:]))
    assert d.max() <= a.delta * (0.08 - 0.03) + 1e-9                  # shrinks by P control, never jumps
    assert d.max() > 0
    assert steps[-1] == pytest.approx(0.03, abs=3e-3)
    with pytest.raises(ValueError, match="unknown walk parameter set"):
        w.command_normalized(1, 0, 0, "nope")


def test_odometry_and_stopping_with_jog():
    w = WalkEngine({"p": P})
    w.command_normalized(1.0, 0.0, 0.0)
    total = np.zeros(3)
    for _ in range(250):
        total += w.update(0.02).odometry
    assert total[0] > 0.3 * 250 * 0.02 * 0.04 / P.phase_length and abs(total[1]) < 0.02
    w.command_stand()
    standing_at = None
    for i in range(200):
        if w.update(0.02).standing:
            standing_at = i * 0.02
            break
    assert standing_at is not None and standing_at >= 0.5               # jogs in place at least 0.5 s


def test_stop_stands_at_once_and_walking_resumes_from_rest():
    w = WalkEngine({"p": P})
    assert w.standing
    w.command_normalized(1.0, 0.0, 0.0)
    for _ in range(100):
        w.update(0.02)
    assert not w.standing and w.step[0] > 0
    w.stop()                                                           # no jog: the next cycle stands
    out = w.update(0.02)
    assert w.standing and out.standing and out.odometry == (0.0, 0.0, 0.0)
    assert np.all(w.step == 0.0)
    w.command_normalized(1.0, 0.0, 0.0)
    first = [float(w.step[0]) for _ in range(60) if w.update(0.02) is not None]
    assert not w.standing and 0 < max(first) < P.max_step_x             # steps grow again from zero (P control)


def test_joint_targets_reach_the_feet_targets():
    w = WalkEngine({"p": P})
    out = w.update(0.02)
    left = [out.joints[n] for n in WalkEngine.LEFT]
    sole = K.leg_fk("L", left)
    assert sole[:3, 3] == pytest.approx([P.x_offset, P.y_sep / 2, -P.z_torso], abs=1e-4)


def test_shipped_parameter_sets_load(tmp_path):
    sets = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))
    assert {"goToTarget", "sprint", "positioning"} <= set(sets)
    bad = tmp_path / "w.yaml"
    bad.write_text("sets:\n  a: {max_step_x: 0.1, warp: 3}\n")
    with pytest.raises(ValueError, match="unknown parameters warp"):
        load_parameter_sets(bad)
    bad.write_text("sets:\n  a: {z_torso: -1}\n")
    with pytest.raises(ValueError, match="out of range"):
        load_parameter_sets(bad)


def test_a_robot_types_entry_layers_over_the_common_sets(tmp_path):
    f = tmp_path / "w.yaml"
    f.write_text("sets:\n  g: {max_step_x: 0.12, z_torso: 0.33}\n  s: {inherit: g}\n"
                 "  p: {inherit: g, max_step_x: 0.08}\nrobot_types:\n  2: {g: {max_step_x: 0.1}}\n")
    common, two = load_parameter_sets(f), load_parameter_sets(f, robot_type=2)
    assert common["g"].max_step_x == common["s"].max_step_x == 0.12
    assert two["g"].max_step_x == two["s"].max_step_x == 0.1       # inherited by the sets built on it
    assert two["p"].max_step_x == 0.08 and two["g"].z_torso == 0.33  # a set's own field and the others stay
    assert load_parameter_sets(f, robot_type=1) == common
    # the simulator overlay comes after the type's layer, then the overlay's own robot_types entry
    (tmp_path / "w.simspark.yaml").write_text("sets:\n  g: {z_torso: 0.32}\n"
                                              "robot_types:\n  2: {g: {max_step_x: 0.09}}\n")
    ss = load_parameter_sets(f, "simspark", robot_type=2)
    assert ss["g"].z_torso == 0.32 and ss["g"].max_step_x == 0.09
    (tmp_path / "w.simspark.yaml").write_text("sets:\n  t: {inherit: g, phase_length: 0.1}\n"   # a set it adds
                                              "robot_types:\n  2: {t: {inherit: g}}\n")
    assert load_parameter_sets(f, "simspark")["t"].phase_length == 0.1
    assert load_parameter_sets(f, "simspark", robot_type=2)["t"] == two["g"]
    for text, match in (("robot_types:\n  7: {g: {max_step_x: 0.1}}", "robot type 0..4"),
                        ("robot_types:\n  2: {nope: {max_step_x: 0.1}}", "no such set"),
                        ("robot_types:\n  2: {g: {warp: 1}}", "unknown parameters warp")):
        f.write_text("sets:\n  g: {max_step_x: 0.12}\n" + text + "\n")
        with pytest.raises(ValueError, match=match):
            load_parameter_sets(f, robot_type=2)
    with pytest.raises(ValueError, match="robot type must be 0..4"):
        load_parameter_sets(f, robot_type=5)


def test_shipped_sets_differ_per_robot_type_where_the_run_challenge_fell():
    """Types 1 and 2 fell at goToTarget's full step (config/walk_params.yaml, villa bench run_challenge)."""
    path = config_path("villa_motion", "walk_params.yaml")
    zero, two = load_parameter_sets(path), load_parameter_sets(path, robot_type=2)
    assert two["goToTarget"].max_step_x < zero["goToTarget"].max_step_x
    assert two["positioning"].max_step_x < zero["positioning"].max_step_x
    assert two["kickApproach"] == zero["kickApproach"]
    for rt in (1, 2):                                                # the learned sprint fell with these types
        other = load_parameter_sets(path, robot_type=rt)
        assert other["sprint"] == other["goToTarget"]
    assert zero["sprint"] != zero["goToTarget"]
    assert load_parameter_sets(path, robot_type=4)["sprint"] == zero["sprint"]   # type 4 with its stop (delta_stop)


def test_balance_feedback_moves_only_the_stance_ankle_by_the_gains():
    p = replace(P, gyro_roll=0.05, gyro_pitch=0.02)
    plain, fed = WalkEngine({"p": p}), WalkEngine({"p": p})
    for w in (plain, fed):
        w.command_normalized(0.5, 0.0, 0.0)
    for i in range(40):
        a = plain.update(0.02)
        b = fed.update(0.02, gyro=(0.4, -0.3, 2.0))           # rad/s: roll, pitch, yaw rates
        stance = "L" if fed.left_stance else "R"
        diff = {n: b.joints[n] - a.joints[n] for n in a.joints if abs(b.joints[n] - a.joints[n]) > 1e-12}
        assert diff == pytest.approx({stance + "AnklePitch": 0.02 * -0.3, stance + "AnkleRoll": 0.05 * 0.4}), i
    standing = WalkEngine({"p": p})
    assert standing.update(0.02, gyro=(1.0, 1.0, 0.0)).joints == WalkEngine({"p": p}).update(0.02).joints


def test_shipped_sets_balance_except_on_a_physical_nao_and_in_the_kick_approach():
    path = config_path("villa_motion", "walk_params.yaml")
    sim, nao = load_parameter_sets(path), load_parameter_sets(path, "naoqi")
    assert all(sim[n].gyro_roll > 0 and sim[n].gyro_pitch > 0 for n in ("goToTarget", "sprint", "positioning"))
    assert sim["kickApproach"].gyro_roll == sim["kickApproach"].gyro_pitch == 0.0
    assert all(s.gyro_roll == s.gyro_pitch == 0.0 for s in nao.values()) and set(nao) == set(sim)
    assert all(s.heading_gain == s.turn_in_place == s.delta_forward == 0.0 for s in nao.values())
    assert all(s.delta_stop == 0.5 for s in nao.values())


def test_bad_inputs_never_produce_nan():
    w = WalkEngine({"p": P})
    w.command_normalized(float("nan"), float("inf"), -5.0)
    for _ in range(50):
        out = w.update(0.02)
        assert all(math.isfinite(v) for v in out.joints.values())


def test_heading_hold_turns_back_by_the_gyros_heading_change_only_when_told_not_to_turn():
    p = replace(P, heading_gain=0.5, max_step_theta=0.3)
    w = WalkEngine({"p": p})
    w.command_normalized(1.0, 0.0, 0.0)
    for _ in range(10):                                      # 0.2 s turning left at 0.5 rad/s: 0.1 rad off
        w.update(0.02, gyro=(0.0, 0.0, 0.5))
    assert w._heading == pytest.approx(0.1)
    w.left_stance = False                                    # the next step stands on the left, the right foot swings
    w._new_step(p)
    mean = np.mean([0.01 * (i + 1) for i in range(10)])      # the heading change's mean over the step: 0.055 rad
    assert w.step[2] == 0.0 and w._turn_fix == pytest.approx(-0.5 * mean)   # half of it back, a turn to the right
    feet, _ = w._feet(p, 1.0, w.phi_end)                     # the step's end: the right foot put down opened
    assert feet["R"][3] == pytest.approx(-mean) and feet["L"][3] == pytest.approx(0.0)
    for _ in range(10):                                      # a step holding 0.1 rad off: the mean of both steps
        w.update(0.02, gyro=(0.0, 0.0, 0.0))
    w._new_step(p)
    assert w._turn_fix == pytest.approx(-0.5 * (mean + 0.1) / 2)
    w.command_normalized(1.0, 0.0, 0.2)                      # told to turn: no hold
    w.update(0.02, gyro=(0.0, 0.0, 0.5))
    w._new_step(p)
    assert w._heading == 0.0 and w._turn_fix == 0.0
    off = WalkEngine({"p": P})                               # heading_gain 0: the gyro's yaw changes nothing
    off.command_normalized(1.0, 0.0, 0.0)
    for _ in range(10):
        off.update(0.02, gyro=(0.0, 0.0, 0.5))
    off._new_step(P)
    assert off._turn_fix == 0.0


def test_the_turn_limit_falls_from_turning_in_place_to_max_step_theta_at_a_full_step():
    p = replace(P, max_step_theta=0.2, turn_in_place=0.5)
    w = WalkEngine({"p": p})
    for (x, y), limit in (((0.0, 0.0), 0.5), ((1.0, 0.0), 0.2), ((0.0, -1.0), 0.2), ((0.5, 0.0), 0.35)):
        w.command_normalized(x, y, -1.0)
        assert w.desired[2] == pytest.approx(-limit), (x, y)
    w.command_velocity(0.0, 0.0, 10.0)
    assert w.desired[2] == pytest.approx(0.5)
    assert w.max_speed()[2] == pytest.approx(0.5 / p.phase_length)
    plain = WalkEngine({"p": replace(p, turn_in_place=0.0)})
    plain.command_normalized(0.0, 0.0, 1.0)
    assert plain.desired[2] == pytest.approx(0.2)


def test_delta_forward_speeds_up_forward_steps_only():
    p = replace(P, delta=0.1, delta_forward=0.4)
    w = _engine(p, step=(0, 0, 0))
    w.command_normalized(1.0, 1.0, 0.0)
    w._new_step(p)
    assert w.step[0] == pytest.approx(0.4 * p.max_step_x) and w.step[1] == pytest.approx(0.1 * p.max_step_y)
    w.command_normalized(0.0, 0.0, 0.0)                      # slowing down: delta
    w._new_step(p)
    assert w.step[0] == pytest.approx(0.9 * 0.4 * p.max_step_x)
    back = _engine(p, step=(0, 0, 0))
    back.command_normalized(-1.0, 0.0, 0.0)
    back._new_step(p)
    assert back.step[0] == pytest.approx(-0.1 * p.max_step_x)


def test_told_to_stop_the_steps_shrink_by_delta_stop_but_never_slower_than_delta():
    w = _engine(replace(P, delta=0.1, delta_stop=0.25), step=(0, 0, 0))
    w.step = np.array([0.1, 0.02, 0.2])
    w.command_stand()
    w._new_step(w.p)
    assert w.step == pytest.approx([0.075, 0.015, 0.15])
    fast = _engine(replace(P, delta=0.4, delta_stop=0.25), step=(0, 0, 0))
    fast.step = np.array([0.1, 0.0, 0.0])
    fast.command_stand()
    fast._new_step(fast.p)
    assert fast.step[0] == pytest.approx(0.06)
    assert WalkParams().delta_stop == 0.5
    with pytest.raises(ValueError):
        replace(P, delta_stop=0.0).validate()


@pytest.mark.parametrize("robot_type", [0, 2])
def test_the_goToTarget_agent_walks_every_set_as_goToTarget_and_keeps_the_kick_approach(robot_type):
    """§10.3 Table 3's GoToTarget agent: a file on the shipped one (`base:`) with sprint and positioning replaced."""
    agent = load_parameter_sets(walk_sets_path("walk_params_goToTarget_agent.yaml"), robot_type=robot_type)
    final = load_parameter_sets(walk_sets_path(""), robot_type=robot_type)
    assert agent["sprint"] == agent["positioning"] == agent["goToTarget"] == final["goToTarget"]
    assert agent["kickApproach"] == final["kickApproach"] and list(agent) == list(final)


def test_a_base_file_is_layered_under_the_sets_and_robot_types_of_the_file(tmp_path):
    (tmp_path / "a.yaml").write_text("sets:\n  g: {max_step_x: 0.1}\n  s: {inherit: g, max_step_x: 0.12}\n"
                                     "robot_types:\n  2: {g: {max_step_y: 0.04}, s: {phase_length: 0.3}}\n")
    (tmp_path / "b.yaml").write_text("base: a.yaml\nsets:\n  s: {inherit: g}\n"
                                     "robot_types:\n  2: {g: {z_step: 0.03}}\n")
    b2 = load_parameter_sets(tmp_path / "b.yaml", robot_type=2)
    assert b2["g"].max_step_y == 0.04 and b2["g"].z_step == 0.03     # the base's type layer and the file's
    assert b2["s"] == b2["g"]                                         # s replaced whole: the base's type layer gone
    (tmp_path / "c.yaml").write_text("base: missing.yaml\nsets:\n  s: {}\n")
    with pytest.raises(ValueError, match="missing.yaml"):
        load_parameter_sets(tmp_path / "c.yaml")
    (tmp_path / "d.yaml").write_text("base: d.yaml\nsets:\n  s: {}\n")
    with pytest.raises(ValueError, match="5 deep"):
        load_parameter_sets(tmp_path / "d.yaml")


def test_walk_sets_path_names_the_shipped_files():
    assert walk_sets_path("") == walk_sets_path("walk_params.yaml") == config_path("villa_motion", "walk_params.yaml")
    assert str(walk_sets_path("/some/where/w.yaml")) == "/some/where/w.yaml"
    assert str(walk_sets_path("no_such_walk_file.yaml")) == "no_such_walk_file.yaml"   # the read then names it


def test_a_robot_types_entry_with_inherit_replaces_the_set_whole(tmp_path):
    (tmp_path / "w.yaml").write_text("sets:\n  g: {max_step_x: 0.1}\n  s: {max_step_x: 0.14, phase_length: 0.18}\n"
                                     "robot_types:\n  1: {g: {max_step_x: 0.09}, s: {inherit: g}}\n")
    one, zero = load_parameter_sets(tmp_path / "w.yaml", robot_type=1), load_parameter_sets(tmp_path / "w.yaml")
    assert one["s"] == one["g"] and one["s"].max_step_x == 0.09
    assert zero["s"].max_step_x == 0.14 and zero["s"].phase_length == 0.18


def test_an_overlay_set_with_inherit_is_that_set_anew(tmp_path):
    (tmp_path / "w.yaml").write_text("sets:\n  g: {max_step_x: 0.1}\n  s: {max_step_x: 0.14, phase_length: 0.18}\n")
    (tmp_path / "w.simspark.yaml").write_text("sets:\n  g: {z_step: 0.03}\n  s: {inherit: g}\n")
    ss, mj = load_parameter_sets(tmp_path / "w.yaml", "simspark"), load_parameter_sets(tmp_path / "w.yaml")
    assert ss["s"] == ss["g"] and ss["g"].z_step == 0.03 and mj["s"].max_step_x == 0.14
    (tmp_path / "w.simspark.yaml").write_text("sets:\n  s: {inherit: nothing}\n")
    with pytest.raises(ValueError, match="no set 'nothing'"):
        load_parameter_sets(tmp_path / "w.yaml", "simspark")


def test_on_simspark_robot_types_0_1_2_4_sprint_with_their_own_sets_and_type_3_walks_goToTarget():
    """The sprint set learned in villa sim fell on SimSpark's course; SimSpark's own (walk_params.simspark.yaml) are
    robot type 0's and those learned for types 1, 2 and 4, faster than goToTarget, and the stop set settles them after
    a stop; type 3 fell with type 0's."""
    path = config_path("villa_motion", "walk_params.yaml")
    ss, mj = load_parameter_sets(path, "simspark", 0), load_parameter_sets(path, "villa", 0)
    assert ss["goToTarget"] == mj["goToTarget"] and ss["sprint"] not in (ss["goToTarget"], mj["sprint"])
    w = WalkEngine(ss, "goToTarget", stop_set="goToTarget")
    assert w._fast("sprint") and not w._fast("goToTarget")
    own = [ss["sprint"]]
    for rt in (1, 2, 4):
        sets = load_parameter_sets(path, "simspark", rt)
        assert sets["sprint"] not in (sets["goToTarget"], load_parameter_sets(path, "villa", rt)["sprint"], *own), rt
        assert WalkEngine(sets, "goToTarget", stop_set="goToTarget")._fast("sprint"), rt
        own.append(sets["sprint"])
    three = load_parameter_sets(path, "simspark", 3)
    assert three["sprint"] == three["goToTarget"]


def test_standing_still_reuses_the_stands_ik_and_com(monkeypatch):
    """The stand pose's IK and COM are solved once while the robot stands (same parameters), and the answer
    is the one solving them again gives."""
    w = WalkEngine({"p": WalkParams()})
    first = w.update(0.02).joints
    calls = {"ik": 0, "com": 0}
    ik, com = K.leg_angles, K.centers_of_mass

    def count_ik(*a, **k):
        calls["ik"] += 1
        return ik(*a, **k)

    def count_com(*a, **k):
        calls["com"] += 1
        return com(*a, **k)

    monkeypatch.setattr(K, "leg_angles", count_ik)
    monkeypatch.setattr(K, "centers_of_mass", count_com)
    for _ in range(5):
        out = w.update(0.02)
    assert out.joints == first and out.reachable
    assert calls["ik"] == 0 and calls["com"] <= 1               # the COM once, on the first cycle after the IK
    fresh = WalkEngine({"p": replace(WalkParams(), z_torso=WalkParams().z_torso - 0.01)})
    assert fresh.update(0.02).joints != first                   # other parameters: solved again


# --- what the base code's implementation of the engine adds (module docstring of villa_motion.walk) ----------------
def test_the_tilt_estimate_follows_the_gyro_and_settles_on_the_accelerometers_level():
    from villa_motion.walk import TiltEstimate

    est = TiltEstimate(tau=0.5)
    g = 9.81
    pitch = 0.2                                          # nose down: gravity leans toward -x in the torso frame
    acc = (-g * math.sin(pitch), 0.0, g * math.cos(pitch))
    est.update(0.02, None, acc)
    assert est.pitch == pytest.approx(pitch) and est.roll == pytest.approx(0.0)   # the first reading sets it
    for _ in range(50):                                  # turning at 1 rad/s about x for 1 s, the level unchanged
        est.update(0.02, (1.0, 0.0, 0.0), acc)
    assert 0.2 < est.roll < 1.0                          # the gyro turned it, the accelerometer pulls it back
    for _ in range(300):
        est.update(0.02, (0.0, 0.0, 0.0), acc)
    assert est.roll == pytest.approx(0.0, abs=1e-3) and est.pitch == pytest.approx(pitch, abs=1e-6)
    est.update(0.02, None, (9.0, 0.0, 0.5))              # lying: no level from it
    assert est.pitch == pytest.approx(pitch, abs=1e-6)


def test_tilt_feedback_turns_both_feet_toward_level():
    """With the torso pitched forward, tilt_gain turns the feet targets about the torso's y axis by -gain x tilt: the
    soles' pitch in the torso frame changes by that angle (legs' FK)."""
    p = replace(P, tilt_gain=0.5, roll_gain=0.3)
    w = _engine(p, step=(0.0, 0.0, 0.0))
    w.walking, w.stop_requested = True, False
    w.tilt.pitch, w.tilt.roll = 0.1, -0.2
    feet, _ = w._feet(p, 0.3, 0.0)
    joints, ok = w._ik(feet, p, feedback=True)
    flat, _ = w._ik(feet, p, feedback=False)
    assert ok
    for side, names in (("L", WalkEngine.LEFT), ("R", WalkEngine.RIGHT)):
        r_fb = K.leg_fk(side, [joints[n] for n in names])[:3, :3]
        r0 = K.leg_fk(side, [flat[n] for n in names])[:3, :3]
        turn = r_fb @ r0.T                               # Ry(-0.05) Rx(0.06)
        c, s = math.cos(-0.05), math.sin(-0.05)
        expected = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]) @ \
            np.array([[1, 0, 0], [0, math.cos(0.06), -math.sin(0.06)], [0, math.sin(0.06), math.cos(0.06)]])
        assert np.allclose(turn, expected, atol=1e-9)


def test_independent_air_and_move_fractions_shape_the_swing():
    """f_a and f_m of their own (0: the report's complements): a foot in the air the whole step (f_g < 0, f_a > 1)
    is lifted at the step's ends too, and a move window reaching past the step's end keeps the swing foot moving
    forward up to the switch (with the complement it is down, going back with the torso, by then)."""
    base = replace(P, f_g=0.1, f_s=0.1)
    long = replace(base, f_g=-0.05, f_a=1.2, f_m=1.0)
    w = _engine(base, step=(0.05, 0.0, 0.0))
    z0 = w._feet(base, 0.0, -0.5)[0]["R"][2]
    zl = w._feet(long, 0.0, -0.5)[0]["R"][2]
    assert z0 == pytest.approx(-base.z_torso) and zl > -long.z_torso + 0.01 * long.z_step
    def swing_x(p, t):
        return w._feet(p, t, t - 0.5)[0]["R"][0]

    assert swing_x(base, 1.0) == pytest.approx(0.5 * 0.05 + base.x_offset)   # the complement: it arrives
    assert swing_x(base, 1.0) < swing_x(base, 0.95)                          # ... and goes back with the torso
    assert swing_x(long, 1.0) > swing_x(long, 0.95)                          # still moving forward at the switch
    with pytest.raises(ValueError):
        replace(P, f_g=-0.1).validate()                           # negative ground time needs its own f_a


def test_switching_to_a_set_with_explicit_fractions_blends_the_same_walk():
    """A set with f_a and f_m given (a search's candidate) is the same walk as its implicit self, also while the
    engine blends into it from a set that leaves them 0 (blending a 0 toward 0.9 would lift the foot for half a
    step)."""
    from villa_motion.walk import WalkEngine

    implicit = {"a": replace(P, f_g=0.05, f_s=0.05), "b": replace(P, f_g=0.02, f_s=0.08, max_step_x=0.06)}
    explicit = dict(implicit, b=implicit["b"].explicit())
    runs = []
    for sets in (implicit, explicit):
        e = WalkEngine(sets, initial="a")
        rows = []
        for i in range(150):
            e.command_normalized(1.0, 0.0, 0.0, "b" if i >= 40 else "a")
            rows.append(np.array(list(e.update(0.02).joints.values())))
        runs.append(np.array(rows))
    assert np.abs(runs[0] - runs[1]).max() < 1e-9


def test_swing_pitch_follows_the_lift():
    p = replace(P, swing_pitch=-0.2, torso_lean=0.05)
    w = _engine(p, step=(0.03, 0.0, 0.0))
    for t in (0.0, 0.3, 0.5):
        feet, _ = w._feet(p, t, 0.0)
        z_frac = (feet["R"][2] + p.z_torso) / p.z_step
        assert feet["R"][4] == pytest.approx(p.torso_lean + p.swing_pitch * z_frac)
        assert feet["L"][4] == pytest.approx(p.torso_lean)        # the stance sole keeps the lean
    assert w._feet(p, 0.5, 0.0)[0]["R"][4] == pytest.approx(0.05 - 0.2)


def test_robot_type_4s_toes_follow_a_cosine_over_two_steps_the_feet_opposite():
    p = replace(P, toe_offset=0.02, toe_amp=-0.3, toe_phase=0.1, toe_ankle_offset=-0.02, toe_ankle_amp=0.08,
                toe_ankle_phase=-0.1)
    w = WalkEngine({"p": p}, robot_type=4)
    w.command_normalized(0.5, 0.0, 0.0)
    seen = []
    for _ in range(40):
        out = w.update(0.02)
        u = out.phase + (0.0 if out.left_stance else 1.0)
        assert out.joints["LToePitch"] == pytest.approx(0.02 - 0.3 * math.cos(math.pi * (u + 0.1)))
        assert out.joints["RToePitch"] == pytest.approx(0.02 - 0.3 * math.cos(math.pi * (u + 1.1)))
        seen.append(out.joints["LToePitch"])
    assert max(seen) - min(seen) > 0.3
    assert "LToePitch" not in WalkEngine({"p": p}, robot_type=0).update(0.02).joints   # only type 4 has toes


def test_a_sets_stiffness_reaches_the_legs_only_and_only_while_the_walk_drives_them():
    from villa_motion import arbiter as A

    sets = {"goToTarget": replace(P, stiffness=0.25)}
    m = A.MotionArbiter(replace(A.shipped_config(0), walk_sets=sets, walk_set="goToTarget"))
    out = m.update(0.0, {})
    stiff = dict(zip(out.targets, out.stiffness(), strict=True))
    assert out.leg_stiffness == 0.25 and stiff["LKneePitch"] == 0.25 and stiff["RAnkleRoll"] == 0.25
    assert stiff["HeadYaw"] == 1.0 and stiff["LShoulderPitch"] == 1.0
    assert m.request(A.SkillRequest("stand")).accepted
    out = m.update(0.02, {})
    assert out.leg_stiffness == 1.0 and set(out.stiffness()) == {1.0}     # a skill runs at the full gain


def test_an_in_place_turn_of_a_served_set_walks_the_turn_set():
    turn = replace(P, phase_length=0.1, turn_in_place=0.6)
    sets = {"goToTarget": P, "positioning": replace(P, max_step_x=0.05), "turn": turn}
    w = WalkEngine(sets, "goToTarget", turn_set="turn", turn_from=("goToTarget",))
    w.command_normalized(0.0, 0.0, 1.0, "goToTarget")
    assert w.set_name == "turn" and w.desired[2] == pytest.approx(0.6)
    w.command_normalized(0.0, 0.0, -0.5)                     # "" keeps the set asked (goToTarget), not "turn"
    assert w.set_name == "turn"
    w.command_normalized(1.0, 0.0, 0.5)                      # walking while turning: the set asked
    assert w.set_name == "goToTarget"                        # (at once: the turn set had not turned yet)
    w.command_velocity(0.0, 0.0, 2.0)
    assert w.set_name == "turn"
    w.command_normalized(0.0, 0.0, 1.0, "positioning")       # a set the turn set does not serve
    assert w.set_name == "positioning"
    w.command_normalized(0.0, 0.0, 0.0, "goToTarget")        # no turn: not a turn in place
    assert w.set_name == "goToTarget"
    without = WalkEngine({"goToTarget": P}, turn_set="turn", turn_from=("goToTarget",))   # no such set: off
    without.command_normalized(0.0, 0.0, 1.0, "goToTarget")
    assert without.set_name == "goToTarget"
    same = WalkEngine({"goToTarget": P, "turn": P}, turn_set="turn", turn_from=("goToTarget",))  # the same values
    same.command_normalized(0.0, 0.0, 1.0, "goToTarget")
    assert same.set_name == "goToTarget"
    with pytest.raises(ValueError, match="unknown walk parameter set"):
        w.command_normalized(0.0, 0.0, 1.0, "nope")


def test_leaving_the_turn_set_ends_its_turn_at_the_next_step():
    turn = replace(P, phase_length=0.1, turn_in_place=0.8, delta=1.0)
    walk = replace(P, max_step_theta=0.2, delta=0.1)
    w = WalkEngine({"goToTarget": walk, "turn": turn}, "goToTarget", turn_set="turn", turn_from=("goToTarget",))
    w.command_normalized(0.0, 0.0, 1.0, "goToTarget")
    for _ in range(100):
        w.update(0.02)
    assert w.step[2] == pytest.approx(0.8)
    w.command_normalized(1.0, 0.0, 0.0, "goToTarget")        # the turn winds down in the turn set first
    assert w.set_name == "turn" and w.desired.tolist() == [0.0, 0.0, 0.0]
    w.step[2] = 0.07                                         # (wound down below a tenth of 0.8)
    w.command_normalized(1.0, 0.0, 0.0, "goToTarget")
    assert w.set_name == "goToTarget" and w.desired[0] > 0
    w.step[2] = 0.5                                          # (a turn left over at the switch)
    w._new_step(w.sets["goToTarget"])
    assert abs(w.step[2]) <= 0.2 + 1e-9                      # not 0.5 shrinking by delta 0.1 a step
    w._new_step(w.sets["goToTarget"])
    assert abs(w.step[2]) == pytest.approx(0.9 * 0.2)        # then goToTarget's own P control


def test_a_turn_in_place_asked_while_walking_waits_for_the_steps_to_slow_down():
    turn = replace(P, phase_length=0.1, turn_in_place=0.8)
    w = WalkEngine({"goToTarget": P, "turn": turn}, "goToTarget", turn_set="turn", turn_from=("goToTarget",))
    w.command_normalized(1.0, 0.0, 0.0, "goToTarget")
    for _ in range(200):
        w.update(0.02)
    assert w.step[0] > 0.5 * P.max_step_x
    names = []
    for _ in range(500):
        w.command_normalized(0.0, 0.0, 1.0, "goToTarget")
        w.update(0.02)
        names.append((w.set_name, w.step[0]))
    first = next(i for i, (n, _) in enumerate(names) if n == "turn")
    assert first > 0 and names[first - 1][1] <= 0.1 * P.max_step_x + 1e-9 < names[0][1]
    assert all(n == "turn" for n, _ in names[first:])


def test_every_robot_type_turns_with_simsparks_turn_set_there_and_not_on_villa_sim():
    """Learned on SimSpark (walk_params.simspark.yaml: one set for robot types 0-3, type 4's own); villa sim has none,
    so its in-place turns walk goToTarget as before."""
    from villa_motion import arbiter as A

    for rt in range(5):
        walk = A.MotionArbiter(A.shipped_config(rt, "simspark")).walk
        assert walk._turn_serves == {"goToTarget", "sprint"}, rt
        assert walk.sets["turn"].phase_length < walk.sets["goToTarget"].phase_length, rt
    assert "turn" not in A.shipped_config(0, "villa").walk_sets


def _fast_and_slow():
    fast = replace(P, phase_length=0.1, max_step_x=0.1, delta=0.3, delta_stop=0.5)      # 1.0 m/s
    slow = replace(P, phase_length=0.2, max_step_x=0.08, delta=0.3)                      # 0.4 m/s
    return WalkEngine({"goToTarget": slow, "sprint": fast}, "sprint", stop_set="goToTarget")


def _walk_fast(w):
    w.command_normalized(1.0, 0.0, 0.0, "sprint")
    for _ in range(200):
        w.update(0.02)
    assert w.step[0] == pytest.approx(0.1, abs=1e-3)


def test_a_faster_set_slows_to_the_stop_sets_speed_before_handing_over():
    w = _fast_and_slow()
    _walk_fast(w)
    seen = []
    for _ in range(200):
        w.command_normalized(1.0, 0.0, 0.0, "goToTarget")
        w.update(0.02)
        seen.append((w.set_name, w.step[0] / w.sets[w.set_name].phase_length))
    first = next(i for i, (n, _) in enumerate(seen) if n == "goToTarget")
    assert first > 0 and all(n == "sprint" for n, _ in seen[:first])
    assert seen[first - 1][1] <= 1.05 * 0.4 + 1e-9 < seen[0][1]     # wound down to goToTarget's 0.4 m/s first
    assert all(n == "goToTarget" for n, _ in seen[first:])
    # the sprint's steps shrank by its own gain (0.3 a step), not at once
    speeds = [v for _, v in seen[:first]]
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(speeds)) and len(set(speeds)) >= 3


def test_a_stop_asked_of_a_faster_set_is_the_stop_sets():
    w = _fast_and_slow()
    _walk_fast(w)
    w.command_stand()
    assert w.set_name == "sprint" and not w.stop_requested and w.desired[0] == pytest.approx(0.04)
    names = []
    for _ in range(300):
        w.update(0.02)
        names.append(w.set_name)
        if w.standing:
            break
    assert w.standing and names[-1] == "goToTarget" and names[0] == "sprint"
    for _ in range(int(SETTLE_TIME / 0.02) + 1):             # stood SETTLE_TIME: the sprint may start again
        w.update(0.02)
    # a walk asked meanwhile cancels the stop; the faster set goes on slowing toward the stop set's speed for
    # SETTLE_TIME, then speeds up again
    _walk_fast(w)
    w.command_stand()
    speeds = []
    for _ in range(300):
        w.command_normalized(1.0, 0.0, 0.0, "sprint")
        w.update(0.02)
        speeds.append(w.step[0] / w.sets[w.set_name].phase_length)
    settle = int(SETTLE_TIME / 0.02)
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(speeds[:settle - 5])) and speeds[settle - 5] < 0.7
    assert w.set_name == "sprint" and w.walking and w.step[0] == pytest.approx(0.1, abs=1e-3)


def test_after_a_faster_sets_stop_the_stop_set_walks_its_commands_until_the_body_settled():
    """A sprint restarted within a second of its stop fell forward on SimSpark (the torso still rocking back and
    forth from the stop): the stop set walks a faster set's commands until SETTLE_TIME after the stop stood; other
    sets' commands and a fresh start are not held."""
    w = _fast_and_slow()
    _walk_fast(w)
    w.command_stand()
    while not w.standing:
        w.update(0.02)
    seen = []
    for _ in range(int(2 * SETTLE_TIME / 0.02)):
        w.command_normalized(1.0, 0.0, 0.0, "sprint")
        w.update(0.02)
        seen.append(w.set_name)
    held = seen.index("sprint")
    assert 0.8 * SETTLE_TIME / 0.02 <= held <= SETTLE_TIME / 0.02 and set(seen[:held]) == {"goToTarget"}
    fresh = _fast_and_slow()                                 # never stopped: the sprint starts at once
    fresh.command_normalized(1.0, 0.0, 0.0, "sprint")
    fresh.update(0.02)
    assert fresh.set_name == "sprint"
    w = _fast_and_slow()                                      # stopped from the stop set's own speed: not held
    w.command_normalized(0.3, 0.0, 0.0, "sprint")
    for _ in range(100):
        w.update(0.02)
    w.command_stand()
    while not w.standing:
        w.update(0.02)
    w.command_normalized(1.0, 0.0, 0.0, "sprint")
    assert w.set_name == "sprint"


def test_without_a_stop_set_sets_switch_and_stop_as_before():
    w = _fast_and_slow()
    w.stop_set = ""
    _walk_fast(w)
    w.command_normalized(1.0, 0.0, 0.0, "goToTarget")
    assert w.set_name == "goToTarget"
    w.command_stand()
    assert w.stop_requested
    slower = _fast_and_slow()                                # a set as slow as the stop set stops itself
    slower.command_normalized(0.2, 0.0, 0.0, "sprint")
    for _ in range(100):
        slower.update(0.02)
    slower.command_stand()
    assert slower.stop_requested and slower.set_name == "sprint"


def test_the_stop_set_is_simsparks_goToTarget():
    from villa_motion import arbiter as A

    assert A.shipped_config(0, "simspark").stop_set == "goToTarget"
    assert A.shipped_config(0, "villa").stop_set == "" and A.shipped_config(0, "naoqi").stop_set == ""
    off = A.MotionConfig.from_params(A.motion_parameters({"simulator": "simspark", "walk_stop_set": "none"}))
    assert off.stop_set == ""
    assert A.MotionArbiter(A.shipped_config(0, "simspark")).walk.stop_set == "goToTarget"
