"""The skill-file language for open-loop keyframe skills: UT Austin Villa 2011 report §7.

    SKILL GETUP_BACK                       # one skill per file
    KEYFRAME 1
    reset ARM_LEFT ARM_RIGHT end           # targets of whole joint groups back to 0
    setTarget LShoulderPitch $arm RShoulderPitch $arm
    setTarget LKneePitch (2 * $knee) LHipPitch -$knee
    increaseTarget LAnklePitch -5
    wait 0.2                               # seconds until the next keyframe

Angles in skill files are in degrees (as in the report's example); the player turns them into radians. Joint names
are NAOqi's. `$name` variables (learned or requested parameters) and arithmetic with + - * / and parentheses are
allowed wherever a number is. Every error names the file and line.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path

from villa_nao.joints import JOINTS

GROUPS = {
    "HEAD": ("HeadYaw", "HeadPitch"),
    "ARM_LEFT": ("LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll"),
    "ARM_RIGHT": ("RShoulderPitch", "RShoulderRoll", "RElbowYaw", "RElbowRoll"),
    "LEG_LEFT": ("LHipYawPitch", "LHipRoll", "LHipPitch", "LKneePitch", "LAnklePitch", "LAnkleRoll"),
    "LEG_RIGHT": ("RHipYawPitch", "RHipRoll", "RHipPitch", "RKneePitch", "RAnklePitch", "RAnkleRoll"),
}
JOINT_NAMES = {j.name for j in JOINTS} | {"LToePitch", "RToePitch"}
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


class SkillError(ValueError):
    """A skill file that cannot be parsed or evaluated; the message starts with file:line."""


@dataclass(frozen=True)
class Expr:
    text: str
    tree: ast.expression
    where: str

    def value(self, variables: dict[str, float]) -> float:
        def ev(node):
            if isinstance(node, ast.Expression):
                return ev(node.body)
            if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
                return float(node.value)
            if isinstance(node, ast.Name):
                if node.id not in variables:
                    raise SkillError(f"{self.where}: variable ${node.id} has no value "
                                     f"(known: {', '.join('$' + v for v in sorted(variables)) or 'none'})")
                return float(variables[node.id])
            if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
                try:
                    return _OPS[type(node.op)](ev(node.left), ev(node.right))
                except ZeroDivisionError:
                    raise SkillError(f"{self.where}: division by zero in {self.text}") from None
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
                v = ev(node.operand)
                return -v if isinstance(node.op, ast.USub) else v
            raise SkillError(f"{self.where}: not allowed in an expression: {self.text}")

        v = ev(self.tree)
        if not math.isfinite(v):
            raise SkillError(f"{self.where}: {self.text} is not a finite number")
        return v


@dataclass(frozen=True)
class Op:
    kind: str                              # reset, set, increase
    joints: tuple[str, ...]
    values: tuple[Expr, ...] = ()


@dataclass
class Keyframe:
    number: int
    ops: list[Op] = field(default_factory=list)
    wait: Expr | None = None


@dataclass
class Skill:
    name: str
    keyframes: list[Keyframe]
    source: str
    variables: frozenset[str]


def _parse_expr(text: str, where: str) -> Expr:
    src = re.sub(r"\$([A-Za-z_]\w*)", r"\1", text)
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError:
        raise SkillError(f"{where}: cannot read the number or expression {text!r}") from None
    expr = Expr(text, tree, where)
    for node in ast.walk(tree):  # reject anything but arithmetic now, not at run time
        if not isinstance(node, ast.Expression | ast.Constant | ast.Name | ast.BinOp | ast.UnaryOp | ast.Load
                          | ast.Add | ast.Sub | ast.Mult | ast.Div | ast.USub | ast.UAdd):
            raise SkillError(f"{where}: not allowed in an expression: {text}")
        if isinstance(node, ast.Name) and f"${node.id}" not in text:
            raise SkillError(f"{where}: {node.id!r} is not a number; variables are written ${node.id}")
    return expr


def _tokens(line: str) -> list[str]:
    """Split on spaces, keeping parenthesised expressions together."""
    out, depth, cur = [], 0, ""
    for ch in line:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch.isspace() and depth == 0:
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += ch
    if depth != 0:
        raise ValueError("unbalanced parentheses")
    if cur:
        out.append(cur)
    return out


def parse(text: str, source: str = "<skill>") -> Skill:
    name = None
    frames: list[Keyframe] = []
    variables: set[str] = set()
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{source}:{lineno}"
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            tok = _tokens(line)
        except ValueError as e:
            raise SkillError(f"{where}: {e}") from None
        head = tok[0]
        if head == "SKILL":
            if name is not None:
                raise SkillError(f"{where}: a second SKILL line (one skill per file)")
            if len(tok) != 2:
                raise SkillError(f"{where}: expected 'SKILL <NAME>'")
            name = tok[1]
            continue
        if name is None:
            raise SkillError(f"{where}: the file must start with 'SKILL <NAME>'")
        if head == "KEYFRAME":
            if len(tok) != 2 or not tok[1].isdigit():
                raise SkillError(f"{where}: expected 'KEYFRAME <number>'")
            frames.append(Keyframe(int(tok[1])))
            continue
        if not frames:
            raise SkillError(f"{where}: '{head}' before the first KEYFRAME")
        kf = frames[-1]
        if head == "reset":
            if tok[-1] != "end" or len(tok) < 3:
                raise SkillError(f"{where}: expected 'reset <GROUP> ... end'")
            groups = tok[1:-1]
            for g in groups:
                if g not in GROUPS:
                    raise SkillError(f"{where}: unknown joint group {g!r} (use {', '.join(GROUPS)})")
            kf.ops.append(Op("reset", tuple(j for g in groups for j in GROUPS[g])))
        elif head in ("setTarget", "increaseTarget"):
            args = tok[1:]
            if not args or len(args) % 2:
                raise SkillError(f"{where}: expected '{head} <Joint> <value> [<Joint> <value> ...]'")
            joints, values = [], []
            for j, v in zip(args[::2], args[1::2], strict=True):
                if j not in JOINT_NAMES:
                    raise SkillError(f"{where}: unknown joint {j!r} (NAOqi names such as LKneePitch)")
                joints.append(j)
                values.append(_parse_expr(v, where))
                variables.update(re.findall(r"\$([A-Za-z_]\w*)", v))
            kf.ops.append(Op("set" if head == "setTarget" else "increase", tuple(joints), tuple(values)))
        elif head == "wait":
            if len(tok) != 2:
                raise SkillError(f"{where}: expected 'wait <seconds>'")
            kf.wait = _parse_expr(tok[1], where)
            variables.update(re.findall(r"\$([A-Za-z_]\w*)", tok[1]))
        else:
            raise SkillError(f"{where}: unknown statement {head!r} (SKILL, KEYFRAME, reset, setTarget, "
                             f"increaseTarget, wait)")
    if name is None:
        raise SkillError(f"{source}: empty skill file (expected 'SKILL <NAME>')")
    if not frames:
        raise SkillError(f"{source}: skill {name} has no KEYFRAME")
    return Skill(name, frames, source, frozenset(variables))


def load(path: str | Path) -> Skill:
    path = Path(path)
    try:
        return parse(path.read_text(), str(path))
    except OSError as e:
        raise SkillError(f"{path}: cannot read: {e.strerror}") from None


def load_dir(directory: str | Path) -> dict[str, Skill]:
    """Every *.skl file of a directory, by file stem (getup_front.skl -> 'getup_front')."""
    return {p.stem: load(p) for p in sorted(Path(directory).glob("*.skl"))}


class SkillPlayer:
    """Runs a skill: each keyframe's targets are applied at once, then held for its wait (§7)."""

    def __init__(self, skill: Skill, start: dict[str, float], variables: dict[str, float] | None = None) -> None:
        self.skill = skill
        self.variables = dict(variables or {})
        missing = skill.variables - set(self.variables)
        if missing:
            raise SkillError(f"{skill.source}: skill {skill.name} needs values for "
                             f"{', '.join('$' + m for m in sorted(missing))}")
        self.targets = dict(start)
        self.index = -1
        self.remaining = 0.0
        self.elapsed = 0.0
        self.done = False

    def _apply(self, kf: Keyframe) -> None:
        for op in kf.ops:
            if op.kind == "reset":
                for j in op.joints:
                    self.targets[j] = 0.0
            else:
                for j, e in zip(op.joints, op.values, strict=True):
                    v = math.radians(e.value(self.variables))
                    self.targets[j] = v if op.kind == "set" else self.targets.get(j, 0.0) + v
        self.remaining = max(0.0, kf.wait.value(self.variables)) if kf.wait is not None else 0.0

    def update(self, dt: float) -> dict[str, float]:
        """Advance by dt seconds; returns the joint targets (rad) to command this cycle."""
        if self.done:
            return self.targets
        self.elapsed += dt
        self.remaining -= dt
        while self.remaining <= 0.0 and not self.done:
            self.index += 1
            if self.index >= len(self.skill.keyframes):
                self.done = True
                break
            self._apply(self.skill.keyframes[self.index])
        return self.targets
