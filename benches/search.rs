//! Search speed: `cargo bench --bench search`. Runs the `turncoat bench` position
//! list at a fixed depth and prints total nodes and nodes/second.

fn main() {
    let depth: u32 = std::env::var("BENCH_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(turncoat::engine::bench::DEFAULT_DEPTH);
    match turncoat::engine::bench::run(turncoat::rules::variants::VariantKind::Chess, depth) {
        Ok(r) => println!("bench depth {depth}: {} nodes in {} ms", r.nodes, r.millis),
        Err(e) => {
            eprintln!("bench failed: {e}");
            std::process::exit(1);
        }
    }
}
