#!/usr/bin/env bash
# Installs the real coding-agent command lines the e2e tests run as svc runners (tests/
# tests/all/real_agents.rs), at pinned versions from the npm registry, into a cache dir
# outside the clone's sources: `$SVC_AGENT_CLIS_DIR`, else `<clone>/target/agent-clis`.
# Idempotent: when the pinned versions are there already it only prints them.
#
# What lands there (`npm install --prefix DIR`):
# - Claude Code: `DIR/node_modules/.bin/claude`, a native (glibc) program in the
#   package's platform sibling (`@anthropic-ai/claude-code-linux-x64`);
# - Codex: `DIR/node_modules/.bin/codex`, a node launcher of the static (musl) program in
#   `@openai/codex-linux-x64/vendor/<target>/bin/codex`.
# A runner's sandbox must be shown DIR read-only (`ro_paths`); node itself is in /usr.
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.171.0

root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${SVC_AGENT_CLIS_DIR:-$root/target/agent-clis}"

command -v npm >/dev/null || { echo "agent-clis.sh: npm is missing (Debian: apt-get install -y nodejs npm)" >&2; exit 1; }

# The version a package's package.json names, empty when it is not installed.
installed() {
  local manifest="$dir/node_modules/$1/package.json"
  [ -f "$manifest" ] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$manifest" | head -n 1
}

if [ "$(installed @anthropic-ai/claude-code)" != "$CLAUDE_CODE_VERSION" ] ||
  [ "$(installed @openai/codex)" != "$CODEX_VERSION" ] ||
  [ ! -x "$dir/node_modules/.bin/claude" ] || [ ! -x "$dir/node_modules/.bin/codex" ]; then
  mkdir -p "$dir"
  # A package.json of its own, so npm installs here and not in a parent project.
  [ -f "$dir/package.json" ] || echo '{"name": "svc-agent-clis", "private": true}' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" >&2
fi

echo "agent CLIs in $dir:"
echo "  claude: $("$dir/node_modules/.bin/claude" --version)"
echo "  codex: $("$dir/node_modules/.bin/codex" --version)"
