//! The clock the search and the bench measure time with: the operating
//! system's, except in a browser's WebAssembly (`wasm32-unknown-unknown`),
//! where std's `Instant::now` panics and the page's `performance.now()` is the
//! clock to read.

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use std::time::Instant;
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use web_time::Instant;
