"""Forward and inverse kinematics and centre of mass of the simulated Nao (all robot types).

UT Austin Villa 2011 report, sections 3 and 10.1: the walk engine places the feet relative to the torso
and "the inverse kinematics routine uses trigonometry to calculate the angles ... if at all possible";
the leg IK is the standard analytic Nao solution (Graf et al., ref. [7] of the report): the target is
expressed in a hip frame rotated by the 45-degree hip yaw-pitch axis.

Conventions: torso frame = REP-103 (x forward, y left, z up), origin at the torso centre; metres and
radians; joint angles are NAOqi angles (villa_nao.joints). Link frames: villa_nao.body.

Foot frame ("sole"): origin on the sole plane straight below the ankle-pitch joint (at zero angles),
axes fixed to the foot: x toward the toes, z up out of the sole. ``leg_fk`` / ``leg_ik`` use it.

Camera frame: the RestrictedVisionPerceptor's pose, x along the view axis, y left, z up. SimSpark puts
that perceptor at the head sphere's centre with the head's axes, so ``head_to_camera`` is the identity
(kept as a function so code that needs it does not assume so).

Unreachable targets: ``leg_ik`` / ``arm_ik`` return joint angles inside the simulated Nao's limits
(``joints.sim_limits``) that minimise the pose error (a local minimum, found by a bounded
Levenberg-Marquardt search started from the clamped analytic solution), with ``reachable=False``.
For the legs the error weighs orientation by ``orientation_weight`` metres per radian.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import numpy as np
from transforms3d.euler import euler2mat
from transforms3d.quaternions import mat2quat

from villa_nao import body, compiled
from villa_nao.joints import LEFT_ARM, LEFT_LEG, NAMES, RIGHT_ARM, RIGHT_LEG, joints_for_type, sim_limits

REACH_TOL = 1e-6           # m (and rad): a target is reachable when the solution meets it this closely
ORIENTATION_WEIGHT = 0.1   # m per rad in the leg IK's nearest-pose error
_FAR = 10.0                # m: targets farther than this from the hip/shoulder are pulled in to this distance
_LIMIT_TOL = 1e-9
_CROUCH = np.array([0.0, 0.0, -0.5, 1.0, -0.5, 0.0])   # a leg posture to start the nearest-pose search from
QUICK_ITERATIONS = 15      # leg_reaches(quick=True): the nearest-pose search's iterations


@dataclass(frozen=True)
class IKResult:
    """Joint angles (NAOqi, the chain's order) and how well they meet the target."""

    angles: np.ndarray
    reachable: bool
    error: float                    # m: position error of FK(angles) vs the target (0 for an exact closed form)
    orientation_error: float = 0.0  # rad: rotation between FK(angles) and the target (legs; 0 for arms)


# ---------------------------------------------------------------------------------------------------
# rotations


def _skews(axes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cross-product matrices K of unit ``axes`` (n, 3) and K @ K, for R = I + sin(q) K + (1 - cos(q)) K^2."""
    x, y, z = axes[:, 0], axes[:, 1], axes[:, 2]
    zero = np.zeros_like(x)
    k = np.stack([np.stack([zero, -z, y], -1), np.stack([z, zero, -x], -1), np.stack([-y, x, zero], -1)], -2)
    return k, k @ k


_EYE3 = np.eye(3)


def _local_transforms(k: np.ndarray, k2: np.ndarray, pa: np.ndarray, anchor: np.ndarray,
                      angles: np.ndarray) -> np.ndarray:
    """4x4 child-in-parent transforms (..., n, 4, 4) of hinges rotating about ``anchor`` (Rodrigues, vectorised)."""
    s, c = np.sin(angles)[..., None, None], np.cos(angles)[..., None, None]
    t = np.zeros((*angles.shape, 4, 4))
    r = _EYE3 + s * k + (1.0 - c) * k2
    t[..., :3, :3] = r
    t[..., :3, 3] = pa - (r @ anchor[..., None])[..., 0]
    t[..., 3, 3] = 1.0
    return t


def _skew_rotation_vector(vx: float, vy: float, vz: float, cos: float) -> tuple[float, float, float] | None:
    """Axis * angle of a rotation from its skew part (r[2,1] - r[1,2], r[0,2] - r[2,0], r[1,0] - r[0,1]) and the
    cosine of its angle; None near pi (cos <= -0.9), where the skew part no longer gives the axis accurately."""
    if not cos > -0.9:
        return None
    sin2 = math.sqrt(vx * vx + vy * vy + vz * vz)  # 2 sin(angle)
    k = 0.5 if sin2 < 1e-12 else math.atan2(0.5 * sin2, cos) / sin2
    return vx * k, vy * k, vz * k


def _rotation_vector(r: np.ndarray) -> np.ndarray:
    """Axis * angle of a rotation matrix: from its skew part, or transforms3d's quaternion near pi."""
    v = _skew_rotation_vector(float(r[2, 1] - r[1, 2]), float(r[0, 2] - r[2, 0]), float(r[1, 0] - r[0, 1]),
                              float(r[0, 0] + r[1, 1] + r[2, 2] - 1.0) * 0.5)
    if v is not None:
        return np.array(v)
    w, x, y, z = mat2quat(r)
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    n = math.sqrt(x * x + y * y + z * z)
    return np.array([x, y, z]) * (2.0 * math.atan2(n, w) / n)


_VEE_A, _VEE_B = (slice(None), [2, 0, 1], [1, 2, 0]), (slice(None), [1, 2, 0], [2, 0, 1])


def _rotation_vectors(r: np.ndarray) -> np.ndarray:
    """``_rotation_vector`` for a stack of rotations (S, 3, 3) -> (S, 3)."""
    vee = r[_VEE_A] - r[_VEE_B]
    cos = (np.trace(r, axis1=1, axis2=2) - 1.0) * 0.5
    sin2 = np.sqrt((vee * vee).sum(axis=1))
    scale = np.arctan2(0.5 * sin2, cos) / np.maximum(sin2, 1e-300)
    scale[sin2 < 1e-12] = 0.5
    out = vee * scale[:, None]
    if (cos <= -0.9).any():
        for i in np.flatnonzero(cos <= -0.9):
            out[i] = _rotation_vector(r[i])
    return out


def _rotation_angle(r: np.ndarray) -> float:
    """Angle (rad) of a rotation matrix, accurate at small and large angles."""
    sin2 = math.hypot(r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1])
    return math.atan2(0.5 * sin2, (r[0, 0] + r[1, 1] + r[2, 2] - 1.0) * 0.5)


def _rotation_angles(r: np.ndarray) -> np.ndarray:
    """``_rotation_angle`` for a stack of rotations (S, 3, 3) -> (S,), the same formula."""
    sin2 = np.sqrt((r[:, 2, 1] - r[:, 1, 2]) ** 2 + (r[:, 0, 2] - r[:, 2, 0]) ** 2 + (r[:, 1, 0] - r[:, 0, 1]) ** 2)
    return np.arctan2(0.5 * sin2, (np.trace(r, axis1=1, axis2=2) - 1.0) * 0.5)


def _det3(m: np.ndarray) -> float:
    (a, b, c), (d, e, f), (g, h, i) = m.tolist()
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def _nearest_rotation(m: np.ndarray) -> np.ndarray:
    """The rotation nearest to a finite 3x3 matrix (Frobenius norm); identity for a zero matrix."""
    scale = float(np.abs(m).max())
    u, _, vt = np.linalg.svd(m / scale if scale > 0.0 else m)
    d = np.sign(np.linalg.det(u @ vt)) or 1.0
    return u @ np.diag([1.0, 1.0, d]) @ vt


def _wrap(a):
    return (np.asarray(a, dtype=float) + np.pi) % (2 * np.pi) - np.pi


def _norm(v) -> float:
    return min(math.hypot(*v.tolist()), 1.7976931348623157e308)


# ---------------------------------------------------------------------------------------------------
# the link tree


@dataclass(frozen=True)
class _Tree:
    names: tuple[str, ...]
    parent: np.ndarray      # (n,) int, -1 for the torso
    jidx: np.ndarray        # (n,) int index into the type's joint vector, -1 for a fixed link
    pa: np.ndarray          # (n, 3) origin + anchor (parent frame)
    anchor: np.ndarray      # (n, 3)
    k: np.ndarray           # (n, 3, 3) skew of the joint axis (zero for fixed links)
    k2: np.ndarray
    mass: np.ndarray        # (n,)
    axis: np.ndarray        # (n, 3) the joint axis (zero for fixed links)
    levels: tuple[np.ndarray, ...]   # link indices by depth below the torso
    joint_names: tuple[str, ...]


@cache
def _tree(robot_type: int) -> _Tree:
    lks = body.links(robot_type)
    names = tuple(lk.name for lk in lks)
    jnames = tuple(j.name for j in joints_for_type(robot_type))
    jpos = {n: i for i, n in enumerate(jnames)}
    parent = np.array([names.index(lk.parent) if lk.parent else -1 for lk in lks])
    depth = np.zeros(len(lks), dtype=int)
    for i in range(1, len(lks)):
        depth[i] = depth[parent[i]] + 1
    axis = np.array([lk.axis for lk in lks], dtype=float)
    k, k2 = _skews(axis)
    anchor = np.array([lk.anchor for lk in lks], dtype=float)
    assert all(parent[i] < i for i in range(len(lks))), "a link's parent must come before it"   # compiled's order
    return _Tree(names, parent.astype(np.int64),
                 np.array([jpos[lk.joint] if lk.joint else -1 for lk in lks], dtype=np.int64),
                 np.array([lk.pos for lk in lks]) + anchor, anchor, k, k2,
                 np.array([lk.mass for lk in lks], dtype=float), axis,
                 tuple(np.flatnonzero(depth == d) for d in range(1, depth.max() + 1)), jnames)


def joint_names(robot_type: int = 0) -> tuple[str, ...]:
    """The NAOqi joint names of a robot type: ``joints.NAMES`` plus, for type 4, RToePitch and LToePitch."""
    return _tree(robot_type).joint_names


def _joint_vector(q, robot_type: int) -> np.ndarray:
    names = _tree(robot_type).joint_names
    out = np.zeros(len(names))
    if isinstance(q, Mapping):
        idx = {n: i for i, n in enumerate(names)}
        for name, value in q.items():
            if name not in idx:
                raise ValueError(f"unknown joint {name!r} for robot type {robot_type}")
            out[idx[name]] = float(value)
    else:
        arr = np.asarray(q, dtype=float).ravel()
        if arr.size not in (len(NAMES), len(names)):
            raise ValueError(f"expected {len(NAMES)} or {len(names)} joint angles (joints.NAMES order), got {arr.size}")
        out[: arr.size] = arr
    if not np.all(np.isfinite(out)):
        raise ValueError("joint angles must be finite")
    return out


def _fk_arrays(qv: np.ndarray, robot_type: int) -> np.ndarray:
    """World (torso-frame) 4x4 transforms (..., n, 4, 4) of every link for joint vectors qv (..., n_joints), composed
    level by level."""
    t = _tree(robot_type)
    loc = _local_transforms(t.k, t.k2, t.pa, t.anchor, np.where(t.jidx >= 0, qv[..., t.jidx], 0.0))
    out = loc.copy()
    for idx in t.levels:
        out[..., idx, :, :] = out[..., t.parent[idx], :, :] @ loc[..., idx, :, :]
    return out


def _homogeneous(r: np.ndarray, p: np.ndarray) -> np.ndarray:
    shape = np.broadcast_shapes(r.shape[:-2], p.shape[:-1])
    t = np.zeros((*shape, 4, 4))
    t[..., :3, :3] = r
    t[..., :3, 3] = p
    t[..., 3, 3] = 1.0
    return t


def forward_kinematics(q, robot_type: int = 0) -> dict[str, np.ndarray]:
    """4x4 pose of every link in the torso frame.

    ``q``: dict NAOqi name -> rad, or an array in ``joints.NAMES`` order (length 22, or 24 with the
    type-4 toes RToePitch, LToePitch appended); missing joints are 0. Links: body.links(robot_type).
    """
    tf = _fk_arrays(_joint_vector(q, robot_type), robot_type)
    return {name: tf[i] for i, name in enumerate(_tree(robot_type).names)}


def center_of_mass(q, robot_type: int = 0) -> np.ndarray:
    """Centre of mass (3,) in the torso frame, from the SimSpark link masses."""
    return centers_of_mass(_joint_vector(q, robot_type)[None], robot_type)[0]


def joint_vector(q: Mapping[str, float], robot_type: int = 0) -> np.ndarray:
    """A joint vector (``joint_names(robot_type)`` order, missing joints 0) from a dict NAOqi name -> rad; names the
    robot type lacks are ignored. Unchecked (finite values expected): the per-cycle form for ``centers_of_mass``."""
    return np.array([q.get(n, 0.0) for n in _tree(robot_type).joint_names], dtype=float)


def centers_of_mass(qv: np.ndarray, robot_type: int = 0) -> np.ndarray:
    """Centres of mass (S, 3) in the torso frame for a stack of joint vectors (S, n_joints; ``joint_names`` order):
    one pass for several postures (the walk's commanded and sensed ones each cycle)."""
    t = _tree(robot_type)
    return compiled.centers_of_mass(t.parent, t.jidx, t.pa, t.anchor, t.axis, t.mass,
                                    np.ascontiguousarray(qv, dtype=float))


# ---------------------------------------------------------------------------------------------------
# serial chains from the torso


@dataclass(frozen=True)
class _Chain:
    pa: np.ndarray        # (k, 3) per link from the torso's child to the end frame: origin + anchor
    anchor: np.ndarray    # (k, 3)
    axis: np.ndarray      # (k, 3) zero for fixed links
    k: np.ndarray         # (k, 3, 3) axis skews
    k2: np.ndarray
    jmask: np.ndarray     # (k,) bool: link has a joint
    joints: tuple[str, ...]
    links: np.ndarray     # (k, 9) per link pa, anchor, axis (C order, for the compiled search: villa_nao.compiled)


@cache
def _chain(robot_type: int, end: str) -> _Chain:
    lm = body.link_map(robot_type)
    path = []
    name = end
    while lm[name].parent is not None:
        path.append(lm[name])
        name = lm[name].parent
    path.reverse()
    axis = np.array([lk.axis for lk in path])
    anchor = np.array([lk.anchor for lk in path])
    pa = np.array([lk.pos for lk in path]) + anchor
    links = np.ascontiguousarray(np.concatenate([pa, anchor, axis], axis=1), dtype=float)
    return _Chain(pa, anchor, axis, *_skews(axis), np.array([lk.joint is not None for lk in path]),
                  tuple(lk.joint for lk in path if lk.joint), links)


def _chain_locals(ch: _Chain, angles: np.ndarray) -> np.ndarray:
    full = np.zeros((*angles.shape[:-1], len(ch.jmask)))
    full[..., ch.jmask] = angles
    return _local_transforms(ch.k, ch.k2, ch.pa, ch.anchor, full)


def _chain_fk(ch: _Chain, angles) -> np.ndarray:
    """End pose (..., 4, 4) of a chain for joint angles (..., n_joints)."""
    loc = _chain_locals(ch, np.asarray(angles, dtype=float))
    t = loc[..., 0, :, :]
    for i in range(1, loc.shape[-3]):
        t = t @ loc[..., i, :, :]
    return t


def _chain_jacobians(ch: _Chain, angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """End poses (S, 4, 4) and geometric Jacobians (S, 6, n_joints: linear rows, then angular rows)."""
    loc = _chain_locals(ch, angles)
    cum = np.empty_like(loc)  # cum[:, i]: the frame link i hangs from
    cum[:, 0] = np.eye(4)
    for i in range(1, loc.shape[1]):
        cum[:, i] = cum[:, i - 1] @ loc[:, i - 1]
    end = cum[:, -1] @ loc[:, -1]
    par = cum[:, ch.jmask]
    # the axis is fixed in both the parent and the child frame; the anchor sits in the child frame
    w = (par[..., :3, :3] @ ch.axis[ch.jmask][:, :, None])[..., 0]
    points = (par[..., :3, :3] @ ch.pa[ch.jmask][:, :, None])[..., 0] + par[..., :3, 3]
    v = end[:, None, :3, 3] - points
    jac = np.empty((len(end), 6, w.shape[1]))
    jac[:, 0] = w[..., 1] * v[..., 2] - w[..., 2] * v[..., 1]   # w x v
    jac[:, 1] = w[..., 2] * v[..., 0] - w[..., 0] * v[..., 2]
    jac[:, 2] = w[..., 0] * v[..., 1] - w[..., 1] * v[..., 0]
    jac[:, 3:] = w.transpose(0, 2, 1)
    return end, jac


# ---------------------------------------------------------------------------------------------------
# bounded least squares (the "nearest reachable" fallback)


def _bounded_lm(residual_jac, q0: np.ndarray, lo: np.ndarray, hi: np.ndarray, iters: int = 40):
    """Minimise |r(q)|^2 over lo <= q <= hi from several starts q0 (S, n) at once (vectorised), by the rules of the
    compiled single-target search (villa_nao.compiled's LM_ constants).

    Levenberg-Marquardt with an active set on the bounds: a joint at a bound whose gradient points
    outward is held. ``residual_jac(q (S, n)) -> (r (S, m), J (S, m, n))`` with J = d(FK)/dq and
    r = target - FK. Returns the final angles (S, n) and costs (S,).
    """
    q = np.clip(q0, lo, hi)
    r, jac = residual_jac(q)
    cost = np.einsum("sm,sm->s", r, r)
    n = q.shape[1]
    lam = np.full(len(q), compiled.LM_LAMBDA0)
    active = np.ones(len(q), dtype=bool)
    eye = np.eye(n)
    for _ in range(iters):
        g = np.einsum("smn,sm->sn", jac, r)
        blocked = ((q <= lo + compiled.LM_AT_BOUND) & (g < 0)) | ((q >= hi - compiled.LM_AT_BOUND) & (g > 0))
        active &= ~blocked.all(axis=1)
        if not active.any():
            break
        jf = jac * ~blocked[:, None, :]
        h = jf.transpose(0, 2, 1) @ jf
        diag = np.einsum("snn->sn", h)
        a = h + (lam[:, None] * (diag + 1e-12) + blocked)[:, :, None] * eye
        step = np.linalg.solve(a, np.einsum("smn,sm->sn", jf, r)[..., None])[..., 0]
        qn = np.clip(q + step * active[:, None], lo, hi)
        rn, jn = residual_jac(qn)
        cn = np.einsum("sm,sm->s", rn, rn)
        better = active & (cn < cost)
        done = better & ((cost - cn <= compiled.LM_ABS_GAIN + compiled.LM_REL_GAIN * cost)
                         | (np.abs(qn - q).max(axis=1) < compiled.LM_MIN_STEP))
        q[better], r[better], jac[better], cost[better] = qn[better], rn[better], jn[better], cn[better]
        lam = np.where(better, np.maximum(lam / compiled.LM_DOWN, compiled.LM_LAMBDA_MIN), lam * compiled.LM_UP)
        active &= ~done & (lam <= compiled.LM_LAMBDA_MAX)
    return q, cost


# ---------------------------------------------------------------------------------------------------
# legs


def _side(side: str) -> str:
    s = str(side).upper()
    if s not in ("L", "R"):
        raise ValueError(f"side must be 'L' or 'R', got {side!r}")
    return s


@dataclass(frozen=True)
class _LegGeometry:
    chain: _Chain
    hip: np.ndarray        # hip joint centre in the torso frame (all three hip axes meet here)
    t: np.ndarray          # hip -> knee at zero angles
    s: np.ndarray          # knee -> ankle-pitch axis
    d: np.ndarray          # ankle-pitch axis -> ankle-roll axis (straight down)
    e: np.ndarray          # ankle-roll axis -> sole origin (straight down)
    rho: float
    beta: float
    t2s2: float
    theta: float           # hip frame: Rx(theta) @ z = sigma * yaw-pitch axis
    sigma: float
    m_t: np.ndarray        # Rx(theta).T
    lo: np.ndarray
    hi: np.ndarray
    reach: float           # farthest hip-to-ankle distance
    planar: tuple[float, ...]   # (t_x, t_z, s_x, s_z, d_x, d_z)
    lo_list: tuple[float, ...]
    hi_list: tuple[float, ...]
    hip_list: tuple[float, ...] = ()
    e_list: tuple[float, ...] = ()
    m_t_list: tuple[tuple[float, ...], ...] = ()


@cache
def _leg(robot_type: int, side: str) -> _LegGeometry:
    s = side.lower()
    lm = body.link_map(robot_type)
    z = body.zero_pose_positions(robot_type)
    hip = z[f"{s}hip1"] + np.asarray(lm[f"{s}hip1"].anchor)
    knee = z[f"{s}shank"] + np.asarray(lm[f"{s}shank"].anchor)
    ankle = z[f"{s}ankle"] + np.asarray(lm[f"{s}ankle"].anchor)
    roll_point = z[f"{s}foot"] + np.asarray(lm[f"{s}foot"].anchor)
    roll = np.array([ankle[0], ankle[1], roll_point[2]])  # the roll axis runs along x: any point on it
    sole = z[f"{s}sole"]
    # The closed form below needs the SimSpark geometry: check it instead of assuming it.
    for a, b in ((z[f"{s}hip2"] + lm[f"{s}hip2"].anchor, hip), (z[f"{s}thigh"] + lm[f"{s}thigh"].anchor, hip)):
        assert np.allclose(a, b), "hip axes must meet in one point"
    assert np.allclose(lm[f"{s}hip2"].axis, (1, 0, 0)) and np.allclose(lm[f"{s}foot"].axis, (1, 0, 0))
    for n in ("thigh", "shank", "ankle"):
        assert np.allclose(lm[f"{s}{n}"].axis, (0, 1, 0))
    assert abs(roll_point[1] - ankle[1]) < 1e-12 and abs(sole[0] - ankle[0]) < 1e-12
    t, sv, d, e = knee - hip, ankle - knee, roll - ankle, sole - roll
    assert max(abs(t[1]), abs(sv[1]), abs(sole[1] - ankle[1])) < 1e-12
    a = np.asarray(lm[f"{s}hip1"].axis)
    assert abs(a[0]) < 1e-12
    sigma = 1.0 if a[2] > 0 else -1.0
    theta = math.atan2(-sigma * a[1], sigma * a[2])
    rho = float(np.linalg.norm(t) * np.linalg.norm(sv))
    beta = math.atan2(sv[2] * t[0] - sv[0] * t[2], sv[0] * t[0] + sv[2] * t[2])
    lo, hi = sim_limits(LEFT_LEG if side == "L" else RIGHT_LEG)
    return _LegGeometry(_chain(robot_type, f"{s}sole"), hip, t, sv, d, e, rho, beta,
                        float(t @ t + sv @ sv), theta, sigma, euler2mat(theta, 0, 0, "sxyz").T, lo, hi,
                        float(np.linalg.norm(t) + np.linalg.norm(sv)), (t[0], t[2], sv[0], sv[2], d[0], d[2]),
                        tuple(lo.tolist()), tuple(hi.tolist()), tuple(hip.tolist()), tuple(e.tolist()),
                        tuple(tuple(r) for r in euler2mat(theta, 0, 0, "sxyz").T.tolist()))


def leg_fk(side: str, angles, robot_type: int = 0) -> np.ndarray:
    """Sole pose (4x4) in the torso frame; ``angles`` (..., 6) in LEFT_LEG / RIGHT_LEG order, batched."""
    g = _leg(robot_type, _side(side))
    angles = np.asarray(angles, dtype=float)
    if angles.shape[-1:] != (6,):
        raise ValueError(f"expected 6 leg angles (HipYawPitch .. AnkleRoll), got shape {angles.shape}")
    return _chain_fk(g.chain, angles)


def _leg_analytic(g: _LegGeometry, rt: np.ndarray, pt: np.ndarray) -> tuple[np.ndarray, bool]:
    """Closed-form leg angles for a sole pose; ok=False when a length or a joint limit does not allow it.

    Two branches: the ankle roll turns the hip into the ankle's pitch plane either above the ankle
    (usual) or below it (foot tilted past the hip); the knee's other branch and the hip's other Euler
    branch are outside the joint limits. Scalar arithmetic on floats (the walk solves two legs every cycle);
    ``_leg_analytic_batch`` is the same for a stack of poses.
    """
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = rt.tolist()
    px, py, pz = pt.tolist()
    ex, ey, ez = g.e_list
    wx = g.hip_list[0] - px + r00 * ex + r01 * ey + r02 * ez
    wy = g.hip_list[1] - py + r10 * ex + r11 * ey + r12 * ez
    wz = g.hip_list[2] - pz + r20 * ex + r21 * ey + r22 * ez
    vx = r00 * wx + r10 * wy + r20 * wz                             # hip seen from the ankle-roll axis, foot frame
    vy = r01 * wx + r11 * wy + r21 * wz
    vz = r02 * wx + r12 * wy + r22 * wz
    tx, tz, sx, sz, dx, dz = g.planar
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = g.m_t_list
    # m_t @ rt, the part of the hip's rotation that does not depend on the branch
    # (rows 0 and 1 need only their columns 1 and 2: the Euler angles below read m[0][1], m[1][1] and row 2)
    a01, a02 = m00 * r01 + m01 * r11 + m02 * r21, m00 * r02 + m01 * r12 + m02 * r22
    a11, a12 = m10 * r01 + m11 * r11 + m12 * r21, m10 * r02 + m11 * r12 + m12 * r22
    a20 = m20 * r00 + m21 * r10 + m22 * r20
    a21 = m20 * r01 + m21 * r11 + m22 * r21
    a22 = m20 * r02 + m21 * r12 + m22 * r22
    best, best_violation = None, math.inf
    two_pi = 2 * math.pi
    for flip in (1.0, -1.0):
        q6 = math.atan2(flip * vy, flip * vz)                        # ankle roll
        ux, uz = vx + dx, flip * math.hypot(vy, vz) + dz             # hip from the ankle-pitch axis
        c = (ux * ux + uz * uz - g.t2s2) / (2.0 * g.rho)
        q4 = g.beta + math.acos(min(1.0, max(-1.0, c)))              # knee: law of cosines, bent forward
        ck, sk = math.cos(q4), math.sin(q4)
        q5 = math.atan2(-(ck * tx - sk * tz + sx), -(sk * tx + ck * tz + sz)) - math.atan2(ux, uz)  # ankle pitch
        # the thigh's rotation rt @ Rx(-q6) @ Ry(-(q4 + q5)), in the yaw-pitch-aligned hip frame (m_t @ ...): its
        # Euler angles Rz(a) Rx(b) Ry(cc) are the hip's yaw-pitch, roll and pitch
        ca, sa, cb, sb = math.cos(q6), -math.sin(q6), math.cos(q4 + q5), -math.sin(q4 + q5)
        # Rx(-q6) @ Ry(-(q4 + q5)) = [[cb, 0, sb], [sa sb, ca, -sa cb], [-ca sb, sa, ca cb]]; columns 0, 1, 2 of m
        m_01 = a01 * ca + a02 * sa
        m_11 = a11 * ca + a12 * sa
        m_21 = a21 * ca + a22 * sa
        m_20 = a20 * cb + a21 * sa * sb - a22 * ca * sb
        m_22 = a20 * sb - a21 * sa * cb + a22 * ca * cb
        a = math.atan2(-m_01, m_11)
        b = math.atan2(m_21, math.hypot(m_20, m_22))
        cc = math.atan2(-m_20, m_22)
        q = [g.sigma * a, b + g.theta, cc, q4, q5, q6]
        q = [math.remainder(x, two_pi) for x in q]
        violation = sum(max(lo - x, 0.0) + max(x - hi, 0.0) for x, lo, hi in zip(q, g.lo_list, g.hi_list, strict=True))
        violation += max(abs(c) - 1.0, 0.0)
        if violation < best_violation:
            best, best_violation = q, violation
        if violation <= _LIMIT_TOL:
            break
    return np.clip(best, g.lo, g.hi), best_violation <= _LIMIT_TOL


def _leg_analytic_batch(g: _LegGeometry, rt: np.ndarray, pt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``_leg_analytic`` for a stack of sole poses at once (rt (N, 3, 3) rotations, pt (N, 3)): the same branch
    choice (the usual one unless it violates a limit and the other violates less), (N, 6) clipped and (N,) ok."""
    v = np.einsum("nji,nj->ni", rt, g.hip - pt + rt @ g.e)                # hip from the ankle-roll axis, foot frame
    vx, vy, vz = v[:, 0], v[:, 1], v[:, 2]
    tx, tz, sx, sz, dx, dz = g.planar
    qs, viols = [], []
    for flip in (1.0, -1.0):
        q6 = np.arctan2(flip * vy, flip * vz)
        ux, uz = vx + dx, flip * np.hypot(vy, vz) + dz
        c = (ux * ux + uz * uz - g.t2s2) / (2.0 * g.rho)
        q4 = g.beta + np.arccos(np.clip(c, -1.0, 1.0))
        ck, sk = np.cos(q4), np.sin(q4)
        q5 = np.arctan2(-(ck * tx - sk * tz + sx), -(sk * tx + ck * tz + sz)) - np.arctan2(ux, uz)
        # euler2mat(-q6, -(q4 + q5), 0, "rxyz") = Rx(-q6) @ Ry(-(q4 + q5)); then mat2euler(m_t @ r_thigh, "rzxy")
        ca, sa, cb, sb = np.cos(-q6), np.sin(-q6), np.cos(-(q4 + q5)), np.sin(-(q4 + q5))
        zero = np.zeros_like(ca)
        rxy = np.stack([np.stack([cb, zero, sb], -1), np.stack([sa * sb, ca, -sa * cb], -1),
                        np.stack([-ca * sb, sa, ca * cb], -1)], -2)
        m = g.m_t @ rt @ rxy
        a = np.arctan2(-m[:, 0, 1], m[:, 1, 1])                              # m = Rz(a) Rx(b) Ry(cc)
        b = np.arctan2(m[:, 2, 1], np.hypot(m[:, 2, 0], m[:, 2, 2]))
        cc = np.arctan2(-m[:, 2, 0], m[:, 2, 2])
        q = np.remainder(np.stack([g.sigma * a, b + g.theta, cc, q4, q5, q6], -1) + np.pi, 2 * np.pi) - np.pi
        viol = (np.maximum(g.lo - q, 0.0) + np.maximum(q - g.hi, 0.0)).sum(-1) + np.maximum(np.abs(c) - 1.0, 0.0)
        qs.append(q)
        viols.append(viol)
    other = (viols[0] > _LIMIT_TOL) & (viols[1] < viols[0])
    q = np.where(other[:, None], qs[1], qs[0])
    return np.clip(q, g.lo, g.hi), np.where(other, viols[1], viols[0]) <= _LIMIT_TOL


def leg_closed_form_reaches(side: str, targets, robot_type: int = 0, pos_tol: float = REACH_TOL,
                            rot_tol: float = REACH_TOL) -> np.ndarray:
    """For a stack of sole poses (N, 4, 4; torso frame, proper rotations): whether ``leg_ik``'s closed form, clamped
    to the joint limits, places the sole within ``pos_tol`` (m) and ``rot_tol`` (rad) -- in one vectorised pass,
    about 40 times faster than ``leg_ik`` per pose. True means ``leg_ik`` calls it reachable too; False may still be
    reachable by ``leg_ik``'s nearest-pose search (ask it for those)."""
    return _closed_form_pass(_leg(robot_type, _side(side)), targets, pos_tol, rot_tol)[0]


def _closed_form_pass(g: _LegGeometry, targets, pos_tol: float, rot_tol: float):
    """leg_ik's first stage for a stack of poses: (reached (N,), rotations, positions pulled in to _FAR, the true
    positions, the clamped closed-form angles)."""
    tm = np.asarray(targets, dtype=float)
    if tm.ndim != 3 or tm.shape[1:] != (4, 4):
        raise ValueError(f"targets must be a stack of 4x4 poses, got shape {tm.shape}")
    rt, pt_true = tm[:, :3, :3], tm[:, :3, 3]
    off = pt_true - g.hip
    dist = np.linalg.norm(off, axis=1)
    pt = np.where((dist > _FAR)[:, None], g.hip + off / np.maximum(dist, 1e-300)[:, None] * _FAR, pt_true)
    q, ok = _leg_analytic_batch(g, rt, pt)
    # leg_ik accepts the closed form when it met the limits, or at any tolerance looser than its own
    accepted = ok | (pos_tol > REACH_TOL) | (rot_tol > REACH_TOL)
    return accepted & _within(g, q, rt, pt_true, pos_tol, rot_tol), rt, pt, pt_true, q


def _within(g: _LegGeometry, q: np.ndarray, rt: np.ndarray, pt: np.ndarray, pos_tol: float,
            rot_tol: float) -> np.ndarray:
    """Whether leg angles q (N, 6) place the sole within the tolerances of the poses (rt, pt): ``_pose_errors``
    batched."""
    t = _chain_fk(g.chain, q)
    oerr = _rotation_angles(rt @ t[:, :3, :3].transpose(0, 2, 1))
    return (np.linalg.norm(t[:, :3, 3] - pt, axis=1) < pos_tol) & (oerr < rot_tol)


def _pose_errors(g: _LegGeometry, q: np.ndarray, rt: np.ndarray, pt: np.ndarray) -> tuple[float, float]:
    t = _chain_fk(g.chain, q)
    return _norm(t[:3, 3] - pt), _rotation_angle(rt @ t[:3, :3].T)


def _leg_residual(g: _LegGeometry, rt: np.ndarray, pt: np.ndarray, w: float):
    """The nearest-pose search's residual_jac toward one sole pose (rt (3, 3), pt (3,)) or one per start (rt (S, 3, 3),
    pt (S, 3)): position error and `w` times the rotation error, with their Jacobian."""
    def residual_jac(qq):
        t, jac = _chain_jacobians(g.chain, qq)
        res = np.concatenate([pt - t[:, :3, 3], w * _rotation_vectors(rt @ t[:, :3, :3].transpose(0, 2, 1))], axis=1)
        jac[:, 3:] *= w
        return res, jac
    return residual_jac


def leg_ik(side: str, target, robot_type: int = 0, orientation_weight: float = ORIENTATION_WEIGHT,
           pos_tol: float = REACH_TOL, rot_tol: float = REACH_TOL, start=None) -> IKResult:
    """Leg angles (LEFT_LEG / RIGHT_LEG order) placing the sole frame at ``target`` (4x4, torso frame).

    Analytic; an unreachable target (too far, too close, or beyond a joint limit) gets the joint angles
    within ``joints.sim_limits`` minimising |dp|^2 + (orientation_weight * |rotation error|)^2, and
    ``reachable=False``. The rotation part of ``target`` is projected onto the nearest rotation.
    ``reachable`` means within ``pos_tol`` (m) and ``rot_tol`` (rad); a caller content with looser tolerances
    (the kick's reachability check) also gets the closed-form answer clamped to the limits without the search
    whenever it is within them.

    ``start`` (6 angles, e.g. the previous cycle's answer for a target moving smoothly) replaces the fixed
    starting postures of the nearest-pose search: it then starts from the clamped closed form and ``start``
    only, about three times faster, and stays on the branch the motion is on.
    """
    g = _leg(robot_type, _side(side))
    tm = np.asarray(target, dtype=float)
    if tm.shape != (4, 4):
        raise ValueError(f"target must be a 4x4 pose, got shape {tm.shape}")
    if not np.all(np.isfinite(tm)):
        raise ValueError("target must be finite")
    if not (math.isfinite(orientation_weight) and orientation_weight >= 0.0):
        raise ValueError(f"orientation_weight must be finite and >= 0, got {orientation_weight!r}")
    if start is not None:
        start = np.asarray(start, dtype=float)
        if start.shape != (6,) or not np.all(np.isfinite(start)):
            raise ValueError(f"start must be 6 finite leg angles, got {start!r}")
    rt, pt_true = tm[:3, :3], tm[:3, 3]
    with np.errstate(over="ignore", invalid="ignore"):  # huge entries: not a rotation, projected below
        not_rotation = not np.abs(rt.T @ rt - _EYE3).max() <= 1e-9 or _det3(rt) < 0.0
    if not_rotation:
        rt = _nearest_rotation(rt)
    pt = pt_true
    dist = _norm(pt - g.hip)
    if dist > _FAR:  # keep the arithmetic finite; the nearest pose toward a far target does not change
        pt = g.hip + (pt - g.hip) / dist * _FAR
    q, ok = _leg_analytic(g, rt, pt)
    if ok and pt is pt_true:
        return IKResult(q, True, 0.0, 0.0)          # the closed form within the limits is exact (to ~1e-15)
    if ok or pos_tol > REACH_TOL or rot_tol > REACH_TOL:
        perr, oerr = _pose_errors(g, q, rt, pt_true)
        if perr < pos_tol and oerr < rot_tol:
            return IKResult(q, True, perr, oerr)

    # Starts: the clamped analytic solution, and the caller's start or else the analytic solution for the
    # target pulled in to within reach and three fixed postures (straight, crouched, mid-range).
    if start is not None:
        starts = (q, start)
    else:
        ankle_dist = _norm(pt + rt @ (-g.e - g.d) - g.hip)
        pin = g.hip + (pt - g.hip) * min(1.0, 0.98 * g.reach / max(ankle_dist, 1e-9))
        starts = (q, _leg_analytic(g, rt, pin)[0], np.zeros(6), _CROUCH, 0.5 * (g.lo + g.hi))
    best = compiled.nearest(g.chain.links, g.chain.jmask, np.ascontiguousarray(rt, dtype=float),
                              np.ascontiguousarray(pt, dtype=float), float(orientation_weight),
                              np.array(starts, dtype=float), g.lo, g.hi)
    perr, oerr = _pose_errors(g, best, rt, pt_true)
    return IKResult(best, perr < pos_tol and oerr < rot_tol, perr, oerr)


def leg_angles(side: str, target: np.ndarray, robot_type: int = 0, start=None) -> IKResult:
    """``leg_ik`` for a proper sole pose computed every cycle (the walk's): the closed form straight away when it is
    within the joint limits (exact), else ``leg_ik`` with ``start``. The target must be a finite 4x4 pose with a
    rotation (as ``leg_ik`` would project it)."""
    g = _leg(robot_type, _side(side))
    if target[0, 3] * 0.0 == 0.0 and target[1, 3] * 0.0 == 0.0 and target[2, 3] * 0.0 == 0.0:   # finite position
        pt = target[:3, 3]
        if _norm(pt - g.hip) <= _FAR:
            q, ok = _leg_analytic(g, target[:3, :3], pt)
            if ok:
                return IKResult(q, True, 0.0, 0.0)
    return leg_ik(side, target, robot_type, start=start)


def leg_reaches(side: str, targets, robot_type: int = 0, pos_tol: float = REACH_TOL,
                rot_tol: float = REACH_TOL, quick: bool = False) -> np.ndarray:
    """``leg_ik(side, t, robot_type, pos_tol=..., rot_tol=...).reachable`` for each of a stack of sole poses (N, 4, 4;
    torso frame, proper rotations), vectorised: the closed form for all at once, then one nearest-pose search for
    the poses it misses, from the same starts as ``leg_ik``'s. `quick`: the search starts from the clamped closed form
    only and stops after QUICK_ITERATIONS, about 3 times cheaper (the kick's reach check, where it answered as the
    full search for every one of 19,200 poses of kick curves, villa bench kick_reach's region and beyond)."""
    g = _leg(robot_type, _side(side))
    out, rt, pt, pt_true, q = _closed_form_pass(g, targets, pos_tol, rot_tol)
    miss = np.flatnonzero(~out)
    if not len(miss):
        return out
    rt, pt, pt_true, q = rt[miss], pt[miss], pt_true[miss], q[miss]
    n = len(miss)
    if quick:
        starts = q
    else:                                            # leg_ik's five starts per pose, searched at once
        ankle = pt + np.einsum("nij,j->ni", rt, -g.e - g.d) - g.hip
        scale = np.minimum(1.0, 0.98 * g.reach / np.maximum(np.linalg.norm(ankle, axis=1), 1e-9))
        pin_q, _ = _leg_analytic_batch(g, rt, g.hip + (pt - g.hip) * scale[:, None])
        starts = np.concatenate([q, pin_q, np.zeros((n, 6)), np.tile(_CROUCH, (n, 1)),
                                 np.tile(0.5 * (g.lo + g.hi), (n, 1))])
    k = len(starts) // n
    residual_jac = _leg_residual(g, np.tile(rt, (k, 1, 1)), np.tile(pt, (k, 1)), ORIENTATION_WEIGHT)
    qs, costs = _bounded_lm(residual_jac, starts, g.lo, g.hi, iters=QUICK_ITERATIONS if quick else 40)
    best = qs.reshape(k, n, 6)[np.argmin(costs.reshape(k, n), axis=0), np.arange(n)]
    out[miss] = _within(g, best, rt, pt_true, pos_tol, rot_tol)
    return out


# ---------------------------------------------------------------------------------------------------
# arms


@dataclass(frozen=True)
class _ArmGeometry:
    chain: _Chain
    shoulder: np.ndarray   # shoulder pitch and roll axes meet here
    u: np.ndarray          # shoulder -> elbow at zero angles (x-z plane)
    f: float               # elbow -> hand (along x at zero angles)
    lo: np.ndarray
    hi: np.ndarray


@cache
def _arm(robot_type: int, side: str) -> _ArmGeometry:
    s = side.lower()
    lm = body.link_map(robot_type)
    z = body.zero_pose_positions(robot_type)
    sh = z[f"{s}shoulder"]
    el = z[f"{s}elbow"]
    assert np.allclose(z[f"{s}upperarm"] + lm[f"{s}upperarm"].anchor, sh)
    assert np.allclose(z[f"{s}lowerarm"] + lm[f"{s}lowerarm"].anchor, el)
    for n, ax in (("shoulder", (0, 1, 0)), ("upperarm", (0, 0, 1)), ("elbow", (1, 0, 0)), ("lowerarm", (0, 0, 1))):
        assert np.allclose(lm[f"{s}{n}"].axis, ax)
    u, f = el - sh, z[f"{s}hand"] - el
    assert abs(u[1]) < 1e-12 and abs(f[1]) < 1e-12 and abs(f[2]) < 1e-12 and f[0] > 0
    lo, hi = sim_limits(LEFT_ARM if side == "L" else RIGHT_ARM)
    return _ArmGeometry(_chain(robot_type, f"{s}hand"), sh, u, float(f[0]), lo, hi)


def arm_fk(side: str, angles, robot_type: int = 0) -> np.ndarray:
    """Hand pose (4x4, end of the lower arm) in the torso frame; ``angles`` (..., 4) in LEFT_ARM / RIGHT_ARM order."""
    g = _arm(robot_type, _side(side))
    angles = np.asarray(angles, dtype=float)
    if angles.shape[-1:] != (4,):
        raise ValueError(f"expected 4 arm angles (ShoulderPitch .. ElbowRoll), got shape {angles.shape}")
    return _chain_fk(g.chain, angles)


def _arm_candidates(g: _ArmGeometry, d: np.ndarray, elbow_yaw: float) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form arm solutions over a sweep of elbow-yaw values: (m, 4) angles and a validity mask."""
    q3 = np.unique(np.concatenate([[elbow_yaw], np.linspace(g.lo[2], g.hi[2], 61)]))
    ux, uz, f = g.u[0], g.u[2], g.f
    k = (d @ d - g.u @ g.u - f * f) / (2.0 * f)
    a, b = np.full_like(q3, ux), uz * np.sin(q3)
    hab = np.hypot(a, b)
    ok4 = np.abs(k) <= hab
    acs = np.arccos(np.clip(k / hab, -1.0, 1.0))
    q3b = np.repeat(q3, 2)
    q4 = (np.arctan2(b, a)[:, None] + np.array([1.0, -1.0]) * acs[:, None]).ravel()
    ok = np.repeat(ok4, 2)
    c4, s4 = np.cos(q4), np.sin(q4)
    w = np.stack([ux + f * c4, f * np.cos(q3b) * s4, uz + f * np.sin(q3b) * s4], axis=1)
    h = np.hypot(w[:, 0], w[:, 1])
    ratio = np.divide(d[1], h, out=np.full_like(h, 2.0), where=h > 1e-12)
    ok2 = np.abs(ratio) <= 1.0 + 1e-12
    asn = np.arcsin(np.clip(ratio, -1.0, 1.0))
    phi = np.arctan2(w[:, 1], w[:, 0])
    q2 = np.concatenate([asn - phi, np.pi - asn - phi])
    w2 = np.concatenate([w, w])
    c2, s2 = np.cos(q2), np.sin(q2)
    wx = c2 * w2[:, 0] - s2 * w2[:, 1]
    q1 = np.arctan2(d[0], d[2]) - np.arctan2(wx, w2[:, 2])
    q = _wrap(np.stack([q1, q2, np.concatenate([q3b, q3b]), np.concatenate([q4, q4])], axis=1))
    return q, np.concatenate([ok & ok2, ok & ok2])


def arm_ik(side: str, hand_position, robot_type: int = 0, elbow_yaw: float = 0.0) -> IKResult:
    """Arm angles (LEFT_ARM / RIGHT_ARM order) putting the hand (end of the lower arm) at ``hand_position``.

    Position only. The arm has one joint more than the task needs: the solution keeps ElbowYaw at
    ``elbow_yaw`` when the limits allow and otherwise takes the allowed elbow yaw nearest to it (on a
    3-degree grid, refined). Unreachable: the in-limit angles nearest the target, ``reachable=False``.
    """
    g = _arm(robot_type, _side(side))
    p_true = np.asarray(hand_position, dtype=float)
    if p_true.shape != (3,):
        raise ValueError(f"hand_position must be a 3-vector, got shape {p_true.shape}")
    if not np.all(np.isfinite(p_true)) or not math.isfinite(elbow_yaw):
        raise ValueError("hand_position and elbow_yaw must be finite")
    d = p_true - g.shoulder
    dist = _norm(d)
    if dist > _FAR:
        d = d / dist * _FAR
    pt = g.shoulder + d
    q, ok = _arm_candidates(g, d, float(elbow_yaw))
    inside = np.all((q >= g.lo - _LIMIT_TOL) & (q <= g.hi + _LIMIT_TOL), axis=1)
    q = np.clip(q, g.lo, g.hi)
    good = ok & inside
    if good.any():
        cand = q[good]
        key = np.abs(cand[:, 2] - elbow_yaw) + 1e-3 * np.abs(cand).sum(axis=1)
        for i in np.argsort(key)[:3]:
            err = _norm(_chain_fk(g.chain, cand[i])[:3, 3] - p_true)
            if err < REACH_TOL:
                return IKResult(cand[i], True, err)

    def residual_jac(qq):
        t, jac = _chain_jacobians(g.chain, qq)
        return pt - t[:, :3, 3], jac[:, :3]

    # Starts: the clamped closed-form candidates nearest the target, the zero pose and mid-range.
    errs = np.linalg.norm(_chain_fk(g.chain, q)[:, :3, 3] - pt, axis=1)
    starts = np.vstack([q[np.argsort(errs)[:3]], np.zeros(4), 0.5 * (g.lo + g.hi)])
    qs, costs = _bounded_lm(residual_jac, starts, g.lo, g.hi)
    best = qs[int(np.argmin(costs))]
    err = _norm(_chain_fk(g.chain, best)[:3, 3] - p_true)
    return IKResult(best, err < REACH_TOL, err)


# ---------------------------------------------------------------------------------------------------
# head and camera


def head_to_camera(robot_type: int = 0) -> np.ndarray:
    """Fixed pose of the camera frame in the head frame (4x4).

    SimSpark's RestrictedVisionPerceptor is a child of the head Transform with no offset and no
    rotation (naoneckhead.rsg): the camera sits at the head sphere's centre, looking along the head's
    forward axis, so this is the identity for every robot type.
    """
    lk = body.link_map(robot_type)["camera"]
    return _homogeneous(np.eye(3), np.asarray(lk.pos))


def camera_pose(head_yaw: float, head_pitch: float, robot_type: int = 0) -> np.ndarray:
    """Camera frame (x along the view axis, y left, z up) in the torso frame, for NAOqi head angles."""
    if not (math.isfinite(head_yaw) and math.isfinite(head_pitch)):
        raise ValueError("head angles must be finite")
    return _chain_fk(_chain(robot_type, "camera"), np.array([head_yaw, head_pitch], dtype=float))


def chain_joint_names(side: str, limb: str) -> tuple[str, ...]:
    """Joint order of ``leg_ik``/``leg_fk`` (limb "leg") and ``arm_ik``/``arm_fk`` (limb "arm")."""
    s = _side(side)
    table = {("L", "leg"): LEFT_LEG, ("R", "leg"): RIGHT_LEG, ("L", "arm"): LEFT_ARM, ("R", "arm"): RIGHT_ARM}
    if (s, limb) not in table:
        raise ValueError(f"limb must be 'leg' or 'arm', got {limb!r}")
    return table[(s, limb)]
