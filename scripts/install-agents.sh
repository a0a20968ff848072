#!/usr/bin/env bash
# Installs the real coding-agent CLIs into a cache folder, so the real-agent integration suites and
# `ticket-runner demo --agent claude|codex|gemini` can run them against the scripted model servers
# (src/sandbox/model-server/). They come from the npm registry, outside `npm ci`: each pulls a large
# native binary or bundle for this platform. See docs/agents.md.
#
#   bash scripts/install-agents.sh                 # all of them
#   bash scripts/install-agents.sh codex gemini    # only these
#
# Pinned exactly: the recorded fixtures (test/fixtures/*-streams/) say which version made them.
# Idempotent: does nothing for an agent whose runnable install is already present.
# Prints the path of each installed binary, one a line, in the order asked (with no argument:
# codex, gemini, then claude, so the last line is still the claude binary).
set -euo pipefail

declare -A PACKAGE=([claude]="@anthropic-ai/claude-code" [codex]="@openai/codex" [gemini]="@google/gemini-cli")
declare -A VERSION=([claude]="2.1.332" [codex]="0.171.0" [gemini]="0.61.0")
declare -A FOLDER=([claude]="claude-code" [codex]="codex" [gemini]="gemini-cli")

cache_root="${TICKET_RUNNER_CACHE:-$HOME/.cache/ticket-runner}"

install_one() {
  local name="$1"
  local version="${VERSION[$name]}"
  local prefix="$cache_root/${FOLDER[$name]}-$version"
  local bin="$prefix/node_modules/.bin/$name"

  if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
    echo "$name $version already installed in $prefix" >&2
    echo "$bin"
    return 0
  fi
  # Install into a fresh folder, then move it into place, so an interrupted install never leaves a
  # half-installed folder that looks present.
  rm -rf "$prefix.partial"
  mkdir -p "$prefix.partial"
  echo "installing ${PACKAGE[$name]} $version into $prefix..." >&2
  # unsafe_perm: a postinstall (Claude Code links its platform's native binary) must run as root too.
  npm_config_unsafe_perm=true \
    npm install --prefix "$prefix.partial" --no-audit --no-fund --loglevel=error \
    --save-exact "${PACKAGE[$name]}@$version" >&2
  rm -rf "$prefix"
  mv "$prefix.partial" "$prefix"
  if ! "$bin" --version >/dev/null 2>&1; then
    echo "install-agents: installed, but '$bin --version' fails" >&2
    return 1
  fi
  echo "$name $version installed in $prefix" >&2
  echo "$bin"
}

if ! command -v npm >/dev/null; then
  echo "install-agents: 'npm' is missing; install Node.js 20 or newer" >&2
  exit 1
fi

wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=(codex gemini claude)
for name in "${wanted[@]}"; do
  if [ -z "${PACKAGE[$name]+x}" ]; then
    echo "install-agents: unknown agent '$name'; choose from: claude codex gemini" >&2
    exit 2
  fi
done
for name in "${wanted[@]}"; do install_one "$name"; done
