//! The `turncoat` command line.

use clap::{Parser, Subcommand};

use turncoat::tournament;

#[derive(Parser)]
#[command(
    name = "turncoat",
    version,
    about = "A UCI chess engine for standard chess and five conversion variants"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Play a refereed engine match or tournament (configured by engines.toml).
    Match(Box<tournament::cli::MatchArgs>),
    /// A scripted UCI engine used by the match runner's tests.
    #[command(hide = true)]
    FakeEngine(tournament::fake::FakeEngineArgs),
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let code = match cli.command {
        Some(Command::Match(args)) => match tournament::cli::run(*args) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        },
        Some(Command::FakeEngine(args)) => tournament::fake::run(args),
        None => {
            eprintln!("error: the UCI mode is not part of this build yet; try 'turncoat match'");
            2
        }
    };
    std::process::exit(code);
}
