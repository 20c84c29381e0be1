//! Command line: no subcommand = UCI mode; `perft`, `bench`, `match`, `tune`,
//! `datagen`, `datagen-convert`, `relabel`, `smooth`, `train`, `shift-output`, `average-networks`, `match-merge`, `serve`. A clap dispatch and nothing else.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use turncoat::cli;
use turncoat::engine::bench;
use turncoat::rules::variants::VariantKind;
#[cfg(feature = "serve")]
use turncoat::serve;
#[cfg(feature = "tools")]
use turncoat::tools::{average, convert, datagen, relabel, shift, smooth, train, tune};
#[cfg(feature = "tournament")]
use turncoat::tournament;

/// `--help`'s closing text; the variants come from the rules' registry.
fn after_help() -> String {
    format!(
        "Variants (UCI option UCI_Variant, --variant): {}.\n\n{MOVES_AND_EXAMPLES}",
        VariantKind::names()
    )
}

const MOVES_AND_EXAMPLES: &str = "\
Moves are one token each: e2e4, e7e8q, e1g1; variant extras follow commas:
d4e5,n (Cowardly Crew, capture converting nothing), @e5,a2 (Subversion: subvert
e5 paying a2), b1c3,b2d3 (Attending Pawns: the knight's pawn goes to d3),
e4*e5f6g7 and e4* (Cruise Pawns: missile path, self-detonation). The rules,
notation and FEN extensions: docs/RULES.md.

Examples:
  turncoat                                   UCI mode (what GUIs run)
  turncoat match                             the demo match of ./engines.toml
  turncoat perft --variant pacifist --startpos --depth 4 --divide
  turncoat bench --variant subversion
In UCI mode, `go perft 1` lists the legal moves of the current position.";

/// `-V`: `1.0.0 (abc1234 2026-12-10)`, the build's version, commit and date.
fn version() -> &'static str {
    static LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LINE.get_or_init(turncoat::engine::build::version_line)
}

/// `--version`: the same, then the network kernel this binary runs (as
/// Stockfish names its build's instruction set).
fn long_version() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        format!(
            "{}\nnetwork kernel: {}",
            version(),
            turncoat::engine::nnue::dot_kernel()
        )
    })
}

#[derive(Parser)]
#[command(
    name = "turncoat",
    version = version(),
    long_version = long_version(),
    about = "A UCI chess engine for standard chess and conversion variants.\nWithout a subcommand it speaks UCI on stdin/stdout.",
    after_help = after_help()
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal-move tree (move generator check and speed).
    Perft(cli::PerftArgs),
    /// Fixed-depth search of built-in positions; prints nodes and nodes/second.
    Bench {
        /// Search depth per position.
        #[arg(default_value_t = bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Variant to bench (chess uses a list of 20 positions).
        #[arg(long, default_value = "chess")]
        variant: VariantKind,
    },
    #[cfg(feature = "tournament")]
    /// Play a refereed engine match or tournament (configured by engines.toml).
    Match(Box<tournament::cli::MatchArgs>),
    #[cfg(feature = "tools")]
    /// Texel-tune the standard-chess evaluation on self-play PGN games; prints
    /// the tuned tables and weights as Rust source to paste into
    /// crates/engine/src/eval/mod.rs.
    Tune(tune::TuneArgs),
    #[cfg(feature = "tools")]
    /// Play self-play games of a variant (--variant, chess by default) at fixed
    /// nodes and write their quiet positions (`FEN;score;result` lines, or
    /// --format packed records) as training data for `train`; --shard I/N plays
    /// part of the run.
    Datagen(datagen::DatagenArgs),
    #[cfg(feature = "tools")]
    /// Convert training data between the text and packed formats (to packed
    /// unless --format text).
    DatagenConvert(convert::ConvertArgs),
    #[cfg(feature = "tools")]
    /// Score the positions of data files again with Turncoat's own search (the
    /// newest network, --nodes per position), keeping their game results.
    Relabel(relabel::RelabelArgs),
    #[cfg(feature = "tools")]
    /// Give each position of self-play data the lambda-weighted mean of its
    /// game's scores over the next --plies plies (a TD(lambda) target).
    Smooth(smooth::SmoothArgs),
    #[cfg(feature = "tools")]
    /// Train a variant's network (--variant, chess by default) on labelled
    /// positions (`datagen`, scripts/label_positions.py) and write it to the
    /// --out file.
    Train(train::TrainArgs),
    #[cfg(feature = "tools")]
    /// Write a network file with its output scaled by --times and moved by
    /// --by centipawns (the output layers' weights and biases), as
    /// Subversion's shipped network was lowered by 25.
    ShiftOutput(shift::ShiftArgs),
    #[cfg(feature = "tools")]
    /// Write the (weighted) mean of two or more networks of one shape, weight
    /// by weight: a soup of fine-tunes of one parent.
    AverageNetworks(average::AverageArgs),
    #[cfg(feature = "tournament")]
    /// Combine the PGN files of match shards into one Elo / pentanomial report.
    MatchMerge(tournament::merge::MergeArgs),
    #[cfg(feature = "serve")]
    /// Serve a web board to play and analyse every variant (localhost).
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        None => {
            turncoat::uci::Uci::new().run();
            Ok(())
        }
        Some(Command::Perft(args)) => cli::perft(&args),
        Some(Command::Bench { depth, variant }) => {
            bench::run(variant, depth).map(|_| ()).map_err(String::from)
        }
        #[cfg(feature = "tournament")]
        Some(Command::Match(args)) => tournament::cli::run(*args),
        #[cfg(feature = "tools")]
        Some(Command::Tune(args)) => tune::run(&args),
        #[cfg(feature = "tools")]
        Some(Command::Datagen(args)) => datagen::run(&args),
        #[cfg(feature = "tools")]
        Some(Command::DatagenConvert(args)) => convert::run(&args),
        #[cfg(feature = "tools")]
        Some(Command::Relabel(args)) => relabel::run(&args),
        #[cfg(feature = "tools")]
        Some(Command::Smooth(args)) => smooth::run(&args),
        #[cfg(feature = "tools")]
        Some(Command::Train(args)) => train::run(&args),
        #[cfg(feature = "tools")]
        Some(Command::ShiftOutput(args)) => shift::run(&args),
        #[cfg(feature = "tools")]
        Some(Command::AverageNetworks(args)) => average::run(&args),
        #[cfg(feature = "tournament")]
        Some(Command::MatchMerge(args)) => tournament::merge::run(args),
        #[cfg(feature = "serve")]
        Some(Command::Serve(args)) => serve::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
