"""The NAOqi bridge node: a physical Nao behind the same topics as the simulator bridge (thin wiring over naoqi.py).

Publishes joint_states, imu, foot_contacts at `rate_hz` from one ALMemory read per tick, and game_state (the
player is "confirmed" once the robot is connected); sends joint_targets to ALMotion.setAngles or the DCM. Wakes
the robot up once connected; a watchdog crouches it and lowers stiffness when targets stop for `watchdog_s`; rest on
shutdown. Connecting (at start and after a lost session) runs in a thread of its own with the simulator bridge's
bounded back-off (villa_bridge.session.retry): one line per failed attempt, and after `max_attempts` one line naming
the address and what to check; the node then stays up without a body (no traceback, nothing for a supervisor to
respawn), and the player's other nodes and the other players go on. Parameters: config/naoqi_bridge.yaml.
"""

from __future__ import annotations

import sys
import threading
import time

from geometry_msgs.msg import Point, Vector3
from rclpy.node import Node
from sensor_msgs.msg import Imu, JointState

from villa_bridge.naoqi import NaoqiBody, NaoqiError, Watchdog, connect
from villa_bridge.session import Backoff, retry
from villa_msgs.msg import FootContact, FootContacts, GameState, JointCommand
from villa_nao.params import declare_from_yaml
from villa_nao.ros import QOS, spin


class NaoqiBridgeNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("naoqi_bridge", **kwargs)
        p = declare_from_yaml(self, "villa_bridge", "naoqi_bridge.yaml")
        if not p["nao_ip"]:
            raise ValueError("nao_ip is empty: set it to the robot's address (team configuration: nao_ip)")
        scheme = "tcps" if p["tls"] else "tcp"
        self.nao_ip = str(p["nao_ip"])
        self.url = f"{scheme}://{self.nao_ip}:{int(p['port'])}"
        self.timeout = float(p["connect_timeout_s"])
        self.mode, self.fraction = str(p["mode"]), float(p["fraction_max_speed"])
        self.backoff = Backoff(float(p["retry_initial"]), float(p["retry_max"]), int(p["max_attempts"]))
        self.team, self.unum = str(p["team"]), int(p["unum"])
        self.watchdog = Watchdog(float(p["watchdog_s"]))
        self.body: NaoqiBody | None = None
        self.gave_up = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._connector: threading.Thread | None = None
        self._connecting = False       # a connector thread is trying (cleared with the body set, under the lock)
        self.reads = 0
        self.pub_js = self.create_publisher(JointState, "joint_states", QOS)
        self.pub_imu = self.create_publisher(Imu, "imu", QOS)
        self.pub_feet = self.create_publisher(FootContacts, "foot_contacts", QOS)
        self.pub_gs = self.create_publisher(GameState, "game_state", QOS)
        self.create_subscription(JointCommand, "joint_targets", self._on_targets, QOS)
        self.create_timer(1.0 / float(p["rate_hz"]), self._tick)
        self._start_connecting()

    # --- connecting (a thread of its own: a robot that does not answer must not block the executor) -----------------
    def _start_connecting(self) -> None:
        with self._lock:
            if self._stop.is_set() or self._connecting:
                return
            self._connecting = True
            self._connector = threading.Thread(target=self._connect, name="naoqi-connect", daemon=True)
            self._connector.start()

    def _open(self) -> NaoqiBody:
        body = NaoqiBody(connect(self.url, self.timeout, self._stop), self.mode, self.fraction)
        body.wake_up()
        return body

    def _connect(self) -> None:
        body = retry(self._open, self.backoff, self._stop, self._connect_failed, errors=(RuntimeError, OSError))
        with self._lock:
            self._connecting = False
            if body is None:
                return
            if not self._stop.is_set():
                self.body, body = body, None
        if body is not None:   # shut down while connecting: leave the robot as it was found
            body.rest()
            return
        self.get_logger().info(f"naoqi_bridge: connected to {self.url} ({self.mode}), robot awake")

    def _connect_failed(self, e: Exception, attempt: int, delay: float | None) -> None:
        if self._stop.is_set():
            return
        if delay is not None:
            self.get_logger().warning(f"naoqi_bridge: attempt {attempt} of {self.backoff.max_attempts or 'unlimited'}:"
                                      f" {e}; retrying in {delay:.1f} s")
            return
        self.gave_up = True
        cause = str(e) if self.url in str(e) else f"{self.url}: {e}"
        self.get_logger().error(
            f"naoqi_bridge: giving up after {attempt} attempts: {cause} -- check that the robot is switched on and on "
            f"this network, that {self.nao_ip} is its address (nao:= / nao_ip) and that NAOqi listens on port "
            f"{self.url.rsplit(':', 1)[1]}; restart this player to try again")

    def _on_targets(self, msg: JointCommand) -> None:
        if len(msg.position) != len(msg.name):
            self.get_logger().warning("naoqi_bridge: joint_targets with mismatched name/position lengths ignored",
                                      throttle_duration_sec=5.0)
            return
        with self._lock:
            body = self.body
        if body is None:
            return
        try:
            body.command(dict(zip(msg.name, msg.position, strict=True)))
            self.watchdog.feed(time.monotonic())
        except Exception as e:  # a lost session shows here first
            self._lost(e)

    def _lost(self, e: Exception) -> None:
        with self._lock:
            if self.body is None:
                return
            body, self.body = self.body, None
        body.close()
        self.get_logger().error(f"naoqi_bridge: lost the robot at {self.url}: {e}; reconnecting")
        self._start_connecting()

    def _tick(self) -> None:
        now = time.monotonic()
        with self._lock:
            body = self.body
        if body is None:
            return
        try:
            r = body.read()
            if self.watchdog.check(now):
                self.get_logger().warning(f"naoqi_bridge: no joint targets for {self.watchdog.timeout * 1000:.0f} ms: "
                                          f"safe crouch, stiffness lowered")
                body.safe_crouch()
        except Exception as e:
            self._lost(e)
            return
        self.reads += 1
        stamp = self.get_clock().now().to_msg()
        js = JointState(name=r.names, position=[float(v) for v in r.positions])
        js.header.stamp = stamp
        self.pub_js.publish(js)
        imu = Imu(angular_velocity=Vector3(x=float(r.gyro[0]), y=float(r.gyro[1]), z=float(r.gyro[2])),
                  linear_acceleration=Vector3(x=float(r.acc[0]), y=float(r.acc[1]), z=float(r.acc[2])))
        imu.header.stamp, imu.header.frame_id = stamp, "base_link"
        imu.orientation_covariance[0] = -1.0
        self.pub_imu.publish(imu)
        feet = FootContacts()
        feet.header.stamp = stamp
        for side, name in (("L", "left_foot"), ("R", "right_foot")):
            contact, cop, force = r.foot(side)
            feet.contacts.append(FootContact(name=name, in_contact=contact,
                                             center=Point(x=float(cop[0]), y=float(cop[1]), z=0.0),
                                             force=Vector3(x=0.0, y=0.0, z=float(force[2]))))
        self.pub_feet.publish(feet)
        gs = GameState(play_mode=GameState.PLAY_ON, play_mode_name="real robot", unum=self.unum,
                       side=GameState.SIDE_LEFT, team_name=self.team)
        gs.header.stamp = stamp
        self.pub_gs.publish(gs)

    def destroy_node(self) -> None:
        self._stop.set()
        with self._lock:
            body, self.body = self.body, None
            connector = self._connector
        if connector is not None:
            connector.join(timeout=self.timeout + 1.0)   # connect() notices the stop within 0.1 s
        if body is not None:
            try:
                body.rest()
                self.get_logger().info("naoqi_bridge: robot at rest, stiffness off")
            except Exception as e:  # the robot is already gone: nothing else to do
                self.get_logger().warning(f"naoqi_bridge: could not put the robot to rest: {e}")
            body.close()
        super().destroy_node()


def main(args=None) -> int:
    return spin(NaoqiBridgeNode, "naoqi_bridge", args, (ValueError, NaoqiError))


if __name__ == "__main__":
    sys.exit(main())
