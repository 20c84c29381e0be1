//! PGN writing for finished games (standard chess in SAN through shakmaty,
//! variant moves as docs/RULES.md tokens), and the recovery of a file a killed
//! match was writing. Reading and replaying PGN is the rules' business
//! ([`turncoat_rules::pgn`]), re-exported here for the runner's callers.

use std::fmt::Write as _;

pub use turncoat_rules::pgn::{read_pgn, replay, today, PgnGame, Replayed};

use super::engine::ReportedScore;
use super::referee::GameRecord;
use turncoat_rules::fen;
use turncoat_rules::position::Position;
use turncoat_rules::variants::VariantKind;

/// Tag values that are the same for every game of a match.
#[derive(Clone, Debug)]
pub struct PgnContext {
    pub event: String,
    pub site: String,
    /// `YYYY.MM.DD`.
    pub date: String,
    pub variant: VariantKind,
    pub time_control: String,
    /// The seed of the random openings (the `Seed` tag): shards of one match
    /// share it, which is what `match-merge` checks.
    pub seed: Option<u64>,
}

/// A tag value: quotes and backslashes escaped, control characters (a line
/// break would end the tag) as spaces.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Comment text: braces (which would end the comment, or open another) and
/// brackets (a `[` at the start of a line reads as a tag) become parentheses,
/// control characters spaces. PGN has no escape inside a comment.
fn comment_text(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '{' | '[' => '(',
            '}' | ']' => ')',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
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

/// The game's moves for the PGN (SAN in chess), logging why SAN stopped if it did.
fn move_texts(record: &GameRecord, variant: VariantKind) -> Vec<String> {
    let tokens: Vec<String> = record.moves.iter().map(|m| m.token.clone()).collect();
    let (texts, stopped) = turncoat_rules::pgn::move_texts(variant, &record.start_fen, &tokens);
    if let Some(why) = stopped {
        log::warn!("game {}: {why}", record.number);
    }
    texts
}

/// One game as PGN text (ends with a blank line).
pub fn game_to_pgn(record: &GameRecord, ctx: &PgnContext) -> String {
    let variant = ctx.variant;
    let start_fen_of_variant =
        turncoat_rules::with_variant!(variant, V => fen::format(&Position::<V>::startpos()));
    let mut s = String::new();
    let mut tag = |k: &str, v: &str| {
        let _ = writeln!(s, "[{k} \"{}\"]", escape(v));
    };
    tag("Event", &ctx.event);
    tag("Site", &ctx.site);
    tag("Date", &ctx.date);
    tag("Round", &record.number.to_string());
    tag("White", &record.white_name);
    tag("Black", &record.black_name);
    tag("Result", record.result.pgn());
    if variant != VariantKind::Chess {
        tag("Variant", variant.name());
    }
    if record.start_fen != start_fen_of_variant {
        tag("SetUp", "1");
        tag("FEN", &record.start_fen);
    }
    tag("Termination", record.termination.pgn_tag());
    tag("TimeControl", &ctx.time_control);
    if let Some(seed) = ctx.seed {
        tag("Seed", &seed.to_string());
    }
    tag("PlyCount", &record.moves.len().to_string());
    s.push('\n');

    // Movetext, wrapped at 79 columns.
    let (mut fullmove, mut white_to_move) = {
        let f: Vec<&str> = record.start_fen.split_whitespace().collect();
        (
            f.get(5).and_then(|x| x.parse::<u32>().ok()).unwrap_or(1),
            f.get(1) != Some(&"b"),
        )
    };
    let mut words: Vec<String> = Vec::new();
    let texts = move_texts(record, variant);
    for (m, text) in record.moves.iter().zip(texts) {
        // A number before every White move, and before every Black move since a
        // comment always precedes it (PGN 8.2.2.2).
        if white_to_move {
            words.push(format!("{fullmove}."));
        } else {
            words.push(format!("{fullmove}..."));
        }
        words.push(text);
        let comment = move_comment(m.score, m.depth, m.time_ms);
        words.extend(format!("{{{comment}}}").split(' ').map(str::to_string));
        if !white_to_move {
            fullmove += 1;
        }
        white_to_move = !white_to_move;
    }
    words.extend(
        format!("{{{}}}", comment_text(&record.reason))
            .split(' ')
            .map(str::to_string),
    );
    words.push(record.result.pgn().to_string());
    turncoat_rules::pgn::push_movetext(&mut s, words);
    s
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
