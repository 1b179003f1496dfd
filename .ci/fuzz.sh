#!/usr/bin/env bash
# Fuzzes every parser of untrusted input (fuzz/fuzz_targets/*) for a short, fixed time on
# its checked-in seed corpus (fuzz/corpus/<target>/seed-*) with libFuzzer, on stable Rust.
# Exits non-zero if any target crashes (a panic or a failed assertion), printing the
# crashing input's path; fuzz/README.md says how it becomes a test.
#
# The targets are the workspace's `svc-fuzz` crate, built here in the workspace's own
# debug profile with fuzz/instrument as RUSTC_WORKSPACE_WRAPPER: only the workspace's
# crates are instrumented and rebuilt, every dependency is the test build's, reused (a
# few minutes instead of cargo fuzz's own build of ~390 crates, ~14 CPU minutes). For
# deeper runs, `cargo fuzz` instruments everything (fuzz/README.md).
#
# SVC_FUZZ_SECONDS: seconds per target (default 30); SVC_FUZZ_JOBS: targets at once
# (default 2, one per core of a small CI machine): 9 targets take about 2.5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${SVC_FUZZ_SECONDS:-30}
jobs=${SVC_FUZZ_JOBS:-2}

mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^svc-fuzz$')

# `--workspace` with only the targets' binaries: the features of every dependency are
# those of the test build (with `-p svc-fuzz` alone, dozens of them differ and rebuild).
echo "   building the fuzz targets"
start=$SECONDS
RUSTC_WORKSPACE_WRAPPER="$PWD/fuzz/instrument" cargo build --locked --workspace \
  $(printf -- '--bin %s ' "${targets[@]}")
echo "   built in $((SECONDS - start)) s"
logs=target/fuzz/logs
rm -rf "$logs"
mkdir -p "$logs"

# One target: new inputs go to target/fuzz/corpus/<t> (the checked-in corpus is only
# read); a crash is written to target/fuzz/artifacts/<t>/.
run_one() {
  local t=$1 found=target/fuzz/corpus/$1 crashes=target/fuzz/artifacts/$1/
  mkdir -p "$found" "$crashes"
  if "target/debug/$t" "$found" "fuzz/corpus/$t" -artifact_prefix="$crashes" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      >"$logs/$t.log" 2>&1; then
    echo "   $t: clean for ${seconds} s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$logs/$t.log" | grep -o '[0-9]*$' || echo '?') runs)"
  else
    echo "!! $t CRASHED; the input: $(ls -t "$crashes"* 2>/dev/null | head -1)"
    touch "$logs/$t.failed"
  fi
}
export -f run_one
export seconds logs

echo "   fuzzing ${#targets[@]} targets, ${seconds} s each, ${jobs} at a time"
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$1"' _ {}

failed=("$logs"/*.failed)
if [ -e "${failed[0]}" ]; then
  for f in "${failed[@]}"; do
    t=$(basename "$f" .failed)
    echo "== $t: the end of its log ($logs/$t.log)"
    tail -n 40 "$logs/$t.log"
  done
  echo "!! fuzzing found crashes: reproduce with target/debug/<target> <input> (fuzz/README.md)" >&2
  exit 1
fi
echo "   fuzzing clean"
