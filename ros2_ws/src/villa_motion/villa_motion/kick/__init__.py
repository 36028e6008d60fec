"""The IK kick engine: UT Austin Villa 2011 report §13.1 (kick choice §13.1.1, kick-off long kick §11.2.1).

A kick is a foot trajectory defined relative to the ball by a few waypoints (position + roll/pitch/yaw of the sole)
read from a kick definition file (``kicks/*.kick``, below). When the robot has shifted its weight onto the support
foot, the ball's position relative to the torso is added to the waypoints (§13.1.2); the positions are interpolated
with a cubic Hermite spline over the normalized kick time, the Euler angles linearly (§13.1.3); villa_nao's analytic
leg IK turns each sample into joint angles for the PD controllers (§13.1.4). Before committing, the IK must reach
more than 90 % of the trajectory's samples, otherwise the kick is refused and the caller approaches again (§13.1.1).

Units: metres, seconds, radians (the seed writes mm). Frames: the robot frame is the torso frame (REP-103: x forward,
y left, z up); ``ball_rel`` is the ball's position on the ground in that frame, projected horizontally (x, y), as
the world model gives it. Waypoints are sole-origin positions relative to the ball's ground contact point, in the
robot frame; roll/pitch/yaw (rad, 'sxyz') of the sole relative to the standing foot. A kick file describes a
left-foot kick; ``<name>_L`` is it, ``<name>_R`` its mirror image (y, roll, yaw and the direction negated).

Kick file (one kick per file, '#' comments; every error names file:line)::

    KICK forward                       # name
    DIRECTION 0                        # rad: where the ball goes, robot frame (left-foot kick)
    BALL 0.17 0.055                    # m: ball position in the robot frame to stand at (the approach target)
    SHIFT 0.5 0.06 0.02                # weight shift: duration s, torso over the support foot m, foot lift m
    DURATION 0.3                       # s: time through the curve
    RETURN 0.5                         # s: back to standing
    WAYPOINT 0.4 -0.15 0.0 0.05 0 0 0  # u (normalized time, increasing in (0, 1]) x y z roll pitch yaw
    WAYPOINT 1.0 0.10 0.0 0.05 0 0 0 TANGENT 0.8 0 0   # optional tangent (m per unit u); else Catmull-Rom

Public API (what the optimizer and the motion node use):

- ``load_kicks(directory) -> dict[str, KickDef]``: every ``*.kick`` file, as ``<name>_L`` / ``<name>_R``;
  ``load_kick_set(set_name, simulator=, robot_type=)``: this package's kicks with a named parameter set applied,
  per simulator and robot type (what node and strategy use); ``load_in_play(set_name, simulator=)``: the kicks the
  strategy may choose in play in that world.
- ``parameter_vector(kick) -> list[Param]`` (name, value, lo, hi) of one kick definition; ``with_parameters(kick,
  {name: value})`` builds the kick from a parameter dict (unknown names raise); ``load_kick_parameters(path, set)``
  reads a named YAML parameter set ``{kick name: {parameter: value}}`` (``config/kick_params.yaml``, like
  ``params.load_parameter_sets`` for the walk) and ``apply_parameter_set(kicks, values)`` applies it.
- ``KickEngine(kick, stand=StandPose(...), robot_type)``: ``start(ball_rel) -> bool`` (False: refused as unreachable,
  ``reason`` says why), then once per 20 ms cycle ``update(dt, sensed_joints) -> {NAOqi joint: target rad}`` until
  ``done``. ``phase`` is shift / kick / return / done (open loop: ``sensed_joints`` is accepted for the caller's
  convenience and not used yet). ``stand_joints(stand)``: the standing targets a kick starts from and ends in.
- ``reachable_fraction(kick, ball_rel, stand)``; ``choose_kick(kicks, me, theta, ball, direction)`` (§13.1.1 cost)
  -> (kick, stand-at xy, face theta, cost); ``approach_pose``; ``kickoff_direction(rng)`` (§11.2.1).

The modules, one concern each: definition (KickDef and the kick file parser), parameters (parameter sets, the kicks in
play, the optimizer's parameter vector), trajectory (the foot's curve and the IK's reach), engine (KickEngine) and
choice (where to stand, which kick, the kick-off's direction). A kick run in the in-process simulation from standing
is villa_optimize.standing_kick's episode (villa_optimize.worlds.InProcessWorld); villa_motion imports no simulator.
"""

from villa_motion.kick.choice import (
    PATH_CLEARANCE,
    approach_pose,
    ball_in_path,
    choose_kick,
    kick_cost,
    kickoff_direction,
)
from villa_motion.kick.definition import (
    STAND_PARAMETER,
    KickDef,
    KickError,
    Waypoint,
    default_kicks_dir,
    load_kick,
    load_kicks,
    parse_kick,
)
from villa_motion.kick.engine import ARMS, LEFT, RIGHT, KickEngine, stand_joints
from villa_motion.kick.parameters import (
    ANGLE_SPAN,
    IN_PLAY_KEY,
    POS_SPAN,
    Param,
    apply_parameter_set,
    load_in_play,
    load_kick_parameters,
    load_kick_set,
    parameter_vector,
    set_chain,
    with_parameters,
)
from villa_motion.kick.trajectory import (
    _REACH_CACHE,
    REACH_CACHE_SIZE,
    REACH_FRACTION,
    REACH_GRID,
    REACH_POS_TOL,
    REACH_ROT_TOL,
    REACH_SAMPLES,
    StandPose,
    Trajectory,
    ball_after_shift,
    leg_angles,
    reachable,
    reachable_fraction,
    shifted_feet,
    trajectory,
)

__all__ = ["ANGLE_SPAN", "ARMS", "IN_PLAY_KEY", "LEFT", "PATH_CLEARANCE", "POS_SPAN", "REACH_CACHE_SIZE",
           "REACH_FRACTION", "REACH_GRID", "REACH_POS_TOL", "REACH_ROT_TOL", "REACH_SAMPLES", "RIGHT",
           "STAND_PARAMETER", "_REACH_CACHE", "KickDef", "KickEngine", "KickError", "Param", "StandPose", "Trajectory",
           "Waypoint", "apply_parameter_set", "approach_pose", "ball_after_shift", "ball_in_path", "choose_kick",
           "default_kicks_dir", "kick_cost", "kickoff_direction", "leg_angles", "load_in_play", "load_kick",
           "load_kick_parameters", "load_kick_set", "load_kicks", "parameter_vector", "parse_kick", "reachable",
           "reachable_fraction", "set_chain", "shifted_feet", "stand_joints", "trajectory", "with_parameters"]
