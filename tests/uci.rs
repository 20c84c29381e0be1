//! UCI sessions driven through the real binary: the protocol as a GUI sees it.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

struct Uci {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Uci {
    fn start() -> Uci {
        let mut child = Command::new(env!("CARGO_BIN_EXE_turncoat"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("engine starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Uci {
            child,
            stdin,
            lines: rx,
        }
    }

    fn send(&mut self, cmd: &str) {
        writeln!(self.stdin, "{cmd}").expect("engine alive");
        self.stdin.flush().expect("flush");
    }

    /// Lines up to and including the first one starting with `prefix`.
    fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no '{prefix}' within {timeout:?}; saw {seen:?}")
                }
                Err(RecvTimeoutError::Disconnected) => panic!("engine exited; saw {seen:?}"),
            }
        }
    }

    /// Reads for `wait` and fails if a `bestmove` arrives (info lines are fine).
    fn expect_no_bestmove(&mut self, wait: Duration) {
        let deadline = Instant::now() + wait;
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            assert!(!line.starts_with("bestmove"), "premature '{line}'");
        }
    }

    fn bestmove(&mut self, timeout: Duration) -> (Vec<String>, String) {
        let lines = self.until("bestmove", timeout);
        let best = lines
            .last()
            .and_then(|l| l.split_whitespace().nth(1))
            .expect("bestmove token")
            .to_string();
        (lines, best)
    }

    /// `isready` round trip; proves the engine still answers.
    fn ready(&mut self) {
        self.send("isready");
        self.until("readyok", Duration::from_secs(5));
    }

    fn fen(&mut self) -> String {
        // `d` prints variant lines after `Checkers:` (Attending Pawns' links,
        // Cruise Pawns' missile): read up to `readyok` so none is left over.
        self.send("d");
        self.send("isready");
        let lines = self.until("readyok", Duration::from_secs(5));
        lines
            .iter()
            .find_map(|l| l.strip_prefix("Fen: "))
            .expect("Fen line")
            .to_string()
    }
}

impl Drop for Uci {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.wait();
    }
}

const SEC: Duration = Duration::from_secs(1);

#[test]
fn handshake_lists_options_and_variants() {
    let mut e = Uci::start();
    e.send("uci");
    let lines = e.until("uciok", 5 * SEC);
    assert!(lines[0].starts_with("id name Turncoat"));
    assert!(lines.iter().any(|l| l.starts_with("id author")));
    for opt in [
        "option name Hash type spin default 16 min 1",
        "option name Threads type spin default 1 min 1",
        "option name MultiPV type spin default 1 min 1 max 256",
        "option name Move Overhead type spin",
        "option name Clear Hash type button",
        "option name Ponder type check default false",
        "option name UCI_Variant type combo default chess var chess",
        "option name Use NNUE type check default true",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(opt)),
            "missing '{opt}' in {lines:?}"
        );
    }
    let combo = lines
        .iter()
        .find(|l| l.contains("UCI_Variant"))
        .expect("combo");
    for v in turncoat::rules::variants::VariantKind::ALL {
        assert!(combo.contains(&format!("var {}", v.name())), "{combo}");
    }
    e.ready();
}

#[test]
fn position_moves_and_display() {
    let mut e = Uci::start();
    e.send("position startpos moves e2e4 c7c5 g1f3");
    assert_eq!(
        e.fen(),
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    e.send("position fen 4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 moves e1g1");
    assert_eq!(e.fen(), "4k3/8/8/8/8/8/8/R4RK1 b - - 1 1");
    e.send("d");
    let lines = e.until("Checkers:", 5 * SEC);
    assert!(lines.iter().any(|l| l.starts_with("Key: ")));
    assert!(lines.iter().any(|l| l.contains("| R |")));
}

/// `eval` prints both evaluations, White's view, mirrored exactly when the
/// colours are; `Use NNUE` switches the search to the network and still plays.
#[test]
fn eval_command_and_use_nnue_option() {
    let mut e = Uci::start();
    let evals = |e: &mut Uci, fen: &str| -> Vec<f64> {
        e.send(&format!("position fen {fen}"));
        e.send("eval");
        let lines = e.until("NNUE evaluation", 5 * SEC);
        let hand = lines
            .iter()
            .find(|l| l.starts_with("Hand-written evaluation "))
            .expect("hand-written line");
        [hand, lines.last().expect("nnue line")]
            .iter()
            .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
            .collect()
    };
    // White a knight up, then the same with colours swapped: opposite signs.
    let white = evals(&mut e, "4k3/pppp4/8/8/8/8/PPPP4/4KN2 w - - 0 1");
    let black = evals(&mut e, "4kn2/pppp4/8/8/8/8/PPPP4/4K3 b - - 0 1");
    assert!(white[0] > 1.5 && white[1] > 1.5, "{white:?}");
    assert_eq!(black[1], -white[1]);
    e.send("setoption name Use NNUE value true");
    e.send("position startpos");
    e.send("go depth 5");
    let (_, best) = e.bestmove(30 * SEC);
    assert_eq!(best.len(), 4);
    e.send("setoption name Use NNUE value maybe");
    let lines = e.until("info string", 5 * SEC);
    assert!(lines.last().unwrap().contains("true or false"), "{lines:?}");
}

#[test]
fn go_depth_answers_a_legal_move_with_info() {
    let mut e = Uci::start();
    e.send("position startpos moves e2e4");
    e.send("go depth 6");
    let (lines, best) = e.bestmove(30 * SEC);
    let legal = common::legal_tokens_of(
        turncoat::rules::variants::VariantKind::Chess,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    )
    .expect("fen");
    assert!(legal.contains(&best), "{best} not legal");
    let info = lines
        .iter()
        .find(|l| l.starts_with("info depth 6 "))
        .expect("depth 6 info");
    for field in [
        " seldepth ",
        " multipv 1 ",
        " score cp ",
        " nodes ",
        " nps ",
        " hashfull ",
        " time ",
        " pv ",
    ] {
        assert!(info.contains(field), "'{field}' missing in {info}");
    }
}

#[test]
fn stop_and_isready_during_infinite_search() {
    let mut e = Uci::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.ready();
    // Infinite search never answers on its own.
    e.expect_no_bestmove(Duration::from_millis(200));
    e.send("stop");
    let (_, best) = e.bestmove(5 * SEC);
    assert_eq!(best.len(), 4);
    e.ready();
}

#[test]
fn movetime_and_clock_are_respected() {
    let mut e = Uci::start();
    e.send("position startpos");
    let t = Instant::now();
    e.send("go movetime 300");
    e.bestmove(5 * SEC);
    let ms = t.elapsed().as_millis();
    assert!((250..1000).contains(&ms), "movetime 300 took {ms} ms");
    let t = Instant::now();
    e.send("go wtime 2000 btime 2000 winc 0 binc 0");
    e.bestmove(5 * SEC);
    assert!(
        t.elapsed() < Duration::from_millis(700),
        "spent {:?} of a 2 s clock",
        t.elapsed()
    );
    e.send("go nodes 5000");
    let (lines, _) = e.bestmove(5 * SEC);
    assert!(lines.iter().any(|l| l.starts_with("info depth")));
}

#[test]
fn ponder_then_ponderhit() {
    let mut e = Uci::start();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4 e7e5");
    e.send("go ponder movetime 200");
    e.expect_no_bestmove(Duration::from_millis(500));
    e.send("ponderhit");
    let (_, best) = e.bestmove(3 * SEC);
    assert_eq!(best.len(), 4);
}

#[test]
fn go_perft_prints_like_stockfish() {
    let mut e = Uci::start();
    e.send("position startpos");
    e.send("go perft 2");
    let lines = e.until("Nodes searched", 10 * SEC);
    assert_eq!(lines.len(), 22);
    assert!(lines.contains(&"e2e4: 20".to_string()));
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "Nodes searched: 400");
}

#[test]
fn mate_and_searchmoves_and_multipv() {
    let mut e = Uci::start();
    e.send("position fen r5k1/5ppp/8/8/8/8/1Q3PPP/1R4K1 w - - 0 1");
    e.send("go mate 2");
    let (lines, best) = e.bestmove(20 * SEC);
    assert_eq!(best, "b2b8");
    assert!(
        lines.iter().any(|l| l.contains("score mate 2")),
        "{lines:?}"
    );
    e.send("position startpos");
    e.send("go depth 3 searchmoves a2a3 h2h3");
    let (_, best) = e.bestmove(10 * SEC);
    assert!(best == "a2a3" || best == "h2h3", "{best}");
    e.send("setoption name MultiPV value 3");
    e.send("go depth 4");
    let (lines, _) = e.bestmove(10 * SEC);
    for k in 1..=3 {
        assert!(lines
            .iter()
            .any(|l| l.starts_with("info depth 4 ") && l.contains(&format!(" multipv {k} "))));
    }
}

#[test]
fn no_legal_move_gives_0000() {
    let mut e = Uci::start();
    e.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    e.send("go depth 3");
    let (_, best) = e.bestmove(5 * SEC);
    assert_eq!(best, "0000");
}

#[test]
fn bad_input_is_reported_and_state_kept() {
    let mut e = Uci::start();
    e.send("position startpos moves e2e4");
    let good = e.fen();
    let bad = [
        (
            "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
            "info string error: invalid FEN",
        ),
        ("position fen", "info string error: position expects"),
        (
            "position startpos moves e2e4 e7e6 e4e6",
            "info string error: illegal move 'e4e6'",
        ),
        (
            "position startpos moves e2e4 zz",
            "info string error: illegal move 'zz'",
        ),
        ("position banana", "info string error: position expects"),
        (
            "setoption name Nonsense value 3",
            "info string error: unknown option",
        ),
        (
            "setoption name Hash value lots",
            "info string error: option Hash",
        ),
        (
            "setoption name Threads value 0",
            "info string error: option Threads",
        ),
        (
            "setoption name UCI_Variant value checkers",
            "info string error: unknown variant 'checkers'",
        ),
        ("setoption value 3", "info string error: setoption expects"),
        ("xyzzy 42", "info string error: unknown command 'xyzzy 42'"),
        ("go perft 0", "info string error: perft expects"),
        ("go perft x", "info string error: perft expects"),
        ("\u{7f}\u{1}garbage", "info string error: unknown command"),
    ];
    for (cmd, answer) in bad {
        e.send(cmd);
        let lines = e.until("info string error", 5 * SEC);
        let last = lines.last().expect("line");
        assert!(last.starts_with(answer), "'{cmd}' answered '{last}'");
        assert_eq!(e.fen(), good, "'{cmd}' changed the position");
    }
    e.send("go depth 2");
    let (_, best) = e.bestmove(5 * SEC);
    assert_ne!(best, "0000");
}

#[test]
fn go_before_position_is_reported_and_searches_startpos() {
    let mut e = Uci::start();
    e.send("go depth 2");
    let lines = e.until("bestmove", 5 * SEC);
    assert!(lines[0].starts_with("info string error: go before any position"));
    e.ready();
}

#[test]
fn variant_switch_resets_to_its_start_position() {
    let mut e = Uci::start();
    e.send("position startpos moves e2e4");
    e.send("setoption name UCI_Variant value chess");
    assert_eq!(
        e.fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
}

#[test]
fn every_variant_plays_through_uci() {
    for v in turncoat::rules::variants::VariantKind::ALL {
        let mut e = Uci::start();
        e.send(&format!("setoption name UCI_Variant value {}", v.name()));
        e.send("position startpos");
        let start = e.fen();
        assert!(start.starts_with(v.start_fen()), "{}: {start}", v.name());
        e.send("go perft 1");
        let lines = e.until("Nodes searched", 10 * SEC);
        let n: usize = lines
            .last()
            .and_then(|l| l.strip_prefix("Nodes searched: "))
            .and_then(|n| n.parse().ok())
            .expect("count");
        assert_eq!(n, lines.len() - 2, "{}", v.name());
        e.send("go depth 3");
        let (_, best) = e.bestmove(30 * SEC);
        let legal = common::legal_tokens_of(*v, &start).expect("start FEN");
        assert!(legal.contains(&best), "{}: {best} not legal", v.name());
        e.send(&format!("position startpos moves {best}"));
        assert_ne!(e.fen(), start, "{}", v.name());
        e.send("position startpos moves e2e5");
        let lines = e.until("info string error", 5 * SEC);
        assert!(lines
            .last()
            .is_some_and(|l| l.contains("illegal move 'e2e5'")));
    }
}

/// A long iteration still reports: at least one `currmove` line (no score) in
/// three seconds of a Cruise Pawns middlegame, and no second passes without a
/// line of some kind.
#[test]
fn long_iterations_report_progress() {
    let mut e = Uci::start();
    e.send("setoption name UCI_Variant value cruisepawns");
    e.send("position fen r1bqk2r/pp3ppp/2n1pn2/2bp4/2P5/2N1PN2/PP1B1PPP/R2QKB1R w KQkq - 0 7 -");
    e.send("go movetime 3000");
    let (lines, _) = e.bestmove(30 * SEC);
    let progress: Vec<&String> = lines
        .iter()
        .filter(|l| l.split_whitespace().any(|w| w == "currmove"))
        .collect();
    assert!(!progress.is_empty(), "{lines:?}");
    for l in &progress {
        assert!(l.contains(" currmovenumber ") && l.contains(" nps "), "{l}");
        assert!(!l.contains(" score "), "{l}");
    }
    let times: Vec<u64> = lines
        .iter()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let i = w.iter().position(|&x| x == "time")?;
            w.get(i + 1)?.parse().ok()
        })
        .collect();
    for pair in times.windows(2) {
        assert!(pair[1] - pair[0] <= 1500, "{times:?}");
    }
}
