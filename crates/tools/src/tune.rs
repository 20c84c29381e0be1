//! `turncoat tune`: Texel tuning of the standard-chess evaluation. Reads our own
//! self-play games (PGN), keeps quiet positions labelled with the game result and
//! fits material, piece-square tables and the `Weights` terms so that
//! `sigmoid(K * eval / 400)` predicts the result; prints them as Rust source for
//! `crates/engine/src/eval/mod.rs`.

pub mod data;
pub mod emit;
pub mod fit;

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use fit::Group;
use turncoat_engine::eval::{self, DEFAULT_WEIGHTS};

/// Options of `turncoat tune`.
#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Progress and the error before/after go to stderr; stdout is the Rust source of \
                  MATERIAL_MG/EG, PST_MG/EG and DEFAULT_WEIGHTS, ready to paste into crates/engine/src/eval/mod.rs."
)]
pub struct TuneArgs {
    /// PGN files of standard-chess games (e.g. written by `turncoat match`).
    #[arg(required = true)]
    pub pgn: Vec<PathBuf>,
    /// Drop positions before this ply of the game (counted from the standard
    /// start position, so a random opening's plies count).
    #[arg(long, default_value_t = 12)]
    pub skip_plies: u32,
    /// Which parameters to fit (the others keep their current values).
    #[arg(long, value_enum, default_value_t = Group::All)]
    pub params: Group,
    /// Full-batch Adam iterations.
    #[arg(long, default_value_t = 1500)]
    pub epochs: usize,
    /// Adam step size (centipawns).
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// L2 pull toward the current values: the loss adds reg * sum((p - p0)^2).
    #[arg(long, default_value_t = 0.0)]
    pub reg: f64,
    /// Weight of the game result in the target; the rest is the engine's search
    /// score from the PGN move comments (1 = pure Texel tuning on results).
    #[arg(long, default_value_t = 1.0)]
    pub lambda: f64,
    /// Use this K instead of fitting it.
    #[arg(long)]
    pub k: Option<f64>,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

pub fn run(args: &TuneArgs) -> Result<(), String> {
    if args.threads == 0 {
        return Err("--threads must be at least 1".to_string());
    }
    if args.rate.is_nan() || args.rate <= 0.0 || args.reg.is_nan() || args.reg < 0.0 {
        return Err("--rate must be positive and --reg non-negative".to_string());
    }
    if !(0.0..=1.0).contains(&args.lambda) {
        return Err("--lambda must be within 0..1".to_string());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| format!("cannot start {} threads: {e}", args.threads))?;
    pool.install(|| tune(args))
}

fn tune(args: &TuneArgs) -> Result<(), String> {
    let start = Instant::now();
    let sel = data::Selection {
        skip_plies: u64::from(args.skip_plies),
    };
    let (mut data, stats) = data::load(&args.pgn, &sel, &DEFAULT_WEIGHTS)?;
    eprintln!(
        "{} games ({} skipped: unfinished or not decided on the board), {} positions \
         (skipped: {} opening, {} in check, {} check at the quiescence leaf), {:.1} s",
        stats.games,
        stats.games_skipped,
        stats.positions,
        stats.skipped_opening,
        stats.skipped_check,
        stats.skipped_noisy_leaf,
        start.elapsed().as_secs_f64()
    );
    if data.is_empty() {
        return Err("no positions to tune on".to_string());
    }
    let base = eval::params_of(&DEFAULT_WEIGHTS);
    let p0 = fit::to_float(&base);
    let e0 = fit::evals(&data, &p0);
    let k = match args.k {
        Some(k) => k,
        None => fit::fit_k(&e0, &data.result, 0.05, 10.0),
    };
    eprintln!(
        "K = {k:.4}, MSE of the current weights against the results = {:.6}",
        fit::mse(&e0, &data.result, k)
    );
    if args.lambda < 1.0 {
        data.blend(args.lambda, k);
    }
    let mse0 = fit::mse(&e0, &data.target, k);
    eprintln!("MSE of the current weights against the targets = {mse0:.6}");
    let settings = fit::Settings {
        k,
        epochs: args.epochs,
        rate: args.rate,
        reg: args.reg,
        group: args.params,
    };
    let fitted = fit::optimize(&data, &p0, &settings, &mut |epoch, loss| {
        eprintln!("epoch {epoch:5}  loss {loss:.6}");
    });
    let tuned = fit::to_int(&fitted);
    let e1 = fit::evals(&data, &fit::to_float(&tuned));
    let mse1 = fit::mse(&e1, &data.target, k);
    eprintln!(
        "MSE {mse0:.6} -> {mse1:.6} (integer weights; against the results alone {:.6}), \
         {:.1} s in all",
        fit::mse(&e1, &data.result, k),
        start.elapsed().as_secs_f64()
    );
    let command: Vec<String> = std::env::args().collect();
    println!("// Tuned by: {}", command.join(" "));
    println!(
        "// {} positions from {} games, K = {k:.4}, MSE {mse0:.6} -> {mse1:.6}",
        stats.positions, stats.games
    );
    print!("{}", emit::rust_source(&tuned, &DEFAULT_WEIGHTS));
    Ok(())
}
