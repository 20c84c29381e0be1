#!/usr/bin/env bash
# Runs the binaries built for other systems here and checks that they give the
# native build's answers: a UCI session, perft counts in all nine variants and
# the bench signature (the nodes of a fixed-depth search, which every build
# and network kernel must reproduce exactly).
#
#   scripts/cross-test.sh [--profile P] TARGET...
#
# TARGET: windows (x86_64-pc-windows-gnu, run under Wine), aarch64
# (aarch64-unknown-linux-gnu, run under qemu-aarch64), musl (a static
# x86_64-unknown-linux-musl build, which runs on any Linux). Each is built
# with cargo (profile P, default `quick`: release speed without link-time
# optimisation), into its own target directory, next to a native build of
# the same profile. Windows also plays a two-game `turncoat match` between two
# copies of the Windows engine, refereed by the Windows binary.
#
# Needs (Debian): gcc-mingw-w64-x86-64 and wine64 for windows,
# gcc-aarch64-linux-gnu and qemu-user for aarch64, musl-tools for musl, and
# `rustup target add` of each target. A missing tool is a failure: this script
# is what says a cross build works, so it always fails then. Debian's Wine 8 lacks
# bcryptprimitives.dll, which Rust's standard library imports; a stand-in
# built from scripts/wine/ is put beside the test copy of the .exe (never
# beside a released one).
set -euo pipefail
cd "$(dirname "$0")/.."

profile=quick
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
    --profile) profile="$2"; shift ;;
    windows | aarch64 | musl) targets+=("$1") ;;
    -h | --help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "cross-test: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
[ ${#targets[@]} -gt 0 ] || { echo "usage: scripts/cross-test.sh [--profile P] windows|aarch64|musl..." >&2; exit 2; }

fail() { echo "cross-test: FAIL: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 not found ($2)"; }

VARIANTS=(chess cowardlycrew pacifist attendingpawns subversion cruisepawns andernach antiandernach superandernach)
PERFT_DEPTH=3
BENCH_DEPTH=6

# The native build's answers, the reference.
cargo build -q --profile "$profile" --no-default-features
native="target/$profile/turncoat"
declare -A want_perft want_bench
for v in "${VARIANTS[@]}"; do
    want_perft[$v]=$("$native" perft --variant "$v" --depth $PERFT_DEPTH 2>/dev/null | grep '^Nodes searched')
    want_bench[$v]=$("$native" bench $BENCH_DEPTH --variant "$v" 2>&1 | grep '^Nodes searched')
done

# The kernel a released binary must pick here: AVX2 where this x86-64 CPU
# has it (chosen at run time), else SSE2; NEON on aarch64.
if grep -qw avx2 /proc/cpuinfo; then x86_kernel=avx2; else x86_kernel=sse2; fi

# check NAME KERNEL RUN...: the same answers from the command RUN (the binary
# and whatever runs it), which runs the network on KERNEL.
check() {
    local name="$1" kernel="$2"
    shift 2
    local out
    out=$("$@" --version 2>/dev/null | tr -d '\r')
    grep -qx "network kernel: $kernel" <<<"$out" || fail "$name: not the $kernel kernel: $out"
    out=$(printf 'uci\nisready\nposition startpos moves e2e4 e7e5\ngo depth 4\n' | "$@" 2>/dev/null | tr -d '\r')
    grep -q '^uciok$' <<<"$out" || fail "$name: no uciok in the UCI session: $out"
    grep -q '^readyok$' <<<"$out" || fail "$name: no readyok in the UCI session"
    grep -q '^bestmove [a-h][1-8][a-h][1-8]' <<<"$out" || fail "$name: no bestmove in the UCI session"
    for v in "${VARIANTS[@]}"; do
        local got
        got=$("$@" perft --variant "$v" --depth $PERFT_DEPTH 2>/dev/null | tr -d '\r' | grep '^Nodes searched')
        [ "$got" = "${want_perft[$v]}" ] || fail "$name: perft $PERFT_DEPTH of $v: '$got', native '${want_perft[$v]}'"
        got=$("$@" bench $BENCH_DEPTH --variant "$v" 2>&1 | tr -d '\r' | grep '^Nodes searched')
        [ "$got" = "${want_bench[$v]}" ] || fail "$name: bench $BENCH_DEPTH of $v: '$got', native '${want_bench[$v]}'"
    done
    echo "cross-test: $name: the $kernel kernel; UCI session, perft $PERFT_DEPTH and bench $BENCH_DEPTH of all ${#VARIANTS[@]} variants as the native build"
}

for t in "${targets[@]}"; do
    case "$t" in
    windows)
        need x86_64-w64-mingw32-gcc "apt-get install gcc-mingw-w64-x86-64"
        need wine "apt-get install wine64"
        triple=x86_64-pc-windows-gnu
        # The whole program: the match runner is checked too.
        cargo build -q --profile "$profile" --target $triple
        dir="target/cross-test/windows"
        mkdir -p "$dir"
        cp "target/$triple/$profile/turncoat.exe" "$dir/"
        x86_64-w64-mingw32-gcc -shared -O2 -o "$dir/bcryptprimitives.dll" \
            scripts/wine/bcryptprimitives.c scripts/wine/bcryptprimitives.def -ladvapi32
        export WINEDEBUG=-all WINEPREFIX="${WINEPREFIX:-$PWD/target/cross-test/wineprefix}"
        check windows $x86_kernel wine "$dir/turncoat.exe"
        # A short match, refereed and played by the Windows binary (`@self`:
        # the running executable) in a variant whose rules the runner keeps.
        cat >"$dir/engines.toml" <<EOF
[[engine]]
name = "A"
cmd = "@self"
options = { Hash = 16 }

[[engine]]
name = "B"
cmd = "@self"
options = { Hash = 16, "Use NNUE" = false }

[match]
engines = ["A", "B"]
variant = "antiandernach"
games = 2
nodes = 2000
concurrency = 1
random_plies = 4
seed = 1
pgn = "match.pgn"
EOF
        rm -f "$dir/match.pgn"
        out=$(cd "$dir" && wine turncoat.exe match --config engines.toml 2>&1 | tr -d '\r')
        grep -q '^2 games in ' <<<"$out" || fail "windows: the match did not finish: $out"
        [ "$(grep -c '^\[Result ' "$dir/match.pgn")" = 2 ] || fail "windows: the match's PGN does not hold 2 games"
        echo "cross-test: windows: a two-game match under Wine"
        ;;
    aarch64)
        need aarch64-linux-gnu-gcc "apt-get install gcc-aarch64-linux-gnu"
        need qemu-aarch64 "apt-get install qemu-user"
        triple=aarch64-unknown-linux-gnu
        cargo build -q --profile "$profile" --no-default-features --target $triple
        check aarch64 neon qemu-aarch64 -L /usr/aarch64-linux-gnu "target/$triple/$profile/turncoat"
        ;;
    musl)
        need musl-gcc "apt-get install musl-tools"
        triple=x86_64-unknown-linux-musl
        cargo build -q --profile "$profile" --target $triple
        bin="target/$triple/$profile/turncoat"
        file "$bin" | grep -Eq 'static(ally|-pie) linked' || fail "musl: $bin is not statically linked"
        check musl $x86_kernel "$bin"
        ;;
    esac
done
echo "cross-test: passed"
