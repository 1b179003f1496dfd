#!/usr/bin/env bash
# Fuzzes the API against its own OpenAPI document with schemathesis (`--checks all`): starts
# the debug svc-server (.ci/serve.sh), gives it real data (a user, a monorepo, a repo with
# main and a pushed branch, made with real git), points every path parameter at that data,
# and fails on any failure schemathesis finds.
# Needs the debug binaries (cargo build --workspace) and python3 with venv.
set -euo pipefail
cd "$(dirname "$0")/.."

version=4.32.5
target="${CARGO_TARGET_DIR:-target}"

# The virtualenv lives in the target dir, made once per pinned version.
venv="$(realpath "$target")/schemathesis-$version"
if [ ! -x "$venv/bin/st" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
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
serve "$work"

call POST /v1/monorepos '{"name": "proj"}' >/dev/null
clone_url="$(call POST /v1/monorepos/ci/proj/repos '{"path": "app"}' | json '["clone_url"]')"
call POST /v1/monorepos/ci/proj/issues '{"title": "First issue", "body": "For the fuzzer", "labels": ["bug"]}' >/dev/null
comment="$(call POST /v1/monorepos/ci/proj/issues/1/comments '{"body": "A comment"}' | json '["id"]')"
push_url="${clone_url/:\/\//://ci:$token@}"
# A hook (to a documentation address: its tries fail, which is all they need to do here),
# made before the pushes so they give it deliveries.
hook="$(call POST /v1/monorepos/ci/proj/hooks '{"kind": "web", "url": "https://192.0.2.1/hook", "events": ["push", "tag"]}' | json '["id"]')"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0
export GIT_AUTHOR_NAME="svc CI" GIT_AUTHOR_EMAIL="ci@svc.invalid"
export GIT_COMMITTER_NAME="svc CI" GIT_COMMITTER_EMAIL="ci@svc.invalid"
git init -q -b main "$work/app"
(
  cd "$work/app"
  echo "hello" >README.md
  git add README.md && git commit -q -m "First commit"
  git push -q "$push_url" main
  git switch -q -c feature
  echo "more" >>README.md && mkdir -p src && echo "fn main() {}" >src/main.rs
  git add -A && git commit -q -m "Add more"
  git push -q "$push_url" feature
)
delivery="$(call GET "/v1/monorepos/ci/proj/hooks/$hook/deliveries" | json '["items"][0]["id"]')"
# A release of main with one file, named like the label so `{name}` fits both.
call POST /v1/monorepos/ci/proj/repos/app/releases '{"tag": "v1", "title": "First"}' >/dev/null
curl -fsS -X PUT "$base/v1/monorepos/ci/proj/repos/app/releases/v1/files/bug" \
  -H "Authorization: Bearer $token" --data-binary "release file" >/dev/null

# Every path parameter names the real data, so the generated requests reach it.
cat >"$work/schemathesis.toml" <<EOF
# A run whose credential stopped working tested nothing: fail it.
[warnings]
fail-on = ["missing_auth"]

[parameters]
"path.owner" = "ci"
"path.monorepo" = "proj"
"path.repo" = "app"
"path.branch" = "feature"
"path.number" = 1
"path.name" = "bug"
"path.tag" = "v1"
"path.content" = "+1"

# A comment's {id} names the comment made above. With every path parameter fixed, the
# coverage phase makes no out-of-range values for them: it would otherwise make one for
# {number} and then send the fixed 1 in its place, and call the 200 a schema violation.
[[operations]]
include-path-regex = "/comments/[{]id[}]"
parameters = { "path.id" = $comment }

# A hook's {id} and {delivery} name the hook and one of its deliveries.
[[operations]]
include-path-regex = "/hooks/[{]id[}]"
parameters = { "path.id" = "$hook", "path.delivery" = "$delivery" }

# A request the schema allows may still be refused with 400 where the rule is more than
# a JSON Schema states: RFC 8628 answers an unknown device code 400, and names, paths,
# emails, content digests and meta versions are checked against rules (reserved names,
# no '--', known versions) that the 400's message names.
[[operations]]
include-path = "/v1/login/token"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400"]
[[operations]]
include-path-regex = "^/v1/(monorepos|user/credentials)$|/(invites|repos|meta/blobs/missing|meta/saves)$"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409"]
# A meta blob's bytes must hash to the {sha256} they are put at (422 sha256_mismatch).
[[operations]]
include-path-regex = "/meta/blobs/[{]sha256[}]$"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409", "422"]
# Site admins make people by emails and logins checked against rules (400, 409), and
# may not disable themselves (400).
[[operations]]
include-path-regex = "^/v1/admin/users"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409"]
# Opaque cursors (only a list's own next_cursor is one), the topics and state grammars,
# confirm (the monorepo's own label), and names, bodies and contexts checked as above.
[[operations]]
include-path-regex = "^/v1/monorepos/[{]owner[}]/[{]monorepo[}](/events|/meta/history|/worktrees/[{]id[}]|/repos/[{]repo[}](/branches|/branches/[{]branch[}]/reviews|/history|/tree|/statuses/[{]sha[}]))?$"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409"]
# A branch's commits: a cursor as above; commitFiles checks paths, contents and deletes
# against the branch (422 bad_path, no_such_path), its expected_head against the head
# (409 head_moved) and the content against the push limit (413).
[[operations]]
include-path-regex = "/branches/[{]branch[}]/commits$"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409", "413", "422"]
# Issues and labels name labels, people, repos and comments that must exist (422 or 404),
# reactions from a fixed list, and states and sorts from their grammars (400).
[[operations]]
include-path-regex = "/(issues|labels)(/|$)"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409", "422"]
# Imports: a repo path checked as createRepo's (400), a repo already holding history
# (409 repo_not_empty), a URL hooks may not reach (400 url_not_allowed), an import no
# longer waiting for its bundle (409) and a bundle git cannot take (422 import_failed).
[[operations]]
include-path-regex = "/imports(/|$)"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409", "422"]
# A hook's URL must be http or https to an address hooks may reach (400).
[[operations]]
include-path-regex = "/hooks(/|$)"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404"]
# CI: connections need the server's CI settings (400 ci_not_configured here); builds and
# connections named by id must exist (404); webhooks need the connection's token (401).
[[operations]]
include-path-regex = "/ci(/|$)"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409", "413"]
# Artifacts: uploads are multipart with names, paths and bytes checked against their
# types (400), limits (400, 409, 411, 413); names, versions and files must exist (404).
# An anchor's offsets are whole numbers: JSON Schema counts 9487.0 as an integer, serde
# does not (422, as on every JSON body of the wrong shape).
[[operations]]
include-path-regex = "/(artifacts|artifact-threads|artifact-comments)(/|$)"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409", "411", "413", "422"]
# Releases name tags and commits that must exist and be on main (404, 422), ask the
# checks (412, 503), count files (409), and take uploads whose length and SHA-256 are
# checked (411, 413, 422); a range outside the file is 416.
[[operations]]
include-path-regex = "/(releases|release-notes|tags|deployments|summary)(/|$)"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409", "411", "412", "413", "416", "422", "503"]
# Agent sessions need the server's runners (422 agents_not_configured here), a branch
# (400 branch_required) and prompts within their limits (400); sessions named by id must
# exist (404); runs going are limited (429).
[[operations]]
include-path-regex = "/(agents|agent-models|chats|review-agent)(/|$)"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "403", "404", "409", "422", "429"]
EOF

# The last pass expects its credential to stop working.
printf '[warnings]\nfail-on = false\n' >"$work/logout.toml"

# st_run CONFIG ARGS: one schemathesis run over the document with the credential. One
# worker: with two threads, CPython 3.11's ast parsing inside Hypothesis once crashed the
# run ("AST constructor recursion depth mismatch") with nothing wrong on the server.
st_run() {
  local config="$1"
  shift
  # From the temp dir, where schemathesis keeps its cache.
  (cd "$work" && "$venv/bin/st" --no-color --config-file "$config" run "$base/v1/openapi.json" \
    --checks all --max-examples 20 --seed 1 --workers 1 --phases examples,coverage,fuzzing \
    -H "Authorization: Bearer $token" "$@")
}
echo "== schemathesis $version against $base"
status=0
# Logging out, or revoking a credential (schemathesis reuses ids it has seen in answers),
# ends the credential every other request uses: those go last, on their own.
revokes='^/v1/(logout|user/credentials/[{]id[}])$'
st_run "$work/schemathesis.toml" --exclude-path-regex "$revokes" || status=$?
st_run "$work/logout.toml" --include-path-regex "$revokes" || status=$?
if [ "$status" -ne 0 ]; then
  echo "== server log (last 50 lines)" >&2
  tail -n 50 "$work/server.log" >&2
fi
exit "$status"
