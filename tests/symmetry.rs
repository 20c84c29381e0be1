//! Scores a user can trust, in every variant:
//!
//! - the colour-flipped position (board mirrored vertically, colours, side to
//!   move, castling, en passant and the 7th field swapped) scores the same for
//!   its side to move: the static evaluation exactly, a fixed-depth search
//!   within [`FLIP_CP`];
//! - the start position, which flipped is itself with the other side to move,
//!   gives the side to move the same edge whichever colour it is (within
//!   [`FLIP_CP`]), and that edge does not swing between consecutive depths
//!   (by at most [`SWING_CP`]), as it does when a tempo is counted for the
//!   wrong side or twice.
//!
//! The side to move may have an edge at the start (a tempo, which each
//! variant's network learnt from its labels): its size is not the claim, its
//! sameness for both colours and its stability over depths are.
//!
//! Why a flip can score differently at all: move generation visits squares in
//! a fixed order, so ties in the move ordering break differently in the
//! flipped tree, and the deeper the search the more its reductions and
//! pruning act on them. Each variant is compared at depths where its searches
//! agree (measured below); where they part at other depths is a known limit,
//! not what this test guards.

mod common;

use std::ops::RangeInclusive;

use common::flip_fen as flip;
use turncoat::engine::eval;
use turncoat::engine::policy::Policy;
use turncoat::engine::search::{self, Limits};
use turncoat::rules::fen;
use turncoat::rules::game;
use turncoat::rules::moves::MoveList;
use turncoat::rules::position::Position;
use turncoat::rules::variants::attending_pawns::AttendingPawns;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::cowardly_crew::CowardlyCrew;
use turncoat::rules::variants::cruise_pawns::CruisePawns;
use turncoat::rules::variants::pacifist::Pacifist;
use turncoat::rules::variants::subversion::Subversion;
use turncoat::rules::variants::Variant;

/// How far a position's search score and its flip's may differ, decided or
/// not: a quarter of a pawn, the claim itself. At the depths compared below
/// flips differ by 20 cp at most (Cowardly Crew at depth 3), and the start
/// position's two colours by 23 (Pacifist).
const FLIP_CP: i32 = 25;

/// How far the start position's score may move from one depth to the next.
/// Today's searches move by up to 38 cp (Cowardly Crew; the others 27 or
/// less, depths 1-8). The swings this project has met moved by
/// more: Pacifist's network with its position term doubled 57-137 cp (+1.13,
/// +0.56, +1.45, +0.69 ... at depths 1-4), Cruise Pawns with its doubled
/// launches 60-80 cp, Subversion's second network as trained, which valued
/// the move 25 cp too much, 45-59 cp (`flip_symmetry_subversion`). Half
/// a pawn lies between.
const SWING_CP: i32 = 50;

/// The depths at which the start position is searched.
const START_DEPTHS: RangeInclusive<u32> = 1..=8;

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

/// The score of a single-threaded search to `depth` with a fresh table
/// (deterministic).
fn score<V: Policy>(pos: &Position<V>, depth: u32) -> i32 {
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    search::search_fresh(pos, &[], &limits, 1).score
}

/// Every random-walk position against its flip: the static evaluation
/// exactly, the search at each of `depths` within [`FLIP_CP`].
fn check_flips<V: Policy>(depths: &[u32]) {
    for pos in positions::<V>() {
        let fen_str = fen::format(&pos);
        let flipped_fen = flip(&fen_str);
        let flipped: Position<V> = fen::parse(&flipped_fen)
            .unwrap_or_else(|e| panic!("{}: {flipped_fen} rejected: {e}", V::NAME));
        assert_eq!(flip(&flipped_fen), fen_str, "flip is an involution");
        for variant_terms in [true, false] {
            assert_eq!(
                eval::evaluate(&pos, variant_terms),
                eval::evaluate(&flipped, variant_terms),
                "{}: static eval of {fen_str} / {flipped_fen}",
                V::NAME
            );
        }
        for &depth in depths {
            let (a, b) = (score(&pos, depth), score(&flipped, depth));
            assert!(
                (a - b).abs() <= FLIP_CP,
                "{}: depth {depth} search of {fen_str} gives {a}, of {flipped_fen} {b}",
                V::NAME
            );
        }
    }
}

/// The start position with White and with Black to move, at every depth of
/// [`START_DEPTHS`]: no swing between consecutive depths, the same edge for
/// either colour.
fn check_start<V: Policy>() {
    let white_first = fen::format(&Position::<V>::startpos());
    let black_first = white_first.replacen(" w ", " b ", 1);
    let scores = |fen_str: &str| -> Vec<i32> {
        let pos: Position<V> = fen::parse(fen_str).expect("start with either side to move");
        START_DEPTHS.map(|d| score(&pos, d)).collect()
    };
    let (white, black) = (scores(&white_first), scores(&black_first));
    let depths: Vec<u32> = START_DEPTHS.collect();
    for (side, s) in [("White", &white), ("Black", &black)] {
        for (i, w) in s.windows(2).enumerate() {
            assert!(
                (w[0] - w[1]).abs() <= SWING_CP,
                "{}: the start, {side} to move, scores {} at depth {} and {} at depth {} \
                 (by depth: {s:?})",
                V::NAME,
                w[0],
                depths[i],
                w[1],
                depths[i + 1]
            );
        }
    }
    for (i, &d) in depths.iter().enumerate() {
        assert!(
            (white[i] - black[i]).abs() <= FLIP_CP,
            "{}: at depth {d} the start gives White to move {}, Black to move {} \
             (by depth: White {white:?}, Black {black:?})",
            V::NAME,
            white[i],
            black[i]
        );
    }
}

/// Chess with its network. Flipped random-walk positions agree within 1 cp
/// at depth 5 and 13 at depth 6; at depth 4 one (White's queen astray on c5)
/// searches to -0.38 and -0.81 flipped, and at depths 7-8 others differ by up
/// to 41 cp. The start position: +0.09..+0.30 at depths 1-8, White and Black
/// to move at most 17 cp apart, at most 18 cp from one depth to the next.
#[test]
fn flip_symmetry_chess() {
    check_start::<Chess>();
    check_flips::<Chess>(&[5, 6]);
}

/// Cowardly Crew with its network: a capture converts its neighbours, and
/// its decided positions part most. Flipped random-walk positions agree
/// within 20 cp at depth 3 (exactly in all but one); at depths 4-9 they differ
/// by up to 371 cp, mostly in decided positions (+13.99 against +10.28 at
/// depth 7). The start position: +0.02..+0.46, the colours at most 15 cp
/// apart, at most 38 cp from one depth to the next.
#[test]
fn flip_symmetry_cowardly_crew() {
    check_start::<CowardlyCrew>();
    check_flips::<CowardlyCrew>(&[3]);
}

/// Pacifist with its second network: flipped random-walk positions agree
/// exactly at depths 3 and 5 and within 9 cp at depth 6; at depth 4 they
/// differ by up to 39 cp (+2.48 against +2.87), at depth 7 by up to 57 (the
/// first network agreed at 3 and 4). The start position:
/// +0.18..+0.51 for the side to move, the colours at most 23 cp apart (at
/// depth 7), at most 27 cp from one depth to the next.
#[test]
fn flip_symmetry_pacifist() {
    check_start::<Pacifist>();
    check_flips::<Pacifist>(&[3, 5]);
}

/// Attending Pawns: flipped random-walk positions agree exactly at depth 3
/// and within 7 cp at depth 7 (placements give many ordering ties; depths 4,
/// 6 and 8 differ by up to 35 cp). The side to move has a real edge at the
/// start, +0.40..+0.75 at depths 1-8 (the hand-written search gives it
/// +0.17..+0.78 at depths 1-11), the colours at most 22 cp apart, at most 27 cp from one
/// depth to the next.
#[test]
fn flip_symmetry_attending_pawns() {
    check_start::<AttendingPawns>();
    check_flips::<AttendingPawns>(&[3, 7]);
}

/// Subversion with its second network: flipped random-walk positions agree
/// exactly at depth 3 and within 4 cp at depth 4; at depths 5-9 they differ
/// by up to 59 cp (+4.23 against +4.82 at depth 7, a decided position). The
/// start position: +0.23..+0.47, the colours at most 9 cp apart, at most 15 cp
/// from one depth to the next. As trained, the network gave the side to move
/// 25 cp more than its searches bear out, and the start rose and fell with
/// the depth's parity (+0.10, +0.58, -0.01, +0.49, 0, +0.45 at depths 1-6):
/// this test failed on it, and the shipped network has its output lowered by
/// 25 cp (docs/TRAINING.md, "Subversion, generation 2").
#[test]
fn flip_symmetry_subversion() {
    check_start::<Subversion>();
    check_flips::<Subversion>(&[3, 4]);
}

/// Cruise Pawns, with its second network: flipped random-walk positions agree
/// exactly at depths 3 and 4 (up to 15 cp at depth 5; at depths 6-9 up to
/// 137 cp, in positions that score +2 to +6 pawns, where the two searches
/// order their moves differently). The start position: +0.10..+0.31 at
/// depths 1-8, the same for either colour, at most 20 cp from one depth to
/// the next.
#[test]
fn flip_symmetry_cruise_pawns() {
    check_start::<CruisePawns>();
    check_flips::<CruisePawns>(&[3, 4]);
}
