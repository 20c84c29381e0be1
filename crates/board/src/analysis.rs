//! One engine per tab: infinite analysis and engine moves through the engine's
//! own API ([`turncoat_engine::Engine`], the same one the UCI loop drives); this
//! file turns its events into the page's JSON.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use super::board::{san_line, Spec};
use super::protocol::{
    AnalysisInfo, Line, PageScore, PositionValue, Response, DEFAULT_HASH_MB, MAX_CLOCK_MS,
    MAX_HASH_MB, MAX_INCREMENT_MS, MAX_MOVETIME_MS, MAX_MULTIPV, MAX_NODES,
};
use turncoat_engine::clock::Instant;
use turncoat_engine::search::tt::Bound;
use turncoat_engine::search::{self, Info, Limits, Poll};
use turncoat_engine::Event;
use turncoat_rules::game::Setup;
use turncoat_rules::live::{LiveGame, Start};
use turncoat_rules::variants::VariantKind;

/// How often a running analysis reports at least (the page's refresh).
pub const TICK: Duration = Duration::from_millis(200);
/// Lines found between ticks are sent at once, but not more often than this.
const MIN_GAP: Duration = Duration::from_millis(100);

/// Where a tab's engine sends what its searches find (on the search's thread).
pub type Sink = Arc<dyn Fn(Response) + Send + Sync>;

/// What to search for. Serialisable: the browser's page hands a job to the
/// Web Worker that searches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "job", rename_all = "snake_case")]
pub enum Job {
    Analyse {
        multipv: u32,
    },
    Move {
        id: Option<u64>,
        limits: MoveLimits,
    },
    /// One position's value for a whole-game analysis: a search of `nodes`.
    Evaluate {
        id: Option<u64>,
        nodes: u64,
    },
}

/// An engine move's budget: a time, nodes, or both players' clocks (the
/// time left and the increments, in ms, as UCI's `go` takes them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveLimits {
    pub movetime: Option<u64>,
    pub nodes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wtime: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub btime: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winc: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binc: Option<u64>,
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

    pub fn engine_move(id: Option<u64>, limits: MoveLimits) -> Result<Job, String> {
        let clock = limits.wtime.is_some() || limits.btime.is_some();
        if limits.movetime.is_none() && limits.nodes.is_none() && !clock {
            return Err("go needs movetime (ms), nodes, or wtime and btime".to_string());
        }
        if limits
            .movetime
            .is_some_and(|t| !(1..=MAX_MOVETIME_MS).contains(&t))
        {
            return Err(format!(
                "movetime must be between 1 and {MAX_MOVETIME_MS} ms"
            ));
        }
        if limits.nodes.is_some_and(|n| !(1..=MAX_NODES).contains(&n)) {
            return Err(format!("nodes must be between 1 and {MAX_NODES}"));
        }
        if clock && (limits.wtime.is_none() || limits.btime.is_none()) {
            return Err("a clock needs both wtime and btime".to_string());
        }
        if (limits.winc.is_some() || limits.binc.is_some()) && !clock {
            return Err("winc and binc need wtime and btime".to_string());
        }
        if [limits.wtime, limits.btime]
            .into_iter()
            .flatten()
            .any(|t| t > MAX_CLOCK_MS)
        {
            return Err(format!("wtime and btime must be at most {MAX_CLOCK_MS} ms"));
        }
        if [limits.winc, limits.binc]
            .into_iter()
            .flatten()
            .any(|t| t > MAX_INCREMENT_MS)
        {
            return Err(format!(
                "winc and binc must be at most {MAX_INCREMENT_MS} ms"
            ));
        }
        Ok(Job::Move { id, limits })
    }

    pub fn evaluate(id: Option<u64>, nodes: u64) -> Result<Job, String> {
        if !(1..=MAX_NODES).contains(&nodes) {
            return Err(format!("nodes must be between 1 and {MAX_NODES}"));
        }
        Ok(Job::Evaluate { id, nodes })
    }
}

/// What an evaluation's search said last: its score (White's view), depth,
/// nodes.
#[derive(Clone, Debug, Default)]
struct Verdict {
    score: Option<PageScore>,
    depth: u32,
    nodes: u64,
}

/// The analysis as last reported by the search thread.
#[derive(Clone, Debug, Default)]
struct Snapshot {
    fen: String,
    /// White is to move in `fen` (what orders the lines).
    white: bool,
    depth: u32,
    seldepth: u32,
    nodes: u64,
    multipv: u32,
    lines: Vec<Line>,
    last_sent: Option<Instant>,
}

struct Running {
    snapshot: Arc<Mutex<Snapshot>>,
    started: Instant,
    analysing: bool,
}

/// A tab's engine: the engine session and the page's view of what it runs.
pub struct Tab {
    engine: turncoat_engine::Engine,
    hash_mb: u64,
    threads: u64,
    running: Option<Running>,
    out: Sink,
    interrupt: Option<fn() -> bool>,
}

/// Most search threads a tab may use: the machine's cores, at most 8 (one in
/// a browser's WebAssembly, which has no threads).
pub fn max_threads() -> u64 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u64)
        .unwrap_or(1)
        .clamp(1, 8)
}

/// Checks a client's Hash (MB) and Threads against the bounds.
pub fn check_options(
    hash: Option<u64>,
    threads: Option<u64>,
    max_threads: u64,
) -> Result<(), String> {
    if let Some(h) = hash {
        if !(1..=MAX_HASH_MB).contains(&h) {
            return Err(format!("hash must be between 1 and {MAX_HASH_MB} MB"));
        }
    }
    if let Some(t) = threads {
        if !(1..=max_threads).contains(&t) {
            return Err(format!("threads must be between 1 and {max_threads}"));
        }
    }
    Ok(())
}

impl Tab {
    /// An engine with the default hash table; what its searches find goes to
    /// `out`.
    pub fn new(out: Sink) -> Result<Tab, String> {
        Tab::with_hash(DEFAULT_HASH_MB, out)
    }

    /// An engine with a hash table of `hash_mb` MB (within the bounds).
    pub fn with_hash(hash_mb: u64, out: Sink) -> Result<Tab, String> {
        check_options(Some(hash_mb), None, 1)?;
        let mut engine = turncoat_engine::Engine::new(1);
        engine.set_hash(hash_mb as usize)?;
        Ok(Tab {
            engine,
            hash_mb,
            threads: 1,
            running: None,
            out,
            interrupt: None,
        })
    }

    /// Also stops a search when `interrupt` answers true (asked every 1024
    /// nodes): the stop request of a front end whose search runs on its only
    /// thread (a Web Worker), where [`Tab::stop`] cannot be called meanwhile.
    pub fn with_interrupt(mut self, interrupt: fn() -> bool) -> Tab {
        self.interrupt = Some(interrupt);
        self
    }

    pub fn hash_mb(&self) -> u64 {
        self.hash_mb
    }

    pub fn threads(&self) -> u64 {
        self.threads
    }

    /// Sets Hash (MB) and Threads within the bounds; stops a running search.
    pub fn set_options(&mut self, hash: Option<u64>, threads: Option<u64>) -> Result<(), String> {
        check_options(hash, threads, max_threads())?;
        self.stop();
        if let Some(h) = hash {
            if h != self.hash_mb {
                self.engine.set_hash(h as usize)?;
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
        self.engine.clear();
    }

    pub fn is_analysing(&self) -> bool {
        self.running.as_ref().is_some_and(|r| r.analysing)
    }

    /// Stops the running search, if any, and waits until it has ended. True if
    /// something was running.
    pub fn stop(&mut self) -> bool {
        let was_running = self.running.take().is_some();
        self.engine.stop();
        was_running
    }

    /// The running analysis with the current node count, for the periodic
    /// report, unless the search itself reported less than a [`TICK`] ago.
    pub fn tick(&self) -> Option<Response> {
        let r = self.running.as_ref().filter(|r| r.analysing)?;
        let mut snap = r.snapshot.lock().ok()?;
        due(&mut snap, self.engine.nodes(), r.started)
    }

    /// Starts `job` on `spec`'s position; reports go to the tab's sink (in a
    /// browser's WebAssembly, before this returns: the search runs here).
    pub fn start(&mut self, spec: &Spec, job: Job) -> Result<(), String> {
        let out = Arc::clone(&self.out);
        self.stop();
        let multipv = match job {
            Job::Analyse { multipv } => multipv,
            Job::Move { .. } | Job::Evaluate { .. } => 1,
        };
        let limits = match &job {
            Job::Analyse { .. } => Limits {
                infinite: true,
                ..Limits::default()
            },
            Job::Move { limits, .. } => Limits {
                movetime: limits.movetime,
                nodes: limits.nodes,
                wtime: limits.wtime,
                btime: limits.btime,
                winc: limits.winc,
                binc: limits.binc,
                ..Limits::default()
            },
            Job::Evaluate { nodes, .. } => Limits {
                nodes: Some(*nodes),
                ..Limits::default()
            },
        };
        let started = Instant::now();
        let analysing = matches!(job, Job::Analyse { .. });
        let snapshot = Arc::new(Mutex::new(Snapshot {
            multipv,
            ..Snapshot::default()
        }));
        // Every 1024 nodes: the periodic report of an analysis when one is
        // due (the server's timer does it too, between searches' polls), and
        // the front end's stop request.
        let poll = {
            let (snapshot, out, interrupt) =
                (Arc::clone(&snapshot), Arc::clone(&out), self.interrupt);
            Poll(Arc::new(move |nodes| {
                if analysing {
                    let report = snapshot
                        .lock()
                        .ok()
                        .and_then(|mut snap| due(&mut snap, nodes, started));
                    if let Some(r) = report {
                        out(r);
                    }
                }
                interrupt.is_some_and(|stop| stop())
            }))
        };
        let options = search::Options {
            threads: self.threads as usize,
            multipv: multipv as usize,
            poll: Some(poll),
            ..search::Options::default()
        };
        let setup = Setup {
            variant: spec.variant,
            fen: Some(spec.start_fen.clone()),
            moves: spec.moves.clone(),
        };
        let now = LiveGame::with_moves(spec.variant, Start::Fen(&spec.start_fen), &spec.moves)?;
        let (fen_now, white) = (now.fen(), now.side_to_move() == Color::White);
        if let Ok(mut snap) = snapshot.lock() {
            snap.fen = fen_now.clone();
            snap.white = white;
        }
        // Set before the search starts: in a browser's WebAssembly it has
        // ended when `go` returns.
        self.running = Some(Running {
            snapshot: Arc::clone(&snapshot),
            started,
            analysing,
        });
        let variant = spec.variant;
        let thread_snapshot = Arc::clone(&snapshot);
        let mut verdict = Verdict::default();
        self.engine
            .go(&setup, limits, options, move |event| match event {
                Event::Info(info) if matches!(job, Job::Evaluate { .. }) => {
                    // The last full line's score; a bound only until then.
                    if info.currmove.is_none()
                        && info.multipv == 1
                        && (info.bound.is_none() || verdict.score.is_none())
                    {
                        verdict.score = Some(to_line(&info, variant, &fen_now, white).score);
                        verdict.depth = info.depth;
                    }
                    verdict.nodes = verdict.nodes.max(info.nodes);
                }
                Event::Info(info) if analysing => {
                    let Ok(mut snap) = thread_snapshot.lock() else {
                        return;
                    };
                    // A progress report (the root move under way) has no line.
                    if info.currmove.is_some() {
                        snap.nodes = snap.nodes.max(info.nodes);
                        return;
                    }
                    place(&mut snap.lines, to_line(&info, variant, &fen_now, white));
                    if info.multipv == 1 || info.depth > snap.depth {
                        snap.depth = snap.depth.max(info.depth);
                        snap.seldepth = snap.seldepth.max(info.seldepth);
                    }
                    snap.nodes = snap.nodes.max(info.nodes);
                    if snap.last_sent.is_none_or(|t| t.elapsed() >= MIN_GAP) {
                        snap.last_sent = Some(Instant::now());
                        out(progress(&snap, started));
                    }
                }
                Event::BestMove { best, .. } => match job {
                    Job::Move { id, .. } => out(Response::Bestmove {
                        id,
                        fen: fen_now.clone(),
                        token: best,
                    }),
                    Job::Evaluate { id, .. } => {
                        let best_san = best.as_ref().and_then(|b| {
                            san_line(variant, &fen_now, std::slice::from_ref(b))
                                .into_iter()
                                .next()
                        });
                        match verdict.score {
                            Some(score) => out(Response::Evaluation {
                                id,
                                fen: fen_now.clone(),
                                value: match score {
                                    PageScore::Cp(cp) => PositionValue::Cp(cp),
                                    PageScore::Mate(n) => PositionValue::Mate(n),
                                },
                                depth: verdict.depth,
                                nodes: verdict.nodes,
                                best,
                                best_san,
                            }),
                            None => out(Response::error(
                                Some("evaluate"),
                                "the search found no score",
                            )
                            .with_id(id)),
                        }
                    }
                    Job::Analyse { .. } => {}
                },
                Event::Error(e) => {
                    out(Response::error(Some("analyse"), e.to_string()));
                }
                Event::Info(_) | Event::PerftMove { .. } | Event::PerftDone { .. } => {}
            })
            .inspect_err(|_| self.running = None)?;
        Ok(())
    }
}

/// The analysis with `nodes` searched, when the last report is a [`TICK`] old.
fn due(snap: &mut Snapshot, nodes: u64, started: Instant) -> Option<Response> {
    if snap.last_sent.is_some_and(|t| t.elapsed() < TICK) {
        return None;
    }
    snap.last_sent = Some(Instant::now());
    snap.nodes = snap.nodes.max(nodes);
    Some(progress(snap, started))
}

/// Puts `line` in its MultiPV slot. A move leads one line at a time: when the
/// search has reordered its lines (a new depth, or a depth's lines sorted
/// again), another slot may still show an older line of the same first move;
/// that slot takes the line `line` replaces, so the lines shown never repeat a
/// move.
fn place(lines: &mut Vec<Line>, line: Line) {
    let k = line.multipv.saturating_sub(1);
    if k >= lines.len() {
        lines.push(line);
        return;
    }
    let stale = lines
        .iter()
        .enumerate()
        .position(|(j, l)| j != k && !l.pv.is_empty() && l.pv.first() == line.pv.first());
    let replaced = std::mem::replace(&mut lines[k], line);
    if let Some(j) = stale {
        lines[j] = Line {
            multipv: j + 1,
            ..replaced
        };
    }
}

/// How good `score` (White's view) is for the side to move: higher is
/// better; a mate to give beats any centipawn score and a quicker one beats a
/// slower, a mate to suffer is worse than any and a later one is better.
fn merit(score: PageScore, white: bool) -> i64 {
    /// Above every centipawn score the engine reports.
    const MATE_MERIT: i64 = 1_000_000;
    let sign = if white { 1 } else { -1 };
    match score {
        PageScore::Cp(cp) => i64::from(cp * sign),
        PageScore::Mate(n) if n * sign > 0 => MATE_MERIT - i64::from(n.abs()),
        PageScore::Mate(n) => -MATE_MERIT + i64::from(n.abs()),
    }
}

/// The lines as the page lists them: best first for the side to move, a
/// deeper line before a shallower one of the same score. The search fills
/// its MultiPV slots one at a time, so between two iterations a slot may
/// still hold the last depth's line, better or worse than the new ones.
fn sorted_lines(lines: &[Line], white: bool) -> Vec<Line> {
    let mut out = lines.to_vec();
    out.sort_by(|a, b| {
        merit(b.score, white)
            .cmp(&merit(a.score, white))
            .then(b.depth.cmp(&a.depth))
            .then(a.multipv.cmp(&b.multipv))
    });
    out
}

fn progress(snap: &Snapshot, started: Instant) -> Response {
    let time_ms = started.elapsed().as_millis() as u64;
    Response::Analysis(Box::new(AnalysisInfo {
        fen: snap.fen.clone(),
        depth: snap.depth,
        seldepth: snap.seldepth,
        nodes: snap.nodes,
        nps: snap.nodes.saturating_mul(1000) / time_ms.max(1),
        time_ms,
        multipv: snap.multipv,
        lines: sorted_lines(&snap.lines, snap.white),
    }))
}

fn to_line(info: &Info, variant: VariantKind, fen_now: &str, white: bool) -> Line {
    let sign = if white { 1 } else { -1 };
    let score = match info.score {
        search::Score::Cp(cp) => PageScore::Cp(cp * sign),
        search::Score::Mate(n) => PageScore::Mate(n * sign),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn line(multipv: usize, depth: u32, first: &str) -> Line {
        Line {
            multipv,
            depth,
            score: PageScore::Cp(0),
            bound: None,
            pv: vec![first.to_string()],
            pv_san: vec![],
        }
    }

    fn scored(multipv: usize, depth: u32, score: PageScore) -> Line {
        Line {
            score,
            ..line(multipv, depth, "e2e4")
        }
    }

    /// The update (+0.71 / +0.73 / +0.62 at depth 16 with White to
    /// move) comes out best first; mates first or last, by their length; with
    /// Black to move the order turns over.
    #[test]
    fn lines_are_listed_best_first_for_the_side_to_move() {
        use PageScore::{Cp, Mate};
        let lines = vec![
            scored(1, 16, Cp(71)),
            scored(2, 16, Cp(73)),
            scored(3, 15, Cp(62)),
        ];
        let order = |lines: &[Line], white| -> Vec<usize> {
            sorted_lines(lines, white)
                .iter()
                .map(|l| l.multipv)
                .collect()
        };
        assert_eq!(order(&lines, true), [2, 1, 3]);
        assert_eq!(order(&lines, false), [3, 1, 2]);
        // Equal scores: the deeper line first.
        let tied = vec![scored(1, 15, Cp(20)), scored(2, 16, Cp(20))];
        assert_eq!(order(&tied, true), [2, 1]);
        let mates = vec![
            scored(1, 9, Mate(-2)),
            scored(2, 9, Cp(900)),
            scored(3, 9, Mate(5)),
            scored(4, 9, Mate(3)),
            scored(5, 9, Mate(-7)),
        ];
        assert_eq!(order(&mates, true), [4, 3, 2, 5, 1]);
        assert_eq!(order(&mates, false), [1, 5, 2, 3, 4]);
    }

    #[test]
    fn a_line_moving_up_takes_its_old_slot_with_it() {
        let mut lines = vec![line(1, 8, "e2e4"), line(2, 8, "d2d4"), line(3, 8, "g1f3")];
        // Depth 9 finds g1f3 best: e2e4's depth-8 line takes slot 3.
        place(&mut lines, line(1, 9, "g1f3"));
        assert_eq!(
            lines,
            vec![line(1, 9, "g1f3"), line(2, 8, "d2d4"), line(3, 8, "e2e4")]
        );
        // A new move in slot 2: nothing to swap.
        place(&mut lines, line(2, 9, "c2c4"));
        assert_eq!(
            lines,
            vec![line(1, 9, "g1f3"), line(2, 9, "c2c4"), line(3, 8, "e2e4")]
        );
        // The first lines of an analysis arrive in order.
        let mut fresh = Vec::new();
        place(&mut fresh, line(1, 1, "e2e4"));
        place(&mut fresh, line(2, 1, "d2d4"));
        assert_eq!(fresh, vec![line(1, 1, "e2e4"), line(2, 1, "d2d4")]);
    }
}
