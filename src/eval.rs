//! Static evaluation: tapered (middlegame/endgame) material and piece-square
//! tables shared by every variant, plus the variant's own terms
//! ([`Variant::evaluate`]). Scores are centipawns from the side to move's view.
//!
//! Material, piece-square tables and [`DEFAULT_WEIGHTS`] (all but `king_attack`)
//! are fitted to self-play games by Texel tuning (`turncoat tune`, `src/tune.rs`):
//!
//! ```text
//! turncoat match --config gen.toml   # 7000 games, an earlier build against
//!                                    # itself, nodes 4000, random_plies 8,
//!                                    # seed 20261122
//! turncoat tune games.pgn --epochs 1500 --reg 5e-9 --lambda 0.5
//! ```
//!
//! 746,871 quiet positions (quiescence leaves, from ply 12, not in check); target =
//! half the game result, half the logistic of the PGN search score.
//!
//! First fit (from the hand-set values, before the pawn-structure, passed-pawn
//! king-distance and threat terms existed): K = 2.2406, MSE 0.030177 -> 0.028960;
//! +23.2 +/- 24.2 Elo against the hand-set values (600 games at 20000 nodes).
//! Tuning on the results alone (`--lambda 1`) fitted them better but played
//! worse (-52 and -20 Elo): noisier labels, noisier tables.
//!
//! Second fit, with those terms added at zero and every parameter free, on the
//! same games: K = 2.3345, MSE 0.029072 -> 0.028219; +65.0 +/- 43.7 Elo, LOS
//! 99.8 % against the first fit (200 games at 20000 nodes per move, random_plies
//! 8, seed 5: 98 - 61 - 41), at about 6 % fewer nodes per second.

use shakmaty::{attacks, Bitboard, Color, File, Role, Square};

use crate::position::Position;
use crate::variants::Variant;

/// Middlegame and endgame material.
const MATERIAL_MG: [i32; 6] = [65, 343, 350, 470, 1040, 0];
const MATERIAL_EG: [i32; 6] = [93, 281, 299, 539, 961, 0];

/// Game phase weight per role (24 = full middlegame material).
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Piece-square tables from White's view, a8 first (read like a board diagram),
/// so `TABLE[sq ^ 56]` is the value for a white piece on `sq`.
#[rustfmt::skip]
const PST_MG: [[i32; 64]; 6] = [
    // pawn
    [  0,   0,   0,   0,   0,   0,   0,   0,
      66,  66,  42,  69,  56,  41,  67,  79,
      35,  30,  -4,  33,  47,  32,  14,  14,
      22,  20,  36,  15,  28,   7,   4, -20,
       9,   7,   8,  35,  29,  11, -10,  -4,
       7,   2,   1,   7,   5,   4,   3, -10,
       3,  14,  12,   0, -13,  19,   6,  -6,
       0,   0,   0,   0,   0,   0,   0,   0],
    // knight
    [-85, -40, -32, -32, -29, -32, -40, -80,
     -53, -27,   9,  -1, -15,  10, -26, -46,
     -23,  15,  20,  30,  33,  -2,  31, -24,
     -16,   5,  -8,  18,  21,  14,  13, -20,
     -36,  20,   0,  14,   9,  -1,   5, -11,
     -11, -19,  -3,  11,   4,  11,  -1,  -8,
     -41, -37,  -3,  -4,   2,   2,   7, -14,
     -57, -20, -22, -31,  -5, -27, -17, -62],
    // bishop
    [-16, -14, -12,  -6, -12, -10, -16, -18,
     -10, -30, -21,   2,  10,   8,   5, -25,
     -16,  -5,   7,  13,  -6,   6, -14,   5,
       5,  -5,  16,  14,  28,  -6,   7,  -8,
     -20,   2,   4,  18,  13,  -5, -24,   0,
       8,  30,   5,   2,   3,  18,   8, -19,
      25,   1,  -4,   2,  11,  12,  10,   0,
     -24, -21,  -4,   8, -28,  -7,  -7, -29],
    // rook
    [  5,  13,   6,  12,  17,  10,  10,   1,
       3,  22,  24,   9,  25,  14,  -8,  11,
       8,   3,  12,  15,  24,   9,  16, -16,
     -11,   3,   8,  17,   1,  -6,   7, -21,
     -12,  -6,  -7,  -3,  -8, -16,   6,  -9,
     -30,  17, -13,  -8,   4,   4, -14,  14,
     -10,  22,  17, -13,   9,  21,  -2, -24,
      -8,  -5,   2,  12,  16,  16, -21, -11],
    // queen
    [-11, -17, -11, -11,  -3, -11,  -9,   2,
     -18, -17, -12,  12,   0,   6,  18,  -3,
     -16, -23,  -8,  -2,   4,   4,   8, -13,
       1, -13, -11,   0,   2,  -3,   9, -11,
     -12,   2,  14,  -5,   0,  -1,  10,  35,
     -23,   1,  10,  -3,   4,   4,   7, -26,
       4,   5,  10,   3,   4,  15,  14,  -9,
     -19,  -6,  -9,   0,  -1, -11, -15, -12],
    // king
    [-30, -38, -38, -46, -48, -38, -38, -30,
     -28, -38, -38, -48, -49, -38, -36, -30,
     -33, -37, -40, -48, -51, -39, -38, -28,
     -32, -38, -34, -54, -57, -41, -37, -30,
     -24, -25, -29, -34, -29, -23, -34, -16,
     -12, -20, -34, -28,  -2, -25,  -6, -12,
      22,   3,   8, -25, -25,  10,   9,  28,
       4,  21,  21, -20,   7,  -2,  20,  37],
];

#[rustfmt::skip]
const PST_EG: [[i32; 64]; 6] = [
    // pawn
    [  0,   0,   0,   0,   0,   0,   0,   0,
     115, 102, 116, 117,  99, 110, 123,  80,
      74,  66,  54,  48,  19,  76,  57,  49,
      41,  16,  14,  17,  15,  19,  41,  41,
      37,   4,   1,  11,   7,  16,  24,  21,
      15,   0,  15,  13,  22,  -4,   4,   4,
      13,   4,   8, -21,  26,   2,  11,   0,
       0,   0,   0,   0,   0,   0,   0,   0],
    // knight
    [-66, -45, -32, -29, -28, -30, -40, -61,
     -33, -22,   9,  -6, -12,   5, -31, -34,
     -25,  -5,  21,  12,  -8,  21,   8, -27,
     -15,  18,  19,  29,  22,  24,   9, -34,
     -33,  15,  19,   8,   9,  14,  -4, -30,
     -27,  16, -10,  18,  24, -10, -18, -13,
     -35, -31,  -8,  -5, -12,   4,  -7, -32,
     -51, -49, -30, -19, -23, -25, -33, -50],
    // bishop
    [-17, -17, -11,  -9, -18, -17, -14, -17,
     -17,   6,  16,  11,   6,   1, -13,   7,
     -27,  21,  16,  16,  11,   8,  -1,  -7,
      -4,  -2,  14,   9, -11,  16, -11, -13,
      -4,   7,  15,  13, -20,  13,  11, -20,
       3,  18,   5,  17,  19,   1,  -9,  13,
      -5,  14,  -9, -14,   9,  -2,  -7,  -7,
     -19, -15, -23, -11, -20, -17,   4, -11],
    // rook
    [ 15,  19,   6,  16,  21,  18,   8,  17,
      10,  10,   3,  13,  11,   6,   0,  13,
      13,   7,   9,  15,  19,  10,   7,  15,
       7,   9,   0,   4,  -1,   2,  -5,   3,
       0,   4,   1,  -1,   2,   5,  -8,  16,
     -10,   1,   8,  -4,  -7, -14,   3,  -1,
      12,  -3, -18,   3,   7,  -8, -10,  16,
      -8,   0, -12, -12,  -6, -19, -11,  -1],
    // queen
    [  0, -14,  -7,  -8,  -3,  -4,  -2, -10,
      -1,  -4,  -2,   9,   5,  15,  11,  -4,
       2,   1,   9,  11,   7,  11,  12,  -1,
       0,   5,  10,  14,  17,  12,   7,  -3,
     -17,   5,  20,  27,   9,  15,   9,   4,
      -8,   0,  12,   9,  -1,  12,  -7,  -5,
      -9,   0, -13,  14,   6,   9,   4,  -5,
      -7, -14,  -5, -17,  -8,  -1,  -6,  -8],
    // king
    [-54, -29, -13, -14, -12, -15, -23, -47,
     -30,  -4,   5,  17,  13,  16,  12, -25,
     -25,  13,  29,  18,  37,  39,  19, -12,
     -24,   9,  21,   5,   8,  24,  24, -12,
     -23,   7,  12,  14,  24,  23,  11,  -5,
     -16,   3,   4,  14,  13,  16,   7, -13,
     -35, -11,  -4,   6,   2,   7,  -1, -26,
     -50, -26, -17, -27, -41, -27, -24, -44],
];

/// A middlegame/endgame pair.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct S(pub i32, pub i32);

impl std::ops::AddAssign for S {
    fn add_assign(&mut self, o: S) {
        self.0 += o.0;
        self.1 += o.1;
    }
}

impl std::ops::SubAssign for S {
    fn sub_assign(&mut self, o: S) {
        self.0 -= o.0;
        self.1 -= o.1;
    }
}

impl std::ops::Mul<i32> for S {
    type Output = S;
    fn mul(self, k: i32) -> S {
        S(self.0 * k, self.1 * k)
    }
}

/// The positional weights beyond material and piece-square tables. Kept in one
/// struct so that the tuner (`turncoat tune`) can adjust them as a vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// Per safe square a knight, bishop, rook, queen attacks, relative to an
    /// average mobility (4, 6, 6, 12 squares).
    pub mobility: [S; 4],
    /// Passed pawn by relative rank (index 1..6 used).
    pub passed: [S; 8],
    pub isolated: S,
    pub doubled: S,
    pub rook_open_file: S,
    pub rook_semi_open_file: S,
    pub bishop_pair: S,
    /// Own pawns on the three files in front of the king, one or two ranks ahead.
    pub king_shield: S,
    /// A pawn defended by an own pawn.
    pub supported: S,
    /// A pawn with an own pawn beside it on the same rank.
    pub phalanx: S,
    /// Per square of king distance (Chebyshev) to the square in front of a
    /// passed pawn, times its relative rank above the third: the own king's
    /// and the enemy king's. Endgames of passed pawns are races of kings.
    pub passed_own_king: S,
    pub passed_their_king: S,
    /// Per enemy knight, bishop, rook or queen attacked by an own pawn.
    pub threat_by_pawn: S,
    /// Per enemy rook or queen attacked by an own knight or bishop.
    pub threat_by_minor: S,
    /// Per enemy queen attacked by an own rook.
    pub threat_by_rook: S,
    /// Per enemy piece or pawn (not the king) attacked and not defended.
    pub hanging: S,
    /// Attack units per knight, bishop, rook, queen hitting the enemy king zone.
    pub king_attack: [i32; 4],
}

pub const DEFAULT_WEIGHTS: Weights = Weights {
    mobility: [S(6, -1), S(5, 3), S(4, 2), S(2, 7)],
    passed: [
        S(0, 0),
        S(14, 10),
        S(9, 22),
        S(-15, 35),
        S(12, 56),
        S(30, 71),
        S(67, 72),
        S(0, 0),
    ],
    isolated: S(-4, -15),
    doubled: S(-15, -12),
    rook_open_file: S(34, 0),
    rook_semi_open_file: S(16, 19),
    bishop_pair: S(33, 55),
    king_shield: S(16, -2),
    supported: S(8, 3),
    phalanx: S(5, 1),
    passed_own_king: S(1, -6),
    passed_their_king: S(-1, 9),
    threat_by_pawn: S(40, 12),
    threat_by_minor: S(33, 4),
    threat_by_rook: S(28, 6),
    hanging: S(12, 27),
    king_attack: [2, 2, 3, 5],
};

const MOBILITY_CENTER: [i32; 4] = [4, 6, 6, 12];
/// Bonus for the side to move (added after tapering).
pub const TEMPO: i32 = 10;

/// Indices of the tunable evaluation parameters, each a middlegame/endgame pair
/// ([`S`]) that enters the shared evaluation linearly. The tuner (`turncoat
/// tune`) fits them against game results through an [`EvalTrace`].
pub mod param {
    /// `MATERIAL_*[role]`.
    pub const MATERIAL: usize = 0;
    /// `PST_*[role][table index]`, at `PST + 64 * role + index`.
    pub const PST: usize = MATERIAL + 6;
    /// `Weights::mobility[piece]`.
    pub const MOBILITY: usize = PST + 6 * 64;
    /// `Weights::passed[relative rank]`.
    pub const PASSED: usize = MOBILITY + 4;
    pub const ISOLATED: usize = PASSED + 8;
    pub const DOUBLED: usize = ISOLATED + 1;
    pub const ROOK_OPEN_FILE: usize = DOUBLED + 1;
    pub const ROOK_SEMI_OPEN_FILE: usize = ROOK_OPEN_FILE + 1;
    pub const BISHOP_PAIR: usize = ROOK_SEMI_OPEN_FILE + 1;
    pub const KING_SHIELD: usize = BISHOP_PAIR + 1;
    pub const SUPPORTED: usize = KING_SHIELD + 1;
    pub const PHALANX: usize = SUPPORTED + 1;
    pub const PASSED_OWN_KING: usize = PHALANX + 1;
    pub const PASSED_THEIR_KING: usize = PASSED_OWN_KING + 1;
    pub const THREAT_BY_PAWN: usize = PASSED_THEIR_KING + 1;
    pub const THREAT_BY_MINOR: usize = THREAT_BY_PAWN + 1;
    pub const THREAT_BY_ROOK: usize = THREAT_BY_MINOR + 1;
    pub const HANGING: usize = THREAT_BY_ROOK + 1;
    /// Number of parameters.
    pub const COUNT: usize = HANGING + 1;
}

/// Observes the shared evaluation term by term. The evaluator is generic over
/// it so that the engine's [`NoTrace`] compiles to nothing, while the tuner's
/// [`EvalTrace`] records how often each parameter counts for each side.
pub trait Trace {
    /// Parameter `param` counts `times` for `color`.
    fn add(&mut self, color: Color, param: usize, times: i32);
    /// A term outside the parameter vector (the quadratic king attack) adds `s`.
    fn fixed(&mut self, color: Color, s: S);
}

/// The engine's trace: records nothing.
pub struct NoTrace;

impl Trace for NoTrace {
    #[inline(always)]
    fn add(&mut self, _: Color, _: usize, _: i32) {}
    #[inline(always)]
    fn fixed(&mut self, _: Color, _: S) {}
}

/// The shared evaluation of one position as a linear function of the parameters:
/// from White's view, `mg = sum(coeffs * param.mg) + fixed.mg` (likewise `eg`),
/// tapered by `phase`, plus the tempo bonus of the side to move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EvalTrace {
    /// (parameter, White's count minus Black's), sorted, without zero counts.
    pub coeffs: Vec<(usize, i32)>,
    /// White's minus Black's terms that are not parameters.
    pub fixed: S,
    /// Game phase, 0 (bare kings and pawns) to 24.
    pub phase: i32,
    /// Is White to move (decides the sign of the tempo bonus)?
    pub white_to_move: bool,
}

impl Trace for EvalTrace {
    fn add(&mut self, color: Color, param: usize, times: i32) {
        let sign = if color == Color::White { 1 } else { -1 };
        self.coeffs.push((param, sign * times));
    }
    fn fixed(&mut self, color: Color, s: S) {
        if color == Color::White {
            self.fixed += s;
        } else {
            self.fixed -= s;
        }
    }
}

impl EvalTrace {
    /// Evaluates with integer parameters exactly as [`evaluate_with`] does, from
    /// White's view (the check that the trace is complete).
    pub fn evaluate(&self, params: &[S]) -> i32 {
        let mut total = self.fixed;
        for &(p, c) in &self.coeffs {
            total += params[p] * c;
        }
        let tapered = (total.0 * self.phase + total.1 * (24 - self.phase)) / 24;
        tapered + if self.white_to_move { TEMPO } else { -TEMPO }
    }

    /// Merges repeated parameters and drops those that cancel out.
    fn compact(&mut self) {
        self.coeffs.sort_unstable_by_key(|&(p, _)| p);
        let mut out: Vec<(usize, i32)> = Vec::with_capacity(self.coeffs.len());
        for &(p, c) in &self.coeffs {
            match out.last_mut() {
                Some(last) if last.0 == p => last.1 += c,
                _ => out.push((p, c)),
            }
        }
        out.retain(|&(_, c)| c != 0);
        self.coeffs = out;
    }
}

/// The shared evaluation's trace of `pos` (chess positions; variant terms are
/// not part of it).
pub fn trace<V: Variant>(pos: &Position<V>, w: &Weights) -> EvalTrace {
    let mut t = EvalTrace {
        white_to_move: pos.turn() == Color::White,
        ..EvalTrace::default()
    };
    let (_, pw, white) = side_terms(pos, Color::White, w, &mut t);
    let (_, pb, black) = side_terms(pos, Color::Black, w, &mut t);
    threats(pos, Color::White, &white, &black, w, &mut t);
    threats(pos, Color::Black, &black, &white, w, &mut t);
    t.phase = (pw + pb).min(24);
    t.compact();
    t
}

/// The parameter vector of the current tables and `w` (indexed by [`param`]).
pub fn params_of(w: &Weights) -> Vec<S> {
    let mut p = vec![S(0, 0); param::COUNT];
    for role in 0..6 {
        p[param::MATERIAL + role] = S(MATERIAL_MG[role], MATERIAL_EG[role]);
        for idx in 0..64 {
            p[param::PST + 64 * role + idx] = S(PST_MG[role][idx], PST_EG[role][idx]);
        }
    }
    p[param::MOBILITY..param::MOBILITY + 4].copy_from_slice(&w.mobility);
    p[param::PASSED..param::PASSED + 8].copy_from_slice(&w.passed);
    p[param::ISOLATED] = w.isolated;
    p[param::DOUBLED] = w.doubled;
    p[param::ROOK_OPEN_FILE] = w.rook_open_file;
    p[param::ROOK_SEMI_OPEN_FILE] = w.rook_semi_open_file;
    p[param::BISHOP_PAIR] = w.bishop_pair;
    p[param::KING_SHIELD] = w.king_shield;
    p[param::SUPPORTED] = w.supported;
    p[param::PHALANX] = w.phalanx;
    p[param::PASSED_OWN_KING] = w.passed_own_king;
    p[param::PASSED_THEIR_KING] = w.passed_their_king;
    p[param::THREAT_BY_PAWN] = w.threat_by_pawn;
    p[param::THREAT_BY_MINOR] = w.threat_by_minor;
    p[param::THREAT_BY_ROOK] = w.threat_by_rook;
    p[param::HANGING] = w.hanging;
    p
}

/// The `Weights` part of a parameter vector; `king_attack` (not a parameter)
/// comes from `base`.
pub fn weights_of(p: &[S], base: &Weights) -> Weights {
    let mut w = base.clone();
    w.mobility
        .copy_from_slice(&p[param::MOBILITY..param::MOBILITY + 4]);
    w.passed
        .copy_from_slice(&p[param::PASSED..param::PASSED + 8]);
    w.isolated = p[param::ISOLATED];
    w.doubled = p[param::DOUBLED];
    w.rook_open_file = p[param::ROOK_OPEN_FILE];
    w.rook_semi_open_file = p[param::ROOK_SEMI_OPEN_FILE];
    w.bishop_pair = p[param::BISHOP_PAIR];
    w.king_shield = p[param::KING_SHIELD];
    w.supported = p[param::SUPPORTED];
    w.phalanx = p[param::PHALANX];
    w.passed_own_king = p[param::PASSED_OWN_KING];
    w.passed_their_king = p[param::PASSED_THEIR_KING];
    w.threat_by_pawn = p[param::THREAT_BY_PAWN];
    w.threat_by_minor = p[param::THREAT_BY_MINOR];
    w.threat_by_rook = p[param::THREAT_BY_ROOK];
    w.hanging = p[param::HANGING];
    w
}

#[inline]
fn table_index(sq: Square, color: Color) -> usize {
    match color {
        Color::White => sq as usize ^ 56,
        Color::Black => sq as usize,
    }
}

/// Squares attacked by `color`'s pawns.
#[inline]
fn pawn_attacks_of(pawns: Bitboard, color: Color) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for sq in pawns {
        out |= attacks::pawn_attacks(color, sq);
    }
    out
}

/// Files adjacent to `file` (as a bitboard of whole files).
#[inline]
fn adjacent_files(file: File) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    if let Some(f) = file.offset(-1) {
        b |= Bitboard::from_file(f);
    }
    if let Some(f) = file.offset(1) {
        b |= Bitboard::from_file(f);
    }
    b
}

/// Squares strictly in front of `sq` for `color`, on its file and the adjacent
/// ones (a passed pawn has no enemy pawn there).
pub fn front_span(sq: Square, color: Color) -> Bitboard {
    let files = Bitboard::from_file(sq.file()) | adjacent_files(sq.file());
    let rank = sq.rank() as u32;
    let ahead = match color {
        Color::White => {
            if rank == 7 {
                Bitboard::EMPTY
            } else {
                Bitboard(!0u64 << (8 * (rank + 1)))
            }
        }
        Color::Black => Bitboard((1u64 << (8 * rank)) - 1),
    };
    files & ahead
}

/// The squares one side attacks, gathered while its terms are counted, for the
/// threat terms.
#[derive(Copy, Clone, Debug, Default)]
struct Attacks {
    all: Bitboard,
    pawns: Bitboard,
    minors: Bitboard,
    rooks: Bitboard,
}

/// Interaction-free terms of one side: material, tables, mobility, pawns,
/// rooks, bishop pair, king safety. Returns (score, phase contribution, the
/// side's attacks).
fn side_terms<V: Variant, T: Trace>(
    pos: &Position<V>,
    color: Color,
    w: &Weights,
    t: &mut T,
) -> (S, i32, Attacks) {
    let occ = pos.occupied();
    let own_pawns = pos.by_piece(color.pawn());
    let their_pawns = pos.by_piece((!color).pawn());
    let safe = !pos.by_color(color) & !pawn_attacks_of(their_pawns, !color);
    let enemy_king_zone = match pos.king_of(!color) {
        Some(k) => attacks::king_attacks(k).with(k),
        None => Bitboard::EMPTY,
    };
    let (material_mg, material_eg, pst_mg, pst_eg) = tables::<V>();
    let own_pawn_attacks = pawn_attacks_of(own_pawns, color);
    let mut seen = Attacks {
        all: own_pawn_attacks,
        pawns: own_pawn_attacks,
        ..Attacks::default()
    };
    let own_king = pos.king_of(color);
    let their_king = pos.king_of(!color);
    let mut score = S(0, 0);
    let mut phase = 0;
    let mut attack_units = 0;
    let mut attackers = 0;
    for (i, role) in Role::ALL.into_iter().enumerate() {
        for sq in pos.by_piece(role.of(color)) {
            let idx = table_index(sq, color);
            score += S(
                material_mg[i] + pst_mg[i][idx],
                material_eg[i] + pst_eg[i][idx],
            );
            t.add(color, param::MATERIAL + i, 1);
            t.add(color, param::PST + 64 * i + idx, 1);
            phase += PHASE[i];
            if (1..=4).contains(&i) {
                let att = attacks::attacks(sq, role.of(color), occ);
                seen.all |= att;
                match role {
                    Role::Knight | Role::Bishop => seen.minors |= att,
                    Role::Rook => seen.rooks |= att,
                    _ => {}
                }
                let mob = (att & safe).count() as i32 - MOBILITY_CENTER[i - 1];
                score += w.mobility[i - 1] * mob;
                t.add(color, param::MOBILITY + i - 1, mob);
                if (att & enemy_king_zone).any() {
                    attack_units += w.king_attack[i - 1] * (att & enemy_king_zone).count() as i32;
                    attackers += 1;
                }
            }
            match role {
                Role::Pawn => {
                    let file = Bitboard::from_file(sq.file());
                    if (front_span(sq, color) & their_pawns).is_empty() {
                        let rank = color.relative_rank(sq.rank()) as usize;
                        score += w.passed[rank];
                        t.add(color, param::PASSED + rank, 1);
                        let scale = rank.saturating_sub(2) as i32;
                        let ahead = if color == Color::White { 8 } else { -8 };
                        if let Some(front) = sq.offset(ahead).filter(|_| scale > 0) {
                            for (king, weight, index) in [
                                (own_king, w.passed_own_king, param::PASSED_OWN_KING),
                                (their_king, w.passed_their_king, param::PASSED_THEIR_KING),
                            ] {
                                if let Some(k) = king {
                                    let n = k.distance(front) as i32 * scale;
                                    score += weight * n;
                                    t.add(color, index, n);
                                }
                            }
                        }
                    }
                    if (attacks::pawn_attacks(!color, sq) & own_pawns).any() {
                        score += w.supported;
                        t.add(color, param::SUPPORTED, 1);
                    }
                    if (adjacent_files(sq.file()) & Bitboard::from_rank(sq.rank()) & own_pawns)
                        .any()
                    {
                        score += w.phalanx;
                        t.add(color, param::PHALANX, 1);
                    }
                    if (adjacent_files(sq.file()) & own_pawns).is_empty() {
                        score += w.isolated;
                        t.add(color, param::ISOLATED, 1);
                    }
                    if (front_span(sq, color) & file & own_pawns).any() {
                        score += w.doubled;
                        t.add(color, param::DOUBLED, 1);
                    }
                }
                Role::Rook => {
                    let file = Bitboard::from_file(sq.file());
                    if (file & own_pawns).is_empty() {
                        if (file & their_pawns).is_empty() {
                            score += w.rook_open_file;
                            t.add(color, param::ROOK_OPEN_FILE, 1);
                        } else {
                            score += w.rook_semi_open_file;
                            t.add(color, param::ROOK_SEMI_OPEN_FILE, 1);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    if pos.by_piece(color.bishop()).more_than_one() {
        score += w.bishop_pair;
        t.add(color, param::BISHOP_PAIR, 1);
    }
    if let Some(k) = pos.king_of(color) {
        // Shield: own pawns one or two ranks in front of the king, on its file
        // and the adjacent ones.
        let near = Bitboard::from_rank(k.rank()).shift(if color == Color::White { 8 } else { -8 })
            | Bitboard::from_rank(k.rank()).shift(if color == Color::White { 16 } else { -16 });
        let shield = front_span(k, color) & near & own_pawns;
        let n = shield.count().min(3) as i32;
        score += w.king_shield * n;
        t.add(color, param::KING_SHIELD, n);
        seen.all |= attacks::king_attacks(k);
    }
    // King attack: quadratic in attack units, only with two or more attackers.
    if attackers >= 2 {
        let attack = S(attack_units * attack_units / 4, attack_units);
        score += attack;
        t.fixed(color, attack);
    }
    (score, phase, seen)
}

/// What `color`'s attacks threaten: enemy pieces attacked by a lesser piece,
/// and enemy pieces attacked and not defended.
fn threats<V: Variant, T: Trace>(
    pos: &Position<V>,
    color: Color,
    ours: &Attacks,
    theirs: &Attacks,
    w: &Weights,
    t: &mut T,
) -> S {
    let them = pos.by_color(!color);
    let queens = them & pos.by_role(Role::Queen);
    let majors = queens | (them & pos.by_role(Role::Rook));
    let pieces = majors | (them & (pos.by_role(Role::Knight) | pos.by_role(Role::Bishop)));
    let targets = [
        (ours.pawns & pieces, w.threat_by_pawn, param::THREAT_BY_PAWN),
        (
            ours.minors & majors,
            w.threat_by_minor,
            param::THREAT_BY_MINOR,
        ),
        (ours.rooks & queens, w.threat_by_rook, param::THREAT_BY_ROOK),
        (
            ours.all & !theirs.all & them & !pos.by_role(Role::King),
            w.hanging,
            param::HANGING,
        ),
    ];
    let mut score = S(0, 0);
    for (set, weight, index) in targets {
        let n = set.count() as i32;
        score += weight * n;
        t.add(color, index, n);
    }
    score
}

/// Material and piece-square tables of variant `V`: Texel-tuned for standard
/// chess ([`Variant::TUNED_EVAL`]), hand-set for the others.
#[inline]
#[allow(clippy::type_complexity)]
fn tables<V: Variant>() -> (
    &'static [i32; 6],
    &'static [i32; 6],
    &'static [[i32; 64]; 6],
    &'static [[i32; 64]; 6],
) {
    if V::TUNED_EVAL {
        (&MATERIAL_MG, &MATERIAL_EG, &PST_MG, &PST_EG)
    } else {
        (
            &hand_set::MATERIAL_MG,
            &hand_set::MATERIAL_EG,
            &hand_set::PST_MG,
            &hand_set::PST_EG,
        )
    }
}

/// The positional weights of variant `V` (see [`tables`]).
#[inline]
pub fn weights_for<V: Variant>() -> &'static Weights {
    if V::TUNED_EVAL {
        &DEFAULT_WEIGHTS
    } else {
        &hand_set::WEIGHTS
    }
}

/// The shared evaluation from White's view, tapered by game phase.
pub fn shared_terms<V: Variant>(pos: &Position<V>, w: &Weights) -> i32 {
    let (white, pw, white_attacks) = side_terms(pos, Color::White, w, &mut NoTrace);
    let (black, pb, black_attacks) = side_terms(pos, Color::Black, w, &mut NoTrace);
    let mut total = white;
    total -= black;
    total += threats(
        pos,
        Color::White,
        &white_attacks,
        &black_attacks,
        w,
        &mut NoTrace,
    );
    total -= threats(
        pos,
        Color::Black,
        &black_attacks,
        &white_attacks,
        w,
        &mut NoTrace,
    );
    let phase = (pw + pb).min(24);
    (total.0 * phase + total.1 * (24 - phase)) / 24
}

/// Material + piece-square score from White's view, tapered by game phase
/// (kept for variants that want only the material picture).
pub fn material_pst<V: Variant>(pos: &Position<V>) -> i32 {
    let (material_mg, material_eg, pst_mg, pst_eg) = tables::<V>();
    let mut mg = 0;
    let mut eg = 0;
    let mut phase = 0;
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        for (i, role) in Role::ALL.into_iter().enumerate() {
            for sq in pos.by_piece(role.of(color)) {
                let idx = table_index(sq, color);
                mg += sign * (material_mg[i] + pst_mg[i][idx]);
                eg += sign * (material_eg[i] + pst_eg[i][idx]);
                phase += PHASE[i];
            }
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
    evaluate_with(pos, variant_terms, weights_for::<V>())
}

pub fn evaluate_with<V: Variant>(pos: &Position<V>, variant_terms: bool, w: &Weights) -> i32 {
    let mut white = shared_terms(pos, w);
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

/// The hand-set material, tables and weights the variants keep. The tuned ones
/// above were fitted to standard chess games only; the variants' own terms were
/// measured (VariantEval on vs off) on top of these, and a variant's piece
/// values and squares are not chess's anyway.
pub mod hand_set {
    use super::{Weights, S};

    #[rustfmt::skip]
    pub const MATERIAL_MG: [i32; 6] = [82, 337, 365, 477, 1025, 0];
    pub const MATERIAL_EG: [i32; 6] = [94, 281, 297, 512, 936, 0];

    #[rustfmt::skip]
    pub const PST_MG: [[i32; 64]; 6] = [
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
    pub const PST_EG: [[i32; 64]; 6] = [
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

    pub const WEIGHTS: Weights = Weights {
        mobility: [S(4, 4), S(5, 5), S(2, 4), S(1, 2)],
        passed: [
            S(0, 0),
            S(0, 5),
            S(2, 10),
            S(8, 20),
            S(20, 40),
            S(40, 70),
            S(60, 110),
            S(0, 0),
        ],
        isolated: S(-10, -12),
        doubled: S(-8, -18),
        rook_open_file: S(25, 10),
        rook_semi_open_file: S(12, 6),
        bishop_pair: S(30, 50),
        king_shield: S(12, 0),
        // Not measured in the variants: off.
        supported: S(0, 0),
        phalanx: S(0, 0),
        passed_own_king: S(0, 0),
        passed_their_king: S(0, 0),
        threat_by_pawn: S(0, 0),
        threat_by_minor: S(0, 0),
        threat_by_rook: S(0, 0),
        hanging: S(0, 0),
        king_attack: [2, 2, 3, 5],
    };
}
