//! Move ordering: TT move, then noisy moves by MVV-LVA (the variant's
//! `gain_estimate`, which counts conversions, missiles and subversions), then
//! killers and the counter move, then quiet moves by history: the butterfly
//! table plus the continuation tables of the last two moves.

use shakmaty::Color;

use crate::policy::Policy;
use turncoat_rules::moves::Move;
use turncoat_rules::position::Position;
use turncoat_rules::variants::value_of;

pub const MAX_PLY: usize = 128;

const TT_MOVE: i32 = 1 << 30;
const NOISY: i32 = 1 << 28;
const KILLER_1: i32 = 1 << 27;
const KILLER_2: i32 = KILLER_1 - 1;
const COUNTER: i32 = KILLER_2 - 1;
const BAD_NOISY: i32 = -(1 << 28);

/// History values stay within +/- this bound (history gravity).
const HISTORY_MAX: i32 = 16384;
const _: () = assert!(HISTORY_MAX <= i16::MAX as i32);
/// A cutoff's history bonus (and the malus of the quiet moves tried before
/// it) is `HISTORY_BONUS_MUL * depth²` ...
const HISTORY_BONUS_MUL: i32 = 16;
/// ... up to this.
const HISTORY_BONUS_MAX: i32 = 1600;
/// Noisy moves are ordered by `MVV_MUL * gain - attacker / LVA_DIVISOR`: the
/// gain first, then the cheaper attacker.
const MVV_MUL: i32 = 16;
/// See [`MVV_MUL`].
const LVA_DIVISOR: i32 = 10;

/// A moved piece and its destination, `piece * 64 + to` with `piece` in 0..12:
/// the index of the continuation tables. [`PieceTo::NONE`] after a null move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PieceTo(u16);

impl PieceTo {
    pub const NONE: PieceTo = PieceTo(u16::MAX);
    const COUNT: usize = 12 * 64;

    /// The piece is the one on `from`, or on `to` for moves that move nothing
    /// (Subversion turns the piece on `to`).
    #[inline]
    pub fn of<V: Policy>(pos: &Position<V>, mv: Move) -> PieceTo {
        let piece = pos.piece_at(mv.from).or_else(|| pos.piece_at(mv.to));
        let p = piece.map_or(0, |p| p.color as usize * 6 + (p.role as usize - 1));
        PieceTo((p * 64 + mv.to as usize) as u16)
    }
}

/// What the ordering of a node knows about the moves that led to it: the
/// previous move (for the counter move) and the last two moves' piece-to
/// (for the continuation tables).
#[derive(Copy, Clone, Debug)]
pub struct Context {
    pub prev_move: Move,
    pub prev: [PieceTo; 2],
}

impl Context {
    pub const ROOT: Context = Context {
        prev_move: Move::NULL,
        prev: [PieceTo::NONE; 2],
    };
}

/// Killers per ply, a butterfly history per colour, a counter move per colour
/// and previous move, and the continuation history (a reply's success after a
/// given piece went to a given square one or two plies before).
pub struct Heuristics {
    pub killers: Vec<[Move; 2]>,
    /// Histories are stored as i16 (gravity keeps them within
    /// +/- HISTORY_MAX) to halve the continuation table's cache footprint.
    history: Vec<i16>,
    counters: Vec<Move>,
    continuation: Vec<i16>,
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            killers: vec![[Move::NULL; 2]; MAX_PLY + 2],
            history: vec![0; 2 * 64 * 64],
            counters: vec![Move::NULL; 2 * 64 * 64],
            continuation: vec![0; PieceTo::COUNT * PieceTo::COUNT],
        }
    }
}

impl Heuristics {
    pub fn clear_killers(&mut self) {
        for k in &mut self.killers {
            *k = [Move::NULL; 2];
        }
    }

    #[inline]
    fn history_index(color: Color, mv: Move) -> usize {
        (color as usize) << 12 | (mv.from as usize) << 6 | mv.to as usize
    }

    pub fn history(&self, color: Color, mv: Move) -> i32 {
        self.history[Self::history_index(color, mv)] as i32
    }

    #[inline]
    fn continuation_index(prev: PieceTo, now: PieceTo) -> Option<usize> {
        (prev != PieceTo::NONE).then(|| prev.0 as usize * PieceTo::COUNT + now.0 as usize)
    }

    /// The quiet move's history: butterfly plus both continuation tables.
    #[inline]
    pub fn quiet_score(&self, color: Color, mv: Move, now: PieceTo, ctx: &Context) -> i32 {
        let mut s = self.history(color, mv);
        for &prev in &ctx.prev {
            if let Some(i) = Self::continuation_index(prev, now) {
                s += self.continuation[i] as i32;
            }
        }
        s
    }

    #[inline]
    fn counter_index(color: Color, prev: Move) -> usize {
        Self::history_index(color, prev)
    }

    /// Rewards the quiet move that caused a cutoff and punishes the quiet moves
    /// tried before it (history gravity keeps values bounded); the move becomes
    /// this ply's killer and the counter move to the previous move.
    pub fn update_quiet<V: Policy>(
        &mut self,
        pos: &Position<V>,
        ctx: &Context,
        ply: usize,
        best: Move,
        tried: &[Move],
        depth: i32,
    ) {
        let color = pos.turn();
        let bonus = (HISTORY_BONUS_MUL * depth * depth).min(HISTORY_BONUS_MAX);
        if ply < self.killers.len() && self.killers[ply][0] != best {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = best;
        }
        if ctx.prev_move != Move::NULL {
            self.counters[Self::counter_index(color, ctx.prev_move)] = best;
        }
        self.add(pos, ctx, best, bonus);
        for &mv in tried {
            if mv != best {
                self.add(pos, ctx, mv, -bonus);
            }
        }
    }

    fn add<V: Policy>(&mut self, pos: &Position<V>, ctx: &Context, mv: Move, bonus: i32) {
        fn gravity(h: &mut i16, bonus: i32) {
            let v = *h as i32;
            *h = (v + bonus - v * bonus.abs() / HISTORY_MAX) as i16;
        }
        gravity(
            &mut self.history[Self::history_index(pos.turn(), mv)],
            bonus,
        );
        let now = PieceTo::of(pos, mv);
        for &prev in &ctx.prev {
            if let Some(i) = Self::continuation_index(prev, now) {
                gravity(&mut self.continuation[i], bonus);
            }
        }
    }
}

/// Appends the ordering scores (higher first) of the moves not yet scored:
/// `moves[scores.len()..]`, so that a later stage of moves is scored alike.
pub fn score_moves<V: Policy>(
    pos: &Position<V>,
    moves: &[Move],
    tt_fp: u32,
    heur: &Heuristics,
    ply: usize,
    ctx: &Context,
    scores: &mut Vec<i32>,
) {
    let killers = heur.killers.get(ply).copied().unwrap_or([Move::NULL; 2]);
    let counter = if ctx.prev_move == Move::NULL {
        Move::NULL
    } else {
        heur.counters[Heuristics::counter_index(pos.turn(), ctx.prev_move)]
    };
    for &mv in &moves[scores.len()..] {
        let s = if tt_fp != 0 && super::tt::move_fingerprint(mv) == tt_fp {
            TT_MOVE
        } else if V::is_noisy(pos, mv) {
            let attacker = pos.role_at(mv.from).map_or(0, value_of);
            let mvv_lva = V::gain_estimate(pos, mv) * MVV_MUL - attacker / LVA_DIVISOR;
            // Captures that lose material by exchange go after the quiet moves.
            if V::bad_noisy(pos, mv) {
                BAD_NOISY + mvv_lva
            } else {
                NOISY + mvv_lva
            }
        } else if mv == killers[0] {
            KILLER_1
        } else if mv == killers[1] {
            KILLER_2
        } else if mv == counter {
            COUNTER
        } else {
            heur.quiet_score(pos.turn(), mv, PieceTo::of(pos, mv), ctx)
        };
        scores.push(s);
    }
}

/// Was one of the moves scored the hash move?
pub fn holds_tt_move(scores: &[i32]) -> bool {
    scores.contains(&TT_MOVE)
}

/// Was the move given this score ordered as a losing noisy move? Every move
/// after it in the picked order was too (quiet moves score far above).
pub fn ordered_as_bad_noisy(score: i32) -> bool {
    score < BAD_NOISY / 2
}

/// Selection sort step: swaps the best remaining move (the first of equals) to
/// index `i`. The maximum is found first and then its place: two loops
/// without a data-dependent branch, where one loop tracking the best index
/// mispredicted on long move lists (Attending Pawns' placements).
#[inline]
pub fn pick_next(moves: &mut [Move], scores: &mut [i32], i: usize) {
    let rest = &scores[i..];
    // A plain fold on `i32::max`: `Iterator::max` compiled to a branch per
    // element.
    let max = rest.iter().fold(i32::MIN, |m, &s| m.max(s));
    let Some(at) = rest.iter().position(|&s| s == max) else {
        return;
    };
    let best = i + at;
    moves.swap(i, best);
    scores.swap(i, best);
}

#[cfg(test)]
mod tests {
    use shakmaty::Square;

    use super::*;
    use turncoat_rules::moves::MoveKind;

    /// The selection sort's order: highest score first, equal scores in the
    /// order the earlier picks left them (the search's trees depend on it).
    #[test]
    fn pick_next_takes_the_first_of_the_best() {
        let mut moves: Vec<Move> = (0..6u32)
            .map(|i| Move::new(MoveKind::Normal, Square::new(i), Square::new(i + 8)))
            .collect();
        let original = moves.clone();
        let mut scores = vec![3, 7, -2, 7, 3, i32::MIN];
        let mut picked = Vec::new();
        for i in 0..moves.len() {
            pick_next(&mut moves, &mut scores, i);
            picked.push((scores[i], original.iter().position(|&m| m == moves[i])));
        }
        // Picking index 1 swaps 0 to 1; picking 3 swaps (the old) 1 to 3, and
        // so on: the order of a selection sort with swaps.
        let expected = [
            (7, Some(1)),
            (7, Some(3)),
            (3, Some(0)),
            (3, Some(4)),
            (-2, Some(2)),
            (i32::MIN, Some(5)),
        ];
        assert_eq!(picked, expected);
    }

    /// Lists of every length up to 40 with many equal scores pick in the same
    /// order as the plain one-index scan.
    #[test]
    fn pick_next_matches_the_plain_scan() {
        fn plain(moves: &mut [Move], scores: &mut [i32], i: usize) {
            let mut best = i;
            for j in i + 1..moves.len() {
                if scores[j] > scores[best] {
                    best = j;
                }
            }
            moves.swap(i, best);
            scores.swap(i, best);
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 1..=40u32 {
            for _ in 0..20 {
                let moves: Vec<Move> = (0..len)
                    .map(|i| Move::new(MoveKind::Normal, Square::new(i), Square::new(63 - i)))
                    .collect();
                let scores: Vec<i32> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed % 7) as i32 - 3
                    })
                    .collect();
                let (mut m1, mut s1) = (moves.clone(), scores.clone());
                let (mut m2, mut s2) = (moves, scores);
                for i in 0..len as usize {
                    pick_next(&mut m1, &mut s1, i);
                    plain(&mut m2, &mut s2, i);
                }
                assert_eq!((m1, s1), (m2, s2));
            }
        }
    }
}
