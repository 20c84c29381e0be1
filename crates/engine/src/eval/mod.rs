//! Static evaluation: tapered (middlegame/endgame) material and piece-square
//! tables shared by every variant, plus the variant's own terms
//! ([`Policy::evaluate`], one file per variant here). Scores are centipawns from the side to move's view.
//!
//! Material, piece-square tables and [`DEFAULT_WEIGHTS`] (all but `king_attack`)
//! are fitted to games by Texel tuning (`turncoat tune`, `crates/tools/src/tune.rs`);
//! `docs/TRAINING.md` records each fit (data, commands, error, matches).

mod andernach;
mod attending_pawns;
mod chess;
mod cowardly_crew;
mod cruise_pawns;
mod pacifist;
mod subversion;

use shakmaty::{attacks, Bitboard, Color, File, Role, Square};

use crate::policy::Policy;
use turncoat_rules::bitboards::{pawn_attacks, FILE_A, FILE_H};
use turncoat_rules::position::Position;

/// Middlegame and endgame material.
const MATERIAL_MG: [i32; 6] = [60, 352, 370, 460, 1015, 0];
const MATERIAL_EG: [i32; 6] = [62, 250, 253, 464, 898, 0];

/// Game phase weight per role (24 = full middlegame material).
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Piece-square tables from White's view, a8 first (read like a board diagram),
/// so `TABLE[sq ^ 56]` is the value for a white piece on `sq`.
#[rustfmt::skip]
const PST_MG: [[i32; 64]; 6] = [
    // pawn
    [  0,   0,   0,   0,   0,   0,   0,   0,
      75,  59,  34,  80,  57,  39,  57, 111,
      34,  26, -14,  31,  62,  42,  -1,  33,
      16,  27,  22,  20,  34,  20,   5, -13,
       6,   2,  14,  27,  22,   9,  -8,  -7,
      -1,   2,   0,  -5,   0,   0,   5, -10,
       4,   1,  15,   1,  -9,  16,   6,  -8,
       0,   0,   0,   0,   0,   0,   0,   0],
    // knight
    [-116, -38, -35, -33, -26, -35, -39, -94,
     -63, -37,  -3,  -2, -19,   6, -31, -56,
     -11,   5,  10,  22,  36, -16,  37, -16,
      -7,  -6, -16,  17,  25,  15,  20,  -2,
     -20,   9,  -1,   5,  20,   5,   2,   1,
     -13, -15, -12,   1,   1,  15,  10, -13,
     -44, -36,  -4,  10,   6,   1,  20,  18,
     -51, -22,  -7, -40,  10, -10, -22, -64],
    // bishop
    [ -9, -17, -12,  -7, -10, -11, -23, -12,
     -16, -48, -40,   1,  16,   5,   5, -30,
      -5, -14,  -1,  19, -14,   6,  -8,  22,
       3,   3,  27,   9,  39,  -8,  24,  -2,
     -28,   6,  -1,  13,  22,   2, -27,   0,
       5,  21,  10,   4,   4,  10,  21, -25,
      44,   3,  -9,   4,   1,  15,  13,   6,
     -35, -22,  -7,  19, -31, -15, -18, -16],
    // rook
    [  9,  13,  10,  15,  21,   8,  11,  -8,
      11,  11,  28,   2,  35,  13, -27,  11,
       1,   3,  19,  26,  51,  21,  38, -17,
      -7,  -3,   6,  16,   3,   2,  10, -20,
     -12,  -6,  -3,  -2,  -8, -27,  19, -21,
     -44,  -7, -17, -16,  18,  12,  -6, -20,
     -20, -11,  24, -22,  10,  24,  -5, -46,
      -6,   4,   3,  18,  18,  20,  -8,  -5],
    // queen
    [-13, -17,  -9, -13,   5,  -7,  -2,  22,
     -33, -34, -19,  22,   3,   4,  21,  16,
     -19, -33,  -8,   8,   6,   3,   7,   4,
     -11, -21, -26,  -3,  -6,  -6,   8,   1,
      -9,  -1,  -3, -12,  -4,   0,  17,  25,
     -28,   5,  -2, -11,  12,  14,  17, -33,
      -7, -12,  12,   9,   8,  16,  15,  -2,
     -36, -12, -16,   9,  12, -13,  -6,  -8],
    // king
    [-30, -35, -35, -42, -46, -35, -36, -31,
     -28, -35, -35, -45, -45, -34, -32, -30,
     -35, -35, -38, -46, -51, -44, -37, -25,
     -32, -39, -27, -52, -62, -44, -35, -31,
     -26, -21, -25, -31, -25, -17, -34, -20,
     -15, -17, -43, -35,  -8, -33,   7, -15,
      21,  -9,  18, -30, -28,   2,   2,  21,
      -9,  36,  26, -25,  17,  -8,  32,  24],
];

#[rustfmt::skip]
const PST_EG: [[i32; 64]; 6] = [
    // pawn
    [  0,   0,   0,   0,   0,   0,   0,   0,
      85, 101, 134, 124, 119, 115, 128,  18,
      46,  33,  59,  46,  36,  60,  56,  26,
      25,   7,  12,  11,  19,  20,  34,  32,
      32,  15,   7,   4,  14,  20,  28,  25,
      20,  13,  15,  16,  18,  13,  10,   9,
      19,  15,   9, -13,  19,  18,  20,  17,
       0,   0,   0,   0,   0,   0,   0,   0],
    // knight
    [-84, -45, -31, -30, -21, -29, -40, -63,
     -23, -10,   5,  -1,   2,  13, -33, -25,
     -18,  -5,  16,  10,  -8,   8,  17, -18,
      -6,   6,  27,  17,  20,  21,   3, -36,
     -21,  20,  13,   3,   0,  16, -13, -21,
     -22,  13,  -3,  21,  10, -14, -20, -26,
     -34, -39, -12, -18, -18, -17, -10, -23,
     -48, -48, -26, -22, -25, -16, -30, -55],
    // bishop
    [-17, -18, -15,  -7, -20, -19, -17, -16,
     -21,  15,  32,  10,   7,   2, -16,  15,
     -23,  12,   7,  14,  14,  20,  -5,  -1,
       0,  -4,  11,  10, -15,   0,  -6,  -6,
       0,   5,  12,  -1, -30,  13,  23, -21,
     -10,  14,   5,   6,  11,  14,  -9,  23,
     -15,   3, -13, -13,   7, -10, -15,  -4,
     -27, -10, -16,  -3, -16, -22,   0,  -7],
    // rook
    [ 10,   9,  11,  14,  13,  10,   9,  14,
      16,  15,   4,  29,  15,  10,  15,  13,
       9,  11,   9,  16,  11,  12,   8,  22,
      11,  11,   7,   7,   3,  10,  -3,   1,
       4,   8,  -1,   9,   5,  10, -10,   6,
      -8,  -3,  10,  -3, -15, -19,  -3,  -5,
      -7,  -3, -27,  -6, -15, -23, -18,  -3,
      -9, -13,  -8, -13, -15, -17,  -5,  -9],
    // queen
    [  4, -19,  -7,  -7,   4,   1,   3,  -8,
      -6,  -3,   1,  12,   6,  23,  13,  -3,
       1,   0,  12,  20,   7,  16,  16,   3,
      -2,  16,  10,  11,  24,  19,  16,   2,
     -32,  11,  29,  33,   5,  20,  15,   5,
     -10,  -9,   1,  12, -14,   0, -19,  -6,
     -15,   0, -31,   0,  -7,  -3,  -5,  -5,
     -10, -29,  -4, -39, -11,   3,  -6,  -9],
    // king
    [-66, -23,  -3,  -9,  -1,  -1, -17, -53,
     -32,   1,  14,  33,  22,  32,  34, -26,
     -28,  23,  31,  19,  15,  17,  22, -13,
     -23,  13,  17,   5,   7,  17,  19,  -7,
     -27,  10,  17,   7,  14,   8,   9, -11,
     -23,   7,   4,  11,   5,  15,  -1, -29,
     -46, -14, -12,  10,   3,   4,   2, -33,
     -42, -30, -23, -18, -35, -23, -25, -34],
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
    /// A passed pawn whose next square is occupied, times its relative rank
    /// above the third.
    pub passed_blocked: S,
    /// Per file of the king's and the adjacent ones without an own pawn.
    pub king_open_files: S,
    /// A knight or bishop on the fourth to sixth rank, defended by an own pawn,
    /// that no enemy pawn can ever attack.
    pub outpost: S,
    /// Per square from which a knight, bishop, rook, queen could check the
    /// enemy king next move and that the enemy does not guard.
    pub safe_check: [S; 4],
    /// Tuned on top of the fixed quadratic king attack: per `units^2 / 16` and
    /// per unit (only with two or more attackers).
    pub king_attack_quad: S,
    pub king_attack_lin: S,
    /// Per enemy pawn on the king's file or an adjacent one, on the third to
    /// fifth rank from our side: a storm about to open the king.
    pub pawn_storm: S,
    /// Attack units per knight, bishop, rook, queen hitting the enemy king zone.
    pub king_attack: [i32; 4],
}

pub const DEFAULT_WEIGHTS: Weights = Weights {
    mobility: [S(8, -1), S(6, 3), S(5, 1), S(3, 1)],
    passed: [
        S(0, 0),
        S(8, 15),
        S(4, 20),
        S(-13, 35),
        S(3, 57),
        S(22, 78),
        S(91, 32),
        S(0, 0),
    ],
    isolated: S(-6, -9),
    doubled: S(-8, -8),
    rook_open_file: S(54, -14),
    rook_semi_open_file: S(20, 13),
    bishop_pair: S(29, 64),
    king_shield: S(14, -12),
    supported: S(17, 5),
    phalanx: S(9, 1),
    passed_own_king: S(4, -8),
    passed_their_king: S(-4, 13),
    threat_by_pawn: S(46, 10),
    threat_by_minor: S(33, 1),
    threat_by_rook: S(50, 7),
    hanging: S(5, 20),
    passed_blocked: S(-10, -8),
    king_open_files: S(-10, -13),
    outpost: S(22, 13),
    king_attack_quad: S(0, -2),
    king_attack_lin: S(2, -2),
    pawn_storm: S(0, 3),
    safe_check: [S(45, -11), S(12, 13), S(63, -15), S(30, 1)],
    king_attack: [2, 2, 3, 5],
};

const MOBILITY_CENTER: [i32; 4] = [4, 6, 6, 12];
/// Bonus for the side to move (added after tapering).
pub const TEMPO: i32 = 10;
/// The same with the hand-set tables of the variants, whose developing moves
/// gain more: a move from the start position gains about 60-90 cp of table
/// value, so with 10 the score swung between odd and even depths (Cowardly
/// Crew +0.76, +0.10, +0.66, +0.10 at depths 1-4). 35 sits in the middle of
/// that gain (about +0.35-0.45 at every depth); a side-to-move bonus barely
/// changes which move is chosen.
pub const HAND_SET_TEMPO: i32 = 35;

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
    pub const PASSED_BLOCKED: usize = HANGING + 1;
    pub const KING_OPEN_FILES: usize = PASSED_BLOCKED + 1;
    pub const OUTPOST: usize = KING_OPEN_FILES + 1;
    /// `Weights::safe_check[piece]`.
    pub const SAFE_CHECK: usize = OUTPOST + 1;
    /// Number of parameters.
    pub const KING_ATTACK_QUAD: usize = SAFE_CHECK + 4;
    pub const KING_ATTACK_LIN: usize = KING_ATTACK_QUAD + 1;
    pub const PAWN_STORM: usize = KING_ATTACK_LIN + 1;
    pub const COUNT: usize = PAWN_STORM + 1;
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
pub fn trace<V: Policy>(pos: &Position<V>, w: &Weights) -> EvalTrace {
    let mut t = EvalTrace {
        white_to_move: pos.turn() == Color::White,
        ..EvalTrace::default()
    };
    t.phase = both_sides(pos, w, tables::<V>(), &mut t).1;
    t.compact();
    t
}

/// The single-pair fields of [`Weights`], each with its name and parameter
/// index, in declaration order: the one list that [`params_of`],
/// [`weights_of`] and the tuner's printer go through.
#[rustfmt::skip]
pub fn scalar_weights(w: &mut Weights) -> [(&'static str, usize, &mut S); 20] {
    [
        ("isolated", param::ISOLATED, &mut w.isolated),
        ("doubled", param::DOUBLED, &mut w.doubled),
        ("rook_open_file", param::ROOK_OPEN_FILE, &mut w.rook_open_file),
        ("rook_semi_open_file", param::ROOK_SEMI_OPEN_FILE, &mut w.rook_semi_open_file),
        ("bishop_pair", param::BISHOP_PAIR, &mut w.bishop_pair),
        ("king_shield", param::KING_SHIELD, &mut w.king_shield),
        ("supported", param::SUPPORTED, &mut w.supported),
        ("phalanx", param::PHALANX, &mut w.phalanx),
        ("passed_own_king", param::PASSED_OWN_KING, &mut w.passed_own_king),
        ("passed_their_king", param::PASSED_THEIR_KING, &mut w.passed_their_king),
        ("threat_by_pawn", param::THREAT_BY_PAWN, &mut w.threat_by_pawn),
        ("threat_by_minor", param::THREAT_BY_MINOR, &mut w.threat_by_minor),
        ("threat_by_rook", param::THREAT_BY_ROOK, &mut w.threat_by_rook),
        ("hanging", param::HANGING, &mut w.hanging),
        ("passed_blocked", param::PASSED_BLOCKED, &mut w.passed_blocked),
        ("king_open_files", param::KING_OPEN_FILES, &mut w.king_open_files),
        ("outpost", param::OUTPOST, &mut w.outpost),
        ("king_attack_quad", param::KING_ATTACK_QUAD, &mut w.king_attack_quad),
        ("king_attack_lin", param::KING_ATTACK_LIN, &mut w.king_attack_lin),
        ("pawn_storm", param::PAWN_STORM, &mut w.pawn_storm),
    ]
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
    let mut w = w.clone();
    for (_, index, value) in scalar_weights(&mut w) {
        p[index] = *value;
    }
    p[param::SAFE_CHECK..param::SAFE_CHECK + 4].copy_from_slice(&w.safe_check);
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
    for (_, index, value) in scalar_weights(&mut w) {
        *value = p[index];
    }
    w.safe_check
        .copy_from_slice(&p[param::SAFE_CHECK..param::SAFE_CHECK + 4]);
    w
}

#[inline]
fn table_index(sq: Square, color: Color) -> usize {
    match color {
        Color::White => sq as usize ^ 56,
        Color::Black => sq as usize,
    }
}

const RANK_1: Bitboard = Bitboard(0xff);

/// Each square of `b` one file towards h (nothing wraps round the edge).
#[inline]
fn east(b: Bitboard) -> Bitboard {
    Bitboard((b.0 & !FILE_H) << 1)
}

/// Each square of `b` one file towards a (nothing wraps round the edge).
#[inline]
fn west(b: Bitboard) -> Bitboard {
    Bitboard((b.0 & !FILE_A) >> 1)
}

/// The squares beside (same rank, adjacent file) any square of `b`.
#[inline]
fn beside(b: Bitboard) -> Bitboard {
    east(b) | west(b)
}

/// `b` with every square north of its squares.
#[inline]
fn north_fill(b: u64) -> u64 {
    let b = b | b << 8;
    let b = b | b << 16;
    b | b << 32
}

/// `b` with every square south of its squares.
#[inline]
fn south_fill(b: u64) -> u64 {
    let b = b | b >> 8;
    let b = b | b >> 16;
    b | b >> 32
}

/// The whole files of the squares of `b`.
#[inline]
fn file_fill(b: Bitboard) -> Bitboard {
    Bitboard(south_fill(north_fill(b.0)))
}

/// The squares that have a square of `b` strictly ahead of them on their file,
/// ahead as `color` sees it. With the enemy pawns, a square outside this set
/// and the [`beside`] set of it has an empty [`front_span`].
#[inline]
fn behind(b: Bitboard, color: Color) -> Bitboard {
    Bitboard(match color {
        Color::White => south_fill(b.0 >> 8),
        Color::Black => north_fill(b.0 << 8),
    })
}

/// Ranks `first..=last`, numbered 1-8 from `color`'s own side.
#[inline]
fn relative_ranks(color: Color, first: u32, last: u32) -> Bitboard {
    let white = (first..=last).fold(0u64, |b, r| b | RANK_1.0 << (8 * (r - 1)));
    Bitboard(match color {
        Color::White => white,
        // One byte per rank: reversing the bytes mirrors the board.
        Color::Black => white.swap_bytes(),
    })
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
    /// Per knight, bishop, rook, queen.
    by_piece: [Bitboard; 4],
}

/// Interaction-free terms of one side: material, tables, mobility, pawns,
/// rooks, bishop pair, king safety. `pawn_attacks` are the squares the two
/// sides' pawns attack, by colour. Returns (score, phase contribution, the
/// side's attacks).
///
/// Terms that only ask which squares hold what (pawn structure, outposts,
/// rook files) are counted on whole bitboards; only the tables, the piece
/// attacks and the rare passed pawns go square by square.
#[inline(always)]
fn side_terms<V: Policy, T: Trace>(
    pos: &Position<V>,
    color: Color,
    pawn_attacks: [Bitboard; 2],
    w: &Weights,
    values: &PieceValues,
    t: &mut T,
) -> (S, i32, Attacks) {
    let occ = pos.occupied();
    let own_pawns = pos.by_piece(color.pawn());
    let their_pawns = pos.by_piece((!color).pawn());
    let own_pawn_attacks = pawn_attacks[color as usize];
    let safe = !pos.by_color(color) & !pawn_attacks[!color as usize];
    let enemy_king_zone = match pos.king_of(!color) {
        Some(k) => attacks::king_attacks(k).with(k),
        None => Bitboard::EMPTY,
    };
    let mut seen = Attacks {
        all: own_pawn_attacks,
        pawns: own_pawn_attacks,
        ..Attacks::default()
    };
    let own_king = pos.king_of(color);
    let their_king = pos.king_of(!color);
    let mut score = S(0, 0);
    let mut phase = 0;
    for (i, role) in Role::ALL.into_iter().enumerate() {
        for sq in pos.by_piece(role.of(color)) {
            let idx = table_index(sq, color);
            score += values[i][idx];
            t.add(color, param::MATERIAL + i, 1);
            t.add(color, param::PST + 64 * i + idx, 1);
            phase += PHASE[i];
        }
    }

    let mut attack_units = 0;
    let mut attackers = 0;
    // One pass per kind of piece, each with its own attack lookup: a loop
    // over the kinds would choose the lookup piece by piece (a jump table in
    // the WebAssembly build, where it also kept `seen` in memory).
    let mut mobility = |piece: usize, att: Bitboard| {
        seen.all |= att;
        seen.by_piece[piece] |= att;
        let mob = (att & safe).count() as i32 - MOBILITY_CENTER[piece];
        score += w.mobility[piece] * mob;
        t.add(color, param::MOBILITY + piece, mob);
        if (att & enemy_king_zone).any() {
            attack_units += w.king_attack[piece] * (att & enemy_king_zone).count() as i32;
            attackers += 1;
        }
    };
    for sq in pos.by_piece(color.knight()) {
        mobility(0, attacks::knight_attacks(sq));
    }
    for sq in pos.by_piece(color.bishop()) {
        mobility(1, attacks::bishop_attacks(sq, occ));
    }
    for sq in pos.by_piece(color.rook()) {
        mobility(2, attacks::rook_attacks(sq, occ));
    }
    for sq in pos.by_piece(color.queen()) {
        mobility(3, attacks::queen_attacks(sq, occ));
    }

    // Pawn structure. A pawn is passed when no enemy pawn stands ahead of it on
    // its file or an adjacent one.
    let own_files = file_fill(own_pawns);
    let their_files = file_fill(their_pawns);
    let enemy_ahead = behind(their_pawns, color);
    let enemy_ahead_beside = beside(enemy_ahead);
    for sq in own_pawns & !enemy_ahead & !enemy_ahead_beside {
        let rank = color.relative_rank(sq.rank()) as usize;
        score += w.passed[rank];
        t.add(color, param::PASSED + rank, 1);
        let scale = rank.saturating_sub(2) as i32;
        let ahead = if color == Color::White { 8 } else { -8 };
        if let Some(front) = sq.offset(ahead).filter(|_| scale > 0) {
            if occ.contains(front) {
                score += w.passed_blocked * scale;
                t.add(color, param::PASSED_BLOCKED, scale);
            }
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
    // Knights and bishops on the fourth to sixth rank.
    let outpost_ranks = relative_ranks(color, 4, 6);
    let minors = pos.by_piece(color.knight()) | pos.by_piece(color.bishop());
    let rooks = pos.by_piece(color.rook());
    let counted = [
        (own_pawns & own_pawn_attacks, w.supported, param::SUPPORTED),
        (own_pawns & beside(own_pawns), w.phalanx, param::PHALANX),
        (own_pawns & !beside(own_files), w.isolated, param::ISOLATED),
        (
            own_pawns & behind(own_pawns, color),
            w.doubled,
            param::DOUBLED,
        ),
        (
            minors & outpost_ranks & own_pawn_attacks & !enemy_ahead_beside,
            w.outpost,
            param::OUTPOST,
        ),
        (
            rooks & !own_files & !their_files,
            w.rook_open_file,
            param::ROOK_OPEN_FILE,
        ),
        (
            rooks & !own_files & their_files,
            w.rook_semi_open_file,
            param::ROOK_SEMI_OPEN_FILE,
        ),
    ];
    for (set, weight, index) in counted {
        let n = set.count() as i32;
        score += weight * n;
        t.add(color, index, n);
    }

    if pos.by_piece(color.bishop()).more_than_one() {
        score += w.bishop_pair;
        t.add(color, param::BISHOP_PAIR, 1);
    }
    if let Some(k) = own_king {
        // Shield: own pawns one or two ranks in front of the king, on its file
        // and the adjacent ones.
        let near = Bitboard::from_rank(k.rank()).shift(if color == Color::White { 8 } else { -8 })
            | Bitboard::from_rank(k.rank()).shift(if color == Color::White { 16 } else { -16 });
        let shield = front_span(k, color) & near & own_pawns;
        let n = shield.count().min(3) as i32;
        score += w.king_shield * n;
        t.add(color, param::KING_SHIELD, n);
        // Files of the king and beside it without an own pawn.
        let king_files = file_fill(Bitboard::from_square(k));
        let king_files = king_files | beside(king_files);
        let open = (king_files & !own_files & RANK_1).count() as i32;
        score += w.king_open_files * open;
        t.add(color, param::KING_OPEN_FILES, open);
        // Their pawns on the king's files, third to fifth rank from our side.
        let storm = (king_files & relative_ranks(color, 3, 5) & their_pawns).count() as i32;
        score += w.pawn_storm * storm;
        t.add(color, param::PAWN_STORM, storm);
        seen.all |= attacks::king_attacks(k);
    }
    // King attack: quadratic in attack units, only with two or more attackers.
    if attackers >= 2 {
        let attack = S(attack_units * attack_units / 4, attack_units);
        score += attack;
        t.fixed(color, attack);
        let quad = attack_units * attack_units / 16;
        score += w.king_attack_quad * quad;
        score += w.king_attack_lin * attack_units;
        t.add(color, param::KING_ATTACK_QUAD, quad);
        t.add(color, param::KING_ATTACK_LIN, attack_units);
    }
    (score, phase, seen)
}

/// What `color`'s attacks threaten: enemy pieces attacked by a lesser piece,
/// and enemy pieces attacked and not defended.
#[inline(always)]
fn threats<V: Policy, T: Trace>(
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
    let [knights, bishops, rooks, _] = ours.by_piece;
    let targets = [
        (ours.pawns & pieces, w.threat_by_pawn, param::THREAT_BY_PAWN),
        (
            (knights | bishops) & majors,
            w.threat_by_minor,
            param::THREAT_BY_MINOR,
        ),
        (rooks & queens, w.threat_by_rook, param::THREAT_BY_ROOK),
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
    if let Some(k) = pos.king_of(!color) {
        let occ = pos.occupied();
        let safe = !pos.by_color(color) & !theirs.all;
        let diagonal = attacks::bishop_attacks(k, occ);
        let straight = attacks::rook_attacks(k, occ);
        let from = [
            attacks::knight_attacks(k),
            diagonal,
            straight,
            diagonal | straight,
        ];
        for (piece, squares) in from.into_iter().enumerate() {
            let n = (squares & ours.by_piece[piece] & safe).count() as i32;
            score += w.safe_check[piece] * n;
            t.add(color, param::SAFE_CHECK + piece, n);
        }
    }
    score
}

/// Material plus piece-square value per role and table index, middlegame and
/// endgame side by side: one lookup per piece in the evaluation.
type PieceValues = [[S; 64]; 6];

const fn piece_values(
    material_mg: &[i32; 6],
    material_eg: &[i32; 6],
    pst_mg: &[[i32; 64]; 6],
    pst_eg: &[[i32; 64]; 6],
) -> PieceValues {
    let mut out = [[S(0, 0); 64]; 6];
    let mut role = 0;
    while role < 6 {
        let mut idx = 0;
        while idx < 64 {
            out[role][idx] = S(
                material_mg[role] + pst_mg[role][idx],
                material_eg[role] + pst_eg[role][idx],
            );
            idx += 1;
        }
        role += 1;
    }
    out
}

const TUNED_PIECE_VALUES: PieceValues = piece_values(&MATERIAL_MG, &MATERIAL_EG, &PST_MG, &PST_EG);
const HAND_SET_PIECE_VALUES: PieceValues = piece_values(
    &hand_set::MATERIAL_MG,
    &hand_set::MATERIAL_EG,
    &hand_set::PST_MG,
    &hand_set::PST_EG,
);

/// Material and piece-square tables of variant `V`: Texel-tuned for standard
/// chess ([`Policy::TUNED_EVAL`]), hand-set for the others.
#[inline]
fn tables<V: Policy>() -> &'static PieceValues {
    if V::TUNED_EVAL {
        &TUNED_PIECE_VALUES
    } else {
        &HAND_SET_PIECE_VALUES
    }
}

/// The positional weights of variant `V` (the module `tables`).
#[inline]
pub fn weights_for<V: Policy>() -> &'static Weights {
    if V::TUNED_EVAL {
        &DEFAULT_WEIGHTS
    } else {
        &hand_set::WEIGHTS
    }
}

/// Both sides' terms: White's minus Black's, and the game phase (0 to 24).
#[inline(always)]
fn both_sides<V: Policy, T: Trace>(
    pos: &Position<V>,
    w: &Weights,
    values: &PieceValues,
    t: &mut T,
) -> (S, i32) {
    let pawn_attacks = [
        pawn_attacks(pos.by_piece(Color::Black.pawn()), Color::Black),
        pawn_attacks(pos.by_piece(Color::White.pawn()), Color::White),
    ];
    let (mut total, pw, white) = side_terms(pos, Color::White, pawn_attacks, w, values, t);
    let (black, pb, black_attacks) = side_terms(pos, Color::Black, pawn_attacks, w, values, t);
    total -= black;
    total += threats(pos, Color::White, &white, &black_attacks, w, t);
    total -= threats(pos, Color::Black, &black_attacks, &white, w, t);
    (total, (pw + pb).min(24))
}

/// The shared evaluation from White's view, tapered by game phase.
///
/// Counting squares (`Bitboard::count`) is a good part of the evaluation, and
/// the portable x86-64 build has no population-count instruction for it: where
/// the CPU has one, a copy of the evaluation compiled to use it (and BMI1's
/// one-instruction "clear the lowest square" for the square loops) runs instead.
pub fn shared_terms<V: Policy>(pos: &Position<V>, w: &Weights, values: &PieceValues) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") && std::arch::is_x86_feature_detected!("bmi1")
    {
        // SAFETY: the CPU has POPCNT and BMI1, as just checked.
        return unsafe { shared_terms_popcnt(pos, w, values) };
    }
    shared_terms_portable(pos, w, values)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1")]
fn shared_terms_popcnt<V: Policy>(pos: &Position<V>, w: &Weights, values: &PieceValues) -> i32 {
    shared_terms_portable(pos, w, values)
}

/// Inlined, with everything it calls, into each caller, so that the POPCNT
/// copy counts with the instruction throughout.
#[inline(always)]
fn shared_terms_portable<V: Policy>(pos: &Position<V>, w: &Weights, values: &PieceValues) -> i32 {
    let (total, phase) = both_sides(pos, w, values, &mut NoTrace);
    (total.0 * phase + total.1 * (24 - phase)) / 24
}

/// The full evaluation from the side to move's view. `variant_terms` is the UCI
/// option `VariantEval`: off, only the shared terms count (to measure the
/// variant's terms by matches).
#[inline]
pub fn evaluate<V: Policy>(pos: &Position<V>, variant_terms: bool) -> i32 {
    evaluate_with(pos, variant_terms, weights_for::<V>())
}

pub fn evaluate_with<V: Policy>(pos: &Position<V>, variant_terms: bool, w: &Weights) -> i32 {
    let tempo = if V::TUNED_EVAL { TEMPO } else { HAND_SET_TEMPO };
    evaluate_from(pos, variant_terms, w, tables::<V>(), tempo)
}

/// What a residual network's output is added to
/// ([`crate::nnue::Network::residual`]): the hand-set evaluation with the
/// variant's terms, from the side to move's view. Training and play both call
/// this, so the two agree on what the network corrects.
pub fn residual_base<V: Policy>(pos: &Position<V>) -> i32 {
    evaluate_hand_set(pos, true)
}

/// The evaluation with the hand-set values in every variant, chess's tuned
/// ones aside: those were fitted partly to Stockfish's scores (docs/TRAINING.md,
/// "The fits so far"), and a network lineage that owes nothing to another
/// engine starts from this (`datagen --hand-written`).
pub fn evaluate_hand_set<V: Policy>(pos: &Position<V>, variant_terms: bool) -> i32 {
    evaluate_from(
        pos,
        variant_terms,
        &hand_set::WEIGHTS,
        &HAND_SET_PIECE_VALUES,
        HAND_SET_TEMPO,
    )
}

#[inline(always)]
fn evaluate_from<V: Policy>(
    pos: &Position<V>,
    variant_terms: bool,
    w: &Weights,
    values: &PieceValues,
    tempo: i32,
) -> i32 {
    let mut white = shared_terms(pos, w, values);
    if variant_terms {
        white += V::evaluate(pos);
    }
    let score = if pos.turn() == Color::White {
        white
    } else {
        -white
    };
    score + tempo
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
        passed_blocked: S(0, 0),
        king_open_files: S(0, 0),
        outpost: S(0, 0),
        safe_check: [S(0, 0), S(0, 0), S(0, 0), S(0, 0)],
        king_attack_quad: S(0, 0),
        king_attack_lin: S(0, 0),
        pawn_storm: S(0, 0),
        king_attack: [2, 2, 3, 5],
    };
}
