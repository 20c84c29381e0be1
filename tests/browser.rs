//! The web board in a real browser: starts `turncoat serve` in-process, writes
//! PGN files with `turncoat match`, and runs tests/browser/test_board.py
//! (Playwright for Python driving headless Chromium), which clicks moves in
//! every variant and saves screenshots under target/tmp/browser/. The
//! reconnection step runs `turncoat serve` (this build's binary) as a process
//! of its own, to kill it and start it again.
//!
//! Needs `TURNCOAT_BROWSER_PYTHON`, a Python with the `playwright` package (as
//! `.ci/run` sets it up), and /usr/bin/chromium (or `TURNCOAT_CHROMIUM`).
//! Without them the test prints why and passes, except under `CI=true`, where a
//! missing browser is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

#[test]
fn web_board_in_chromium() {
    let Some((python, chromium)) = common::browser_tools("browser test") else {
        return;
    };
    let out: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&out).unwrap();
    // Games written by the match runner: SAN (chess) and tokens (a variant).
    let pgns = [
        out.join("match-chess.pgn"),
        out.join("match-subversion.pgn"),
    ];
    common::match_pgn("chess", &pgns[0]);
    common::match_pgn("subversion", &pgns[1]);
    // A game longer than one position request carries (the board asks
    // from a FEN it has seen).
    let long = out.join("long-chess.pgn");
    std::fs::write(&long, long_game_pgn(LONG_GAME_PLIES)).unwrap();

    let addr = turncoat::serve::spawn("127.0.0.1", 0).expect("server starts");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/test_board.py");
    let result = Command::new(&python)
        .arg(&script)
        .arg(format!("http://{addr}/"))
        .arg(&out)
        .args(&pgns)
        .env("TURNCOAT_CHROMIUM", &chromium)
        // The reconnection step kills and restarts a server of its own.
        .env("TURNCOAT_BIN", env!("CARGO_BIN_EXE_turncoat"))
        .env("TURNCOAT_LONG_GAME", &long)
        .output()
        .expect("run the browser test");
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        result.status.success(),
        "browser test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("0 failed steps"), "{stdout}");
}

/// Plies of the long game: more than the 2000 moves one request carries.
const LONG_GAME_PLIES: usize = 2500;

/// A legal chess game of `plies` plies that no rule ends, as PGN: pieces
/// wander to positions not seen before, a pawn steps forward before the
/// fifty-move rule could end the game, nothing is captured and no move
/// checks.
fn long_game_pgn(plies: usize) -> String {
    use shakmaty::Role;
    use std::collections::HashSet;
    use turncoat::rules::fen;
    use turncoat::rules::game::{self, Game};
    use turncoat::rules::moves::MoveList;
    use turncoat::rules::notation::Notation;
    use turncoat::rules::pgn;
    use turncoat::rules::position::Position;
    use turncoat::rules::variants::chess::Chess;
    use turncoat::rules::variants::{Variant, VariantKind};

    let start: Position<Chess> = fen::parse(VariantKind::Chess.start_fen()).unwrap();
    let mut g = Game::new(start);
    let mut seen = HashSet::from([g.pos.key()]);
    let mut tokens = Vec::new();
    while tokens.len() < plies {
        let mut list = MoveList::new();
        Chess::legal_moves(&g.pos, &mut list);
        // A pawn step when the fifty-move rule comes near, else a piece.
        let pawn_due = g.pos.halfmoves() >= 90;
        let next = list.iter().copied().find(|&mv| {
            let pawn = g.pos.role_at(mv.from) == Some(Role::Pawn);
            let capture =
                g.pos.occupied().contains(mv.to) || pawn && mv.from.file() != mv.to.file();
            let mut after = g.pos;
            game::play(&mut after, mv);
            pawn == pawn_due && !capture && !Chess::in_check(&after) && !seen.contains(&after.key())
        });
        let mv =
            next.unwrap_or_else(|| panic!("no move to go on with after {} plies", tokens.len()));
        tokens.push(game::token(&g.pos, mv));
        g.play(mv);
        seen.insert(g.pos.key());
        assert!(
            g.outcome().is_none(),
            "the game ended after {} plies",
            tokens.len()
        );
    }
    let record = pgn::PgnRecord {
        variant: VariantKind::Chess,
        start_fen: VariantKind::Chess.start_fen(),
        event: "long",
        site: "-",
        date: "2026.01.01",
        round: "-",
        white: "w",
        black: "b",
        result: "*",
        tags: Vec::new(),
        moves: tokens.iter().map(|t| (t.as_str(), None)).collect(),
        final_comment: None,
        notation: Notation::Readable,
    };
    pgn::write_game(&record).text
}
