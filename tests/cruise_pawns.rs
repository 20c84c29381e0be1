//! Cruise Pawns: reference data, hand-worked rule tests, FEN and Zobrist checks.

mod common;

use turncoat::fen;
use turncoat::game::{self, Game, Outcome};
use turncoat::moves::MoveList;
use turncoat::perft;
use turncoat::position::Position;
use turncoat::variants::cruise_pawns::CruisePawns;
use turncoat::variants::Variant;

type V = CruisePawns;

fn pos(f: &str) -> Position<V> {
    fen::parse::<V>(f).unwrap_or_else(|e| panic!("{f}: {e}"))
}

#[test]
fn reference_examples() {
    common::check_examples_file::<V>(include_str!("data/cruisepawns_examples.json"));
}

#[test]
fn reference_perft() {
    common::check_perft_file::<V>(include_str!("data/cruisepawns_perft.json"), 3);
}

#[test]
fn timing_probe() {
    let p = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4 -");
    let t = std::time::Instant::now();
    let n = perft::perft(&p, 3);
    println!("{n} {:?} {}", t.elapsed(), V::NAME);
}
