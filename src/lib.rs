//! Turncoat: a UCI engine for standard chess and five conversion variants.
//!
//! Three layers, each importing only from the ones before it in this list
//! (`tests/layers.rs` checks it):
//! 1. [`rules`]: the position, moves, move generation, FEN, Zobrist keys, the game
//!    record and its outcome, perft, PGN reading, and one rulebook per variant
//!    (`rules/variants/<name>.rs`). Knows nothing of search or evaluation.
//! 2. [`engine`]: search, evaluation (shared terms and each variant's own terms and
//!    search policy), the chess network, bench, openings, and [`engine::Engine`],
//!    an analysis session that reports through a callback and prints nothing.
//! 3. front ends: [`uci`] (the protocol), [`tournament`] (the match runner),
//!    [`tools`] (tune, train, datagen), [`cli`] (the perft command) and `main.rs`,
//!    the command-line dispatch.

pub use turncoat_engine as engine;
pub use turncoat_rules as rules;
pub use turncoat_rules::with_variant;
pub use turncoat_uci as uci;

#[cfg(feature = "serve")]
pub use turncoat_serve as serve;
#[cfg(feature = "tools")]
pub use turncoat_tools as tools;
#[cfg(feature = "tournament")]
pub use turncoat_tournament as tournament;

pub mod cli;
