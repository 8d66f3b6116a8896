"""The Windows wheel's server, started as carla_host.serve() starts it:
`carla-host.exe --port 0 --ports-file F --exit-with-stdin` under Wine.
Checks that it names its ports in F (a Windows path), that the Linux
carla==0.9.16 client is served on them, and that closing its standard
input stops it. Run by scripts/test-windows.sh with that client's Python:

    python scripts/wine/wheel_exe.py WHEEL WORKDIR
"""

import json
import os
import subprocess
import sys
import time
import zipfile

import carla

wheel, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith(".data/scripts/carla-host.exe")]
    assert len(names) == 1, f"no carla-host.exe in the wheel's scripts: {z.namelist()}"
    exe = z.extract(names[0], work)
ports = os.path.join(work, "ports.json")
if os.path.exists(ports):
    os.unlink(ports)
log_path = os.path.join(work, "carla-host.log")
started = time.monotonic()
with open(log_path, "wb") as log:
    p = subprocess.Popen(
        ["wine", exe, "--port", "0", "--host", "127.0.0.1", "--exit-with-stdin",
         "--ports-file", "Z:" + os.path.abspath(ports).replace("/", "\\")],
        stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT)


def fail(why):
    if p.poll() is None:
        p.kill()
    with open(log_path, errors="replace") as f:
        sys.exit(f"{why}\n--- carla-host.exe's log ---\n{f.read()[-3000:]}")


while not os.path.exists(ports):
    if p.poll() is not None:
        fail(f"carla-host.exe exited with {p.returncode} before naming its ports")
    if time.monotonic() - started > 180:
        fail("carla-host.exe wrote no ports file in 180 s")
    time.sleep(0.1)
info = json.load(open(ports))
assert info["carla_host"] == "ready" and info["rpc_port"] == info["port"], info
assert len({info["port"], info["streaming_port"], *info["release_ports"].values()}) == 6, info
client = carla.Client("127.0.0.1", info["port"])
client.set_timeout(30.0)
version = client.get_server_version()
name = client.get_world().get_map().name
if version != "0.9.16" or name != info["map"]:
    fail(f"served {version} {name}, ports line says {info['map']}")
p.stdin.close()
try:
    code = p.wait(30)
except subprocess.TimeoutExpired:
    fail("carla-host.exe did not stop within 30 s of its standard input closing")
if code != 0:
    fail(f"carla-host.exe exited with {code} after its standard input closed")
print(f"carla-host.exe (Windows wheel): ports {info['port']}.., served 0.9.16 on {name}, stopped with its stdin")
