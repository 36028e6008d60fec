from glob import glob

from setuptools import find_packages, setup

package_name = "villa_motion"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/config", glob("config/*.yaml")),
        ("share/" + package_name + "/skills", glob("skills/*.skl")),
        ("share/" + package_name + "/kicks", glob("kicks/*.kick")),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="villa founders",
    maintainer_email="founders@villa-robocup.org",
    description="Motion: omnidirectional walk engine, IK kick engine, skill files, get-up, goalie dives, head control.",
    license="Apache-2.0",
    entry_points={
        "console_scripts": [
            "motion = villa_motion.node:main",
        ],
    },
)
