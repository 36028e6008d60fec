"""villa_sim.sensing makes the same perceptions as rcssservermj, byte for byte on the wire, cycle by cycle in a game."""

import argparse

import numpy as np
from rcsssmj.games.soccer.sim.soccer_sim import SoccerSimulation
from rcsssmj.server.perception_encoder import DefaultPerceptionEncoder

from villa_bringup import games as G
from villa_sim.hosted import HostedServer
from villa_sim.sensing import Sensing


def test_the_same_perceptions_as_rcssservermj_every_cycle_of_a_game():
    args = argparse.Namespace(config=None, opponent_config=None, variant=None, opponent="allball", players=2, seed=3,
                              server="villa", socket=False, noise="simspark", out="/tmp", connect_timeout=60,
                              stall_timeout=60, games=1, duration=1.0)
    game = G.HostedGame(G.specs_from_args(args)[0], "villa")
    server = HostedServer(vision_noise=False, seed=3)
    game.join(server)
    sim, encoder, sensing = server.sim, DefaultPerceptionEncoder(), Sensing()
    compared = visions = 0
    for cycle in range(400):
        server.step()
        if cycle == 100:
            server.kick_off("Left")
        if cycle % 7:
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            SoccerSimulation.generate_perceptions(sim)              # rcssservermj's own
        theirs = {a.agent_id.prefix: encoder.encode(a.perceptions) for a in sim.sim_agents}
        sensing.generate(sim)
        ours = {a.agent_id.prefix: encoder.encode(a.perceptions) for a in sim.sim_agents}
        assert ours == theirs, cycle
        compared += len(ours)
        visions += sum(b"See" in m for m in ours.values())
    assert compared > 200 and visions > 50 and len(ours) == 4
