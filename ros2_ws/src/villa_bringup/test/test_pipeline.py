"""One player, two hosts: a recorded sequence of server messages through the ROS nodes (perception, localization,
motion, strategy, their messages delivered at once in publish order, with the bridge's session and message
conversion) and through the in-process pipeline of `villa games` gives the same joint targets and decisions
(integration: ROS nodes in a leased domain)."""

import math

import pytest

pytestmark = pytest.mark.integration

CYCLES = 350                      # 7 simulated s: join, beam, kick-off, play


@pytest.fixture(scope="module")
def recording():
    """Every message villa #1 received in a 2 v 2 hosted game (villa v allball), from its connection on."""
    import argparse
    import threading

    from villa_bringup import games as G
    from villa_sim.hosted import HostedServer

    args = argparse.Namespace(config=None, opponent_config=None, variant=None, opponent="allball", players=2, seed=5,
                              server="villa", socket=False, noise="simspark", out="/tmp", connect_timeout=60,
                              stall_timeout=60, games=1, duration=1.0)
    game = G.HostedGame(G.specs_from_args(args)[0], "villa")
    server = HostedServer(vision_noise=True, seed=5)
    me = game.teams["left"][0]
    got: list[bytes] = []

    def answer(data, real=me.session.answer):
        got.append(bytes(data))
        return real(data)

    game.join(server, lambda pl: answer if pl is me else pl.session.answer)
    for i in range(CYCLES):
        server.step()
        if i == 150:
            server.kick_off("Left")
    assert threading.active_count() >= 1
    return got, G.team_config(game.sides["left"], 2, "villa", 3100)


class Router:
    """Topics without DDS: every publish is delivered at once to the subscriptions of that topic, in order."""

    def __init__(self, nodes):
        self.subs: dict[str, list] = {}
        self.sent: dict[str, list] = {}
        for n in nodes:
            for s in n.subscriptions:
                self.subs.setdefault(s.topic_name, []).append(s.callback)
            for p in n.publishers:
                if p.topic_name not in ("/rosout", "/parameter_events"):
                    p.publish = lambda msg, topic=p.topic_name: self.publish(topic, msg)

    def publish(self, topic: str, msg) -> None:
        self.sent.setdefault(topic, []).append(msg)
        for cb in self.subs.get(topic, []):
            cb(msg)


def _params(cfg, player):
    from villa_bringup.pipeline import node_parameters

    params = node_parameters(cfg, player)
    params["localization"]["seed"] = 11
    params["strategy"]["seed"] = 12
    return params


def test_nodes_and_in_process_pipeline_agree(recording, ros_domain):
    import rclpy
    from rclpy.parameter import Parameter

    from villa_bridge import messages
    from villa_bridge.config import make_backend, session_config
    from villa_bridge.joint_io import command_to_targets
    from villa_bridge.session import BridgeSession
    from villa_bringup.pipeline import PlayerPipeline
    from villa_localization.node import LocalizationNode
    from villa_motion.node import MotionNode
    from villa_perception.node import PerceptionNode
    from villa_strategy.node import StrategyNode

    data, cfg = recording
    player = cfg.players[0]
    params = _params(cfg, player)

    # the in-process pipeline
    pipe = PlayerPipeline(params)
    pipe.localization = type(pipe.localization).from_params(params["localization"])
    pipe.strategy = type(pipe.strategy).from_params(params["strategy"])
    pipe_walks = []                              # every walk command the pipeline gave its motion, in order
    walk_request = pipe.motion.walk_request
    pipe.motion.walk_request = lambda w: (pipe_walks.append(w), walk_request(w))
    in_process = [pipe.session.begin()] + [pipe.session.answer(d) for d in data]

    # the nodes, each with the same parameters, the bridge's session and message conversion around them
    rclpy.init()
    try:
        ns = player.namespace(cfg.team)
        nodes = [cls(namespace=ns, parameter_overrides=[Parameter(k, value=v) for k, v in params[name].items()
                                                        if k != "use_sim_time"] + [Parameter("use_sim_time",
                                                                                              value=False)])
                 for name, cls in (("perception", PerceptionNode), ("localization", LocalizationNode),
                                   ("motion", MotionNode), ("strategy", StrategyNode))]
        router = Router(nodes)
        backend = make_backend(params["bridge"])
        allowed = {j.name for j in backend.joints}
        session = BridgeSession(backend, session_config(params["bridge"]))

        def on_targets(msg):
            t = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
            session.submit_targets(command_to_targets(msg.name, msg.position, msg.velocity, msg.stiffness,
                                                      limits="sim", allowed=allowed), t or None)

        router.subs[f"{ns}/joint_targets"] = [on_targets]
        router.subs.setdefault(f"{ns}/beam", []).append(lambda m: session.submit_beam(m.x, m.y, m.theta))
        router.subs[f"{ns}/say"] = [lambda m: session.submit_say(m.data)]

        def bridge_publish(p, _t0):                      # what the bridge node publishes, in its order
            t = messages.stamp(p.time)
            imu = messages.imu(p, t)
            if imu is not None:
                router.publish(f"{ns}/imu", imu)
            if p.joint_names:
                router.publish(f"{ns}/joint_states", messages.joint_state(p, t))
            gs = messages.game_state(p, t, session.unum, session.side, backend.team)
            if gs is not None:
                router.publish(f"{ns}/game_state", gs)
            frame = messages.vision(p, t, session.side, backend.team)
            if frame is not None:
                router.publish(f"{ns}/vision", frame)
            for h in messages.heard(p, t):
                router.publish(f"{ns}/heard", h)

        session.on_perception = bridge_publish
        with_nodes = [session.begin()] + [session.answer(d) for d in data]
        walks = router.sent.get(f"{ns}/cmd_walk", [])
        requests = router.sent.get(f"{ns}/motion_request", [])
        beams = router.sent.get(f"{ns}/beam", [])
        for n in nodes:
            n.destroy_node()
    finally:
        rclpy.try_shutdown()

    assert len(in_process) == len(with_nodes) == len(data) + 1
    # the effector messages: every joint command (hinge velocities from the same targets), beam, say
    differ = [(i, a[:200], b[:200]) for i, (a, b) in enumerate(zip(in_process, with_nodes, strict=True)) if a != b]
    assert not differ, differ[:2]
    assert any("(beam" in m for m in in_process) and any("(say" in m for m in in_process)
    assert walks and beams                                                      # it decided, beamed and walked
    assert len(pipe_walks) == len(walks)                   # the same walk commands, the last compared in full
    last, mine = walks[-1], pipe_walks[-1]
    assert (last.mode, last.parameter_set) == (mine.mode, mine.parameter_set)
    assert (last.x, last.y, last.theta) == pytest.approx((mine.x, mine.y, mine.theta), abs=1e-9)
    assert len(requests) == pipe.strategy.request_id
    pose_nodes = nodes[1].stage.model.pose
    assert all(math.isclose(a, b, abs_tol=1e-6) for a, b in zip(pipe.localization.model.pose, pose_nodes,
                                                                 strict=True))
