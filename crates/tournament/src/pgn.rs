//! The runner's PGN: its tags and move comments for finished games, and the
//! recovery of a file a killed match was writing. Reading, replaying and the
//! writing itself are the rules' business ([`turncoat_rules::pgn`]), re-exported
//! here for the runner's callers.

use std::fmt::Write as _;

pub use turncoat_rules::pgn::{read_pgn, replay, today, PgnGame, Replayed};

use super::engine::ReportedScore;
use super::referee::GameRecord;
use turncoat_rules::notation::Notation;
use turncoat_rules::pgn::{write_game, PgnRecord};
use turncoat_rules::variants::VariantKind;

/// Tag values that are the same for every game of a match.
#[derive(Clone, Debug)]
pub struct PgnContext {
    pub event: String,
    pub site: String,
    /// `YYYY.MM.DD`.
    pub date: String,
    pub variant: VariantKind,
    /// Each engine's `TimeControl` value, by its index in the match.
    pub time_controls: Vec<String>,
    /// The seed of the random openings (the `Seed` tag): shards of one match
    /// share it, which is what `match-merge` checks.
    pub seed: Option<u64>,
}

/// The move comment: `{+0.25/12 0.153s}`, `{-M3/20 0.010s}`, `{0.153s}`.
fn move_comment(score: Option<ReportedScore>, depth: Option<u32>, time_ms: u64) -> String {
    let mut c = String::new();
    if let Some(s) = score {
        match s {
            ReportedScore::Cp(cp) => {
                let sign = if cp < 0 { "-" } else { "+" };
                let _ = write!(c, "{sign}{}.{:02}", cp.abs() / 100, cp.abs() % 100);
            }
            ReportedScore::Mate(m) => {
                let sign = if m < 0 { "-" } else { "+" };
                let _ = write!(c, "{sign}M{}", m.abs());
            }
        }
        let _ = write!(c, "/{} ", depth.unwrap_or(0));
    }
    let _ = write!(c, "{}.{:03}s", time_ms / 1000, time_ms % 1000);
    c
}

/// One game as PGN text (ends with a blank line), written by the rules' one
/// PGN writer with the runner's tags and a score/time comment on every move.
pub fn game_to_pgn(record: &GameRecord, ctx: &PgnContext) -> String {
    let round = record.number.to_string();
    let mut tags = vec![("Termination", record.termination.pgn_tag().to_string())];
    // One `TimeControl` when both sides play alike, else one tag per side,
    // as Cutechess and fastchess write them.
    let tc = |i: usize| {
        ctx.time_controls
            .get(i)
            .cloned()
            .unwrap_or_else(|| "-".into())
    };
    let (white_tc, black_tc) = (tc(record.white), tc(record.black));
    if white_tc == black_tc {
        tags.push(("TimeControl", white_tc));
    } else {
        tags.push(("WhiteTimeControl", white_tc));
        tags.push(("BlackTimeControl", black_tc));
    }
    if let Some(seed) = ctx.seed {
        tags.push(("Seed", seed.to_string()));
    }
    let written = write_game(&PgnRecord {
        variant: ctx.variant,
        start_fen: &record.start_fen,
        event: &ctx.event,
        site: &ctx.site,
        date: &ctx.date,
        round: &round,
        white: &record.white_name,
        black: &record.black_name,
        result: record.result.pgn(),
        tags,
        moves: record
            .moves
            .iter()
            .map(|m| {
                (
                    m.token.as_str(),
                    Some(move_comment(m.score, m.depth, m.time_ms)),
                )
            })
            .collect(),
        final_comment: Some(&record.reason),
        // Machine-written games stay in the portable notation: tokens in the
        // variants no other program reads, which anything that speaks UCI
        // replays (resumption, merging and tuning read both).
        notation: Notation::Portable,
    });
    if let Some(why) = written.notation_stopped {
        log::warn!("game {}: {why}", record.number);
    }
    written.text
}

/// The complete games at the start of `text` (a PGN file this runner was writing
/// when it was killed) and the length of the text they take, up to the blank line
/// after the last one: a game cut short at the end is not among them.
pub fn complete_prefix(text: &str) -> (Vec<PgnGame>, usize) {
    // Our games each start with an `[Event` line; split there and accept chunks
    // while each reads as exactly one finished game.
    let mut starts: Vec<usize> = text
        .match_indices("\n[Event ")
        .map(|(i, _)| i + 1)
        .collect();
    if text.starts_with("[Event ") {
        starts.insert(0, 0);
    }
    let mut games = Vec::new();
    let mut end = 0;
    for (k, &start) in starts.iter().enumerate() {
        if start != end && !text[end..start].trim().is_empty() {
            break;
        }
        let stop = starts.get(k + 1).copied().unwrap_or(text.len());
        match read_pgn(&text[start..stop]) {
            Ok(mut g)
                if g.len() == 1
                    && turncoat_rules::pgn::RESULTS[..3].contains(&g[0].result.as_str()) =>
            {
                games.push(g.remove(0));
                end = stop;
            }
            _ => break,
        }
    }
    (games, end)
}
