//! Offline tools on top of the rules and the engine: [`tune`] fits the
//! hand-written evaluation's weights to games, [`datagen`] plays self-play games
//! for network training data in any variant, and [`train`] trains a variant's
//! network.

pub mod datagen;
pub mod train;
pub mod tune;
