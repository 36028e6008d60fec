"""Write the checked-in model files: models/nao.xml (MJCF, robot type 0) and models/nao.urdf.

    python -m villa_nao.generate_models [output_dir]     (default: the package's models/ directory)

test_models.py asserts the checked-in files equal the generators' output, so they cannot drift.
"""

from __future__ import annotations

import sys
from pathlib import Path

from villa_nao.mjcf import write_mjcf
from villa_nao.urdf import write_urdf

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
FILES = {"nao.xml": lambda p: write_mjcf(p, 0), "nao.urdf": lambda p: write_urdf(p, 0)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else MODELS_DIR
    out.mkdir(parents=True, exist_ok=True)
    for name, write in FILES.items():
        print(write(out / name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
