"""SimSpark's field and rules expressed as rcssservermj field and rule-book objects.

Values: shared/simspark/SIMSPARK_FACTS.md (naosoccersim.rb), via villa_nao.field.
"""

from __future__ import annotations

from dataclasses import dataclass

from rcsssmj.games.soccer.soccer_fields import SoccerField
from rcsssmj.games.soccer.soccer_rules import SoccerRules

from villa_nao import field as F

# Robots wait this far outside the side line until they are beamed, and are put there when penalized.
FIELD_BORDER = 1.0


@dataclass
class SimSparkField(SoccerField):
    """The 30 x 20 m SimSpark field with 2.1 x 0.6 x 0.8 m goals and a 2 m centre circle."""

    def __init__(self) -> None:
        super().__init__(
            field_dim=(F.FIELD_LENGTH, F.FIELD_WIDTH, 40.0),
            line_width=0.05,
            field_border=FIELD_BORDER,
            goal_dim=(F.GOAL_DEPTH, F.GOAL_WIDTH, F.GOAL_HEIGHT),
            goal_post_radius=F.GOAL_POST_RADIUS,
            # SimSpark's penalty area (1.8 m deep, |y| <= 3.0) plays the part of rcssservermj's goalie area
            # (goal kicks, illegal defence).
            goalie_area_dim=(F.PENALTY_LENGTH, 2 * F.PENALTY_HALF_WIDTH),
            penalty_area_dim=None,
            corner_area_radius=0.5,
            penalty_spot_distance=F.PENALTY_LENGTH,
            center_circle_radius=F.CENTER_CIRCLE_RADIUS,
        )


@dataclass(frozen=True)
class SimSparkRules(SoccerRules):
    """SimSpark's rules: 11 per side, 300 s halves, kick-off only by trainer command (no automatic one)."""

    def __init__(self) -> None:
        super().__init__(
            max_team_size=11,
            half_time=int(F.HALF_TIME),
            extra_half_time=180,
            goal_pause_time=3,        # RuleGoalPauseTime
            throw_in_wait_time=1,     # RuleKickInPauseTime
            ground_max_time=15,       # GroundMaxTime
            goalie_ground_max_time=30,
            not_standing_max_time=30,
            goalie_not_standing_max_time=60,
        )
