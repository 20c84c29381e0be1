//! Zobrist keys: shakmaty's Polyglot values for the chess part (so standard-chess
//! keys equal Polyglot keys), and a seeded table of our own for variant state.

use shakmaty::zobrist::{Zobrist64 as Z, ZobristValue};
use shakmaty::{Bitboard, CastlingSide, Color, Piece, Square};

#[inline]
pub fn piece(sq: Square, piece: Piece) -> u64 {
    Z::zobrist_for_piece(sq, piece).0
}

#[inline]
pub fn turn() -> u64 {
    Z::zobrist_for_white_turn().0
}

#[inline]
pub fn ep(sq: Square) -> u64 {
    Z::zobrist_for_en_passant_file(sq.file()).0
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
        key ^= Z::zobrist_for_castling_right(Color::Black, CastlingSide::KingSide).0;
    }
    if rights.contains(Square::A8) {
        key ^= Z::zobrist_for_castling_right(Color::Black, CastlingSide::QueenSide).0;
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

/// A variant-state key: fact number `table` (< 16) about square `sq`.
#[inline]
pub fn extra(table: usize, sq: Square) -> u64 {
    EXTRA[table][sq as usize]
}
