#!/usr/bin/env bash
# villa tests: every package's pytest suite (unit, protocol and integration tests) in one run.
#
#   scripts/test.sh [pytest args]      (make test; .ci/run calls the same)
#
# Sets up the environment first (idempotent). The run gets its own ROS_DOMAIN_ID (allocated by
# conftest.py with a lock file, so concurrent runs on one machine never share one), discovery stays
# on this host, and Fast DDS shared memory left by the run is cleaned afterwards. The last line
# printed is pytest's summary.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" || exit 1
set +u
# shellcheck disable=SC1091
. "$ROOT/scripts/env.sh" || exit 1
set -u
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export PYTHONDONTWRITEBYTECODE=1
cd "$ROOT"
before="$(python -c 'from villa_sim.testing import dds_port_segments as d; print(" ".join(sorted(d())))')"
python -m pytest "$@"
rc=$?
# fastdds shm clean, and the port segments of this run that no process maps (a participant killed with SIGKILL
# leaves them: 8 files after one run of two on the development machine)
# shellcheck disable=SC2086
python -c 'import sys; from villa_sim.testing import remove_stale_dds_ports as r; r(set(sys.argv[1:]))' $before \
    >/dev/null 2>&1 || true
exit $rc
