"""Run the villa simulation as an rcssservermj server (agent and monitor ports, sync, real time, render)."""

from __future__ import annotations

import logging
import signal
from dataclasses import dataclass

from rcsssmj.games.soccer.server.soccer_server import SoccerSimServer

from villa_sim.simulation import VillaActionParser, VillaSoccerSimulation

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


class VillaSimServer(SoccerSimServer):
    """rcssservermj's soccer server with our action parser (adds SimSpark's say)."""

    def __init__(self, sim: VillaSoccerSimulation, options: SimOptions) -> None:
        super().__init__(sim=sim, host=options.host, agent_port=options.agent_port,
                         monitor_port=options.monitor_port, sync_mode=options.sync, real_time=options.real_time,
                         render=options.render)
        # The agent listener builds each RemoteSoccerAgent with this parser when a client connects.
        self._action_parser = VillaActionParser()


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
