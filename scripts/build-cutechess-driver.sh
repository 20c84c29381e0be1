#!/usr/bin/env bash
# Builds Cutechess's rules library (v1.4.0, the reference for the Andernach
# variants) and benches/cutechess/driver.cpp against it.
#
#   scripts/build-cutechess-driver.sh [--cli] [--gui] [--src DIR] [BUILD_DIR]
#
# BUILD_DIR (default target/cutechess) receives the unpacked source (unless
# --src names an unpacked Cutechess v1.4.0 tree), the CMake build and the
# driver binary `BUILD_DIR/cutechess-driver`. --cli also builds cutechess-cli
# (`BUILD_DIR/build/cutechess-cli`), --gui the graphical Cutechess
# (`BUILD_DIR/build/cutechess`, a few more minutes). Needs cmake, a C++17 compiler and Qt 5
# (Debian: apt-get install -y cmake g++ qtbase5-dev qtbase5-dev-tools
# libqt5svg5-dev qttools5-dev). Without --src the source is the GitHub tarball
# of the tag.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=v1.4.0
URL="https://github.com/cutechess/cutechess/archive/refs/tags/$VERSION.tar.gz"
CLI=0
GUI=0
SRC=""
BUILD=""
while [ $# -gt 0 ]; do
    case "$1" in
    --cli) CLI=1 ;;
    --gui) GUI=1 ;;
    --src) SRC="$2"; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) BUILD="$1" ;;
    esac
    shift
done
BUILD="${BUILD:-target/cutechess}"
mkdir -p "$BUILD"
BUILD="$(cd "$BUILD" && pwd)"
JOBS="${JOBS:-2}"

if [ -z "$SRC" ]; then
    SRC="$BUILD/cutechess-${VERSION#v}"
    if ! [ -f "$SRC/CMakeLists.txt" ]; then
        tarball="$BUILD/cutechess-$VERSION.tar.gz"
        [ -f "$tarball" ] || curl -fsSL -o "$tarball" "$URL"
        tar -xzf "$tarball" -C "$BUILD"
    fi
fi
SRC="$(cd "$SRC" && pwd)"
[ -f "$SRC/projects/lib/src/board/andernachboard.cpp" ] || {
    echo "not a Cutechess source tree: $SRC" >&2
    exit 1
}

mkdir -p "$BUILD/build"
if ! [ -f "$BUILD/build/Makefile" ]; then
    cmake -S "$SRC" -B "$BUILD/build" -DCMAKE_BUILD_TYPE=Release -DWITH_TESTS=OFF >/dev/null
fi
make -C "$BUILD/build" -j"$JOBS" lib >/dev/null
if [ "$CLI" = 1 ]; then
    make -C "$BUILD/build" -j"$JOBS" cli >/dev/null
fi
if [ "$GUI" = 1 ]; then
    make -C "$BUILD/build" -j"$JOBS" gui >/dev/null
fi

# shellcheck disable=SC2046
g++ -std=c++17 -O2 -fPIC -DLIB_EXPORT= -o "$BUILD/cutechess-driver" benches/cutechess/driver.cpp \
    -I"$SRC/projects/lib/src" -I"$SRC/projects/lib/src/board" \
    "$BUILD/build/libcutechess.a" $(pkg-config --cflags --libs Qt5Core)
echo "$BUILD/cutechess-driver"
