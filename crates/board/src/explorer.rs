//! The opening explorer: the games of PGN files a user points to (match runs,
//! self-play), replayed through the rules and counted by position, so that the
//! board can show, for the position on it, the moves played there, how often,
//! and how those games ended. The variants have no game database to draw on
//! (pychess-variants has no explorer for want of one); Turncoat's own games
//! are one.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use turncoat_rules::live::{LiveGame, Start};
use turncoat_rules::notation;
use turncoat_rules::pgn;
use turncoat_rules::variants::VariantKind;

/// Plies of each game counted: the opening and early middlegame, as lichess's
/// explorer; later positions rarely recur.
pub const MAX_EXPLORER_PLIES: usize = 60;

/// What one counted move (a position and a move played from it, with its
/// tally) costs at most, in bytes: the position's Zobrist key, the variant
/// and the token's number with four 32-bit counts are 32 bytes in a B-tree
/// leaf of 11 (368 bytes with its header), which random keys fill to about
/// 70%. `memory_per_entry` (crates/board/tests/explorer_memory.rs) counts
/// the allocator's bytes for 1500 games of random moves: 53 a counted move,
/// 54 a position (the FEN-keyed maps of maps it replaced took 434 a
/// position).
pub const EXPLORER_ENTRY_BYTES: usize = 64;

/// What a move's token costs when the explorer first meets it, besides its
/// characters: the token twice (the list and the map's key, each a `String`
/// and its allocation) and the map's entry. Tokens are few (chess has fewer
/// than 2000), but a variant's long tokens (a missile's path) are many.
pub const EXPLORER_TOKEN_BYTES: usize = 128;

/// Most memory a tab's explorer takes, as counted by
/// [`EXPLORER_ENTRY_BYTES`] and [`EXPLORER_TOKEN_BYTES`]: about a million
/// counted moves, some 20,000 games of varied openings. The bound is memory,
/// not games: games that reach only known positions cost nothing. Eight tabs
/// (the server's most) hold at most 512 MiB.
pub const MAX_EXPLORER_BYTES: usize = 64 << 20;

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

/// A [`Tally`] as the explorer keeps it: half the size (a count beyond
/// `u32::MAX` stays there).
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    games: u32,
    white: u32,
    draws: u32,
    black: u32,
}

impl Counts {
    fn add(&mut self, result: &str) {
        let bump = |n: &mut u32| *n = n.saturating_add(1);
        bump(&mut self.games);
        match result {
            "1-0" => bump(&mut self.white),
            "0-1" => bump(&mut self.black),
            "1/2-1/2" => bump(&mut self.draws),
            // Unfinished games count as played, with no result.
            _ => {}
        }
    }

    fn tally(self) -> Tally {
        Tally {
            games: self.games.into(),
            white: self.white.into(),
            draws: self.draws.into(),
            black: self.black.into(),
        }
    }
}

/// A move played from a position: the variant, the position's Zobrist key
/// (its identity, whatever the move order or the move counters, as in a
/// Polyglot book) and the move's token by its number in the explorer's list.
/// Ordered so that one position's moves are neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    variant: u8,
    position: u64,
    token: u32,
}

impl Entry {
    /// The moves of one position, as a range of the map.
    fn of_position(variant: u8, position: u64) -> std::ops::RangeInclusive<Entry> {
        let at = |token| Entry {
            variant,
            position,
            token,
        };
        at(0)..=at(u32::MAX)
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
    /// Games that could not be read or replayed (each is skipped whole).
    pub skipped: usize,
    /// Games left out because they reach positions the explorer has no room
    /// for ([`MAX_EXPLORER_BYTES`]): it is full.
    pub full: usize,
}

/// Why a game was not counted.
enum Refused {
    Unreadable,
    Full,
}

/// One tab's explorer: every position's moves with their tallies, per variant.
#[derive(Debug)]
pub struct Explorer {
    games: usize,
    positions: usize,
    /// Memory taken, as [`MAX_EXPLORER_BYTES`] counts it.
    bytes: usize,
    /// Most memory it may take.
    budget: usize,
    moves: BTreeMap<Entry, Counts>,
    /// The tokens met, by number, and their numbers.
    tokens: Vec<String>,
    token_ids: HashMap<String, u32>,
}

impl Default for Explorer {
    fn default() -> Explorer {
        Explorer::with_budget(MAX_EXPLORER_BYTES)
    }
}

/// A token's cost when it is new.
fn token_bytes(token: &str) -> usize {
    EXPLORER_TOKEN_BYTES + 2 * token.len()
}

impl Explorer {
    /// An explorer that takes at most `budget` bytes (as
    /// [`MAX_EXPLORER_BYTES`] counts them).
    pub fn with_budget(budget: usize) -> Explorer {
        Explorer {
            games: 0,
            positions: 0,
            bytes: 0,
            budget,
            moves: BTreeMap::new(),
            tokens: Vec::new(),
            token_ids: HashMap::new(),
        }
    }

    pub fn games(&self) -> usize {
        self.games
    }

    /// Positions counted (each with one or more moves played from it).
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// Moves counted: (position, move) pairs.
    pub fn entries(&self) -> usize {
        self.moves.len()
    }

    /// Memory taken, as [`MAX_EXPLORER_BYTES`] counts it.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Counts the games of `text` (PGN, read as tolerantly as the board's
    /// import; each game's main line). A game that cannot be read or replayed
    /// is skipped, one that finds no room left out, the others counted; text
    /// that holds no game is an error.
    pub fn add_pgn(&mut self, text: &str) -> Result<Added, String> {
        let games = pgn::read_pgn_tree(text).map_err(|e| e.to_string())?;
        if games.is_empty() {
            return Err("no game found in the PGN".to_string());
        }
        let mut added = Added::default();
        for g in &games {
            match self.add_game(g) {
                Ok(()) => {
                    added.games += 1;
                    self.games += 1;
                }
                Err(Refused::Unreadable) => added.skipped += 1,
                Err(Refused::Full) => added.full += 1,
            }
        }
        Ok(added)
    }

    /// Counts one game's first plies, once each (a move repeated in the
    /// game's opening is one game that played it); nothing is counted when
    /// the game cannot be replayed, or when what it adds does not fit.
    fn add_game(&mut self, g: &pgn::PgnTreeGame) -> Result<(), Refused> {
        let replayed = pgn::replay_tree(g).map_err(|_| Refused::Unreadable)?;
        let mut game = LiveGame::new(replayed.variant, Start::Fen(&replayed.start_fen))
            .map_err(|_| Refused::Unreadable)?;
        let variant = replayed.variant as u8;
        let mut counted: Vec<(u64, &str)> = Vec::new();
        for m in replayed.moves.iter().take(MAX_EXPLORER_PLIES) {
            counted.push((game.key(), m.token.as_str()));
            game.play(&m.token).map_err(|_| Refused::Unreadable)?;
        }
        counted.sort_unstable();
        counted.dedup();
        // What the game would add: the moves not counted before, the tokens
        // not met before (once each).
        let mut cost = 0;
        let mut new_tokens: Vec<&str> = Vec::new();
        for &(position, token) in &counted {
            let known = self.token_ids.get(token).is_some_and(|&token| {
                self.moves.contains_key(&Entry {
                    variant,
                    position,
                    token,
                })
            });
            if !known {
                cost += EXPLORER_ENTRY_BYTES;
                if !self.token_ids.contains_key(token) && !new_tokens.contains(&token) {
                    new_tokens.push(token);
                    cost += token_bytes(token);
                }
            }
        }
        if self.bytes + cost > self.budget {
            return Err(Refused::Full);
        }
        self.bytes += cost;
        for (position, token) in counted {
            let token = self.token_id(token);
            let entry = Entry {
                variant,
                position,
                token,
            };
            if !self.moves.contains_key(&entry)
                && self
                    .moves
                    .range(Entry::of_position(variant, position))
                    .next()
                    .is_none()
            {
                self.positions += 1;
            }
            self.moves.entry(entry).or_default().add(&g.result);
        }
        Ok(())
    }

    /// The token's number, numbering it when new.
    fn token_id(&mut self, token: &str) -> u32 {
        if let Some(&id) = self.token_ids.get(token) {
            return id;
        }
        // Fewer tokens than the budget's bytes: the number fits.
        let id = u32::try_from(self.tokens.len()).unwrap_or(u32::MAX);
        self.tokens.push(token.to_string());
        self.token_ids.insert(token.to_string(), id);
        id
    }

    /// The moves played from `fen` in `variant`, the most played first (ties
    /// by the better score for the side to move, then by the text).
    pub fn explore(&self, variant: VariantKind, fen: &str) -> Vec<ExploredMove> {
        let Ok(game) = LiveGame::new(variant, Start::Fen(fen)) else {
            return Vec::new();
        };
        let white_to_move = fen.split_whitespace().nth(1) != Some("b");
        let score = |t: &Tally| {
            let wins = if white_to_move { t.white } else { t.black };
            (2 * wins + t.draws) as f64 / t.games.max(1) as f64
        };
        let mut out: Vec<ExploredMove> = self
            .moves
            .range(Entry::of_position(variant as u8, game.key()))
            .filter_map(|(entry, counts)| {
                let token = self.tokens.get(entry.token as usize)?;
                Some(ExploredMove {
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
                    tally: counts.tally(),
                })
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

    /// Empties the explorer (its budget stays).
    pub fn clear(&mut self) {
        *self = Explorer::with_budget(self.budget);
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
                full: 0
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
                full: 0
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
                full: 0
            })
        );
        assert_eq!(e.add_pgn(""), Err("no game found in the PGN".to_string()));
        assert_eq!(e.games(), 1);
    }

    /// The bound is memory: a game that would take more than is left is
    /// left out whole and said to be (`full`); one that reaches only known
    /// positions still counts.
    #[test]
    fn a_full_explorer_says_so() {
        // Room for the five moves of the first game and their tokens.
        let tokens: usize = ["e2e4", "e7e5", "g1f3", "b8c6"]
            .iter()
            .map(|t| token_bytes(t))
            .sum();
        let mut e = Explorer::with_budget(4 * EXPLORER_ENTRY_BYTES + tokens);
        assert_eq!(
            e.add_pgn("1. e4 e5 2. Nf3 Nc6 1-0\n\n1. e4 c5 0-1\n\n1. e4 e5 1/2-1/2\n\n1. Qh5 *"),
            Ok(Added {
                games: 2,
                skipped: 1,
                full: 1
            })
        );
        assert_eq!((e.games(), e.positions(), e.entries()), (2, 4, 4));
        assert_eq!(e.bytes(), 4 * EXPLORER_ENTRY_BYTES + tokens);
        let start = VariantKind::Chess.start_fen();
        let rows: Vec<_> = e
            .explore(VariantKind::Chess, start)
            .iter()
            .map(|m| (m.san.clone(), m.tally.games, m.tally.white, m.tally.draws))
            .collect();
        assert_eq!(rows, [("e4".to_string(), 2, 1, 1)]);
        // Emptied, it has its room again.
        e.clear();
        assert_eq!(e.bytes(), 0);
        assert_eq!(
            e.add_pgn("1. e4 c5 0-1").map(|a| (a.games, a.full)),
            Ok((1, 0))
        );
    }

    /// A game that goes back and forth in its opening played each move from
    /// each position once: one game, not four.
    #[test]
    fn a_repeated_move_counts_once() {
        let mut e = Explorer::default();
        let shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 1-0";
        assert_eq!(e.add_pgn(shuffle).map(|a| a.games), Ok(1));
        assert_eq!((e.positions(), e.entries()), (4, 5));
        let start = VariantKind::Chess.start_fen();
        let rows: Vec<_> = e
            .explore(VariantKind::Chess, start)
            .iter()
            .map(|m| (m.san.clone(), m.tally.games))
            .collect();
        assert_eq!(rows, [("Nf3".to_string(), 1), ("e4".to_string(), 1)]);
    }
}
