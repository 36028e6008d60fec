"""`villa sim`: start the embedded simulator (rcssservermj with the villa Nao on a SimSpark field)."""

from __future__ import annotations

import argparse
import logging
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--agent-port", type=int, default=3100, help="agent port (default 3100, as SimSpark)")
    p.add_argument("--monitor-port", type=int, default=3200, help="monitor/trainer port (default 3200)")
    p.add_argument("--sync", action=argparse.BooleanOptionalAction, default=True,
                   help="step only when every agent answered (default on)")
    p.add_argument("--realtime", action=argparse.BooleanOptionalAction, default=False,
                   help="pace cycles at 20 ms wall time (default off: as fast as the agents answer)")
    p.add_argument("--render", action=argparse.BooleanOptionalAction, default=False,
                   help="open rcssservermj's MuJoCo viewer (needs a display; default off)")
    p.add_argument("--vision-noise", choices=("simspark", "off"), default="simspark",
                   help="vision noise model (default simspark: SimSpark's distance/angle sigmas and calibration)")
    p.add_argument("--seed", type=int, default=None, help="seed for the noise (default: random)")
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def main(args: argparse.Namespace | None = None) -> int:
    if args is None:
        parser = argparse.ArgumentParser(prog="villa sim", description=__doc__)
        add_arguments(parser)
        args = parser.parse_args()
    for port in (args.agent_port, args.monitor_port):
        if not 0 < port < 65536:
            print(f"villa sim: port {port} is out of range 1..65535", file=sys.stderr)
            return 2
    if args.agent_port == args.monitor_port:
        print("villa sim: --agent-port and --monitor-port must differ", file=sys.stderr)
        return 2
    from villa_sim.server import SimOptions, run

    logging.basicConfig(level=getattr(logging, args.log_level), format="[%(levelname)s] %(name)s: %(message)s")
    return run(SimOptions(host=args.host, agent_port=args.agent_port, monitor_port=args.monitor_port,
                          sync=args.sync, real_time=args.realtime, render=args.render,
                          vision_noise=args.vision_noise == "simspark", seed=args.seed))


if __name__ == "__main__":
    sys.exit(main())
