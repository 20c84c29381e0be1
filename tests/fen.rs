//! FEN round trips, canonical printing and rejection messages (standard chess).

use turncoat::rules::fen;
use turncoat::rules::game::{self, Game, Outcome};
use turncoat::rules::position::Position;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::Variant;

fn parse(s: &str) -> Result<Position<Chess>, String> {
    fen::parse::<Chess>(s).map_err(|e| e.to_string())
}

#[test]
fn round_trips() {
    for s in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 12 40",
    ] {
        assert_eq!(fen::format(&parse(s).expect(s)), s);
    }
}

#[test]
fn canonical_printing() {
    // Four fields are accepted; clocks default to 0 1.
    let p = parse("8/8/8/8/8/8/8/K6k w - -").expect("4 fields");
    assert_eq!(fen::format(&p), "8/8/8/8/8/8/8/K6k w - - 0 1");
    // An en passant square no pawn can take on is dropped (docs/RULES.md).
    let p = parse("rnbqkbnr/pppp1ppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 2").expect("ep");
    assert_eq!(
        fen::format(&p),
        "rnbqkbnr/pppp1ppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 2"
    );
    let p = parse("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").expect("ep");
    assert_eq!(
        fen::format(&p),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    // Castling rights without king and rook at home are dropped silently.
    let p = parse("4k3/8/8/8/8/8/8/R4K1R w KQkq - 0 1").expect("rights");
    assert_eq!(fen::format(&p), "4k3/8/8/8/8/8/8/R4K1R w - - 0 1");
    // After a double step the e.p. square appears only when it can be taken.
    let mut g = Game::new(parse("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1").expect("ok"));
    g.play_token("e2e4").expect("legal");
    assert_eq!(fen::format(&g.pos), "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
}

#[test]
fn rejections_say_what_is_wrong() {
    let cases = [
        ("", "4 to 7"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "8 ranks"),
        (
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "bad empty-square count",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
            "bad piece letter",
        ),
        (
            "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "more than 8",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "side to move",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1",
            "castling",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
            "en passant",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
            "not on rank 6",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
            "halfmove",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 y",
            "fullmove",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1",
            "white has 0 kings",
        ),
        ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "white has 2 kings"),
        ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "not to move is in check"),
        ("P3k3/8/8/8/8/8/8/6K1 w - - 0 1", "pawn on a8"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
            "no seventh",
        ),
    ];
    for (s, needle) in cases {
        match parse(s) {
            Ok(_) => panic!("accepted bad FEN '{s}'"),
            Err(e) => assert!(e.contains(needle), "'{s}': message '{e}' lacks '{needle}'"),
        }
    }
}

#[test]
fn incremental_key_matches_scratch_and_repetition() {
    let start = Position::<Chess>::startpos();
    // The start with Black to move is the start's colour flip: its key is the
    // flipped key (the halves swapped), not the same one.
    let black_first: Position<Chess> =
        fen::parse(&Chess::START_FEN.replacen(" w ", " b ", 1)).expect("Black to move");
    assert_eq!(black_first.key(), start.key().rotate_left(32));
    assert_ne!(black_first.key(), start.key());
    let mut g = Game::new(start);
    for t in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"] {
        g.play_token(t).expect(t);
        assert_eq!(g.pos.key(), g.pos.compute_key());
        assert_eq!(g.outcome(), None);
    }
    g.play_token("f6g8").expect("legal");
    assert_eq!(g.repetitions(), 3);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw {
            reason: "threefold repetition"
        })
    );
    // A token that is not legal changes nothing.
    let before = g.pos;
    assert!(g.play_token("e2e5").is_err());
    assert!(g.play_token("E2E4").is_err());
    assert!(g.play_token("e1h1").is_err());
    assert_eq!(g.pos, before);
}

#[test]
fn game_end_rules() {
    let mate = parse("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1").expect("ok");
    let mut g = Game::new(mate);
    g.play_token("d1d8").expect("legal");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: shakmaty::Color::White,
            reason: "checkmate"
        })
    );
    let stalemate = Game::new(parse("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").expect("ok"));
    assert_eq!(
        stalemate.outcome(),
        Some(Outcome::Draw {
            reason: "stalemate"
        })
    );
    let fifty = Game::new(parse("7k/8/6K1/8/8/8/8/R7 w - - 100 80").expect("ok"));
    assert_eq!(
        fifty.outcome(),
        Some(Outcome::Draw {
            reason: "50-move rule"
        })
    );
    let bare = Game::new(parse("7k/8/6K1/8/8/8/8/N7 w - - 0 1").expect("ok"));
    assert_eq!(
        bare.outcome(),
        Some(Outcome::Draw {
            reason: "insufficient material"
        })
    );
    // Castling is written king from-to, and only that way.
    let castle = parse("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").expect("ok");
    assert!(game::find_move(&castle, "e1g1").is_some());
    assert!(game::find_move(&castle, "e1h1").is_none());
}

/// Move numbers count in 64 bits: from the largest 32-bit fullmove number,
/// Black's move makes it 4294967296, not 0 (a 32-bit count wrapped there, or
/// panicked in a debug build), and that FEN reads back. The reader takes up to
/// `MAX_FULLMOVES` (2^52) and refuses one past it.
#[test]
fn fullmove_number_past_32_bits() {
    let mut g = Game::new(parse("4k3/8/8/8/8/8/8/4K3 b - - 0 4294967295").expect("largest"));
    assert_eq!(g.pos.fullmoves(), 4_294_967_295);
    g.play_token("e8d8").expect("legal");
    assert_eq!(g.pos.fullmoves(), 4_294_967_296);
    assert_eq!(
        fen::format(&g.pos),
        "3k4/8/8/8/8/8/8/4K3 w - - 1 4294967296"
    );
    g.play_token("e1d1").expect("legal");
    g.play_token("d8e8").expect("legal");
    assert_eq!(
        fen::format(&g.pos),
        "4k3/8/8/8/8/8/8/3K4 w - - 3 4294967297"
    );
    let written = fen::format(&g.pos);
    assert_eq!(fen::format(&parse(&written).expect("reads back")), written);
    assert_eq!(fen::MAX_FULLMOVES, 4_503_599_627_370_496);
    let last = parse("4k3/8/8/8/8/8/8/4K3 b - - 0 4503599627370496").expect("the largest");
    assert_eq!(last.fullmoves(), 4_503_599_627_370_496);
    assert_eq!(
        parse("4k3/8/8/8/8/8/8/4K3 b - - 0 4503599627370497").unwrap_err(),
        "bad fullmove number '4503599627370497'"
    );
}
