//! Static evaluation: tapered (middlegame/endgame) material and piece-square
//! tables shared by every variant, plus the variant's own terms
//! ([`Variant::evaluate`]). Scores are centipawns from the side to move's view.
//!
//! Material, piece-square tables and [`DEFAULT_WEIGHTS`] (all but `king_attack`)
//! are fitted to self-play games by Texel tuning (`turncoat tune`, `src/tune.rs`),
//! starting from the earlier hand-set values:
//!
//! ```text
//! turncoat match --config gen.toml   # 7000 games, previous build against itself,
//!                                    # nodes 4000, random_plies 8, seed 20261122
//! turncoat tune games.pgn --epochs 1500 --reg 5e-9 --lambda 0.5
//! ```
//!
//! 746,743 quiet positions (quiescence leaves, from ply 12, not in check), K =
//! 2.2406; target = half the game result, half the logistic of the PGN search
//! score; MSE 0.030177 -> 0.028960 against that target (0.101424 -> 0.098708
//! against the results alone). Tuning on the results alone (`--lambda 1`) fitted
//! them better (0.0961, or 0.0976 with the same `--reg`) but played worse (-52 and
//! -20 Elo), noisier labels giving noisier tables. Measured against the hand-set
//! values at 20000 nodes per move (`turncoat match`, random_plies 8): 247 - 207 -
//! 146, +23.2 +/- 24.2 Elo, LOS 97.0 % (600 games, seed 9001); 120 - 99 - 81,
//! +24.4 +/- 33.7 (300 games, seed 4242).

use shakmaty::{attacks, Bitboard, Color, File, Role, Square};

use crate::position::Position;
use crate::variants::Variant;

/// Middlegame and endgame material.
const MATERIAL_MG: [i32; 6] = [71, 347, 356, 474, 1039, 0];
const MATERIAL_EG: [i32; 6] = [99, 279, 296, 539, 957, 0];

/// Game phase weight per role (24 = full middlegame material).
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Piece-square tables from White's view, a8 first (read like a board diagram),
/// so `TABLE[sq ^ 56]` is the value for a white piece on `sq`.
#[rustfmt::skip]
const PST_MG: [[i32; 64]; 6] = [
    // pawn
    [  0,   0,   0,   0,   0,   0,   0,   0,
      66,  69,  46,  63,  55,  44,  68,  68,
      31,  28,  12,  34,  40,  33,  18,  14,
      17,  16,  33,  19,  30,   8,   3, -18,
       6,   3,   8,  35,  29,  10, -11,  -5,
       9,   2,   4,  10,   9,   7,   6,  -5,
       2,  14,  11,  -6, -16,  18,   9,  -4,
       0,   0,   0,   0,   0,   0,   0,   0],
    // knight
    [-74, -40, -31, -31, -29, -31, -40, -70,
     -46, -23,   9,   2,  -6,   7, -23, -44,
     -26,  12,  19,  27,  29,   7,  22, -27,
     -21,   6,   3,  21,  23,  18,  11, -24,
     -34,  13,   3,  14,  11,   0,   4, -17,
     -14, -13,  -2,  14,   7,   9,  -1, -13,
     -40, -29,  -2,  -3,   2,   3,  -5, -26,
     -59, -21, -26, -30, -16, -28, -19, -61],
    // bishop
    [-18, -12, -11,  -8, -11, -10, -13, -19,
      -8, -14, -11,   1,   5,   4,   4, -18,
     -15,  -1,   7,  12,   1,   7,  -8,  -2,
      -1,  -6,  13,  16,  22,  -1,   4,  -9,
     -17,   2,   3,  16,  12,  -5, -15,  -4,
       3,  27,   6,   3,   3,  15,   7, -17,
       9,   2,  -3,   1,  11,   8,  11,  -5,
     -22, -16,  -5,   0, -21,  -7,  -8, -25],
    // rook
    [  5,  12,   7,  11,  14,  10,  10,   3,
       8,  22,  22,  15,  23,  17,   5,  13,
       3,   2,   8,  10,  14,   5,   8, -10,
      -7,   3,   5,  10,   0,  -3,   4, -14,
      -9,  -4,  -4,  -2,  -5,  -9,   2,  -7,
     -22,  13,  -8,  -5,   1,   1,  -9,   8,
      -8,  14,   9,  -8,   7,  13,  -1, -17,
      -7,  -5,   2,  10,  15,  15, -19,  -9],
    // queen
    [-16, -14, -11,  -9,  -4, -11,  -9,  -8,
     -13,  -9,  -6,   7,   0,   4,  11,  -5,
     -13, -12,  -2,   1,   4,   5,   6, -11,
       0,  -9,  -4,   1,   3,   0,   5, -10,
     -11,   2,  11,  -3,   2,   0,   6,  20,
     -18,   0,   9,  -2,   3,   3,   4, -19,
      -2,   4,  10,   3,   4,  11,  10,  -9,
     -18,  -7, -10,  -1,  -2, -11, -13, -16],
    // king
    [-30, -39, -39, -48, -49, -39, -39, -30,
     -29, -39, -39, -49, -49, -39, -38, -30,
     -31, -38, -39, -49, -50, -39, -38, -29,
     -31, -38, -37, -52, -54, -40, -38, -30,
     -22, -27, -29, -37, -34, -26, -32, -18,
     -11, -20, -27, -24,  -9, -22, -12, -12,
      18,   8,   5, -21, -21,  10,  14,  23,
      11,  23,  20, -16,   7,  -1,  23,  33],
];

#[rustfmt::skip]
const PST_EG: [[i32; 64]; 6] = [
    // pawn
    [  0,   0,   0,   0,   0,   0,   0,   0,
     124, 110, 111, 106,  92, 108, 123, 102,
      82,  70,  54,  43,  22,  70,  59,  58,
      44,  19,  15,  13,  11,  18,  38,  41,
      35,   7,   2,  10,   5,  14,  22,  20,
      14,   4,  15,   9,  17,  -4,   3,   2,
      13,   7,   8, -15,  18,   0,  10,   1,
       0,   0,   0,   0,   0,   0,   0,   0],
    // knight
    [-59, -43, -31, -30, -29, -30, -40, -56,
     -37, -21,   6,  -3,  -7,   2, -26, -37,
     -27,  -2,  18,  15,   2,  17,   5, -29,
     -21,  15,  18,  26,  21,  22,   7, -32,
     -32,  10,  19,  12,  12,  14,  -2, -29,
     -28,  11,  -7,  17,  21,  -6,  -9, -20,
     -37, -26,  -4,  -2,  -6,   2, -13, -36,
     -51, -46, -30, -24, -26, -28, -36, -50],
    // bishop
    [-16, -13, -11, -10, -14, -14, -12, -16,
     -13,   4,   7,   5,   4,   0,  -6,  -1,
     -19,  14,  12,  13,   8,   7,  -1,  -8,
      -6,   1,  12,  11,  -3,  12,  -7, -12,
      -7,   4,  14,  13, -11,  12,   6, -15,
      -1,  17,   7,  15,  17,   5,  -4,   2,
      -6,  13,  -5,  -9,   8,  -1,  -3,  -9,
     -18, -13, -20, -11, -17, -16,  -2, -13],
    // rook
    [ 13,  16,   5,  14,  18,  14,   9,  14,
      10,  11,   6,  12,  12,   7,   2,  13,
      13,   7,  10,  15,  16,   8,   8,  12,
       5,   7,   1,   5,   0,   2,  -2,   3,
       1,   3,   1,  -1,   2,   3,  -5,  11,
      -8,   2,   4,  -3,  -4,  -8,   1,   2,
       6,  -2, -11,   0,   4,  -4,  -7,   9,
      -7,   0,  -8,  -9,  -5, -15, -11,  -2],
    // queen
    [ -5, -10,  -6,  -7,  -4,  -5,  -4, -10,
      -2,  -2,   2,   8,   5,  11,   6,  -4,
      -1,   3,   9,  10,   8,  11,   9,  -3,
      -2,   5,  10,  14,  16,  11,   6,  -4,
     -12,   5,  16,  22,  12,  12,   7,   0,
      -7,   2,  12,  10,   4,  11,  -1,  -5,
      -7,   1,  -4,  10,   6,   8,   3,  -5,
      -8,  -9,  -5, -12,  -6,  -3,  -6,  -9],
    // king
    [-53, -31, -16, -17, -16, -18, -26, -49,
     -31,  -6,   3,  14,  12,   9,   4, -27,
     -22,   9,  29,  23,  37,  35,  15, -15,
     -23,  11,  27,  18,  18,  30,  20, -15,
     -22,   8,  20,  23,  33,  29,  11, -13,
     -20,   3,  10,  22,  23,  20,   6, -18,
     -36, -13,  -2,   9,   5,   8,  -6, -31,
     -52, -32, -18, -26, -37, -29, -31, -50],
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
    /// Attack units per knight, bishop, rook, queen hitting the enemy king zone.
    pub king_attack: [i32; 4],
}

pub const DEFAULT_WEIGHTS: Weights = Weights {
    mobility: [S(5, -1), S(5, 3), S(4, 1), S(2, 7)],
    passed: [
        S(0, 0),
        S(12, 5),
        S(6, 18),
        S(-8, 36),
        S(17, 56),
        S(32, 67),
        S(60, 86),
        S(0, 0),
    ],
    isolated: S(-8, -14),
    doubled: S(-16, -18),
    rook_open_file: S(34, 2),
    rook_semi_open_file: S(16, 20),
    bishop_pair: S(32, 56),
    king_shield: S(17, -3),
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
    /// Number of parameters.
    pub const COUNT: usize = KING_SHIELD + 1;
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
    let (_, pw) = side_terms(pos, Color::White, w, &mut t);
    let (_, pb) = side_terms(pos, Color::Black, w, &mut t);
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

/// Interaction-free terms of one side: material, tables, mobility, pawns,
/// rooks, bishop pair, king safety. Returns (score, phase contribution).
fn side_terms<V: Variant, T: Trace>(
    pos: &Position<V>,
    color: Color,
    w: &Weights,
    t: &mut T,
) -> (S, i32) {
    let occ = pos.occupied();
    let own_pawns = pos.by_piece(color.pawn());
    let their_pawns = pos.by_piece((!color).pawn());
    let safe = !pos.by_color(color) & !pawn_attacks_of(their_pawns, !color);
    let enemy_king_zone = match pos.king_of(!color) {
        Some(k) => attacks::king_attacks(k).with(k),
        None => Bitboard::EMPTY,
    };
    let (material_mg, material_eg, pst_mg, pst_eg) = tables::<V>();
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
    }
    // King attack: quadratic in attack units, only with two or more attackers.
    if attackers >= 2 {
        let attack = S(attack_units * attack_units / 4, attack_units);
        score += attack;
        t.fixed(color, attack);
    }
    (score, phase)
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
    let (white, pw) = side_terms(pos, Color::White, w, &mut NoTrace);
    let (black, pb) = side_terms(pos, Color::Black, w, &mut NoTrace);
    let mut total = white;
    total -= black;
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
        king_attack: [2, 2, 3, 5],
    };
}
