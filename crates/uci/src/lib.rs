//! The UCI front end (Stockfish conventions). stdout carries the protocol and
//! nothing else; diagnostics go through `log` to stderr. Bad input is answered
//! with `info string error: ...` and never changes the engine's state.
//!
//! The position is kept as (variant, FEN, move tokens) and re-materialised for the
//! variant at each use, so the front end itself is not generic.

pub mod options;

use std::io::{self, BufRead, Write};

use turncoat_engine::search::tt::Bound;
use turncoat_engine::search::{self, Info, Limits, Score};
use turncoat_engine::session::static_eval;
use turncoat_engine::{Engine, Event};
use turncoat_rules::fen;
use turncoat_rules::game::Setup;
use turncoat_rules::variants::Variant;
use turncoat_rules::with_variant;

use options::{Effect, EngineOptions};

pub use turncoat_engine::NAME as ENGINE_NAME;
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
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match stdin.lock().read_until(b'\n', &mut bytes) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    // A failed read (stdin a directory, a hung-up terminal)
                    // fails again at once: it is the end of the input, as for
                    // Stockfish, not a line to skip.
                    log::error!("cannot read the input ({e}): stopping as on 'quit'");
                    break;
                }
            }
            // Read as bytes, so one line that is not UTF-8 is refused on its own.
            match std::str::from_utf8(&bytes) {
                Ok(line) => {
                    if !self.handle(line.trim()) {
                        break;
                    }
                }
                Err(e) => error(&format!("unreadable input line (not UTF-8: {e})")),
            }
        }
        // End of input: a piped `go perft` still gets its count, as in
        // Stockfish; `quit` (above) stops it as `stop` does.
        self.engine.finish();
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
            // Standard UCI with nothing to do here: diagnostics go to stderr
            // through `log` (RUST_LOG), and no registration is needed.
            "debug" => match args {
                ["on"] | ["off"] => {}
                _ => error("debug expects 'on' or 'off'"),
            },
            "register" => {}
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
                    error(&e.to_string());
                }
            }
            Ok(Effect::ClearHash) => self.engine.clear(),
            Ok(Effect::VariantChanged) => {
                self.position = Setup::startpos(self.options.variant);
                self.engine.clear();
            }
            Ok(Effect::NetworkChanged) => {
                // The table's scores are the other network's.
                self.engine.clear();
                send(&match &self.options.eval_file {
                    Some(f) => format!(
                        "info string EvalFile {}: a {} {}network of width {}, evaluating every \
                         variant while Use NNUE is on",
                        f.path,
                        f.network.layout().name(),
                        if f.network.residual() {
                            "residual (added to the hand-set evaluation) "
                        } else {
                            ""
                        },
                        f.network.hidden()
                    ),
                    None => "info string EvalFile: each variant's embedded network".to_string(),
                });
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
            Err(e) => error(&e.to_string()),
        }
    }

    fn display(&self) {
        let text = with_variant!(self.position.variant, V => {
            match self.position.game::<V>() {
                Ok(game) => {
                    let pos = &game.pos;
                    let mut s = fen::diagram(pos);
                    s.push_str(&format!("\nVariant: {}\nFen: {}\nKey: {:016X}",
                        V::NAME, fen::format(pos), pos.key()));
                    // Attending Pawns' links, Cruise Pawns' missile in flight.
                    if let Some(state) = V::format_state(pos) {
                        s.push_str(&format!("\n{}: {state}", V::STATE_NAME));
                    }
                    s.push_str("\nCheckers:");
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
            Err(e) => error(&e.to_string()),
        }
    }

    /// `eval` (as Stockfish): the static evaluations of the current position,
    /// White's view, in pawns: the hand-written one and, where the variant has
    /// one, the network's.
    fn static_eval(&self) {
        let network = self.options.eval_file.as_ref().map(|f| f.network);
        match static_eval(&self.position, self.options.variant_eval, network) {
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
            Err(e) => error(&e.to_string()),
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
                    Event::Error(e) => error(&e.to_string()),
                    Event::Info(_) | Event::BestMove { .. } => {}
                },
            );
        if let Err(e) = started {
            error(&e.to_string());
        }
    }

    fn go(&mut self, args: &[&str]) {
        if let Some(&"perft") = args.first() {
            return self.perft(&args[1..]);
        }
        // The GUI (or a script) waits for an answer to every `go`: a refused one
        // is answered at once with `bestmove (none)`. A `go` sent while a search
        // or perft runs is refused rather than queued: the running job keeps its
        // own answer, and a queued `go` behind a `go infinite` would only start
        // after a `stop` the sender meant for the search it could see.
        if self.engine.is_busy() {
            return refuse_go("a search or perft is already running (send 'stop' first)");
        }
        let limits = match parse_go(args) {
            Ok(limits) => limits,
            Err(e) => return refuse_go(&e),
        };
        if !self.position_given {
            error("go before any position command: searching the start position");
        }
        let options = search::Options {
            threads: self.options.threads,
            multipv: self.options.multipv,
            move_overhead: self.options.move_overhead,
            variant_eval: self.options.variant_eval,
            use_nnue: self.options.use_nnue,
            network: self.options.eval_file.as_ref().map(|f| f.network),
            poll: None,
            ..search::Options::default()
        };
        send(&format!("info string {}", self.evaluation_said()));
        let started = self
            .engine
            .go(&self.position, limits, options, |event| match event {
                Event::Info(info) => send(&info_line(&info)),
                Event::BestMove { best, ponder } => send(&bestmove_line(best, ponder)),
                Event::Error(e) => error(&e.to_string()),
                Event::PerftMove { .. } | Event::PerftDone { .. } => {}
            });
        if let Err(e) = started {
            refuse_go(&e.to_string());
        }
    }
}

impl Uci {
    /// What evaluates this search and which kernel runs the network, the
    /// first `info string` of every search (as Stockfish names its network):
    /// `evaluation: network chess.net (embedded), kernel avx2`.
    fn evaluation_said(&self) -> String {
        let kernel = turncoat_engine::nnue::dot_kernel();
        let variant = self.position.variant;
        if !self.options.use_nnue {
            return "evaluation: hand-set (Use NNUE is off)".to_string();
        }
        if let Some(f) = &self.options.eval_file {
            return format!("evaluation: network {} (EvalFile), kernel {kernel}", f.path);
        }
        match with_variant!(variant, V => <V as turncoat_engine::policy::Policy>::NETWORK) {
            Some(net) => format!(
                "evaluation: network {} (embedded), kernel {kernel}",
                net.file
            ),
            None => format!("evaluation: hand-set (no network for {variant})"),
        }
    }
}

/// Refuses a `go` with the reason and answers it, as every `go` must be.
fn refuse_go(reason: &str) {
    error(&format!("{reason}; not searching"));
    send(&bestmove_line(None, None));
}

/// Formats the `bestmove` line; `(none)` when there is no move to play (no legal
/// move, or a refused `go`), as Stockfish answers.
pub fn bestmove_line(best: Option<String>, ponder: Option<String>) -> String {
    match (best, ponder) {
        (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
        (Some(best), None) => format!("bestmove {best}"),
        (None, _) => "bestmove (none)".to_string(),
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

/// Parses `go` arguments. A malformed or unknown parameter rejects the whole
/// command (a search with the rest could run forever where the GUI expects an
/// answer); negative clock times, which some GUIs send when flagging, count as 0.
pub fn parse_go(args: &[&str]) -> Result<Limits, String> {
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
        "searchmoves",
    ];
    let mut limits = Limits::default();
    let mut i = 0;
    while i < args.len() {
        let name = args[i];
        match name {
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => {
                while i + 1 < args.len() && !KEYWORDS.contains(&args[i + 1]) {
                    limits.searchmoves.push(args[i + 1].to_string());
                    i += 1;
                }
            }
            "depth" | "nodes" | "movetime" | "wtime" | "btime" | "winc" | "binc" | "movestogo"
            | "mate" => {
                i += 1;
                let v = match args.get(i).map(|v| v.parse::<i64>()) {
                    Some(Ok(n)) => n.max(0) as u64,
                    Some(Err(_)) => {
                        return Err(format!(
                            "go {name}: '{}' is not a number from 0 to {}",
                            args[i],
                            i64::MAX
                        ))
                    }
                    None => return Err(format!("go {name} needs a number")),
                };
                match name {
                    "depth" => limits.depth = Some(v.min(1000) as u32),
                    "nodes" => limits.nodes = Some(v),
                    "movetime" => limits.movetime = Some(v),
                    "wtime" => limits.wtime = Some(v),
                    "btime" => limits.btime = Some(v),
                    "winc" => limits.winc = Some(v),
                    "binc" => limits.binc = Some(v),
                    "movestogo" => limits.movestogo = Some(v.min(1000) as u32),
                    _ => limits.mate = Some(v.min(500) as u32),
                }
            }
            other => return Err(format!("unknown go parameter '{other}'")),
        }
        i += 1;
    }
    Ok(limits)
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
        ])
        .expect("a valid go");
        assert_eq!(l.wtime, Some(1000));
        assert_eq!(l.btime, Some(0));
        assert_eq!(l.winc, Some(10));
        assert_eq!(l.depth, Some(3));
        assert_eq!(l.searchmoves, vec!["e2e4", "d2d4"]);
    }

    #[test]
    fn malformed_go_is_refused_whole() {
        for (args, message) in [
            (&["depth", "abc"][..], "go depth: 'abc' is not a number"),
            (
                &["movetime", "99999999999999999999"][..],
                "go movetime: '99999999999999999999'",
            ),
            (&["wtime"][..], "go wtime needs a number"),
            (&["depth", "3", "foo"][..], "unknown go parameter 'foo'"),
        ] {
            let e = parse_go(args).expect_err("refused");
            assert!(e.starts_with(message), "{args:?}: {e}");
        }
        let l = parse_go(&["infinite"]).expect("valid");
        assert!(l.infinite && l.depth.is_none());
    }
}
