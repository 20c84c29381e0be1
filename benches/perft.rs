//! Perft speed.
//!
//! - `cargo bench --bench perft`: median of five runs of standard chess perft from
//!   the start position (depth `PERFT_DEPTH`, default 6), on one and two threads.
//! - `cargo bench --bench perft -- --variant <name>` (or `--variant all`): the
//!   variant positions that used to be the ignored `perft_speed` tests of
//!   tests/attending_pawns.rs, subversion.rs and cruise_pawns.rs, each beside
//!   standard chess perft of the same board, so the cost of the variant's rules
//!   shows as a ratio. Perft counts leaves in bulk, so both leaves/s and
//!   generations/s (positions whose moves were generated, perft(0) + ... +
//!   perft(depth - 1)) are printed.

use std::time::{Duration, Instant};

use turncoat::rules::fen;
use turncoat::rules::perft;
use turncoat::rules::position::Position;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::{Variant, VariantKind};
use turncoat::with_variant;

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

/// A measured position: its variant, a label, its FEN (`startpos` for the
/// variant's start), the depth, and the chess FEN of the same board to compare
/// with (`None`: no comparison).
struct Case {
    variant: VariantKind,
    label: &'static str,
    fen: &'static str,
    depth: u32,
    chess: Option<&'static str>,
}

const AP_MID: &str = "r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const ITALIAN: &str = "r2qk2r/ppp2ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPP2PPP/R2QK2R w KQkq - 0 1";
const CP_MID: &str = "r2q1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 0 9";

const CASES: &[Case] = &[
    Case {
        variant: VariantKind::AttendingPawns,
        label: "startpos",
        fen: "startpos",
        depth: 5,
        chess: Some("startpos"),
    },
    Case {
        variant: VariantKind::AttendingPawns,
        label: "middlegame, every piece attended",
        fen: "r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R w KQkq - 0 1 \
              a1a2,c3b2,d2c2,e1f2,h1h2,e3d4,f3g2,a8a7,c6b7,d7c7,e8f7,h8h7,e6d5,f6g7",
        depth: 4,
        chess: Some(AP_MID),
    },
    Case {
        variant: VariantKind::AttendingPawns,
        label: "middlegame, default links",
        fen: AP_MID,
        depth: 5,
        chess: Some(AP_MID),
    },
    Case {
        variant: VariantKind::AttendingPawns,
        label: "reference middlegame",
        fen: "r1bqkb1r/2ppp2p/3ppn2/p3np2/1P6/N1PBPN2/P1PP2PP/R1BQK2R w KQkq - 0 6 \
              a1a2,c1c2,d1d2,e1e3,h1h2,a3b4,d3c3,f3g2,e5d6,f6e6,a8a5,c8c7,d8d7,e8e7,f8f5,h8h7",
        depth: 4,
        chess: None,
    },
    Case {
        variant: VariantKind::Subversion,
        label: "kiwipete",
        fen: KIWIPETE,
        depth: 5,
        chess: Some(KIWIPETE),
    },
    Case {
        variant: VariantKind::Subversion,
        label: "italian",
        fen: ITALIAN,
        depth: 5,
        chess: Some(ITALIAN),
    },
    Case {
        variant: VariantKind::CruisePawns,
        label: "reference 4 (missile in flight)",
        fen: "r1q3n1/1b6/8/4nkb1/8/R3PNB1/5K1P/6N1 b - - 0 34 b3*b4c5d6e7f7g6g5",
        depth: 4,
        chess: None,
    },
    Case {
        variant: VariantKind::CruisePawns,
        label: "middlegame",
        fen: CP_MID,
        depth: 4,
        chess: Some(CP_MID),
    },
];

/// (leaves, generations, seconds) of one perft run.
fn measure<V: Variant>(fen_str: &str, depth: u32) -> (u64, u64, f64) {
    let pos: Position<V> = if fen_str == "startpos" {
        Position::startpos()
    } else {
        fen::parse(fen_str).unwrap_or_else(|e| panic!("{fen_str}: {e}"))
    };
    let generations: u64 = (0..depth).map(|d| perft::perft(&pos, d)).sum();
    let t = Instant::now();
    let leaves = perft::perft(&pos, depth);
    (leaves, generations, t.elapsed().as_secs_f64())
}

fn report(name: &str, depth: u32, (leaves, generations, s): (u64, u64, f64)) -> f64 {
    let gps = generations as f64 / s / 1e6;
    println!(
        "  {name:<16} perft({depth}) = {leaves} in {s:.3} s: {:.1} M leaves/s, {gps:.2} M generations/s",
        leaves as f64 / s / 1e6
    );
    gps
}

fn variants(which: &str) {
    let mut ran = false;
    for case in CASES {
        if which != "all" && case.variant.name() != which {
            continue;
        }
        ran = true;
        println!("{} {}: {}", case.variant.name(), case.label, case.fen);
        let got = with_variant!(case.variant, V => measure::<V>(case.fen, case.depth));
        let gps = report(case.variant.name(), case.depth, got);
        if let Some(chess) = case.chess {
            let cgps = report("chess", case.depth, measure::<Chess>(chess, case.depth));
            println!("  cost per generation: {:.2}x chess", cgps / gps);
        }
    }
    if !ran {
        eprintln!(
            "no perft case for '{which}'; have: all, {}",
            VariantKind::names()
        );
        std::process::exit(2);
    }
}

fn main() {
    // `cargo bench` passes `--bench` to harness-less benches: skip flags we do not
    // know instead of failing on them.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--variant") {
        let which = args.get(i + 1).map_or("all", String::as_str);
        variants(which);
        return;
    }
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
