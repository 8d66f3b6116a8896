#!/usr/bin/env bash
# Native DDS readers of carla-host's ROS 2 images on "another machine": a
# network namespace joined to this one by a veth pair (MTU 1500), reached
# through a router hop, multicast off (the reader names the host as its
# peer). A measurement, not in CI; needs root (ip netns), and nft for LOSS.
#
#   benches/pipeline/ros2_native/remote.sh [CAMERAS W H SECONDS HZ]   (default 1 800 600 10 20)
#
# Environment:
#   DATAGRAM=N    carla-host --ros2-datagram N (default 0: within the MTU)
#   LOSS=N        drop N in 10,000 packets (IP fragments) entering the readers' namespace
#   FRAG_TIME=S   the readers' namespace keeps incomplete IP datagrams S s
#                 (Linux: 30) in up to 64 MB (Linux: 4 MB)
#   RCVBUF=32MB   the readers' socket receive buffers (Cyclone's default: 1 MB)
#   EXTRA_URI=XML more of the readers' Cyclone DDS configuration, e.g.
#                 '<Internal><NackDelay>0ms</NackDelay></Internal>'
#
# Prints the host's CPU over the run, the readers' UDP and IP reassembly
# counters, and what each reader got (reader.c's lines).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
n=${1:-1} w=${2:-800} h=${3:-600} secs=${4:-10} hz=${5:-20}
out="$root/target/ros2-native"
ns=carla-ros2-remote
mkdir -p "$out"
(cd "$out" && idlc "$root/tests/native_dds/ros_types.idl" 2>/dev/null && gcc -O2 -I. -o reader "$here/reader.c" ros_types.c -lddsc)
cargo build --release -p carla-host --manifest-path "$root/Cargo.toml" >/dev/null 2>&1

ip netns del $ns 2>/dev/null || true
ip link del carla-veth0 2>/dev/null || true
ip netns add $ns
ip link add carla-veth0 type veth peer name carla-veth1
ip link set carla-veth1 netns $ns
ip addr add 10.77.0.1/24 dev carla-veth0
ip link set carla-veth0 mtu 1500 up
ip -n $ns addr add 10.77.0.2/24 dev carla-veth1
ip -n $ns link set carla-veth1 mtu 1500 up
ip -n $ns link set lo up
# The host announces all its addresses; the reader reaches them through 10.77.0.1.
ip -n $ns route add default via 10.77.0.1
if [ -n "${FRAG_TIME:-}" ]; then
  ip netns exec $ns sysctl -q -w net.ipv4.ipfrag_time="$FRAG_TIME" net.ipv4.ipfrag_high_thresh=67108864
fi
if [ -n "${LOSS:-}" ]; then
  # Before reassembly (priority -500), so single fragments are lost.
  printf 'table ip loss {\n chain pre {\n  type filter hook prerouting priority -500;\n  numgen random mod 10000 < %s drop\n }\n}\n' \
    "$LOSS" | ip netns exec $ns nft -f -
fi

port=$((20000 + RANDOM % 20000))
"$root/target/release/carla-host" --port "$port" --host 127.0.0.1 --stream-port 0 \
  --release-ports 0 --ros2 --ros2-datagram "${DATAGRAM:-0}" >"$out/remote-host.log" 2>&1 &
host=$!
trap 'kill $host 2>/dev/null || true; ip netns del $ns 2>/dev/null || true' EXIT
sleep 4
uri='<General><AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex><Peers><Peer address="10.77.0.1"/></Peers></Discovery>'
if [ -n "${RCVBUF:-}" ]; then
  uri="$uri<Internal><SocketReceiveBufferSize min=\"$RCVBUF\"/></Internal>"
fi
uri="$uri${EXTRA_URI:-}"
topics=$(for ((i = 0; i < n; i++)); do echo "rt/carla/hero/cam$i/image"; done)
# shellcheck disable=SC2086 # one argument per topic
CYCLONEDDS_URI="$uri" ip netns exec $ns "$out/reader" image reliable $((secs + 10)) 0 $topics \
  >"$out/remote-reliable.out" 2>/dev/null &
reliable=$!
# shellcheck disable=SC2086
CYCLONEDDS_URI="$uri" ip netns exec $ns "$out/reader" image best_effort $((secs + 10)) 0 $topics \
  >"$out/remote-best_effort.out" 2>/dev/null &
best_effort=$!
sleep 1
cpu() { awk '{print $14 + $15}' "/proc/$host/stat"; }
c0=$(cpu)
"$root/target/venv-carla-0.9.16/bin/python" "$here/drive.py" "$port" "$n" "$w" "$h" "$secs" "$hz"
echo "host CPU over the run: $(( $(cpu) - c0 )) hundredths of a second"
wait $reliable $best_effort || true
ip netns exec $ns awk '/^Udp: [0-9]/ {print "readers: datagrams in " $2 ", receive-buffer drops " $6}' /proc/net/snmp
ip netns exec $ns awk '/^Ip: [0-9]/ {print "readers: IP fragments in " $15 ", datagrams put together " $16 ", failed " $17}' /proc/net/snmp
cat "$out/remote-reliable.out" "$out/remote-best_effort.out"
