//! The UCI front end (Stockfish conventions). stdout carries the protocol and
//! nothing else; diagnostics go through `log` to stderr. Bad input is answered
//! with `info string error: ...` and never changes the engine's state.
//!
//! The position is kept as (variant, FEN, move tokens) and re-materialised for the
//! variant at each use, so the front end itself is not generic.

pub mod options;

use std::io::{self, BufRead, Write};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::engine::policy::Policy;
use crate::engine::search::tt::{Bound, TranspositionTable};
use crate::engine::search::{self, HistoryStore, Info, Limits, Score, Shared};
use crate::engine::{eval, nnue};
use crate::rules::fen;
use crate::rules::game::Game;
use crate::rules::perft;
use crate::rules::position::Position;
use crate::rules::variants::{Variant, VariantKind};
use crate::with_variant;

use options::{Effect, EngineOptions};

pub const ENGINE_NAME: &str = concat!("Turncoat ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the Turncoat developers";

/// Writes one protocol line to stdout and flushes it (GUIs read line by line).
pub fn send(line: &str) {
    let mut out = io::stdout().lock();
    // A closed stdout (the GUI went away) is not worth a panic.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn error(msg: &str) {
    log::warn!("{msg}");
    send(&format!("info string error: {msg}"));
}

/// The position as the GUI set it.
#[derive(Clone, Debug)]
struct PositionSpec {
    variant: VariantKind,
    /// `None` = the variant's start position.
    fen: Option<String>,
    moves: Vec<String>,
}

impl PositionSpec {
    fn startpos(variant: VariantKind) -> Self {
        PositionSpec {
            variant,
            fen: None,
            moves: Vec::new(),
        }
    }

    /// Builds the game, checking the FEN and every move.
    fn game<V: Variant>(&self) -> Result<Game<V>, String> {
        let start = match &self.fen {
            None => Position::<V>::startpos(),
            Some(f) => fen::parse::<V>(f).map_err(|e| format!("invalid FEN '{f}': {e}"))?,
        };
        let mut game = Game::new(start);
        for token in &self.moves {
            game.play_token(token)?;
        }
        Ok(game)
    }

    fn check(&self) -> Result<(), String> {
        with_variant!(self.variant, V => self.game::<V>().map(|_| ()))
    }
}

struct RunningSearch {
    shared: Arc<Shared>,
    handle: JoinHandle<()>,
}

pub struct Engine {
    options: EngineOptions,
    position: PositionSpec,
    position_given: bool,
    tt: Arc<TranspositionTable>,
    /// Move-ordering statistics kept between the searches of one game.
    history: Arc<HistoryStore>,
    search: Option<RunningSearch>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    pub fn new() -> Self {
        let options = EngineOptions::default();
        Engine {
            tt: Arc::new(TranspositionTable::new(options.hash_mb)),
            position: PositionSpec::startpos(options.variant),
            position_given: false,
            options,
            history: Arc::default(),
            search: None,
        }
    }

    /// Reads commands from stdin until `quit` or end of input.
    pub fn run(&mut self) {
        let stdin = io::stdin();
        let mut line = String::new();
        loop {
            line.clear();
            match stdin.lock().read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    // Not UTF-8 or unreadable: report and go on.
                    error(&format!("unreadable input line: {e}"));
                    continue;
                }
            }
            if !self.handle(line.trim()) {
                break;
            }
        }
        self.stop_search();
    }

    /// Handles one command line; returns false on `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        log::debug!("<< {line}");
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = tokens.split_first() else {
            return true;
        };
        self.reap_finished_search();
        match cmd {
            "uci" => {
                send(&format!("id name {ENGINE_NAME}"));
                send(&format!("id author {ENGINE_AUTHOR}"));
                for decl in options::declarations() {
                    send(&decl);
                }
                send("uciok");
            }
            "isready" => send("readyok"),
            "ucinewgame" => {
                self.stop_search();
                self.tt.clear();
                self.history.clear();
                self.position = PositionSpec::startpos(self.options.variant);
            }
            "setoption" => self.setoption(args),
            "position" => self.position(args),
            "go" => self.go(args),
            "stop" => self.stop_search(),
            "ponderhit" => {
                if let Some(s) = &self.search {
                    s.shared.pondering.store(false, Ordering::Relaxed);
                }
            }
            "quit" => {
                self.stop_search();
                return false;
            }
            "d" => self.display(),
            "eval" => self.static_eval(),
            "perft" => self.perft(args),
            _ => error(&format!("unknown command '{line}'")),
        }
        true
    }

    fn searching(&self) -> bool {
        self.search.is_some()
    }

    fn reap_finished_search(&mut self) {
        if self
            .search
            .as_ref()
            .is_some_and(|s| s.shared.finished.load(Ordering::Acquire) || s.handle.is_finished())
        {
            self.stop_search();
        }
    }

    /// Stops a running search and waits for its `bestmove`.
    fn stop_search(&mut self) {
        if let Some(s) = self.search.take() {
            s.shared.pondering.store(false, Ordering::Relaxed);
            s.shared.stop.store(true, Ordering::Relaxed);
            if s.handle.join().is_err() {
                log::error!("search thread panicked");
            }
        }
    }

    /// Options (like the position) may change during a search: the running search
    /// keeps its own copies, the change applies to the next `go`.
    fn setoption(&mut self, args: &[&str]) {
        let (name, value) = match options::split_setoption(args) {
            Ok(nv) => nv,
            Err(e) => return error(&e),
        };
        match self.options.set(&name, value.as_deref()) {
            Ok(Effect::None) => {}
            Ok(Effect::ResizeHash) => match TranspositionTable::try_new(self.options.hash_mb) {
                Ok(tt) => self.tt = Arc::new(tt),
                Err(e) => {
                    self.options.hash_mb = self.tt.megabytes();
                    error(&e);
                }
            },
            Ok(Effect::ClearHash) => {
                self.tt.clear();
                self.history.clear();
            }
            Ok(Effect::VariantChanged) => {
                self.position = PositionSpec::startpos(self.options.variant);
                self.tt.clear();
                self.history.clear();
            }
            Err(e) => error(&e),
        }
    }

    fn position(&mut self, args: &[&str]) {
        let moves_at = args.iter().position(|&t| t == "moves");
        let setup = &args[..moves_at.unwrap_or(args.len())];
        let fen = match setup.split_first() {
            Some((&"startpos", [])) => None,
            Some((&"fen", rest)) if !rest.is_empty() => Some(rest.join(" ")),
            _ => {
                return error(
                    "position expects 'startpos' or 'fen <FEN>', then optional 'moves ...'",
                )
            }
        };
        let spec = PositionSpec {
            variant: self.options.variant,
            fen,
            moves: moves_at
                .map(|i| args[i + 1..].iter().map(|s| s.to_string()).collect())
                .unwrap_or_default(),
        };
        match spec.check() {
            Ok(()) => {
                self.position = spec;
                self.position_given = true;
            }
            Err(e) => error(&e),
        }
    }

    fn display(&self) {
        let text = with_variant!(self.position.variant, V => {
            match self.position.game::<V>() {
                Ok(game) => {
                    let pos = &game.pos;
                    let mut s = fen::diagram(pos);
                    s.push_str(&format!("\nVariant: {}\nFen: {}\nKey: {:016X}\nCheckers:",
                        V::NAME, fen::format(pos), pos.key()));
                    for sq in pos.checkers() {
                        s.push_str(&format!(" {sq}"));
                    }
                    Ok(s)
                }
                Err(e) => Err(e),
            }
        });
        match text {
            Ok(t) => {
                for line in t.lines() {
                    send(line);
                }
            }
            Err(e) => error(&e),
        }
    }

    /// `eval` (as Stockfish): the static evaluations of the current position,
    /// White's view, in pawns: the hand-written one and, where the variant has
    /// one, the network's.
    fn static_eval(&self) {
        let text = with_variant!(self.position.variant, V => {
            self.position.game::<V>().map(|game| {
                let pos = &game.pos;
                let white = |s: i32| if pos.turn() == shakmaty::Color::White { s } else { -s };
                let mut s = format!(
                    "Hand-written evaluation {:+.2} (white side)",
                    white(eval::evaluate(pos, self.options.variant_eval)) as f64 / 100.0
                );
                if V::NNUE {
                    let net = nnue::Network::shipped();
                    let score = net.evaluate_board(&nnue::piece_boards(pos), pos.turn());
                    s.push_str(&format!(
                        "\nNNUE evaluation {:+.2} (white side)",
                        white(score) as f64 / 100.0
                    ));
                }
                s
            })
        });
        match text {
            Ok(t) => t.lines().for_each(send),
            Err(e) => error(&e),
        }
    }

    fn perft(&self, args: &[&str]) {
        let depth = match args.first().map(|d| d.parse::<u32>()) {
            Some(Ok(d)) if (1..=20).contains(&d) => d,
            _ => return error("perft expects a depth between 1 and 20"),
        };
        if self.searching() {
            return error("cannot run perft while searching");
        }
        let threads = self.options.threads;
        let result = with_variant!(self.position.variant, V => {
            self.position.game::<V>().map(|game| perft::divide(&game.pos, depth, threads))
        });
        match result {
            Ok(lines) => {
                let mut total = 0;
                for (token, n) in lines {
                    send(&format!("{token}: {n}"));
                    total += n;
                }
                send("");
                send(&format!("Nodes searched: {total}"));
            }
            Err(e) => error(&e),
        }
    }

    fn go(&mut self, args: &[&str]) {
        if let Some(&"perft") = args.first() {
            return self.perft(&args[1..]);
        }
        if self.searching() {
            return error("a search is already running (send 'stop' first)");
        }
        let limits = parse_go(args);
        if !self.position_given {
            error("go before any position command: searching the start position");
        }
        let spec = self.position.clone();
        let options = search::Options {
            threads: self.options.threads,
            multipv: self.options.multipv,
            move_overhead: self.options.move_overhead,
            variant_eval: self.options.variant_eval,
            use_nnue: self.options.use_nnue,
        };
        let shared = Arc::new(Shared::with_history(
            Arc::clone(&self.tt),
            Arc::clone(&self.history),
        ));
        shared.pondering.store(limits.ponder, Ordering::Relaxed);
        let thread_shared = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 * 1024 * 1024)
            .spawn(move || {
                with_variant!(spec.variant, V => run_search::<V>(&spec, &limits, &options, &thread_shared))
            });
        match handle {
            Ok(handle) => self.search = Some(RunningSearch { shared, handle }),
            Err(e) => error(&format!("could not start the search thread: {e}")),
        }
    }
}

fn run_search<V: Policy>(
    spec: &PositionSpec,
    limits: &Limits,
    options: &search::Options,
    shared: &Shared,
) {
    let game = match spec.game::<V>() {
        Ok(g) => g,
        Err(e) => {
            error(&e);
            shared.finished.store(true, Ordering::Release);
            send("bestmove 0000");
            return;
        }
    };
    let history = &game.keys[..game.keys.len() - 1];
    let result = search::search(&game.pos, history, limits, options, shared, &mut |info| {
        send(&info_line(&info));
    });
    shared.finished.store(true, Ordering::Release);
    match (result.best, result.ponder) {
        (Some(best), Some(ponder)) => send(&format!("bestmove {best} ponder {ponder}")),
        (Some(best), None) => send(&format!("bestmove {best}")),
        (None, _) => send("bestmove 0000"),
    }
}

/// Formats an `info` line the way GUIs expect it.
pub fn info_line(info: &Info) -> String {
    let score = match info.score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    let bound = match info.bound {
        Some(Bound::Lower) => " lowerbound",
        Some(Bound::Upper) => " upperbound",
        _ => "",
    };
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {score}{bound} nodes {} nps {} hashfull {} time {}",
        info.depth, info.seldepth, info.multipv, info.nodes, info.nps, info.hashfull, info.time_ms
    );
    if !info.pv.is_empty() {
        s.push_str(" pv ");
        s.push_str(&info.pv.join(" "));
    }
    s
}

/// Parses `go` arguments; unparsable values are reported and ignored.
pub fn parse_go(args: &[&str]) -> Limits {
    let mut limits = Limits::default();
    let mut i = 0;
    let number = |i: usize, name: &str| -> Option<u64> {
        match args.get(i + 1).map(|v| v.parse::<i64>()) {
            // Some GUIs send negative clock times when flagging; treat as 0.
            Some(Ok(n)) => Some(n.max(0) as u64),
            _ => {
                error(&format!("go {name} needs a number"));
                None
            }
        }
    };
    while i < args.len() {
        let name = args[i];
        match name {
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => {
                const KEYWORDS: &[&str] = &[
                    "depth",
                    "nodes",
                    "movetime",
                    "wtime",
                    "btime",
                    "winc",
                    "binc",
                    "movestogo",
                    "mate",
                    "infinite",
                    "ponder",
                ];
                while i + 1 < args.len() && !KEYWORDS.contains(&args[i + 1]) {
                    limits.searchmoves.push(args[i + 1].to_string());
                    i += 1;
                }
            }
            "depth" | "nodes" | "movetime" | "wtime" | "btime" | "winc" | "binc" | "movestogo"
            | "mate" => {
                let v = number(i, name);
                i += 1;
                match (name, v) {
                    (_, None) => {}
                    ("depth", Some(v)) => limits.depth = Some(v.min(1000) as u32),
                    ("nodes", Some(v)) => limits.nodes = Some(v),
                    ("movetime", Some(v)) => limits.movetime = Some(v),
                    ("wtime", Some(v)) => limits.wtime = Some(v),
                    ("btime", Some(v)) => limits.btime = Some(v),
                    ("winc", Some(v)) => limits.winc = Some(v),
                    ("binc", Some(v)) => limits.binc = Some(v),
                    ("movestogo", Some(v)) => limits.movestogo = Some(v.min(1000) as u32),
                    (_, Some(v)) => limits.mate = Some(v.min(500) as u32),
                }
            }
            other => error(&format!("unknown go parameter '{other}'")),
        }
        i += 1;
    }
    limits
}

/// Re-exported for the match runner and tests: legal tokens of a spec'd position.
pub fn legal_tokens(variant: VariantKind, fen: &str) -> Result<Vec<String>, String> {
    with_variant!(variant, V => {
        let pos = fen::parse::<V>(fen)?;
        let mut moves = Vec::new();
        V::legal_moves(&pos, &mut moves);
        Ok(moves.iter().map(|&m| crate::rules::game::token(&pos, m)).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_parsing() {
        let l = parse_go(&[
            "wtime",
            "1000",
            "btime",
            "-5",
            "winc",
            "10",
            "searchmoves",
            "e2e4",
            "d2d4",
            "depth",
            "3",
        ]);
        assert_eq!(l.wtime, Some(1000));
        assert_eq!(l.btime, Some(0));
        assert_eq!(l.winc, Some(10));
        assert_eq!(l.depth, Some(3));
        assert_eq!(l.searchmoves, vec!["e2e4", "d2d4"]);
    }
}
