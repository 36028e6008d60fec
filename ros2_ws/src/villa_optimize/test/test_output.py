"""The learned set is written as a named walk parameter set that villa_motion loads by name."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from villa_motion.params import load_parameter_sets
from villa_nao.params import config_path
from villa_optimize.space import Space
from villa_optimize.walk_objective import WalkObjective


def _objective(tmp_path, set_name="goToTarget_opt"):
    return WalkObjective("goToTarget", Space.from_yaml(config_path("villa_optimize", "walk_space.yaml")),
                         Path(config_path("villa_motion", "walk_params.yaml")), "goToTarget", set_name,
                         tmp_path / "out" / "walk.yaml", world="villa")


def test_space_round_trip_and_bounds():
    s = Space.from_bounds({"a": (0.0, 2.0), "b": (-1.0, 1.0)})
    assert s.normalize({"a": 1.0, "b": 0.5}) == pytest.approx([0.5, 0.75])
    assert s.denormalize([0.5, 0.75]) == pytest.approx({"a": 1.0, "b": 0.5})
    assert s.denormalize([2.0, -1.0]) == pytest.approx({"a": 2.0, "b": -1.0})       # clipped to the box
    with pytest.raises(ValueError, match="lower < upper"):
        Space.from_bounds({"a": (1.0, 1.0)})


def test_start_point_is_the_shipped_set(tmp_path):
    o = _objective(tmp_path)
    shipped = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))["goToTarget"]
    x0 = o.x0()
    assert x0.shape == (12,) and np.all((x0 > 0) & (x0 < 1))
    back = o.space.denormalize(x0)
    for k, v in back.items():
        assert v == pytest.approx(getattr(shipped, k))


def test_written_set_loads_by_name_with_the_other_sets(tmp_path):
    o = _objective(tmp_path)
    x = np.full(12, 0.5)
    paths = o.write_best(x, 4.2, {"fell": False}, tmp_path)
    sets = load_parameter_sets(paths[0])
    assert {"goToTarget", "sprint", "positioning", "goToTarget_opt"} <= set(sets)
    learned = sets["goToTarget_opt"]
    for name, lo, hi in zip(o.space.names, o.space.lower, o.space.upper, strict=True):
        assert getattr(learned, name) == pytest.approx((lo + hi) / 2, abs=1e-5)
    shipped = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))
    assert sets["goToTarget"] == shipped["goToTarget"]          # the other sets are untouched
    assert "fitness 4.2000" in paths[0].read_text().splitlines()[1]
    # the task's optimized set replaced in the candidate's parameter sets, others unchanged
    cand = o.parameter_sets(x)
    assert cand["goToTarget"].max_step_x == pytest.approx(0.10)
    assert yaml.safe_load(paths[1].read_text())["set_name"] == "goToTarget_opt"


def test_replacing_the_set_keeps_inheritance(tmp_path):
    o = _objective(tmp_path, set_name="goToTarget")
    path = o.write_best(np.full(12, 0.25), 1.0, {}, tmp_path)[0]
    sets = load_parameter_sets(path)
    shipped = load_parameter_sets(config_path("villa_motion", "walk_params.yaml"))
    assert sets["goToTarget"] != shipped["goToTarget"]
    assert sets["sprint"] == shipped["sprint"]                  # sprint names every learned field: its own stay
    assert sets["positioning"].z_torso == sets["goToTarget"].z_torso     # positioning inherits the learned goToTarget
    assert sets["positioning"].z_torso != shipped["positioning"].z_torso  # ... its stand ...
    assert sets["positioning"].max_step_x == pytest.approx(shipped["positioning"].max_step_x)   # ... and keeps its own


def test_the_robot_types_layers_are_kept(tmp_path):
    """Types 1 and 2 walk goToTarget on a shorter step (villa_motion's walk_params.yaml robot_types): a learned file
    keeps that, or those robots would walk type 0's step, on which they fall."""
    o = _objective(tmp_path, set_name="positioning")
    path = o.write_best(np.full(12, 0.25), 1.0, {}, tmp_path)[0]
    shipped = config_path("villa_motion", "walk_params.yaml")
    for rt in range(5):
        learned, base = load_parameter_sets(path, robot_type=rt), load_parameter_sets(shipped, robot_type=rt)
        assert learned["goToTarget"] == base["goToTarget"]
    assert load_parameter_sets(path, robot_type=1)["goToTarget"].max_step_x == pytest.approx(0.11)


class _FakeWorld:
    """Scores an episode by where the robot is placed: fitness = 10 + 100 * y offset; falls when placed left of 3 cm."""

    def __init__(self):
        self.placements = []

    def run(self, task, sets):
        from villa_optimize.tasks import EpisodeResult

        x, y, th = task.placement()
        self.placements.append((x, y, th))
        return EpisodeResult(fitness=10.0 + 100.0 * (y - task.start[1]), fell=y - task.start[1] > 0.03,
                             fall_time=None)

    def close(self):
        pass


def test_trials_average_episodes_from_the_nominal_and_jittered_starts(tmp_path, monkeypatch):
    import villa_optimize.worlds as W

    world = _FakeWorld()
    monkeypatch.setattr(W, "make_world", lambda *a, **k: world)
    o = _objective(tmp_path)
    o.trials = 4
    assert o.describe()["trials"] == 4
    ev = o.make_evaluator(0)
    f, info = ev.evaluate(o.x0())
    start = ev.task.start
    assert len(world.placements) == 4 and world.placements[0] == start
    assert len(set(world.placements)) == 4
    ys = [p[1] - start[1] for p in world.placements]
    assert f == pytest.approx(np.mean([10.0 + 100.0 * y for y in ys]))
    assert info["falls"] == sum(y > 0.03 for y in ys) and info["fell"] == (info["falls"] > 0)
    assert len(info["trials"]) == 4
    ev.evaluate(o.x0())
    assert len(set(world.placements)) == 7                  # fresh jitter every evaluation, nominal again first
    other = _objective(tmp_path)
    other.trials = 4
    assert other.make_evaluator(1).tasks()[1].placement() != o.make_evaluator(0).tasks()[1].placement()  # per worker


def test_the_worlds_are_villa_in_process_or_as_its_own_process_and_simspark(tmp_path, monkeypatch):
    """make_world: villa sim in the worker, or with socket its own `villa sim`; the real SimSpark. Any other name
    (inprocess and sim among them), or socket with SimSpark, is refused naming the known ones."""
    import villa_optimize.worlds as W

    for name in ("InProcessWorld", "VillaSocketWorld", "SimSparkWorld"):
        monkeypatch.setattr(W, name, lambda robot_type, seed, name=name: name)
    assert W.make_world("villa") == "InProcessWorld" and W.make_world("villa", socket=True) == "VillaSocketWorld"
    assert W.make_world("simspark") == "SimSparkWorld"
    for world, socket, why in (("inprocess", False, "unknown world 'inprocess'; known: villa, simspark"),
                               ("sim", False, "unknown world 'sim'"),
                               ("simspark", True, "socket applies to villa sim")):
        with pytest.raises(ValueError, match=why):
            W.make_world(world, socket=socket)
        with pytest.raises(ValueError, match=why):
            WalkObjective("goToTarget", Space.from_yaml(config_path("villa_optimize", "walk_space.yaml")),
                          Path(config_path("villa_motion", "walk_params.yaml")), "goToTarget", "x",
                          tmp_path / "w.yaml", world=world, socket=socket)


def test_trials_must_be_positive(tmp_path):
    with pytest.raises(ValueError, match="--trials"):
        WalkObjective("goToTarget", Space.from_yaml(config_path("villa_optimize", "walk_space.yaml")),
                      Path(config_path("villa_motion", "walk_params.yaml")), "goToTarget", "x", tmp_path / "w.yaml",
                      world="villa", trials=0)


@pytest.mark.parametrize("robot_type", [1, 2])
def test_a_set_learned_for_a_robot_type_is_written_under_that_type(tmp_path, robot_type):
    """A run for robot type T learns T's whole set (the candidate replaces the type's set in training): the file puts
    it under robot_types.T, so T loads exactly what was learned (type 2's own 0.10 m positioning step does not layer
    over it) and every other type keeps its set."""
    space = Space.from_yaml(config_path("villa_optimize", "positioning_space.yaml"))
    shipped = Path(config_path("villa_motion", "walk_params.yaml"))
    o = WalkObjective("positioning", space, shipped, "positioning", "positioning", tmp_path / "walk.yaml",
                      world="villa", robot_type=robot_type)
    x = np.full(len(space.names), 0.8)
    path = o.write_best(x, 1.0, {}, tmp_path)[0]
    learned = o.parameter_sets(x)["positioning"]
    loaded = load_parameter_sets(path, robot_type=robot_type)["positioning"].__dict__
    assert loaded == pytest.approx(learned.__dict__, abs=1e-5)            # written to 5 decimals
    assert loaded["max_step_x"] != pytest.approx(0.10)
    for rt in set(range(5)) - {robot_type}:
        assert load_parameter_sets(path, robot_type=rt) == load_parameter_sets(shipped, robot_type=rt)


def test_a_learned_kick_file_loads_on_its_own(tmp_path):
    """`villa optimize kick` writes a file that `--params FILE --set optimized` loads as it is (`villa bench
    kick_approach`, `kick_bench`): the sets the learned one inherits are copied in; the learned kick has the
    candidate's values and the others the start set's."""
    from villa_motion import kick as KK
    from villa_optimize.kick_objective import KickObjective

    o = KickObjective("forward", "tuned", "optimized", tmp_path / "kick.yaml", world="villa", robot_type=1)
    x = np.full(o.dim, 0.6)
    path = o.write_best(x, 2.5, {}, tmp_path)[0]
    loaded = KK.load_kick_set("optimized", params_path=path, robot_type=1)
    learned = {p.name: p.value for p in KK.parameter_vector(loaded["forward_L"])}
    assert learned == pytest.approx(o.space.denormalize(x), abs=1e-5)
    shipped = KK.load_kick_set("tuned", robot_type=1)
    assert KK.parameter_vector(loaded["in45_L"]) == KK.parameter_vector(shipped["in45_L"])
    assert learned != pytest.approx({p.name: p.value for p in KK.parameter_vector(shipped["forward_L"])})
    assert "robot type 1" in path.read_text().splitlines()[0]


def test_a_kick_learned_under_its_start_sets_name_replaces_that_sets_kick(tmp_path):
    """--set-name tuned with --start-set tuned: the file's tuned set has the learned kick and its other kicks as
    before (written as `inherit: tuned` on itself, it would not load: an inherit loop)."""
    from villa_motion import kick as KK
    from villa_optimize.kick_objective import KickObjective

    o = KickObjective("forward", "tuned", "tuned", tmp_path / "kick.yaml", world="villa")
    x = np.full(o.dim, 0.4)
    path = o.write_best(x, 1.0, {}, tmp_path)[0]
    loaded = KK.load_kick_set("tuned", params_path=path, robot_type=None)
    learned = {p.name: p.value for p in KK.parameter_vector(loaded["forward_L"])}
    assert learned == pytest.approx(o.space.denormalize(x), abs=1e-5)
    shipped = KK.load_kick_set("tuned", robot_type=None)
    assert KK.parameter_vector(loaded["in45_L"]) == KK.parameter_vector(shipped["in45_L"])


def test_robust_standing_kicks_come_from_the_same_spread_offsets_and_score_the_worse_half(tmp_path):
    """--robust: every candidate kicks from the same ball offsets, spread over the whole +-offset square
    (SimSpark is deterministic per offset, and a mean over random ones rewards lucky candidates); the fitness is the
    mean of the worse half of the scores; it needs --standing and at least two attempts."""
    from villa_optimize.kick_objective import KickObjective, standing_offsets
    from villa_optimize.runner import evaluation_fitness

    a, b = standing_offsets(16, 0.03), standing_offsets(16, 0.03)
    assert a.shape == (16, 2) and np.array_equal(a, b)
    assert np.all(np.abs(a) <= 0.03 + 1e-12)
    quadrants = {(bool(x > 0), bool(y > 0)) for x, y in a}
    assert len(quadrants) == 4                                     # spread over the square, not bunched
    assert len({(round(x, 6), round(y, 6)) for x, y in a}) == 16
    assert evaluation_fitness([3.0, 0.5, 2.0, 1.0]) == pytest.approx(1.625)
    assert evaluation_fitness([3.0, 0.5, 2.0, 1.0], robust=True) == pytest.approx(0.75)
    assert evaluation_fitness([3.0, 0.5, 2.0], robust=True) == pytest.approx(1.25)     # the worse half, rounded up
    for bad in ({"robust": True}, {"robust": True, "standing": True, "attempts": 1},
                {"standing": True, "offset": 0.2}):
        with pytest.raises(ValueError):
            KickObjective("forward", "tuned", "optimized", tmp_path / "kick.yaml", world="villa", **bad)
    o = KickObjective("forward", "tuned", "optimized", tmp_path / "kick.yaml", world="simspark", standing=True,
                      robust=True, offset=0.03)
    assert o.describe()["robust"] and o.describe()["offset"] == 0.03
    plain = KickObjective("forward", "tuned", "optimized", tmp_path / "kick.yaml", world="simspark", standing=True)
    assert "robust" not in plain.describe() and "offset" not in plain.describe()   # runs saved before still resume


def test_the_kick_objective_starts_from_the_kick_its_world_plays():
    """With --world simspark the start set's kick is the SimSpark overlay's (the kick the server's games play), not
    villa sim's."""
    from villa_motion import kick as KK
    from villa_optimize.kick_objective import KickObjective

    for world in ("simspark", "villa"):
        o = KickObjective("forward", "tuned", "optimized", Path("/nonexistent.yaml"), world=world)
        played = KK.load_kick_set("tuned", simulator=world, robot_type=0)["forward_L"]
        assert o.kicks()["forward_L"] == played
    assert KK.load_kick_set("tuned", simulator="simspark", robot_type=0)["forward_L"] != \
        KK.load_kick_set("tuned", robot_type=0)["forward_L"]
