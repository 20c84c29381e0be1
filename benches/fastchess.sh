#!/bin/sh
# Turncoat against one of Debian's engines, refereed by fastchess (an independent
# match runner: its own move generator, clocks and Elo report), with the same
# anchors, settings and openings as benches/strength.toml.
#
#   benches/fastchess.sh ANCHOR        ANCHOR: sf2400 sf2850 ethereal toga2 glaurung
#
# Environment (defaults in brackets):
#   TURNCOAT     engine under test              [target/release/turncoat]
#   FASTCHESS    fastchess binary               [fastchess on PATH]
#   GAMES        games, in colour-swapped pairs [200]
#   TC           time control, seconds+inc      [5+0.05]
#   SEED         seed of the random openings    [5]
#   PLIES        random plies per opening       [8]
#   CONCURRENCY  games at the same time         [1]
#
# Anchors: apt-get install stockfish glaurung ethereal-chess toga2 (in /usr/games).
# fastchess: git clone https://github.com/Disservin/fastchess && cd fastchess && make
#
# The openings are Turncoat's own seeded random walks (`turncoat match
# --random-plies PLIES --seed SEED`): the script has Turncoat play a throwaway
# depth-1 match to get their FENs, and writes them to an EPD file in target/. So
# pair r starts from the same position as pair r of `turncoat match` with the
# same seed. Games go to target/fastchess-ANCHOR-seedSEED.pgn (overwritten), the
# whole log to the same name with .log.
set -eu

die() { echo "fastchess.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: benches/fastchess.sh sf2400|sf2850|ethereal|toga2|glaurung"
anchor=$1

root=$(cd "$(dirname "$0")/.." && pwd)
TURNCOAT=${TURNCOAT:-$root/target/release/turncoat}
GAMES=${GAMES:-200}
TC=${TC:-5+0.05}
SEED=${SEED:-5}
PLIES=${PLIES:-8}
CONCURRENCY=${CONCURRENCY:-1}
FASTCHESS=${FASTCHESS:-fastchess}

[ -x "$FASTCHESS" ] || command -v "$FASTCHESS" >/dev/null 2>&1 ||
    die "no fastchess at '$FASTCHESS': build it (https://github.com/Disservin/fastchess, make) and set FASTCHESS"
[ -x "$TURNCOAT" ] && [ -f "$TURNCOAT" ] ||
    die "no engine at '$TURNCOAT': cargo build --release, or set TURNCOAT"
# Absolute paths (relative ones are the caller's), then work from the repository root.
case $FASTCHESS in */*) FASTCHESS=$(cd "$(dirname "$FASTCHESS")" && pwd)/$(basename "$FASTCHESS") ;; esac
TURNCOAT=$(cd "$(dirname "$TURNCOAT")" && pwd)/$(basename "$TURNCOAT")
cd "$root"
case $GAMES in *[!0-9]* | '' | 0) die "GAMES must be a positive even number" ;; esac
[ $((GAMES % 2)) -eq 0 ] || die "GAMES must be even (colour-swapped pairs)"
rounds=$((GAMES / 2))

# The anchors, as in benches/strength.toml (each argument one fastchess token).
case $anchor in
    sf2400 | sf2850)
        set -- cmd=/usr/games/stockfish "name=$anchor" option.Hash=16 option.Threads=1 \
            option.UCI_LimitStrength=true "option.UCI_Elo=${anchor#sf}" ;;
    ethereal)
        set -- cmd=/usr/games/ethereal-chess name=ethereal option.Hash=16 option.Threads=1 ;;
    toga2)
        set -- cmd=/usr/games/toga2 name=toga2 option.Hash=16 \
            "option.Number of Threads=1" option.OwnBook=false ;;
    glaurung)
        # Threads 1: its default is 2.
        set -- cmd=/usr/games/glaurung name=glaurung option.Hash=16 option.Threads=1 ;;
    *) die "unknown anchor '$anchor' (sf2400 sf2850 ethereal toga2 glaurung)" ;;
esac
[ -x "${1#cmd=}" ] || die "no ${1#cmd=}: apt-get install stockfish glaurung ethereal-chess toga2"

mkdir -p target
book=target/openings-${PLIES}ply-seed$SEED-$rounds.epd
if [ ! -s "$book" ]; then
    echo "Writing $rounds openings of $PLIES random plies (seed $SEED) to $book" >&2
    tmp=target/openings-$$
    cat >"$tmp.toml" <<EOF
[[engine]]
name = "a"
cmd = "@self"
options = { Hash = 1, Threads = 1 }

[[engine]]
name = "b"
cmd = "@self"
options = { Hash = 1, Threads = 1 }
EOF
    # One game per pair is enough: both games of pair r start from opening r.
    # With one game at a time, the PGN holds the games in order.
    "$TURNCOAT" match --config "$tmp.toml" --engines a,b --variant chess \
        --games "$GAMES" --depth 1 --random-plies "$PLIES" --seed "$SEED" \
        --concurrency 1 --pgn "$tmp.pgn" >"$tmp.log" 2>&1 ||
        { cat "$tmp.log" >&2; die "could not write the openings (above)"; }
    sed -n 's/^\[FEN "\(.*\)"\]$/\1/p' "$tmp.pgn" | awk 'NR % 2 == 1' >"$tmp.epd"
    [ "$(wc -l <"$tmp.epd")" -eq "$rounds" ] || die "expected $rounds openings in $tmp.epd"
    mv "$tmp.epd" "$book"
    rm -f "$tmp.toml" "$tmp.pgn" "$tmp.pgn.state" "$tmp.log"
fi

out=target/fastchess-$anchor-seed$SEED
echo "fastchess: Turncoat vs $anchor, $GAMES games at $TC, openings $book" >&2
rm -f "$out.failed"
{
    "$FASTCHESS" \
        -engine "cmd=$TURNCOAT" name=Turncoat option.Hash=16 option.Threads=1 \
        -engine "$@" \
        -each proto=uci "tc=$TC" \
        -openings "file=$book" format=epd order=sequential \
        -rounds "$rounds" -repeat -concurrency "$CONCURRENCY" \
        -pgnout "file=$out.pgn" append=false \
        -config "outname=$out.json" \
        2>&1 || echo $? >"$out.failed"
} | tee "$out.log" | awk '
    # Stockfish at UCI_LimitStrength plays moves off its own PV on purpose, and
    # fastchess warns about each (4 lines). Only the log keeps those of the anchor.
    skip > 0 { skip--; next }
    /^Warning; Bestmove does not match beginning of last PV/ && !/ from Turncoat$/ {
        hidden++; skip = 3; next
    }
    { print; fflush() }
    END { if (hidden) print hidden " bestmove/PV warnings about the anchor are only in the log" }'
[ ! -e "$out.failed" ] || die "fastchess failed (exit $(cat "$out.failed")); see $out.log"

# fastchess's last report: the Elo, the game counts and the pentanomial line.
echo
echo "Summary ($("$FASTCHESS" -version 2>/dev/null | head -n 1); games in $out.pgn):"
awk '/^Results of /{buf=""; on=1} on{buf=buf $0 "\n"} on && /^---/{on=0} END{printf "%s", buf}' "$out.log"
