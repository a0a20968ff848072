#!/usr/bin/env bash
# What the tests need beyond node_modules, made sure of before any test starts (`npm test`,
# `npm run test:all`, `.ci/run`): Debian packages (Chromium for the VS Code UI tests, `script` for
# the terminal test, what code-server's install builds with), the cached code-server and the
# real agent CLIs (scripts/install-agents.sh).
# As root with apt-get it installs what is missing; otherwise it names the one command to run and
# stops before any test runs. Idempotent: about a second when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

# bsdutils: `script`, which gives the live-display test its pseudo-terminal.
packages="git bsdutils libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep chromium fonts-noto-color-emoji"

missing=""
if command -v dpkg >/dev/null; then
  for pkg in $packages; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
  done
fi
if [ -n "$missing" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "test-setup: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086 # one word per package
    apt-get install -y -qq --no-install-recommends $missing >&2
  else
    echo "test-setup: the tests need these Debian packages:$missing" >&2
    echo "Run: sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
  fi
fi

chromium="${TICKET_RUNNER_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "test-setup: the VS Code UI tests need Chromium at $chromium." >&2
  echo "Run: sudo apt-get install -y chromium   (or set TICKET_RUNNER_CHROMIUM to a Chromium binary)" >&2
  exit 1
fi

# Installs code-server and the agent CLIs into the cache once (from the npm registry); then no-ops.
if ! bash scripts/install-code-server.sh >/dev/null; then
  echo "test-setup: code-server could not be installed (see above). Run: npm run code-server:install" >&2
  exit 1
fi
if ! bash scripts/install-agents.sh >/dev/null; then
  echo "test-setup: the agent CLIs could not be installed (see above). Run: bash scripts/install-agents.sh" >&2
  exit 1
fi
