//! Subversion (Terry H. Jones' Conversion Chess), as `docs/RULES.md` ("Subversion") states it.
//!
//! Instead of moving, a player may *subvert* an enemy piece: the target T changes
//! colour in place, paid for by removing some of the mover's own pieces. A
//! subversion is a [`SUBVERSION`] move whose `to` is T and whose `extra` is
//! the bitboard of paid squares (so every distinct set of paid squares is a distinct
//! move, as perft requires). Its token is `@<target>,<paid>,...` with the paid squares
//! in a1=0 .. h8=63 order, which is exactly bitboard iteration order.
//!
//! Ordinary moves are plain chess moves with plain chess legality, so they come from
//! the core's fast legal generator; subversions are added after them.

use shakmaty::{attacks, Bitboard, Color, Role, Square};

use super::Variant;
use crate::bitboards::{mover_order, neighbourhood};
use crate::live::{base_action, chess_effects, Action, Effects, Extra, Removal, Why};
use crate::movegen::{self, Legality, Stage};
use crate::moves::{write_square, Move, MoveKind, MoveList};
use crate::notation::Parts;
use crate::position::Position;

#[derive(Copy, Clone, Debug, Default)]
pub struct Subversion;

/// A subversion: no piece moves; `to` is the target, `extra` the paid squares.
pub const SUBVERSION: MoveKind = MoveKind::Special;

impl Variant for Subversion {
    const NAME: &'static str = "subversion";
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    type State = ();
    type Cache = ();

    fn legal_moves(pos: &Position<Self>, out: &mut MoveList) {
        let start = out.len();
        movegen::generate(pos, out, Legality::Legal, Stage::All);
        let ordinary_move_exists = out.len() > start;
        generate_subversions(pos, out, ordinary_move_exists);
    }

    fn play(pos: &mut Position<Self>, mv: Move) {
        if mv.kind != SUBVERSION {
            pos.play_base(mv);
            return;
        }
        let us = pos.turn();
        pos.set_ep(None);
        for paid in Bitboard(mv.extra) {
            // `take` drops a castling right tied to a paid rook or king.
            pos.take(paid);
        }
        // `recolor` drops the castling right of a subverted corner rook.
        pos.recolor(mv.to, us);
        pos.set_halfmoves(0);
        pos.pass_turn();
    }

    fn format_move(_pos: &Position<Self>, mv: Move, out: &mut String) {
        if mv.kind != SUBVERSION {
            mv.write_base(out);
            return;
        }
        out.push('@');
        write_square(out, mv.to);
        for paid in Bitboard(mv.extra) {
            out.push(',');
            write_square(out, paid);
        }
    }

    /// Ordinary moves in SAN; a subversion as `@` and the target (its letter,
    /// `P` for a pawn, and square), then `/` and the paid pieces the same way
    /// in square order (docs/RULES.md, "Subversion: notation"): `@Be5/Pg2`.
    fn notation_parts(pos: &Position<Self>, mv: Move, legal: &[Move]) -> Parts {
        if mv.kind != SUBVERSION {
            return Parts::head(crate::notation::san_head(pos, mv, legal));
        }
        let piece = |sq: Square| {
            let letter = pos.role_at(sq).map_or('?', |r| r.upper_char());
            format!("{letter}{sq}")
        };
        let paid: Vec<String> = Bitboard(mv.extra).into_iter().map(piece).collect();
        Parts {
            head: format!("@{}", piece(mv.to)),
            tail: format!("/{}", paid.join(",")),
        }
    }

    fn action(_pos: &Position<Self>, mv: Move) -> (Action, Vec<Extra>) {
        if mv.kind != SUBVERSION {
            return (base_action(mv), Vec::new());
        }
        let paid = Bitboard(mv.extra).into_iter().collect();
        (
            Action::Subvert {
                target: mv.to,
                paid,
            },
            Vec::new(),
        )
    }

    /// A subversion: the paid pieces leave, then the target changes colour.
    fn effects(pos: &Position<Self>, mv: Move) -> Effects {
        if mv.kind != SUBVERSION {
            return chess_effects(pos, mv);
        }
        let mut fx = Effects::default();
        for square in Bitboard(mv.extra) {
            if let Some(piece) = pos.piece_at(square) {
                fx.removed.push(Removal {
                    square,
                    piece,
                    why: Why::Paid,
                });
            }
        }
        fx.converted.push(mv.to);
        fx
    }
}

/// The enemy pieces that are never out of reach of `by`: not kings and not adjacent
/// to their own king (the first two target conditions).
#[inline]
fn exposed(pos: &Position<Subversion>, by: Color) -> Bitboard {
    let them = !by;
    let mut pieces = pos.by_color(them) & !pos.by_role(Role::King);
    if let Some(k) = pos.king_of(them) {
        pieces &= !attacks::king_attacks(k);
    }
    pieces
}

/// docs/RULES.md's target conditions for a subversion by `by`: an enemy non-king piece,
/// not adjacent to its own king, with one of `by`'s N, B, R, Q or K next to it.
#[inline]
pub fn subvertible(pos: &Position<Subversion>, by: Color) -> Bitboard {
    let subverters = pos.by_color(by) & !pos.by_role(Role::Pawn);
    exposed(pos, by) & neighbourhood(subverters)
}

/// Would the mover's king on `king` be attacked after paying `paid` and turning
/// `target`? Only enemy sliders can newly attack (paid pieces only open lines), and
/// no other enemy piece attacked before: either the mover was not in check, or the
/// target was the single checker and is ours afterwards.
#[inline]
fn king_exposed(pos: &Position<Subversion>, king: Square, target: Square, paid: Bitboard) -> bool {
    let occupied = pos.occupied() & !paid;
    let enemy = pos.them().without(target);
    ((attacks::rook_attacks(king, occupied) & pos.rooks_and_queens())
        | (attacks::bishop_attacks(king, occupied) & pos.bishops_and_queens()))
    .intersects(enemy)
}

/// Appends every legal subversion of the side to move. `ordinary_move_exists` says
/// whether a legal ordinary move exists: when in check without one, "a piece giving
/// mate may not be subverted" and nothing is appended.
pub fn generate_subversions(
    pos: &Position<Subversion>,
    out: &mut MoveList,
    ordinary_move_exists: bool,
) {
    let us = pos.turn();
    let Some(king) = pos.king_of(us) else {
        return;
    };
    let mut targets = subvertible(pos, us);
    if targets.is_empty() {
        return;
    }
    let checkers = pos.checkers();
    if checkers.any() {
        // In check only the single checker may go (anything else leaves the check),
        // and only when the mover has a legal ordinary move.
        if checkers.more_than_one() || !ordinary_move_exists {
            return;
        }
        targets &= checkers;
    }
    if targets.is_empty() {
        return;
    }

    let pawns = pos.by_piece(us.pawn());
    let knights = pos.by_piece(us.knight());
    let bishops = pos.by_piece(us.bishop());
    let rooks = pos.by_piece(us.rook());
    let queens = pos.by_piece(us.queen());
    let officers = knights | bishops | rooks | queens;

    for target in mover_order(us, targets) {
        let mut offer = |paid: Bitboard| {
            if !king_exposed(pos, king, target, paid) {
                out.push(Move::new(SUBVERSION, target, target).with_extra(paid.0));
            }
        };
        if !checkers.contains(target) {
            // Price 1: a target not attacking the king costs exactly one pawn.
            for pawn in mover_order(us, pawns) {
                offer(Bitboard::from_square(pawn));
            }
            continue;
        }
        match pos.role_at(target) {
            // Price 2: a checking P, N or B costs one N, B, R or Q.
            Some(Role::Pawn | Role::Knight | Role::Bishop) => {
                for piece in mover_order(us, officers) {
                    offer(Bitboard::from_square(piece));
                }
            }
            // Price 3: a checking rook costs R; Q; B+B; N+N; B+N; or N-or-B with
            // every pawn (only with at least one pawn).
            Some(Role::Rook) => {
                for piece in mover_order(us, rooks | queens) {
                    offer(Bitboard::from_square(piece));
                }
                for_each_pair(us, bishops, &mut offer);
                for_each_pair(us, knights, &mut offer);
                for bishop in mover_order(us, bishops) {
                    for knight in mover_order(us, knights) {
                        offer(Bitboard::from_square(bishop).with(knight));
                    }
                }
                if pawns.any() {
                    for minor in mover_order(us, knights | bishops) {
                        offer(pawns.with(minor));
                    }
                }
            }
            // Price 4: a checking queen costs any three of N, B, R, Q, or any two of
            // them with every pawn (only with at least one pawn).
            Some(Role::Queen) => {
                for_each_triple(us, officers, &mut offer);
                if pawns.any() {
                    for_each_pair(us, officers, &mut |pair| offer(pair | pawns));
                }
            }
            Some(Role::King) | None => {}
        }
    }
}

/// Calls `f` with every two-square subset of `set`, in `us`'s [`mover_order`].
#[inline]
fn for_each_pair(us: Color, set: Bitboard, f: &mut impl FnMut(Bitboard)) {
    let mut rest = set;
    for a in mover_order(us, set) {
        rest.discard(a);
        for b in mover_order(us, rest) {
            f(Bitboard::from_square(a).with(b));
        }
    }
}

/// Calls `f` with every three-square subset of `set`, in `us`'s [`mover_order`].
#[inline]
fn for_each_triple(us: Color, set: Bitboard, f: &mut impl FnMut(Bitboard)) {
    let mut rest = set;
    for a in mover_order(us, set) {
        rest.discard(a);
        for_each_pair(us, rest, &mut |pair| f(pair.with(a)));
    }
}
