use turncoat::variants::chess::Chess;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let depth: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let fen = args
        .get(2)
        .cloned()
        .unwrap_or("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into());
    let threads: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let pos = turncoat::fen::parse::<Chess>(&fen).unwrap();
    let t = std::time::Instant::now();
    let n = turncoat::perft::perft_parallel(&pos, depth, threads);
    println!("{n} {:?}", t.elapsed());
}
