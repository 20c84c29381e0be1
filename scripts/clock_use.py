#!/usr/bin/env python3
"""How each engine of a `turncoat match` PGN used its clock.

Reads the `{score/depth time}` comments the match runner writes after every
move and, for an increment time control, prints per engine and by game length
the clock left at the end of its games (base + increment x moves - time used)
and the mean time a move over the first 30 moves. No dependencies.

    python3 scripts/clock_use.py games.pgn [--base 5 --inc 0.05]
"""

import argparse
import re
from collections import defaultdict

# `{+0.25/12 0.153s}` or `{0.153s}`; the PGN writer wraps lines, so a comment
# may hold a line break where the space was.
MOVE_COMMENT = re.compile(r"\{(?:[^}/]*/\d+\s+)?([0-9.]+)s\}")


def games(text):
    for chunk in text.split("[Event ")[1:]:
        tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', chunk))
        body = chunk.split("\n\n", 1)[1] if "\n\n" in chunk else ""
        times = [float(t) for t in MOVE_COMMENT.findall(body)]
        yield tags, times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pgn")
    ap.add_argument("--base", type=float, default=5.0, help="seconds per game")
    ap.add_argument("--inc", type=float, default=0.05, help="increment per move")
    args = ap.parse_args()

    left = defaultdict(list)  # (engine, length bucket) -> clock left
    early = defaultdict(list)  # engine -> times of its first 30 moves
    buckets = [(0, 40), (40, 60), (60, 80), (80, 10_000)]
    with open(args.pgn, encoding="utf-8") as f:
        text = f.read()
    for tags, times in games(text):
        fen = tags.get("FEN", "")
        white_first = len(fen.split()) < 2 or fen.split()[1] == "w"
        first, second = (tags["White"], tags["Black"])
        if not white_first:
            first, second = second, first
        for engine, own in ((first, times[0::2]), (second, times[1::2])):
            n = len(own)
            bucket = next(b for b in buckets if b[0] <= n < b[1])
            left[(engine, bucket)].append(args.base + args.inc * n - sum(own))
            early[engine].extend(own[:30])

    for engine in sorted(early):
        e = early[engine]
        print(f"{engine}: {sum(e) / max(len(e), 1):.3f} s a move over its first 30 moves")
        for b in buckets:
            v = left.get((engine, b))
            if v:
                hi = "+" if b[1] == 10_000 else f"-{b[1] - 1}"
                print(
                    f"  games of {b[0]}{hi} moves: {len(v)}, "
                    f"clock left at the end {sum(v) / len(v):.2f} s"
                )


if __name__ == "__main__":
    main()
