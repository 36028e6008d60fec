"""Team configuration: the defaults load, and every bad configuration stops with one line naming field and fix."""

import pytest
import yaml

from villa_bringup.team_config import ConfigError, check_robot_types, default_path, load, parse, swap_to_nao


def base(**over):
    d = {"team": "villa", "players": [{"unum": 1, "robot_type": 0}, {"unum": 2, "robot_type": 1}]}
    d.update(over)
    return d


def test_shipped_configurations_load():
    for name in ("team.yaml", "team_11.yaml"):
        cfg = load(default_path().parent / name)
        assert cfg.team == "villa" and cfg.players
    cfg = load(default_path().parent / "team_11.yaml")
    assert len(cfg.players) == 11


def test_the_goToTarget_agent_is_the_default_team_but_for_its_walk_sets():
    """§10.3 Table 3's GoToTarget agent differs from the final one only in its walk sets: the same players and robot
    types (this file must follow team.yaml's when those change)."""
    final = load(default_path())
    g2t = load(default_path().parent / "team_goToTarget_agent.yaml")
    assert [(p.unum, p.robot_type) for p in g2t.players] == [(p.unum, p.robot_type) for p in final.players]


def test_nodes_of_a_player_carry_namespace_and_overrides():
    cfg = parse(base(server={"host": "127.0.0.2", "port": 3111}))
    specs = cfg.nodes(cfg.player(2))
    assert [s.name for s in specs] == ["bridge", "perception", "localization", "motion", "strategy"]
    assert all(s.namespace == "/villa/p2" for s in specs)
    bridge = specs[0]
    assert bridge.overrides == {"team": "villa", "unum": 2, "backend": "villa", "host": "127.0.0.2",
                                "port": 3111, "robot_type": 1}
    assert specs[-1].overrides["team_size"] == 2 and specs[-1].overrides["variant"] == "villa"
    assert all(s.params_file.name == f"{s.name}.yaml" for s in specs)


def test_every_process_of_a_player_takes_the_players_own_clock():
    """/clock is remapped to <namespace>/clock for every node, in both compositions (the launch file passes
    the same NodeSpec.clock_remap; test_launch_live echoes the topic)."""
    pytest.importorskip("rclpy")
    from villa_bringup.player import node_kwargs
    from villa_bringup.team import process_command

    cfg = parse(base(composition="node"))
    specs = cfg.nodes(cfg.player(2))
    assert {s.clock_remap for s in specs} == {("/clock", "/villa/p2/clock")}
    for s in specs:
        cmd = process_command(cfg, cfg.player(2), [s])
        i = cmd.index("/clock:=/villa/p2/clock")
        assert cmd[i - 1] == "-r" and cmd.index("--ros-args") < i
        cli = node_kwargs(s)["cli_args"]
        assert cli[cli.index("/clock:=/villa/p2/clock") - 1] == "-r"


def test_naoqi_player_gets_the_naoqi_bridge_and_nothing_else_changes():
    plain = parse(base())
    cfg = swap_to_nao(plain, "2@10.1.2.3")
    before, after = plain.nodes(plain.player(2)), cfg.nodes(cfg.player(2))
    assert before[0].name == "bridge" and after[0].name == "naoqi_bridge"
    assert after[0].overrides["nao_ip"] == "10.1.2.3" and after[0].overrides["port"] == 9559
    # above the bridge only the body's name changes (it picks the motion data's per-simulator overlay)
    assert [s.overrides.get("simulator") for s in after[1:]] == [None, None, "naoqi", "naoqi"]
    assert [s.overrides.get("simulator") for s in before[1:]] == [None, None, "villa", "villa"]

    def rest(specs):
        return [(s.name, {k: v for k, v in s.overrides.items() if k != "simulator"}) for s in specs[1:]]

    assert rest(before) == rest(after)
    assert cfg.nodes(cfg.player(1)) == plain.nodes(plain.player(1))


@pytest.mark.parametrize("data, field, fix", [
    (base(backend="gazebo"), "backend", "use one of: villa, simspark, naoqi"),
    (base(players=[{"unum": 1}, {"unum": 1, "robot_type": 1}]), "players[1].unum", "its own uniform number"),
    ({"players": [{"unum": 1}]}, "team", "add `team: villa`"),
    (base(players=None), "players", "add a list"),
    (base(players=[{"robot_type": 0}]), "players[0].unum", "add the uniform number"),
    (base(players=[{"unum": 12}]), "players[0].unum", "integer 1..11"),
    (base(players=[{"unum": 1, "robot_type": 7}]), "players[0].robot_type", "0, 1, 2, 3 or 4"),
    (base(players=[{"unum": 1, "backend": "naoqi"}]), "players[0].nao_ip", "nao_ip"),
    (base(players=[{"unum": 1, "speed": 3}]), "players[0].speed", "unknown field"),
    (base(composition="threads"), "composition", "`player`"),
    (base(server={"port": 70000}), "server.port", "1..65535"),
    (base(team="my team"), "team", "letters, digits or _"),
    (base(players=[{"unum": 1, "params": {"brain": {}}}]), "players[0].params.brain", "unknown node"),
    (base(players=[{"unum": u, "robot_type": 0} for u in range(1, 9)]), "robot_type", "at most 7 of one type"),
])
def test_bad_configuration_names_field_and_fix(data, field, fix):
    with pytest.raises(ConfigError) as e:
        parse(data, "t.yaml")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("t.yaml: ") and field in msg and fix in msg, msg


def test_simspark_heterogeneous_rules():
    check_robot_types([0] * 7 + [1] * 2 + [2] * 2)      # 7 + 2 + 2: fine
    with pytest.raises(ConfigError, match="two most used types have 10"):
        check_robot_types([0] * 6 + [1] * 4 + [2])
    with pytest.raises(ConfigError, match="at least 3 different types"):
        check_robot_types([0, 0, 1, 1])
    check_robot_types([0, 1])                              # two players: two types are all there can be


def test_yaml_errors_and_missing_file(tmp_path):
    f = tmp_path / "team.yaml"
    f.write_text("team: villa\nplayers: [\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load(f)
    with pytest.raises(ConfigError, match="no such team configuration"):
        load(tmp_path / "nope.yaml")
    f.write_text(yaml.safe_dump(base()))
    assert load(f).source == str(f)


def test_nao_swap_errors():
    cfg = parse(base())
    with pytest.raises(ConfigError, match="<unum>@<ip>"):
        swap_to_nao(cfg, "robot")
    with pytest.raises(ConfigError, match="no player with unum 9"):
        swap_to_nao(cfg, "9@1.2.3.4")
