#!/usr/bin/env bash
# Source ROS 2 Kilted and the villa workspace, then run the command (default: the team launch file).
set -e
. /opt/ros/kilted/setup.bash
. /villa/ros2_ws/install/setup.bash
exec "$@"
