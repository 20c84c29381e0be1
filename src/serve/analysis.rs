//! One engine per tab: infinite analysis and engine moves on a search thread,
//! the way the UCI front end runs them (a stop flag, an info callback). Every
//! use of the search lives in this file.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use shakmaty::Color;
use tokio::sync::mpsc::UnboundedSender;

use super::board::{san_line, Spec};
use super::protocol::{
    AnalysisInfo, Line, Response, Score, DEFAULT_HASH_MB, MAX_HASH_MB, MAX_MOVETIME_MS,
    MAX_MULTIPV, MAX_NODES,
};
use crate::fen;
use crate::game::Game;
use crate::search::tt::{Bound, TranspositionTable};
use crate::search::{self, HistoryStore, Info, Limits, Shared};
use crate::variants::{Variant, VariantKind};
use crate::with_variant;

/// How often a running analysis reports at least (the page's refresh).
pub const TICK: Duration = Duration::from_millis(200);
/// Lines found between ticks are sent at once, but not more often than this.
const MIN_GAP: Duration = Duration::from_millis(100);

/// What to search for.
#[derive(Clone, Debug)]
pub enum Job {
    Analyse { multipv: u32 },
    Move { id: Option<u64>, limits: MoveLimits },
}

#[derive(Clone, Debug)]
pub struct MoveLimits {
    pub movetime: Option<u64>,
    pub nodes: Option<u64>,
}

impl Job {
    /// Checks a client's numbers against the bounds.
    pub fn analyse(multipv: Option<u32>) -> Result<Job, String> {
        let multipv = multipv.unwrap_or(1);
        if !(1..=MAX_MULTIPV).contains(&multipv) {
            return Err(format!("multipv must be between 1 and {MAX_MULTIPV}"));
        }
        Ok(Job::Analyse { multipv })
    }

    pub fn engine_move(
        id: Option<u64>,
        movetime: Option<u64>,
        nodes: Option<u64>,
    ) -> Result<Job, String> {
        if movetime.is_none() && nodes.is_none() {
            return Err("go needs movetime (ms) or nodes".to_string());
        }
        if movetime.is_some_and(|t| !(1..=MAX_MOVETIME_MS).contains(&t)) {
            return Err(format!(
                "movetime must be between 1 and {MAX_MOVETIME_MS} ms"
            ));
        }
        if nodes.is_some_and(|n| !(1..=MAX_NODES).contains(&n)) {
            return Err(format!("nodes must be between 1 and {MAX_NODES}"));
        }
        Ok(Job::Move {
            id,
            limits: MoveLimits { movetime, nodes },
        })
    }
}

/// The analysis as last reported by the search thread.
#[derive(Clone, Debug, Default)]
struct Snapshot {
    fen: String,
    depth: u32,
    seldepth: u32,
    multipv: u32,
    lines: Vec<Line>,
    last_sent: Option<Instant>,
}

struct Running {
    shared: Arc<Shared>,
    handle: JoinHandle<()>,
    snapshot: Arc<Mutex<Snapshot>>,
    started: Instant,
    analysing: bool,
}

/// A tab's engine: its hash table, move-ordering history and running search.
pub struct Engine {
    tt: Arc<TranspositionTable>,
    history: Arc<HistoryStore>,
    hash_mb: u64,
    threads: u64,
    running: Option<Running>,
}

/// Most search threads a tab may use: the machine's cores, at most 8.
pub fn max_threads() -> u64 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u64)
        .unwrap_or(1)
        .clamp(1, 8)
}

impl Engine {
    pub fn new() -> Result<Engine, String> {
        Ok(Engine {
            tt: Arc::new(TranspositionTable::try_new(DEFAULT_HASH_MB as usize)?),
            history: Arc::default(),
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            running: None,
        })
    }

    pub fn hash_mb(&self) -> u64 {
        self.hash_mb
    }

    pub fn threads(&self) -> u64 {
        self.threads
    }

    /// Sets Hash (MB) and Threads within the bounds; stops a running search.
    pub fn set_options(&mut self, hash: Option<u64>, threads: Option<u64>) -> Result<(), String> {
        if let Some(h) = hash {
            if !(1..=MAX_HASH_MB).contains(&h) {
                return Err(format!("hash must be between 1 and {MAX_HASH_MB} MB"));
            }
        }
        if let Some(t) = threads {
            let max = max_threads();
            if !(1..=max).contains(&t) {
                return Err(format!("threads must be between 1 and {max}"));
            }
        }
        self.stop();
        if let Some(h) = hash {
            if h != self.hash_mb {
                self.tt = Arc::new(TranspositionTable::try_new(h as usize)?);
                self.hash_mb = h;
            }
        }
        if let Some(t) = threads {
            self.threads = t;
        }
        Ok(())
    }

    /// A new game or another variant: forget what was learnt.
    pub fn clear(&mut self) {
        self.stop();
        self.tt.clear();
        self.history.clear();
    }

    pub fn is_analysing(&self) -> bool {
        self.running.as_ref().is_some_and(|r| r.analysing)
    }

    /// Stops the running search, if any, and waits for its thread (which notices
    /// the stop flag at its next node). True if something was running.
    pub fn stop(&mut self) -> bool {
        match self.running.take() {
            None => false,
            Some(r) => {
                r.shared.stop.store(true, Ordering::Relaxed);
                if r.handle.join().is_err() {
                    log::error!("search thread panicked");
                }
                true
            }
        }
    }

    /// The running analysis with the current node count, for the periodic
    /// report.
    pub fn tick(&self) -> Option<Response> {
        let r = self.running.as_ref().filter(|r| r.analysing)?;
        let mut snap = r.snapshot.lock().ok()?;
        snap.last_sent = Some(Instant::now());
        Some(progress(&snap, &r.shared, r.started))
    }

    /// Starts `job` on `spec`'s position; reports go to `out`.
    pub fn start(
        &mut self,
        spec: &Spec,
        job: Job,
        out: UnboundedSender<Response>,
    ) -> Result<(), String> {
        self.stop();
        let multipv = match job {
            Job::Analyse { multipv } => multipv,
            Job::Move { .. } => 1,
        };
        let limits = match &job {
            Job::Analyse { .. } => Limits {
                infinite: true,
                ..Limits::default()
            },
            Job::Move { limits, .. } => Limits {
                movetime: limits.movetime,
                nodes: limits.nodes,
                ..Limits::default()
            },
        };
        let options = search::Options {
            threads: self.threads as usize,
            multipv: multipv as usize,
            ..search::Options::default()
        };
        let shared = Arc::new(Shared::with_history(
            Arc::clone(&self.tt),
            Arc::clone(&self.history),
        ));
        let snapshot = Arc::new(Mutex::new(Snapshot {
            multipv,
            ..Snapshot::default()
        }));
        let started = Instant::now();
        let analysing = matches!(job, Job::Analyse { .. });
        let thread_shared = Arc::clone(&shared);
        let thread_snapshot = Arc::clone(&snapshot);
        let spec = spec.clone();
        let handle = std::thread::Builder::new()
            .name("serve-search".into())
            .stack_size(64 * 1024 * 1024)
            .spawn(move || {
                let ctx = Ctx {
                    spec: &spec,
                    limits: &limits,
                    options: &options,
                    shared: &thread_shared,
                    snapshot: &thread_snapshot,
                    started,
                    out: &out,
                };
                with_variant!(spec.variant, V => run::<V>(&ctx, &job))
            })
            .map_err(|e| format!("could not start the search thread: {e}"))?;
        self.running = Some(Running {
            shared,
            handle,
            snapshot,
            started,
            analysing,
        });
        Ok(())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
    }
}

struct Ctx<'a> {
    spec: &'a Spec,
    limits: &'a Limits,
    options: &'a search::Options,
    shared: &'a Shared,
    snapshot: &'a Mutex<Snapshot>,
    started: Instant,
    out: &'a UnboundedSender<Response>,
}

fn progress(snap: &Snapshot, shared: &Shared, started: Instant) -> Response {
    let nodes = shared.nodes.load(Ordering::Relaxed);
    let time_ms = started.elapsed().as_millis() as u64;
    Response::Analysis(Box::new(AnalysisInfo {
        fen: snap.fen.clone(),
        depth: snap.depth,
        seldepth: snap.seldepth,
        nodes,
        nps: nodes.saturating_mul(1000) / time_ms.max(1),
        time_ms,
        multipv: snap.multipv,
        lines: snap.lines.clone(),
    }))
}

fn run<V: Variant>(ctx: &Ctx, job: &Job) {
    let start = match fen::parse::<V>(&ctx.spec.start_fen) {
        Ok(p) => p,
        Err(e) => {
            let _ = ctx.out.send(Response::error(Some("analyse"), e));
            return;
        }
    };
    let mut game = Game::new(start);
    for t in &ctx.spec.moves {
        if let Err(e) = game.play_token(t) {
            let _ = ctx.out.send(Response::error(Some("analyse"), e));
            return;
        }
    }
    let fen_now = fen::format(&game.pos);
    let white = game.pos.turn() == Color::White;
    if let Ok(mut s) = ctx.snapshot.lock() {
        s.fen = fen_now.clone();
    }
    let variant: VariantKind = ctx.spec.variant;
    let analysing = matches!(job, Job::Analyse { .. });
    let history = &game.keys[..game.keys.len() - 1];
    let mut report = |info: Info| {
        if !analysing {
            return;
        }
        let Ok(mut snap) = ctx.snapshot.lock() else {
            return;
        };
        let line = to_line(&info, variant, &fen_now, white);
        let k = info.multipv.saturating_sub(1);
        if k < snap.lines.len() {
            snap.lines[k] = line;
        } else {
            snap.lines.push(line);
        }
        if info.multipv == 1 || info.depth > snap.depth {
            snap.depth = snap.depth.max(info.depth);
            snap.seldepth = snap.seldepth.max(info.seldepth);
        }
        let due = snap.last_sent.is_none_or(|t| t.elapsed() >= MIN_GAP);
        if due {
            snap.last_sent = Some(Instant::now());
            let _ = ctx.out.send(progress(&snap, ctx.shared, ctx.started));
        }
    };
    let result = search::search(
        &game.pos,
        history,
        ctx.limits,
        ctx.options,
        ctx.shared,
        &mut report,
    );
    ctx.shared.finished.store(true, Ordering::Release);
    if let Job::Move { id, .. } = job {
        let _ = ctx.out.send(Response::Bestmove {
            id: *id,
            fen: fen_now,
            token: result.best,
        });
    }
}

fn to_line(info: &Info, variant: VariantKind, fen_now: &str, white: bool) -> Line {
    let sign = if white { 1 } else { -1 };
    let score = match info.score {
        search::Score::Cp(cp) => Score::Cp(cp * sign),
        search::Score::Mate(n) => Score::Mate(n * sign),
    };
    // A bound on the side to move's score, turned to White's view.
    let bound = match (info.bound, white) {
        (Some(Bound::Lower), true) | (Some(Bound::Upper), false) => Some("lower".to_string()),
        (Some(Bound::Upper), true) | (Some(Bound::Lower), false) => Some("upper".to_string()),
        _ => None,
    };
    Line {
        multipv: info.multipv,
        depth: info.depth,
        score,
        bound,
        pv_san: san_line(variant, fen_now, &info.pv),
        pv: info.pv.clone(),
    }
}
