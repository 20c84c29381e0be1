//! Attending Pawns: reference data and hand-worked rule tests (docs/RULES.md, "Attending Pawns").

mod common;

use common::sorted;

use shakmaty::{Color, Rank, Role, Square};
use turncoat::engine::policy::Policy;
use turncoat::rules::fen;
use turncoat::rules::game::{self, Game};
use turncoat::rules::movegen::{self, Legality, Stage};
use turncoat::rules::moves::{MoveKind, MoveList};
use turncoat::rules::perft;
use turncoat::rules::position::{Internals as _, Position};
use turncoat::rules::variants::attending_pawns::{
    with_created_pawn, with_relocations, AttendingPawns,
};
use turncoat::rules::variants::Variant;

type V = AttendingPawns;

fn pos(fen_str: &str) -> Position<V> {
    fen::parse::<V>(fen_str).unwrap_or_else(|e| panic!("{fen_str}: {e}"))
}

fn tokens(fen_str: &str) -> Vec<String> {
    common::legal_tokens(&pos(fen_str))
}

fn after(fen_str: &str, token: &str) -> String {
    common::after_move(&pos(fen_str), token)
}

fn reject(fen_str: &str) -> String {
    match fen::parse::<V>(fen_str) {
        Ok(_) => panic!("{fen_str} should be rejected"),
        Err(e) => e.to_string(),
    }
}

// ----- reference data -----

#[test]
fn reference_examples() {
    common::check_examples_file::<V>(include_str!("data/attendingpawns_examples.json"));
}

#[test]
fn reference_perft() {
    common::check_perft_file::<V>(include_str!("data/attendingpawns_perft.json"), 3);
}

// ----- FEN: the links field -----

#[test]
fn start_position_prints_default_links() {
    let p = Position::<V>::startpos();
    assert_eq!(fen::format(&p), V::START_FEN);
    let six = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(six, p);
    assert_eq!(six.key(), p.key());
}

#[test]
fn default_links_need_a_celebrity_of_the_same_colour_behind() {
    // a2 behind: white knight (linked); b2 behind: white pawn (no); c2 behind: black
    // rook (no); h7 behind: black king h8 (linked); g7 behind: white bishop (no).
    let p = pos("6Bk/6pp/8/8/8/8/PPP5/NPr1K3 w - - 0 1");
    assert_eq!(
        fen::format(&p),
        "6Bk/6pp/8/8/8/8/PPP5/NPr1K3 w - - 0 1 a1a2,h8h7"
    );
}

#[test]
fn links_are_read_in_any_order_and_printed_sorted() {
    let p = pos("4k3/4p3/8/8/8/8/PP6/RN2K3 w - - 0 1 e8e7,b1a2,a1b2");
    assert_eq!(
        fen::format(&p),
        "4k3/4p3/8/8/8/8/PP6/RN2K3 w - - 0 1 a1b2,b1a2,e8e7"
    );
}

#[test]
fn dash_means_no_link_at_all() {
    let p = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 -");
    assert!(p.state().is_empty());
    assert!(fen::format(&p).ends_with(" 0 1 -"));
    // Rule 1: no pawn may push, so only knight moves remain, without extras.
    assert_eq!(
        common::legal_tokens(&p),
        sorted(&["b1a3", "b1c3", "g1f3", "g1h3"])
    );
}

#[test]
fn fen_rejections() {
    let base = "4k3/p7/8/8/8/8/PP6/N3K3 w - - 0 1";
    let cases = [
        ("a1a2,a1b2", "square a1 appears in two links"),
        ("a1a2,e1a2", "square a2 appears in two links"),
        (
            "a1a7",
            "link a1a7: the pawn on a7 is not the celebrity's colour",
        ),
        (
            "e8a2",
            "link e8a2: the pawn on a2 is not the celebrity's colour",
        ),
        ("a1a3", "link a1a3: no pawn on a3"),
        ("a1e1", "link a1e1: no pawn on e1"),
        ("b1a2", "link b1a2: no celebrity on b1"),
        ("a2b2", "link a2b2: a2 holds a pawn, not a celebrity"),
        ("a2a2", "link a2a2: a2 holds a pawn, not a celebrity"),
    ];
    for (field, msg) in cases {
        assert_eq!(reject(&format!("{base} {field}")), msg, "{field}");
    }
    for field in [
        "a1a",
        "a1a2,",
        "a1a2;b1b2",
        "a1z2",
        "a1a2,,b1b2",
        "é1a2",
        "a1a2b1b2",
    ] {
        let e = reject(&format!("{base} {field}"));
        assert!(e.starts_with("bad link"), "{field}: {e}");
    }
}

#[test]
fn pawns_may_stand_on_their_own_first_rank_only() {
    // White pawn on rank 1 and black pawn on rank 8: accepted.
    let p = pos("3pk3/8/8/8/8/8/8/4KP2 w - - 0 1 e1f1,e8d8");
    assert_eq!(fen::format(&p), "3pk3/8/8/8/8/8/8/4KP2 w - - 0 1 e1f1,e8d8");
    assert_eq!(
        reject("4kP2/8/8/8/8/8/8/4K3 w - - 0 1 -"),
        "pawn on f8: pawns may not stand on rank 1 or 8"
    );
    assert_eq!(
        reject("4k3/8/8/8/8/8/8/4Kp2 w - - 0 1 -"),
        "pawn on f1: pawns may not stand on rank 1 or 8"
    );
    // The usual checks still hold.
    assert_eq!(
        reject("4k3/8/8/8/8/8/8/4R3 w - - 0 1 -"),
        "white has 0 kings, expected exactly one"
    );
    assert_eq!(
        reject("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1 -"),
        "the side not to move is in check"
    );
}

// ----- Zobrist key and repetition -----

#[test]
fn links_are_part_of_the_key() {
    let board = "4k3/8/8/8/8/8/PP6/RN2K3 w - - 0 1";
    let keys: Vec<u64> = ["a1a2,b1b2", "a1b2,b1a2", "a1a2", "b1b2", "-"]
        .iter()
        .map(|f| pos(&format!("{board} {f}")).key())
        .collect();
    for i in 0..keys.len() {
        for j in i + 1..keys.len() {
            assert_ne!(keys[i], keys[j], "links {i} and {j}");
        }
    }
    // Same links in another order: same key.
    assert_eq!(
        pos(&format!("{board} b1b2,a1a2")).key(),
        pos(&format!("{board} a1a2,b1b2")).key()
    );
    // Six fields: each pawn attends the piece behind it, i.e. a1a2,b1b2.
    assert_eq!(pos(board).key(), keys[0]);
}

#[test]
fn transpositions_have_equal_keys() {
    let start = Position::<V>::startpos();
    let play = |moves: &[&str]| {
        let mut g = Game::new(start);
        for m in moves {
            g.play_token(m).unwrap_or_else(|e| panic!("{e}"));
        }
        g
    };
    let a = play(&["g1f3,g2g3", "b8c6,b7b6", "b1c3,b2b3", "g8f6,g7g6"]);
    let b = play(&["b1c3,b2b3", "g8f6,g7g6", "g1f3,g2g3", "b8c6,b7b6"]);
    assert_eq!(a.pos.key(), b.pos.key());
    assert_eq!(a.pos, b.pos);
    // Out and back with the pawn staying: the start position again, repeated.
    let mut g = play(&[]);
    for _ in 0..2 {
        for m in ["b1c3,b2b2", "b8c6,b7b7", "c3b1,b2b2", "c6b8,b7b7"] {
            g.play_token(m).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    assert_eq!(g.pos.key(), start.key());
    assert_eq!(g.repetitions(), 3);
    assert!(matches!(
        g.outcome(),
        Some(game::Outcome::Draw {
            reason: "threefold repetition"
        })
    ));
}

#[test]
fn same_board_other_links_is_no_repetition() {
    // The pawn on d2 attends the knight c3 in A, the knight e3 in B.
    let fen_a = "4k3/8/8/8/8/2N1N3/3P4/4K3 w - - 0 1 c3d2";
    let fen_b = "4k3/8/8/8/8/2N1N3/3P4/4K3 w - - 0 1 e3d2";
    assert_ne!(pos(fen_a).key(), pos(fen_b).key());
    // c3-b1 and back, the pawn returning to d2: A again, a repetition.
    let mut g = Game::new(pos(fen_a));
    for m in ["c3b1,d2c2", "e8d8", "b1c3,c2d2", "d8e8"] {
        g.play_token(m).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(g.pos.key(), pos(fen_a).key());
    assert_eq!(g.repetitions(), 2);
    // The knights swap squares (e3-d1-c3, c3-d5-e3): the same board, but the pawn
    // now attends the knight on e3: position B, no repetition of A.
    for m in [
        "e3d1",
        "e8d8",
        "c3d5,d2d4",
        "d8e8",
        "d1c3",
        "e8d8",
        "d5e3,d4d2",
        "d8e8",
    ] {
        g.play_token(m).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(
        fen::format(&g.pos),
        "4k3/8/8/8/8/2N1N3/3P4/4K3 w - - 12 7 e3d2"
    );
    assert_eq!(g.pos.key(), pos(fen_b).key());
    assert_ne!(g.pos.key(), pos(fen_a).key());
    assert_eq!(g.repetitions(), 1);
}

// ----- rule 1: unattached pawns only capture -----

#[test]
fn unattached_pawn_on_the_seventh_promotes_only_by_capturing() {
    // a7 is unattached: no a7a8, but a7xb8 promotes, with a new pawn on a7, b7 or c7.
    let t = tokens("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1 -");
    let mut expected: Vec<String> = ["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for role in ["q", "r", "b", "n"] {
        for sq in ["a7", "b7", "c7"] {
            expected.push(format!("a7b8{role},{sq}"));
        }
    }
    expected.sort();
    assert_eq!(t, expected);
    assert_eq!(
        after("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1 -", "a7b8n,c7"),
        "1N2k3/2P5/8/8/8/8/8/4K3 b - - 0 1 b8c7"
    );
}

#[test]
fn unattached_pawn_still_gives_check() {
    // The unattached pawn on d7 checks e8... so this FEN is illegal with Black not
    // to move in check; with Black to move, Black must answer the check.
    assert_eq!(
        reject("4k3/3P4/8/8/8/8/8/4K3 w - - 0 1 -"),
        "the side not to move is in check"
    );
    let t = tokens("4k3/3P4/8/8/8/8/8/4K3 b - - 0 1 -");
    assert_eq!(t, sorted(&["e8d7", "e8d8", "e8e7", "e8f7", "e8f8"]));
}

// ----- rule 2: placements -----

#[test]
fn relocated_pawn_must_keep_a_pin_blocked() {
    // Pawn e2 (attached to knight g1) shields king e1 from rook e8. Knight g1-f3 may
    // only leave it on the e-file (e2 stays, e3, e4); from h3 nothing blocks.
    let t = tokens("4r2k/8/8/8/8/8/4P3/4K1N1 w - - 0 1 g1e2");
    assert_eq!(
        t,
        sorted(&[
            "e1d1",
            "e1d2",
            "e1f1",
            "e1f2",
            "e2e3",
            "e2e4",
            "g1f3,e2e2",
            "g1f3,e2e3",
            "g1f3,e2e4",
        ])
    );
}

#[test]
fn king_may_step_into_a_line_its_pawn_blocks() {
    // Rook a2 sweeps rank 2. The king (attended by the pawn on h1) may go to d2, e2
    // or f2 only with its pawn placed between: c2, d2, e2 respectively.
    let fen_str = "7k/8/8/8/8/8/r7/4K2P w - - 0 1 e1h1";
    let expected = sorted(&[
        "e1d1,h1c1",
        "e1d1,h1c2",
        "e1d1,h1d2",
        "e1d1,h1e1",
        "e1d1,h1e2",
        "e1f1,h1e1",
        "e1f1,h1e2",
        "e1f1,h1f2",
        "e1f1,h1g1",
        "e1f1,h1g2",
        "e1d2,h1c2",
        "e1e2,h1d2",
        "e1f2,h1e2",
        "h1h2",
    ]);
    assert_eq!(tokens(fen_str), expected);
    assert_eq!(
        after(fen_str, "e1e2,h1d2"),
        "7k/8/8/8/8/8/r2PK3/8 b - - 1 1 e2d2"
    );
}

#[test]
fn capture_placement_only_without_empty_square_and_never_the_king() {
    // Zone of a8 for a white pawn: a7 (black king) and b7 (b8 is the last rank).
    let with_pawn = tokens("8/kp6/1N6/8/8/8/7P/4K3 w - - 0 1 b6h2");
    assert!(with_pawn.contains(&"b6a8,h2b7".to_string()));
    assert!(!with_pawn.iter().any(|t| t.starts_with("b6a8,h2a7")));
    assert_eq!(
        after("8/kp6/1N6/8/8/8/7P/4K3 w - - 0 1 b6h2", "b6a8,h2b7"),
        "N7/kP6/8/8/8/8/8/4K3 b - - 0 1 a8b7"
    );
    // With a friendly bishop on b7 the knight has no placement: b6-a8 is illegal.
    let blocked = tokens("8/kB6/1N6/8/8/8/7P/4K3 w - - 0 1 b6h2");
    assert!(!blocked.iter().any(|t| t.starts_with("b6a8")));
    assert!(blocked.iter().any(|t| t.starts_with("b6c8,")));
}

#[test]
fn missing_or_wrong_extras_are_illegal_tokens() {
    let start = Position::<V>::startpos();
    assert!(game::find_move(&start, "b1c3,b2b2").is_some());
    for bad in [
        "b1c3",
        "b1c3,b2e4",
        "b1c3,b2b2,",
        "b1c3,b2b2,b2b3",
        "B1c3,b2b2",
        "b1c3,c2c4",
        "b1c3,b2",
        "b1c3 b2b2",
        "e2e4,e2e4",
    ] {
        assert!(game::find_move(&start, bad).is_none(), "{bad}");
    }
    let castle = "4k3/8/8/8/8/8/4PPPP/4K2R w K - 0 1";
    let p = pos(castle);
    assert!(game::find_move(&p, "e1g1,e2h1,h2e1").is_some());
    for bad in [
        "e1g1",
        "e1g1,e2h1",
        "e1g1,h2e1,e2h1",
        "e1h1,e2h1,h2e1",
        "e1g1,e2h1,h2h2",
    ] {
        assert!(game::find_move(&p, bad).is_none(), "{bad}");
    }
    let promo = pos("5r2/4P3/8/7k/8/8/8/K6N w - - 0 1 h1e7");
    assert!(game::find_move(&promo, "e7e8q,d7").is_some());
    for bad in ["e7e8q", "e7e8q,e7e7", "e7e8q,d8", "e7e8,d7", "e7e8q,d7,e7"] {
        assert!(game::find_move(&promo, bad).is_none(), "{bad}");
    }
    let mut g = Game::new(start);
    assert!(g.play_token("b1c3").is_err());
    assert_eq!(g.pos, start);
}

// ----- rule 3: castling -----

#[test]
fn castling_destination_judged_after_the_placements() {
    // Bishop a7 hits g1 through f2; castling is legal only with the king's pawn on f2.
    let fen_str = "4k3/b7/8/8/8/8/4P3/4K2R w K - 0 1";
    let p = pos(fen_str);
    assert_eq!(fen::format(&p), "4k3/b7/8/8/8/8/4P3/4K2R w K - 0 1 e1e2");
    let mut expected = vec![
        "e1d1,e2c1",
        "e1d1,e2c2",
        "e1d1,e2d2",
        "e1d1,e2e1",
        "e1d1,e2e2",
        "e1d2,e2c1",
        "e1d2,e2c2",
        "e1d2,e2c3",
        "e1d2,e2d1",
        "e1d2,e2d3",
        "e1d2,e2e1",
        "e1d2,e2e2",
        "e1d2,e2e3",
        "e1f1,e2e1",
        "e1f1,e2e2",
        "e1f1,e2f2",
        "e1f1,e2g1",
        "e1f1,e2g2",
        "e1f2,e2e3",
        "e2e3",
        "e2e4",
        "h1f1",
        "h1g1",
        "e1g1,e2f2",
    ];
    let rook: Vec<String> = (2..=8).map(|r| format!("h1h{r}")).collect();
    expected.extend(rook.iter().map(|s| s.as_str()));
    assert_eq!(common::legal_tokens(&p), sorted(&expected));
    assert_eq!(
        after(fen_str, "e1g1,e2f2"),
        "4k3/b7/8/8/8/8/5P2/5RK1 b - - 1 1 g1f2"
    );
}

#[test]
fn castling_passed_square_judged_before_the_move() {
    // Rook f8 attacks f1: no castling, though the rook would stand on f1 afterwards.
    let t = tokens("4kr2/8/8/8/8/8/4P3/4K2R w K - 0 1");
    assert!(!t.iter().any(|m| m.starts_with("e1g1")));
    // Nor out of check (rook e8 on the open e-file).
    let t = tokens("k3r3/8/8/8/8/8/8/4K2R w K - 0 1 -");
    assert!(!t.iter().any(|m| m.starts_with("e1g1")));
}

#[test]
fn castling_with_only_the_rook_attended() {
    let fen_str = "4k3/8/8/8/8/8/7P/4K2R w K - 0 1";
    let castles: Vec<String> = tokens(fen_str)
        .into_iter()
        .filter(|t| t.starts_with("e1g1"))
        .collect();
    assert_eq!(
        castles,
        sorted(&["e1g1,h2e1", "e1g1,h2e2", "e1g1,h2f2", "e1g1,h2g2"])
    );
    assert_eq!(
        after(fen_str, "e1g1,h2f2"),
        "4k3/8/8/8/8/8/5P2/5RK1 b - - 1 1 f1f2"
    );
    // Queen side with both attended: the king's pawn goes first into c1's zone.
    let q = "4k3/8/8/8/8/8/P3P3/R3K3 w Q - 0 1";
    let castles: Vec<String> = tokens(q)
        .into_iter()
        .filter(|t| t.starts_with("e1c1"))
        .collect();
    // King's pawn e2 -> b1, b2, c2, d2 (d1 holds the rook); rook's pawn a2 then goes
    // into d1's zone: c1 is the king, c2/d2/e1/e2 minus the square just taken.
    let mut expected = Vec::new();
    for k in ["b1", "b2", "c2", "d2"] {
        for r in ["c2", "d2", "e1", "e2"] {
            if r != k {
                expected.push(format!("e1c1,e2{k},a2{r}"));
            }
        }
    }
    expected.sort();
    assert_eq!(castles, expected);
    assert_eq!(
        after(q, "e1c1,e2b1,a2e2"),
        "4k3/8/8/8/8/8/4P3/1PKR4 b - - 1 1 c1b1,d1e2"
    );
}

// ----- rule 4: promotion -----

#[test]
fn promotion_whose_new_pawn_blocks_the_check() {
    // Bishop f8 checks b4 along e7-d6-c5. Only the pawn created on e7 blocks it.
    let t = tokens("5b1k/3P4/8/8/1K6/8/8/N7 w - - 0 1 a1d7");
    assert_eq!(
        t,
        sorted(&[
            "b4a4", "b4a5", "b4b3", "b4b5", "b4c3", "b4c4", "d7d8b,e7", "d7d8n,e7", "d7d8q,e7",
            "d7d8r,e7",
        ])
    );
    assert_eq!(
        after("5b1k/3P4/8/8/1K6/8/8/N7 w - - 0 1 a1d7", "d7d8r,e7"),
        "3R1b1k/4P3/8/8/1K6/8/8/N7 b - - 0 1 d8e7"
    );
}

// ----- rule 5: captures dissolve links -----

#[test]
fn captured_attached_pawn_leaves_its_celebrity_free() {
    let fen_str = "4k3/8/8/3p4/4P3/8/8/4K1N1 b - - 0 1 g1e4";
    // d5 is unattached: it captures but does not push.
    assert!(tokens(fen_str).contains(&"d5e4".to_string()));
    assert!(!tokens(fen_str).contains(&"d5d4".to_string()));
    let next = after(fen_str, "d5e4");
    assert_eq!(next, "4k3/8/8/8/4p3/8/8/4K1N1 w - - 0 2 -");
    let t = tokens(&next);
    assert!(t.contains(&"g1f3".to_string()));
    assert!(!t.iter().any(|m| m.contains(',')));
}

#[test]
fn captured_celebrity_leaves_its_pawn_unattached() {
    // Black bishop b4 takes the knight c3 whose pawn is h2: h2 can no longer push.
    let fen_str = "4k3/8/8/8/1b6/2N5/7P/4K3 b - - 0 1 c3h2";
    let next = after(fen_str, "b4c3");
    assert_eq!(next, "4k3/8/8/8/8/2b5/7P/4K3 w - - 0 2 -");
    assert!(!tokens(&next).iter().any(|m| m.starts_with("h2")));
}

// ----- rule 6: en passant, first rank, halfmove clock -----

#[test]
fn relocation_never_creates_en_passant() {
    let fen_str = "rnbqkbnr/pp1ppppp/8/8/2p5/8/PPPPPPPP/RNBQKBNR w KQkq - 3 5";
    // The double step of b2 gives c4 an en passant capture ...
    let pushed = after(fen_str, "b2b4");
    assert_eq!(
        pushed,
        "rnbqkbnr/pp1ppppp/8/8/1Pp5/8/P1PPPPPP/RNBQKBNR b KQkq b3 0 5 \
         a1a2,b1b4,c1c2,d1d2,e1e2,f1f2,g1g2,h1h2,a8a7,b8b7,d8d7,e8e7,f8f7,g8g7,h8h7"
    );
    // ... and the unattached c4 pawn may take it.
    assert!(tokens(&pushed).contains(&"c4b3".to_string()));
    // The relocation b2 -> b4 does neither, nor resets the clock.
    let relocated = after(fen_str, "b1a3,b2b4");
    assert_eq!(
        relocated,
        "rnbqkbnr/pp1ppppp/8/8/1Pp5/N7/P1PPPPPP/R1BQKBNR b KQkq - 4 5 \
         a1a2,c1c2,d1d2,e1e2,f1f2,g1g2,h1h2,a3b4,a8a7,b8b7,d8d7,e8e7,f8f7,g8g7,h8h7"
    );
    assert!(!tokens(&relocated).contains(&"c4b3".to_string()));
}

#[test]
fn pawn_on_its_first_rank_steps_one_square_then_may_double_step() {
    // Black pawn on e8 (its own first rank), attached to the black king d8.
    let fen_str = "3kp3/8/8/8/8/8/8/4K3 b - - 0 1 d8e8";
    let t = tokens(fen_str);
    assert!(t.contains(&"e8e7".to_string()));
    assert!(!t.contains(&"e8e6".to_string()));
    let next = after(fen_str, "e8e7");
    assert_eq!(next, "3k4/4p3/8/8/8/8/8/4K3 w - - 0 2 d8e7");
    let next = after(&next, "e1d1");
    assert!(tokens(&next).contains(&"e7e5".to_string()));
}

// ----- evaluation and search hooks -----

#[test]
fn noisy_moves_include_capturing_placements() {
    let p = pos("7k/pnp5/1N6/8/8/8/7P/4K3 w - - 0 1 b6h2,b7c7");
    let mv = game::find_move(&p, "b6a8,h2b7").expect("legal");
    assert!(V::is_noisy(&p, mv));
    assert_eq!(V::gain_estimate(&p, mv), 320);
    let quiet = game::find_move(&p, "b6c4,h2b3").expect("legal");
    assert!(!V::is_noisy(&p, quiet));
    let mut noisy = MoveList::new();
    V::noisy_moves(&p, &mut noisy);
    let mut t: Vec<String> = noisy.iter().map(|&m| game::token(&p, m)).collect();
    t.sort();
    assert_eq!(t, sorted(&["b6a8,h2a7", "b6a8,h2b7"]));
}

#[test]
fn evaluation_prefers_attached_pawns() {
    let attached = pos("4k3/8/8/8/8/8/PP6/N3K3 w - - 0 1");
    let free = pos("4k3/8/8/8/8/8/PP6/N3K3 w - - 0 1 -");
    assert!(V::evaluate(&attached) > V::evaluate(&free));
    assert_eq!(V::evaluate(&Position::<V>::startpos()), 0);
}

/// An unattached passed pawn cannot walk its road: the variant takes back the
/// shared passed-pawn bonus on top of the unattached penalty (-25).
///
/// Worked value: Attending Pawns evaluates with the hand-set weights (its
/// evaluation is not tuned), whose passed-pawn bonus on the sixth rank (relative
/// rank index 5) is S(40, 70); the discount is the plain mean (40 + 70) / 2 = 55,
/// so the pawn on e6 scores -25 - 55 = -80.
#[test]
fn evaluation_discounts_unattached_passed_pawns() {
    let passed = pos("k7/8/4P3/8/8/8/8/4K3 w - - 0 1 -");
    assert_eq!(V::evaluate(&passed), -80);
    // Blocked by f7 (and blocking it): both unattached, neither passed.
    let blocked = pos("k7/5p2/4P3/8/8/8/8/4K3 w - - 0 1 -");
    assert_eq!(V::evaluate(&blocked), 0);
}

// ----- an independent, naive generator cross-checks the fast one -----

/// The 8 squares around `sq`.
fn zone(sq: Square) -> Vec<Square> {
    (0..64u32)
        .map(Square::new)
        .filter(|s| s.distance(sq) == 1)
        .collect()
}

/// Rule 2 read literally, square by square, on `board` (after the celebrity moved):
/// the pawn standing on `own` counts as an empty square.
fn naive_squares(
    board: &Position<V>,
    to: Square,
    color: Color,
    own: Option<Square>,
) -> Vec<Square> {
    let last = if color == Color::White {
        Rank::Eighth
    } else {
        Rank::First
    };
    let zone: Vec<Square> = zone(to).into_iter().filter(|s| s.rank() != last).collect();
    let empty: Vec<Square> = zone
        .iter()
        .copied()
        .filter(|&s| Some(s) == own || board.piece_at(s).is_none())
        .collect();
    if !empty.is_empty() {
        return empty;
    }
    zone.into_iter()
        .filter(
            |&s| matches!(board.piece_at(s), Some(p) if p.color != color && p.role != Role::King),
        )
        .collect()
}

fn relocate(board: &mut Position<V>, from: Square, to: Square) {
    if from != to {
        let pawn = board.take(from).expect("pawn to relocate");
        board.take(to);
        board.put(to, pawn);
    }
}

/// Relocations of one move, in placement order.
type Relocations = Vec<(Square, Square)>;

/// Every legal move, by brute force: chess pseudo moves, every placement rule 2
/// allows, and legality judged on the position after the whole move.
fn naive_legal(p: &Position<V>) -> Vec<String> {
    let us = p.turn();
    let links = *p.state();
    let mut bases = MoveList::new();
    movegen::generate(p, &mut bases, Legality::Pseudo, Stage::All);
    let mut candidates = Vec::new();
    for &mv in &bases {
        let piece = p.piece_at(mv.from).expect("mover");
        let mut board = *p;
        board.play_base(mv);
        if mv.kind == MoveKind::Castle {
            let kingside = mv.to.file() > mv.from.file();
            let (rf, rt) = if kingside {
                (
                    Square::from_coords(shakmaty::File::H, us.backrank()),
                    Square::from_coords(shakmaty::File::F, us.backrank()),
                )
            } else {
                (
                    Square::from_coords(shakmaty::File::A, us.backrank()),
                    Square::from_coords(shakmaty::File::D, us.backrank()),
                )
            };
            let mut firsts: Vec<(Relocations, Position<V>)> = Vec::new();
            match links.pawn_of(mv.from) {
                None => firsts.push((vec![], board)),
                Some(kp) => {
                    for a in naive_squares(&board, mv.to, us, Some(kp)) {
                        let mut b = board;
                        relocate(&mut b, kp, a);
                        firsts.push((vec![(kp, a)], b));
                    }
                }
            }
            for (list, b) in firsts {
                match links.pawn_of(rf) {
                    None => candidates.push(with_relocations(mv, &list)),
                    Some(rp) => {
                        for c in naive_squares(&b, rt, us, Some(rp)) {
                            let mut l = list.clone();
                            l.push((rp, c));
                            candidates.push(with_relocations(mv, &l));
                        }
                    }
                }
            }
        } else if piece.role == Role::Pawn {
            let attached = links.celebrity_of(mv.from).is_some();
            let capture = mv.kind == MoveKind::EnPassant || p.piece_at(mv.to).is_some();
            if !attached && !capture {
                continue;
            }
            if mv.promotion.is_some() {
                let squares = naive_squares(&board, mv.to, us, None);
                if squares.is_empty() {
                    candidates.push(mv);
                }
                for s in squares {
                    candidates.push(with_created_pawn(mv, s));
                }
            } else {
                candidates.push(mv);
            }
        } else if let Some(pawn) = links.pawn_of(mv.from) {
            for s in naive_squares(&board, mv.to, us, Some(pawn)) {
                candidates.push(with_relocations(mv, &[(pawn, s)]));
            }
        } else {
            candidates.push(mv);
        }
    }
    let mut out: Vec<String> = candidates
        .into_iter()
        .filter(|&mv| {
            let mut child = *p;
            V::play(&mut child, mv);
            !child.king_attacked(us)
        })
        .map(|mv| game::token(p, mv))
        .collect();
    out.sort();
    out
}

/// Compares both generators at `p`, and checks the children's FEN round trip.
fn cross_check(p: &Position<V>) -> MoveList {
    let mut moves = MoveList::new();
    V::legal_moves(p, &mut moves);
    let mut fast: Vec<String> = moves.iter().map(|&m| game::token(p, m)).collect();
    fast.sort();
    let n = fast.len();
    fast.dedup();
    assert_eq!(n, fast.len(), "duplicate tokens in {}", fen::format(p));
    assert_eq!(
        fast,
        naive_legal(p),
        "move sets differ in {}",
        fen::format(p)
    );
    for &mv in &moves {
        let mut child = *p;
        game::play(&mut child, mv);
        let printed = fen::format(&child);
        let back = fen::parse::<V>(&printed).unwrap_or_else(|e| panic!("{printed}: {e}"));
        assert_eq!(back, child, "{printed}");
        assert_eq!(back.key(), child.key(), "{printed}");
    }
    moves
}

fn cross_check_tree(p: &Position<V>, depth: u32) {
    let moves = cross_check(p);
    if depth > 1 {
        for &mv in &moves {
            let mut child = *p;
            game::play(&mut child, mv);
            cross_check_tree(&child, depth - 1);
        }
    }
}

const CROSS_CHECK_FENS: [&str; 8] = [
    "startpos",
    "7k/pnp5/1N6/8/8/8/7P/4K3 w - - 0 1 b6h2,b7c7",
    "r1bqkb1r/2ppp2p/3ppn2/p3np2/1P6/N1PBPN2/P1PP2PP/R1BQK2R w KQkq - 0 6 a1a2,c1c2,d1d2,e1e3,h1h2,a3b4,d3c3,f3g2,e5d6,f6e6,a8a5,c8c7,d8d7,e8e7,f8f5,h8h7",
    "r3k2r/1P4P1/8/3Pp3/8/8/1p4p1/R3K2R w KQkq e6 0 1 a1b7,h1g7,a8b2,h8g2,e1d5",
    "r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R w KQkq - 0 1",
    "4k3/b7/8/8/8/8/4P3/4K2R w K - 0 1",
    "5b1k/3P4/8/8/1K6/8/8/N7 w - - 0 1 a1d7",
    "4r2k/8/8/8/8/8/4P3/4K1N1 w - - 0 1 g1e2",
];

#[test]
fn naive_generator_agrees_on_small_trees() {
    for f in CROSS_CHECK_FENS {
        cross_check_tree(&common::load::<V>(f), 2);
    }
}

#[test]
fn naive_generator_agrees_on_random_games() {
    let mut seed: u64 = 0x5eed_1234_abcd_0001;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let mut positions = 0;
    // How often the rare rules were met: promotions with a created pawn, castling
    // with two placements, capturing placements, pawns on their own first rank.
    let (mut created, mut double, mut capturing, mut first_rank) = (0, 0, 0, 0);
    for game_no in 0..120 {
        let mut p = common::load::<V>(CROSS_CHECK_FENS[game_no % CROSS_CHECK_FENS.len()]);
        for _ in 0..150 {
            let moves = cross_check(&p);
            positions += 1;
            for &mv in &moves {
                let t = game::token(&p, mv);
                let extras = t.split(',').count() - 1;
                if mv.promotion.is_some() && extras == 1 {
                    created += 1;
                }
                if mv.kind == MoveKind::Castle && extras == 2 {
                    double += 1;
                }
                if mv.promotion.is_none()
                    && t.split(',')
                        .skip(1)
                        .any(|e| e[2..].parse::<Square>().is_ok_and(|s| p.them().contains(s)))
                {
                    capturing += 1;
                }
            }
            let back = shakmaty::Bitboard::from_rank(Rank::First)
                | shakmaty::Bitboard::from_rank(Rank::Eighth);
            if (p.by_role(Role::Pawn) & back).any() {
                first_rank += 1;
            }
            if moves.is_empty() {
                break;
            }
            let mv = moves[next() % moves.len()];
            game::play(&mut p, mv);
        }
    }
    assert!(positions > 5000, "{positions}");
    println!("{positions} positions; moves seen: {created} promotions with a created pawn, {double} castlings with two placements, {capturing} capturing placements; {first_rank} positions with a pawn on its first rank");
    assert!(created > 0 && double > 0 && capturing > 0 && first_rank > 0);
}

#[test]
#[ignore]
fn naive_generator_agrees_on_deeper_trees() {
    for f in CROSS_CHECK_FENS {
        cross_check_tree(&common::load::<V>(f), 3);
    }
}

#[test]
fn perft_counts_by_hand() {
    // White: 7 moves (knight a1 twice without extra, king 5 squares); Black's lone
    // king then has its 5 squares after every one of them.
    let p = pos("4k3/8/8/8/8/8/PP6/N3K3 w - - 0 1 -");
    assert_eq!(perft::perft(&p, 1), 7);
    assert_eq!(perft::perft(&p, 2), 35);
}

// ----- the engine's forcing-move generator -----

/// Quiescence's own generator (`AttendingPawns::forcing_moves` through
/// `Policy::noisy_moves`) gives exactly the noisy legal moves, in the same
/// order, on random walks long enough to reach captures by placement, pawn
/// checks, promotions and castling.
#[test]
fn forcing_moves_are_the_noisy_legal_moves_in_order() {
    let mut next = common::xorshift(0x00a7_7e4d);
    let mut positions = 0;
    let mut noisy_seen = 0;
    for _ in 0..300 {
        let mut p = Position::<V>::startpos();
        for _ in 0..120 {
            let mut expected = MoveList::new();
            turncoat::engine::policy::noisy_from_legal(&p, &mut expected);
            let mut got = MoveList::new();
            V::noisy_moves(&p, &mut got);
            assert_eq!(got, expected, "{}", fen::format(&p));
            positions += 1;
            noisy_seen += got.len();
            let mut moves = MoveList::new();
            V::legal_moves(&p, &mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[(next() % moves.len() as u64) as usize];
            game::play(&mut p, mv);
        }
    }
    assert!(
        positions > 10_000 && noisy_seen > 50_000,
        "{positions} {noisy_seen}"
    );
}

/// The network's boards: the pieces as they stand, and each colour's
/// attendants (pawns attached to a celebrity) on boards 12 and 13; an
/// unattached pawn is a pawn only.
#[test]
fn network_reads_the_attendants() {
    use turncoat::engine::nnue;
    let p = pos("4k3/3pp3/8/8/8/2P5/1P2P3/1N2K3 w - - 0 1 b1c3,e1e2,e8e7");
    let boards = V::network_boards(&p);
    assert_eq!(
        boards[..nnue::ATTENDANTS],
        nnue::piece_boards(&p)[..nnue::ATTENDANTS]
    );
    let squares = |i: usize| {
        boards[i]
            .into_iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(squares(0), ["b2", "e2", "c3"]);
    assert_eq!(squares(nnue::ATTENDANTS), ["e2", "c3"]);
    assert_eq!(squares(nnue::ATTENDANTS + 1), ["e7"]);
    assert_eq!(nnue::piece_count(&boards), 8);
}
