"""One player in one process: every node of the player on one EventsExecutor (ARCHITECTURE.md, Processes).

    player --config team.yaml --unum 3 [--nodes bridge,motion]

`villa team` and `team.launch.py` (composition: player) start one of these per player; with composition: node
they start each node's own console script instead. Parameters: the package's config/<node>.yaml, then the team
configuration's overrides (team, unum, backend, ...), then any `--ros-args` given on the command line.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from villa_bringup.team_config import ConfigError, NodeSpec, default_path, load, swap_to_nao
from villa_sim.lifetime import stop_on_signals

STOP_GRACE = 5.0           # s a clean stop may take (the team's supervisor sends SIGKILL 8 s after its SIGINT)


def node_kwargs(spec: NodeSpec, ros_args: list[str] | None = None) -> dict[str, Any]:
    """The rclpy Node keyword arguments that give `spec` its namespace and parameters."""
    from rclpy.parameter import Parameter

    cli = ["--ros-args", "--params-file", str(spec.params_file), "-r", ":=".join(spec.clock_remap),
           *(ros_args or [])]
    overrides = [Parameter(k, value=v) for k, v in spec.overrides.items() if v is not None]
    return {"namespace": spec.namespace, "cli_args": cli, "parameter_overrides": overrides,
            "use_global_arguments": False}


def split_node_name_remaps(ros_args: list[str]) -> tuple[list[str], list[str]]:
    """(ROS arguments without the global node-name remaps, the remaps taken out).

    `-r __node:=<name>` (or `__name:=`) renames every node it reaches; this process runs several nodes, each named by
    the team configuration, so it would give them all one name. Remaps aimed at one node (`-r motion:__node:=...`)
    stay."""
    kept: list[str] = []
    dropped: list[str] = []
    i = 0
    while i < len(ros_args):
        arg = ros_args[i]
        rule = ros_args[i + 1] if arg in ("-r", "--remap") and i + 1 < len(ros_args) else ""
        if rule.startswith(("__node:=", "__name:=")):
            dropped.append(f"{arg} {rule}")
            i += 2
            continue
        kept.append(arg)
        i += 1
    return kept, dropped


def create_node(spec: NodeSpec, ros_args: list[str] | None = None):
    module, cls = spec.kind.cls.split(":")
    return getattr(importlib.import_module(module), cls)(**node_kwargs(spec, ros_args))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ros_args: list[str] = []
    if "--ros-args" in argv:
        i = argv.index("--ros-args")
        argv, ros_args = argv[:i], argv[i + 1:]
    parser = argparse.ArgumentParser(prog="player", description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(default_path()), help="team configuration (YAML)")
    parser.add_argument("--unum", type=int, required=True, help="which player of the configuration")
    parser.add_argument("--nao", default="", help="<unum>@<ip>: that player drives a physical Nao (NAOqi)")
    parser.add_argument("--nodes", default="", help="comma-separated subset of the player's nodes (default: all)")
    args = parser.parse_args(argv)
    try:
        config = load(args.config)
        if args.nao:
            config = swap_to_nao(config, args.nao)
        player = config.player(args.unum)
    except ConfigError as e:
        print(f"player: {e}", file=sys.stderr)
        return 2
    specs = config.nodes(player)
    if args.nodes:
        wanted = [n.strip() for n in args.nodes.split(",") if n.strip()]
        unknown = sorted(set(wanted) - {s.name for s in specs})
        if unknown:
            print(f"player: --nodes: {', '.join(unknown)} not among this player's nodes "
                  f"({', '.join(s.name for s in specs)})", file=sys.stderr)
            return 2
        specs = [s for s in specs if s.name in wanted]
    if len(specs) > 1:
        ros_args, dropped = split_node_name_remaps(ros_args)
        if dropped:
            print(f"player {config.team} #{player.unum}: ignoring {', '.join(dropped)}: this process runs "
                  f"{', '.join(s.name for s in specs)}, each under its own name", file=sys.stderr)

    # Ctrl-C / SIGTERM set `stop` (EventsExecutor.spin() would not wake, so the loop polls it); a clean stop that
    # hangs ends after STOP_GRACE s anyway: a player whose parent died must not play on
    stop = stop_on_signals(STOP_GRACE, f"player {config.team} #{player.unum}")

    import rclpy
    from rclpy.executors import ExternalShutdownException
    from rclpy.experimental import EventsExecutor

    rclpy.init(args=None, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    executor = EventsExecutor()
    nodes = []
    code = 0
    try:
        try:
            for spec in specs:
                node = create_node(spec, ros_args)
                nodes.append(node)
                executor.add_node(node)
        except ValueError as e:  # a node refused its parameters: one clear line
            print(f"player {config.team} #{player.unum}: {e}", file=sys.stderr)
            code = 2
        else:
            names = ", ".join(n.get_fully_qualified_name() for n in nodes)
            nodes[0].get_logger().info(f"player {config.team} #{player.unum}: running {names} in one process")
            # a callback's exception ends the process with its traceback (the supervisor restarts it), not with one
            # line as if the parameters were bad (a ValueError there, seen in real-time matches)
            while not stop.is_set() and rclpy.ok():
                executor.spin_once(timeout_sec=0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        for node in nodes:
            try:
                node.destroy_node()  # nodes with threads or hardware stop them in destroy_node
            except Exception as e:  # a failing shutdown must not keep the others running
                print(f"player: {node.get_name()}: shutdown failed: {e}", file=sys.stderr)
        rclpy.try_shutdown()
    return code


if __name__ == "__main__":
    sys.exit(main())
