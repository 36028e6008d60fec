#!/usr/bin/env bash
# ROS 2's launch and command-line tools for the tests of the ROS user's path (`ros2 launch`, `ros2 node list`,
# `ros2 topic echo`), from their upstream sources in ../shared/ros2_launch_kit (or $VILLA_LAUNCH_KIT; README there):
# launch, launch_ros, ros2launch and ros2cli installed with `pip install --no-deps --prefix` into a prefix of their own,
# .villa-launch-kit/prefix (never into .venv, where they could shadow a ROS distro's), and composition_interfaces
# built into the same prefix with colcon. .villa-launch-kit/env.sh puts the prefix on top of `source scripts/env.sh`.
#
#   scripts/launch_kit.sh        (the tests' launch_kit fixture runs it; needs scripts/setup.sh done)
#
# Idempotent: a stamp holds the hash of the archives, the pins and this script. Prints the prefix on success.
# Exit 0: ready; 3: the sources are not there (tests skip, saying so); 1: failed (one line: what, log, what to do).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIT="${VILLA_LAUNCH_KIT:-$ROOT/../shared/ros2_launch_kit}"
OUT="$ROOT/.villa-launch-kit"
PREFIX="$OUT/prefix"
STAMP="$OUT/.ready"
LOGDIR="$ROOT/.villa-logs"
ARCHIVES=(launch-3.7.1.tar.gz launch_ros-0.28.0.tar.gz ros2cli-0.36.1.tar.gz composition_interfaces-2.2.0.tar.gz)
# The Python packages of the archives, in the directories they unpack to.
PACKAGES=(launch/launch launch/launch_xml launch/launch_yaml launch_ros/launch_ros launch_ros/ros2launch
          ros2cli/ros2cli ros2cli/ros2pkg ros2cli/ros2node ros2cli/ros2topic ros2cli/ros2run ros2cli/ros2param
          ros2cli/ros2interface ros2cli/ros2service rosidl_runtime_py)
# rosidl_runtime_py (`ros2 topic echo` imports it) is neither in the kit nor on PyPI: third_party/ holds its upstream
# source (README there).
EXTRA="$ROOT/third_party/rosidl_runtime_py-0.14.0.tar.gz"
# Their PyPI dependencies beyond requirements.txt (which has lark-parser and PyYAML), and `wheel`, which lets the
# venv's setuptools build them without pip's per-package build isolation (seconds instead of minutes).
PINS=(osrf-pycommon==2.0.2 wheel==0.45.1)

fail() {
    echo "villa launch kit: FAILED: $1 -- $2" >&2
    exit 1
}

for a in "${ARCHIVES[@]}"; do
    if [ ! -f "$KIT/$a" ]; then
        echo "villa launch kit: $KIT/$a not found (set VILLA_LAUNCH_KIT to the ros2_launch_kit folder)" >&2
        exit 3
    fi
done
mkdir -p "$LOGDIR"
exec 9>"$LOGDIR/launch_kit.lock"   # one build at a time per checkout
flock 9

set +u
# shellcheck disable=SC1091
. "$ROOT/scripts/env.sh" || exit 1
set -u
HASH="$( (cd "$KIT" && cat "${ARCHIVES[@]}"; echo "$ROOT ${PINS[*]}"; cat "$ROOT/requirements.txt" "$ROOT/scripts/launch_kit.sh" \
          "$EXTRA") | sha256sum | cut -d' ' -f1)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$HASH" ]; then
    echo "$PREFIX"
    exit 0
fi

echo "villa launch kit: installing ROS 2 launch and ros2cli from $KIT into $PREFIX (first time: about a minute)" >&2
rm -rf "$OUT"
mkdir -p "$OUT/src" "$PREFIX"
for a in "${ARCHIVES[@]/#/$KIT/}" "$EXTRA"; do
    tar -xzf "$a" -C "$OUT/src" || fail "could not unpack $a" "check the archive"
done
SITE="$PREFIX/$(python -c 'import sys; print("lib/python%d.%d/site-packages" % sys.version_info[:2])')"
LOG="$LOGDIR/launch_kit.log"
{
    pip install --disable-pip-version-check --no-deps --prefix "$PREFIX" "${PINS[@]}" \
    && (cd "$OUT/src" && PYTHONPATH="$SITE:${PYTHONPATH:-}" pip install --disable-pip-version-check --no-deps \
            --no-build-isolation --prefix "$PREFIX" "${PACKAGES[@]/#/./}")
} >"$LOG" 2>&1 || fail "pip could not install the launch kit (log: $LOG)" "fix the error shown there, then rerun"
# composition_interfaces (launch_ros.actions imports it) is an interface package: colcon, like villa_msgs.
(cd "$OUT" && colcon --log-base log build --merge-install --base-paths src/rcl_interfaces/composition_interfaces \
    --build-base build --install-base "$PREFIX" --cmake-args -DBUILD_TESTING=OFF --event-handlers console_direct- \
    >>"$LOG" 2>&1) || fail "colcon could not build composition_interfaces (log: $LOG)" "fix the error shown there, then rerun"

cat >"$OUT/env.sh" <<EOF
# Source after scripts/env.sh: ROS 2's launch and ros2cli (tests only, scripts/launch_kit.sh).
export PATH="$PREFIX/bin:\$PATH"
export PYTHONPATH="$SITE:\$PYTHONPATH"
export AMENT_PREFIX_PATH="$PREFIX:\$AMENT_PREFIX_PATH"
export LD_LIBRARY_PATH="$PREFIX/lib:\${LD_LIBRARY_PATH:-}"
EOF
# shellcheck disable=SC1091
(set +u && . "$OUT/env.sh" && ros2 pkg prefix launch_ros >/dev/null && python -c "import launch_ros.actions, composition_interfaces.srv, rosidl_runtime_py" \
    >>"$LOG" 2>&1) || fail "the installed launch kit does not import (log: $LOG)" "rm -rf $OUT and rerun"
echo "$HASH" >"$STAMP"
echo "$PREFIX"
