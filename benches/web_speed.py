#!/usr/bin/env python3
"""The board in the browser, measured: the same fixed-depth bench (`turncoat
bench`, one thread) as WebAssembly in headless Chromium and natively, built for
generic x86-64 and for this machine's CPU; what the page downloads before the
first move (gzip); first render and first analysis line in Chromium.

    scripts/build-web.sh target/web
    cargo build --release
    RUSTFLAGS="-C target-cpu=x86-64" cargo build --release --target-dir target/generic
    ~/.cache/turncoat/browser-venv/bin/python benches/web_speed.py [--depth N] [--runs 3] [--small-pages]

Environment: TURNCOAT_WEB_DIR [target/web], TURNCOAT_NATIVE
[target/release/turncoat], TURNCOAT_GENERIC [target/generic/release/turncoat],
TURNCOAT_CHROMIUM [/usr/bin/chromium]. Each figure is the best of --runs runs
(the machine is shared: the best run is the one least disturbed); in the
browser after one more run, reported apart as the first run (V8 optimises the
code that runs hot while it runs). The last column, `median`, is the median
over the rounds of each round's WebAssembly / generic x86-64 ratio. The node
counts of the builds must agree (the bench signature); the script stops
if they do not. Prints a table and, last, the figures as one JSON line. With
--small-pages (Linux), a fourth build runs too: the generic one refused
transparent huge pages, so that its table lies in 4 KB pages as the browser's
memory does; `wasm/4K` is the WebAssembly build's ratio to it.
"""

import argparse
import gzip
import http.server
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from functools import partial

from playwright.sync_api import sync_playwright

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Depths at which each variant's bench searches half a million nodes or more:
# at the signature's depth 9 some search 20,000 (a few milliseconds, less than
# the browser needs to optimise the code and to clear the bench's fresh hash
# table of each position).
DEPTHS = {
    "chess": 10,
    "cowardlycrew": 10,
    "pacifist": 12,
    "attendingpawns": 10,
    "subversion": 13,
    "cruisepawns": 12,
    "andernach": 13,
    "antiandernach": 15,
    "superandernach": 15,
}
VARIANTS = list(DEPTHS)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


PR_SET_THP_DISABLE = 41


def refuse_huge_pages():
    """Run in the child before `exec`: Linux gives this process (and what it
    executes) no transparent huge pages, whatever the engine asks with
    `madvise`, as the browser gives WebAssembly's memory none."""
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_THP_DISABLE)")


def native_bench(binary, variant, depth, small_pages=False):
    """`turncoat bench`: (nodes, nodes per second); with `small_pages`, in
    4 KB pages only."""
    out = subprocess.run(
        [binary, "bench", str(depth), "--variant", variant],
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=refuse_huge_pages if small_pages else None,
    ).stdout
    nodes = int(re.search(r"Nodes searched\s*:\s*(\d+)", out).group(1))
    nps = int(re.search(r"Nodes/second\s*:\s*(\d+)", out).group(1))
    return nodes, nps


def wasm_bench(page, variant, depth):
    """The same bench in the page's module: (nodes, nodes per second)."""
    r = json.loads(
        page.evaluate(
            """async ([v, d]) => { const m = await import('./static/wasm/turncoat_wasm.js');
               await m.default(); return m.bench(v, d); }""",
            [variant, depth],
        )
    )
    return r["nodes"], r["nodes"] * 1000 // max(1, r["millis"])


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(directory):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def gzip_size(path):
    with open(path, "rb") as f:
        return len(gzip.compress(f.read(), compresslevel=9))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, help="one depth for every variant (default: DEPTHS)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--variants", nargs="*", default=VARIANTS)
    ap.add_argument(
        "--small-pages",
        action="store_true",
        help="also the generic build refused huge pages (Linux): the page size the browser's memory has",
    )
    args = ap.parse_args()
    web = os.environ.get("TURNCOAT_WEB_DIR", os.path.join(ROOT, "target/web"))
    native = os.environ.get("TURNCOAT_NATIVE", os.path.join(ROOT, "target/release/turncoat"))
    generic = os.environ.get("TURNCOAT_GENERIC", os.path.join(ROOT, "target/generic/release/turncoat"))
    chromium = os.environ.get("TURNCOAT_CHROMIUM", "/usr/bin/chromium")
    for path in [os.path.join(web, "static/wasm/turncoat_wasm_bg.wasm"), native, generic]:
        if not os.path.exists(path):
            sys.exit(f"web_speed: {path} is missing (see the commands at the top of this script)")

    server, url = serve(web)
    depth = {v: args.depth or DEPTHS[v] for v in args.variants}
    figures = {"depths": depth, "runs": args.runs, "variants": {}}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        t = time.time()
        page.goto(url)
        while not page.evaluate("window.turncoat && window.turncoat.ready && window.turncoat.ready()"):
            if time.time() - t > 60:
                sys.exit("web_speed: the page did not start")
            time.sleep(0.02)
        figures["first_render_ms"] = round(page.evaluate("window.turncoat.timings.firstRender"))
        # Everything fetched before the first move (the search Worker's
        # module included), each file's size as gzip -9 sends it.
        time.sleep(1.0)
        names = page.evaluate(
            "[location.pathname].concat(performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname))"
        )
        files = sorted({n if not n.endswith("/") else n + "index.html" for n in names})
        sizes = {f: (os.path.getsize(os.path.join(web, f.lstrip("/"))), gzip_size(os.path.join(web, f.lstrip("/")))) for f in files}
        figures["download_bytes"] = sum(s[0] for s in sizes.values())
        figures["download_gzip_bytes"] = sum(s[1] for s in sizes.values())
        figures["files"] = {f: {"bytes": s[0], "gzip": s[1]} for f, s in sizes.items()}
        # The first analysis line, from the click (chess start position).
        page.click("#analyse")
        while page.evaluate("window.turncoat.timings.analysisFirstLine") is None:
            time.sleep(0.01)
        figures["first_analysis_line_ms"] = round(page.evaluate("window.turncoat.timings.analysisFirstLine"), 1)
        page.click("#analyse")
        kernel = page.evaluate(
            "async () => { const m = await import('./static/wasm/turncoat_wasm.js'); await m.default(); return m.dot_kernel(); }"
        )
        figures["wasm_kernel"] = kernel
        # The builds take turns, run by run, so that a neighbour's load falls
        # on all of them alike.
        print(f"bench, best of {args.runs}; WebAssembly kernel {kernel}")
        print(
            f"{'variant':16}{'depth':>6}{'nodes':>10}{'wasm nps':>12}{'x86-64 nps':>12}{'native nps':>12}"
            f"{'wasm/x86-64':>13}{'wasm/native':>13}{'median':>9}"
            + (f"{'x86-64 4K':>12}{'wasm/4K':>9}" if args.small_pages else "")
        )
        for v in args.variants:
            # One browser run first, not counted: V8 compiles each function
            # quickly at first (Liftoff) and optimises the ones that run hot
            # (TurboFan) while they run; each variant's search code is its own.
            first = wasm_bench(page, v, depth[v])
            runs = {"wasm": [], "generic": [], "native": []}
            if args.small_pages:
                runs["generic_4k"] = []
            for _ in range(args.runs):
                runs["wasm"].append(wasm_bench(page, v, depth[v]))
                runs["generic"].append(native_bench(generic, v, depth[v]))
                runs["native"].append(native_bench(native, v, depth[v]))
                if args.small_pages:
                    runs["generic_4k"].append(native_bench(generic, v, depth[v], small_pages=True))
            f = {k: max(r, key=lambda x: x[1]) for k, r in runs.items()}
            f["wasm_first_run"] = first[1]
            nodes = {f[k][0] for k in runs}
            if len(nodes) != 1:
                sys.exit(f"web_speed: {v}: the builds searched different trees: {f}")
            f["ratio_generic"] = round(f["wasm"][1] / f["generic"][1], 3)
            f["ratio_native"] = round(f["wasm"][1] / f["native"][1], 3)
            # Each round's own ratio (its runs back to back), and their median:
            # steadier than the best runs' ratio where a neighbour's load comes
            # and goes over minutes, and the browser's runs, which wait on
            # memory more (no prefetch, no huge pages), feel it more.
            per_round = [w[1] / g[1] for w, g in zip(runs["wasm"], runs["generic"])]
            f["ratio_generic_rounds"] = [round(r, 3) for r in per_round]
            f["ratio_generic_median"] = round(statistics.median(per_round), 3)
            small = ""
            if args.small_pages:
                f["ratio_generic_4k"] = round(f["wasm"][1] / f["generic_4k"][1], 3)
                small = f"{f['generic_4k'][1]:>12}{f['ratio_generic_4k']:>9.1%}"
            figures["variants"][v] = f
            print(
                f"{v:16}{depth[v]:>6}{f['wasm'][0]:>10}{f['wasm'][1]:>12}{f['generic'][1]:>12}{f['native'][1]:>12}"
                f"{f['ratio_generic']:>13.1%}{f['ratio_native']:>13.1%}{f['ratio_generic_median']:>9.1%}" + small,
                flush=True,
            )
        browser.close()
    server.shutdown()
    print(
        f"download before the first move: {figures['download_bytes']} bytes, "
        f"{figures['download_gzip_bytes']} gzip; first render {figures['first_render_ms']} ms; "
        f"first analysis line {figures['first_analysis_line_ms']} ms"
    )
    print("figures " + json.dumps(figures))


if __name__ == "__main__":
    main()
