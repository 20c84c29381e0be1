//! The analysis scripts under scripts/ that need no packages, run on fixtures
//! whose figures are worked out by hand.
//!
//! Uses `TURNCOAT_BROWSER_PYTHON` if set (as `.ci/run` sets it), else `python3`.
//! Without a Python the test prints why and passes, except under `CI=true`.

mod common;

use std::path::Path;
use std::process::Command;

/// `scripts/clock_use.py` on one game from move 9 (1+0.1): A (White) spends
/// 0.1, 0.3, 0.4 s, B 0.2, 0.05, 0.15 s. A's second comment is wrapped across
/// two lines (the PGN writer does that), which the script once skipped,
/// handing every later time to the other side. A loses, and its score first
/// reads -1.00 or worse on move 10.
#[test]
fn clock_use_reads_wrapped_comments_and_move_numbers() {
    let python = std::env::var("TURNCOAT_BROWSER_PYTHON").unwrap_or_else(|_| "python3".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = match Command::new(&python)
        .arg(root.join("scripts/clock_use.py"))
        .arg(root.join("tests/data/scripts/clock_use.pgn"))
        .args(["--base", "1", "--inc", "0.1"])
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            return common::skip_or_fail("clock_use.py test", &format!("cannot run {python}: {e}"));
        }
    };
    assert!(
        out.status.success(),
        "clock_use.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = "\
A: 0.267 s a move over its first 30 moves
  games of 0-39 moves: 1, clock left at the end 0.50 s
  s a move by move number: 0-9: 0.100, 10-19: 0.350
  lost 1; its score first -1.00 or below in moves 10-19: 1
B: 0.133 s a move over its first 30 moves
  games of 0-39 moves: 1, clock left at the end 0.90 s
  s a move by move number: 0-9: 0.200, 10-19: 0.100
";
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
}
