//! Scores a user can trust, in every variant: the engine is colour-blind.
//!
//! - The colour-flipped position (board mirrored vertically, colours, side to
//!   move, castling, en passant and the 7th field swapped) has the flipped key
//!   (`zobrist::flip`), the same static evaluation, and a single-threaded
//!   search of it to a given depth is the same search seen in a mirror: the
//!   same score after the same number of nodes. Move generation visits squares
//!   in the mover's order (`bitboards::mover_order`; Cruise Pawns' missiles
//!   explore mirrored directions for Black), so equal moves tie alike, and the
//!   transposition table puts flipped keys on mirrored slots, so both searches
//!   meet the same collisions at any table size.
//! - The start position, which flipped is itself with the other side to move,
//!   therefore gives the side to move exactly the same edge whichever colour
//!   it is, and that edge does not swing between consecutive depths (by at
//!   most [`SWING_CP`]), as it does when a tempo is counted for the wrong side
//!   or twice.
//!
//! The side to move may have an edge at the start (a tempo, which each
//! variant's network learnt from its labels): its size is not the claim, its
//! sameness for both colours and its stability over depths are.

mod common;

use std::ops::RangeInclusive;

use common::flip_fen as flip;
use turncoat::engine::eval;
use turncoat::engine::policy::Policy;
use turncoat::engine::search::{self, Limits, SearchResult};
use turncoat::rules::fen;
use turncoat::rules::game;
use turncoat::rules::moves::MoveList;
use turncoat::rules::position::Position;
use turncoat::rules::variants::andernach::{Andernach, AntiAndernach, SuperAndernach};
use turncoat::rules::variants::attending_pawns::AttendingPawns;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::cowardly_crew::CowardlyCrew;
use turncoat::rules::variants::cruise_pawns::CruisePawns;
use turncoat::rules::variants::pacifist::Pacifist;
use turncoat::rules::variants::subversion::Subversion;
use turncoat::rules::variants::Variant;
use turncoat::rules::zobrist;

/// How far the start position's score may move from one depth to the next.
/// The swings this project has met moved by more: Pacifist's network with its
/// position term doubled 57-137 cp (+1.13, +0.56, +1.45, +0.69 ... at depths
/// 1-4), Cruise Pawns with its doubled launches 60-80 cp, Subversion's second
/// network as trained, which valued the move 25 cp too much, 45-59 cp
/// (`flip_symmetry_subversion`), Attending Pawns' second-generation networks
/// 95-101 cp (`flip_symmetry_attending_pawns`). Half a pawn lies between.
const SWING_CP: i32 = 50;

/// The depths at which the start position is searched.
const START_DEPTHS: RangeInclusive<u32> = 1..=8;

/// The depths at which each random-walk position and its flip are searched.
const FLIP_DEPTHS: [u32; 3] = [2, 4, 6];

/// The table size of every search here: small, so that the deeper searches
/// overwrite entries and the mirrored slots are put to the test.
const HASH_MB: usize = 1;

/// Positions of the variant: the start and deterministic random walks from it.
fn positions<V: Variant>() -> Vec<Position<V>> {
    let mut next = common::xorshift(0x5eed_0021_u64 ^ V::NAME.len() as u64);
    let start = Position::<V>::startpos();
    let mut out = vec![start];
    for plies in [3, 6, 9, 12, 16, 20] {
        let mut pos = start;
        for _ in 0..plies {
            let mut moves = MoveList::new();
            V::legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[(next() % moves.len() as u64) as usize];
            game::play(&mut pos, mv);
        }
        out.push(pos);
    }
    out
}

/// A single-threaded search to `depth` with a fresh table (deterministic).
fn search<V: Policy>(pos: &Position<V>, depth: u32) -> SearchResult {
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    search::search_fresh(pos, &[], &limits, HASH_MB)
}

/// The position as its FEN reads: what the flip, made through the FEN, is
/// compared with (a FEN's en passant square in the Andernach variants is not
/// always a played double step's: docs/RULES.md, "Andernach: en passant as
/// Cutechess referees it").
fn as_read<V: Variant>(pos: &Position<V>) -> Position<V> {
    fen::parse(&fen::format(pos)).expect("a position's own FEN reads")
}

/// The colour flip of a position, through its FEN.
fn flipped<V: Variant>(pos: &Position<V>) -> Position<V> {
    let fen_str = fen::format(pos);
    let flipped_fen = flip(&fen_str);
    let flipped: Position<V> = fen::parse(&flipped_fen)
        .unwrap_or_else(|e| panic!("{}: {flipped_fen} rejected: {e}", V::NAME));
    assert_eq!(flip(&flipped_fen), fen_str, "flip is an involution");
    flipped
}

/// Every position of a random walk has the flipped key of its flip.
fn check_keys<V: Variant>() {
    let mut next = common::xorshift(0x5eed_0022_u64 ^ V::NAME.len() as u64);
    let mut pos = Position::<V>::startpos();
    for _ in 0..200 {
        assert_eq!(
            flipped(&pos).key(),
            zobrist::flip(as_read(&pos).key()),
            "{}: key of the flip of {}",
            V::NAME,
            fen::format(&pos)
        );
        let mut moves = MoveList::new();
        V::legal_moves(&pos, &mut moves);
        if moves.is_empty() {
            pos = Position::<V>::startpos();
            continue;
        }
        game::play(&mut pos, moves[(next() % moves.len() as u64) as usize]);
    }
}

/// Every random-walk position against its flip: the key flipped, the static
/// evaluation exactly, the search at each of [`FLIP_DEPTHS`] the same score
/// after the same number of nodes.
fn check_flips<V: Policy>() {
    check_keys::<V>();
    for pos in positions::<V>() {
        let pos = as_read(&pos);
        let flipped = flipped(&pos);
        let fen_str = fen::format(&pos);
        for variant_terms in [true, false] {
            assert_eq!(
                eval::evaluate(&pos, variant_terms),
                eval::evaluate(&flipped, variant_terms),
                "{}: static eval of {fen_str} and its flip",
                V::NAME
            );
        }
        for depth in FLIP_DEPTHS {
            let (a, b) = (search(&pos, depth), search(&flipped, depth));
            assert_eq!(
                (a.score, a.nodes),
                (b.score, b.nodes),
                "{}: depth {depth} search (score, nodes) of {fen_str} and of its flip",
                V::NAME
            );
        }
    }
}

/// The start position with White and with Black to move, at every depth of
/// [`START_DEPTHS`]: the same score after the same number of nodes, and no
/// swing between consecutive depths.
fn check_start<V: Policy>() {
    check_swing::<V>(&start_scores::<V>());
}

/// The start position's scores by depth, the same with White and with Black to
/// move after the same number of nodes.
fn start_scores<V: Policy>() -> Vec<i32> {
    let white_first = Position::<V>::startpos();
    let black_first: Position<V> = fen::parse(&fen::format(&white_first).replacen(" w ", " b ", 1))
        .expect("start with either side to move");
    let mut scores = Vec::new();
    for d in START_DEPTHS {
        let (w, b) = (search(&white_first, d), search(&black_first, d));
        assert_eq!(
            (w.score, w.nodes),
            (b.score, b.nodes),
            "{}: depth {d}: the start (score, nodes) with White and with Black to move",
            V::NAME
        );
        scores.push(w.score);
    }
    scores
}

/// No swing of the start's `scores` between consecutive depths.
fn check_swing<V: Variant>(scores: &[i32]) {
    let depths: Vec<u32> = START_DEPTHS.collect();
    for (i, w) in scores.windows(2).enumerate() {
        assert!(
            (w[0] - w[1]).abs() <= SWING_CP,
            "{}: the start scores {} at depth {} and {} at depth {} (by depth: {scores:?})",
            V::NAME,
            w[0],
            depths[i],
            w[1],
            depths[i + 1]
        );
    }
}

/// Chess with its network. The start: +0.13..+0.30 at depths 1-8, at most
/// 14 cp from one depth to the next.
#[test]
fn flip_symmetry_chess() {
    check_start::<Chess>();
    check_flips::<Chess>();
}

/// Cowardly Crew with its network. The start: +0.07..+0.46, at most 38 cp
/// from one depth to the next (higher at even depths).
#[test]
fn flip_symmetry_cowardly_crew() {
    check_start::<CowardlyCrew>();
    check_flips::<CowardlyCrew>();
}

/// Pacifist with its second network. The start: +0.18..+0.51, at most 27 cp
/// from one depth to the next.
#[test]
fn flip_symmetry_pacifist() {
    check_start::<Pacifist>();
    check_flips::<Pacifist>();
}

/// Attending Pawns with its third-generation network. The side to move has a
/// real edge at the start: +0.32, +0.69, +0.95, +0.70, +1.15, +0.84, +1.15,
/// +1.15 at depths 1-8 (the hand-written search gives it +0.17..+0.78 at
/// depths 1-11), at most 45 cp from one depth to the next. Its
/// second-generation networks swung by 95-101 cp (+0.64, +0.32, +1.30, +0.42
/// ...: at depth 3 the search stopped on a knight's raid that they priced as
/// if it could not be met; docs/TRAINING.md, "Attending Pawns, generation 2").
#[test]
fn flip_symmetry_attending_pawns() {
    check_start::<AttendingPawns>();
    check_flips::<AttendingPawns>();
}

/// Subversion with its second network. The start: +0.23..+0.49, at most 15 cp
/// from one depth to the next. As trained, the network gave the side to move
/// 25 cp more than its searches bear out, and the start rose and fell with
/// the depth's parity (+0.10, +0.58, -0.01, +0.49, 0, +0.45 at depths 1-6):
/// this test failed on it, and the shipped network has its output lowered by
/// 25 cp (docs/TRAINING.md, "Subversion, generation 2").
#[test]
fn flip_symmetry_subversion() {
    check_start::<Subversion>();
    check_flips::<Subversion>();
}

/// Cruise Pawns with its second network. The start: +0.10..+0.31, at most
/// 20 cp from one depth to the next.
#[test]
fn flip_symmetry_cruise_pawns() {
    check_start::<CruisePawns>();
    check_flips::<CruisePawns>();
}

/// The Andernach variants, with the hand-written evaluation. Andernach's start:
/// +0.06..+0.39, at most 18 cp from one depth to the next. Anti- and
/// Super-Andernach's start is not checked for swings: at depth 1 every move
/// seems to give something away (-1.83), and deeper searches see it answered
/// (+0.33 at depth 2).
#[test]
fn flip_symmetry_andernach() {
    check_start::<Andernach>();
    check_flips::<Andernach>();
    start_scores::<AntiAndernach>();
    check_flips::<AntiAndernach>();
    start_scores::<SuperAndernach>();
    check_flips::<SuperAndernach>();
}
