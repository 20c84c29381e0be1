//! Shared checks for the reference data in `tests/data/` (copied from the
//! project's shared perft and rule-example files, so the repository stands alone).

#![allow(dead_code)]

use std::io::Write as _;

use serde_json::Value;
use turncoat::rules::fen;
use turncoat::rules::game;
use turncoat::rules::moves::MoveList;
use turncoat::rules::perft;
use turncoat::rules::position::Position;
use turncoat::rules::variants::Variant;

pub fn load<V: Variant>(fen_or_startpos: &str) -> Position<V> {
    if fen_or_startpos == "startpos" {
        Position::<V>::startpos()
    } else {
        fen::parse::<V>(fen_or_startpos)
            .unwrap_or_else(|e| panic!("reference FEN {fen_or_startpos} rejected: {e}"))
    }
}

/// A token list in the sorted order of `legal_tokens`.
pub fn sorted(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// The FEN after playing `token`, which must be legal in `pos`.
pub fn after_move<V: Variant>(pos: &Position<V>, token: &str) -> String {
    let mv = game::find_move(pos, token)
        .unwrap_or_else(|| panic!("{token} should be legal in {}", fen::format(pos)));
    let mut child = *pos;
    game::play(&mut child, mv);
    fen::format(&child)
}

/// Sorted legal tokens of a position.
pub fn legal_tokens<V: Variant>(pos: &Position<V>) -> Vec<String> {
    let mut moves = MoveList::new();
    V::legal_moves(pos, &mut moves);
    let mut tokens: Vec<String> = moves.iter().map(|&m| game::token(pos, m)).collect();
    tokens.sort();
    tokens
}

/// Every entry of a `<variant>_perft.json` whose depth is at most `max_depth`:
/// the total and the full divide must match, token for token.
pub fn check_perft_file<V: Variant>(json: &str, max_depth: u64) {
    let entries: Vec<Value> = serde_json::from_str(json).expect("valid perft JSON");
    let mut checked = 0;
    for e in entries {
        let depth = e["depth"].as_u64().expect("depth");
        if depth > max_depth {
            continue;
        }
        let fen_str = e["fen"].as_str().expect("fen");
        let pos = load::<V>(fen_str);
        let expected: std::collections::BTreeMap<String, u64> = e["divide"]
            .as_object()
            .expect("divide")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().expect("count")))
            .collect();
        let got: std::collections::BTreeMap<String, u64> =
            perft::divide(&pos, depth as u32, 1).into_iter().collect();
        if got != expected {
            let missing: Vec<_> = expected.keys().filter(|k| !got.contains_key(*k)).collect();
            let extra: Vec<_> = got.keys().filter(|k| !expected.contains_key(*k)).collect();
            let differ: Vec<_> = expected
                .iter()
                .filter(|(k, v)| got.get(*k).is_some_and(|g| g != *v))
                .map(|(k, v)| format!("{k}: expected {v}, got {}", got[k]))
                .collect();
            panic!(
                "{} perft({depth}) of {fen_str}: missing {missing:?}, extra {extra:?}, differ {differ:?}",
                V::NAME
            );
        }
        let total: u64 = got.values().sum();
        assert_eq!(
            total,
            e["nodes"].as_u64().expect("nodes"),
            "{fen_str} d{depth}"
        );
        assert_eq!(
            perft::perft(&pos, depth as u32),
            total,
            "{fen_str} d{depth} perft vs divide"
        );
        checked += 1;
    }
    assert!(checked > 0, "no perft entries checked");
}

/// An example's `moves` (tokens played from its FEN before its position), or
/// none.
pub fn example_moves(e: &Value) -> Vec<&str> {
    e.get("moves")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| t.as_str().expect("token"))
        .collect()
}

/// An example's position: its FEN, then its `moves` (tokens) if it has any,
/// played as in a game (a FEN alone is not always the same: docs/RULES.md,
/// "Andernach: en passant as Cutechess referees it").
pub fn example_position<V: Variant>(e: &Value) -> Position<V> {
    let fen_str = e["fen"].as_str().expect("fen");
    let mut pos = load::<V>(fen_str);
    for token in example_moves(e) {
        let mv = game::find_move(&pos, token)
            .unwrap_or_else(|| panic!("{token} should be legal in {}", fen::format(&pos)));
        game::play(&mut pos, mv);
    }
    pos
}

/// Every entry of a `<variant>_examples.json`: the FEN prints back exactly, the
/// legal token set is exact, and each `after` FEN is reproduced (after the
/// entry's `moves`, where it has them). Returns the parsed entries so variant
/// tests can check their own extra fields.
pub fn check_examples_file<V: Variant>(json: &str) -> Vec<Value> {
    let entries: Vec<Value> = serde_json::from_str(json).expect("valid examples JSON");
    for e in &entries {
        let rule = e["rule"].as_str().unwrap_or("?");
        let fen_str = e["fen"].as_str().expect("fen");
        let pos = load::<V>(fen_str);
        assert_eq!(fen::format(&pos), fen_str, "FEN round trip ({rule})");
        if let Some(input) = e.get("input_fen").and_then(Value::as_str) {
            let from_input = load::<V>(input);
            assert_eq!(
                fen::format(&from_input),
                fen_str,
                "input_fen loads to fen ({rule})"
            );
        }
        let pos = example_position::<V>(e);
        let fen_str = &fen::format(&pos);
        let tokens = legal_tokens(&pos);
        if let Some(legal) = e.get("legal").and_then(Value::as_array) {
            let expected: Vec<String> = legal
                .iter()
                .map(|t| t.as_str().expect("token").to_string())
                .collect();
            assert_eq!(tokens, expected, "legal moves of {fen_str} ({rule})");
        }
        if let Some(n) = e.get("legal_count").and_then(Value::as_u64) {
            assert_eq!(
                tokens.len() as u64,
                n,
                "legal move count of {fen_str} ({rule})"
            );
        }
        if let Some(after) = e.get("after").and_then(Value::as_object) {
            for (token, expected) in after {
                let mv = game::find_move(&pos, token)
                    .unwrap_or_else(|| panic!("{token} should be legal in {fen_str} ({rule})"));
                let mut child = pos;
                game::play(&mut child, mv);
                assert_eq!(
                    fen::format(&child),
                    expected.as_str().expect("after FEN"),
                    "after {token} in {fen_str} ({rule})"
                );
            }
        }
    }
    entries
}

/// Runs the `turncoat` binary with `args`: (success, stdout, stderr).
pub fn run_turncoat(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_turncoat"))
        .args(args)
        .output()
        .expect("binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The Playwright Python (`TURNCOAT_BROWSER_PYTHON`, set by `.ci/run`) and the
/// Chromium (`TURNCOAT_CHROMIUM`, else Debian's) that the browser tests drive;
/// `None` when one is missing, after [`skip_or_fail`] has said so for `test`.
pub fn browser_tools(test: &str) -> Option<(String, String)> {
    let Ok(python) = std::env::var("TURNCOAT_BROWSER_PYTHON") else {
        skip_or_fail(
            test,
            "TURNCOAT_BROWSER_PYTHON is not set (run .ci/run, which sets up Playwright)",
        );
        return None;
    };
    let chromium = std::env::var("TURNCOAT_CHROMIUM").unwrap_or("/usr/bin/chromium".into());
    if !std::path::Path::new(&python).exists() {
        skip_or_fail(test, &format!("no python at {python}"));
        return None;
    }
    if !std::path::Path::new(&chromium).exists() {
        skip_or_fail(test, &format!("no chromium at {chromium}"));
        return None;
    }
    Some((python, chromium))
}

/// Two games of `variant` at depth 2 written to `out` by `turncoat match` on
/// `engines.toml`: a PGN as the match runner writes it, for the boards' import.
pub fn match_pgn(variant: &str, out: &std::path::Path) {
    let cfg = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("engines.toml");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_turncoat"))
        .args(["match", "--config"])
        .arg(&cfg)
        .args(["--variant", variant, "--depth", "2", "--games", "2"])
        .args(["--concurrency", "1", "--pgn"])
        .arg(out)
        .env("RUST_LOG", "error")
        .output()
        .expect("run turncoat match");
    assert!(
        status.status.success(),
        "turncoat match failed: {}",
        String::from_utf8_lossy(&status.stderr)
    );
}

/// A test that needs something from outside the repository that it cannot find
/// (a program, a browser, a setting): under `CI=true` that is a failure
/// (`.ci/run` installs and sets them, so their absence means the setup broke);
/// elsewhere the test passes and says that it was skipped and why. The note is
/// written to the process's stderr itself, not through `eprintln!` (which the
/// test harness captures, showing it only for failing tests), so that a skip
/// shows in every `cargo test` run.
pub fn skip_or_fail(test: &str, why: &str) {
    let note = skip_note(std::env::var("CI").ok().as_deref(), test, why);
    let _ = writeln!(std::io::stderr(), "{note}");
}

/// Is GNU parallel there (the shard tests run shards through it)? When not,
/// says so through [`skip_or_fail`] and answers false. moreutils has a
/// `parallel` of its own, which takes other arguments.
pub fn gnu_parallel() -> bool {
    match std::process::Command::new("parallel")
        .arg("--version")
        .output()
    {
        Ok(out) if String::from_utf8_lossy(&out.stdout).contains("GNU parallel") => true,
        Ok(_) => {
            skip_or_fail(
                "GNU parallel test",
                "`parallel` is not GNU parallel: apt-get install parallel",
            );
            false
        }
        Err(e) => {
            skip_or_fail(
                "GNU parallel test",
                &format!("cannot run parallel ({e}): apt-get install parallel"),
            );
            false
        }
    }
}

/// What `skip_or_fail` does with `CI` set to `ci`: panics under CI (`true`, any
/// case), else hands back the line it prints.
pub fn skip_note(ci: Option<&str>, test: &str, why: &str) -> String {
    if ci.is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        panic!("{test} cannot run under CI: {why}");
    }
    format!("{test} skipped: {why}")
}

/// A xorshift64 generator from `seed` (non-zero): the tests' random walks,
/// reproducible without a dependency.
pub fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// A square token's rank mirrored (`e2` -> `e7`).
fn mirror_squares(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut prev_file = false;
    for c in field.chars() {
        if prev_file && ('1'..='8').contains(&c) {
            out.push((b'1' + b'8' - c as u8) as char);
        } else {
            out.push(c);
        }
        prev_file = ('a'..='h').contains(&c);
    }
    out
}

/// The colour-flipped FEN: board mirrored top to bottom, colours, side to move,
/// castling rights, en passant and the variant's 7th field (links, missile)
/// mirrored; clocks kept. For colour-symmetry tests.
pub fn flip_fen(fen_str: &str) -> String {
    let f: Vec<&str> = fen_str.split_whitespace().collect();
    let swap = |c: char| {
        if c.is_ascii_uppercase() {
            c.to_ascii_lowercase()
        } else {
            c.to_ascii_uppercase()
        }
    };
    let board: Vec<String> = f[0]
        .split('/')
        .rev()
        .map(|r| r.chars().map(swap).collect())
        .collect();
    let side = if f[1] == "w" { "b" } else { "w" };
    let mut castling: Vec<char> = f[2].chars().map(swap).collect();
    castling.sort_by_key(|c| "KQkq-".find(*c));
    let castling: String = castling.into_iter().collect();
    let mut out = format!(
        "{} {side} {castling} {} {} {}",
        board.join("/"),
        mirror_squares(f[3]),
        f[4],
        f[5]
    );
    if let Some(seventh) = f.get(6) {
        out.push(' ');
        out.push_str(&mirror_squares(seventh));
    }
    out
}

/// The legal tokens of `fen` in `variant`, in generation order.
pub fn legal_tokens_of(
    variant: turncoat::rules::variants::VariantKind,
    fen: &str,
) -> Result<Vec<String>, String> {
    turncoat::with_variant!(variant, V => {
        let pos = fen::parse::<V>(fen)?;
        let mut moves = MoveList::new();
        V::legal_moves(&pos, &mut moves);
        Ok(moves.iter().map(|&m| game::token(&pos, m)).collect())
    })
}

/// The scripted engine of the match runner's tests (`tests/support/fake_engine.rs`),
/// which `cargo test` builds as the example `fake-engine` next to the test
/// binaries (`target/<profile>/examples/`). A run of one test file alone
/// (`cargo test --test tournament`) does not build examples: build it first with
/// `cargo build --example fake-engine` (same profile).
pub fn fake_engine() -> String {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps/<test>");
    let name = format!("fake-engine{}", std::env::consts::EXE_SUFFIX);
    let path = profile_dir.join("examples").join(name);
    assert!(
        path.exists(),
        "{} is missing: run `cargo test` (which builds examples) or \
         `cargo build --example fake-engine` first",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

/// Plies of the long game: more than the 2000 moves one request carries.
pub const LONG_GAME_PLIES: usize = 2500;

/// A legal chess game of `plies` plies that no rule ends, as PGN: pieces
/// wander to positions not seen before, a pawn steps forward before the
/// fifty-move rule could end the game, nothing is captured and no move
/// checks.
pub fn long_game_pgn(plies: usize) -> String {
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
