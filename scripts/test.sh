#!/usr/bin/env bash
# Installs everything the test suite needs (system packages included) and runs the whole suite.
# Usage: bash scripts/test.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

# Headless Chromium for the browser tests (Debian's package; Playwright drives it).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's chromium for the browser tests..."
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is not installed and cannot be installed here: browser tests will skip"
  fi
fi

# Java 17 runs PySpark's local mode; it is on the project's machines already.
command -v java >/dev/null 2>&1 || echo "java is not installed: the Spark tests will fail"

# Kafka's own Java assignors, the oracle of the differential tests (test-time only; the product
# stays Python). Maven keeps Kafka's jars in ~/.m2, so later runs build offline in seconds.
if ! command -v mvn >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's maven for the Kafka oracle..."
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven >/dev/null
fi

# Apache Kafka for the broker tests: Maven resolves the jars (tests/kafka_cluster/pom.xml) into
# ~/.m2 once; the class path file is rewritten only when the pom changed or a jar went missing.
classpath=tests/kafka_cluster/target/classpath.txt
if ! command -v mvn >/dev/null 2>&1; then
  echo "maven is not installed: the Apache Kafka tests will fail"
elif [ ! -s "$classpath" ] || [ tests/kafka_cluster/pom.xml -nt "$classpath" ] \
    || ! tr ':' '\n' < "$classpath" | xargs -r ls >/dev/null 2>&1; then
  if ! maven_log=$(mvn -q -B -Dstyle.color=never -f tests/kafka_cluster/pom.xml \
      dependency:build-classpath -Dmdep.outputFile="$PWD/$classpath" 2>&1); then
    echo "$maven_log"
    echo "maven could not resolve Apache Kafka: the Apache Kafka tests will fail"
  fi
fi

# One oracle per Kafka release line, 3.0 to 4.4 (the newest patch of each: tests/oracle.RELEASES;
# the classes a line lacks are left out). Each build is skipped while its jar is newer than the
# sources; Kafka's jars are downloaded into ~/.m2 once.
python3 -m tests.oracle build all

# A real OpenID Connect provider for the login tests (npm's oidc-provider on loopback; Node.js
# 20.19 or later, on the project's machines; Debian's own is older): installed from
# tests/oidc_provider's lockfile, again only when the lockfile changed.
provider=tests/oidc_provider
if ! command -v npm >/dev/null 2>&1; then
  echo "npm is not installed: the login tests will fail"
elif [ ! -d "$provider/node_modules/oidc-provider" ] \
    || [ "$provider/package-lock.json" -nt "$provider/node_modules/.package-lock.json" ]; then
  if ! (cd "$provider" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
    echo "npm ci failed in $provider: the login tests will fail"
  fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test,spark]'
exec .venv/bin/python -m pytest "$@"
