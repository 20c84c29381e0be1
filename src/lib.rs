//! Turncoat: a UCI engine for standard chess and five conversion variants.
//!
//! Layers, each depending only on those above it:
//! 1. core: [`position`], [`moves`], [`movegen`], [`fen`], [`zobrist`], [`game`];
//! 2. [`variants`]: one file per rulebook, behind the [`variants::Variant`] trait;
//! 3. engine: [`perft`], [`eval`], [`search`], [`bench`];
//! 4. front ends: [`uci`], and `main.rs` for the command line; [`tune`] fits the
//!    evaluation weights to self-play games, [`train`] the chess network ([`nnue`]).

pub mod bench;
pub mod cli;
pub mod datagen;
pub mod eval;
pub mod fen;
pub mod game;
pub mod movegen;
pub mod moves;
pub mod nnue;
pub mod perft;
pub mod position;
pub mod search;
pub mod serve;
pub mod tournament;
pub mod train;
pub mod tune;
pub mod uci;
pub mod variants;
pub mod zobrist;
