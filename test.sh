#!/usr/bin/env bash
# The whole test suite. Set SVC_TEST_DATABASE_URL=postgres://... to run it on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --workspace --locked
# The end-to-end tests spend most of their time waiting on servers, git and browsers
# (a run on 2 cores used a third of its CPU time): four at once, unless told otherwise.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-4}"
cargo test --workspace --locked --no-fail-fast "$@"
