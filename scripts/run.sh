#!/usr/bin/env bash
# Installs the project and opens the dashboard on the default sample scenario (no cluster needed).
# Usage: bash scripts/run.sh [streamlit arguments, e.g. --server.port 8600]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
exec .venv/bin/python -m streamlit run dashboard/serve.py --server.headless true "$@"
