"""Run the villa simulation as an rcssservermj server (agent and monitor ports, sync, real time, render)."""

from __future__ import annotations

import logging
import signal
from dataclasses import dataclass

from rcsssmj.games.soccer.server.soccer_command_parser import SoccerCommandParser
from rcsssmj.games.soccer.server.soccer_server import SoccerSimServer
from rcsssmj.server.remote_monitor import RemoteMonitor
from rcsssmj.sim.state_info import SceneGraph

from villa_sim.simulation import GameTimeCommand, VillaActionParser, VillaSoccerSimulation

logger = logging.getLogger(__name__)


@dataclass
class SimOptions:
    host: str = "127.0.0.1"
    agent_port: int = 3100        # SimSpark's ports, so SimSpark agents' defaults find it
    monitor_port: int = 3200
    sync: bool = True
    real_time: bool = False
    render: bool = False
    vision_noise: bool = True
    seed: int | None = None


TRUTH_ONLY = "villaTruthOnly"     # a monitor's command (villa_sim.trainer.Trainer): no scene graph in its messages


class _MonitorCommands(SoccerCommandParser):
    """The soccer monitor commands, plus SimSpark's (time t) and (villaTruthOnly) for the monitor connection it parses
    for."""

    def __init__(self, monitor: VillaMonitor) -> None:
        super().__init__()
        self._monitor = monitor

    def parse_node(self, node):
        if node[0] == TRUTH_ONLY.encode():
            self._monitor.truth_only = True
            return None
        if node[0] == b"time" and len(node) == 2:           # SimSpark's (time t): the game clock
            try:
                return GameTimeCommand(float(node[1]))
            except ValueError:
                return None
        return super().parse_node(node)


class VillaMonitor(RemoteMonitor):
    """rcssservermj's remote monitor; once its client sends (villaTruthOnly), its messages leave out the scene graph
    and carry the ground truth and game state alone. A trainer reads only those, and serializing every body of 22
    Naos for it takes a third of the simulation thread's time (`villa bench sim_speed --counts 22`)."""

    def __init__(self, conn) -> None:
        super().__init__(conn, _MonitorCommands(self))
        self.truth_only = False

    def update(self, state_info, frame_id: int, last_recompilation: int) -> None:
        if self.truth_only:
            state_info = [si for si in state_info if not isinstance(si, SceneGraph)]
        super().update(state_info, frame_id, last_recompilation)


class VillaSimServer(SoccerSimServer):
    """rcssservermj's soccer server with our action parser (adds SimSpark's say) and monitors (VillaMonitor)."""

    def __init__(self, sim: VillaSoccerSimulation, options: SimOptions) -> None:
        super().__init__(sim=sim, host=options.host, agent_port=options.agent_port,
                         monitor_port=options.monitor_port, sync_mode=options.sync, real_time=options.real_time,
                         render=options.render)
        # The agent listener builds each RemoteSoccerAgent with this parser when a client connects.
        self._action_parser = VillaActionParser()

    def _run_remote_monitor(self, monitor: RemoteMonitor) -> None:
        # The monitor listener builds an rcssservermj RemoteMonitor for each connection: ours serves it instead.
        super()._run_remote_monitor(VillaMonitor(monitor._conn))

    def _send_perceptions(self, *agents) -> None:
        # An agent whose connection closes while its perception is being sent (its receiving thread closes the
        # socket between rcssservermj's "still active?" check and the send; a reset peer) raised OSError here and
        # ended the simulation thread: one player leaving stopped the game for all. As SimSpark does, the game goes
        # on; the agent's own thread takes it out of the game.
        for agent in agents:
            try:
                agent.send_perceptions()
            except OSError as e:
                logger.info("villa sim: agent %s left while its perception was sent (%s)", agent, e)


def run(options: SimOptions) -> int:
    """Run until SIGINT/SIGTERM. Returns a process exit code."""
    sim = VillaSoccerSimulation(vision_noise=options.vision_noise, seed=options.seed)
    server = VillaSimServer(sim, options)

    def stop(signum, frame):
        logger.info("villa sim: %s received, shutting down", signal.Signals(signum).name)
        server.shutdown()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    logger.info("villa sim: field 30x20 m, agents on %s:%d, monitor on %s:%d, sync=%s real_time=%s noise=%s",
                options.host, options.agent_port, options.host, options.monitor_port, options.sync,
                options.real_time, options.vision_noise)
    try:
        server.run()
    except OSError as e:
        logger.error("villa sim: cannot start the server: %s (is another server on these ports?)", e)
        return 1
    return 0
