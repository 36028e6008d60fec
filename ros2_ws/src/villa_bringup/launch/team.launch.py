"""Launch a villa team from its team configuration (for users with a ROS 2 distro; `villa team` does the same
without one).

    ros2 launch villa_bringup team.launch.py                                  # config/team.yaml
    ros2 launch villa_bringup team.launch.py team_config:=/path/to/team.yaml
    ros2 launch villa_bringup team.launch.py nao:=3@192.168.1.12              # player 3 is a physical Nao

Per-player namespaces /<team>/p<unum>; parameters from each package's config/<node>.yaml plus the team
configuration's overrides; players started `stagger` seconds apart; a process that dies is respawned, at most
RESTART_LIMIT times (as `villa team` does), so a crash loop ends.
composition: player runs each player's nodes in one process (villa_bringup's `player`; no `name=`: the process hosts
five nodes, named by the team configuration), node one process per node.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, LogInfo, OpaqueFunction, TimerAction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from villa_bringup.team import RESTART_LIMIT
from villa_bringup.team_config import default_path, load, swap_to_nao


def _team(context, *args, **kwargs):
    path = LaunchConfiguration("team_config").perform(context) or str(default_path())
    config = load(path)
    nao = LaunchConfiguration("nao").perform(context)
    if nao:
        config = swap_to_nao(config, nao)
    respawn = LaunchConfiguration("respawn").perform(context).lower() in ("true", "1", "yes")
    actions = [LogInfo(msg=f"villa team {config.team}: {len(config.players)} players from {path}, "
                           f"composition {config.composition}")]
    for i, player in enumerate(config.players):
        specs = config.nodes(player)
        ns = player.namespace(config.team)
        if config.composition == "player":
            nodes = [Node(package="villa_bringup", executable="player", namespace=ns,
                          arguments=["--config", config.source, "--unum", str(player.unum)]
                          + (["--nao", nao] if nao else []),
                          respawn=respawn, respawn_delay=2.0, respawn_max_retries=RESTART_LIMIT, output="screen")]
        else:
            nodes = [Node(package=s.kind.package, executable=s.kind.executable, name=s.name, namespace=s.namespace,
                          parameters=[str(s.params_file), {k: v for k, v in s.overrides.items() if v is not None}],
                          remappings=[s.clock_remap],
                          respawn=respawn, respawn_delay=2.0, respawn_max_retries=RESTART_LIMIT, output="screen")
                     for s in specs]
        actions.append(TimerAction(period=i * config.stagger, actions=nodes))
    return actions


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument("team_config", default_value="",
                              description="team configuration YAML (default: villa_bringup config/team.yaml)"),
        DeclareLaunchArgument("nao", default_value="",
                              description="<unum>@<ip>: drive that player's body with a physical Nao (NAOqi)"),
        DeclareLaunchArgument("respawn", default_value="true", description="restart processes that die"),
        OpaqueFunction(function=_team),
    ])
