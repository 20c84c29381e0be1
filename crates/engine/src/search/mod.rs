//! Alpha-beta search: iterative deepening PVS with quiescence, a shared
//! transposition table, null-move pruning where the variant allows it, late move
//! reductions, check extension, mate-distance scores, draw detection, MultiPV and
//! Lazy SMP over `Threads`.
//!
//! The search knows nothing of UCI: it reports through a callback with [`Info`]
//! values that the front end formats.

mod eval_cache;
pub mod ordering;
mod params;
pub mod see;
pub mod timeman;
pub mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use shakmaty::{Color, Role};

use crate::eval;
use crate::nnue::{AccumulatorStack, Network};
use crate::policy::Policy;
use turncoat_rules::game::{self, Outcome};
use turncoat_rules::moves::{Move, MoveList};
use turncoat_rules::position::Position;

use eval_cache::EvalCache;
use ordering::{pick_next, score_moves, Context, Heuristics, PieceTo, MAX_PLY};
use params::*;
pub use timeman::{Limits, TimeManager};
use tt::{move_fingerprint, Bound, TranspositionTable};

pub const INF: i32 = 32_000;
pub const MATE: i32 = 31_000;
/// Scores beyond this are mates (in plies from the root).
pub const MATE_BOUND: i32 = MATE - 2 * MAX_PLY as i32;

/// State shared by the front end and every search thread.
pub struct Shared {
    pub stop: AtomicBool,
    /// While set (`go ponder` before `ponderhit`), no limit ends the search:
    /// neither time nor nodes, and a search that ends by itself (depth, mate,
    /// a single legal move) waits before answering.
    pub pondering: AtomicBool,
    pub nodes: AtomicU64,
    /// Set by the front end just before it prints `bestmove`, so that a `go`
    /// arriving right after can join the finished thread instead of refusing.
    pub finished: AtomicBool,
    pub tt: Arc<TranspositionTable>,
    /// The threads' move-ordering statistics, carried from one search of a game
    /// to the next like the hash table (`ucinewgame` empties it).
    pub history: Arc<HistoryStore>,
}

impl Shared {
    pub fn new(tt: Arc<TranspositionTable>) -> Self {
        Self::with_history(tt, Arc::default())
    }

    pub fn with_history(tt: Arc<TranspositionTable>, history: Arc<HistoryStore>) -> Self {
        Shared {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            finished: AtomicBool::new(false),
            tt,
            history,
        }
    }
}

/// Move-ordering statistics left by the last search, one set per thread.
#[derive(Default)]
pub struct HistoryStore(std::sync::Mutex<Vec<Heuristics>>);

impl HistoryStore {
    /// A thread's statistics: the last search's if any, else fresh ones. Killers
    /// are per ply from the root, so they do not carry over.
    fn take(&self) -> Heuristics {
        let mut h = self
            .0
            .lock()
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_default();
        h.clear_killers();
        h
    }

    fn put(&self, h: Heuristics) {
        if let Ok(mut v) = self.0.lock() {
            v.push(h);
        }
    }

    /// Forgets everything (a new game, another variant).
    pub fn clear(&self) {
        if let Ok(mut v) = self.0.lock() {
            v.clear();
        }
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead: u64,
    /// Use the variant's own evaluation terms (UCI `VariantEval`).
    pub variant_eval: bool,
    /// Evaluate with the variant's network where it has one (UCI `Use NNUE`).
    pub use_nnue: bool,
    /// A network the user chose (UCI `EvalFile`, [`crate::nnue::keep`]): while
    /// `use_nnue` is on it evaluates in place of the variant's own, and gives
    /// a network to variants that ship none.
    pub network: Option<&'static Network>,
    /// The hand-written evaluation (without a network) with the hand-set
    /// values in every variant ([`eval::evaluate_hand_set`]): chess's tuned
    /// ones were fitted partly to Stockfish's scores.
    pub hand_set_eval: bool,
    /// Asked by the main search thread every 1024 nodes (with the nodes
    /// searched so far) whether to stop; see [`Poll`].
    pub poll: Option<Poll>,
}

/// A front end's say in a running search: called by the main search thread
/// every 1024 nodes with the nodes searched so far; `true` stops the search as
/// `stop` does. A front end that cannot set [`Shared::stop`] from another
/// thread (a browser's WebAssembly has one thread) reads its stop request
/// here, and reports progress on the way.
#[derive(Clone)]
pub struct Poll(pub Arc<dyn Fn(u64) -> bool + Send + Sync>);

impl std::fmt::Debug for Poll {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Poll")
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 1,
            multipv: 1,
            move_overhead: 10,
            variant_eval: true,
            use_nnue: true,
            network: None,
            hand_set_eval: false,
            poll: None,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Mate in N moves (negative: we are mated).
    Mate(i32),
}

impl Score {
    pub fn from_internal(s: i32) -> Score {
        if s >= MATE_BOUND {
            Score::Mate((MATE - s + 1) / 2)
        } else if s <= -MATE_BOUND {
            Score::Mate(-(MATE + s) / 2)
        } else {
            Score::Cp(s)
        }
    }
}

/// One `info` line's worth of facts.
#[derive(Clone, Debug)]
pub struct Info {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: usize,
    pub score: Score,
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: u32,
    pub time_ms: u64,
    pub pv: Vec<String>,
    /// A progress report during a long iteration: the root move being searched
    /// and its number (1-based), with no score or PV (`depth` is the iteration
    /// under way).
    pub currmove: Option<(String, usize)>,
}

#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub best: Option<String>,
    pub ponder: Option<String>,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
}

#[derive(Clone)]
struct RootMove {
    mv: Move,
    score: i32,
    pv: Vec<Move>,
    seldepth: u32,
}

/// Searches `pos` (reached through the positions whose keys are `history`, oldest
/// first, not including `pos`) under `limits`, reporting through `report`.
pub fn search<V: Policy>(
    pos: &Position<V>,
    history: &[u64],
    limits: &Limits,
    options: &Options,
    shared: &Shared,
    report: &mut dyn FnMut(Info),
) -> SearchResult {
    shared.nodes.store(0, Ordering::Relaxed);
    shared.tt.new_search();
    let tm = TimeManager::new(limits, pos.turn() == Color::White, options.move_overhead);

    let mut moves = MoveList::new();
    V::legal_moves(pos, &mut moves);
    // `searchmoves` naming no legal move is ignored rather than leaving us mute.
    if moves
        .iter()
        .any(|&m| limits.searchmoves.contains(&game::token(pos, m)))
    {
        moves.retain(|&m| limits.searchmoves.contains(&game::token(pos, m)));
    } else {
        moves.clear();
        V::root_moves(pos, &mut moves);
    }
    // Root moves start in the usual ordering (hash move, captures by value, ...)
    // so that even an interrupted first iteration looks at good moves first.
    {
        let tt_fp = shared.tt.probe(pos.key()).map_or(0, |e| e.move_fp);
        let mut scores = Vec::with_capacity(moves.len());
        score_moves(
            pos,
            &moves,
            tt_fp,
            &Heuristics::default(),
            0,
            &Context::ROOT,
            &mut scores,
        );
        let mut ordered: Vec<(i32, Move)> = scores.into_iter().zip(moves.iter().copied()).collect();
        ordered.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        moves = ordered.into_iter().map(|(_, m)| m).collect();
    }
    if moves.is_empty() {
        let score = terminal_score(pos, 0);
        report(Info {
            depth: 0,
            seldepth: 0,
            multipv: 1,
            score: Score::from_internal(score),
            bound: None,
            nodes: 0,
            nps: 0,
            hashfull: 0,
            time_ms: 0,
            pv: Vec::new(),
            currmove: None,
        });
        wait_while_infinite(limits, shared);
        return SearchResult {
            score,
            ..SearchResult::default()
        };
    }

    let helpers = options.threads.max(1) - 1;
    let result = std::thread::scope(|scope| {
        for id in 1..=helpers {
            let moves = moves.clone();
            let tm = tm.clone();
            scope.spawn(move || {
                let mut worker =
                    Worker::<V>::new(id, shared, limits, tm, history, options, moves, None);
                worker.iterate(pos);
                shared.history.put(worker.heur);
            });
        }
        let mut worker =
            Worker::<V>::new(0, shared, limits, tm, history, options, moves, Some(report));
        let result = worker.iterate(pos);
        shared.history.put(worker.heur);
        wait_while_infinite(limits, shared);
        shared.stop.store(true, Ordering::Relaxed);
        result
    });
    result
}

/// A silent single-threaded search with a fresh `hash_mb` table: deterministic
/// for a given position and limits (bench signatures, opening balance checks).
pub fn search_fresh<V: Policy>(
    pos: &Position<V>,
    history: &[u64],
    limits: &Limits,
    hash_mb: usize,
) -> SearchResult {
    let shared = Shared::new(Arc::new(TranspositionTable::new(hash_mb)));
    search(
        pos,
        history,
        limits,
        &Options::default(),
        &shared,
        &mut |_| {},
    )
}

/// UCI: after `go infinite` (or while pondering) `bestmove` waits for `stop`
/// (or `ponderhit`) even when the search has finished.
fn wait_while_infinite(limits: &Limits, shared: &Shared) {
    // A browser's WebAssembly has one thread: nothing could set `stop` while
    // this one waits (and it cannot sleep).
    if cfg!(all(target_arch = "wasm32", target_os = "unknown")) {
        return;
    }
    while (limits.infinite || shared.pondering.load(Ordering::Relaxed))
        && !shared.stop.load(Ordering::Relaxed)
    {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

fn terminal_score<V: Policy>(pos: &Position<V>, ply: usize) -> i32 {
    match V::no_legal_moves(pos) {
        Outcome::Win { winner, .. } if winner == pos.turn() => MATE - ply as i32,
        Outcome::Win { .. } => -MATE + ply as i32,
        Outcome::Draw { .. } => 0,
    }
}

/// The score of a position whose half-move clock has reached 100: a draw, unless
/// the side to move has no legal move, which the rules judge first
/// (`docs/RULES.md`, "Common: game end"): a mate on the 100th half-move wins.
fn fifty_move_score<V: Policy>(pos: &Position<V>, ply: usize) -> i32 {
    let mut moves = MoveList::new();
    V::legal_moves(pos, &mut moves);
    if moves.is_empty() {
        terminal_score(pos, ply)
    } else {
        0
    }
}

/// A centipawn margin of the search (reverse futility, futility, delta
/// pruning with the material a capture wins, the aspiration window), scaled
/// to the variant ([`Policy::MARGIN_PERCENT`]).
#[inline]
fn margin<V: Policy>(cp: i32) -> i32 {
    cp * V::MARGIN_PERCENT / 100
}

/// Late move reduction in plies: grows with depth and move number (a table of
/// `LMR_BASE + ln(depth) ln(index) / LMR_DIVISOR`, computed once).
fn lmr_reduction(depth: i32, move_index: usize) -> i32 {
    static TABLE: std::sync::OnceLock<Vec<[u8; 64]>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..64)
            .map(|d| {
                let mut row = [0u8; 64];
                for (i, r) in row.iter_mut().enumerate().skip(1) {
                    if d > 0 {
                        *r = (LMR_BASE + (d as f64).ln() * (i as f64).ln() / LMR_DIVISOR) as u8;
                    }
                }
                row
            })
            .collect()
    });
    table[depth.clamp(0, 63) as usize][move_index.min(63)] as i32
}

#[inline]
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

/// What a search result `best` is for the window it was searched with.
fn bound_of(best: i32, alpha: i32, beta: i32) -> Bound {
    if best >= beta {
        Bound::Lower
    } else if best > alpha {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// The stored score if its bound settles the window (alpha, beta).
fn tt_cutoff(e: &tt::Entry, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let s = score_from_tt(e.score, ply);
    let cut = match e.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    cut.then_some(s)
}

#[inline]
fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// What a node is expected to be, for its reductions: on the principal
/// variation (searched with an open window), expected to fail high (a cut
/// node: the child of a zero-window search of a late move), or expected to
/// fail low (an all node: the cut node's children after its first move).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Node {
    Pv,
    Cut,
    All,
}

impl Node {
    /// The kind of the first child searched: a cut node's refutation is
    /// expected to leave the child no good move, and the other way round.
    fn first_child(self) -> Node {
        match self {
            Node::Pv => Node::Pv,
            Node::Cut => Node::All,
            Node::All => Node::Cut,
        }
    }
}

struct Worker<'a, V: Policy> {
    id: usize,
    shared: &'a Shared,
    limits: &'a Limits,
    options: &'a Options,
    tm: TimeManager,
    was_pondering: bool,
    nodes: u64,
    unflushed: u64,
    seldepth: u32,
    stopped: bool,
    /// The root move that last beat the first one in the current aspiration
    /// attempt (a completed search), and whether its score is only a lower
    /// bound (it failed high): the answer if time runs out in that iteration.
    root_improver: Option<(usize, bool)>,
    heur: Heuristics,
    /// Keys of the game before the root, then of the search path.
    keys: Vec<u64>,
    move_buf: Vec<MoveList>,
    score_buf: Vec<Vec<i32>>,
    quiet_buf: Vec<MoveList>,
    pv: Vec<Vec<Move>>,
    /// Per ply, the move a singular-extension verification search leaves out
    /// (`Move::NULL` when none).
    excluded: Vec<Move>,
    /// Per ply, the move played from that ply's position (and its piece-to),
    /// which the next plies' ordering reads.
    played: Vec<(Move, PieceTo)>,
    /// Per ply, the static evaluation of the node there (`-INF` in check):
    /// whether the side to move is improving on its position two plies back.
    evals: Vec<i32>,
    root_moves: Vec<RootMove>,
    /// The network's accumulators, when the variant has a network and it is on.
    nnue: Option<AccumulatorStack>,
    /// The hand-written evaluation's recent scores (or a residual network's
    /// base), by position key.
    eval_cache: EvalCache,
    /// Where the main thread's `info` go (helpers: nowhere).
    report: Option<&'a mut dyn FnMut(Info)>,
    /// The root, the iteration under way and the root move being searched
    /// (with its index), for progress reports.
    root: Option<Position<V>>,
    depth: u32,
    current: (Move, usize),
    /// Elapsed milliseconds at the last `info` sent.
    last_report_ms: u64,
    _variant: std::marker::PhantomData<V>,
}

impl<'a, V: Policy> Worker<'a, V> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        id: usize,
        shared: &'a Shared,
        limits: &'a Limits,
        tm: TimeManager,
        history: &[u64],
        options: &'a Options,
        moves: MoveList,
        report: Option<&'a mut dyn FnMut(Info)>,
    ) -> Self {
        Worker {
            id,
            shared,
            limits,
            options,
            tm,
            was_pondering: shared.pondering.load(Ordering::Relaxed),
            nodes: 0,
            unflushed: 0,
            seldepth: 0,
            stopped: false,
            root_improver: None,
            heur: shared.history.take(),
            keys: history.to_vec(),
            move_buf: (0..MAX_PLY + 2)
                .map(|_| MoveList::with_capacity(64))
                .collect(),
            score_buf: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(64)).collect(),
            quiet_buf: (0..MAX_PLY + 2)
                .map(|_| MoveList::with_capacity(32))
                .collect(),
            pv: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(16)).collect(),
            excluded: vec![Move::NULL; MAX_PLY + 2],
            played: vec![(Move::NULL, PieceTo::NONE); MAX_PLY + 2],
            evals: vec![-INF; MAX_PLY + 2],
            root_moves: moves
                .into_iter()
                .map(|mv| RootMove {
                    mv,
                    score: -INF,
                    pv: vec![mv],
                    seldepth: 0,
                })
                .collect(),
            nnue: options
                .use_nnue
                .then(|| options.network.or_else(|| V::NETWORK.map(|n| n.network())))
                .flatten()
                .map(|net| AccumulatorStack::new(net, MAX_PLY + 2)),
            eval_cache: EvalCache::default(),
            report,
            root: None,
            depth: 0,
            current: (Move::NULL, 0),
            last_report_ms: 0,
            _variant: std::marker::PhantomData,
        }
    }

    fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + self.unflushed
    }

    /// Polls the stop conditions (every 1024 nodes, and in the main thread only
    /// for time).
    fn check_stop(&mut self) {
        // `stop` is polled at every node (one relaxed load): a node can be slow
        // in variants with thousands of moves, so 1024 of them may take long.
        if self.shared.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.unflushed >= 1024 {
            self.shared
                .nodes
                .fetch_add(self.unflushed, Ordering::Relaxed);
            self.unflushed = 0;
            if self.shared.stop.load(Ordering::Relaxed) {
                self.stopped = true;
                return;
            }
            if self.id == 0 {
                let pondering = self.shared.pondering.load(Ordering::Relaxed);
                if self.was_pondering && !pondering {
                    self.tm.restart();
                    self.was_pondering = false;
                }
                if !pondering && !self.limits.infinite && self.tm.hard_expired() {
                    self.stopped = true;
                    self.shared.stop.store(true, Ordering::Relaxed);
                    return;
                }
                if let Some(poll) = &self.options.poll {
                    if (poll.0)(self.total_nodes()) {
                        self.stopped = true;
                        self.shared.stop.store(true, Ordering::Relaxed);
                        return;
                    }
                }
                self.report_progress();
            }
        }
        if let Some(limit) = self.limits.nodes {
            let used = if self.options.threads <= 1 {
                self.nodes
            } else {
                self.total_nodes()
            };
            // While pondering no limit may end the search: UCI allows
            // `bestmove` only after `ponderhit` or `stop` (as Stockfish).
            if used >= limit && !self.shared.pondering.load(Ordering::Relaxed) {
                self.stopped = true;
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Sends an `info` line with the root move under way when a second has
    /// passed since the last one (main thread only), as Stockfish's `currmove`:
    /// a long iteration of a variant with many moves must not look dead.
    fn report_progress(&mut self) {
        const EVERY_MS: u64 = 1000;
        let ms = self.tm.elapsed().as_millis() as u64;
        if ms < self.last_report_ms + EVERY_MS || self.report.is_none() {
            return;
        }
        let (Some(root), (mv, index)) = (self.root, self.current) else {
            return;
        };
        if mv == Move::NULL {
            return;
        }
        let nodes = self.total_nodes();
        let info = Info {
            depth: self.depth,
            seldepth: self.seldepth.max(self.depth),
            multipv: 1,
            score: Score::Cp(0),
            bound: None,
            nodes,
            nps: nodes * 1000 / ms.max(1),
            hashfull: self.shared.tt.hashfull(),
            time_ms: ms,
            pv: Vec::new(),
            currmove: Some((game::token(&root, mv), index + 1)),
        };
        self.emit(info, ms);
    }

    fn emit(&mut self, info: Info, ms: u64) {
        self.last_report_ms = ms;
        if let Some(report) = self.report.as_mut() {
            report(info);
        }
    }

    fn iterate(&mut self, root: &Position<V>) -> SearchResult {
        self.root = Some(*root);
        self.evals[0] = if V::in_check(root) {
            -INF
        } else {
            self.evaluate(root, 0)
        };
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 4)
            .clamp(1, MAX_PLY as u32 - 4);
        let multipv = self.options.multipv.clamp(1, self.root_moves.len());
        let mut completed: Vec<RootMove> = self.root_moves.clone();
        let mut completed_depth = 0;
        let mut last_best = Move::NULL;
        let mut stable = 0;
        let start_depth = 1 + (self.id % 2) as u32;

        for depth in start_depth..=max_depth {
            self.seldepth = 0;
            self.depth = depth;
            for pv_idx in 0..multipv {
                let prev = self.root_moves[pv_idx].score;
                let mut delta = margin::<V>(ASPIRATION_WINDOW);
                let (mut alpha, mut beta) =
                    if depth >= ASPIRATION_MIN_DEPTH && prev.abs() < MATE_BOUND && prev > -INF {
                        (prev - delta, prev + delta)
                    } else {
                        (-INF, INF)
                    };
                loop {
                    let score = self.search_root(root, depth as i32, alpha, beta, pv_idx);
                    if self.stopped {
                        break;
                    }
                    if score <= alpha && alpha > -INF {
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INF);
                    } else if score >= beta && beta < INF {
                        beta = (score + delta).min(INF);
                    } else {
                        break;
                    }
                    delta += delta / ASPIRATION_GROWTH_DIVISOR;
                    if delta > ASPIRATION_MAX_WINDOW {
                        alpha = -INF;
                        beta = INF;
                    }
                }
                if self.stopped {
                    if multipv == 1 && completed_depth > 0 {
                        self.take_root_improver(root, depth, &mut completed);
                    }
                    break;
                }
                // Stable sort keeps earlier order among equals.
                self.root_moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                if self.id == 0 {
                    let info = self.info(root, depth, pv_idx);
                    let ms = info.time_ms;
                    self.emit(info, ms);
                }
            }
            if self.stopped {
                break;
            }
            // A later line's search can score above an earlier one (its tree
            // differs): the completed lines are shown again, best first.
            let lines = &mut self.root_moves[..multipv];
            if lines.windows(2).any(|w| w[0].score < w[1].score) {
                lines.sort_by_key(|rm| std::cmp::Reverse(rm.score));
                if self.id == 0 {
                    for k in 0..multipv {
                        let info = self.info(root, depth, k);
                        let ms = info.time_ms;
                        self.emit(info, ms);
                    }
                }
            }
            completed = self.root_moves.clone();
            completed_depth = depth;

            // Stop conditions between iterations.
            let best = &self.root_moves[0];
            if let Some(n) = self.limits.mate {
                if best.score >= MATE - (2 * n as i32 - 1) {
                    break;
                }
            }
            if best.mv == last_best {
                stable += 1;
            } else {
                stable = 0;
            }
            last_best = best.mv;
            if self.id == 0 {
                let pondering = self.shared.pondering.load(Ordering::Relaxed);
                if self.was_pondering && !pondering {
                    self.tm.restart();
                    self.was_pondering = false;
                }
                // The soft limit is the clock's even share, stretched or
                // shrunk by how settled the best move is.
                let scale = timeman::soft_scale(stable);
                if !pondering && !self.limits.infinite && self.tm.soft_expired(scale) {
                    break;
                }
                // A single legal move needs no thought when the clock runs.
                if self.root_moves.len() == 1
                    && !pondering
                    && !self.limits.infinite
                    && (self.limits.wtime.is_some() || self.limits.btime.is_some())
                {
                    break;
                }
            }
        }
        self.shared
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;

        // An interrupted iteration may have scrambled the order; use the last
        // completed one. If none completed (time ran out during depth 1), take
        // the best of the moves that were searched, else the best-ordered one.
        if completed_depth == 0 {
            completed = self.root_moves.clone();
            completed.sort_by_key(|rm| std::cmp::Reverse(rm.score));
            // Even a search stopped inside its first iteration says what it
            // knows before `bestmove` (runners log a score per move): the best
            // searched move's score, or the static evaluation when none was.
            if self.id == 0 {
                if completed[0].score <= -INF {
                    completed[0].score = self.evaluate(root, 0);
                }
                self.root_moves = completed.clone();
                let ms = self.tm.elapsed().as_millis() as u64;
                let info = self.info(root, 1, 0);
                self.emit(info, ms);
            }
        }
        let best = &completed[0];
        let mut pos = *root;
        game::play(&mut pos, best.mv);
        let ponder = best.pv.get(1).map(|&m| game::token(&pos, m));
        SearchResult {
            best: Some(game::token(root, best.mv)),
            ponder,
            score: best.score,
            depth: completed_depth,
            nodes: self.shared.nodes.load(Ordering::Relaxed),
        }
    }

    /// Time ran out inside an iteration. A root move that beat the first
    /// one there (the previous iteration's best, searched first) has a deeper
    /// search behind it than anything in `completed`: it becomes the answer,
    /// reported at the interrupted depth, as Stockfish does. Without one the
    /// last completed iteration stands.
    fn take_root_improver(
        &mut self,
        root: &Position<V>,
        depth: u32,
        completed: &mut Vec<RootMove>,
    ) {
        let Some((i, lower)) = self.root_improver else {
            return;
        };
        let improver = self.root_moves[i].clone();
        completed.retain(|rm| rm.mv != improver.mv);
        completed.insert(0, improver);
        if self.id == 0 {
            self.root_moves.clone_from(completed);
            let mut info = self.info(root, depth, 0);
            if lower {
                info.bound = Some(Bound::Lower);
            }
            let ms = info.time_ms;
            self.emit(info, ms);
        }
    }

    fn info(&self, root: &Position<V>, depth: u32, pv_idx: usize) -> Info {
        let rm = &self.root_moves[pv_idx];
        let mut pos = *root;
        let mut pv = Vec::with_capacity(rm.pv.len());
        for &mv in &rm.pv {
            pv.push(game::token(&pos, mv));
            game::play(&mut pos, mv);
        }
        // A mate's line can be cut short by a table cutoff; the table usually
        // still holds the rest, so follow it up to the mate (as Stockfish does),
        // so that GUIs and referees checking the line see the mate.
        if rm.score.abs() >= MATE_BOUND {
            let plies = (MATE - rm.score.abs()) as usize;
            let mut moves = MoveList::new();
            while pv.len() < plies {
                let Some(entry) = self.shared.tt.probe(pos.key()) else {
                    break;
                };
                moves.clear();
                V::legal_moves(&pos, &mut moves);
                let Some(&mv) = moves
                    .iter()
                    .find(|&&m| move_fingerprint(m) == entry.move_fp)
                else {
                    break;
                };
                pv.push(game::token(&pos, mv));
                game::play(&mut pos, mv);
            }
        }
        let nodes = self.total_nodes();
        let ms = self.tm.elapsed().as_millis() as u64;
        Info {
            depth,
            seldepth: rm.seldepth.max(depth),
            multipv: pv_idx + 1,
            score: Score::from_internal(rm.score),
            bound: None,
            nodes,
            nps: nodes * 1000 / ms.max(1),
            hashfull: self.shared.tt.hashfull(),
            time_ms: ms,
            pv,
            currmove: None,
        }
    }

    fn search_root(
        &mut self,
        root: &Position<V>,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        pv_idx: usize,
    ) -> i32 {
        let mut best = -INF;
        self.root_improver = None;
        self.keys.push(root.key());
        for i in pv_idx..self.root_moves.len() {
            let mv = self.root_moves[i].mv;
            self.current = (mv, i);
            self.played[0] = (mv, PieceTo::of(root, mv));
            let mut child = *root;
            game::play(&mut child, mv);
            self.shared.tt.prefetch(child.key());
            self.nodes += 1;
            self.unflushed += 1;
            let gives_check = V::in_check(&child);
            let new_depth = depth - 1 + i32::from(gives_check && V::CHECK_EXTENSION);
            let score = if i == pv_idx {
                -self.negamax(&child, new_depth, -beta, -alpha, 1, Node::Pv)
            } else {
                let mut s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, 1, Node::Cut);
                if s > alpha && s < beta && !self.stopped {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, 1, Node::Pv);
                }
                s
            };
            if self.stopped {
                break;
            }
            let rm = &mut self.root_moves[i];
            if i == pv_idx || score > alpha {
                rm.score = score;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(mv);
                rm.pv.extend_from_slice(&self.pv[1]);
            } else {
                rm.score = -INF;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                if i != pv_idx {
                    self.root_improver = Some((i, score >= beta));
                }
                if score >= beta {
                    break;
                }
            }
        }
        self.keys.pop();
        best
    }

    /// Has `pos` occurred before, in the game or on the search path? Only
    /// positions since the last clock reset can repeat where such a reset is
    /// irreversible; elsewhere the whole history is scanned, as the referee does.
    fn is_repetition(&self, pos: &Position<V>) -> bool {
        let n = self.keys.len();
        let limit = if V::CLOCK_RESET_IRREVERSIBLE {
            (pos.halfmoves() as usize).min(n)
        } else {
            n
        };
        let key = pos.key();
        let mut i = 2;
        while i <= limit {
            if self.keys[n - i] == key {
                return true;
            }
            i += 2;
        }
        false
    }

    /// The static evaluation from the side to move's view: the network where
    /// there is one, else the hand-written evaluation.
    fn evaluate(&mut self, pos: &Position<V>, ply: usize) -> i32 {
        let residual = match &mut self.nnue {
            Some(stack) => {
                let net = stack.evaluate(&V::network_boards(pos), pos.turn(), ply);
                if !stack.network().residual() {
                    return net;
                }
                Some(net)
            }
            None => None,
        };
        // The hand-written evaluation, or a residual network's base (the
        // cache holds one of the two kinds for the whole search).
        let key = pos.key();
        let hand = match self.eval_cache.get(key) {
            Some(score) => score,
            None => {
                let score = if residual.is_some() {
                    eval::residual_base(pos)
                } else if self.options.hand_set_eval {
                    eval::evaluate_hand_set(pos, self.options.variant_eval)
                } else {
                    eval::evaluate(pos, self.options.variant_eval)
                };
                self.eval_cache.put(key, score);
                score
            }
        };
        hand + residual.unwrap_or(0)
    }

    /// The main search: the score of `pos` from the side to move's view,
    /// searched `depth` plies deep in the window (`alpha`, `beta`), `ply` plies
    /// from the root; `node` is what the node is expected to be. Outside the
    /// window the score is only a bound. The steps are numbered in the order
    /// a node meets them, as in Stockfish's `search.cpp` (the numbers are
    /// ours).
    fn negamax(
        &mut self,
        pos: &Position<V>,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        node: Node,
    ) -> i32 {
        // Step 1. Initialize the node. At the horizon (or the deepest ply
        // the search keeps buffers for) quiescence takes over.
        let pv_node = node == Node::Pv;
        let cut_node = node == Node::Cut;
        self.pv[ply].clear();
        if depth <= 0 || ply >= MAX_PLY {
            return self.qsearch(pos, alpha, beta, ply, 0);
        }

        // Step 2. Check for an aborted search (`stop`, time, nodes).
        self.check_stop();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);

        // Step 3. Draws by rule end the line whatever the moves: the
        // fifty-move rule (unless the side to move has no legal move), a
        // repetition, insufficient material where the variant has that rule.
        if pos.halfmoves() >= 100 {
            return fifty_move_score(pos, ply);
        }
        if self.is_repetition(pos) {
            return 0;
        }
        if V::insufficient_material(pos) {
            return 0;
        }

        // Step 4. Mate distance pruning: no line from here can score better
        // than mating at the next ply or worse than being mated here, so a
        // shorter mate found nearer the root settles the window.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        // Step 5. Transposition table lookup. Outside the principal variation
        // a stored bound at least this deep that settles the window is the
        // answer; either way the stored move is tried first. A singular search
        // (Step 16) re-searching this node without one move ignores the
        // entry, which speaks of every move.
        let excluded = self.excluded[ply];
        let verifying = excluded != Move::NULL;
        let tt_entry = self.shared.tt.probe(pos.key());
        let tt_fp = tt_entry.map_or(0, |e| e.move_fp);
        if let Some(e) = tt_entry.filter(|_| !verifying) {
            if !pv_node && e.depth >= depth {
                if let Some(s) = tt_cutoff(&e, ply, alpha, beta) {
                    return s;
                }
            }
        }

        // Step 6. Internal iterative reduction: a node without a hash move
        // was not worth storing before, so it is probably not worth a
        // full-depth search now.
        let mut depth = depth;
        if depth >= IIR_MIN_DEPTH && tt_fp == 0 {
            depth -= IIR_REDUCTION;
        }

        // Step 7. Static evaluation (none in check, where the position is
        // not still enough to judge), and whether it improves on the side to
        // move's two plies back (or that node was in check). Where the
        // variant does not key a pruning to it, that pruning keeps its full
        // strength: reverse futility the full margin (as if not improving),
        // late move pruning the full count (as if improving). The hash score
        // refines the evaluation for Steps 8 and 9 where its bound says it is
        // closer to the truth and the variant allows it.
        let in_check = V::in_check(pos);
        let static_eval = if in_check {
            -INF
        } else {
            self.evaluate(pos, ply)
        };
        self.evals[ply] = static_eval;
        let improving = !in_check
            && ply >= 2
            && (self.evals[ply - 2] == -INF || static_eval > self.evals[ply - 2]);
        let rfp_improving = V::SELECTIVITY.improving_rfp && improving;
        let lmp_improving = !V::SELECTIVITY.improving_lmp || improving;
        let mut eval = static_eval;
        if let Some(e) = tt_entry.filter(|e| {
            V::SELECTIVITY.tt_refined_eval && !in_check && !verifying && e.score.abs() < MATE_BOUND
        }) {
            let s = score_from_tt(e.score, ply);
            if e.bound == Bound::Exact
                || (e.bound == Bound::Lower && s > eval)
                || (e.bound == Bound::Upper && s < eval)
            {
                eval = s;
            }
        }

        if !pv_node && !in_check && !verifying {
            // Step 8. Reverse futility pruning: at shallow depth, an
            // evaluation this far above beta is taken to stay above it.
            if depth <= RFP_MAX_DEPTH
                && eval - margin::<V>(RFP_MARGIN * (depth - i32::from(rfp_improving))) >= beta
                && beta.abs() < MATE_BOUND
            {
                return eval;
            }

            // Step 9. Null move pruning: if passing still holds beta, a real
            // move will too. Only where the variant allows a pass here and
            // the side to move has pieces besides king and pawns (zugzwang,
            // where passing would be best, is then unlikely).
            if V::NULL_MOVE
                && V::may_pass(pos)
                && depth >= NMP_MIN_DEPTH
                && eval >= beta
                && self.has_pieces(pos)
            {
                let r = NMP_BASE_REDUCTION + depth / NMP_DEPTH_DIVISOR;
                let mut child = *pos;
                child.play_null();
                self.played[ply] = (Move::NULL, PieceTo::NONE);
                self.keys.push(pos.key());
                let s = -self.negamax(
                    &child,
                    depth - 1 - r,
                    -beta,
                    -beta + 1,
                    ply + 1,
                    node.first_child(),
                );
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if s >= beta {
                    return if s >= MATE_BOUND { beta } else { s };
                }
            }
        }

        // Step 10. ProbCut: a good capture that beats beta by a margin in a
        // shallow search almost surely beats beta at full depth too. Skipped
        // when the table already holds a deep enough score short of that.
        if V::SEE
            && !pv_node
            && !in_check
            && !verifying
            && depth >= PROBCUT_MIN_DEPTH
            && beta.abs() < MATE_BOUND
        {
            let raised = beta + PROBCUT_MARGIN;
            let hopeless = tt_entry.is_some_and(|e| {
                e.depth >= depth - PROBCUT_STORED_REDUCTION && score_from_tt(e.score, ply) < raised
            });
            if !hopeless {
                if let Some(s) = self.probcut(pos, depth, raised, static_eval, ply, node) {
                    return s;
                }
                if self.stopped {
                    return 0;
                }
            }
        }

        // Step 11. Generate and order the moves. The variant's late moves
        // (`Policy::late_moves`) wait until the others are searched, unless
        // the hash move is among them or no other move exists. No move at
        // all: the variant's verdict (mate, stalemate, ...).
        let mut moves = std::mem::take(&mut self.move_buf[ply]);
        let mut scores = std::mem::take(&mut self.score_buf[ply]);
        let mut quiets = std::mem::take(&mut self.quiet_buf[ply]);
        moves.clear();
        quiets.clear();
        scores.clear();
        V::search_moves(pos, &mut moves);
        let ctx = self.context(ply);
        score_moves(pos, &moves, tt_fp, &self.heur, ply, &ctx, &mut scores);
        let mut late_pending = true;
        if moves.is_empty() || (tt_fp != 0 && !ordering::holds_tt_move(&scores)) {
            V::late_moves(pos, &mut moves);
            score_moves(pos, &moves, tt_fp, &self.heur, ply, &ctx, &mut scores);
            late_pending = false;
        }
        if moves.is_empty() {
            self.move_buf[ply] = moves;
            self.score_buf[ply] = scores;
            self.quiet_buf[ply] = quiets;
            return terminal_score(pos, ply);
        }

        // Step 12. Loop through the moves, best-ordered first.
        let original_alpha = alpha;
        let mut multi_cut = None;
        let mut best_score = -INF;
        let mut best_move = Move::NULL;
        let mut quiets_seen = 0;
        let prune_quiets = !pv_node && !in_check;
        // Late move pruning: at shallow depth, late quiet moves rarely
        // matter. Futility pruning: nor do quiet moves far below alpha.
        let late_pruned = |i: usize, quiets_seen: i32, best_score: i32, alpha: i32| {
            prune_quiets
                && i > 0
                && best_score > -MATE_BOUND
                && ((depth <= LMP_MAX_DEPTH
                    && quiets_seen > (LMP_BASE + depth * depth) / (2 - i32::from(lmp_improving)))
                    || (depth <= FP_MAX_DEPTH
                        && static_eval + margin::<V>(FP_BASE + FP_DEPTH_MUL * depth) <= alpha))
        };
        self.keys.push(pos.key());
        for i in 0.. {
            // Step 13. The late stage, when the other moves are done, unless
            // pruning would skip every move of it.
            if i == moves.len() {
                if !late_pending
                    || (V::REDUCE_BAD_NOISY && late_pruned(i, quiets_seen, best_score, alpha))
                {
                    break;
                }
                late_pending = false;
                V::late_moves(pos, &mut moves);
                if i == moves.len() {
                    break;
                }
                score_moves(pos, &moves, tt_fp, &self.heur, ply, &ctx, &mut scores);
            }
            pick_next(&mut moves, &mut scores, i);
            let mv = moves[i];
            if mv == excluded {
                continue;
            }
            let noisy = V::is_noisy(pos, mv);
            if !noisy {
                quiets_seen += 1;
            }

            // Step 14. Pruning at shallow depth. Where the variant allows it,
            // a noisy move that probably loses material is reduced and pruned
            // like a quiet one.
            let reducible = !noisy || (V::REDUCE_BAD_NOISY && V::bad_noisy(pos, mv));
            if reducible && late_pruned(i, quiets_seen, best_score, alpha) {
                continue;
            }
            // Another choice of a quiet move already searched at this node
            // (another placement of its pawn) rarely beats the first one.
            // (Asked only where it matters: the scan is not free.)
            let repeats = || quiets.iter().any(|q| q.from == mv.from && q.to == mv.to);
            // Repeat pruning: at shallow depth such a quiet move is skipped.
            if prune_quiets
                && !noisy
                && depth <= V::REPEAT_PRUNE_DEPTH
                && best_score > -MATE_BOUND
                && repeats()
            {
                continue;
            }
            // SEE pruning: at low depth, moves that lose material by exchange
            // beyond a margin growing with depth are not worth a node.
            if V::SEE && !in_check && i > 0 && best_score > -MATE_BOUND {
                let margin = if noisy {
                    (depth <= SEE_NOISY_MAX_DEPTH).then_some(SEE_NOISY_MARGIN * depth)
                } else {
                    (depth <= SEE_QUIET_MAX_DEPTH).then_some(SEE_QUIET_MARGIN * depth * depth)
                };
                if margin.is_some_and(|m| !see::see_ge(pos, mv, m)) {
                    continue;
                }
            }

            // Step 15. Make the move.
            let mut child = *pos;
            game::play(&mut child, mv);
            self.shared.tt.prefetch(child.key());
            self.nodes += 1;
            self.unflushed += 1;
            let gives_check = V::in_check(&child);
            let piece_to = PieceTo::of(pos, mv);

            // Step 16. Extensions. A check is searched a ply deeper where the
            // variant extends checks. Singular extension: when every other
            // move falls well short of the hash move's stored score, the hash
            // move is forced; it is searched a ply deeper.
            let mut new_depth = depth - 1 + i32::from(gives_check && V::CHECK_EXTENSION);
            if i == 0 && !verifying && !gives_check && depth >= SINGULAR_MIN_DEPTH {
                if let Some(e) = tt_entry.filter(|e| {
                    e.move_fp == move_fingerprint(mv)
                        && e.depth >= depth - SINGULAR_TT_DEPTH_SLACK
                        && e.bound != Bound::Upper
                        && e.score.abs() < MATE_BOUND
                }) {
                    let singular_beta = score_from_tt(e.score, ply) - SINGULAR_MARGIN_MUL * depth;
                    // The singular search: this node again without the hash
                    // move, at half the depth, in a zero window at singular
                    // beta. It re-enters this ply and pushes this position's
                    // key itself.
                    self.keys.pop();
                    self.excluded[ply] = mv;
                    let s = self.negamax(
                        pos,
                        (depth - 1) / SINGULAR_DEPTH_DIVISOR,
                        singular_beta - 1,
                        singular_beta,
                        ply,
                        if cut_node { Node::Cut } else { Node::All },
                    );
                    self.excluded[ply] = Move::NULL;
                    self.keys.push(pos.key());
                    if self.stopped {
                        break;
                    }
                    if s < singular_beta {
                        new_depth += 1;
                    } else if V::SELECTIVITY.multi_cut && singular_beta >= beta {
                        // Multi-cut: another move beats beta as well, so this
                        // node fails high whatever the hash move gives.
                        multi_cut = Some(singular_beta);
                        break;
                    } else if V::SELECTIVITY.negative_extension
                        && score_from_tt(e.score, ply) >= beta
                    {
                        // Negative extension: not forced, and expected to
                        // fail high anyway; the hash move is searched a ply
                        // shallower.
                        new_depth -= 1;
                    }
                }
            }

            // Step 17. Search the move: the first with the full window, the
            // others with a zero window (principal variation search).
            self.played[ply] = (mv, piece_to);
            let score = if i == 0 {
                -self.negamax(
                    &child,
                    new_depth,
                    -beta,
                    -alpha,
                    ply + 1,
                    node.first_child(),
                )
            } else {
                // Late move reductions for quiet moves that are ordered late
                // (checks too where the variant does not extend them).
                let mut r = 0;
                if depth >= LMR_MIN_DEPTH
                    && i >= LMR_MIN_MOVE
                    && reducible
                    && !in_check
                    && (!gives_check || !V::CHECK_EXTENSION)
                {
                    r = lmr_reduction(depth, i);
                    if pv_node {
                        r -= 1;
                    }
                    // A node expected to fail high needs only one good move;
                    // a worsening position's late moves are less likely.
                    r += i32::from(V::SELECTIVITY.cut_node_lmr && cut_node);
                    r += i32::from(V::SELECTIVITY.improving_lmr && !improving);
                    // Moves with a good history are reduced less, bad ones more.
                    let h = self.heur.quiet_score(pos.turn(), mv, piece_to, &ctx);
                    r -= (h / LMR_HISTORY_DIVISOR).clamp(-LMR_HISTORY_MAX, LMR_HISTORY_MAX);
                    // Another choice of a move already searched (Step 14)
                    // is reduced one ply more.
                    if repeats() {
                        r += 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                // A zero-window search at full depth expects the opposite of
                // this node; a reduced one expects to fail high. A reduced
                // move that beats alpha is searched again at full depth, and
                // on the principal variation one that lands inside the window
                // again with the full window.
                let full = if cut_node { Node::All } else { Node::Cut };
                let kind = if r > 0 { Node::Cut } else { full };
                let mut s = -self.negamax(&child, new_depth - r, -alpha - 1, -alpha, ply + 1, kind);
                if s > alpha && r > 0 && !self.stopped {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, full);
                }
                if s > alpha && s < beta && pv_node && !self.stopped {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, Node::Pv);
                }
                s
            };
            if self.stopped {
                break;
            }

            // Step 18. Check for a new best move: it extends the principal
            // variation, and at a cutoff a quiet move earns history (and the
            // quiet moves tried before it lose some).
            if score > best_score {
                best_score = score;
                best_move = mv;
                if score > alpha {
                    alpha = score;
                    if pv_node {
                        let (head, tail) = self.pv.split_at_mut(ply + 1);
                        head[ply].clear();
                        head[ply].push(mv);
                        head[ply].extend_from_slice(&tail[0]);
                    }
                    if score >= beta {
                        if !noisy {
                            self.heur.update_quiet(pos, &ctx, ply, mv, &quiets, depth);
                        }
                        break;
                    }
                }
            }
            if !noisy {
                quiets.push(mv);
            }
        }
        self.keys.pop();
        self.move_buf[ply] = moves;
        self.score_buf[ply] = scores;
        self.quiet_buf[ply] = quiets;

        // Step 19. Store the result in the transposition table (not a
        // singular search's, which left a move out, nor a stopped search's).
        if self.stopped {
            return 0;
        }
        if let Some(s) = multi_cut {
            return s;
        }
        let bound = bound_of(best_score, original_alpha, beta);
        if !verifying {
            self.shared.tt.store(
                pos.key(),
                best_move,
                score_to_tt(best_score, ply),
                depth,
                bound,
            );
        }
        best_score
    }

    /// Step 10's captures: the first whose exchange gains enough to lift the
    /// static eval to `raised` and that holds `raised` in quiescence and then in
    /// a search `PROBCUT_REDUCTION` plies shallower gives the node's
    /// (lower-bound) score.
    fn probcut(
        &mut self,
        pos: &Position<V>,
        depth: i32,
        raised: i32,
        static_eval: i32,
        ply: usize,
        node: Node,
    ) -> Option<i32> {
        let mut captures = std::mem::take(&mut self.move_buf[ply]);
        captures.clear();
        V::noisy_moves(pos, &mut captures);
        let mut result = None;
        self.keys.push(pos.key());
        for &mv in captures.iter() {
            if !see::see_ge(pos, mv, raised - static_eval) {
                continue;
            }
            let mut child = *pos;
            game::play(&mut child, mv);
            self.shared.tt.prefetch(child.key());
            self.nodes += 1;
            self.unflushed += 1;
            self.played[ply] = (mv, PieceTo::of(pos, mv));
            let mut s = -self.qsearch(&child, -raised, -raised + 1, ply + 1, 0);
            if s >= raised && !self.stopped {
                s = -self.negamax(
                    &child,
                    depth - PROBCUT_REDUCTION,
                    -raised,
                    -raised + 1,
                    ply + 1,
                    node.first_child(),
                );
            }
            if self.stopped {
                break;
            }
            if s >= raised {
                self.shared.tt.store(
                    pos.key(),
                    mv,
                    score_to_tt(s, ply),
                    depth - PROBCUT_STORED_REDUCTION,
                    Bound::Lower,
                );
                result = Some(s);
                break;
            }
        }
        self.keys.pop();
        self.move_buf[ply] = captures;
        result
    }

    /// The moves that led to the node at `ply`, for its move ordering.
    fn context(&self, ply: usize) -> Context {
        let back = |n: usize| {
            ply.checked_sub(n)
                .map_or((Move::NULL, PieceTo::NONE), |p| self.played[p])
        };
        Context {
            prev_move: back(1).0,
            prev: [back(1).1, back(2).1],
        }
    }

    /// Does the side to move have something besides king and pawns (null-move
    /// zugzwang guard)?
    fn has_pieces(&self, pos: &Position<V>) -> bool {
        let us = pos.us();
        (us & !(pos.by_role(Role::Pawn) | pos.by_role(Role::King))).any()
    }

    /// Quiescence: the score of `pos` (as [`Worker::negamax`]) once the
    /// main search's depth is spent, searching only the noisy moves (all
    /// moves in check) until the position is quiet, so that no exchange is
    /// judged half-way. `qply` counts its plies. Steps numbered as in
    /// `negamax`'s.
    fn qsearch(
        &mut self,
        pos: &Position<V>,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qply: usize,
    ) -> i32 {
        // Step 1. Check for an aborted search; at the deepest ply, the
        // static evaluation.
        self.check_stop();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        if ply >= MAX_PLY {
            return self.evaluate(pos, ply);
        }

        // Step 2. A draw by the fifty-move rule (the only draw by rule
        // looked for here).
        if pos.halfmoves() >= 100 {
            return fifty_move_score(pos, ply);
        }

        // Step 3. Transposition table lookup: any stored bound at depth >= 0
        // is at least a quiescence result, and its move is the best first try.
        let tt_entry = self.shared.tt.probe(pos.key());
        let tt_fp = tt_entry.map_or(0, |e| e.move_fp);
        if let Some(s) = tt_entry.and_then(|e| tt_cutoff(&e, ply, alpha, beta)) {
            return s;
        }

        // Step 4. Stand pat, or evade. In check (during the first
        // `QS_CHECK_PLIES` plies) every legal move is searched, and none is
        // the variant's verdict. Otherwise the side to move may stand on the
        // static evaluation, a lower bound of its score (it need not play a
        // noisy move): enough to cut at beta, or to raise alpha.
        let original_alpha = alpha;
        let in_check = qply < V::QS_CHECK_PLIES && V::in_check(pos);
        let mut moves = std::mem::take(&mut self.move_buf[ply]);
        let mut scores = std::mem::take(&mut self.score_buf[ply]);
        moves.clear();
        let mut best_score;
        let stand_pat;
        if in_check {
            V::legal_moves(pos, &mut moves);
            if moves.is_empty() {
                self.move_buf[ply] = moves;
                self.score_buf[ply] = scores;
                return terminal_score(pos, ply);
            }
            best_score = -INF;
            stand_pat = -INF;
        } else {
            stand_pat = self.evaluate(pos, ply);
            if stand_pat >= beta {
                self.move_buf[ply] = moves;
                self.score_buf[ply] = scores;
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
            V::noisy_moves(pos, &mut moves);
        }

        // Step 5. Order the moves and loop through them.
        let ctx = self.context(ply);
        scores.clear();
        score_moves(pos, &moves, tt_fp, &self.heur, ply, &ctx, &mut scores);
        let mut best_move = Move::NULL;
        for i in 0..moves.len() {
            pick_next(&mut moves, &mut scores, i);
            let mv = moves[i];

            // Step 6. Pruning (not in check).
            if !in_check {
                // Losing exchanges, which are skipped below, come last.
                if ordering::ordered_as_bad_noisy(scores[i]) {
                    break;
                }
                // Delta pruning: even winning this material cannot reach
                // alpha. And after the first `QS_CHECK_PLIES` plies only
                // moves that win material are tried, so quiescence ends.
                let gain = V::gain_estimate(pos, mv);
                if stand_pat + margin::<V>(gain + QS_DELTA_MARGIN) < alpha
                    || (gain <= 0 && qply >= V::QS_CHECK_PLIES)
                {
                    continue;
                }
                // Losing exchanges are not worth a quiescence node.
                if V::bad_noisy(pos, mv) {
                    continue;
                }
            }

            // Step 7. Make the move and search it.
            self.played[ply] = (mv, PieceTo::of(pos, mv));
            let mut child = *pos;
            game::play(&mut child, mv);
            self.shared.tt.prefetch(child.key());
            self.nodes += 1;
            self.unflushed += 1;
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1, qply + 1);
            if self.stopped {
                break;
            }

            // Step 8. Check for a new best move.
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = mv;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.move_buf[ply] = moves;
        self.score_buf[ply] = scores;

        // Step 9. Store the result in the transposition table, at depth 0.
        if !self.stopped {
            let bound = bound_of(best_score, original_alpha, beta);
            self.shared
                .tt
                .store(pos.key(), best_move, score_to_tt(best_score, ply), 0, bound);
        }
        best_score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use turncoat_rules::variants::chess::Chess;
    use turncoat_rules::variants::Variant;

    /// Below the principal variation, cut and all nodes alternate along the
    /// first moves searched.
    #[test]
    fn node_kinds_alternate_below_the_principal_variation() {
        assert_eq!(Node::Pv.first_child(), Node::Pv);
        assert_eq!(Node::Cut.first_child(), Node::All);
        assert_eq!(Node::All.first_child(), Node::Cut);
        assert_eq!(Node::Cut.first_child().first_child(), Node::Cut);
    }

    #[test]
    fn history_carries_over_until_cleared() {
        let store = HistoryStore::default();
        let pos = Position::<Chess>::startpos();
        let mut moves = MoveList::new();
        Chess::legal_moves(&pos, &mut moves);
        let (best, tried) = (moves[0], moves[1]);

        let mut h = store.take();
        assert_eq!(h.history(Color::White, best), 0);
        h.update_quiet(&pos, &Context::ROOT, 3, best, &[tried, best], 4);
        // Bonus 16 x 4^2 = 256 on the empty entry; the tried move loses as much.
        assert_eq!(h.history(Color::White, best), 256);
        assert_eq!(h.history(Color::White, tried), -256);
        assert_eq!(h.killers[3][0], best);
        store.put(h);

        let h = store.take();
        assert_eq!(h.history(Color::White, best), 256);
        assert_eq!(h.killers[3], [Move::NULL; 2], "killers start afresh");
        store.put(h);

        store.clear();
        assert_eq!(store.take().history(Color::White, best), 0);
    }
}
