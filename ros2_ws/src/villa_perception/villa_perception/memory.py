"""World objects and visual memory: UT Austin Villa 2011 report §4.2-4.3.

Each object keeps its last vision information (here: the ground position relative to the body), whether it is seen in
the current frame (`is_currently_seen`) and whether its remembered position is still believed (`is_valid`): an object
that should be in view where we remember it, but is not seen there, is invalidated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass
class WorldObject:
    name: str
    position: np.ndarray                 # last seen (x, y), body frame at that time
    last_seen: float                     # s
    is_currently_seen: bool = True
    is_valid: bool = True


@dataclass
class VisualMemory:
    half_fov: float = math.radians(60)    # the 120° view cone (§4)
    margin: float = math.radians(10)      # only well inside the cone counts as "should be seen"
    max_range: float = 8.0                # m; farther objects may be hidden or simply too small to matter
    objects: dict[str, WorldObject] = field(default_factory=dict)

    def update(self, seen: dict[str, np.ndarray], t: float, view_yaw: float) -> None:
        """`seen`: name -> (x, y) this frame; view_yaw: the camera's heading in the body frame (rad)."""
        for obj in self.objects.values():
            obj.is_currently_seen = False
        for name, xy in seen.items():
            self.objects[name] = WorldObject(name, np.asarray(xy, dtype=float), t)
        for name, obj in self.objects.items():
            if name in seen or not obj.is_valid:
                continue
            d = float(np.hypot(*obj.position))
            bearing = math.atan2(obj.position[1], obj.position[0])
            in_view = abs(math.remainder(bearing - view_yaw, 2 * math.pi)) < self.half_fov - self.margin
            if in_view and 0.3 < d < self.max_range:
                obj.is_valid = False      # expected in view but not seen (§4.3)
