"""The kinematics' per-cycle kernels compiled with numba: the leg IK's nearest-pose search for one sole target and
the centre of mass of a stack of postures (report §10.1: the walk's IK and its COM check, every cycle).

The walk asks for the search for about a third of its leg targets when a fast set stretches a leg beyond its limits
(the swing foot's ankle pitch at its -75 deg stop, the stance leg at the end of a long step): in the interpreter it
was a third of an optimizer worker's time, and the centre of mass (numpy over 24 links) a tenth
(docs/optimize.md, "On the real SimSpark at scale"). The search's steps are those of ``kinematics._bounded_lm``
(the vectorised search over many starts, which the kick engine's stacks of poses use): Levenberg-Marquardt with an
active set on the joint limits on the residual (target position - sole position, `w` x the rotation error as
axis x angle), the same damping rule and stopping rule, in float arithmetic in the same order as the interpreted
form it replaced. The centre of mass composes the links' transforms as ``kinematics._fk_arrays`` does.

Compiled when this module is first imported on a machine (a few seconds; scripts/setup.sh does it), cached beside
the module by numba.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# Levenberg-Marquardt's rules (kinematics._bounded_lm, the vectorised search, uses them too): the first damping, its
# factors after a step that helped and one that did not, its floor, the damping that ends a start, how close to a
# bound a joint counts as at it, and the stopping rule (the cost is m^2, so 1e-5 relative is 5e-6 of the error).
LM_LAMBDA0, LM_DOWN, LM_UP, LM_LAMBDA_MIN, LM_LAMBDA_MAX = 1e-3, 5.0, 8.0, 1e-12, 1e10
LM_AT_BOUND, LM_REL_GAIN, LM_ABS_GAIN, LM_MIN_STEP = 1e-12, 1e-5, 1e-24, 1e-10
ITERATIONS = 40

_SIG_RESIDUAL = "void(f8[:, ::1], b1[::1], f8[:, ::1], f8[::1], f8, f8[::1], f8[::1], f8[:, ::1])"


@njit(cache=True, nogil=True)
def _rotation_vector_near_pi(m):
    """Axis * angle of a rotation whose angle is near pi: its quaternion as the dominant eigenvector of
    Bar-Itzhack's symmetric matrix (transforms3d.quaternions.mat2quat's method), w >= 0."""
    qxx, qyx, qzx = m[0, 0], m[0, 1], m[0, 2]         # transforms3d's names, in m's row-major order
    qxy, qyy, qzy = m[1, 0], m[1, 1], m[1, 2]
    qxz, qyz, qzz = m[2, 0], m[2, 1], m[2, 2]
    kk = np.array([[qxx - qyy - qzz, 0.0, 0.0, 0.0],
                   [qyx + qxy, qyy - qxx - qzz, 0.0, 0.0],
                   [qzx + qxz, qzy + qyz, qzz - qxx - qyy, 0.0],
                   [qyz - qzy, qzx - qxz, qxy - qyx, qxx + qyy + qzz]]) / 3.0
    vals, vecs = np.linalg.eigh(kk)             # the lower triangle, as numpy reads it
    i = np.argmax(vals)
    x, y, z, w = vecs[0, i], vecs[1, i], vecs[2, i], vecs[3, i]
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    nrm = math.sqrt(x * x + y * y + z * z)
    f = 2.0 * math.atan2(nrm, w) / nrm
    return x * f, y * f, z * f


@njit(_SIG_RESIDUAL, cache=True, nogil=True)
def residual(links, joint, rt, pt, w, q, r, cols):
    """Fill r (6: target position - sole position, w x the rotation error rt @ R.T as axis x angle) and cols
    (n, 6: the columns of r's Jacobian, d(FK)/dq with the rotation rows times w) for the chain `links` (k, 9: per
    link its origin + anchor, anchor and axis, torso frame at zero angles; `joint` (k,): the link has a joint) at
    angles q (n)."""
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0
    px = py = pz = 0.0
    n = q.shape[0]
    axes = np.empty((n, 6))                       # per joint: its axis and a point on it, torso frame
    qi = 0
    for i in range(links.shape[0]):
        pax, pay, paz = links[i, 0], links[i, 1], links[i, 2]
        ax_, ay_, az_ = links[i, 3], links[i, 4], links[i, 5]
        if joint[i]:
            kx, ky, kz = links[i, 6], links[i, 7], links[i, 8]
            a = q[qi]
            s, c = math.sin(a), math.cos(a)
            v = 1.0 - c
            l00, l01, l02 = c + kx * kx * v, kx * ky * v - kz * s, kx * kz * v + ky * s       # Rodrigues
            l10, l11, l12 = ky * kx * v + kz * s, c + ky * ky * v, ky * kz * v - kx * s
            l20, l21, l22 = kz * kx * v - ky * s, kz * ky * v + kx * s, c + kz * kz * v
            tx = pax - (l00 * ax_ + l01 * ay_ + l02 * az_)
            ty = pay - (l10 * ax_ + l11 * ay_ + l12 * az_)
            tz = paz - (l20 * ax_ + l21 * ay_ + l22 * az_)
            axes[qi, 0] = r00 * kx + r01 * ky + r02 * kz
            axes[qi, 1] = r10 * kx + r11 * ky + r12 * kz
            axes[qi, 2] = r20 * kx + r21 * ky + r22 * kz
            axes[qi, 3] = r00 * pax + r01 * pay + r02 * paz + px
            axes[qi, 4] = r10 * pax + r11 * pay + r12 * paz + py
            axes[qi, 5] = r20 * pax + r21 * pay + r22 * paz + pz
            qi += 1
            px, py, pz = (r00 * tx + r01 * ty + r02 * tz + px, r10 * tx + r11 * ty + r12 * tz + py,
                          r20 * tx + r21 * ty + r22 * tz + pz)
            r00, r01, r02, r10, r11, r12, r20, r21, r22 = (
                r00 * l00 + r01 * l10 + r02 * l20, r00 * l01 + r01 * l11 + r02 * l21, r00 * l02 + r01 * l12 + r02 * l22,
                r10 * l00 + r11 * l10 + r12 * l20, r10 * l01 + r11 * l11 + r12 * l21, r10 * l02 + r11 * l12 + r12 * l22,
                r20 * l00 + r21 * l10 + r22 * l20, r20 * l01 + r21 * l11 + r22 * l21, r20 * l02 + r21 * l12 + r22 * l22)
        else:
            tx, ty, tz = pax - ax_, pay - ay_, paz - az_
            px, py, pz = (r00 * tx + r01 * ty + r02 * tz + px, r10 * tx + r11 * ty + r12 * tz + py,
                          r20 * tx + r21 * ty + r22 * tz + pz)
    t00, t01, t02 = rt[0, 0], rt[0, 1], rt[0, 2]
    t10, t11, t12 = rt[1, 0], rt[1, 1], rt[1, 2]
    t20, t21, t22 = rt[2, 0], rt[2, 1], rt[2, 2]
    # the rotation error rt @ R.T as axis * angle: from its skew part, or from its quaternion near pi
    m00 = t00 * r00 + t01 * r01 + t02 * r02
    m11 = t10 * r10 + t11 * r11 + t12 * r12
    m22 = t20 * r20 + t21 * r21 + t22 * r22
    vx = (t20 * r10 + t21 * r11 + t22 * r12) - (t10 * r20 + t11 * r21 + t12 * r22)
    vy = (t00 * r20 + t01 * r21 + t02 * r22) - (t20 * r00 + t21 * r01 + t22 * r02)
    vz = (t10 * r00 + t11 * r01 + t12 * r02) - (t00 * r10 + t01 * r11 + t02 * r12)
    cos = (m00 + m11 + m22 - 1.0) * 0.5
    if cos > -0.9:
        sin2 = math.sqrt(vx * vx + vy * vy + vz * vz)  # 2 sin(angle)
        k = 0.5 if sin2 < 1e-12 else math.atan2(0.5 * sin2, cos) / sin2
        ox, oy, oz = vx * k, vy * k, vz * k
    else:
        rot = np.array([[r00, r01, r02], [r10, r11, r12], [r20, r21, r22]])
        ox, oy, oz = _rotation_vector_near_pi(rt @ rot.T)
    for j in range(n):
        wx, wy, wz, cx, cy, cz = axes[j, 0], axes[j, 1], axes[j, 2], axes[j, 3], axes[j, 4], axes[j, 5]
        cols[j, 0] = wy * (pz - cz) - wz * (py - cy)
        cols[j, 1] = wz * (px - cx) - wx * (pz - cz)
        cols[j, 2] = wx * (py - cy) - wy * (px - cx)
        cols[j, 3] = w * wx
        cols[j, 4] = w * wy
        cols[j, 5] = w * wz
    r[0], r[1], r[2] = pt[0] - px, pt[1] - py, pt[2] - pz
    r[3], r[4], r[5] = w * ox, w * oy, w * oz


@njit("f8[::1](f8[:, ::1], f8[::1])", cache=True, nogil=True)
def solve_spd(h, b):
    """h x = b for a small symmetric positive definite h given by its lower triangle (h[i, :i + 1]): Cholesky;
    numpy's solve, which pivots, on the full matrix when a pivot is not positive."""
    n = b.shape[0]
    low = np.zeros((n, n))
    for i in range(n):
        for j in range(i):
            s = h[i, j]
            for k in range(j):
                s -= low[i, k] * low[j, k]
            low[i, j] = s / low[j, j]
        s = h[i, i]
        for k in range(i):
            s -= low[i, k] * low[i, k]
        if not s > 0.0:
            full = np.empty((n, n))
            for a in range(n):
                for c in range(n):
                    full[a, c] = h[max(a, c), min(a, c)]
            return np.linalg.solve(full, b.copy())
        low[i, i] = math.sqrt(s)
    y = np.empty(n)
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= low[i, k] * y[k]
        y[i] = s / low[i, i]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = y[i]
        for k in range(i + 1, n):
            s -= low[k, i] * x[k]
        x[i] = s / low[i, i]
    return x


@njit("Tuple((f8[::1], f8))(f8[:, ::1], b1[::1], f8[:, ::1], f8[::1], f8, f8[::1], f8[::1], f8[::1], i8)",
      cache=True, nogil=True)
def search(links, joint, rt, pt, w, q0, lo, hi, iters):
    """From one start q0: the angles within lo..hi that minimise |residual|^2, and that cost."""
    n = q0.shape[0]
    q = np.minimum(np.maximum(q0, lo), hi)
    r, cols = np.empty(6), np.empty((n, 6))
    rn, cn_cols = np.empty(6), np.empty((n, 6))
    residual(links, joint, rt, pt, w, q, r, cols)
    cost = 0.0
    for m in range(6):
        cost += r[m] * r[m]
    lam = LM_LAMBDA0
    g = np.empty(n)
    free = np.empty(n, dtype=np.int64)
    qn = np.empty(n)
    for _ in range(iters):
        nf = 0
        for j in range(n):
            s = 0.0
            for m in range(6):
                s += cols[j, m] * r[m]
            g[j] = s
            if not ((q[j] <= lo[j] + LM_AT_BOUND and s < 0) or (q[j] >= hi[j] - LM_AT_BOUND and s > 0)):
                free[nf] = j
                nf += 1
        if nf == 0:
            break
        # the damped normal equations over the free joints (a held joint's step is exactly 0)
        h = np.zeros((nf, nf))
        rhs = np.empty(nf)
        for i in range(nf):
            ci = free[i]
            for j in range(i):
                cj = free[j]
                s = 0.0
                for m in range(6):
                    s += cols[ci, m] * cols[cj, m]
                h[i, j] = s
            d = 0.0
            for m in range(6):
                d += cols[ci, m] * cols[ci, m]
            h[i, i] = d + lam * (d + 1e-12)
            rhs[i] = g[ci]
        sub = solve_spd(h, rhs)
        for j in range(n):
            qn[j] = q[j]
        for i in range(nf):
            j = free[i]
            qn[j] = q[j] + sub[i]
        for j in range(n):
            qn[j] = min(max(qn[j], lo[j]), hi[j])
        residual(links, joint, rt, pt, w, qn, rn, cn_cols)
        cn = 0.0
        for m in range(6):
            cn += rn[m] * rn[m]
        if cn < cost:
            biggest = 0.0
            for j in range(n):
                biggest = max(biggest, abs(qn[j] - q[j]))
            done = cost - cn <= LM_ABS_GAIN + LM_REL_GAIN * cost or biggest < LM_MIN_STEP
            q, qn = qn, q
            r, rn = rn, r
            cols, cn_cols = cn_cols, cols
            cost = cn
            lam = max(lam / LM_DOWN, LM_LAMBDA_MIN)
            if done:
                break
        else:
            lam *= LM_UP
            if lam > LM_LAMBDA_MAX:
                break
    return q.copy(), cost


@njit("f8[::1](f8[:, ::1], b1[::1], f8[:, ::1], f8[::1], f8, f8[:, ::1], f8[::1], f8[::1])", cache=True, nogil=True)
def nearest(links, joint, rt, pt, w, starts, lo, hi):
    """The lowest-cost answer of ``search`` over the starts (S, n), the first of equals."""
    best = starts[0].copy()
    best_cost = np.inf
    for s in range(starts.shape[0]):
        q, cost = search(links, joint, rt, pt, w, starts[s].copy(), lo, hi, ITERATIONS)
        if cost < best_cost:
            best, best_cost = q, cost
    return best


@njit("f8[:, ::1](i8[::1], i8[::1], f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[::1], f8[:, ::1])", cache=True,
      nogil=True)
def centers_of_mass(parent, jidx, pa, anchor, axis, mass, qv):
    """Centres of mass (S, 3), torso frame, of the postures qv (S, n_joints): the links (parent index, -1 for the
    torso, before each child; joint index, -1 for a fixed link; origin + anchor, anchor and axis in the parent's
    frame at zero angles) composed from the torso out, each link's mass at its frame's origin."""
    n = parent.shape[0]
    out = np.zeros((qv.shape[0], 3))
    rot = np.empty((n, 3, 3))
    pos = np.empty((n, 3))
    total = 0.0
    for i in range(n):
        total += mass[i]
    for s in range(qv.shape[0]):
        for i in range(n):
            kx, ky, kz = axis[i, 0], axis[i, 1], axis[i, 2]
            a = qv[s, jidx[i]] if jidx[i] >= 0 else 0.0
            sn, c = math.sin(a), math.cos(a)
            v = 1.0 - c
            l00, l01, l02 = c + kx * kx * v, kx * ky * v - kz * sn, kx * kz * v + ky * sn      # Rodrigues
            l10, l11, l12 = ky * kx * v + kz * sn, c + ky * ky * v, ky * kz * v - kx * sn
            l20, l21, l22 = kz * kx * v - ky * sn, kz * ky * v + kx * sn, c + kz * kz * v
            ax_, ay_, az_ = anchor[i, 0], anchor[i, 1], anchor[i, 2]
            tx = pa[i, 0] - (l00 * ax_ + l01 * ay_ + l02 * az_)
            ty = pa[i, 1] - (l10 * ax_ + l11 * ay_ + l12 * az_)
            tz = pa[i, 2] - (l20 * ax_ + l21 * ay_ + l22 * az_)
            p = parent[i]
            if p < 0:
                rot[i, 0, 0], rot[i, 0, 1], rot[i, 0, 2] = l00, l01, l02
                rot[i, 1, 0], rot[i, 1, 1], rot[i, 1, 2] = l10, l11, l12
                rot[i, 2, 0], rot[i, 2, 1], rot[i, 2, 2] = l20, l21, l22
                pos[i, 0], pos[i, 1], pos[i, 2] = tx, ty, tz
            else:
                for r in range(3):
                    p0, p1, p2 = rot[p, r, 0], rot[p, r, 1], rot[p, r, 2]
                    rot[i, r, 0] = p0 * l00 + p1 * l10 + p2 * l20
                    rot[i, r, 1] = p0 * l01 + p1 * l11 + p2 * l21
                    rot[i, r, 2] = p0 * l02 + p1 * l12 + p2 * l22
                    pos[i, r] = p0 * tx + p1 * ty + p2 * tz + pos[p, r]
            for r in range(3):
                out[s, r] += mass[i] * pos[i, r]
        for r in range(3):
            out[s, r] /= total
    return out
