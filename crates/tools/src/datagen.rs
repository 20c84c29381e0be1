//! `turncoat datagen`: self-play games of any variant (`--variant`, chess by
//! default) at a fixed node count, written as training positions for the
//! variant's network (`turncoat train --variant`).
//!
//! Games are what the network needs most of, and the match runner spends most of
//! its effort elsewhere (two engine processes per game, UCI text, PGN). Here every
//! thread plays whole games in-process and keeps only the positions a static
//! evaluation can judge: not in check, and the move chosen not noisy as the
//! variant's search defines it (`Policy::is_noisy`: captures and promotions in
//! chess, plus the variant's tactical moves), outside the random opening. Games
//! end by the variant's own rules (`Game::outcome`).
//!
//! Output, one position per line: `FEN;score;result` (the variant's FEN, with its
//! seventh field where the variant has one), the score Turncoat's search
//! gave it (centipawns, White's view) and the game's result for White (1, 0.5, 0).
//! `scripts/label_positions.py --relabel` can replace the score by Stockfish's
//! static evaluation; `turncoat train` reads either.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use clap::Args;
use shakmaty::Color;

use turncoat_engine::openings::random_opening;
use turncoat_engine::policy::Policy;
use turncoat_engine::search::tt::TranspositionTable;
use turncoat_engine::search::{self, HistoryStore, Limits, Options, Shared, MATE_BOUND};
use turncoat_rules::fen;
use turncoat_rules::game::{self, Game, Outcome};
use turncoat_rules::position::Position;
use turncoat_rules::variants::VariantKind;
use turncoat_rules::with_variant;

#[derive(Args, Debug, Clone)]
pub struct DatagenArgs {
    /// The variant to play (chess, cowardlycrew, pacifist, attendingpawns,
    /// subversion, cruisepawns).
    #[arg(long, default_value = "chess")]
    pub variant: VariantKind,
    /// Where to append the positions.
    #[arg(long)]
    pub out: PathBuf,
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Nodes per move (one search thread per game).
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Random legal plies before the engine plays (kept only if roughly level).
    #[arg(long, default_value_t = 8)]
    pub random_plies: u32,
    /// Games played at once.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Seeds the openings: game `i` of seed `s` is the same on every machine, so
    /// shards with different seeds never repeat each other.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Hash table per game, in MiB.
    #[arg(long, default_value_t = 8)]
    pub hash: usize,
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

/// One game's kept positions and its result for White ("1", "0.5", "0").
struct Played {
    positions: Vec<(String, i32)>,
    result: &'static str,
}

pub fn run(args: &DatagenArgs) -> Result<(), String> {
    if args.nodes == 0 || args.threads == 0 {
        return Err("--nodes and --threads must be positive".into());
    }
    let file = File::options()
        .create(true)
        .append(true)
        .open(&args.out)
        .map_err(|e| format!("cannot open {}: {e}", args.out.display()))?;
    let out = Mutex::new(BufWriter::new(file));
    let next = AtomicU64::new(0);
    let kept = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let start = Instant::now();
    let error: Mutex<Option<String>> = Mutex::new(None);

    std::thread::scope(|scope| {
        for _ in 0..args.threads {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= args.games || error.lock().map_or(true, |e| e.is_some()) {
                    return;
                }
                let played = with_variant!(args.variant, V => play_game::<V>(args, index));
                let written = played.and_then(|played| {
                    let mut text = String::new();
                    for (fen, score) in &played.positions {
                        text.push_str(&format!("{fen};{score};{}\n", played.result));
                    }
                    let mut w = out.lock().map_err(|_| "output lock poisoned".to_string())?;
                    w.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
                    Ok(played.positions.len() as u64)
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
                if games.is_multiple_of(100) || games == args.games {
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

/// Plays game `index` of the series to its end (or adjudication).
fn play_game<V: Policy>(args: &DatagenArgs, index: u64) -> Result<Played, String> {
    let opening = random_opening::<V>(args.seed, index, args.random_plies)?;
    let start: Position<V> = fen::parse(&opening)?;
    let mut game = Game::new(start);
    let tt = Arc::new(TranspositionTable::try_new(args.hash)?);
    let history = Arc::new(HistoryStore::default());
    let limits = Limits {
        nodes: Some(args.nodes),
        ..Limits::default()
    };
    let options = Options::default();
    let mut positions = Vec::new();
    let mut winning = 0usize;
    let mut level = 0usize;
    let mut last_sign = 0;

    let result = loop {
        if let Some(outcome) = game.outcome() {
            break match outcome {
                Outcome::Win {
                    winner: Color::White,
                    ..
                } => "1",
                Outcome::Win { .. } => "0",
                Outcome::Draw { .. } => "0.5",
            };
        }
        if game.moves.len() >= MAX_PLIES {
            break "0.5";
        }
        let shared = Shared::with_history(tt.clone(), history.clone());
        let found = search::search(
            &game.pos,
            &game.keys[..game.keys.len() - 1],
            &limits,
            &options,
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
            break if sign > 0 { "1" } else { "0" };
        }
        level = if score.abs() <= DRAW_SCORE {
            level + 1
        } else {
            0
        };
        if game.moves.len() >= DRAW_FROM_PLY && level >= DRAW_PLIES {
            break "0.5";
        }

        let quiet = !V::is_noisy(&game.pos, mv) && !V::in_check(&game.pos);
        if quiet && found.score.abs() < MATE_BOUND {
            positions.push((fen::format(&game.pos), score));
        }
        game.play(mv);
    };
    Ok(Played { positions, result })
}
