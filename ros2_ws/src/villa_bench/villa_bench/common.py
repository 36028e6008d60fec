"""The flags every benchmark shares, in one vocabulary, and the worlds they pick.

    --world villa|simspark     villa sim (in this process; --socket: as its own `villa sim` process) or the real
                               SimSpark (rcssserver3d, started on free ports)
    --robot-types 0,1,...      the Nao types (0-4) to measure
    --runs N                   repetitions (trials, walks, kicks, games: the benchmark's docstring says which)
    --seed S                   the first random seed; run i uses S + i where a benchmark draws starts or noise
"""

from __future__ import annotations

import argparse
import sys

ROBOT_TYPES = (0, 1, 2, 3, 4)
WORLDS = ("villa", "simspark")                 # the simulators (villa_optimize.worlds.WORLDS)


def robot_types_arg(text: str) -> list[int]:
    """'0,2,4' -> [0, 2, 4]; argparse error for anything but Nao types 0-4."""
    try:
        types = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"robot types are integers 0-4, comma-separated, not {text!r}") from None
    if not types or any(t not in ROBOT_TYPES for t in types):
        raise argparse.ArgumentTypeError(f"robot types are 0-4, comma-separated, not {text!r}")
    return types


def _number(text: str, cast, ok, what: str):
    """`text` as `cast` when `ok` holds for it; argparse's error naming `what` was expected otherwise."""
    try:
        value = cast(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}")
    return value


def positive_int(text: str) -> int:
    return _number(text, int, lambda v: v >= 1, "a positive integer")


def non_negative_float(text: str) -> float:
    return _number(text, float, lambda v: v >= 0, "a number >= 0")


def positive_float(text: str) -> float:
    return _number(text, float, lambda v: v > 0, "a positive number")


def add_world(ap: argparse.ArgumentParser, default: str = "villa", worlds: tuple[str, ...] = WORLDS,
              socket: bool = True) -> None:
    """--world (one of `worlds`) and, where villa sim can run as its own process, --socket."""
    ap.add_argument("--world", choices=worlds, default=default,
                    help=f"villa (villa sim) or simspark (the real rcssserver3d); default {default}")
    if socket and "villa" in worlds:
        ap.add_argument("--socket", action="store_true",
                        help="villa sim as its own process on a socket (as games see it) instead of in this process")


def add_robot_types(ap: argparse.ArgumentParser, default: str = "0") -> None:
    ap.add_argument("--robot-types", type=robot_types_arg, default=robot_types_arg(default), metavar="T,T,...",
                    help=f"Nao robot types 0-4, comma-separated (default {default})")


def add_runs(ap: argparse.ArgumentParser, default: int, what: str = "repetitions") -> None:
    ap.add_argument("--runs", type=positive_int, default=default, metavar="N", help=f"{what} (default {default})")


def add_seed(ap: argparse.ArgumentParser, default: int = 1) -> None:
    ap.add_argument("--seed", type=int, default=default, help=f"first random seed (default {default})")


def add_common(ap: argparse.ArgumentParser, runs: int, what: str = "repetitions", robot_types: str = "0",
               world: str | None = "villa", worlds: tuple[str, ...] = WORLDS, socket: bool = True,
               seed: int = 1) -> None:
    """The four common flags at once (world None: the benchmark runs on no simulator)."""
    if world is not None:
        add_world(ap, world, worlds, socket)
    add_robot_types(ap, robot_types)
    add_runs(ap, runs, what)
    add_seed(ap, seed)


def make_world(args: argparse.Namespace, robot_type: int, seed: int | None = None):
    """The optimizer's episode world the flags name, for one robot type (villa_optimize.worlds.make_world)."""
    from villa_optimize.worlds import make_world as make

    return make(args.world, robot_type, args.seed if seed is None else seed, socket=getattr(args, "socket", False))


def world_label(args: argparse.Namespace) -> str:
    """How a benchmark's first line names its world."""
    if args.world == "simspark":
        return "SimSpark (rcssserver3d)"
    return "villa sim" + (" (own process)" if getattr(args, "socket", False) else " (in process)")


def fail(benchmark: str, message: str, code: int = 2) -> int:
    """One line on stderr for an expected condition (bad input, a world not installed); the exit code to return."""
    print(f"villa bench {benchmark}: {message}", file=sys.stderr, flush=True)
    return code


def simspark_missing() -> str | None:
    """Why the real SimSpark cannot run here (not installed), or None."""
    from villa_sim.simspark import available

    ok, why = available()
    return None if ok else why
