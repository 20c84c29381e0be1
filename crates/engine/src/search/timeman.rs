//! Time management: turns a `go` command's limits into a soft limit (do not start
//! another iteration after it) and a hard limit (abort the search), both in
//! milliseconds from the start of the search.

use std::time::Duration;

use crate::clock::Instant;

/// What `go` asked for. Every field is optional; none means "infinite".
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u32>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct TimeManager {
    pub start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
}

impl TimeManager {
    /// `white` tells which clock is ours; `overhead` is UCI `Move Overhead`.
    pub fn new(limits: &Limits, white: bool, overhead_ms: u64) -> Self {
        let start = Instant::now();
        let (soft, hard) = if let Some(mt) = limits.movetime {
            // A fixed move time is used in full: no soft limit.
            let t = mt.saturating_sub(overhead_ms).max(1);
            (None, Some(t))
        } else {
            let (own, other, inc) = if white {
                (limits.wtime, limits.btime, limits.winc.unwrap_or(0))
            } else {
                (limits.btime, limits.wtime, limits.binc.unwrap_or(0))
            };
            // A clock for the other side only: ours is missing, so it holds
            // nothing (as Stockfish reads it), and the move comes at once.
            let time = own.or(other.map(|_| 0));
            match time {
                Some(time) => {
                    let usable = time.saturating_sub(overhead_ms).max(1);
                    let moves_left = limits.movestogo.unwrap_or(30).clamp(1, 50) as u64;
                    // An even share of what the clock will hold over the moves
                    // left: the increments to come added, the overhead of every
                    // one of those moves taken off (each move costs it; counting
                    // it once let a `movestogo` control drain before the end).
                    let budget = (time + inc * (moves_left - 1))
                        .saturating_sub(overhead_ms * moves_left)
                        .max(1);
                    let share = budget / moves_left;
                    // Never more than a fifth of the clock (nine tenths with a
                    // single move to go).
                    let cap = if moves_left == 1 {
                        usable * 9 / 10
                    } else {
                        usable / 5
                    };
                    let soft = share.min(cap).max(1);
                    // An unstable iteration may run on to three times the share,
                    // except on the last move before the control: nothing is
                    // left after it to pay the overrun back.
                    let stretch = if moves_left == 1 { 1 } else { 3 };
                    let hard = (soft * stretch).min(cap.max(soft)).max(1);
                    (Some(soft), Some(hard))
                }
                None => (None, None),
            }
        };
        TimeManager {
            start,
            soft: soft.map(Duration::from_millis),
            hard: hard.map(Duration::from_millis),
        }
    }

    /// Restarts the clock (ponderhit: our time starts now).
    pub fn restart(&mut self) {
        self.start = Instant::now();
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// May another iteration start? `scale` stretches the soft limit when the best
    /// move is unstable (>1) or shrinks it when it is settled (<1).
    pub fn soft_expired(&self, scale: f64) -> bool {
        self.soft
            .is_some_and(|s| self.elapsed().as_secs_f64() >= s.as_secs_f64() * scale)
    }

    pub fn hard_expired(&self) -> bool {
        self.hard.is_some_and(|h| self.elapsed() >= h)
    }
}

/// How far the soft limit stretches (>1) or shrinks (<1) after an iteration
/// whose best move has been the same for `stable` iterations before it: a best
/// move that just changed gets more time, a settled one less. The scales'
/// mean is above 1 because iterations stop short of the limit
/// (docs/STRENGTH.md: the clock left unused at 5+0.05).
pub fn soft_scale(stable: u32) -> f64 {
    match stable {
        0 => 2.2,
        1..=3 => 1.4,
        _ => 0.85,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetime_minus_overhead() {
        let limits = Limits {
            movetime: Some(1000),
            ..Limits::default()
        };
        let tm = TimeManager::new(&limits, true, 30);
        assert_eq!(tm.soft, None);
        assert_eq!(tm.hard, Some(Duration::from_millis(970)));
    }

    #[test]
    fn clock_share_is_bounded() {
        let limits = Limits {
            wtime: Some(60_000),
            winc: Some(1000),
            btime: Some(1),
            ..Limits::default()
        };
        let tm = TimeManager::new(&limits, true, 10);
        // (60_000 + 29 * 1000 - 30 * 10) / 30 = 88_700 / 30 = 2956 ms soft
        // (under the cap 59_990 / 5); hard three times that.
        assert_eq!(tm.soft, Some(Duration::from_millis(2956)));
        assert_eq!(tm.hard, Some(Duration::from_millis(8868)));
        let black = TimeManager::new(&limits, false, 10);
        assert_eq!(black.soft, Some(Duration::from_millis(1)));
    }

    #[test]
    fn a_missing_clock_of_our_own_is_empty_when_the_other_is_given() {
        let limits = Limits {
            btime: Some(1000),
            ..Limits::default()
        };
        let white = TimeManager::new(&limits, true, 10);
        assert_eq!(white.soft, Some(Duration::from_millis(1)));
        assert_eq!(white.hard, Some(Duration::from_millis(1)));
        // No clock at all is an unlimited search.
        let none = TimeManager::new(&Limits::default(), true, 10);
        assert_eq!((none.soft, none.hard), (None, None));
    }

    #[test]
    fn soft_limit_stretches_for_a_new_best_move_and_shrinks_for_a_settled_one() {
        assert_eq!(soft_scale(0), 2.2);
        assert_eq!(soft_scale(1), 1.4);
        assert_eq!(soft_scale(3), 1.4);
        assert_eq!(soft_scale(4), 0.85);
        assert_eq!(soft_scale(40), 0.85);
    }
}
