//! A scripted UCI engine for the match runner's tests: the example `fake-engine`
//! (`cargo test` builds it beside the test binaries; it is not part of the
//! shipped `turncoat` binary). It plays legal moves (chosen from the position's key, so
//! games vary but repeat exactly) and misbehaves on request at its N-th move of
//! every game: an illegal move, a late move, a crash, or no answer at all. On
//! request it also logs the `go` commands it receives (what the runner told it,
//! for tests that check the clocks without timing them) and floods its stderr
//! with bytes that are not UTF-8.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Parser, ValueEnum};

use turncoat::rules::fen;
use turncoat::rules::game::{self, Game};
use turncoat::rules::moves::MoveList;
use turncoat::rules::position::Position;
use turncoat::rules::variants::{Variant, VariantKind};

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FakeMode {
    /// Always legal moves.
    Legal,
    /// An illegal move at move N.
    Illegal,
    /// Sleeps `--sleep-ms` before answering at move N.
    Slow,
    /// Exits (status 3) on receiving `go` at move N.
    Crash,
    /// Never answers `go` at move N (nor anything after).
    Hang,
    /// Does not answer `uci` at all.
    Silent,
    /// Declares no `UCI_Variant` option.
    NoVariant,
}

#[derive(Parser, Debug, Clone)]
#[command(name = "fake-engine")]
pub struct FakeEngineArgs {
    #[arg(long, value_enum, default_value = "legal")]
    pub mode: FakeMode,
    /// The engine's move number (in each game) at which it misbehaves.
    #[arg(long, default_value_t = 1)]
    pub at: u32,
    /// Sleep of the `slow` mode, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub sleep_ms: u64,
    /// The text the `illegal` mode sends after `bestmove` (default: a
    /// well-formed move that is not legal in the position).
    #[arg(long)]
    pub illegal_text: Option<String>,
    /// Appends every `go` command received, one a line, to this file.
    #[arg(long)]
    pub log_go: Option<PathBuf>,
    /// On every `go`, writes a Latin-1 line (a byte that is not UTF-8) and then
    /// this many KiB of log lines to stderr, before answering.
    #[arg(long, default_value_t = 0)]
    pub stderr_kib: usize,
    /// Score reported in `info` (centipawns, own point of view).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub score: i32,
    /// Milliseconds to wait before every `bestmove` (slow, well-behaved games).
    #[arg(long, default_value_t = 0)]
    pub delay_ms: u64,
    /// Answer `go` with `bestmove` alone, without an `info` line.
    #[arg(long)]
    pub no_info: bool,
}

/// The options the fake engine declares besides `UCI_Variant` (for the tests of
/// the runner's option checks): a spin, a check and a combo.
pub const FAKE_OPTIONS: [&str; 3] = [
    "option name Hash type spin default 16 min 1 max 1024",
    "option name VariantEval type check default true",
    "option name Style type combo default Normal var Solid var Normal var Risky",
];

/// Runs the fake engine on stdin/stdout until `quit` or end of input.
pub fn run(args: FakeEngineArgs) -> Result<(), String> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut variant = VariantKind::Chess;
    let mut position = String::from("position startpos");
    let mut moves_this_game = 0u32;
    let mut hanging = false;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let line = line.trim();
        if hanging {
            if line == "quit" {
                break;
            }
            continue;
        }
        let reply: Vec<String> = match line.split_whitespace().next().unwrap_or("") {
            "uci" => {
                if args.mode == FakeMode::Silent {
                    continue;
                }
                let mut r = vec![
                    format!("id name Fake ({:?})", args.mode),
                    "id author tests".into(),
                ];
                if args.mode != FakeMode::NoVariant {
                    let vars: Vec<String> = VariantKind::ALL
                        .iter()
                        .map(|v| format!("var {}", v.name()))
                        .collect();
                    r.push(format!(
                        "option name UCI_Variant type combo default chess {}",
                        vars.join(" ")
                    ));
                }
                r.extend(FAKE_OPTIONS.iter().map(|o| o.to_string()));
                r.push("uciok".into());
                r
            }
            "isready" => vec!["readyok".into()],
            "setoption" => {
                if let Some(v) = line.strip_prefix("setoption name UCI_Variant value ") {
                    if let Ok(k) = v.trim().parse::<VariantKind>() {
                        variant = k;
                    }
                }
                continue;
            }
            "ucinewgame" => {
                moves_this_game = 0;
                continue;
            }
            "position" => {
                position = line.to_string();
                continue;
            }
            "go" => {
                if let Some(path) = &args.log_go {
                    log_line(path, line)?;
                }
                if args.stderr_kib > 0 {
                    flood_stderr(args.stderr_kib)?;
                }
                moves_this_game += 1;
                let misbehave = moves_this_game == args.at;
                match (args.mode, misbehave) {
                    (FakeMode::Crash, true) => std::process::exit(3),
                    (FakeMode::Hang, true) => {
                        hanging = true;
                        continue;
                    }
                    (FakeMode::Slow, true) => {
                        std::thread::sleep(Duration::from_millis(args.sleep_ms))
                    }
                    _ => {}
                }
                if args.delay_ms > 0 {
                    std::thread::sleep(Duration::from_millis(args.delay_ms));
                }
                let illegal = args.mode == FakeMode::Illegal && misbehave;
                let mv = match (&args.illegal_text, illegal) {
                    (Some(text), true) => text.clone(),
                    _ => turncoat::with_variant!(variant, V => choose::<V>(&position, illegal)),
                };
                let mut r = Vec::new();
                if !args.no_info {
                    r.push(format!("info depth 1 score cp {} nodes 1", args.score));
                }
                r.push(format!("bestmove {mv}"));
                r
            }
            "quit" => break,
            _ => continue,
        };
        for r in reply {
            writeln!(out, "{r}").map_err(|e| format!("fake engine: {e}"))?;
        }
        out.flush().map_err(|e| format!("fake engine: {e}"))?;
    }
    Ok(())
}

/// Replays a `position` command.
fn replay<V: Variant>(position: &str) -> Game<V> {
    let mut words = position.split_whitespace().skip(1);
    let start = match words.next() {
        Some("fen") => {
            let fen_words: Vec<&str> = words.by_ref().take_while(|w| *w != "moves").collect();
            fen::parse::<V>(&fen_words.join(" ")).unwrap_or_else(|_| Position::<V>::startpos())
        }
        _ => {
            // Skip the "moves" keyword after startpos.
            let _ = words.next();
            Position::<V>::startpos()
        }
    };
    let mut g = Game::new(start);
    for t in words {
        if g.play_token(t).is_err() {
            break;
        }
    }
    g
}

/// Appends `line` to the file at `path`.
fn log_line(path: &Path, line: &str) -> Result<(), String> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("fake engine: cannot open {}: {e}", path.display()))?;
    writeln!(f, "{line}").map_err(|e| format!("fake engine: {e}"))
}

/// A log line in Latin-1 (`é` as the single byte 0xE9, which is not UTF-8),
/// then `kib` KiB of ASCII log lines: more than a pipe holds (64 KiB on Linux)
/// after a few moves, so a runner that stops reading at the bad byte blocks this
/// engine in `write`.
fn flood_stderr(kib: usize) -> Result<(), String> {
    let mut err = std::io::stderr().lock();
    let fail = |e: std::io::Error| format!("fake engine: stderr: {e}");
    err.write_all(b"log: caf\xe9 au lait\n").map_err(fail)?;
    let line = [b'.'; 63];
    for _ in 0..kib * 16 {
        err.write_all(&line).map_err(fail)?;
        err.write_all(b"\n").map_err(fail)?;
    }
    err.flush().map_err(fail)
}

/// Picks a move for a `position` command (or an illegal one).
fn choose<V: Variant>(position: &str, illegal: bool) -> String {
    let g = replay::<V>(position);
    let mut moves = MoveList::new();
    V::legal_moves(&g.pos, &mut moves);
    let tokens: Vec<String> = moves.iter().map(|&m| game::token(&g.pos, m)).collect();
    if illegal {
        // A well-formed move that is not legal here.
        for cand in ["a1a8", "h1h8", "e2e5", "a8a1", "h8h1", "e7e4", "d1d8"] {
            if !tokens.iter().any(|t| t == cand) {
                return cand.to_string();
            }
        }
        return "a1h8".to_string();
    }
    if tokens.is_empty() {
        return "0000".to_string();
    }
    tokens[(g.pos.key() % tokens.len() as u64) as usize].clone()
}

fn main() -> std::process::ExitCode {
    match run(FakeEngineArgs::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
