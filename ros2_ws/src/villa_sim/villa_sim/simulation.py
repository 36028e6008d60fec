"""The villa simulation: rcssservermj's soccer simulation, extended (not forked) for a SimSpark-like game.

What it adds to rcssservermj (rcsssmj 0.2.1), by subclassing:
- our Nao (villa_nao.mjcf) as robot models "nao" (type 0) and "nao0".."nao4" (SimSpark's robot types);
- SimSpark's ball (r = 0.042 m, 26 g, its linear and angular drag, no rolling resistance) and landmarks F1L..F2R,
  G1L..G2R instead of rcssservermj's markers;
- SimSpark's vision noise (villa_sim.noise), foot pressure `FRP`, and SimSpark's `(say msg)` / `hear`;
- a ground-truth block `(GT ...)` in every monitor message for trainers, tests and benchmarks;
- SimSpark's hinge effector ``(<eff> v)``: a joint velocity in rad/s, as rcssserver3d's velocity-controlled hinges
  take it: clamped to the joint's maximum speed (the velocity actuator's control range), held until the next command,
  ignored while the joint is beyond one of its stops (SimSpark's rule; here beyond by more than ``STOP_TOLERANCE``:
  ODE's motor holds a loaded joint exactly, the PD servo below yields up to about 2 deg, and the walk keeps its hip
  yaw-pitch at 0, 1 deg from a stop). In place of ODE's motor constraint (which
  reaches the velocity within the step unless that takes more than 10 N m) the joint's PD servo (config/pd_gains.yaml,
  force within the joint's 10 N m range) tracks a reference that moves at the commanded velocity, advanced every 5 ms
  substep and kept within ``REFERENCE_LEAD`` of the joint (a blocked joint does not wind the reference up); a stiff
  pure velocity servo would need MuJoCo's implicit integration, which explodes against the ground contacts here.
  rcssservermj's PD command ``(<eff> q dq kp kd tau)`` still works (it takes the joint out of velocity mode);
- SimSpark's half time: at the end of the first half the game goes to BeforeKickOff for the second half (the clock
  at 300 s, the ball on the centre spot, sides kept) instead of rcssservermj's GameOver; a host kicks it off, as on
  SimSpark. The game ends (GameOver) after the second half;
- robustness: a joint command naming an unknown actuator is ignored (logged once), not a crash; a Nao joint of a
  robot the model does not hold yet is logged only if its commands go on (``UNKNOWN_GRACE``: a joining robot's first
  commands come before the model is rebuilt with it, and every start logged 22 warnings per robot).
"""

from __future__ import annotations

import logging
import math
import time
from contextlib import contextmanager
from typing import Any

import mujoco
import numpy as np
from rcsssmj.games.soccer.game_phase import GamePhase
from rcsssmj.games.soccer.play_mode import PlayMode
from rcsssmj.games.soccer.server.soccer_action_parser import SoccerActionParser
from rcsssmj.games.soccer.sim.soccer_sim import SoccerSimulation
from rcsssmj.games.teams import TeamSide
from rcsssmj.resources.spec_provider import ModelSpecProvider
from rcsssmj.sim.actions import SimAction
from rcsssmj.sim.agent_id import AgentID, strip_agent_prefix
from rcsssmj.sim.audio_engine import a_step
from rcsssmj.sim.commands import MonitorCommand
from rcsssmj.sim.perceptions import AgentDetection, ObjectDetection, VisionPerception
from rcsssmj.sim.state_info import SimStateInformation

from villa_nao import field as F
from villa_nao.gains import load_pd_gains
from villa_nao.joints import BY_EFFECTOR
from villa_sim.audio import Listener, SayHearModel
from villa_sim.field import SimSparkField, SimSparkRules
from villa_sim.noise import VisionNoise
from villa_sim.perceptions import ForceResistancePerception, HearPerception
from villa_sim.sensing import Sensing

logger = logging.getLogger(__name__)

NAO_MODELS = {"nao": 0, **{f"nao{t}": t for t in range(5)}}
BALL_LINEAR_DRAG = 0.01       # N per m/s on the ball: SimSpark ball.rsg's DragController (setLinearDrag 0.01)
BALL_ANGULAR_DRAG = 0.00005   # N m per rad/s on the ball: its setAngularDrag 0.00005
REFERENCE_LEAD = 0.05        # rad: a velocity-mode joint's servo reference stays this close to the joint
STOP_TOLERANCE = 0.05        # rad: a joint further than this beyond a stop ignores velocity commands
UNKNOWN_GRACE = 50           # commands for a Nao joint the model does not have before they are logged (1 s)
FOOT_GEOMS = {"lf": "lfoot", "rf": "rfoot", "lf1": "ltoe", "rf1": "rtoe"}


class VillaSpecProvider(ModelSpecProvider):
    """Serves our Nao (generated from villa_nao) and rcssservermj's own robots and world."""

    def load_robot_spec(self, robot: str, variant: str | None = None) -> Any | None:
        if robot in NAO_MODELS:
            from villa_nao.mjcf import make_mjcf

            return mujoco.MjSpec.from_string(make_mjcf(NAO_MODELS[robot]))
        return super().load_robot_spec(robot, variant)


class SayAction(SimAction):
    """SimSpark's say effector: (say <message>)."""

    def __init__(self, actuator_name: str, message: str) -> None:
        super().__init__(actuator_name)
        self.message = message

    def perform(self, ai) -> None:
        ai.villa_say(self.actuator_name, self.message)


class HingeVelocityAction(SimAction):
    """SimSpark's hinge effector: (<eff> v), v in rad/s."""

    def __init__(self, actuator_name: str, velocity: float) -> None:
        super().__init__(actuator_name)
        self.velocity = velocity

    def perform(self, ai) -> None:
        ai.villa_hinge_velocity(self.actuator_name, self.velocity)


class VillaActionParser(SoccerActionParser):
    """rcssservermj's soccer actions plus SimSpark's (say msg) and hinge velocities (<eff> v)."""

    def parse_node(self, node, model_prefix: str):
        if len(node) == 2 and node[0] not in (b"say", b"syn"):
            try:
                return HingeVelocityAction(model_prefix + node.get_str(0), node.get_float(1))
            except Exception:  # a malformed command is dropped like any malformed action
                return None
        if node[0] == b"say" and len(node) >= 2:
            # SimSpark's parser splits "(say a b)" into atoms and the effector takes the first (logs README).
            try:
                return SayAction(model_prefix + "say", node.get_str(1))
            except Exception:  # a malformed say is dropped like any malformed action
                return None
        return super().parse_node(node, model_prefix)


class GroundTruth(SimStateInformation):
    """(GT (t sim)(gt game)(pm mode)(sl n)(sr n)(ball x y z vx vy vz)(P team side unum x y z qw qx qy qz)...)."""

    def __init__(self, text: str) -> None:
        super().__init__("GT")
        self._text = text

    def to_sexp(self, full: bool) -> str:
        return self._text


class GameTimeCommand(MonitorCommand):
    """SimSpark's trainer command ``(time t)``: the game clock at t s (VillaSoccerSimulation.set_game_time)."""

    def __init__(self, play_time: float) -> None:
        self.play_time = play_time

    def perform(self, ci) -> None:
        ci.set_game_time(self.play_time)


class _ZeroNewControls:
    """The world spec during a recompile: its recompile() zeroes the controls of actuators not in ``old`` and any
    control that is not finite; everything else is the spec's."""

    def __init__(self, spec, old: set[str]) -> None:
        self._spec, self._old = spec, old

    def recompile(self, model, data):
        model, data = self._spec.recompile(model, data)
        ctrl = data.ctrl
        for i in range(model.nu):
            if model.actuator(i).name not in self._old or not math.isfinite(ctrl[i]):
                ctrl[i] = 0.0
        return model, data

    def __getattr__(self, name: str):
        return getattr(self._spec, name)


@contextmanager
def keeping_joint_angles(player):
    """rcssservermj's drop of a player sets every joint to 0; within this block its joints keep their angles (a robot
    put straight in mid-step fell)."""
    angles = [j.qpos.copy() for j in player._joints]
    try:
        yield
    finally:
        for joint, q in zip(player._joints, angles, strict=True):
            joint.qpos[:] = q


class VillaSoccerSimulation(SoccerSimulation):
    """rcssservermj's soccer simulation on SimSpark's field, with SimSpark's perceptions and rules."""

    def __init__(self, *, vision_noise: bool = True, seed: int | None = None) -> None:
        super().__init__(field=SimSparkField(), rules=SimSparkRules())
        # A constructor argument of BaseSimulation that SoccerSimulation does not forward: set it here.
        self.spec_provider = VillaSpecProvider()
        self.vision_noise = vision_noise
        self.rng = np.random.default_rng(seed)
        self._noise: dict[AgentID, VisionNoise] = {}
        self._audio = SayHearModel()
        self._unknown_actuators: dict[str, int] = {}    # <prefix><eff> -> commands ignored
        self._hinges: dict[str, tuple] = {}      # <prefix><eff> -> actuators, joint addresses, range, gains
        self._pd_actuators: dict[str, tuple[int, int, int]] = {}   # <prefix><eff> -> tau, pos, vel actuator ids
        self._velocity: dict[str, float] = {}    # effectors in velocity mode -> commanded velocity (rad/s)
        self._sensing = Sensing()
        self._feet: dict[str, dict[int, str]] = {}      # agent prefix -> foot geom ids (of the compiled model)
        self._servo: tuple | None = None    # (vel, pos actuators, qpos adrs, velocities, effector -> index)
        self._gains = load_pd_gains()
        self.idle_pacing = True

    # --- world -------------------------------------------------------------------------------------
    def _create_world(self) -> Any | None:
        world = super()._create_world()
        if world is None:
            return None
        for site in list(world.sites):  # rcssservermj's line-junction markers: SimSpark has none
            if site.name.endswith("-vismarker") and site.name != "B-vismarker":
                world.delete(site)
        for name, (x, y, z) in F.LANDMARKS.items():
            site = world.worldbody.add_site()
            site.name = name + "-vismarker"
            site.pos = [x, y, z]
        ball = world.geom("ball")
        ball.size[0] = F.BALL_RADIUS
        ball.mass = F.BALL_MASS
        # SimSpark's rolling ball slows by its body's drag alone (viscous: a ball rolls about 0.68 s x its initial
        # speed, 1 to 4 m/s measured on rcssserver3d); rcssservermj's rolling friction (a constant deceleration)
        # stopped a 1 m/s ball after 0.30 m instead of 0.68 m. Sliding friction only; the drag is set per degree of
        # freedom of the compiled model (_ball_drag).
        ball.condim = 3
        world.body("ball").pos[2] = F.BALL_RADIUS
        return world

    def _ball_drag(self) -> None:
        """SimSpark's ball drag on the ball's free joint: linear on its three translations, angular on its rotations
        (MuJoCo integrates joint damping implicitly). A recompile resets the model's per-dof values, so after each."""
        model = getattr(self, "_mj_model", None)
        if model is None:
            return
        adr = int(model.joint("ball-root").dofadr[0])
        model.dof_damping[adr:adr + 3] = BALL_LINEAR_DRAG
        model.dof_damping[adr + 3:adr + 6] = BALL_ANGULAR_DRAG

    def _recompile(self) -> None:
        # MjSpec.recompile leaves the controls of newly added actuators (a robot that just joined) uninitialised:
        # seen as stale values (a knee target of 9.81 rad) and as NaN, and rcssservermj's recompile runs mj_forward
        # on them at once: MuJoCo warned "Nan, Inf or huge value in CTRL ... unstable" (and wrote MUJOCO_LOG.TXT into
        # the working directory) at every start. The spec's recompile is wrapped so that new actuators, and any control
        # that is not a finite number, start at 0 (hold the zero pose) before that first mj_forward.
        model = getattr(self, "_mj_model", None)
        old = set() if model is None else {model.actuator(i).name for i in range(model.nu)}
        spec = self._mj_spec
        self._mj_spec = _ZeroNewControls(spec, old)
        try:
            super()._recompile()
        finally:
            self._mj_spec = spec
        self._ball_drag()
        self._hinges, self._servo, self._feet = {}, None, {}    # actuator, joint and geom ids change with the model
        self._pd_actuators = {}
        self._velocity = {e: v for e, v in self._velocity.items() if self._hinge(e) is not None}   # robots that stay

    def _pre_step(self) -> None:
        super()._pre_step()
        ctrl = self._mj_data.ctrl
        bad = ~np.isfinite(ctrl)
        if bad.any():  # a command computed from a NaN must not reset the whole simulation
            ctrl[bad] = 0.0

    def init(self) -> bool:
        if not super().init():
            return False
        self._ball_drag()
        self.ball.init(self._mj_spec, self._mj_model, self._mj_data, radius=F.BALL_RADIUS)
        return True

    def step(self, monitor_commands) -> None:
        """rcssservermj's step (hooks, physics, audio, frame count) with the physics of ``_substeps``."""
        # With no player connected, rcssservermj's as-fast-as-possible loop would spin a core; pace it.
        if self.idle_pacing and not any(True for _ in self.sim_agents):
            time.sleep(self.timestep)
        self._pre_step()
        self._substeps()
        a_step(self._a_data, self._mj_data)
        self._post_step(monitor_commands)
        self._frame_id += 1

    def _post_step(self, monitor_commands) -> None:
        super()._post_step(monitor_commands)    # the referee: GameOver at the end of any half
        state = self.game_state
        if state.phase == GamePhase.FIRST_HALF and state.play_mode == PlayMode.GAME_OVER:
            self.half_time()

    def half_time(self) -> None:
        """SimSpark's half time (SoccerRuleAspect): the second half's BeforeKickOff, the clock at the half's
        start, the ball at rest on the centre spot; the teams keep their sides (SimSpark's ChangeSidesInSecondHalf
        is false)."""
        self.game_state.switch_phase(GamePhase.SECOND_HALF, self.rules.get_start_time_for(GamePhase.SECOND_HALF))
        self.ball.drop_at(0.0, 0.0)
        logger.info("half time: score %d:%d, second half before its kick-off", self.game_state.left_team_score,
                    self.game_state.right_team_score)

    def set_game_time(self, play_time: float) -> None:
        """The game clock at `play_time` s, in the half that time falls in; the play mode stays (SimSpark's trainer
        command (time t), GameStateAspect::SetTime: tests and benchmarks start a game near its half time)."""
        state = self.game_state
        mode = state.play_mode
        half = GamePhase.FIRST_HALF if play_time < self.rules.half_time else GamePhase.SECOND_HALF
        state.switch_phase(half, play_time)
        state.set_play_mode(mode)

    # --- actions -----------------------------------------------------------------------------------

    def beam_agent(self, actuator_name: str, beam_pose: tuple[float, float, float]) -> None:
        """SimSpark's beam (SoccerBase::MoveAndRotateAgent): every body of the robot moved as it stands, at rest; its
        joints keep their angles. rcssservermj's beam also sets every joint to 0: a robot beamed while it walks (at a
        goal) stands up straight in mid-step and falls, and the kick-off after the goal has no kick."""
        agent_id = AgentID.from_prefixed_name(actuator_name)
        player = None
        if agent_id is not None and TeamSide.is_valid(agent_id.team_id):
            player = self.get_players(agent_id.team_id).get(agent_id.player_no)
        if player is None:
            super().beam_agent(actuator_name, beam_pose)
            return
        with keeping_joint_angles(player):   # a refused beam (play on) changed nothing, nor does putting them back
            super().beam_agent(actuator_name, beam_pose)

    def _ignore(self, effector: str) -> None:
        """A command for an actuator the model does not have: ignored, and logged once (for a Nao joint's name, once
        its commands went on for UNKNOWN_GRACE: until then the robot may still be joining)."""
        n = self._unknown_actuators[effector] = self._unknown_actuators.get(effector, 0) + 1
        if n == (UNKNOWN_GRACE if strip_agent_prefix(effector) in BY_EFFECTOR else 1):
            logger.warning("ignoring commands for unknown actuator %s", effector)

    def _hinge(self, effector: str):
        """(vel, pos, tau actuator, qpos adr, dof adr, lo, hi, kp, kd) of ``<prefix><eff>``, or None if unknown."""
        hinge = self._hinges.get(effector)
        if hinge is None:
            model = self._mj_model
            ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, effector + k) for k in ("_vel", "_pos",
                                                                                                 "_tau")]
            joint = BY_EFFECTOR.get(strip_agent_prefix(effector))
            if min(ids) < 0 or joint is None:
                self._ignore(effector)
                return None
            jid = model.actuator_trnid[ids[0], 0]
            lo, hi = model.jnt_range[jid]
            kp, kd = self._gains[joint.name]
            vlo, vhi = model.actuator_ctrlrange[ids[0]]
            hinge = self._hinges[effector] = (*ids, int(model.jnt_qposadr[jid]), int(model.jnt_dofadr[jid]), lo, hi,
                                              kp, kd, float(vlo), float(vhi))
        return hinge

    def villa_hinge_velocity(self, effector: str, velocity: float) -> None:
        """SimSpark's hinge effector for ``<prefix><eff>``: target velocity (rad/s, wire sign); see the docstring."""
        hinge = self._hinge(effector)
        if hinge is None or not math.isfinite(velocity):
            return
        vel, pos, tau, qadr, _, lo, hi, kp, kd, vlo, vhi = hinge
        data = self._mj_data
        if not lo - STOP_TOLERANCE <= data.qpos[qadr] <= hi + STOP_TOLERANCE:
            return                            # SimSpark ignores a joint beyond its stops: it keeps its last velocity
        if effector not in self._velocity:    # into velocity mode: the servo follows a reference from where it is
            model = self._mj_model
            model.actuator_gainprm[pos, 0], model.actuator_biasprm[pos, 1] = kp, -kp
            model.actuator_gainprm[vel, 0], model.actuator_biasprm[vel, 2] = kd, -kd
            data.ctrl[pos], data.ctrl[tau] = data.qpos[qadr], 0.0
            self._servo = None
        v = self._velocity[effector] = min(max(float(velocity), vlo), vhi)
        if self._servo is not None:
            self._servo[3][self._servo[4][effector]] = v

    def ctrl_motor(self, name: str, q: float, dq: float, kp: float, kd: float, tau: float) -> None:
        """rcssservermj's PD command, as its ctrl_motor sets it, through actuator ids looked up once per model (its
        six lookups by name per joint take a fifth of the simulation thread with 22 Naos)."""
        if self._velocity.pop(name, None) is not None:   # rcssservermj's PD command: out of velocity mode
            self._servo = None
        ids = self._pd_actuators.get(name)
        if ids is None:
            model = self._mj_model
            ids = tuple(mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, name + k) for k in ("_tau", "_pos",
                                                                                                  "_vel"))
            if min(ids) < 0:
                self._ignore(name)
                return
            self._pd_actuators[name] = ids
        tau_id, pos, vel = ids
        model, ctrl = self._mj_model, self._mj_data.ctrl
        ctrl[tau_id], ctrl[pos], ctrl[vel] = tau, q, dq
        model.actuator_gainprm[pos, 0], model.actuator_biasprm[pos, 1] = kp, -kp
        model.actuator_gainprm[vel, 0], model.actuator_biasprm[vel, 2] = kd, -kd

    def _servos(self):
        if self._servo is None:
            hinges = [self._hinges[e] for e in self._velocity]
            self._servo = (np.array([h[0] for h in hinges], dtype=int), np.array([h[1] for h in hinges], dtype=int),
                           np.array([h[3] for h in hinges], dtype=int), np.array(list(self._velocity.values())),
                           {e: i for i, e in enumerate(self._velocity)})
        return self._servo

    def _substeps(self) -> None:
        """The physics of one cycle: n substeps; before each, every velocity-mode joint's reference moves on."""
        model, data = self._mj_model, self._mj_data
        if not self._velocity:
            mujoco.mj_step(model, data, self.n_substeps)
            return
        vel, pos, qadr, target, _ = self._servos()
        dt = model.opt.timestep
        data.ctrl[vel] = target
        for _ in range(self.n_substeps):
            q = data.qpos[qadr]
            data.ctrl[pos] = np.clip(data.ctrl[pos] + target * dt, q - REFERENCE_LEAD, q + REFERENCE_LEAD)
            mujoco.mj_step(model, data)

    def villa_say(self, actuator_name: str, message: str) -> None:
        agent_id = AgentID.from_prefixed_name(actuator_name)
        player = None if agent_id is None else self.get_players(agent_id.team_id).get(agent_id.player_no)
        if player is None:
            return
        self._audio.say(self.frame_id, agent_id, player.team_name, (player.xpos[0], player.xpos[1]),
                        self.game_state.play_time, message)

    # --- perceptions -------------------------------------------------------------------------------
    def generate_perceptions(self, *, gen_vision: bool | None = None) -> None:
        self._sensing.generate(self, gen_vision)      # rcssservermj's perceptions, read from MuJoCo's arrays at once
        agents = list(self.sim_agents)
        listeners = {a.agent_id: Listener(a.team_name, "left" if a.agent_id.team_id == TeamSide.LEFT.value
                                          else "right", (float(a.xpos[0]), float(a.xpos[1]))) for a in agents}
        heard = self._audio.deliver(self.frame_id, listeners)
        feet = {a.agent_id.prefix: self._foot_geoms(a) for a in agents}
        contacts = self._foot_contacts({g: n for f in feet.values() for g, n in f.items()})
        for agent in agents:
            extra = list(self._foot_pressure(feet[agent.agent_id.prefix], contacts))
            if heard.get(agent.agent_id):
                extra.append(HearPerception(heard[agent.agent_id]))
            perceptions = list(agent.perceptions)
            if self.vision_noise:
                perceptions = [self._noisy(agent.agent_id, p) if isinstance(p, VisionPerception) else p
                               for p in perceptions]
            agent.set_perceptions(perceptions + extra)

    def _noisy(self, agent_id: AgentID, vision: VisionPerception) -> VisionPerception:
        noise = self._noise.get(agent_id)
        if noise is None:
            noise = self._noise[agent_id] = VisionNoise.draw(self.rng)
        flat: list[ObjectDetection] = []
        for det in vision.obj_detections:
            flat.extend(det.body_detections if isinstance(det, AgentDetection) else [det])
        if not flat:
            return vision
        d, az, el, keep = noise.apply(np.array([o.distance for o in flat]), np.array([o.azimuth for o in flat]),
                                      np.array([o.inclination for o in flat]))
        noisy = {id(o): ObjectDetection(o.name, float(az[i]), float(el[i]), float(d[i]))
                 for i, o in enumerate(flat) if keep[i]}
        out = []
        for det in vision.obj_detections:
            if isinstance(det, AgentDetection):
                parts = [noisy[id(o)] for o in det.body_detections if id(o) in noisy]
                if parts:
                    out.append(AgentDetection(det.name, det.team_name, det.player_no, parts))
            elif id(det) in noisy:
                out.append(noisy[id(det)])
        return VisionPerception(vision.name, out)

    def _foot_geoms(self, agent) -> dict[int, str]:
        """geom id -> FRP perceptor name of the agent's feet (and toes), in FOOT_GEOMS order (per compiled model)."""
        geoms = self._feet.get(agent.agent_id.prefix)
        if geoms is None:
            geoms = {}
            for perceptor, geom in FOOT_GEOMS.items():
                gid = mujoco.mj_name2id(self._mj_model, mujoco.mjtObj.mjOBJ_GEOM, agent.agent_id.prefix + geom)
                if gid >= 0:
                    geoms[gid] = perceptor
            self._feet[agent.agent_id.prefix] = geoms
        return geoms

    def _foot_contacts(self, feet: dict[int, str]) -> dict[int, list]:
        """For every foot geom touching something: [force sum (world), force-weighted point sum, weight], over the
        contacts in MuJoCo's order (one pass for all robots)."""
        model, data = self._mj_model, self._mj_data
        acc: dict[int, list] = {}
        n = data.ncon
        if n == 0 or not feet:
            return acc
        g1, g2 = data.contact.geom1[:n], data.contact.geom2[:n]
        ids = np.fromiter(feet, dtype=int)
        hit = np.flatnonzero(np.isin(g1, ids) | np.isin(g2, ids))
        force6 = np.zeros(6)
        for i in hit.tolist():
            con = data.contact[i]
            if con.geom1 in feet:
                gid, sign = con.geom1, -1.0
            else:
                gid, sign = con.geom2, 1.0
            mujoco.mj_contactForce(model, data, i, force6)
            f_world = sign * (con.frame.reshape(3, 3).T @ force6[:3])
            a = acc.get(gid)
            if a is None:
                a = acc[gid] = [np.zeros(3), np.zeros(3), 0.0]
            a[0] += f_world
            w = max(abs(force6[0]), 1e-9)
            a[1] += w * con.pos
            a[2] += w
        return acc

    def _foot_pressure(self, geoms: dict[int, str], contacts: dict[int, list]):
        """SimSpark's FRP for each of the geoms (one agent's feet and toes) touching something: centre and force in
        the foot frame."""
        data = self._mj_data
        for gid, name in geoms.items():
            a = contacts.get(gid)
            if a is None or a[2] <= 0.0:
                continue
            f_world, wp, w = a
            rot = data.geom_xmat[gid].reshape(3, 3)
            centre = rot.T @ (wp / w - data.geom_xpos[gid])
            f_local = rot.T @ f_world
            # REP-103 foot frame (x forward, y left) -> SimSpark's (x right, y forward)
            yield ForceResistancePerception(name, (-centre[1], centre[0], centre[2]),
                                            (-f_local[1], f_local[0], f_local[2]))

    # --- monitor -----------------------------------------------------------------------------------
    def generate_state_information(self) -> list[SimStateInformation]:
        info = super().generate_state_information()
        info.append(GroundTruth(self.ground_truth_sexp()))
        return info

    def ground_truth_sexp(self) -> str:
        gs = self.game_state
        b, bv = self.ball.xpos, self.ball._qvel
        parts = [f"(GT (t {self.sim_time:.3f})(gt {gs.play_time:.3f})(pm {gs.play_mode.value})"
                 f"(sl {gs.get_team_score(TeamSide.LEFT)})(sr {gs.get_team_score(TeamSide.RIGHT)})"
                 f"(ball {b[0]:.4f} {b[1]:.4f} {b[2]:.4f} {bv[0]:.4f} {bv[1]:.4f} {bv[2]:.4f})"]
        for a in self.sim_agents:
            side = "left" if a.agent_id.team_id == TeamSide.LEFT.value else "right"
            p, q = a.xpos, a.xquat
            parts.append(f"(P {a.team_name} {side} {a.agent_id.player_no} {p[0]:.4f} {p[1]:.4f} {p[2]:.4f} "
                         f"{q[0]:.5f} {q[1]:.5f} {q[2]:.5f} {q[3]:.5f})")
        return "".join(parts) + ")"

