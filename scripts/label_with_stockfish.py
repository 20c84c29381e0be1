#!/usr/bin/env python3
"""Relabel the move comments of self-play PGN with Stockfish's search score, for
`turncoat tune --lambda L` (the tuner blends the game result with the comment's score).

Usage: label_with_stockfish.py IN.pgn OUT.pgn [--nodes 2000] [--every 1] [--scale 0.82]
       [--stockfish /usr/games/stockfish]

Each position from ply 12 on that is not in check gets `{ +S/1 0.000s }`: Stockfish's
score after `go nodes N`, from the mover's view, times `--scale` (Stockfish's centipawn
is about 1.2 of Turncoat's: on 12,896 positions their scores' spreads are in ratio
0.82), in pawns. `--every K` keeps every K-th game only. Needs python-chess (`pip
install chess`) and a UCI Stockfish.
"""
import argparse
import subprocess
import sys
import time

import chess
import chess.pgn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--scale", type=float, default=0.82)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    args = ap.parse_args()

    sf = subprocess.Popen([args.stockfish], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(cmd):
        sf.stdin.write(cmd + "\n")
        sf.stdin.flush()

    def wait(prefix):
        while True:
            line = sf.stdout.readline()
            if not line:
                sys.exit("stockfish exited")
            if line.startswith(prefix):
                return line

    def score(fen):
        send("position fen " + fen)
        send(f"go nodes {args.nodes}")
        last = None
        while True:
            line = wait("")
            if line.startswith("info") and " score " in line and "bound" not in line:
                last = line.split()
            if line.startswith("bestmove"):
                break
        i = last.index("score")
        kind, value = last[i + 1], int(last[i + 2])
        if kind == "mate":
            return ("+" if value > 0 else "-") + "M" + str(abs(value))
        return f"{value * args.scale / 100.0:+.2f}"

    send("uci")
    wait("uciok")
    send("setoption name Hash value 16")
    send("isready")
    wait("readyok")
    start = time.time()
    labelled = games = 0
    with open(args.src) as src, open(args.dst, "w") as dst:
        while (game := chess.pgn.read_game(src)) is not None:
            games += 1
            if games % args.every:
                continue
            board = game.board()
            node = game
            ply = 0
            while node.variations:
                child = node.variations[0]
                if ply >= 12 and not board.is_check():
                    child.comment = score(board.fen()) + "/1 0.000s"
                    labelled += 1
                else:
                    child.comment = ""
                board.push(child.move)
                node = child
                ply += 1
            print(game, file=dst, end="\n\n")
            if games % 100 == 0:
                rate = labelled / (time.time() - start)
                print(f"{games} games, {labelled} positions, {rate:.0f}/s", file=sys.stderr)
    send("quit")


if __name__ == "__main__":
    main()
