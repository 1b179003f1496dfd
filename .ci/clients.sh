#!/usr/bin/env bash
# Clients generated from the committed OpenAPI document (docs/openapi.json), untouched, each
# running the walkthrough of tests/clients/ against a real server (.ci/serve.sh):
# - Python: openapi-python-client (pip, pinned, in a virtualenv in the target dir) makes the
#   package `svc_client`; tests/clients/walkthrough.py runs with it.
# - TypeScript: openapi-typescript makes the types, openapi-fetch makes the calls (npm,
#   pinned, in `$SVC_NPM_TOOLS_DIR`, else `<clone>/target/npm-tools`, as the other .ci
#   scripts do); tests/clients/walkthrough.ts is compiled by `tsc --strict` and run by node.
# No edits to the document or to what the generators make: a route whose answer a client
# cannot read fails here.
# Needs the debug binaries (cargo build --workspace), python3 with venv, npm and git.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON_CLIENT_VERSION=0.29.1
OPENAPI_TYPESCRIPT_VERSION=7.13.0
OPENAPI_FETCH_VERSION=0.17.0
TYPESCRIPT_VERSION=5.9.3
NODE_TYPES_VERSION=20.19.43

root="$(pwd)"
target="$(realpath "${CARGO_TARGET_DIR:-target}")"
command -v python3 >/dev/null || { echo "clients.sh: python3 (with venv) is missing" >&2; exit 1; }
command -v npm >/dev/null || { echo "clients.sh: npm is missing (Debian: apt-get install -y nodejs npm)" >&2; exit 1; }

# The generators, once per pinned version.
venv="$target/openapi-python-client-$PYTHON_CLIENT_VERSION"
if [ ! -x "$venv/bin/openapi-python-client" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "openapi-python-client==$PYTHON_CLIENT_VERSION"
fi
dir="${SVC_NPM_TOOLS_DIR:-$target/npm-tools}"
installed() {
  local manifest="$dir/node_modules/$1/package.json"
  [ -f "$manifest" ] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$manifest" | head -n 1
}
wanted=()
for package in "openapi-typescript@$OPENAPI_TYPESCRIPT_VERSION" "openapi-fetch@$OPENAPI_FETCH_VERSION" \
  "typescript@$TYPESCRIPT_VERSION" "@types/node@$NODE_TYPES_VERSION"; do
  [ "$(installed "${package%@*}")" = "${package##*@}" ] || wanted+=("$package")
done
if [ "${#wanted[@]}" -gt 0 ]; then
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"name": "svc-npm-tools", "private": true}' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "${wanted[@]}" >&2
fi

work="$(mktemp -d)"
pid=""
cleanup() {
  unserve
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=.ci/serve.sh
. .ci/serve.sh

echo "== openapi-python-client $PYTHON_CLIENT_VERSION"
# Its only setting: no formatting pass afterwards (that runs ruff, which is not installed).
printf 'post_hooks: []\n' >"$work/python-client.yml"
"$venv/bin/openapi-python-client" generate --path "$root/docs/openapi.json" --meta none \
  --config "$work/python-client.yml" --fail-on-warning --output-path "$work/python/svc_client"

echo "== openapi-typescript $OPENAPI_TYPESCRIPT_VERSION, openapi-fetch $OPENAPI_FETCH_VERSION, tsc $TYPESCRIPT_VERSION"
mkdir -p "$work/ts"
ln -s "$dir/node_modules" "$work/ts/node_modules"
echo '{"private": true, "type": "module"}' >"$work/ts/package.json"
cp tests/clients/walkthrough.ts "$work/ts/"
"$dir/node_modules/.bin/openapi-typescript" "$root/docs/openapi.json" -o "$work/ts/schema.d.ts"
(cd "$work/ts" && node_modules/.bin/tsc --strict --target es2022 --module nodenext \
  --moduleResolution nodenext --types node --outDir out walkthrough.ts)

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0
export GIT_AUTHOR_NAME="svc CI" GIT_AUTHOR_EMAIL="ci@svc.invalid"
export GIT_COMMITTER_NAME="svc CI" GIT_COMMITTER_EMAIL="ci@svc.invalid"
mkdir -p "$work/server"
serve "$work/server"
export SVC_BASE="$base" SVC_TOKEN="$token" SVC_LOGIN=ci
status=0
SVC_NAME=python PYTHONPATH="$work/python" "$venv/bin/python" tests/clients/walkthrough.py || status=$?
SVC_NAME=typescript node "$work/ts/out/walkthrough.js" || status=$?
if [ "$status" -ne 0 ]; then
  echo "== server log (last 50 lines)" >&2
  tail -n 50 "$work/server/server.log" >&2
fi
exit "$status"
