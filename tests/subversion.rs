//! Subversion: the reference data, and a hand-worked test for every rule point of
//! docs/RULES.md, "Subversion" and for every reading chosen where it is silent.

mod common;

use turncoat::engine::policy::Policy;
use turncoat::rules::fen;
use turncoat::rules::game::{self, Game, Outcome};
use turncoat::rules::moves::{MoveKind, MoveList};
use turncoat::rules::perft;
use turncoat::rules::position::{Internals as _, Position};
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::subversion::{Subversion, SUBVERSION};
use turncoat::rules::variants::{Variant, VariantKind};

const PERFT: &str = include_str!("data/subversion_perft.json");
const EXAMPLES: &str = include_str!("data/subversion_examples.json");

type Pos = Position<Subversion>;

fn load(fen_str: &str) -> Pos {
    common::load::<Subversion>(fen_str)
}

/// Sorted legal tokens.
fn tokens(fen_str: &str) -> Vec<String> {
    common::legal_tokens(&load(fen_str))
}

/// Sorted legal subversion tokens only.
fn subversions(fen_str: &str) -> Vec<String> {
    tokens(fen_str)
        .into_iter()
        .filter(|t| t.starts_with('@'))
        .collect()
}

fn strs(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// The FEN after playing `moves` from `fen_str` (each must be legal).
fn after(fen_str: &str, moves: &[&str]) -> String {
    let mut g = Game::new(load(fen_str));
    for m in moves {
        g.play_token(m).unwrap_or_else(|e| panic!("{e}"));
    }
    fen::format(&g.pos)
}

// ----- reference data -----

#[test]
fn reference_examples() {
    common::check_examples_file::<Subversion>(EXAMPLES);
}

#[test]
fn reference_perft() {
    common::check_perft_file::<Subversion>(PERFT, 3);
}

#[test]
fn registered_as_uci_variant() {
    let kind: VariantKind = "subversion".parse().expect("registered");
    assert_eq!(kind.name(), "subversion");
    assert_eq!(kind.start_fen(), Subversion::START_FEN);
    assert!(VariantKind::ALL.contains(&kind));
}

// ----- target conditions -----

/// A pawn cannot carry out a subversion: a black knight next to white pawns only.
#[test]
fn pawns_do_not_subvert() {
    assert_eq!(
        subversions("k7/8/8/3Nn3/3P4/8/P7/7K w - - 0 1"),
        strs(&["@e5,a2", "@e5,d4"])
    );
    // Same position without the white knight on d5: only the pawn d4 is next to e5.
    assert_eq!(subversions("k7/8/8/4n3/3P4/8/P7/7K w - - 0 1"), strs(&[]));
}

/// The mover's king counts as a subverting piece (N, B, R, Q or K).
#[test]
fn king_may_be_the_adjacent_piece() {
    assert_eq!(
        subversions("k7/8/8/4n3/4K3/8/P7/8 w - - 0 1"),
        strs(&["@e5,a2"])
    );
}

/// Kings are never targets, even with a white knight next to the black king.
#[test]
fn kings_are_not_subverted() {
    assert_eq!(subversions("7k/6N1/8/8/8/8/P7/K7 w - - 0 1"), strs(&[]));
}

/// A piece next to its own king cannot be subverted; one square further it can.
#[test]
fn target_next_to_its_own_king_is_safe() {
    assert_eq!(subversions("8/8/8/3nk3/2B5/8/P7/K7 w - - 0 1"), strs(&[]));
    assert_eq!(
        subversions("8/8/8/3n1k2/2B5/8/P7/K7 w - - 0 1"),
        strs(&["@d5,a2"])
    );
}

// ----- prices -----

/// Price 1: a target that does not attack the king costs exactly one pawn, any one.
#[test]
fn non_checking_target_costs_any_one_pawn() {
    assert_eq!(
        subversions("k7/8/8/4q3/3N4/8/PP3PPP/R2K4 w - - 0 1"),
        strs(&["@e5,a2", "@e5,b2", "@e5,f2", "@e5,g2", "@e5,h2"])
    );
}

/// Price 2: a checking pawn costs one N, B, R or Q; pawns cannot pay.
#[test]
fn checking_pawn_costs_one_officer() {
    assert_eq!(
        tokens("4k3/8/8/8/8/8/2Np3P/4K3 w - - 0 1"),
        strs(&["@d2,c2", "e1d1", "e1d2", "e1e2", "e1f1", "e1f2"])
    );
    assert_eq!(
        after("4k3/8/8/8/8/8/2Np3P/4K3 w - - 4 7", &["@d2,c2"]),
        "4k3/8/8/8/8/8/3P3P/4K3 b - - 0 7"
    );
}

/// Price 2: a checking bishop; any of N, B, R, Q pays (here Q b5, B c1, R h3, the
/// adjacent knight e4), not the pawn.
#[test]
fn checking_bishop_costs_one_officer() {
    assert_eq!(
        subversions("k7/8/8/1Q6/3bN3/7R/7P/2B3K1 w - - 0 1"),
        strs(&["@d4,b5", "@d4,c1", "@d4,e4", "@d4,h3"])
    );
}

/// Price 3 with two rooks and two knights: R, R, N+N, N + every pawn (twice).
#[test]
fn checking_rook_rows() {
    assert_eq!(
        subversions("7k/8/8/4r3/3N4/8/N5PP/R3K2R w - - 0 1"),
        strs(&[
            "@e5,a1",
            "@e5,h1",
            "@e5,a2,d4",
            "@e5,a2,g2,h2",
            "@e5,g2,h2,d4"
        ])
    );
}

/// Price 3 without pawns: the "N-or-B with every pawn" row does not exist.
#[test]
fn checking_rook_without_pawns_has_no_pawn_row() {
    assert_eq!(subversions("7k/8/8/4r3/3N4/8/8/4K3 w - - 0 1"), strs(&[]));
    assert_eq!(
        subversions("7k/8/8/4r3/3N4/8/7P/4K3 w - - 0 1"),
        strs(&["@e5,h2,d4"])
    );
}

/// Price 4: with four officers and two pawns, 4 trios plus 6 pairs with every pawn.
#[test]
fn checking_queen_rows() {
    let fen_str = "7k/8/8/4q3/3N4/8/6PP/R1B1K1N1 w - - 0 1";
    assert_eq!(
        subversions(fen_str),
        strs(&[
            "@e5,a1,c1,d4",
            "@e5,a1,c1,g1",
            "@e5,a1,g1,d4",
            "@e5,c1,g1,d4",
            "@e5,a1,c1,g2,h2",
            "@e5,a1,g1,g2,h2",
            "@e5,a1,g2,h2,d4",
            "@e5,c1,g1,g2,h2",
            "@e5,c1,g2,h2,d4",
            "@e5,g1,g2,h2,d4",
        ])
    );
    assert_eq!(
        after(fen_str, &["@e5,a1,g2,h2,d4"]),
        "7k/8/8/4Q3/8/8/8/2B1K1N1 b - - 0 1"
    );
}

/// Price 4 without pawns: trios only; two officers need every pawn; one officer
/// never suffices.
#[test]
fn checking_queen_without_pawns() {
    assert_eq!(
        subversions("7k/8/8/4q3/3N4/8/8/R1B1K3 w - - 0 1"),
        strs(&["@e5,a1,c1,d4"])
    );
    assert_eq!(
        subversions("7k/8/8/4q3/3N4/8/6PP/R3K3 w - - 0 1"),
        strs(&["@e5,a1,g2,h2,d4"])
    );
    assert_eq!(subversions("7k/8/8/4q3/3N4/8/6PP/4K3 w - - 0 1"), strs(&[]));
}

// ----- the subverted piece -----

/// A subverted pawn moves in its new owner's direction and may double-step from
/// its new owner's 2nd rank.
#[test]
fn subverted_pawn_changes_direction() {
    let start = "7k/8/8/8/8/8/4p2P/K4N2 w - - 0 1";
    assert_eq!(subversions(start), strs(&["@e2,h2"]));
    let fen1 = after(start, &["@e2,h2", "h8g8"]);
    assert_eq!(fen1, "6k1/8/8/8/8/8/4P3/K4N2 w - - 1 2");
    let t = tokens(&fen1);
    assert!(t.contains(&"e2e3".to_string()) && t.contains(&"e2e4".to_string()));
    // And a black pawn on d7, subverted, promotes next move.
    let fen2 = after("7k/3p4/2N5/8/8/8/P7/K7 w - - 0 1", &["@d7,a2", "h8g8"]);
    assert!(tokens(&fen2).contains(&"d7d8q".to_string()));
}

/// A subverted piece may give check (and mate) at once.
#[test]
fn subverted_piece_may_give_check_at_once() {
    // Black rook e5 turns white and checks the black king on e8.
    let fen_str = after("4k3/8/8/4r3/3N4/8/P7/K7 w - - 0 1", &["@e5,a2"]);
    assert_eq!(fen_str, "4k3/8/8/4R3/3N4/8/8/K7 b - - 0 1");
    assert!(load(&fen_str).checkers().any());
}

/// Subverting a corner rook or paying with a home rook removes that castling right.
#[test]
fn castling_rights_of_subverted_and_paid_rooks() {
    let fen_str = "1k6/8/8/4r3/3N4/8/8/R3K2R w KQ - 3 10";
    assert_eq!(
        tokens(fen_str),
        strs(&["@e5,a1", "@e5,h1", "d4e2", "e1d1", "e1d2", "e1f1", "e1f2"])
    );
    assert_eq!(
        after(fen_str, &["@e5,a1"]),
        "1k6/8/8/4R3/3N4/8/8/4K2R b K - 0 10"
    );
    assert_eq!(
        after(fen_str, &["@e5,h1"]),
        "1k6/8/8/4R3/3N4/8/8/R3K3 b Q - 0 10"
    );
}

/// A subversion resets the halfmove clock and clears the en passant square; after
/// Black's subversion the fullmove number counts up.
#[test]
fn clocks_and_en_passant() {
    let fen_str = "4k3/8/8/3pP3/2N5/8/7P/4K3 w - d6 9 2";
    assert_eq!(
        fen::format(&load(fen_str)),
        fen_str,
        "e.p. square is visible"
    );
    assert_eq!(subversions(fen_str), strs(&["@d5,e5", "@d5,h2"]));
    assert_eq!(
        after(fen_str, &["@d5,h2"]),
        "4k3/8/8/3PP3/2N5/8/8/4K3 b - - 0 2"
    );
    assert_eq!(
        after("7k/p7/8/8/3n4/4P3/8/K7 b - - 7 30", &["@e3,a7"]),
        "7k/8/8/8/3n4/4p3/8/K7 w - - 0 31"
    );
}

// ----- legality -----

/// Paying with a pinned piece is illegal when the pinner stays an enemy, legal when
/// the pinner is the target (it is the mover's afterwards).
#[test]
fn pinned_payment() {
    // Pawn f2 is pinned by bishop g3 against king e1.
    assert_eq!(
        subversions("k7/8/8/6p1/7N/6b1/P4P2/4K3 w - - 0 1"),
        strs(&["@g3,a2", "@g3,f2", "@g5,a2"])
    );
    // Rook f2 pinned by bishop g3; rook e5 checks: paying f2 is illegal.
    assert_eq!(
        tokens("7k/8/8/4r3/3N4/6b1/5R1P/R3K3 w - - 0 1"),
        strs(&["@e5,a1", "@e5,h2,d4", "d4e2", "e1d1", "e1d2", "e1f1"])
    );
}

/// In check only the checker may be subverted: knight c5, next to knight d4, is
/// not a legal target while rook e5 checks.
#[test]
fn in_check_only_the_checker() {
    assert_eq!(
        subversions("7k/8/8/2n1r3/3N4/8/6PP/R3K3 w - - 0 1"),
        strs(&["@e5,a1", "@e5,g2,h2,d4"])
    );
    // Without the check (king on d1), knight c5 and rook e5 each cost one pawn.
    assert_eq!(
        subversions("7k/8/8/2n1r3/3N4/8/6PP/R2K4 w - - 0 1"),
        strs(&["@c5,g2", "@c5,h2", "@e5,g2", "@e5,h2"])
    );
}

/// "A piece giving mate may not be subverted": the reference example, as a game.
#[test]
fn checkmate_even_though_a_subversion_would_parry() {
    let g = Game::new(load("k7/8/8/8/8/8/6PP/2Nr3K w - - 0 1"));
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: shakmaty::Color::Black,
            reason: "checkmate"
        })
    );
}

/// Out of check a subversion is legal without any ordinary move (it averts
/// stalemate); with no pawn to pay, the same position is stalemate.
#[test]
fn subversion_averts_stalemate() {
    let fen_str = "k7/8/8/p7/P3b3/6p1/4n1N1/7K w - - 0 1";
    assert_eq!(tokens(fen_str), strs(&["@g3,a4"]));
    assert_eq!(
        after(fen_str, &["@g3,a4"]),
        "k7/8/8/p7/4b3/6P1/4n1N1/7K b - - 0 1"
    );
    let g = Game::new(load("k7/8/8/p7/4b3/6p1/4n1N1/7K w - - 0 1"));
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: "stalemate"
        })
    );
}

// ----- tokens -----

/// Only the canonical token is accepted: paid squares sorted a1=0 .. h8=63, no
/// missing or extra payment, no other spelling.
#[test]
fn non_canonical_tokens_are_rejected() {
    let fen_str = "7k/8/8/2p1r3/3N4/8/6PP/RNB1K3 w - - 0 1";
    let pos = load(fen_str);
    assert!(game::find_move(&pos, "@e5,g2,h2,d4").is_some());
    for bad in [
        "@e5,d4,g2,h2", // unsorted
        "@e5,h2,g2,d4", // unsorted
        "@e5",          // no payment
        "@e5,g2",       // one pawn for a checking rook
        "@e5,g2,h2",    // pawns alone
        "@e5,b1,c1,g2,h2",
        "@e5,a1,a1",
        "@E5,a1",
        "@e5,A1",
        "@e5 a1",
        "@e5,a1,",
        "e5@,a1",
        "e5,a1",
        "@c5,g2", // a non-checker while in check
    ] {
        assert!(game::find_move(&pos, bad).is_none(), "{bad} accepted");
        let mut g = Game::new(pos);
        assert!(g.play_token(bad).is_err());
        assert_eq!(g.pos, pos, "{bad} changed the position");
    }
}

/// Ordinary moves keep their plain UCI tokens.
#[test]
fn ordinary_tokens() {
    let pos = load("1k6/8/8/4r3/3N4/8/8/R3K2R w KQ - 3 10");
    let mv = game::find_move(&pos, "d4e2").expect("legal");
    assert_eq!(mv.kind, MoveKind::Normal);
    assert_eq!(game::token(&pos, mv), "d4e2");
}

// ----- FEN -----

#[test]
fn fen_rejections() {
    let err = |f: &str| fen::parse::<Subversion>(f).expect_err(f).to_string();
    assert!(err("4k3/8/8/8/8/8/8/4K3 w - - 0 1 -").contains("seventh"));
    assert!(err("4k3/8/8/8/8/8/8/4K2K w - - 0 1").contains("kings"));
    assert!(err("8/8/8/8/8/8/8/4K3 w - - 0 1").contains("kings"));
    assert!(err("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1").contains("not to move is in check"));
    assert!(err("3pk3/8/8/8/8/8/8/4K3 w - - 0 1").contains("rank 1 or 8"));
    assert!(err("4k3/8/8/8/8/8/8/4K3 x - - 0 1").contains("side to move"));
}

// ----- Zobrist -----

/// Transposed move orders (subversions included) give the same key; the
/// incremental key equals the key of the printed FEN loaded afresh.
#[test]
fn zobrist_transpositions() {
    let start = "k7/8/8/3p4/3N4/8/P6P/K7 w - - 0 1";
    let mut a = Game::new(load(start));
    let mut b = Game::new(load(start));
    for m in ["@d5,a2", "a8b8", "h2h3", "b8a8"] {
        a.play_token(m).expect(m);
    }
    for m in ["h2h3", "a8b8", "@d5,a2", "b8a8"] {
        b.play_token(m).expect(m);
    }
    assert_eq!(fen::format(&a.pos), "k7/8/8/3P4/3N4/7P/8/K7 w - - 1 3");
    assert_eq!(fen::format(&b.pos), "k7/8/8/3P4/3N4/7P/8/K7 w - - 1 3");
    assert_eq!(a.pos.key(), b.pos.key());
    assert_eq!(a.pos.key(), a.pos.compute_key());
    assert_eq!(a.pos.key(), load(&fen::format(&a.pos)).key());
    // Paying h2 instead of a2 is a different position with a different key.
    let mut c = Game::new(load(start));
    for m in ["a2a3", "a8b8", "@d5,h2", "b8a8"] {
        c.play_token(m).expect(m);
    }
    assert_ne!(c.pos.key(), a.pos.key());
    // A subverted corner rook drops a castling right, and the key with it.
    let with_rights = load("r3k2r/7N/8/3p4/8/8/P7/4K3 w kq - 5 20");
    let mut d = with_rights;
    let mv = game::find_move(&d, "@h8,a2").expect("legal");
    game::play(&mut d, mv);
    assert_eq!(d.key(), load("r3k2R/7N/8/3p4/8/8/8/4K3 b q - 0 20").key());
    assert_ne!(d.key(), load("r3k2R/7N/8/3p4/8/8/8/4K3 b - - 0 20").key());
    assert_ne!(d.key(), with_rights.key());
}

// ----- perft -----

/// Hand-worked perft(2): after `@d1,c1,g2` Black's lone king has 3 moves; after
/// `h1h2` the black rook has 12 and the king 3 (the rook next to knight c1 cannot
/// subvert it: Black has no pawn to pay).
#[test]
fn hand_worked_perft_2() {
    let pos = load("k7/8/8/8/8/8/6P1/2Nr3K w - - 0 1");
    let divide: std::collections::BTreeMap<String, u64> =
        perft::divide(&pos, 2, 1).into_iter().collect();
    let expected: std::collections::BTreeMap<String, u64> =
        [("@d1,c1,g2".to_string(), 3), ("h1h2".to_string(), 15)].into();
    assert_eq!(divide, expected);
    assert_eq!(perft::perft(&pos, 2), 18);
}

/// `noisy_moves` is the noisy part of `legal_moves`, in and out of check, with
/// one payment per subverted target (the one `gain_estimate` rates highest);
/// every subversion is noisy.
#[test]
fn noisy_moves_match_legal_moves() {
    use std::collections::BTreeMap;
    for fen_str in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "7k/8/2n5/4r3/3N4/8/6PP/R3K3 w - - 0 1",
        "k7/8/8/8/8/8/6PP/2Nr3K w - - 0 1",
        "k7/8/8/p7/P3b3/6p1/4n1N1/7K w - - 0 1",
        "k7/8/8/6p1/7N/6b1/P4P2/4K3 w - - 0 1",
    ] {
        let pos = load(fen_str);
        let mut all = MoveList::new();
        Subversion::legal_moves(&pos, &mut all);
        assert!(all
            .iter()
            .filter(|m| m.kind == SUBVERSION)
            .all(|&m| Subversion::is_noisy(&pos, m)));
        let mut noisy = MoveList::new();
        Subversion::noisy_moves(&pos, &mut noisy);
        let ordinary = |list: &MoveList| {
            let mut v: Vec<String> = list
                .iter()
                .filter(|&&m| m.kind != SUBVERSION && Subversion::is_noisy(&pos, m))
                .map(|&m| game::token(&pos, m))
                .collect();
            v.sort();
            v
        };
        assert_eq!(ordinary(&noisy), ordinary(&all), "{fen_str}");
        // Per target: the best gain among all payments, and how many there are.
        let mut best: BTreeMap<_, (i32, usize)> = BTreeMap::new();
        for &m in all.iter().filter(|m| m.kind == SUBVERSION) {
            let e = best.entry(m.to).or_insert((i32::MIN, 0));
            e.0 = e.0.max(Subversion::gain_estimate(&pos, m));
            e.1 += 1;
        }
        let mut seen: BTreeMap<_, usize> = BTreeMap::new();
        for &m in noisy.iter().filter(|m| m.kind == SUBVERSION) {
            assert!(all.contains(&m), "{fen_str}: {m:?} is legal");
            assert_eq!(Subversion::gain_estimate(&pos, m), best[&m.to].0);
            *seen.entry(m.to).or_default() += 1;
        }
        assert!(best.keys().all(|t| seen.get(t) == Some(&1)), "{fen_str}");
    }
}

/// An independent, naive statement of the rules: every candidate payment (single
/// pawns; up to three of N, B, R, Q, alone or with every pawn) is priced by counting
/// roles straight from docs/RULES.md, and judged by playing it and asking whether the
/// mover's king is attacked. Compared with the generator on random playouts.
fn naive_subversions(pos: &Pos) -> Vec<String> {
    use shakmaty::{Bitboard, Role, Square};
    let us = pos.turn();
    let mut ordinary = MoveList::new();
    turncoat::rules::movegen::legal_chess(pos, &mut ordinary);
    let checkers = pos.checkers();
    if checkers.any() && ordinary.is_empty() {
        return Vec::new();
    }
    let their_king = pos.king_of(!us).expect("one king");
    let pawns = pos.by_piece(us.pawn());
    let officers = pos.us() & !pos.by_role(Role::Pawn) & !pos.by_role(Role::King);
    let officer_list: Vec<Square> = officers.into_iter().collect();
    let mut candidates: Vec<Bitboard> = pawns.into_iter().map(Bitboard::from_square).collect();
    let n = officer_list.len();
    for mask in 1u32..(1 << n) {
        if mask.count_ones() > 3 {
            continue;
        }
        let set: Bitboard = (0..n)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| officer_list[i])
            .collect();
        candidates.push(set);
        if pawns.any() {
            candidates.push(set | pawns);
        }
    }
    let near = |a: Square, b: Square| a != b && a.distance(b) == 1;
    let mut out = Vec::new();
    for target in pos.them() {
        let role = pos.role_at(target).expect("occupied");
        if role == Role::King || near(target, their_king) {
            continue;
        }
        if !(pos.us() & !pos.by_role(Role::Pawn))
            .into_iter()
            .any(|s| near(s, target))
        {
            continue;
        }
        let checks = checkers.contains(target);
        for &paid in &candidates {
            let count = |r: Role| (paid & pos.by_piece(r.of(us))).count();
            let (p, nn, b, r, q) = (
                count(Role::Pawn),
                count(Role::Knight),
                count(Role::Bishop),
                count(Role::Rook),
                count(Role::Queen),
            );
            let officers_paid = nn + b + r + q;
            let every_pawn = p > 0 && p == pawns.count();
            let priced = if !checks {
                p == 1 && officers_paid == 0
            } else {
                match role {
                    Role::Pawn | Role::Knight | Role::Bishop => p == 0 && officers_paid == 1,
                    Role::Rook => {
                        (p == 0
                            && (((r == 1 || q == 1) && officers_paid == 1)
                                || (b == 2 && officers_paid == 2)
                                || (nn == 2 && officers_paid == 2)
                                || (b == 1 && nn == 1 && officers_paid == 2)))
                            || (every_pawn && nn + b == 1 && officers_paid == 1)
                    }
                    Role::Queen => {
                        (p == 0 && officers_paid == 3) || (every_pawn && officers_paid == 2)
                    }
                    Role::King => false,
                }
            };
            if !priced {
                continue;
            }
            let mut after = *pos;
            for sq in paid {
                after.take(sq);
            }
            after.recolor(target, us);
            if after.king_attacked(us) {
                continue;
            }
            let mut token = format!("@{target}");
            for sq in paid {
                token.push_str(&format!(",{sq}"));
            }
            out.push(token);
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn random_playouts_match_naive_rules() {
    let starts: Vec<String> = serde_json::from_str::<Vec<serde_json::Value>>(PERFT)
        .expect("perft JSON")
        .iter()
        .map(|e| e["fen"].as_str().expect("fen").to_string())
        .collect();
    let mut rand = common::xorshift(0x5eed_1234_abcd_0001);
    let (mut positions, mut with_subversions, mut in_check_with) = (0, 0, 0);
    for game_no in 0..300 {
        let mut pos = load(&starts[game_no % starts.len()]);
        for _ply in 0..80 {
            let got = subversions(&fen::format(&pos));
            assert_eq!(got, naive_subversions(&pos), "{}", fen::format(&pos));
            positions += 1;
            if !got.is_empty() {
                with_subversions += 1;
                if pos.checkers().any() {
                    in_check_with += 1;
                }
            }
            let mut moves = MoveList::new();
            Subversion::legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            // Prefer subversions half of the time so that material keeps changing.
            let subs: Vec<_> = moves
                .iter()
                .filter(|m| m.kind == SUBVERSION)
                .copied()
                .collect();
            let mv = if !subs.is_empty() && rand().is_multiple_of(2) {
                subs[(rand() % subs.len() as u64) as usize]
            } else {
                moves[(rand() % moves.len() as u64) as usize]
            };
            game::play(&mut pos, mv);
            assert_eq!(fen::format(&load(&fen::format(&pos))), fen::format(&pos));
        }
    }
    println!(
        "{positions} positions, {with_subversions} with subversions, {in_check_with} in check"
    );
    assert!(
        positions > 10_000 && with_subversions > 1_000 && in_check_with > 20,
        "{positions} positions, {with_subversions} with subversions, {in_check_with} in check"
    );
}

// ----- ordering and evaluation -----

/// Valuable targets first; among pawn payments the least advanced pawn first.
#[test]
fn gain_estimate_orders_subversions() {
    let pos = load("k7/8/8/P2q4/3N4/8/P6n/6K1 w - - 0 1");
    let gain = |t: &str| Subversion::gain_estimate(&pos, game::find_move(&pos, t).expect(t));
    assert!(gain("@d5,a2") > gain("@d5,a5"));
    assert!(gain("@d5,a5") > gain("@h2,a2"), "queen before knight");
    assert!(gain("@d5,a5") > gain("d4c6"));
}

/// The evaluation term: the side to move pays for what the waiting side can
/// subvert for one pawn (swing = 2 x value - 100): the best threat /16 (it can be
/// parried), the second /2 (it cannot be parried as well). The side to move's own
/// targets are left to quiescence.
#[test]
fn evaluation_counts_threats_against_the_mover() {
    assert_eq!(Subversion::evaluate(&load("startpos")), 0);
    // Black's rook on e5 touches White's N d4 and B f4: 560/16 + 540/2.
    let two = "7k/7p/8/4r3/3N1B2/8/P7/K7 w - - 0 1";
    assert_eq!(Subversion::evaluate(&load(two)), -(560 / 16 + 540 / 2));
    // Black to move: White's N and B threaten the rook (swing 900), /16.
    let black = "7k/7p/8/4r3/3N1B2/8/P7/K7 b - - 0 1";
    assert_eq!(Subversion::evaluate(&load(black)), 900 / 16);
    // Without a pawn Black cannot pay: no threat.
    let broke = "7k/8/8/4r3/3N1B2/8/P7/K7 w - - 0 1";
    assert_eq!(Subversion::evaluate(&load(broke)), 0);
    // The king on c3 guards d4: only the bishop is threatened.
    let guarded = "7k/7p/8/4r3/3N1B2/2K5/P7/8 w - - 0 1";
    assert_eq!(Subversion::evaluate(&load(guarded)), -(560 / 16));
}

/// Standard chess is not disturbed by the registration (known perft numbers).
#[test]
fn chess_still_plays_chess() {
    assert_eq!(perft::perft(&common::load::<Chess>("startpos"), 4), 197_281);
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    assert_eq!(perft::perft(&common::load::<Chess>(kiwipete), 3), 97_862);
}
