"""The static build of the web board in a real browser (headless Chromium via
Playwright), served by a plain file server: the rules and the engine run in
the page as WebAssembly, no turncoat process.

Run by tests/web.rs:  python test_static.py URL OUT_DIR WEB_DIR CASES_JSON PGN_FILE...

Runs the same steps as the served board's test (test_board.py: a special move
of every variant by clicks and by dragging, the layouts (a phone's by touch), typed
moves and errors, navigation, analysis with MultiPV until scored lines appear
and stop, play against the engine, the position editor in every variant, PGN
import and export), then the game as a link: the address follows the game,
a reload and a fresh page given the address show the same game, and links with
an illegal move or a bad FEN say what is wrong and keep the legal part; the
stop by a new Worker, and (WEB_DIR served again with the cross-origin isolation
headers) by the flag in shared memory. Last,
the same answers: runs the WebAssembly engine's perft and fixed-depth search on
CASES_JSON's positions and prints them on a line `same-answers JSON` for the
Rust test to compare with the native engine's. Prints the timings as JSON.
Exits non-zero when a step failed.
"""

import http.server
import json
import os
import sys
import threading
import time
from functools import partial

from playwright.sync_api import sync_playwright

import test_board as tb
from test_board import ARGS, CHROMIUM, Board, check, ready, wait_for

URL, OUT, WEB, CASES = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
PGNS = sys.argv[5:]

# The module the page loaded; a session of its own answers positions for the
# checks (a proxy that never searches stands in for the Worker).
MODULE = "./static/wasm/turncoat_wasm.js"
POSITION_JS = """async ([module, variant, fen, moves]) => {
    const m = await import(module);
    await m.default();
    const idle = { start() {}, stop() {}, clear() {}, setHash() {} };
    const page = new m.Page(idle, 1);
    const [answer] = JSON.parse(page.handle(JSON.stringify({ type: 'position', variant, fen, moves })));
    page.free();
    return answer.fen || answer.message;
}"""


class StaticBoard(Board):
    def expected(self, variant, fen, moves):
        """The FEN after `moves`, from the page's WebAssembly module."""
        return self.page.evaluate(POSITION_JS, [MODULE, variant, fen, moves])


def test_backend(b):
    check(b.page.evaluate("window.turncoat.backend") == "wasm", "the static page uses the WebAssembly backend")
    conn = b.page.inner_text("#conn")
    check("WebAssembly" in conn, f"status {conn!r}")
    threads = b.page.locator("#threads option").count()
    check(threads == 1, f"one search thread offered, {threads} shown")


def test_stop_is_prompt(b, how):
    """Analysis in a variant with many moves, then stop: the search stops at
    once, by the way the page allows (`how`: a new Worker, or the shared flag
    with the same Worker going on), and nothing of it arrives after; analysis
    follows a move played meanwhile, and an engine move still comes."""
    page = b.page
    stats = page.evaluate("window.turncoat.backendStats()")
    check(stats["stop"] == how, f"stop by {stats['stop']}, expected {how}")
    b.set_variant("subversion")
    page.click("#analyse")
    wait_for(page, "document.querySelectorAll('#analysis .line[data-multipv]').length > 0", timeout=20000)
    # A move during analysis: the search of the old position stops, the new
    # position's starts.
    b.move("e2", "e4")
    wait_for(
        page,
        "window.turncoat.state.analysis && window.turncoat.state.analysis.fen === window.turncoat.state.info.fen"
        " && window.turncoat.state.analysis.lines.length > 0",
        timeout=20000,
    )
    t = time.time()
    page.click("#analyse")
    wait_for(page, "window.turncoat.timings.stop !== null", timeout=10000)
    check(time.time() - t < 1.0, f"stop took {time.time() - t:.2f} s")
    n = page.evaluate("window.turncoat.timings.analysisUpdates")
    time.sleep(0.5)
    check(page.evaluate("window.turncoat.timings.analysisUpdates") == n, "no analysis after the stop")
    workers = page.evaluate("window.turncoat.backendStats().workers")
    want = stats["workers"] + (2 if how == "new worker" else 0)
    check(workers == want, f"{workers} Workers started after two stops by {how}, expected {want}")
    page.click("#analyse")
    wait_for(page, "document.querySelectorAll('#analysis .line[data-multipv]').length > 0", timeout=20000)
    page.click("#analyse")
    tb.test_play(b)


class IsolatingHandler(http.server.SimpleHTTPRequestHandler):
    """A file server that sends the headers making a page cross-origin
    isolated (what a host would configure)."""

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def log_message(self, *args):
        pass


def serve_isolated(directory):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(IsolatingHandler, directory=directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def same_answers(page):
    with open(CASES) as f:
        cases = json.load(f)
    return page.evaluate(
        """async ([module, cases]) => {
            const m = await import(module);
            await m.default();
            const out = { kernel: m.dot_kernel(), kernel_mismatches: m.check_dot_kernel(4000, 12345), cases: [] };
            for (const c of cases) {
                out.cases.push({
                    variant: c.variant,
                    fen: c.fen,
                    perft: m.perft(c.variant, c.fen, c.perft_depth),
                    search: JSON.parse(m.search_position(c.variant, c.fen, c.search_depth)),
                });
            }
            return out;
        }""",
        [MODULE, cases],
    )


def main():
    os.makedirs(OUT, exist_ok=True)
    figures = tb.figures
    failed = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # A context of its own: the storage step opens a second tab in it.
        page = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True).new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append("request failed: " + r.url))
        t = time.time()
        page.goto(URL)
        ready(page)
        figures["first_render_ms"] = page.evaluate("window.turncoat.timings.firstRender")
        figures["page_load_wall_ms"] = round((time.time() - t) * 1000)
        figures["page_bytes"] = page.evaluate(
            "performance.getEntriesByType('resource').reduce((s, r) => s + r.decodedBodySize, 0)"
            " + performance.getEntriesByType('navigation')[0].decodedBodySize"
        )
        b = StaticBoard(page)
        steps = [
            ("backend", lambda: test_backend(b)),
            ("variants", lambda: tb.test_variants(b)),
            ("drag and drop", lambda: tb.test_drag(b)),
            ("layout", lambda: tb.test_layout(browser)),
            ("typed and errors", lambda: tb.test_typed_and_errors(b)),
            ("navigation", lambda: tb.test_navigation(b)),
            ("analysis", lambda: tb.test_analysis(b)),
            ("analysis readable", lambda: tb.test_analysis_readable(b)),
            ("game analysis", lambda: tb.test_game_analysis(b)),
            ("stop", lambda: test_stop_is_prompt(b, "new worker")),
            ("play", lambda: tb.test_play(b)),
            ("end of play", lambda: tb.test_play_end(b)),
            ("clocks", lambda: tb.test_clocks(b)),
            ("editor", lambda: tb.test_editor(b)),
            ("editor refusals", lambda: tb.test_editor_refusals(b)),
        ] + [(f"pgn {os.path.basename(x)}", (lambda x=x: tb.test_pgn(b, x))) for x in PGNS]
        steps.append(("pgn as lichess writes it", lambda: tb.test_pgn_tolerant(b)))
        steps.append(("link", lambda: tb.test_link(b, browser)))
        if os.environ.get("TURNCOAT_LONG_GAME"):
            steps.append(("long game", lambda: tb.test_long_game(b, os.environ["TURNCOAT_LONG_GAME"], browser)))
        steps.append(("explorer", lambda: tb.test_explorer(b)))
        steps.append(("explorer parts", lambda: tb.test_explorer_parts(b)))
        steps.append(("storage", lambda: tb.test_storage(b)))
        if os.environ.get("TURNCOAT_MEASURE_GAME") and PGNS:
            steps.append(("measure game analysis", lambda: tb.measure_game_analysis(b, PGNS[0])))
        for name, fn in steps:
            try:
                fn()
                print(f"ok   {name}", flush=True)
            except Exception as e:  # report every step, fail at the end
                failed += 1
                print(f"FAIL {name}: {e}", flush=True)
                page.screenshot(path=os.path.join(OUT, f"failed-{name.replace(' ', '_')}.png"))
        # Served with the cross-origin isolation headers, the page may share
        # memory with its Worker: the stop goes through the shared flag.
        isolated, isolated_url = serve_isolated(WEB)
        iso = browser.new_page(viewport={"width": 1280, "height": 900})
        iso.on("pageerror", lambda e: errors.append(str(e)))
        try:
            iso.goto(isolated_url)
            ready(iso)
            check(iso.evaluate("crossOriginIsolated") is True, "the page is cross-origin isolated")
            test_stop_is_prompt(StaticBoard(iso), "shared flag")
            print("ok   stop, cross-origin isolated", flush=True)
        except Exception as e:
            failed += 1
            print(f"FAIL stop, cross-origin isolated: {e}", flush=True)
            iso.screenshot(path=os.path.join(OUT, "failed-isolated.png"))
        finally:
            isolated.shutdown()
        try:
            answers = same_answers(page)
            print("same-answers " + json.dumps(answers), flush=True)
        except Exception as e:
            failed += 1
            print(f"FAIL same answers: {e}", flush=True)
        check(not errors, f"page errors: {errors}")
        browser.close()
    drags = figures.pop("drag_ms", [])
    figures["moves_dragged"] = len(drags)
    figures["drag_ms_median"] = round(sorted(drags)[len(drags) // 2], 1) if drags else None
    ms = figures.pop("move_ms")
    figures["moves_clicked"] = len(ms)
    figures["move_ms_max"] = round(max(ms), 1) if ms else None
    figures["move_ms_median"] = round(sorted(ms)[len(ms) // 2], 1) if ms else None
    print("figures " + json.dumps(figures))
    print(f"{tb.checks} checks, {failed} failed steps; screenshots in {OUT}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
