"""The motion node's kick request on the in-process villa simulation (the node's callbacks driven directly, one
joint_states per 20 ms cycle): a kick runs and reports done; an unreachable kick is refused and walking resumes
(integration)."""

import math

import pytest

from villa_motion import kick as KK

pytestmark = pytest.mark.integration


class _Capture:
    def __init__(self):
        self.msgs = []

    def publish(self, msg):
        self.msgs.append(msg)


def _cycle(node, nao, targets, statuses):
    from builtin_interfaces.msg import Time
    from sensor_msgs.msg import JointState

    joints = nao.joint_angles()
    t = nao.time
    msg = JointState(name=list(joints), position=list(joints.values()))
    msg.header.stamp = Time(sec=int(t), nanosec=int((t % 1.0) * 1e9))
    node._on_joints(msg)
    cmd = targets.msgs[-1]
    nao.command(dict(zip(cmd.name, cmd.position, strict=True)))
    nao.step()
    return statuses.msgs[-1]


def test_motion_node_kicks_and_refuses(ros_domain):
    import rclpy
    from rclpy.parameter import Parameter

    from villa_motion.node import MotionNode
    from villa_msgs.msg import MotionRequest, WalkCommand
    from villa_sim.inprocess import InProcessNao

    rclpy.init()
    try:
        node = MotionNode(namespace="/villa/p9", parameter_overrides=[Parameter("use_sim_time", value=False)])
        targets, statuses = _Capture(), _Capture()
        node.pub_targets, node.pub_status = targets, statuses
        nao = InProcessNao(x=-3.0, y=0.0, theta=0.0)
        for _ in range(40):
            _cycle(node, nao, targets, statuses)
        # walk a little, then ask for a kick with the ball where the forward kick wants it: the walk stops first
        node._on_walk(WalkCommand(mode=WalkCommand.MODE_NORMALIZED, x=0.3, y=0.0, theta=0.0, parameter_set=""))
        for _ in range(25):
            st = _cycle(node, nao, targets, statuses)
        assert st.active == "walk"
        p, yaw, _ = nao.torso_pose()
        k = node.kicks["forward_L"]
        c, s = math.cos(yaw), math.sin(yaw)
        ball = (p[0] + c * k.ball[0] - s * k.ball[1], p[1] + s * k.ball[0] + c * k.ball[1])
        KK.place_ball(nao, *ball)
        node._on_request(MotionRequest(request_id=7, skill="kick", parameter_names=["ball_x", "ball_y", "direction"],
                                       parameter_values=[k.ball[0], k.ball[1], 0.0]))
        seen = []
        for _ in range(300):
            st = _cycle(node, nao, targets, statuses)
            seen.append(st.active)
            if st.done:
                break
        assert st.done and st.request_id == 7
        kicked = [a for a in seen if a.startswith("kick_")]
        assert kicked and set(kicked) <= {"kick_forward_L", "kick_forward_R"}
        assert nao.torso_pose()[2] > 0.8
        for _ in range(100):
            _cycle(node, nao, targets, statuses)
        moved = math.dist(nao.sim.ball.xpos[:2], ball)
        assert moved > 1.0, f"the ball moved {moved:.2f} m"
        # a kick the IK cannot reach (ball 60 cm ahead) is refused at once and walking resumes
        logged = []
        real_logger = node.get_logger()

        class _Log:
            def warning(self, text, **_):
                logged.append(text)

            def __getattr__(self, name):
                return getattr(real_logger, name)

        node.get_logger = lambda: _Log()
        node._on_request(MotionRequest(request_id=8, skill="kick_forward_L", parameter_names=["ball_x", "ball_y"],
                                       parameter_values=[0.6, 0.05]))
        for _ in range(5):
            st = _cycle(node, nao, targets, statuses)
        assert st.done and st.request_id == 8 and st.active == "stand"
        assert any("refused" in m and "forward_L" in m for m in logged), logged
        node._on_walk(WalkCommand(mode=WalkCommand.MODE_NORMALIZED, x=0.5, y=0.0, theta=0.0, parameter_set=""))
        for _ in range(10):
            st = _cycle(node, nao, targets, statuses)
        assert st.active == "walk"
        node.destroy_node()
    finally:
        rclpy.try_shutdown()
