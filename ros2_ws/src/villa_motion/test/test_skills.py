"""Skill files (§7): parsing, errors that name file and line, playing keyframes, the shipped skills; head (§4.1)."""

import math

import pytest

from villa_motion import head as H
from villa_motion.params import load_skill_variables
from villa_motion.skills import SkillError, SkillPlayer, load_dir, parse
from villa_nao.params import config_path, share_path

GOOD = """SKILL DIVE_RIGHT
# comment
KEYFRAME 1
reset ARM_LEFT ARM_RIGHT end
setTarget LShoulderPitch $j1 RShoulderPitch (2 * $j1 - 10)
setTarget LHipRoll 4.3
wait 0.08
KEYFRAME 2
increaseTarget LHipRoll -2 RShoulderPitch 7
wait $t
"""


def test_parse_and_play():
    s = parse(GOOD, "dive.skl")
    assert s.name == "DIVE_RIGHT" and len(s.keyframes) == 2 and s.variables == {"j1", "t"}
    p = SkillPlayer(s, {"LShoulderRoll": 0.5}, {"j1": 30.0, "t": 0.1})
    tg = p.update(0.02)
    assert tg["LShoulderPitch"] == pytest.approx(math.radians(30))
    assert tg["RShoulderPitch"] == pytest.approx(math.radians(50))
    assert tg["LShoulderRoll"] == 0.0                                  # reset
    for _ in range(3):
        tg = p.update(0.02)
    assert tg["LHipRoll"] == pytest.approx(math.radians(4.3))        # still keyframe 1 (0.08 s)
    tg = p.update(0.02)
    assert tg["LHipRoll"] == pytest.approx(math.radians(2.3)) and tg["RShoulderPitch"] == pytest.approx(
        math.radians(57))
    for _ in range(6):
        p.update(0.02)
    assert p.done


@pytest.mark.parametrize("text, line, words", [
    ("KEYFRAME 1\n", 1, "must start with 'SKILL"),
    ("SKILL A\nsetTarget LHipRoll 3\n", 2, "before the first KEYFRAME"),
    ("SKILL A\nKEYFRAME 1\nsetTarget Elbow 3\n", 3, "unknown joint 'Elbow'"),
    ("SKILL A\nKEYFRAME 1\nsetTarget LHipRoll\n", 3, "expected 'setTarget"),
    ("SKILL A\nKEYFRAME 1\nreset ARMS end\n", 3, "unknown joint group"),
    ("SKILL A\nKEYFRAME 1\nreset ARM_LEFT\n", 3, "reset <GROUP> ... end"),
    ("SKILL A\nKEYFRAME 1\nwait soon\n", 3, "variables are written $soon"),
    ("SKILL A\nKEYFRAME 1\nsetTarget LHipRoll (1 +\n", 3, "unbalanced"),
    ("SKILL A\nKEYFRAME 1\njump 3\n", 3, "unknown statement 'jump'"),
    ("SKILL A\nKEYFRAME x\n", 2, "KEYFRAME <number>"),
])
def test_errors_name_file_and_line(text, line, words):
    with pytest.raises(SkillError) as e:
        parse(text, "bad.skl")
    assert str(e.value).startswith(f"bad.skl:{line}:") and words in str(e.value), str(e.value)


def test_missing_variables_and_runtime_errors():
    s = parse(GOOD, "dive.skl")
    with pytest.raises(SkillError, match=r"needs values for \$j1, \$t"):
        SkillPlayer(s, {}, {})
    s2 = parse("SKILL A\nKEYFRAME 1\nsetTarget LHipRoll (1 / $z)\n", "z.skl")
    with pytest.raises(SkillError, match="z.skl:3: division by zero"):
        SkillPlayer(s2, {}, {"z": 0.0}).update(0.02)


def test_shipped_skills_parse_and_have_their_variables():
    skills = load_dir(share_path("villa_motion", "skills"))
    assert {"stand", "getup_front", "getup_back", "fall_arms_out", "dive_center", "dive_left", "dive_right",
            "lunge_left", "lunge_right"} <= set(skills)
    learned = load_skill_variables(config_path("villa_motion", "skill_params.yaml"))
    for name, s in skills.items():
        p = SkillPlayer(s, {}, learned.get(name, {}))
        for _ in range(500):
            targets = p.update(0.02)
            if p.done:
                break
        assert p.done, name
        assert all(math.isfinite(v) for v in targets.values())


def test_head_scan_cycle_and_ball_focus():
    h = H.HeadController()
    yaws = [h.update(0.02, H.SCAN)[0] for _ in range(400)]            # one 8 s cycle
    assert max(yaws) == pytest.approx(math.radians(119.5), abs=0.02)   # 120 deg, limited by the joint range
    assert min(yaws) == pytest.approx(-math.radians(119.5), abs=0.02)
    assert abs(yaws[-1]) < 0.05
    assert h.update(0.02, H.SCAN)[1] == pytest.approx(math.radians(45))  # tilted down as far as the joint allows
    h2 = H.HeadController()
    ys = [h2.update(0.02, H.BALL_FOCUS, target_bearing=0.5, target_distance=2.0)[0] for _ in range(300)]
    assert max(ys[150:]) == pytest.approx(0.5 + math.radians(30), abs=0.03)
    assert min(ys[150:]) == pytest.approx(0.5 - math.radians(30), abs=0.03)
    assert H.HeadController().update(0.02, H.FIXED, yaw=0.01, pitch=0.2) == pytest.approx((0.01, 0.2))
