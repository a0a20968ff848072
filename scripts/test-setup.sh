#!/usr/bin/env bash
# What the tests need beyond node_modules, made sure of before any test starts (`npm test`,
# `npm run test:all`, `.ci/run`): Debian packages (Chromium for the VS Code UI tests, `script` for
# the terminal test, what code-server's install builds with), the cached code-server and the
# real agent CLIs (scripts/install-agents.sh).
# As root with apt-get it installs what is missing; otherwise it names the one command to run and
# stops before any test runs. Idempotent: about a second when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

# bsdutils: `script`, which gives the live-display test its pseudo-terminal. bubblewrap: `bwrap`,
# the sandbox the agent and the Checks run in (ADR 0290). python3: the spawner that starts
# the Run's git with posix_spawn (ADR 0480; without it git goes through the Node spawner).
packages="git python3 bsdutils bubblewrap libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep chromium fonts-noto-color-emoji"

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

# The sandbox needs unprivileged user namespaces too (a kernel or AppArmor may refuse them).
if command -v bwrap >/dev/null && ! bwrap --unshare-user --unshare-pid --die-with-parent --ro-bind / / --proc /proc --dev /dev true 2>/dev/null; then
  echo "test-setup: bwrap is installed but cannot make a sandbox here (user namespaces refused; see docs/security.md)." >&2
  echo "Run: sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0   (Ubuntu 24.04), or: sudo sysctl kernel.unprivileged_userns_clone=1" >&2
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
