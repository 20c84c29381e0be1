//! The engine: search, evaluation, the chess network, benchmarks, balanced
//! openings and the shards of a long series of games, on top of
//! [`turncoat_rules`]. Nothing here does I/O on stdin/stdout: searches report
//! through callbacks, and the front ends format.

pub mod bench;
pub mod clock;
pub mod eval;
pub mod nnue;
pub mod openings;
pub mod policy;
pub mod search;
pub mod session;
pub mod shard;

pub use session::{Engine, Event, SessionError, StaticEval};

pub mod build;

/// The engine's name and version, as `id name` and the web board report it:
/// `Turncoat 1.0.0` for a tagged release, `Turncoat 1.0.0-dev-abc1234` for
/// any other commit (as Stockfish names its development builds).
pub use build::NAME;

/// The most search threads a front end may ask for (UCI `Threads`, `perft --threads`).
pub const THREADS_MAX: usize = 256;
