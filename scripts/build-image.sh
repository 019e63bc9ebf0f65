#!/usr/bin/env bash
# Builds the Docker image with podman, then smoke-tests it (scripts/smoke_image.py): the dashboard
# starts from the image's file system as the image's non-root user on a free loopback port and
# answers its health endpoint and main page (and renders in Chromium where the project's test
# environment has Playwright).
#
# Where the official python image cannot be pulled, the base is a Debian bookworm root file system
# made by mmdebstrap (python3, python3-venv, ca-certificates), imported into podman and cached:
# the tarball under $AE_IMAGE_CACHE (default ~/.cache/assignment-explorer/image, outside the
# clone), the imported image in podman's storage; either is rebuilt when missing.
# AE_IMAGE_BASE=python:3.11-slim builds on the Dockerfile's own default instead.
#
# The build runs with --isolation chroot --network host, with the host's CA certificates, the
# pip configuration the host uses (`pip config list`) and pip's download cache mounted in.
#
# Usage: bash scripts/build-image.sh [--ci] [TAG]
#   --ci  for .ci/run: print why and exit 0 when podman/mmdebstrap are missing and cannot be
#         installed (apt-get, as root; without --ci that is an error), and remove the image once
#         the smoke test is done (the cached base stays).
set -euo pipefail
cd "$(dirname "$0")/.."

CI=false
if [ "${1:-}" = "--ci" ]; then
  CI=true
  shift
fi
TAG=${1:-localhost/assignment-explorer:latest}
$CI && TAG=${1:-localhost/assignment-explorer:ci-$$}
SUITE=bookworm
PACKAGES=python3,python3-venv,ca-certificates
CACHE=${AE_IMAGE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/assignment-explorer/image}
HOST_CA=${AE_HOST_CA:-/etc/ssl/certs/ca-certificates.crt}
IMAGE_CA=/etc/ssl/certs/ca-certificates.crt

missing_tools() {
  local tool missing=()
  for tool in podman mmdebstrap chroot; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if [ -n "${AE_IMAGE_BASE:-}" ] && command -v podman >/dev/null 2>&1; then
    missing=()  # a given base needs no mmdebstrap
  fi
  echo "${missing[*]}"
}

if [ -n "$(missing_tools)" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's podman and mmdebstrap for the image build..."
  apt-get update -qq >/dev/null || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman mmdebstrap >/dev/null || true
fi
MISSING=$(missing_tools)
if [ -n "$MISSING" ]; then
  if [ "$(id -u)" != 0 ]; then
    why="this user is not root (apt-get install -y podman mmdebstrap)"
  elif ! command -v apt-get >/dev/null 2>&1; then
    why="there is no apt-get"
  else
    why="apt-get could not install them"
  fi
  reason="$MISSING not installed and $why"
  if $CI; then
    echo "image build skipped: $reason"
    exit 0
  fi
  echo "cannot build the image: $reason" >&2
  exit 1
fi

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/ae-image.XXXXXX")
cleanup() {
  rm -rf "$SCRATCH"
  if $CI; then podman image rm --force "$TAG" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

# The base: the Debian root file system, cached (keyed by suite and package list).
base_image() {
  local key tarball image
  key=$(printf '%s %s' "$SUITE" "$PACKAGES" | sha256sum | cut -c1-12)
  tarball="$CACHE/rootfs-$SUITE-$key.tar"
  image="localhost/assignment-explorer-base:$SUITE-$key"
  if [ ! -s "$tarball" ]; then
    echo "making the base root file system with mmdebstrap (once; cached in $CACHE)..." >&2
    mkdir -p "$CACHE"
    mmdebstrap --quiet --variant=minbase --include="$PACKAGES" \
      --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --dpkgopt='path-exclude=/usr/share/man/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' \
      --dpkgopt='path-exclude=/usr/share/locale/*' \
      "$SUITE" "$SCRATCH/rootfs.tar" >&2
    mv "$SCRATCH/rootfs.tar" "$tarball.partial.$$" && mv "$tarball.partial.$$" "$tarball"
    podman image rm --force "$image" >/dev/null 2>&1 || true
  fi
  if ! podman image exists "$image"; then
    echo "importing the base into podman..." >&2
    podman import --quiet "$tarball" "$image" >/dev/null
  fi
  echo "$image"
}

# The host's pip configuration (files and PIP_* variables, as `pip config list` shows them) as
# one file for the build, its CA bundle mounted where the image keeps its own.
pip_config() {
  local conf="$SCRATCH/pip.conf" line key value
  echo "[global]" >"$conf"
  if python3 -m pip --version >/dev/null 2>&1; then
    while IFS= read -r line; do
      key=${line%%=*}
      key=${key#*.}
      value=${line#*=}
      value=${value#\'}
      value=${value%\'}
      grep -q "^$key = " "$conf" && continue  # the first is the one pip uses
      case "$key" in
        cert) value=$IMAGE_CA ;;
        find-links) [ -d "$value" ] || continue ;;
      esac
      echo "$key = $value" >>"$conf"
    done < <(python3 -m pip config list 2>/dev/null | grep -E "^(:env:|global|install)\.")
  fi
  echo "$conf"
}

if [ -n "${AE_IMAGE_BASE:-}" ]; then BASE=$AE_IMAGE_BASE; else BASE=$(base_image); fi
MOUNTS=(-v "$(pip_config):/etc/pip.conf:ro")
[ -s "$HOST_CA" ] && MOUNTS+=(-v "$HOST_CA:$IMAGE_CA:ro")
while IFS= read -r dir; do
  MOUNTS+=(-v "$dir:$dir:ro")
done < <(sed -n 's/^find-links = //p' "$SCRATCH/pip.conf")
PIP_CACHE=$(python3 -m pip cache dir 2>/dev/null || true)
if [ -n "$PIP_CACHE" ] && mkdir -p "$PIP_CACHE" 2>/dev/null; then
  MOUNTS+=(-v "$PIP_CACHE:/root/.cache/pip")
fi

echo "building $TAG on $BASE..."
started=$(date +%s)
# --layers=false: no intermediate images are left behind (the pip cache keeps rebuilds quick).
podman build --quiet --layers=false --format docker --isolation chroot --network host \
  --build-arg "BASE=$BASE" "${MOUNTS[@]}" --tag "$TAG" . >/dev/null
built=$(date +%s)
size=$(podman image inspect --format '{{.Size}}' "$TAG")
base_size=$(podman image inspect --format '{{.Size}}' "$BASE")
echo "built $TAG in $((built - started)) s: $((size / 1000000)) MB" \
  "($((base_size / 1000000)) MB base + $(((size - base_size) / 1000000)) MB of the project)"

SMOKE_PYTHON=python3
[ -x .venv/bin/python ] && SMOKE_PYTHON=.venv/bin/python
"$SMOKE_PYTHON" scripts/smoke_image.py "$TAG"
