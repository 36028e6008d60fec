"""Live: the bridge node against `villa sim` (rcssservermj): confirmation, joint states, vision, joint targets."""

from __future__ import annotations

import threading
import time

import pytest

pytestmark = pytest.mark.integration


SIM_UNSTABLE = "The simulation is unstable"


class SimBroke(Exception):
    """villa sim (rcssservermj 0.2.1 + MuJoCo) sometimes reports a NaN control right after a robot joins and then
    no longer applies any joint command (also with a bare raw agent sending only (syn)): a simulator fault, not
    the bridge's. The movement tests then retry on a fresh simulator and skip, quoting it, if it never works."""


def sim_broke(sim) -> bool:
    return SIM_UNSTABLE in sim.log()


def skip_if_sim_broke(sim):
    if sim_broke(sim):
        line = next(ln for ln in sim.log().splitlines() if SIM_UNSTABLE in ln)
        raise SimBroke(line.strip())


def with_fresh_sims(body, ros_domain, attempts=2):
    lines = []
    for seed in range(3, 3 + attempts):
        try:
            return body(ros_domain, seed)
        except SimBroke as e:
            lines.append(str(e))
    pytest.skip(f"villa sim went unstable in all {attempts} attempts (joint commands not applied): {lines[-1]}")


class Spinner:
    """Spins an executor in a background thread (a Python spin_once loop can fall behind a free-running bridge)."""

    def __init__(self, executor):
        self.executor = executor
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self):
        # spin_once in a loop: EventsExecutor.shutdown() from another thread hangs while spin() runs
        while not self._stop.is_set():
            self.executor.spin_once(timeout_sec=0.05)

    def until(self, cond, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cond():
                return True
            time.sleep(0.02)
        return False

    def stop(self):
        self._stop.set()
        self.thread.join(5)
        self.executor.shutdown()


def test_bridge_drives_villa_sim(ros_domain):
    with_fresh_sims(_drive, ros_domain)


def _drive(ros_domain, seed):
    import rclpy
    from rclpy.experimental import EventsExecutor
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState

    from villa_bridge.node import QOS, BridgeNode
    from villa_msgs.msg import GameState, JointCommand, VisionFrame
    from villa_sim.testing import SimProcess

    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=ros_domain)
    with SimProcess(seed=seed) as sim:
        bridge = BridgeNode(context=ctx, namespace="/villa/p2", parameter_overrides=[
            Parameter("port", value=sim.agent_port), Parameter("team", value="villa"), Parameter("unum", value=2),
            Parameter("stats_period", value=0.0)])
        probe = rclpy.create_node("probe", namespace="/villa/p2", context=ctx)
        executor = EventsExecutor(context=ctx)
        executor.add_node(bridge)
        executor.add_node(probe)
        got: dict[str, list] = {"js": [], "vision": [], "gs": []}
        lock = threading.Lock()

        def keep(key):
            def cb(msg):
                with lock:
                    got[key].append(msg)
            return cb

        probe.create_subscription(JointState, "joint_states", keep("js"), QOS)
        probe.create_subscription(VisionFrame, "vision", keep("vision"), QOS)
        probe.create_subscription(GameState, "game_state", keep("gs"), QOS)
        pub = probe.create_publisher(JointCommand, "joint_targets", QOS)
        spinner = Spinner(executor)
        try:
            assert spinner.until(lambda: any(g.unum == 2 for g in got["gs"]) and got["vision"], 40), \
                f"no confirmation/vision: {len(got['gs'])} game states, {len(got['vision'])} frames\n{sim.log()}"
            gs = [g for g in got["gs"] if g.unum == 2][-1]
            assert gs.side == GameState.SIDE_LEFT and gs.team_name == "villa"
            assert gs.play_mode == GameState.BEFORE_KICK_OFF
            js = got["js"][-1]
            assert "HeadYaw" in js.name and "LAnkleRoll" in js.name and len(js.velocity) == len(js.name)
            frame = got["vision"][-1]
            assert frame.header.frame_id == "camera"
            assert {o.name for o in frame.flags + frame.goal_posts} <= {"F1L", "F2L", "F1R", "F2R", "G1L", "G2L",
                                                                        "G1R", "G2R"}
            assert any(len(f.flags) + len(f.goal_posts) > 0 for f in got["vision"])
            # joint targets move the simulated joints (NAOqi names and signs): head to the left, arm forward-up
            cmd = JointCommand(name=["HeadYaw", "LShoulderPitch"], position=[0.6, -0.5])

            def reached():
                pub.publish(cmd)
                with lock:
                    last = got["js"][-1]
                pos = dict(zip(last.name, last.position, strict=True))
                return abs(pos["HeadYaw"] - 0.6) < 0.05 and abs(pos["LShoulderPitch"] + 0.5) < 0.08

            spinner.until(reached, 20)
            if not reached():
                skip_if_sim_broke(sim)
            assert reached(), (f"joints did not follow: {got['js'][-1].position}, "
                                                        f"{len(got['js'])} joint states, {bridge.session.stats}, "
                                                        f"thread alive {bridge._thread.is_alive()}\n{sim.log()}")
            assert bridge.session.stats.malformed == 0
            assert bridge.session.stats.cycles >= 3
            # a command naming an unknown joint is refused as a whole (logged, counted), the loop keeps going
            pub.publish(JointCommand(name=["HeadYaw", "Tail"], position=[0.0, 0.0]))
            assert spinner.until(lambda: bridge.rejected_commands == 1, 10)
            n = bridge.session.stats.cycles
            assert spinner.until(lambda: bridge.session.stats.cycles > n + 5, 10)
            assert bridge.session.held.position[bridge.session.held.index["HeadYaw"]] == pytest.approx(0.6)
        finally:
            spinner.stop()
            bridge.destroy_node()
            probe.destroy_node()
            rclpy.try_shutdown(context=ctx)


def test_both_teams_see_and_hear_team_relative_after_a_beam(ros_domain):
    """Left and right bridges beam to the same team-relative spot: same team-relative ground truth and view."""
    import math

    import rclpy
    from geometry_msgs.msg import Pose2D, PoseStamped
    from rclpy.experimental import EventsExecutor
    from rclpy.parameter import Parameter
    from std_msgs.msg import String

    from villa_bridge.node import QOS, BridgeNode
    from villa_msgs.msg import GameState, HeardMessage, VisionFrame
    from villa_sim.testing import SimProcess

    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=ros_domain)
    with SimProcess(seed=4) as sim:
        executor = EventsExecutor(context=ctx)
        probe = rclpy.create_node("probe", context=ctx)
        executor.add_node(probe)
        nodes, got, beams, says = [probe], {}, {}, {}
        spinner = None
        try:
            for team in ("teamL", "teamR"):
                ns = f"/{team}/p1"
                bridge = BridgeNode(context=ctx, namespace=ns, parameter_overrides=[
                    Parameter("port", value=sim.agent_port), Parameter("team", value=team),
                    Parameter("unum", value=1), Parameter("stats_period", value=0.0)])
                executor.add_node(bridge)
                nodes.append(bridge)
                got[team] = {"gs": [], "gt": [], "vision": [], "heard": []}
                probe.create_subscription(HeardMessage, f"{ns}/heard", got[team]["heard"].append, QOS)
                says[team] = probe.create_publisher(String, f"{ns}/say", QOS)
                probe.create_subscription(GameState, f"{ns}/game_state", got[team]["gs"].append, QOS)
                probe.create_subscription(PoseStamped, f"{ns}/ground_truth", got[team]["gt"].append, QOS)
                probe.create_subscription(VisionFrame, f"{ns}/vision", got[team]["vision"].append, QOS)
                beams[team] = probe.create_publisher(Pose2D, f"{ns}/beam", QOS)
                deadline = time.monotonic() + 30     # one robot at a time: the first team gets the left side
                while not bridge.session.confirmed and time.monotonic() < deadline:
                    time.sleep(0.02)
                assert bridge.session.confirmed, sim.log()
            spinner = Spinner(executor)
            assert spinner.until(lambda: all(g["gs"] and g["gs"][-1].unum == 1 for g in got.values()), 10)
            assert got["teamL"]["gs"][-1].side == GameState.SIDE_LEFT
            assert got["teamR"]["gs"][-1].side == GameState.SIDE_RIGHT
            target = Pose2D(x=-5.0, y=1.0, theta=0.0)

            def beamed():
                for pub in beams.values():
                    pub.publish(target)
                return all(g["gt"] and math.hypot(g["gt"][-1].pose.position.x + 5.0,
                                                  g["gt"][-1].pose.position.y - 1.0) < 0.2 for g in got.values())

            assert spinner.until(beamed, 20), {t: g["gt"][-1].pose.position for t, g in got.items()}
            for team, g in got.items():
                q = g["gt"][-1].pose.orientation
                yaw = math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))
                assert abs(yaw) < 0.2, (team, yaw)
                g["vision"].clear()
            assert spinner.until(lambda: all(len(g["vision"]) >= 3 for g in got.values()), 10)
            for team, g in got.items():
                # facing the opponent goal from (-5, 1): its posts G1R (15, 1.05) and G2R (15, -1.05) about 20 m ahead
                posts = {o.name: o.position for o in g["vision"][-1].goal_posts}
                assert set(posts) == {"G1R", "G2R"}, (team, posts)
                assert posts["G1R"].distance == pytest.approx(20.0, abs=0.5)
                assert posts["G1R"].azimuth > posts["G2R"].azimuth          # G1R (+y) is left of G2R
                assert abs(posts["G2R"].azimuth) < math.radians(15)
            # say/hear: the speaker hears itself, the other team hears it with a bearing in its own team frame
            # (speaker at global (-5, 1), listener at global (5, -1) = its own (-5, 1): bearing atan2(-2, 10))
            says["teamL"].publish(String(data="bad msg"))                 # refused by the bridge, not sent
            assert spinner.until(lambda: nodes[1].session.stats.say_rejected == 1, 10)

            def heard():
                says["teamL"].publish(String(data="hello_R"))
                return any(h.message == "hello_R" for h in got["teamR"]["heard"])

            assert spinner.until(heard, 10)
            h = [h for h in got["teamR"]["heard"] if h.message == "hello_R"][0]
            assert h.team == "teamL" and not h.from_self
            assert h.direction == pytest.approx(math.atan2(-2.0, 10.0), abs=0.05)
            assert spinner.until(lambda: any(x.from_self and x.message == "hello_R" for x in got["teamL"]["heard"]), 5)
            assert not any(x.message == "bad" for g in got.values() for x in g["heard"])
        finally:
            if spinner is not None:
                spinner.stop()
            else:
                executor.shutdown()
            for node in nodes:
                node.destroy_node()
            rclpy.try_shutdown(context=ctx)


def test_robot_type_4_has_toes(ros_domain):
    with_fresh_sims(_toes, ros_domain)


def _toes(ros_domain, seed):
    import rclpy
    from rclpy.experimental import EventsExecutor
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState

    from villa_bridge.node import QOS, BridgeNode
    from villa_msgs.msg import FootContacts, JointCommand
    from villa_sim.testing import SimProcess

    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=ros_domain)
    with SimProcess(seed=seed) as sim:
        bridge = BridgeNode(context=ctx, namespace="/villa/p4", parameter_overrides=[
            Parameter("port", value=sim.agent_port), Parameter("unum", value=4), Parameter("robot_type", value=4),
            Parameter("stats_period", value=0.0)])
        probe = rclpy.create_node("probe", namespace="/villa/p4", context=ctx)
        js, feet = [], []
        probe.create_subscription(JointState, "joint_states", js.append, QOS)
        probe.create_subscription(FootContacts, "foot_contacts", feet.append, QOS)
        pub = probe.create_publisher(JointCommand, "joint_targets", QOS)
        executor = EventsExecutor(context=ctx)
        executor.add_node(bridge)
        executor.add_node(probe)
        spinner = Spinner(executor)
        try:
            assert spinner.until(lambda: js and feet, 30), sim.log()
            assert {"RToePitch", "LToePitch"} <= set(js[-1].name) and len(js[-1].name) == 24
            assert {c.name for c in feet[-1].contacts} == {"left_foot", "right_foot", "left_toe", "right_toe"}

            def toe_bent():
                pub.publish(JointCommand(name=["LToePitch"], position=[-0.4]))   # toe up: NAOqi pitch negative
                pos = dict(zip(js[-1].name, js[-1].position, strict=True))
                return abs(pos["LToePitch"] + 0.4) < 0.08

            spinner.until(toe_bent, 15)
            if not toe_bent():
                skip_if_sim_broke(sim)
            assert toe_bent(), (dict(zip(js[-1].name, js[-1].position, strict=True)), sim.log())
        finally:
            spinner.stop()
            bridge.destroy_node()
            probe.destroy_node()
            rclpy.try_shutdown(context=ctx)
