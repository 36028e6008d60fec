"""villa's benchmarks behind one command: ``villa bench NAME [...]`` (or ``python -m villa_bench NAME``).

Every benchmark is a module of `villa_bench.benchmarks` with a docstring (its first line says what it measures) and

    WORLDS       the worlds it runs on, ("villa", "simspark"), ("simspark",) or () for none
    RUN_TIME     its run time at the default size on the development machine, one phrase
    SMOKE        the arguments of a tiny run (the smoke test runs every benchmark with them)
    add_arguments(parser)   its flags (the common ones from villa_bench.common)
    run(args) -> int        measure and print; the exit code

Benchmarks print figures; they are never timed tests (docs/developing.md).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

_BENCHMARKS = Path(__file__).parent / "benchmarks"


def names() -> list[str]:
    """Every benchmark's name, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules([str(_BENCHMARKS)]) if not m.name.startswith("_"))


def summary(name: str) -> str:
    """The first line of a benchmark's docstring, read without importing it (`villa bench` lists them all)."""
    doc = ast.get_docstring(ast.parse((_BENCHMARKS / f"{name}.py").read_text())) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def load(name: str):
    """The benchmark module `name`; KeyError listing the known ones for a name that is none."""
    if name not in names():
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(names())}")
    return importlib.import_module(f"villa_bench.benchmarks.{name}")
