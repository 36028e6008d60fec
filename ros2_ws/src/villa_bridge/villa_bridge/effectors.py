"""Effector messages: one per cycle holding every joint command, beam, say and (syn).

UT Austin Villa 2011 report §6: say messages are 20 ASCII characters with a few disallowed (validated here).

Facts: shared/simspark/SIMSPARK_FACTS.md ("Effector commands", "Say rules") and rcsssmj 0.2.1
(server/action_parser.py: ``(<eff> q dq kp kd tau)`` with q in degrees, dq in deg/s, kp N m/rad, kd N m s/rad,
tau N m; soccer_action_parser.py: ``(beam x y deg)``; villa_sim adds SimSpark's ``(say msg)``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from villa_nao.joints import check_robot_type

MAX_SAY_LENGTH = 20


class SayError(ValueError):
    """A say text SimSpark would drop or split: explains why."""


def validate_say(text: str) -> str:
    """Return ``text`` if SimSpark broadcasts it unchanged, else raise SayError with the reason."""
    if not text:
        raise SayError("say: empty message")
    if len(text) > MAX_SAY_LENGTH:
        raise SayError(f"say: {len(text)} characters, the server drops messages over {MAX_SAY_LENGTH}")
    bad = sorted({c for c in text if not (0x21 <= ord(c) <= 0x7E) or c in "()"})
    if bad:
        raise SayError(f"say: characters {''.join(bad)!r} not allowed (printable ASCII without space and parentheses)")
    return text


def _num(v: float) -> str:
    # 4 decimals keep 0.0001 rad resolution; -0.0 printed as 0
    s = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


@functools.lru_cache(maxsize=16)
def _joints_template(effectors: tuple[str, ...]) -> str:
    return "".join(f"({e} %.4f)" for e in effectors)


def simspark_joints(effectors: Sequence[str], velocities: Sequence[float]) -> str:
    """``(he1 v)...`` hinge velocities in rad/s (wire sign), 4 decimals: one format of a per-robot template, an
    eighth of the cost of formatting each number (the message goes out every cycle)."""
    v = velocities.tolist() if isinstance(velocities, np.ndarray) else [float(x) for x in velocities]
    if len(v) != len(effectors):
        raise ValueError(f"{len(effectors)} effectors, {len(v)} velocities")
    return _joints_template(tuple(effectors)) % tuple(v)


def rcssservermj_joints(effectors: Sequence[str], q: Sequence[float], dq: Sequence[float], kp: Sequence[float],
                        kd: Sequence[float], tau: Sequence[float] | None = None) -> str:
    """``(<eff> q dq kp kd tau)``: q rad and dq rad/s (wire sign) are sent in degrees as rcssservermj expects."""
    tau = tau if tau is not None else [0.0] * len(effectors)
    return "".join(f"({e} {_num(math.degrees(a))} {_num(math.degrees(b))} {_num(p)} {_num(d)} {_num(t)})"
                   for e, a, b, p, d, t in zip(effectors, q, dq, kp, kd, tau, strict=True))


def beam(x: float, y: float, deg: float) -> str:
    return f"(beam {_num(x)} {_num(y)} {_num(deg)})"


def say(text: str) -> str:
    return f"(say {validate_say(text)})"


def compose(joints: str = "", beam_cmd: str = "", say_cmd: str = "", sync: bool = True) -> str:
    """One effector message; an empty one is ``(syn)`` in sync mode (every perception needs an answer)."""
    return joints + beam_cmd + say_cmd + ("(syn)" if sync else "")


def simspark_scene(robot_type: int) -> str:
    check_robot_type(robot_type, "SimSpark robot type")
    return f"(scene rsg/agent/nao/nao_hetero.rsg {robot_type})"


def simspark_init(unum: int, team: str, sync: bool) -> str:
    return f"(init (unum {unum})(teamname {team}))" + ("(syn)" if sync else "")


def rcssservermj_init(model: str, team: str, unum: int) -> str:
    return f"(init {model} {team} {unum})"
