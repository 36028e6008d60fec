"""Perceptions the embedded simulator adds to rcssservermj's, in SimSpark's wire format."""

from __future__ import annotations

from rcsssmj.sim.perceptions import Perception


class ForceResistancePerception(Perception):
    """SimSpark's foot pressure: (FRP (n lf) (c x y z) (f fx fy fz)) in the foot frame (x right, y forward)."""

    def __init__(self, name: str, center, force) -> None:
        super().__init__(name)
        self.center = tuple(float(v) for v in center)
        self.force = tuple(float(v) for v in force)

    def to_sexp(self) -> str:
        c, f = self.center, self.force
        return f"(FRP (n {self.name}) (c {c[0]:.2f} {c[1]:.2f} {c[2]:.2f}) (f {f[0]:.2f} {f[1]:.2f} {f[2]:.2f}))"


class HearPerception(Perception):
    """SimSpark's hear items for one listener and one cycle."""

    def __init__(self, heard) -> None:
        super().__init__("hear")
        self.heard = list(heard)

    def to_sexp(self) -> str:
        return "".join(h.to_sexp() for h in self.heard)
