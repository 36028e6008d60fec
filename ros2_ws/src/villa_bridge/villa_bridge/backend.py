"""What differs between servers, behind one small interface used by the session loop (session.py)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping

from villa_bridge.joint_io import HeldTargets
from villa_bridge.perception import Perception
from villa_nao.joints import check_robot_type


class Backend(ABC):
    """One server's handshake, confirmation rule and joint-command encoding."""

    name: str = ""

    def __init__(self, team: str, unum: int, robot_type: int = 0, sync: bool = True) -> None:
        if not team or any(c.isspace() or c in "()" for c in team):
            raise ValueError(f"team name {team!r} must be non-empty without spaces or parentheses")
        self.team, self.unum, self.sync = team, unum, sync
        self.robot_type = check_robot_type(robot_type, f"{self.name} robot type")

    @abstractmethod
    def hello(self) -> list[str]:
        """Messages sent right after the TCP connection opens."""

    def first_reply(self) -> str | None:
        """What to answer the first perception with instead of effectors (SimSpark's init), or None."""
        return None

    @abstractmethod
    def confirmation(self, p: Perception) -> tuple[int, str] | None:
        """(unum, side) once this perception proves the server accepted the player, else None."""

    @abstractmethod
    def joint_commands(self, held: HeldTargets, angles: Mapping[str, float]) -> str:
        """The joint part of this cycle's effector message; ``angles`` = measured NAOqi angles (rad)."""
