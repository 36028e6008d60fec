from setuptools import find_packages, setup

package_name = "villa_bench"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml", "README.md"]),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="villa founders",
    maintainer_email="founders@villa-robocup.org",
    description="villa's benchmarks behind one command, villa bench NAME.",
    license="Apache-2.0",
)
