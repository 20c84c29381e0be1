//! Cowardly Crew (`cowardlycrew`), RULES.md section "cowardlycrew".
//!
//! After any capture the opponent's *eligible* pieces around the capturing piece's
//! destination defect to the capturer (rule 1). A capture with at least one eligible
//! piece exists twice: convert all (plain token) or none (`,n`, rule 2). Legality is
//! judged after the whole move, so a conversion may parry a check the capture alone
//! does not (rule 4).
//!
//! Move generation leans on the fast legal chess generator: a conversion only turns
//! enemy pieces into ours on the same squares, so it can never expose our king, and
//! every chess-legal capture is legal in both forms. The only extra work is finding
//! captures that chess forbids but a conversion rescues, and those exist only when a
//! piece that could defect is placed to attack our king (see [`rescue_possible`]).

use shakmaty::{attacks, Bitboard, Color, Role, Square};

use super::{rank_of, validate_standard, value_of, Variant};
use crate::movegen::{self, Legality, Stage};
use crate::moves::{Move, MoveKind, MoveList};
use crate::position::Position;

#[derive(Copy, Clone, Debug, Default)]
pub struct CowardlyCrew;

/// `Move::extra` of the `,n` form: the capture converts nothing. The plain form
/// (`extra == 0`) converts every eligible piece, recomputed when played.
pub const CONVERT_NONE: u64 = 1;

impl Variant for CowardlyCrew {
    const NAME: &'static str = "cowardlycrew";
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    type State = ();

    fn legal_moves(pos: &Position<Self>, out: &mut MoveList) {
        let start = out.len();
        movegen::generate(pos, out, Legality::Legal, Stage::All);
        let chess_end = out.len();
        let waverers = Waverers::new(pos);

        // Chess-legal captures: both forms are legal (rule 2), since converting
        // leaves occupancy unchanged and only takes attackers away from the enemy.
        for i in start..chess_end {
            let mv = out[i];
            if let Some(victim) = captured(pos, mv) {
                if waverers.eligible(pos, mv, victim).any() {
                    out.push(mv.with_extra(CONVERT_NONE));
                }
            }
        }

        // Captures chess forbids (the king stays attacked) may be legal thanks to
        // their conversion (rule 4, seed rule 10); only the plain form can be.
        if !rescue_possible(pos, &waverers) {
            return;
        }
        let mut chess_captures = [Bitboard::EMPTY; 64];
        for &mv in &out[start..chess_end] {
            if captured(pos, mv).is_some() {
                chess_captures[mv.from as usize].add(mv.to);
            }
        }
        let us = pos.turn();
        let pseudo = out.len();
        movegen::generate(pos, out, Legality::Pseudo, Stage::Noisy);
        let mut keep = pseudo;
        for i in pseudo..out.len() {
            let mv = out[i];
            if chess_captures[mv.from as usize].contains(mv.to) {
                continue;
            }
            let Some(victim) = captured(pos, mv) else {
                continue;
            };
            if waverers.eligible(pos, mv, victim).is_empty() {
                continue;
            }
            let mut after = *pos;
            Self::play(&mut after, mv);
            if !after.king_attacked(us) {
                out[keep] = mv;
                keep += 1;
            }
        }
        out.truncate(keep);
    }

    /// MVV-LVA plus the conversions: each converted piece counts twice, since the
    /// opponent loses it and we gain it.
    fn gain_estimate(pos: &Position<Self>, mv: Move) -> i32 {
        let victim = match captured(pos, mv) {
            Some((_, role)) => value_of(role),
            None => 0,
        };
        let promotion = mv
            .promotion
            .map_or(0, |r| value_of(r) - value_of(Role::Pawn));
        let converted: i32 = eligible(pos, mv)
            .into_iter()
            .filter(|_| mv.extra & CONVERT_NONE == 0)
            .filter_map(|sq| pos.role_at(sq))
            .map(value_of)
            .sum();
        victim + promotion + 2 * converted
    }

    /// The chess move, then rule 3: each converted piece changes colour in place
    /// (`recolor` drops a castling right tied to its square and never adds one).
    fn play(pos: &mut Position<Self>, mv: Move) {
        let defectors = if mv.extra & CONVERT_NONE != 0 {
            Bitboard::EMPTY
        } else {
            eligible(pos, mv)
        };
        let us = pos.turn();
        pos.play_base(mv);
        for sq in defectors {
            pos.recolor(sq, us);
        }
    }

    fn validate(pos: &Position<Self>) -> Result<(), String> {
        validate_standard(pos, false)
    }

    fn format_move(_pos: &Position<Self>, mv: Move, out: &mut String) {
        mv.write_base(out);
        if mv.extra & CONVERT_NONE != 0 {
            out.push_str(",n");
        }
    }

    /// Immunity (pieces next to their own king never defect, so clustering around
    /// the king is worth something) and defection risk (pieces next to a square
    /// where the enemy can capture may change sides).
    fn evaluate(pos: &Position<Self>) -> i32 {
        let mut score = 0;
        for color in [Color::White, Color::Black] {
            let sign = if color == Color::White { 1 } else { -1 };
            let risk_divisor = if color == pos.turn() {
                RISK_DIVISOR_TO_MOVE
            } else {
                RISK_DIVISOR_WAITING
            };
            score += sign
                * (material(pos, immune(pos, color)) / IMMUNITY_DIVISOR
                    - material(pos, at_risk(pos, color)) / risk_divisor);
        }
        score
    }
}

/// Immune material is worth 1/32 of its value.
const IMMUNITY_DIVISOR: i32 = 32;
/// Material the opponent may convert with its next move loses 1/8 of its value
/// (a conversion swings twice the value, discounted for the capture it needs).
const RISK_DIVISOR_TO_MOVE: i32 = 8;
/// Material the side to move may convert at once is mostly seen by the search.
const RISK_DIVISOR_WAITING: i32 = 16;

/// The captured square and role of `mv` in `pos`, if it captures.
#[inline]
fn captured(pos: &Position<CowardlyCrew>, mv: Move) -> Option<(Square, Role)> {
    match mv.kind {
        MoveKind::EnPassant => Some((
            Square::from_coords(mv.to.file(), mv.from.rank()),
            Role::Pawn,
        )),
        MoveKind::Normal => pos.role_at(mv.to).map(|role| (mv.to, role)),
        _ => None,
    }
}

/// Squares adjacent to the kings of `color`: its pieces there never convert.
#[inline]
fn king_guard(pos: &Position<CowardlyCrew>, color: Color) -> Bitboard {
    let mut zone = Bitboard::EMPTY;
    for k in pos.by_piece(color.king()) {
        zone |= attacks::king_attacks(k);
    }
    zone
}

/// Pieces of `color` that may defect, by RULES.md rank: `up_to[r]` holds those of
/// rank at most `r` (kings and pieces next to their own king excluded).
struct Waverers {
    up_to: [Bitboard; 6],
}

impl Waverers {
    /// The side not to move's waverers, the ones a capture now may convert.
    #[inline]
    fn new(pos: &Position<CowardlyCrew>) -> Self {
        Self::of(pos, !pos.turn())
    }

    #[inline]
    fn of(pos: &Position<CowardlyCrew>, color: Color) -> Self {
        let free = pos.by_color(color) & !king_guard(pos, color);
        let pawns = free & pos.by_role(Role::Pawn);
        let minors = pawns | (free & (pos.by_role(Role::Knight) | pos.by_role(Role::Bishop)));
        let rooks = minors | (free & pos.by_role(Role::Rook));
        let queens = rooks | (free & pos.by_role(Role::Queen));
        Waverers {
            up_to: [Bitboard::EMPTY, pawns, minors, rooks, queens, queens],
        }
    }

    /// Rule 1: the opponent's pieces on the 8 squares around the destination
    /// with rank <= max(capturer before the move, captured piece). The capturer's
    /// role is read on `from`, so a promoting pawn counts as a pawn.
    #[inline]
    fn eligible(&self, pos: &Position<CowardlyCrew>, mv: Move, victim: (Square, Role)) -> Bitboard {
        let capturer = pos.role_at(mv.from).map_or(0, rank_of);
        let limit = capturer.max(rank_of(victim.1));
        attacks::king_attacks(mv.to) & self.up_to[limit as usize] & !Bitboard::from_square(victim.0)
    }
}

/// The pieces `mv` converts in its plain form (empty for a non-capture).
pub fn eligible(pos: &Position<CowardlyCrew>, mv: Move) -> Bitboard {
    match captured(pos, mv) {
        Some(victim) => Waverers::new(pos).eligible(pos, mv, victim),
        None => Bitboard::EMPTY,
    }
}

/// Squares within two king steps of each square (where the defenders of a square
/// next to the king stand).
static TWO_STEPS: [Bitboard; 64] = {
    let mut table = [Bitboard::EMPTY; 64];
    let mut i = 0;
    while i < 64 {
        let sq = Square::new(i as u32);
        let mut zone = attacks::king_attacks(sq);
        let mut near = zone;
        while let Some(n) = near.pop_front() {
            zone = zone.with_const(attacks::king_attacks(n));
        }
        table[i] = zone;
        i += 1;
    }
    table
};

/// Can a capture that chess forbids be rescued by its conversion? The enemy
/// pieces attacking our king after it must all defect, so at least one wavering
/// piece must be placed to attack the king: a knight or pawn giving check now, a
/// slider on a line to the king with at most one piece between (check or pin;
/// an en passant discovery through two pieces cannot be rescued, as a pawn
/// capturing a pawn converts only pawns), or any piece near the king (defending
/// a square the king captures on).
#[inline]
fn rescue_possible(pos: &Position<CowardlyCrew>, waverers: &Waverers) -> bool {
    let us = pos.turn();
    let Some(king) = pos.king_of(us) else {
        return false;
    };
    let wavering = waverers.up_to[5];
    let leapers = (attacks::knight_attacks(king) & pos.by_role(Role::Knight))
        | (attacks::pawn_attacks(us, king) & pos.by_role(Role::Pawn))
        | TWO_STEPS[king as usize];
    if (leapers & wavering).any() {
        return true;
    }
    let sliders = wavering
        & ((attacks::rook_attacks(king, Bitboard::EMPTY) & pos.rooks_and_queens())
            | (attacks::bishop_attacks(king, Bitboard::EMPTY) & pos.bishops_and_queens()));
    let occupied = pos.occupied();
    sliders
        .into_iter()
        .any(|s| !(attacks::between(king, s) & occupied).more_than_one())
}

/// Sum of conventional values of the pieces on `squares`.
fn material(pos: &Position<CowardlyCrew>, squares: Bitboard) -> i32 {
    [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ]
    .into_iter()
    .map(|role| (squares & pos.by_role(role)).count() as i32 * value_of(role))
    .sum()
}

/// Pieces of `color` next to their own king (immune to conversion).
fn immune(pos: &Position<CowardlyCrew>, color: Color) -> Bitboard {
    king_guard(pos, color) & pos.by_color(color) & !pos.by_role(Role::King)
}

/// Pieces of `color` that the enemy's capture on a neighbouring square would
/// convert: for each of `color`'s pieces the enemy attacks, its neighbours up to
/// max(rank of the victim, rank of the strongest attacker).
fn at_risk(pos: &Position<CowardlyCrew>, color: Color) -> Bitboard {
    let enemy = !color;
    let occupied = pos.occupied();
    // attacked_by_rank[r]: squares the enemy attacks with a piece of rank r.
    let mut attacked_by_rank = [Bitboard::EMPTY; 6];
    for sq in pos.by_color(enemy) {
        if let Some(piece) = pos.piece_at(sq) {
            attacked_by_rank[rank_of(piece.role) as usize] |= attacks::attacks(sq, piece, occupied);
        }
    }
    let waverers = Waverers::of(pos, color);
    let victims = pos.by_color(color) & !pos.by_role(Role::King);
    let mut risk = Bitboard::EMPTY;
    let mut seen = Bitboard::EMPTY;
    // Strongest attackers first: each victim square is judged once, at its limit.
    for (rank, &attacked) in attacked_by_rank.iter().enumerate().rev() {
        for sq in victims & attacked & !seen {
            let victim = pos.role_at(sq).map_or(1, rank_of) as usize;
            risk |= attacks::king_attacks(sq) & waverers.up_to[rank.max(victim)];
        }
        seen |= attacked;
    }
    risk
}
