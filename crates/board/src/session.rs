//! One tab's conversation: a request's text in, responses out, the engine
//! driven through an [`EngineHost`]. The server's tab holds its engine
//! ([`Tab`]) here; the browser's page holds a proxy to the Web Worker that
//! runs the same [`Tab`] there.

use super::analysis::{check_options, Job, MoveLimits, Tab};
use super::board::{self, Spec};
use super::explorer::Explorer;
use super::protocol::{parse_request, PositionValue, Request, Response, MAX_MOVES};
use super::report;
use turncoat_rules::variants::VariantKind;

/// What a tab's session asks of its engine. Searches report to the engine's
/// own sink, not through the session.
pub trait EngineHost {
    /// Starts `job` on `spec`'s position (stopping whatever runs).
    fn start(&mut self, spec: &Spec, job: Job) -> Result<(), String>;
    /// Stops the running search, if any.
    fn stop(&mut self);
    /// A new game or another variant: forget what was learnt.
    fn clear(&mut self);
    /// Is an analysis running (or finished and not stopped)?
    fn is_analysing(&self) -> bool;
    /// Sets Hash (MB) and Threads, checked against the bounds by the caller.
    fn set_options(&mut self, hash: Option<u64>, threads: Option<u64>) -> Result<(), String>;
    fn hash_mb(&self) -> u64;
    fn threads(&self) -> u64;
    /// The most threads this engine can search with.
    fn max_threads(&self) -> u64;
}

impl EngineHost for Tab {
    fn start(&mut self, spec: &Spec, job: Job) -> Result<(), String> {
        Tab::start(self, spec, job)
    }

    fn stop(&mut self) {
        Tab::stop(self);
    }

    fn clear(&mut self) {
        Tab::clear(self)
    }

    fn is_analysing(&self) -> bool {
        Tab::is_analysing(self)
    }

    fn set_options(&mut self, hash: Option<u64>, threads: Option<u64>) -> Result<(), String> {
        Tab::set_options(self, hash, threads)
    }

    fn hash_mb(&self) -> u64 {
        Tab::hash_mb(self)
    }

    fn threads(&self) -> u64 {
        Tab::threads(self)
    }

    fn max_threads(&self) -> u64 {
        super::analysis::max_threads()
    }
}

/// One tab's state.
pub struct Session<H> {
    spec: Spec,
    engine: H,
    /// MultiPV of the last analysis asked for (kept when the position changes).
    current_multipv: u32,
    /// The opening explorer's games (the user's PGN files).
    explorer: Explorer,
}

impl<H: EngineHost> Session<H> {
    /// A tab on the chess start position.
    pub fn new(engine: H) -> Session<H> {
        Session {
            spec: Spec::startpos(VariantKind::Chess),
            engine,
            current_multipv: 1,
            explorer: Explorer::default(),
        }
    }

    pub fn engine(&mut self) -> &mut H {
        &mut self.engine
    }

    fn explorer_state(&self, added: super::explorer::Added) -> Response {
        Response::Explorer {
            added,
            games: self.explorer.games(),
            positions: self.explorer.positions(),
        }
    }

    /// The first message of a tab: the engine, the variants, the bounds.
    pub fn hello(&self) -> Response {
        Response::Hello {
            engine: turncoat_engine::NAME.to_string(),
            variants: VariantKind::ALL
                .iter()
                .map(|v| v.name().to_string())
                .collect(),
            start_fens: VariantKind::ALL
                .iter()
                .map(|v| v.start_fen().to_string())
                .collect(),
            max_threads: self.engine.max_threads(),
        }
    }

    /// Handles one request; replies go to `out`. A failed request changes
    /// nothing.
    pub fn handle(&mut self, text: &str, out: &mut dyn FnMut(Response)) {
        let request = match parse_request(text) {
            Ok(r) => r,
            Err(e) => return out(e),
        };
        match request {
            Request::Position {
                id,
                variant,
                fen,
                moves,
            } => {
                let result = board::parse_variant(&variant)
                    .and_then(|v| board::describe(v, fen.as_deref(), &moves));
                match result {
                    Ok((spec, info)) => {
                        let was_analysing = self.engine.is_analysing();
                        let multipv = self.current_multipv;
                        if spec.variant != self.spec.variant {
                            self.engine.clear();
                        }
                        self.spec = spec;
                        out(Response::Position {
                            id,
                            info: Box::new(info),
                        });
                        if was_analysing {
                            // Analysis follows the position.
                            self.start(Job::Analyse { multipv }, out);
                        }
                    }
                    Err(e) => out(Response::error(Some("position"), e).with_id(id)),
                }
            }
            Request::Analyse { multipv } => match Job::analyse(multipv) {
                Ok(job) => {
                    if let Job::Analyse { multipv } = job {
                        self.current_multipv = multipv;
                    }
                    self.start(job, out)
                }
                Err(e) => out(Response::error(Some("analyse"), e)),
            },
            Request::Stop => {
                self.engine.stop();
                out(Response::Stopped);
            }
            Request::Go {
                id,
                movetime,
                nodes,
                wtime,
                btime,
                winc,
                binc,
            } => match Job::engine_move(
                id,
                MoveLimits {
                    movetime,
                    nodes,
                    wtime,
                    btime,
                    winc,
                    binc,
                },
            ) {
                Ok(job) => self.start(job, out),
                Err(e) => out(Response::error(Some("go"), e).with_id(id)),
            },
            Request::Options { hash, threads } => {
                let result = check_options(hash, threads, self.engine.max_threads())
                    .and_then(|()| self.engine.set_options(hash, threads));
                match result {
                    Ok(()) => out(Response::Options {
                        hash: self.engine.hash_mb(),
                        threads: self.engine.threads(),
                    }),
                    Err(e) => out(Response::error(Some("options"), e)),
                }
            }
            Request::Evaluate {
                id,
                variant,
                fen,
                moves,
                nodes,
            } => {
                let checked = board::parse_variant(&variant)
                    .and_then(|v| board::describe(v, fen.as_deref(), &moves))
                    .and_then(|(spec, info)| Job::evaluate(id, nodes).map(|job| (spec, info, job)));
                match checked {
                    Err(e) => out(Response::error(Some("evaluate"), e).with_id(id)),
                    // A finished game is worth its result: nothing to search.
                    Ok((_, info, _)) if info.outcome.is_some() => {
                        let result = info.outcome.map(|o| o.result).unwrap_or_default();
                        out(Response::Evaluation {
                            id,
                            fen: info.fen,
                            value: PositionValue::Result(result),
                            depth: 0,
                            nodes: 0,
                            best: None,
                            best_san: None,
                        })
                    }
                    Ok((spec, _, job)) => {
                        if spec.variant != self.spec.variant {
                            self.engine.clear();
                        }
                        if let Err(e) = self.engine.start(&spec, job) {
                            out(Response::error(Some("evaluate"), e).with_id(id));
                        }
                    }
                }
            }
            Request::GameReport {
                values,
                white_first,
            } => {
                if values.len() > MAX_MOVES + 1 {
                    out(Response::error(
                        Some("game_report"),
                        format!("too many positions (at most {})", MAX_MOVES + 1),
                    ));
                    return;
                }
                match report::report(&values, white_first) {
                    Ok(r) => out(Response::GameReport(Box::new(r))),
                    Err(e) => out(Response::error(Some("game_report"), e)),
                }
            }
            Request::ExplorerAdd { text } => match self.explorer.add_pgn(&text) {
                Ok(added) => out(self.explorer_state(added)),
                Err(e) => out(Response::error(Some("explorer_add"), e)),
            },
            Request::ExplorerClear => {
                self.explorer.clear();
                out(self.explorer_state(Default::default()));
            }
            Request::Explore { id, variant, fen } => {
                let checked = board::parse_variant(&variant).and_then(|v| {
                    board::describe(v, Some(&fen), &[]).map(|(_, info)| (v, info.fen))
                });
                match checked {
                    Ok((v, fen)) => {
                        let moves = self.explorer.explore(v, &fen);
                        out(Response::Explored {
                            id,
                            games: moves.iter().map(|m| m.tally.games).sum(),
                            fen,
                            moves,
                        })
                    }
                    Err(e) => out(Response::error(Some("explore"), e).with_id(id)),
                }
            }
            Request::PgnImport { text } => match board::import_pgn(&text) {
                Ok(games) => out(Response::Pgn { games }),
                Err(e) => out(Response::error(Some("pgn_import"), e)),
            },
            Request::PgnExport {
                variant,
                fen,
                moves,
                white,
                black,
                ended,
                time_control,
                tree,
            } => {
                let players = board::Players {
                    white: white.as_deref().unwrap_or("?"),
                    black: black.as_deref().unwrap_or("?"),
                    ended,
                    time_control: time_control.as_deref(),
                };
                let result = board::parse_variant(&variant).and_then(|v| {
                    board::export_pgn(v, fen.as_deref(), &moves, &players, tree.as_deref())
                });
                match result {
                    Ok(text) => out(Response::PgnText { text }),
                    Err(e) => out(Response::error(Some("pgn_export"), e)),
                }
            }
        }
    }

    fn start(&mut self, job: Job, out: &mut dyn FnMut(Response)) {
        if let Err(e) = self.engine.start(&self.spec, job) {
            out(Response::error(Some("analyse"), e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An engine that records what the session asks of it (the browser's
    /// proxy is such an engine: it only passes requests on).
    #[derive(Default)]
    struct Recorder {
        calls: Vec<String>,
        analysing: bool,
        hash: u64,
    }

    impl EngineHost for Recorder {
        fn start(&mut self, spec: &Spec, job: Job) -> Result<(), String> {
            self.analysing = matches!(job, Job::Analyse { .. });
            self.calls.push(format!(
                "start {} {}",
                spec.to_json(),
                serde_json::to_string(&job).unwrap()
            ));
            Ok(())
        }
        fn stop(&mut self) {
            self.analysing = false;
            self.calls.push("stop".into());
        }
        fn clear(&mut self) {
            self.calls.push("clear".into());
        }
        fn is_analysing(&self) -> bool {
            self.analysing
        }
        fn set_options(&mut self, hash: Option<u64>, _: Option<u64>) -> Result<(), String> {
            self.hash = hash.unwrap_or(self.hash);
            self.calls.push(format!("options {hash:?}"));
            Ok(())
        }
        fn hash_mb(&self) -> u64 {
            self.hash
        }
        fn threads(&self) -> u64 {
            1
        }
        fn max_threads(&self) -> u64 {
            1
        }
    }

    fn ask(s: &mut Session<Recorder>, request: &str) -> Vec<String> {
        let mut out = Vec::new();
        s.handle(request, &mut |r| out.push(r.to_json()));
        out
    }

    /// What the page's WebAssembly session asks of the search Worker: the
    /// game and the job as JSON, analysis following a new position, the
    /// tables cleared for another variant, a one-thread engine's bounds.
    #[test]
    fn the_session_drives_its_engine() {
        let mut s = Session::new(Recorder::default());
        assert!(s.hello().to_json().contains("\"max_threads\":1"));
        assert_eq!(
            ask(&mut s, r#"{"type":"analyse","multipv":2}"#),
            Vec::<String>::new()
        );
        let moved = ask(
            &mut s,
            r#"{"type":"position","id":7,"variant":"chess","moves":["e2e4"]}"#,
        );
        assert_eq!(moved.len(), 1);
        assert!(
            moved[0].starts_with(r#"{"type":"position","id":7,"#),
            "{}",
            moved[0]
        );
        ask(&mut s, r#"{"type":"position","variant":"subversion"}"#);
        assert_eq!(
            ask(&mut s, r#"{"type":"options","threads":2}"#),
            [
                r#"{"type":"error","request":"options","id":null,"message":"threads must be between 1 and 1"}"#
            ]
        );
        assert_eq!(
            ask(&mut s, r#"{"type":"options","hash":64}"#),
            [r#"{"type":"options","hash":64,"threads":1}"#]
        );
        assert_eq!(ask(&mut s, r#"{"type":"stop"}"#), [r#"{"type":"stopped"}"#]);
        ask(&mut s, r#"{"type":"go","id":3,"nodes":1000}"#);
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(
            s.engine().calls,
            [
                format!(
                    r#"start {{"fen":"{start}","moves":[],"variant":"chess"}} {{"job":"analyse","multipv":2}}"#
                ),
                format!(
                    r#"start {{"fen":"{start}","moves":["e2e4"],"variant":"chess"}} {{"job":"analyse","multipv":2}}"#
                ),
                "clear".to_string(),
                format!(
                    r#"start {{"fen":"{start}","moves":[],"variant":"subversion"}} {{"job":"analyse","multipv":2}}"#
                ),
                "options Some(64)".to_string(),
                "stop".to_string(),
                format!(
                    r#"start {{"fen":"{start}","moves":[],"variant":"subversion"}} {{"job":"move","id":3,"limits":{{"movetime":null,"nodes":1000}}}}"#
                ),
            ]
        );
    }

    /// The explorer over the protocol: games added, a position explored,
    /// a bad FEN refused with the request's id, emptied.
    #[test]
    fn explorer_requests() {
        let mut s = Session::new(Recorder::default());
        let pgn = r#"{"type":"explorer_add","text":"[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n1. e4 c5 *\n\n1. Qh5 *"}"#;
        assert_eq!(
            ask(&mut s, pgn),
            [
                r#"{"type":"explorer","added":{"games":2,"skipped":1,"full":0},"games":2,"positions":2}"#
            ]
        );
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(
            ask(
                &mut s,
                &format!(r#"{{"type":"explore","id":9,"variant":"chess","fen":"{start}"}}"#)
            ),
            [format!(
                r#"{{"type":"explored","id":9,"fen":"{start}","games":2,"moves":[{{"token":"e2e4","san":"e4","games":2,"white":1,"draws":0,"black":0}}]}}"#
            )]
        );
        let refused = ask(
            &mut s,
            r#"{"type":"explore","id":3,"variant":"chess","fen":"8/8/8 w"}"#,
        );
        assert_eq!(refused.len(), 1);
        assert!(
            refused[0].starts_with(r#"{"type":"error","request":"explore","id":3,"#),
            "{}",
            refused[0]
        );
        assert_eq!(
            ask(&mut s, r#"{"type":"explorer_clear"}"#),
            [
                r#"{"type":"explorer","added":{"games":0,"skipped":0,"full":0},"games":0,"positions":0}"#
            ]
        );
        // Nothing of this reached the engine.
        assert!(s.engine().calls.is_empty(), "{:?}", s.engine().calls);
    }

    /// A clock reaches the engine as UCI's go has it; a half-given or
    /// oversized clock is refused with the reason, and nothing is started.
    #[test]
    fn engine_moves_on_a_clock() {
        let mut s = Session::new(Recorder::default());
        ask(&mut s, r#"{"type":"position","variant":"chess"}"#);
        let refusals = [
            (
                r#"{"type":"go","id":1,"wtime":60000}"#,
                "a clock needs both wtime and btime",
            ),
            (
                r#"{"type":"go","id":1,"nodes":100,"winc":1000}"#,
                "winc and binc need wtime and btime",
            ),
            (
                r#"{"type":"go","id":1,"wtime":86400001,"btime":1000}"#,
                "wtime and btime must be at most 86400000 ms",
            ),
            (
                r#"{"type":"go","id":1,"wtime":1000,"btime":1000,"binc":600001}"#,
                "winc and binc must be at most 600000 ms",
            ),
            (
                r#"{"type":"go","id":1}"#,
                "go needs movetime (ms), nodes, or wtime and btime",
            ),
        ];
        for (request, message) in refusals {
            assert_eq!(
                ask(&mut s, request),
                [format!(
                    r#"{{"type":"error","request":"go","id":1,"message":"{message}"}}"#
                )],
                "{request}"
            );
        }
        let calls = s.engine().calls.len();
        ask(
            &mut s,
            r#"{"type":"go","id":2,"wtime":180000,"btime":175500,"winc":2000,"binc":2000}"#,
        );
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(
            s.engine().calls[calls..],
            [format!(
                r#"start {{"fen":"{start}","moves":[],"variant":"chess"}} {{"job":"move","id":2,"limits":{{"movetime":null,"nodes":null,"wtime":180000,"btime":175500,"winc":2000,"binc":2000}}}}"#
            )]
        );
    }

    /// A position of the game is searched without becoming the tab's
    /// position; a finished game is answered with its result; the report
    /// comes from the values sent.
    #[test]
    fn evaluations_and_reports() {
        let mut s = Session::new(Recorder::default());
        assert_eq!(
            ask(
                &mut s,
                r#"{"type":"evaluate","id":4,"variant":"chess","moves":["e2e4"],"nodes":1000}"#
            ),
            Vec::<String>::new()
        );
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(
            s.engine().calls,
            [format!(
                r#"start {{"fen":"{start}","moves":["e2e4"],"variant":"chess"}} {{"job":"evaluate","id":4,"nodes":1000}}"#
            )]
        );
        // Fool's mate: White is mated, nothing searched.
        let mated = ask(
            &mut s,
            r#"{"type":"evaluate","id":5,"variant":"chess","moves":["f2f3","e7e5","g2g4","d8h4"],"nodes":1000}"#,
        );
        assert_eq!(
            mated,
            [
                r#"{"type":"evaluation","id":5,"fen":"rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3","value":{"result":"0-1"},"depth":0,"nodes":0,"best":null,"best_san":null}"#
            ]
        );
        assert_eq!(s.engine().calls.len(), 1);
        // Bad budgets and games are refused with the request's id.
        let refused = ask(
            &mut s,
            r#"{"type":"evaluate","id":6,"variant":"chess","nodes":0}"#,
        );
        assert!(
            refused[0].starts_with(r#"{"type":"error","request":"evaluate","id":6,"#),
            "{refused:?}"
        );
        let refused = ask(
            &mut s,
            r#"{"type":"evaluate","id":7,"variant":"chess","moves":["e2e5"],"nodes":10}"#,
        );
        assert!(
            refused[0].contains(r#""id":7,"message":"move 1:"#),
            "{refused:?}"
        );
        // The tab's own position has not moved: analysis starts from the
        // start position.
        ask(&mut s, r#"{"type":"analyse","multipv":1}"#);
        assert_eq!(
            s.engine().calls.last().map(String::as_str),
            Some(
                format!(
                    r#"start {{"fen":"{start}","moves":[],"variant":"chess"}} {{"job":"analyse","multipv":1}}"#
                )
                .as_str()
            )
        );
        let report = ask(
            &mut s,
            r#"{"type":"game_report","values":[{"cp":30},{"cp":-900},null],"white_first":true}"#,
        );
        assert!(
            report[0].starts_with(r#"{"type":"game_report","win":["#),
            "{report:?}"
        );
        assert!(
            report[0].contains(r#""moves":[{"glyph":"??","#),
            "{report:?}"
        );
        let bad = ask(
            &mut s,
            r#"{"type":"game_report","values":[{"mate":0}],"white_first":true}"#,
        );
        assert_eq!(
            bad,
            [
                r#"{"type":"error","request":"game_report","id":null,"message":"position 0: a mate in 0 is a finished game: send its result"}"#
            ]
        );
    }

    /// The Worker reads back the game the session sent, checked again.
    #[test]
    fn a_game_crosses_to_the_worker_and_back() {
        let fen = "1r5k/8/2n5/3pb3/3N4/8/6PP/K7 w - - 0 1";
        let (spec, _) =
            board::describe(VariantKind::Subversion, Some(fen), &["@e5,g2".to_string()]).unwrap();
        assert_eq!(Spec::from_json(&spec.to_json()), Ok(spec));
        let bad = r#"{"variant":"chess","fen":"8/8/8/8/8/8/8/8 w - - 0 1","moves":[]}"#;
        assert!(Spec::from_json(bad).is_err());
        let illegal = format!(r#"{{"variant":"chess","fen":"{fen}","moves":["e2e5"]}}"#);
        assert!(Spec::from_json(&illegal)
            .unwrap_err()
            .starts_with("move 1:"));
    }
}
