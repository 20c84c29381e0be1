//! Static evaluation: tapered (middlegame/endgame) material and piece-square
//! tables shared by every variant, plus the variant's own terms
//! ([`Variant::evaluate`]). Scores are centipawns from the side to move's view.

use shakmaty::{Color, Role, Square};

use crate::position::Position;
use crate::variants::Variant;

/// Middlegame and endgame material.
const MATERIAL_MG: [i32; 6] = [82, 337, 365, 477, 1025, 0];
const MATERIAL_EG: [i32; 6] = [94, 281, 297, 512, 936, 0];

/// Game phase weight per role (24 = full middlegame material).
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Piece-square tables from White's view, a8 first (read like a board diagram),
/// so `TABLE[sq ^ 56]` is the value for a white piece on `sq`.
#[rustfmt::skip]
const PST_MG: [[i32; 64]; 6] = [
    // pawn
    [  0,   0,   0,   0,   0,   0,   0,   0,
      60,  70,  50,  60,  60,  50,  70,  60,
      20,  25,  35,  40,  40,  35,  25,  20,
       5,  10,  15,  28,  28,  15,  10,   5,
       0,   0,  10,  24,  24,  10,   0,   0,
       5,   0,   5,  10,  10,   5,   0,   5,
       5,  10,  10, -20, -20,  10,  10,   5,
       0,   0,   0,   0,   0,   0,   0,   0],
    // knight
    [-60, -40, -30, -30, -30, -30, -40, -60,
     -40, -20,   0,   5,   5,   0, -20, -40,
     -30,   5,  15,  20,  20,  15,   5, -30,
     -30,   5,  20,  25,  25,  20,   5, -30,
     -30,   0,  15,  22,  22,  15,   0, -30,
     -30,   5,  12,  15,  15,  12,   5, -30,
     -40, -20,   0,   5,   5,   0, -20, -40,
     -60, -30, -30, -30, -30, -30, -30, -60],
    // bishop
    [-20, -10, -10, -10, -10, -10, -10, -20,
     -10,   0,   0,   0,   0,   0,   0, -10,
     -10,   0,   5,  10,  10,   5,   0, -10,
     -10,   5,   5,  12,  12,   5,   5, -10,
     -10,   0,  12,  12,  12,  12,   0, -10,
     -10,  10,  10,  10,  10,  10,  10, -10,
     -10,  10,   0,   0,   0,   0,  10, -10,
     -20, -10, -12, -10, -10, -12, -10, -20],
    // rook
    [  5,  10,  10,  10,  10,  10,  10,   5,
      15,  20,  20,  20,  20,  20,  20,  15,
      -5,   0,   0,   0,   0,   0,   0,  -5,
      -5,   0,   0,   0,   0,   0,   0,  -5,
      -5,   0,   0,   0,   0,   0,   0,  -5,
      -5,   0,   0,   0,   0,   0,   0,  -5,
      -5,   0,   0,   0,   0,   0,   0,  -5,
       0,   0,   0,   7,   7,   5,   0,   0],
    // queen
    [-20, -10, -10,  -5,  -5, -10, -10, -20,
     -10,   0,   0,   0,   0,   0,   0, -10,
     -10,   0,   5,   5,   5,   5,   0, -10,
      -5,   0,   5,   5,   5,   5,   0,  -5,
       0,   0,   5,   5,   5,   5,   0,  -5,
     -10,   5,   5,   5,   5,   5,   0, -10,
     -10,   0,   5,   0,   0,   0,   0, -10,
     -20, -10, -10,  -5,  -5, -10, -10, -20],
    // king
    [-30, -40, -40, -50, -50, -40, -40, -30,
     -30, -40, -40, -50, -50, -40, -40, -30,
     -30, -40, -40, -50, -50, -40, -40, -30,
     -30, -40, -40, -50, -50, -40, -40, -30,
     -20, -30, -30, -40, -40, -30, -30, -20,
     -10, -20, -20, -20, -20, -20, -20, -10,
      15,  15,   0,  -5,  -5,   0,  15,  15,
      20,  30,  10,   0,   0,  10,  30,  20],
];

#[rustfmt::skip]
const PST_EG: [[i32; 64]; 6] = [
    // pawn: advance in the endgame
    [  0,   0,   0,   0,   0,   0,   0,   0,
     120, 120, 110, 100, 100, 110, 120, 120,
      70,  70,  60,  50,  50,  60,  70,  70,
      35,  30,  25,  20,  20,  25,  30,  35,
      15,  12,  10,   5,   5,  10,  12,  15,
       5,   5,   0,   0,   0,   0,   5,   5,
       5,   5,   0,   0,   0,   0,   5,   5,
       0,   0,   0,   0,   0,   0,   0,   0],
    // knight
    [-50, -40, -30, -30, -30, -30, -40, -50,
     -40, -20,   0,   0,   0,   0, -20, -40,
     -30,   0,  10,  15,  15,  10,   0, -30,
     -30,   5,  15,  20,  20,  15,   5, -30,
     -30,   0,  15,  20,  20,  15,   0, -30,
     -30,   5,  10,  15,  15,  10,   5, -30,
     -40, -20,   0,   5,   5,   0, -20, -40,
     -50, -40, -30, -30, -30, -30, -40, -50],
    // bishop
    [-15, -10, -10, -10, -10, -10, -10, -15,
     -10,   0,   0,   0,   0,   0,   0, -10,
     -10,   0,   5,  10,  10,   5,   0, -10,
     -10,   5,   5,  10,  10,   5,   5, -10,
     -10,   0,  10,  10,  10,  10,   0, -10,
     -10,  10,  10,  10,  10,  10,  10, -10,
     -10,   5,   0,   0,   0,   0,   5, -10,
     -15, -10, -10, -10, -10, -10, -10, -15],
    // rook
    [ 10,  10,  10,  10,  10,  10,  10,  10,
      10,  10,  10,  10,  10,  10,  10,  10,
       5,   5,   5,   5,   5,   5,   5,   5,
       0,   0,   0,   0,   0,   0,   0,   0,
       0,   0,   0,   0,   0,   0,   0,   0,
       0,   0,   0,   0,   0,   0,   0,   0,
       0,   0,   0,   0,   0,   0,   0,   0,
       0,   0,   0,   0,   0,   0,   0,   0],
    // queen
    [-10,  -5,  -5,  -5,  -5,  -5,  -5, -10,
      -5,   0,   5,   5,   5,   5,   0,  -5,
      -5,   5,  10,  10,  10,  10,   5,  -5,
      -5,   5,  10,  15,  15,  10,   5,  -5,
      -5,   5,  10,  15,  15,  10,   5,  -5,
      -5,   5,  10,  10,  10,  10,   5,  -5,
      -5,   0,   5,   5,   5,   5,   0,  -5,
     -10,  -5,  -5,  -5,  -5,  -5,  -5, -10],
    // king: centralise in the endgame
    [-50, -30, -20, -20, -20, -20, -30, -50,
     -30, -10,   0,  10,  10,   0, -10, -30,
     -20,   0,  20,  30,  30,  20,   0, -20,
     -20,   5,  30,  40,  40,  30,   5, -20,
     -20,   5,  30,  40,  40,  30,   5, -20,
     -20,   0,  20,  30,  30,  20,   0, -20,
     -30, -10,   0,  10,  10,   0, -10, -30,
     -50, -30, -20, -20, -20, -20, -30, -50],
];

const BISHOP_PAIR: (i32, i32) = (30, 50);
const TEMPO: i32 = 10;

#[inline]
fn table_index(sq: Square, color: Color) -> usize {
    match color {
        Color::White => sq as usize ^ 56,
        Color::Black => sq as usize,
    }
}

/// Material + piece-square score from White's view, tapered by game phase.
pub fn material_pst<V: Variant>(pos: &Position<V>) -> i32 {
    let mut mg = 0;
    let mut eg = 0;
    let mut phase = 0;
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        for (i, role) in Role::ALL.into_iter().enumerate() {
            for sq in pos.by_piece(role.of(color)) {
                let idx = table_index(sq, color);
                mg += sign * (MATERIAL_MG[i] + PST_MG[i][idx]);
                eg += sign * (MATERIAL_EG[i] + PST_EG[i][idx]);
                phase += PHASE[i];
            }
        }
        if pos.by_piece(color.bishop()).more_than_one() {
            mg += sign * BISHOP_PAIR.0;
            eg += sign * BISHOP_PAIR.1;
        }
    }
    let phase = phase.min(24);
    (mg * phase + eg * (24 - phase)) / 24
}

/// The full evaluation from the side to move's view. `variant_terms` is the UCI
/// option `VariantEval`: off, only the shared terms count (to measure the
/// variant's terms by matches).
#[inline]
pub fn evaluate<V: Variant>(pos: &Position<V>, variant_terms: bool) -> i32 {
    let mut white = material_pst(pos);
    if variant_terms {
        white += V::evaluate(pos);
    }
    let score = if pos.turn() == Color::White {
        white
    } else {
        -white
    };
    score + TEMPO
}
