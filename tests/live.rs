//! The rules' face for front ends (`rules::live`): legal moves with their
//! tokens, texts and squares; what each kind of move does, per variant, with
//! the values docs/RULES.md's worked examples give; the variant state as data;
//! refusals as typed errors. A last check plays every example of tests/data and
//! long random games, and rebuilds each position from the one before and the
//! effects alone.

mod common;

use std::collections::BTreeMap;

use serde_json::Value;
use shakmaty::{Color, Piece, Role, Square};
use turncoat::rules::fen::FenError;
use turncoat::rules::game::{MoveError, Outcome, SetupError};
use turncoat::rules::live::{
    Action, Effects, Extra, Flight, LiveGame, MissileEvent, MoveInfo, Removal, Start, VariantState,
    Why,
};
use turncoat::rules::variants::VariantKind;

use Square::*;

fn game(variant: VariantKind, fen: &str) -> LiveGame {
    LiveGame::new(variant, Start::Fen(fen)).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Plays `token` and returns what the game recorded for it.
fn play(g: &mut LiveGame, token: &str) -> (MoveInfo, Effects) {
    let played = g
        .play(token)
        .unwrap_or_else(|e| panic!("{token}: {e}"))
        .clone();
    (played.info, played.effects)
}

fn legal(g: &LiveGame, token: &str) -> MoveInfo {
    g.legal_moves()
        .into_iter()
        .find(|m| m.token == token)
        .unwrap_or_else(|| panic!("{token} is not legal in {}", g.fen()))
}

fn mv(from: Square, to: Square) -> Action {
    Action::Move {
        from,
        to,
        promotion: None,
    }
}

fn removal(square: Square, color: Color, role: Role, why: Why) -> Removal {
    Removal {
        square,
        piece: Piece { color, role },
        why,
    }
}

fn emptied(g: &LiveGame) -> Vec<Square> {
    g.history().last().expect("a move").emptied()
}

// ----- standard chess -----

#[test]
fn chess_moves_have_san_and_squares() {
    let g = LiveGame::new(VariantKind::Chess, Start::Startpos).unwrap();
    let moves = g.legal_moves();
    assert_eq!(moves.len(), 20);
    assert_eq!(
        legal(&g, "g1f3"),
        MoveInfo {
            token: "g1f3".into(),
            text: "Nf3".into(),
            squares: vec![G1, F3],
            action: mv(G1, F3),
            extras: vec![],
        }
    );
    assert_eq!(g.start_ply(), 0);
    assert_eq!(g.state(), VariantState::None);

    // Fool's mate: SAN with the mate sign, the checked king, the outcome.
    let g = LiveGame::with_moves(
        VariantKind::Chess,
        Start::Startpos,
        &["f2f3", "e7e5", "g2g4", "d8h4"],
    )
    .unwrap();
    assert_eq!(g.history()[3].info.text, "Qh4#");
    assert!(g.in_check());
    assert_eq!(g.checked_king(), Some(E1));
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: "checkmate"
        })
    );
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.tokens(), ["f2f3", "e7e5", "g2g4", "d8h4"]);
}

#[test]
fn chess_effects_of_castling_en_passant_and_promotion() {
    // Castling moves the king and the rook; nothing is removed, so the rook's
    // start square is not marked emptied.
    let mut g = game(VariantKind::Chess, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let (info, fx) = play(&mut g, "e1g1");
    assert_eq!(info.text, "O-O");
    assert_eq!(fx.moved, [(E1, G1), (H1, F1)]);
    assert!(fx.removed.is_empty());
    assert_eq!(emptied(&g), []);

    // En passant removes the pawn beside the target, which stays empty.
    let mut g = game(VariantKind::Chess, "7k/8/8/3pP3/8/8/8/K7 w - d6 0 1");
    let (info, fx) = play(&mut g, "e5d6");
    assert_eq!(info.text, "exd6");
    assert_eq!(fx.moved, [(E5, D6)]);
    assert_eq!(
        fx.removed,
        [removal(D5, Color::Black, Role::Pawn, Why::Captured)]
    );
    assert_eq!(emptied(&g), [D5]);

    // A capturing promotion: the captured rook's square is the new queen's.
    let mut g = game(VariantKind::Chess, "r6k/1P6/8/8/8/8/8/K7 w - - 0 1");
    assert_eq!(
        legal(&g, "b7a8q").action,
        Action::Move {
            from: B7,
            to: A8,
            promotion: Some(Role::Queen)
        }
    );
    let (info, fx) = play(&mut g, "b7a8q");
    assert_eq!(info.text, "bxa8=Q+");
    assert_eq!(fx.promoted, Some((A8, Role::Queen)));
    assert_eq!(
        fx.removed,
        [removal(A8, Color::Black, Role::Rook, Why::Captured)]
    );
    assert_eq!(emptied(&g), []);
    assert_eq!(g.checked_king(), Some(H8));
}

#[test]
fn refusals_are_typed() {
    assert_eq!(
        LiveGame::new(VariantKind::Chess, Start::Fen("8/8/8/8/8/8/8/8 w - - 0 1")).unwrap_err(),
        FenError::KingCount {
            color: Color::White,
            count: 0
        }
    );
    assert_eq!(
        LiveGame::new(VariantKind::Chess, Start::Fen("not a fen")).unwrap_err(),
        FenError::FieldCount { found: 3 }
    );

    // A refused token changes nothing and says which moves leave that square.
    let mut g = LiveGame::new(VariantKind::Chess, Start::Startpos).unwrap();
    let start = g.fen();
    let e = g.play("e2e5").unwrap_err();
    assert_eq!(
        e,
        MoveError::FromSquare {
            token: "e2e5".into(),
            fen: start.clone(),
            moves: vec!["e2e3".into(), "e2e4".into()],
        }
    );
    assert_eq!(
        e.to_string(),
        format!("illegal move 'e2e5' in {start}: the legal moves from that square are e2e3, e2e4")
    );
    assert_eq!(g.fen(), start);
    assert!(g.history().is_empty());

    // The setup names the refused move by its index.
    let e = LiveGame::with_moves(
        VariantKind::Chess,
        Start::Startpos,
        &["e2e4", "e7e5", "e4e5"],
    )
    .unwrap_err();
    assert!(
        matches!(&e, SetupError::Move { index: 2, error: MoveError::Unknown { stem, in_check: false, .. } } if stem == "e4e5"),
        "{e:?}"
    );

    // Attending Pawns: a celebrity move without its pawn's extra.
    let mut g = LiveGame::new(VariantKind::AttendingPawns, Start::Startpos).unwrap();
    match g.play("g1f3").unwrap_err() {
        MoveError::DidYouMean { candidates, .. } => {
            let mut c = candidates;
            c.sort();
            assert_eq!(
                c,
                [
                    "g1f3,g2e3",
                    "g1f3,g2e4",
                    "g1f3,g2f4",
                    "g1f3,g2g2",
                    "g1f3,g2g3",
                    "g1f3,g2g4"
                ]
            );
        }
        other => panic!("{other:?}"),
    }
    // Subversion: nothing can be subverted from the start.
    let mut g = LiveGame::new(VariantKind::Subversion, Start::Startpos).unwrap();
    assert!(matches!(
        g.play("@d5,a2").unwrap_err(),
        MoveError::Unknown { stem, in_check: false, .. } if stem == "@d5"
    ));
    // A bad seventh field.
    assert_eq!(
        LiveGame::new(
            VariantKind::CruisePawns,
            Start::Fen("7r/8/8/8/8/8/8/K6k b - - 0 1 a5*b6c4")
        )
        .unwrap_err()
        .to_string(),
        "bad missile field 'a5*b6c4': c4 is not a neighbour of b6"
    );
}

#[test]
fn undo_restores_the_position_and_the_history() {
    let mut g = LiveGame::new(VariantKind::Pacifist, Start::Startpos).unwrap();
    play(&mut g, "e2e4");
    let after_e4 = g.fen();
    play(&mut g, "d7d5");
    assert_eq!(g.history()[1].effects.converted, [E4]);
    let undone = g.undo().expect("a move to undo");
    assert_eq!(undone.info.token, "d7d5");
    assert_eq!(g.fen(), after_e4);
    assert_eq!(g.tokens(), ["e2e4"]);
    g.undo();
    assert!(g.undo().is_none());
    assert_eq!(
        g.fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
}

// ----- the variants, on docs/RULES.md's worked examples -----

#[test]
fn cowardly_crew_conversions_and_the_spare_form() {
    // CC1: d4e5 converts d6 and f6; d4e5,n nothing.
    let fen = "7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1";
    let g = game(VariantKind::CowardlyCrew, fen);
    assert_eq!(
        legal(&g, "d4e5,n"),
        MoveInfo {
            token: "d4e5,n".into(),
            text: "dxe5".into(),
            squares: vec![D4, E5],
            action: mv(D4, E5),
            extras: vec![Extra::Spare],
        }
    );
    let mut g = game(VariantKind::CowardlyCrew, fen);
    let (_, fx) = play(&mut g, "d4e5");
    assert_eq!(fx.moved, [(D4, E5)]);
    assert_eq!(fx.converted, [D6, F6]);
    assert!(fx.cascade.is_empty());
    assert_eq!(
        fx.removed,
        [removal(E5, Color::Black, Role::Knight, Why::Captured)]
    );
    let mut g = game(VariantKind::CowardlyCrew, fen);
    let (info, fx) = play(&mut g, "d4e5,n");
    assert_eq!(info.text, "dxe5");
    assert!(fx.converted.is_empty());
    // The spared pieces: the same as the plain form would convert.
    assert_eq!(fx.spared, [D6, F6]);
    assert_eq!(
        g.history()[0].said,
        "the pawn on d4 takes the knight on e5; 2 pieces keep their colour"
    );
}

#[test]
fn subversion_pays_and_converts() {
    // SV3: the checking rook e5 for N + every pawn.
    let fen = "7k/8/8/2p1r3/3N4/8/6PP/RNB1K3 w - - 0 1";
    let g = game(VariantKind::Subversion, fen);
    let info = legal(&g, "@e5,g2,h2,d4");
    assert_eq!(
        info.action,
        Action::Subvert {
            target: E5,
            paid: vec![G2, H2, D4]
        }
    );
    assert_eq!(info.squares, [E5, G2, H2, D4]);
    assert_eq!(info.action.origin(), None);
    let mut g = game(VariantKind::Subversion, fen);
    let (_, fx) = play(&mut g, "@e5,g2,h2,d4");
    assert!(fx.moved.is_empty());
    assert_eq!(fx.converted, [E5]);
    assert_eq!(
        fx.removed,
        [
            removal(G2, Color::White, Role::Pawn, Why::Paid),
            removal(H2, Color::White, Role::Pawn, Why::Paid),
            removal(D4, Color::White, Role::Knight, Why::Paid),
        ]
    );
    assert_eq!(emptied(&g), [G2, H2, D4]);
}

#[test]
fn attending_pawns_relocations_creations_and_links() {
    let start = LiveGame::new(VariantKind::AttendingPawns, Start::Startpos).unwrap();
    let VariantState::Links(links) = start.state() else {
        panic!("links")
    };
    assert_eq!(links.len(), 16);
    assert_eq!(links[0], (A1, A2));
    assert_eq!(
        legal(&start, "b1c3,b2d3"),
        MoveInfo {
            token: "b1c3,b2d3".into(),
            text: "Nc3/b2-d3".into(),
            squares: vec![B1, C3, B2, D3],
            action: mv(B1, C3),
            extras: vec![Extra::Relocate { from: B2, to: D3 }],
        }
    );
    let mut g = start.clone();
    let (_, fx) = play(&mut g, "b1c3,b2d3");
    assert_eq!(fx.moved, [(B1, C3), (B2, D3)]);
    assert!(fx.removed.is_empty());
    let VariantState::Links(links) = g.state() else {
        panic!("links")
    };
    assert!(links.contains(&(C3, D3)));

    // AP5: castling, the king's pawn first, then the rook's.
    let mut g = game(
        VariantKind::AttendingPawns,
        "4k3/8/8/8/8/8/4PPPP/4K2R w K - 0 1 e1e2,h1h2",
    );
    let (info, fx) = play(&mut g, "e1g1,e2h1,h2e1");
    assert_eq!(info.squares, [E1, G1, E2, H1, H2, E1]);
    assert_eq!(
        info.extras,
        [
            Extra::Relocate { from: E2, to: H1 },
            Extra::Relocate { from: H2, to: E1 }
        ]
    );
    assert_eq!(fx.moved, [(E1, G1), (H1, F1), (E2, H1), (H2, E1)]);
    assert_eq!(g.state(), VariantState::Links(vec![(F1, E1), (G1, H1)]));

    // AP4: the pawn captures on its placement square.
    let mut g = game(
        VariantKind::AttendingPawns,
        "7k/pnp5/1N6/8/8/8/7P/4K3 w - - 0 1 b6h2,b7c7",
    );
    let (_, fx) = play(&mut g, "b6a8,h2b7");
    assert_eq!(fx.moved, [(B6, A8), (H2, B7)]);
    assert_eq!(
        fx.removed,
        [removal(B7, Color::Black, Role::Knight, Why::Captured)]
    );
    assert_eq!(emptied(&g), []);
    assert_eq!(g.state(), VariantState::Links(vec![(A8, B7)]));

    // AP8: a promotion creates the new celebrity's pawn.
    let mut g = game(
        VariantKind::AttendingPawns,
        "5r2/4P3/8/7k/8/8/8/K6N w - - 0 1 h1e7",
    );
    let (info, fx) = play(&mut g, "e7f8n,g7");
    assert_eq!(info.extras, [Extra::Create { at: G7 }]);
    assert_eq!(info.squares, [E7, F8, G7]);
    assert_eq!(fx.moved, [(E7, F8)]);
    assert_eq!(fx.promoted, Some((F8, Role::Knight)));
    assert_eq!(fx.created, [G7]);
    assert_eq!(
        fx.removed,
        [removal(F8, Color::Black, Role::Rook, Why::Captured)]
    );
    assert_eq!(g.state(), VariantState::Links(vec![(F8, G7)]));
}

#[test]
fn cruise_pawns_launch_detonate_and_shoot_down() {
    // CP1: a launch leaves the missile in flight; the target still stands.
    let fen = "7r/P7/8/8/8/8/8/K6k w - - 0 1 -";
    let mut g = game(VariantKind::CruisePawns, fen);
    assert_eq!(g.state(), VariantState::None);
    let path = vec![B8, C8, D8, E8, F8, G8, H8];
    let flight = Flight {
        launch: A7,
        path: path.clone(),
        target: H8,
        shootable: vec![B8, C8, D8, E8, F8, G8],
    };
    let (info, fx) = play(&mut g, "a7*b8c8d8e8f8g8h8");
    assert_eq!(info.action, Action::Launch { from: A7, path });
    assert_eq!(info.squares, [A7, B8, C8, D8, E8, F8, G8, H8]);
    assert_eq!(fx.missile, [MissileEvent::Launched(flight.clone())]);
    assert!(fx.removed.is_empty() && fx.moved.is_empty());
    assert_eq!(g.state(), VariantState::Missile(flight));

    // Self-detonation: the pawn is gone; its own square is not marked.
    let mut g = game(VariantKind::CruisePawns, fen);
    let (info, fx) = play(&mut g, "a7*");
    assert_eq!(
        info.action,
        Action::Launch {
            from: A7,
            path: vec![]
        }
    );
    assert_eq!(
        fx.removed,
        [removal(A7, Color::White, Role::Pawn, Why::SelfDetonated)]
    );
    assert!(fx.missile.is_empty());
    assert_eq!(emptied(&g), []);

    // CP10: missile e4 -> e5 f6 g7 in flight at knight g7.
    let fen = "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7";
    let flight = Flight {
        launch: E4,
        path: vec![E5, F6, G7],
        target: G7,
        shootable: vec![E5, F6],
    };
    let g = game(VariantKind::CruisePawns, fen);
    assert_eq!(g.state(), VariantState::Missile(flight.clone()));
    // A shoot-down: the target survives.
    let mut g = game(VariantKind::CruisePawns, fen);
    let (_, fx) = play(&mut g, "d8f6");
    assert_eq!(fx.moved, [(D8, F6)]);
    assert!(fx.removed.is_empty());
    assert_eq!(
        fx.missile,
        [MissileEvent::ShotDown {
            flight: flight.clone(),
            at: F6
        }]
    );
    assert_eq!(g.state(), VariantState::None);
    // Any other reply: the missile detonates first.
    let mut g = game(VariantKind::CruisePawns, fen);
    let (_, fx) = play(&mut g, "d8g5");
    assert_eq!(fx.moved, [(D8, G5)]);
    assert_eq!(
        fx.removed,
        [removal(G7, Color::Black, Role::Knight, Why::BlownUp)]
    );
    assert_eq!(fx.missile, [MissileEvent::Detonated(flight.clone())]);
    assert_eq!(emptied(&g), [G7]);
    // The reply may be a self-detonation of its own.
    let mut g = game(VariantKind::CruisePawns, fen);
    let (_, fx) = play(&mut g, "d6*");
    assert_eq!(
        fx.removed,
        [
            removal(G7, Color::Black, Role::Knight, Why::BlownUp),
            removal(D6, Color::Black, Role::Pawn, Why::SelfDetonated)
        ]
    );
    assert_eq!(emptied(&g), [G7]);
}

#[test]
fn pacifist_cascades_by_round() {
    // PF1: e3f5's cascade in four rounds.
    let mut g = game(
        VariantKind::Pacifist,
        "rkqn1rb1/ppppppbp/P7/1n4p1/8/4N3/1PPPPPPP/RNK1BBQR w - - 0 1",
    );
    let (_, fx) = play(&mut g, "e3f5");
    assert_eq!(fx.moved, [(E3, F5)]);
    assert_eq!(
        fx.cascade,
        [vec![E7, G7], vec![F8], vec![D8, G8], vec![F7, H7]]
    );
    assert_eq!(fx.converted, [E7, F7, G7, H7, D8, F8, G8]);
    assert!(fx.removed.is_empty());

    // PF22: c6 in round 1, then d7 once the new white pawn attacks it.
    let mut g = game(VariantKind::Pacifist, "7k/3n4/2p5/8/8/3N4/8/7K w - - 0 1");
    let (_, fx) = play(&mut g, "d3b4");
    assert_eq!(fx.cascade, [vec![C6], vec![D7]]);

    // PF35: castling, then rook d8 converts, then king a8.
    let mut g = game(VariantKind::Pacifist, "k2r4/8/8/8/8/8/8/R3K3 w Q - 0 1");
    let (info, fx) = play(&mut g, "e1c1");
    assert_eq!(info.text, "O-O-O#~2");
    assert_eq!(fx.moved, [(E1, C1), (A1, D1)]);
    assert_eq!(fx.cascade, [vec![D8], vec![A8]]);

    // PF3: eight rounds, the black king among the converted; PF4: Black lost.
    let mut g = game(
        VariantKind::Pacifist,
        "1rknn1br/p1pp1p1p/3bp1p1/1p1q2n1/5p2/2P4B/pP1PP1PP/B1RKR1QN w - - 0 1",
    );
    let (_, fx) = play(&mut g, "g1b6");
    assert_eq!(fx.cascade.len(), 8);
    assert!(fx.converted.contains(&C8));
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: "all kings converted"
        })
    );
    // Having no king is Pacifist's check; there is no king to mark.
    assert!(g.in_check());
    assert_eq!(g.checked_king(), None);

    // A quiet move converts nothing: no cascade at all.
    let mut g = LiveGame::new(VariantKind::Pacifist, Start::Startpos).unwrap();
    let (_, fx) = play(&mut g, "e2e4");
    assert!(fx.cascade.is_empty() && fx.converted.is_empty());
}

// ----- every example and long random games: the effects rebuild the board -----

type Pieces = BTreeMap<Square, Piece>;

fn pieces(g: &LiveGame) -> Pieces {
    let board = g.board();
    Square::ALL
        .into_iter()
        .filter_map(|sq| board.piece_at(sq).map(|p| (sq, p)))
        .collect()
}

/// The board after a move, from the board before it and the move's effects
/// alone; each step checks what it finds.
fn apply(before: &Pieces, mover: Color, info: &MoveInfo, fx: &Effects) -> Pieces {
    let mut b = before.clone();
    for r in &fx.removed {
        assert_eq!(
            b.remove(&r.square),
            Some(r.piece),
            "{}: removed {r:?}",
            info.token
        );
    }
    for event in &fx.missile {
        if let MissileEvent::Launched(f) = event {
            let pawn = b.remove(&f.launch);
            assert_eq!(pawn, Some(mover.pawn()), "{}: launch", info.token);
        }
    }
    for &(from, to) in &fx.moved {
        let piece = b.remove(&from);
        let piece = piece.unwrap_or_else(|| panic!("{}: nothing on {from}", info.token));
        assert!(
            b.insert(to, piece).is_none(),
            "{}: {to} occupied",
            info.token
        );
    }
    if let Some((sq, role)) = fx.promoted {
        b.get_mut(&sq).expect("promoted piece").role = role;
    }
    for &sq in &fx.created {
        assert!(b.insert(sq, mover.pawn()).is_none(), "{}: {sq}", info.token);
    }
    for &sq in &fx.converted {
        // A piece changes sides: an enemy piece to the mover's (conversion,
        // subversion, persuasion), or in the Andernach variants the mover's
        // own piece to the other side once it has moved.
        let p = b.get_mut(&sq).expect("converted piece");
        p.color = !p.color;
    }
    assert_eq!(
        fx.cascade.iter().flatten().count(),
        if fx.cascade.is_empty() {
            0
        } else {
            fx.converted.len()
        }
    );
    b
}

/// The squares a token names, read from its text: what the web board did
/// before the face gave them.
fn token_squares(token: &str) -> Vec<Square> {
    let b = token.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if (b'a'..=b'h').contains(&b[i]) && (b'1'..=b'8').contains(&b[i + 1]) {
            out.push(token[i..i + 2].parse().expect("square"));
            i += 2;
        } else {
            i += 1;
        }
    }
    out
}

/// Plays `token` and checks the effects against the position the rules reach,
/// and the move's squares against its token.
fn check_move(g: &mut LiveGame, token: &str) {
    let before = pieces(g);
    let mover = g.side_to_move();
    let (info, fx) = play(g, token);
    assert_eq!(info.squares, token_squares(token), "{token}");
    let rebuilt = apply(&before, mover, &info, &fx);
    assert_eq!(rebuilt, pieces(g), "{token}: effects {fx:?}");
    let after = pieces(g);
    // Pieces that stayed and changed colour, and pieces that moved and arrived
    // in the other colour (the Andernach variants).
    let converted: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|sq| match fx.moved.iter().find(|m| m.1 == *sq) {
            Some(&(from, _)) => matches!(
                (before.get(&from), after.get(sq)),
                (Some(b), Some(a)) if b.color != a.color
            ),
            None => matches!(
                (before.get(sq), after.get(sq)),
                (Some(b), Some(a)) if b.role == a.role && b.color != a.color && !fx.created.contains(sq)
            ),
        })
        .collect();
    assert_eq!(fx.converted, converted, "{token}");
}

#[test]
fn effects_rebuild_every_example() {
    let mut checked = 0;
    let mut refused = Vec::new();
    for (variant, json) in [
        (
            VariantKind::CowardlyCrew,
            include_str!("data/cowardlycrew_examples.json"),
        ),
        (
            VariantKind::Subversion,
            include_str!("data/subversion_examples.json"),
        ),
        (
            VariantKind::AttendingPawns,
            include_str!("data/attendingpawns_examples.json"),
        ),
        (
            VariantKind::CruisePawns,
            include_str!("data/cruisepawns_examples.json"),
        ),
        (
            VariantKind::Pacifist,
            include_str!("data/pacifist_examples.json"),
        ),
        (
            VariantKind::Andernach,
            include_str!("data/andernach_examples.json"),
        ),
        (
            VariantKind::AntiAndernach,
            include_str!("data/antiandernach_examples.json"),
        ),
        (
            VariantKind::SuperAndernach,
            include_str!("data/superandernach_examples.json"),
        ),
    ] {
        let examples: Vec<Value> = serde_json::from_str(json).expect("examples");
        for ex in examples {
            let fen = ex["fen"].as_str().expect("fen");
            // An example's `moves` are played first, as in a game.
            let before = common::example_moves(&ex);
            let Ok(g) = LiveGame::with_moves(variant, Start::Fen(fen), &before) else {
                refused.push(fen.to_string());
                continue;
            };
            let mut tokens: Vec<String> = g.legal_moves().into_iter().map(|m| m.token).collect();
            tokens.sort();
            if let Some(legal) = ex["legal"].as_array() {
                let mut want: Vec<String> = legal
                    .iter()
                    .map(|t| t.as_str().unwrap().to_string())
                    .collect();
                want.sort();
                assert_eq!(tokens, want, "{fen}");
            }
            for token in &tokens {
                let mut child = g.clone();
                check_move(&mut child, token);
                if let Some(after) = ex["after"].get(token.as_str()) {
                    assert_eq!(child.fen(), after.as_str().unwrap(), "{fen} {token}");
                }
                checked += 1;
            }
        }
    }
    // PF27 is a position docs/RULES.md lists although no game reaches it.
    assert_eq!(refused, ["1r6/8/8/8/8/8/8/K6K w - - 0 1"]);
    assert_eq!(checked, 1683);
}

/// A fixed-seed generator (SplitMix64), so the games are the same every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

#[test]
fn effects_rebuild_random_games() {
    const GAMES: usize = 12;
    const PLIES: usize = 120;
    let mut rng = Rng(44);
    let mut plies = 0;
    for &variant in VariantKind::ALL {
        for _ in 0..GAMES {
            let mut g = LiveGame::new(variant, Start::Startpos).unwrap();
            for _ in 0..PLIES {
                if g.outcome().is_some() {
                    break;
                }
                let moves = g.legal_moves();
                let pick = moves[rng.below(moves.len())].token.clone();
                check_move(&mut g, &pick);
                plies += 1;
            }
        }
    }
    assert!(plies > 3000, "only {plies} plies");
}

/// Who can never checkmate (a flag fall against the other side is a draw):
/// a lone king, except where a lone king can win pieces back.
#[test]
fn a_lone_king_cannot_mate_where_it_cannot_win_pieces() {
    let lone_black = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1";
    let sides = |v: VariantKind, fen: &str| {
        let g = game(v, fen);
        (g.cannot_mate(Color::White), g.cannot_mate(Color::Black))
    };
    for v in [
        VariantKind::Chess,
        VariantKind::Subversion,
        VariantKind::CruisePawns,
    ] {
        assert_eq!(sides(v, lone_black), (false, true), "{v:?}");
    }
    // A pawn beside the king can promote: both can mate.
    assert_eq!(
        sides(VariantKind::Chess, "4k3/4p3/8/8/8/8/8/3QK3 w - - 0 1"),
        (false, false)
    );
    // A capture converts (Cowardly Crew, the Andernach variants) or a cascade
    // does (Pacifist): a lone king may win an army back.
    for v in [
        VariantKind::CowardlyCrew,
        VariantKind::Pacifist,
        VariantKind::Andernach,
        VariantKind::AntiAndernach,
        VariantKind::SuperAndernach,
    ] {
        assert_eq!(sides(v, lone_black), (false, false), "{v:?}");
    }
}

/// The plies before the start count in 64 bits: from the largest fullmove
/// number a FEN may carry, with Black to move, 2 * 4294967294 + 1 plies came
/// before (a 32-bit count wrapped).
#[test]
fn start_ply_past_32_bits() {
    let g = LiveGame::with_moves(
        VariantKind::Chess,
        Start::Fen("4k3/8/8/8/8/8/8/4K3 b - - 0 4294967295"),
        &["e8d8"],
    )
    .unwrap();
    assert_eq!(g.start_ply(), 8_589_934_589);
    assert_eq!(g.fen(), "3k4/8/8/8/8/8/8/4K3 w - - 1 4294967296");
}
