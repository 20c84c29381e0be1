//! Subversion: reference data and hand-worked tests of every rule point.

mod common;

use turncoat::variants::subversion::Subversion;

const PERFT: &str = include_str!("data/subversion_perft.json");
const EXAMPLES: &str = include_str!("data/subversion_examples.json");

#[test]
fn reference_examples() {
    common::check_examples_file::<Subversion>(EXAMPLES);
}

#[test]
fn reference_perft() {
    common::check_perft_file::<Subversion>(PERFT, 3);
}
