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

/// The engine's name and version, as `id name` and the web board report it.
pub const NAME: &str = concat!("Turncoat ", env!("CARGO_PKG_VERSION"));

/// The most search threads a front end may ask for (UCI `Threads`, `perft --threads`).
pub const THREADS_MAX: usize = 256;
