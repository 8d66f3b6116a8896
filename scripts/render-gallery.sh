#!/usr/bin/env bash
# Renders docs/images/weather-*.png, street-*.png and walker-skeleton.png,
# the gallery of docs/demo-world.md
# ("Pictures"), with a release build of carla-host in an empty world and
# the stock 0.9.16 client (the virtual environment scripts/test.sh makes).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=target/venv-carla-0.9.16/bin/python
[ -x "$PY" ] || { echo "$PY is missing: run scripts/test.sh once (it installs the client)" >&2; exit 1; }
cargo build --quiet --release -p carla-host
ports="$(mktemp -d)/ports.json"
target/release/carla-host --port 0 --ports-file "$ports" --town-vehicles 0 --town-walkers 0 \
  >"$(dirname "$ports")/host.log" 2>&1 &
host=$!
trap 'kill "$host" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$ports" ] && break; sleep 0.1; done
[ -s "$ports" ] || { echo "carla-host did not start: $(dirname "$ports")/host.log" >&2; exit 1; }
port="$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["rpc_port"])' "$ports")"
mkdir -p docs/images
"$PY" scripts/render_gallery.py "$port" docs/images
