"""One player in process: the bridge session, perception, localization, strategy and the motion arbiter as the same
plain objects the nodes wrap (docs/architecture.md, "One player, three hosts"), without ROS or DDS.

Each server perception runs through the stages as the ROS graph passes it on, in the bridge node's publish order
with every subscriber called at once (what the nodes do on their topics):

1. imu -> motion (the angular rate for the walk's balance) and perception's fall state -> localization, motion,
   strategy;
2. joint_states -> perception (head angles) and the motion arbiter's cycle -> joint targets (-> the session),
   odometry (-> localization) and motion status (-> strategy);
3. game_state -> perception and localization (who we are) and, once the server confirmed us, the strategy's decision
   -> beam (-> session, localization), say (-> session), skill request, walk and head (-> motion);
4. vision -> perception's observations -> localization's world estimate -> strategy;
5. heard -> strategy.

So, as on ROS, the motion acts on the decision of the cycle before. The conversions from the wire are
villa_bridge.messages' (without the message classes): names, signs and units as on the topics.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

from villa_bridge import effectors
from villa_bridge.config import make_backend, session_config
from villa_bridge.joint_io import CommandError, command_to_targets, from_wire
from villa_bridge.perception import Perception
from villa_bridge.session import BridgeSession
from villa_bridge.teamframe import gyro_rates, landmark_name, play_mode, torso_axes
from villa_bringup.accounting import MotionContext
from villa_localization.stage import LocalizationStage, WorldEstimate
from villa_localization.world_model import Observed
from villa_motion import arbiter as A
from villa_perception import perception as P
from villa_perception.stage import PerceptionParams, PerceptionStage
from villa_strategy.stage import Commands, StrategyStage

STAGES = ("bridge", "perception", "localization", "motion", "strategy")


def node_parameters(config, player) -> dict[str, dict[str, Any]]:
    """Every node's parameters for one player of a team configuration: its config/<node>.yaml and the configuration's
    overrides, as the node declares them (villa_nao.params.declare_from_yaml) without ROS."""
    from villa_nao.params import load_parameters

    return {spec.name: {**load_parameters(spec.params_file), **{k: v for k, v in spec.overrides.items()
                                                                if v is not None}}
            for spec in config.nodes(player)}


def wire_time(sim_time: float) -> float:
    """The server time as a topic stamp carries it (builtin_interfaces/Time: whole s + ns), in s."""
    sec = math.floor(sim_time)
    nsec = int(round((sim_time - sec) * 1e9))
    return sec + nsec * 1e-9


def _polar(pol) -> P.Polar:
    return P.Polar(pol[0], math.radians(pol[1]), math.radians(pol[2]))


def frame_from_perception(p: Perception, side: str | None, team: str) -> P.Frame:
    """The vision of a perception as villa_bridge.messages.vision + villa_perception.node.frame_from_msg give it:
    team-relative landmark names, radians, flags before goal posts."""
    v = p.vision
    flags = {landmark_name(n, side): _polar(pol) for n, pol in v.objects.items() if n[:1] == "F"}
    posts = {landmark_name(n, side): _polar(pol) for n, pol in v.objects.items() if n[:1] == "G"}
    ball = v.objects.get("B")
    return P.Frame(landmarks={**flags, **posts}, ball=_polar(ball) if ball is not None else None,
                   players=[P.PlayerSeen(pl.team, max(0, min(255, pl.id)), pl.team == team,
                                         {k: _polar(pp) for k, pp in pl.parts.items()}) for pl in v.players],
                   lines=[(_polar(a), _polar(b)) for a, b in v.lines])


def observed(seen) -> list[Observed]:
    """Perception's observations as localization reads them (what villa_msgs/Observations carries)."""
    return [Observed(s.kind, s.name, (float(s.position[0]), float(s.position[1])), s.distance, s.bearing,
                     s.distance_sigma, s.bearing_sigma,
                     (float(s.end[0]), float(s.end[1])) if s.kind == "line" and s.end is not None
                     else ((0.0, 0.0) if s.kind == "line" else None))
            for s in seen]


class PlayerPipeline:
    """One player: a BridgeSession whose perception callback runs the stages (module docstring)."""

    def __init__(self, params: Mapping[str, Mapping[str, Any]], seed: int | None = None,
                 log: logging.Logger | None = None) -> None:
        b = params["bridge"]
        self.log = log or logging.getLogger(f"villa_bringup.pipeline.{b['team']}{b['unum']}")
        self.backend = make_backend(b)
        self.team = self.backend.team
        self.session = BridgeSession(self.backend, session_config(b), on_perception=self.on_perception, log=self.log)
        self.allowed = {j.name for j in self.backend.joints}
        self.perception = PerceptionStage(PerceptionParams.from_params(params["perception"]))
        self.localization = LocalizationStage.from_params(params["localization"],
                                                          seed=None if seed is None else seed * 7 + 1)
        self.motion = A.load(params["motion"], lambda level, text: getattr(self.log, level)(text))
        self.strategy = StrategyStage.from_params(params["strategy"], seed=None if seed is None else seed * 7 + 2)
        self.estimate: WorldEstimate | None = None
        self.commands: Commands | None = None
        self.first_kick: float | None = None          # game time of this player's first executed kick
        self.game_time = 0.0
        self.sim_time = 0.0                           # the server time of the last perception (s)
        self.rejected = 0                             # joint commands, says or beams the bridge would reject
        self.decision_errors = 0                      # decisions that raised (logged; the player keeps playing)
        self.held = False                             # held by a trainer: stands, no decisions (villa bench attack)
        self._upright: tuple | None = None            # the motion in the last cycle we were upright (fall logs)
        self._getup_ended: float | None = None

    # --- the session's perception callback: one server cycle ---------------------------------------------------
    def on_perception(self, p: Perception, _t0: float = 0.0) -> None:
        if p.time is None:
            return
        t = wire_time(p.time)
        self.sim_time = t
        side = self.session.side
        if p.gyro is not None or p.acc is not None:                          # imu -> motion, fall_state
            acc = torso_axes(p.acc) if p.acc is not None else None
            self.motion.imu(gyro_rates(p.gyro) if p.gyro is not None else None, acc)
            state, _ = self.perception.imu(t, acc if acc is not None else (0.0, 0.0, 0.0))
            self.localization.fall(state != A.UPRIGHT, t)
            self.motion.fall(state)
            self.strategy.fall(state)
        if p.joint_names:                                                   # joint_states
            names, pos, _ = from_wire(p.joint_names, p.joint_angles)
            joints = dict(zip(names, pos.tolist(), strict=True))
            if "HeadYaw" in joints and "HeadPitch" in joints:
                self.perception.joints(t, joints["HeadYaw"], joints["HeadPitch"])
            self._motion(t, joints)
        if p.game is not None:                                              # game_state
            unum = self.session.unum or 0
            self.game_time = p.game.game_time
            self.perception.game_state(unum, self.team)
            self.localization.game_state(unum)
            if self.held:
                self.motion.walk_request(A.WalkRequest(mode=A.WALK_STAND))
            elif unum:
                self._decide(t, play_mode(p.game.play_mode, side), p.game.game_time, side != "right")
        if p.vision is not None:                                            # vision -> observations -> world model
            seen = self.perception.vision(t, frame_from_perception(p, side, self.team))
            if seen is not None:
                self.estimate = self.localization.observe(observed(seen), t)
                self.strategy.world_estimate(self.estimate)
        for h in p.heard:                                                   # heard
            self.strategy.hear(h.message[:20], h.game_time, h.from_self)

    def _motion(self, t: float, joints: dict[str, float]) -> None:
        executed = self.motion.stats.executed
        was = self.motion.mode
        out = self.motion.update(t, joints)
        if was == A.Mode.GETUP and out.mode != A.Mode.GETUP:
            self._getup_ended = t
        if self.motion.fall_state == A.UPRIGHT:
            self._upright = (t, out.mode, out.status.active, self.motion.walk.step.tolist(),
                            self.motion.walk.p.phase_length)
        if self.motion.stats.executed > executed and self.first_kick is None:
            self.first_kick = self.game_time
        try:
            targets = command_to_targets(list(out.targets), [float(v) for v in out.targets.values()], [],
                                         out.stiffness(), limits="sim", allowed=self.allowed)
        except CommandError as e:
            self.rejected += 1
            self.log.error(f"bridge: {e} (command ignored)")
        else:
            self.session.submit_targets(targets, t)
        self.localization.odom(*out.odometry)
        self.strategy.motion_status(out.status.active, out.status.done)

    def _decide(self, t: float, mode: int, game_time: float, side_left: bool) -> None:
        try:
            c = self.strategy.decide(t, mode, game_time, side_left)
        except Exception as e:  # as the strategy node: one failed decision is logged, the player keeps playing
            self.decision_errors += 1                 # and counted: a game's summary shows it among its errors
            if self.decision_errors <= 10 or self.decision_errors % 1000 == 0:
                self.log.error(f"strategy: decision failed: {type(e).__name__}: {e} "
                               f"({self.decision_errors} failures so far)")
            return
        self.commands = c
        if c.beam is not None and all(math.isfinite(v) for v in c.beam):
            self.session.submit_beam(*c.beam)
            self.motion.beamed()
            self.localization.beam(*c.beam)
        if c.say:
            try:
                self.session.submit_say(c.say)
            except effectors.SayError as e:
                self.rejected += 1
                self.log.error(f"bridge: {e} (not sent)")
        if c.request is not None:
            v = self.motion.request(c.request)
            if v.outcome == "refused" and not c.request.skill.startswith("kick"):
                self.log.warning(f"motion: {v.reason}")
        if c.walk is not None:
            self.motion.walk_request(c.walk)
        if c.head is not None:
            self.motion.head(c.head)

    # --- what a game host reads ------------------------------------------------------------------------------
    def motion_context(self) -> MotionContext | None:
        """What our motion did in the last cycle we were upright (for a fall's log), None before the first cycle."""
        if self._upright is None:
            return None
        t, mode, active, step, phase = self._upright
        # a get-up that ended after our last upright cycle: we were upright during it (sat up) and fell in it
        since = None if self._getup_ended is None else max(0.0, t - self._getup_ended)
        return MotionContext(t, str(mode), active, math.hypot(step[0], step[1]) / phase, step[2] / phase, since)

    def pose(self) -> tuple[float, float, float]:
        """Our own pose estimate (team-relative field frame)."""
        return tuple(float(v) for v in self.localization.model.pose)
