//! Offline tools on top of the rules and the engine: [`tune`] fits the
//! hand-written evaluation's weights to games, [`datagen`] plays self-play games
//! for network training data in any variant, [`packed`] is the compact format
//! it can write them in, [`data`] reads files of either format, [`convert`]
//! turns one into the other, [`relabel`] scores their positions again with
//! Turncoat's own search, [`smooth`] gives them scores that look ahead along
//! their games, [`train`] trains a variant's network, [`shift`]
//! moves a network's output by a constant, and [`average`] takes the mean of
//! several networks.

pub mod average;
pub mod convert;
pub mod data;
pub mod datagen;
pub mod evaluation;
pub mod packed;
pub mod relabel;
pub mod shift;
pub mod smooth;
pub mod train;
pub mod tune;
