//! Bitboard helpers that several rulebooks and the evaluation share, beside
//! shakmaty's attack tables.

use shakmaty::Bitboard;

/// The a-file and the h-file as raw masks (for shifts that must not wrap).
pub const FILE_A: u64 = 0x0101_0101_0101_0101;
pub const FILE_H: u64 = FILE_A << 7;

/// The squares of `squares` and the eight around each (king steps), by shifts:
/// Cowardly Crew's surroundings of a capture, Subversion's adjacency.
#[inline]
pub fn neighbourhood(squares: Bitboard) -> Bitboard {
    let b = squares.0;
    let row = b | ((b << 1) & !FILE_A) | ((b >> 1) & !FILE_H);
    Bitboard(row | (row << 8) | (row >> 8))
}
