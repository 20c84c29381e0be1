//! `turncoat bench`: a fixed-depth search of a built-in list of positions. The
//! node count is deterministic (one thread, fresh tables per position) and is the
//! build's signature; nodes/second is the speed figure OpenBench reads.

use crate::clock::Instant;

use crate::policy::Policy;
use crate::search::{self, Limits};
use turncoat_rules::fen::{self, FenError};
use turncoat_rules::position::Position;
use turncoat_rules::variants::VariantKind;
use turncoat_rules::with_variant;

pub const DEFAULT_DEPTH: u32 = 9;

/// Standard-chess bench positions (openings, middlegames, endgames, tactics).
pub const CHESS_POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14",
    "r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4Pp2/1BNP4/PPP2PPP/3R1RK1 w - - 2 14",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "r1bq1b1r/ppp3pp/2n1k3/3pp3/2B1n3/5Q2/PPPP1PPP/RNB1K2R w KQ - 2 8",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "2K5/p7/7P/5pR1/8/5k2/r7/8 w - - 0 1",
    "8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
    "7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1",
    "8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1",
    "1r3k2/4q3/2Pp3b/3Bp3/2Q2p2/1p1P2P1/1P2KP2/3N4 w - - 0 1",
    "6k1/4pp1p/3p2p1/P1pPb3/R7/1r2P1PP/3B1P2/6K1 w - - 0 1",
];

pub struct BenchResult {
    pub nodes: u64,
    pub millis: u128,
}

/// Runs the bench for `variant` at `depth` and prints Stockfish's summary lines.
/// The only failure is a built-in position the rules refuse.
pub fn run(variant: VariantKind, depth: u32) -> Result<BenchResult, FenError> {
    let start = Instant::now();
    let mut nodes = 0;
    let positions: Vec<String> = if variant == VariantKind::Chess {
        CHESS_POSITIONS.iter().map(|s| s.to_string()).collect()
    } else {
        vec![variant.start_fen().to_string()]
    };
    for (i, fen_str) in positions.iter().enumerate() {
        let n = with_variant!(variant, V => bench_one::<V>(fen_str, depth))?;
        eprintln!(
            "Position: {}/{} {fen_str}: {n} nodes",
            i + 1,
            positions.len()
        );
        nodes += n;
    }
    let millis = start.elapsed().as_millis();
    println!("\n===========================");
    println!("Total time (ms) : {millis}");
    println!("Nodes searched  : {nodes}");
    println!("Nodes/second    : {}", nodes as u128 * 1000 / millis.max(1));
    Ok(BenchResult { nodes, millis })
}

/// The bench's search of one position (one thread, a fresh 16 MB table, to
/// `depth`): deterministic, so the browser's build and the native one must
/// answer it alike (best move, score, nodes).
pub fn search_position(
    variant: VariantKind,
    fen_str: &str,
    depth: u32,
) -> Result<search::SearchResult, FenError> {
    with_variant!(variant, V => {
        let pos: Position<V> = fen::parse(fen_str)?;
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        Ok(search::search_fresh(&pos, &[], &limits, 16))
    })
}

fn bench_one<V: Policy>(fen_str: &str, depth: u32) -> Result<u64, FenError> {
    let pos: Position<V> = fen::parse(fen_str)?;
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let result = search::search_fresh(&pos, &[], &limits, 16);
    Ok(result.nodes)
}
