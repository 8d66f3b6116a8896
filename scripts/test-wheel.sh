#!/usr/bin/env bash
# The carla-host wheel as its users get it: built (scripts/build-wheel.sh),
# installed offline from the file into a fresh virtual environment, and
# tested there, from outside the source tree, so `import carla_host` and the
# pytest plugin are the installed ones: carla-host/python/tests (serve(), the
# fixtures, the example project under `pytest -n 4`, a killed pytest), then
# the start-up benchmark (benches/wheel/startup.py).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

wheel=$(scripts/build-wheel.sh | grep manylinux | head -1)
echo "== installing $wheel into a fresh virtual environment (offline, from the file)"
VENV=target/venv-wheel-test
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-index --no-deps "$wheel"
# What a user's project brings: the CARLA client and pytest (from PyPI).
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
  "carla==0.9.16" "pytest==9.2.0" "pytest-xdist==3.8.0"

echo "== the installed package's tests (carla-host/python/tests)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && CARLA_HOST_SOURCE="$ROOT" "$ROOT/$VENV/bin/python" -m pytest -q -p no:cacheprovider \
  --rootdir "$ROOT/carla-host/python/tests" "$ROOT/carla-host/python/tests")

echo "== start-up benchmark (benches/wheel/startup.py)"
(cd "$work" && "$ROOT/$VENV/bin/python" "$ROOT/benches/wheel/startup.py" --starts 20 --reloads 20)
