"""villa sim stepped in process (villa_sim.hosted): robots joining leave MuJoCo no bad controls to warn about."""

import mujoco
import numpy as np
import pytest

from villa_bridge import effectors
from villa_sim.hosted import HostedServer


@pytest.fixture
def mujoco_warnings():
    """MuJoCo's warnings (mju_warning: printed and written to MUJOCO_LOG.TXT in the working directory otherwise)."""
    seen: list[str] = []
    before = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(seen.append)
    yield seen
    mujoco.set_mju_user_warning(before)


@pytest.mark.filterwarnings("error::RuntimeWarning")    # numpy's too: nothing to warn about in a normal start
def test_robots_join_without_a_bad_control_warning(mujoco_warnings):
    server = HostedServer(vision_noise=False, seed=3)
    for team, unum in (("villa", 1), ("villa", 2), ("other", 1), ("other", 2)):
        server.connect([effectors.rcssservermj_init("nao", team, unum)], lambda data: "(syn)")
        server.step()                    # joins one at a time, as players do: a recompile per robot
    for _ in range(10):
        server.step()
    assert len(server.agents) == 4
    assert mujoco_warnings == []
    assert np.all(np.isfinite(server.sim._mj_data.ctrl))
