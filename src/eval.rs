//! Static evaluation: tapered (middlegame/endgame) material and piece-square
//! tables shared by every variant, plus the variant's own terms
//! ([`Variant::evaluate`]). Scores are centipawns from the side to move's view.

use shakmaty::{attacks, Bitboard, Color, File, Role, Square};

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
    w.mobility.copy_from_slice(&p[param::MOBILITY..param::MOBILITY + 4]);
    w.passed.copy_from_slice(&p[param::PASSED..param::PASSED + 8]);
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
fn front_span(sq: Square, color: Color) -> Bitboard {
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
    let mut score = S(0, 0);
    let mut phase = 0;
    let mut attack_units = 0;
    let mut attackers = 0;
    for (i, role) in Role::ALL.into_iter().enumerate() {
        for sq in pos.by_piece(role.of(color)) {
            let idx = table_index(sq, color);
            score += S(
                MATERIAL_MG[i] + PST_MG[i][idx],
                MATERIAL_EG[i] + PST_EG[i][idx],
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
    }
    let phase = phase.min(24);
    (mg * phase + eg * (24 - phase)) / 24
}

/// The full evaluation from the side to move's view. `variant_terms` is the UCI
/// option `VariantEval`: off, only the shared terms count (to measure the
/// variant's terms by matches).
#[inline]
pub fn evaluate<V: Variant>(pos: &Position<V>, variant_terms: bool) -> i32 {
    evaluate_with(pos, variant_terms, &DEFAULT_WEIGHTS)
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
