#!/usr/bin/env python3
"""Recounts tests/data/<variant>_perft.json for the Andernach variants with
the Cutechess driver (scripts/build-cutechess-driver.sh), keeping each entry's
FEN, description and depths: the counts the tests compare Turncoat's with.

    python3 benches/cutechess/perft_data.py [DRIVER] [VARIANT...]

Prints every count that changed; writes the files back.
"""
import json
import re
import subprocess
import sys

driver = sys.argv[1] if len(sys.argv) > 1 else "target/cutechess/cutechess-driver"
variants = sys.argv[2:] or ["andernach", "antiandernach", "superandernach"]
for variant in variants:
    path = f"tests/data/{variant}_perft.json"
    with open(path) as f:
        text = f.read()
    entries = json.loads(text)
    for e in entries:
        for i, old in enumerate(e["nodes"]):
            out = subprocess.run([driver, "perft", variant, str(i + 1), e["fen"]],
                                 check=True, capture_output=True, text=True).stdout
            new = int(out.split()[-1])
            if new != old:
                print(f"{variant} perft({i + 1}) {e['fen']}: {old} -> {new}", flush=True)
                e["nodes"][i] = new
    # The files' own layout kept: each "nodes" list rewritten in place.
    lists = iter(e["nodes"] for e in entries)
    text = re.sub(r'"nodes": \[[^\]]*\]',
                  lambda _: '"nodes": ' + json.dumps(next(lists)), text)
    with open(path, "w") as f:
        f.write(text)
