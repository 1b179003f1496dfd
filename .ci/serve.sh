# Sourced by the .ci scripts that try the API with outside tools against a real server.
# `serve WORK`: starts the debug svc-server on a free port, with its data dir, log and
# settings in WORK (request rates off: such tools send many requests from one address with
# one credential; the rates are tested on their own, tests/tests/all/rate_limits.rs), makes
# the first person (login `ci`) with the bootstrap secret, and sets `base`, `pid` and
# `token`. `unserve` stops the server; callers run it from their EXIT trap.
# Needs the debug binaries (cargo build --workspace), python3 and curl.

serve() {
  local work="$1" server="${CARGO_TARGET_DIR:-target}/debug/svc-server"
  [ -x "$server" ] || { echo "$server is missing; run cargo build --workspace" >&2; return 1; }
  local port
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  base="http://127.0.0.1:$port"
  secret="ci-bootstrap-$RANDOM$RANDOM"
  printf '[rate_limits]\nsign_in_per_minute = 0\ndevice_poll_per_minute = 0\nwrites_per_minute = 0\n' \
    >"$work/server.toml"
  SVC_BOOTSTRAP_SECRET="$secret" SVC_LOG_FORMAT=text "$server" --listen "127.0.0.1:$port" \
    --data-dir "$work/data" --config "$work/server.toml" >"$work/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    curl -fsS "$base/healthz" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/server.log" >&2; return 1; }
    sleep 0.1
  done
  token="$(call POST /v1/users '{"login": "ci", "email": "ci@svc.invalid"}' | json '["credential"]["token"]')"
}

unserve() {
  if [ -n "${pid:-}" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
}

# call METHOD PATH [JSON]: the JSON answer of a call that must succeed, made with the
# person's credential (the bootstrap secret before there is one).
call() {
  curl -fsS -X "$1" "$base$2" -H "Authorization: Bearer ${token:-$secret}" \
    -H 'Content-Type: application/json' ${3:+--data "$3"}
}
json() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }
