//! The UCI front end (Stockfish conventions). stdout carries the protocol and
//! nothing else; diagnostics go through `log` to stderr. Bad input is answered
//! with `info string error: ...` and never changes the engine's state.
//!
//! The position is kept as (variant, FEN, move tokens) and re-materialised for the
//! variant at each use, so the front end itself is not generic.

pub mod options;

use std::io::{self, BufRead, Write};

use crate::engine::search::tt::Bound;
use crate::engine::search::{self, Info, Limits, Score};
use crate::engine::session::static_eval;
use crate::engine::{Engine, Event};
use crate::rules::fen;
use crate::rules::game::Setup;
use crate::rules::variants::Variant;
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

pub struct Uci {
    options: EngineOptions,
    position: Setup,
    position_given: bool,
    engine: Engine,
}

impl Default for Uci {
    fn default() -> Self {
        Self::new()
    }
}

impl Uci {
    pub fn new() -> Self {
        let options = EngineOptions::default();
        Uci {
            engine: Engine::new(options.hash_mb),
            position: Setup::startpos(options.variant),
            position_given: false,
            options,
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
        self.engine.stop();
    }

    /// Handles one command line; returns false on `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        log::debug!("<< {line}");
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = tokens.split_first() else {
            return true;
        };
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
                self.engine.clear();
                self.position = Setup::startpos(self.options.variant);
            }
            "setoption" => self.setoption(args),
            "position" => self.position(args),
            "go" => self.go(args),
            "stop" => self.engine.stop(),
            "ponderhit" => self.engine.ponderhit(),
            "quit" => {
                self.engine.stop();
                return false;
            }
            "d" => self.display(),
            "eval" => self.static_eval(),
            "perft" => self.perft(args),
            _ => error(&format!("unknown command '{line}'")),
        }
        true
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
            Ok(Effect::ResizeHash) => {
                if let Err(e) = self.engine.set_hash(self.options.hash_mb) {
                    self.options.hash_mb = self.engine.hash_mb();
                    error(&e);
                }
            }
            Ok(Effect::ClearHash) => self.engine.clear(),
            Ok(Effect::VariantChanged) => {
                self.position = Setup::startpos(self.options.variant);
                self.engine.clear();
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
        let spec = Setup {
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
                    // Attending Pawns' links, Cruise Pawns' missile in flight.
                    if let Some(state) = V::format_state(pos) {
                        s.push_str(&format!("\n{}: {state}", V::STATE_NAME));
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
        match static_eval(&self.position, self.options.variant_eval) {
            Ok(e) => {
                send(&format!(
                    "Hand-written evaluation {:+.2} (white side)",
                    e.hand_written as f64 / 100.0
                ));
                if let Some(n) = e.network {
                    send(&format!(
                        "NNUE evaluation {:+.2} (white side)",
                        n as f64 / 100.0
                    ));
                }
            }
            Err(e) => error(&e),
        }
    }

    /// `go perft N` (and `perft N`): counts on the search thread, so `stop`,
    /// `isready` and `quit` are answered meanwhile.
    fn perft(&mut self, args: &[&str]) {
        let depth = match args.first().map(|d| d.parse::<u32>()) {
            Some(Ok(d)) if (1..=20).contains(&d) => d,
            _ => return error("perft expects a depth between 1 and 20"),
        };
        let started =
            self.engine.perft(
                &self.position,
                depth,
                self.options.threads,
                |event| match event {
                    Event::PerftMove { token, nodes } => send(&format!("{token}: {nodes}")),
                    Event::PerftDone { total: Some(total) } => {
                        send("");
                        send(&format!("Nodes searched: {total}"));
                    }
                    Event::PerftDone { total: None } => send("info string perft stopped"),
                    Event::Error(e) => error(&e),
                    Event::Info(_) | Event::BestMove { .. } => {}
                },
            );
        if let Err(e) = started {
            error(&e);
        }
    }

    fn go(&mut self, args: &[&str]) {
        if let Some(&"perft") = args.first() {
            return self.perft(&args[1..]);
        }
        let limits = parse_go(args);
        if !self.position_given {
            error("go before any position command: searching the start position");
        }
        let options = search::Options {
            threads: self.options.threads,
            multipv: self.options.multipv,
            move_overhead: self.options.move_overhead,
            variant_eval: self.options.variant_eval,
            use_nnue: self.options.use_nnue,
        };
        let started = self
            .engine
            .go(&self.position, limits, options, |event| match event {
                Event::Info(info) => send(&info_line(&info)),
                Event::BestMove { best, ponder } => send(&bestmove_line(best, ponder)),
                Event::Error(e) => error(&e),
                Event::PerftMove { .. } | Event::PerftDone { .. } => {}
            });
        if let Err(e) = started {
            error(&e);
        }
    }
}

/// Formats the `bestmove` line (`0000` when there is no move to play).
pub fn bestmove_line(best: Option<String>, ponder: Option<String>) -> String {
    match (best, ponder) {
        (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
        (Some(best), None) => format!("bestmove {best}"),
        (None, _) => "bestmove 0000".to_string(),
    }
}

/// Formats an `info` line the way GUIs expect it.
pub fn info_line(info: &Info) -> String {
    if let Some((mv, number)) = &info.currmove {
        return format!(
            "info depth {} seldepth {} currmove {mv} currmovenumber {number} nodes {} nps {} hashfull {} time {}",
            info.depth, info.seldepth, info.nodes, info.nps, info.hashfull, info.time_ms
        );
    }
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
