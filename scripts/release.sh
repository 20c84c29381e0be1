#!/usr/bin/env bash
# Builds every release archive this machine can build into one folder:
#
#   scripts/release.sh [--profile P] [OUT]      # OUT defaults to target/dist
#
#   turncoat-<version>-windows-x86_64.zip      turncoat.exe (x86-64, any CPU)
#   turncoat-<version>-linux-x86_64.tar.gz     turncoat, static (musl): any distribution
#   turncoat-<version>-linux-aarch64.tar.gz    turncoat (Raspberry Pi OS 64-bit, Graviton, ...)
#   turncoat-<version>-web.zip                 the board as a static site (scripts/build-web.sh)
#   SHA256SUMS
#
# Each binary archive holds the binary, README.md, LICENSE, CHANGELOG.md and
# the example engines.toml. The binaries are built for the baseline CPU of
# their architecture and choose the network's kernel when they start (AVX2
# where the CPU has it); `turncoat --version` names it. The macOS archives are
# built by the hosting CI's release workflow (.github/workflows/release.yml),
# not here.
#
# Needs the cross toolchains scripts/cross-test.sh names (and runs the
# binaries with), the wasm32 target and wasm-bindgen-cli (build-web.sh
# --install), and python3 for the zip files. P defaults to `release` (fat
# LTO: several minutes a target on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
out=""
while [ $# -gt 0 ]; do
    case "$1" in
    --profile) profile="$2"; shift ;;
    -h | --help) sed -n '2,22p' "$0"; exit 0 ;;
    *) out="$1" ;;
    esac
    shift
done
out="${out:-target/dist}"
version=$(awk -F'"' '/^\[workspace.package\]/ { p = 1 } p && /^version = / { print $2; exit }' Cargo.toml)
[ -n "$version" ] || { echo "release: no version in Cargo.toml" >&2; exit 1; }
name="turncoat-$version"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

zip_dir() { # zip_dir DIR ARCHIVE: the folder DIR, by its name, into ARCHIVE
    (cd "$(dirname "$1")" && python3 -m zipfile -c "$2" "$(basename "$1")")
}

# package TRIPLE SYSTEM BINARY: one binary archive.
package() {
    local triple="$1" system="$2" binary="$3"
    echo "release: building $system ($triple, profile $profile)"
    cargo build -q --profile "$profile" --target "$triple"
    local dir="$stage/$name-$system"
    mkdir -p "$dir"
    cp "target/$triple/$profile/$binary" README.md LICENSE CHANGELOG.md engines.toml "$dir/"
    case "$system" in
    windows-*) zip_dir "$dir" "$out/$name-$system.zip" ;;
    *) tar -C "$stage" -czf "$out/$name-$system.tar.gz" "$name-$system" ;;
    esac
}

rm -f "$out/$name-"* "$out/SHA256SUMS"
package x86_64-pc-windows-gnu windows-x86_64 turncoat.exe
package x86_64-unknown-linux-musl linux-x86_64 turncoat
package aarch64-unknown-linux-gnu linux-aarch64 turncoat

echo "release: building the web board"
scripts/build-web.sh --install "$stage/$name-web"
zip_dir "$stage/$name-web" "$out/$name-web.zip"

(cd "$out" && sha256sum "$name"-* >SHA256SUMS)
echo "release: $out"
cat "$out/SHA256SUMS"
