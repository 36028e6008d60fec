"""The whole motion path live: `villa sim` (sync, SimSpark vision noise) + the bridge and motion nodes of one player
process; a `cmd_walk` published on the player's topic walks the Nao 2 m forward without falling (integration)."""

import subprocess
import sys
import threading
import time

import pytest
import yaml

from villa_sim.testing import SimProcess
from villa_sim.trainer import Trainer

pytestmark = pytest.mark.integration


def test_cmd_walk_walks_the_simulated_nao_2_m_forward(tmp_path, ros_domain):
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor

    from villa_msgs.msg import MotionStatus, WalkCommand

    with SimProcess(noise=True) as sim, Trainer(port=sim.monitor_port) as trainer:
        cfg = tmp_path / "team.yaml"
        cfg.write_text(yaml.safe_dump({"team": "villa", "server": {"host": "127.0.0.1", "port": sim.agent_port},
                                       "players": [{"unum": 1, "robot_type": 0}]}))
        log = open(tmp_path / "player.log", "w")
        proc = subprocess.Popen([sys.executable, "-m", "villa_bringup.player", "--config", str(cfg), "--unum", "1",
                                 "--nodes", "bridge,motion"], stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        ctx = Context()
        rclpy.init(context=ctx)
        node = rclpy.create_node("walk_test", context=ctx)
        status: list[MotionStatus] = []
        node.create_subscription(MotionStatus, "/villa/p1/motion_status", status.append, 5)
        pub = node.create_publisher(WalkCommand, "/villa/p1/cmd_walk", 5)
        ex = SingleThreadedExecutor(context=ctx)
        ex.add_node(node)
        spin = threading.Thread(target=lambda: ex.spin(), daemon=True)
        spin.start()
        try:
            gt = trainer.wait_for(lambda g: ("left", 1) in g.players, timeout=60)
            trainer.move_player("villa", 1, -6.0, 0.0, 0.0)
            deadline = time.monotonic() + 60
            while not status and time.monotonic() < deadline:   # motion is answering joint_states
                time.sleep(0.1)
            assert status, (tmp_path / "player.log").read_text()[-3000:]
            gt = trainer.wait_sim_time(trainer.truth().sim_time + 1.0)   # settle on the new spot
            start = gt.players[("left", 1)].position
            lowest_up, walked, t_walk = 1.0, 0.0, gt.sim_time
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                pub.publish(WalkCommand(mode=WalkCommand.MODE_NORMALIZED, x=1.0, parameter_set="goToTarget"))
                time.sleep(0.1)
                gt = trainer.truth()
                p = gt.players[("left", 1)]
                lowest_up = min(lowest_up, p.upright)
                walked = p.position[0] - start[0]
                if walked >= 2.0 or gt.sim_time - t_walk > 30.0:
                    break
            assert lowest_up > 0.8, f"the Nao fell (torso up-axis z {lowest_up:.2f})"
            assert walked >= 2.0, f"walked {walked:.2f} m in {gt.sim_time - t_walk:.1f} simulated s"
            assert abs(p.position[1] - start[1]) < 1.0
            assert any(s.active == "walk" for s in status)
        finally:
            ex.shutdown()
            node.destroy_node()
            rclpy.try_shutdown(context=ctx)
            proc.send_signal(2)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
    assert proc.returncode == 0, (tmp_path / "player.log").read_text()[-3000:]
