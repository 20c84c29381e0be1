//! The opening explorer: the games of PGN files a user points to (match runs,
//! self-play), replayed through the rules and counted by position, so that the
//! board can show, for the position on it, the moves played there, how often,
//! and how those games ended. The variants have no game database to draw on
//! (pychess-variants has no explorer for want of one); Turncoat's own games
//! are one.

use std::collections::HashMap;

use serde::Serialize;
use turncoat_rules::live::{LiveGame, Start};
use turncoat_rules::notation;
use turncoat_rules::pgn;
use turncoat_rules::variants::VariantKind;

/// Plies of each game counted: the opening and early middlegame, as lichess's
/// explorer; later positions rarely recur.
pub const MAX_EXPLORER_PLIES: usize = 60;
/// Games a tab's explorer holds at most (memory: about 60 small entries a game).
pub const MAX_EXPLORER_GAMES: usize = 200_000;
/// Moves listed for one position at most (the most played first).
pub const MAX_EXPLORED_MOVES: usize = 40;

/// How the games that played a move from a position ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
}

impl Tally {
    fn add(&mut self, result: &str) {
        self.games += 1;
        match result {
            "1-0" => self.white += 1,
            "0-1" => self.black += 1,
            "1/2-1/2" => self.draws += 1,
            // Unfinished games count as played, with no result.
            _ => {}
        }
    }
}

/// A move played from the position asked about.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExploredMove {
    pub token: String,
    /// As the move list writes it: in readable text (SAN in chess;
    /// docs/RULES.md, "Notation: readable").
    pub san: String,
    #[serde(flatten)]
    pub tally: Tally,
}

/// What adding a file's text did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Added {
    /// Games counted from this text.
    pub games: usize,
    /// Games that could not be read or replayed (each is skipped whole), or
    /// that found the explorer full.
    pub skipped: usize,
    /// The explorer holds [`MAX_EXPLORER_GAMES`]: later games were skipped.
    pub full: bool,
}

/// One tab's explorer: every position's moves with their tallies, per variant.
#[derive(Debug, Default)]
pub struct Explorer {
    games: usize,
    /// (variant, position key) -> move token -> tally.
    moves: HashMap<(VariantKind, String), HashMap<String, Tally>>,
}

/// A position's identity for the explorer: its FEN without the move counters
/// (the same position reached by another move order is one position).
fn position_key(fen: &str) -> String {
    fen.split_whitespace()
        .enumerate()
        .filter(|(i, _)| !matches!(i, 4 | 5))
        .map(|(_, f)| f)
        .collect::<Vec<_>>()
        .join(" ")
}

impl Explorer {
    pub fn games(&self) -> usize {
        self.games
    }

    pub fn positions(&self) -> usize {
        self.moves.len()
    }

    /// Counts the games of `text` (PGN, read as tolerantly as the board's
    /// import; each game's main line). A game that cannot be read or replayed
    /// is skipped, the others counted; text that holds no game is an error.
    pub fn add_pgn(&mut self, text: &str) -> Result<Added, String> {
        let games = pgn::read_pgn_tree(text).map_err(|e| e.to_string())?;
        if games.is_empty() {
            return Err("no game found in the PGN".to_string());
        }
        let mut added = Added::default();
        for g in &games {
            if self.games >= MAX_EXPLORER_GAMES {
                added.full = true;
                added.skipped += 1;
                continue;
            }
            match self.add_game(g) {
                Some(()) => {
                    added.games += 1;
                    self.games += 1;
                }
                None => added.skipped += 1,
            }
        }
        Ok(added)
    }

    /// Counts one game's first plies; None (and nothing counted) when it
    /// cannot be replayed.
    fn add_game(&mut self, g: &pgn::PgnTreeGame) -> Option<()> {
        let replayed = pgn::replay_tree(g).ok()?;
        let mut game = LiveGame::new(replayed.variant, Start::Fen(&replayed.start_fen)).ok()?;
        let mut counted = Vec::new();
        for m in replayed.moves.iter().take(MAX_EXPLORER_PLIES) {
            counted.push((position_key(&game.fen()), m.token.clone()));
            game.play(&m.token).ok()?;
        }
        for (key, token) in counted {
            self.moves
                .entry((replayed.variant, key))
                .or_default()
                .entry(token)
                .or_default()
                .add(&g.result);
        }
        Some(())
    }

    /// The moves played from `fen` in `variant`, the most played first (ties
    /// by the better score for the side to move, then by the text).
    pub fn explore(&self, variant: VariantKind, fen: &str) -> Vec<ExploredMove> {
        let Some(moves) = self.moves.get(&(variant, position_key(fen))) else {
            return Vec::new();
        };
        let white_to_move = fen.split_whitespace().nth(1) != Some("b");
        let score = |t: &Tally| {
            let wins = if white_to_move { t.white } else { t.black };
            (2 * wins + t.draws) as f64 / t.games.max(1) as f64
        };
        let mut out: Vec<ExploredMove> = moves
            .iter()
            .map(|(token, tally)| ExploredMove {
                token: token.clone(),
                san: notation::line_texts(
                    variant,
                    fen,
                    std::slice::from_ref(token),
                    notation::Notation::Readable,
                )
                .0
                .into_iter()
                .next()
                .unwrap_or_else(|| token.clone()),
                tally: *tally,
            })
            .collect();
        out.sort_by(|a, b| {
            b.tally
                .games
                .cmp(&a.tally.games)
                .then(score(&b.tally).total_cmp(&score(&a.tally)))
                .then(a.san.cmp(&b.san))
        });
        out.truncate(MAX_EXPLORED_MOVES);
        out
    }

    pub fn clear(&mut self) {
        *self = Explorer::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAMES: &str = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n\
        [Result \"0-1\"]\n\n1. e4 c5 2. Nf3 d6 0-1\n\n\
        [Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 1/2-1/2\n\n\
        [Result \"1-0\"]\n\n1. Nf3 d5 2. e4 1-0\n\n\
        [Result \"*\"]\n\n1. e4 e5 2. Qh5 *\n\n\
        [Result \"1-0\"]\n\n1. e4 e5 2. Ke3 1-0\n\n";

    fn row(m: &ExploredMove) -> (&str, &str, u64, u64, u64, u64) {
        let t = m.tally;
        (
            m.token.as_str(),
            m.san.as_str(),
            t.games,
            t.white,
            t.draws,
            t.black,
        )
    }

    #[test]
    fn moves_are_counted_by_position() {
        let mut e = Explorer::default();
        // The last game's 2. Ke3 is illegal: that game is skipped whole.
        assert_eq!(
            e.add_pgn(GAMES),
            Ok(Added {
                games: 5,
                skipped: 1,
                full: false
            })
        );
        let start = VariantKind::Chess.start_fen();
        let rows: Vec<_> = e
            .explore(VariantKind::Chess, start)
            .iter()
            .map(|m| {
                let (token, san, g, w, d, b) = row(m);
                (token.to_string(), san.to_string(), g, w, d, b)
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("e2e4".to_string(), "e4".to_string(), 3, 1, 0, 1),
                // One game each: the better score for White first.
                ("g1f3".to_string(), "Nf3".to_string(), 1, 1, 0, 0),
                ("d2d4".to_string(), "d4".to_string(), 1, 0, 1, 0),
            ]
        );
        // 1. e4 e5 2. Nf3 and 1. Nf3 ... 2. e4 reach different positions
        // (Black's pawn on e5 or d5); after 1. e4: e5 twice, c5 once.
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let rows: Vec<_> = e
            .explore(VariantKind::Chess, after_e4)
            .iter()
            .map(|m| (m.san.clone(), m.tally.games))
            .collect();
        assert_eq!(rows, [("e5".to_string(), 2), ("c5".to_string(), 1)]);
        // The counters do not matter; the side to move and the rest do.
        let counters = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 7 30";
        assert_eq!(e.explore(VariantKind::Chess, counters).len(), 2);
        assert!(e.explore(VariantKind::Subversion, after_e4).is_empty());
        assert_eq!(e.games(), 5);
        e.clear();
        assert_eq!((e.games(), e.positions()), (0, 0));
    }

    #[test]
    fn variants_are_kept_apart() {
        let mut e = Explorer::default();
        let text = "[Variant \"subversion\"]\n[Result \"0-1\"]\n\n1. e2e4 e7e5 0-1\n\n";
        assert_eq!(
            e.add_pgn(text),
            Ok(Added {
                games: 1,
                skipped: 0,
                full: false
            })
        );
        let start = VariantKind::Subversion.start_fen();
        let rows: Vec<_> = e
            .explore(VariantKind::Subversion, start)
            .iter()
            .map(|m| (m.token.clone(), m.san.clone(), m.tally.black))
            .collect();
        assert_eq!(rows, [("e2e4".to_string(), "e4".to_string(), 1)]);
        assert!(e
            .explore(VariantKind::Chess, VariantKind::Chess.start_fen())
            .is_empty());
        // Words are read as a game's moves, which do not replay: skipped.
        assert_eq!(
            e.add_pgn("just words"),
            Ok(Added {
                games: 0,
                skipped: 1,
                full: false
            })
        );
        assert_eq!(e.add_pgn(""), Err("no game found in the PGN".to_string()));
        assert_eq!(e.games(), 1);
    }
}
