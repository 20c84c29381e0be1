//! One tab's conversation: a request's text in, responses out, the engine
//! driven through an [`EngineHost`]. The server's tab holds its engine
//! ([`Tab`]) here; the browser's page holds a proxy to the Web Worker that
//! runs the same [`Tab`] there.

use super::analysis::{check_options, Job, Tab};
use super::board::{self, Spec};
use super::protocol::{parse_request, Request, Response};
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
}

impl<H: EngineHost> Session<H> {
    /// A tab on the chess start position.
    pub fn new(engine: H) -> Session<H> {
        Session {
            spec: Spec::startpos(VariantKind::Chess),
            engine,
            current_multipv: 1,
        }
    }

    pub fn engine(&mut self) -> &mut H {
        &mut self.engine
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
            } => match Job::engine_move(id, movetime, nodes) {
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
            } => {
                let result = board::parse_variant(&variant).and_then(|v| {
                    board::export_pgn(
                        v,
                        fen.as_deref(),
                        &moves,
                        white.as_deref().unwrap_or("?"),
                        black.as_deref().unwrap_or("?"),
                    )
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
