# Source this file to use villa in the current shell:  source scripts/env.sh
# (after scripts/setup.sh). It activates .venv and sources the colcon workspace.
_villa_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
if [ ! -f "$_villa_root/.venv/.villa-ready" ] || [ ! -f "$_villa_root/ros2_ws/install/setup.bash" ]; then
    echo "villa: the environment is not set up; run scripts/setup.sh (or make setup) first" >&2
    return 1 2>/dev/null || exit 1
fi
# shellcheck disable=SC1091
. "$_villa_root/.venv/bin/activate"
export AMENT_PREFIX_PATH="$VIRTUAL_ENV"
# shellcheck disable=SC1091
. "$_villa_root/ros2_ws/install/setup.bash"
export RMW_IMPLEMENTATION="${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}"
unset _villa_root
