"""The `villa` command: one entry point whose subcommands the packages provide.

    villa doctor        check the environment
    villa sim           start the embedded simulator
    villa team          run a team configuration
    villa match         play a match on the embedded simulator
    villa games         play many headless games and summarize them
    villa record        record topics to MCAP
    villa optimize      learn walk, kick or get-up parameters with CMA-ES
    villa bench         run a benchmark (villa bench: the list)

Subcommands are listed in SUBCOMMANDS as "module:function"; each module is imported only when its
subcommand runs, so a broken package cannot take the whole command down.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# name -> (module:callable taking the parsed args, one-line help, function adding its arguments)
SUBCOMMANDS: dict[str, tuple[str, str, str | None]] = {
    "doctor": ("villa_bringup.doctor:main", "check Python, rclpy, DDS, the built interfaces and where ROS finds "
               "the executables and data", None),
    "sim": ("villa_sim.cli:main", "start the embedded simulator (rcssservermj, Nao, SimSpark field)",
            "villa_sim.cli:add_arguments"),
    "team": ("villa_bringup.team:main", "run a team configuration without a ROS distro (restarts, logs)",
             "villa_bringup.team:add_arguments"),
    "match": ("villa_bringup.match:main", "play a match on the embedded simulator and print the result",
              "villa_bringup.match:add_arguments"),
    "games": ("villa_bringup.games:main", "play N headless games between two configurations or variants and "
              "summarize them (W/D/L, goal difference, falls, localization, kicks)",
              "villa_bringup.games:add_arguments"),
    "record": ("villa_bringup.record:main", "record topics of a running team to an MCAP file (ROS 2 encoding)",
               "villa_bringup.record:add_arguments"),
    "optimize": ("villa_optimize.cli:main", "optimize walk or kick parameters with CMA-ES on parallel villa sims",
                 "villa_optimize.cli:add_arguments"),
    "bench": ("villa_bench.cli:main", "run one of villa's benchmarks (without a name: the list, each with what it "
              "measures)", "villa_bench.cli:add_arguments"),
}


def _resolve(spec: str):
    module, func = spec.split(":")
    return getattr(importlib.import_module(module), func)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="villa",
        description="villa: a ROS 2 stack for RoboCup 3D simulated soccer (UT Austin Villa 2011 design).",
    )
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    for name, (_, help_text, add_args) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if add_args:
            try:
                _resolve(add_args)(p)
            except Exception as e:  # a broken package must not take the other subcommands down
                p.description = f"{help_text} (unavailable: {e})"
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        return int(_resolve(SUBCOMMANDS[args.command][0])(args) or 0)
    except KeyboardInterrupt:
        print(f"villa {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:           # the output piped into a reader that stopped (villa bench | head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
