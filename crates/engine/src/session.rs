//! The engine as a front end drives it: a session holding the hash table, the
//! move-ordering statistics and the search options, which starts searches (and
//! perft counts) on a thread of their own and reports what they find through a
//! callback. It does no I/O: the UCI loop formats its events as protocol lines,
//! the web board as JSON.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::eval;
use crate::nnue::Network;
use crate::policy::Policy;
use crate::search::tt::{HashError, TranspositionTable};
use crate::search::{self, HistoryStore, Info, Limits, Options, Shared};
use turncoat_rules::game::{Setup, SetupError};
use turncoat_rules::perft;
use turncoat_rules::with_variant;

/// Why the session refused a request; the position and the running search are
/// as they were.
#[derive(Debug)]
pub enum SessionError {
    /// A search or perft is still running (`stop` it first).
    Busy,
    /// The position to search is not a legal setup.
    Setup(SetupError),
    /// The hash table could not be resized; the old one stays.
    Hash(HashError),
    /// The operating system refused the search thread.
    Thread(std::io::Error),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Busy => f.write_str("a search is already running (stop it first)"),
            SessionError::Setup(e) => e.fmt(f),
            SessionError::Hash(e) => e.fmt(f),
            SessionError::Thread(e) => write!(f, "could not start the search thread: {e}"),
        }
    }
}

impl std::error::Error for SessionError {}

impl From<SetupError> for SessionError {
    fn from(e: SetupError) -> SessionError {
        SessionError::Setup(e)
    }
}

impl From<HashError> for SessionError {
    fn from(e: HashError) -> SessionError {
        SessionError::Hash(e)
    }
}

/// For front ends that report errors as text.
impl From<SessionError> for String {
    fn from(e: SessionError) -> String {
        e.to_string()
    }
}

/// What a running search or perft reports, in order: any number of `Info` (or
/// `PerftMove`) events, then exactly one `BestMove` (or `PerftDone`).
#[derive(Clone, Debug)]
pub enum Event {
    Info(Info),
    /// The search's answer; `best` is `None` when the side to move has no legal
    /// move (or the setup could not be built).
    BestMove {
        best: Option<String>,
        ponder: Option<String>,
    },
    /// One root move's count of a perft divide.
    PerftMove {
        token: String,
        nodes: u64,
    },
    /// The end of a perft: the total, or `None` when it was stopped.
    PerftDone {
        total: Option<u64>,
    },
    /// The setup refused when the search thread built it (the session checks
    /// it before starting, so only a setup changed in between gets here).
    Error(SetupError),
}

/// The static evaluations of a position, White's point of view, centipawns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticEval {
    /// The hand-written evaluation (shared terms, plus the variant's own terms
    /// when asked).
    pub hand_written: i32,
    /// The network's, where the variant has one.
    pub network: Option<i32>,
}

struct Running {
    shared: Arc<Shared>,
    handle: Handle,
    /// A perft, which [`Engine::finish`] lets run to its count.
    perft: bool,
}

/// One engine: what a UCI process or a web board tab owns.
pub struct Engine {
    tt: Arc<TranspositionTable>,
    /// Move-ordering statistics kept between the searches of one game.
    history: Arc<HistoryStore>,
    running: Option<Running>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new(16)
    }
}

impl Engine {
    pub fn new(hash_mb: usize) -> Self {
        Engine {
            tt: Arc::new(TranspositionTable::new(hash_mb)),
            history: Arc::default(),
            running: None,
        }
    }

    /// Resizes the hash table (stopping any search first); on failure the old
    /// table stays.
    pub fn set_hash(&mut self, megabytes: usize) -> Result<(), SessionError> {
        self.stop();
        self.tt = Arc::new(TranspositionTable::try_new(megabytes)?);
        Ok(())
    }

    pub fn hash_mb(&self) -> usize {
        self.tt.megabytes()
    }

    /// Forgets everything learnt (a new game, another variant).
    pub fn clear(&mut self) {
        self.stop();
        self.tt.clear();
        self.history.clear();
    }

    /// Is a search or perft running (and not yet finished)?
    pub fn is_busy(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.shared.finished.load(Ordering::Acquire) && !r.handle.is_finished())
    }

    /// Nodes searched so far by the running (or last) search.
    pub fn nodes(&self) -> u64 {
        self.running
            .as_ref()
            .map_or(0, |r| r.shared.nodes.load(Ordering::Relaxed))
    }

    /// Waits for a finished search's thread, if any, so a new one can start.
    fn reap(&mut self) {
        if self.running.is_some() && !self.is_busy() {
            self.stop();
        }
    }

    /// Stops a running search or perft and waits until it has reported its end.
    pub fn stop(&mut self) {
        if let Some(r) = self.running.take() {
            r.shared.pondering.store(false, Ordering::Relaxed);
            r.shared.stop.store(true, Ordering::Relaxed);
            if r.handle.join().is_err() {
                log::error!("search thread panicked");
            }
        }
    }

    /// Ends the session's work at the end of its input: a running perft runs
    /// to its end and reports its count (Stockfish reads on only after a perft,
    /// so a piped `go perft` gets its count there), a running search stops.
    pub fn finish(&mut self) {
        if let Some(r) = self.running.take_if(|r| r.perft) {
            if r.handle.join().is_err() {
                log::error!("perft thread panicked");
            }
        }
        self.stop();
    }

    /// `ponderhit`: the pondered move was played; time limits apply from now.
    pub fn ponderhit(&self) {
        if let Some(r) = &self.running {
            r.shared.pondering.store(false, Ordering::Relaxed);
        }
    }

    /// Starts searching `setup` under `limits`; `report` receives the search's
    /// events on the search thread, ending with one `BestMove`.
    pub fn go(
        &mut self,
        setup: &Setup,
        limits: Limits,
        options: Options,
        report: impl FnMut(Event) + Send + 'static,
    ) -> Result<(), SessionError> {
        let shared = Shared::with_history(Arc::clone(&self.tt), Arc::clone(&self.history));
        shared.pondering.store(limits.ponder, Ordering::Relaxed);
        let mut report = report;
        self.start(setup, shared, false, move |setup, shared| {
            with_variant!(setup.variant, V => run_search::<V>(setup, &limits, &options, shared, &mut report))
        })
    }

    /// Starts a perft divide of `setup` to `depth` on `threads` threads; `report`
    /// receives a `PerftMove` per root move, then `PerftDone`. `stop` interrupts.
    pub fn perft(
        &mut self,
        setup: &Setup,
        depth: u32,
        threads: usize,
        report: impl FnMut(Event) + Send + 'static,
    ) -> Result<(), SessionError> {
        let mut report = report;
        self.start(
            setup,
            Shared::new(Arc::clone(&self.tt)),
            true,
            move |setup, shared| {
                let stop = &shared.stop;
                let lines = with_variant!(setup.variant, V => {
                    setup.game::<V>().map(|g| perft::divide_until(&g.pos, depth, threads, stop))
                });
                shared.finished.store(true, Ordering::Release);
                match lines {
                    Ok(Some(lines)) => {
                        let mut total = 0;
                        for (token, nodes) in lines {
                            total += nodes;
                            report(Event::PerftMove { token, nodes });
                        }
                        report(Event::PerftDone { total: Some(total) });
                    }
                    Ok(None) => report(Event::PerftDone { total: None }),
                    Err(e) => {
                        report(Event::Error(e));
                        report(Event::PerftDone { total: None });
                    }
                }
            },
        )
    }

    /// Runs `job` on the search thread with `setup` and `shared`, once the last
    /// search has ended; refuses while one is still running.
    fn start(
        &mut self,
        setup: &Setup,
        shared: Shared,
        perft: bool,
        job: impl FnOnce(&Setup, &Shared) + Send + 'static,
    ) -> Result<(), SessionError> {
        self.reap();
        if self.running.is_some() {
            return Err(SessionError::Busy);
        }
        setup.check()?;
        let shared = Arc::new(shared);
        let thread_shared = Arc::clone(&shared);
        let setup = setup.clone();
        let handle = spawn(move || job(&setup, &thread_shared))?;
        self.running = Some(Running {
            shared,
            handle,
            perft,
        });
        Ok(())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The static evaluations of `setup`'s position (UCI `eval`); `network`, as
/// [`search::Options::network`], replaces the variant's own.
pub fn static_eval(
    setup: &Setup,
    variant_terms: bool,
    network: Option<&'static Network>,
) -> Result<StaticEval, SetupError> {
    with_variant!(setup.variant, V => {
        setup.game::<V>().map(|game| {
            let pos = &game.pos;
            let white = |s: i32| if pos.turn() == shakmaty::Color::White { s } else { -s };
            let network = network.or_else(|| V::NETWORK.map(|n| n.network())).map(|net| {
                let base = if net.residual() { eval::residual_base(pos) } else { 0 };
                white(net.evaluate_board(&V::network_boards(pos), pos.turn()) + base)
            });
            StaticEval {
                hand_written: white(eval::evaluate(pos, variant_terms)),
                network,
            }
        })
    })
}

/// The search thread, where the target has threads.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
type Handle = std::thread::JoinHandle<()>;

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn spawn(job: impl FnOnce() + Send + 'static) -> Result<Handle, SessionError> {
    std::thread::Builder::new()
        .name("search".into())
        .stack_size(64 * 1024 * 1024)
        .spawn(job)
        .map_err(SessionError::Thread)
}

/// A job that has already run: a browser's WebAssembly has one thread (the
/// Web Worker the front end runs the engine in), so [`spawn`] runs the job to
/// its end on the caller's thread; the front end stops it through
/// [`search::Options::poll`].
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
struct Handle;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
impl Handle {
    fn is_finished(&self) -> bool {
        true
    }

    fn join(self) -> std::thread::Result<()> {
        Ok(())
    }
}

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn spawn(job: impl FnOnce() + Send + 'static) -> Result<Handle, SessionError> {
    job();
    Ok(Handle)
}

fn run_search<V: Policy>(
    setup: &Setup,
    limits: &Limits,
    options: &Options,
    shared: &Shared,
    report: &mut dyn FnMut(Event),
) {
    let game = match setup.game::<V>() {
        Ok(g) => g,
        Err(e) => {
            shared.finished.store(true, Ordering::Release);
            report(Event::Error(e));
            report(Event::BestMove {
                best: None,
                ponder: None,
            });
            return;
        }
    };
    let history = &game.keys[..game.keys.len() - 1];
    let result = search::search(&game.pos, history, limits, options, shared, &mut |info| {
        report(Event::Info(info))
    });
    // Set before reporting, so that a `go` arriving right after the answer can
    // join this thread instead of refusing.
    shared.finished.store(true, Ordering::Release);
    report(Event::BestMove {
        best: result.best,
        ponder: result.ponder,
    });
}
