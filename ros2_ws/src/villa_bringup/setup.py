from glob import glob

from setuptools import find_packages, setup

package_name = "villa_bringup"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/config", glob("config/*.yaml")),
        ("share/" + package_name + "/launch", glob("launch/*.launch.py")),
        ("share/" + package_name + "/rviz", glob("rviz/*.rviz")),
        ("bin", ["scripts/villa"]),   # `villa` on PATH; the console scripts live in lib/villa_bringup (setup.cfg)
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="villa founders",
    maintainer_email="founders@villa-robocup.org",
    description="Bring-up of the villa RoboCup 3D stack and the villa command.",
    license="Apache-2.0",
    entry_points={
        "console_scripts": [
            "villa = villa_bringup.cli:main",
            "player = villa_bringup.player:main",
            "field_markers = villa_bringup.field_markers:main",
        ],
    },
)
