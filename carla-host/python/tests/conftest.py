"""Helpers for the installed package's tests (scripts/test-wheel.sh runs
them in a fresh virtual environment with the wheel installed)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

import pytest

EXAMPLE_PROJECT = Path(__file__).resolve().parent.parent / "example-project"


def proc_argv(pid: int) -> List[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]


def proc_env(pid: int) -> Dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    env = {}
    for item in raw.split(b"\0"):
        key, _, value = item.partition(b"=")
        if key:
            env[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return env


def alive(pid: int) -> bool:
    """Running (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def servers(mark: Optional[str] = None) -> List[int]:
    """The pids of running carla-host processes (with CARLA_HOST_TEST_MARK
    = ``mark`` in their environment, if given)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        argv = proc_argv(pid)
        if not argv or os.path.basename(argv[0]) != "carla-host" or not alive(pid):
            continue
        if mark is not None and proc_env(pid).get("CARLA_HOST_TEST_MARK") != mark:
            continue
        found.append(pid)
    return found


def wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture
def linux_only() -> None:
    if not Path("/proc/self/cmdline").exists():
        pytest.skip("reads /proc")
