#!/usr/bin/env bash
# Installs code-server (the real VS Code, workbench in the browser) into a cache folder so the
# in-host and UI tests can run a real VS Code here. Desktop VS Code cannot be downloaded on these
# machines; code-server comes from the npm registry. See docs/vscode.md.
#
# 4.100.3 (VS Code 1.100.3) is the newest release that runs on Node 20.
# Idempotent: does nothing when a runnable install is already present.
# Prints the path of the code-server binary on its last line.
set -euo pipefail

version="4.100.3"
cache_root="${TICKET_RUNNER_CACHE:-$HOME/.cache/ticket-runner}"
prefix="$cache_root/code-server-$version"
bin="$prefix/node_modules/.bin/code-server"

if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
  echo "code-server $version already installed in $prefix" >&2
  echo "$bin"
  exit 0
fi

for tool in rg npm tar; do
  if ! command -v "$tool" >/dev/null; then
    echo "install-code-server: '$tool' is missing. As root: apt-get install -y ripgrep libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config" >&2
    exit 1
  fi
done

# @vscode/ripgrep downloads its binary from GitHub at install time, which is unreachable here.
# It looks in this cache first, so we put Debian's rg there under the name it expects.
rg_cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
rg_archive="$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [ ! -s "$rg_archive" ]; then
  staging=$(mktemp -d)
  trap 'rm -rf "$staging"' EXIT
  mkdir -p "$rg_cache" "$staging/rg"
  cp "$(command -v rg)" "$staging/rg/rg"
  tar -czf "$rg_archive.partial" -C "$staging/rg" rg
  mv "$rg_archive.partial" "$rg_archive"
fi

# Install into a fresh folder, then move it into place, so an interrupted install never leaves a
# half-installed folder that looks present.
rm -rf "$prefix.partial"
mkdir -p "$prefix.partial"
echo "installing code-server $version into $prefix (about 90 s)..." >&2
# unsafe_perm: its postinstall refuses to run as root otherwise. yes: a step runs `npx node-gyp`.
npm_config_unsafe_perm=true npm_config_yes=true \
  npm install --prefix "$prefix.partial" --no-audit --no-fund --loglevel=error "code-server@$version" >&2
rm -rf "$prefix"
mv "$prefix.partial" "$prefix"

if ! "$bin" --version >/dev/null 2>&1; then
  echo "install-code-server: installed, but '$bin --version' fails" >&2
  exit 1
fi
echo "code-server $version installed in $prefix" >&2
echo "$bin"
