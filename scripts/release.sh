#!/usr/bin/env bash
# Builds every release archive this machine can build into one folder:
#
#   scripts/release.sh [--profile P] [OUT]      # OUT defaults to target/dist
#
#   turncoat-<version>-windows-x86_64.zip      turncoat.exe (any x86-64 CPU), turncoat-avx2.exe
#   turncoat-<version>-linux-x86_64.tar.gz     turncoat, turncoat-avx2, static (musl): any distribution
#   turncoat-<version>-linux-aarch64.tar.gz    turncoat (Raspberry Pi OS 64-bit, Graviton, ...)
#   turncoat-<version>-web.zip                 the board as a static site (scripts/build-web.sh)
#   SHA256SUMS
#
# Each binary archive holds the binary, README.md, LICENSE, CHANGELOG.md and
# the example engines.toml. `turncoat` is built for the baseline CPU of its
# architecture and chooses the network's kernel when it starts (AVX2 where the
# CPU has it; `turncoat --version` names it). On x86-64 `turncoat-avx2` is
# built for x86-64-v3 (AVX2, BMI2, POPCNT: Intel since 2013, AMD since 2015),
# as fast as a build for the machine itself where the baseline one is some 5 %
# slower (its bitboard code has no POPCNT or BMI2); it does not start on older
# CPUs. Each x86-64 binary is started once here (Wine for Windows) and must
# name its kernel. The macOS archives are
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

# started BINARY: the kernel line of `--version`, run natively or under Wine
# (a copy, beside the test-only bcryptprimitives stand-in that Debian's Wine
# needs: scripts/cross-test.sh; never in an archive).
started() {
    case "$1" in
    *.exe)
        local scratch="$stage/wine"
        mkdir -p "$scratch"
        cp "$1" "$scratch/"
        x86_64-w64-mingw32-gcc -shared -O2 -o "$scratch/bcryptprimitives.dll" \
            scripts/wine/bcryptprimitives.c scripts/wine/bcryptprimitives.def -ladvapi32
        WINEDEBUG=-all wine "$scratch/$(basename "$1")" --version 2>/dev/null | tr -d '\r' | tail -n 1
        ;;
    *) "$1" --version | tail -n 1 ;;
    esac
}

# package TRIPLE SYSTEM BINARY: one binary archive (on x86-64 with the AVX2
# build beside the baseline one).
package() {
    local triple="$1" system="$2" binary="$3"
    echo "release: building $system ($triple, profile $profile)"
    cargo build -q --profile "$profile" --target "$triple"
    local dir="$stage/$name-$system"
    mkdir -p "$dir"
    cp "target/$triple/$profile/$binary" README.md LICENSE CHANGELOG.md engines.toml "$dir/"
    if [ "${triple%%-*}" = x86_64 ]; then
        local avx2="${binary%.exe}-avx2${binary#turncoat}"
        # RUSTFLAGS replaces the target's baseline flags; its own directory.
        RUSTFLAGS="-C target-cpu=x86-64-v3" cargo build -q --profile "$profile" \
            --target "$triple" --target-dir target/avx2
        cp "target/avx2/$triple/$profile/$binary" "$dir/$avx2"
        if grep -qw avx2 /proc/cpuinfo; then
            for b in "$binary" "$avx2"; do
                [ "$(started "$dir/$b")" = "network kernel: avx2" ] ||
                    { echo "release: $system/$b does not run the avx2 kernel here" >&2; exit 1; }
            done
        fi
    fi
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
