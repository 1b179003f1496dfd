#!/usr/bin/env bash
# Installs svc (the CLI) and svc-server with shell completions. Both are built in one
# `cargo build` (one target dir, each dependency compiled once), then copied into
# $PREFIX/bin when PREFIX is set, else into cargo's own bin dir (~/.cargo/bin), which
# rustup already put on PATH: the next command, in this shell or a new one, finds them.
# Run it again to upgrade; it changes nothing else.
set -euo pipefail
cd "$(dirname "$0")"

die() { echo "install.sh: $*" >&2; exit 1; }
command -v cargo >/dev/null || die "cargo is missing: install Rust from https://rustup.rs, then run this again"
command -v git >/dev/null || die "git is missing: install git (svc drives the real git), then run this again"

if [ -n "${PREFIX:-}" ]; then bin="$PREFIX/bin"; else bin="${CARGO_HOME:-$HOME/.cargo}/bin"; fi
echo "Building svc and svc-server (release; a few minutes the first time)..."
cargo build --release --locked -p svc-server --bin svc-server -p svc-cli --bin svc
built="${CARGO_TARGET_DIR:-target}/release"
mkdir -p "$bin"
install -m755 "$built/svc-server" "$built/svc" "$bin/"

# Completions in each shell's usual user folder: the scripts call svc back as you press
# Tab, so monorepos, repos (-R) and branches complete from your server.
data_home="${XDG_DATA_HOME:-$HOME/.local/share}"
install -Dm644 completions/svc.bash "$data_home/bash-completion/completions/svc"
install -Dm644 completions/_svc "$data_home/zsh/site-functions/_svc"
install -Dm644 completions/svc.fish "${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions/svc.fish"

echo "Installed svc and svc-server into $bin."
case ":$PATH:" in
  *":$bin:"*)
    for b in svc svc-server; do
      found="$(command -v "$b" || true)"
      [ "$found" = "$bin/$b" ] || echo "Note: $found comes first on PATH; remove it or put $bin before it."
    done ;;
  *) echo "$bin is not on PATH: run  export PATH=\"$bin:\$PATH\"  (and add that line to your shell's profile)." ;;
esac
echo "Completions for bash, zsh and fish are installed; zsh: add $data_home/zsh/site-functions to your fpath."
cat <<TXT

Start the server (SQLite in the platform data dir, http://127.0.0.1:8640), creating your
user, asking for its browser password and printing its credential:
  svc-server quickstart --email you@example.com
Then, in another terminal, sign this machine in:
  svc login --server http://127.0.0.1:8640
TXT
