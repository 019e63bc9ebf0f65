#!/usr/bin/env bash
# Serves the dashboard on the default sample scenario (no cluster needed) and prints its address
# last, once it answers. The first run installs the project and its dependencies into .venv
# (FIRST_RUN below); later runs install again only when pyproject.toml changed since (a stamp in
# the environment holds its hash) and start in a few seconds. Ctrl+C stops the server.
#
# Usage: bash scripts/run.sh [streamlit arguments, e.g. --server.port 8600]
# Environment: AE_VENV, the virtual environment (default .venv in the checkout);
#              AE_PORT, the port (default 8501; --server.port in the arguments wins);
#              AE_ADDRESS, the address the server listens on (default 127.0.0.1: this machine
#                only; 0.0.0.0 serves every network it is on: put a login in front first, see
#                docs/deployment.md; --server.address in the arguments wins);
#              AE_START_TIMEOUT_S, how long to wait for the server to answer (default 120).
set -euo pipefail
cd "$(dirname "$0")/.."

# Measured with an empty pip cache (docs/development.md#starting-the-dashboard).
FIRST_RUN="125 MB to download: under a minute on a fast connection, about 2 minutes at 10 Mbit/s"
VENV=${AE_VENV:-.venv}
PORT=${AE_PORT:-8501}
ADDRESS=${AE_ADDRESS:-127.0.0.1}
previous=""
for argument in "$@"; do
  case "$argument" in
    --server.port=*) PORT=${argument#--server.port=} ;;
    --server.address=*) ADDRESS=${argument#--server.address=} ;;
  esac
  [ "$previous" = "--server.port" ] && PORT=$argument
  [ "$previous" = "--server.address" ] && ADDRESS=$argument
  previous=$argument
done

# The install is current when the stamp holds the hash of this checkout's path and pyproject.toml
# (an editable install points at the checkout).
STAMP=$VENV/.assignment-explorer-installed
wanted=$( (pwd; cat pyproject.toml) \
  | python3 -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$wanted" ]; then
  if [ -s "$STAMP" ]; then
    echo "pyproject.toml changed since the last install: installing again into $VENV..."
  else
    echo "first run: installing the project and its dependencies into $VENV"
    echo "  ($FIRST_RUN; later runs skip this)..."
  fi
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e .
  echo "$wanted" >"$STAMP"
fi

echo "starting the dashboard (Ctrl+C stops it)..."
# Streamlit's own banner is left out: the address is printed below, once the server answers.
"$VENV/bin/python" -m streamlit run dashboard/serve.py --server.headless true \
  --logger.hideWelcomeMessage true --server.port "$PORT" --server.address "$ADDRESS" "$@" \
  </dev/null &
server=$!
# Ctrl+C reaches the server as well as this script; a signal sent to this script alone is passed
# on, after a moment (a second SIGINT would make the server stop without cleaning up).
interrupted=false
pass_on() {
  interrupted=true
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 "$server" 2>/dev/null || return 0
    sleep 0.2
  done
  kill "-$1" "$server" 2>/dev/null || true
}
trap 'pass_on INT' INT
trap 'pass_on TERM' TERM

URL="http://localhost:$PORT"
case "$ADDRESS" in
  127.0.0.1 | localhost | ::1) ;;
  *)
    echo "listening on $ADDRESS: other machines can reach this dashboard; it has no login unless"
    echo "  one is configured (docs/deployment.md)"
    ;;
esac
if ! "$VENV/bin/python" - "$URL/_stcore/health" "$server" "${AE_START_TIMEOUT_S:-120}" <<'EOF'; then
import os, sys, time, urllib.request

health_url, server_pid, timeout_s = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + timeout_s
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(health_url, timeout=2) as response:
            if response.status == 200:
                sys.exit(0)
    except OSError:
        pass
    try:
        os.kill(server_pid, 0)
    except ProcessLookupError:
        sys.exit("the dashboard's server stopped before it answered (see its messages above)")
    time.sleep(0.3)
sys.exit(f"the dashboard did not answer {health_url} within {timeout_s:.0f} s")
EOF
  kill -TERM "$server" 2>/dev/null || true
  wait "$server" || true
  exit 1
fi

# A browser is opened only where there is a screen to show it on (xdg-open may wait for it).
if [ "$(uname)" = Darwin ]; then
  opener=open
elif { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; } && command -v xdg-open >/dev/null; then
  opener=xdg-open
else
  opener=""
fi
if [ -n "$opener" ]; then
  "$opener" "$URL" >/dev/null 2>&1 </dev/null &
  echo "the dashboard is ready; opening it in your browser (or open this address):"
else
  echo "the dashboard is ready; open this address in a browser:"
fi
echo "  $URL"
status=0
wait "$server" || status=$?
# A trapped signal ends the first wait early; the second gives the server's own exit status.
if $interrupted; then
  status=0
  wait "$server" || status=$?
fi
exit "$status"
