//! Attending Pawns (docs/RULES.md, "Attending Pawns"): every celebrity (N, B, R, Q, K) may
//! have one attached pawn, which is relocated into the celebrity's Zone of Personal
//! Space (the 8 squares around its destination) whenever the celebrity moves.
//!
//! The links are the variant state (FEN 7th field, Zobrist key, repetition). A move
//! carries its placements in `Move::extra`: up to two relocations (castling moves two
//! celebrities) or the square of the pawn a promotion creates.
//!
//! Generation splits the moves in two families:
//! - moves that relocate or create nothing (pawn moves, celebrities without a pawn)
//!   are exactly chess-legal, so the fast legal chess generator supplies them;
//! - moves with a placement (celebrities with a pawn, promotions, castling) are
//!   generated here and judged on the board after the whole move, because a placed
//!   pawn may block a check or a pin, and a relocated pawn may open a line.

use std::fmt::Write as _;

use shakmaty::{attacks, Bitboard, Color, Rank, Role, Square};

use super::{validate_standard, Variant};
use crate::bitboards::{mover_order, piece_attacks};
use crate::fen::FenError;
use crate::live::{base_action, chess_effects, Action, Effects, Extra, Removal, VariantState, Why};
use crate::movegen::{self, Legality, Stage};
use crate::moves::{write_square, Move, MoveKind, MoveList, PROMOTIONS};
use crate::notation::Parts;
use crate::position::{castle_side, rook_file, Position};
use crate::zobrist;

#[derive(Copy, Clone, Debug, Default)]
pub struct AttendingPawns;

/// The links between celebrities and their attached pawns (FEN 7th field).
///
/// `partner` maps each linked square to the other end of its link and is 0 on every
/// unlinked square, so equal link sets compare and hash equal. The key is kept
/// incrementally, so `Position::set_state` costs two loads, not a rehash.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Links {
    /// Celebrities that have an attached pawn.
    celebrities: Bitboard,
    /// Pawns attached to a celebrity.
    pawns: Bitboard,
    /// For a linked square, its partner's square; 0 elsewhere.
    partner: [u8; 64],
    /// Zobrist key of the link set.
    key: u64,
}

impl Default for Links {
    fn default() -> Self {
        Links {
            celebrities: Bitboard::EMPTY,
            pawns: Bitboard::EMPTY,
            partner: [0; 64],
            key: 0,
        }
    }
}

/// Key of one link. A pair-dependent mix, so that `a1a2,b1b2` and `a1b2,b1a2` differ;
/// a link whose celebrity stands on the upper half has the [`zobrist::flip`] of
/// its mirror's key, so that keys flip with the board.
#[inline]
fn link_key(celebrity: Square, pawn: Square) -> u64 {
    if celebrity as u32 >= 32 {
        return zobrist::flip(link_key(celebrity.flip_vertical(), pawn.flip_vertical()));
    }
    let mut z = zobrist::extra(0, celebrity) ^ zobrist::extra(1, pawn).rotate_left(17);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[inline]
fn square(index: u8) -> Square {
    Square::new(u32::from(index) & 63)
}

impl Links {
    /// Celebrities that have an attached pawn.
    #[inline]
    pub fn celebrities(&self) -> Bitboard {
        self.celebrities
    }

    /// Pawns attached to a celebrity.
    #[inline]
    pub fn pawns(&self) -> Bitboard {
        self.pawns
    }

    /// The pawn attached to the celebrity on `sq`.
    #[inline]
    pub fn pawn_of(&self, sq: Square) -> Option<Square> {
        self.celebrities
            .contains(sq)
            .then(|| square(self.partner[sq as usize]))
    }

    /// The celebrity the pawn on `sq` attends.
    #[inline]
    pub fn celebrity_of(&self, sq: Square) -> Option<Square> {
        self.pawns
            .contains(sq)
            .then(|| square(self.partner[sq as usize]))
    }

    /// Every link as (celebrity, pawn), sorted by celebrity square.
    pub fn iter(&self) -> impl Iterator<Item = (Square, Square)> + '_ {
        self.celebrities
            .into_iter()
            .map(|c| (c, square(self.partner[c as usize])))
    }

    /// Number of links.
    pub fn len(&self) -> usize {
        self.celebrities.count()
    }

    pub fn is_empty(&self) -> bool {
        self.celebrities.is_empty()
    }

    /// Is `sq` one end of a link?
    #[inline]
    pub fn is_linked(&self, sq: Square) -> bool {
        (self.celebrities | self.pawns).contains(sq)
    }

    /// Joins the celebrity on `celebrity` to the pawn on `pawn` (both unlinked).
    #[inline]
    pub fn link(&mut self, celebrity: Square, pawn: Square) {
        debug_assert!(!self.is_linked(celebrity) && !self.is_linked(pawn));
        self.celebrities.add(celebrity);
        self.pawns.add(pawn);
        self.partner[celebrity as usize] = pawn as u8;
        self.partner[pawn as usize] = celebrity as u8;
        self.key ^= link_key(celebrity, pawn);
    }

    /// Dissolves the link `sq` belongs to, if any (rule 5: its piece was captured,
    /// or a pawn promoted).
    #[inline]
    pub fn unlink(&mut self, sq: Square) {
        let (celebrity, pawn) = if self.celebrities.contains(sq) {
            (sq, square(self.partner[sq as usize]))
        } else if self.pawns.contains(sq) {
            (square(self.partner[sq as usize]), sq)
        } else {
            return;
        };
        self.celebrities.discard(celebrity);
        self.pawns.discard(pawn);
        self.partner[celebrity as usize] = 0;
        self.partner[pawn as usize] = 0;
        self.key ^= link_key(celebrity, pawn);
    }

    /// The linked piece on `from` now stands on `to` (an empty, unlinked square).
    #[inline]
    pub fn follow(&mut self, from: Square, to: Square) {
        if from == to {
            return;
        }
        if self.celebrities.contains(from) {
            let pawn = square(self.partner[from as usize]);
            self.unlink(from);
            self.link(to, pawn);
        } else if self.pawns.contains(from) {
            let celebrity = square(self.partner[from as usize]);
            self.unlink(from);
            self.link(celebrity, to);
        }
    }

    /// Zobrist key from scratch (debug check of the incremental one).
    pub fn compute_key(&self) -> u64 {
        self.iter().fold(0, |k, (c, p)| k ^ link_key(c, p))
    }
}

// ----- placements in `Move::extra` -----
//
// Slot i (i = 0, 1) uses bits 16i..16i+16: pawn-from (6 bits), pawn-to (6 bits) and
// a present flag. A promotion's created pawn uses slot 0 with from = to.

const SLOT_PRESENT: u64 = 1 << 12;

#[inline]
fn placement(from: Square, to: Square) -> u64 {
    from as u64 | (to as u64) << 6 | SLOT_PRESENT
}

#[inline]
fn slot(extra: u64, i: u32) -> Option<(Square, Square)> {
    let bits = extra >> (16 * i);
    (bits & SLOT_PRESENT != 0).then(|| (square(bits as u8), square((bits >> 6) as u8)))
}

/// The placements of `mv` in placement order: (pawn from, pawn to); a created
/// pawn has from = to.
#[inline]
pub fn placements(mv: Move) -> impl Iterator<Item = (Square, Square)> {
    (0..2).map_while(move |i| slot(mv.extra, i))
}

/// The square of the pawn created by a promotion, if any.
#[inline]
pub fn created_pawn(mv: Move) -> Option<Square> {
    if mv.promotion.is_some() {
        slot(mv.extra, 0).map(|(_, to)| to)
    } else {
        None
    }
}

/// `base` with up to two relocations (pawn from, pawn to), in placement order.
pub fn with_relocations(base: Move, relocations: &[(Square, Square)]) -> Move {
    let extra = relocations
        .iter()
        .take(2)
        .enumerate()
        .fold(0, |e, (i, &(from, to))| e | placement(from, to) << (16 * i));
    base.with_extra(extra)
}

/// A promotion `base` whose new celebrity gets a pawn created on `sq`.
pub fn with_created_pawn(base: Move, sq: Square) -> Move {
    base.with_extra(placement(sq, sq))
}

/// The squares a pawn of `color` may never be placed on: its own last rank.
#[inline]
fn last_rank(color: Color) -> Bitboard {
    Bitboard::from_rank(color.fold_wb(Rank::Eighth, Rank::First))
}

/// Rule 2's placement squares around `to`: the empty squares of the Zone not on the
/// pawn's last rank (`occupied` already lacks the pawn's own square, so it may stay);
/// only when there is none, the enemy non-king pieces there (capture).
#[inline]
fn placement_squares(
    to: Square,
    color: Color,
    occupied: Bitboard,
    enemies: Bitboard,
    enemy_king: Bitboard,
) -> Bitboard {
    let zone = attacks::king_attacks(to) & !last_rank(color);
    let empty = zone & !occupied;
    if empty.any() {
        empty
    } else {
        zone & enemies & !enemy_king
    }
}

/// Is `king` attacked by `enemies` (the enemy pieces still on the board) with the
/// given occupancy? Plain chess attacks.
#[inline]
fn attacked<V: Variant>(
    pos: &Position<V>,
    king: Option<Square>,
    occupied: Bitboard,
    enemies: Bitboard,
) -> bool {
    match king {
        Some(k) => (pos.attackers_to(k, !pos.turn(), occupied) & enemies).any(),
        None => false,
    }
}

/// Pushes `base` once per placement square that leaves the king safe. `safe_anyway`
/// is the king's safety with the pawn lifted and not yet placed: then every square
/// is legal (a placed pawn only adds a blocker, or removes an enemy piece).
#[inline]
#[allow(clippy::too_many_arguments)]
fn push_placements<V: Variant>(
    pos: &Position<V>,
    out: &mut MoveList,
    base: Move,
    pawn_from: Option<Square>,
    squares: Bitboard,
    king: Option<Square>,
    occupied: Bitboard,
    enemies: Bitboard,
) {
    let safe_anyway = !attacked(pos, king, occupied, enemies);
    for s in mover_order(pos.turn(), squares) {
        if safe_anyway
            || !attacked(
                pos,
                king,
                occupied | Bitboard::from_square(s),
                enemies & !Bitboard::from_square(s),
            )
        {
            out.push(base.with_extra(placement(pawn_from.unwrap_or(s), s)));
        }
    }
}

impl AttendingPawns {
    /// The legal moves that capture (by the move or by a placement), promote,
    /// or place a pawn on a square of `placed_on`, in the order of
    /// [`Variant::legal_moves`]: the tactical moves without generating the
    /// quiet rest (the engine's quiescence search asks for these with the
    /// squares where a pawn gives check).
    pub fn forcing_moves(pos: &Position<Self>, out: &mut MoveList, placed_on: Bitboard) {
        let start = out.len();
        movegen::generate(pos, out, Legality::Legal, Stage::Noisy);
        Self::retain_plain_moves(pos, out, start);
        let wanted = placed_on | pos.them();
        Self::attended_moves(pos, out, wanted);
        Self::promotions(pos, out);
        let castles = out.len();
        Self::castling_moves(pos, out);
        let mut keep = castles;
        for i in castles..out.len() {
            if placements(out[i]).any(|(_, to)| wanted.contains(to)) {
                out[keep] = out[i];
                keep += 1;
            }
        }
        out.truncate(keep);
    }

    /// Keeps, of the chess-legal moves from `start` on, those rule 2 leaves as
    /// they are: moves without any placement (unattached pieces, pawn moves,
    /// en passant). Celebrities with a pawn, promotions and castling are
    /// generated by the variant itself.
    fn retain_plain_moves(pos: &Position<Self>, out: &mut MoveList, start: usize) {
        let links = pos.state();
        let attended = links.celebrities() & pos.us();
        let our_pawns = pos.by_piece(pos.turn().pawn());
        let occ = pos.occupied();
        let mut keep = start;
        for i in start..out.len() {
            let mv = out[i];
            let ok = match mv.kind {
                MoveKind::EnPassant => true,
                MoveKind::DoublePush => links.pawns().contains(mv.from),
                MoveKind::Normal if our_pawns.contains(mv.from) => {
                    mv.promotion.is_none()
                        && (links.pawns().contains(mv.from) || occ.contains(mv.to))
                }
                MoveKind::Normal => !attended.contains(mv.from),
                _ => false,
            };
            if ok {
                out[keep] = mv;
                keep += 1;
            }
        }
        out.truncate(keep);
    }

    /// Moves of celebrities with an attached pawn (rule 2), castling excluded.
    /// A move that captures nothing is kept only with its placements on
    /// `placed_on` (every square for the full list).
    fn attended_moves(pos: &Position<Self>, out: &mut MoveList, placed_on: Bitboard) {
        let us = pos.turn();
        let links = pos.state();
        let occ = pos.occupied();
        let our = pos.us();
        let their = pos.them();
        let their_king = pos.by_piece((!us).king());
        let king = pos.king_of(us);
        for from in mover_order(us, links.celebrities() & our) {
            let Some(piece) = pos.piece_at(from) else {
                continue;
            };
            let Some(pawn) = links.pawn_of(from) else {
                continue;
            };
            let lifted = occ & !Bitboard::from_square(from) & !Bitboard::from_square(pawn);
            for to in mover_order(us, piece_attacks(from, piece, occ) & !our) {
                let occupied = lifted | Bitboard::from_square(to);
                let enemies = their & !Bitboard::from_square(to);
                let mut squares = placement_squares(to, us, occupied, enemies, their_king);
                if !their.contains(to) {
                    squares &= placed_on;
                }
                let king_sq = if piece.role == Role::King {
                    Some(to)
                } else {
                    king
                };
                push_placements(
                    pos,
                    out,
                    Move::new(MoveKind::Normal, from, to),
                    Some(pawn),
                    squares,
                    king_sq,
                    occupied,
                    enemies,
                );
            }
        }
    }

    /// Promotions (rule 4): the new celebrity gets a pawn created in its Zone, or
    /// none when rule 2 gives no square at all.
    fn promotions(pos: &Position<Self>, out: &mut MoveList) {
        let us = pos.turn();
        let links = pos.state();
        let occ = pos.occupied();
        let their = pos.them();
        let their_king = pos.by_piece((!us).king());
        let king = pos.king_of(us);
        let seventh = Bitboard::from_rank(us.relative_rank(Rank::Seventh));
        let forward: i32 = if us == Color::White { 8 } else { -8 };
        for from in mover_order(us, pos.by_piece(us.pawn()) & seventh) {
            let mut targets = attacks::pawn_attacks(us, from) & their;
            // Rule 1: only an attached pawn may advance without capturing.
            if links.pawns().contains(from) {
                if let Some(one) = from.offset(forward) {
                    if !occ.contains(one) {
                        targets.add(one);
                    }
                }
            }
            for to in mover_order(us, targets) {
                let occupied = (occ & !Bitboard::from_square(from)) | Bitboard::from_square(to);
                let enemies = their & !Bitboard::from_square(to);
                let squares = placement_squares(to, us, occupied, enemies, their_king);
                for role in PROMOTIONS {
                    let base = Move::new(MoveKind::Normal, from, to).with_promotion(role);
                    if squares.is_empty() {
                        if !attacked(pos, king, occupied, enemies) {
                            out.push(base);
                        }
                    } else {
                        push_placements(pos, out, base, None, squares, king, occupied, enemies);
                    }
                }
            }
        }
    }

    /// Castling (rule 3): king and rook move, then the king's pawn is placed, then
    /// the rook's; the king's start and passed squares are judged before the move
    /// (by the generator), its destination after the whole move.
    fn castling_moves(pos: &Position<Self>, out: &mut MoveList) {
        let us = pos.turn();
        let them = !us;
        let start = out.len();
        movegen::generate_castling(pos, out, |sq| !pos.is_attacked(sq, them), |_| true);
        let mut bases = [Move::NULL; 2];
        let n = out.len() - start;
        bases[..n].copy_from_slice(&out[start..]);
        out.truncate(start);

        let links = pos.state();
        let their = pos.them();
        let their_king = pos.by_piece(them.king());
        for base in &bases[..n] {
            let side = castle_side(*base);
            let rook_from = Square::from_coords(rook_file(side), us.backrank());
            let rook_to = Square::from_coords(side.rook_to_file(), us.backrank());
            let king_pawn = links.pawn_of(base.from);
            let rook_pawn = links.pawn_of(rook_from);
            let occ1 = (pos.occupied()
                & !Bitboard::from_square(base.from)
                & !Bitboard::from_square(rook_from))
                | Bitboard::from_square(base.to)
                | Bitboard::from_square(rook_to);

            // First placement: the king's pawn (the rook's pawn still stands).
            let mut firsts = [(None, occ1, their); 8];
            let mut n_first = 0;
            match king_pawn {
                None => {
                    firsts[0] = (None, occ1, their);
                    n_first = 1;
                }
                Some(p) => {
                    let lifted = occ1 & !Bitboard::from_square(p);
                    for a in mover_order(
                        us,
                        placement_squares(base.to, us, lifted, their, their_king),
                    ) {
                        firsts[n_first] = (
                            Some(placement(p, a)),
                            lifted | Bitboard::from_square(a),
                            their & !Bitboard::from_square(a),
                        );
                        n_first += 1;
                    }
                }
            }
            // Second placement: the rook's pawn, on the board after the first.
            for &(first, occ2, their2) in &firsts[..n_first] {
                let extra = first.unwrap_or(0);
                let shift = if first.is_some() { 16 } else { 0 };
                match rook_pawn {
                    None => {
                        if !attacked(pos, Some(base.to), occ2, their2) {
                            out.push(base.with_extra(extra));
                        }
                    }
                    Some(p) => {
                        let lifted = occ2 & !Bitboard::from_square(p);
                        for b in mover_order(
                            us,
                            placement_squares(rook_to, us, lifted, their2, their_king),
                        ) {
                            let occ3 = lifted | Bitboard::from_square(b);
                            let their3 = their2 & !Bitboard::from_square(b);
                            if !attacked(pos, Some(base.to), occ3, their3) {
                                out.push(base.with_extra(extra | placement(p, b) << shift));
                            }
                        }
                    }
                }
            }
        }
    }
}

impl Variant for AttendingPawns {
    const NAME: &'static str = "attendingpawns";
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 \
        a1a2,b1b2,c1c2,d1d2,e1e2,f1f2,g1g2,h1h2,a8a7,b8b7,c8c7,d8d7,e8e7,f8f7,g8g7,h8h7";
    const STATE_NAME: &'static str = "Links (celebrity, pawn)";
    /// Rule 6: the clock resets on an ordinary pawn move, and a relocation
    /// (which does not reset it) can carry the pawn back.
    const CLOCK_RESET_IRREVERSIBLE: bool = false;

    type State = Links;
    type Cache = ();

    fn legal_moves(pos: &Position<Self>, out: &mut MoveList) {
        let start = out.len();
        movegen::generate(pos, out, Legality::Legal, Stage::All);
        Self::retain_plain_moves(pos, out, start);
        Self::attended_moves(pos, out, Bitboard::FULL);
        Self::promotions(pos, out);
        Self::castling_moves(pos, out);
    }

    fn play(pos: &mut Position<Self>, mv: Move) {
        let us = pos.turn();
        let mut links = *pos.state();
        match mv.kind {
            MoveKind::Castle => {
                let side = castle_side(mv);
                let rook_from = Square::from_coords(rook_file(side), us.backrank());
                let rook_to = Square::from_coords(side.rook_to_file(), us.backrank());
                pos.play_base(mv);
                links.follow(mv.from, mv.to);
                links.follow(rook_from, rook_to);
            }
            _ => {
                let pawn_moves = pos.role_at(mv.from) == Some(Role::Pawn);
                if let Some((sq, _)) = pos.play_base(mv) {
                    // Rule 5: a captured piece's link dissolves.
                    links.unlink(sq);
                }
                if pawn_moves && mv.promotion.is_some() {
                    // Rule 4: the old celebrity is left without its pawn.
                    links.unlink(mv.from);
                } else {
                    links.follow(mv.from, mv.to);
                }
            }
        }
        let mut captured = false;
        if let Some(sq) = created_pawn(mv) {
            if pos.take(sq).is_some() {
                links.unlink(sq);
                captured = true;
            }
            pos.put(sq, us.pawn());
            links.link(mv.to, sq);
        } else {
            for (from, to) in placements(mv) {
                if from == to {
                    continue;
                }
                let Some(pawn) = pos.take(from) else {
                    continue;
                };
                if pos.take(to).is_some() {
                    links.unlink(to);
                    captured = true;
                }
                pos.put(to, pawn);
                links.follow(from, to);
            }
        }
        // Rule 6: a relocation's capture resets the clock, a relocation alone not.
        if captured {
            pos.set_halfmoves(0);
        }
        debug_assert_eq!(links.key, links.compute_key());
        pos.set_state(links);
    }

    fn parse_state(pos: &Position<Self>, field: Option<&str>) -> Result<Links, FenError> {
        let mut links = Links::default();
        let Some(field) = field else {
            // Default: each pawn on its own 2nd rank attends the same-colour
            // celebrity behind it on its own 1st rank.
            for color in [Color::White, Color::Black] {
                let second = Bitboard::from_rank(color.relative_rank(Rank::Second));
                for pawn in pos.by_piece(color.pawn()) & second {
                    let behind = Square::from_coords(pawn.file(), color.backrank());
                    if let Some(p) = pos.piece_at(behind) {
                        if p.color == color && p.role != Role::Pawn {
                            links.link(behind, pawn);
                        }
                    }
                }
            }
            return Ok(links);
        };
        if field == "-" {
            return Ok(links);
        }
        for pair in field.split(',') {
            let bad = || {
                FenError::Link(LinkError::Malformed {
                    pair: pair.to_string(),
                })
            };
            if pair.len() != 4 || !pair.is_ascii() {
                return Err(bad());
            }
            let celebrity: Square = pair[..2].parse().map_err(|_| bad())?;
            let pawn: Square = pair[2..].parse().map_err(|_| bad())?;
            check_link(pos, celebrity, pawn).map_err(FenError::Link)?;
            for sq in [celebrity, pawn] {
                if links.is_linked(sq) {
                    return Err(FenError::Link(LinkError::Twice { square: sq }));
                }
            }
            links.link(celebrity, pawn);
        }
        Ok(links)
    }

    fn format_state(pos: &Position<Self>) -> Option<String> {
        let links = pos.state();
        if links.is_empty() {
            return Some("-".to_string());
        }
        let mut s = String::with_capacity(5 * links.len());
        for (i, (c, p)) in links.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "{c}{p}");
        }
        Some(s)
    }

    fn state_key(state: &Links) -> u64 {
        state.key
    }

    fn validate(pos: &Position<Self>) -> Result<(), FenError> {
        validate_standard(pos, true)?;
        for (c, p) in pos.state().iter() {
            check_link(pos, c, p).map_err(FenError::Link)?;
        }
        Ok(())
    }

    fn format_move(_pos: &Position<Self>, mv: Move, out: &mut String) {
        mv.write_base(out);
        if let Some(sq) = created_pawn(mv) {
            out.push(',');
            write_square(out, sq);
            return;
        }
        for (from, to) in placements(mv) {
            out.push(',');
            write_square(out, from);
            write_square(out, to);
        }
    }

    /// SAN, then `/` and the placements in token order (docs/RULES.md,
    /// "Attending Pawns: notation"): a relocated pawn as its square before,
    /// `-` (`x` when it captures) and its square after, or its square alone
    /// when it stays; a created pawn as its square: `Nc3/b2-d3`, `Nc3/b2`,
    /// `O-O/e2-h1,h2-e1`, `e8=Q/d7`.
    fn notation_parts(pos: &Position<Self>, mv: Move, legal: &[Move]) -> Parts {
        let mut parts = Parts::head(crate::notation::san_head(pos, mv, legal));
        // A placement captures when an enemy piece stands there before the
        // move (see `effects`).
        let sign = |to: Square| if pos.them().contains(to) { "x" } else { "-" };
        let placed: Vec<String> = match created_pawn(mv) {
            // Never a capture: the promoting pawn's square is in the zone
            // and empty.
            Some(at) => vec![at.to_string()],
            None => placements(mv)
                .map(|(from, to)| {
                    if from == to {
                        from.to_string()
                    } else {
                        format!("{from}{}{to}", sign(to))
                    }
                })
                .collect(),
        };
        if !placed.is_empty() {
            parts.tail = format!("/{}", placed.join(","));
        }
        parts
    }

    fn action(_pos: &Position<Self>, mv: Move) -> (Action, Vec<Extra>) {
        let extras = match created_pawn(mv) {
            Some(at) => vec![Extra::Create { at }],
            None => placements(mv)
                .map(|(from, to)| Extra::Relocate { from, to })
                .collect(),
        };
        (base_action(mv), extras)
    }

    /// The chess move, then the placements (rules 2 to 4). A placement square
    /// holding an enemy piece before the move holds it until the pawn captures
    /// it: the base move only empties squares or fills the celebrity's, which
    /// is not in its own zone, and the pawns placed before are the mover's.
    fn effects(pos: &Position<Self>, mv: Move) -> Effects {
        let mut fx = chess_effects(pos, mv);
        let us = pos.turn();
        let capture = |fx: &mut Effects, square: Square| {
            if let Some(piece) = pos.piece_at(square).filter(|p| p.color != us) {
                fx.removed.push(Removal {
                    square,
                    piece,
                    why: Why::Captured,
                });
            }
        };
        if let Some(at) = created_pawn(mv) {
            capture(&mut fx, at);
            fx.created.push(at);
        } else {
            for (from, to) in placements(mv) {
                if from != to {
                    capture(&mut fx, to);
                    fx.moved.push((from, to));
                }
            }
        }
        fx
    }

    fn state_info(pos: &Position<Self>) -> VariantState {
        VariantState::Links(pos.state().iter().collect())
    }
}

/// Why a link of the seventh FEN field was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// Not `<celebrity square><pawn square>`.
    Malformed { pair: String },
    /// A square that is an end of two links.
    Twice { square: Square },
    /// The celebrity square is empty.
    NoCelebrity { celebrity: Square, pawn: Square },
    /// The celebrity square holds a pawn.
    PawnAsCelebrity { celebrity: Square, pawn: Square },
    /// The pawn is not the celebrity's colour.
    WrongColour { celebrity: Square, pawn: Square },
    /// The pawn square holds no pawn.
    NoPawn { celebrity: Square, pawn: Square },
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::Malformed { pair } => write!(
                f,
                "bad link '{pair}': expected <celebrity square><pawn square>"
            ),
            LinkError::Twice { square } => write!(f, "square {square} appears in two links"),
            LinkError::NoCelebrity { celebrity, pawn } => {
                write!(f, "link {celebrity}{pawn}: no celebrity on {celebrity}")
            }
            LinkError::PawnAsCelebrity { celebrity, pawn } => write!(
                f,
                "link {celebrity}{pawn}: {celebrity} holds a pawn, not a celebrity"
            ),
            LinkError::WrongColour { celebrity, pawn } => write!(
                f,
                "link {celebrity}{pawn}: the pawn on {pawn} is not the celebrity's colour"
            ),
            LinkError::NoPawn { celebrity, pawn } => {
                write!(f, "link {celebrity}{pawn}: no pawn on {pawn}")
            }
        }
    }
}

impl std::error::Error for LinkError {}

/// docs/RULES.md FEN check: a link joins a celebrity to a pawn of the same colour.
fn check_link(
    pos: &Position<AttendingPawns>,
    celebrity: Square,
    pawn: Square,
) -> Result<(), LinkError> {
    let Some(c) = pos.piece_at(celebrity) else {
        return Err(LinkError::NoCelebrity { celebrity, pawn });
    };
    if c.role == Role::Pawn {
        return Err(LinkError::PawnAsCelebrity { celebrity, pawn });
    }
    match pos.piece_at(pawn) {
        Some(p) if p.role == Role::Pawn && p.color == c.color => Ok(()),
        Some(p) if p.role == Role::Pawn => Err(LinkError::WrongColour { celebrity, pawn }),
        _ => Err(LinkError::NoPawn { celebrity, pawn }),
    }
}
