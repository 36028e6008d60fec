"""python -m villa_bench NAME [flags] (the same as villa bench NAME)."""

import sys

from villa_bench.cli import list_benchmarks, run

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        list_benchmarks()
        sys.exit(0)
    sys.exit(run(sys.argv[1], sys.argv[2:]))
