//! Move ordering: TT move, then noisy moves by MVV-LVA (the variant's
//! `gain_estimate`, which counts conversions, missiles and subversions), then
//! killers, then quiet moves by history.

use shakmaty::Color;

use crate::moves::Move;
use crate::position::Position;
use crate::variants::{value_of, Variant};

pub const MAX_PLY: usize = 128;

const TT_MOVE: i32 = 1 << 30;
const NOISY: i32 = 1 << 28;
const KILLER_1: i32 = 1 << 27;
const KILLER_2: i32 = KILLER_1 - 1;

/// Killers per ply and a butterfly history per colour.
pub struct Heuristics {
    pub killers: Vec<[Move; 2]>,
    history: Vec<i32>,
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            killers: vec![[Move::NULL; 2]; MAX_PLY + 2],
            history: vec![0; 2 * 64 * 64],
        }
    }
}

impl Heuristics {
    #[inline]
    fn history_index(color: Color, mv: Move) -> usize {
        (color as usize) << 12 | (mv.from as usize) << 6 | mv.to as usize
    }

    pub fn history(&self, color: Color, mv: Move) -> i32 {
        self.history[Self::history_index(color, mv)]
    }

    /// Rewards the quiet move that caused a cutoff and punishes the quiet moves
    /// tried before it (history gravity keeps values bounded).
    pub fn update_quiet(
        &mut self,
        color: Color,
        ply: usize,
        best: Move,
        tried: &[Move],
        depth: i32,
    ) {
        let bonus = (depth * depth).min(1200);
        if ply < self.killers.len() && self.killers[ply][0] != best {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = best;
        }
        self.add(color, best, bonus);
        for &mv in tried {
            if mv != best {
                self.add(color, mv, -bonus);
            }
        }
    }

    fn add(&mut self, color: Color, mv: Move, bonus: i32) {
        let h = &mut self.history[Self::history_index(color, mv)];
        *h += bonus - *h * bonus.abs() / 16384;
    }

    /// Halves history between searches so old knowledge fades.
    pub fn age(&mut self) {
        for h in &mut self.history {
            *h /= 2;
        }
        for k in &mut self.killers {
            *k = [Move::NULL; 2];
        }
    }
}

/// Ordering scores for `moves` (same order), higher first.
pub fn score_moves<V: Variant>(
    pos: &Position<V>,
    moves: &[Move],
    tt_fp: u32,
    heur: &Heuristics,
    ply: usize,
    scores: &mut Vec<i32>,
) {
    scores.clear();
    let killers = heur.killers.get(ply).copied().unwrap_or([Move::NULL; 2]);
    for &mv in moves {
        let s = if tt_fp != 0 && super::tt::move_fingerprint(mv) == tt_fp {
            TT_MOVE
        } else if V::is_noisy(pos, mv) {
            let attacker = pos.role_at(mv.from).map_or(0, value_of);
            NOISY + V::gain_estimate(pos, mv) * 16 - attacker / 10
        } else if mv == killers[0] {
            KILLER_1
        } else if mv == killers[1] {
            KILLER_2
        } else {
            heur.history(pos.turn(), mv)
        };
        scores.push(s);
    }
}

/// Selection sort step: swaps the best remaining move to index `i`.
#[inline]
pub fn pick_next(moves: &mut [Move], scores: &mut [i32], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    scores.swap(i, best);
}
