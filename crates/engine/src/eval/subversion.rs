//! Subversion: every subversion is noisy (it changes material), ordered by its
//! swing less its price, and the evaluation counts the waiting side's threats.

use shakmaty::{Bitboard, Color, Role, Square};

use crate::nnue::{embedded_network, EmbeddedNetwork};
use crate::policy::{noisy_from_legal, Policy, Selectivity};
use crate::search::see;
use turncoat_rules::movegen::{self, Legality, Stage};
use turncoat_rules::moves::{Move, MoveKind, MoveList};
use turncoat_rules::position::Position;
use turncoat_rules::variants::subversion::{
    generate_subversions, subvertible, Subversion, SUBVERSION,
};
use turncoat_rules::variants::{best_two, value_of};

impl Policy for Subversion {
    /// Captures that lose the exchange and subversions that cost more than they
    /// swing are mostly sacrifices. (The main search tries every payment:
    /// trying only the two cheapest per target scored lower in matches;
    /// docs/STRENGTH.md, "Variant search".)
    const REDUCE_BAD_NOISY: bool = true;
    /// Trained on Subversion's own self-play (docs/TRAINING.md, "Subversion").
    const NETWORK: Option<EmbeddedNetwork> = Some(embedded_network!("subversion.net"));
    /// Chess's selectivity, measured as a whole, did not lose here
    /// (docs/STRENGTH.md, "Variant guards").
    const SELECTIVITY: Selectivity = Selectivity::CHESS;

    /// Captures, promotions and subversions (each changes material), one payment
    /// per target: the cheapest. In check the full list is needed anyway:
    /// whether a subversion is legal there depends on the existence of a legal
    /// ordinary move.
    fn noisy_moves(pos: &Position<Self>, out: &mut MoveList) {
        let start = out.len();
        if pos.checkers().any() {
            noisy_from_legal(pos, out);
        } else {
            movegen::generate(pos, out, Legality::Legal, Stage::Noisy);
            generate_subversions(pos, out, true);
        }
        keep_cheapest_payments(pos, out, start);
    }

    /// A capture losing the exchange (plain chess captures), or a subversion
    /// whose price exceeds its swing.
    fn bad_noisy(pos: &Position<Self>, mv: Move) -> bool {
        if mv.kind == SUBVERSION {
            Self::gain_estimate(pos, mv) < 0
        } else {
            !see::see_ge(pos, mv, 0)
        }
    }

    fn is_noisy(pos: &Position<Self>, mv: Move) -> bool {
        mv.kind == SUBVERSION
            || mv.promotion.is_some()
            || mv.kind == MoveKind::EnPassant
            || (mv.kind == MoveKind::Normal && pos.occupied().contains(mv.to))
    }

    /// A subversion swings the target's value twice (they lose it, we gain it) and
    /// costs what is paid. Among pawn payments the least advanced pawn (the least
    /// useful one) is tried first.
    fn gain_estimate(pos: &Position<Self>, mv: Move) -> i32 {
        if mv.kind == SUBVERSION {
            let target = pos.role_at(mv.to).map_or(0, value_of);
            let us = pos.turn();
            let mut cost = 0;
            for sq in Bitboard(mv.extra) {
                if let Some(role) = pos.role_at(sq) {
                    cost += value_of(role);
                    if role == Role::Pawn {
                        cost += 4 * relative_rank(us, sq);
                    }
                }
            }
            return 2 * target - cost;
        }
        let victim = match mv.kind {
            MoveKind::EnPassant => Some(Role::Pawn),
            _ => pos.role_at(mv.to),
        };
        victim.map_or(0, value_of)
            + mv.promotion
                .map_or(0, |r| value_of(r) - value_of(Role::Pawn))
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        let penalty = threats_against_mover(pos);
        if pos.turn() == Color::White {
            -penalty
        } else {
            penalty
        }
    }
}

/// Keeps, of the subversions in `out[start..]`, the best payment for each
/// target by [`Policy::gain_estimate`] (cheapest, then least advanced pawns; ties
/// in generation order); other moves stay as they are. Two passes over the
/// list and a table by target square, no allocation: this runs at every
/// quiescence node.
fn keep_cheapest_payments(pos: &Position<Subversion>, out: &mut MoveList, start: usize) {
    // Per target square: the index of its best payment so far, and its gain.
    let mut best: [Option<(usize, i32)>; 64] = [None; 64];
    for (i, mv) in out.iter().enumerate().skip(start) {
        if mv.kind != SUBVERSION {
            continue;
        }
        let gain = Subversion::gain_estimate(pos, *mv);
        let slot = &mut best[mv.to as usize];
        if slot.is_none_or(|(_, g)| gain > g) {
            *slot = Some((i, gain));
        }
    }
    let mut keep = start;
    for i in start..out.len() {
        let mv = out[i];
        if mv.kind != SUBVERSION || best[mv.to as usize].is_some_and(|(b, _)| b == i) {
            out[keep] = mv;
            keep += 1;
        }
    }
    out.truncate(keep);
}

/// Rank of `sq` from `color`'s side (0 = own back rank).
#[inline]
fn relative_rank(color: Color, sq: Square) -> i32 {
    let r = sq.rank() as i32;
    if color == Color::White {
        r
    } else {
        7 - r
    }
}

/// The threats against the side to move: the waiting side's subversions. The
/// side to move can parry one of them (move the piece away, guard it with its
/// king, subvert the subverter), so the second-best counts this fraction of its
/// swing, the best only [`PARRIED_THREAT_DIVISOR`]'s.
///
/// These terms measured a gain in self-play (VariantEval on vs off;
/// docs/STRENGTH.md, "The variants' own evaluation terms"). Earlier
/// side-independent terms all lost (pawns as currency, then hanging pieces,
/// then pieces guarded by their king): the side to move's own targets are
/// quiescence's job, and counting them again only made the engine shy.
pub const DOUBLE_THREAT_DIVISOR: i32 = 2;
pub const PARRIED_THREAT_DIVISOR: i32 = 16;

/// What subverting `target` for one pawn swings: the target changes sides, the
/// pawn is paid.
#[inline]
fn swing(pos: &Position<Subversion>, target: Square) -> i32 {
    2 * pos.role_at(target).map_or(0, value_of) - value_of(Role::Pawn)
}

/// Penalty (centipawns, >= 0) for the side to move: the pieces the waiting side
/// can subvert for one pawn. The side to move's own subversions are not counted:
/// quiescence plays them.
pub fn threats_against_mover(pos: &Position<Subversion>) -> i32 {
    let mover = pos.turn();
    let waiting = !mover;
    // Without a pawn the waiting side can only buy checking pieces.
    if pos.by_piece(waiting.pawn()).is_empty() {
        return 0;
    }
    let (best, second) = best_two(
        subvertible(pos, waiting)
            .into_iter()
            .map(|sq| swing(pos, sq)),
    );
    best / PARRIED_THREAT_DIVISOR + second / DOUBLE_THREAT_DIVISOR
}
