//! Andernach, Anti-Andernach and Super-Andernach (docs/RULES.md, "Andernach"):
//! perft parity with Cutechess, the worked examples, and a test for every
//! edge case, each with values computed by Cutechess 1.4.0's board code (the
//! driver in benches/cutechess) and checked here without it.

mod common;

use serde_json::Value;
use turncoat::rules::fen;
use turncoat::rules::game::{self, Game, Outcome};
use turncoat::rules::live::Removal;
use turncoat::rules::perft;
use turncoat::rules::position::Position;
use turncoat::rules::variants::andernach::{
    self, dead_material, Andernach, AntiAndernach, SideChange, SuperAndernach,
};
use turncoat::rules::variants::Variant;

const AN_PERFT: &str = include_str!("data/andernach_perft.json");
const AA_PERFT: &str = include_str!("data/antiandernach_perft.json");
const SA_PERFT: &str = include_str!("data/superandernach_perft.json");
const AN_EXAMPLES: &str = include_str!("data/andernach_examples.json");
const AA_EXAMPLES: &str = include_str!("data/antiandernach_examples.json");
const SA_EXAMPLES: &str = include_str!("data/superandernach_examples.json");

/// The default run checks each position up to the deepest count at most this
/// large (72 to 97 million leaves per variant in all, a few seconds);
/// `--ignored` checks every depth of the files (1.4 to 1.5 billion leaves per
/// variant, about a minute).
const DEFAULT_MAX_NODES: u64 = 12_000_000;

/// Every entry of a `<variant>_perft.json` (counts by Cutechess, depth 1 up)
/// whose count is at most `max_nodes`; returns how many counts were compared.
fn check_perft<V: Variant>(json: &str, max_nodes: u64) -> usize {
    let entries: Vec<Value> = serde_json::from_str(json).expect("valid perft JSON");
    let mut checked = 0;
    for e in &entries {
        let fen_str = e["fen"].as_str().expect("fen");
        let pos = common::load::<V>(fen_str);
        assert_eq!(fen::format(&pos), fen_str, "FEN round trip");
        let counts = e["nodes"].as_array().expect("nodes");
        for (i, n) in counts.iter().enumerate() {
            let n = n.as_u64().expect("count");
            if n > max_nodes {
                continue;
            }
            let depth = i as u32 + 1;
            assert_eq!(
                perft::perft(&pos, depth),
                n,
                "{} perft({depth}) of {fen_str} ({})",
                V::NAME,
                e["tests"]
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn perft_matches_cutechess_andernach() {
    assert!(check_perft::<Andernach>(AN_PERFT, DEFAULT_MAX_NODES) >= 100);
}

#[test]
fn perft_matches_cutechess_antiandernach() {
    assert!(check_perft::<AntiAndernach>(AA_PERFT, DEFAULT_MAX_NODES) >= 100);
}

#[test]
fn perft_matches_cutechess_superandernach() {
    assert!(check_perft::<SuperAndernach>(SA_PERFT, DEFAULT_MAX_NODES) >= 100);
}

#[test]
#[ignore = "deep: about a minute"]
fn perft_matches_cutechess_deep() {
    check_perft::<Andernach>(AN_PERFT, u64::MAX);
    check_perft::<AntiAndernach>(AA_PERFT, u64::MAX);
    check_perft::<SuperAndernach>(SA_PERFT, u64::MAX);
}

/// Cutechess's own test values for Andernach (its tst_board.cpp).
#[test]
fn cutechess_test_values() {
    let start = Position::<Andernach>::startpos();
    assert_eq!(perft::perft(&start, 4), 197_410);
    assert_eq!(perft::perft(&start, 5), 4_870_137);
    let pos1 =
        common::load::<Andernach>("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
    assert_eq!(perft::perft(&pos1, 4), 523_348);
}

/// The position of the report that compared Cutechess's own perft: 31,101
/// leaves at depth 3 by the game's rules (and by the driver, which plays each
/// move as cutechess-cli's referee does); Cutechess's own perft counts 31,102,
/// because it tests every move in place and its take-back of d4xc3 and c4c3
/// after c2c4 hands the pawn on c4 back to White, who then has one more move
/// after d4e3 (docs/RULES.md, "Andernach: en passant as Cutechess referees
/// it").
#[test]
fn perft_of_the_reported_position() {
    let pos =
        common::load::<AntiAndernach>("R1bq2nr/2pp2p1/1pNk1q2/7P/3p4/4P3/1PP5/1NBK3R w - - 0 14");
    assert_eq!(perft::perft(&pos, 3), 31_101);
    let divide = perft::divide(&pos, 3, 1);
    let c2c4 = divide.iter().find(|(t, _)| t == "c2c4").expect("c2c4");
    assert_eq!(c2c4.1, 966);
}

// ----- worked examples (docs/RULES.md, "Andernach: examples") -----

/// The examples file, plus the SAN of every move it plays, as Cutechess
/// writes it, and read back.
fn check_examples<V: SideChange>(json: &str) {
    for e in common::check_examples_file::<V>(json) {
        let pos = common::example_position::<V>(&e);
        let sans = e["san"].as_object().expect("san");
        for (token, san) in sans {
            let san = san.as_str().expect("SAN");
            let mv = game::find_move(&pos, token).expect("legal");
            assert_eq!(andernach::san(&pos, mv), san, "SAN of {token}");
            assert_eq!(V::move_text(&pos, mv), san);
            assert_eq!(andernach::parse_san(&pos, san), Some(mv), "reading {san}");
        }
    }
}

#[test]
fn examples_andernach() {
    check_examples::<Andernach>(AN_EXAMPLES);
}

#[test]
fn examples_antiandernach() {
    check_examples::<AntiAndernach>(AA_EXAMPLES);
}

#[test]
fn examples_superandernach() {
    check_examples::<SuperAndernach>(SA_EXAMPLES);
}

// ----- edge cases -----

fn load<V: Variant>(f: &str) -> Position<V> {
    common::load::<V>(f)
}

fn san_of<V: SideChange>(f: &str, token: &str) -> String {
    let pos = load::<V>(f);
    andernach::san(&pos, game::find_move(&pos, token).expect("legal"))
}

/// Castling is the king's move: the rook keeps its colour in all three, and
/// the king's own capture never turns it.
#[test]
fn castling_rook_keeps_its_side() {
    let f = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let expect = [
        ("e1g1", "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"),
        ("e1c1", "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1"),
    ];
    for (token, after) in expect {
        assert_eq!(common::after_move(&load::<Andernach>(f), token), after);
        assert_eq!(common::after_move(&load::<AntiAndernach>(f), token), after);
        assert_eq!(common::after_move(&load::<SuperAndernach>(f), token), after);
    }
    assert_eq!(san_of::<SuperAndernach>(f, "e1g1"), "O-O");
    assert_eq!(
        common::after_move(
            &load::<SuperAndernach>("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1"),
            "e1d2"
        ),
        "4k3/8/8/8/8/8/3K4/8 b - - 0 1"
    );
}

/// A piece that changes side on a corner never gains a castling right; a
/// rook turned away from its corner loses the right it had.
#[test]
fn converted_rook_gains_no_right() {
    let f = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    assert_eq!(
        common::after_move(&load::<Andernach>(f), "a1a8"),
        "r3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1"
    );
    assert_eq!(
        common::after_move(&load::<AntiAndernach>(f), "h1h2"),
        "r3k2r/8/8/8/8/8/7r/R3K3 b Qkq - 1 1"
    );
}

/// En passant in Andernach is a capture: the capturer turns and walks back.
#[test]
fn andernach_en_passant_turns_the_capturer() {
    let f = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2";
    assert_eq!(
        common::after_move(&load::<Andernach>(f), "e5d6"),
        "4k3/8/3p4/8/8/8/8/4K3 b - - 0 2"
    );
    assert_eq!(san_of::<Andernach>(f, "e5d6"), "exd6(=bP)");
    // The turned pawn now moves towards rank 1 only.
    let after = load::<Andernach>("4k3/8/3p4/8/8/8/8/4K3 b - - 0 2");
    let pawn_moves: Vec<String> = common::legal_tokens(&after)
        .into_iter()
        .filter(|t| t.starts_with("d6"))
        .collect();
    assert_eq!(pawn_moves, ["d6d5"]);
}

/// Anti-Andernach's double step: the pawn turns, so the en passant square
/// belongs to a capture of one's own pawn (docs/RULES.md, "Andernach: en
/// passant"). Both the capture and the turned pawn's step onto the passed
/// square count as captures: neither turns in Anti-Andernach, both turn in
/// Super-Andernach.
#[test]
fn double_step_that_turns_and_its_en_passant_square() {
    let start = "rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let after_push = "rnbqkbnr/ppp1pppp/8/8/3pp3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    assert_eq!(
        common::after_move(&load::<AntiAndernach>(start), "e2e4"),
        after_push
    );
    assert_eq!(
        common::after_move(&load::<SuperAndernach>(start), "e2e4"),
        after_push
    );
    // Andernach: no change of side, the en passant square is an ordinary one.
    assert_eq!(
        common::after_move(&load::<Andernach>(start), "e2e4"),
        "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );

    // As in a game: after the double step (from its FEN alone a capture there
    // takes nothing: `en_passant_square_read_from_a_fen`).
    let anti = played::<AntiAndernach>(start, &["e2e4"]);
    assert_eq!(fen::format(&anti), after_push);
    assert_eq!(
        common::after_move(&anti, "d4e3"),
        "rnbqkbnr/ppp1pppp/8/8/8/4p3/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    assert_eq!(
        common::after_move(&anti, "e4e3"),
        "rnbqkbnr/ppp1pppp/8/8/3p4/4p3/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    assert_eq!(san_of::<AntiAndernach>(after_push, "d4e3"), "dxe3");
    assert_eq!(san_of::<AntiAndernach>(after_push, "e4e3"), "exe3");
    let sup = played::<SuperAndernach>(start, &["e2e4"]);
    assert_eq!(
        common::after_move(&sup, "d4e3"),
        "rnbqkbnr/ppp1pppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    assert_eq!(san_of::<SuperAndernach>(after_push, "e4e3"), "exe3(=wP)");

    // What the front ends are told: the own pawn on e4 leaves the board.
    let mv = game::find_move(&anti, "d4e3").expect("legal");
    let fx = AntiAndernach::effects(&anti, mv);
    assert_eq!(fx.converted, []);
    assert!(matches!(
        fx.removed.as_slice(),
        [Removal {
            square: shakmaty::Square::E4,
            ..
        }]
    ));
    let mv = game::find_move(&sup, "d4e3").expect("legal");
    assert_eq!(
        SuperAndernach::effects(&sup, mv).converted,
        [shakmaty::Square::E3]
    );
}

/// The position after `moves` (tokens) played from `fen`, as in a game.
fn played<V: Variant>(fen: &str, moves: &[&str]) -> Position<V> {
    let mut pos = load::<V>(fen);
    for token in moves {
        let mv = game::find_move(&pos, token).expect("legal");
        game::play(&mut pos, mv);
    }
    pos
}

/// The en passant field after a double step that turned the pawn names the
/// square only when a pawn of the side to move attacks it (as in chess). Read
/// from a FEN, the square stands whenever a pawn of the side to move attacks
/// it, whatever stands past it, as Cutechess reads it.
#[test]
fn en_passant_field_of_a_turned_double_step() {
    // No black pawn next to e4: no en passant square.
    assert_eq!(
        common::after_move(&Position::<AntiAndernach>::startpos(), "e2e4"),
        "rnbqkbnr/pppppppp/8/8/4p3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    let own_pawn_past = "rnbqkbnr/ppp1pppp/8/8/3pp3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    assert_eq!(
        fen::format(&load::<AntiAndernach>(own_pawn_past)),
        own_pawn_past
    );
    assert_eq!(
        fen::format(&load::<SuperAndernach>(own_pawn_past)),
        own_pawn_past
    );
    assert_eq!(
        fen::format(&load::<Andernach>(own_pawn_past)),
        own_pawn_past
    );
    let chess_like = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    assert_eq!(fen::format(&load::<AntiAndernach>(chess_like)), chess_like);
    // No pawn of the side to move attacks it, or it is occupied: dropped.
    assert_eq!(
        fen::format(&load::<AntiAndernach>(
            "rnbqkbnr/ppp1pppp/8/8/4p3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
        )),
        "rnbqkbnr/ppp1pppp/8/8/4p3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
}

/// An en passant square read from a FEN (docs/RULES.md, "Andernach: en
/// passant as Cutechess referees it"): with no enemy pawn past it a capture
/// there takes nothing, in all three variants, as Cutechess 1.4.0 plays it
/// from such a FEN (values from the driver); with one it takes that pawn. The
/// issue's position: after d5e6 the pawn on e5 stays.
#[test]
fn en_passant_square_read_from_a_fen() {
    let own_pawn_past = "rnbqkbnr/ppp1pppp/8/8/3pp3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    let anti = load::<AntiAndernach>(own_pawn_past);
    assert_eq!(anti.state(), &Some(shakmaty::Square::E3));
    assert_eq!(
        common::after_move(&anti, "d4e3"),
        "rnbqkbnr/ppp1pppp/8/8/4p3/4p3/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    assert_eq!(san_of::<AntiAndernach>(own_pawn_past, "d4e3"), "dxe3");
    let mv = game::find_move(&anti, "d4e3").expect("legal");
    let fx = AntiAndernach::effects(&anti, mv);
    assert_eq!((fx.removed.len(), fx.converted.len()), (0, 0));
    assert_eq!(
        common::after_move(&load::<SuperAndernach>(own_pawn_past), "d4e3"),
        "rnbqkbnr/ppp1pppp/8/8/4p3/4P3/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    // In Andernach too: a capture of nothing, which turns the pawn.
    assert_eq!(
        common::after_move(&load::<Andernach>(own_pawn_past), "d4e3"),
        "rnbqkbnr/ppp1pppp/8/8/4p3/4P3/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    // The position of the report that found it (Cutechess keeps e5).
    let report = "R7/5k1p/P1Q4B/1P1PP3/8/5B2/1P5R/4K3 w - e6 0 22";
    assert_eq!(
        common::after_move(&load::<AntiAndernach>(report), "d5e6"),
        "R7/5k1p/P1Q1P2B/1P2P3/8/5B2/1P5R/4K3 b - - 0 22"
    );
    // An enemy pawn past it is taken, and a played double step's pawn is too:
    // the same FEN reached in play is another position (its state differs).
    let chess_like = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    assert_eq!(
        common::after_move(&load::<AntiAndernach>(chess_like), "e5f6"),
        "rnbqkbnr/ppp1p1pp/5P2/3p4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"
    );
    let in_play = played::<AntiAndernach>(
        "rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["e2e4"],
    );
    assert_eq!(fen::format(&in_play), own_pawn_past);
    assert_eq!(in_play.state(), &None);
    assert_ne!(in_play, anti);
    assert_ne!(in_play.key(), anti.key());
}

/// A piece's move to the en passant square hands the pawn past it back to the
/// opponent (docs/RULES.md, "Andernach: en passant as Cutechess referees
/// it"): what cutechess-cli's board holds after it has checked the move, seen
/// in a game it refereed (Black's next move e5e4 was accepted). The move is
/// judged as Cutechess judges it, before the pawn turns: Black may play Qc3
/// though the pawn handed back then attacks its king; White may not take the
/// king (Cutechess would list that capture).
#[test]
fn a_piece_on_the_en_passant_square_hands_the_pawn_back() {
    let start = "7k/4p3/R7/3P4/8/8/8/K7 b - - 0 1";
    let after = played::<AntiAndernach>(start, &["e7e5"]);
    assert_eq!(
        common::after_move(&after, "a6e6"),
        "7k/8/4r3/3Pp3/8/8/8/K7 b - - 1 2"
    );
    let mv = game::find_move(&after, "a6e6").expect("legal");
    assert_eq!(andernach::san(&after, mv), "Re6(=bR)");
    assert_eq!(
        andernach::handed_back(&after, mv),
        Some(shakmaty::Square::E5)
    );
    assert_eq!(
        AntiAndernach::effects(&after, mv).converted,
        [shakmaty::Square::E5, shakmaty::Square::E6]
    );
    // A pawn's moves there are en passant as before.
    assert_eq!(
        common::after_move(&after, "d5e6"),
        "7k/8/R3P3/8/8/8/8/K7 b - - 0 2"
    );
    let sup = played::<SuperAndernach>(start, &["e7e5"]);
    assert_eq!(
        common::after_move(&sup, "a6e6"),
        "7k/8/4r3/3Pp3/8/8/8/K7 b - - 1 2"
    );
    // From the walk that found the king left attacked: Black's queen to c3.
    let before = "8/3N4/1rNr1q1p/3k1P2/1p6/P2P1p1K/2P4P/7r w - - 3 38";
    let after = played::<AntiAndernach>(before, &["c2c4"]);
    assert!(common::legal_tokens(&after).contains(&"f6c3".to_string()));
    let qc3 = played::<AntiAndernach>(before, &["c2c4", "f6c3"]);
    assert_eq!(
        fen::format(&qc3),
        "8/3N4/1rNr3p/3k1P2/1pP5/P1QP1p1K/7P/7r w - - 1 39"
    );
    let legal = common::legal_tokens(&qc3);
    assert!(!legal.contains(&"c4d5".to_string()), "{legal:?}");
    assert_eq!(legal.len(), 35, "{legal:?}");
}

/// Promotion, then the change of side (the new piece's letter in the mark).
#[test]
fn promotion_then_change_of_side() {
    let f = "3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1";
    assert_eq!(san_of::<Andernach>(f, "e7d8q"), "exd8=Q(=bQ)");
    assert_eq!(san_of::<Andernach>(f, "e7e8q"), "e8=Q+");
    assert_eq!(san_of::<AntiAndernach>(f, "e7d8q"), "exd8=Q+");
    assert_eq!(san_of::<AntiAndernach>(f, "e7e8n"), "e8=N(=bN)");
    // A black queen or rook on e8 would attack the white king on e1.
    let anti = common::legal_tokens(&load::<AntiAndernach>(f));
    assert!(!anti.contains(&"e7e8q".to_string()) && !anti.contains(&"e7e8r".to_string()));
    assert!(anti.contains(&"e7e8b".to_string()));
}

/// A converted pawn moves towards its new owner's last rank and double-steps
/// from its new owner's second rank.
#[test]
fn converted_pawn_direction_and_double_step() {
    let white_now = common::after_move(
        &load::<Andernach>("4k3/8/8/8/8/4p3/3N4/4K3 b - - 0 1"),
        "e3d2",
    );
    assert_eq!(white_now, "4k3/8/8/8/8/8/3P4/4K3 w - - 0 2");
    assert_eq!(
        common::legal_tokens(&load::<Andernach>(&white_now))
            .into_iter()
            .filter(|t| t.starts_with("d2"))
            .collect::<Vec<_>>(),
        ["d2d3", "d2d4"]
    );
    let black_now = common::after_move(
        &load::<Andernach>("4k3/3n4/4P3/8/8/8/8/4K3 w - - 0 1"),
        "e6d7",
    );
    assert_eq!(black_now, "4k3/3p4/8/8/8/8/8/4K3 b - - 0 1");
    assert_eq!(
        common::legal_tokens(&load::<Andernach>(&black_now))
            .into_iter()
            .filter(|t| t.starts_with("d7"))
            .collect::<Vec<_>>(),
        ["d7d5", "d7d6"]
    );
    // Anti-Andernach: a pawn that steps onto its former second rank turns back.
    let back = common::after_move(
        &load::<AntiAndernach>("4k3/8/8/8/8/4p3/8/4K3 b - - 0 1"),
        "e3e2",
    );
    assert_eq!(back, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 2");
    assert_eq!(
        common::after_move(&load::<AntiAndernach>(&back), "e2e4"),
        "4k3/8/8/8/4p3/8/8/4K3 b - - 0 2"
    );
}

/// Check by a piece that has just changed side: it would attack its former
/// king, so the move is illegal; and a move whose piece turns may give check
/// by discovery, written before the mark (`Nc3+(=bN)`).
#[test]
fn check_by_a_turned_piece() {
    // Andernach: f4xd3 would leave a black knight attacking e1.
    let f = "4k3/8/8/8/5N2/3p4/8/4K3 w - - 0 1";
    let pos = load::<Andernach>(f);
    assert!(game::find_move(&pos, "f4d3").is_none());
    assert_eq!(
        common::legal_tokens(&pos),
        common::sorted(&[
            "e1d1", "e1d2", "e1f1", "e1f2", "f4d5", "f4e2", "f4e6", "f4g2", "f4g6", "f4h3", "f4h5"
        ])
    );
    // Anti-Andernach from the start: g1f3 would attack e1 with a black knight.
    assert!(game::find_move(&Position::<AntiAndernach>::startpos(), "g1f3").is_none());
    assert!(game::find_move(&Position::<SuperAndernach>::startpos(), "g1f3").is_none());
    // The knight turns but uncovers the rook on e1: check, then the mark.
    assert_eq!(
        san_of::<AntiAndernach>("4k3/8/8/8/8/8/4N3/4R1K1 w - - 0 1", "e2c3"),
        "Nc3+(=bN)"
    );
}

/// Cutechess's SAN reader: the mark is optional, the capture sign must be
/// right, castling is O-O.
#[test]
fn reading_cutechess_san() {
    let pos = load::<Andernach>("4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1");
    let nxd5 = game::find_move(&pos, "c3d5");
    assert_eq!(andernach::parse_san(&pos, "Nxd5(=bN)"), nxd5);
    assert_eq!(andernach::parse_san(&pos, "Nxd5"), nxd5);
    assert_eq!(andernach::parse_san(&pos, "Nc3xd5"), nxd5);
    assert_eq!(andernach::parse_san(&pos, "Nd5"), None);
    assert_eq!(andernach::parse_san(&pos, "Nf5"), None);
    assert_eq!(andernach::parse_san(&pos, ""), None);
    assert_eq!(andernach::parse_san(&pos, "x"), None);
    let castle = load::<Andernach>("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(
        andernach::parse_san(&castle, "O-O-O"),
        game::find_move(&castle, "e1c1")
    );
    // The variants read tokens too (a PGN written as tokens).
    assert_eq!(Andernach::move_from_text(&pos, "c3d5"), nxd5);
}

/// Cutechess's insufficient material: no pawn, rook or queen, and the knights
/// plus the square colours of the bishops at most one.
#[test]
fn insufficient_material_as_cutechess() {
    let dead = |f: &str| dead_material(&load::<Andernach>(f));
    assert!(dead("4k3/8/8/8/8/8/8/4K3 w - - 0 1"));
    assert!(
        dead("4k3/8/8/4b3/8/8/8/2B1K3 w - - 0 1"),
        "bishops on dark squares"
    );
    assert!(
        dead("4k3/8/8/8/8/8/8/2B1K1B1 w - - 0 1"),
        "two bishops on dark squares"
    );
    assert!(!dead("4k3/8/8/3b4/8/8/8/2B1K3 w - - 0 1"), "light and dark");
    assert!(!dead("4k3/8/8/3n4/8/8/8/2N1K3 w - - 0 1"), "two knights");
    assert!(!dead("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"));
    let g = Game::new(load::<SuperAndernach>("4k3/8/8/4b3/8/8/8/2B1K3 w - - 0 1"));
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: "insufficient material"
        })
    );
}

/// In Anti-Andernach a pawn step can be undone (the pawn turns round), so a
/// position repeats across halfmove-clock resets: three times is a draw, as
/// Cutechess counts it (over the whole game).
#[test]
fn repetition_across_pawn_moves() {
    let mut g = Game::new(load::<AntiAndernach>("4k3/8/8/8/8/4p3/8/4K3 b - - 0 1"));
    for token in ["e3e2", "e2e3", "e3e2", "e2e3"] {
        assert_eq!(g.outcome(), None);
        g.play_token(token).expect("legal");
    }
    assert_eq!(fen::format(&g.pos), "4k3/8/8/8/8/4p3/8/4K3 b - - 0 3");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: "threefold repetition"
        })
    );
    const { assert!(!AntiAndernach::CLOCK_RESET_IRREVERSIBLE) };
    const { assert!(!SuperAndernach::CLOCK_RESET_IRREVERSIBLE) };
    const { assert!(Andernach::CLOCK_RESET_IRREVERSIBLE) };
}

// ----- the engine's side -----

/// Anti- and Super-Andernach: the search never chooses a move to the en
/// passant square (Cutechess cannot take one back, docs/RULES.md, "Andernach:
/// en passant"), though the rules allow them; Andernach keeps them all.
#[test]
fn search_avoids_the_en_passant_square_where_cutechess_cannot_undo() {
    use turncoat::engine::policy::Policy;
    use turncoat::engine::search::{self, Limits};
    use turncoat::rules::moves::MoveList;

    fn roots<V: Policy>(f: &str) -> Vec<String> {
        let pos = load::<V>(f);
        let mut moves = MoveList::new();
        V::root_moves(&pos, &mut moves);
        let mut tokens: Vec<String> = moves.iter().map(|&m| game::token(&pos, m)).collect();
        tokens.sort();
        tokens
    }
    fn best<V: Policy>(f: &str) -> String {
        let limits = Limits {
            depth: Some(5),
            ..Limits::default()
        };
        search::search_fresh(&load::<V>(f), &[], &limits, 1)
            .best
            .expect("a move")
    }
    let f = "rnbqkbnr/ppp1pppp/8/8/3pp3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    let legal = common::legal_tokens(&load::<AntiAndernach>(f));
    let off_e3: Vec<String> = legal
        .iter()
        .filter(|t| !t.ends_with("e3"))
        .cloned()
        .collect();
    assert_eq!(legal.len(), 28);
    assert_eq!(off_e3.len(), 26);
    assert_eq!(roots::<AntiAndernach>(f), off_e3);
    assert_eq!(roots::<SuperAndernach>(f), off_e3);
    assert!(!best::<AntiAndernach>(f).ends_with("e3"));
    assert!(!best::<SuperAndernach>(f).ends_with("e3"));
    let andernach = "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    assert_eq!(
        roots::<Andernach>(andernach),
        common::legal_tokens(&load::<Andernach>(andernach))
    );
}
