"""`villa bench`: list the benchmarks, or run one (`villa bench NAME --help` for its flags)."""

from __future__ import annotations

import argparse
import sys

from villa_bench import common, load, names, summary


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help="the benchmark to run; without one, the list")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="the benchmark's own flags (villa bench NAME --help)")
    p.epilog = "benchmarks: " + ", ".join(names())


def parser_for(name: str, module) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=f"villa bench {name}", description=module.__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(ap)
    return ap


def run(name: str, argv: list[str]) -> int:
    try:
        module = load(name)
    except KeyError as e:
        print(f"villa bench: {e.args[0]}", file=sys.stderr)
        return 2
    parser = parser_for(name, module)
    args = parser.parse_args(argv)
    if getattr(args, "socket", False) and getattr(args, "world", None) == "simspark":
        parser.error("--socket applies to villa sim (SimSpark always runs as its own process)")
    if needs_simspark(module, args) and (why := common.simspark_missing()) is not None:
        return common.fail(name, why, 1)
    return int(module.run(args) or 0)


def needs_simspark(module, args: argparse.Namespace) -> bool:
    """Whether the run asks for the real SimSpark: a benchmark that runs on it with --world simspark (one world or
    a list of them), or one that runs only there."""
    if "simspark" not in module.WORLDS:
        return False
    world = getattr(args, "world", None)
    return "villa" not in module.WORLDS or world == "simspark" or (isinstance(world, list) and "simspark" in world)


def list_benchmarks() -> None:
    width = max(len(n) for n in names())
    print("villa bench NAME [flags]: one benchmark (NAME --help for its flags); the benchmarks:")
    for n in names():
        print(f"  {n:<{width}}  {summary(n)}")


def main(args: argparse.Namespace) -> int:
    if not args.name:
        list_benchmarks()
        return 0
    return run(args.name, list(args.rest))
