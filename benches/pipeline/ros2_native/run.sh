#!/usr/bin/env bash
# Native DDS readers of carla-host's ROS 2 images (a measurement; not in
# CI). Builds reader.c against Debian's cyclonedds-dev (idlc generates the
# ROS 2 types from tests/native_dds/ros_types.idl), starts a release carla-host --ros2, runs
# a reliable and a best-effort reader of every camera beside drive.py, and prints what each
# reader got and the kernel's UDP counters over the run.
#
#   benches/pipeline/ros2_native/run.sh [CAMERAS W H SECONDS HZ]   (default 1 800 600 15 0)
#
# Needs: apt-get install cyclonedds-dev; the venv scripts/test.sh makes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
n=${1:-1} w=${2:-800} h=${3:-600} secs=${4:-15} hz=${5:-0}
out="$root/target/ros2-native"
mkdir -p "$out"
(cd "$out" && idlc "$root/tests/native_dds/ros_types.idl" 2>/dev/null && gcc -O2 -I. -o reader "$here/reader.c" ros_types.c -lddsc)
cargo build --release -p carla-host --manifest-path "$root/Cargo.toml" >/dev/null 2>&1
port=$((20000 + RANDOM % 20000))
"$root/target/release/carla-host" --port "$port" --host 127.0.0.1 --stream-port 0 \
  --release-ports 0 --ros2 >"$out/host.log" 2>&1 &
host=$!
trap 'kill $host 2>/dev/null || true' EXIT
sleep 4
udp() { awk '/^Udp: [0-9]/ {print "datagrams in " $2 ", out " $5 ", receive-buffer drops " $6}' /proc/net/snmp; }
topics=$(for ((i = 0; i < n; i++)); do echo "rt/carla/hero/cam$i/image"; done)
"$out/reader" image reliable $((secs + 10)) 0 $topics >"$out/reliable.out" &
"$out/reader" image best_effort $((secs + 10)) 0 $topics >"$out/best_effort.out" &
sleep 1
echo "before: $(udp)"
"$root/target/venv-carla-0.9.16/bin/python" "$here/drive.py" "$port" "$n" "$w" "$h" "$secs" "$hz"
echo "after:  $(udp)"
wait %2 %3 2>/dev/null || true
sleep 1
cat "$out/reliable.out" "$out/best_effort.out"
echo "writer refusals (WouldBlock) in the host's log: $(grep -c WouldBlock "$out/host.log" || true)"
