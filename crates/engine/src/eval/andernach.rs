//! The Andernach family: what a move is worth once its piece may change sides.
//!
//! A move's material swing, from the mover's side, is what it captures, less
//! twice the moving piece's value when the piece changes sides (we lose it and
//! they gain it), plus what a promotion adds (or, when the promoted piece
//! changes sides, less twice the new piece and the pawn). So in Andernach a
//! capture by a piece worth more than half its victim loses material, in
//! Anti-Andernach every quiet move but the king's gives a piece away, and in
//! Super-Andernach both.
//!
//! Chess's static exchange evaluation assumes the capturer stays ours and can be
//! taken back by the opponent; here it may turn, and the opponent cannot take
//! its own piece. So SEE is off (`Policy::SEE`, which also drives SEE pruning of
//! quiet moves and ProbCut), except for Anti-Andernach's captures, which do not
//! change sides and are chess exchanges. Null-move pruning is off where quiet
//! moves cost material (Anti- and Super-Andernach): there passing would be
//! worth a piece and zugzwang is the rule, not the exception.

use shakmaty::{attacks, Bitboard, Color, Role, Square};

use crate::policy::Policy;
use crate::search::see;
use turncoat_rules::bitboards::pawn_attacks;
use turncoat_rules::moves::{Move, MoveKind, MoveList};
use turncoat_rules::position::Position;
use turncoat_rules::variants::andernach::{
    changes_side, Andernach, AntiAndernach, SideChange, SuperAndernach,
};
use turncoat_rules::variants::{best_two, value_of};

/// The material `mv` wins for the mover, counting the change of side.
pub fn swing<V: SideChange>(pos: &Position<V>, mv: Move) -> i32 {
    let Some(mover) = pos.role_at(mv.from) else {
        return 0;
    };
    let victim = match mv.kind {
        MoveKind::EnPassant => {
            // In Anti- and Super-Andernach the pawn taken is one's own.
            let pawn = value_of(Role::Pawn);
            let victim_sq = Square::from_coords(mv.to.file(), mv.from.rank());
            if pos.us().contains(victim_sq) {
                -pawn
            } else {
                pawn
            }
        }
        MoveKind::Castle => 0,
        _ => pos.role_at(mv.to).map_or(0, value_of),
    };
    let after = mv.promotion.unwrap_or(mover);
    let kept = value_of(after) - value_of(mover);
    if changes_side(pos, mv) {
        victim - value_of(mover) - value_of(after)
    } else {
        victim + kept
    }
}

/// Captures and promotions that keep their piece: the moves that can win
/// material (a piece that changes sides on a quiet move only loses it).
fn noisy<V: SideChange>(pos: &Position<V>, mv: Move) -> bool {
    let captures = mv.kind == MoveKind::EnPassant
        || (mv.kind == MoveKind::Normal && pos.them().contains(mv.to));
    captures || (mv.promotion.is_some() && !changes_side(pos, mv))
}

impl Policy for Andernach {
    /// Quiet moves keep their piece, as in chess: passing is no better than
    /// a quiet move, and zugzwang is as rare.
    const NULL_MOVE: bool = true;

    fn is_noisy(pos: &Position<Self>, mv: Move) -> bool {
        noisy(pos, mv)
    }

    fn gain_estimate(pos: &Position<Self>, mv: Move) -> i32 {
        swing(pos, mv)
    }

    /// A capture by a piece worth more than half its victim.
    fn bad_noisy(pos: &Position<Self>, mv: Move) -> bool {
        swing(pos, mv) < 0
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        capture_threats(pos)
    }
}

impl Policy for AntiAndernach {
    const NULL_MOVE: bool = false;

    fn root_moves(pos: &Position<Self>, out: &mut MoveList) {
        moves_off_the_en_passant_square(pos, out);
    }

    fn is_noisy(pos: &Position<Self>, mv: Move) -> bool {
        noisy(pos, mv)
    }

    fn gain_estimate(pos: &Position<Self>, mv: Move) -> i32 {
        swing(pos, mv)
    }

    /// Captures keep their piece, so exchanges are chess's and SEE judges
    /// them; en passant takes one's own pawn.
    fn bad_noisy(pos: &Position<Self>, mv: Move) -> bool {
        match mv.kind {
            MoveKind::Normal if pos.them().contains(mv.to) => !see::see_ge(pos, mv, 0),
            _ => swing(pos, mv) < 0,
        }
    }
}

impl Policy for SuperAndernach {
    const NULL_MOVE: bool = false;

    fn root_moves(pos: &Position<Self>, out: &mut MoveList) {
        moves_off_the_en_passant_square(pos, out);
    }

    fn is_noisy(pos: &Position<Self>, mv: Move) -> bool {
        noisy(pos, mv)
    }

    fn gain_estimate(pos: &Position<Self>, mv: Move) -> i32 {
        swing(pos, mv)
    }

    fn bad_noisy(pos: &Position<Self>, mv: Move) -> bool {
        swing(pos, mv) < 0
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        capture_threats(pos)
    }
}

/// The legal moves, less those to the en passant square when others remain
/// (Anti- and Super-Andernach's root moves). The rules allow them, and a
/// piece's move there hands the pawn past it back (docs/RULES.md, "Andernach:
/// en passant as Cutechess referees it"), but Cutechess 1.4.0, the referee,
/// also plays and takes back the first move of every PV an engine prints to
/// write it in SAN, and that take-back hands the pawn back on its board
/// whatever move is then played. A PV that starts with such a move would
/// leave Cutechess's board different from the game's, so Turncoat never
/// chooses one.
fn moves_off_the_en_passant_square<V: SideChange>(pos: &Position<V>, out: &mut MoveList) {
    let start = out.len();
    V::legal_moves(pos, out);
    let Some(ep) = pos.ep_square() else {
        return;
    };
    if out[start..].iter().all(|m| m.to == ep) {
        return;
    }
    let mut kept = start;
    for i in start..out.len() {
        if out[i].to != ep {
            out[kept] = out[i];
            kept += 1;
        }
    }
    out.truncate(kept);
}

/// The side to move can parry one threat (move the piece, guard the square
/// against the king); the second-best counts this fraction of its swing, the
/// best only [`PARRIED_THREAT_DIVISOR`]'s. The side to move's own captures
/// are quiescence's job and are not counted.
pub const DOUBLE_THREAT_DIVISOR: i32 = 2;
pub const PARRIED_THREAT_DIVISOR: i32 = 8;

/// Where captures change the capturer's side (Andernach, Super-Andernach): the
/// captures the waiting side has that win material, as a penalty for the side
/// to move (White's view). A capture by a piece other than the king wins the
/// victim less twice the capturer; the king's wins the whole victim if the
/// victim is not guarded.
fn capture_threats<V: SideChange>(pos: &Position<V>) -> i32 {
    let mover = pos.turn();
    let waiting = !mover;
    let occupied = pos.occupied();
    // The squares the waiting side's pawns, knights, bishops, rooks and queens
    // attack, cheapest capturer first: a target's best capture is by the
    // cheapest piece that attacks it (`victim - 2 * capturer`). One lookup per
    // attacker, not one per target and kind of attacker: this runs at every
    // evaluated node.
    // Each kind with its own lookup (not a loop over the kinds, which
    // chooses the lookup piece by piece); the pawns all at once, by shifts.
    let attacked: [Bitboard; CAPTURERS.len()] = [
        pawn_attacks(pos.by_piece(waiting.pawn()), waiting),
        union_of_attacks(pos.by_piece(waiting.knight()), attacks::knight_attacks),
        union_of_attacks(pos.by_piece(waiting.bishop()), |from| {
            attacks::bishop_attacks(from, occupied)
        }),
        union_of_attacks(pos.by_piece(waiting.rook()), |from| {
            attacks::rook_attacks(from, occupied)
        }),
        union_of_attacks(pos.by_piece(waiting.queen()), |from| {
            attacks::queen_attacks(from, occupied)
        }),
    ];
    let king = pos.king_of(waiting);
    let king_attacks = king.map_or(Bitboard::EMPTY, attacks::king_attacks);
    let any = attacked
        .iter()
        .fold(king_attacks, |all, &squares| all | squares);
    // Targets nobody attacks gain nothing, and `best_two` counts no gain as 0.
    let gains = (pos.by_color(mover) & !pos.by_role(Role::King) & any)
        .into_iter()
        .map(|target| {
            let victim = pos.role_at(target).map_or(0, value_of);
            let mut best = attacked
                .iter()
                .zip(CAPTURERS)
                .find(|(squares, _)| squares.contains(target))
                .map_or(0, |(_, role)| (victim - 2 * value_of(role)).max(0));
            if let Some(k) = king {
                if king_attacks.contains(target) && !guarded(pos, target, k, mover) {
                    best = best.max(victim);
                }
            }
            best
        });
    threat_penalty(gains, mover)
}

/// The squares the pieces on `squares` attack, `lookup` giving each one's.
#[inline(always)]
fn union_of_attacks(squares: Bitboard, lookup: impl Fn(Square) -> Bitboard) -> Bitboard {
    squares
        .into_iter()
        .fold(Bitboard::EMPTY, |all, from| all | lookup(from))
}

/// The penalty for the side to move, `mover`, of the waiting side's capture
/// gains (White's view): the best is parried, the second likely to land.
fn threat_penalty(gains: impl IntoIterator<Item = i32>, mover: Color) -> i32 {
    let (best, second) = best_two(gains);
    let penalty = best / PARRIED_THREAT_DIVISOR + second / DOUBLE_THREAT_DIVISOR;
    if mover == Color::White {
        -penalty
    } else {
        penalty
    }
}

/// The pieces that change sides when they capture, cheapest first
/// (`value_of` grows along the list).
const CAPTURERS: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

/// Does `owner` attack `target` once the enemy king on `king` stands there?
fn guarded<V: SideChange>(pos: &Position<V>, target: Square, king: Square, owner: Color) -> bool {
    let occupied = pos.occupied() ^ Bitboard::from_square(king);
    pos.attackers_to(target, owner, occupied).any()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The threat term as its doc comment says it, target by target with
    /// every attacker: what the faster [`capture_threats`] must equal.
    fn capture_threats_by_definition<V: SideChange>(pos: &Position<V>) -> i32 {
        let mover = pos.turn();
        let waiting = !mover;
        let king = pos.king_of(waiting);
        let gains = (pos.by_color(mover) & !pos.by_role(Role::King))
            .into_iter()
            .map(|target| {
                let victim = pos.role_at(target).map_or(0, value_of);
                let attackers = pos.attackers_to(target, waiting, pos.occupied());
                let mut best = 0;
                for from in attackers & !pos.by_role(Role::King) {
                    let capturer = pos.role_at(from).map_or(0, value_of);
                    best = best.max(victim - 2 * capturer);
                }
                if let Some(k) = king {
                    if attackers.contains(k) && !guarded(pos, target, k, mover) {
                        best = best.max(victim);
                    }
                }
                best
            });
        threat_penalty(gains, mover)
    }

    /// Random games of Andernach and Super-Andernach: at every position the
    /// term equals its definition, and enough of them have a threat that
    /// the comparison means something.
    fn agrees_on_random_games<V: SideChange>() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let (mut positions, mut threatened) = (0, 0);
        let mut moves = MoveList::new();
        for _ in 0..40 {
            let mut pos = Position::<V>::startpos();
            for _ in 0..120 {
                let term = capture_threats(&pos);
                assert_eq!(term, capture_threats_by_definition(&pos));
                positions += 1;
                threatened += usize::from(term != 0);
                moves.clear();
                V::legal_moves(&pos, &mut moves);
                if moves.is_empty() {
                    break;
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                V::play(&mut pos, moves[(state % moves.len() as u64) as usize]);
            }
        }
        assert!(
            positions > 2000 && threatened > positions / 4,
            "{threatened} of {positions}"
        );
    }

    #[test]
    fn capture_threats_equal_their_definition() {
        agrees_on_random_games::<Andernach>();
        agrees_on_random_games::<SuperAndernach>();
    }
}
