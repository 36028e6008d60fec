from glob import glob

from setuptools import find_packages, setup

package_name = "villa_optimize"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/config", glob("config/*.yaml")),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="villa founders",
    maintainer_email="founders@villa-robocup.org",
    description="Optimization tasks from phases, walk and kick fitness functions, parallel CMA-ES on villa sim.",
    license="Apache-2.0",
)
