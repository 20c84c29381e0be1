#!/usr/bin/env python3
"""Extract quiet positions from PGN games and label each with Stockfish's static
evaluation, as training data for `turncoat train` (the chess network).

Usage: label_positions.py OUT.txt IN.pgn [IN.pgn ...] [--stockfish /usr/games/stockfish]
       [--skip-plies 8] [--every 1] [--walk K --seed S] [--depth D]
       label_positions.py --relabel OUT.txt IN.txt [IN.txt ...]

With --relabel the inputs are already positions, `FEN;score;result` lines as
`turncoat datagen` writes them (already quiet); each score is replaced by
Stockfish's and the result kept. A torn last line (a generator stopped mid-write)
is skipped.

Without --walk, a position is kept when the side to move is not in check and the
move played from it in the game is neither a capture nor a promotion (the usual
"quiet" filter). Its label is the "Final evaluation" of Stockfish's `eval` command
(no search, about 6,000 positions a second), from White's view in Stockfish's
centipawns; the game result is kept too, for a blend.

With --walk K, each game position is instead the start of a random walk of 1..K
random legal moves, and the position it ends in (not in check) is kept: the search
evaluates mostly such positions, a bad move or two away from a game, which games
alone never show. Those are rarely quiet, so label them with --depth D: Stockfish's
score after `go depth D` (its quiescence resolves the pending captures; about
3,000 positions a second at depth 1).

Output, one position per line: `FEN;score;result` with score an integer (White's
view, Stockfish centipawns) and result 1, 0.5 or 0 (White's). Needs python-chess
(`pip install chess`) and Stockfish 15.1 (Debian package `stockfish`).
"""
import argparse
import random
import subprocess
import sys
import threading

import chess
import chess.pgn

RESULTS = {"1-0": "1", "0-1": "0", "1/2-1/2": "0.5"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dst")
    ap.add_argument("src", nargs="+")
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--skip-plies", type=int, default=8)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--walk", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--depth", type=int, default=0)
    ap.add_argument("--relabel", action="store_true")
    args = ap.parse_args()

    sf = subprocess.Popen([args.stockfish], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, bufsize=1 << 20)
    out = open(args.dst, "w")
    kept = 0
    batch = []

    def flush():
        nonlocal kept
        # A thread writes while this one reads: Stockfish's trace of one position
        # is ~2 kB, so writing the whole batch first would fill both pipes.
        command = f"go depth {args.depth}" if args.depth else "eval"

        def feed():
            for fen, _ in batch:
                sf.stdin.write(f"position fen {fen}\n{command}\n")
            sf.stdin.write("isready\n")
            sf.stdin.flush()
        writer = threading.Thread(target=feed)
        writer.start()
        values = []
        last = None
        ready = False
        while True:
            line = sf.stdout.readline()
            if not line:
                sys.exit("stockfish exited")
            if line.startswith("Final evaluation"):
                field = line.split()[2]
                values.append(None if field == "none" else round(float(field) * 100))
            elif line.startswith("info") and " score " in line and "bound" not in line:
                score = line.split(" score ")[1].split()
                last = int(score[1]) if score[0] == "cp" else None
            elif line.startswith("bestmove"):
                # The mover's score (made White's below, like `eval`'s); mates dropped.
                values.append(last)
                last = None
            elif line.startswith("readyok"):
                ready = True
            # `readyok` may overtake the last search's `bestmove`.
            if ready and len(values) == len(batch):
                break
        writer.join()
        if len(values) != len(batch):
            sys.exit(f"expected {len(batch)} evaluations, got {len(values)}")
        for (fen, result), value in zip(batch, values):
            if value is not None and args.depth and " b " in fen:
                value = -value
            if value is not None:
                out.write(f"{fen};{value};{result}\n")
                kept += 1
        batch.clear()

    source = datagen_positions(args) if args.relabel else pgn_positions(args)
    read = 0
    for fen, result in source:
        batch.append((fen, result))
        read += 1
        if len(batch) >= 4096:
            flush()
        if read % 100000 == 0:
            print(f"{read} positions read, {kept} labelled", file=sys.stderr)
    flush()
    sf.stdin.write("quit\n")
    sf.stdin.flush()
    print(f"{read} positions read, {kept} labelled", file=sys.stderr)


def datagen_positions(args):
    """(FEN, result) of each well-formed `FEN;score;result` line."""
    for path in args.src:
        with open(path) as lines:
            for line in lines:
                fields = line.rstrip("\n").split(";")
                if len(fields) == 3 and fields[2] in ("1", "0.5", "0") \
                        and len(fields[0].split()) == 6:
                    yield fields[0], fields[2]


def pgn_positions(args):
    """(FEN, result) of the quiet (or, with --walk, random-walk) positions of games."""
    rng = random.Random(args.seed)
    games = 0
    for path in args.src:
        with open(path) as pgn:
            while True:
                game = chess.pgn.read_game(pgn)
                if game is None:
                    break
                games += 1
                if games % args.every:
                    continue
                result = RESULTS.get(game.headers.get("Result", "*"))
                if result is None:
                    continue
                board = game.board()
                for ply, move in enumerate(game.mainline_moves()):
                    if ply >= args.skip_plies and args.walk:
                        walked = board.copy(stack=False)
                        for _ in range(rng.randint(1, args.walk)):
                            moves = list(walked.legal_moves)
                            if not moves:
                                break
                            walked.push(rng.choice(moves))
                        if not walked.is_check() and not walked.is_game_over():
                            yield walked.fen(), result
                    elif ply >= args.skip_plies:
                        quiet = not (board.is_check() or board.is_capture(move) or move.promotion)
                        if quiet:
                            yield board.fen(), result
                    board.push(move)


if __name__ == "__main__":
    main()
