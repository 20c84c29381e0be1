#!/usr/bin/env python3
"""How near a set of labels comes to a deep search by another engine.

A measuring tool, never a source of labels: it says how much a network's
evaluation, or a search of Turncoat's at some depth, agrees with what a far
deeper search finds, so that label sources and networks can be compared before
a match decides between them.

    # 1. a reference score for each position of a text data file
    #    (`FEN;score;result`, e.g. `turncoat datagen-convert --format text`)
    python3 scripts/label_quality.py reference sample.txt sf-d16.txt \
        --engine /usr/games/stockfish --depth 16
    # 2. the same positions labelled by the sources to compare
    turncoat relabel sample.bin --format text --nodes 5000 --out n5000.txt
    turncoat relabel sample.bin --format text --nodes 100000 --depth 1 --out d1.txt
    # 3. each source's error against the reference
    python3 scripts/label_quality.py compare sf-d16.txt n5000.txt d1.txt

The error is the mean squared difference of win probabilities,
sigmoid(score / K) against sigmoid(reference / 250): each source's K is
fitted (the one that gives it its least error), so that sources whose
centipawns differ in scale are compared on what they know rather than on
their units. Positions whose reference is a mate or beyond 30 pawns, and
positions some source left out (relabel leaves out its mates), are not
counted. With `--engine` Stockfish, `reference` also writes its static
evaluation (the `eval` command), which `compare` lists as a source of its own.
No dependencies but the engine.
"""

import argparse
import math
import subprocess
import sys

REFERENCE_K = 250  # the reference's centipawns per unit of the sigmoid
K_RANGE = range(100, 1000, 10)  # the fitted K's candidates
MATE = 100_000  # what a mate score is written as
COUNTED_BEYOND = 3000  # references at or beyond this many centipawns are not counted


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))


class Engine:
    """A UCI engine on a pipe, one position at a time."""

    def __init__(self, path, hash_mb):
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("uci")
        self.until("uciok")
        self.send(f"setoption name Hash value {hash_mb}")
        self.send("isready")
        self.until("readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix):
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("the engine closed its output")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def static(self, fen):
        """Stockfish's `eval`: its final evaluation, White's view, in centipawns."""
        self.send("position fen " + fen)
        self.send("eval")
        self.send("isready")
        for line in self.until("readyok"):
            if line.startswith("Final evaluation"):
                word = line.split()[2]
                return None if word == "none" else round(float(word) * 100)
        return None

    def search(self, fen, depth):
        """The last exact score of `go depth D`, White's view."""
        self.send("ucinewgame")
        self.send("position fen " + fen)
        self.send(f"go depth {depth}")
        score = None
        for line in self.until("bestmove"):
            words = line.split()
            if "score" not in words or "lowerbound" in words or "upperbound" in words:
                continue
            i = words.index("score")
            kind, value = words[i + 1], int(words[i + 2])
            score = value if kind == "cp" else (MATE if value > 0 else -MATE)
        if score is not None and fen.split()[1] == "b":
            score = -score
        return score


def read_labels(path):
    """{FEN: score} of a `FEN;score;...` file."""
    labels = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.strip().split(";")
            if len(fields) < 2:
                sys.exit(f"{path}:{n}: not a FEN;score line")
            try:
                labels[fields[0]] = int(fields[1])
            except ValueError:
                continue  # a reference the engine gave none for
    return labels


def reference(args):
    engine = Engine(args.engine, args.hash)
    with_static = "stockfish" in args.engine.lower()
    with open(args.positions) as src, open(args.out, "w") as out:
        for line in src:
            fen = line.split(";")[0].strip()
            if not fen:
                continue
            static = engine.static(fen) if with_static else None
            score = engine.search(fen, args.depth)
            out.write(f"{fen};{score};{static}\n")
            out.flush()


def error(source, ref, fens, k):
    return sum(
        (sigmoid(source[f] / k) - sigmoid(ref[f] / REFERENCE_K)) ** 2 for f in fens
    ) / len(fens)


def compare(args):
    ref = read_labels(args.reference)
    sources = {}
    static = {}
    with open(args.reference) as f:
        for line in f:
            fields = line.strip().split(";")
            if len(fields) >= 3 and fields[2] not in ("None", ""):
                static[fields[0]] = int(fields[2])
    if static:
        sources["(the reference engine's static evaluation)"] = static
    for path in args.sources:
        sources[path] = read_labels(path)
    fens = {f for f, s in ref.items() if abs(s) < COUNTED_BEYOND}
    for labels in sources.values():
        fens &= labels.keys()
    fens = sorted(fens)
    if not fens:
        sys.exit("no position is labelled by the reference and every source")
    print(f"{len(fens)} positions")
    for name, labels in sources.items():
        best, k = min((error(labels, ref, fens, k), k) for k in K_RANGE)
        print(f"{best * 1e4:7.1f}e-4  K {k:4d}  {name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("reference", help="score each position with a deep search")
    r.add_argument("positions")
    r.add_argument("out")
    r.add_argument("--engine", default="/usr/games/stockfish")
    r.add_argument("--depth", type=int, default=16)
    r.add_argument("--hash", type=int, default=64)
    c = sub.add_parser("compare", help="each source's error against the reference")
    c.add_argument("reference")
    c.add_argument("sources", nargs="+")
    args = ap.parse_args()
    reference(args) if args.command == "reference" else compare(args)


if __name__ == "__main__":
    main()
