#!/usr/bin/env bash
# The whole test suite. Set SVC_TEST_DATABASE_URL=postgres://... to run it on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --workspace --locked
cargo test --workspace --locked --no-fail-fast "$@"
