//! `turncoat datagen`: self-play games of any variant (`--variant`, chess by
//! default) at a fixed node count, written as training positions for the
//! variant's network (`turncoat train --variant`).
//!
//! Games are what the network needs most of, and the match runner spends most of
//! its effort elsewhere (two engine processes per game, UCI text, PGN). Here every
//! thread plays whole games in-process and keeps only the positions a static
//! evaluation can judge: not in check, and the move chosen not noisy as the
//! variant's search defines it (`Policy::is_noisy`: captures and promotions in
//! chess, plus the variant's tactical moves; `--keep-noisy` keeps those too),
//! outside the random opening. Games end by the variant's own rules
//! (`Game::outcome`).
//!
//! Output (`--format text`, the default), one position per line:
//! `FEN;score;result` (the variant's FEN, with its seventh field where the
//! variant has one), the score Turncoat's search gave it (centipawns, White's
//! view) and the game's result for White (1, 0.5, 0). `--format packed` writes
//! the same as the records of [`crate::packed`] (32 bytes a chess position).
//! `scripts/label_positions.py --relabel` can replace the score by Stockfish's
//! static evaluation; `turncoat train` reads all of these.
//!
//! `--shard I/N` plays the games `i` with `i mod N = I - 1` (as `turncoat match
//! --shard` its game pairs): game `i` is the same wherever it is played, so the
//! N parts' files together hold the unsharded run's positions.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use clap::Args;
use shakmaty::Color;

use crate::data::Format;
use crate::evaluation::Evaluation;
use crate::packed::{self, GameResult};
use turncoat_engine::openings::{random_opening_checked, BALANCE_NODES};
use turncoat_engine::policy::Policy;
use turncoat_engine::search::tt::TranspositionTable;
use turncoat_engine::search::{self, HistoryStore, Limits, Options, Shared, MATE_BOUND};
use turncoat_engine::shard::Shard;
use turncoat_rules::fen;
use turncoat_rules::game::{self, Game, Outcome};
use turncoat_rules::moves::Move;
use turncoat_rules::position::Position;
use turncoat_rules::variants::{Variant, VariantKind};
use turncoat_rules::with_variant;

#[derive(Args, Debug, Clone)]
pub struct DatagenArgs {
    /// The variant to play.
    #[arg(long, default_value = "chess")]
    pub variant: VariantKind,
    /// Where to append the positions.
    #[arg(long)]
    pub out: PathBuf,
    /// How to write them: text lines, or packed records (a packed --out must be
    /// new, empty or a packed file of the same variant).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Nodes per move (one search thread per game).
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Random legal plies before the engine plays (kept only if roughly level).
    #[arg(long, default_value_t = 8)]
    pub random_plies: u32,
    /// Nodes of the search that keeps a random opening only if it is roughly
    /// level (matches' openings use the default). Fewer make data faster where
    /// games are short, and let a few more lopsided openings through.
    #[arg(long, default_value_t = BALANCE_NODES)]
    pub balance_nodes: u64,
    /// Keep the positions before a noisy move as well (still none in check or
    /// scored as a mate). Where most good moves are noisy (Attending Pawns'
    /// placements with check), leaving them out leaves out the positions whose
    /// side to move has a shot, and the network learns to undervalue having one.
    #[arg(long)]
    pub keep_noisy: bool,
    /// Games played at once.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Seeds the openings: game `i` of seed `s` is the same on every machine, so
    /// runs with different seeds never repeat each other.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Play only part I of N of the run: its games i (0-based, of --games) with
    /// i mod N = I-1. The N parts' files together hold the positions of the
    /// unsharded run (give every part the same options and seed).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Hash table per game, in MiB.
    #[arg(long, default_value_t = 8)]
    pub hash: usize,
    /// The evaluation that plays and scores the games.
    #[command(flatten)]
    pub evaluation: Evaluation,
}

/// A side whose score stays beyond this for [`ADJUDICATE_PLIES`] plies in a row
/// (both sides' searches agreeing) is declared the winner: the rest of such games
/// teaches little and costs as much as the opening.
const WIN_SCORE: i32 = 1500;
const ADJUDICATE_PLIES: usize = 6;
/// Scores within this of zero for [`DRAW_PLIES`] plies after [`DRAW_FROM_PLY`]
/// make a draw.
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: usize = 12;
const DRAW_FROM_PLY: usize = 80;
/// Games longer than this are drawn (the 50-move rule ends almost all before).
const MAX_PLIES: usize = 600;

/// One game's kept positions and its result for White, and the game itself (so
/// that it can be replayed): the opening's FEN, the moves played and every
/// search's score (White's view), one more score than moves when adjudication
/// stopped the game.
struct Played<V: Variant> {
    positions: Vec<(Position<V>, i32)>,
    result: GameResult,
    // The record only the tests read back (they replay every game from it).
    #[cfg_attr(not(test), allow(dead_code))]
    opening: String,
    #[cfg_attr(not(test), allow(dead_code))]
    moves: Vec<Move>,
    #[cfg_attr(not(test), allow(dead_code))]
    scores: Vec<i32>,
}

pub fn run(args: &DatagenArgs) -> Result<(), String> {
    if args.nodes == 0 || args.threads == 0 || args.balance_nodes == 0 {
        return Err("--nodes, --balance-nodes and --threads must be positive".into());
    }
    let options = args.evaluation.options()?;
    let file = match args.format {
        Format::Text if starts_packed(&args.out) => {
            return Err(format!(
                "{} is a packed file: add --format packed to append to it",
                args.out.display()
            ))
        }
        Format::Text => File::options()
            .create(true)
            .append(true)
            .open(&args.out)
            .map_err(|e| format!("cannot open {}: {e}", args.out.display()))?,
        Format::Packed => {
            let (file, cut) =
                packed::open_append(&args.out, args.variant).map_err(|e| match e {
                    packed::PackedError::Io(e) => {
                        format!("cannot open {}: {e}", args.out.display())
                    }
                    e => format!("{}: {e}", args.out.display()),
                })?;
            if cut > 0 {
                eprintln!(
                    "{}: cut off the last {cut} bytes, a record left unfinished",
                    args.out.display()
                );
            }
            file
        }
    };
    let out = Mutex::new(BufWriter::new(file));
    let (first, step) = match args.shard {
        Some(shard) => ((shard.index - 1) as u64, shard.count as u64),
        None => (0, 1),
    };
    // This run's games: first, first + step, ... below --games.
    let planned = args.games.saturating_sub(first).div_ceil(step);
    let next = AtomicU64::new(0);
    let kept = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let start = Instant::now();
    let error: Mutex<Option<String>> = Mutex::new(None);

    std::thread::scope(|scope| {
        for _ in 0..args.threads {
            scope.spawn(|| loop {
                let nth = next.fetch_add(1, Ordering::Relaxed);
                if nth >= planned || error.lock().map_or(true, |e| e.is_some()) {
                    return;
                }
                let index = first + nth * step;
                let written =
                    with_variant!(args.variant, V => play_game::<V>(args, &options, index)
                    .and_then(|played| game_bytes(&played, args.format)))
                    .and_then(|(bytes, count)| {
                        let mut w = out.lock().map_err(|_| "output lock poisoned".to_string())?;
                        w.write_all(&bytes).map_err(|e| e.to_string())?;
                        Ok(count)
                    });
                let count = match written {
                    Ok(count) => count,
                    Err(e) => {
                        if let Ok(mut slot) = error.lock() {
                            slot.get_or_insert(e);
                        }
                        return;
                    }
                };
                let total = kept.fetch_add(count, Ordering::Relaxed) + count;
                let games = done.fetch_add(1, Ordering::Relaxed) + 1;
                if games.is_multiple_of(100) || games == planned {
                    let secs = start.elapsed().as_secs_f64().max(1e-9);
                    eprintln!(
                        "{games} games, {total} positions, {:.0} games/min, {:.0} positions/s",
                        games as f64 * 60.0 / secs,
                        total as f64 / secs
                    );
                }
            });
        }
    });
    if let Some(e) = error.into_inner().ok().flatten() {
        return Err(e);
    }
    out.into_inner()
        .map_err(|_| "output lock poisoned".to_string())?
        .flush()
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))
}

/// Whether `path` is a regular file that starts as a packed file does (text
/// appended to it would spoil it).
fn starts_packed(path: &std::path::Path) -> bool {
    if !path.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut start = [0u8; packed::MAGIC.len()];
    File::open(path)
        .and_then(|mut f| packed::read_full(&mut f, &mut start))
        .is_ok_and(|got| packed::is_packed(&start[..got]))
}

/// A game's positions as `format` writes them, and how many.
fn game_bytes<V: Variant>(played: &Played<V>, format: Format) -> Result<(Vec<u8>, u64), String> {
    let mut bytes = Vec::new();
    for (pos, score) in &played.positions {
        crate::data::encode(pos, *score, played.result, format, &mut bytes)?;
    }
    Ok((bytes, played.positions.len() as u64))
}

/// Plays game `index` of the series to its end (or adjudication).
fn play_game<V: Policy>(
    args: &DatagenArgs,
    options: &Options,
    index: u64,
) -> Result<Played<V>, String> {
    let opening =
        random_opening_checked::<V>(args.seed, index, args.random_plies, args.balance_nodes)?;
    let start: Position<V> = fen::parse(&opening)?;
    let mut game = Game::new(start);
    let tt = Arc::new(TranspositionTable::try_new(args.hash)?);
    let history = Arc::new(HistoryStore::default());
    let limits = Limits {
        nodes: Some(args.nodes),
        ..Limits::default()
    };
    let mut positions = Vec::new();
    let mut scores = Vec::new();
    let mut winning = 0usize;
    let mut level = 0usize;
    let mut last_sign = 0;

    let result = loop {
        if let Some(outcome) = game.outcome() {
            break match outcome {
                Outcome::Win {
                    winner: Color::White,
                    ..
                } => GameResult::WhiteWon,
                Outcome::Win { .. } => GameResult::BlackWon,
                Outcome::Draw { .. } => GameResult::Draw,
            };
        }
        if game.moves.len() >= MAX_PLIES {
            break GameResult::Draw;
        }
        let shared = Shared::with_history(tt.clone(), history.clone());
        let found = search::search(
            &game.pos,
            &game.keys[..game.keys.len() - 1],
            &limits,
            options,
            &shared,
            &mut |_| {},
        );
        let mv = found
            .best
            .as_deref()
            .and_then(|token| game::find_move(&game.pos, token))
            .ok_or_else(|| format!("no move found in {}", fen::format(&game.pos)))?;
        let white = game.pos.turn() == Color::White;
        let score = if white { found.score } else { -found.score };
        scores.push(score);

        // Adjudication counts plies in a row with the same verdict.
        let sign = if score >= WIN_SCORE {
            1
        } else if score <= -WIN_SCORE {
            -1
        } else {
            0
        };
        winning = if sign != 0 && sign == last_sign {
            winning + 1
        } else {
            usize::from(sign != 0)
        };
        last_sign = sign;
        if winning >= ADJUDICATE_PLIES {
            break if sign > 0 {
                GameResult::WhiteWon
            } else {
                GameResult::BlackWon
            };
        }
        level = if score.abs() <= DRAW_SCORE {
            level + 1
        } else {
            0
        };
        if game.moves.len() >= DRAW_FROM_PLY && level >= DRAW_PLIES {
            break GameResult::Draw;
        }

        let quiet = (args.keep_noisy || !V::is_noisy(&game.pos, mv)) && !V::in_check(&game.pos);
        if quiet && found.score.abs() < MATE_BOUND {
            positions.push((game.pos, score));
        }
        game.play(mv);
    };
    Ok(Played {
        positions,
        result,
        opening,
        moves: game.moves,
        scores,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use turncoat_rules::moves::MoveList;
    use turncoat_rules::variants::attending_pawns::AttendingPawns;

    const GAMES: u64 = 4;

    /// The result adjudication gives a game that `played`'s scores (White's
    /// view) stopped, or `None` if they stop nothing: the last few scores all
    /// beyond [`WIN_SCORE`] for one side, the last [`DRAW_PLIES`] level after
    /// [`DRAW_FROM_PLY`] plies, or [`MAX_PLIES`] played.
    fn adjudicated<V: Variant>(played: &Played<V>) -> Option<&'static str> {
        let (scores, plies) = (&played.scores, played.moves.len());
        if plies >= MAX_PLIES && scores.len() == plies {
            return Some("0.5");
        }
        // Adjudication stops after a search, before its move is played.
        if scores.len() != plies + 1 {
            return None;
        }
        let last = |n: usize| &scores[scores.len().saturating_sub(n)..];
        let all =
            |n: usize, f: fn(i32) -> bool| last(n).len() == n && last(n).iter().all(|&s| f(s));
        if all(ADJUDICATE_PLIES, |s| s >= WIN_SCORE) {
            Some("1")
        } else if all(ADJUDICATE_PLIES, |s| s <= -WIN_SCORE) {
            Some("0")
        } else if plies >= DRAW_FROM_PLY && all(DRAW_PLIES, |s| s.abs() <= DRAW_SCORE) {
            Some("0.5")
        } else {
            None
        }
    }

    /// Replays `GAMES` games of `V` from their openings: the positions written
    /// are exactly those before a move that is legal, not noisy by the variant's
    /// own `is_noisy`, not made in check, and not scored as a mate, in order, with
    /// their search's score from White's view; every line's result is the game's
    /// for White: the variant's own outcome of the replayed final position, or
    /// the adjudication its scores call for. The file `run` writes (one thread)
    /// holds the same lines in game order. With `keep_noisy` the positions
    /// before noisy moves are written too. Returns (positions before noisy
    /// moves left out or, with `keep_noisy`, kept; games the rules ended).
    fn replay<V: Policy>(variant: VariantKind, keep_noisy: bool) -> (usize, usize) {
        let out = std::env::temp_dir().join(format!(
            "turncoat-datagen-replay-{}-{variant}.txt",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&out);
        let args = DatagenArgs {
            variant,
            out: out.clone(),
            games: GAMES,
            nodes: 200,
            random_plies: 8,
            threads: 1,
            balance_nodes: BALANCE_NODES,
            keep_noisy,
            seed: 11,
            hash: 1,
            evaluation: Evaluation::default(),
            shard: None,
            format: Format::Text,
        };
        run(&args).unwrap();
        let written = std::fs::read_to_string(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        let mut lines = written.lines();
        let (mut noisy, mut by_rules) = (0, 0);
        for index in 0..GAMES {
            let played = play_game::<V>(&args, &Options::default(), index).unwrap();
            let mut game = Game::new(fen::parse::<V>(&played.opening).unwrap());
            let mut kept = played
                .positions
                .iter()
                .map(|(pos, score)| (fen::format(pos), *score));
            for (ply, &mv) in played.moves.iter().enumerate() {
                let mut legal = MoveList::new();
                V::legal_moves(&game.pos, &mut legal);
                assert!(legal.contains(&mv), "{variant} game {index} ply {ply}");
                let score = played.scores[ply];
                let is_noisy = V::is_noisy(&game.pos, mv);
                let judged = !V::in_check(&game.pos) && score.abs() < MATE_BOUND;
                if judged && (keep_noisy || !is_noisy) {
                    let expected = (fen::format(&game.pos), score);
                    assert_eq!(kept.next(), Some(expected), "{variant} game {index}");
                }
                noisy += usize::from(is_noisy && judged);
                game.play(mv);
            }
            assert_eq!(kept.next(), None, "{variant} game {index}: extra positions");
            let result = match game.outcome() {
                Some(outcome) => {
                    by_rules += 1;
                    match outcome.result() {
                        "1-0" => "1",
                        "0-1" => "0",
                        _ => "0.5",
                    }
                }
                None => adjudicated(&played)
                    .unwrap_or_else(|| panic!("{variant} game {index} ended by no rule")),
            };
            assert_eq!(played.result.text(), result, "{variant} game {index}");
            for (pos, score) in &played.positions {
                let line = format!("{};{score};{result}", fen::format(pos));
                assert_eq!(lines.next(), Some(line.as_str()), "{variant} game {index}");
            }
        }
        assert_eq!(lines.next(), None, "{variant}: lines of no game");
        (noisy, by_rules)
    }

    #[test]
    fn written_positions_and_results_follow_the_replayed_games() {
        let mut ended_by_rules = 0;
        for &variant in VariantKind::ALL {
            let (noisy, by_rules) = with_variant!(variant, V => replay::<V>(variant, false));
            eprintln!(
                "{variant}: {noisy} noisy positions left out, {by_rules} games ended by the rules"
            );
            assert!(noisy > 0, "{variant}: no noisy move to leave out");
            ended_by_rules += by_rules;
        }
        assert!(ended_by_rules > 0, "no game ended by the rules");
    }

    /// `--keep-noisy`: the positions before noisy moves are written as well.
    #[test]
    fn keep_noisy_writes_the_positions_before_noisy_moves() {
        let (kept, _) = replay::<AttendingPawns>(VariantKind::AttendingPawns, true);
        assert!(kept > 0, "no noisy move's position kept");
    }
}
