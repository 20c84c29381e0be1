//! The search knows the rulebook's draws (docs/RULES.md, "Common: game end") in
//! every variant: a position the rules call drawn scores exactly 0, a side that
//! is losing takes the draw, and a side that is winning avoids it. Every game
//! here is played through the rules' own `Game` (each token checked against the
//! legal move generator), its drawn end confirmed by the referee's
//! `Game::outcome`, and searched with the game's history as the UCI front end
//! passes it.

mod common;

use std::sync::Arc;

use turncoat::engine::policy::Policy;
use turncoat::engine::search::tt::TranspositionTable;
use turncoat::engine::search::{self, Limits, Score, Shared};
use turncoat::rules::fen;
use turncoat::rules::game::{self, Game, Outcome, Setup};
use turncoat::rules::moves::MoveList;
use turncoat::rules::position::Position;
use turncoat::rules::variants::andernach::{Andernach, AntiAndernach, SuperAndernach};
use turncoat::rules::variants::attending_pawns::AttendingPawns;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::cowardly_crew::CowardlyCrew;
use turncoat::rules::variants::cruise_pawns::CruisePawns;
use turncoat::rules::variants::pacifist::Pacifist;
use turncoat::rules::variants::subversion::Subversion;
use turncoat::rules::variants::{Variant, VariantKind};

/// Plies searched: deep enough for every line here to reach its drawn or won
/// end (the deepest, Pacifist's lone knight, mates in 5 plies).
const DEPTH: u32 = 6;

/// The game from `fen` through `moves`, each token legal by the rules.
fn game<V: Variant>(fen: &str, moves: &[&str]) -> Game<V> {
    let kind = VariantKind::from_name(V::NAME).expect("a registered variant");
    Setup {
        variant: kind,
        fen: Some(fen.to_string()),
        moves: moves.iter().map(|m| m.to_string()).collect(),
    }
    .game::<V>()
    .unwrap_or_else(|e| panic!("{}: {e}", V::NAME))
}

/// The referee's verdict after `token` is played in `game`.
fn outcome_after<V: Variant>(game: &Game<V>, token: &str) -> Option<Outcome> {
    let mut next = game.clone();
    next.play_token(token)
        .unwrap_or_else(|e| panic!("{}: {e}", V::NAME));
    next.outcome()
}

/// Searches the game's current position with its history (the keys before
/// it, as the UCI front end passes them), optionally only the moves `only`
/// (`go searchmoves`); returns the move played and its score.
fn search<V: Policy>(game: &Game<V>, only: &[&str]) -> (String, Score) {
    let shared = Shared::new(Arc::new(TranspositionTable::new(8)));
    let limits = Limits {
        depth: Some(DEPTH),
        searchmoves: only.iter().map(|m| m.to_string()).collect(),
        ..Limits::default()
    };
    let history = &game.keys[..game.keys.len() - 1];
    let r = search::search(
        &game.pos,
        history,
        &limits,
        &search::Options::default(),
        &shared,
        &mut |_| {},
    );
    let best = r.best.unwrap_or_else(|| panic!("{}: no move", V::NAME));
    (best, Score::from_internal(r.score))
}

/// Who is to move where the draw is offered.
#[derive(Clone, Copy, Debug)]
enum Side {
    /// Behind: takes the draw, scored exactly 0.
    Losing,
    /// Ahead: plays a move that does not end the game drawn, and keeps a
    /// winning score.
    Winning,
}

/// The least a winning side's score may be: in every `Side::Winning` case
/// below it keeps at least a rook against a bare king, or mates (measured:
/// 526 cp and more, or a mate), so less than a minor piece is a misjudged
/// position.
const WINNING_CP: i32 = 300;

/// A drawn end the rules offer the side to move: from `fen` through `moves`,
/// playing `draw` ends the game drawn for `reason`.
struct Case {
    fen: &'static str,
    moves: Vec<&'static str>,
    draw: &'static str,
    reason: &'static str,
    side: Side,
}

fn is_winning(score: Score) -> bool {
    match score {
        Score::Mate(n) => n > 0,
        Score::Cp(cp) => cp >= WINNING_CP,
    }
}

fn check<V: Policy>(case: &Case) {
    let g = game::<V>(case.fen, &case.moves);
    let at = format!("{}: {} moves {:?}", V::NAME, case.fen, case.moves);
    assert_eq!(g.outcome(), None, "{at}: the game is not over yet");
    let drawn = Some(Outcome::Draw {
        reason: case.reason,
    });
    assert_eq!(outcome_after(&g, case.draw), drawn, "{at}: {}", case.draw);
    assert_eq!(
        search(&g, &[case.draw]),
        (case.draw.to_string(), Score::Cp(0)),
        "{at}: searching only the draw"
    );
    let (best, score) = search(&g, &[]);
    let after = outcome_after(&g, &best);
    match case.side {
        Side::Losing => {
            assert_eq!(after, drawn, "{at}: the losing side plays {best}");
            assert_eq!(score, Score::Cp(0), "{at}: the losing side plays {best}");
        }
        Side::Winning => {
            assert!(
                !matches!(after, Some(Outcome::Draw { .. })),
                "{at}: the winning side plays {best}, a draw ({after:?})"
            );
            assert!(is_winning(score), "{at}: {best} scores {score:?}");
        }
    }
}

/// A repetition: `cycle` from `fen` played twice round but for its last
/// move, which would then bring the start position a third time.
fn repetition(fen: &'static str, cycle: &[&'static str], side: Side) -> Case {
    Case {
        fen,
        moves: cycle
            .iter()
            .chain(&cycle[..cycle.len() - 1])
            .copied()
            .collect(),
        draw: cycle[cycle.len() - 1],
        reason: "threefold repetition",
        side,
    }
}

/// The draws of chess in positions without pawns (or with one that cannot
/// move, see below), where every variant but Pacifist plays chess: no
/// capture converts a neighbour (Cowardly Crew), no side can pay for a
/// subversion (Subversion: no pawns, too few pieces), no pawn is attached or
/// flies. The rules' move generator, not this list, says what is legal: each
/// case is checked against it in each variant.
fn chess_like_cases() -> Vec<Case> {
    vec![
        // Stalemate: Qd4xb6 wins the knight and leaves the black king a8 no
        // square (a7, b7, b8 covered by the queen and king c7), a draw; any
        // other queen move keeps a queen against a knight.
        Case {
            fen: "k7/2K5/1n6/8/3Q4/8/8/8 w - - 0 1",
            moves: vec![],
            draw: "d4b6",
            reason: "stalemate",
            side: Side::Winning,
        },
        // 50-move rule at halfmove 99: every move but Ke1xd2 (a capture resets
        // the clock) reaches 100 without mate, a draw; the rook must take.
        Case {
            fen: "4k3/8/8/8/8/8/3n4/R3K3 w - - 99 80",
            moves: vec![],
            draw: "a1a2",
            reason: "50-move rule",
            side: Side::Winning,
        },
        // 50-move rule at halfmove 99: Black, a queen down, draws with any move.
        Case {
            fen: "7k/8/8/8/8/8/8/KQ6 b - - 99 80",
            moves: vec![],
            draw: "h8g8",
            reason: "50-move rule",
            side: Side::Losing,
        },
        // Insufficient material: Black takes the checking rook with the king,
        // king and knight against king, a draw; anything else is a rook
        // against a knight.
        Case {
            fen: "8/8/5n2/8/8/2k5/2R5/K7 b - - 0 1",
            moves: vec![],
            draw: "c3c2",
            reason: "insufficient material",
            side: Side::Losing,
        },
    ]
}

/// Repetitions with a queen against a lone king, the kings and the queen
/// stepping to and fro (no clock reset on the way).
fn queen_repetitions() -> Vec<Case> {
    vec![
        // Black, a queen down, repeats with Kg8-h8.
        repetition(
            "7k/8/8/8/8/8/8/KQ6 w - - 0 1",
            &["a1a2", "h8g8", "a2a1", "g8h8"],
            Side::Losing,
        ),
        // White, a queen up, does not repeat with Qc1-b1.
        repetition(
            "7k/8/8/8/8/8/8/KQ6 b - - 0 1",
            &["h8g8", "b1c1", "g8h8", "c1b1"],
            Side::Winning,
        ),
    ]
}

fn chess_like<V: Policy>() {
    for case in chess_like_cases().into_iter().chain(queen_repetitions()) {
        check::<V>(&case);
    }
}

#[test]
fn chess_draws() {
    chess_like::<Chess>();
}

#[test]
fn cowardly_crew_draws() {
    chess_like::<CowardlyCrew>();
}

#[test]
fn subversion_draws() {
    chess_like::<Subversion>();
}

#[test]
fn attending_pawns_draws() {
    chess_like::<AttendingPawns>();
}

#[test]
fn cruise_pawns_draws() {
    chess_like::<CruisePawns>();
}

/// Pacifist's draws: the king with no legal move, the 50-move rule (reset by
/// a conversion or a pawn move) and repetition; insufficient material is not
/// used (a lone knight converts a lone king).
#[test]
fn pacifist_draws() {
    for case in [
        // Rule 7: Rg2-g1 leaves the black king h8 no square (g8, g7, h7
        // persuaded by the rooks g1 and a7: PF29), a draw; Rg2-h2 converts
        // the king, a win.
        Case {
            fen: "7k/R7/8/8/8/8/6R1/2K5 w - - 0 1",
            moves: vec![],
            draw: "g2g1",
            reason: "king with no legal move",
            side: Side::Winning,
        },
        // 50-move rule at halfmove 99: only Nb1-c3, converting the knight
        // d5, resets the clock; every other move draws.
        Case {
            fen: "k7/8/8/3n4/8/8/8/1N5K w - - 99 80",
            moves: vec![],
            draw: "h1g1",
            reason: "50-move rule",
            side: Side::Winning,
        },
        // 50-move rule at halfmove 99: the lone black king draws with its
        // only move, a8-a7 (b8 and b7 are persuaded by the queen).
        Case {
            fen: "k7/8/8/8/8/8/8/1Q5K b - - 99 80",
            moves: vec![],
            draw: "a8a7",
            reason: "50-move rule",
            side: Side::Losing,
        },
    ]
    .into_iter()
    .chain(queen_repetitions())
    {
        check::<Pacifist>(&case);
    }
}

/// Can the side to move force a win by the rules (the opponent to move with
/// no legal move, and that a loss) within `moves` of its own moves?
fn forces_win<V: Variant>(pos: &Position<V>, moves: u32) -> bool {
    let children = |p: &Position<V>| {
        let mut list = MoveList::new();
        V::legal_moves(p, &mut list);
        list.iter()
            .map(|&m| {
                let mut next = *p;
                game::play(&mut next, m);
                next
            })
            .collect::<Vec<_>>()
    };
    moves > 0 && children(pos).iter().any(|after| {
        let replies = children(after);
        if replies.is_empty() {
            matches!(V::no_legal_moves(after), Outcome::Win { winner, .. } if winner == pos.turn())
        } else {
            replies.iter().all(|r| forces_win(r, moves - 1))
        }
    })
}

/// King and knight against a lone king: insufficient material, a draw the
/// referee declares at once, in every variant but Pacifist, where the knight
/// converts the king (PF24). From here it does so in 3 moves and no sooner
/// (checked by brute force with the rules' moves); a search that stopped at
/// "insufficient material" there would say 0.
#[test]
fn lone_knight_wins_only_in_pacifist() {
    const FEN: &str = "7k/8/8/8/4N3/8/8/K7 w - - 0 1";
    fn drawn<V: Policy>() {
        let g = game::<V>(FEN, &[]);
        assert_eq!(
            g.outcome(),
            Some(Outcome::Draw {
                reason: "insufficient material"
            }),
            "{}",
            V::NAME
        );
        assert_eq!(search(&g, &[]).1, Score::Cp(0), "{}", V::NAME);
    }
    drawn::<Chess>();
    drawn::<CowardlyCrew>();
    drawn::<Subversion>();
    drawn::<AttendingPawns>();
    drawn::<CruisePawns>();

    let g = game::<Pacifist>(FEN, &[]);
    assert_eq!(g.outcome(), None);
    let pos = fen::parse::<Pacifist>(FEN).expect("valid FEN");
    assert!(forces_win(&pos, 3) && !forces_win(&pos, 2));
    assert_eq!(search(&g, &[]).1, Score::Mate(3));
}

/// Pacifist: a conversion resets the halfmove clock but can be undone. From
/// `3r3k/3q4/3n4/R2N4/8/8/8/7K b - - 0 1` the black knight d6 steps away and
/// the white knight d5 turns black (the clock goes to 0), White's rook steps
/// a5-a2, the knight comes back, and a2-a5 turns d5 white again (the clock
/// goes to 0 once more). Twice round, White to move:
/// a2-a5 brings the start position a third time, a draw; every other move is
/// mated (Black mates in 2 from the start position). White must see the
/// repetition behind both conversions, score it 0 and take it.
#[test]
fn pacifist_repetition_across_conversions() {
    let cycle = ["d6e4", "a5a2", "e4d6", "a2a5"];
    let played: Vec<&str> = cycle.iter().chain(&cycle[..3]).copied().collect();
    let g = game::<Pacifist>("3r3k/3q4/3n4/R2N4/8/8/8/7K b - - 0 1", &played);
    // d6e4 and a2a5 converted: the clock was reset twice in every cycle, and
    // counts only the two plies since the last d6e4.
    assert_eq!(g.pos.halfmoves(), 2, "the clock since the second d6e4");
    assert_eq!(
        outcome_after(&g, "a2a5"),
        Some(Outcome::Draw {
            reason: "threefold repetition"
        })
    );
    assert_eq!(search(&g, &["a2a5"]), ("a2a5".to_string(), Score::Cp(0)));
    assert_eq!(search(&g, &[]), ("a2a5".to_string(), Score::Cp(0)));
}

/// Attending Pawns: a pawn move resets the halfmove clock, but a relocation can
/// carry the pawn back. King e1 with its pawn e2 against a lone king: e2-e3
/// (clock 0), the king to f1 taking its pawn back to e2, the king home with
/// the pawn staying on e2, while the black king walks a8-b8-b7-a8. Twice
/// round, Black to move: b7-a8 brings the start position a third time, a
/// draw, where every other move leaves Black a pawn down. Black must see the
/// repetition behind the pawn moves, score it 0 and take it.
#[test]
fn attending_pawns_repetition_across_a_pawn_move() {
    let cycle = ["e2e3", "a8b8", "e1f1,e3e2", "b8b7", "f1e1,e2e2", "b7a8"];
    let played: Vec<&str> = cycle.iter().chain(&cycle[..5]).copied().collect();
    let g = game::<AttendingPawns>("k7/8/8/8/8/8/4P3/4K3 w - - 0 1 e1e2", &played);
    assert_eq!(g.pos.halfmoves(), 4, "the clock since the second e2e3");
    assert_eq!(
        outcome_after(&g, "b7a8"),
        Some(Outcome::Draw {
            reason: "threefold repetition"
        })
    );
    assert_eq!(search(&g, &["b7a8"]), ("b7a8".to_string(), Score::Cp(0)));
    assert_eq!(search(&g, &[]), ("b7a8".to_string(), Score::Cp(0)));
}

/// How often a random game of the variant brings back a position from
/// before its last clock reset (a repetition a search looking back only as
/// far as the clock would miss): over `games` games of up to 300 plies,
/// uniformly random legal moves (deterministic).
fn repetitions_behind_a_reset<V: Variant>(games: usize) -> usize {
    let mut next = common::xorshift(0x5eed_0043_u64 ^ V::NAME.len() as u64);
    let mut found = 0;
    for _ in 0..games {
        let mut pos = Position::<V>::startpos();
        let mut keys = vec![pos.key()];
        let mut last_reset = 0;
        for _ in 0..300 {
            let mut moves = MoveList::new();
            V::legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            game::play(&mut pos, moves[(next() % moves.len() as u64) as usize]);
            if pos.halfmoves() == 0 {
                last_reset = keys.len();
            }
            found += usize::from(keys[..last_reset].contains(&pos.key()));
            keys.push(pos.key());
        }
    }
    found
}

/// `Variant::CLOCK_RESET_IRREVERSIBLE` lets the search look back only as far
/// as the halfmove clock; where a variant claims it, no random game repeats
/// a position from before a reset. (Attending Pawns, which does not claim
/// it, has such repetitions in these games: a relocation carrying a pawn
/// back behind its last move, and Anti- and Super-Andernach, where a pawn's
/// step turns it round.)
#[test]
fn clock_resets_claimed_irreversible_are() {
    fn check<V: Variant>() -> usize {
        let found = repetitions_behind_a_reset::<V>(1000);
        assert!(
            !V::CLOCK_RESET_IRREVERSIBLE || found == 0,
            "{}: {found} repetitions behind a clock reset",
            V::NAME
        );
        found
    }
    check::<Chess>();
    check::<CowardlyCrew>();
    check::<Subversion>();
    check::<CruisePawns>();
    check::<Pacifist>();
    check::<Andernach>();
    assert!(check::<AttendingPawns>() > 0);
    // A pawn step turns the pawn round, so it can step back.
    assert!(check::<AntiAndernach>() > 0);
    assert!(check::<SuperAndernach>() > 0);
}
