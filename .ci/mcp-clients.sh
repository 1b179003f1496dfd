#!/usr/bin/env bash
# Installs the MCP clients' tools the e2e tests check `svc mcp` with (tests/tests/all/
# mcp_clients.rs), at pinned versions from the npm registry, into a cache dir outside
# the clone's sources: `$SVC_NPM_TOOLS_DIR`, else `<clone>/target/npm-tools`.
# Idempotent: when the pinned versions are there already it only prints them.
#
# What lands there (`npm install --prefix DIR`):
# - ajv (JSON Schema 2020-12 in strict mode): `DIR/node_modules/ajv`, used by
#   `tests/mcp/check-schemas.mjs`;
# - MCP Inspector's command line: `DIR/node_modules/.bin/mcp-inspector`
#   (`--cli <command> --method tools/list|tools/call ...`);
# - axe-core, the accessibility engine the web tests run in Chromium on each page
#   (`DIR/node_modules/axe-core/axe.min.js`, tests/src/browser.rs).
set -euo pipefail

AJV_VERSION=8.20.0
INSPECTOR_VERSION=2.12.0
AXE_VERSION=4.14.1

root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${SVC_NPM_TOOLS_DIR:-$root/target/npm-tools}"

command -v npm >/dev/null || { echo "mcp-clients.sh: npm is missing (Debian: apt-get install -y nodejs npm)" >&2; exit 1; }

# The version a package's package.json names, empty when it is not installed.
installed() {
  local manifest="$dir/node_modules/$1/package.json"
  [ -f "$manifest" ] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$manifest" | head -n 1
}

if [ "$(installed ajv)" != "$AJV_VERSION" ] ||
  [ "$(installed @modelcontextprotocol/inspector)" != "$INSPECTOR_VERSION" ] ||
  [ "$(installed axe-core)" != "$AXE_VERSION" ] ||
  [ ! -x "$dir/node_modules/.bin/mcp-inspector" ]; then
  mkdir -p "$dir"
  # A package.json of its own, so npm installs here and not in a parent project.
  [ -f "$dir/package.json" ] || echo '{"name": "svc-npm-tools", "private": true}' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "ajv@$AJV_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" \
    "axe-core@$AXE_VERSION" >&2
fi

echo "MCP client tools in $dir:"
echo "  ajv: $(installed ajv)"
echo "  @modelcontextprotocol/inspector: $(installed @modelcontextprotocol/inspector)"
echo "  axe-core: $(installed axe-core)"
