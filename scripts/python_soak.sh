#!/usr/bin/env bash
# Runs the Python tests of the demo world RUNS times in a row on a busy
# machine (two busy loops beside them): every script under
# carla-host/tests/python/town/ that needs only a 0.9 client (traffic.py
# in synchronous mode: its asynchronous runs take 40 s of wall time each)
# and the examples under carla-host/examples/, each
# against a fresh release `carla-host` with the stock carla==0.9.16 client.
# Not part of CI (it takes minutes); 100 runs by default.
#
#   scripts/python_soak.sh [RUNS]        (default 100)
#
# Prints one line per run and a summary; a failed script's output (and the
# client's core dump, if it crashed) is kept under target/soak/. Exits 1 if
# any run failed.
set -u
cd "$(dirname "$0")/.."
RUNS=${1:-100}
PY=${CARLA_0916_PYTHON:-target/venv-carla-0.9.16/bin/python}
if ! "$PY" -c "import carla" 2>/dev/null; then
  echo "python_soak.sh: no carla==0.9.16 at $PY (run scripts/test.sh once, or set CARLA_0916_PYTHON)" >&2
  exit 2
fi
PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")
cargo build --release -p carla-host -q || exit 2
HOST=$PWD/target/release/carla-host
OUT=$PWD/target/soak
rm -rf "$OUT"
mkdir -p "$OUT/cache" "$OUT/cores"
ROOT=$PWD
export CARLA_CACHE_DIR=$OUT/cache SDL_VIDEODRIVER=dummy

busy() { while :; do :; done; }
busy & B1=$!
busy & B2=$!
trap 'kill $B1 $B2 2>/dev/null' EXIT

TOWN=carla-host/tests/python/town
# name|script|arguments after the port (town scripts take the port first)
JOBS=(
  "actors|$TOWN/actors.py|"
  "api_surface|$TOWN/api_surface.py|"
  "bad_input|$TOWN/bad_input.py|"
  "blueprints|$TOWN/blueprints.py|"
  "cameras|$TOWN/cameras.py|"
  "map|$TOWN/map.py|"
  "modes|$TOWN/modes.py|"
  "route|$TOWN/route.py|"
  "sensors|$TOWN/sensors.py|"
  "traffic|$TOWN/traffic.py|"
)
EXAMPLES=(
  "sync_camera_lidar|carla-host/examples/sync_camera_lidar.py|--ticks 30 --out $OUT/out"
  "traffic_waypoints|carla-host/examples/traffic_waypoints.py|--ticks 100"
)

port=$((21000 + $$ % 2000 * 4))
failed=0
start=$(date +%s)
for run in $(seq 1 "$RUNS"); do
  bad=()
  for job in "${JOBS[@]}" "${EXAMPLES[@]}"; do
    IFS='|' read -r name script extra <<<"$job"
    port=$(( (port - 21000 + 4) % 8000 + 21000 ))
    "$HOST" --port "$port" --host 127.0.0.1 --stream-port 0 --release-ports 0 >"$OUT/host.log" 2>&1 &
    hp=$!
    for _ in $(seq 50); do
      grep -q "serving" "$OUT/host.log" 2>/dev/null && break
      sleep 0.1
    done
    if [[ $script == carla-host/examples/* ]]; then
      args=(--port "$port")
    else
      args=("$port")
    fi
    # shellcheck disable=SC2206
    args+=($extra)
    # From target/soak/cores: a crashing client leaves its core there.
    (cd "$OUT/cores" && ulimit -c unlimited && timeout -k 5 180 "$PY" "$ROOT/$script" "${args[@]}") \
      >"$OUT/$name.log" 2>&1
    rc=$?
    kill -INT $hp 2>/dev/null
    wait $hp 2>/dev/null
    if [[ $rc -ne 0 ]]; then
      bad+=("$name(rc $rc)")
      cp "$OUT/$name.log" "$OUT/run$run-$name.log"
      cp "$OUT/host.log" "$OUT/run$run-$name.host.log"
      for core in "$OUT"/cores/core*; do
        [[ -e $core ]] && mv "$core" "$OUT/run$run-$name.core"
      done
    fi
  done
  if [[ ${#bad[@]} -eq 0 ]]; then
    echo "run $run: ok"
  else
    failed=$((failed + 1))
    echo "run $run: FAILED ${bad[*]}"
  fi
done
echo "python_soak.sh: $((RUNS - failed)) of $RUNS runs passed ($(( $(date +%s) - start )) s, two busy loops beside)"
[[ $failed -eq 0 ]]
