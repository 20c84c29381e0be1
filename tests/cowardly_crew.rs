mod common;

use turncoat::variants::cowardly_crew::CowardlyCrew;

#[test]
fn reference_perft() {
    common::check_perft_file::<CowardlyCrew>(include_str!("data/cowardlycrew_perft.json"), 3);
}

#[test]
fn reference_examples() {
    common::check_examples_file::<CowardlyCrew>(include_str!("data/cowardlycrew_examples.json"));
}
