//! Search sanity: mates in 1-3 are found with exact mate scores, free material is
//! taken and attacked material saved at depth >= 4, limits are obeyed.

use std::sync::Arc;

use turncoat::engine::search::tt::TranspositionTable;
use turncoat::engine::search::{self, Limits, Score, Shared};
use turncoat::rules::fen;
use turncoat::rules::moves::MoveList;
use turncoat::rules::position::Position;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::Variant;

/// Searches with a fresh table of `hash_mb`; returns the result and the
/// reported lines (progress lines, `currmove` after a second, carry no score
/// and are left out).
fn search_lines(
    pos: &Position<Chess>,
    limits: &Limits,
    hash_mb: usize,
) -> (search::SearchResult, Vec<search::Info>) {
    let shared = Shared::new(Arc::new(TranspositionTable::new(hash_mb)));
    let mut lines = Vec::new();
    let result = search::search(
        pos,
        &[],
        limits,
        &search::Options::default(),
        &shared,
        &mut |info| {
            if info.currmove.is_none() {
                lines.push(info);
            }
        },
    );
    (result, lines)
}

fn search(fen_str: &str, limits: Limits) -> (String, Score) {
    let pos: Position<Chess> = fen::parse(fen_str).expect("valid FEN");
    let (result, lines) = search_lines(&pos, &limits, 8);
    let last = lines.last().expect("an info");
    (result.best.expect("a move"), last.score)
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

#[test]
fn mate_in_one() {
    let (best, score) = search("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", depth(4));
    assert_eq!(best, "d1d8");
    assert_eq!(score, Score::Mate(1));
}

#[test]
fn mate_in_two() {
    let (best, score) = search(
        "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 1",
        depth(6),
    );
    assert_eq!(best, "d5d8");
    assert_eq!(score, Score::Mate(2));
}

#[test]
fn mate_in_three_for_black() {
    let (best, score) = search(
        "2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1",
        depth(8),
    );
    assert_eq!(best, "b1g6");
    assert_eq!(score, Score::Mate(3));
}

#[test]
fn mated_side_sees_negative_mate() {
    // After Qb8 the black side is mated in one (Rxb8 Rxb8#).
    let (_, score) = search("rQ4k1/5ppp/8/8/8/8/5PPP/1R4K1 b - - 0 1", depth(5));
    assert_eq!(score, Score::Mate(-1));
}

#[test]
fn takes_a_free_piece() {
    let (best, score) = search("4k3/8/8/3n4/8/8/3R4/4K3 w - - 0 1", depth(4));
    assert_eq!(best, "d2d5");
    assert!(matches!(score, Score::Cp(cp) if cp > 200), "{score:?}");
}

#[test]
fn saves_an_attacked_queen() {
    let fen_str = "rnb1kbnr/pppp1ppp/8/4p3/3qP3/2P5/PP1P1PPP/RNBQKBNR b KQkq - 0 3";
    let (best, score) = search(fen_str, depth(5));
    assert!(best.starts_with("d4"), "queen left en prise: {best}");
    // Material is level once the queen is safe (the engine gives about +1.4 for
    // Black's lead in development): a lost queen (-900) or a phantom win fails.
    assert!(
        matches!(score, Score::Cp(cp) if (-100..300).contains(&cp)),
        "{score:?}"
    );
}

#[test]
fn does_not_walk_into_a_fork() {
    // The knight on b4 threatens Nc2+ forking king e1 and rook a1: White must see
    // it and keep the exchange (rook vs knight), not drop the rook.
    let fen_str = "4k3/8/8/8/1n6/8/8/R3K3 w - - 0 1";
    let (best, score) = search(fen_str, depth(6));
    let mut after: Position<Chess> = fen::parse(fen_str).expect("valid");
    let mv = turncoat::rules::game::find_move(&after, &best).expect("legal");
    turncoat::rules::game::play(&mut after, mv);
    // No Black reply takes the rook, or checks while attacking it (a fork).
    let mut replies = MoveList::new();
    Chess::legal_moves(&after, &mut replies);
    for reply in replies {
        let mut next = after;
        turncoat::rules::game::play(&mut next, reply);
        let rook = next.by_role(shakmaty::Role::Rook);
        assert!(!rook.is_empty(), "{best} drops the rook");
        let forked = !next.checkers().is_empty()
            && !(shakmaty::attacks::knight_attacks(reply.to) & rook).is_empty();
        assert!(!forked, "{best} allows the fork");
    }
    // Rook against knight: ahead, though often only a draw with best play
    // (Stockfish 15.1 at depth 16 says +0.37). Bounded on both sides: dropping
    // the rook (about -3) or believing in a won game (a rook up, +5) fails.
    assert!(
        matches!(score, Score::Cp(cp) if cp > 0 && cp < 300),
        "{score:?}"
    );
}

#[test]
fn node_limit_is_exact_with_one_thread() {
    let pos: Position<Chess> = Position::startpos();
    let shared = Shared::new(Arc::new(TranspositionTable::new(8)));
    let limits = Limits {
        nodes: Some(20_000),
        ..Limits::default()
    };
    let r = search::search(
        &pos,
        &[],
        &limits,
        &search::Options::default(),
        &shared,
        &mut |_| {},
    );
    assert!(r.best.is_some());
    assert_eq!(r.nodes, 20_000);
}

/// Lazy SMP: with two threads the mates are found as with one, the same move and
/// the same exact mate distance (the helper thread shares the hash table and
/// may only speed the search up, never change a proven mate).
#[test]
fn two_threads_find_the_same_mates() {
    for (fen_str, d, best, mate) in [
        ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 4, "d1d8", 1),
        (
            "r1b2k1r/ppp1bppp/8/1B1Q4/5q2/2P5/PPP2PPP/R3R1K1 w - - 1 1",
            6,
            "d5d8",
            2,
        ),
        (
            "2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1",
            8,
            "b1g6",
            3,
        ),
    ] {
        for threads in [1, 2] {
            let pos: Position<Chess> = fen::parse(fen_str).expect("valid FEN");
            let shared = Shared::new(Arc::new(TranspositionTable::new(8)));
            let mut last = None;
            let options = search::Options {
                threads,
                ..search::Options::default()
            };
            let r = search::search(&pos, &[], &depth(d), &options, &shared, &mut |info| {
                last = Some(info.score)
            });
            assert_eq!(
                r.best.as_deref(),
                Some(best),
                "{threads} threads: {fen_str}"
            );
            assert_eq!(
                last,
                Some(Score::Mate(mate)),
                "{threads} threads: {fen_str}"
            );
        }
    }
}

/// Time (here a node limit) running out inside an iteration: a root move that
/// beat the previous best in that iteration is played, and the last `info`
/// reports it at the interrupted depth. In one of the bench's positions
/// (move 14, White to move) depth 8 prefers 14.Nf5; at 27,000 nodes depth 9
/// is under way and has found 14.Nf6+ better (one thread, a fresh table:
/// deterministic). For every limit tried, `bestmove` is the first move of the
/// last reported line. (Such limits are rare: of the limits 10,000, 10,500
/// ... 99,500 nodes in seven of the bench's positions, this is the only one.)
#[test]
fn a_move_that_beat_the_best_in_an_interrupted_iteration_is_played() {
    let fen_str = "rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14";
    let pos: Position<Chess> = fen::parse(fen_str).expect("valid FEN");
    let mut improvers = Vec::new();
    for nodes in [10_000, 20_000, 27_000, 50_000, 90_000] {
        let limits = Limits {
            nodes: Some(nodes),
            ..Limits::default()
        };
        let (r, lines) = search_lines(&pos, &limits, 16);
        let best = r.best.expect("a move");
        let last = lines.last().expect("an info");
        let (last_depth, last_first) = (last.depth, last.pv[0].clone());
        assert_eq!(
            best, last_first,
            "{nodes} nodes: bestmove and the last line"
        );
        if last_depth > r.depth {
            improvers.push((nodes, r.depth, last_depth, best));
        }
    }
    assert_eq!(
        improvers,
        vec![(27_000, 8, 9, "d5f6".to_string())],
        "interrupted iterations whose new best was played"
    );
}

/// `turncoat bench`'s node counts (depth 9: chess's 20 positions, each
/// variant's start position), as docs/STRENGTH.md and the README give them.
/// A change meant to be only faster (the evaluation cache, a lookup written
/// another way) must leave every one of them as it is; a change of the
/// search or of a network changes them on purpose, and this list with them.
#[test]
fn bench_signatures_are_the_documented_ones() {
    use turncoat::engine::bench;
    use turncoat::rules::variants::VariantKind;
    let expected = [
        (VariantKind::Chess, 332_626),
        (VariantKind::CowardlyCrew, 104_442),
        (VariantKind::Pacifist, 36_209),
        (VariantKind::AttendingPawns, 258_997),
        (VariantKind::Subversion, 9_519),
        (VariantKind::CruisePawns, 29_669),
        (VariantKind::Andernach, 55_624),
        (VariantKind::AntiAndernach, 16_363),
        (VariantKind::SuperAndernach, 19_075),
    ];
    assert_eq!(expected.len(), VariantKind::ALL.len());
    for (variant, nodes) in expected {
        let result = bench::run(variant, bench::DEFAULT_DEPTH).expect("built-in positions");
        assert_eq!(result.nodes, nodes, "{}", variant.name());
    }
}
