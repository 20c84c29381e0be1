//! Cowardly Crew (`cowardlycrew`), docs/RULES.md, "Cowardly Crew".
//!
//! After any capture the opponent's *eligible* pieces around the capturing piece's
//! destination defect to the capturer (rule 1). A capture with at least one eligible
//! piece exists twice: convert all (plain token) or none (`,n`, rule 2). Legality is
//! judged after the whole move, so a conversion may parry a check the capture alone
//! does not (rule 4).
//!
//! Move generation leans on the fast legal chess generator: a conversion only turns
//! enemy pieces into ours on the same squares, so it can never expose our king, and
//! every chess-legal capture is legal in both forms. Only captures landing next to
//! a piece that may defect need a second look (see `add_conversion_moves`).

use shakmaty::{attacks, Bitboard, Color, Role, Square};

use super::{rank_of, validate_standard, Variant};
use crate::bitboards::{mover_order, neighbourhood};
use crate::live::{base_action, chess_effects, Action, Effects, Extra};
use crate::movegen::{self, Legality, Stage};
use crate::moves::{Move, MoveKind, MoveList};
use crate::notation::Parts;
use crate::position::Position;

#[derive(Copy, Clone, Debug, Default)]
pub struct CowardlyCrew;

/// `Move::extra` of the `,n` form: the capture converts nothing. The plain form
/// (`extra == 0`) converts every eligible piece, recomputed when played.
pub const CONVERT_NONE: u64 = 1;

impl Variant for CowardlyCrew {
    const NAME: &'static str = "cowardlycrew";
    /// A lone king's capture converts the pieces around it.
    const LONE_KING_CANNOT_MATE: bool = false;
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    type State = ();
    type Cache = ();

    /// The chess-legal moves (each capture's plain form among them), then, for
    /// every capture that can convert something, its `,n` form when chess allows
    /// it or its plain form when only the conversion makes it legal.
    fn legal_moves(pos: &Position<Self>, out: &mut MoveList) {
        movegen::generate(pos, out, Legality::Legal, Stage::All);
        add_conversion_moves(pos, out);
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

    fn validate(pos: &Position<Self>) -> Result<(), crate::fen::FenError> {
        validate_standard(pos, false)
    }

    fn format_move(_pos: &Position<Self>, mv: Move, out: &mut String) {
        mv.write_base(out);
        if mv.extra & CONVERT_NONE != 0 {
            out.push_str(",n");
        }
    }

    /// SAN, then `~<n>` when the capture converts n pieces (docs/RULES.md,
    /// "Cowardly Crew: notation"): the form that converts nothing is plain SAN.
    fn notation_parts(pos: &Position<Self>, mv: Move, legal: &[Move]) -> Parts {
        let mut parts = Parts::head(crate::notation::san_head(pos, mv, legal));
        if mv.extra & CONVERT_NONE == 0 {
            let n = eligible(pos, mv).count();
            if n > 0 {
                parts.tail = format!("~{n}");
            }
        }
        parts
    }

    fn action(_pos: &Position<Self>, mv: Move) -> (Action, Vec<Extra>) {
        let extras = if mv.extra & CONVERT_NONE != 0 {
            vec![Extra::Spare]
        } else {
            Vec::new()
        };
        (base_action(mv), extras)
    }

    /// The chess move, then rule 3's conversions (as `play` decides them).
    fn effects(pos: &Position<Self>, mv: Move) -> Effects {
        let mut fx = chess_effects(pos, mv);
        let eligible = eligible(pos, mv).into_iter().collect();
        if mv.extra & CONVERT_NONE == 0 {
            fx.converted = eligible;
        } else {
            fx.spared = eligible;
        }
        fx
    }
}

/// The captured square and role of `mv` in `pos`, if it captures.
#[inline]
pub fn captured(pos: &Position<CowardlyCrew>, mv: Move) -> Option<(Square, Role)> {
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
pub fn king_guard(pos: &Position<CowardlyCrew>, color: Color) -> Bitboard {
    let mut zone = Bitboard::EMPTY;
    for k in pos.by_piece(color.king()) {
        zone |= attacks::king_attacks(k);
    }
    zone
}

/// Pieces of `color` that may defect, by docs/RULES.md rank: `up_to[r]` holds those of
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

/// Appends what the conversions add to the chess moves, looking only at captures
/// that land next to a wavering piece (the others convert nothing):
/// - a chess-legal capture gets its `,n` form: both forms are legal (rule 2),
///   since converting leaves occupancy unchanged and only takes attackers away
///   from the enemy;
/// - a capture chess forbids (our king stays attacked) is legal in its plain form
///   when its conversion removes every attacker (rule 4, seed rule 10).
///
/// The captures are found from our pieces' attacks rather than by scanning the
/// move list, which is cheaper; chess legality comes from [`KingSafety`].
fn add_conversion_moves(pos: &Position<CowardlyCrew>, out: &mut MoveList) {
    let waverers = Waverers::new(pos);
    let near_waverers = neighbourhood(waverers.up_to[5]);
    let targets = pos.them() & !pos.by_role(Role::King) & near_waverers;
    let ep = pos.ep_square().filter(|&sq| near_waverers.contains(sq));
    if targets.is_empty() && ep.is_none() {
        return;
    }
    let us = pos.turn();
    let them = !us;
    // FEN validation guarantees one king per colour.
    let Some(king) = pos.king_of(us) else {
        return;
    };
    let occupied = pos.occupied();

    // The king: legal when the destination is not defended, or when every
    // defender defects (its limit is 5).
    for to in mover_order(us, attacks::king_attacks(king) & targets) {
        let defectors = attacks::king_attacks(to) & waverers.up_to[5];
        if defectors.is_empty() {
            continue;
        }
        let defenders = pos.attackers_to(to, them, occupied ^ Bitboard::from_square(king));
        let mv = Move::new(MoveKind::Normal, king, to);
        if defenders.is_empty() {
            out.push(mv.with_extra(CONVERT_NONE));
        } else if defenders.is_subset(defectors) {
            out.push(mv);
        }
    }

    let safety = KingSafety::new(pos, king);
    let last_rank = them.backrank();
    for role in [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ] {
        for from in mover_order(us, pos.by_piece(role.of(us))) {
            let reach = match role {
                Role::Pawn => attacks::pawn_attacks(us, from),
                Role::Knight => attacks::knight_attacks(from),
                Role::Bishop => attacks::bishop_attacks(from, occupied),
                Role::Rook => attacks::rook_attacks(from, occupied),
                _ => attacks::queen_attacks(from, occupied),
            };
            for to in mover_order(us, reach & targets) {
                let victim = pos.role_at(to).map_or(0, rank_of);
                let limit = rank_of(role).max(victim) as usize;
                if (attacks::king_attacks(to) & waverers.up_to[limit]).is_empty() {
                    continue;
                }
                let mv = Move::new(MoveKind::Normal, from, to);
                let mv = if safety.allows(from, to) {
                    mv.with_extra(CONVERT_NONE)
                } else if rescued(pos, mv) {
                    mv
                } else {
                    continue;
                };
                if role == Role::Pawn && to.rank() == last_rank {
                    for promotion in [Role::Queen, Role::Knight, Role::Rook, Role::Bishop] {
                        out.push(mv.with_promotion(promotion));
                    }
                } else {
                    out.push(mv);
                }
            }
        }
    }

    // En passant (a pawn takes a pawn: only pawns convert), judged by trial.
    if let Some(ep) = ep {
        for from in mover_order(
            us,
            attacks::pawn_attacks(them, ep) & pos.by_piece(us.pawn()),
        ) {
            let mv = Move::new(MoveKind::EnPassant, from, ep);
            let victim = Square::from_coords(ep.file(), from.rank());
            if waverers.eligible(pos, mv, (victim, Role::Pawn)).is_empty() {
                continue;
            }
            let mut chess_only = *pos;
            chess_only.play_base(mv);
            if !chess_only.king_attacked(us) {
                out.push(mv.with_extra(CONVERT_NONE));
            } else if rescued(pos, mv) {
                out.push(mv);
            }
        }
    }
}

/// Is our king safe after the plain (converting) form of `mv`?
fn rescued(pos: &Position<CowardlyCrew>, mv: Move) -> bool {
    let mut after = *pos;
    CowardlyCrew::play(&mut after, mv);
    !after.king_attacked(pos.turn())
}

/// What chess allows a non-king piece of the side to move: checkers and pins.
struct KingSafety {
    king: Square,
    checkers: Bitboard,
    pinned: Bitboard,
}

impl KingSafety {
    #[inline]
    fn new(pos: &Position<CowardlyCrew>, king: Square) -> Self {
        let occupied = pos.occupied();
        let them = pos.them();
        let checkers = pos.attackers_to(king, !pos.turn(), occupied);
        let snipers = them
            & ((attacks::rook_attacks(king, Bitboard::EMPTY) & pos.rooks_and_queens())
                | (attacks::bishop_attacks(king, Bitboard::EMPTY) & pos.bishops_and_queens()));
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = attacks::between(king, sniper) & occupied;
            if !blockers.more_than_one() {
                pinned |= blockers & pos.us();
            }
        }
        KingSafety {
            king,
            checkers,
            pinned,
        }
    }

    /// Does chess allow the non-king piece on `from` to capture on `to`?
    #[inline]
    fn allows(&self, from: Square, to: Square) -> bool {
        let parries = match self.checkers.single_square() {
            _ if self.checkers.is_empty() => true,
            Some(c) => attacks::between(self.king, c).with(c).contains(to),
            None => false,
        };
        parries && (!self.pinned.contains(from) || attacks::ray(self.king, from).contains(to))
    }
}
