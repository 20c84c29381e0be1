//! Bitboard helpers that several rulebooks and the evaluation share, beside
//! shakmaty's attack tables.

use shakmaty::{attacks, Bitboard, Color, Piece, Square};

/// The a-file and the h-file as raw masks (for shifts that must not wrap).
pub const FILE_A: u64 = 0x0101_0101_0101_0101;
pub const FILE_H: u64 = FILE_A << 7;

/// The squares of `squares` in the order `color` reads the board: a1, b1 ...
/// h8 for White, a8, b8 ... h1 for Black. Move generation visits squares in
/// this order, so a position and its colour flip list their moves in the same
/// (mirrored) order, and the search, which breaks ties between equally scored
/// moves by that order, searches the two alike (tests/symmetry.rs).
#[inline]
pub fn mover_order(color: Color, squares: Bitboard) -> MoverOrder {
    let black = color == Color::Black;
    MoverOrder {
        rest: if black {
            squares.flip_vertical()
        } else {
            squares
        },
        black,
    }
}

/// The iterator of [`mover_order`].
pub struct MoverOrder {
    rest: Bitboard,
    black: bool,
}

impl Iterator for MoverOrder {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        let sq = self.rest.pop_front()?;
        Some(if self.black { sq.flip_vertical() } else { sq })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.rest.count();
        (n, Some(n))
    }
}

/// The squares of `squares` and the eight around each (king steps), by shifts:
/// Cowardly Crew's surroundings of a capture, Subversion's adjacency.
#[inline]
pub fn neighbourhood(squares: Bitboard) -> Bitboard {
    let b = squares.0;
    let row = b | ((b << 1) & !FILE_A) | ((b >> 1) & !FILE_H);
    Bitboard(row | (row << 8) | (row >> 8))
}

/// The squares `color`'s `pawns` attack, all at once by shifts: the union of
/// each pawn's `attacks::pawn_attacks`.
#[inline]
pub fn pawn_attacks(pawns: Bitboard, color: Color) -> Bitboard {
    let p = pawns.0;
    let (west, east) = (p & !FILE_A, p & !FILE_H);
    Bitboard(match color {
        Color::White => west << 7 | east << 9,
        Color::Black => west >> 9 | east >> 7,
    })
}

/// The squares `piece` on `sq` attacks with `occupied` squares: shakmaty's
/// `attacks::attacks`, spelled out in the WebAssembly build so that it is
/// inlined into every caller. There it is not inlined otherwise, and the call
/// costs more than the lookup in the move generator's loops over the pieces
/// (the Andernach variants' bench 6-8 % faster in V8). Natively shakmaty's is
/// called as it is: the spelled-out copy measured 1-4 % slower there. Where
/// the kind of piece is known in advance (the evaluation), call its own lookup
/// (`attacks::rook_attacks`...) instead: no choice piece by piece at all.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The shifts agree with the table, pawn by pawn and on whole sets
    /// (edge files included).
    #[test]
    fn pawn_attacks_are_the_union_of_each_pawns() {
        for color in Color::ALL {
            for sq in Square::ALL {
                let one = Bitboard::from_square(sq);
                assert_eq!(
                    pawn_attacks(one, color),
                    attacks::pawn_attacks(color, sq),
                    "{sq}"
                );
            }
            let mut set = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..1000 {
                set ^= set << 13;
                set ^= set >> 7;
                set ^= set << 17;
                let pawns = Bitboard(set);
                let union = pawns.into_iter().fold(Bitboard::EMPTY, |all, sq| {
                    all | attacks::pawn_attacks(color, sq)
                });
                assert_eq!(pawn_attacks(pawns, color), union);
            }
        }
    }
}
