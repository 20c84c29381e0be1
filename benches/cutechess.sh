#!/bin/sh
# Turncoat against itself in the Andernach variants, refereed by Cutechess
# (cutechess-cli, whose own board code is the reference for these rules): a
# check that every game ends by the rules, with no illegal move, time
# forfeit, disconnection or stall.
#
#   benches/cutechess.sh [VARIANT...]   default: andernach antiandernach superandernach
#
# Environment (defaults in brackets):
#   TURNCOAT       engine under test              [target/release/turncoat]
#   CUTECHESS_CLI  cutechess-cli binary           [target/cutechess/build/cutechess-cli,
#                                                  built by scripts/build-cutechess-driver.sh --cli]
#   GAMES          games per variant, in pairs    [20]
#   TC             time control, seconds+inc      [5+0.05]
#   PLIES          random plies per opening       [8; 0: every game from the start position]
#   SEED           seed of the random openings    [1]
#   CONCURRENCY    games at the same time         [1]
#
# The openings are Turncoat's own seeded random walks, written to an EPD file
# in target/ by a throwaway depth-1 `turncoat match`, as benches/fastchess.sh
# does; an opening whose FEN has an en passant square is skipped (Cutechess
# 1.4.0 reads the en passant square of a turned pawn differently from the way
# its own play sets it: docs/RULES.md, "Andernach: en passant"). Both games of
# a pair start from the same opening. Games go to target/cutechess-VARIANT.pgn,
# the log beside it; the script exits non-zero if a game ended otherwise than
# by the rules (mate, stalemate, repetition, the 50-move rule, insufficient
# material).
set -eu

die() { echo "cutechess.sh: $*" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
TURNCOAT=${TURNCOAT:-$root/target/release/turncoat}
CUTECHESS_CLI=${CUTECHESS_CLI:-$root/target/cutechess/build/cutechess-cli}
GAMES=${GAMES:-20}
TC=${TC:-5+0.05}
PLIES=${PLIES:-8}
SEED=${SEED:-1}
CONCURRENCY=${CONCURRENCY:-1}
[ -x "$TURNCOAT" ] || die "no $TURNCOAT (cargo build --release)"
[ -x "$CUTECHESS_CLI" ] || die "no $CUTECHESS_CLI (scripts/build-cutechess-driver.sh --cli)"
[ $# -gt 0 ] || set -- andernach antiandernach superandernach
rounds=$(((GAMES + 1) / 2))
mkdir -p "$root/target"
bad=0

for variant in "$@"; do
    out=$root/target/cutechess-$variant
    openings=""
    if [ "$PLIES" -gt 0 ]; then
        book=$root/target/cutechess-openings-$variant-${PLIES}ply-seed$SEED-$rounds.epd
        if [ ! -s "$book" ]; then
            tmp=$root/target/cutechess-openings-$$
            printf '[[engine]]\nname = "a"\ncmd = "@self"\noptions = { Hash = 1 }\n\n[[engine]]\nname = "b"\ncmd = "@self"\noptions = { Hash = 1 }\n' >"$tmp.toml"
            # Twice the openings needed, so that enough remain without an
            # en passant square.
            "$TURNCOAT" match --config "$tmp.toml" --engines a,b --variant "$variant" \
                --games $((4 * rounds)) --depth 1 --random-plies "$PLIES" --seed "$SEED" \
                --concurrency 1 --pgn "$tmp.pgn" >"$tmp.log" 2>&1 ||
                { cat "$tmp.log" >&2; die "could not write the openings (above)"; }
            sed -n 's/^\[FEN "\(.*\)"\]$/\1/p' "$tmp.pgn" | awk 'NR % 2 == 1 && $4 == "-"' |
                head -n "$rounds" >"$tmp.epd"
            [ "$(wc -l <"$tmp.epd")" -eq "$rounds" ] || die "too few openings in $tmp.epd"
            mv "$tmp.epd" "$book"
            rm -f "$tmp.toml" "$tmp.pgn" "$tmp.pgn.state" "$tmp.log"
        fi
        openings="-openings file=$book format=epd order=sequential"
    fi
    echo "cutechess-cli: $variant, $GAMES games at $TC" >&2
    # shellcheck disable=SC2086
    "$CUTECHESS_CLI" -variant "$variant" \
        -engine cmd="$TURNCOAT" name=Turncoat-A -engine cmd="$TURNCOAT" name=Turncoat-B \
        -each proto=uci tc="$TC" $openings -games "$GAMES" -repeat \
        -concurrency "$CONCURRENCY" -pgnout "$out.pgn" >"$out.log" 2>&1 ||
        die "cutechess-cli failed (see $out.log)"
    endings=$(sed -n 's/^Finished game [0-9]* ([^)]*): \(.*\)$/\1/p' "$out.log")
    echo "$endings" | sort | uniq -c >&2
    played=$(echo "$endings" | grep -c . || true)
    [ "$played" -eq "$GAMES" ] || { echo "$variant: $played of $GAMES games finished" >&2; bad=1; }
    if echo "$endings" | grep -Ev '(mates|stalemate|repetition|fifty moves rule|insufficient mating material)\}$' >/dev/null; then
        echo "$variant: a game ended otherwise than by the rules (above)" >&2
        bad=1
    fi
done
exit $bad
