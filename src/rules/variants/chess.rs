//! Standard chess: every default of [`Variant`] is FIDE chess, so this file only
//! names it. It is also the model for the other variants.

use super::Variant;
use crate::rules::movegen::{self, Legality, Stage};
use crate::rules::moves::MoveList;
use crate::rules::position::Position;

#[derive(Copy, Clone, Debug, Default)]
pub struct Chess;

impl Variant for Chess {
    const NAME: &'static str = "chess";
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const SEE: bool = true;
    /// The Texel-tuned evaluation was fitted to standard chess games.
    const TUNED_EVAL: bool = true;
    /// The network was trained on standard chess positions.
    const NNUE: bool = true;
    type State = ();

    fn count_legal_moves(pos: &Position<Self>, _buf: &mut MoveList) -> u64 {
        movegen::count_legal_chess(pos)
    }

    /// Generated directly rather than filtered from every legal move: the
    /// generator's noisy stage yields exactly the moves `is_noisy` accepts, in
    /// the same order, without building the quiet ones.
    fn noisy_moves(pos: &Position<Self>, out: &mut MoveList) {
        movegen::generate(pos, out, Legality::Legal, Stage::Noisy);
    }
}
