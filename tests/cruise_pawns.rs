//! Cruise Pawns (docs/RULES.md, "Cruise Pawns"): the reference data, a hand-worked test
//! for every rule point, FEN reading/printing/rejection, Zobrist keys, an
//! independent naive path enumerator, and the search-only reduced generators.

mod common;

use common::sorted;

use std::collections::BTreeSet;

use shakmaty::{attacks, Bitboard, Color, Role, Square};
use turncoat::engine::policy::Policy;
use turncoat::rules::fen;
use turncoat::rules::game::{self, Game, Outcome};
use turncoat::rules::moves::MoveList;
use turncoat::rules::perft;
use turncoat::rules::position::{Internals as _, Position};
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::cruise_pawns::{
    detonated, is_shoot_down, shift, CruisePawns, Path, LAUNCH,
};
use turncoat::rules::variants::Variant;

type V = CruisePawns;

fn pos(f: &str) -> Position<V> {
    fen::parse::<V>(f).unwrap_or_else(|e| panic!("{f}: {e}"))
}

fn tokens(p: &Position<V>) -> Vec<String> {
    common::legal_tokens(p)
}

/// The FEN after playing `token` (which must be legal).
fn after(p: &Position<V>, token: &str) -> String {
    common::after_move(p, token)
}

fn rejected(f: &str) -> String {
    match fen::parse::<V>(f) {
        Ok(p) => panic!("{f} should be rejected, loaded as {}", fen::format(&p)),
        Err(e) => e.to_string(),
    }
}

// ----- reference data -----

#[test]
fn reference_examples() {
    common::check_examples_file::<V>(include_str!("data/cruisepawns_examples.json"));
}

#[test]
fn reference_perft() {
    common::check_perft_file::<V>(include_str!("data/cruisepawns_perft.json"), 3);
}

// ----- rule 1: launches -----

/// Pawn h4 boxed in by black pieces on all five neighbours: no path can pass an
/// enemy piece, so the launches are exactly self-detonation and the five k = 1
/// paths; plus h4xg5 (h5 blocks the push) and three king moves.
#[test]
fn rule1_enemy_pieces_are_never_flown_through() {
    let p = pos("k7/8/8/6nr/6bP/6np/8/K7 w - - 0 1");
    assert_eq!(
        tokens(&p),
        sorted(&[
            "a1a2", "a1b1", "a1b2", "h4*", "h4*g3", "h4*g4", "h4*g5", "h4*h3", "h4*h5", "h4g5"
        ])
    );
    assert_eq!(
        after(&p, "h4*g4"),
        "k7/8/8/6nr/6b1/6np/8/K7 b - - 0 1 h4*g4"
    );
}

/// The king blocks like any enemy piece and is never a target: a4*a5a6 (through
/// the black king) and a4*a5 do not exist; rook a6 is reached only by the two
/// 7-square paths that swing round the king (a4*b5a6 would turn 90 degrees).
#[test]
fn rule1_enemy_king_blocks_and_is_no_target() {
    let p = pos("8/8/r7/k7/P7/8/8/7K w - - 0 1");
    // Only the two long ways round (the push is blocked by the king).
    assert_eq!(
        tokens(&p),
        sorted(&[
            "a4*",
            "a4*b3c3d4d5c6b6a6",
            "a4*b4c4d5d6c7b7a6",
            "h1g1",
            "h1g2",
            "h1h2"
        ])
    );
    assert!(game::find_move(&p, "a4*a5a6").is_none());
}

/// Friendly pieces, the launcher's own king included, are flown through.
#[test]
fn rule1_friendly_pieces_and_own_king_are_flown_through() {
    let p = pos("7k/8/r7/K7/P7/8/8/8 w - - 0 1");
    assert!(tokens(&p).contains(&"a4*a5a6".to_string()));
    assert_eq!(after(&p, "a4*a5a6"), "7k/8/r7/K7/8/8/8/8 b - - 0 1 a4*a5a6");
}

/// The docs/RULES.md notation example `e4*e5f6g7`: a legal launch, printed exactly.
#[test]
fn rule1_notation_example_launch() {
    let p = pos("6k1/6n1/8/8/4P3/8/8/K7 w - - 0 1");
    let t = tokens(&p);
    assert!(t.contains(&"e4*e5f6g7".to_string()));
    assert!(t.contains(&"e4*".to_string()));
    assert_eq!(
        after(&p, "e4*e5f6g7"),
        "6k1/6n1/8/8/8/8/8/K7 b - - 0 1 e4*e5f6g7"
    );
}

/// Tokens that break rule 1 are rejected by `position ... moves` (`find_move`).
#[test]
fn rule1_illegal_tokens_are_rejected() {
    let p = pos("7r/P7/8/8/8/8/8/K6k w - - 0 1 -");
    for bad in [
        "a7*b6c5d6e7f8g8h8",   // 90-degree turn
        "a7*b7c7d7e7f7g7",     // ends on an empty square
        "a7*b7c7d7e7f7g7h8h7", // eight squares
        "a7*a7",               // not a step
        "a7*c7d7e7f7g7h8",     // not a neighbour
        "A7*b8c8d8e8f8g8h8",   // not lowercase
        "a7*h8",
        "a7 *",
        "a7a8",
        "",
    ] {
        assert!(game::find_move(&p, bad).is_none(), "{bad} accepted");
    }
    let mut g = Game::new(p);
    assert!(g.play_token("a7*b6c5d6e7f8g8h8").is_err());
    assert_eq!(g.pos, p);
    // Starting-rank pawns cannot fire.
    let start = Position::<V>::startpos();
    assert!(game::find_move(&start, "e2*").is_none());
}

/// Every legal path of a few launchers, against an independent naive enumerator
/// that walks every direction sequence and judges legality by copy-make.
#[test]
fn rule1_rule2_paths_match_naive_enumeration() {
    for f in [
        "7r/P7/8/8/8/8/8/K6k w - - 0 1",
        "4n2r/P7/8/8/8/8/8/K6k w - - 0 1",
        "4r2k/8/8/8/4P3/8/8/4K3 w - - 0 1",
        "4r2k/8/8/1n6/3P4/8/8/4K3 w - - 0 1",
        "r2q1k2/p4p1p/8/5Br1/6p1/8/PbP2P2/2R1KR2 b - - 0 22",
        "r1q3n1/1b6/8/4nkb1/1p6/R3PNB1/5K1P/6N1 b - - 0 34",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        "4r1k1/8/8/4n3/8/8/P7/4K3 w - - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "8/8/r7/k7/P7/8/8/7K w - - 0 1",
        "k7/8/8/6nr/6bP/6np/8/K7 w - - 0 1",
    ] {
        let p = pos(f);
        let got: BTreeSet<String> = tokens(&p).into_iter().filter(|t| t.contains('*')).collect();
        assert_eq!(got, naive_launches(&p), "{f}");
    }
}

/// Rule 2: a launch is legal when the launcher's king is safe once the target is
/// gone. Knight e5 shields king e1 from rook e8: destroying the knight is illegal,
/// destroying the rook is legal.
#[test]
fn rule2_target_whose_removal_exposes_the_king_is_illegal() {
    let p = pos("4r1k1/8/8/4n3/P7/8/8/4K3 w - - 0 1");
    let t = tokens(&p);
    assert!(t.iter().any(|s| s.starts_with("a4*") && s.ends_with("e8")));
    assert!(!t.iter().any(|s| s.starts_with("a4*") && s.ends_with("e5")));
    assert!(t.contains(&"a4*".to_string()));
}

/// Geometry: with turns of at most 45 degrees, no path of up to 7 squares
/// revisits a square (the launch square included), and a corner is never an
/// intermediate square (so a shoot-down onto a corner, docs/RULES.md's `b7a8q`, cannot
/// arise).
#[test]
fn rule1_paths_never_revisit_and_corners_are_dead_ends() {
    fn walk(sq: (i32, i32), dir: usize, seen: &mut Vec<(i32, i32)>, corner_mid: &mut bool) {
        const D: [(i32, i32); 8] = [
            (0, 1),
            (1, 1),
            (1, 0),
            (1, -1),
            (0, -1),
            (-1, -1),
            (-1, 0),
            (-1, 1),
        ];
        if seen.len() == 8 {
            return;
        }
        for nd in [(dir + 7) % 8, dir, (dir + 1) % 8] {
            let n = (sq.0 + D[nd].0, sq.1 + D[nd].1);
            if !(0..8).contains(&n.0) || !(0..8).contains(&n.1) {
                continue;
            }
            assert!(!seen.contains(&n), "revisit {n:?} after {seen:?}");
            let is_corner = (n.0 == 0 || n.0 == 7) && (n.1 == 0 || n.1 == 7);
            seen.push(n);
            walk(n, nd, seen, corner_mid);
            seen.pop();
            if is_corner && seen.len() < 7 {
                // Is there any continuation from the corner?
                for nd2 in [(nd + 7) % 8, nd, (nd + 1) % 8] {
                    let m = (n.0 + D[nd2].0, n.1 + D[nd2].1);
                    if (0..8).contains(&m.0) && (0..8).contains(&m.1) {
                        *corner_mid = true;
                    }
                }
            }
        }
    }
    let mut corner_mid = false;
    for f in 0..8 {
        for r in 0..8 {
            for d in 0..8 {
                let mut seen = vec![(f, r)];
                // The first step may go in any direction: walk() turns from `d`,
                // so together the eight `d` values cover every path.
                walk((f, r), d, &mut seen, &mut corner_mid);
            }
        }
    }
    assert!(!corner_mid, "a corner can be an intermediate square");

    // The engine's own step table agrees with this geometry: `shift` moves every
    // square one step in each of the eight directions, in the same N, NE, E, SE,
    // S, SW, W, NW order, dropping what leaves the board.
    const D: [(i32, i32); 8] = [
        (0, 1),
        (1, 1),
        (1, 0),
        (1, -1),
        (0, -1),
        (-1, -1),
        (-1, 0),
        (-1, 1),
    ];
    for sq in (0..64).map(Square::new) {
        for (d, &(df, dr)) in D.iter().enumerate() {
            let (f, r) = (sq.file() as i32 + df, sq.rank() as i32 + dr);
            let want = if (0..8).contains(&f) && (0..8).contains(&r) {
                Bitboard::from_square(Square::new((r * 8 + f) as u32))
            } else {
                Bitboard::EMPTY
            };
            assert_eq!(shift(Bitboard::from_square(sq), d), want, "{sq} dir {d}");
        }
    }
    // And every path the generator produces has this shape: each step to a
    // neighbour, turns of at most 45 degrees, no square twice (the launch square
    // included), no corner before the target, at most 7 squares. The positions
    // put targets in corners and on edges and friendly pieces (flown through) in
    // the other corners, where a wrong table would let a path continue.
    let mut paths = 0;
    let mut into_corner = 0;
    for f in [
        "N6n/8/8/3P4/8/8/8/nK1k3N w - - 0 1",
        "n6N/8/8/8/4p3/8/8/Nk1K3n b - - 0 1",
        "7r/P7/8/8/8/8/8/K6k w - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ] {
        let p = pos(f);
        let mut moves = MoveList::new();
        V::legal_moves(&p, &mut moves);
        for mv in moves.iter().filter(|m| m.kind == LAUNCH && m.extra != 0) {
            let path = Path(mv.extra);
            let token = game::token(&p, *mv);
            assert!((1..=7).contains(&path.len()), "{f}: {token}");
            assert_eq!(path.target(), Some(mv.to), "{f}: {token}");
            let squares: Vec<Square> = std::iter::once(mv.from).chain(path.squares()).collect();
            let unique: BTreeSet<Square> = squares.iter().copied().collect();
            assert_eq!(unique.len(), squares.len(), "{f}: {token} revisits");
            let mut last_dir = None;
            for w in squares.windows(2) {
                let step = (
                    w[1].file() as i32 - w[0].file() as i32,
                    w[1].rank() as i32 - w[0].rank() as i32,
                );
                let dir = D
                    .iter()
                    .position(|&s| s == step)
                    .unwrap_or_else(|| panic!("{f}: {token} jumps {} -> {}", w[0], w[1]));
                if let Some(prev) = last_dir {
                    let turn = (dir + 8 - prev) % 8;
                    assert!(turn <= 1 || turn == 7, "{f}: {token} turns too sharply");
                }
                last_dir = Some(dir);
            }
            let corners = [Square::A1, Square::A8, Square::H1, Square::H8];
            for sq in path.intermediate() {
                assert!(!corners.contains(&sq), "{f}: {token} passes corner {sq}");
            }
            into_corner += usize::from(corners.contains(&mv.to));
            paths += 1;
        }
    }
    assert!(paths > 200, "{paths}");
    assert!(into_corner > 40, "{into_corner}");
}

// ----- rule 3: shoot-downs and detonation -----

/// Missile e6 -> d7 c8 b8 at knight b8. Shoot-downs: the target itself (b8d7) and
/// pawn b7 onto c8, which promotes (four moves). After detonation (b8 empty) the
/// pawn may push-promote on b8 or self-detonate (it stands on rank 7, not its
/// starting rank).
#[test]
fn rule3_shoot_down_with_promotion_and_by_the_target() {
    let p = pos("1N6/1P6/8/8/8/8/8/K6k w - - 0 2 e6*d7c8b8");
    assert_eq!(
        tokens(&p),
        sorted(&[
            "a1a2", "a1b1", "a1b2", "b7*", "b7b8b", "b7b8n", "b7b8q", "b7b8r", "b7c8b", "b7c8n",
            "b7c8q", "b7c8r", "b8d7"
        ])
    );
    assert_eq!(after(&p, "b7c8q"), "1NQ5/8/8/8/8/8/8/K6k b - - 0 2 -");
    assert_eq!(after(&p, "b8d7"), "8/1P1N4/8/8/8/8/8/K6k b - - 0 2 -");
    assert_eq!(after(&p, "b7b8n"), "1N6/8/8/8/8/8/8/K6k b - - 0 2 -");
    assert_eq!(after(&p, "a1b1"), "8/1P6/8/8/8/8/8/1K5k b - - 0 2 -");
}

/// A shoot-down is legal when the defender's king is safe with the target still
/// standing: f8d6 is legal only because knight e6 (the target) still blocks rook
/// e1. On the detonated board Black is in check (so `in_check`), and the replies
/// there are the king moves and f8e7.
#[test]
fn rule3_shoot_down_judged_with_the_target_standing() {
    let p = pos("4kb2/8/4n3/8/8/8/8/K3R3 b - - 0 1 c5*d6e6");
    assert!(V::in_check(&p));
    assert_eq!(
        tokens(&p),
        sorted(&["e8d7", "e8d8", "e8f7", "f8d6", "f8e7"])
    );
    assert_eq!(after(&p, "f8d6"), "4k3/8/3bn3/8/8/8/8/K3R3 w - - 0 2 -");
    assert_eq!(after(&p, "f8e7"), "4k3/4b3/8/8/8/8/8/K3R3 w - - 0 2 -");
    let mv = game::find_move(&p, "f8d6").expect("legal");
    assert!(is_shoot_down(mv));
}

/// Squares of the path held by the launcher's pieces are not "empty": no
/// shoot-down there, even by a piece that attacks them.
#[test]
fn rule3_no_shoot_down_on_an_occupied_path_square() {
    // Missile c4 -> d5 e6 f7 at knight f7; white knight on e6; black bishop c8
    // attacks d7, e6 (occupied: no shoot-down) but not d5.
    let p = pos("2b1k3/5n2/4N3/8/8/8/8/K7 b - - 0 1 c4*d5e6f7");
    let mut moves = MoveList::new();
    V::legal_moves(&p, &mut moves);
    assert!(moves.iter().all(|&m| !is_shoot_down(m)));
    let t = tokens(&p);
    // On the detonated board c8e6 is an ordinary capture of the knight.
    assert!(t.contains(&"c8e6".to_string()));
    assert_eq!(after(&p, "c8e6"), "4k3/8/4b3/8/8/8/8/K7 w - - 0 2 -");
}

/// Rule 3 with the reference's in-flight positions: the legal set is exactly the
/// naive shoot-downs plus the detonated board's moves (tokens merged).
#[test]
fn rule3_in_flight_moves_are_shoot_downs_plus_detonated_moves() {
    for f in [
        "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7",
        "4k3/4r2p/8/8/8/8/8/K3R3 b - - 0 1 b6*c7d7e7",
        "r3k2r/p7/8/8/8/8/8/4K3 b kq - 0 1 g6*h7h8",
        "r2q1k2/p4p1p/8/5Br1/8/8/PbP2P2/2R1KR2 b - - 0 22 g4*f3e3d3c2b2",
        "r1q3n1/1b6/8/4nkb1/8/R3PNB1/5K1P/6N1 b - - 0 34 b3*b4c5d6e7f7g6g5",
        "1N6/1P6/8/8/8/8/8/K6k w - - 0 2 e6*d7c8b8",
        "4kb2/8/4n3/8/8/8/8/K3R3 b - - 0 1 c5*d6e6",
    ] {
        let p = pos(f);
        let mut expected = naive_shoot_downs(&p);
        expected.extend(tokens(&detonated(&p)));
        let got = tokens(&p);
        assert_eq!(
            got.iter().cloned().collect::<BTreeSet<_>>(),
            expected,
            "{f}"
        );
        let unique: BTreeSet<_> = got.iter().collect();
        assert_eq!(unique.len(), got.len(), "duplicate tokens in {f}");
        // A shoot-down token plays as a shoot-down: the target survives (the
        // defender keeps all its pieces); any other reply loses the target.
        let count = |q: &Position<V>| q.by_color(q.turn()).count() + q.by_color(!q.turn()).count();
        let defender_count = |q: &Position<V>, c: Color| q.by_color(c).count();
        let d = p.turn();
        let _ = count;
        let mut moves = MoveList::new();
        V::legal_moves(&p, &mut moves);
        for mv in moves {
            let mut child = p;
            game::play(&mut child, mv);
            assert_eq!(
                defender_count(&child, d) == defender_count(&p, d),
                is_shoot_down(mv),
                "{f}: {}",
                game::token(&p, mv)
            );
            assert_eq!(child.halfmoves(), 0, "{f}: {}", game::token(&p, mv));
        }
    }
}

/// Mate judged on the detonated board: destroying knight e8 opens rank 8 for rook
/// a8; no square of the path can be shot down and nothing parries: checkmate,
/// although Black is not in check on the board as it stands.
#[test]
fn rule3_checkmate_on_the_detonated_board() {
    let p = pos("R3n2k/6pp/8/8/8/8/8/K7 b - - 0 1 e6*e7e8");
    assert!(!p.checkers().any());
    assert!(V::in_check(&p));
    assert!(tokens(&p).is_empty());
    assert_eq!(
        Game::new(p).outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: "checkmate"
        })
    );
}

/// Stalemate judged on the detonated board: Black's knight a1 is the target and
/// cannot be saved; the lone king has no move and is not attacked.
#[test]
fn rule3_stalemate_on_the_detonated_board() {
    let p = pos("7k/5K2/6Q1/8/8/8/8/n7 b - - 0 1 a3*a2a1");
    assert!(!V::in_check(&p));
    assert!(tokens(&p).is_empty());
    assert_eq!(
        Game::new(p).outcome(),
        Some(Outcome::Draw {
            reason: "stalemate"
        })
    );
}

/// The defender may answer a detonated missile with a launch of its own; the new
/// missile replaces the old one in the state.
#[test]
fn rule3_reply_after_detonation_may_be_a_launch() {
    let p = pos("4k3/8/3p4/8/4n3/8/8/K5R1 b - - 0 1 c3*d3e4");
    assert!(tokens(&p).contains(&"d6*e5f4g3g2g1".to_string()));
    assert_eq!(
        after(&p, "d6*e5f4g3g2g1"),
        "4k3/8/8/8/8/8/8/K5R1 w - - 0 2 d6*e5f4g3g2g1"
    );
    assert_eq!(after(&p, "d6*"), "4k3/8/8/8/8/8/8/K5R1 w - - 0 2 -");
}

// ----- rule 4: clocks and en passant -----

#[test]
fn rule4_launch_and_self_detonation_reset_clock_and_clear_en_passant() {
    // Black just played d7d5; e5xd6 is possible, so the e.p. square is printed.
    let p = pos("4k3/8/2n5/3pP3/8/2P5/8/4K3 w - d6 0 2");
    assert_eq!(p.ep_square(), Some(Square::D6));
    assert_eq!(
        after(&p, "c3*c4c5c6"),
        "4k3/8/2n5/3pP3/8/8/8/4K3 b - - 0 2 c3*c4c5c6"
    );
    assert_eq!(after(&p, "c3*"), "4k3/8/2n5/3pP3/8/8/8/4K3 b - - 0 2 -");
    let q = pos("4k3/8/2n5/8/8/2P5/8/4K3 w - - 17 30");
    assert_eq!(after(&q, "c3*"), "4k3/8/2n5/8/8/8/8/4K3 b - - 0 30 -");
    assert_eq!(
        after(&q, "c3*b4b5c6"),
        "4k3/8/2n5/8/8/8/8/4K3 b - - 0 30 c3*b4b5c6"
    );
    // An ordinary quiet move still counts.
    assert_eq!(after(&q, "e1d1"), "4k3/8/2n5/8/8/2P5/8/3K4 b - - 18 30 -");
}

#[test]
fn rule4_shoot_down_and_reply_to_detonation_reset_clock() {
    // The in-flight FEN carries a non-zero clock; either reply leaves 0.
    let p = pos("3b3k/6n1/3p4/8/8/8/8/K7 b - - 9 40 e4*e5f6g7");
    assert_eq!(after(&p, "d8f6"), "7k/6n1/3p1b2/8/8/8/8/K7 w - - 0 41 -");
    assert_eq!(after(&p, "h8h7"), "3b4/7k/3p4/8/8/8/8/K7 w - - 0 41 -");
}

/// After a detonation the reply's double step leaves an en passant square as
/// usual (only the launch, self-detonation and shoot-down clear it).
#[test]
fn rule4_double_step_after_detonation_keeps_en_passant() {
    let p = pos("4k3/3p4/8/4P3/8/8/5n2/K7 b - - 0 1 g4*g3f2");
    assert_eq!(after(&p, "d7d5"), "4k3/8/8/3pP3/8/8/8/K7 w - d6 0 2 -");
}

// ----- FEN -----

#[test]
fn fen_seventh_field_read_and_printed() {
    let six = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(
        fen::format(&six),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 -"
    );
    assert_eq!(six, Position::<V>::startpos());
    let f = "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7";
    let p = pos(f);
    assert_eq!(fen::format(&p), f);
    let m = p.state().expect("missile");
    assert_eq!(m.launch, Square::E4);
    assert_eq!(m.target(), Square::G7);
    assert_eq!(
        m.path.squares().collect::<Vec<_>>(),
        vec![Square::E5, Square::F6, Square::G7]
    );
    // The side not to move may stand attacked by the target itself: it is judged
    // on the detonated board.
    pos("4r2k/8/8/1n6/8/8/8/4K3 b - - 0 1 d4*e5e6e7e8");
}

#[test]
fn fen_rejections() {
    let base = "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1";
    let cases = [
        ("e4*", "1 to 7"),
        ("e4*e5f6g7h8a1b2c3d4", "1 to 7"),
        ("e4*e5f5f4", "45 degrees"),
        ("e4*e6f6g7", "neighbour"),
        ("e4*e5f6g", "bad path"),
        ("e4e5f6g7", "expected <launch>*<path>"),
        ("z9*e5f6g7", "bad launch square"),
        ("e4*e5f6x7", "bad square"),
        ("e4*e5f6g6", "not a non-king piece"),
        ("e4*e5f6g7h8", "defender's piece on g7"),
        ("e4*e5f6", "not a non-king piece"),
        ("b3*b2a1", "not a non-king piece"),
        ("g6*h7h8", "not a non-king piece"),
    ];
    for (field, why) in cases {
        let e = rejected(&format!("{base} {field}"));
        assert!(e.contains(why), "{field}: {e}");
    }
    // Occupied launch square.
    assert!(rejected("3b3k/6n1/3p4/8/4P3/8/8/K7 b - - 0 1 e4*e5f6g7").contains("occupied"));
    // Launch from the launcher's starting rank (White: rank 2; Black: rank 7).
    assert!(rejected("3b3k/6n1/8/8/8/3p4/8/K7 b - - 0 1 e2*e3e4f5g6g7").contains("starting rank"));
    assert!(rejected("K7/8/8/2N5/8/8/8/7k w - - 0 1 c7*c6c5").contains("starting rank"));
    // Launch from a rank no pawn stands on.
    assert!(rejected("k7/8/8/8/8/8/8/K2n4 b - - 0 1 b1*c1d1").contains("rank 1 or 8"));
    // En passant field not '-' while a missile is in flight (even one that would
    // not be printed).
    assert!(rejected("3b3k/6n1/3p4/8/8/8/8/K7 b - e3 0 1 e4*e5f6g7").contains("en passant"));
    // The side not to move in check on the detonated board: destroying knight d8
    // opens rank 8 from rook a8 to king h8.
    assert!(rejected("r2n3K/8/8/8/8/8/8/k7 b - - 0 1 d6*d7d8").contains("detonated board"));
    // The same without a missile: accepted.
    pos("r2n3K/8/8/8/8/8/8/k7 b - - 0 1 -");
    // Usual checks still apply.
    assert!(rejected("3b4/6n1/3p4/8/8/8/8/K7 b - - 0 1 -").contains("kings"));
    assert!(rejected("3b3k/6n1/3p4/8/8/8/8/K6P b - - 0 1 -").contains("rank 1 or 8"));
    assert!(rejected("4k3/8/8/8/8/8/8/K3R3 w - - 0 1 -").contains("in check"));
    // A seventh field of '-' means no missile.
    assert_eq!(pos(&format!("{base} -")).state(), &None);
}

// ----- Zobrist -----

#[test]
fn zobrist_covers_the_missile() {
    let a = pos("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7");
    let b = pos("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*f5f6g7");
    let c = pos("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*f5g6g7");
    let d = pos("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 f5*f6g7");
    let none = pos("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 -");
    let keys = [a.key(), b.key(), c.key(), d.key(), none.key()];
    for i in 0..keys.len() {
        for j in i + 1..keys.len() {
            assert_ne!(keys[i], keys[j], "{i} {j}");
        }
    }
    for p in [a, b, c, d, none] {
        assert_eq!(p.key(), p.compute_key());
    }
}

/// The same in-flight position reached by two move orders has one key, equal to
/// the key of its FEN.
#[test]
fn zobrist_transpositions_agree() {
    let start = pos("4k3/8/8/2n5/8/8/4P3/4K1N1 w - - 0 1");
    let play = |tokens: &[&str]| {
        let mut g = Game::new(start);
        for t in tokens {
            g.play_token(t).unwrap_or_else(|e| panic!("{e}"));
        }
        g.pos
    };
    let x = play(&["e2e3", "e8d8", "g1f3", "d8e8", "e3*d4c5"]);
    let y = play(&["g1f3", "e8d7", "e2e3", "d7e8", "e3*d4c5"]);
    assert_eq!(x.key(), y.key());
    assert_eq!(fen::format(&x), fen::format(&y));
    assert_eq!(x.key(), pos(&fen::format(&x)).key());
    let z = play(&["g1f3", "e8d7", "e2e3", "d7e8", "e3*d3c4c5"]);
    assert_ne!(x.key(), z.key());
}

/// Repetition counts the seventh field: the board after a launch never repeats
/// the board without the missile.
#[test]
fn repetition_sees_the_missile() {
    let mut g = Game::new(pos("4k3/8/8/2n5/8/4P3/8/4K3 w - - 0 1"));
    let key_before = g.pos.key();
    g.play_token("e3*d4c5").expect("legal");
    assert_ne!(g.pos.key(), key_before);
    assert_eq!(g.repetitions(), 1);
}

// ----- search-only generators -----

/// Shootable squares of a path: its empty intermediate squares the defender
/// attacks once the pawn has left.
fn shootable(p: &Position<V>, launch: Square, path: Path) -> u64 {
    let occ = p.occupied().without(launch);
    let mut m = 0;
    for sq in path.intermediate() {
        if !occ.contains(sq) && p.attackers_to(sq, !p.turn(), occ).any() {
            m |= 1 << sq as u32;
        }
    }
    m
}

/// The search's two stages: first every legal move except launches that can be
/// shot down (one unshootable path per target), then those launches, which
/// `bad_noisy` orders last; together they drop only dominated paths.
#[test]
fn search_moves_skip_only_dominated_paths() {
    for f in [
        "7r/P7/8/8/8/8/8/K6k w - - 0 1",
        "4n2r/P7/8/8/8/8/8/K6k w - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        "r2q1k2/p4p1p/8/5Br1/8/8/PbP2P2/2R1KR2 b - - 0 22 g4*f3e3d3c2b2",
        "r1q3n1/1b6/8/4nkb1/8/R3PNB1/5K1P/6N1 b - - 0 34 b3*b4c5d6e7f7g6g5",
    ] {
        let p = pos(f);
        let mut all = MoveList::new();
        V::legal_moves(&p, &mut all);
        let mut first = MoveList::new();
        V::search_moves(&p, &mut first);
        let mut late = MoveList::new();
        V::late_moves(&p, &mut late);
        let board = detonated(&p);
        for mv in &first {
            assert!(
                !(mv.kind == LAUNCH && V::bad_noisy(&p, *mv)),
                "{f}: shootable launch {} in the first stage",
                game::token(&p, *mv)
            );
        }
        let mut safe_targets = BTreeSet::new();
        for mv in first.iter().filter(|m| m.kind == LAUNCH && m.extra != 0) {
            assert_eq!(shootable(&board, mv.from, Path(mv.extra)), 0, "{f}");
            assert!(
                safe_targets.insert((mv.from, mv.to)),
                "{f}: two unshootable paths {} to one target",
                game::token(&p, *mv)
            );
        }
        for mv in &late {
            assert!(
                mv.kind == LAUNCH && mv.extra != 0 && V::bad_noisy(&p, *mv),
                "{f}: late move {} is not a shootable launch",
                game::token(&p, *mv)
            );
            assert!(!safe_targets.contains(&(mv.from, mv.to)), "{f}");
        }
        let mut search = first.clone();
        search.extend(late.iter().copied());
        for mv in &search {
            assert!(
                all.contains(mv),
                "{f}: search move {} not legal",
                game::token(&p, *mv)
            );
        }
        // Everything but paths is kept; a dropped path has a kept one from the
        // same square to the same target whose shootable squares are a subset.
        for mv in &all {
            if search.contains(mv) {
                continue;
            }
            assert!(mv.kind == LAUNCH && mv.extra != 0, "{f}: dropped {mv:?}");
            let mask = shootable(&board, mv.from, Path(mv.extra));
            assert!(
                search.iter().any(|k| k.kind == LAUNCH
                    && k.from == mv.from
                    && k.to == mv.to
                    && k.extra != 0
                    && shootable(&board, k.from, Path(k.extra)) & !mask == 0),
                "{f}: {} dropped without a dominating path",
                game::token(&p, *mv)
            );
        }
        let unique: BTreeSet<_> = search.iter().map(|m| game::token(&p, *m)).collect();
        assert_eq!(unique.len(), search.len());
    }
}

#[test]
fn noisy_moves_hold_launches_shoot_downs_and_captures() {
    let p = pos("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7");
    let mut noisy = MoveList::new();
    V::noisy_moves(&p, &mut noisy);
    let t: BTreeSet<String> = noisy.iter().map(|m| game::token(&p, *m)).collect();
    assert_eq!(t, ["d6e5", "d8f6"].iter().map(|s| s.to_string()).collect());
    for mv in &noisy {
        assert!(V::is_noisy(&p, *mv));
    }

    let q = pos("7r/P7/8/8/8/8/8/K6k w - - 0 1");
    let mut noisy = MoveList::new();
    V::noisy_moves(&q, &mut noisy);
    let launches = noisy.iter().filter(|m| m.kind == LAUNCH).count();
    assert!(launches >= 1);
    assert!(noisy.iter().all(|m| m.kind != LAUNCH || m.extra != 0));
    // Quiescence skips launches that can be shot down: none is generated.
    assert!(noisy
        .iter()
        .all(|m| m.kind != LAUNCH || !V::bad_noisy(&q, *m)));
    assert_eq!(noisy.iter().filter(|m| m.promotion.is_some()).count(), 4);
    assert!(noisy.iter().all(|m| V::is_noisy(&q, *m)));
    // Nothing on the way to h8 is attacked: one unstoppable path suffices.
    assert_eq!(launches, 1);
    assert_eq!(noisy.len(), 5);
    // Gains (docs/RULES.md values P 100, N 320, B 330, R 500, Q 900): the launch
    // destroys the rook and spends the pawn (500 - 100); a promotion gains the
    // new piece less the pawn.
    for mv in &noisy {
        let token = game::token(&q, *mv);
        let want = match token.as_str() {
            "a7a8q" => 800,
            "a7a8r" => 400,
            "a7a8b" => 230,
            "a7a8n" => 220,
            t if t.starts_with("a7*") && t.ends_with("h8") => 400,
            t => panic!("unexpected noisy move {t}"),
        };
        assert_eq!(V::gain_estimate(&q, *mv), want, "{token}");
    }
    // In flight, a shoot-down saves the target: its gain is the target's value
    // (knight b8, 320), plus the promotion's for pawn b7 shooting down on c8.
    let r = pos("1N6/1P6/8/8/8/8/8/K6k w - - 0 2 e6*d7c8b8");
    for (token, want) in [("b8d7", 320), ("b7c8q", 320 + 800), ("b7c8n", 320 + 220)] {
        let mv = game::find_move(&r, token).expect(token);
        assert!(is_shoot_down(mv), "{token}");
        assert_eq!(V::gain_estimate(&r, mv), want, "{token}");
    }
}

#[test]
fn evaluation_counts_the_pending_missile_and_threats() {
    // In flight, the target is as good as gone: White (launcher) is better off
    // than on the same board with no missile.
    let flying = pos("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7");
    let still = pos("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 -");
    assert!(V::evaluate(&flying) - V::evaluate(&still) >= 300);
    // An unstoppable threat to a queen is worth something to its owner's enemy.
    // Rook d5 does not cover c4: c3*c4d5 cannot be shot down.
    let threat = pos("4k3/8/8/3r4/8/2P5/8/4K3 w - - 0 1");
    let no_threat = pos("4k3/8/8/3r4/8/8/2P5/4K3 w - - 0 1");
    assert!(tokens(&threat).contains(&"c3*c4d5".to_string()));
    assert!(V::evaluate(&threat) > V::evaluate(&no_threat));
}

/// The waiting side's threats: the best counts /16 (the mover parries one), the
/// second (minus the spent pawn) /2. White's c3 pawn reaches d5 via c4 and b5 via
/// b4, neither of which Black covers.
#[test]
fn evaluation_counts_a_double_threat_against_the_mover() {
    let one = pos("4k3/8/8/3r4/8/2P5/8/4K3 b - - 0 1");
    assert_eq!(V::evaluate(&one), 500 / 16);
    let two = pos("4k3/8/8/1n1r4/8/2P5/8/4K3 b - - 0 1");
    assert_eq!(V::evaluate(&two), 500 / 16 + (320 - 100) / 2);
}

#[test]
fn evaluation_is_colour_symmetric() {
    for f in [
        "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7",
        "4k3/8/8/3r4/8/2P5/8/4K3 w - - 0 1 -",
        "r2q1k2/p4p1p/8/5Br1/8/8/PbP2P2/2R1KR2 b - - 0 22 g4*f3e3d3c2b2",
        "r1q3n1/1b6/8/4nkb1/8/R3PNB1/5K1P/6N1 b - - 0 34 b3*b4c5d6e7f7g6g5",
        "r2q1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R2Q1RK1 w - - 0 9 -",
    ] {
        let p = pos(f);
        let m = pos(&common::flip_fen(f));
        assert_eq!(
            V::evaluate(&p),
            -V::evaluate(&m),
            "{f} vs {}",
            common::flip_fen(f)
        );
        // The mirrored position has the mirrored move count too.
        assert_eq!(tokens(&p).len(), tokens(&m).len(), "{f}");
    }
    assert_eq!(V::evaluate(&Position::<V>::startpos()), 0);
}

// ----- perft -----

#[test]
fn perft_hand_counts() {
    // Depth 1 of the boxed-in pawn (10, listed above). Depth 2: Black's replies
    // after each of the ten moves, worked out independently of the engine's
    // generator: the ordinary chess moves of the (detonated) board, counted by
    // hand and with shakmaty's chess generator, plus pawn h3's launches from this
    // file's naive enumerator (no shoot-downs: every path flown is k <= 1). For
    // example after h4*g4 the bishop is gone: king a8 3, knight g5 5 (e6 e4 f7
    // h7 f3), rook h5 4 (h6 h7 h8 h4), knight g3 5 (e2 e4 f1 f5 h1), h3h2, and
    // the self-detonation h3* = 19. With the white pawn still on h4, pawn h3 has
    // three launches: h3*, h3*h4 and the seven-square loop h3*g2f2e3e4f5g5h4.
    let p = pos("k7/8/8/6nr/6bP/6np/8/K7 w - - 0 1");
    assert_eq!(perft::perft(&p, 1), 10);
    let want: Vec<(String, u64)> = [
        ("a1a2", 25 + 3),
        ("a1b1", 25 + 3),
        ("a1b2", 25 + 3),
        ("h4*", 25 + 1),
        ("h4*g3", 20 + 1),
        ("h4*g4", 18 + 1),
        ("h4*g5", 27 + 1),
        ("h4*h3", 29),
        ("h4*h5", 23 + 1),
        ("h4g5", 21 + 5),
    ]
    .iter()
    .map(|&(t, n)| (t.to_string(), n))
    .collect();
    let mut got = perft::divide(&p, 2, 1);
    got.sort();
    assert_eq!(got, want);
    assert_eq!(perft::perft(&p, 2), 257);
    // Missile in flight with no reply: perft 1 is 0.
    assert_eq!(
        perft::perft(&pos("R3n2k/6pp/8/8/8/8/8/K7 b - - 0 1 e6*e7e8"), 1),
        0
    );
}

/// The core hooks this variant added (`check_fen_fields`, `search_moves`) leave
/// standard chess as it was: known perft counts, and a seventh field is refused.
#[test]
fn chess_unchanged_by_the_new_hooks() {
    let start = Position::<Chess>::startpos();
    assert_eq!(perft::perft(&start, 4), 197_281);
    let kiwipete =
        fen::parse::<Chess>("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .expect("kiwipete");
    assert_eq!(perft::perft(&kiwipete, 3), 97_862);
    let mut a = MoveList::new();
    let mut b = MoveList::new();
    Chess::legal_moves(&kiwipete, &mut a);
    Chess::search_moves(&kiwipete, &mut b);
    assert_eq!(a, b);
    assert!(fen::parse::<Chess>("4k3/8/8/8/8/8/8/4K3 w - e3 0 1 -").is_err());
    assert!(fen::parse::<Chess>("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1").is_ok());
}

// ----- the naive reference enumerators -----

/// Every launch token by brute force: all direction sequences of up to 7 steps
/// with turns of at most 45 degrees, stopping at the edge or at an enemy piece,
/// legality by copy-make.
fn naive_launches(p: &Position<V>) -> BTreeSet<String> {
    const D: [(i32, i32); 8] = [
        (0, 1),
        (1, 1),
        (1, 0),
        (1, -1),
        (0, -1),
        (-1, -1),
        (-1, 0),
        (-1, 1),
    ];
    let us = p.turn();
    let start_rank = if us == Color::White { 1 } else { 6 };
    let mut out = BTreeSet::new();
    for launch in p.by_piece(us.pawn()) {
        if launch.rank() as u32 == start_rank {
            continue;
        }
        let mut gone = *p;
        gone.take(launch);
        if !gone.king_attacked(us) {
            out.insert(format!("{launch}*"));
        }
        // Iterate over all 8 * 3^6 direction words.
        for first in 0..8usize {
            for word in 0..729usize {
                let mut dirs = vec![first];
                let mut w = word;
                for _ in 0..6 {
                    let prev = *dirs.last().unwrap();
                    dirs.push((prev + 7 + w % 3) % 8);
                    w /= 3;
                }
                let (mut f, mut r) = (launch.file() as i32, launch.rank() as i32);
                let mut token = format!("{launch}*");
                for &d in &dirs {
                    f += D[d].0;
                    r += D[d].1;
                    if !(0..8).contains(&f) || !(0..8).contains(&r) {
                        break;
                    }
                    let sq = Square::from_coords(
                        shakmaty::File::new(f as u32),
                        shakmaty::Rank::new(r as u32),
                    );
                    token.push_str(&sq.to_string());
                    if let Some(piece) = p.piece_at(sq) {
                        if piece.color != us {
                            if piece.role != Role::King {
                                let mut after = gone;
                                after.take(sq);
                                if !after.king_attacked(us) {
                                    out.insert(token.clone());
                                }
                            }
                            break;
                        }
                    }
                }
            }
        }
    }
    out
}

/// Shoot-down tokens by brute force: every defender piece whose chess attack
/// reaches an empty intermediate square, legality by copy-make.
fn naive_shoot_downs(p: &Position<V>) -> BTreeSet<String> {
    let m = p.state().expect("missile in flight");
    let us = p.turn();
    let mut out = BTreeSet::new();
    for si in m.path.intermediate() {
        if p.occupied().contains(si) {
            continue;
        }
        for from in p.by_color(us) {
            let piece = p.piece_at(from).expect("piece");
            if !attacks::attacks(from, piece, p.occupied()).contains(si) {
                continue;
            }
            let mut after = *p;
            after.take(from);
            let promotes = piece.role == Role::Pawn && si.rank() == (!us).backrank();
            after.put(si, piece);
            if after.king_attacked(us) {
                continue;
            }
            if promotes {
                for c in ['q', 'r', 'b', 'n'] {
                    out.insert(format!("{from}{si}{c}"));
                }
            } else {
                out.insert(format!("{from}{si}"));
            }
        }
    }
    out
}

/// The network reads the board with the pending missile detonated: knight g7,
/// the target of `e4*e5f6g7`, is gone (the flying pawn is off the board
/// already); without a missile in flight it reads the pieces as they stand.
#[test]
fn network_reads_the_board_with_the_pending_missile_detonated() {
    use turncoat::engine::nnue;
    let piece_list = |p: &Position<V>| -> Vec<String> {
        let mut out = Vec::new();
        for (i, &squares) in V::network_boards(p).iter().enumerate() {
            for s in squares {
                out.push(format!("{}{s}", nnue::piece_of(i).char()));
            }
        }
        out.sort();
        out
    };
    let flying = pos("6k1/6n1/8/8/8/8/8/K7 b - - 0 1 e4*e5f6g7");
    assert_eq!(piece_list(&flying), sorted(&["Ka1", "kg8"]));
    assert_eq!(
        V::network_boards(&flying),
        nnue::piece_boards(&detonated(&flying))
    );
    let launch = pos("6k1/6n1/8/8/4P3/8/8/K7 w - - 0 1");
    assert_eq!(piece_list(&launch), sorted(&["Ka1", "Pe4", "kg8", "ng7"]));
}
