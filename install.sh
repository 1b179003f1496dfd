#!/usr/bin/env bash
# Installs svc (the CLI) and svc-server into $PREFIX/bin (default ~/.local/bin) with
# shell completions. Run it again to upgrade; it changes nothing else.
set -euo pipefail
cd "$(dirname "$0")"

die() { echo "install.sh: $*" >&2; exit 1; }
command -v cargo >/dev/null || die "cargo is missing: install Rust from https://rustup.rs, then run this again"
command -v git >/dev/null || die "git is missing: install git (svc drives the real git), then run this again"

prefix="${PREFIX:-$HOME/.local}"
mkdir -p "$prefix/bin"
echo "Building svc and svc-server (release)..."
cargo install --locked --quiet --force --root "$prefix" --path server --bin svc-server
cargo install --locked --quiet --force --root "$prefix" --path cli

data_home="${XDG_DATA_HOME:-$HOME/.local/share}"
install -Dm644 completions/svc.bash "$data_home/bash-completion/completions/svc"
install -Dm644 completions/_svc "$data_home/zsh/site-functions/_svc"
install -Dm644 completions/svc.fish "${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions/svc.fish"

echo "Installed svc and svc-server into $prefix/bin."
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "Add $prefix/bin to your PATH." ;; esac
echo "zsh: add $data_home/zsh/site-functions to your fpath for completions."
cat <<TXT

Start the server (SQLite in the platform data dir, http://127.0.0.1:8640), creating your
user and printing its credential:
  svc-server quickstart --email you@example.com
Then sign this machine in:
  svc login --server http://127.0.0.1:8640
TXT
