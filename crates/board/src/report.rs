//! A whole game's analysis read as lichess reads it, from one value per
//! position of the main line (the start position first): each position's
//! winning chances, each move's judgement (`?!`, `?`, `??`) and accuracy, and
//! each side's accuracy over the game. The formulas are lichess's
//! (lila's `WinPercent`, `Advice` and `AccuracyPercent`), so that the page's
//! marks mean what a lichess user expects:
//!
//! - winning chances of White in percent, from centipawns clamped to
//!   ±[`CP_CEILING`]: `50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)`; a
//!   mate counts as the ceiling for the side that mates;
//! - a move is `?!`, `?` or `??` when the mover's winning chances on lichess's
//!   scale of -1 to +1 (`2 / (1 + exp(-0.00368208 * cp)) - 1`) drop by 0.1,
//!   0.2 or 0.3 (5, 10 or 15 points of win %); where a mate is found or lost
//!   instead, by lichess's mate rules (`judge`);
//! - a move's accuracy, from the drop `d` of the mover's win %:
//!   `103.1668 * exp(-0.04354 * d) - 3.1669`, plus lichess's bonus of 1 for
//!   the engine's imperfection, within 0..100 (100 when nothing is lost);
//! - a side's game accuracy: the mean of a volatility-weighted mean of its
//!   moves' accuracies (each move weighted by the standard deviation of win %
//!   over a window of the game around it) and their harmonic mean.
//!
//! One difference: lichess takes the start position's value as +0.15 (its
//! analysis starts after the first move); here it is searched like the others,
//! since a variant's start, or a position set up by FEN, is worth what it is.

use serde::Serialize;

use super::protocol::PositionValue;

/// Centipawn scores count up to this much either way (lichess's `Cp.CEILING`).
pub const CP_CEILING: i32 = 1000;
/// The slope of lichess's winning-chances curve, per centipawn.
const WIN_SLOPE: f64 = 0.003_682_08;
/// Drops of the mover's winning chances (-1..+1) that make a move `??`, `?`,
/// `?!`, largest first.
const JUDGEMENTS: [(f64, &str); 3] = [(0.3, "??"), (0.2, "?"), (0.1, "?!")];
/// lichess's fit of move accuracy to the drop in win %: `A * exp(-K * d) + B`.
const ACCURACY_A: f64 = 103.166_810_071_164_9;
const ACCURACY_K: f64 = 0.043_544_153_867_539_51;
const ACCURACY_B: f64 = -3.166_924_740_191_411;
/// lichess's allowance for an analysis that is not perfect.
const ACCURACY_BONUS: f64 = 1.0;
/// Bounds of the window over which a move's volatility is measured, in
/// positions, and of the weight that volatility gives.
const WINDOW_MIN: usize = 2;
const WINDOW_MAX: usize = 8;
const WEIGHT_MIN: f64 = 0.5;
const WEIGHT_MAX: f64 = 12.0;
/// lichess's mate rules: the mover's centipawns beyond which finding or losing
/// a mate is only an inaccuracy, or a mistake.
const MATE_INACCURACY_CP: i32 = 999;
const MATE_MISTAKE_CP: i32 = 700;

/// A position's value as the report uses it: White's point of view.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Eval {
    Cp(i32),
    /// A mate: positive when White mates (a won game counts as one).
    Mate(i32),
}

/// Reads a value; a result is a mate for the winner, or 0.00 for a draw.
fn eval_of(value: &PositionValue) -> Result<Eval, String> {
    match value {
        PositionValue::Cp(cp) => Ok(Eval::Cp(*cp)),
        PositionValue::Mate(0) => {
            Err("a mate in 0 is a finished game: send its result".to_string())
        }
        PositionValue::Mate(n) => Ok(Eval::Mate(*n)),
        PositionValue::Result(r) => match r.as_str() {
            "1-0" => Ok(Eval::Mate(1)),
            "0-1" => Ok(Eval::Mate(-1)),
            "1/2-1/2" => Ok(Eval::Cp(0)),
            other => Err(format!("unknown result '{other}'")),
        },
    }
}

impl Eval {
    /// Centipawns within the ceiling, a mate at the ceiling.
    fn ceiled_cp(self) -> i32 {
        match self {
            Eval::Cp(cp) => cp.clamp(-CP_CEILING, CP_CEILING),
            Eval::Mate(n) => CP_CEILING * n.signum(),
        }
    }

    /// The same value from Black's point of view when `white` is false.
    fn seen_by(self, white: bool) -> Eval {
        match (self, white) {
            (e, true) => e,
            (Eval::Cp(cp), false) => Eval::Cp(-cp),
            (Eval::Mate(n), false) => Eval::Mate(-n),
        }
    }
}

/// White's winning chances from -1 to +1.
fn winning_chances(cp: i32) -> f64 {
    2.0 / (1.0 + (-WIN_SLOPE * f64::from(cp)).exp()) - 1.0
}

/// White's winning chances in percent.
pub fn win_percent(cp: i32) -> f64 {
    50.0 + 50.0 * winning_chances(cp.clamp(-CP_CEILING, CP_CEILING))
}

/// A move's accuracy from the mover's win % before and after it.
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    let drop = before - after;
    (ACCURACY_A * (-ACCURACY_K * drop).exp() + ACCURACY_B + ACCURACY_BONUS).clamp(0.0, 100.0)
}

/// The judgement of a move by the mover (`white` or not) from `before` to
/// `after`: `??`, `?`, `?!` or none. Centipawns to centipawns, by the drop of
/// winning chances; otherwise by lichess's mate rules: a mate against the
/// mover newly on the board, or the mover's mate thrown away, is a blunder,
/// a mistake when the mover was (or still is) more than 7 pawns down (up),
/// an inaccuracy past 9.99; a slower mate is no error.
fn judge(before: Eval, after: Eval, white: bool) -> &'static str {
    if let (Eval::Cp(b), Eval::Cp(a)) = (before, after) {
        let (b, a) = (
            b.clamp(-CP_CEILING, CP_CEILING),
            a.clamp(-CP_CEILING, CP_CEILING),
        );
        let drop = (winning_chances(b) - winning_chances(a)) * if white { 1.0 } else { -1.0 };
        return JUDGEMENTS
            .iter()
            .find(|(d, _)| drop >= *d)
            .map_or("", |(_, glyph)| glyph);
    }
    // The mover's view from here.
    let (before, after) = (before.seen_by(white), after.seen_by(white));
    let cp = |e: Eval| match e {
        Eval::Cp(cp) => cp,
        Eval::Mate(_) => 0,
    };
    let graded = |cp: i32| {
        if cp > MATE_INACCURACY_CP {
            "?!"
        } else if cp > MATE_MISTAKE_CP {
            "?"
        } else {
            "??"
        }
    };
    match (before, after) {
        // Mate against the mover, where there was none.
        (Eval::Cp(b), Eval::Mate(n)) if n < 0 => graded(-b),
        // The mover's mate lost.
        (Eval::Mate(m), Eval::Cp(a)) if m > 0 => graded(a),
        (Eval::Mate(m), Eval::Mate(n)) if m > 0 && n < 0 => graded(cp(after)),
        _ => "",
    }
}

/// What the page shows of one move.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MoveReport {
    /// `??`, `?`, `?!` or empty; empty also while a value is missing.
    pub glyph: &'static str,
    /// 0..100, when both values are known.
    pub accuracy: Option<f64>,
}

/// The report of a game, or of the part of it analysed so far.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GameReport {
    /// White's win % in each position (null where not analysed yet).
    pub win: Vec<Option<f64>>,
    /// One per move.
    pub moves: Vec<MoveReport>,
    /// Each side's game accuracy, once every position has its value (and the
    /// side has moved).
    pub white: Option<f64>,
    pub black: Option<f64>,
}

/// The report of the positions' `values` (the start position first, then the
/// position after each move; `None` where not known yet); `white_first` when
/// White moves first.
pub fn report(values: &[Option<PositionValue>], white_first: bool) -> Result<GameReport, String> {
    let evals = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_ref()
                .map(eval_of)
                .transpose()
                .map_err(|e| format!("position {i}: {e}"))
        })
        .collect::<Result<Vec<Option<Eval>>, String>>()?;
    let win: Vec<Option<f64>> = evals
        .iter()
        .map(|e| e.map(|e| win_percent(e.ceiled_cp())))
        .collect();
    let white_moves = |i: usize| i.is_multiple_of(2) == white_first;
    let mut moves = Vec::with_capacity(evals.len().saturating_sub(1));
    for i in 1..evals.len() {
        let white = white_moves(i - 1);
        let judged = match (evals[i - 1], evals[i]) {
            (Some(b), Some(a)) => {
                let (wb, wa) = (win_percent(b.ceiled_cp()), win_percent(a.ceiled_cp()));
                let (before, after) = if white {
                    (wb, wa)
                } else {
                    (100.0 - wb, 100.0 - wa)
                };
                MoveReport {
                    glyph: judge(b, a, white),
                    accuracy: Some(move_accuracy(before, after)),
                }
            }
            _ => MoveReport {
                glyph: "",
                accuracy: None,
            },
        };
        moves.push(judged);
    }
    let (white, black) = match win.iter().copied().collect::<Option<Vec<f64>>>() {
        Some(all) if all.len() > 1 => game_accuracy(&all, &moves, white_first),
        _ => (None, None),
    };
    Ok(GameReport {
        win,
        moves,
        white,
        black,
    })
}

/// Each side's accuracy (lichess's `gameAccuracy`): each move's accuracy
/// weighted by the volatility of win % around it, that weighted mean averaged
/// with the harmonic mean of the same accuracies.
fn game_accuracy(
    win: &[f64],
    moves: &[MoveReport],
    white_first: bool,
) -> (Option<f64>, Option<f64>) {
    let size = (moves.len() / 10).clamp(WINDOW_MIN, WINDOW_MAX);
    let first = size.min(win.len());
    // The first moves share the first window; then one window per move.
    let mut windows: Vec<&[f64]> = vec![&win[..first]; first.saturating_sub(2)];
    if win.len() >= size {
        windows.extend(win.windows(size));
    } else {
        windows.push(win);
    }
    let weights = windows
        .iter()
        .map(|w| std_dev(w).clamp(WEIGHT_MIN, WEIGHT_MAX));
    let mut sides: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    for (i, (m, weight)) in moves.iter().zip(weights).enumerate() {
        if let Some(a) = m.accuracy {
            let side = usize::from(i.is_multiple_of(2) != white_first);
            sides[side].push((a, weight));
        }
    }
    let accuracy = |side: &[(f64, f64)]| -> Option<f64> {
        if side.is_empty() {
            return None;
        }
        let weight: f64 = side.iter().map(|(_, w)| w).sum();
        let weighted = side.iter().map(|(a, w)| a * w).sum::<f64>() / weight;
        let harmonic = side.len() as f64 / side.iter().map(|(a, _)| 1.0 / a.max(1.0)).sum::<f64>();
        Some((weighted + harmonic) / 2.0)
    };
    (accuracy(&sides[0]), accuracy(&sides[1]))
}

/// The population standard deviation.
fn std_dev(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use PositionValue::{Cp, Mate, Result as Done};

    /// Floating-point results are compared to 1e-9. The figures were worked
    /// out apart from this code, by a few lines of Python written from
    /// lichess's Scala.
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn winning_chances_and_accuracy_of_a_move() {
        assert_eq!(win_percent(0), 50.0);
        // Symmetric, and clamped at the ceiling.
        assert!(close(win_percent(300) + win_percent(-300), 100.0));
        assert_eq!(win_percent(5000), win_percent(CP_CEILING));
        // 50 + 50 * (2 / (1 + e^-0.368208) - 1)
        assert!(
            close(win_percent(100), 59.102_589_719_161_28),
            "{}",
            win_percent(100)
        );
        assert_eq!(move_accuracy(60.0, 60.0), 100.0);
        assert_eq!(move_accuracy(40.0, 70.0), 100.0);
        // A drop of 10 points: 103.16681 * e^-0.43544 - 3.16692 + 1.
        assert!(
            close(move_accuracy(70.0, 60.0), 64.579_828_453_720_67),
            "{}",
            move_accuracy(70.0, 60.0)
        );
        // A drop of 100 points leaves nothing.
        assert_eq!(move_accuracy(100.0, 0.0), 0.0);
    }

    #[test]
    fn judgements_at_lichess_thresholds() {
        // White's move from 0.00: winning chances fall to wc(cp) < 0.
        // wc(-54) = -0.0991, wc(-55) = -0.1009.
        let j = |after: i32| judge(Eval::Cp(0), Eval::Cp(after), true);
        assert_eq!(j(-54), "");
        assert_eq!(j(-55), "?!");
        // wc(-110) = -0.1998, wc(-111) = -0.2016.
        assert_eq!(j(-110), "?!");
        assert_eq!(j(-111), "?");
        // wc(-168) = -0.2998, wc(-169) = -0.3015.
        assert_eq!(j(-168), "?");
        assert_eq!(j(-169), "??");
        // Black's move: the same drop seen from Black.
        assert_eq!(judge(Eval::Cp(0), Eval::Cp(169), false), "??");
        assert_eq!(judge(Eval::Cp(0), Eval::Cp(-500), false), "");
        // Beyond the ceiling nothing more is lost.
        assert_eq!(judge(Eval::Cp(2000), Eval::Cp(1000), true), "");
        // Mates: walking into one from equality is a blunder; from -8 only a
        // mistake; from -10.5 an inaccuracy.
        assert_eq!(judge(Eval::Cp(0), Eval::Mate(-3), true), "??");
        assert_eq!(judge(Eval::Cp(-800), Eval::Mate(-3), true), "?");
        assert_eq!(judge(Eval::Cp(-1050), Eval::Mate(-3), true), "?!");
        // Black lets White mate.
        assert_eq!(judge(Eval::Cp(0), Eval::Mate(4), false), "??");
        // A mate thrown away: to +3 a blunder, to +8 a mistake, to +12 an
        // inaccuracy; to a mate for the other side a blunder.
        assert_eq!(judge(Eval::Mate(2), Eval::Cp(300), true), "??");
        assert_eq!(judge(Eval::Mate(2), Eval::Cp(800), true), "?");
        assert_eq!(judge(Eval::Mate(2), Eval::Cp(1200), true), "?!");
        assert_eq!(judge(Eval::Mate(2), Eval::Mate(-5), true), "??");
        // A slower mate, or the mate given, is no error.
        assert_eq!(judge(Eval::Mate(2), Eval::Mate(4), true), "");
        assert_eq!(judge(Eval::Mate(1), Eval::Mate(1), true), "");
    }

    #[test]
    fn a_game_report() {
        // Each move keeps or improves the mover's chances, the last mates.
        let values = vec![
            Some(Cp(20)),
            Some(Cp(25)),
            Some(Cp(-900)),
            Some(Cp(-880)),
            Some(Done("0-1".to_string())),
        ];
        let r = report(&values, true).unwrap();
        assert_eq!(r.win.len(), 5);
        assert_eq!(r.win[4], Some(win_percent(-CP_CEILING)));
        let glyphs: Vec<&str> = r.moves.iter().map(|m| m.glyph).collect();
        assert_eq!(glyphs, ["", "", "", ""]);
        assert!(r.moves.iter().all(|m| m.accuracy == Some(100.0)));
        assert_eq!((r.white, r.black), (Some(100.0), Some(100.0)));
        // White's second move hangs the queen: +0.30 to -9.00 (winning
        // chances 0.055 to -0.930); the last position is not analysed yet.
        let values = vec![
            Some(Cp(20)),
            Some(Cp(30)),
            Some(Cp(30)),
            Some(Cp(-900)),
            None,
        ];
        let r = report(&values, true).unwrap();
        let glyphs: Vec<&str> = r.moves.iter().map(|m| m.glyph).collect();
        assert_eq!(glyphs, ["", "", "??", ""]);
        assert_eq!(r.moves[3].accuracy, None);
        assert_eq!(r.win[4], None);
        assert_eq!((r.white, r.black), (None, None));
        // From a position with Black to move, Black's moves are the odd ones:
        // 0.00 to +4.00 loses 0.627 of Black's chances.
        let values = vec![Some(Cp(0)), Some(Cp(400)), Some(Cp(400))];
        let r = report(&values, false).unwrap();
        assert_eq!(r.moves[0].glyph, "??");
        let a = r.moves[0].accuracy.unwrap();
        // One move: the weighted and the harmonic mean are its accuracy.
        assert!(close(r.black.unwrap(), a), "{:?} {a}", r.black);
        assert_eq!(r.white, Some(100.0));
        assert!(report(&[Some(Mate(0))], true).is_err());
        assert!(report(&[Some(Done("2-0".to_string()))], true).is_err());
    }

    /// lichess's game accuracy on six moves: windows of two positions, each
    /// weighted by its standard deviation (half the difference) within
    /// 0.5..12.
    #[test]
    fn game_accuracy_weights_by_volatility() {
        let cps = [0, 0, 100, 100, 400, 400, 400];
        let values: Vec<Option<PositionValue>> = cps.iter().map(|&c| Some(Cp(c))).collect();
        let r = report(&values, true).unwrap();
        // White's moves keep the value: 100 each.
        assert_eq!(r.white, Some(100.0));
        // Black's lose 9.10 and 25.26 points of win %, then nothing: move
        // accuracies 67.2397, 36.9931, 100 with weights 4.5513, 11.1231,
        // 0.5; weighted mean 47.4519, harmonic mean 57.7988.
        let accuracies: Vec<f64> = r
            .moves
            .iter()
            .skip(1)
            .step_by(2)
            .map(|m| m.accuracy.unwrap())
            .collect();
        assert!(
            close(accuracies[0], 67.239_721_228_041_82),
            "{accuracies:?}"
        );
        assert!(
            close(accuracies[1], 36.993_128_036_066_736),
            "{accuracies:?}"
        );
        assert_eq!(accuracies[2], 100.0);
        assert!(
            close(r.black.unwrap(), 52.625_356_473_355_25),
            "{:?}",
            r.black
        );
    }
}
