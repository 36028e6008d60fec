"""`villa games`: short headless games in process (deterministic for a seed), over sockets, on SimSpark, the command's
output and Ctrl-C (integration: they run the simulator)."""

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from villa_bringup import games as G

pytestmark = pytest.mark.integration


def _specs(tmp_path, duration=3.0, seed=7, games=1, **kw):
    args = argparse.Namespace(config=None, opponent_config=None, variant=None, opponent="allball", players=2,
                              seed=seed, server="villa", socket=False, noise="simspark", out=str(tmp_path),
                              connect_timeout=60.0, stall_timeout=60.0, games=games, duration=duration)
    for k, v in kw.items():
        setattr(args, k, v)
    return G.specs_from_args(args)


def _game(r):
    """A result without what depends on the machine's speed."""
    return {k: v for k, v in r.items() if k not in ("wall", "cpu", "sim_per_wall", "sim_per_cpu")}


def test_same_seed_same_game_and_the_accounting(tmp_path):
    stop = threading.Event()
    first = G.play_game(_specs(tmp_path)[0], stop)
    again = G.play_game(_specs(tmp_path)[0], stop)
    other = G.play_game(_specs(tmp_path, seed=8)[0], stop)
    assert _game(first) == _game(again)
    assert _game(first) != _game(other)
    assert first["duration"] >= 3.0 and first["A"]["side"] == "left" and first["B"]["side"] == "right"
    assert first["A"]["team"] == "villa" and first["B"]["team"] == "allball"
    assert first["A"]["possession"] + first["B"]["possession"] == pytest.approx(1.0)
    # territory is the one ball seen from both ends: A's mean x is B's negated, the attacking thirds do not overlap
    assert first["A"]["ball_x_mean"] == pytest.approx(-first["B"]["ball_x_mean"])
    assert first["A"]["attacking_third"] + first["B"]["attacking_third"] <= 1.0
    for team in (first["A"], first["B"]):
        assert team["loc_samples"] > 0 and team["loc_error_mean"] is not None and team["errors"] == 0
        assert team["kicks_executed"] <= team["kicks_requested"]
    assert first["goal_difference"] == first["A"]["score"] - first["B"]["score"]
    assert first["A"]["first_kick"] is not None and first["A"]["first_kick"] <= 3.0     # our kick-off kick
    assert first["A"]["kicked_off"] and not first["B"]["kicked_off"]
    s = G.summarize([first])
    assert (s["A"]["kickoffs"], s["A"]["kickoffs_kicked"], s["B"]["kickoffs"]) == (1, 1, 0)
    assert "own kick-offs, ball moved within 3 s" in G.table(s)
    odd = _specs(tmp_path, games=2)[1]                 # sides alternate: team A plays the right half in odd games
    assert not odd.a_left


def _clock_at(monkeypatch, play_time: float) -> None:
    """Hosted games whose kick-off comes with the game clock at `play_time` s (the trainer's (time t)) instead of
    after that much play."""
    setup = G.HostedGame.setup

    def late(self, stop):
        server = setup(self, stop)
        server.set_game_time(play_time)
        return server

    monkeypatch.setattr(G.HostedGame, "setup", late)


def test_a_game_plays_on_through_half_time_with_the_other_teams_kick_off(tmp_path, monkeypatch):
    _clock_at(monkeypatch, 296.0)
    r = G.play_game(_specs(tmp_path, duration=10.0, players=1)[0], threading.Event())
    assert 10.0 <= r["duration"] < 10.3             # to the next sample past 10 s
    assert len(r["A"]["kickoff_times"]) == 1 and len(r["B"]["kickoff_times"]) == 1   # left first, right second
    assert r["B"]["kickoff_times"][0] is not None and r["B"]["kickoff_times"][0] <= 3.0


def test_a_game_ends_at_the_servers_game_over_before_its_duration(tmp_path, monkeypatch):
    """A host stops at GameOver (the game clock stops there: a host counting it waited for ever)."""
    _clock_at(monkeypatch, 596.0)
    r = G.play_game(_specs(tmp_path, duration=30.0, players=1)[0], threading.Event())
    assert r["duration"] == pytest.approx(4.0, abs=0.1)


def test_a_decision_that_raises_is_counted_among_the_errors(tmp_path, monkeypatch):
    """The player keeps playing through a failing decision (as the strategy node does), but the game says so: here
    every decision after the kick-off raises (before it, the players must beam for the game to start at all)."""
    from villa_strategy.stage import StrategyStage

    decide = StrategyStage.decide

    def broken(self, t, play_mode, game_time, side_left):
        if game_time > 0.0:
            raise RuntimeError("broken decision")
        return decide(self, t, play_mode, game_time, side_left)

    monkeypatch.setattr(StrategyStage, "decide", broken)
    r = G.play_game(_specs(tmp_path, duration=1.0)[0], threading.Event())
    assert r["A"]["errors"] > 0 and r["B"]["errors"] > 0


def test_summary_counts_results_and_standard_error():
    def r(a, b):
        team = {"team": "t", "variant": "villa", "score": 0, "falls": 2, "loc_error_mean": 0.5, "loc_error_p95": 1.0,
                "possession": 0.5, "kicks_requested": 2, "kicks_executed": 1, "kicks_refused": 1, "first_kick": None,
                "errors": 0, "down": 0.1, "cycles": 100, "late_cycles": 1,
                "falls_by_cause": {"collision": 1, "walking": 1}}
        return {"game": 0, "players": 2, "duration": 60.0, "wall": 1.0, "cpu": 1.0, "goal_difference": a - b,
                "result": "W" if a > b else "L" if a < b else "D", "A": {**team, "score": a}, "B": {**team, "score": b}}

    games = [r(2, 0), r(0, 1), r(1, 1)]
    # s from each own kick-off until the ball moved off the spot: the first and one after a goal, both in time
    games[0]["A"] = {**games[0]["A"], "kicked_off": True, "first_kick": 1.2, "kickoff_times": [1.6, 2.4]}
    games[1]["A"] = {**games[1]["A"], "kicked_off": True, "first_kick": 0.6, "kickoff_times": [3.5]}   # too late
    # a kick started in time that fell or missed: the ball did not move; not a kicked ball
    games[2]["B"] = {**games[2]["B"], "kicked_off": True, "first_kick": 0.4, "kickoff_times": [None]}
    s = G.summarize(games)
    assert (s["A"]["kickoffs"], s["A"]["kickoffs_kicked"], s["B"]["kickoffs"], s["B"]["kickoffs_kicked"]) == \
        (3, 2, 1, 0)
    assert "2 of 3" in G.table(s) and "0 of 1" in G.table(s)
    assert (s["wins"], s["draws"], s["losses"]) == (1, 1, 1)
    assert s["goal_difference_mean"] == pytest.approx(1 / 3)
    assert s["goal_difference_se"] == pytest.approx((((2 - 1 / 3) ** 2 + (1 + 1 / 3) ** 2 + (1 / 3) ** 2) / 2 / 3)
                                                    ** 0.5)
    assert s["A"]["goals"] == 3 and s["B"]["goals"] == 2
    assert s["A"]["falls_per_player_minute"] == pytest.approx(6 / 6.0)      # 6 falls in 3 games x 2 players x 1 min
    assert s["A"]["down"] == pytest.approx(0.1) and (s["A"]["late_cycles"], s["A"]["cycles"]) == (3, 300)
    assert "W 1 / D 1 / L 1" in G.table(s) and "10.0%" in G.table(s) and "3 (300)" in G.table(s)
    assert s["A"]["falls_by_cause"] == {"collision": 3, "walking": 3}
    assert "falls by cause, A: collision 3, walking 3" in G.table(s)


def test_accounting_times_each_kick_off_until_the_ball_leaves_its_spot():
    """`villa match` sees only the truth: per kick-off, the s until the ball lay KICKOFF_MOVED m off its spot; a
    kick-off the referee ended with the ball still there stays None; one the game's end cut short (it began less than
    KICKOFF_KICK_WITHIN s before it, the ball not moved yet) is left out."""
    from villa_bringup.accounting import KICKOFF_KICK_WITHIN, Accounting
    from villa_sim.trainer import GroundTruth

    def kickoffs(samples):
        acc = Accounting("villa", "other")
        for t, mode, x in samples:
            acc.sample(GroundTruth(t, t, mode, 0, 0, (x, 0.0, 0.04), (0.0, 0.0, 0.0), {}))
        return acc.summary("left")["kickoff_times"], acc.summary("right")["kickoff_times"]

    # (game time, mode, ball x): ours kicked at 1.2 s (a touch of 0.1 m before it does not count); theirs never moved
    # the ball before the referee's PlayOn; a second of ours is still running when the game ends
    samples = [(0.0, "BeforeKickOff", 0.0), (0.2, "KickOff_Left", 0.0), (1.0, "KickOff_Left", 0.1),
               (1.4, "PlayOn", 0.45), (30.0, "PlayOn", 6.0), (31.0, "KickOff_Right", 0.0),
               (46.0, "PlayOn", 0.05), (47.0, "PlayOn", 0.05), (60.0, "KickOff_Left", 0.0)]
    late = 60.0 + KICKOFF_KICK_WITHIN
    assert kickoffs(samples + [(late - 0.1, "KickOff_Left", 0.0)]) == ([1.2], [None])      # cut short: left out
    assert kickoffs(samples + [(late, "KickOff_Left", 0.0)]) == ([1.2, None], [None])      # late: counted
    assert kickoffs(samples + [(late - 0.1, "PlayOn", 0.5)]) == ([1.2, round(late - 0.1 - 60.0, 2)], [None])
    # after a goal SimSpark's first kick-off sample still shows the ball in the net; it is timed from the kick-off's
    # start once seen on the centre spot (every such kick-off was timed 0.2 s)
    after_goal = [(0.0, "Goal_Left", 15.2), (3.0, "KickOff_Right", 15.2), (3.2, "KickOff_Right", 0.0),
                  (4.4, "KickOff_Right", 0.1), (4.6, "PlayOn", 0.6)]
    assert kickoffs(after_goal) == ([], [1.6])
    assert kickoffs(after_goal[:3] + [(9.0, "PlayOn", 0.0)]) == ([], [None])


def test_half_time_kicks_off_once_every_player_stood_beamed_for_settle_or_after_the_longest_wait():
    from villa_bringup.accounting import HALF_TIME_WAIT, SETTLE, HalfTime
    from villa_sim.trainer import GroundTruth, PlayerTruth

    up = (1.0, 0.0, 0.0, 0.0)

    def gt(mode, game_time, left_x):           # the left robot at left_x (own half: < 0), the right one on its half
        players = {("left", 1): PlayerTruth("a", "left", 1, (left_x, 0.0, 0.3), up),
                   ("right", 1): PlayerTruth("b", "right", 1, (3.0, 0.0, 0.3), up)}
        return GroundTruth(0.0, game_time, mode, 0, 0, (0.0, 0.0, 0.04), (0.0, 0.0, 0.0), players)

    h = HalfTime()
    assert not h.due(gt("PlayOn", 299.9, 2.0), 10.0) and not h.pending
    assert not h.due(gt("BeforeKickOff", 0.0, -3.0), 10.0) and not h.pending   # before the first kick-off: not ours
    assert not h.due(gt("BeforeKickOff", 300.0, 2.0), 11.0) and h.pending     # the left robot still on their half
    assert not h.due(gt("BeforeKickOff", 300.0, -3.0), 12.0)                  # beamed: SETTLE s from now
    assert not h.due(gt("BeforeKickOff", 300.0, -3.0), 12.0 + SETTLE - 0.1)
    assert h.due(gt("BeforeKickOff", 300.0, -3.0), 12.0 + SETTLE) and not h.pending
    assert not h.due(gt("BeforeKickOff", 300.0, -3.0), 20.0)                  # once
    h = HalfTime()                                                            # a robot never beamed: the longest wait
    assert not h.due(gt("BeforeKickOff", 300.0, 2.0), 0.0)
    assert not h.due(gt("BeforeKickOff", 300.0, 2.0), HALF_TIME_WAIT - 0.1)
    assert h.due(gt("BeforeKickOff", 300.0, 2.0), HALF_TIME_WAIT)


def test_accounting_counts_the_free_kicks_each_team_was_awarded():
    """A free kick (or a direct one) is counted once, for the side the referee awarded it, however long it lasts;
    `villa games` sums and shows them."""
    from villa_bringup.accounting import Accounting
    from villa_sim.trainer import GroundTruth

    acc = Accounting("villa", "other")
    modes = ["KickOff_Left", "PlayOn", "free_kick_right", "free_kick_right", "PlayOn", "free_kick_left",
             "free_kick_right", "KickIn_Left", "PlayOn", "direct_free_kick_right", "PlayOn"]
    for t, mode in enumerate(modes):
        acc.sample(GroundTruth(float(t), float(t), mode, 0, 0, (1.0, 0.0, 0.04), (0.0, 0.0, 0.0), {}))
    left, right = acc.summary("left"), acc.summary("right")
    assert (left["free_kicks"], right["free_kicks"]) == (1, 3)
    game = {"game": 0, "seed": 1, "server": "villa", "players": 1, "duration": 1.0, "wall": 1.0, "cpu": 1.0,
            "goal_difference": 0, "result": "D"}
    for label, team in (("A", left), ("B", right)):
        game[label] = {**team, "kicks_requested": 0, "kicks_executed": 0, "kicks_refused": 0, "first_kick": None,
                       "variant": "villa", "errors": 0, "cycles": 1, "late_cycles": 0}
    s = G.summarize([game])
    assert (s["A"]["free_kicks"], s["B"]["free_kicks"]) == (1, 3)
    assert any(line.startswith("  free kicks awarded") and line.split()[-2:] == ["1", "3"]
               for line in G.table(s).splitlines())


def test_accounting_counts_a_fall_once_and_the_time_down():
    from villa_bringup.accounting import Accounting
    from villa_sim.trainer import GroundTruth, PlayerTruth

    def q(up):                                        # a torso tilted about y so that its up-axis z is `up`
        half = math.acos(max(-1.0, min(1.0, up))) / 2
        return (math.cos(half), 0.0, math.sin(half), 0.0)

    acc = Accounting("villa", "other")
    # stand, fall, a get-up that sits up and folds forward (0.7, 0.3) and then fails (0.1), a second that stands;
    # standing 1 s ends the fall; then a new fall
    ups = [1.0, 0.1, 0.1, 0.7, 0.3, 0.1, 0.7, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.2]
    for i, up in enumerate(ups):
        gt = GroundTruth(0.2 * i, 0.2 * i, "PlayOn", 0, 0, (0.0, 0.0, 0.04), (0.0, 0.0, 0.0),
                         {("left", 1): PlayerTruth("villa", "left", 1, (-1.0, 0.0, 0.3), q(up))})
        acc.sample(gt, {("villa", 1): (-1.1, 0.0, 0.0)})
    s = acc.summary("left")
    assert s["falls"] == 2 and s["down"] == pytest.approx(5 / 14)
    assert s["loc_samples"] == 9 and s["loc_error_mean"] == pytest.approx(0.1)   # measured only while not down
    # one log entry per fall; the truth alone (no motion context, as in `villa match`): alone on the field
    assert [f["cause"] for f in s["fall_log"]] == ["unknown motion", "unknown motion"]
    assert s["falls_by_cause"] == {"unknown motion": 2} and s["fall_log"][0]["ball"] == pytest.approx(1.0)


def test_accounting_measures_field_players_speeds_in_play_over_one_second_windows():
    """A field player walking 0.5 m/s in play gives 0.5 per 1-s window; a window while down, out of play or moved by
    the referee gives none; the goalie (unum 1) is not a field player."""
    from villa_bringup.accounting import Accounting
    from villa_sim.trainer import GroundTruth, PlayerTruth

    acc = Accounting("villa", "other")
    x = 0.0
    for i in range(41):                               # 8 s sampled every 0.2 s
        t = 0.2 * i
        mode = "KickIn_Left" if 10 <= i < 15 else "PlayOn"     # 2..3 s out of play
        up = 0.1 if 20 <= i < 25 else 1.0                      # 4..5 s down
        x += 0.1 if i else 0.0                                 # 0.5 m/s
        if i == 32:                                            # the referee moves it 2 m at 6.4 s
            x += 2.0
        players = {("left", 2): PlayerTruth("villa", "left", 2, (x, 0.0, 0.3), _tilted(up)),
                   ("left", 1): PlayerTruth("villa", "left", 1, (-14.0 + 0.2 * i, 0.0, 0.3), _tilted(1.0))}
        acc.sample(GroundTruth(t, t, mode, 0, 0, (0.0, 0.0, 0.04), (0.0, 0.0, 0.0), players))
    s = acc.summary("left")
    # windows 0-1, 5-6 and 6.6-7.6 s: 1-2 ends out of play, 3-4 down, 6-7 relocated (at 6.4 s)
    assert s["speeds"] == pytest.approx([0.5] * 3) and s["speed_median"] == pytest.approx(0.5)
    assert s["speed_p90"] == pytest.approx(0.5)
    assert acc.summary("right")["speeds"] == [] and acc.summary("right")["speed_median"] is None
    game = {"game": 0, "seed": 1, "server": "simspark", "players": 2, "duration": 8.0, "wall": 1.0, "cpu": 1.0,
            "goal_difference": 0, "result": "D"}
    game["A"] = {**s, "kicks_requested": 0, "kicks_executed": 0, "kicks_refused": 0, "first_kick": None,
                 "variant": "villa", "errors": 0, "cycles": 1, "late_cycles": 0}
    game["B"] = {**acc.summary("right"), "kicks_requested": None, "kicks_executed": None, "kicks_refused": None,
                 "first_kick": None, "variant": "external", "errors": None, "cycles": None, "late_cycles": None}
    sm = G.summarize([game, {**game, "A": {**game["A"], "speeds": [1.0, 1.0, 0.4, 0.4]}}])
    assert sm["A"]["speed_windows"] == 7 and sm["A"]["speed_median"] == pytest.approx(0.5)   # pooled over games
    assert sm["B"]["kicks_requested"] is None and sm["B"]["late_cycles"] is None
    text = G.table(sm)
    assert "speed in play" in text and "n/a (external)" in text


def test_an_external_team_configuration_is_checked_and_fills_in_its_command(tmp_path):
    from villa_bringup.games.spec import external_team
    from villa_bringup.team_config import ConfigError, default_path
    from villa_nao.params import share_path

    shipped = external_team(share_path("villa_bringup", "config", "opponent_utbase.yaml"))
    assert shipped.name == "UTBase" and shipped.types[:3] == (0, 0, 1)
    argv = shipped.argv("127.0.0.1", 3456, "UT", 3, str(tmp_path))
    assert argv[0] == "./agentspark" and ["--port", "3456"] == argv[argv.index("--port"):argv.index("--port") + 2]
    assert "--unum" in argv and argv[argv.index("--unum") + 1] == "3" and "paramfiles/defaultParams_t1.txt" in argv
    assert external_team(default_path()) is None           # a villa team configuration
    bad = {"no command": "external: {name: X}",
           "unknown placeholder": "external: {command: [a, '{port}', '{unum}', '{colour}']}",
           "no unum": "external: {command: [a, '{port}']}",
           "types": "external: {command: [a, '{port}', '{unum}'], types: [0, 9]}",
           "cwd": f"external: {{command: [a, '{{port}}', '{{unum}}'], cwd: {tmp_path / 'nowhere'}}}",
           "key": "external: {command: [a, '{port}', '{unum}'], colour: red}"}
    for what, text in bad.items():
        f = tmp_path / "t.yaml"
        f.write_text(text)
        with pytest.raises(ConfigError) as e:
            external_team(f)
        assert str(f) in str(e.value), what
    with pytest.raises(ConfigError, match="SimSpark only"):
        _specs(tmp_path, opponent_config=str(share_path("villa_bringup", "config", "opponent_utbase.yaml")))


def _external(tmp_path, script: str):
    """A configuration whose players run `script` (python) with the port and the unum as arguments."""
    f = tmp_path / "ext.yaml"
    f.write_text(f"external: {{name: Ext, command: [{sys.executable}, -c, {json.dumps(script)}, '{{port}}', "
                 f"'{{unum}}']}}\n")
    return str(f)


def test_an_external_player_that_exits_is_reported_with_its_code_and_log(tmp_path):
    from villa_sim.simspark import available

    ok, why = available()
    if not ok:
        pytest.skip(why)
    cfg = _external(tmp_path, "import sys; print('no agent here'); sys.exit(3)")
    spec = _specs(tmp_path, duration=2.0, server="simspark", opponent_config=cfg, connect_timeout=20.0)[0]
    with pytest.raises(G.GameError, match=r"Ext #1 exited with code 3 .*no agent here"):
        G.play_game(spec, threading.Event())


_SLOW_AGENT = """
import socket, struct, sys, time
port, team, unum = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port))
time.sleep(0.5)                      # builds its behaviour after connecting, as agent binaries do
def send(m):
    s.sendall(struct.pack("!I", len(m)) + m.encode())
def recv_exact(n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            sys.exit(0)
        b += c
    return b
send("(scene rsg/agent/nao/nao_hetero.rsg 0)(syn)")
n = 0
while True:
    recv_exact(struct.unpack("!I", recv_exact(4))[0])
    n += 1
    send({1: f"(init (unum {unum})(teamname {team}))", 2: f"(beam -3 {unum} 0)"}.get(n, "") + "(syn)")
"""


def test_an_external_player_slow_to_send_its_scene_joins_the_sync_server(tmp_path):
    """SimSpark in sync mode hangs for good on an agent whose scene comes more than five cycles after it connected
    while others play (here: 0.5 s after, villa's player cycling): the join gate makes the game go on."""
    from villa_sim.simspark import available

    ok, why = available()
    if not ok:
        pytest.skip(why)
    f = tmp_path / "slow.yaml"
    f.write_text(f"external: {{name: Slow, command: [{sys.executable}, -c, {json.dumps(_SLOW_AGENT)}, '{{port}}', "
                 f"'{{team}}', '{{unum}}']}}\n")
    spec = _specs(tmp_path, duration=2.0, server="simspark", opponent_config=str(f), connect_timeout=30.0,
                  players=1)[0]
    r = G.play_game(spec, threading.Event())
    assert r["duration"] >= 2.0 and r["B"]["team"] == "Slow" and r["B"]["external"]


def test_a_game_against_the_ut_austin_villa_base_code(tmp_path):
    """2 v 2 on the real SimSpark against the base code's simple-soccer team, its players started by the shipped
    configuration's command: both teams on the field and accounted from the truth; its processes stopped after."""
    import psutil

    from villa_nao.params import share_path
    from villa_sim.simspark import available

    ok, why = available()
    if not ok:
        pytest.skip(why)
    cfg = share_path("villa_bringup", "config", "opponent_utbase.yaml")
    if not os.access("/opt/utaustinvilla3d/agentspark", os.X_OK):
        pytest.skip("the UT Austin Villa base code is not installed (../shared/utaustinvilla3d/install.sh)")
    specs = _specs(tmp_path, duration=12.0, server="simspark", opponent_config=str(cfg), games=2)
    for spec in specs:                               # villa on the left, then on the right
        r = G.play_game(spec, threading.Event())
        a, b = r["A"], r["B"]
        assert r["duration"] >= 12.0 and b["team"] == "UTBase" and b["external"] and not a["external"]
        assert (a["side"], b["side"]) == (("left", "right") if spec.a_left else ("right", "left"))
        assert a["errors"] == 0 and a["loc_samples"] > 0 and b["loc_samples"] == 0
        assert b["speeds"], b                        # its field player walked in play
        assert b["kicks_requested"] is None and r["cpu_external"] > 0.0
        pids = [int(x) for x in (tmp_path / f"game{spec.index:04d}" / "UTBase.pids").read_text().split()]
        assert len(pids) == 2 and not [p for p in pids if psutil.pid_exists(p)]    # stopped when the game ended


def test_a_fall_is_logged_with_its_cause():
    from villa_bringup.accounting import Accounting, MotionContext, fall_cause
    from villa_sim.trainer import GroundTruth, PlayerTruth

    def ctx(mode="walk", speed=0.0, turn=0.0, since=None):
        return MotionContext(1.0, mode, mode, speed, turn, since)

    far = 2.0
    assert fall_cause(ctx(since=1.0), 0.1) == "after a get-up"          # first: the get-up's, even in a crowd
    assert fall_cause(ctx(since=9.0), 0.3) == "collision"
    assert fall_cause(None, 0.3) == "collision" and fall_cause(None, far) == "unknown motion"
    assert fall_cause(ctx("kick"), far) == "kick" and fall_cause(ctx("stopping"), far) == "kick"
    assert fall_cause(ctx("skill"), far) == "skill"
    assert fall_cause(ctx(speed=0.3, turn=-0.6), far) == "turning"
    assert fall_cause(ctx(speed=0.3, turn=0.1), far) == "walking"
    assert fall_cause(ctx(speed=0.01), far) == "standing"

    contexts = {("villa", 1): ctx("kick"), ("other", 1): ctx(speed=0.4)}
    acc = Accounting("villa", "other", lambda team, unum: contexts[(team, unum)])
    for i, (up1, up2, x2) in enumerate([(1.0, 1.0, 3.0), (0.1, 1.0, 3.0), (0.1, 0.1, 0.3)]):
        gt = GroundTruth(0.2 * i, 0.2 * i, "PlayOn", 0, 0, (0.0, 0.0, 0.04), (0.0, 0.0, 0.0),
                         {("left", 1): PlayerTruth("villa", "left", 1, (0.0, 0.0, 0.3), _tilted(up1)),
                          ("right", 1): PlayerTruth("other", "right", 1, (x2, 0.0, 0.3), _tilted(up2))})
        acc.sample(gt)
    left, right = acc.summary("left"), acc.summary("right")
    assert left["falls_by_cause"] == {"kick": 1} and right["falls_by_cause"] == {"collision": 1}
    (f,) = left["fall_log"]
    assert f["mode"] == "kick" and f["nearest_robot"] == pytest.approx(3.0) and f["time"] == pytest.approx(0.2)
    assert right["fall_log"][0]["nearest_robot"] == pytest.approx(0.3) and right["fall_log"][0]["speed"] == 0.4


def test_a_robot_that_falls_after_a_push_is_counted_as_a_collision_within_the_contact_window():
    """A pushed robot tips over for up to a second while the other walks on: the closest another robot came in the
    CONTACT_WINDOW before the fall names the cause."""
    from villa_bringup.accounting import CONTACT_WINDOW, Accounting, MotionContext
    from villa_sim.trainer import GroundTruth, PlayerTruth

    def fall_after(seconds: float) -> dict:
        acc = Accounting("villa", "other", lambda team, unum: MotionContext(0.0, "walk", "walk", 0.3, 0.0, None))
        t, samples = 0.0, [(0.3, 1.0)] + [(1.0, 1.0)] * round(seconds / 0.2 - 1) + [(1.0, 0.1)]
        for x2, up in samples:                       # (the other robot's x, our up axis), one sample per 0.2 s
            acc.sample(GroundTruth(t, t, "PlayOn", 0, 0, (5.0, 0.0, 0.04), (0.0, 0.0, 0.0),
                                   {("left", 1): PlayerTruth("villa", "left", 1, (0.0, 0.0, 0.3), _tilted(up)),
                                    ("right", 1): PlayerTruth("other", "right", 1, (x2, 0.0, 0.3), _tilted(1.0))}))
            t += 0.2
        (f,) = acc.summary("left")["fall_log"]
        return f

    pushed = fall_after(0.6)
    assert pushed["cause"] == "collision" and pushed["closest_robot"] == pytest.approx(0.3)
    assert pushed["closest_is"] == "opponent"
    assert pushed["nearest_robot"] == pytest.approx(1.0)
    alone = fall_after(CONTACT_WINDOW + 0.4)
    assert alone["cause"] == "walking" and alone["closest_robot"] == pytest.approx(1.0)


def test_kick_tracker_follows_where_the_ball_went():
    from villa_motion.arbiter import KickRecord
    from villa_sim.trainer import GroundTruth, PlayerTruth

    kicker = PlayerTruth("villa2", "right", 3, (-0.8, 0.1, 0.3), (0.0, 0.0, 0.0, 1.0))    # facing -x (yaw 180 deg)
    other = PlayerTruth("villa", "left", 1, (-3.5, 0.0, 0.3), (1.0, 0.0, 0.0, 0.0))

    def gt(t, x, y):
        return GroundTruth(t, t, "PlayOn", 0, 0, (x, y, 0.04), (0.0, 0.0, 0.0),
                           {("right", 3): kicker, ("left", 1): other})

    tracker = G.KickTracker("right", 3)
    done = KickRecord(1.0, "forward_L", (0.2, 0.05), "completed", started=1.5, started_ball=(0.19, 0.06), n=0)
    refused = KickRecord(2.0, "forward_R", (0.6, 0.0), "refused", "the IK reaches 40% of the curve", n=1)
    for t, x in ((1.6, 1.0), (3.0, 1.5), (4.6, 3.0), (6.0, 4.0)):   # the right team: its frame is turned 180 deg
        tracker.sample([done, refused] if t > 2 else [done], gt(t, -x, 0.0))
    kicked, refusal = tracker.entries(3)
    assert kicked["ball_moved"] == pytest.approx(2.0) and kicked["off_goal_deg"] == pytest.approx(0.0)
    assert kicked["from"] == pytest.approx([1.0, 0.0]) and kicked["to"] == pytest.approx([3.0, 0.0])   # team frame
    assert kicked["time"] == pytest.approx(1.6) and kicked["unum"] == 3 and kicked["outcome"] == "completed"
    assert kicked["ball_truth"] == pytest.approx([0.2, 0.1])       # the true ball, the kicker's torso frame
    assert kicked["started_ball"] == pytest.approx([0.19, 0.06])
    assert kicked["others_within"] == pytest.approx(0.5)   # the other robot, not the kicker; until KICK_FOLLOW s
    assert refusal["outcome"] == "refused" and "40%" in refusal["reason"] and "ball_moved" not in refusal
    assert "ball_truth" not in refusal and "started_ball" not in refusal


def _tilted(up):
    """A torso orientation (w, x, y, z) tilted about y so that its up-axis z is `up`."""
    half = math.acos(max(-1.0, min(1.0, up))) / 2
    return (math.cos(half), 0.0, math.sin(half), 0.0)


def test_a_penalty_kick_is_the_left_teams_striker_against_the_right_teams_goalie(tmp_path):
    """--penalty (§14): one player a side, the ball on the centre spot in play on, the striker takes it toward the
    goal; A shoots in even games, B in odd ones; the kick ends at a goal or when the ball leaves the field."""
    from villa_sim.trainer import GroundTruth

    specs = _specs(tmp_path, duration=4.0, games=2, players=1, penalty=True)
    game = G.HostedGame(specs[0], "villa")
    r = game.play(threading.Event(), lambda played: None)
    assert r["penalty"] == {"striker": "A"} and r["players"] == 1 and r["duration"] >= 4.0
    striker, keeper = game.teams["left"][0], game.teams["right"][0]
    assert striker.strategy.params.penalty == "striker" and keeper.strategy.params.penalty == "goalie"
    assert striker.commands.decision.role == "striker" and keeper.commands.decision.role == "goalie"
    assert striker.pose()[0] > 0.0                         # it left its spot behind the centre toward their goal
    assert G.HostedGame(specs[1], "villa").sides["left"].label == "B"
    gt = GroundTruth(1.0, 1.0, "PlayOn", 0, 0, (5.0, 0.0, 0.04), (0.0, 0.0, 0.0))
    assert not game.over(gt)
    assert game.over(GroundTruth(1.0, 1.0, "Goal_Left", 1, 0, (15.2, 0.0, 0.04), (0.0, 0.0, 0.0)))
    assert game.over(GroundTruth(1.0, 1.0, "goal_kick_right", 0, 0, (15.2, 3.0, 0.04), (0.0, 0.0, 0.0)))
    s = G.summarize([r, {**r, "penalty": {"striker": "B"}, "A": {**r["A"], "score": 0},
                         "B": {**r["B"], "score": 1}}])
    assert s["penalty"] == {"A": {"kicks": 1, "goals": r["A"]["score"]}, "B": {"kicks": 1, "goals": 1}}
    assert "penalty shoot-out: A scored" in G.table(s)


def test_villa_sim_over_sockets(tmp_path):
    r = G.play_game(_specs(tmp_path, duration=2.0, socket=True)[0], threading.Event())
    assert r["server"] == "villa-socket" and r["duration"] >= 2.0
    assert r["A"]["loc_samples"] > 0 and r["A"]["errors"] == 0 and r["B"]["errors"] == 0


def test_simspark_game(tmp_path):
    from villa_sim.simspark import available

    ok, why = available()
    if not ok:
        pytest.skip(why)
    r = G.play_game(_specs(tmp_path, duration=3.0, server="simspark")[0], threading.Event())
    assert r["server"] == "simspark" and r["duration"] >= 3.0
    assert r["A"]["loc_samples"] > 0 and r["A"]["errors"] == 0 and r["B"]["errors"] == 0
    # our kick-off (villa plays left): the taker lined up before it and kicks at once, the first touch (a taker that
    # landed against the ball touched it first, and its kick gave the opponents a free kick); the kick may still run
    # when the game ends (executed), but was neither refused nor fell
    assert r["A"]["first_kick"] is not None and r["A"]["first_kick"] <= 3.0, r["A"]
    assert r["A"]["kick_log"] and r["A"]["kick_log"][0]["outcome"] in ("executed", "completed"), r["A"]["kick_log"]


@pytest.mark.parametrize("server", ["villa", "simspark"])
def test_half_time_over_sockets(tmp_path, monkeypatch, server):
    """Half time through a socket game: SimSpark's game clock (all its trainer has) stands at 300 s until the second
    half's kick-off, which the host gives the right team once both robots stood beamed (a host that waited for the
    clock to reach its next sample stalled there). The trainer's (time 296) starts the game near the half."""
    from villa_sim.simspark import available

    ok, why = available()
    if server == "simspark" and not ok:
        pytest.skip(why)
    start = G.SocketGame.start

    def late(self, trainer):
        trainer.set_game_time(296.0)
        trainer.wait_for(lambda g: g.game_time >= 296.0, timeout=30.0)
        start(self, trainer)

    monkeypatch.setattr(G.SocketGame, "start", late)
    r = G.play_game(_specs(tmp_path, duration=10.0, players=1, server=server, socket=True)[0], threading.Event())
    assert r["duration"] >= 10.0 and r["A"]["errors"] == 0 and r["B"]["errors"] == 0
    assert len(r["A"]["kickoff_times"]) == 1 and len(r["B"]["kickoff_times"]) == 1   # left first, right second
    assert r["B"]["kickoff_times"][0] is not None          # its taker moved the ball (SimSpark is not repeatable)


def _villa(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "villa_bringup.cli", "games", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kw)


def test_the_command_writes_lines_summary_and_plot(tmp_path):
    p = _villa("--games", "2", "--duration", "2", "--jobs", "2", "--out", str(tmp_path), "--opponent", "boxes")
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err[-3000:]
    lines = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert sorted(x["game"] for x in lines) == [0, 1]
    assert {x["B"]["variant"] for x in lines} == {"boxes"}
    # each game's line is printed as it finishes (progress), so with --jobs 2 in any order
    printed = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    assert sorted(printed, key=lambda x: x["game"]) == sorted(lines, key=lambda x: x["game"])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games"] == 2 and not summary["interrupted"]
    assert "goal difference" in out and "falls per player-minute" in out
    assert (tmp_path / "games.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ctrl_c_stops_and_keeps_the_finished_games(tmp_path):
    p = _villa("--games", "20", "--duration", "1", "--jobs", "1", "--out", str(tmp_path))
    lines = tmp_path / "games.jsonl"
    deadline = time.monotonic() + 240
    while not (lines.exists() and lines.read_text().strip()):
        assert p.poll() is None and time.monotonic() < deadline, p.stderr.read()[-2000:] if p.poll() else "timeout"
        time.sleep(0.2)
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err[-2000:]
    kept = [json.loads(x) for x in lines.read_text().splitlines()]
    assert 1 <= len(kept) < 20 and "interrupted" in err
    assert json.loads((tmp_path / "summary.json").read_text())["interrupted"]
    with pytest.raises(ProcessLookupError):                # nothing of the run is left
        os.killpg(p.pid, 0)


def test_bad_arguments_exit_2_with_one_line(tmp_path):
    for args, words in ((["--games", "0"], "--games must be at least 1"),
                        (["--players", "12"], "--players must be 1..11"),
                        (["--config", str(tmp_path / "nope.yaml")], "no such team configuration"),
                        (["--penalty", "--players", "2"], "--penalty is 1 v 1"),
                        (["--duration", "601"], "villa sim ends a game after 600 simulated s")):
        r = subprocess.run([sys.executable, "-m", "villa_bringup.cli", "games", *args, "--out", str(tmp_path)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and words in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
