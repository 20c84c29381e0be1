//! `turncoat relabel`: gives the positions of data files new scores from
//! Turncoat's own search, keeping their game results.
//!
//! A lineage of networks trained only on Turncoat's search labels each
//! generation's positions with the network that played them; the older
//! generations' positions keep the older, weaker networks' scores. Relabelling
//! scores every position again with the newest network (and, if wished, a
//! deeper search than the games were played at), as Stockfish's trainers
//! rescore their data with the current master network.
//!
//! Each position is searched on its own: a cleared table and fresh move
//! ordering statistics, no game history, one thread. So a position's new score
//! depends only on the position, the network and the limit, and the output
//! (in input order) is the same whatever `--threads` is. Positions whose new
//! score is a mate are left out, as `datagen` leaves them out; text lines the
//! variant refuses are skipped, as `train` skips them.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use shakmaty::Color;

use crate::data::{self, Files, Output};
use crate::evaluation::Evaluation;
use crate::packed::GameResult;
use turncoat_engine::policy::Policy;
use turncoat_engine::search::tt::TranspositionTable;
use turncoat_engine::search::{self, Limits, Options, Shared, MATE_BOUND};
use turncoat_rules::position::Position;
use turncoat_rules::with_variant;

#[derive(Args, Debug, Clone)]
pub struct RelabelArgs {
    #[command(flatten)]
    pub files: Files,
    /// Nodes per position (one search thread each).
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Also stop each search at this depth.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Positions searched at once.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Hash table per thread, in MiB (cleared before every position); by
    /// default just big enough for --nodes (four slots a node, at most 1 MiB),
    /// since clearing it is part of every position's cost.
    #[arg(long)]
    pub hash: Option<usize>,
    /// The evaluation that scores the positions (typically the lineage's
    /// newest network, by --eval-file).
    #[command(flatten)]
    pub evaluation: Evaluation,
}

/// Positions read before they are shared out among the threads: enough that
/// every thread has work, few enough to hold in memory whatever the input.
const BATCH: usize = 4096;

/// What a run did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub written: u64,
    /// Positions whose new score was a mate.
    pub mates: u64,
    /// Text lines whose position the variant refused.
    pub skipped: u64,
}

pub fn run(args: &RelabelArgs) -> Result<(), String> {
    let counts = relabel(args)?;
    eprintln!(
        "{} positions written to {}; {} left out as mates, {} malformed lines skipped",
        counts.written,
        args.files.out.display(),
        counts.mates,
        counts.skipped
    );
    Ok(())
}

/// Relabels `args.files.input` into `args.files.out` (written beside and
/// renamed at the end: [`data::write_beside`]).
pub fn relabel(args: &RelabelArgs) -> Result<Counts, String> {
    if args.nodes == 0 || args.threads == 0 || args.hash == Some(0) {
        return Err("--nodes, --threads and --hash must be positive".into());
    }
    if args.depth == Some(0) {
        return Err("--depth must be positive".into());
    }
    let options = args.evaluation.options()?;
    data::write_beside(
        &args.files.out,
        |tmp| with_variant!(args.files.variant, V => write_relabelled::<V>(args, &options, tmp)),
    )
}

/// One thread's searcher: its own table, cleared before every position.
struct Scorer<'a> {
    tt: Arc<TranspositionTable>,
    limits: &'a Limits,
    options: &'a Options,
}

impl Scorer<'_> {
    /// The search's score of `pos`, White's view; None for a mate.
    fn score<V: Policy>(&self, pos: &Position<V>) -> Option<i32> {
        self.tt.clear();
        let shared = Shared::new(self.tt.clone());
        let found = search::search(pos, &[], self.limits, self.options, &shared, &mut |_| {});
        if found.score.abs() >= MATE_BOUND {
            return None;
        }
        Some(if pos.turn() == Color::White {
            found.score
        } else {
            -found.score
        })
    }
}

fn write_relabelled<V: Policy>(
    args: &RelabelArgs,
    options: &Options,
    path: &Path,
) -> Result<Counts, String> {
    let mut out = Output::create(path, args.files.variant, args.files.format)?;
    let limits = Limits {
        nodes: Some(args.nodes),
        depth: args.depth,
        ..Limits::default()
    };
    let scorers = (0..args.threads)
        .map(|_| {
            Ok(Scorer {
                tt: Arc::new(match args.hash {
                    Some(megabytes) => {
                        TranspositionTable::try_new(megabytes).map_err(|e| e.to_string())?
                    }
                    None => TranspositionTable::for_nodes(args.nodes),
                }),
                limits: &limits,
                options,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut counts = Counts::default();
    let mut batch: Vec<(Position<V>, GameResult)> = Vec::with_capacity(BATCH);
    let start = Instant::now();
    let mut flush =
        |batch: &mut Vec<(Position<V>, GameResult)>, counts: &mut Counts| -> Result<(), String> {
            let scores = score_batch(&scorers, batch);
            let mut bytes = Vec::new();
            for ((pos, result), score) in batch.iter().zip(scores) {
                let Some(score) = score else {
                    counts.mates += 1;
                    continue;
                };
                data::encode(pos, score, *result, args.files.format, &mut bytes)?;
                counts.written += 1;
            }
            out.write_all(&bytes)?;
            let done = counts.written + counts.mates;
            if done.is_multiple_of(BATCH as u64 * 25) {
                let secs = start.elapsed().as_secs_f64().max(1e-9);
                eprintln!("{done} positions, {:.0} a second", done as f64 / secs);
            }
            batch.clear();
            Ok(())
        };
    for input in &args.files.input {
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
            // The old score goes; the result must be one the packed format
            // holds, whichever format is written (as `datagen-convert`).
            let result = data::packable_result(labelled.result)
                .map_err(|e| format!("{}:{}: {e}", input.display(), labelled.place))?;
            batch.push((labelled.pos, result));
            if batch.len() == BATCH {
                flush(&mut batch, &mut counts)?;
            }
            Ok(())
        })?;
    }
    if !batch.is_empty() {
        flush(&mut batch, &mut counts)?;
    }
    out.finish()?;
    Ok(counts)
}

/// Every position's new score, in order: the batch cut into one contiguous
/// part per scorer, each searched by a thread of its own.
fn score_batch<V: Policy>(
    scorers: &[Scorer],
    batch: &[(Position<V>, GameResult)],
) -> Vec<Option<i32>> {
    let part = batch.len().div_ceil(scorers.len()).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = batch
            .chunks(part)
            .zip(scorers)
            .map(|(chunk, scorer)| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(pos, _)| scorer.score(pos))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Format;
    use std::fs;
    use std::path::PathBuf;
    use turncoat_rules::fen;
    use turncoat_rules::variants::chess::Chess;
    use turncoat_rules::variants::VariantKind;

    fn args(input: Vec<PathBuf>, out: PathBuf, threads: usize) -> RelabelArgs {
        RelabelArgs {
            files: Files {
                variant: VariantKind::Chess,
                input,
                out,
                format: Format::Text,
            },
            nodes: 300,
            depth: None,
            threads,
            hash: None,
            evaluation: Evaluation::default(),
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("turncoat-relabel-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    const LINES: &str = "\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;12;0.5
4k3/8/8/8/8/8/8/3QK3 w - - 0 1;0;1
3qk3/8/8/8/8/8/8/4K3 w - - 0 1;0;0
not a fen;5;0.5
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1;100;1
3qk3/8/8/8/8/8/8/4K3 b - - 0 1;-7;0
";

    #[test]
    fn scores_come_from_the_search_and_results_stay() {
        let dir = temp_dir("scores");
        let input = dir.join("in.txt");
        fs::write(&input, LINES).expect("write input");
        let out = dir.join("out.txt");
        let counts = relabel(&args(vec![input], out.clone(), 1)).expect("relabel");
        // Six lines: one not a position, one a mate in one (Rd8#), four written.
        assert_eq!(
            counts,
            Counts {
                written: 4,
                mates: 1,
                skipped: 1
            }
        );
        let text = fs::read_to_string(&out).expect("read output");
        let rows: Vec<(&str, i32, &str)> = text
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(';').collect();
                (f[0], f[1].parse().expect("score"), f[2])
            })
            .collect();
        let fens: Vec<&str> = rows.iter().map(|r| r.0).collect();
        assert_eq!(
            fens,
            [
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
                "3qk3/8/8/8/8/8/8/4K3 w - - 0 1",
                "3qk3/8/8/8/8/8/8/4K3 b - - 0 1",
            ]
        );
        let results: Vec<&str> = rows.iter().map(|r| r.2).collect();
        assert_eq!(results, ["0.5", "1", "0", "0"]);
        // White's view whoever moves: a queen up is far above zero, a queen
        // down far below, the start position near it.
        assert!(rows[0].1.abs() < 100, "start position {}", rows[0].1);
        assert!(rows[1].1 > 500, "a queen up {}", rows[1].1);
        assert!(rows[2].1 < -500, "a queen down {}", rows[2].1);
        assert!(
            rows[3].1 < -500,
            "a queen down, Black to move {}",
            rows[3].1
        );
        // Each the score of a search of the position alone.
        let alone = |fen_str: &str| {
            let pos: Position<Chess> = fen::parse(fen_str).expect("fen");
            let scorer = Scorer {
                tt: Arc::new(TranspositionTable::for_nodes(300)),
                limits: &Limits {
                    nodes: Some(300),
                    ..Limits::default()
                },
                options: &Options::default(),
            };
            scorer.score(&pos)
        };
        for row in &rows {
            assert_eq!(alone(row.0), Some(row.1), "{}", row.0);
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_output_does_not_depend_on_the_threads_and_packed_reads_back() {
        let dir = temp_dir("threads");
        let input = dir.join("in.txt");
        fs::write(&input, LINES).expect("write input");
        let one = dir.join("one.txt");
        let two = dir.join("two.txt");
        relabel(&args(vec![input.clone()], one.clone(), 1)).expect("one thread");
        relabel(&args(vec![input.clone()], two.clone(), 3)).expect("three threads");
        assert_eq!(fs::read(&one).expect("one"), fs::read(&two).expect("two"));

        let packed_out = dir.join("out.bin");
        let mut a = args(vec![input], packed_out.clone(), 2);
        a.files.format = Format::Packed;
        relabel(&a).expect("packed");
        let mut lines = String::new();
        data::read::<Chess>(&packed_out, |item| {
            let l = item?;
            lines.push_str(&format!(
                "{};{};{}\n",
                fen::format(&l.pos),
                l.score,
                GameResult::from_value(l.result).map_or("?", |r| r.text())
            ));
            Ok(())
        })
        .expect("read packed");
        assert_eq!(lines, fs::read_to_string(&one).expect("one"));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_input_leaves_no_output() {
        let dir = temp_dir("bad");
        let input = dir.join("in.txt");
        fs::write(&input, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1;0;2\n").expect("write input");
        let out = dir.join("out.txt");
        let err = relabel(&args(vec![input.clone()], out.clone(), 1)).expect_err("result 2");
        assert!(err.contains("outside 0..1"), "{err}");
        assert!(!out.exists());
        assert!(!dir.join("out.txt.tmp").exists());
        // A result in range that no record can hold.
        fs::write(&input, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1;0;0.25\n").expect("write input");
        let err = relabel(&args(vec![input.clone()], out.clone(), 1)).expect_err("result 0.25");
        assert!(err.contains(":1: result 0.25 is not 0, 0.5 or 1"), "{err}");
        assert!(!out.exists());

        // An existing --out is refused and left as it was.
        fs::write(&out, "kept").expect("write out");
        let err = relabel(&args(vec![input.clone()], out.clone(), 1)).expect_err("exists");
        assert!(err.contains("exists already"), "{err}");
        assert_eq!(fs::read_to_string(&out).expect("out"), "kept");

        // A missing input, and limits of zero.
        let err = relabel(&args(vec![dir.join("missing.txt")], dir.join("o2.txt"), 1))
            .expect_err("missing");
        assert!(err.contains("missing.txt"), "{err}");
        let mut zero = args(vec![input], dir.join("o3.txt"), 0);
        assert!(relabel(&zero).is_err());
        zero.threads = 1;
        zero.depth = Some(0);
        assert!(relabel(&zero).is_err());
        zero.depth = None;
        zero.hash = Some(0);
        let err = relabel(&zero).expect_err("hash 0");
        assert!(err.contains("--hash"), "{err}");
        assert!(!dir.join("o3.txt").exists());
        let _ = fs::remove_dir_all(&dir);
    }
}
