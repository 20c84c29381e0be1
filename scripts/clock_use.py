#!/usr/bin/env python3
"""How each engine of a `turncoat match` PGN used its clock.

Reads the `{score/depth time}` comments the match runner writes after every
move and, for an increment time control, prints per engine:
- the mean time a move over its first 30 moves, and the clock left at the end of
  its games (base + increment x moves - time used) by game length;
- the mean time a move in ten-move stretches of the game (by move number);
- in the games it lost, the stretch in which its own score first fell to -1.00
  or below (where the game was decided as it saw it).
No dependencies.

    python3 scripts/clock_use.py games.pgn [--base 5 --inc 0.05]
"""

import argparse
import re
from collections import defaultdict

# `{+0.25/12 0.153s}`, `{-M3/20 0.010s}` or `{0.153s}`; the PGN writer wraps
# lines, so a comment may hold a line break where the space was.
MOVE_COMMENT = re.compile(r"\{(?:([^}/\s]*)/\d+\s+)?([0-9.]+)s\}")
LENGTHS = [(0, 40), (40, 60), (60, 80), (80, 10_000)]
STRETCH = 10  # moves
LAST_STRETCH = 6  # moves 60 and on together


def games(text):
    """(tags, [(score text or None, seconds)]) for each game, in move order."""
    for chunk in text.split("[Event ")[1:]:
        tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', chunk))
        body = chunk.split("\n\n", 1)[1] if "\n\n" in chunk else ""
        moves = [(s or None, float(t)) for s, t in MOVE_COMMENT.findall(body)]
        yield tags, moves


def lost(score):
    """Is this score text (`+0.25`, `-M3`) -1.00 or worse for the mover?"""
    if score is None or not score.startswith("-"):
        return False
    return score[1:].startswith("M") or float(score[1:]) >= 1.0


def stretch_of(number):
    return min(number // STRETCH, LAST_STRETCH)


def stretch_name(i):
    if i == LAST_STRETCH:
        return f"{i * STRETCH}+"
    return f"{i * STRETCH}-{i * STRETCH + STRETCH - 1}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pgn")
    ap.add_argument("--base", type=float, default=5.0, help="seconds per game")
    ap.add_argument("--inc", type=float, default=0.05, help="increment per move")
    args = ap.parse_args()

    left = defaultdict(list)  # (engine, length bucket) -> clock left
    early = defaultdict(list)  # engine -> times of its first 30 moves
    by_stretch = defaultdict(lambda: defaultdict(list))  # engine -> stretch -> times
    fell = defaultdict(lambda: defaultdict(int))  # loser -> stretch or None -> games
    with open(args.pgn, encoding="utf-8") as f:
        text = f.read()
    for tags, moves in games(text):
        fen = tags.get("FEN", "").split()
        white_first = len(fen) < 2 or fen[1] == "w"
        first_move = int(fen[5]) if len(fen) > 5 and fen[5].isdigit() else 1
        first, second = (tags["White"], tags["Black"])
        if not white_first:
            first, second = second, first
        result = tags.get("Result", "*")
        loser = {"1-0": tags["Black"], "0-1": tags["White"]}.get(result)
        onset = None
        for ply, (score, secs) in enumerate(moves):
            engine = first if ply % 2 == 0 else second
            number = first_move + (ply + (0 if white_first else 1)) // 2
            by_stretch[engine][stretch_of(number)].append(secs)
            if engine == loser and onset is None and lost(score):
                onset = stretch_of(number)
        if loser is not None:
            fell[loser][onset] += 1
        for engine, own in ((first, moves[0::2]), (second, moves[1::2])):
            times = [t for _, t in own]
            n = len(times)
            bucket = next(b for b in LENGTHS if b[0] <= n < b[1])
            left[(engine, bucket)].append(args.base + args.inc * n - sum(times))
            early[engine].extend(times[:30])

    for engine in sorted(early):
        e = early[engine]
        print(f"{engine}: {sum(e) / max(len(e), 1):.3f} s a move over its first 30 moves")
        for b in LENGTHS:
            v = left.get((engine, b))
            if v:
                hi = "+" if b[1] == 10_000 else f"-{b[1] - 1}"
                print(
                    f"  games of {b[0]}{hi} moves: {len(v)}, "
                    f"clock left at the end {sum(v) / len(v):.2f} s"
                )
        times = by_stretch[engine]
        cells = ", ".join(
            f"{stretch_name(i)}: {sum(times[i]) / len(times[i]):.3f}" for i in sorted(times)
        )
        print("  s a move by move number: " + cells)
        losses = fell.get(engine)
        if losses:
            # Games where the score never fell that far come last.
            order = sorted(losses, key=lambda i: (i is None, i or 0))
            cells = ", ".join(
                f"{'never' if i is None else stretch_name(i)}: {losses[i]}" for i in order
            )
            print(
                f"  lost {sum(losses.values())}; its score first -1.00 or below "
                f"in moves {cells}"
            )


if __name__ == "__main__":
    main()
