"""Starting and stopping the bundled ``carla-host`` binary.

The server is started with ``--port 0`` (it binds free ports for everything
and names them on one JSON line, written whole to a ports file) and
``--exit-with-stdin`` (it stops when the pipe on its standard input closes,
so a Python process that dies, however it dies, takes its server with it).
Its standard output and error go to a log file; a start that fails raises
:class:`ServerStartError` with the cause and the log's last lines.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import IO, Any, Dict, Iterable, Mapping, Optional, Sequence, Union

PathLike = Union[str, "os.PathLike[str]"]

#: Environment variable naming the server binary to run instead of the
#: bundled one (a development build, for instance).
BINARY_ENV = "CARLA_HOST_BINARY"

_EXE = "carla-host.exe" if os.name == "nt" else "carla-host"


class ServerStartError(RuntimeError):
    """The server did not start: it exited, did not get ready in time, or
    was given something it cannot use (a missing maps folder, a ports file
    in a folder that does not exist, no binary).

    ``returncode`` is the server's exit status if it exited, ``log_tail``
    its last log lines (empty if it never ran)."""

    def __init__(self, message: str, returncode: Optional[int] = None, log_tail: str = "") -> None:
        full = message
        if log_tail:
            full += "\n--- the server's last log lines ---\n" + log_tail
        super().__init__(full)
        self.returncode = returncode
        self.log_tail = log_tail


def find_binary() -> Path:
    """The ``carla-host`` executable: ``$CARLA_HOST_BINARY`` if set, else
    the one this package was installed with (the environment's scripts
    folder, or the user scheme's), else the first on ``PATH``."""
    named = os.environ.get(BINARY_ENV)
    if named:
        path = Path(named)
        if not path.is_file():
            raise ServerStartError(f"${BINARY_ENV} names {named}, which is not a file")
        return path
    candidates = [sysconfig.get_path("scripts")]
    try:
        candidates.append(sysconfig.get_path("scripts", f"{os.name}_user"))
    except KeyError:
        pass
    for folder in candidates:
        if folder:
            path = Path(folder) / _EXE
            if path.is_file():
                return path
    found = shutil.which(_EXE)
    if found:
        return Path(found)
    raise ServerStartError(
        f"no {_EXE} binary: it is installed with the carla-host wheel "
        f"(looked in {', '.join(c for c in candidates if c)} and on PATH); "
        f"set ${BINARY_ENV} to use another"
    )


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now (the OS's pick; another process may
    take it before you bind it, so bind it soon)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _tail(path: Path, lines: int = 20) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 16384))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class Server:
    """A running ``carla-host``; made by :func:`serve`.

    Use it as a context manager (``with serve() as server:``) or call
    :meth:`stop`. Attributes:

    - ``host``: the address clients dial (``127.0.0.1`` for a server bound
      to every interface);
    - ``port``: the world port (CARLA 0.8.4 and 0.9.16 clients);
    - ``ports``: every port by role, as the server named them (``port``,
      ``rpc_port``, ``streaming_port``, ``legacy_stream_port``,
      ``legacy_control_port``, ``release_ports`` by release such as
      ``"0.9.15"``, ``ros2_domain``, ``map``, ``pid``);
    - ``log_path``: the file that has the server's output;
    - ``traffic_manager_port``: a port that was free when the server
      started, for ``client.get_trafficmanager(port)`` (the Traffic
      Manager listens in the client's process; parallel test runs must
      not share one).
    """

    def __init__(
        self,
        process: "subprocess.Popen[bytes]",
        ports: Mapping[str, Any],
        log_path: Path,
        workdir: Optional[tempfile.TemporaryDirectory],  # type: ignore[type-arg]
        log_file: IO[bytes],
        connect_host: str,
    ) -> None:
        self.process = process
        self.ports: Dict[str, Any] = dict(ports)
        self.log_path = log_path
        self.host = connect_host
        self.port = int(self.ports["port"])
        self.traffic_manager_port = free_port(connect_host)
        self._workdir = workdir
        self._log_file = log_file

    @property
    def pid(self) -> int:
        """The server's process id."""
        return int(self.process.pid)

    def release_port(self, release: str) -> int:
        """The RPC port for clients of an older release (``"0.9.12"`` ...
        ``"0.9.15"``); ``0.9.16`` is :attr:`port`."""
        if release == "0.9.16":
            return int(self.ports["rpc_port"])
        try:
            return int(self.ports["release_ports"][release])
        except KeyError:
            served = ", ".join(sorted(self.ports.get("release_ports", {})))
            raise KeyError(f"release {release} is not served (this server has {served} and 0.9.16)") from None

    def client(self, timeout: float = 10.0) -> Any:
        """A ``carla.Client`` connected to this server, with ``timeout``
        seconds for each call (needs the ``carla`` package)."""
        try:
            import carla  # type: ignore[import-not-found]
        except ImportError as e:
            raise ImportError(
                "Server.client() needs the CARLA Python client: pip install carla==0.9.16"
            ) from e
        client = carla.Client(self.host, self.port)
        client.set_timeout(timeout)
        return client

    def alive(self) -> bool:
        """Whether the server process is still running."""
        return self.process.poll() is None

    def log_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines of the server's log."""
        self._log_file.flush()
        return _tail(self.log_path, lines)

    def stop(self, timeout: float = 5.0) -> Optional[int]:
        """Stops the server (closing its standard input, then a terminate,
        then a kill, each given ``timeout`` seconds); returns its exit
        status. Calling it again does nothing."""
        p = self.process
        if p.poll() is None:
            try:
                if p.stdin is not None:
                    p.stdin.close()
                p.wait(timeout)
            except (subprocess.TimeoutExpired, OSError):
                p.terminate()
                try:
                    p.wait(timeout)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        elif p.stdin is not None and not p.stdin.closed:
            p.stdin.close()
        if not self._log_file.closed:
            self._log_file.close()
        if self._workdir is not None:
            self._workdir.cleanup()
            self._workdir = None
        return p.returncode

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.alive() else f"exited {self.process.returncode}"
        return f"<carla_host.Server {self.host}:{self.port} pid {self.pid} {state}>"


def _check_inputs(maps: Optional[PathLike], ports_file: Optional[PathLike], log_dir: Optional[PathLike]) -> None:
    if maps is not None and not Path(maps).is_dir():
        raise ServerStartError(f"maps folder {os.fspath(maps)} does not exist (or is not a folder)")
    if ports_file is not None:
        folder = Path(ports_file).parent
        if not folder.is_dir():
            raise ServerStartError(f"ports file {os.fspath(ports_file)}: the folder {folder} does not exist")
    if log_dir is not None and not Path(log_dir).is_dir():
        raise ServerStartError(f"log folder {os.fspath(log_dir)} does not exist")


def serve(
    maps: Optional[PathLike] = None,
    town: Optional[str] = None,
    seed: Optional[int] = None,
    sync: bool = False,
    extra_args: Iterable[str] = (),
    *,
    host: str = "127.0.0.1",
    fps: float = 100.0,
    fixed_delta_seconds: float = 0.05,
    binary: Optional[PathLike] = None,
    ports_file: Optional[PathLike] = None,
    log_dir: Optional[PathLike] = None,
    start_timeout: float = 30.0,
    env: Optional[Mapping[str, str]] = None,
) -> Server:
    """Starts a CARLA server on free ports and returns it once it answers.

    - ``maps``: a folder of OpenDRIVE files, each a map named by its file
      stem (``Town01.xodr`` is ``Town01``); ``town``: the map to start on
      (default: the built-in town).
    - ``seed``: seeds the town's own traffic (the cars and walkers every
      world starts with), so runs repeat.
    - ``sync``: put the world in synchronous mode at
      ``fixed_delta_seconds`` before returning (needs ``carla``); a
      ``reload_world`` resets it, as in CARLA.
    - ``extra_args``: more ``carla-host`` options (``carla-host --help``).
    - ``host``: the interface to bind (``0.0.0.0`` for other machines).
    - ``fps``: ticks per second while no client drives it in synchronous
      mode (``carla-host --fps``; its own default is 30). A client's
      ``reload_world`` waits for two ticks of the new episode, so 100
      makes a fresh world per test take about 35 ms instead of 65.
    - ``ports_file``: where the server writes its ports (default: a
      temporary folder); ``log_dir``: where its log goes (default: the
      same temporary folder, removed on stop).
    - ``start_timeout``: seconds to wait for the server to be ready.

    Raises :class:`ServerStartError` naming the cause if it cannot start.
    """
    _check_inputs(maps, ports_file, log_dir)
    exe = Path(binary) if binary is not None else find_binary()
    if not exe.is_file():
        raise ServerStartError(f"server binary {exe} does not exist")
    workdir: Optional[tempfile.TemporaryDirectory] = None  # type: ignore[type-arg]
    if ports_file is None or log_dir is None:
        workdir = tempfile.TemporaryDirectory(prefix="carla-host-")
    ports_path = Path(ports_file) if ports_file is not None else Path(workdir.name) / "ports.json"  # type: ignore[union-attr]
    if ports_path.exists():
        ports_path.unlink()
    log_folder = Path(log_dir) if log_dir is not None else Path(workdir.name)  # type: ignore[union-attr]
    log_path = log_folder / f"carla-host-{os.getpid()}-{time.monotonic_ns()}.log"
    args = [
        os.fspath(exe),
        "--port", "0",
        "--host", host,
        "--ports-file", os.fspath(ports_path),
        "--exit-with-stdin",
    ]
    if maps is not None:
        args += ["--maps", os.fspath(maps)]
    if town is not None:
        args += ["--map", town]
    if seed is not None:
        args += ["--seed", str(int(seed))]
    extra = [str(a) for a in extra_args]
    if "--fps" not in extra and not any(a.startswith("--fps=") for a in extra):
        args += ["--fps", repr(float(fps))]
    args += extra
    process_env = dict(os.environ)
    if env is not None:
        process_env.update(env)
    if workdir is not None:
        # start_recorder's relative names land beside the log, not in the
        # caller's working folder.
        process_env.setdefault("CARLA_HOST_RECORDINGS", os.path.join(workdir.name, "recordings"))
    log_file = open(log_path, "wb")
    try:
        process = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=process_env,
            close_fds=True,
        )
    except OSError as e:
        log_file.close()
        if workdir is not None:
            workdir.cleanup()
        raise ServerStartError(f"cannot run {exe}: {e}") from e
    try:
        ports = _wait_ready(process, ports_path, log_path, start_timeout)
    except BaseException:
        _abandon(process)
        log_file.close()
        if workdir is not None:
            workdir.cleanup()
        raise
    connect_host = "127.0.0.1" if host in ("0.0.0.0", "") else ("::1" if host == "::" else host)
    server = Server(process, ports, log_path, workdir, log_file, connect_host)
    if sync:
        try:
            _synchronous(server, fixed_delta_seconds)
        except BaseException:
            server.stop()
            raise
    return server


def _wait_ready(process: "subprocess.Popen[bytes]", ports_path: Path, log_path: Path, timeout: float) -> Dict[str, Any]:
    """Waits for the ports file (the server writes it whole once its world
    is ready); raises if the server exits or the time runs out."""
    deadline = time.monotonic() + timeout
    pause = 0.002
    while True:
        code = process.poll()
        if code is not None:
            tail = _tail(log_path)
            cause = _cause(tail) or f"it exited with status {code}"
            raise ServerStartError(f"carla-host did not start: {cause}", code, tail)
        try:
            text = ports_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        if text.endswith("\n"):
            try:
                ports = json.loads(text)
            except ValueError as e:
                raise ServerStartError(f"carla-host wrote an unreadable ports file {ports_path}: {e}") from e
            if isinstance(ports, dict) and ports.get("carla_host") == "ready":
                return ports
        if time.monotonic() > deadline:
            raise ServerStartError(
                f"carla-host did not get ready in {timeout:g} s (no ports in {ports_path})",
                None,
                _tail(log_path),
            )
        time.sleep(pause)
        pause = min(pause * 1.5, 0.05)


def _cause(log_tail: str) -> str:
    """The server's own words for why it stopped: its last error line."""
    for line in reversed(log_tail.splitlines()):
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return ""


def _abandon(process: "subprocess.Popen[bytes]") -> None:
    if process.poll() is None:
        process.kill()
    process.wait()
    if process.stdin is not None and not process.stdin.closed:
        process.stdin.close()


def _synchronous(server: Server, fixed_delta_seconds: float) -> None:
    client = server.client()
    world = client.get_world()
    settings = world.get_settings()
    settings.synchronous_mode = True
    settings.fixed_delta_seconds = fixed_delta_seconds
    world.apply_settings(settings)


def command_line(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m carla_host [carla-host options]``: runs the bundled
    server in the foreground (Ctrl-C stops it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    exe = find_binary()
    return subprocess.call([os.fspath(exe), *args])
