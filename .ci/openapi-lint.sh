#!/usr/bin/env bash
# Checks the committed OpenAPI document (docs/openapi.json, the snapshot of what the server
# serves) with the tools the ecosystem reads it with, and fails on any error:
# - openapi-spec-validator (pip, pinned, in a virtualenv in the target dir);
# - Redocly CLI `lint` with its `recommended` rules (npm, pinned, installed into
#   `$SVC_NPM_TOOLS_DIR`, else `<clone>/target/npm-tools`, as .ci/mcp-clients.sh does).
# Redocly's warnings are printed, not fatal; the ones the document keeps on purpose are
# listed with their reasons in docs/ARCHITECTURE.md ("The OpenAPI document").
set -euo pipefail

VALIDATOR_VERSION=0.9.0
REDOCLY_VERSION=2.77.0

root="$(cd "$(dirname "$0")/.." && pwd)"
doc="$root/docs/openapi.json"
target="${CARGO_TARGET_DIR:-$root/target}"
mkdir -p "$target"

command -v python3 >/dev/null || { echo "openapi-lint.sh: python3 (with venv) is missing" >&2; exit 1; }
command -v npm >/dev/null || { echo "openapi-lint.sh: npm is missing (Debian: apt-get install -y nodejs npm)" >&2; exit 1; }

# openapi-spec-validator, in a virtualenv made once per pinned version.
venv="$(realpath "$target")/openapi-spec-validator-$VALIDATOR_VERSION"
if [ ! -x "$venv/bin/openapi-spec-validator" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "openapi-spec-validator==$VALIDATOR_VERSION"
fi

# Redocly CLI, beside the MCP clients' tools.
dir="${SVC_NPM_TOOLS_DIR:-$target/npm-tools}"
installed() {
  local manifest="$dir/node_modules/$1/package.json"
  [ -f "$manifest" ] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$manifest" | head -n 1
}
if [ "$(installed @redocly/cli)" != "$REDOCLY_VERSION" ] || [ ! -x "$dir/node_modules/.bin/redocly" ]; then
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"name": "svc-npm-tools", "private": true}' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@redocly/cli@$REDOCLY_VERSION" >&2
fi

echo "openapi-spec-validator $VALIDATOR_VERSION:"
"$venv/bin/openapi-spec-validator" --validation-errors all "$doc"

echo "Redocly CLI $REDOCLY_VERSION lint (recommended rules):"
# No config file of ours: `--extends recommended` is the whole rule set. Telemetry off.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  "$dir/node_modules/.bin/redocly" lint --extends recommended --format stylish "$doc"
