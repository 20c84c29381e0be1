"""The web board in a real browser (headless Chromium via Playwright).

Run by tests/browser.rs:  python test_board.py URL OUT_DIR PGN_FILE...

For every variant it plays moves by clicking squares, including each kind of
multi-part move, and by dragging pieces, and checks the `fen` field; it draws
arrows and circles, checks the sound asked for by each move and the mute
switch, and the layouts at 800x600, 1280x900 and on a phone (390x844, played
by touch); it runs analysis and sees MultiPV lines, plays against the engine, navigates and branches, loads PGN files written
by `turncoat match` and steps through them, checks the error paths, that the
page works under its Content-Security-Policy, and that a tab beyond the
server's limit is told so. It saves
a screenshot of each variant's board in OUT_DIR and prints the timings as JSON.
Exits non-zero on the first failed check.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time

from playwright.sync_api import sync_playwright

URL, OUT = sys.argv[1], sys.argv[2]
PGNS = sys.argv[3:]
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
CHROMIUM = os.environ.get("TURNCOAT_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

figures = {"move_ms": []}
checks = 0


def wait_for(page, expression, arg=None, timeout=30000):
    """Waits until `expression` (as for page.evaluate) is truthy; raises
    TimeoutError after `timeout` ms. Not page.wait_for_function: its polling
    runs the predicate through eval() in the page, which the page's
    Content-Security-Policy (no 'unsafe-eval') refuses; page.evaluate goes
    through the DevTools protocol, which the policy does not govern."""
    deadline = time.time() + timeout / 1000
    while not page.evaluate(expression, arg):
        if time.time() > deadline:
            raise TimeoutError(f"{timeout} ms waiting for {expression}")
        time.sleep(0.02)


def check(cond, what):
    global checks
    if not cond:
        raise AssertionError(what)
    checks += 1


def count(page, selector, at_least):
    """Waits (the board redraws on the next animation frame) until `selector`
    matches at least `at_least` elements; returns the count."""
    try:
        wait_for(
            page, "([s, n]) => document.querySelectorAll(s).length >= n", arg=[selector, at_least], timeout=10000
        )
    except Exception:
        pass
    return page.locator(selector).count()


def square_centre(box, orientation, sq):
    """The page coordinates of square `sq`'s centre on a board drawn in `box`
    (a bounding box) from `orientation`'s side."""
    f = ord(sq[0]) - 97
    r = int(sq[1]) - 1
    col = f if orientation == "white" else 7 - f
    row = 7 - r if orientation == "white" else r
    return (box["x"] + (col + 0.5) * box["width"] / 8, box["y"] + (row + 0.5) * box["height"] / 8)


def click_squares(page, square_xy, squares):
    for sq in squares:
        x, y = square_xy(sq)
        page.mouse.click(x, y)


def examples(variant):
    path = os.path.join(DATA, f"{variant}_examples.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)


def after_of(variant, fen, token):
    for ex in examples(variant):
        if ex["fen"] == fen and token in ex.get("after", {}):
            return ex["after"][token]
    raise KeyError(f"{variant} {fen} {token}")


def next_frames(page):
    """Returns once the page has drawn two animation frames: chessground
    reads a dragged or drawing pointer's position on its next frame (and a
    drag not started by then is a click)."""
    page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


class Board:
    def __init__(self, page):
        self.page = page

    def fen(self):
        return self.page.input_value("#fen")

    def wait_fen(self, fen, what):
        try:
            wait_for(
                self.page, "f => document.getElementById('fen').value === f", arg=fen, timeout=10000
            )
        except Exception:
            pass
        check(self.fen() == fen, f"{what}: fen field shows {self.fen()!r}, expected {fen!r}")

    def square_xy(self, sq):
        box = self.page.locator("#board").bounding_box()
        return square_centre(box, self.page.evaluate("window.turncoat.state.orientation"), sq)

    def click(self, *squares):
        click_squares(self.page, self.square_xy, squares)

    def move(self, a, c):
        """Clicks a two-square move and waits until it is on the board."""
        ply = self.page.evaluate("window.turncoat.state.node.ply")
        self.click(a, c)
        wait_for(self.page, f"window.turncoat.state.node.ply === {ply + 1}", timeout=10000)
        self.record_move_time()

    def drag(self, a, c, middle=None):
        """Drags the piece on `a` to `c` with the mouse (pressed, moved in
        steps, released); `middle(x, y)`, if given, runs with the pointer
        halfway (the button still down)."""
        x0, y0 = self.square_xy(a)
        x1, y1 = self.square_xy(c)
        self.page.mouse.move(x0, y0)
        self.page.mouse.down()
        # Off the squares' centres halfway: the piece follows the pointer,
        # not a square.
        xm, ym = (x0 + x1) / 2 + 7, (y0 + y1) / 2 + 5
        self.page.mouse.move(xm, ym, steps=6)
        next_frames(self.page)
        if middle:
            middle(xm, ym)
        self.page.mouse.move(x1, y1, steps=6)
        next_frames(self.page)
        self.page.mouse.up()

    def piece_on(self, sq):
        """The piece chessground shows on `sq`: "white pawn", or None."""
        return self.page.evaluate(
            "sq => { const p = window.turncoat.cg.state.pieces.get(sq); return p ? `${p.color} ${p.role}` : null; }", sq
        )

    def choose(self, label):
        btn = self.page.locator("#chooser button", has_text=label)
        btn.first.wait_for(state="visible", timeout=10000)
        btn.first.click()

    def set_variant(self, variant):
        if self.page.input_value("#variant") != variant:
            self.page.select_option("#variant", variant)
        else:
            self.page.click("#newgame")
        wait_for(
            self.page, "v => window.turncoat.state.info && window.turncoat.state.info.variant === v"
            " && window.turncoat.state.node === window.turncoat.state.root",
            arg=variant,
        )
        wait_for(self.page, "window.turncoat.idle()")

    def load(self, variant, fen):
        if self.page.input_value("#variant") != variant:
            self.set_variant(variant)
        self.page.fill("#fen", fen)
        self.page.press("#fen", "Enter")
        wait_for(
            self.page, "f => window.turncoat.state.info && window.turncoat.state.info.start_fen === f"
            " && window.turncoat.state.node === window.turncoat.state.root",
            arg=fen,
            timeout=10000,
        )
        # The same start as before passes the wait at once: wait for the answer.
        wait_for(self.page, "window.turncoat.idle()", timeout=10000)

    def expected(self, variant, fen, moves):
        """The server's FEN after `moves`, through a WebSocket of its own."""
        return self.page.evaluate(
            """([variant, fen, moves]) => new Promise((resolve) => {
                const w = new WebSocket(`ws://${location.host}/ws`);
                w.onmessage = (e) => {
                    const m = JSON.parse(e.data);
                    if (m.type === 'hello') w.send(JSON.stringify({type: 'position', variant, fen, moves}));
                    else { w.close(); resolve(m.fen || m.message); }
                };
            })""",
            [variant, fen, moves],
        )

    def record_move_time(self):
        t = self.page.evaluate("window.turncoat.timings.lastMove")
        if t is not None:
            figures["move_ms"].append(t)

    def shot(self, name):
        time.sleep(0.4)  # let the board's move animation finish
        self.page.locator("main").screenshot(path=os.path.join(OUT, f"{name}.png"))


def play_and_check(b, variant, fen, clicks, token, what):
    """Loads `fen`, does `clicks` (squares, or ('choose', label), or ('key', k)),
    and checks the fen field against the position after `token`."""
    b.load(variant, fen)
    try:
        want = after_of(variant, fen, token)
    except KeyError:
        want = b.expected(variant, fen, [token])
    dragged = False
    for c in clicks:
        if isinstance(c, tuple):
            kind, arg = c
            if kind == "choose":
                b.choose(arg)
            elif kind == "drag":
                b.drag(*arg)
                dragged = True
            else:
                b.page.keyboard.press(arg)
        else:
            b.click(c)
    b.wait_fen(want, f"{variant} {what} ({token})")
    last = b.page.evaluate("window.turncoat.state.info.last && window.turncoat.state.info.last.token")
    check(last == token, f"{variant} {what}: last move {last}, expected {token}")
    if dragged:
        t = b.page.evaluate("window.turncoat.timings.lastMove")
        figures.setdefault("drag_ms", []).append(t)
    else:
        b.record_move_time()


START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def test_variants(b):
    page = b.page
    # ---- chess: plain moves from the start, promotion with the piece chooser.
    b.set_variant("chess")
    b.click("e2", "e4")
    b.wait_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "chess e2e4")
    b.record_move_time()
    b.move("e7", "e5")
    b.move("g1", "f3")
    b.wait_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", "chess e7e5 g1f3")
    moves_text = page.inner_text("#moves")
    check("Nf3" in moves_text, f"SAN in the move list: {moves_text!r}")
    b.shot("chess")
    play_and_check(b, "chess", "8/P6k/8/8/8/8/8/K7 w - - 0 1", ["a7", "a8", ("choose", "Knight")], "a7a8n", "promotion")

    # ---- cowardlycrew: capture with conversion (chooser default), and without.
    fen = "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1"
    play_and_check(b, "cowardlycrew", fen, ["d4", "e5", ("choose", "Convert")], "d4e5", "capture converting")
    conv = page.evaluate("window.turncoat.state.info.last.converted")
    check(sorted(conv) == ["d6", "f6"], f"cowardlycrew converted {conv}")
    rings = count(page, "#board square.conv-white", 2)
    check(rings == 2, f"cowardlycrew: {rings} conversion rings on the board")
    b.shot("cowardlycrew")
    play_and_check(b, "cowardlycrew", fen, ["d4", "e5", ("choose", "Spare")], "d4e5,n", "capture sparing")
    play_and_check(b, "cowardlycrew", fen, ["d4", "e5", ("key", "Enter")], "d4e5", "capture, Enter = convert")

    # ---- subversion: the target, then the payment squares.
    play_and_check(b, "subversion", "1r5k/8/2n5/3pb3/3N4/8/6PP/K7 w - - 0 1", ["e5", "g2"], "@e5,g2", "one pawn paid")
    moves_text = page.inner_text("#moves")
    check(moves_text.endswith("@Be5+/Pg2"), f"subversion in the move list: {moves_text!r}")
    fx = page.inner_text("#effects")
    check(fx == "Last move @Be5+/Pg2: the bishop on e5 is subverted for a pawn", f"subversion said: {fx!r}")
    fen = "7k/8/8/4r3/Q2N4/5B2/2B5/4K3 w - - 0 1"
    b.load("subversion", fen)
    b.click("e5")
    lit = count(page, "#board square.dest-oc", 2)
    check(lit >= 2, f"subversion: payment squares lit after the target ({lit})")
    b.click("c2", "f3")
    if page.locator("#chooser").is_visible():
        page.keyboard.press("Enter")
    b.wait_fen(after_of("subversion", fen, "@e5,c2,f3"), "subversion two bishops paid")
    b.record_move_time()
    b.shot("subversion")

    # ---- attendingpawns: celebrity move then its pawn's square; castling with
    # two pawns; promotion then the new pawn's square.
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 a1a2,b1b2,c1c2,d1d2,e1e2,f1f2,g1g2,h1h2,a8a7,b8b7,c8c7,d8d7,e8e7,f8f7,g8g7,h8h7"
    play_and_check(b, "attendingpawns", start, ["b1", "c3", "d3"], "b1c3,b2d3", "knight with its pawn")
    links = page.evaluate("window.turncoat.state.info.links")
    check(["c3", "d3"] in links, f"attendingpawns links {links}")
    b.shot("attendingpawns")
    fen = "4k3/8/8/8/8/8/4PPPP/4K2R w K - 0 1 e1e2,h1h2"
    play_and_check(b, "attendingpawns", fen, ["e1", "g1", "h1", "e1"], "e1g1,e2h1,h2e1", "castling, two pawns")
    fen = "5r2/4P3/8/7k/8/8/8/K6N w - - 0 1 h1e7"
    play_and_check(b, "attendingpawns", fen, ["e7", "e8", ("choose", "Queen"), "d7"], "e7e8q,d7", "promotion and new pawn")

    # ---- cruisepawns: launch (pawn, pawn again, path), self-detonation,
    # shoot-down.
    fen = "7r/P7/8/8/8/8/8/K6k w - - 0 1 -"
    play_and_check(
        b, "cruisepawns", fen, ["a7", "a7", "b6", "c5", "d5", "e5", "f6", "g7", "h8"], "a7*b6c5d5e5f6g7h8", "launch"
    )
    arrows = count(page, "#board svg line", 7)
    check(arrows >= 7, f"cruisepawns: missile path drawn ({arrows} arrows)")
    b.shot("cruisepawns")
    play_and_check(b, "cruisepawns", fen, ["a7", "a7", ("choose", "Self-detonate")], "a7*", "self-detonation")
    fen = "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7"
    play_and_check(b, "cruisepawns", fen, ["d8", "f6"], "d8f6", "shoot-down")
    # The move list in readable notation, the status line and the move's
    # title in words (docs/RULES.md, "Notation: readable").
    said = "the bishop on d8 shoots the missile down on f6"
    shown = page.locator("#moves .mv").first
    check(shown.inner_text() == "Bx*f6+", f"cruisepawns: move list shows {shown.inner_text()!r}")
    check(shown.get_attribute("title") == said, f"cruisepawns: move title {shown.get_attribute('title')!r}")
    fx = page.inner_text("#effects")
    check(fx == f"Last move Bx*f6+: {said}", f"cruisepawns: status line {fx!r}")

    # ---- pacifist: a move and its cascade, shown round by round.
    fen = "rkqn1rb1/ppppppbp/P7/1n4p1/8/4N3/1PPPPPPP/RNK1BBQR w - - 0 1"
    play_and_check(b, "pacifist", fen, ["e3", "f5"], "e3f5", "cascade")
    fx = page.inner_text("#effects")
    want = "Last move Nf5~7: the knight on e3 goes to f5; 7 pieces change colour in 4 rounds"
    check(fx == want, f"pacifist cascade said: {fx!r}")
    b.shot("pacifist")

    # ---- the Andernach variants: the piece that moves changes side (on a
    # capture; on a quiet move; on any move), a promotion first.
    fen = "4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1"
    play_and_check(b, "andernach", fen, ["c3", "d5"], "c3d5", "capture turns the capturer")
    conv = page.evaluate("window.turncoat.state.info.last.converted")
    check(conv == ["d5"], f"andernach converted {conv}")
    # The ring has the colour the knight turned to (Black's), not the mover's.
    rings = count(page, "#board square.conv-black", 1)
    # Chessground hides the squares it no longer needs (to reuse them) rather
    # than removing them: the earlier boards' rings are there, hidden.
    marked = page.evaluate(
        "[...document.querySelectorAll('#board square[class*=conv]')]"
        ".filter((q) => q.style.display !== 'none').map((q) => q.className)"
    )
    check(rings >= 1 and marked == ["last-move conv-black"], f"andernach: the rings shown are {marked}")
    play_and_check(b, "antiandernach", START_FEN, ["e2", "e4"], "e2e4", "quiet move turns the pawn")
    fen = "3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1"
    play_and_check(b, "superandernach", fen, ["e7", "d8", ("choose", "Queen")], "e7d8q", "promotion, then the change of side")


AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
# A dragged piece's centre is the pointer's position, up to chessground's
# rounding of its translation to whole pixels.
DRAG_CENTRE_PX = 1.0


def test_drag(b):
    """Drag and drop: the piece follows the pointer; a drop on a legal
    square plays the move, the first from->to step of every variant's moves
    (the rest by clicks, the piece shown where it was dropped meanwhile); a
    drop elsewhere puts the piece back and plays nothing."""
    page = b.page
    b.set_variant("chess")
    b.wait_fen(START_FEN, "new game")

    def halfway(x, y):
        wait_for(page, "document.querySelector('#board piece.dragging') !== null", timeout=5000)
        box = page.locator("#board piece.dragging").bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        check(
            abs(cx - x) <= DRAG_CENTRE_PX and abs(cy - y) <= DRAG_CENTRE_PX,
            f"the dragged pawn is centred on the pointer: ({cx}, {cy}) vs ({x}, {y})",
        )
        check(b.fen() == START_FEN, "nothing played while dragging")

    b.drag("e2", "e4", middle=halfway)
    b.wait_fen(AFTER_E4, "e2e4 dragged")
    check(page.evaluate("window.turncoat.state.node.ply") == 1, "one move played")
    check(b.piece_on("e4") == "white pawn" and b.piece_on("e2") is None, "the pawn on e4")
    # Illegal drops: a knight to a square it cannot reach, a pawn three
    # squares onto White's pawn, the queen onto her own pawn.
    for a, c in [("g8", "g6"), ("e7", "e4"), ("d8", "d7")]:
        piece, there = b.piece_on(a), b.piece_on(c)
        b.drag(a, c)
        page.wait_for_timeout(300)
        wait_for(page, "window.turncoat.idle()", timeout=5000)
        check(b.fen() == AFTER_E4, f"illegal drop {a}{c}: fen {b.fen()!r}")
        check(page.evaluate("window.turncoat.state.node.ply") == 1, f"illegal drop {a}{c}: a move was played")
        check(page.evaluate("window.turncoat.state.root.children[0].children.length") == 0, f"{a}{c}: no move added")
        check(b.piece_on(a) == piece, f"illegal drop {a}{c}: {b.piece_on(a)} on {a}, expected {piece}")
        check(b.piece_on(c) == there, f"illegal drop {a}{c}: {b.piece_on(c)} on {c}, expected {there}")
    # The opponent's pieces do not move: White's knight, Black to move.
    b.drag("g1", "f3")
    page.wait_for_timeout(300)
    check(b.fen() == AFTER_E4 and b.piece_on("g1") == "white knight", "the side not to move drags nothing")
    # Clicks still select after a drag; then a drag from the selected piece.
    b.click("e7")
    b.drag("e7", "e5")
    b.wait_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "e7e5 dragged after a click")
    # A promotion dragged: the pawn waits on a8 while the piece is chosen.
    b.load("chess", "8/P6k/8/8/8/8/8/K7 w - - 0 1")
    b.drag("a7", "a8")
    page.locator("#chooser button", has_text="Knight").first.wait_for(state="visible", timeout=10000)
    check(b.piece_on("a8") == "white pawn" and b.piece_on("a7") is None, "the pawn waits on a8")
    page.click("#chooser button[title^='Cancel']")
    wait_for(page, "window.turncoat.cg.state.pieces.has('a7')", timeout=5000)
    check(b.piece_on("a7") == "white pawn" and b.piece_on("a8") is None, "cancelled: the pawn back on a7")
    check(b.fen() == "8/P6k/8/8/8/8/8/K7 w - - 0 1", "cancelled: nothing played")
    # Every variant: the first step dragged, the rest clicked or chosen.
    for variant, fen, clicks, token, what in [
        ("chess", "8/P6k/8/8/8/8/8/K7 w - - 0 1", [("drag", ("a7", "a8")), ("choose", "Knight")], "a7a8n", "promotion"),
        ("cowardlycrew", "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1", [("drag", ("d4", "e5")), ("choose", "Spare")], "d4e5,n", "capture sparing"),
        ("subversion", "1r5k/8/2n5/3pb3/3N4/8/6PP/K7 w - - 0 1", [("drag", ("g2", "g4"))], "g2g4", "pawn's double step"),
        ("attendingpawns", ATTENDING_START, [("drag", ("b1", "c3")), "d3"], "b1c3,b2d3", "knight with its pawn"),
        ("attendingpawns", "5r2/4P3/8/7k/8/8/8/K6N w - - 0 1 h1e7", [("drag", ("e7", "e8")), ("choose", "Queen"), "d7"], "e7e8q,d7", "promotion and new pawn"),
        ("cruisepawns", "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7", [("drag", ("d8", "f6"))], "d8f6", "shoot-down"),
        ("pacifist", "rkqn1rb1/ppppppbp/P7/1n4p1/8/4N3/1PPPPPPP/RNK1BBQR w - - 0 1", [("drag", ("e3", "f5"))], "e3f5", "cascade"),
        ("andernach", "4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1", [("drag", ("c3", "d5"))], "c3d5", "capture turns the capturer"),
        ("antiandernach", START_FEN, [("drag", ("e2", "e4"))], "e2e4", "quiet move turns the pawn"),
        ("superandernach", "3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1", [("drag", ("e7", "d8")), ("choose", "Queen")], "e7d8q", "promotion"),
    ]:
        play_and_check(b, variant, fen, clicks, token, f"{what}, dragged")


ATTENDING_START = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 a1a2,b1b2,c1c2,d1d2,e1e2,f1f2,g1g2,h1h2,"
    "a8a7,b8b7,c8c7,d8d7,e8e7,f8f7,g8g7,h8h7"
)
# The user's shapes on the board: chessground's shapes layer, each drawn
# shape's colour (arrows are lines, circles circles).
USER_SHAPES = """() => {
    const layer = document.querySelector('#board svg.cg-shapes');
    const of = (sel) => [...layer.querySelectorAll(sel)].map((e) => e.getAttribute('stroke')).sort();
    return { lines: of('line'), circles: of('circle') };
}"""
GREEN, RED, BLUE, YELLOW = "#15781B", "#882020", "#003088", "#e68f00"


def right_drag(page, b, a, c, modifiers=()):
    for m in modifiers:
        page.keyboard.down(m)
    x0, y0 = b.square_xy(a)
    x1, y1 = b.square_xy(c)
    page.mouse.move(x0, y0)
    page.mouse.down(button="right")
    if (x0, y0) != (x1, y1):
        page.mouse.move(x1, y1, steps=6)
    next_frames(page)
    page.mouse.up(button="right")
    for m in modifiers:
        page.keyboard.up(m)


def shapes_shown(page, lines, circles):
    """Waits until the board draws `lines` and `circles` (sorted colour
    lists); returns what it draws."""
    want = {"lines": sorted(lines), "circles": sorted(circles)}
    try:
        wait_for(page, f"JSON.stringify(({USER_SHAPES})()) === {json.dumps(json.dumps(want))}", timeout=5000)
    except Exception:
        pass
    return page.evaluate(USER_SHAPES)


def test_shapes(b):
    """Right-drag an arrow, right-click a circle, with lichess's modifier
    colours; the shapes stay with their position, beside the engine's
    arrows, and a left click clears them."""
    page = b.page
    analysing(page, False)
    b.set_variant("chess")
    b.wait_fen(START_FEN, "new game")
    right_drag(page, b, "e2", "e4")
    got = shapes_shown(page, [GREEN], [])
    check(got == {"lines": [GREEN], "circles": []}, f"a right-drag draws a green arrow: {got}")
    right_drag(page, b, "d5", "d5")
    got = shapes_shown(page, [GREEN], [GREEN])
    check(got == {"lines": [GREEN], "circles": [GREEN]}, f"a right-click draws a green circle: {got}")
    right_drag(page, b, "b1", "c3", ["Shift"])
    right_drag(page, b, "f7", "f7", ["Alt"])
    right_drag(page, b, "g1", "f3", ["Shift", "Alt"])
    got = shapes_shown(page, [GREEN, RED, YELLOW], [GREEN, BLUE])
    check(got == {"lines": sorted([GREEN, RED, YELLOW]), "circles": sorted([GREEN, BLUE])}, f"modifier colours: {got}")
    kept = page.evaluate("window.turncoat.state.root.shapes")
    check(
        kept == [
            {"orig": "e2", "dest": "e4", "brush": "green"},
            {"orig": "d5", "brush": "green"},
            {"orig": "b1", "dest": "c3", "brush": "red"},
            {"orig": "f7", "brush": "blue"},
            {"orig": "g1", "dest": "f3", "brush": "yellow"},
        ],
        f"the start position's shapes: {kept}",
    )
    # The same right-click again takes its circle away.
    right_drag(page, b, "f7", "f7", ["Alt"])
    got = shapes_shown(page, [GREEN, RED, YELLOW], [GREEN])
    check(got["circles"] == [GREEN], f"a second right-click removes the circle: {got}")
    # A move typed (no click on the board): the next position has none...
    page.fill("#move", "d2d4")
    page.press("#move", "Enter")
    b.wait_fen("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1", "d2d4 typed")
    page.evaluate("document.activeElement.blur()")  # the arrow keys are the board's again
    got = shapes_shown(page, [], [])
    check(got == {"lines": [], "circles": []}, f"the next position's shapes: {got}")
    right_drag(page, b, "e7", "e5", ["Control"])
    check(shapes_shown(page, [RED], []) == {"lines": [RED], "circles": []}, "ctrl: a red arrow")
    # ...back at the start, its own again; on, the second position's.
    page.keyboard.press("ArrowLeft")
    b.wait_fen(START_FEN, "back to the start")
    got = shapes_shown(page, [GREEN, RED, YELLOW], [GREEN])
    check(got == {"lines": sorted([GREEN, RED, YELLOW]), "circles": [GREEN]}, f"the start's shapes again: {got}")
    # Beside the engine's arrow (one line analysed).
    page.select_option("#multipv", "1")
    analysing(page, True)
    wait_for(page, "document.querySelectorAll('#lines .line[data-multipv]').length === 1", timeout=20000)
    got = shapes_shown(page, [GREEN, RED, YELLOW, "#003088"], [GREEN])
    check(got == {"lines": sorted([GREEN, RED, YELLOW, "#003088"]), "circles": [GREEN]}, f"with the engine's arrow: {got}")
    analysing(page, False)
    page.select_option("#multipv", "3")
    page.keyboard.press("ArrowRight")
    b.wait_fen("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1", "on to d2d4")
    check(shapes_shown(page, [RED], []) == {"lines": [RED], "circles": []}, "the second position's arrow again")
    # A left click on the board (an empty square) clears the shapes shown.
    b.click("e5")
    got = shapes_shown(page, [], [])
    check(got == {"lines": [], "circles": []}, f"cleared by a click: {got}")
    check(page.evaluate("window.turncoat.state.node.shapes") == [], "cleared for good")
    page.keyboard.press("ArrowLeft")
    b.wait_fen(START_FEN, "back to the start again")
    check(len(shapes_shown(page, [GREEN, RED, YELLOW], [GREEN])["lines"]) == 3, "the start's shapes are not cleared")


SOUND_LOG = "window.turncoat.sound.log.slice(-n).map((s) => [s.kind, s.played])"


def sounds_since(page, n0):
    n = page.evaluate("window.turncoat.sound.requested") - n0
    return [tuple(x) for x in page.evaluate(f"(n => {SOUND_LOG})({n})", n)] if n > 0 else []


def test_sounds(b):
    """A sound for each move: a move, a capture, a check, a change of side,
    the game's end, and on a step forward; the switch mutes them and is
    kept across a reload."""
    page = b.page
    check(page.is_checked("#sound"), "sounds on at first")
    b.set_variant("chess")
    b.wait_fen(START_FEN, "new game")
    n0 = page.evaluate("window.turncoat.sound.requested")
    played0 = page.evaluate("window.turncoat.sound.played")
    # 1. e4 d5 2. exd5 Qxd5 3. Nc3 Qe5+
    for a, c in [("e2", "e4"), ("d7", "d5"), ("e4", "d5"), ("d8", "d5"), ("b1", "c3"), ("d5", "e5")]:
        b.move(a, c)
    kinds = ["move", "move", "capture", "capture", "move", "check"]
    got = sounds_since(page, n0)
    check(got == [(k, True) for k in kinds], f"sounds of 1. e4 d5 2. exd5 Qxd5 3. Nc3 Qe5+: {got}")
    check(page.evaluate("window.turncoat.sound.played") - played0 == 6, "six sounds played")
    # Played through WebAudio (whether a machine without a sound card hears
    # them is not the page's to know).
    wait_for(page, "window.turncoat.sound.ctx !== null", timeout=5000)
    # Stepping back is silent; a step forward sounds the move; Home and End
    # are jumps, silent.
    n0 = page.evaluate("window.turncoat.sound.requested")
    page.keyboard.press("ArrowLeft")
    b.wait_fen("rnb1kbnr/ppp1pppp/8/3q4/8/2N5/PPPP1PPP/R1BQKBNR b KQkq - 1 3", "back one")
    page.keyboard.press("ArrowRight")
    b.wait_fen("rnb1kbnr/ppp1pppp/8/4q3/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 4", "forward one")
    page.keyboard.press("Home")
    b.wait_fen(START_FEN, "Home")
    page.keyboard.press("End")
    b.wait_fen("rnb1kbnr/ppp1pppp/8/4q3/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 4", "End")
    check(sounds_since(page, n0) == [("check", True)], f"navigation sounds: {sounds_since(page, n0)}")
    # A change of side, the end of a game.
    n0 = page.evaluate("window.turncoat.sound.requested")
    play_and_check(b, "cowardlycrew", "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1", ["d4", "e5", ("choose", "Convert")], "d4e5", "capture converting")
    # (White keeps a pawn: with the king alone against a knight the capture
    # would end the game, insufficient material.)
    play_and_check(b, "andernach", "4k3/8/8/3p4/8/2N5/P7/4K3 w - - 0 1", ["c3", "d5"], "c3d5", "capture turns the capturer")
    play_and_check(b, "chess", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", ["a1", "a8"], "a1a8", "mate")
    got = sounds_since(page, n0)
    check(got == [("convert", True), ("convert", True), ("end", True)], f"conversions and mate: {got}")
    # Muted: asked for, not played; kept across a reload.
    page.click("#sound")
    check(page.evaluate("localStorage.getItem('turncoat.sound')") == "off", "the switch is stored")
    n0 = page.evaluate("window.turncoat.sound.requested")
    played0 = page.evaluate("window.turncoat.sound.played")
    b.set_variant("chess")
    b.move("e2", "e4")
    check(sounds_since(page, n0) == [("move", False)], f"muted: {sounds_since(page, n0)}")
    check(page.evaluate("window.turncoat.sound.played") == played0, "muted: nothing played")
    page.reload()
    ready(page)
    check(not page.is_checked("#sound"), "still muted after a reload")
    page.click("#sound")
    check(page.evaluate("localStorage.getItem('turncoat.sound')") == "on", "on again, stored")
    page.reload()
    ready(page)
    check(page.is_checked("#sound"), "sounds on after a reload")
    played0 = page.evaluate("window.turncoat.sound.played")
    b.move("e7", "e5")
    check(page.evaluate("window.turncoat.sound.played") == played0 + 1, "a sound played once on again")


def inside(box, width, height):
    return box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height


def touch_drag(page, cdp, b, a, c):
    """A finger dragged from `a` to `c` (CDP touch events, as a phone sends)."""
    x0, y0 = b.square_xy(a)
    x1, y1 = b.square_xy(c)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, 9):
        x, y = x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
        if i == 4:
            wait_for(page, "document.querySelector('#board piece.dragging') !== null", timeout=5000)
    next_frames(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_layout(browser):
    """The board fills the window: at 800x600 the move controls are in it
    without scrolling, at 1280x900 the board is larger than the former
    560 px cap and grows with the window; a phone (390x844, touch) has no
    sideways scrolling, the whole board in view, and plays by taps and by
    dragging a finger."""
    for width, height in [(800, 600), (1280, 900)]:
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        try:
            page.goto(URL)
            ready(page)
            for id in ["board", "first", "back", "forward", "last", "flip"]:
                box = page.locator(f"#{id}").bounding_box()
                check(inside(box, width, height), f"{width}x{height}: #{id} at {box}")
            check(page.evaluate("document.documentElement.scrollWidth") <= width, f"{width}x{height}: no sideways scroll")
            size = page.evaluate("window.turncoat.boardSize")
            box = page.locator("#board").bounding_box()
            check(box["width"] == size and box["height"] == size and size % 8 == 0, f"{width}x{height}: board {box}, size {size}")
            if width == 1280:
                check(size > 560, f"1280x900: board {size} px")
                page.set_viewport_size({"width": 1600, "height": 1100})
                wait_for(page, f"window.turncoat.boardSize > {size}", timeout=5000)
                box = page.locator("#board").bounding_box()
                grown = page.evaluate("window.turncoat.boardSize")
                check(box["width"] == grown and inside(page.locator("#last").bounding_box(), 1600, 1100), f"grown board {box}")
                # Clicks land on the squares of the grown board.
                b = Board(page)
                b.set_variant("chess")
                b.click("e2", "e4")
                b.wait_fen(AFTER_E4, "e2e4 clicked on the grown board")
        finally:
            context.close()
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, device_scale_factor=3)
    page = context.new_page()
    try:
        page.goto(URL)
        ready(page)
        check(page.evaluate("document.documentElement.scrollWidth") <= 390, f"phone: scrollWidth {page.evaluate('document.documentElement.scrollWidth')}")
        box = page.locator("#board").bounding_box()
        check(inside(box, 390, 844), f"phone: the board at {box}")
        for id in ["first", "back", "forward", "last"]:
            check(inside(page.locator(f"#{id}").bounding_box(), 390, 844), f"phone: #{id} in view")
        b = Board(page)
        b.wait_fen(START_FEN, "phone: a new game")
        for sq in ["e2", "e4"]:
            x, y = b.square_xy(sq)
            page.touchscreen.tap(x, y)
        b.wait_fen(AFTER_E4, "phone: e2e4 by taps")
        # The move list under the board scrolls, not the page.
        check(page.evaluate("scrollY") == 0, f"phone: the page scrolled to {page.evaluate('scrollY')} px")
        cdp = context.new_cdp_session(page)
        touch_drag(page, cdp, b, "e7", "e5")
        b.wait_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "phone: e7e5 by a finger's drag")
        touch_drag(page, cdp, b, "g1", "g3")
        page.wait_for_timeout(300)
        check(b.fen() == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "phone: an illegal drop plays nothing")
        check(b.piece_on("g1") == "white knight", "phone: the knight back on g1")
        check(page.evaluate("document.documentElement.scrollWidth") <= 390, "phone: no sideways scroll after the moves")
        # The explorer's table, filled, stays within the screen too.
        small = os.path.join(OUT, "explorer-phone.pgn")
        with open(small, "w") as f:
            f.write('[Result "1-0"]\n\n1. e4 e5 1-0\n\n[Result "1/2-1/2"]\n\n1. d4 d5 1/2-1/2\n\n')
        page.set_input_files("#explorer-files", [small])
        page.click("#first")
        b.wait_fen(START_FEN, "phone: back to the start")
        wait_for(page, "document.querySelectorAll('#explorer-moves tr.mv').length === 2", timeout=20000)
        width = page.evaluate("document.documentElement.scrollWidth")
        check(width <= 390, f"phone: scrollWidth {width} with the explorer's table")
        page.locator("main").screenshot(path=os.path.join(OUT, "phone.png"))
    finally:
        context.close()


def test_typed_and_errors(b):
    page = b.page
    b.set_variant("chess")
    before = b.fen()
    page.fill("#move", "e2e5")
    page.press("#move", "Enter")
    page.wait_for_selector("#error:not([hidden])", timeout=10000)
    check("Illegal move" in page.inner_text("#error"), "typed illegal move reported")
    check(b.fen() == before, "illegal typed move leaves the position")
    page.fill("#move", "d2d4")
    page.press("#move", "Enter")
    b.wait_fen("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1", "typed d2d4")
    page.fill("#fen", "this is not a fen")
    page.press("#fen", "Enter")
    wait_for(page, "document.getElementById('error').textContent.includes('invalid FEN')", timeout=10000)
    check(page.evaluate("window.turncoat.state.info.fen").startswith("rnbqkbnr/pppppppp/8/8/3P4"), "bad FEN leaves the position")
    # Cowardly Crew token with an extra that does not exist.
    b.load("cowardlycrew", "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1")
    # Let the variant switch and the FEN load settle before typing: the page
    # drops an answer overtaken by a newer request (the last action wins).
    page.wait_for_timeout(300)
    page.fill("#move", "d4d5,n")
    page.press("#move", "Enter")
    try:
        wait_for(page, "document.getElementById('error').textContent.includes('d4d5,n')", timeout=10000)
    except Exception:
        shown = page.evaluate("document.getElementById('error').textContent")
        fen = page.evaluate("window.turncoat.state.info && window.turncoat.state.info.fen")
        raise AssertionError(f"no error for d4d5,n: error text {shown!r}, position {fen!r}")


def test_navigation(b):
    page = b.page
    b.set_variant("chess")
    for a, c in [("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6")]:
        b.move(a, c)
    b.wait_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "four moves")
    page.keyboard.press("ArrowLeft")
    b.wait_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", "ArrowLeft")
    page.click("#back")
    b.wait_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "back button")
    page.click("#forward")
    b.wait_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", "forward button")
    page.locator("#moves .mv", has_text="e4").first.click()
    b.wait_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "jump to e4")
    check(page.locator("#moves .mv.current").inner_text() == "e4", "current move marked")
    # Branch: 1... c5 instead of 1... e5.
    b.click("c7", "c5")
    b.wait_fen("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "branch c5")
    check(page.locator("#moves .var").count() == 1, "the branch is shown as a variation")
    check("e5" in page.inner_text("#moves") and "c5" in page.inner_text("#moves"), "both lines kept")
    page.keyboard.press("Home")
    b.wait_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "Home")
    page.keyboard.press("End")
    b.wait_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "End follows the main line")


def test_analysis(b):
    page = b.page
    b.set_variant("chess")
    b.click("e2", "e4")
    b.wait_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "before analysis")
    page.select_option("#multipv", "3")
    page.click("#analyse")
    wait_for(page, "document.querySelectorAll('#analysis .line[data-multipv]').length === 3", timeout=10000)
    t = time.time()
    u0 = page.evaluate("window.turncoat.timings.analysisUpdates")
    time.sleep(2.0)
    u1 = page.evaluate("window.turncoat.timings.analysisUpdates")
    rate = (u1 - u0) / (time.time() - t)
    figures["analysis_updates_per_s"] = round(rate, 1)
    figures["analysis_first_line_ms"] = page.evaluate("window.turncoat.timings.analysisFirstLine")
    check(rate >= 4, f"analysis updates {rate:.1f}/s")
    stats = page.inner_text("#stats")
    check("depth" in stats and "nps" in stats, f"stats {stats!r}")
    arrows = count(page, "#board svg line", 1)
    check(arrows >= 1, "best-move arrows")
    check(page.locator("#evaltext").inner_text() != "", "evaluation bar labelled")
    b.shot("analysis")
    page.click("#analyse")
    wait_for(page, "window.turncoat.timings.stop !== null", timeout=10000)
    figures["analysis_stop_ms"] = page.evaluate("window.turncoat.timings.stop")
    # Analysis again, then play a line's first move by clicking it.
    page.click("#analyse")
    wait_for(page, "document.querySelectorAll('#analysis .line .mv').length > 0", timeout=10000)
    first = page.locator("#analysis .line .mv").first
    first.click()
    wait_for(
        page,
        "!window.turncoat.state.info.fen.startsWith('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b')",
        timeout=10000,
    )
    check(page.evaluate("window.turncoat.state.node.ply") == 2, "line move played")
    page.click("#analyse")
    # A variant: lines are tokens.
    b.load("cruisepawns", "7r/P7/8/8/8/8/8/K6k w - - 0 1 -")
    page.click("#analyse")
    wait_for(page, "document.querySelectorAll('#analysis .line[data-multipv]').length === 3", timeout=10000)
    page.click("#analyse")


ORDER_FEN = "rnb1kbnr/pp2pppp/2p5/q7/3P4/2N5/PPP2PPP/R1BQKBNR w KQkq - 0 5"
MATED_FEN = "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1"
# The lines as shown: each line's score and depth labels.
SHOWN_LINES = """() => [...document.querySelectorAll('#lines .line[data-multipv]')].map((l) => [
    l.querySelector('.score').textContent, (l.querySelector('.depth') || {}).textContent || ''])"""


# How much of the evaluation bar is White's, in percent.
BAR_FILL = "parseFloat(document.getElementById('evalfill').style.height)"


def merit(text):
    """A shown score (White's view, maybe with a bound mark) as a number to
    order by: mates beyond every centipawn score, a quicker one further."""
    text = text.lstrip("≥≤")
    if text.startswith("#-"):
        return -100000 + int(text[2:])
    if text.startswith("#"):
        return 100000 - int(text[1:])
    return round(float(text) * 100)


def analysing(page, on):
    if page.evaluate("window.turncoat.state.analysing") != on:
        page.click("#analyse")


def test_analysis_readable(b):
    """MultiPV lines best first with their depth, on every update; mates
    from the right side; a finished game shows its result."""
    page = b.page
    b.load("chess", ORDER_FEN)
    page.select_option("#multipv", "3")
    analysing(page, True)
    wait_for(page, "document.querySelectorAll('#lines .line[data-multipv]').length === 3", timeout=20000)
    samples, deadline = 0, time.time() + 3.0
    while time.time() < deadline:
        lines = page.evaluate(SHOWN_LINES)
        if len(lines) == 3:
            scores = [merit(s) for s, _ in lines]
            check(scores == sorted(scores, reverse=True), f"lines out of order (White to move): {lines}")
            check(all(d.startswith("d") and d[1:].isdigit() for _, d in lines), f"depths shown: {lines}")
            samples += 1
        time.sleep(0.05)
    check(samples >= 20, f"{samples} samples of the lines")
    figures["lines_order_samples"] = samples
    # Black to move: the lines best for Black first (lowest White score).
    b.load("chess", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    wait_for(page, "document.querySelectorAll('#lines .line[data-multipv]').length === 3", timeout=20000)
    for _ in range(20):
        lines = page.evaluate(SHOWN_LINES)
        if len(lines) == 3:
            scores = [merit(s) for s, _ in lines]
            check(scores == sorted(scores), f"lines out of order (Black to move): {lines}")
        time.sleep(0.05)
    # Mate in one for each side: the sign names the side that mates.
    for fen, want, fill in [
        ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "#1", 100),
        ("6k1/5ppp/8/8/8/8/r4PPP/6K1 b - - 0 1", "#-1", 0),
    ]:
        b.load("chess", fen)
        wait_for(
            page, "w => { const l = document.querySelector('#lines .line[data-multipv] .score');"
            " return l && l.textContent === w; }", arg=want, timeout=20000,
        )
        check(page.inner_text("#evaltext") == want, f"{fen}: bar label {page.inner_text('#evaltext')!r}")
        height = page.evaluate(BAR_FILL)
        check(height == fill, f"{fen}: bar filled {height}%, expected {fill}%")
    # Black checkmated: the result, not a mate score, and White's bar.
    b.load("chess", MATED_FEN)
    wait_for(page, "document.querySelector('#lines .line.over') !== null", timeout=10000)
    page.wait_for_timeout(500)  # whatever the engine says of it comes meanwhile
    text = page.inner_text("#analysis")
    check("#-0" not in text and "#0" not in text, f"no mate score for a finished game: {text!r}")
    check(page.inner_text("#lines .line.over").startswith("1-0"), f"result line {page.inner_text('#lines')!r}")
    check(page.inner_text("#evaltext") == "1-0", f"bar label {page.inner_text('#evaltext')!r}")
    height = page.evaluate(BAR_FILL)
    check(height == 100, f"bar filled {height}% for White's win")
    analysing(page, False)


# 3... Nf6?? allows 4. Qxf7#.
BLUNDER_GAME = [("e2", "e4"), ("e7", "e5"), ("d1", "h5"), ("b8", "c6"), ("f1", "c4"), ("g8", "f6"), ("h5", "f7")]
GAME_DONE = "window.turncoat.game.run === null && document.querySelectorAll('#moves .mv[data-glyph]').length === n"


def analyse_game(page, plies, budget="100000", timeout=120000):
    page.select_option("#budget", budget)
    # Whether the bar was shown at all: a quick analysis (fast positions, or
    # values kept from an earlier run) can end and hide it before a check
    # after the click would look.
    page.evaluate(
        """() => { const el = document.getElementById('gameprogress');
           window.__progressShown = !el.hidden;
           new MutationObserver((records) => {
             if (records.some((r) => r.attributeName === 'hidden' && r.oldValue !== null)) window.__progressShown = true;
           }).observe(el, { attributes: true, attributeOldValue: true }); }"""
    )
    page.click("#analyse-game")
    wait_for(page, "window.__progressShown === true", timeout=5000)
    check(page.evaluate("window.__progressShown"), "progress bar shown")
    wait_for(page, f"(n => {GAME_DONE})({plies})", timeout=timeout)
    return page.evaluate("window.turncoat.timings.gameAnalysis")


def test_game_analysis(b):
    """A whole-game analysis marks the blunder, gives both sides' accuracy
    and draws the graph, whose clicks go to the plies."""
    page = b.page
    b.set_variant("chess")
    # The last step's position is a chess game's start too: wait for the new one.
    b.wait_fen(START_FEN, "new game")
    for a, c in BLUNDER_GAME:
        b.move(a, c)
    wait_for(page, "window.turncoat.state.info.outcome !== null", timeout=10000)
    plies = page.evaluate("[...document.querySelectorAll('#moves .mv')].map((m) => m.dataset.ply)")
    check(plies == [str(i) for i in range(1, 8)], f"data-ply of the moves: {plies}")
    ms = analyse_game(page, 7)
    figures["game_analysis_7_plies_100k_ms"] = round(ms)
    glyphs = page.evaluate("[...document.querySelectorAll('#moves .mv')].map((m) => m.dataset.glyph)")
    check(glyphs[5] == "??", f"3... Nf6 allows mate in one: glyphs {glyphs}")
    check(all(g in ("", "?!", "?", "??") for g in glyphs), f"glyphs {glyphs}")
    check(not page.locator("#gameprogress").is_visible(), "progress bar hidden at the end")
    acc = page.inner_text("#accuracy")
    check(re.search(r"White \d+% .*Black \d+%", acc) is not None, f"accuracy text {acc!r}")
    check(page.locator("#graph svg").count() == 1, "evaluation graph drawn")
    marks = page.locator("#graph circle").count()
    check(marks >= 1, f"{marks} glyphs marked on the graph")
    box = page.locator("#graph svg").bounding_box()
    for ply in (2, 0, 7, 5):
        # The last ply at the right edge: a pixel inside it.
        x = min(box["width"] * ply / 7, box["width"] - 1)
        page.mouse.click(box["x"] + x, box["y"] + box["height"] / 2)
        wait_for(page, f"window.turncoat.state.node.ply === {ply}", timeout=10000)
    # Analysed again: every value is known, nothing searched.
    page.click("#analyse-game")
    wait_for(page, f"(n => {GAME_DONE})(7)", timeout=10000)
    check(page.evaluate("window.turncoat.timings.gameAnalysis") < 2000, "a second analysis reuses the values")
    # A variant's game: tokens, a missile launched and its target destroyed.
    b.load("cruisepawns", "7r/P7/8/8/8/8/8/K6k w - - 0 1 -")
    page.fill("#move", "a7*b6c5d5e5f6g7h8")
    page.press("#move", "Enter")
    wait_for(page, "window.turncoat.state.node.ply === 1", timeout=10000)
    check(page.locator("#graph svg").count() == 0, "a new game has no graph")
    analyse_game(page, 1)
    check("Black" in page.inner_text("#accuracy"), f"variant accuracy {page.inner_text('#accuracy')!r}")
    check(page.locator("#graph svg").count() == 1, "variant graph drawn")


def measure_game_analysis(b, pgn_path, plies=60):
    """The time of a whole-game analysis of the first `plies` plies of the
    first game of `pgn_path` at the page's default budget (a figure, run when
    TURNCOAT_MEASURE_GAME is set: it takes a minute or more)."""
    page = b.page
    with open(pgn_path) as f:
        page.fill("#pgn", f.read())
    page.click("#pgnload")
    wait_for(page, "window.turncoat.state.games.length > 0", timeout=10000)
    g = page.evaluate("window.turncoat.state.games[0]")
    check(len(g["moves"]) >= plies, f"the game has {len(g['moves'])} plies")
    fen = g["start_fen"].replace(" ", "_")
    page.goto(base_url(page) + f"#v={g['variant']}&fen={fen}&m={'_'.join(g['moves'][:plies])}&p=0")
    wait_for(page, f"window.turncoat.ready() && window.turncoat.state.root.children.length === 1", timeout=30000)
    wait_for(page, f"document.querySelectorAll('#moves .mv').length === {plies}", timeout=30000)
    budget = page.input_value("#budget")
    page.click("#analyse-game")
    wait_for(page, f"(n => {GAME_DONE})({plies})", timeout=900000)
    ms = page.evaluate("window.turncoat.timings.gameAnalysis")
    figures[f"game_analysis_{plies}_plies_{budget}_nodes_s"] = round(ms / 1000, 1)
    glyphs = page.evaluate("[...document.querySelectorAll('#moves .mv')].map((m) => m.dataset.glyph)")
    figures["game_analysis_glyphs"] = {k: glyphs.count(k) for k in ("?!", "?", "??")}
    figures["game_analysis_accuracy"] = page.inner_text("#accuracy")


def base_url(page):
    return page.url.split("#")[0]


def test_play(b):
    page = b.page
    b.set_variant("chess")
    page.select_option("#side", "white")
    page.select_option("#strength", "n1000")
    page.click("#playbtn")
    b.click("e2", "e4")
    wait_for(page, "window.turncoat.state.node.ply === 2 && !window.turncoat.state.waitingEngine", timeout=10000)
    check(page.evaluate("window.turncoat.state.info.turn") == "white", "engine answered")
    page.click("#takeback")
    b.wait_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "takeback")
    page.click("#playbtn")


def test_play_end(b):
    """A takeback takes the moves out of the game; space while playing asks
    first; resigning, a game's end and a draw offer end the play."""
    page = b.page
    b.set_variant("chess")
    b.wait_fen(START_FEN, "new game")
    page.select_option("#side", "white")
    page.select_option("#strength", "n1000")
    page.click("#playbtn")
    engine_done = "window.turncoat.state.node.ply === 2 && !window.turncoat.state.waitingEngine"
    b.click("e2", "e4")
    wait_for(page, engine_done, timeout=10000)
    page.click("#takeback")
    b.wait_fen(START_FEN, "taken back")
    check(page.evaluate("window.turncoat.state.root.children.length") == 0, "the moves taken back left the game")
    b.click("d2", "d4")
    wait_for(page, engine_done, timeout=10000)
    line = page.evaluate("window.turncoat.state.root.children.map((c) => c.token)")
    check(line == ["d2d4"], f"the game after the takeback: {line}")
    # Space asks before ending the game.
    page.keyboard.press(" ")
    check(page.locator("#confirm").is_visible(), "space asks first")
    check(page.evaluate("window.turncoat.state.playing"), "still playing while asked")
    page.keyboard.press("Escape")
    check(page.locator("#confirm").is_hidden() and page.evaluate("window.turncoat.state.playing"), "Escape: still playing")
    page.keyboard.press(" ")
    page.click("#confirm-yes")
    wait_for(page, "!window.turncoat.state.playing && window.turncoat.state.analysing", timeout=10000)
    analysing(page, False)
    # Resigning.
    page.click("#playbtn")
    page.click("#resign")
    wait_for(page, "!window.turncoat.state.playing", timeout=10000)
    status = page.inner_text("#status")
    check(status.startswith("Game over: 0-1") and "White resigns" in status, f"status after resigning: {status!r}")
    check(page.inner_text("#moves").endswith("0-1"), f"move list {page.inner_text('#moves')!r}")
    check(page.inner_text("#playbtn") == "Play vs Turncoat", "the play button is off")
    page.fill("#pgn", "")  # so that the wait below sees this export
    page.click("#pgnexport")
    wait_for(page, "document.getElementById('pgn').value.includes('[PlyCount')", timeout=10000)
    exported = page.input_value("#pgn")
    check('[Result "0-1"]' in exported and "{White resigns} 0-1" in exported, f"exported {exported!r}")
    # Mating ends the play.
    b.load("chess", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    page.click("#playbtn")
    b.click("a1", "a8")
    wait_for(page, "window.turncoat.state.info.outcome && !window.turncoat.state.playing", timeout=10000)
    check(page.inner_text("#playbtn") == "Play vs Turncoat", "play off at the game's end")
    # Draw offers: declined by a Turncoat a queen up, accepted a queen down.
    for fen, answer in [("3qk3/8/8/8/8/8/8/4K3 w - - 0 1", "declines"), ("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "accepts")]:
        b.load("chess", fen)
        page.click("#playbtn")
        page.click("#draw")
        wait_for(page, "w => document.getElementById('hint').textContent.includes(w)", arg=answer, timeout=20000)
        playing = page.evaluate("window.turncoat.state.playing")
        check(playing == (answer == "declines"), f"{answer}: playing {playing}")
        if playing:
            page.click("#playbtn")
        else:
            status = page.inner_text("#status")
            check(status.startswith("Game over: 1/2-1/2") and "draw agreed" in status, f"status {status!r}")


def test_clocks(b):
    """A clocked game: the increment is added after each move, Turncoat
    answers on its own clock, the flag falls at zero and ends the game, and
    the PGN has the time control and each move's clock."""
    page = b.page
    b.set_variant("chess")
    b.wait_fen(START_FEN, "new game")
    page.select_option("#side", "white")
    page.select_option("#tc-minutes", "0.25")
    page.select_option("#tc-increment", "2")
    page.click("#playbtn")
    check(page.locator("#clocks").is_visible(), "the clocks are shown")
    check(page.is_disabled("#tc-minutes") and page.is_disabled("#strength"), "the time control is fixed while playing")
    c = page.evaluate("window.turncoat.clock()")
    check(c["running"] == "white" and c["inc"] == 2000, f"White's clock runs first: {c}")
    b.click("e2", "e4")
    wait_for(page, "window.turncoat.state.node.ply === 2 && !window.turncoat.state.waitingEngine", timeout=15000)
    first, second = page.evaluate("[1, 2].map((p) => { let n = window.turncoat.state.root; for (let i = 0; i < p; i++) n = n.children[0]; return n.clk; })")
    # 15 s plus the 2 s increment, less the time the click took (well under
    # 2 s), so more than the 15 s the clock started with.
    check(15000 < first <= 17000, f"White's clock after e4: {first}")
    # Turncoat spent some of its own clock and gained the increment.
    check(0 < second <= 17000, f"Black's clock after its move: {second}")
    c = page.evaluate("window.turncoat.clock()")
    check(c["running"] == "white", f"White's clock runs again: {c}")
    text = page.inner_text("#clock-black")
    check(re.fullmatch(r"0:\d\d(\.\d)?", text) is not None, f"Black's clock reads {text!r}")
    # White does not move: the flag falls.
    wait_for(page, "!window.turncoat.state.playing", timeout=25000)
    status = page.inner_text("#status")
    check(status == "Game over: 0-1 — Black wins (White's time is up)", f"status at the flag: {status!r}")
    check("flagged" in page.get_attribute("#clock-white", "class"), "White's clock shows the flag")
    check(page.inner_text("#clock-white") == "0:00.0", f"White's clock at the flag: {page.inner_text('#clock-white')!r}")
    check(page.inner_text("#moves").endswith("0-1"), f"move list {page.inner_text('#moves')!r}")
    check(not page.is_disabled("#tc-minutes"), "the time control can be changed again")
    page.fill("#pgn", "")
    page.click("#pgnexport")
    wait_for(page, "document.getElementById('pgn').value.includes('[PlyCount')", timeout=10000)
    exported = page.input_value("#pgn")
    for want in ['[TimeControl "15+2"]', '[Termination "time forfeit"]', '[Result "0-1"]', "1. e4 {[%clk 0:00:1", "{White's time is up} 0-1"]:
        check(want in exported, f"{want!r} in the export: {exported!r}")
    # White's flag falls against a lone king, which can never mate: a draw.
    b.load("chess", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    page.select_option("#tc-increment", "0")
    page.click("#playbtn")
    wait_for(page, "!window.turncoat.state.playing", timeout=25000)
    status = page.inner_text("#status")
    check(
        status == "Game over: 1/2-1/2 — Draw (White's time is up, but Black cannot checkmate)",
        f"status at the flag against a lone king: {status!r}",
    )
    page.select_option("#tc-minutes", "0")
    page.select_option("#tc-increment", "0")


def test_pgn(b, path):
    page = b.page
    with open(path) as f:
        text = f.read()
    page.fill("#pgn", text)
    page.click("#pgnload")
    wait_for(page, "window.turncoat.state.games.length > 0", timeout=10000)
    games = page.evaluate("window.turncoat.state.games")
    g = games[0]
    b.wait_fen(g["start_fen"], f"{path}: game 1 at its start")
    n = len(g["moves"])
    check(n > 0, "game has moves")
    plies = [t for k, t in g["tags"] if k == "PlyCount"]
    check(not plies or int(plies[0]) == n, f"PlyCount {plies} vs {n} moves")
    seen = {b.fen()}
    for i in range(min(n, 12)):
        page.keyboard.press("ArrowRight")
        wait_for(page, f"window.turncoat.state.node.ply === {i + 1}", timeout=10000)
        seen.add(b.fen())
    check(len(seen) == min(n, 12) + 1, "each step shows a new position")
    page.keyboard.press("End")
    wait_for(page, f"window.turncoat.state.node.ply === {n}", timeout=10000)
    final = b.expected(g["variant"], g["start_fen"], g["moves"])
    b.wait_fen(final, f"{path}: final position")
    result = [t for k, t in g["tags"] if k == "Result"][0]
    term = [t for k, t in g["tags"] if k == "Termination"]
    if term and term[0] == "normal":
        status = page.inner_text("#status")
        check(result in status, f"game end announced: {status!r}")
    if len(games) > 1:
        page.select_option("#games", "1")
        b.wait_fen(games[1]["start_fen"], "second game selected")
    # Export: the same dialect reads back.
    page.keyboard.press("End")
    page.fill("#pgn", "")  # so that the wait below sees this export
    page.click("#pgnexport")
    wait_for(page, "document.getElementById('pgn').value.includes('[PlyCount')", timeout=10000)
    exported = page.input_value("#pgn")
    if g["variant"] != "chess":
        check(f'[Variant "{g["variant"]}"]' in exported, "export names the variant")


LICHESS_PGN = """[Event "Casual game"]
[Site "https://lichess.org/abcdefgh"]

1. e4 { [%clk 0:03:00] } e5 { [%eval 0.2] [%clk 0:02:59.5] } 2. Nf3?! {a comment} (2. Nc3 Nc6 $1) 2... Nc6 3. Bc4 Bc5 4. 0-0
"""


def test_pgn_tolerant(b):
    """lichess's PGN: glyphs, `0-0`, comments, variations kept as variations,
    no result; exported with them."""
    page = b.page
    page.fill("#pgn", LICHESS_PGN)
    page.click("#pgnload")
    # The game shown before (another variant's) must not satisfy the wait.
    wait_for(
        page,
        "window.turncoat.state.games.length === 1 && window.turncoat.state.variant === 'chess'"
        " && window.turncoat.state.root.children.length > 0 && window.turncoat.state.root.children[0].token === 'e2e4'",
        timeout=10000,
    )
    tree = page.evaluate(TREE)
    tokens = [t for _, t, _ in tree["nodes"]]
    check(
        tokens == ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1", "b1c3", "b8c6"],
        f"the game and its variation: {tokens}",
    )
    text = page.inner_text("#moves")
    check("Nf3?!" in text and "a comment" in text and "O-O" in text, f"move list {text!r}")
    check("%" not in text, f"lichess's [%clk]/[%eval] commands are not shown: {text!r}")
    check(page.locator("#moves .var").count() == 1, "the variation is listed")
    page.fill("#pgn", "")  # so that the wait below sees this export
    page.click("#pgnexport")
    wait_for(page, "document.getElementById('pgn').value.includes('[PlyCount')", timeout=10000)
    exported = page.input_value("#pgn")
    flat = " ".join(exported.split())  # the movetext wraps at 80 columns
    check("2. Nf3?! {a comment} (2. Nc3 Nc6!) 2... Nc6" in flat, f"exported {exported!r}")
    check("4. O-O *" in flat, f"exported {exported!r}")
    check("1. e4 {[%clk 0:03:00]} 1... e5 {[%clk 0:02:59]} 2. Nf3?!" in flat, f"the clocks kept: {exported!r}")
    check("TimeControl" not in exported, f"no time control of an earlier game: {exported!r}")
    # A variation with a move that cannot be played there is cut at that move
    # (left out when it is its first); the game loads and the page says so.
    page.fill("#pgn", "1. d4 d5 (1... Qxd2) (1... Nf6 2. c4 Bxh8) 2. c4 *")
    page.click("#pgnload")
    wait_for(page, "window.turncoat.state.root.children.length > 0 && window.turncoat.state.root.children[0].token === 'd2d4'", timeout=10000)
    tree = page.evaluate(TREE)
    tokens = [t for _, t, _ in tree["nodes"]]
    check(tokens == ["d2d4", "d7d5", "c2c4", "g8f6", "c2c4"], f"the game and the legal part of its variations: {tokens}")
    note = page.inner_text("#error")
    check(
        note.startswith("Loaded, but a variation was left out: move 2")
        and "a variation was cut after 2 moves: move 4" in note,
        f"the cut variations said: {note!r}",
    )


def test_long_game(b, path, browser):
    """A game longer than one position request carries loads and every
    position of it can be shown: the end, and back one move from there. It
    comes back whole on a reload, and from its link in a fresh browser."""
    page = b.page
    with open(path) as f:
        text = f.read()
    page.fill("#pgn", text)
    page.click("#pgnload")
    wait_for(page, "window.turncoat.state.root.children.length > 0 && window.turncoat.state.root.children[0].token === 'b1a3'", timeout=20000)
    plies = page.evaluate("(() => { let n = window.turncoat.state.root, k = 0; while (n.children.length) { n = n.children[0]; k++; } return k; })()")
    check(plies == 2500, f"the whole game loaded: {plies} plies")
    page.keyboard.press("End")
    wait_for(page, "window.turncoat.state.node.ply === 2500", timeout=20000)
    fen = page.input_value("#fen")
    page.keyboard.press("ArrowLeft")
    wait_for(page, "window.turncoat.state.node.ply === 2499", timeout=20000)
    before = page.input_value("#fen")
    check(fen != before and fen.split(" ")[1] != before.split(" ")[1], f"two positions: {before!r}, {fen!r}")
    check(page.locator("#error").is_hidden(), f"no error: {page.inner_text('#error')!r}")
    last = page.evaluate("window.turncoat.state.info.last && window.turncoat.state.info.last.san")
    check(last is not None and last != "", f"the last move is shown: {last!r}")
    # Kept whole: a reload restores all of it from the browser's storage...
    game = shown(page)
    check(len(game["moves"]) == 2500 and game["ply"] == 2499 and game["fen"] == before, f"the game shown: {len(game['moves'])} plies")
    page.reload()
    ready(page)
    try:
        wait_for(page, "window.turncoat.state.node.ply === 2499", timeout=60000)
    except TimeoutError:
        pass
    got = shown(page)
    check(got == game, f"after the reload: {len(got['moves'])} plies at ply {got['ply']}, {got['fen']!r}")
    check(page.locator("#error").is_hidden(), f"no error after the reload: {page.inner_text('#error')!r}")
    # ...and the page's own link, opened in a fresh browser (no storage),
    # shows the same game.
    link = page.evaluate("location.href")
    check(link.endswith("&p=2499") and link.count("_") == 2499, f"the link holds the 2500 moves: {len(link)} characters")
    other = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        other.goto(link)
        ready(other)
        try:
            wait_for(other, "window.turncoat.state.node.ply === 2499", timeout=60000)
        except TimeoutError:
            pass
        got = shown(other)
        check(got == game, f"the link in a fresh browser: {len(got['moves'])} plies at ply {got['ply']}, {got['fen']!r}")
        check(other.locator("#error").is_hidden(), f"no error from the link: {other.inner_text('#error')!r}")
        other.keyboard.press("End")
        wait_for(other, "window.turncoat.state.node.ply === 2500", timeout=20000)
        check(other.input_value("#fen") == fen, f"its last position: {other.input_value('#fen')!r}")
    finally:
        other.close()


def test_explorer(b):
    """The explorer counts the games of the files added, position by
    position (a file over one message's size goes in parts), lists the moves
    played with their results, the most played first, values them when the
    engine is idle, and a click plays one."""
    page = b.page
    b.set_variant("chess")
    b.wait_fen(START_FEN, "new game")
    small = os.path.join(OUT, "explorer-small.pgn")
    with open(small, "w") as f:
        f.write('[Result "1-0"]\n\n1. e4 e5 1-0\n\n[Result "0-1"]\n\n1. e4 c5 0-1\n\n[Result "1/2-1/2"]\n\n1. d4 d5 1/2-1/2\n\n')
        f.write('[Variant "subversion"]\n[Result "0-1"]\n\n1. e2e4 e7e5 0-1\n\n')
    # 9000 games of one opening: over 1 MB, more than one message holds.
    big = os.path.join(OUT, "explorer-big.pgn")
    with open(big, "w") as f:
        for i in range(9000):
            f.write(f'[Event "big {i}"]\n[Round "{i}"]\n[White "Turncoat"]\n[Black "Turncoat"]\n[Result "1/2-1/2"]\n\n1. c4 c5 2. Nc3 Nc6 1/2-1/2\n\n')
    check(os.path.getsize(big) > 1 << 20, f"the big file is over 1 MB: {os.path.getsize(big)}")
    page.set_input_files("#explorer-files", [small, big])
    wait_for(page, "document.getElementById('explorer-info').textContent.startsWith('9004 games')", timeout=60000)
    wait_for(page, "window.turncoat.explorer() && window.turncoat.explorer().fen === window.turncoat.state.info.fen", timeout=10000)
    rows = page.evaluate("window.turncoat.explorer().moves.map((m) => [m.san, m.games, m.white, m.draws, m.black])")
    check(rows == [["c4", 9000, 0, 9000, 0], ["e4", 2, 1, 0, 1], ["d4", 1, 0, 1, 0]], f"the moves from the start: {rows}")
    check(page.locator("#explorer-moves tr.mv").count() == 3, "three rows")
    # Valued by short searches while the engine is idle.
    wait_for(page, "window.turncoat.explorer().moves.every((m) => m.value !== null)", timeout=60000)
    check(re.fullmatch(r"[+-]\d+\.\d\d|#-?\d+", page.inner_text("#explorer-moves tr.mv:nth-child(2) td.ev")) is not None, "a value is shown")
    page.click("#explorer-moves tr.mv:nth-child(2)")
    b.wait_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "e4 played from the explorer")
    wait_for(page, "window.turncoat.explorer() && window.turncoat.explorer().fen === window.turncoat.state.info.fen", timeout=10000)
    rows = page.evaluate("window.turncoat.explorer().moves.map((m) => [m.san, m.games])")
    # One game each: the better score for Black, the side to move, first.
    check(rows == [["c5", 1], ["e5", 1]], f"the moves after 1. e4: {rows}")
    page.click("#explorer-clear")
    wait_for(page, "document.getElementById('explorer-info').textContent === 'no games'", timeout=10000)
    check(page.locator("#explorer-moves tr").count() == 0, "the table is empty")


def explorer_info(page):
    return page.inner_text("#explorer-info")


def test_explorer_parts(b):
    """A large file of games without tags (as pgn-extract --notags writes
    them) goes in parts cut at the games' results, no message over the
    backend's limit, and is counted with the games added before; a game too
    large for any message is said not read, the rest counted."""
    page = b.page
    b.set_variant("chess")
    b.wait_fen(START_FEN, "new game")
    page.click("#explorer-clear")
    wait_for(page, "document.getElementById('explorer-info').textContent === 'no games'", timeout=10000)
    small = os.path.join(OUT, "explorer-before.pgn")
    with open(small, "w") as f:
        f.write('[Result "1-0"]\n\n1. e4 e5 1-0\n\n[Result "0-1"]\n\n1. e4 c5 0-1\n\n[Result "1/2-1/2"]\n\n1. d4 d5 1/2-1/2\n\n')
    page.set_input_files("#explorer-files", [small])
    wait_for(page, "document.getElementById('explorer-info').textContent.startsWith('3 games')", timeout=10000)
    tagless = os.path.join(OUT, "explorer-tagless.pgn")
    game = "1. c4 c5 2. Nc3 Nc6 3. g3 g6 4. Bg2 Bg7 1/2-1/2\n\n"
    games = 1_500_000 // len(game) + 1
    with open(tagless, "w") as f:
        f.write(game * games)
    check(os.path.getsize(tagless) > 1_500_000, f"the tagless file is 1.5 MB: {os.path.getsize(tagless)}")
    page.evaluate("window.turncoat.explorerSent = []")
    page.set_input_files("#explorer-files", [tagless])
    want = f"{3 + games} games, 10 positions"
    try:
        wait_for(page, "w => document.getElementById('explorer-info').textContent === w", arg=want, timeout=90000)
    finally:
        sent = page.evaluate("window.turncoat.explorerSent")
        info = explorer_info(page)
    check(info == want, f"the explorer after the tagless file: {info!r}, expected {want!r}")
    check(len(sent) == 3 and max(sent) <= 800_000, f"three parts of at most 800000 bytes: {sent}")
    wait_for(page, "window.turncoat.explorer() && window.turncoat.explorer().fen === window.turncoat.state.info.fen", timeout=10000)
    rows = page.evaluate("window.turncoat.explorer().moves.map((m) => [m.san, m.games])")
    check(rows == [["c4", games], ["e4", 2], ["d4", 1]], f"the moves from the start: {rows}")
    # A game larger than a message: the others are counted, it is said.
    huge = os.path.join(OUT, "explorer-huge-game.pgn")
    big = "1. e4 {" + "x" * 1_100_000 + "} e5 1-0"
    with open(huge, "w") as f:
        f.write(big + "\n\n1. d4 d5 0-1\n\n")
    page.set_input_files("#explorer-files", [huge])
    want = (
        f"{4 + games} games, 10 positions, 1 not read: a game of {len(big)} bytes,"
        f" more than a message holds ({1 << 20})"
    )
    try:
        wait_for(page, "w => document.getElementById('explorer-info').textContent === w", arg=want, timeout=30000)
    finally:
        info = explorer_info(page)
    check(info == want, f"the explorer after the huge game: {info!r}, expected {want!r}")
    page.click("#explorer-clear")
    wait_for(page, "document.getElementById('explorer-info').textContent === 'no games'", timeout=10000)


def test_too_many_tabs(b, browser):
    """A tab beyond the server's limit shows the server's reason, not a lost
    connection."""
    page = b.page
    page.wait_for_timeout(500)  # sockets closed by earlier steps free their slots
    # Sockets of this page take the free slots, until one is refused.
    filled = page.evaluate(
        """() => new Promise((resolve) => {
            window.extraSockets = [];
            const next = () => {
                if (window.extraSockets.length > 20) { resolve(-1); return; }
                const w = new WebSocket(`ws://${location.host}/ws`);
                w.onmessage = (e) => {
                    if (JSON.parse(e.data).type === 'hello') { window.extraSockets.push(w); next(); }
                    else resolve(window.extraSockets.length);
                };
            };
            next();
        })"""
    )
    check(filled >= 1, f"sockets opened before the limit: {filled}")
    try:
        other = browser.new_page()
        other.goto(URL)
        wait_for(other, "document.getElementById('conn').textContent.startsWith('disconnected')", timeout=10000
        )
        shown = other.inner_text("#error")
        want = (
            "The server closed the connection: too many tabs: 8 are open, the most this server"
            " runs at once; close one and reload. Trying again in "
        )
        check(shown.startswith(want), f"ninth tab shows {shown!r}")
        other.close()
    finally:
        page.evaluate("window.extraSockets.forEach((w) => w.close())")


# The game tree as the page holds it: each node's depth and token in
# preorder, and the path to the position shown.
TREE = """() => {
    const s = window.turncoat.state;
    const out = [];
    const walk = (n, d) => { if (n.parent) out.push([d, n.token, n.san]); n.children.forEach((c) => walk(c, d + 1)); };
    walk(s.root, 0);
    const path = [];
    for (let n = s.node; n.parent; n = n.parent) path.unshift(n.token);
    return { variant: s.variant, start: s.root.startFen, nodes: out, path, fen: s.info.fen };
}"""
AFTER_C5 = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


def game_with_variation(b):
    """1. e4 e5 2. Nf3, and the variation 1... c5 2. Nf3; shows 1... c5."""
    page = b.page
    b.set_variant("chess")
    b.wait_fen(START_FEN, "new game")
    for a, c in [("e2", "e4"), ("e7", "e5"), ("g1", "f3")]:
        b.move(a, c)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    b.wait_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "back to 1. e4")
    b.move("c7", "c5")
    b.move("g1", "f3")
    page.keyboard.press("ArrowLeft")
    b.wait_fen(AFTER_C5, "1... c5 shown")
    tree = page.evaluate(TREE)
    check(
        [t for _, t, _ in tree["nodes"]] == ["e2e4", "e7e5", "g1f3", "c7c5", "g1f3"],
        f"the game with its variation: {tree}",
    )
    return tree


def test_storage(b):
    """The game, variations and the position shown, survives a reload and
    opens in a new tab; an address naming another game wins."""
    page = b.page
    before = game_with_variation(b)
    page.reload()
    ready(page)
    b.wait_fen(AFTER_C5, "reloaded")
    check(page.evaluate(TREE) == before, f"after the reload {page.evaluate(TREE)} != {before}")
    check(page.locator("#moves .var").count() == 1, "the variation is listed")
    # A new tab with no game in its address: the stored game.
    other = page.context.new_page()
    try:
        other.goto(base_url(page))
        ready(other)
        wait_for(other, "f => document.getElementById('fen').value === f", arg=AFTER_C5, timeout=10000)
        check(other.evaluate(TREE) == before, f"a new tab shows {other.evaluate(TREE)}")
        # An address with another game: that game.
        other.goto("about:blank")
        other.goto(base_url(page) + "#v=chess&m=d2d4")
        ready(other)
        wait_for(other, "() => window.turncoat.state.node.ply === 1", timeout=10000)
        got = other.evaluate(TREE)
        check([t for _, t, _ in got["nodes"]] == ["d2d4"], f"the address's game wins: {got}")
    finally:
        other.close()


class Editor:
    """The position editor (static/editor.js), driven by clicks."""

    def __init__(self, page):
        self.page = page

    def state(self):
        return self.page.evaluate("window.turncoat.editor()")

    def open(self):
        self.page.click("#edit-position")
        wait_for(self.page, "window.turncoat.editor().open", timeout=10000)

    def fen(self):
        return self.page.input_value("#editor-fen")

    def square_xy(self, sq):
        box = self.page.locator("#editor-board").bounding_box()
        return square_centre(box, self.state()["orientation"], sq)

    def click(self, *squares):
        click_squares(self.page, self.square_xy, squares)

    def tool(self, name):
        self.page.click(f"#editor-tool-{name}")

    def place(self, piece, *squares):
        """Picks `piece` (e.g. 'white-king') in a palette, clicks `squares`."""
        self.page.click(f'#editor .ed-piece[data-piece="{piece}"]')
        check(self.state()["tool"] == piece, f"palette piece {piece} picked: tool {self.state()['tool']}")
        self.click(*squares)

    def wait_status(self, text, what):
        try:
            wait_for(
                self.page, "t => document.getElementById('editor-status').textContent.includes(t)", arg=text, timeout=10000
            )
        except Exception:
            pass
        status = self.page.inner_text("#editor-status")
        check(text in status, f"{what}: editor status {status!r}, expected {text!r}")

    def wait_fen(self, fen, what):
        try:
            wait_for(self.page, "f => document.getElementById('editor-fen').value === f", arg=fen, timeout=10000)
        except Exception:
            pass
        check(self.fen() == fen, f"{what}: editor FEN {self.fen()!r}, expected {fen!r}")

    def load_ok(self, variant, fen, what):
        """Load position: the editor closes, the game starts from `fen`."""
        self.page.click("#editor-load")
        try:
            wait_for(
                self.page,
                "([v, f]) => !window.turncoat.editor().open && window.turncoat.state.info.variant === v"
                " && document.getElementById('fen').value === f && window.turncoat.state.node === window.turncoat.state.root",
                arg=[variant, fen],
                timeout=10000,
            )
        except Exception:
            pass
        status = self.page.inner_text("#editor-status")
        check(not self.state()["open"], f"{what}: the editor is still open ({status!r})")
        got = self.page.input_value("#fen")
        check(got == fen, f"{what}: the game's FEN {got!r}, expected {fen!r}")
        check(self.page.evaluate("window.turncoat.state.variant") == variant, f"{what}: the game's variant")
        check(self.page.locator("#board").is_visible(), f"{what}: the board is back")


def edit_variant(b, variant, placements, turn, castling, ep, expect, extra=None, via_editor=False, flip=False):
    """Sets up `expect` in the editor of `variant` by clicks from an empty
    board (placements: palette piece and squares), the side to move, the
    castling boxes (wk wq bk bq), the en passant square, and `extra` (the
    variant's own state), then loads it."""
    page = b.page
    ed = Editor(page)
    if via_editor:
        b.set_variant("chess")
        ed.open()
        page.select_option("#editor-variant", variant)
    else:
        b.set_variant(variant)
        ed.open()
    check(page.locator("#board").is_hidden(), f"{variant}: the game's board is hidden while editing")
    page.click("#editor-clear")
    if flip:
        page.click("#editor-flip")
        top = page.get_attribute("#editor .ed-spare >> nth=0", "data-color")
        check(ed.state()["orientation"] == "black" and top == "white", f"{variant}: flipped, White's palette on top ({top})")
    for piece, squares in placements:
        ed.place(piece, *squares)
    page.select_option("#editor-turn", turn)
    for c in castling:
        page.check(f"#editor-castle-{c}")
    if ep:
        page.select_option("#editor-ep", ep)
    if extra:
        extra(ed)
    ed.wait_fen(expect, f"{variant}: the FEN built")
    ed.wait_status("A legal position.", f"{variant}: checked while editing")
    ed.load_ok(variant, expect, f"{variant}: loaded")
    check(page.evaluate("window.turncoat.state.info.start_fen") == expect, f"{variant}: the game starts there")


# The editor's arrows, by their brush's colour.
LINK_ARROWS = '#editor-board svg line[stroke="#7a5cc2"]'
MISSILE_ARROWS = '#editor-board svg line[stroke="#d4350b"]'


def attending_links(ed):
    page = ed.page
    ed.tool("link")
    # Link e8-e7, take it back by clicking its pawn, link it again; then
    # b1-b2 and e1-d1 (the pawn on its own first rank).
    ed.click("e8", "e7")
    ed.wait_fen("4k3/4p3/8/8/8/8/1P6/1N1PK3 w - - 0 1 e8e7", "attendingpawns: the first link")
    ed.click("e7")
    ed.wait_fen("4k3/4p3/8/8/8/8/1P6/1N1PK3 w - - 0 1 -", "attendingpawns: the link undone")
    ed.click("e8", "e7", "b1", "b2", "e1", "d1")
    lines = count(page, LINK_ARROWS, 3)
    check(lines == 3, f"attendingpawns: {lines} link arrows drawn")
    items = page.locator("#editor-links .ed-item").count()
    check(items == 3, f"attendingpawns: {items} links listed")


def cruise_missile(ed):
    page = ed.page
    check(page.is_disabled("#editor-ep") is False, "cruisepawns: en passant open before the missile")
    ed.tool("missile")
    ed.click("e4", "e5", "f6", "g7")
    ed.wait_fen("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7", "cruisepawns: the missile")
    # The last square clicked again is taken back.
    ed.click("g7")
    ed.wait_fen("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6", "cruisepawns: the target taken back")
    ed.click("g7")
    check(page.is_disabled("#editor-ep"), "cruisepawns: no en passant square with a missile in flight")
    lines = count(page, MISSILE_ARROWS, 3)
    # Only the missile's (an earlier variant's links are not left drawn).
    others = page.locator("#editor-board svg line").count()
    check(lines == 3 and others == 3, f"cruisepawns: {lines} path arrows drawn, {others} arrows in all")


def test_editor(b):
    page = b.page
    W, B = "white-", "black-"
    # chess: castling both ways and an en passant square.
    edit_variant(
        b, "chess",
        [(W + "king", ["e1"]), (W + "rook", ["a1", "h1"]), (W + "pawn", ["e5"]),
         (B + "king", ["e8"]), (B + "rook", ["a8", "h8"]), (B + "pawn", ["d5"])],
        "w", ["wk", "wq", "bk", "bq"], "d6", "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1",
    )
    # cowardlycrew: Black to move, Black's castling, an en passant square on the 3rd rank.
    edit_variant(
        b, "cowardlycrew",
        [(W + "king", ["e1"]), (W + "pawn", ["e4"]), (B + "king", ["e8"]), (B + "rook", ["h8"]), (B + "pawn", ["d4"])],
        "b", ["bk"], "e3", "4k2r/8/8/8/3pP3/8/8/4K3 b k e3 0 1", flip=True,
    )
    check(page.evaluate("window.turncoat.state.orientation") == "white", "the editor's flip leaves the game's board")
    # pacifist: both kings White's (the side to move may have none); no en passant.
    b.set_variant("pacifist")
    Editor(page).open()
    check(page.locator("#editor-ep").is_hidden(), "pacifist: no en passant square offered")
    page.click("#editor-cancel")
    edit_variant(
        b, "pacifist",
        [(W + "king", ["e1", "h1"]), (W + "rook", ["a1"]), (B + "pawn", ["d5"])],
        "b", ["wq"], None, "8/8/8/3p4/8/8/8/R3K2K b Q - 0 1",
    )
    # attendingpawns: links by clicks, a pawn on its own first rank.
    edit_variant(
        b, "attendingpawns",
        [(W + "king", ["e1"]), (W + "knight", ["b1"]), (W + "pawn", ["b2", "d1"]), (B + "king", ["e8"]), (B + "pawn", ["e7"])],
        "w", [], None, "4k3/4p3/8/8/8/8/1P6/1N1PK3 w - - 0 1 b1b2,e1d1,e8e7", extra=attending_links,
    )
    # subversion: no state of its own.
    edit_variant(
        b, "subversion",
        [(W + "king", ["a1"]), (W + "knight", ["d4"]), (W + "pawn", ["g2", "h2"]),
         (B + "king", ["h8"]), (B + "rook", ["b8"]), (B + "knight", ["c6"]), (B + "pawn", ["d5"]), (B + "bishop", ["e5"])],
        "b", [], None, "1r5k/8/2n5/3pb3/3N4/8/6PP/K7 b - - 0 1",
    )
    # cruisepawns: a missile in flight at the knight on g7.
    edit_variant(
        b, "cruisepawns",
        [(W + "king", ["a1"]), (B + "bishop", ["d8"]), (B + "king", ["h8"]), (B + "knight", ["g7"]), (B + "pawn", ["d6"])],
        "b", [], None, "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7", extra=cruise_missile,
    )
    # The Andernach variants: an en passant square past the opponent's pawn
    # (andernach) and past the side to move's own, turned pawn
    # (antiandernach); castling rights (superandernach, chosen in the editor).
    edit_variant(
        b, "andernach",
        [(W + "king", ["e1"]), (W + "pawn", ["e5"]), (B + "king", ["e8"]), (B + "pawn", ["d5"])],
        "w", [], "d6", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
    )
    edit_variant(
        b, "antiandernach",
        [(W + "king", ["e1"]), (W + "pawn", ["d5", "e5"]), (B + "king", ["e8"])],
        "w", [], "d6", "4k3/8/8/3PP3/8/8/8/4K3 w - d6 0 1",
    )
    edit_variant(
        b, "superandernach",
        [(W + "king", ["e1"]), (W + "rook", ["h1"]), (B + "king", ["e8"]), (B + "rook", ["a8"])],
        "b", ["wk", "bq"], None, "r3k3/8/8/8/8/8/8/4K2R b Kq - 0 1", via_editor=True,
    )


def test_editor_refusals(b):
    """A position the rules refuse: the backend's reason, and the editor stays
    open with the position as edited; the game is untouched."""
    page = b.page
    ed = Editor(page)
    b.set_variant("chess")
    b.move("e2", "e4")
    game = b.fen()
    ed.open()
    page.click("#editor-clear")
    page.select_option("#editor-turn", "w")
    ed.place("black-king", "e8")
    edited = "4k3/8/8/8/8/8/8/8 w - - 0 1"
    ed.wait_fen(edited, "no white king")
    ed.wait_status("white has 0 kings", "the reason while editing")
    page.click("#editor-load")
    ed.wait_status("white has 0 kings", "the reason on loading")
    check(ed.state()["open"], "refused: the editor stays open")
    check(ed.fen() == edited, f"refused: the position as edited ({ed.fen()!r})")
    check(page.input_value("#fen") == game, "refused: the game's FEN unchanged")
    # A pawn on the first rank.
    ed.place("white-king", "e1")
    ed.place("white-pawn", "a1")
    ed.wait_fen("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "a pawn on a1")
    page.click("#editor-load")
    ed.wait_status("pawn on a1", "a pawn on the first rank refused")
    check(ed.state()["open"], "refused again: the editor stays open")
    # Removed, the position loads.
    ed.tool("trash")
    ed.click("a1")
    ed.wait_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "the pawn removed")
    ed.load_ok("chess", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "after the refusals")


def test_editor_input(b):
    """Cancel leaves the game; drag and drop from the palette and off the
    board; the FEN field both ways (Attending Pawns' default links written
    out); castling rights the rules drop are said."""
    page = b.page
    ed = Editor(page)
    b.set_variant("chess")
    b.move("e2", "e4")
    b.move("e7", "e5")
    game = b.fen()
    ed.open()
    check(ed.fen() == game, f"the editor opens on the position shown ({ed.fen()!r})")
    ed.place("white-queen", "d4")
    page.click("#editor-cancel")
    wait_for(page, "!window.turncoat.editor().open", timeout=10000)
    check(page.input_value("#fen") == game, "cancel: the game's FEN unchanged")
    check(page.evaluate("window.turncoat.state.node.ply") == 2, "cancel: the game's moves kept")
    b.move("g1", "f3")  # the game goes on after the editor
    # Drag a knight from the palette to c3, drag the queen off the board.
    ed.open()
    box = page.locator('#editor .ed-piece[data-piece="white-knight"]').bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    x, y = ed.square_xy("c3")
    page.mouse.move(x, y, steps=8)
    page.mouse.up()
    ed.wait_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/2N2N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", "a knight dragged to c3")
    ed.tool("pointer")
    x, y = ed.square_xy("d1")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y + 200, steps=8)
    page.mouse.up()
    ed.wait_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/2N2N2/PPPP1PPP/RNB1KB1R b KQkq - 1 2", "the queen dragged off")
    x0, y0 = ed.square_xy("f3")
    x1, y1 = ed.square_xy("g5")
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=8)
    page.mouse.up()
    ed.wait_fen("rnbqkbnr/pppp1ppp/8/4p1N1/4P3/2N5/PPPP1PPP/RNB1KB1R b KQkq - 1 2", "a knight dragged on the board")
    # Typed FEN: the board follows, and a click edits it further.
    page.fill("#editor-fen", "4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    ed.place("white-rook", "h1")
    ed.wait_fen("4k3/8/8/8/8/8/8/4K2R w - - 0 1", "typed, then a rook placed")
    # Castling rights the rules drop: said, and loaded without them.
    page.check("#editor-castle-wq")
    ed.wait_fen("4k3/8/8/8/8/8/8/4K2R w Q - 0 1", "an impossible castling right")
    ed.wait_status("castling '-' (not 'Q')", "the rules drop the right")
    page.click("#editor-cancel")
    # Attending Pawns, a FEN without links: the rules' default links written out.
    b.set_variant("attendingpawns")
    ed.open()
    page.fill("#editor-fen", "4k3/8/8/8/8/8/PP6/N3K3 w - - 0 1")
    ed.wait_status("with the default links (a1a2)", "attendingpawns: the default links said while typing")
    check(ed.fen() == "4k3/8/8/8/8/8/PP6/N3K3 w - - 0 1", "attendingpawns: the typed FEN left as typed")
    page.press("#editor-fen", "Tab")
    ed.wait_fen("4k3/8/8/8/8/8/PP6/N3K3 w - - 0 1 a1a2", "attendingpawns: default links written out")
    # Moving the knight by drag takes its link along.
    ed.tool("pointer")
    x0, y0 = ed.square_xy("a1")
    x1, y1 = ed.square_xy("b3")
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=8)
    page.mouse.up()
    ed.wait_fen("4k3/8/8/8/8/1N6/PP6/4K3 w - - 0 1 b3a2", "attendingpawns: the link follows the knight")
    # The rules' default links for this board: none (no piece behind a2).
    page.click("#editor-links-default")
    ed.wait_fen("4k3/8/8/8/8/1N6/PP6/4K3 w - - 0 1 -", "attendingpawns: the default links, none here")
    ed.tool("link")
    ed.click("b3", "a2")
    b.shot("editor")
    ed.load_ok("attendingpawns", "4k3/8/8/8/8/1N6/PP6/4K3 w - - 0 1 b3a2", "attendingpawns: typed and dragged")


def test_editor_layout(browser):
    """The editor's board fills the window too: at 800x600 its palettes and
    tools are in view; on a phone (390x844, touch) nothing scrolls sideways
    and pieces are placed and linked by taps."""
    for width, height, touch in [(800, 600, False), (390, 844, True)]:
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch)
        page = context.new_page()
        try:
            page.goto(URL)
            ready(page)
            b = Board(page)
            ed = Editor(page)
            b.set_variant("attendingpawns")
            page.locator("#edit-position").scroll_into_view_if_needed()
            page.click("#edit-position")
            wait_for(page, "window.turncoat.editor().open", timeout=10000)
            page.evaluate("window.scrollTo(0, 0)")
            what = f"editor at {width}x{height}"
            box = page.locator("#editor-board").bounding_box()
            check(box["width"] == box["height"] and box["width"] % 8 == 0, f"{what}: board {box}")
            for sel in ["#editor-board", "#editor .ed-spare >> nth=0", "#editor .ed-spare >> nth=1"]:
                check(inside(page.locator(sel).bounding_box(), width, height), f"{what}: {sel} in view")
            if not touch:
                check(inside(page.locator("#editor-tool-link").bounding_box(), width, height), f"{what}: the tools in view")
            check(page.evaluate("document.documentElement.scrollWidth") <= width, f"{what}: no sideways scroll")
            if touch:
                page.click("#editor-clear")
                page.evaluate("window.scrollTo(0, 0)")
                for piece, sq in [("white-king", "e1"), ("black-king", "e8"), ("white-knight", "g1"), ("white-pawn", "h3")]:
                    page.locator(f'#editor .ed-piece[data-piece="{piece}"]').tap()
                    page.touchscreen.tap(*ed.square_xy(sq))
                page.locator("#editor-tool-link").tap()
                page.evaluate("window.scrollTo(0, 0)")
                for sq in ["g1", "h3"]:
                    page.touchscreen.tap(*ed.square_xy(sq))
                ed.wait_fen("4k3/8/8/8/8/7P/8/4K1N1 w - - 0 1 g1h3", f"{what}: placed and linked by taps")
                check(page.evaluate("document.documentElement.scrollWidth") <= width, f"{what}: no sideways scroll after the taps")
                page.locator("main").screenshot(path=os.path.join(OUT, "editor-phone.png"))
        finally:
            context.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port):
    """`turncoat serve` on `port`, once it listens."""
    proc = subprocess.Popen(
        [os.environ["TURNCOAT_BIN"], "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = proc.stdout.readline()
    check(line.startswith("Turncoat web board:"), f"server says {line!r}")
    return proc


def test_reconnect(browser):
    """The server killed under a tab and started again: the tab says so,
    connects again by itself and sends its game; analysis goes on, moves
    play on the server's copy of the game."""
    check("TURNCOAT_BIN" in os.environ, "TURNCOAT_BIN names the turncoat binary")
    port = free_port()
    server = start_server(port)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"http://127.0.0.1:{port}/")
        ready(page)
        b = Board(page)
        before = game_with_variation(b)
        # Games in the explorer: the server's session keeps them.
        small = os.path.join(OUT, "explorer-reconnect.pgn")
        with open(small, "w") as f:
            f.write("1. e4 e5 1-0\n\n1. d4 d5 0-1\n\n")
        page.set_input_files("#explorer-files", [small])
        wait_for(page, "document.getElementById('explorer-info').textContent.startsWith('2 games')", timeout=10000)
        analysing(page, True)
        wait_for(page, "document.querySelectorAll('#lines .line[data-multipv]').length > 0", timeout=20000)
        server.kill()
        server.wait()
        wait_for(page, "document.getElementById('conn').textContent.startsWith('disconnected')", timeout=10000)
        error = page.inner_text("#error")
        check(error.startswith("The connection to the engine was lost. Trying again in"), f"error {error!r}")
        t = time.time()
        server = start_server(port)
        wait_for(page, "document.getElementById('conn').textContent === 'connected'", timeout=20000)
        figures["reconnect_s"] = round(time.time() - t, 1)
        check(page.locator("#error").is_hidden(), "the error goes with the reconnection")
        # The new session has no games in its explorer: the page says so.
        info = explorer_info(page)
        lost = "the connection was lost, and the explorer's games with it: add the files again"
        check(info == lost, f"the explorer after the reconnection: {info!r}")
        check(page.evaluate(TREE) == before, f"after the reconnection {page.evaluate(TREE)} != {before}")
        # The new session has the game: analysis of the position shown...
        page.evaluate("window.turncoat.state.analysis = null")
        wait_for(
            page,
            "window.turncoat.state.analysis && window.turncoat.state.analysis.fen === window.turncoat.state.info.fen"
            " && window.turncoat.state.analysis.lines.length > 0",
            timeout=20000,
        )
        analysing(page, False)
        # ...and a move played from it.
        b.move("b1", "c3")
        b.wait_fen("rnbqkbnr/pp1ppppp/8/2p5/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 1 2", "a move after the reconnection")
    finally:
        page.close()
        server.kill()
        server.wait()


LINK_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
AFTER_3 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
AFTER_2 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


def ready(page):
    wait_for(page, "window.turncoat && window.turncoat.ready && window.turncoat.ready()", timeout=30000)


def shown(page):
    """The game the page shows: variant, start, moves of the line, ply, FEN."""
    return page.evaluate(
        """() => {
            const s = window.turncoat.state;
            let end = s.node;
            while (end.children.length) end = end.children[0];
            const moves = [];
            for (let n = end; n.parent; n = n.parent) moves.unshift(n.token);
            return { variant: s.variant, start: s.root.startFen, moves, ply: s.node.ply, fen: s.info.fen };
        }"""
    )


def test_link(b, browser):
    page = b.page
    b.set_variant("chess")
    check(page.evaluate("location.hash") == "#v=chess", f"new game's link {page.evaluate('location.hash')}")
    for a, c in [("e2", "e4"), ("e7", "e5"), ("g1", "f3")]:
        b.move(a, c)
    b.wait_fen(AFTER_3, "three moves")
    check(page.evaluate("location.hash") == "#v=chess&m=e2e4_e7e5_g1f3&p=3", f"link {page.evaluate('location.hash')}")
    page.keyboard.press("ArrowLeft")
    b.wait_fen(AFTER_2, "one back")
    link = page.evaluate("location.href")
    check(link.endswith("#v=chess&m=e2e4_e7e5_g1f3&p=2"), f"link after stepping back {link}")
    before = shown(page)
    # A reload restores the game and the ply shown.
    page.reload()
    ready(page)
    b.wait_fen(AFTER_2, "reloaded")
    check(shown(page) == before, f"after the reload {shown(page)} != {before}")
    check("Nf3" in page.inner_text("#moves"), "the restored moves are listed in SAN")
    # The link in a fresh page shows the same position.
    other = browser.new_page(viewport={"width": 1280, "height": 900})
    other.goto(link)
    ready(other)
    wait_for(other, "f => document.getElementById('fen').value === f", arg=AFTER_2, timeout=10000)
    check(shown(other) == before, f"shared link shows {shown(other)}")
    # Every variant's tokens survive the link, with a start FEN.
    for variant, fen, tokens in [
        ("subversion", "1r5k/8/2n5/3pb3/3N4/8/6PP/K7 w - - 0 1", ["@e5,g2"]),
        ("cruisepawns", "7r/P7/8/8/8/8/8/K6k w - - 0 1 -", ["a7*b6c5d5e5f6g7h8"]),
        ("cowardlycrew", "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1", ["d4e5,n"]),
        ("attendingpawns", "5r2/4P3/8/7k/8/8/8/K6N w - - 0 1 h1e7", ["e7e8q,d7"]),
        ("pacifist", "rkqn1rb1/ppppppbp/P7/1n4p1/8/4N3/1PPPPPPP/RNK1BBQR w - - 0 1", ["e3f5"]),
    ]:
        b.load(variant, fen)
        b.page.fill("#move", tokens[0])
        b.page.press("#move", "Enter")
        want = b.expected(variant, fen, tokens)
        try:
            wait_for(page, "f => document.getElementById('fen').value === f", arg=want, timeout=10000)
        except Exception:
            state = page.evaluate(
                "({hash: location.hash, error: document.getElementById('error').textContent,"
                " ply: window.turncoat.state.node.ply, move: document.getElementById('move').value,"
                " at_start: window.turncoat.state.node === window.turncoat.state.root})"
            )
            raise AssertionError(f"{variant} {tokens[0]} typed: fen {b.fen()!r}, expected {want!r}; page {state}")
        link = page.evaluate("location.href")
        check("&fen=" in link and "_" in link.split("&fen=")[1], f"{variant}: the start FEN is in the link {link}")
        other.goto("about:blank")
        other.goto(link)
        ready(other)
        wait_for(other, "f => document.getElementById('fen').value === f", arg=want, timeout=10000)
        got = shown(other)
        check(got["variant"] == variant and got["moves"] == tokens and got["start"] == fen, f"{variant} link: {got}")
    # An illegal move: the moves before it are kept, and the page says where
    # it stopped.
    other.goto("about:blank")
    other.goto(URL + "#v=chess&m=e2e4_e7e5_e1e3_g1f3&p=4")
    ready(other)
    wait_for(other, "document.getElementById('error').textContent.includes('move 3')", timeout=10000)
    got = shown(other)
    check(got["moves"] == ["e2e4", "e7e5"] and got["fen"] == AFTER_2, f"legal part of an illegal link: {got}")
    check(other.evaluate("location.hash") == "#v=chess&m=e2e4_e7e5&p=2", "the address keeps the legal part")
    # A bad FEN: the variant's start position, and the reason.
    other.goto("about:blank")
    other.goto(URL + "#v=subversion&fen=not_a_fen&m=e2e4")
    ready(other)
    wait_for(other, "document.getElementById('error').textContent.includes('invalid FEN')", timeout=10000)
    got = shown(other)
    check(got["variant"] == "subversion" and got["fen"] == LINK_START and got["moves"] == [], f"bad FEN link: {got}")
    # An unknown variant.
    other.goto("about:blank")
    other.goto(URL + "#v=nosuchvariant&m=e2e4")
    ready(other)
    wait_for(other, "document.getElementById('error').textContent.includes('nosuchvariant')", timeout=10000)
    check(shown(other)["variant"] == "chess", "unknown variant: chess shown")
    other.close()


def main():
    os.makedirs(OUT, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # A context of its own: the storage step opens a second tab in it.
        page = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True).new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append("request failed: " + r.url))
        # Whatever the page's Content-Security-Policy blocks is an error.
        page.on(
            "console",
            lambda m: errors.append("console: " + m.text) if "Content Security Policy" in m.text else None,
        )
        t = time.time()
        response = page.goto(URL)
        csp = response.headers.get("content-security-policy", "")
        check("frame-ancestors 'none'" in csp and "default-src 'self'" in csp, f"page CSP {csp!r}")
        wait_for(page, "window.turncoat && window.turncoat.ready()", timeout=10000)
        figures["first_render_ms"] = page.evaluate("window.turncoat.timings.firstRender")
        figures["page_load_wall_ms"] = round((time.time() - t) * 1000)
        weight = page.evaluate(
            "performance.getEntriesByType('resource').reduce((s, r) => s + r.decodedBodySize, 0)"
            " + performance.getEntriesByType('navigation')[0].decodedBodySize"
        )
        figures["page_weight_bytes"] = weight
        check(weight < 1_000_000, f"page weight {weight}")
        check(figures["first_render_ms"] < 1000, f"first render {figures['first_render_ms']} ms")
        b = Board(page)
        steps = [
            ("variants", lambda: test_variants(b)),
            ("drag and drop", lambda: test_drag(b)),
            ("arrows and circles", lambda: test_shapes(b)),
            ("sounds", lambda: test_sounds(b)),
            ("layout", lambda: test_layout(browser)),
            ("typed and errors", lambda: test_typed_and_errors(b)),
            ("navigation", lambda: test_navigation(b)),
            ("analysis", lambda: test_analysis(b)),
            ("analysis readable", lambda: test_analysis_readable(b)),
            ("game analysis", lambda: test_game_analysis(b)),
            ("play", lambda: test_play(b)),
            ("end of play", lambda: test_play_end(b)),
            ("clocks", lambda: test_clocks(b)),
            ("editor", lambda: test_editor(b)),
            ("editor refusals", lambda: test_editor_refusals(b)),
            ("editor input", lambda: test_editor_input(b)),
            ("editor layout", lambda: test_editor_layout(browser)),
        ] + [(f"pgn {os.path.basename(x)}", (lambda x=x: test_pgn(b, x))) for x in PGNS]
        steps.append(("pgn as lichess writes it", lambda: test_pgn_tolerant(b)))
        steps.append(("link", lambda: test_link(b, browser)))
        if os.environ.get("TURNCOAT_LONG_GAME"):
            steps.append(("long game", lambda: test_long_game(b, os.environ["TURNCOAT_LONG_GAME"], browser)))
        steps.append(("explorer", lambda: test_explorer(b)))
        steps.append(("explorer parts", lambda: test_explorer_parts(b)))
        steps.append(("storage", lambda: test_storage(b)))
        steps.append(("reconnect", lambda: test_reconnect(browser)))
        steps.append(("too many tabs", lambda: test_too_many_tabs(b, browser)))
        if os.environ.get("TURNCOAT_MEASURE_GAME") and PGNS:
            steps.append(("measure game analysis", lambda: measure_game_analysis(b, PGNS[0])))
        failed = 0
        for name, fn in steps:
            try:
                fn()
                print(f"ok   {name}", flush=True)
            except Exception as e:  # report every step, fail at the end
                failed += 1
                print(f"FAIL {name}: {e}", flush=True)
                page.screenshot(path=os.path.join(OUT, f"failed-{name.replace(' ', '_')}.png"))
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
    print(f"{checks} checks, {failed} failed steps; screenshots in {OUT}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
