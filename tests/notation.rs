//! The readable notation (docs/RULES.md, "Notation: readable") and the words a
//! board says about each move (`rules::sentence`): the texts of docs/RULES.md's
//! examples, exactly; one text per legal move, read back as that move, over
//! every legal move of the examples' positions, their children and random
//! games in every variant; PGN written in readable text reads back as the same
//! game as its tokens; the sentences of each kind of move.

mod common;

use std::collections::HashSet;

use turncoat::rules::fen;
use turncoat::rules::game;
use turncoat::rules::moves::{Move, MoveList};
use turncoat::rules::notation::{self, Notation, NotationError};
use turncoat::rules::pgn::{self, PgnRecord};
use turncoat::rules::position::Position;
use turncoat::rules::sentence;
use turncoat::rules::variants::andernach::Andernach;
use turncoat::rules::variants::attending_pawns::AttendingPawns;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::cowardly_crew::CowardlyCrew;
use turncoat::rules::variants::cruise_pawns::CruisePawns;
use turncoat::rules::variants::pacifist::Pacifist;
use turncoat::rules::variants::subversion::Subversion;
use turncoat::rules::variants::{Variant, VariantKind};
use turncoat::with_variant;

fn legal<V: Variant>(pos: &Position<V>) -> MoveList {
    let mut list = MoveList::new();
    V::legal_moves(pos, &mut list);
    list
}

fn find<V: Variant>(pos: &Position<V>, token: &str) -> Move {
    game::find_move(pos, token)
        .unwrap_or_else(|| panic!("{token} is not legal in {}", fen::format(pos)))
}

/// Each `(token, text)` of `cases` in the position `fen`: the token's move is
/// written `text`, and `text` reads back as it.
fn texts<V: Variant>(fen_text: &str, cases: &[(&str, &str)]) {
    let pos = common::load::<V>(fen_text);
    for &(token, text) in cases {
        let mv = find(&pos, token);
        assert_eq!(
            V::move_text(&pos, mv),
            text,
            "{} {fen_text}: {token}",
            V::NAME
        );
        assert_eq!(
            V::move_from_text(&pos, text),
            Some(mv),
            "{} {fen_text}: {text}",
            V::NAME
        );
    }
}

/// docs/RULES.md's examples of the readable notation, each variant's section
/// and the table of "Notation: readable".
#[test]
fn the_texts_of_the_rulebook() {
    texts::<Chess>(
        "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
        &[("d8h4", "Qh4#"), ("g8f6", "Nf6")],
    );
    texts::<Andernach>(
        "4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1",
        &[("c3d5", "Nxd5(=bN)")],
    );

    // CC1: the capture converting d6 and f6, and sparing them.
    let cc1 = "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1";
    texts::<CowardlyCrew>(
        cc1,
        &[
            ("d4e5", "dxe5~2"),
            ("d4e5,n", "dxe5"),
            ("d4d5", "d5"),
            ("a1b1", "Kb1"),
        ],
    );
    texts::<CowardlyCrew>(
        "rq6/nP6/6k1/8/8/8/8/7K w - - 0 1",
        &[
            ("b7a8q", "bxa8=Q~1"),
            ("b7a8q,n", "bxa8=Q"),
            ("b7a8n", "bxa8=N~1"),
        ],
    );
    // The check mark after the piece move, the conversions after it; only
    // the conversion of g7 makes Rxh8 mate.
    texts::<CowardlyCrew>(
        "r3k2r/6r1/8/5N2/8/8/8/R3K2R w KQkq - 0 1",
        &[
            ("h1h8", "Rxh8#~1"),
            ("h1h8,n", "Rxh8+"),
            ("f5g7", "Nxg7+~1"),
            ("f5g7,n", "Nxg7+"),
            ("a1a8", "Rxa8+"),
        ],
    );

    // PF1, PF2, PF3 (the black king converted: Black has lost), PF35.
    texts::<Pacifist>(
        "rkqn1rb1/ppppppbp/P7/1n4p1/8/4N3/1PPPPPPP/RNK1BBQR w - - 0 1",
        &[
            ("e3f5", "Nf5~7"),
            ("e3c4", "Nc4"),
            ("b1c3", "Nc3~1"),
            ("h2h4", "h4~1"),
        ],
    );
    texts::<Pacifist>(
        "nbr1b1qr/ppppKppp/7n/4pN2/K3P3/P7/QPPP1PPP/B1R1RBN1 b - - 0 1",
        &[("g7g6", "g6~2"), ("d7d6", "d6~1")],
    );
    texts::<Pacifist>(
        "1rknn1br/p1pp1p1p/3bp1p1/1p1q2n1/5p2/2P4B/pP1PP1PP/B1RKR1QN w - - 0 1",
        &[("g1b6", "Qb6#~10")],
    );
    texts::<Pacifist>(
        "k2r4/8/8/8/8/8/8/R3K3 w Q - 0 1",
        &[("e1c1", "O-O-O#~2"), ("a1d1", "Rd1#~2")],
    );
    // A king converted while the other side keeps a move that wins one back.
    texts::<Pacifist>("k7/8/8/8/8/4R3/8/4r2K w - - 0 1", &[("e3a3", "Ra3+~1")]);

    // SV1 and the prices of docs/RULES.md's Subversion examples.
    texts::<Subversion>(
        "1r5k/8/2n5/3pb3/3N4/8/6PP/K7 w - - 0 1",
        &[
            ("@e5,g2", "@Be5+/Pg2"),
            ("@d5,h2", "@Pd5/Ph2"),
            ("h2h4", "h4"),
        ],
    );
    texts::<Subversion>(
        "7k/8/8/4r3/Q2N4/5B2/2B5/4K3 w - - 0 1",
        &[
            ("@e5,c2,f3", "@Re5/Bc2,Bf3"),
            ("@e5,a4", "@Re5/Qa4"),
            ("@e5,f3,d4", "@Re5/Bf3,Nd4"),
            ("c2e4", "Bce4"),
            ("f3e4", "Bfe4"),
        ],
    );
    texts::<Subversion>(
        "7k/8/8/4q3/3N4/8/6PP/R1B1K3 w - - 0 1",
        &[("@e5,a1,c1,g2,h2", "@Qe5+/Ra1,Bc1,Pg2,Ph2")],
    );

    // Relocations (moved, staying, capturing), castling with two pawns and
    // with the rook's only, promotions with their new pawn.
    texts::<AttendingPawns>(
        AttendingPawns::START_FEN,
        &[
            ("b1c3,b2d3", "Nc3/b2-d3"),
            ("b1c3,b2b2", "Nc3/b2"),
            ("e2e4", "e4"),
        ],
    );
    texts::<AttendingPawns>(
        "4k3/8/8/8/8/8/4PPPP/4K2R w K - 0 1 e1e2,h1h2",
        &[
            ("e1g1,e2h1,h2e1", "O-O/e2-h1,h2-e1"),
            ("e1d1,e2e2", "Kd1/e2"),
            ("h1g1,h2h1", "Rg1/h2-h1"),
        ],
    );
    texts::<AttendingPawns>(
        "4k3/8/8/8/8/8/7P/4K2R w K - 0 1 h1h2",
        &[("e1g1,h2f2", "O-O/h2-f2"), ("e1d1", "Kd1")],
    );
    texts::<AttendingPawns>(
        "5r2/4P3/8/7k/8/8/8/K6N w - - 0 1 h1e7",
        &[
            ("e7e8q,d7", "e8=Q+/d7"),
            ("e7e8q,f7", "e8=Q/f7"),
            ("e7f8n,g7", "exf8=N/g7"),
            ("h1g3,e7f2", "Ng3+/e7-f2"),
        ],
    );
    texts::<AttendingPawns>(
        "7k/pnp5/1N6/8/8/8/7P/4K3 w - - 0 1 b6h2,b7c7",
        &[("b6a8,h2a7", "Na8/h2xa7"), ("b6a8,h2b7", "Na8/h2xb7")],
    );
    texts::<AttendingPawns>(
        "7k/8/8/1p1pP3/2P5/8/P7/K7 w - d6 0 1 a1a2",
        &[("e5d6", "exd6"), ("c4b5", "cxb5")],
    );

    // CP1, CP9, CP10, CP11; a shoot-down that promotes; a launch that checks.
    texts::<CruisePawns>(
        "7r/P7/8/8/8/8/8/K6k w - - 0 1 -",
        &[
            ("a7*b8c8d8e8f8g8h8", "a7*b8-c8-d8-e8-f8-g8-Rh8"),
            ("a7*", "a7*"),
            ("a7a8q", "a8=Q+"),
            ("a7a8n", "a8=N"),
        ],
    );
    texts::<CruisePawns>(
        "4r2k/8/8/1n6/3P4/8/8/4K3 w - - 0 1 -",
        &[("d4*e5e6e7e8", "d4*e5-e6-e7-Re8")],
    );
    texts::<CruisePawns>(
        "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7",
        &[
            ("d6e5", "dx*e5"),
            ("d8f6", "Bx*f6+"),
            ("h8g8", "*Kg8"),
            ("d6d5", "*d5"),
            ("d6*", "*d6*"),
            ("d8h4", "*Bh4"),
        ],
    );
    texts::<CruisePawns>(
        "4k3/4r2p/8/8/8/8/8/K3R3 b - - 0 1 b6*c7d7e7",
        &[("e8d7", "Kx*d7"), ("e8f8", "*Kf8")],
    );
    texts::<CruisePawns>(
        "7k/8/8/8/8/7K/1p6/3r4 b - - 0 1 a3*a2b1c1d1",
        &[
            ("b2c1q", "bx*c1=Q"),
            ("b2b1q", "*b1=Q"),
            ("b2c1n", "bx*c1=N"),
        ],
    );
    // The pawn on e5 shields the king from the rook: any launch checks.
    texts::<CruisePawns>(
        "4k3/8/8/n3P3/8/8/8/4RK2 w - - 0 1 -",
        &[("e5*d5c5b5a5", "e5*d5-c5-b5-Na5+"), ("e5e6", "e6")],
    );
}

/// What reading refuses, and the check marks and glyphs it reads past.
#[test]
fn reading_tolerates_marks_and_nothing_else() {
    let pos = common::load::<CruisePawns>("3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7");
    let shoot = find(&pos, "d8f6");
    for text in ["Bx*f6+", "Bx*f6", "Bx*f6!?", "Bx*f6#", "d8f6"] {
        assert_eq!(notation::read_move(&pos, text), Ok(shoot), "{text}");
    }
    for text in ["Bf6", "*Bf6", "Bxf6", "B8x*f6", "bx*f6", "", "Kg8"] {
        assert_eq!(
            notation::read_move(&pos, text),
            Err(NotationError::NoSuchMove {
                text: text.to_string(),
                fen: "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7".to_string(),
            }),
            "{text}"
        );
    }
    let cc = common::load::<CowardlyCrew>("7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1");
    // The count must be the conversion's.
    assert!(notation::read_move(&cc, "dxe5~1").is_err());
    assert_eq!(notation::read_move(&cc, "dxe5~2"), Ok(find(&cc, "d4e5")));
    let ap = common::load::<AttendingPawns>("4k3/8/8/8/8/8/4PPPP/4K2R w K - 0 1 e1e2,h1h2");
    assert_eq!(
        notation::read_move(&ap, "0-0/e2-h1,h2-e1"),
        Ok(find(&ap, "e1g1,e2h1,h2e1"))
    );
    // A celebrity's move names its pawn's square.
    assert!(notation::read_move(&ap, "Kd1").is_err());
    let message = notation::read_move(&cc, "Nf3").unwrap_err().to_string();
    assert_eq!(
        message,
        "'Nf3' is neither the readable text nor the token of a legal move in \
         7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1"
    );
}

/// The readable texts of every legal move of `pos`: distinct (also without
/// their check marks), the same one by one as all at once, each read back as
/// its move (and the token too), none another move's token, and one PGN
/// word. Returns the number of moves.
fn check_position<V: Variant>(pos: &Position<V>) -> usize {
    let moves = legal(pos);
    let texts = V::move_texts(pos, &moves);
    let where_ = || format!("{} {}", V::NAME, fen::format(pos));
    assert_eq!(texts.len(), moves.len());
    let distinct: HashSet<&String> = texts.iter().collect();
    assert_eq!(distinct.len(), texts.len(), "{}: {texts:?}", where_());
    let bodies: HashSet<String> = texts.iter().map(|t| t.replace(['+', '#'], "")).collect();
    assert_eq!(bodies.len(), texts.len(), "{}: {texts:?}", where_());
    for (&mv, text) in moves.iter().zip(&texts) {
        assert_eq!(&V::move_text(pos, mv), text, "{}", where_());
        assert_eq!(
            V::move_from_text(pos, text),
            Some(mv),
            "{}: {text}",
            where_()
        );
        let token = game::token(pos, mv);
        assert_eq!(
            V::move_from_text(pos, &token),
            Some(mv),
            "{}: {token}",
            where_()
        );
        if let Some(other) = game::find_move(pos, text) {
            assert_eq!(other, mv, "{}: {text} is another move's token", where_());
        }
        assert!(
            !text.is_empty()
                && !text.contains(|c: char| c.is_whitespace() || "{};$[]\"".contains(c))
                && !text.ends_with(['!', '?']),
            "{}: {text} is not one PGN word",
            where_()
        );
    }
    moves.len()
}

/// Every legal move of `starts`, of each start's children (a perft walk of
/// depth 1) and of the positions of `games` pseudo-random games of
/// `plies` plies from the variant's start: returns (positions, moves).
fn walk<V: Variant>(starts: &[Position<V>], games: usize, plies: usize) -> (usize, usize) {
    let (mut positions, mut moves) = (0, 0);
    for start in starts {
        positions += 1;
        moves += check_position(start);
        for mv in legal(start) {
            let mut child = *start;
            game::play(&mut child, mv);
            positions += 1;
            moves += check_position(&child);
        }
    }
    let mut next = common::xorshift(0x51_7CC1_B727_220A);
    for _ in 0..games {
        let mut pos = Position::<V>::startpos();
        for _ in 0..plies {
            let list = legal(&pos);
            if list.is_empty() {
                break;
            }
            positions += 1;
            moves += check_position(&pos);
            let mv = list[(next() % list.len() as u64) as usize];
            game::play(&mut pos, mv);
        }
    }
    (positions, moves)
}

/// The positions of `tests/data/<variant>_examples.json` (but for the one
/// Pacifist example whose FEN the rules refuse, tests/pacifist.rs says why).
fn example_positions<V: Variant>() -> Vec<Position<V>> {
    let path = format!(
        "{}/tests/data/{}_examples.json",
        env!("CARGO_MANIFEST_DIR"),
        V::NAME
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let entries: Vec<serde_json::Value> = serde_json::from_str(&text).expect("examples JSON");
    entries
        .iter()
        .filter_map(|e| fen::parse::<V>(e["fen"].as_str().expect("fen")).ok())
        .collect()
}

/// One text per move, read back as that move: every legal move of every
/// example position of the five conversion variants and of their children,
/// and along random games (the walk's sizes are the least it must reach, so
/// that a shrinking example file would show).
#[test]
fn one_text_per_move_read_back_as_it() {
    // Five games: since Black's moves are listed in the mirrored order
    // (`bitboards::mover_order`), four games of the walk reach 396 positions.
    let (p, m) = walk::<CowardlyCrew>(&example_positions(), 5, 60);
    assert!(
        p >= 400 && m >= 10_000,
        "cowardlycrew: {p} positions, {m} moves"
    );
    let (p, m) = walk::<Pacifist>(&example_positions(), 4, 60);
    assert!(p >= 650 && m >= 9_000, "pacifist: {p} positions, {m} moves");
    let (p, m) = walk::<AttendingPawns>(&example_positions(), 4, 60);
    assert!(
        p >= 450 && m >= 24_000,
        "attendingpawns: {p} positions, {m} moves"
    );
    let (p, m) = walk::<Subversion>(&example_positions(), 4, 60);
    assert!(
        p >= 350 && m >= 10_000,
        "subversion: {p} positions, {m} moves"
    );
    let (p, m) = walk::<CruisePawns>(&example_positions(), 4, 60);
    assert!(
        p >= 500 && m >= 14_000,
        "cruisepawns: {p} positions, {m} moves"
    );
    // SAN, and Cutechess's SAN, keep their own readers.
    let (p, _) = walk::<Chess>(&[Position::startpos()], 2, 60);
    assert!(p >= 21);
    let (p, _) = walk::<Andernach>(&[Position::startpos()], 2, 60);
    assert!(p >= 21);
}

/// A game of `plies` pseudo-random moves of `variant` from `start_fen`, as
/// tokens.
fn random_game(variant: VariantKind, start_fen: &str, plies: usize, seed: u64) -> Vec<String> {
    with_variant!(variant, V => {
        let mut pos = common::load::<V>(start_fen);
        let mut next = common::xorshift(seed);
        let mut tokens = Vec::new();
        for _ in 0..plies {
            let list = legal(&pos);
            if list.is_empty() {
                break;
            }
            let mv = list[(next() % list.len() as u64) as usize];
            tokens.push(game::token(&pos, mv));
            game::play(&mut pos, mv);
        }
        tokens
    })
}

fn record<'a>(
    variant: VariantKind,
    start_fen: &'a str,
    moves: &'a [String],
    notation: Notation,
) -> PgnRecord<'a> {
    PgnRecord {
        variant,
        start_fen,
        event: "e",
        site: "s",
        date: "2025.01.01",
        round: "1",
        white: "w",
        black: "b",
        result: "*",
        tags: Vec::new(),
        moves: moves.iter().map(|m| (m.as_str(), None)).collect(),
        final_comment: None,
        notation,
    }
}

/// The movetext of a written game, on one line.
fn movetext(pgn: &str) -> String {
    pgn.split("\n\n")
        .nth(1)
        .unwrap_or("")
        .trim()
        .replace('\n', " ")
}

/// A game written in readable text reads back, with both PGN readers, as the
/// same game as its tokens; the portable notation stays tokens.
#[test]
fn pgn_in_readable_text_is_the_game_of_its_tokens() {
    let starts = [
        (
            VariantKind::CowardlyCrew,
            "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1",
        ),
        (
            VariantKind::CowardlyCrew,
            VariantKind::CowardlyCrew.start_fen(),
        ),
        (VariantKind::Pacifist, VariantKind::Pacifist.start_fen()),
        (
            VariantKind::AttendingPawns,
            VariantKind::AttendingPawns.start_fen(),
        ),
        (
            VariantKind::Subversion,
            "7k/8/8/4r3/Q2N4/5B2/2B5/4K3 w - - 0 1",
        ),
        (VariantKind::Subversion, VariantKind::Subversion.start_fen()),
        (
            VariantKind::CruisePawns,
            "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7",
        ),
        (
            VariantKind::CruisePawns,
            VariantKind::CruisePawns.start_fen(),
        ),
    ];
    for (i, &(variant, start)) in starts.iter().enumerate() {
        let tokens = random_game(variant, start, 80, 0x2545_F491_4F6C_DD1D + i as u64);
        assert!(tokens.len() >= 10, "{variant}: {} plies", tokens.len());
        let readable = pgn::write_game(&record(variant, start, &tokens, Notation::Readable));
        let portable = pgn::write_game(&record(variant, start, &tokens, Notation::Portable));
        assert_eq!(readable.notation_stopped, None);
        let (texts, _) = notation::line_texts(variant, start, &tokens, Notation::Readable);
        for text in [&readable.text, &portable.text] {
            let games = pgn::read_pgn(text).expect("strict reader");
            assert_eq!(
                pgn::replay(&games[0]).expect("replay").tokens,
                tokens,
                "{text}"
            );
            let trees = pgn::read_pgn_tree(text).expect("tolerant reader");
            let tree = pgn::replay_tree(&trees[0]).expect("tree replay");
            let got: Vec<&str> = tree.moves.iter().map(|m| m.token.as_str()).collect();
            assert_eq!(got, tokens, "{text}");
            let shown: Vec<&str> = tree.moves.iter().map(|m| m.text.as_str()).collect();
            assert_eq!(shown, texts, "{text}");
        }
        // The portable notation of these variants is the tokens themselves.
        let written: Vec<String> = movetext(&portable.text)
            .split(' ')
            .filter(|w| !w.ends_with('.') && *w != "*")
            .map(|w| {
                w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                    .to_string()
            })
            .filter(|w| !w.is_empty())
            .collect();
        assert_eq!(written, tokens, "{variant}");
        assert_ne!(readable.text, portable.text, "{variant}");
    }
    // Exactly, from CC1.
    let moves: Vec<String> = ["d4e5", "h8g7"].map(String::from).to_vec();
    let cc1 = "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1";
    let readable = pgn::write_game(&record(
        VariantKind::CowardlyCrew,
        cc1,
        &moves,
        Notation::Readable,
    ));
    assert_eq!(movetext(&readable.text), "1. dxe5~2 Kg7 *");
    let portable = pgn::write_game(&record(
        VariantKind::CowardlyCrew,
        cc1,
        &moves,
        Notation::Portable,
    ));
    assert_eq!(movetext(&portable.text), "1. d4e5 h8g7 *");
    // Written by hand: no check marks, glyphs, both notations mixed.
    let text =
        "[Variant \"cruisepawns\"]\n[FEN \"3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7\"]\n\n\
                1... Bx*f6!? 2. Ka2 Kg8 3. Kb3 Kh8 *\n";
    let game = &pgn::read_pgn(text).expect("read")[0];
    assert_eq!(
        pgn::replay(game).expect("replay").tokens,
        ["d8f6", "a1a2", "h8g8", "a2b3", "g8h8"]
    );
    // `*Kh8` (a reply to a missile) where no missile flies names no move.
    let text = text.replace("Kh8", "*Kh8");
    let game = &pgn::read_pgn(&text).expect("read")[0];
    assert!(pgn::replay(game).is_err());
}

fn say<V: Variant>(fen_text: &str, token: &str) -> String {
    let pos = common::load::<V>(fen_text);
    sentence::say(&pos, find(&pos, token))
}

/// The words of each kind of move.
#[test]
fn each_move_said_in_words() {
    let cp = "4k3/3p4/8/8/8/8/8/K7 b - - 0 1 e5*e6d7";
    assert_eq!(
        say::<CruisePawns>(cp, "d7e6"),
        "the pawn on d7 shoots the missile down on e6"
    );
    let cp = "6k1/5b2/8/8/8/8/8/K7 b - - 0 1 e4*e5e6f7";
    assert_eq!(
        say::<CruisePawns>(cp, "g8h8"),
        "the missile detonates on f7: the bishop is removed; the king on g8 goes to h8"
    );
    assert_eq!(
        say::<CruisePawns>("7r/P7/8/8/8/8/8/K6k w - - 0 1 -", "a7*b8c8d8e8f8g8h8"),
        "the pawn on a7 flies b8-c8-d8-e8-f8-g8-h8 at the rook on h8"
    );
    assert_eq!(
        say::<CruisePawns>("7r/P7/8/8/8/8/8/K6k w - - 0 1 -", "a7*"),
        "the pawn on a7 detonates itself"
    );
    assert_eq!(
        say::<CruisePawns>("7k/8/8/8/8/7K/1p6/3r4 b - - 0 1 a3*a2b1c1d1", "b2c1q"),
        "the pawn on b2 shoots the missile down on c1 and promotes to a queen"
    );
    // PF1: seven pieces in four rounds; PF22: two in two; one by name.
    let pf1 = "rkqn1rb1/ppppppbp/P7/1n4p1/8/4N3/1PPPPPPP/RNK1BBQR w - - 0 1";
    assert_eq!(
        say::<Pacifist>(pf1, "e3f5"),
        "the knight on e3 goes to f5; 7 pieces change colour in 4 rounds"
    );
    assert_eq!(
        say::<Pacifist>(pf1, "b1c3"),
        "the knight on b1 goes to c3; the knight on b5 changes colour"
    );
    assert_eq!(
        say::<Pacifist>("7k/3n4/2p5/8/8/3N4/8/7K w - - 0 1", "d3b4"),
        "the knight on d3 goes to b4; 2 pieces change colour in 2 rounds"
    );
    // Three pieces in two rounds: knight f5 converts e7 and g7 (round 1),
    // which then outnumber f8's defenders (none; round 2).
    assert_eq!(
        say::<Pacifist>("5r2/4p1p1/8/8/8/4N3/8/K6k w - - 0 1", "e3f5"),
        "the knight on e3 goes to f5; 3 pieces change colour in 2 rounds"
    );
    assert_eq!(
        say::<Pacifist>("k2r4/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1"),
        "White castles queen-side; 2 pieces change colour in 2 rounds"
    );
    // Subversions: each price.
    assert_eq!(
        say::<Subversion>("4k3/8/8/8/8/2n5/1N4PP/4K3 w - - 0 1", "@c3,g2"),
        "the knight on c3 is subverted for a pawn"
    );
    assert_eq!(
        say::<Subversion>("4k3/8/8/4r3/3B4/8/6PP/4K3 w - - 0 1", "@e5,g2,h2,d4"),
        "the rook on e5 is subverted for a bishop and 2 pawns"
    );
    assert_eq!(
        say::<Subversion>("7k/8/8/4r3/Q2N4/5B2/2B5/4K3 w - - 0 1", "@e5,c2,f3"),
        "the rook on e5 is subverted for 2 bishops"
    );
    assert_eq!(
        say::<Subversion>("7k/8/8/4q3/3N4/8/6PP/R1B1K3 w - - 0 1", "@e5,a1,c1,d4"),
        "the queen on e5 is subverted for a rook, a bishop and a knight"
    );
    // Cowardly Crew: both forms; en passant.
    let cc1 = "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1";
    assert_eq!(
        say::<CowardlyCrew>(cc1, "d4e5"),
        "the pawn on d4 takes the knight on e5; 2 pieces change colour"
    );
    assert_eq!(
        say::<CowardlyCrew>(cc1, "d4e5,n"),
        "the pawn on d4 takes the knight on e5; 2 pieces keep their colour"
    );
    assert_eq!(
        say::<CowardlyCrew>("rq6/nP6/6k1/8/8/8/8/7K w - - 0 1", "b7a8q"),
        "the pawn on b7 takes the rook on a8 and promotes to a queen; the knight on a7 changes colour"
    );
    // Attending Pawns: relocations, castling with two pawns, a new pawn, a
    // relocation's capture, en passant.
    assert_eq!(
        say::<AttendingPawns>(AttendingPawns::START_FEN, "b1c3,b2d3"),
        "the knight on b1 goes to c3; the pawn on b2 goes to d3"
    );
    assert_eq!(
        say::<AttendingPawns>(AttendingPawns::START_FEN, "b1c3,b2b2"),
        "the knight on b1 goes to c3; the pawn on b2 stays"
    );
    assert_eq!(
        say::<AttendingPawns>(
            "4k3/8/8/8/8/8/4PPPP/4K2R w K - 0 1 e1e2,h1h2",
            "e1g1,e2h1,h2e1"
        ),
        "White castles king-side; the pawn on e2 goes to h1; the pawn on h2 goes to e1"
    );
    assert_eq!(
        say::<AttendingPawns>("5r2/4P3/8/7k/8/8/8/K6N w - - 0 1 h1e7", "e7e8q,d7"),
        "the pawn on e7 goes to e8 and promotes to a queen; a new pawn appears on d7"
    );
    assert_eq!(
        say::<AttendingPawns>("7k/pnp5/1N6/8/8/8/7P/4K3 w - - 0 1 b6h2,b7c7", "b6a8,h2b7"),
        "the knight on b6 goes to a8; the pawn on h2 goes to b7 and takes the knight"
    );
    assert_eq!(
        say::<AttendingPawns>("7k/8/8/1p1pP3/2P5/8/P7/K7 w - d6 0 1 a1a2", "e5d6"),
        "the pawn on e5 takes the pawn on d5 en passant"
    );
    // Andernach: the capturer changes colour; chess says what moved.
    assert_eq!(
        say::<Andernach>("4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1", "c3d5"),
        "the knight on c3 takes the pawn on d5; the knight on d5 changes colour"
    );
    assert_eq!(
        say::<Chess>(Chess::START_FEN, "g1f3"),
        "the knight on g1 goes to f3"
    );
}

/// Move numbers past 32 bits: from the largest fullmove number a FEN may
/// carry, the writers number on (4294967296), both for a line and for a tree
/// with a variation, and a FEN's fullmove 0 numbers from 1 as the FEN reader
/// reads it.
#[test]
fn pgn_move_numbers_past_32_bits() {
    let start = "4k3/8/8/8/8/8/8/4K3 b - - 0 4294967295";
    let moves: Vec<String> = ["e8d8", "e1d1", "d8e8"].map(String::from).to_vec();
    let written = pgn::write_game(&record(
        VariantKind::Chess,
        start,
        &moves,
        Notation::Readable,
    ));
    assert_eq!(
        movetext(&written.text),
        "4294967295... Kd8 4294967296. Kd1 Ke8 *"
    );
    let text = format!(
        "[FEN \"{start}\"]\n\n4294967295... Kd8 4294967296. Kd1 (4294967296. Ke2 Kc7) Ke8 *\n"
    );
    let game = &pgn::read_pgn_tree(&text).expect("read")[0];
    let tree = pgn::replay_tree(game).expect("replay");
    let written = pgn::write_game_tree(
        &record(VariantKind::Chess, start, &moves, Notation::Readable),
        &tree.moves,
    )
    .expect("write");
    assert_eq!(
        movetext(&written.text),
        "4294967295... Kd8 4294967296. Kd1 (4294967296. Ke2 Kc7) 4294967296... Ke8 *"
    );
    let zero = "4k3/8/8/8/8/8/8/4K3 w - - 0 0";
    let moves: Vec<String> = ["e1d1", "e8d8"].map(String::from).to_vec();
    let written = pgn::write_game(&record(
        VariantKind::Chess,
        zero,
        &moves,
        Notation::Readable,
    ));
    assert_eq!(movetext(&written.text), "1. Kd1 Kd8 *");
}
