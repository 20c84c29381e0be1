//! The engine's side of a variant: which search heuristics its rules make safe,
//! which moves quiescence and the main search look at, how noisy moves are
//! ordered, and the variant's own evaluation terms. The rules themselves (moves,
//! effects, legality, game end, FEN) are [`Variant`]; this trait only adds what
//! a search needs to know, so the rules layer never names search or evaluation.
//!
//! Defaults are standard chess; each variant's implementation sits beside its
//! evaluation terms in `engine/eval/<variant>.rs`.

use shakmaty::Role;

use crate::nnue::{self, EmbeddedNetwork, PieceBoards};
use crate::search::see;
use turncoat_rules::moves::{Move, MoveKind, MoveList};
use turncoat_rules::position::Position;
use turncoat_rules::variants::{value_of, Variant};

/// The selectivity measured to pay in standard chess, one switch per
/// heuristic. "Improving" is a static evaluation above the side to move's two
/// plies back. Measured together in each variant (docs/STRENGTH.md, "Variant
/// guards"), and on where they did not lose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selectivity {
    /// Are late moves at an expected cut node (the zero-window child of a
    /// late move) reduced one ply more? A cut node needs only one good move.
    pub cut_node_lmr: bool,
    /// Are late moves reduced one ply more where the position is not
    /// improving? Its late moves are less likely to rescue it.
    pub improving_lmr: bool,
    /// Is reverse futility's margin a ply smaller while improving (an
    /// improving position is likelier to stay above beta)? Off: the full
    /// margin, as if never improving.
    pub improving_rfp: bool,
    /// Does late move pruning try half as many quiet moves where the position
    /// is not improving? Off: the full count, as if always improving.
    pub improving_lmp: bool,
    /// Does the hash score stand in for the static evaluation in reverse
    /// futility and the null move, where its bound says it is closer to the
    /// truth?
    pub tt_refined_eval: bool,
    /// Multi-cut: when the singular search finds another move that beats beta
    /// as well, does the node fail high at once?
    pub multi_cut: bool,
    /// Negative extension: is a hash move that is not singular, but whose
    /// stored score beats beta anyway, searched a ply shallower?
    pub negative_extension: bool,
}

impl Selectivity {
    /// None of the heuristics: where they lost as a whole.
    pub const NONE: Selectivity = Selectivity {
        cut_node_lmr: false,
        improving_lmr: false,
        improving_rfp: false,
        improving_lmp: false,
        tt_refined_eval: false,
        multi_cut: false,
        negative_extension: false,
    };
    /// Every heuristic, as standard chess's matches accepted them.
    pub const CHESS: Selectivity = Selectivity {
        cut_node_lmr: true,
        improving_lmr: true,
        improving_rfp: true,
        improving_lmp: true,
        tt_refined_eval: true,
        multi_cut: true,
        negative_extension: true,
    };
}

pub trait Policy: Variant {
    /// Is null-move pruning sound enough (no common zugzwang, passing not abusable)?
    const NULL_MOVE: bool = true;
    /// Are captures plain chess exchanges, so that static exchange evaluation
    /// predicts them? Off by default: most variants' captures do more.
    const SEE: bool = false;
    /// Does the shared evaluation use the Texel-tuned material, tables and
    /// weights (fitted to standard chess games) rather than the hand-set ones?
    const TUNED_EVAL: bool = false;

    /// Which of the selectivity heuristics measured to pay in standard chess
    /// the search uses (each can be taken on its own); none by default.
    const SELECTIVITY: Selectivity = Selectivity::NONE;

    /// The variant's own network (`engine/nnue.rs`), which evaluates positions
    /// when the `Use NNUE` option is on; `None` (the hand-written evaluation)
    /// until a network trained on the variant has won its match.
    const NETWORK: Option<EmbeddedNetwork> = None;
    /// May the main search reduce and prune the noisy moves that
    /// [`Policy::bad_noisy`] judges losing, as it does quiet moves (late move
    /// reductions, late move pruning, futility)? Off in chess, whose SEE pruning
    /// already handles them; on where a variant has many tactical moves that are
    /// mostly sacrifices (missiles that can be shot down, losing captures).
    const REDUCE_BAD_NOISY: bool = false;
    /// Is a move that gives check searched one ply deeper (and never reduced)?
    /// Off where checks are so common that extending them compounds.
    const CHECK_EXTENSION: bool = true;
    /// Quiescence plies during which check evasions are searched in full and
    /// noisy moves that win no material (a variant's quiet checks, even trades)
    /// are tried; beyond them only material-winning moves remain, so quiescence
    /// always ends.
    const QS_CHECK_PLIES: usize = 4;
    /// The search's centipawn margins (reverse futility, futility, quiescence
    /// delta pruning with the material value a capture is counted to win, the
    /// aspiration window) in percent of chess's, which were set for chess's
    /// material values. A variant whose evaluation prices material lower takes
    /// narrower ones, or chess's margins prune too little.
    const MARGIN_PERCENT: i32 = 100;

    /// Depth up to which the main search skips a quiet move whose from and to
    /// squares repeat a quiet move already searched at the node (another
    /// choice of the same move, such as another placement of its pawn). 0:
    /// never, as in chess, where no two quiet moves share them.
    const REPEAT_PRUNE_DEPTH: i32 = 0;

    /// May the side to move pass here (null-move pruning, where `NULL_MOVE`
    /// allows it at all)? Always, by default.
    fn may_pass(_pos: &Position<Self>) -> bool {
        true
    }

    /// Appends the moves the main search tries: every legal move, or a subset that
    /// loses nothing (Cruise Pawns skips dominated missile paths). Never used by
    /// perft, the referee or move parsing, which see `legal_moves`.
    fn search_moves(pos: &Position<Self>, out: &mut MoveList) {
        Self::legal_moves(pos, out);
    }

    /// Appends the moves the main search tries after every move of
    /// [`Policy::search_moves`], generated only when the node gets that far:
    /// moves that are costly to generate and that [`Policy::bad_noisy`] judges
    /// losing, so that they are ordered last anyway (and, with
    /// `REDUCE_BAD_NOISY`, pruned where late moves are). `search_moves` and
    /// these together are the moves the search may try. None by default.
    fn late_moves(_pos: &Position<Self>, _out: &mut MoveList) {}

    /// Appends the legal "noisy" moves (captures, promotions and the variant's
    /// tactical moves) searched in quiescence.
    fn noisy_moves(pos: &Position<Self>, out: &mut MoveList) {
        noisy_from_legal(pos, out);
    }

    /// Is `mv` tactical (for quiescence and move ordering)?
    fn is_noisy(pos: &Position<Self>, mv: Move) -> bool {
        mv.promotion.is_some()
            || mv.kind == MoveKind::EnPassant
            || (mv.kind == MoveKind::Normal && pos.occupied().contains(mv.to))
    }

    /// A quick material estimate of what `mv` wins, in centipawns, used to order
    /// noisy moves (MVV-LVA style). Variants count conversions here.
    fn gain_estimate(pos: &Position<Self>, mv: Move) -> i32 {
        let promotion = mv
            .promotion
            .map_or(0, |r| value_of(r) - value_of(Role::Pawn));
        let victim = match mv.kind {
            MoveKind::EnPassant => Some(Role::Pawn),
            _ => pos.role_at(mv.to),
        };
        victim.map_or(0, value_of) + promotion
    }

    /// Does the noisy move `mv` probably lose material (a capture losing the
    /// exchange, a missile that can be shot down)? Such moves are ordered after
    /// the quiet ones and skipped in quiescence. By default: static exchange
    /// evaluation where captures are plain exchanges (`SEE`), else never.
    fn bad_noisy(pos: &Position<Self>, mv: Move) -> bool {
        Self::SEE && !see::see_ge(pos, mv, 0)
    }

    /// The board the variant's network reads: the pieces as they stand, or as
    /// the variant's rules are bound to leave them (Pacifist: after the
    /// conversions that any move of the side to move triggers). The trainer
    /// reads positions through the same function.
    fn network_boards(pos: &Position<Self>) -> PieceBoards {
        nnue::piece_boards(pos)
    }

    /// The variant's own evaluation terms, centipawns from White's point of view,
    /// added to the shared material + piece-square evaluation.
    fn evaluate(_pos: &Position<Self>) -> i32 {
        0
    }
}

/// The legal moves that `is_noisy` accepts: the default quiescence generator,
/// and the fallback of variants that generate noisy moves more cleverly.
pub fn noisy_from_legal<V: Policy>(pos: &Position<V>, out: &mut MoveList) {
    let start = out.len();
    V::legal_moves(pos, out);
    let mut keep = start;
    for i in start..out.len() {
        if V::is_noisy(pos, out[i]) {
            out[keep] = out[i];
            keep += 1;
        }
    }
    out.truncate(keep);
}
