//! Perft speed: `cargo bench --bench perft`. Median of five runs of standard
//! chess perft from the start position, single-threaded and on two threads.

use std::time::{Duration, Instant};

use turncoat::rules::perft;
use turncoat::rules::position::Position;
use turncoat::rules::variants::chess::Chess;

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn main() {
    let depth: u32 = std::env::var("PERFT_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(6);
    let pos = Position::<Chess>::startpos();
    for threads in [1, 2] {
        let mut nodes = 0;
        let runs: Vec<Duration> = (0..5)
            .map(|_| {
                let t = Instant::now();
                nodes = perft::perft_parallel(&pos, depth, threads);
                t.elapsed()
            })
            .collect();
        let m = median(runs);
        println!(
            "perft startpos depth {depth}, {threads} thread(s): {nodes} nodes, median {:.3} s, {:.1} Mnps",
            m.as_secs_f64(),
            nodes as f64 / m.as_secs_f64() / 1e6
        );
    }
}
