//! The search's margins, reductions and depth limits, in the order the search
//! meets them. Centipawn margins are chess's: the search scales those marked
//! so by the variant's [`Policy::MARGIN_PERCENT`](crate::policy::Policy::MARGIN_PERCENT).
//! Depths are in plies of remaining depth at the node.
//!
//! Every value here shapes the search's trees: changing one changes the bench
//! signatures.

// Aspiration windows (iterative deepening at the root).

/// First iteration searched in a window around the previous iteration's score
/// rather than an open one: shallower scores are too unsettled to aim at.
pub const ASPIRATION_MIN_DEPTH: u32 = 5;
/// Half-width of the first aspiration window, in centipawns (scaled).
pub const ASPIRATION_WINDOW: i32 = 25;
/// After each failure the half-width grows by itself divided by this (by half).
pub const ASPIRATION_GROWTH_DIVISOR: i32 = 2;
/// A half-width beyond this (unscaled centipawns) gives up on the window and
/// searches with an open one.
pub const ASPIRATION_MAX_WINDOW: i32 = 1000;

// Internal iterative reduction.

/// Depth from which a node without a hash move is searched shallower.
pub const IIR_MIN_DEPTH: i32 = 4;
/// Plies taken off such a node's depth.
pub const IIR_REDUCTION: i32 = 1;

// Reverse futility pruning.

/// Deepest node whose static evaluation may stand in for a search when it is
/// far above beta.
pub const RFP_MAX_DEPTH: i32 = 6;
/// How far above beta the evaluation must be, per ply of depth, in
/// centipawns (scaled): `RFP_MARGIN * depth`, a ply less while improving where
/// [`Selectivity::improving_rfp`](crate::policy::Selectivity::improving_rfp) is on.
pub const RFP_MARGIN: i32 = 90;

// Null-move pruning.

/// Shallowest node that tries a null move.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Plies by which the null move's search is reduced (beyond the ply of the
/// pass itself) at any depth ...
pub const NMP_BASE_REDUCTION: i32 = 3;
/// ... plus one more per this many plies of depth.
pub const NMP_DEPTH_DIVISOR: i32 = 4;

// ProbCut.

/// Shallowest node that tries ProbCut.
pub const PROBCUT_MIN_DEPTH: i32 = 5;
/// How far above beta, in centipawns (not scaled: ProbCut needs static
/// exchange evaluation, so only plain chess exchanges use it), a capture must
/// hold in the shallow search to cut the node.
pub const PROBCUT_MARGIN: i32 = 200;
/// Plies by which ProbCut's verification search is shallower than the node.
pub const PROBCUT_REDUCTION: i32 = 4;
/// A ProbCut result is stored as a search this many plies shallower than the
/// node; a stored score at least that deep that falls short of the raised
/// beta says ProbCut would fail, and it is not tried.
pub const PROBCUT_STORED_REDUCTION: i32 = 3;

// Late move pruning and futility pruning (quiet moves, and the bad noisy
// moves of variants with `Policy::REDUCE_BAD_NOISY`).

/// Deepest node that stops trying quiet moves after a count of them.
pub const LMP_MAX_DEPTH: i32 = 4;
/// The count of quiet moves tried is `(LMP_BASE + depth²)`, halved when
/// not improving where [`Selectivity::improving_lmp`](crate::policy::Selectivity::improving_lmp)
/// is on.
pub const LMP_BASE: i32 = 3;
/// Deepest node that skips quiet moves when its static evaluation is far
/// below alpha.
pub const FP_MAX_DEPTH: i32 = 3;
/// How far below alpha, in centipawns (scaled): `FP_BASE + FP_DEPTH_MUL * depth`.
pub const FP_BASE: i32 = 100;
/// See [`FP_BASE`].
pub const FP_DEPTH_MUL: i32 = 120;

// Static exchange evaluation pruning (variants with `Policy::SEE`).

/// Deepest node that skips noisy moves losing material by exchange.
pub const SEE_NOISY_MAX_DEPTH: i32 = 6;
/// The exchange a noisy move may lose, per ply of depth, in centipawns
/// (negative: a loss): `SEE_NOISY_MARGIN * depth`.
pub const SEE_NOISY_MARGIN: i32 = -100;
/// Deepest node that skips quiet moves losing material by exchange.
pub const SEE_QUIET_MAX_DEPTH: i32 = 8;
/// The exchange a quiet move may lose, in centipawns (negative: a loss):
/// `SEE_QUIET_MARGIN * depth²`.
pub const SEE_QUIET_MARGIN: i32 = -20;

// Singular extension.

/// Shallowest node whose hash move is tested for being singular.
pub const SINGULAR_MIN_DEPTH: i32 = 8;
/// The hash entry must be at most this many plies shallower than the node.
pub const SINGULAR_TT_DEPTH_SLACK: i32 = 3;
/// The other moves must all fall short of the hash score by this much per ply
/// of depth (centipawns, not scaled): `singular beta = tt score -
/// SINGULAR_MARGIN_MUL * depth`.
pub const SINGULAR_MARGIN_MUL: i32 = 2;
/// The other moves are searched at `(depth - 1) / SINGULAR_DEPTH_DIVISOR`.
pub const SINGULAR_DEPTH_DIVISOR: i32 = 2;

// Late move reductions.

/// Shallowest node that reduces late moves.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Index (0-based, in search order) of the first move that may be reduced.
pub const LMR_MIN_MOVE: usize = 2;
/// The reduction table is `LMR_BASE + ln(depth) ln(move index) / LMR_DIVISOR`
/// plies, truncated.
pub const LMR_BASE: f64 = 0.75;
/// See [`LMR_BASE`].
pub const LMR_DIVISOR: f64 = 2.25;
/// A move's history score divided by this is taken off its reduction ...
pub const LMR_HISTORY_DIVISOR: i32 = 8000;
/// ... by at most this many plies either way.
pub const LMR_HISTORY_MAX: i32 = 2;

// Quiescence.

/// Delta pruning: a noisy move is skipped when the stand-pat score plus the
/// material it is estimated to win plus this margin (centipawns, scaled)
/// still falls short of alpha.
pub const QS_DELTA_MARGIN: i32 = 200;
