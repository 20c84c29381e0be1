//! The position: board, side to move, castling rights, en passant, clocks, the
//! variant's extra state and an incrementally updated Zobrist key.
//!
//! Unlike shakmaty's `Chess`, this type holds any arrangement the variants need
//! (zero or two kings of a colour, pieces changing colour, attached pawns, a missile
//! in flight). It is `Copy`: the search uses copy-make, which keeps `play` simple.
//!
//! Every mutation goes through a few primitives (`put`, `take`, `recolor`, ...) that
//! keep bitboards, mailbox, castling rights and the key consistent, so variant hooks
//! cannot forget one of them. In debug builds `debug_check_key` compares the key
//! with one computed from scratch after every move.

use shakmaty::{attacks, Bitboard, CastlingSide, Color, Piece, Rank, Role, Square};

use crate::moves::{Move, MoveKind};
use crate::variants::Variant;
use crate::zobrist;

/// The four corner squares whose rooks may carry a castling right.
pub const CASTLING_CORNERS: Bitboard = Bitboard(0x8100_0000_0000_0081);

/// One byte per square: 0 = empty, else `role | color << 3`.
#[inline]
const fn encode(piece: Piece) -> u8 {
    piece.role as u8 | ((piece.color as u8) << 3)
}

#[inline]
fn decode(code: u8) -> Option<Piece> {
    if code == 0 {
        return None;
    }
    let role = match code & 7 {
        1 => Role::Pawn,
        2 => Role::Knight,
        3 => Role::Bishop,
        4 => Role::Rook,
        5 => Role::Queen,
        _ => Role::King,
    };
    Some(Piece {
        role,
        color: Color::from_white(code & 8 != 0),
    })
}

/// What stands where: the pieces as bitboards and as a mailbox, and nothing of
/// the game (whose turn, rights, clocks, variant state). Code that reads only
/// the pieces takes a `Board` and is compiled once rather than per variant; a
/// `Position` dereferences to its board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Board {
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
    occupied: Bitboard,
    mailbox: [u8; 64],
}

impl Board {
    pub const EMPTY: Board = Board {
        by_role: [Bitboard::EMPTY; 6],
        by_color: [Bitboard::EMPTY; 2],
        occupied: Bitboard::EMPTY,
        mailbox: [0; 64],
    };

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.occupied
    }
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color as usize]
    }
    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role as usize - 1]
    }
    #[inline]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_role(piece.role) & self.by_color(piece.color)
    }
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        decode(self.mailbox[sq as usize])
    }
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        self.piece_at(sq).map(|p| p.role)
    }
    #[inline]
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        self.piece_at(sq).map(|p| p.color)
    }
    /// The king of `color` when there is exactly one (every variant but Pacifist).
    #[inline]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        (self.by_role(Role::King) & self.by_color(color)).single_square()
    }
    #[inline]
    pub fn rooks_and_queens(&self) -> Bitboard {
        self.by_role(Role::Rook) | self.by_role(Role::Queen)
    }
    #[inline]
    pub fn bishops_and_queens(&self) -> Bitboard {
        self.by_role(Role::Bishop) | self.by_role(Role::Queen)
    }

    /// Pieces of `attacker` attacking `sq` with the given occupancy (plain chess
    /// attacks: pins and variant restrictions ignored, as docs/RULES.md demands).
    #[inline]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        self.by_color(attacker)
            & ((attacks::rook_attacks(sq, occupied) & self.rooks_and_queens())
                | (attacks::bishop_attacks(sq, occupied) & self.bishops_and_queens())
                | (attacks::knight_attacks(sq) & self.by_role(Role::Knight))
                | (attacks::king_attacks(sq) & self.by_role(Role::King))
                | (attacks::pawn_attacks(!attacker, sq) & self.by_role(Role::Pawn)))
    }

    #[inline]
    pub fn is_attacked(&self, sq: Square, attacker: Color) -> bool {
        self.attackers_to(sq, attacker, self.occupied).any()
    }

    /// Is any king of `color` attacked? False when it has none.
    #[inline]
    pub fn king_attacked(&self, color: Color) -> bool {
        let mut kings = self.by_piece(color.king());
        while let Some(k) = kings.pop_front() {
            if self.is_attacked(k, !color) {
                return true;
            }
        }
        false
    }

    /// Places `piece` on an empty square (the key is `Position::put`'s job).
    #[inline]
    fn put(&mut self, sq: Square, piece: Piece) {
        debug_assert!(!self.occupied.contains(sq), "put on occupied {sq}");
        self.by_role[piece.role as usize - 1].toggle(sq);
        self.by_color[piece.color as usize].toggle(sq);
        self.occupied.toggle(sq);
        self.mailbox[sq as usize] = encode(piece);
    }

    /// Removes and returns the piece on `sq` (the key is `Position::take`'s job).
    #[inline]
    fn take(&mut self, sq: Square) -> Option<Piece> {
        let piece = decode(self.mailbox[sq as usize])?;
        self.by_role[piece.role as usize - 1].toggle(sq);
        self.by_color[piece.color as usize].toggle(sq);
        self.occupied.toggle(sq);
        self.mailbox[sq as usize] = 0;
        Some(piece)
    }
}

/// A position of variant `V`: the board plus whose turn it is, castling rights,
/// en passant, clocks, the variant's state and the Zobrist key.
#[derive(Clone, Copy, Debug)]
pub struct Position<V: Variant> {
    board: Board,
    turn: Color,
    /// Rook squares (a subset of the corners) whose castling right is intact.
    castling: Bitboard,
    ep: Option<Square>,
    halfmoves: u32,
    /// 64 bits: a FEN may start at the largest 32-bit move number and play on.
    fullmoves: u64,
    key: u64,
    /// The variant's extra state (FEN 7th field). Change it through `set_state`.
    state: V::State,
    /// What the variant carries from move to move to save work; derived from the
    /// board, so it takes no part in equality or the key.
    cache: V::Cache,
}

impl<V: Variant> std::ops::Deref for Position<V> {
    type Target = Board;
    #[inline]
    fn deref(&self) -> &Board {
        &self.board
    }
}

impl<V: Variant> PartialEq for Position<V> {
    fn eq(&self, other: &Self) -> bool {
        self.board.by_role == other.board.by_role
            && self.board.by_color == other.board.by_color
            && self.turn == other.turn
            && self.castling == other.castling
            && self.ep == other.ep
            && self.halfmoves == other.halfmoves
            && self.fullmoves == other.fullmoves
            && self.state == other.state
    }
}

impl<V: Variant> Eq for Position<V> {}

impl<V: Variant> Position<V> {
    /// An empty board, white to move. FEN parsing fills it through `put`.
    pub fn empty() -> Self {
        let mut pos = Position {
            board: Board::EMPTY,
            turn: Color::White,
            castling: Bitboard::EMPTY,
            ep: None,
            halfmoves: 0,
            fullmoves: 1,
            key: 0,
            state: V::State::default(),
            cache: V::Cache::default(),
        };
        pos.key = pos.compute_key();
        pos
    }

    /// The variant's start position.
    pub fn startpos() -> Self {
        crate::fen::parse::<V>(V::START_FEN).expect("built-in start FEN is valid")
    }

    // ----- reading -----

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }
    #[inline]
    pub fn us(&self) -> Bitboard {
        self.by_color(self.turn)
    }
    #[inline]
    pub fn them(&self) -> Bitboard {
        self.by_color(!self.turn)
    }
    #[inline]
    pub fn castling(&self) -> Bitboard {
        self.castling
    }
    #[inline]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }
    #[inline]
    pub fn fullmoves(&self) -> u64 {
        self.fullmoves
    }
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }
    #[inline]
    pub fn cache(&self) -> &V::Cache {
        &self.cache
    }
    #[inline]
    pub fn state(&self) -> &V::State {
        &self.state
    }
    /// Pieces giving check to the side to move (chess sense).
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        match self.king_of(self.turn) {
            Some(k) => self.attackers_to(k, !self.turn, self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    /// The board alone, for code that reads only the pieces.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The castling rook square of `color` on `side`, if the right is intact.
    #[inline]
    pub fn castling_rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        let sq = Square::from_coords(rook_file(side), color.backrank());
        self.castling.contains(sq).then_some(sq)
    }

    // ----- mutating: every change keeps board, key and castling rights consistent.
    // Private to the rules: outside them a position changes only by a legal move
    // (`Variant::play`, `game::Game`, `live::LiveGame`), and the search's null
    // move. -----

    /// Places `piece` on an empty square.
    #[inline]
    pub(crate) fn put(&mut self, sq: Square, piece: Piece) {
        self.board.put(sq, piece);
        self.key ^= zobrist::piece(sq, piece);
    }

    /// Removes and returns the piece on `sq`; any castling right tied to the square
    /// is lost (docs/RULES.md: a right dies when its piece leaves or is removed).
    #[inline]
    pub(crate) fn take(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.board.take(sq)?;
        self.key ^= zobrist::piece(sq, piece);
        self.touch_castling(sq);
        Some(piece)
    }

    /// Changes the colour of the piece on `sq` (a conversion). Castling rights of
    /// the square are lost; a converted piece never gains one.
    pub(crate) fn recolor(&mut self, sq: Square, color: Color) {
        if let Some(piece) = self.take(sq) {
            self.put(sq, Piece { color, ..piece });
        }
    }

    /// Drops the castling rights that depend on `sq` (king or rook home square).
    #[inline]
    pub(crate) fn touch_castling(&mut self, sq: Square) {
        let lost = castling_lost_by(sq) & self.castling;
        if lost.any() {
            self.set_castling(self.castling & !lost);
        }
    }

    pub(crate) fn set_castling(&mut self, rights: Bitboard) {
        let rights = rights & CASTLING_CORNERS;
        self.key ^= zobrist::castling(self.castling) ^ zobrist::castling(rights);
        self.castling = rights;
    }

    #[inline]
    pub(crate) fn set_ep(&mut self, ep: Option<Square>) {
        if let Some(old) = self.ep {
            self.key ^= zobrist::ep(old);
        }
        if let Some(new) = ep {
            self.key ^= zobrist::ep(new);
        }
        self.ep = ep;
    }

    #[inline]
    pub(crate) fn set_turn(&mut self, turn: Color) {
        if turn != self.turn {
            self.key ^= zobrist::turn(self.turn) ^ zobrist::turn(turn);
            self.turn = turn;
        }
    }

    #[inline]
    pub(crate) fn set_halfmoves(&mut self, n: u32) {
        self.halfmoves = n;
    }

    #[inline]
    pub(crate) fn set_fullmoves(&mut self, n: u64) {
        self.fullmoves = n;
    }

    /// Replaces the variant state, keeping the key in sync.
    #[inline]
    pub(crate) fn set_state(&mut self, state: V::State) {
        self.key ^= V::state_key(&self.state) ^ V::state_key(&state);
        self.state = state;
    }

    /// Replaces the variant's carried facts (no key change: they are derived).
    #[inline]
    pub(crate) fn set_cache(&mut self, cache: V::Cache) {
        self.cache = cache;
    }

    /// Hands the move to the other side (and counts full moves after Black).
    #[inline]
    pub(crate) fn pass_turn(&mut self) {
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.set_turn(!self.turn);
    }

    /// Applies the chess part of a move (Normal, DoublePush, EnPassant, Castle):
    /// moves the piece, captures, promotes, updates castling rights, en passant and
    /// the halfmove clock, then passes the turn. Returns the captured piece and its
    /// square. Variant hooks run their post-move effects after this.
    #[inline]
    pub(crate) fn play_base(&mut self, mv: Move) -> Option<(Square, Piece)> {
        let us = self.turn;
        self.set_ep(None);
        self.halfmoves = self.halfmoves.saturating_add(1);
        let mut captured = None;
        match mv.kind {
            MoveKind::Normal | MoveKind::DoublePush => {
                let moving = self.take(mv.from).expect("move from an occupied square");
                if let Some(victim) = self.take(mv.to) {
                    captured = Some((mv.to, victim));
                }
                let role = mv.promotion.unwrap_or(moving.role);
                self.put(mv.to, role.of(us));
                if moving.role == Role::Pawn || captured.is_some() {
                    self.halfmoves = 0;
                }
                if mv.kind == MoveKind::DoublePush && V::EN_PASSANT {
                    let passed = Square::from_coords(
                        mv.from.file(),
                        if us == Color::White {
                            Rank::Third
                        } else {
                            Rank::Sixth
                        },
                    );
                    // docs/RULES.md: the field names the square only when a pawn of
                    // the side to move next attacks it (pins ignored).
                    if (attacks::pawn_attacks(us, passed) & self.by_piece((!us).pawn())).any() {
                        self.set_ep(Some(passed));
                    }
                }
            }
            MoveKind::EnPassant => {
                let pawn = self.take(mv.from).expect("en passant pawn");
                let victim_sq = Square::from_coords(mv.to.file(), mv.from.rank());
                if let Some(victim) = self.take(victim_sq) {
                    captured = Some((victim_sq, victim));
                }
                self.put(mv.to, pawn);
                self.halfmoves = 0;
            }
            MoveKind::Castle => {
                let side = castle_side(mv);
                let rook_from = Square::from_coords(rook_file(side), us.backrank());
                let king = self.take(mv.from).expect("castling king");
                let rook = self.take(rook_from).expect("castling rook");
                self.put(mv.to, king);
                self.put(
                    Square::from_coords(side.rook_to_file(), us.backrank()),
                    rook,
                );
            }
            MoveKind::Null | MoveKind::Special => {}
        }
        self.pass_turn();
        captured
    }

    /// Null move for the search: pass the turn, clear en passant. Public, unlike
    /// the other primitives: the engine's null-move pruning needs it.
    pub fn play_null(&mut self) {
        self.set_ep(None);
        self.halfmoves = self.halfmoves.saturating_add(1);
        self.pass_turn();
    }

    /// The key from scratch: board, side, castling, en passant and variant state.
    pub fn compute_key(&self) -> u64 {
        let mut key = 0;
        for sq in self.occupied() {
            if let Some(p) = self.piece_at(sq) {
                key ^= zobrist::piece(sq, p);
            }
        }
        key ^= zobrist::turn(self.turn);
        key ^= zobrist::castling(self.castling);
        if let Some(ep) = self.ep {
            key ^= zobrist::ep(ep);
        }
        key ^ V::state_key(&self.state)
    }

    /// Debug builds assert the incremental key after every move.
    #[inline]
    pub fn debug_check_key(&self) {
        debug_assert_eq!(
            self.key,
            self.compute_key(),
            "incremental Zobrist key out of sync: {}",
            crate::fen::format(self)
        );
    }

    /// Raw key reset, for FEN loading.
    pub(crate) fn refresh_key(&mut self) {
        self.key = self.compute_key();
    }
}

/// The mutating primitives for code outside the rules that must build or
/// change a position square by square: the rulebook oracles of the test
/// suite, which check the fast generators against naive ones. Only with the
/// `internals` feature; front ends play moves instead.
#[cfg(feature = "internals")]
pub trait Internals {
    /// Places a piece on an empty square.
    fn put(&mut self, sq: Square, piece: Piece);
    /// Removes and returns the piece on a square (castling rights tied to it die).
    fn take(&mut self, sq: Square) -> Option<Piece>;
    /// Changes the colour of the piece on a square.
    fn recolor(&mut self, sq: Square, color: Color);
    /// Applies the chess part of a move and passes the turn.
    fn play_base(&mut self, mv: Move) -> Option<(Square, Piece)>;
    /// Sets the halfmove clock.
    fn set_halfmoves(&mut self, n: u32);
}

#[cfg(feature = "internals")]
impl<V: Variant> Internals for Position<V> {
    fn put(&mut self, sq: Square, piece: Piece) {
        Position::put(self, sq, piece)
    }
    fn take(&mut self, sq: Square) -> Option<Piece> {
        Position::take(self, sq)
    }
    fn recolor(&mut self, sq: Square, color: Color) {
        Position::recolor(self, sq, color)
    }
    fn play_base(&mut self, mv: Move) -> Option<(Square, Piece)> {
        Position::play_base(self, mv)
    }
    fn set_halfmoves(&mut self, n: u32) {
        Position::set_halfmoves(self, n)
    }
}

/// The square just past the en passant square `ep`, where the pawn that made
/// the double step stands, with `turn` to move.
#[inline]
pub fn past_en_passant(ep: Square, turn: Color) -> Square {
    Square::from_coords(
        ep.file(),
        if turn == Color::White {
            Rank::Fifth
        } else {
            Rank::Fourth
        },
    )
}

/// Which side a castling move (king from-to) is.
#[inline]
pub fn castle_side(mv: Move) -> CastlingSide {
    if mv.to.file() > mv.from.file() {
        CastlingSide::KingSide
    } else {
        CastlingSide::QueenSide
    }
}

/// The file a castling rook starts on (standard chess, not Chess960).
#[inline]
pub const fn rook_file(side: CastlingSide) -> shakmaty::File {
    match side {
        CastlingSide::KingSide => shakmaty::File::H,
        CastlingSide::QueenSide => shakmaty::File::A,
    }
}

/// Castling rights (as corner squares) that die when `sq` changes.
#[inline]
pub fn castling_lost_by(sq: Square) -> Bitboard {
    match sq {
        Square::E1 => Bitboard(0x81),
        Square::E8 => Bitboard(0x8100_0000_0000_0000),
        Square::A1 | Square::H1 | Square::A8 | Square::H8 => Bitboard::from_square(sq),
        _ => Bitboard::EMPTY,
    }
}
