//! Attending Pawns: reference data and hand-worked rule tests (RULES.md `attendingpawns`).

mod common;

use turncoat::variants::attending_pawns::AttendingPawns;

type V = AttendingPawns;

#[test]
fn reference_examples() {
    common::check_examples_file::<V>(include_str!("data/attendingpawns_examples.json"));
}

#[test]
fn reference_perft() {
    common::check_perft_file::<V>(include_str!("data/attendingpawns_perft.json"), 3);
}
