//! Bitboard helpers that several rulebooks and the evaluation share, beside
//! shakmaty's attack tables.

use shakmaty::{attacks, Bitboard, Piece, Square};

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

/// The squares `piece` on `sq` attacks with `occupied` squares: shakmaty's
/// `attacks::attacks`, spelled out in the WebAssembly build so that it is
/// inlined into every caller. There it is not inlined otherwise, and the call
/// costs more than the lookup in the move generator's and the evaluation's
/// loops over the pieces (the Andernach variants' bench, whose evaluation is
/// all such loops, 6-8 % faster in V8). Natively shakmaty's is called as it
/// is: the spelled-out copy measured 1-4 % slower there.
#[inline(always)]
pub fn piece_attacks(sq: Square, piece: Piece, occupied: Bitboard) -> Bitboard {
    #[cfg(not(target_arch = "wasm32"))]
    {
        attacks::attacks(sq, piece, occupied)
    }
    #[cfg(target_arch = "wasm32")]
    match piece.role {
        shakmaty::Role::Pawn => attacks::pawn_attacks(piece.color, sq),
        shakmaty::Role::Knight => attacks::knight_attacks(sq),
        shakmaty::Role::Bishop => attacks::bishop_attacks(sq, occupied),
        shakmaty::Role::Rook => attacks::rook_attacks(sq, occupied),
        shakmaty::Role::Queen => attacks::queen_attacks(sq, occupied),
        shakmaty::Role::King => attacks::king_attacks(sq),
    }
}
