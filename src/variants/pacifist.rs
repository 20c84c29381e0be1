//! Pacifist Chess (RULES.md `pacifist`): nothing is ever captured. A piece whose
//! square is *overly persuaded* (more enemy influence than friendly) changes
//! colour in a cascade after the opponent's move; a side wins by converting the
//! enemy kings so that no move wins one back.
//!
//! Everything that counts influence works on bitboards: the cascade and legality
//! use a bit-sliced counter over the whole board (one attack set per piece, with
//! x-ray through same-colour batteries obtained by making the colour's own sliders
//! of the ray's kind transparent), and [`influence`] answers a single square with
//! one lookup per ray kind.

use shakmaty::{attacks, Bitboard, Color, File, Rank, Role, Square};

use super::{validate_pawn_ranks, value_of, Variant};
use crate::game::Outcome;
use crate::moves::{Move, MoveKind, MoveList};
use crate::position::{castle_side, rook_file, Position};

#[derive(Copy, Clone, Debug, Default)]
pub struct Pacifist;

const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Knight, Role::Rook, Role::Bishop];
const NOT_FILE_A: u64 = !0x0101_0101_0101_0101;
const NOT_FILE_H: u64 = !0x8080_8080_8080_8080;

// ----- influence (rule 2) and overly persuaded squares (rule 3) -----

/// The bare board influence depends on: roles and colours, nothing else. Cheap to
/// copy, so legality is judged by playing a move and its cascade on a copy.
#[derive(Copy, Clone, Debug)]
struct Board {
    roles: [u64; 6],
    colors: [u64; 2],
}

#[inline]
fn ri(role: Role) -> usize {
    role as usize - 1
}

#[inline]
fn ci(color: Color) -> usize {
    color as usize
}

impl Board {
    #[inline]
    fn of<V: Variant>(pos: &Position<V>) -> Board {
        let mut roles = [0; 6];
        for role in Role::ALL {
            roles[ri(role)] = pos.by_role(role).0;
        }
        Board {
            roles,
            colors: [pos.by_color(Color::Black).0, pos.by_color(Color::White).0],
        }
    }

    #[inline]
    fn occ(&self) -> u64 {
        self.colors[0] | self.colors[1]
    }

    #[inline]
    fn pieces(&self, role: Role, color: Color) -> u64 {
        self.roles[ri(role)] & self.colors[ci(color)]
    }

    /// Moves a piece of `color` between empty-target squares (no capture exists).
    #[inline]
    fn shift_piece(&mut self, color: Color, from: Square, role: Role, to: Square, new_role: Role) {
        let f = 1u64 << from as u32;
        let t = 1u64 << to as u32;
        self.roles[ri(role)] ^= f;
        self.roles[ri(new_role)] ^= t;
        self.colors[ci(color)] ^= f | t;
    }

    /// Plays the board part of a move of `us` (no captures, no en passant).
    #[inline]
    fn apply(&mut self, us: Color, mv: Move, role: Role) {
        if mv.kind == MoveKind::Castle {
            let side = castle_side(mv);
            let rank = us.backrank();
            self.shift_piece(us, mv.from, Role::King, mv.to, Role::King);
            self.shift_piece(
                us,
                Square::from_coords(rook_file(side), rank),
                Role::Rook,
                Square::from_coords(side.rook_to_file(), rank),
                Role::Rook,
            );
        } else {
            self.shift_piece(us, mv.from, role, mv.to, mv.promotion.unwrap_or(role));
        }
    }

    /// Rule 2 for every square at once: the influence counts of `color`, as a
    /// bit-sliced counter. Each piece adds its influence set; a slider's set is its
    /// attack set with the same colour's sliders of that ray kind made transparent,
    /// which is exactly "every piece between it and the square is a same-colour
    /// slider of the ray's kind" (the battery x-ray).
    #[inline]
    fn influence_counter(&self, color: Color) -> Counter {
        let own = self.colors[ci(color)];
        let occ = self.occ();
        let mut cnt = Counter::default();
        let pawns = self.roles[ri(Role::Pawn)] & own;
        if pawns != 0 {
            // Capture diagonals only; each direction's set has no overlap.
            let (left, right) = match color {
                Color::White => ((pawns & NOT_FILE_A) << 7, (pawns & NOT_FILE_H) << 9),
                Color::Black => ((pawns & NOT_FILE_A) >> 9, (pawns & NOT_FILE_H) >> 7),
            };
            cnt.add(left);
            cnt.add(right);
        }
        for sq in Bitboard(self.roles[ri(Role::Knight)] & own) {
            cnt.add(attacks::knight_attacks(sq).0);
        }
        for sq in Bitboard(self.roles[ri(Role::King)] & own) {
            cnt.add(attacks::king_attacks(sq).0);
        }
        let queens = self.roles[ri(Role::Queen)];
        let orth = (self.roles[ri(Role::Rook)] | queens) & own;
        let orth_occ = Bitboard(occ & !orth);
        for sq in Bitboard(orth) {
            cnt.add(attacks::rook_attacks(sq, orth_occ).0);
        }
        let diag = (self.roles[ri(Role::Bishop)] | queens) & own;
        let diag_occ = Bitboard(occ & !diag);
        for sq in Bitboard(diag) {
            cnt.add(attacks::bishop_attacks(sq, diag_occ).0);
        }
        cnt
    }

    /// Rule 3 for every square: `[black, white]`, the squares overly persuaded for
    /// that colour (the other colour's influence is strictly greater).
    #[inline]
    fn overly_persuaded(&self) -> [u64; 2] {
        let white = self.influence_counter(Color::White);
        let black = self.influence_counter(Color::Black);
        [white.greater_than(&black), black.greater_than(&white)]
    }

    /// Rule 4: the cascade after a move of `mover`. Returns the converted squares
    /// and the overly persuaded squares of the final board (`[black, white]`).
    #[inline]
    fn cascade(&mut self, mover: Color) -> (u64, [u64; 2]) {
        let mut converted = 0;
        loop {
            let persuaded = self.overly_persuaded();
            // Simultaneous rounds: every persuaded piece of the non-mover turns at once.
            let turning = self.colors[ci(!mover)] & persuaded[ci(!mover)];
            if turning == 0 {
                return (converted, persuaded);
            }
            self.colors[ci(!mover)] ^= turning;
            self.colors[ci(mover)] |= turning;
            converted |= turning;
        }
    }
}

/// A bit-sliced counter: bit `i` of the count on square `s` is bit `s` of plane
/// `i`. Six planes count to 63, more than the pieces a board can hold around one
/// square, so no FEN can overflow it.
#[derive(Copy, Clone, Debug, Default)]
struct Counter([u64; 6]);

impl Counter {
    /// Adds one to the count of every square in `set` (a ripple-carry add).
    #[inline]
    fn add(&mut self, set: u64) {
        let mut carry = set;
        for plane in &mut self.0 {
            let next = *plane & carry;
            *plane ^= carry;
            carry = next;
            if carry == 0 {
                break;
            }
        }
    }

    /// The squares where `self` counts strictly more than `other`.
    #[inline]
    fn greater_than(&self, other: &Counter) -> u64 {
        let mut greater = 0;
        let mut equal = !0u64;
        for i in (0..6).rev() {
            let (a, b) = (self.0[i], other.0[i]);
            greater |= equal & a & !b;
            equal &= !(a ^ b);
        }
        greater
    }

    /// The squares where both counters are equal.
    #[inline]
    fn equal_to(&self, other: &Counter) -> u64 {
        let mut equal = !0u64;
        for i in 0..6 {
            equal &= !(self.0[i] ^ other.0[i]);
        }
        equal
    }
}

/// Rule 2 on one square: how many pieces of `color` influence `sq` (the piece on
/// `sq` excluded). Bitboards: walking out from `sq` along a ray counts the leading
/// run of `color`'s sliders of the ray's kind, which is a single attack lookup with
/// those sliders removed from the occupancy.
pub fn influence(pos: &Position<Pacifist>, sq: Square, color: Color) -> u32 {
    influence_with(pos, sq, color, Bitboard::EMPTY)
}

/// [`influence`] with the pieces on `lifted` taken off the board (they neither
/// count nor block): rule 6 lifts the castling king.
fn influence_with<V: Variant>(
    pos: &Position<V>,
    sq: Square,
    color: Color,
    lifted: Bitboard,
) -> u32 {
    let own = pos.by_color(color) & !lifted;
    let occ = pos.occupied() & !lifted;
    let orth = pos.rooks_and_queens() & own;
    let diag = pos.bishops_and_queens() & own;
    let steps = (attacks::knight_attacks(sq) & pos.by_role(Role::Knight))
        | (attacks::king_attacks(sq) & pos.by_role(Role::King))
        | (attacks::pawn_attacks(!color, sq) & pos.by_role(Role::Pawn));
    ((steps & own).count()
        + (attacks::rook_attacks(sq, occ & !orth) & orth).count()
        + (attacks::bishop_attacks(sq, occ & !diag) & diag).count()) as u32
}

/// Rule 3 for every square: the squares overly persuaded for `color`.
pub fn overly_persuaded(pos: &Position<Pacifist>, color: Color) -> Bitboard {
    Bitboard(Board::of(pos).overly_persuaded()[ci(color)])
}

// ----- moves (rules 1, 5, 6) -----

/// Pseudo-moves are chess moves to empty squares (rule 1); each is kept when
/// its cascade leaves the mover a king that is not overly persuaded (rule 5).
/// `noisy_only` keeps promotions and moves that convert more than the pieces
/// any move would convert anyway.
fn generate(pos: &Position<Pacifist>, out: &mut MoveList, noisy_only: bool) {
    let us = pos.turn();
    let base = Board::of(pos);
    let before = base.overly_persuaded();
    let free_conversions = base.colors[ci(!us)] & before[ci(!us)];
    let empty = !base.occ();

    let keep = |mv: Move, role: Role| -> bool {
        let mut b = base;
        b.apply(us, mv, role);
        let (converted, persuaded) = b.cascade(us);
        let kings = b.pieces(Role::King, us);
        kings & !persuaded[ci(us)] != 0
            && (!noisy_only || mv.promotion.is_some() || converted & !free_conversions != 0)
    };
    let consider = |out: &mut MoveList, mv: Move, role: Role| {
        if keep(mv, role) {
            out.push(mv);
        }
    };

    for role in [
        Role::King,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ] {
        for from in Bitboard(base.pieces(role, us)) {
            let targets = attacks::attacks(from, role.of(us), Bitboard(base.occ())).0 & empty;
            for to in Bitboard(targets) {
                consider(out, Move::new(MoveKind::Normal, from, to), role);
            }
        }
    }

    let (forward, second, last): (i32, Rank, Rank) = match us {
        Color::White => (8, Rank::Second, Rank::Eighth),
        Color::Black => (-8, Rank::Seventh, Rank::First),
    };
    for from in Bitboard(base.pieces(Role::Pawn, us)) {
        let Some(one) = from.offset(forward) else {
            continue;
        };
        if !Bitboard(empty).contains(one) {
            continue;
        }
        if one.rank() == last {
            for promo in PROMOTIONS {
                consider(
                    out,
                    Move::new(MoveKind::Normal, from, one).with_promotion(promo),
                    Role::Pawn,
                );
            }
            continue;
        }
        consider(out, Move::new(MoveKind::Normal, from, one), Role::Pawn);
        // Rule 5: no double step across a square overly persuaded for the mover,
        // judged before the move with the pawn still on its square.
        if from.rank() == second && !Bitboard(before[ci(us)]).contains(one) {
            if let Some(two) = one.offset(forward) {
                if Bitboard(empty).contains(two) {
                    consider(out, Move::new(MoveKind::DoublePush, from, two), Role::Pawn);
                }
            }
        }
    }

    if !noisy_only {
        // Rule 6: start square judged as it stands, the passed square with the
        // king lifted; the destination by rule 5 after the cascade.
        let king_from = Square::from_coords(File::E, us.backrank());
        let lifted = Bitboard::from_square(king_from);
        let start = out.len();
        crate::movegen::generate_castling(
            pos,
            out,
            |sq| {
                if sq == king_from {
                    !Bitboard(before[ci(us)]).contains(sq)
                } else {
                    influence_with(pos, sq, !us, lifted) <= influence_with(pos, sq, us, lifted)
                }
            },
            |_| true,
        );
        // At most two castling moves: judge them from a copy, no allocation.
        let mut castles = [Move::NULL; 2];
        let n = out.len() - start;
        castles[..n].copy_from_slice(&out[start..]);
        out.truncate(start);
        for &mv in &castles[..n] {
            consider(out, mv, Role::King);
        }
    }
}

/// The pieces any move of the side to move converts (rule 4 applied to the
/// board as it stands), with the overly persuaded squares of the result.
fn pending_conversions(pos: &Position<Pacifist>) -> (Board, u64, [u64; 2]) {
    let mut b = Board::of(pos);
    let (converted, persuaded) = b.cascade(pos.turn());
    (b, converted, persuaded)
}

// ----- evaluation -----

/// What converting a king is worth to the evaluation: the loser must win one back
/// at once or lose (rule 7), so it outweighs any single piece.
const KING_WORTH: i32 = 1200;
/// A second king is a spare life.
const KING_COUNT_BONUS: i32 = 100;

#[inline]
fn worth(role: Role) -> i32 {
    if role == Role::King {
        KING_WORTH
    } else {
        value_of(role)
    }
}

fn worth_of(b: &Board, set: u64) -> i32 {
    Role::ALL
        .iter()
        .map(|&r| worth(r) * (b.roles[ri(r)] & set).count_ones() as i32)
        .sum()
}

// ----- the rulebook -----

impl Variant for Pacifist {
    const NAME: &'static str = "pacifist";
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    /// Rule 1: no en passant, so a double step never leaves a square.
    const EN_PASSANT: bool = false;
    /// Off. Zugzwang is common: every move withdraws the moved piece's influence
    /// from the squares it left, and positions where the king has no safe step are
    /// frequent (a king with no legal move is a draw, rule 7). Worse, a pass skips
    /// the compulsory cascade (rule 4): the enemy pieces that any real move would
    /// convert stay unconverted, so the null-move child is a position the rules
    /// cannot produce and its bound is not a bound.
    const NULL_MOVE: bool = false;
    /// RULES.md: insufficient material is not used in Pacifist.
    const INSUFFICIENT_MATERIAL: bool = false;

    type State = ();

    fn legal_moves(pos: &Position<Self>, out: &mut MoveList) {
        generate(pos, out, false);
    }

    /// Promotions and moves whose cascade converts something beyond what any move
    /// converts anyway (the enemy pieces already overly persuaded).
    fn noisy_moves(pos: &Position<Self>, out: &mut MoveList) {
        generate(pos, out, true);
    }

    fn is_noisy(pos: &Position<Self>, mv: Move) -> bool {
        mv.promotion.is_some() || Self::gain_estimate(pos, mv) > 0
    }

    /// Worth of what the move converts beyond the free conversions, plus the
    /// promotion gain.
    fn gain_estimate(pos: &Position<Self>, mv: Move) -> i32 {
        let us = pos.turn();
        let Some(role) = pos.role_at(mv.from) else {
            return 0;
        };
        let base = Board::of(pos);
        let free = base.colors[ci(!us)] & base.overly_persuaded()[ci(!us)];
        let mut b = base;
        b.apply(us, mv, role);
        let (converted, _) = b.cascade(us);
        worth_of(&b, converted & !free)
            + mv.promotion
                .map_or(0, |r| value_of(r) - value_of(Role::Pawn))
    }

    /// The chess part, then the cascade (rule 4); the clock resets on a pawn move
    /// (done by `play_base`) and on any conversion (rule 7).
    fn play(pos: &mut Position<Self>, mv: Move) {
        pos.play_base(mv);
        let mover = !pos.turn();
        let mut b = Board::of(pos);
        let (converted, _) = b.cascade(mover);
        if converted != 0 {
            for sq in Bitboard(converted) {
                pos.recolor(sq, mover);
            }
            pos.set_halfmoves(0);
        }
    }

    /// There is no check. The analogue is having no king: every legal move must
    /// then win one back (rule 7), so the search must not stand pat or pass.
    fn in_check(pos: &Position<Self>) -> bool {
        pos.by_piece(pos.turn().king()).is_empty()
    }

    /// Rule 7: with a king, no legal move is a draw; without one, a loss.
    fn no_legal_moves(pos: &Position<Self>) -> Outcome {
        if pos.by_piece(pos.turn().king()).any() {
            Outcome::Draw {
                reason: "king with no legal move",
            }
        } else {
            Outcome::Win {
                winner: !pos.turn(),
                reason: "all kings converted",
            }
        }
    }

    /// RULES.md: exactly two kings in total; the side not to move must have a king
    /// that is not overly persuaded; no pawn on rank 1 or 8.
    fn validate(pos: &Position<Self>) -> Result<(), String> {
        let kings = pos.by_role(Role::King).count();
        if kings != 2 {
            return Err(format!(
                "pacifist needs exactly two kings in total, found {kings}"
            ));
        }
        validate_pawn_ranks(pos, false)?;
        let waiting = !pos.turn();
        let their_kings = pos.by_piece(waiting.king());
        if their_kings.is_empty() {
            return Err(format!("{waiting} (not to move) has no king"));
        }
        if (their_kings & !overly_persuaded(pos, waiting)).is_empty() {
            return Err(format!(
                "every king of {waiting} (not to move) is overly persuaded"
            ));
        }
        Ok(())
    }

    /// Centipawns from White's point of view: the conversions any move of the
    /// side to move makes (a swing of twice the piece), pieces one persuader away
    /// from turning (equal influence), and the kings' margin and escape squares.
    fn evaluate(pos: &Position<Self>) -> i32 {
        let mover = pos.turn();
        let (b, converted, persuaded) = pending_conversions(pos);
        let mut score = [0i32; 2];
        score[ci(mover)] += 2 * worth_of(&b, converted);

        let white = b.influence_counter(Color::White);
        let black = b.influence_counter(Color::Black);
        let tied = white.equal_to(&black);
        let occ = b.occ();
        for color in [Color::White, Color::Black] {
            let own = b.colors[ci(color)];
            let kings = own & b.roles[ri(Role::King)];
            // A tie turns with one more persuader; the side to move strikes first.
            let divisor = if color == mover { 16 } else { 6 };
            score[ci(color)] -= worth_of(&b, own & tied & !kings) / divisor;
            score[ci(color)] += KING_COUNT_BONUS * kings.count_ones() as i32;
            for k in Bitboard(kings) {
                if tied & (1u64 << k as u32) != 0 {
                    score[ci(color)] -= if color == mover { 40 } else { 120 };
                }
                let around = attacks::king_attacks(k).0;
                // Escape squares: with none, the king can neither flee nor keep the
                // game alive by itself.
                let escapes = around & !occ & !persuaded[ci(color)];
                if escapes == 0 {
                    score[ci(color)] -= 30;
                }
                score[ci(color)] -= 8 * (around & persuaded[ci(color)]).count_ones() as i32;
            }
        }
        score[ci(Color::White)] - score[ci(Color::Black)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_counts_and_compares() {
        let mut a = Counter::default();
        let mut b = Counter::default();
        for _ in 0..40 {
            a.add(1);
        }
        for _ in 0..39 {
            b.add(1 | 2);
        }
        assert_eq!(a.greater_than(&b), 1);
        assert_eq!(b.greater_than(&a), 2);
        b.add(1);
        assert_eq!(a.equal_to(&b) & 3, 1);
    }
}
