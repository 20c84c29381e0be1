//! The Andernach family (`andernach`, `antiandernach`, `superandernach`),
//! docs/RULES.md, "Andernach", as Cutechess plays them (its `AndernachBoard`,
//! `AntiAndernachBoard` and `SuperAndernachBoard`, version 1.4.0), because
//! Cutechess is the referee these games are played under.
//!
//! A move is a chess move; afterwards the moved piece, unless it is the king,
//! changes side when the variant's rule says so: in Andernach when the move
//! captures, in Anti-Andernach when it does not, in Super-Andernach always. A
//! promotion promotes first and then changes side. Legality is chess legality
//! judged after the change: a piece that turns may not attack its former king.
//!
//! What "captures" means is Cutechess's: a piece on the target, or a pawn moving
//! to the en passant square. In Anti- and Super-Andernach the pawn that made the
//! double step has already changed side, so an en passant capture takes one's
//! own pawn, and that pawn may itself step onto the square it passed (a
//! capture of nothing, counted as one). See docs/RULES.md, "Andernach: en
//! passant".
//!
//! Two more of Cutechess's ways are followed, because its board is the game's
//! (docs/RULES.md, "Andernach: en passant as Cutechess referees it"): an en
//! passant square read from a FEN with no enemy pawn past it takes nothing
//! (its FEN reader keeps the square but finds no pawn to take), and a piece
//! other than a pawn or the king that moves to the en passant square turns
//! the pawn past it over to the opponent (the referee takes back every move it
//! checks, and its take-back puts that pawn back in the opponent's colour).

use shakmaty::{Bitboard, Color, Role, Square};

use super::Variant;
use crate::bitboards::piece_attacks;
use crate::live::{chess_effects, Effects};
use crate::movegen::{self, Legality, Stage};
use crate::moves::{Move, MoveKind, MoveList};
use crate::position::{past_en_passant, Board, Position};
use crate::zobrist;

/// Andernach chess: a capturing piece other than the king changes side.
#[derive(Copy, Clone, Debug, Default)]
pub struct Andernach;

/// Anti-Andernach: a non-capturing move of a piece other than the king
/// changes its side.
#[derive(Copy, Clone, Debug, Default)]
pub struct AntiAndernach;

/// Super-Andernach: every move of a piece other than the king changes its side.
#[derive(Copy, Clone, Debug, Default)]
pub struct SuperAndernach;

/// The one rule that tells the three apart.
pub trait SideChange: Variant<State = Option<Square>, Cache = bool> {
    /// Does a move of a piece other than the king change its side, given
    /// whether it captures?
    fn changes_side_when(captures: bool) -> bool;
}

impl SideChange for Andernach {
    #[inline]
    fn changes_side_when(captures: bool) -> bool {
        captures
    }
}

impl SideChange for AntiAndernach {
    #[inline]
    fn changes_side_when(captures: bool) -> bool {
        !captures
    }
}

impl SideChange for SuperAndernach {
    #[inline]
    fn changes_side_when(_captures: bool) -> bool {
        true
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The Variant impl shared by the three: only the name, the side-change rule
/// and what follows from it differ.
macro_rules! andernach_variant {
    ($ty:ident, $name:literal, $double_step_changes_side:literal) => {
        impl Variant for $ty {
            const NAME: &'static str = $name;
            const START_FEN: &'static str = START;
            /// The other side's pieces can turn to a lone king's side.
            const LONE_KING_CANNOT_MATE: bool = false;
            /// A double step that changes the pawn's side leaves it past the
            /// en passant square as a pawn of the side to move.
            const DOUBLE_STEP_CHANGES_SIDE: bool = $double_step_changes_side;
            /// Where a pawn's step changes its side it can walk back, so a
            /// pawn move does not make earlier positions unreachable.
            const CLOCK_RESET_IRREVERSIBLE: bool = !$double_step_changes_side;
            /// Cutechess writes and reads the same SAN.
            const SHARED_NOTATION: bool = true;
            /// The en passant square read from a FEN with no enemy pawn past
            /// it, where a capture takes nothing ([`spared_square`]).
            type State = Option<Square>;
            /// Does the side to move attack the opponent's king? Only after
            /// a pawn handed back ([`handed_back`]) left it so; no move may
            /// take the king then.
            type Cache = bool;
            /// Cutechess's FEN reader keeps the square whenever a pawn of the
            /// side to move attacks it, whatever stands past it.
            const FEN_EN_PASSANT_NEEDS_PUSHER: bool = false;

            fn parse_state(
                pos: &Position<Self>,
                field: Option<&str>,
            ) -> Result<Self::State, crate::fen::FenError> {
                match field {
                    None => Ok(spared_square(pos)),
                    Some(f) => Err(crate::fen::FenError::NoSeventhField {
                        variant: Self::NAME,
                        found: f.to_string(),
                    }),
                }
            }

            fn state_key(state: &Self::State) -> u64 {
                state.map_or(0, |sq| zobrist::extra(0, sq))
            }

            fn legal_moves(pos: &Position<Self>, out: &mut MoveList) {
                legal_moves(pos, out);
            }

            fn play(pos: &mut Position<Self>, mv: Move) {
                play(pos, mv);
            }

            fn insufficient_material(board: &Board) -> bool {
                dead_material(board)
            }

            /// SAN as Cutechess writes it, so that the two read each other's PGN.
            fn move_text(pos: &Position<Self>, mv: Move) -> String {
                san(pos, mv)
            }

            fn move_texts(pos: &Position<Self>, legal: &[Move]) -> Vec<String> {
                legal.iter().map(|&mv| san(pos, mv)).collect()
            }

            /// Cutechess's SAN, or a token.
            fn move_from_text(pos: &Position<Self>, text: &str) -> Option<Move> {
                parse_san(pos, text).or_else(|| crate::game::find_move(pos, text))
            }

            fn effects(pos: &Position<Self>, mv: Move) -> Effects {
                let mut fx = chess_effects(pos, mv);
                if mv.kind == MoveKind::EnPassant && pos.state().is_some() {
                    // Nothing stands to be taken (see `spared_square`).
                    fx.removed.clear();
                }
                if changes_side(pos, mv) {
                    fx.converted.push(mv.to);
                }
                if let Some(sq) = handed_back(pos, mv) {
                    fx.converted.push(sq);
                    // In square order, as every variant lists them.
                    fx.converted.sort_unstable();
                }
                fx
            }
        }
    };
}

andernach_variant!(Andernach, "andernach", false);
andernach_variant!(AntiAndernach, "antiandernach", true);
andernach_variant!(SuperAndernach, "superandernach", true);

/// Does `mv` capture, as Cutechess counts it: a piece stands on the target, or
/// a pawn moves to the en passant square (whether or not a pawn is taken).
#[inline]
pub fn is_capture<V: Variant>(pos: &Position<V>, mv: Move) -> bool {
    match mv.kind {
        MoveKind::EnPassant => true,
        MoveKind::Normal | MoveKind::DoublePush => {
            pos.occupied().contains(mv.to)
                || (pos.ep_square() == Some(mv.to) && pos.role_at(mv.from) == Some(Role::Pawn))
        }
        MoveKind::Castle | MoveKind::Null | MoveKind::Special => false,
    }
}

/// Does the piece `mv` moves change side (never the king, so never castling)?
#[inline]
pub fn changes_side<V: SideChange>(pos: &Position<V>, mv: Move) -> bool {
    mv.kind != MoveKind::Castle
        && pos.role_at(mv.from) != Some(Role::King)
        && V::changes_side_when(is_capture(pos, mv))
}

/// The en passant square a FEN names when no pawn of the opponent stands just
/// past it, or `None`. Cutechess's FEN reader keeps such a square (a pawn of
/// the side to move attacks it) but finds no pawn to take, so an en passant
/// capture there takes nothing, yet counts as a capture. After a double step
/// the pawn past the square is always the one that made it, and is taken.
pub fn spared_square<V: Variant>(pos: &Position<V>) -> Option<Square> {
    let ep = pos.ep_square()?;
    let us = pos.turn();
    (pos.piece_at(past_en_passant(ep, us)) != Some((!us).pawn())).then_some(ep)
}

/// The square of the pawn that `mv` hands back to the opponent, if any: a
/// piece other than a pawn or the king moving to the en passant square, with
/// the side to move's own pawn just past it (in Anti- and Super-Andernach the
/// pawn that made the double step, which turned). Cutechess takes back every
/// move it checks or writes in SAN, and its take-back of a move to the en
/// passant square puts the pawn past it back in the opponent's colour; a
/// pawn's move there removes or moves that pawn anyway, and a king's
/// take-back runs another branch. Where the square was read from a FEN with
/// nothing to take, Cutechess puts that pawn off the board: nothing changes.
#[inline]
pub fn handed_back<V: SideChange>(pos: &Position<V>, mv: Move) -> Option<Square> {
    let ep = pos.ep_square()?;
    if mv.to != ep || mv.kind != MoveKind::Normal || pos.state().is_some() {
        return None;
    }
    if matches!(pos.role_at(mv.from), Some(Role::Pawn | Role::King) | None) {
        return None;
    }
    let us = pos.turn();
    let sq = past_en_passant(ep, us);
    (pos.piece_at(sq) == Some(us.pawn())).then_some(sq)
}

/// The chess-legal moves, less those whose piece changes side and then
/// attacks its former king. The board after a move differs from chess only
/// in the colour of the piece on the target (same occupancy), so chess
/// legality plus that one attack is the whole test. A pawn handed back
/// ([`handed_back`]) is not part of it: Cutechess judges the move before its
/// take-back hands the pawn over, so such a move may leave the mover's king
/// attacked by that pawn. The opponent may not take the king then (Cutechess
/// would let it): a capture of a king is never a move here.
pub fn legal_moves<V: SideChange>(pos: &Position<V>, out: &mut MoveList) {
    if pos.state().is_some() {
        return legal_by_trial(pos, out);
    }
    let start = out.len();
    movegen::generate(pos, out, Legality::Legal, Stage::All);
    let us = pos.turn();
    let Some(king) = pos.king_of(us) else {
        return;
    };
    let mut kept = start;
    for i in start..out.len() {
        let mv = out[i];
        if !changes_side(pos, mv) || !turncoat_attacks(pos, mv, king) {
            out[kept] = mv;
            kept += 1;
        }
    }
    out.truncate(kept);
    if *pos.cache() {
        spare_the_king(pos, out, start);
    }
}

/// Drops the captures of the opponent's king from `out[start..]`.
fn spare_the_king<V: SideChange>(pos: &Position<V>, out: &mut MoveList, start: usize) {
    let Some(their_king) = pos.king_of(!pos.turn()) else {
        return;
    };
    let mut kept = start;
    for i in start..out.len() {
        if out[i].to != their_king {
            out[kept] = out[i];
            kept += 1;
        }
    }
    out.truncate(kept);
}

/// The legal moves where an en passant capture takes nothing
/// ([`spared_square`]), a position only a FEN gives: each pseudo-legal move
/// played on a copy and kept when it leaves the mover's king unattacked (chess
/// legality assumes the capture removes a pawn).
fn legal_by_trial<V: SideChange>(pos: &Position<V>, out: &mut MoveList) {
    let start = out.len();
    movegen::generate(pos, out, Legality::Pseudo, Stage::All);
    let us = pos.turn();
    let mut kept = start;
    for i in start..out.len() {
        let mv = out[i];
        let mut after = *pos;
        play(&mut after, mv);
        let safe = after
            .king_of(us)
            .is_some_and(|king| !after.is_attacked(king, !us));
        if safe {
            out[kept] = mv;
            kept += 1;
        }
    }
    out.truncate(kept);
    if *pos.cache() {
        spare_the_king(pos, out, start);
    }
}

/// Would the piece `mv` moves, once it has changed side, attack `king`?
#[inline]
fn turncoat_attacks<V: Variant>(pos: &Position<V>, mv: Move, king: Square) -> bool {
    let Some(role) = pos.role_at(mv.from) else {
        return false;
    };
    let role = mv.promotion.unwrap_or(role);
    let turned = role.of(!pos.turn());
    // Cheap test first: could it attack the king on an empty board?
    if !piece_attacks(mv.to, turned, Bitboard::EMPTY).contains(king) {
        return false;
    }
    let mut occupied = pos.occupied().without(mv.from).with(mv.to);
    if mv.kind == MoveKind::EnPassant {
        occupied.discard(Square::from_coords(mv.to.file(), mv.from.rank()));
    }
    piece_attacks(mv.to, turned, occupied).contains(king)
}

/// The chess move, then the side change (a promotion has already promoted).
pub fn play<V: SideChange>(pos: &mut Position<V>, mv: Move) {
    let turns = changes_side(pos, mv);
    let handed = handed_back(pos, mv);
    let us = pos.turn();
    if mv.kind == MoveKind::EnPassant && pos.state().is_some() {
        // Nothing to take: the pawn just moves (still a capture, `is_capture`).
        pos.play_base(Move::new(MoveKind::Normal, mv.from, mv.to));
    } else {
        pos.play_base(mv);
    }
    // A FEN's en passant square lasts one move, as every en passant square.
    if pos.state().is_some() {
        pos.set_state(None);
    }
    if turns {
        pos.recolor(mv.to, !us);
    }
    let mut exposed = false;
    if let Some(sq) = handed {
        pos.recolor(sq, !us);
        exposed = pos
            .king_of(us)
            .is_some_and(|king| shakmaty::attacks::pawn_attacks(!us, sq).contains(king));
    }
    if exposed != *pos.cache() {
        pos.set_cache(exposed);
    }
}

/// Cutechess's insufficient material, for both sides together: no pawn, rook
/// or queen, and the knights plus the square colours the bishops stand on
/// number at most one (so K+B v K+B with both bishops on squares of one
/// colour is drawn, K+N v K+N is not).
pub fn dead_material(board: &Board) -> bool {
    const LIGHT: Bitboard = Bitboard(0x55aa_55aa_55aa_55aa);
    let heavy = board.by_role(Role::Pawn) | board.by_role(Role::Rook) | board.by_role(Role::Queen);
    if heavy.any() {
        return false;
    }
    let bishops = board.by_role(Role::Bishop);
    let colours = u32::from((bishops & LIGHT).any()) + u32::from((bishops & !LIGHT).any());
    board.by_role(Role::Knight).count() as u32 + colours <= 1
}

// ----- SAN, as Cutechess writes and reads it -----

/// The piece letter Cutechess writes (`P` for a pawn, in the side-change mark).
#[inline]
fn letter(role: Role) -> char {
    role.upper_char()
}

/// The SAN Cutechess 1.4.0 writes for `mv` (legal in `pos`): standard SAN,
/// then, when the piece changes side, `(=` + its new colour (`w`/`b`) + its
/// letter (after promotion) + `)`, after any check mark: `Nxd5(=bN)`,
/// `exd8=Q+(=bQ)`, `e4(=bP)`. Disambiguation follows Cutechess 1.4.0: the file
/// when another such move comes from another file, the rank when one comes
/// from the same file.
pub fn san<V: SideChange>(pos: &Position<V>, mv: Move) -> String {
    let mut s = String::with_capacity(12);
    let Some(piece) = pos.piece_at(mv.from) else {
        return mv.base_token();
    };
    let mut after = *pos;
    play(&mut after, mv);
    let check = if V::in_check(&after) {
        let mut replies = MoveList::new();
        legal_moves(&after, &mut replies);
        Some(if replies.is_empty() { '#' } else { '+' })
    } else {
        None
    };
    if mv.kind == MoveKind::Castle {
        s.push_str(if mv.to.file() > mv.from.file() {
            "O-O"
        } else {
            "O-O-O"
        });
        s.extend(check);
        return s;
    }
    let capture = is_capture(pos, mv);
    if piece.role == Role::Pawn {
        if capture {
            s.push(mv.from.file().char());
        }
    } else {
        s.push(letter(piece.role));
        let mut moves = MoveList::new();
        legal_moves(pos, &mut moves);
        let (mut need_file, mut need_rank) = (false, false);
        for other in moves {
            if other.to != mv.to
                || other.from == mv.from
                || other.kind == MoveKind::Castle
                || pos.role_at(other.from) != Some(piece.role)
            {
                continue;
            }
            if other.from.file() != mv.from.file() {
                need_file = true;
            } else if other.from.rank() != mv.from.rank() {
                need_rank = true;
            }
        }
        if need_file {
            s.push(mv.from.file().char());
        }
        if need_rank {
            s.push(mv.from.rank().char());
        }
    }
    if capture {
        s.push('x');
    }
    s.push_str(&mv.to.to_string());
    if let Some(role) = mv.promotion {
        s.push('=');
        s.push(letter(role));
    }
    s.extend(check);
    if changes_side(pos, mv) {
        s.push_str("(=");
        s.push(if piece.color == Color::White {
            'b'
        } else {
            'w'
        });
        s.push(letter(mv.promotion.unwrap_or(piece.role)));
        s.push(')');
    }
    s
}

/// Reads SAN as Cutechess does: the side-change mark in brackets (and
/// anything after it) and check or annotation marks are ignored, the capture
/// mark must be right, and the move must be the only legal one matching the
/// piece, the target, the promotion and whatever part of the origin is given.
/// `None` when no legal move or more than one matches.
pub fn parse_san<V: SideChange>(pos: &Position<V>, text: &str) -> Option<Move> {
    let text = text.split('(').next().unwrap_or(text);
    let text = text.trim_end_matches(['+', '#', '!', '?']);
    let mut moves = MoveList::new();
    legal_moves(pos, &mut moves);
    let castle = match text {
        "O-O" | "0-0" => Some(true),
        "O-O-O" | "0-0-0" => Some(false),
        _ => None,
    };
    if let Some(king_side) = castle {
        return moves
            .into_iter()
            .find(|m| m.kind == MoveKind::Castle && (m.to.file() > m.from.file()) == king_side);
    }
    let bytes = text.as_bytes();
    let (role, mut rest) = match bytes.first() {
        Some(&c) if c.is_ascii_uppercase() => (
            Role::from_char(char::from(c).to_ascii_lowercase())?,
            &bytes[1..],
        ),
        Some(_) => (Role::Pawn, bytes),
        None => return None,
    };
    let mut promotion = None;
    if let Some((&last, init)) = rest.split_last() {
        if last.is_ascii_uppercase() {
            promotion = Some(Role::from_char(char::from(last).to_ascii_lowercase())?);
            rest = init.strip_suffix(b"=").unwrap_or(init);
        }
    }
    if rest.len() < 2 {
        return None;
    }
    let (head, target) = rest.split_at(rest.len() - 2);
    let to: Square = std::str::from_utf8(target).ok()?.parse().ok()?;
    let (head, says_capture) = match head.strip_suffix(b"x") {
        Some(h) => (h, true),
        None => (head, false),
    };
    let (mut file, mut rank) = (None, None);
    for &c in head {
        match c {
            b'a'..=b'h' if file.is_none() && rank.is_none() => file = Some(u32::from(c - b'a')),
            b'1'..=b'8' if rank.is_none() => rank = Some(u32::from(c - b'1')),
            _ => return None,
        }
    }
    let mut found = None;
    for mv in moves {
        if mv.to != to
            || mv.kind == MoveKind::Castle
            || mv.promotion != promotion
            || pos.role_at(mv.from) != Some(role)
            || file.is_some_and(|f| mv.from.file() as u32 != f)
            || rank.is_some_and(|r| mv.from.rank() as u32 != r)
        {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some(mv);
    }
    let mv = found?;
    (is_capture(pos, mv) == says_capture).then_some(mv)
}
