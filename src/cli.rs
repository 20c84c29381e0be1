//! Command-line subcommands other than UCI (argument types live here so that
//! `main.rs` only dispatches).

use std::time::Instant;

use clap::Args;

use crate::engine::THREADS_MAX;
use crate::rules::fen;
use crate::rules::perft;
use crate::rules::position::Position;
use crate::rules::variants::{Variant, VariantKind};
use crate::with_variant;

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Variant (the UCI_Variant names).
    #[arg(long, default_value = "chess")]
    pub variant: VariantKind,
    /// Position to count from.
    #[arg(long, conflicts_with = "startpos")]
    pub fen: Option<String>,
    /// Count from the variant's start position (the default).
    #[arg(long)]
    pub startpos: bool,
    /// Depth in plies.
    #[arg(long)]
    pub depth: u32,
    /// Print the count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// Worker threads (rayon), 1 to 256.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

pub fn perft(args: &PerftArgs) -> Result<(), String> {
    if args.depth == 0 || args.depth > 20 {
        return Err(format!("depth must be 1..20, got {}", args.depth));
    }
    if !(1..=THREADS_MAX).contains(&args.threads) {
        return Err(format!(
            "--threads must be 1..{THREADS_MAX} (as the UCI option Threads), got {}",
            args.threads
        ));
    }
    with_variant!(args.variant, V => perft_for::<V>(args))
}

fn perft_for<V: Variant>(args: &PerftArgs) -> Result<(), String> {
    let pos: Position<V> = match &args.fen {
        Some(f) => fen::parse(f).map_err(|e| format!("invalid FEN '{f}': {e}"))?,
        None => Position::startpos(),
    };
    let threads = args.threads;
    let start = Instant::now();
    let nodes = if args.divide {
        let lines = perft::divide(&pos, args.depth, threads);
        for (token, n) in &lines {
            println!("{token}: {n}");
        }
        println!();
        lines.iter().map(|(_, n)| n).sum()
    } else {
        perft::perft_parallel(&pos, args.depth, threads)
    };
    let elapsed = start.elapsed();
    println!("Nodes searched: {nodes}");
    eprintln!(
        "time {:.3} s, {:.1} Mnps",
        elapsed.as_secs_f64(),
        nodes as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6
    );
    Ok(())
}
