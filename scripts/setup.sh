#!/usr/bin/env bash
# villa setup: a virtual environment with the pinned ROS 2 Kilted wheels, the four known fixes,
# and the colcon workspace. Idempotent: a re-run with nothing changed only checks two stamps.
#
#   scripts/setup.sh          (make setup; every README command runs it first)
#
# Environment: VILLA_PYTHON=/path/to/python3.11 picks the interpreter.
# The environment counts as good only when .venv/.villa-ready matches requirements.txt, and the
# build only when ros2_ws/install/.villa-built matches the sources; a failed step removes its stamp,
# so a half-built environment is never mistaken for a good one.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
WS="$ROOT/ros2_ws"
VENV_STAMP="$VENV/.villa-ready"
BUILD_STAMP="$WS/install/.villa-built"
LOGDIR="$ROOT/.villa-logs"
mkdir -p "$LOGDIR"

# One setup at a time per checkout: concurrent colcon builds into one install/ would corrupt it.
exec 9>"$LOGDIR/setup.lock"
flock 9

say() { echo "villa setup: $*"; }
fail() {  # one clear line: what failed and what to do
    echo "villa setup: FAILED: $1 -- $2" >&2
    exit 1
}

# --- 1. Python: the ROS 2 Kilted wheels on PyPI are built for CPython 3.11 and 3.12.
find_python() {
    if [ -n "${VILLA_PYTHON:-}" ]; then echo "$VILLA_PYTHON"; return; fi
    for p in python3.11 python3.12 python3; do
        if command -v "$p" >/dev/null 2>&1; then command -v "$p"; return; fi
    done
}
PY="$(find_python)"
[ -n "$PY" ] || fail "no python3 found" "install Python 3.11 (or set VILLA_PYTHON=/path/to/python3.11) and rerun"
PYVER="$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" \
    || fail "$PY does not run" "set VILLA_PYTHON to a working Python 3.11 and rerun"
case "$PYVER" in
    3.11|3.12) ;;
    *) fail "Python $PYVER at $PY is not supported (ROS 2 Kilted wheels exist for 3.11 and 3.12)" \
            "install Python 3.11 and rerun with VILLA_PYTHON=/path/to/python3.11" ;;
esac

# --- 2. The virtual environment with pinned requirements (skipped when the stamp matches).
REQ_HASH="$( (cat "$ROOT/requirements.txt"; echo "$PYVER") | sha256sum | cut -d' ' -f1)"
if [ -f "$VENV_STAMP" ] && [ "$(cat "$VENV_STAMP")" = "$REQ_HASH" ] && [ -x "$VENV/bin/python" ]; then
    :
else
    rm -f "$VENV_STAMP" "$BUILD_STAMP"
    if [ -x "$VENV/bin/python" ]; then
        VENV_VER="$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo none)"
        if [ "$VENV_VER" != "$PYVER" ]; then
            say "re-creating .venv (it has Python $VENV_VER, setup uses $PYVER)"
            rm -rf "$VENV"
        fi
    fi
    if [ ! -x "$VENV/bin/python" ]; then
        say "creating .venv with Python $PYVER"
        "$PY" -m venv "$VENV" >"$LOGDIR/venv.log" 2>&1 \
            || fail "could not create the virtual environment (log: $LOGDIR/venv.log)" \
                    "install the venv module for Python $PYVER (Debian: apt install python3-venv) and rerun"
    fi
    say "installing pinned requirements into .venv (first time: about a minute)"
    if ! "$VENV/bin/python" -m pip install --disable-pip-version-check -r "$ROOT/requirements.txt" \
            >"$LOGDIR/pip.log" 2>&1; then
        # A package that is certainly on PyPI must be visible; if it is not, the registry is the problem.
        if grep -qiE "connection|network is unreachable|name resolution|max retries|timed out|proxy" "$LOGDIR/pip.log" \
            || ! "$VENV/bin/python" -m pip index versions --disable-pip-version-check ros-kilted-rclpy \
                 >>"$LOGDIR/pip.log" 2>&1; then
            fail "the package registry (PyPI) cannot be reached (log: $LOGDIR/pip.log)" \
                 "check the network or set PIP_INDEX_URL to a reachable mirror, then rerun"
        fi
        fail "pip could not install requirements.txt (log: $LOGDIR/pip.log, last lines name the package)" \
             "fix the named package or pin in requirements.txt, then rerun"
    fi
fi

# --- 3. The known fixes for building interfaces against the PyPI wheels.
# The wheels' exported CMake targets name the wheel-build interpreter (/opt/python/cp3XX-cp3XX/...);
# point them at this venv's Python and numpy include directories. Idempotent: only files that
# still name /opt/python are rewritten.
PYINC="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
NPINC="$("$VENV/bin/python" -c 'import numpy; print(numpy.get_include())')"
mapfile -t CMAKE_FILES < <(grep -rl "/opt/python/cp3" --include='*.cmake' "$VENV/share" 2>/dev/null)
if [ "${#CMAKE_FILES[@]}" -gt 0 ]; then
    sed -i -E \
        -e "s#/opt/python/cp3[0-9]+-cp3[0-9]+/lib/python3\.[0-9]+/site-packages/numpy/_core/include#$NPINC#g" \
        -e "s#/opt/python/cp3[0-9]+-cp3[0-9]+/include/python3\.[0-9]+#$PYINC#g" \
        "${CMAKE_FILES[@]}" || fail "could not rewrite the wheel-build paths in .venv/share" "rerun; if it persists, rm -rf .venv"
    say "pointed ${#CMAKE_FILES[@]} CMake export files at this interpreter"
fi
if [ ! -f "$VENV_STAMP" ]; then
    "$VENV/bin/python" -c "import rclpy, rosidl_generator_py, numpy" >"$LOGDIR/check.log" 2>&1 \
        || fail "the installed environment does not import rclpy (log: $LOGDIR/check.log)" "rm -rf .venv and rerun"
    echo "$REQ_HASH" > "$VENV_STAMP"
fi

# --- 4. colcon build (skipped when no file under ros2_ws/src changed since the last good build).
export VIRTUAL_ENV="$VENV"
export PATH="$VENV/bin:$PATH"
export AMENT_PREFIX_PATH="$VENV"
# Interface packages the wheels lack, from their upstream archives (third_party/README.md): tf2_msgs (/tf,
# /tf_static). Unpacked outside ros2_ws/src, so that a ROS distro user's own colcon build of ros2_ws/src never builds a
# second tf2_msgs over the distro's; built here with the workspace, into ros2_ws/install. Not built where this
# environment already has one (ament_index finds it: AMENT_PREFIX_PATH is the venv alone here, never the workspace).
TP_DIR="$ROOT/.villa-third-party"
TP_ARCHIVE="$ROOT/third_party/tf2_msgs-0.41.7.tar.gz"
TP_PKG="$TP_DIR/src/geometry2-0.41.7/tf2_msgs"
BASE_PATHS=(src)
if "$VENV/bin/python" -c 'from ament_index_python.packages import get_package_prefix as p; p("tf2_msgs")' \
        >/dev/null 2>&1; then
    TP_STATE="tf2_msgs from the environment"
    rm -rf "$WS/install/tf2_msgs" "$WS/build/tf2_msgs"   # an earlier build of ours would shadow it
else
    [ -f "$TP_ARCHIVE" ] || fail "$TP_ARCHIVE is missing" "restore third_party/ from git (git checkout -- third_party)"
    TP_STATE="$(cat "$TP_ARCHIVE" "$ROOT/third_party/colcon.meta" | sha256sum | cut -d' ' -f1)"
    if [ ! -f "$TP_PKG/package.xml" ] || [ "$(cat "$TP_DIR/.unpacked" 2>/dev/null)" != "$TP_STATE" ]; then
        rm -rf "$TP_DIR"
        mkdir -p "$TP_DIR/src"
        tar -xzf "$TP_ARCHIVE" -C "$TP_DIR/src" \
            || fail "could not unpack $TP_ARCHIVE" "restore third_party/ from git (git checkout -- third_party)"
        echo "$TP_STATE" > "$TP_DIR/.unpacked"
    fi
    BASE_PATHS+=("$TP_PKG")
fi
SRC_HASH="$( (cd "$WS/src" && find . -path '*/__pycache__' -prune -o -type f -printf '%p %s %T@\n' | sort; echo "$REQ_HASH"
              echo "$TP_STATE") | sha256sum | cut -d' ' -f1)"
if [ -f "$BUILD_STAMP" ] && [ "$(cat "$BUILD_STAMP")" = "$SRC_HASH" ]; then
    exit 0
fi
rm -f "$BUILD_STAMP"
# The Python packages' bin/ holds only what their build puts there (villa_bringup's `villa`; console scripts go to
# lib/<package>, setup.cfg): clearing it drops scripts an older layout left there, which would collide with bin/villa.
for setup_py in "$WS"/src/*/setup.py; do
    rm -rf "$WS/install/$(basename "$(dirname "$setup_py")")/bin"
done
say "colcon build (ros2_ws)"
if ! (cd "$WS" && colcon --log-base log build --symlink-install --base-paths "${BASE_PATHS[@]}" \
        --metas "$ROOT/third_party/colcon.meta" --event-handlers console_direct- >"$LOGDIR/colcon.log" 2>&1); then
    FAILED="$(grep -oE 'Failed +<<< [A-Za-z0-9_]+' "$LOGDIR/colcon.log" | awk '{print $3}' | tr '\n' ' ')"
    fail "colcon build failed for: ${FAILED:-see log} (log: $LOGDIR/colcon.log)" \
         "fix the error shown there, then rerun"
fi
# numba compiles the kinematics' kernels at their first import and caches them beside the module: do it here, once,
# not in the first game or test that walks (a few seconds; nothing when the cache is current)
say "compiling the kinematics' kernels (numba; cached)"
if ! (set +eu; source "$ROOT/scripts/env.sh" >/dev/null && python -c "import villa_nao.compiled") >"$LOGDIR/numba.log" 2>&1; then
    fail "compiling villa_nao.compiled failed (log: $LOGDIR/numba.log)" "fix the error shown there, then rerun"
fi
echo "$SRC_HASH" > "$BUILD_STAMP"
say "ready (source scripts/env.sh to use villa in this shell)"
