//! Standard chess: the shared evaluation is all there is (tuned tables, or the
//! network), and every search heuristic is safe.

use crate::nnue::{embedded_network, EmbeddedNetwork};
use crate::policy::{Policy, Selectivity};
use turncoat_rules::movegen::{self, Legality, Stage};
use turncoat_rules::moves::MoveList;
use turncoat_rules::position::Position;
use turncoat_rules::variants::chess::Chess;

impl Policy for Chess {
    const SEE: bool = true;
    /// The Texel-tuned evaluation was fitted to standard chess games.
    const TUNED_EVAL: bool = true;
    /// The search's selectivity was measured in chess: every heuristic on.
    const SELECTIVITY: Selectivity = Selectivity::CHESS;
    /// The network was trained on standard chess positions.
    const NETWORK: Option<EmbeddedNetwork> = Some(embedded_network!("chess.net"));

    /// Generated directly rather than filtered from every legal move: the
    /// generator's noisy stage yields exactly the moves `is_noisy` accepts, in
    /// the same order, without building the quiet ones.
    fn noisy_moves(pos: &Position<Self>, out: &mut MoveList) {
        movegen::generate(pos, out, Legality::Legal, Stage::Noisy);
    }
}
