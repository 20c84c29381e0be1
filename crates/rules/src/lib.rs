//! The rules of the six variants: everything needed to set up, print, generate,
//! play and referee a game, and nothing about searching or evaluating one.
//! The match referee, the PGN reader, the tools and the web board use this layer
//! without the engine. Nothing here imports from the engine or the front
//! ends (`tests/layers.rs` checks it). The rules themselves are written down in
//! `docs/RULES.md`.
//!
//! Front ends hold a game of any variant through [`live::LiveGame`], which
//! answers in types (legal moves with their squares, what a move did, the
//! variant's state, typed refusals); the engine uses the monomorphised
//! `Position<V>`, generation and `Variant::play`. What changes a position
//! other than a move stays inside this crate.

pub mod bitboards;
pub mod fen;
pub mod game;
pub mod live;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod pgn;
pub mod position;
pub mod sentence;
pub mod variants;
pub mod zobrist;

pub use fen::FenError;
pub use game::{MoveError, SetupError};
pub use notation::NotationError;
pub use pgn::PgnError;
pub use variants::UnknownVariant;
