"""villa sim as a sync server inside the agents' process: the wire protocol without sockets (for `villa games`).

The same simulation class, action parser and perception encoder as the `villa sim` process (villa_sim.server), and
the cycle of rcssservermj's sync loop: perceptions are generated, each agent's answer to the previous perceptions is
applied, the new perceptions go out as wire messages and their answers are kept for the next step, then the world
steps. An agent is anything that answers a perception message with an action message (villa_bridge's BridgeSession:
begin() -> the init messages, answer(message) -> the reply). Monitor commands (kick-off) and ground truth come
directly from the simulation; no monitor messages are generated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from rcsssmj.games.soccer.sim.soccer_commands import DropBallCommand, KickOffCommand
from rcsssmj.games.teams import TeamSide
from rcsssmj.server.perception_encoder import DefaultPerceptionEncoder

from villa_sim.simulation import GameTimeCommand, VillaActionParser, VillaSoccerSimulation, keeping_joint_angles
from villa_sim.trainer import GroundTruth, parse_ground_truth


class HostError(RuntimeError):
    """The simulation refused an agent (bad init message, team full, unum taken)."""


@dataclass
class HostedAgent:
    answer: Callable[[bytes], str | bytes | None]      # perception message -> action message
    init: str
    request: object = None                              # the parsed init (rcsssmj InitRequest)
    sim_agent: object = None
    pending: list = field(default_factory=list)        # parsed actions of its last answer


class HostedServer:
    """One villa simulation stepped here, 20 ms per `step()`; agents join with `connect()`."""

    def __init__(self, vision_noise: bool = True, seed: int | None = None) -> None:
        self.sim = VillaSoccerSimulation(vision_noise=vision_noise, seed=seed)
        self.sim.idle_pacing = False
        if not self.sim.init():
            raise HostError("the villa simulation did not initialise")
        self.parser = VillaActionParser()
        self.encoder = DefaultPerceptionEncoder()
        self.agents: list[HostedAgent] = []
        self._joining: list[HostedAgent] = []
        self._commands: list = []

    @property
    def time(self) -> float:
        return float(self.sim.sim_time)

    def connect(self, hello: list[str], answer: Callable[[bytes], str | bytes | None]) -> HostedAgent:
        """An agent whose first message(s) `hello` hold its init; it joins at the next step (as a server activates
        a connected agent at the start of its next cycle)."""
        init = None
        for msg in hello:
            init = self.parser.parse_init(msg.encode() if isinstance(msg, str) else msg)
            if init is not None:
                break
        if init is None:
            raise HostError(f"no init message among {hello!r}")
        agent = HostedAgent(answer, " ".join(hello), init)
        self._joining.append(agent)
        return agent

    def kick_off(self, side: str = "Left") -> None:
        """The trainer's (kickOff Left|Right), applied with the next step."""
        self._commands.append(KickOffCommand((TeamSide.LEFT if side.lower() == "left" else TeamSide.RIGHT).value))

    def drop_ball(self) -> None:
        """The trainer's (dropBall): play on with the ball where it lies, applied with the next step."""
        self._commands.append(DropBallCommand())

    def set_game_time(self, play_time: float) -> None:
        """The trainer's (time t): the game clock at t s, applied with the next step."""
        self._commands.append(GameTimeCommand(play_time))

    def place_ball(self, x: float, y: float) -> None:
        """The ball at rest on the field at (x, y) (global frame), now."""
        self.sim.ball.drop_at(x, y)

    def move_player(self, side: str, unum: int, x: float, y: float, theta: float) -> None:
        """A player at rest at (x, y), facing theta (global frame, rad), now, its joints keeping their angles (as
        villa sim's beam, VillaSoccerSimulation.beam_agent, but in any play mode): a trainer's move for benchmarks
        that start from a game situation."""
        team = TeamSide.LEFT if side == "left" else TeamSide.RIGHT
        player = self.sim.get_players(team).get(unum)
        if player is None:
            raise HostError(f"no player {unum} on the {side}")
        with keeping_joint_angles(player):
            player.drop_at(x, y, theta)

    def truth(self) -> GroundTruth:
        return parse_ground_truth(self.sim.ground_truth_sexp().encode())

    def step(self) -> None:
        """One server cycle: activate joining agents, perceptions, apply last answers, send perceptions (collect
        answers), step the world."""
        joined = []
        for a in self._joining:
            (a.sim_agent,) = self.sim.add_players([a.request])
            if a.sim_agent is None:
                raise HostError(f"the simulation refused the agent of {a.init!r}")
            joined.append(a)
        self._joining = []
        self.sim.generate_perceptions()
        for a in self.agents:
            a.sim_agent.set_actions(a.pending)
        for a in self.agents + joined:
            reply = a.answer(self.encoder.encode(a.sim_agent.perceptions) or b"(syn)")
            if reply is None:
                a.pending = []
                continue
            data = reply.encode() if isinstance(reply, str) else reply
            a.pending = self.parser.parse_action(data, a.sim_agent.agent_id.prefix)
        self.agents += joined
        commands, self._commands = self._commands, []
        self.sim.step(commands)


def seed_everything(seed: int) -> None:
    """numpy's global generator (rcssservermj's hearing draws from it when more than three messages compete)."""
    np.random.seed(seed % (2**32))  # noqa: NPY002  (rcssservermj uses the legacy global generator)
