//! Attending Pawns: a placement that captures or gives check is noisy, and the
//! evaluation weighs unattached pawns (which can only capture) and celebrities
//! that must find their pawn a square on every move.

use shakmaty::{attacks, Bitboard, Color, Role};

use super::{front_span, weights_for};
use crate::nnue::{self, embedded_network, EmbeddedNetwork, PieceBoards};
use crate::policy::Policy;
use crate::search::see;
use turncoat_rules::moves::{Move, MoveKind, MoveList};
use turncoat_rules::position::Position;
use turncoat_rules::variants::attending_pawns::{placements, AttendingPawns};
use turncoat_rules::variants::value_of;

/// An unattached pawn may only capture: it cannot advance or promote by itself.
const UNATTACHED_PAWN: i32 = -25;
/// A celebrity with a live pawn must find it a square on every move.
const ATTENDED_CELEBRITY: i32 = -6;
/// An attached pawn beside its celebrity shields it and keeps the choice cheap.
const PAWN_AT_HAND: i32 = 4;

impl Policy for AttendingPawns {
    /// Passing stays as harmless as in chess: celebrities keep their moves, and
    /// the usual pawn-ending guard of the search covers king-and-pawn zugzwang.
    const NULL_MOVE: bool = true;
    /// Trained on Attending Pawns' own self-play (docs/TRAINING.md, "Attending
    /// Pawns").
    const NETWORK: Option<EmbeddedNetwork> = Some(embedded_network!("attendingpawns.net"));

    // Chess's selectivity heuristics (`Selectivity`),
    // measured as a whole, lost here in a match (docs/STRENGTH.md, "Variant
    // guards"): the trait's default, `Selectivity::NONE`, stays.

    /// Off: most piece moves can place their pawn with check, so extending
    /// checks (and never reducing them) multiplied the tree: from the start
    /// position depth 11 took 19.6 M nodes with it, 3.7 M without.
    const CHECK_EXTENSION: bool = false;

    /// Two thirds: the network prices material at about half of chess's values
    /// (an extra queen at the start +5.27, the hand-written evaluation +10.49),
    /// so chess's margins pruned too little. From the start position in 5 s
    /// the search now completes depth 12 where it completed 10, and the change
    /// scored a little above the build before in a match (docs/STRENGTH.md,
    /// "Variant search").
    const MARGIN_PERCENT: i32 = 67;

    /// Two: most piece moves can place their pawn with check, so four plies of
    /// quiet checks in quiescence made a quarter more nodes.
    const QS_CHECK_PLIES: usize = 2;

    /// A piece move comes with up to six placements of its pawn; at depth 3
    /// and below only the first one searched is tried.
    const REPEAT_PRUNE_DEPTH: i32 = 3;

    /// A capture that loses the exchange (plain chess attackers) and whose
    /// placements capture nothing more: ordered after the quiet moves and left
    /// out of quiescence, whose capture chains otherwise explode. The main
    /// search still searches it in full (reducing it lost, see docs/STRENGTH.md).
    fn bad_noisy(pos: &Position<Self>, mv: Move) -> bool {
        mv.kind == MoveKind::Normal
            && mv.promotion.is_none()
            && pos.by_color(!pos.turn()).contains(mv.to)
            && Self::gain_estimate(pos, mv) <= pos.role_at(mv.to).map_or(0, value_of)
            && !see::see_ge(pos, mv, 0)
    }

    /// The forcing moves straight from the rulebook (quiescence generated every
    /// legal move and filtered it: a quarter of the time in this variant).
    fn noisy_moves(pos: &Position<Self>, out: &mut MoveList) {
        let checking = pos
            .king_of(!pos.turn())
            .map_or(Bitboard::EMPTY, |k| attacks::pawn_attacks(!pos.turn(), k));
        AttendingPawns::forcing_moves(pos, out, checking);
    }

    fn is_noisy(pos: &Position<Self>, mv: Move) -> bool {
        if mv.promotion.is_some()
            || mv.kind == MoveKind::EnPassant
            || (mv.kind == MoveKind::Normal && pos.occupied().contains(mv.to))
        {
            return true;
        }
        // A placement that captures or makes the pawn check the enemy king.
        let them = !pos.turn();
        let their_king = pos.by_piece(them.king());
        placements(mv).any(|(_, to)| {
            pos.by_color(them).contains(to)
                || (attacks::pawn_attacks(pos.turn(), to) & their_king).any()
        })
    }

    fn gain_estimate(pos: &Position<Self>, mv: Move) -> i32 {
        let base = match mv.kind {
            MoveKind::EnPassant => value_of(Role::Pawn),
            _ => pos.role_at(mv.to).map_or(0, value_of),
        };
        let promo = mv
            .promotion
            .map_or(0, |r| value_of(r) - value_of(Role::Pawn));
        let them = pos.by_color(!pos.turn());
        let placed: i32 = placements(mv)
            .filter(|&(_, to)| them.contains(to) && to != mv.to)
            .map(|(_, to)| pos.role_at(to).map_or(0, value_of))
            .sum();
        base + promo + placed
    }

    /// The pieces as they stand and, for a network with features for them
    /// (`nnue::Layout::Attendants`), which pawns attend a celebrity: a raid
    /// drags its pawn along, an unattached pawn can only capture.
    fn network_boards(pos: &Position<Self>) -> PieceBoards {
        let mut boards = nnue::piece_boards(pos);
        let attendants = pos.state().pawns();
        for color in [Color::White, Color::Black] {
            boards[nnue::ATTENDANTS + color.fold_wb(0, 1)] =
                attendants & pos.by_piece(color.pawn());
        }
        boards
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        side_terms(pos, Color::White) - side_terms(pos, Color::Black)
    }
}

/// The variant's terms for `color` (centipawns, positive is good for `color`).
///
/// These terms measured a gain in self-play (VariantEval on vs off), and the
/// passed-pawn discount of unattached pawns added to what the flat terms gave
/// alone (docs/STRENGTH.md, "The variants' own evaluation terms").
fn side_terms(pos: &Position<AttendingPawns>, color: Color) -> i32 {
    let links = pos.state();
    let ours = pos.by_color(color);
    let their_pawns = pos.by_piece((!color).pawn());
    let mut score = 0;
    for p in pos.by_role(Role::Pawn) & ours & !links.pawns() {
        score += UNATTACHED_PAWN;
        // The shared evaluation pays a passed pawn for the road ahead; an
        // unattached one can only walk it by capturing.
        if (front_span(p, color) & their_pawns).is_empty() {
            let w = weights_for::<AttendingPawns>().passed[color.relative_rank(p.rank()) as usize];
            score -= (w.0 + w.1) / 2;
        }
    }
    for c in links.celebrities() & ours {
        score += ATTENDED_CELEBRITY;
        if links
            .pawn_of(c)
            .is_some_and(|p| attacks::king_attacks(c).contains(p))
        {
            score += PAWN_AT_HAND;
        }
    }
    score
}
