//! `turncoat smooth`: gives every position of self-play data a score that
//! looks ahead along its own game, the TD(lambda) target of Sutton's temporal
//! differences: the mean of the position's search score and the scores of the
//! game's next positions up to `--plies` plies on, the one `d` plies on
//! weighted `lambda^d`.
//!
//! Why: a position's label is a search of a thousand nodes or so, which misses
//! what lies a little beyond its horizon. The game's next searches start
//! nearer to it and often find it (a tactic that turns +115 into -900 three
//! plies later); since each move played is its search's best, the game's
//! later scores are estimates of the same value, from further on. The game's
//! result is the limit of this (lambda = 1, every ply to the end), and the
//! search score alone is lambda = 0.
//!
//! Games are found from the data's order: `datagen` writes each game's
//! positions together and in the order they were played, so a new game starts
//! where the ply count (from the fullmove number and the side to move) stops
//! rising or the result changes. Positions a game left out (noisy moves,
//! checks, mates) are simply absent: the weights count plies, not records.

use std::path::Path;

use clap::Args;

use crate::data::{self, Files, Labelled, Output};
use turncoat_rules::variants::Variant;
use turncoat_rules::with_variant;

#[derive(Args, Debug, Clone)]
pub struct SmoothArgs {
    #[command(flatten)]
    pub files: Files,
    /// Weight of a score one ply further on, in 0..=1 (0 leaves every score
    /// as it was).
    #[arg(long, default_value_t = 0.75)]
    pub lambda: f64,
    /// How many plies ahead the mean looks.
    #[arg(long, default_value_t = 6)]
    pub plies: u32,
}

/// What a run did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub written: u64,
    /// Games the positions were found to form.
    pub games: u64,
    /// Text lines whose position the variant refused.
    pub skipped: u64,
}

pub fn run(args: &SmoothArgs) -> Result<(), String> {
    let counts = smooth(args)?;
    eprintln!(
        "{} positions of {} games written to {}{}",
        counts.written,
        counts.games,
        args.files.out.display(),
        if counts.skipped > 0 {
            format!(", {} malformed lines skipped", counts.skipped)
        } else {
            String::new()
        }
    );
    Ok(())
}

/// Smooths `args.files.input` into `args.files.out` (written beside and
/// renamed at the end: [`data::write_beside`]).
pub fn smooth(args: &SmoothArgs) -> Result<Counts, String> {
    if !(0.0..=1.0).contains(&args.lambda) {
        return Err(format!("--lambda must be in 0..1, got {}", args.lambda));
    }
    data::write_beside(
        &args.files.out,
        |tmp| with_variant!(args.files.variant, V => write_smoothed::<V>(args, tmp)),
    )
}

/// Plies from the start of the game: what a new game's first position has no
/// more of than the last game's last position.
fn ply<V: Variant>(labelled: &Labelled<V>) -> u64 {
    let black = u64::from(labelled.pos.turn() == shakmaty::Color::Black);
    2 * labelled.pos.fullmoves().saturating_sub(1) + black
}

/// The smoothed scores of one game's positions, given as (ply, score) in
/// order: each the `lambda^d`-weighted mean of the scores `d <= plies` plies
/// on, its own (d = 0) included.
pub fn smoothed(game: &[(u64, f32)], lambda: f64, plies: u32) -> Vec<f32> {
    (0..game.len())
        .map(|i| {
            let (start, _) = game[i];
            let (mut sum, mut weight) = (0.0f64, 0.0f64);
            for &(at, score) in game[i..]
                .iter()
                .take_while(|(at, _)| at - start <= u64::from(plies))
            {
                // 0^0 = 1: with lambda 0 a position keeps its own score.
                let w = lambda.powi((at - start) as i32);
                sum += w * f64::from(score);
                weight += w;
            }
            (sum / weight) as f32
        })
        .collect()
}

fn write_smoothed<V: Variant>(args: &SmoothArgs, path: &Path) -> Result<Counts, String> {
    let mut out = Output::create(path, args.files.variant, args.files.format)?;
    let mut counts = Counts::default();
    let mut game: Vec<Labelled<V>> = Vec::new();
    let mut bytes = Vec::new();
    let mut flush = |game: &mut Vec<Labelled<V>>, counts: &mut Counts| -> Result<(), String> {
        if game.is_empty() {
            return Ok(());
        }
        let plies: Vec<(u64, f32)> = game.iter().map(|l| (ply(l), l.score)).collect();
        for (labelled, score) in game.iter().zip(smoothed(&plies, args.lambda, args.plies)) {
            let (score, result) = data::packable_labels(score.round(), labelled.result)
                .map_err(|e| format!("{}: {e}", labelled.place))?;
            bytes.clear();
            data::encode(&labelled.pos, score, result, args.files.format, &mut bytes)?;
            out.write_all(&bytes)?;
            counts.written += 1;
        }
        counts.games += 1;
        game.clear();
        Ok(())
    };
    for input in &args.files.input {
        // A game never runs on from one file into the next.
        flush(&mut game, &mut counts)?;
        data::read::<V>(input, |item| {
            let labelled = match item {
                Ok(labelled) => labelled,
                Err(message) => {
                    counts.skipped += 1;
                    if counts.skipped <= 5 {
                        log::warn!("{message}");
                    }
                    return Ok(());
                }
            };
            if let Some(last) = game.last() {
                if ply(&labelled) <= ply(last) || labelled.result != last.result {
                    flush(&mut game, &mut counts)?;
                }
            }
            game.push(labelled);
            Ok(())
        })?;
    }
    flush(&mut game, &mut counts)?;
    out.finish()?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Format;
    use std::fs;
    use std::path::PathBuf;
    use turncoat_rules::variants::VariantKind;

    fn close(got: &[f32], want: &[f32]) {
        assert_eq!(got.len(), want.len(), "{got:?} against {want:?}");
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-3, "{got:?} against {want:?}");
        }
    }

    #[test]
    fn each_score_is_the_weighted_mean_of_the_plies_ahead() {
        let game = [(10, 100.0), (11, 100.0), (12, -300.0)];
        // (100 + 0.5 * 100 + 0.25 * -300) / 1.75, (100 + 0.5 * -300) / 1.5, -300
        close(
            &smoothed(&game, 0.5, 6),
            &[75.0 / 1.75, -50.0 / 1.5, -300.0],
        );
        // One ply ahead only: the first no longer sees the -300.
        close(&smoothed(&game, 0.5, 1), &[100.0, -50.0 / 1.5, -300.0]);
        // lambda 0 changes nothing, lambda 1 is the plain mean of what follows.
        close(&smoothed(&game, 0.0, 6), &[100.0, 100.0, -300.0]);
        close(&smoothed(&game, 1.0, 6), &[-100.0 / 3.0, -100.0, -300.0]);
    }

    #[test]
    fn weights_and_horizon_count_plies_not_records() {
        // The record 3 plies on weighs 0.5^3, and is out of reach at 2 plies.
        let game = [(10, 100.0), (13, -200.0)];
        close(&smoothed(&game, 0.5, 3), &[75.0 / 1.125, -200.0]);
        close(&smoothed(&game, 0.5, 2), &[100.0, -200.0]);
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("turncoat-smooth-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    fn args(input: Vec<PathBuf>, out: PathBuf, lambda: f64) -> SmoothArgs {
        SmoothArgs {
            files: Files {
                variant: VariantKind::Chess,
                input,
                out,
                format: Format::Text,
            },
            lambda,
            plies: 6,
        }
    }

    /// Four games: A (plies 1-3, White won); B (plies 1-2, a draw: its ply
    /// count starts again); C (ply 3, Black won: only the result tells it from
    /// B); D (ply 1, Black won: only the ply count tells it from C).
    const GAMES: &str = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1;20;1
rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2;40;1
rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2;-100;1
rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1;10;0.5
not a fen;5;0.5
rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2;30;0.5
rnbqkbnr/ppp1pppp/8/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R b KQkq - 1 2;-50;0
rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1;-10;0
";

    #[test]
    fn games_are_told_apart_by_ply_and_result_and_smoothed_alone() {
        let dir = temp_dir("games");
        let input = dir.join("in.txt");
        fs::write(&input, GAMES).expect("write");
        let out = dir.join("out.txt");
        let counts = smooth(&args(vec![input], out.clone(), 0.5)).expect("smooth");
        assert_eq!(
            counts,
            Counts {
                written: 7,
                games: 4,
                skipped: 1
            }
        );
        // A: (20 + 0.5 * 40 + 0.25 * -100) / 1.75 = 8.57, (40 - 50) / 1.5 = -6.67;
        // B: (10 + 0.5 * 30) / 1.5 = 16.67; C and D alone keep theirs.
        let want = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1;9;1
rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2;-7;1
rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2;-100;1
rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1;17;0.5
rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2;30;0.5
rnbqkbnr/ppp1pppp/8/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R b KQkq - 1 2;-50;0
rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1;-10;0
";
        assert_eq!(fs::read_to_string(&out).expect("read"), want);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_game_never_runs_from_one_file_into_the_next() {
        let dir = temp_dir("files");
        let (first, second) = (dir.join("a.txt"), dir.join("b.txt"));
        let mut lines = GAMES.lines();
        fs::write(&first, format!("{}\n", lines.next().expect("line"))).expect("write");
        fs::write(&second, format!("{}\n", lines.next().expect("line"))).expect("write");
        let out = dir.join("out.txt");
        let counts = smooth(&args(vec![first, second], out.clone(), 0.5)).expect("smooth");
        assert_eq!(counts.games, 2);
        let text = fs::read_to_string(&out).expect("read");
        let scores: Vec<&str> = text
            .lines()
            .map(|l| l.split(';').nth(1).unwrap_or(""))
            .collect();
        assert_eq!(scores, ["20", "40"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_lambda_outside_0_to_1_is_refused_and_nothing_written() {
        let dir = temp_dir("lambda");
        let input = dir.join("in.txt");
        fs::write(&input, GAMES).expect("write");
        let out = dir.join("out.txt");
        for lambda in [-0.1, 1.5, f64::NAN] {
            let err = smooth(&args(vec![input.clone()], out.clone(), lambda)).expect_err("refused");
            assert!(err.contains("--lambda"), "{err}");
            assert!(!out.exists());
        }
        let _ = fs::remove_dir_all(&dir);
    }
}
