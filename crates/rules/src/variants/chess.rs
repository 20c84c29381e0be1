//! Standard chess: every default of [`Variant`] is FIDE chess, so this file only
//! names it. It is also the model for the other variants.

use super::Variant;
use crate::movegen;
use crate::moves::MoveList;
use crate::position::Position;

#[derive(Copy, Clone, Debug, Default)]
pub struct Chess;

impl Variant for Chess {
    const NAME: &'static str = "chess";
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    /// SAN: the notation every chess program reads.
    const SHARED_NOTATION: bool = true;
    type State = ();
    type Cache = ();

    fn count_legal_moves(pos: &Position<Self>, _buf: &mut MoveList) -> u64 {
        movegen::count_legal_chess(pos)
    }
}
