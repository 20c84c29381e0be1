//! Chess move generation on bitboards, shared by every variant.
//!
//! One generator serves two needs:
//! - `Legality::Legal`: fully legal standard-chess moves (checks and pins resolved
//!   with bitboards, en passant by a trial move). This is standard chess's fast path
//!   and what perft measures.
//! - `Legality::Pseudo`: every chess move of the side to move with no regard for its
//!   own king, except the standard castling conditions (not in check, the passed
//!   square not attacked). Variants expand these bases with their extras and judge
//!   legality on the position after the whole move, as docs/RULES.md requires.

use shakmaty::{attacks, Bitboard, CastlingSide, Color, Rank, Role, Square};

use crate::bitboards::{mover_order, piece_attacks};
use crate::moves::{Move, MoveKind, MoveList, PROMOTIONS};
use crate::position::Position;
use crate::variants::Variant;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Legality {
    Legal,
    Pseudo,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Every move.
    All,
    /// Captures and promotions only (quiescence search).
    Noisy,
}

/// Where generated moves go: a move list, or just a counter (perft's bulk count
/// at the last ply, which then never builds the moves).
pub trait MoveSink {
    fn push(&mut self, mv: Move);

    /// Plain moves from `from` to every square of `targets`, in `us`'s
    /// [`mover_order`].
    #[inline]
    fn push_all(&mut self, us: Color, from: Square, targets: Bitboard) {
        for to in mover_order(us, targets) {
            self.push(Move::new(MoveKind::Normal, from, to));
        }
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn push(&mut self, mv: Move) {
        Vec::push(self, mv);
    }
}

/// Counts moves instead of storing them.
#[derive(Default)]
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline]
    fn push(&mut self, _mv: Move) {
        self.0 += 1;
    }

    #[inline]
    fn push_all(&mut self, _us: Color, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }
}

/// Appends the chess moves of the side to move to `out`.
pub fn generate<V: Variant, S: MoveSink>(
    pos: &Position<V>,
    out: &mut S,
    legality: Legality,
    stage: Stage,
) {
    let us = pos.turn();
    let them = !us;
    let occ = pos.occupied();
    let our = pos.us();
    let their = pos.them();

    let king = if legality == Legality::Legal {
        pos.king_of(us)
    } else {
        None
    };

    // Checkers and pins, only when generating legal moves with exactly one king.
    let mut checkers = Bitboard::EMPTY;
    let mut pinned = Bitboard::EMPTY;
    if let Some(k) = king {
        checkers = pos.attackers_to(k, them, occ);
        let snipers = ((attacks::rook_attacks(k, Bitboard::EMPTY) & pos.rooks_and_queens())
            | (attacks::bishop_attacks(k, Bitboard::EMPTY) & pos.bishops_and_queens()))
            & their;
        for s in snipers {
            let b = attacks::between(k, s) & occ;
            if !b.more_than_one() {
                pinned |= b & our;
            }
        }
    }

    let noisy_only = stage == Stage::Noisy;

    // King steps (legal mode: only to unattacked squares, judged without our king).
    let kings = pos.by_piece(us.king());
    for from in mover_order(us, kings) {
        let mut targets = attacks::king_attacks(from) & !our;
        if noisy_only {
            targets &= their;
        }
        for to in mover_order(us, targets) {
            if king.is_some()
                && pos
                    .attackers_to(to, them, occ ^ Bitboard::from_square(from))
                    .any()
            {
                continue;
            }
            out.push(Move::new(MoveKind::Normal, from, to));
        }
    }
    if checkers.more_than_one() {
        return;
    }

    // Squares a non-king move may go to: anywhere, or, in check, capture the checker
    // or block its line.
    let mut target = !our;
    if let (Some(k), Some(c)) = (king, checkers.single_square()) {
        target = attacks::between(k, c).with(c);
    }
    let piece_target = if noisy_only { target & their } else { target };

    // Knights and sliders.
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in mover_order(us, pos.by_piece(role.of(us))) {
            let mut targets = piece_attacks(from, role.of(us), occ) & piece_target;
            if pinned.contains(from) {
                if let Some(k) = king {
                    targets &= attacks::ray(k, from);
                }
            }
            out.push_all(us, from, targets);
        }
    }

    // Pawns.
    let forward: i32 = if us == Color::White { 8 } else { -8 };
    let last_rank = if us == Color::White {
        Rank::Eighth
    } else {
        Rank::First
    };
    let second_rank = if us == Color::White {
        Rank::Second
    } else {
        Rank::Seventh
    };
    for from in mover_order(us, pos.by_piece(us.pawn())) {
        let line = match king {
            Some(k) if pinned.contains(from) => attacks::ray(k, from),
            _ => Bitboard::FULL,
        };
        let caps = attacks::pawn_attacks(us, from) & their & target & line;
        for to in mover_order(us, caps) {
            push_pawn_move(out, from, to, to.rank() == last_rank, MoveKind::Normal);
        }
        if let Some(one) = from.offset(forward) {
            if !occ.contains(one) {
                let promo = one.rank() == last_rank;
                if (!noisy_only || promo) && target.contains(one) && line.contains(one) {
                    push_pawn_move(out, from, one, promo, MoveKind::Normal);
                }
                if !noisy_only && from.rank() == second_rank {
                    if let Some(two) = one.offset(forward) {
                        if !occ.contains(two) && target.contains(two) && line.contains(two) {
                            out.push(Move::new(MoveKind::DoublePush, from, two));
                        }
                    }
                }
            }
        }
    }

    // En passant: rare, so judged by a trial move in legal mode.
    if let Some(ep) = pos.ep_square() {
        for from in mover_order(
            us,
            attacks::pawn_attacks(them, ep) & pos.by_piece(us.pawn()),
        ) {
            let mv = Move::new(MoveKind::EnPassant, from, ep);
            if king.is_none() || {
                let mut after = *pos;
                after.play_base(mv);
                !after.king_attacked(us)
            } {
                out.push(mv);
            }
        }
    }

    if !noisy_only && checkers.is_empty() {
        let safe = |sq| !pos.is_attacked(sq, them);
        if king.is_some() {
            generate_castling(pos, out, safe, safe);
        } else {
            generate_castling(pos, out, safe, |_| true);
        }
    }
}

#[inline]
fn push_pawn_move(out: &mut impl MoveSink, from: Square, to: Square, promo: bool, kind: MoveKind) {
    if promo {
        for role in PROMOTIONS {
            out.push(Move::new(kind, from, to).with_promotion(role));
        }
    } else {
        out.push(Move::new(kind, from, to));
    }
}

/// Castling moves whose rights are intact, whose path between king and rook is
/// empty, whose king start and passed squares satisfy `safe`, and whose king
/// destination satisfies `safe_destination` (variants that judge the destination
/// after the whole move pass `|_| true` and check the king afterwards).
pub fn generate_castling<V: Variant>(
    pos: &Position<V>,
    out: &mut impl MoveSink,
    safe: impl Fn(Square) -> bool,
    safe_destination: impl Fn(Square) -> bool,
) {
    let us = pos.turn();
    let king_from = Square::from_coords(shakmaty::File::E, us.backrank());
    if !pos.by_piece(us.king()).contains(king_from) {
        return;
    }
    for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
        let Some(rook_from) = pos.castling_rook(us, side) else {
            continue;
        };
        if !pos.by_piece(us.rook()).contains(rook_from) {
            continue;
        }
        if (attacks::between(king_from, rook_from) & pos.occupied()).any() {
            continue;
        }
        let king_to = Square::from_coords(side.king_to_file(), us.backrank());
        let passed = Square::from_coords(side.rook_to_file(), us.backrank());
        if safe(king_from) && safe(passed) && safe_destination(king_to) {
            out.push(Move::new(MoveKind::Castle, king_from, king_to));
        }
    }
}

/// Fully legal standard-chess moves.
#[inline]
pub fn legal_chess<V: Variant>(pos: &Position<V>, out: &mut MoveList) {
    generate(pos, out, Legality::Legal, Stage::All);
}

/// Number of legal standard-chess moves (perft's bulk count at the last ply).
#[inline]
pub fn count_legal_chess<V: Variant>(pos: &Position<V>) -> u64 {
    let mut counter = MoveCounter::default();
    generate(pos, &mut counter, Legality::Legal, Stage::All);
    counter.0
}
