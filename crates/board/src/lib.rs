//! The web board's messages and what answers them, the same for both of the
//! board's backends: `turncoat serve` (a WebSocket per tab, searches on
//! threads) and the engine compiled to WebAssembly in the page (positions on
//! the page's thread, searches in a Web Worker). Nothing here does I/O or
//! knows the transport: [`session::Session`] turns a request's text into
//! responses, [`board`] describes positions and reads and writes PGN,
//! [`analysis`] runs a tab's engine and turns its events into the page's JSON,
//! [`report`] reads a whole game's analysis as lichess does, [`explorer`]
//! counts the moves of the user's PGN files by position.

pub mod analysis;
pub mod board;
pub mod explorer;
pub mod protocol;
pub mod report;
pub mod session;
