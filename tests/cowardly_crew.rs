//! Cowardly Crew (docs/RULES.md, "Cowardly Crew"): reference data, one hand-worked
//! position per rule point, the readings chosen where docs/RULES.md is silent, FEN
//! rejection, Zobrist keys, and a brute-force cross-check of the move generator.

mod common;

use common::sorted;

use shakmaty::{Color, Square};
use turncoat::engine::policy::Policy;
use turncoat::rules::fen;
use turncoat::rules::game::{self, Game, Outcome};
use turncoat::rules::movegen::{self, Legality, Stage};
use turncoat::rules::moves::{Move, MoveKind, MoveList};
use turncoat::rules::perft;
use turncoat::rules::position::{Internals as _, Position};
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::cowardly_crew::{eligible, CowardlyCrew};
use turncoat::rules::variants::{rank_of, Variant, VariantKind};

type Pos = Position<CowardlyCrew>;

fn load(fen_str: &str) -> Pos {
    fen::parse::<CowardlyCrew>(fen_str).unwrap_or_else(|e| panic!("{fen_str}: {e}"))
}

fn tokens(pos: &Pos) -> Vec<String> {
    common::legal_tokens(pos)
}

/// Plays `token` (which must be legal) and returns the FEN after it.
fn after(pos: &Pos, token: &str) -> String {
    common::after_move(pos, token)
}

fn play_all(fen_str: &str, moves: &[&str]) -> Pos {
    let mut g = Game::new(load(fen_str));
    for t in moves {
        g.play_token(t).unwrap_or_else(|e| panic!("{e}"));
    }
    g.pos
}

fn squares(list: &[Square]) -> shakmaty::Bitboard {
    list.iter()
        .fold(shakmaty::Bitboard::EMPTY, |b, &sq| b.with(sq))
}

// ----- reference data -----

#[test]
fn reference_perft() {
    common::check_perft_file::<CowardlyCrew>(include_str!("data/cowardlycrew_perft.json"), 3);
}

#[test]
fn reference_examples() {
    common::check_examples_file::<CowardlyCrew>(include_str!("data/cowardlycrew_examples.json"));
}

#[test]
fn registered_as_uci_variant() {
    assert_eq!(
        VariantKind::from_name("cowardlycrew"),
        Some(VariantKind::CowardlyCrew)
    );
    assert_eq!(
        VariantKind::CowardlyCrew.start_fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(perft::perft(&Pos::startpos(), 3), 8910);
}

// ----- rules 1 and 2 -----

/// docs/RULES.md's worked example: d4xe5 (limit max(P, N) = 2) converts d6 and f6,
/// not the rook f4; the capture exists twice.
#[test]
fn worked_example() {
    let pos = load("7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1");
    let mv = game::find_move(&pos, "d4e5").expect("d4e5");
    assert_eq!(eligible(&pos, mv), squares(&[Square::D6, Square::F6]));
    assert_eq!(
        tokens(&pos),
        sorted(&["a1a2", "a1b1", "a1b2", "d4d5", "d4e5", "d4e5,n"])
    );
    assert_eq!(after(&pos, "d4e5"), "7k/8/3P1N2/4P3/5r2/8/8/K7 b - - 0 1");
    assert_eq!(after(&pos, "d4e5,n"), "7k/8/3p1n2/4P3/5r2/8/8/K7 b - - 0 1");
}

/// Kings never convert, pieces next to their own king are immune: of e4's
/// neighbours only f3 converts (d4 guards king d5, the king itself never).
#[test]
fn kings_and_their_guards_never_convert() {
    let pos = load("8/8/8/3k4/3pp3/5p2/8/K3R3 w - - 0 1");
    assert_eq!(
        tokens(&pos),
        sorted(&[
            "a1a2", "a1b1", "a1b2", "e1b1", "e1c1", "e1d1", "e1e2", "e1e3", "e1e4", "e1e4,n",
            "e1f1", "e1g1", "e1h1"
        ])
    );
    assert_eq!(after(&pos, "e1e4"), "8/8/8/3k4/3pR3/5P2/8/K7 b - - 0 1");
}

/// A capturing and promoting pawn counts as a pawn: b8 held a knight, so the
/// limit is 2 and rook c8 stays Black (a promoted queen would have made it 4).
#[test]
fn promoting_capturer_counts_as_pawn() {
    let pos = load("1nr4k/P1p5/8/8/8/8/8/K7 w - - 0 1");
    assert_eq!(
        tokens(&pos),
        sorted(&[
            "a1a2", "a1b1", "a1b2", "a7a8b", "a7a8n", "a7a8q", "a7a8r", "a7b8b", "a7b8b,n",
            "a7b8n", "a7b8n,n", "a7b8q", "a7b8q,n", "a7b8r", "a7b8r,n"
        ])
    );
    assert_eq!(after(&pos, "a7b8q"), "1Qr4k/2P5/8/8/8/8/8/K7 b - - 0 1");
    assert_eq!(after(&pos, "a7b8q,n"), "1Qr4k/2p5/8/8/8/8/8/K7 b - - 0 1");
}

/// Rule 2: no `,n` form when nothing is eligible, and `,n` is not a token that
/// any other move accepts.
#[test]
fn no_convert_none_form_without_eligible_pieces() {
    let pos = load("7k/8/p3q3/1p1p4/8/2N5/8/K7 w - - 0 1");
    let list = tokens(&pos);
    assert!(list.contains(&"c3d5".to_string()));
    assert!(!list.contains(&"c3d5,n".to_string()));
    assert!(list.contains(&"c3b5,n".to_string()));
    assert_eq!(list.iter().filter(|t| t.ends_with(",n")).count(), 1);
}

/// Conversions do not cascade: black pawn g7, next to the converted knight f6 but
/// not to e5, stays Black.
#[test]
fn conversion_does_not_cascade() {
    let pos = load("k7/6p1/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1");
    assert_eq!(after(&pos, "d4e5"), "k7/6p1/3P1N2/4P3/5r2/8/8/K7 b - - 0 1");
}

/// Rule 1 (en passant): the pawns around the destination d6 convert; the
/// captured pawn d5 is simply removed.
#[test]
fn en_passant_converts_around_destination() {
    let pos = load("7k/4n3/2p1p3/3pP3/8/8/8/K7 w - d6 0 1");
    let mv = game::find_move(&pos, "e5d6").expect("e5d6");
    assert_eq!(mv.kind, MoveKind::EnPassant);
    assert_eq!(eligible(&pos, mv), squares(&[Square::C6, Square::E6]));
    assert_eq!(after(&pos, "e5d6"), "7k/4n3/2PPP3/8/8/8/8/K7 b - - 0 1");
}

// ----- rule 3 -----

/// A converted white pawn on e7 stands on Black's 2nd rank: it double-steps
/// down the board.
#[test]
fn converted_pawn_moves_for_its_new_owner() {
    let pos = play_all("7k/4P3/3N4/5n2/8/8/8/K7 b - - 0 1", &["f5d6", "a1b1"]);
    assert_eq!(fen::format(&pos), "7k/4p3/3n4/8/8/8/8/1K6 b - - 1 2");
    let list = tokens(&pos);
    assert!(list.contains(&"e7e6".to_string()));
    assert!(list.contains(&"e7e5".to_string()));
    assert!(!list.iter().any(|t| t.starts_with("e7e8")));
}

/// A converted pawn on its new owner's 7th rank promotes on the next step.
#[test]
fn converted_pawn_promotes_in_new_direction() {
    // Black knight f4 takes the white knight d3; white pawn e2 becomes Black's.
    let pos = play_all("7k/8/8/8/5n2/3N4/4P3/K7 b - - 0 1", &["f4d3", "a1b1"]);
    assert_eq!(fen::format(&pos), "7k/8/8/8/8/3n4/4p3/1K6 b - - 1 2");
    let list = tokens(&pos);
    for t in ["e2e1q", "e2e1r", "e2e1b", "e2e1n"] {
        assert!(list.contains(&t.to_string()), "{t}");
    }
}

/// Converting the rook on h8 kills Black's kingside right; a white rook stays.
#[test]
fn converting_a_castling_rook_removes_the_right() {
    let pos = load("r3k2r/6r1/8/5N2/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(after(&pos, "f5g7"), "r3k2R/6N1/8/8/8/8/8/R3K2R b KQq - 0 1");
    assert_eq!(
        after(&pos, "f5g7,n"),
        "r3k2r/6N1/8/8/8/8/8/R3K2R b KQkq - 0 1"
    );
}

/// A black rook on a1 converted next to White's king file gains no right.
#[test]
fn converted_rook_never_gains_castling_right() {
    let pos = load("4k3/8/8/8/3Q4/8/1n6/r1B1K2R w K - 0 1");
    let fen_after = after(&pos, "d4b2");
    assert_eq!(fen_after, "4k3/8/8/8/8/8/1Q6/R1B1K2R b K - 0 1");
    let child = fen::parse::<CowardlyCrew>(&fen_after).expect("after FEN");
    assert!(!child.castling().contains(Square::A1));
}

// ----- rule 4 -----

/// In check from rook e4: h3xf5 converts the checker, the `,n` form does not.
#[test]
fn conversion_parries_check() {
    let pos = load("k7/8/8/5r2/4r3/7B/8/4K3 w - - 0 1");
    assert_eq!(tokens(&pos), sorted(&["e1d1", "e1d2", "h3f5"]));
    assert!(game::find_move(&pos, "h3f5,n").is_none());
}

/// A king may take a defended piece when the defender, next to the destination,
/// converts (limit 5: the queen is eligible).
#[test]
fn king_takes_defended_piece_by_converting_defender() {
    let pos = load("7k/8/5q2/4p3/3K4/8/8/8 w - - 0 1");
    assert_eq!(
        tokens(&pos),
        sorted(&["d4c3", "d4c4", "d4c5", "d4d3", "d4d5", "d4e3", "d4e4", "d4e5"])
    );
    assert_eq!(after(&pos, "d4e5"), "7k/8/5Q2/4K3/8/8/8/8 b - - 0 1");
}

/// A pinned knight may leave the pin line when its capture converts the pinner.
#[test]
fn pinned_piece_captures_by_converting_pinner() {
    let pos = load("7k/8/8/8/3b4/3n4/1N6/K7 w - - 0 1");
    assert_eq!(tokens(&pos), sorted(&["a1a2", "a1b1", "b2d3"]));
    assert_eq!(after(&pos, "b2d3"), "7k/8/8/8/3B4/3N4/8/K7 b - - 0 1");
}

/// Double check (rook e4, knight d3): b2xd4 converts both checkers.
#[test]
fn double_check_parried_by_converting_both_checkers() {
    let pos = load("7k/8/8/8/3qr3/3n4/1B6/4K3 w - - 0 1");
    assert_eq!(tokens(&pos), sorted(&["b2d4", "e1d1", "e1d2", "e1f1"]));
    assert_eq!(after(&pos, "b2d4"), "7k/8/8/8/3BR3/3N4/8/4K3 b - - 0 1");
}

/// The same capture is illegal when a checker (rook e6) is not next to d4.
#[test]
fn conversion_that_leaves_a_checker_is_illegal() {
    let pos = load("7k/8/4r3/8/3q4/3n4/1B6/4K3 w - - 0 1");
    assert_eq!(tokens(&pos), sorted(&["e1d1", "e1d2", "e1f1"]));
}

/// En passant that parries a pawn check only by converting the checker d6.
#[test]
fn en_passant_parries_check_by_conversion() {
    let pos = load("7k/8/3p4/1Pp1K3/8/8/8/8 w - c6 0 1");
    assert_eq!(
        tokens(&pos),
        sorted(&["b5c6", "e5d5", "e5d6", "e5d6,n", "e5e4", "e5e6", "e5f4", "e5f5", "e5f6"])
    );
    assert_eq!(after(&pos, "b5c6"), "7k/8/2PP4/4K3/8/8/8/8 b - - 0 1");
    assert_eq!(after(&pos, "e5d6"), "7k/8/3K4/1PP5/8/8/8/8 b - - 0 1");
}

// ----- rule 5 and game end -----

#[test]
fn converted_piece_mates_at_once() {
    let mut g = Game::new(load("4r2k/3r2pp/1N6/8/8/8/8/K7 w - - 0 1"));
    g.play_token("b6d7").expect("b6d7");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: "checkmate"
        })
    );
    let mut g = Game::new(load("4r2k/3r2pp/1N6/8/8/8/8/K7 w - - 0 1"));
    g.play_token("b6d7,n").expect("b6d7,n");
    assert_eq!(g.outcome(), None);
}

/// Game end after a conversion is chess's: K+N v K is insufficient material,
/// K+P v K is not. (The first king capture is itself a rescue: pawn c3 defends b2.)
#[test]
fn insufficient_material_after_conversion() {
    let mut g = Game::new(load("7k/8/8/8/8/2p5/1p6/K7 w - - 0 1"));
    assert!(g.play_token("a1b2,n").is_err());
    g.play_token("a1b2").expect("a1b2 (converts c3)");
    assert_eq!(fen::format(&g.pos), "7k/8/8/8/8/2P5/1K6/8 b - - 0 1");
    assert_eq!(g.outcome(), None);
    let mut g = Game::new(load("7k/8/8/8/8/2n5/1p6/K7 w - - 0 1"));
    g.play_token("a1b2").expect("a1b2 (converts c3)");
    assert_eq!(fen::format(&g.pos), "7k/8/8/8/8/2N5/1K6/8 b - - 0 1");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: "insufficient material"
        })
    );
}

// ----- tokens and FEN -----

#[test]
fn malformed_and_illegal_tokens_are_rejected() {
    let start = "7k/8/p3q3/1p1p4/8/2N5/8/K7 w - - 0 1";
    for bad in [
        "c3d5,n", "c3b5,N", "c3b5,", "c3b5,n,n", "c3b5,a6", "C3B5", "c3b5 ", "a1a2,n", "c3b5n",
    ] {
        let mut g = Game::new(load(start));
        assert!(g.play_token(bad).is_err(), "{bad} accepted");
        assert_eq!(fen::format(&g.pos), start);
    }
    let mut g = Game::new(load("k7/8/8/5r2/4r3/7B/8/4K3 w - - 0 1"));
    assert!(g.play_token("h3f5,n").is_err());
}

#[test]
fn fen_rejections() {
    let cases = [
        (
            "7k/8/8/8/8/8/8/K7 w - - 0 1 -",
            "variant cowardlycrew has no seventh FEN field, found '-'",
        ),
        (
            "7k/8/8/8/8/8/8/KK6 w - - 0 1",
            "white has 2 kings, expected exactly one",
        ),
        (
            "8/8/8/8/8/8/8/K7 w - - 0 1",
            "black has 0 kings, expected exactly one",
        ),
        (
            "P6k/8/8/8/8/8/8/K7 w - - 0 1",
            "pawn on a8: pawns may not stand on rank 1 or 8",
        ),
        (
            "7k/8/8/8/8/8/8/K6R w - - 0 1",
            "the side not to move is in check",
        ),
    ];
    for (bad, message) in cases {
        assert_eq!(
            fen::parse::<CowardlyCrew>(bad)
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some(message),
            "{bad}"
        );
    }
}

// ----- Zobrist -----

#[test]
fn keys_follow_conversions() {
    let pos = load("7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1");
    let convert = play_all("7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1", &["d4e5"]);
    let keep = play_all("7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1", &["d4e5,n"]);
    assert_ne!(convert.key(), keep.key());
    assert_ne!(convert.key(), pos.key());
    for p in [convert, keep] {
        assert_eq!(p.key(), p.compute_key());
        assert_eq!(p.key(), load(&fen::format(&p)).key());
    }
    // Losing a castling right by conversion is part of the key.
    let castle = play_all("r3k2r/6r1/8/5N2/8/8/8/R3K2R w KQkq - 0 1", &["f5g7"]);
    assert_eq!(
        castle.key(),
        load("r3k2R/6N1/8/8/8/8/8/R3K2R b KQq - 0 1").key()
    );
    assert_ne!(
        castle.key(),
        load("r3k2R/6N1/8/8/8/8/8/R3K2R b KQ - 0 1").key()
    );
}

/// The same conversion reached by two move orders gives the same key (clocks
/// differ, and are not part of it).
#[test]
fn transposed_positions_share_a_key() {
    let start = "k7/8/3p1n2/4n3/3P1r2/8/8/K6R w - - 0 1";
    let a = play_all(start, &["d4e5", "a8b8", "h1h2", "b8a8"]);
    let b = play_all(start, &["h1h2", "a8b8", "d4e5", "b8a8"]);
    assert_eq!(fen::format(&a), "k7/8/3P1N2/4P3/5r2/8/7R/K7 w - - 3 3");
    assert_eq!(fen::format(&b), "k7/8/3P1N2/4P3/5r2/8/7R/K7 w - - 1 3");
    assert_eq!(a.key(), b.key());
    let c = play_all(start, &["h1h2", "a8b8", "d4e5,n", "b8a8"]);
    assert_ne!(a.key(), c.key());
}

// ----- evaluation and ordering -----

#[test]
fn gain_estimate_counts_conversions_twice() {
    let pos = load("7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1");
    let all = game::find_move(&pos, "d4e5").expect("d4e5");
    let none = game::find_move(&pos, "d4e5,n").expect("d4e5,n");
    assert_eq!(
        CowardlyCrew::gain_estimate(&pos, all),
        320 + 2 * (100 + 320)
    );
    assert_eq!(CowardlyCrew::gain_estimate(&pos, none), 320);
    assert!(CowardlyCrew::is_noisy(&pos, none));
}

#[test]
fn evaluation_is_colour_symmetric_and_sees_the_rule() {
    assert_eq!(CowardlyCrew::evaluate(&Pos::startpos()), 0);
    for f in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1",
        "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1",
        "rnbqkb1B/1ppp1p2/r7/4p3/p7/P7/7R/1R1K4 w - - 0 18",
    ] {
        let pos = load(f);
        let flipped = load(&common::flip_fen(f));
        assert_eq!(
            CowardlyCrew::evaluate(&pos),
            -CowardlyCrew::evaluate(&flipped),
            "{f}"
        );
    }
    // Neighbours are a liability (a capture of one converts the other), except
    // next to their own king, where nothing converts.
    let apart = CowardlyCrew::evaluate(&load("k7/8/8/3N4/8/3P4/8/7K w - - 0 1"));
    let cluster = CowardlyCrew::evaluate(&load("k7/8/8/3N4/3P4/8/8/7K w - - 0 1"));
    let guarded = CowardlyCrew::evaluate(&load("k7/8/8/8/8/8/NP6/K7 w - - 0 1"));
    assert_eq!(apart, 0);
    assert_eq!(cluster, -10);
    assert_eq!(guarded, 0);
}

// ----- brute-force cross-check of the generator -----

/// docs/RULES.md read literally, square by square: every pseudo-legal chess move, each
/// capture in both forms, kept when the mover's king is safe after the whole move.
/// Returns the token and the position after each legal move.
fn naive_moves(pos: &Pos) -> Vec<(String, Pos)> {
    let us = pos.turn();
    let their_kings: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|&k| pos.piece_at(k) == Some((!us).king()))
        .collect();
    let mut pseudo = MoveList::new();
    movegen::generate(pos, &mut pseudo, Legality::Pseudo, Stage::All);
    let mut out = Vec::new();
    for mv in pseudo {
        let victim = match mv.kind {
            MoveKind::EnPassant => Some((
                Square::from_coords(mv.to.file(), mv.from.rank()),
                shakmaty::Role::Pawn,
            )),
            _ => pos.piece_at(mv.to).map(|p| (mv.to, p.role)),
        };
        let mut defectors = Vec::new();
        if let Some((victim_sq, victim_role)) = victim {
            let capturer = pos.role_at(mv.from).expect("mover");
            let limit = rank_of(capturer).max(rank_of(victim_role));
            for sq in Square::ALL {
                let Some(p) = pos.piece_at(sq) else { continue };
                let guarded = their_kings.iter().any(|k| k.distance(sq) == 1);
                if sq.distance(mv.to) == 1
                    && sq != victim_sq
                    && p.color == !us
                    && p.role != shakmaty::Role::King
                    && !guarded
                    && rank_of(p.role) <= limit
                {
                    defectors.push(sq);
                }
            }
        }
        let forms: &[bool] = if defectors.is_empty() {
            &[false]
        } else {
            &[true, false]
        };
        for &convert in forms {
            let mut child = *pos;
            child.play_base(mv);
            if convert {
                for &sq in &defectors {
                    child.recolor(sq, us);
                }
            }
            if !child.king_attacked(us) {
                let mut t = mv.base_token();
                if !convert && !defectors.is_empty() {
                    t.push_str(",n");
                }
                out.push((t, child));
            }
        }
    }
    out
}

fn naive_tokens(pos: &Pos) -> Vec<String> {
    let mut out: Vec<String> = naive_moves(pos).into_iter().map(|(t, _)| t).collect();
    out.sort();
    out
}

fn naive_perft(pos: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    naive_moves(pos)
        .iter()
        .map(|(_, child)| naive_perft(child, depth - 1))
        .sum()
}

fn check_tree(pos: &Pos, depth: u32, checked: &mut u64) {
    let fast = tokens(pos);
    assert_eq!(fast, naive_tokens(pos), "{}", fen::format(pos));
    let mut dedup = fast.clone();
    dedup.dedup();
    assert_eq!(
        dedup.len(),
        fast.len(),
        "duplicate tokens in {}",
        fen::format(pos)
    );
    *checked += 1;
    if depth == 0 {
        return;
    }
    let mut moves = MoveList::new();
    CowardlyCrew::legal_moves(pos, &mut moves);
    for mv in moves {
        let mut child = *pos;
        game::play(&mut child, mv);
        check_tree(&child, depth - 1, checked);
    }
}

/// Positions crowded with pieces next to kings and pins, where rescues happen.
const CROSS_CHECK_FENS: [&str; 8] = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkb1B/1ppp1p2/r7/4p3/p7/P7/7R/1R1K4 w q - 0 18",
    "1r3b2/8/p7/5k2/1P6/N7/P1P5/3K2R1 b - - 4 32",
    "7k/8/3qr3/3n4/1B6/8/8/4K3 w - - 0 1",
    "7k/8/3p4/1Pp1K3/8/8/8/8 w - c6 0 1",
    "4k3/3npq2/2b1r3/3p1n2/2BN1Pb1/3RQ3/2NP1B2/4K3 w - - 0 1",
    "r1b1k2r/pp1n1ppp/2pq1n2/3pp3/1b1PP3/2N1BN2/PPPQ1PPP/R3KB1R w KQkq - 0 1",
    "k7/8/5q2/4p3/3K4/8/8/8 w - - 0 1",
];

#[test]
fn generator_matches_brute_force_depth_2() {
    let mut checked = 0;
    for f in CROSS_CHECK_FENS {
        check_tree(&load(f), 2, &mut checked);
    }
    assert!(checked > 5_000, "{checked}");
}

/// Random games from several positions, each node compared with the brute force.
#[test]
fn generator_matches_brute_force_on_random_games() {
    let mut next = common::xorshift(0x2545_f491_4f6c_dd1d);
    let mut rescues = 0;
    let mut nodes = 0;
    for game_no in 0..200 {
        let start = if game_no % 2 == 0 {
            Pos::startpos()
        } else {
            load(CROSS_CHECK_FENS[game_no / 2 % CROSS_CHECK_FENS.len()])
        };
        let mut pos = start;
        for _ in 0..150 {
            let mut moves = MoveList::new();
            CowardlyCrew::legal_moves(&pos, &mut moves);
            let list = tokens(&pos);
            assert_eq!(list, naive_tokens(&pos), "{}", fen::format(&pos));
            nodes += 1;
            rescues += count_rescues(&pos, &moves);
            if moves.is_empty() || pos.halfmoves() >= 100 {
                break;
            }
            // Prefer captures, so that conversions pile up.
            let captures: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|&m| CowardlyCrew::is_noisy(&pos, m))
                .collect();
            let pool = if !captures.is_empty() && !next().is_multiple_of(3) {
                &captures
            } else {
                &moves
            };
            let mv = pool[(next() % pool.len() as u64) as usize];
            game::play(&mut pos, mv);
        }
    }
    println!("{nodes} nodes, {rescues} rescued captures");
    assert!(nodes > 5_000, "{nodes}");
    assert!(rescues > 0, "no rescued capture met");
}

/// Legal captures whose chess form would leave the king attacked.
fn count_rescues(pos: &Pos, moves: &MoveList) -> usize {
    moves
        .iter()
        .filter(|m| {
            m.extra == 0 && {
                let mut c = *pos;
                c.play_base(**m);
                c.king_attacked(pos.turn())
            }
        })
        .count()
}

// ----- speed -----

/// `cargo test --release --test cowardly_crew -- --ignored --nocapture`: perft(5)
/// of Kiwipete and of a crowded middlegame full of conversions, each next to
/// standard chess perft of the same position (best of 5 runs each).
#[test]
#[ignore]
fn perft_speed() {
    // (FEN, depth, standard chess perft where it is a published value)
    for (fen_str, depth, chess_nodes) in [
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            5,
            Some(193_690_690),
        ),
        (
            "4k3/3npq2/2b1r3/3p1n2/2BN1Pb1/3RQ3/2NP1B2/4K3 w - - 0 1",
            5,
            None,
        ),
    ] {
        let chess = fen::parse::<Chess>(fen_str).expect("fen");
        let crew = load(fen_str);
        // Best of 5 alternating runs: the machine is shared.
        let (mut cn, mut ct, mut vn, mut vt) = (0, f64::MAX, 0, f64::MAX);
        for _ in 0..5 {
            let t = std::time::Instant::now();
            cn = perft::perft(&chess, depth);
            ct = ct.min(t.elapsed().as_secs_f64());
            let t = std::time::Instant::now();
            vn = perft::perft(&crew, depth);
            vt = vt.min(t.elapsed().as_secs_f64());
        }
        println!("{fen_str}");
        println!(
            "  chess        perft({depth}) = {cn:>11} in {ct:.3} s: {:.1} Mnps",
            cn as f64 / ct / 1e6
        );
        println!(
            "  cowardlycrew perft({depth}) = {vn:>11} in {vt:.3} s: {:.1} Mnps",
            vn as f64 / vt / 1e6
        );
        println!(
            "  cost per node, cowardlycrew / chess: {:.2}",
            (vt / vn as f64) / (ct / cn as f64)
        );
        if let Some(known) = chess_nodes {
            assert_eq!(cn, known, "standard chess perft");
        }
    }
}

/// Deeper perft against the brute force (no depth-4 reference data exists).
#[test]
#[ignore]
fn perft_depth_4_matches_brute_force() {
    for f in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkb1B/1ppp1p2/r7/4p3/p7/P7/7R/1R1K4 w q - 0 18",
        "1r3b2/8/p7/5k2/1P6/N7/P1P5/3K2R1 b - - 4 32",
        "4k3/3npq2/2b1r3/3p1n2/2BN1Pb1/3RQ3/2NP1B2/4K3 w - - 0 1",
    ] {
        let pos = load(f);
        let fast = perft::perft(&pos, 4);
        println!("perft(4) {f}: {fast}");
        assert_eq!(fast, naive_perft(&pos, 4), "{f}");
    }
}
