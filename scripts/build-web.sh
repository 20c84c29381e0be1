#!/usr/bin/env bash
# Builds the web board as static files into one folder:
#
#   scripts/build-web.sh DIR
#   cd DIR && python3 -m http.server     # then open http://localhost:8000/
#
# DIR gets index.html and static/ (the page, exactly the files `turncoat
# serve` embeds, whose index.html picks the WebAssembly backend) plus
# static/wasm/ (the rules and the engine compiled to WebAssembly, and the
# JavaScript glue wasm-bindgen writes). Any host that serves files can serve
# DIR; README.md, "The board in the browser", says how to publish it.
#
# Needs the wasm32-unknown-unknown target and wasm-bindgen-cli at the exact
# version of the wasm-bindgen crate in Cargo.lock; with --install, installs
# both (rustup target add, cargo install). The build is one release build of
# crates/wasm (fat LTO: a few minutes on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."

install=false
if [ "${1:-}" = "--install" ]; then
    install=true
    shift
fi
if [ $# -ne 1 ]; then
    echo "usage: scripts/build-web.sh [--install] DIR" >&2
    exit 2
fi
out="$1"

# The wasm-bindgen version the build links (Cargo.lock), which the command
# line tool must match exactly.
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$version" ]; then
    echo "build-web: no wasm-bindgen in Cargo.lock" >&2
    exit 1
fi
if $install; then
    rustup target list --installed | grep -qx wasm32-unknown-unknown ||
        rustup target add wasm32-unknown-unknown
    if ! wasm-bindgen --version 2>/dev/null | grep -qw "$version"; then
        # Not --locked: the tool's lock file may name a dependency's patch
        # release that a registry mirror lacks; any matching release builds.
        cargo install --quiet wasm-bindgen-cli --version "=$version"
    fi
fi
have=$(wasm-bindgen --version 2>/dev/null || true)
if ! echo "$have" | grep -qw "$version"; then
    echo "build-web: needs wasm-bindgen-cli $version (found: ${have:-none});" \
        "run: cargo install wasm-bindgen-cli --version =$version" >&2
    exit 1
fi

cargo build --release --locked -p turncoat-wasm --target wasm32-unknown-unknown

mkdir -p "$out"
rm -rf "$out/static"
cp -R crates/serve/src/static "$out/static"
mv "$out/static/index.html" "$out/index.html"
wasm-bindgen --target web --no-typescript --out-dir "$out/static/wasm" \
    target/wasm32-unknown-unknown/release/turncoat_wasm.wasm
echo "build-web: the board is in $out (serve it with: cd $out && python3 -m http.server)"
