"""What is under test is the installed wheel, and it is what it says."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

import carla_host


def test_the_package_and_binary_are_the_installed_ones():
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert Path(carla_host.__file__).resolve().is_relative_to(site), carla_host.__file__
    source = os.environ.get("CARLA_HOST_SOURCE")
    if source:
        tree = (Path(source) / "carla-host" / "python").resolve()
        assert not Path(carla_host.__file__).resolve().is_relative_to(tree)
    exe = carla_host.find_binary()
    assert exe.resolve().parent == Path(sysconfig.get_paths()["scripts"]).resolve()
    assert carla_host.__version__ == metadata.version("carla-host")
    plugins = [e for e in metadata.entry_points(group="pytest11") if e.name == "carla_host"]
    assert [e.value for e in plugins] == ["carla_host.pytest_plugin"]
    assert (Path(carla_host.__file__).parent / "py.typed").exists()


def test_the_wheel_is_manylinux_2_17_and_its_binary_needs_no_newer_glibc():
    dist = metadata.distribution("carla-host")
    tags = [line.split(":", 1)[1].strip() for line in dist.read_text("WHEEL").splitlines() if line.startswith("Tag:")]
    assert "py3-none-manylinux_2_17_x86_64" in tags, tags
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("no readelf")
    out = subprocess.run([readelf, "--version-info", "--wide", str(carla_host.find_binary())],
                         capture_output=True, text=True, check=True).stdout
    versions = {tuple(int(n) for n in v.split(".")) for v in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", out)}
    assert versions, "no GLIBC versions found"
    assert max(versions) <= (2, 17), sorted(versions)


def test_python_dash_m_runs_the_server():
    out = subprocess.run([sys.executable, "-m", "carla_host", "--version"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"carla-host {carla_host.__version__}"


def test_the_server_knows_its_new_options():
    out = subprocess.run([str(carla_host.find_binary()), "--help"], capture_output=True, text=True, timeout=30).stdout
    for option in ("--ports-file", "--exit-with-stdin", "--seed"):
        assert option in out
