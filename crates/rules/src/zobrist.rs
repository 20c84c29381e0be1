//! Zobrist keys: shakmaty's Polyglot values for White's pieces and rights, their
//! colour flips for Black's, and a seeded table of our own for variant state.
//!
//! The keys are colour-symmetric: the colour-flipped position's key is
//! [`flip`] of the position's (tests/symmetry.rs, `keys_flip_with_the_position`).
//! The transposition table picks slots so that the flipped keys collide exactly
//! when the keys do, and a position and its flip search alike at every table
//! size. (Standard-chess keys are therefore not Polyglot keys: Black's values
//! are not Polyglot's; nothing reads Polyglot books.)

use shakmaty::zobrist::{Zobrist64 as Z, ZobristValue};
use shakmaty::{Bitboard, CastlingSide, Color, Piece, Square};

/// The colour flip on keys: the two halves swapped. Linear (it maps a XOR of
/// values to the XOR of their maps) and its own inverse, so a key built from
/// flipped parts is the flipped key.
#[inline]
pub const fn flip(key: u64) -> u64 {
    key.rotate_left(32)
}

#[inline]
pub fn piece(sq: Square, piece: Piece) -> u64 {
    match piece.color {
        Color::White => Z::zobrist_for_piece(sq, piece).0,
        Color::Black => {
            flip(Z::zobrist_for_piece(sq.flip_vertical(), piece.role.of(Color::White)).0)
        }
    }
}

/// The side to move's value. A position and its flip have opposite sides to
/// move: Black's value is [`flip`] of White's.
#[inline]
pub fn turn(color: Color) -> u64 {
    let white = Z::zobrist_for_white_turn().0;
    match color {
        Color::White => white,
        Color::Black => flip(white),
    }
}

/// The en-passant file's value: its flip is itself (the flipped square has the
/// same file), so it is Polyglot's low half twice.
#[inline]
pub fn ep(sq: Square) -> u64 {
    let low = Z::zobrist_for_en_passant_file(sq.file()).0 & 0xffff_ffff;
    low << 32 | low
}

/// Key of a set of castling rights given as corner rook squares.
#[inline]
pub fn castling(rights: Bitboard) -> u64 {
    let mut key = 0;
    if rights.contains(Square::H1) {
        key ^= Z::zobrist_for_castling_right(Color::White, CastlingSide::KingSide).0;
    }
    if rights.contains(Square::A1) {
        key ^= Z::zobrist_for_castling_right(Color::White, CastlingSide::QueenSide).0;
    }
    if rights.contains(Square::H8) {
        key ^= flip(Z::zobrist_for_castling_right(Color::White, CastlingSide::KingSide).0);
    }
    if rights.contains(Square::A8) {
        key ^= flip(Z::zobrist_for_castling_right(Color::White, CastlingSide::QueenSide).0);
    }
    key
}

/// Keys for variant state, indexed by (table, square): `table` lets a variant keep
/// several independent kinds of facts (e.g. "pawn on sq is attached", "missile
/// passes sq at step i"). 16 tables of 64 squares, from a fixed SplitMix64 seed.
pub const EXTRA_TABLES: usize = 16;

static EXTRA: [[u64; 64]; EXTRA_TABLES] = {
    let mut table = [[0u64; 64]; EXTRA_TABLES];
    let mut state: u64 = 0x7475_726e_636f_6174; // "turncoat"
    let mut t = 0;
    while t < EXTRA_TABLES {
        let mut s = 0;
        while s < 64 {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            table[t][s] = z ^ (z >> 31);
            s += 1;
        }
        t += 1;
    }
    table
};

/// A variant-state key: fact number `table` (< 16) about square `sq`. The
/// upper half of the board has the [`flip`]s of the lower half's values, so a
/// state keyed by a XOR of these flips with the board.
#[inline]
pub fn extra(table: usize, sq: Square) -> u64 {
    if (sq as usize) < 32 {
        EXTRA[table][sq as usize]
    } else {
        flip(EXTRA[table][sq.flip_vertical() as usize])
    }
}
