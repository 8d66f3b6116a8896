#!/usr/bin/env bash
# The 0.9 soak (not in CI: it takes minutes). Against one
# release carla-host and the stock carla==0.9.16 client:
#   1. CYCLES cycles (default 1000) of connect, spawn a car with a camera
#      and a lidar, listen, 20 synchronous ticks whose sensor frames must
#      match the tick, destroy, disconnect: in batches of 50 per Python
#      process (the stock client keeps threads until its process exits);
#   2. 16 clients at once, each doing 5 cycles in asynchronous mode (they
#      share one world, so none makes it synchronous): 5 camera and lidar
#      messages of increasing frames each.
# The warm-up is one batch of each kind; the server's resident memory,
# descriptors and threads are read after it and at the end (after the
# cycles and a second round of 16 clients at once): they must be flat
# (10% of resident memory and 2 MiB allowed). Prints one line per batch
# and a summary; exits 1 on any failed cycle or growth.
#
#   scripts/soak09.sh [CYCLES]           (default 1000)
set -u
cd "$(dirname "$0")/.."
CYCLES=${1:-1000}
PY=${CARLA_0916_PYTHON:-target/venv-carla-0.9.16/bin/python}
if ! "$PY" -c "import carla" 2>/dev/null; then
  echo "soak09.sh: no carla==0.9.16 at $PY (run scripts/test.sh once, or set CARLA_0916_PYTHON)" >&2
  exit 2
fi
cargo build --release -p carla-host -q || exit 2
OUT=$PWD/target/soak09
rm -rf "$OUT" && mkdir -p "$OUT"
port=$((23000 + $$ % 1000 * 4))
target/release/carla-host --port $port --release-ports 0 --timeout 10000 >"$OUT/host.log" 2>&1 &
HOST=$!
trap 'kill $HOST 2>/dev/null' EXIT
sleep 1

usage() { # rss_kib fds threads
  echo "$(awk '/VmRSS/{print $2}' /proc/$HOST/status) $(ls /proc/$HOST/fd | wc -l) $(ls /proc/$HOST/task | wc -l)"
}
batch() { # first count name [async]
  "$PY" scripts/soak09.py $port "$2" "$1" "$OUT/$3.json" ${4:-} 2>>"$OUT/client.log" ||
    echo "{\"failures\": [\"batch $3: the client process failed ($?)\"]}" >"$OUT/$3.json"
}
at_once() { # round
  local pids=()
  for c in $(seq 1 16); do
    batch $((100000 * $1 + c * 10)) 5 "r$1c$c" async &
    pids+=($!)
  done
  wait "${pids[@]}"
}

started=$(date +%s)
batch 0 50 warmup
at_once 1
sleep 2
read -r rss0 fds0 thr0 <<<"$(usage)"
echo "after the warm-up (50 cycles, 16 clients at once): rss ${rss0} KiB, ${fds0} fds, ${thr0} threads"
done_cycles=50
while [ $done_cycles -lt "$CYCLES" ]; do
  n=$((CYCLES - done_cycles < 50 ? CYCLES - done_cycles : 50))
  batch $done_cycles $n "b$done_cycles"
  done_cycles=$((done_cycles + n))
  read -r rss fds thr <<<"$(usage)"
  echo "cycles $done_cycles: rss ${rss} KiB, ${fds} fds, ${thr} threads ($(($(date +%s) - started)) s)"
done
at_once 2
sleep 2
read -r rss1 fds1 thr1 <<<"$(usage)"
echo "after 16 clients at once: rss ${rss1} KiB, ${fds1} fds, ${thr1} threads"
python3 - "$OUT" "$rss0" "$fds0" "$thr0" "$rss1" "$fds1" "$thr1" <<'PY'
import glob, json, sys
out, rss0, fds0, thr0, rss1, fds1, thr1 = sys.argv[1], *map(int, sys.argv[2:])
fails, ticks, p50, p99 = [], 0, [], []
for f in sorted(glob.glob(out + "/*.json")):
    r = json.load(open(f))
    fails += r.get("failures", [])
    ticks += r.get("ticks", 0)
    if r.get("p50_ms"): p50.append(r["p50_ms"]); p99.append(r["p99_ms"])
print("ticks %d, tick p50 %.1f ms (median of batches), worst batch p99 %.1f ms"
      % (ticks, sorted(p50)[len(p50) // 2], max(p99)))
print("failed cycles: %d" % len(fails))
for f in fails[:20]: print("  " + f)
grew = rss1 > rss0 * 1.10 + 2048 or fds1 > fds0 or thr1 > thr0
print("resident %d -> %d KiB, fds %d -> %d, threads %d -> %d: %s"
      % (rss0, rss1, fds0, fds1, thr0, thr1, "GREW" if grew else "flat"))
sys.exit(1 if fails or grew else 0)
PY
status=$?
echo "soak09: $(($(date +%s) - started)) s"
exit $status
