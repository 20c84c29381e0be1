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
    std::fs::write(&long, common::long_game_pgn(common::LONG_GAME_PLIES)).unwrap();

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
