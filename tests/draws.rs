//! The search knows the rulebook's draws (docs/RULES.md, "Common: game end") in
//! every variant: a position the rules call drawn scores exactly 0, a side that
//! is losing takes the draw, and a side that is winning avoids it. Every game
//! here is played through the rules' own `Game` (each token checked against the
//! legal move generator), its drawn end confirmed by the referee's
//! `Game::outcome`, and searched with the game's history as the UCI front end
//! passes it.

use std::sync::Arc;

use turncoat::engine::policy::Policy;
use turncoat::engine::search::tt::TranspositionTable;
use turncoat::engine::search::{self, Limits, Score, Shared};
use turncoat::rules::game::{Game, Outcome, Setup};
use turncoat::rules::variants::attending_pawns::AttendingPawns;
use turncoat::rules::variants::pacifist::Pacifist;
use turncoat::rules::variants::{Variant, VariantKind};

/// Plies searched: deep enough for every line here to reach its drawn or won
/// end, shallow enough for a debug-free test build.
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
