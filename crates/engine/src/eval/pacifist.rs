//! Pacifist: no null move (zugzwang is common and a pass skips the compulsory
//! cascade), moves that convert more than any move would are noisy, and both
//! evaluations (the network and the hand-written terms) judge the board after
//! the cascade any move triggers.

use shakmaty::{attacks, Bitboard, Color, Role};

use crate::nnue::{self, embedded_network, EmbeddedNetwork, PieceBoards};
use crate::policy::Policy;
use turncoat_rules::moves::{Move, MoveList};
use turncoat_rules::position::Position;
use turncoat_rules::variants::pacifist::{
    ci, generate, pending_conversions, ri, Board, Pacifist, Tally,
};
use turncoat_rules::variants::{best_two, value_of};

impl Policy for Pacifist {
    /// Off. Zugzwang is common: every move withdraws the moved piece's influence
    /// from the squares it left, and positions where the king has no safe step are
    /// frequent (a king with no legal move is a draw, rule 7). Worse, a pass skips
    /// the compulsory cascade (rule 4): the enemy pieces that any real move would
    /// convert stay unconverted, so the null-move child is a position the rules
    /// cannot produce and its bound is not a bound.
    const NULL_MOVE: bool = false;
    /// Trained on Pacifist's own self-play, reading the board after the free
    /// cascade ([`Policy::network_boards`] below; docs/TRAINING.md, "Pacifist").
    const NETWORK: Option<EmbeddedNetwork> = Some(embedded_network!("pacifist.net"));

    // Chess's selectivity heuristics (`Selectivity`),
    // measured as a whole, lost here in a match (docs/STRENGTH.md, "Variant
    // guards"): the trait's default, `Selectivity::NONE`, stays.

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
        let tally = Tally::of(pos);
        let free = tally.board.colors[ci(!us)] & tally.persuaded()[ci(!us)];
        let mut b = tally.board;
        let changed = b.apply(us, mv, role);
        let mut after = tally;
        after.change_to(&b, changed);
        let (converted, _) = after.cascade(us);
        worth_of(&after.board, converted & !free)
            + mv.promotion
                .map_or(0, |r| value_of(r) - value_of(Role::Pawn))
    }

    /// The board after the cascade every move of the side to move sets off
    /// (rule 4): the pieces already outnumbered count as the mover's, which is
    /// what the hand-written evaluation's largest term says.
    fn network_boards(pos: &Position<Self>) -> PieceBoards {
        let (tally, _, _) = pending_conversions(pos);
        let b = tally.board;
        std::array::from_fn(|i| {
            let piece = nnue::piece_of(i);
            if i < nnue::ATTENDANTS {
                Bitboard(b.roles[ri(piece.role)] & b.colors[ci(piece.color)])
            } else {
                Bitboard::EMPTY
            }
        })
    }

    /// Centipawns from White's point of view: the conversions any move of the
    /// side to move makes (a swing of twice the piece), pieces one persuader away
    /// from turning (equal influence), and the kings' margin and escape squares.
    fn evaluate(pos: &Position<Self>) -> i32 {
        let mover = pos.turn();
        let (tally, converted, persuaded) = pending_conversions(pos);
        let b = tally.board;
        let mut score = [0i32; 2];
        score[ci(mover)] += 2 * worth_of(&b, converted);

        let [black, white] = &tally.counts;
        // Ties the enemy already contests: an uncontested square (0 against 0,
        // most of a side's own camp) is no closer to turning than any other.
        let tied = white.equal_to(black);
        let contested = [white.nonzero(), black.nonzero()];
        let occ = b.occ();
        for color in [Color::White, Color::Black] {
            let own = b.colors[ci(color)];
            let kings = own & b.roles[ri(Role::King)];
            let tied = tied & contested[ci(color)];
            // A tie turns with one more persuader. The side to move's chances to
            // add it are quiescence's converting moves; the waiting side's are
            // threats against the mover, which can cover one tie, rarely two.
            // This measured a gain in self-play (VariantEval on vs off), where
            // counting every tie at one flat fraction had not (docs/STRENGTH.md,
            // "The variants' own evaluation terms").
            if color == mover {
                let (best, second) = best_two(
                    Bitboard(own & tied & !kings)
                        .into_iter()
                        .map(|sq| 2 * b.piece_at(sq).map_or(0, |(_, r)| worth(r))),
                );
                score[ci(color)] -= best / 16 + second / 2;
            }
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
