//! PGN: the writer for finished games (standard chess in SAN through shakmaty,
//! variant moves as docs/RULES.md tokens) and a small reader that replays games through
//! the referee's rules, used by the tests and usable on any PGN.

use std::fmt::Write as _;

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Position as _};

use super::engine::Score;
use super::referee::GameRecord;
use crate::rules::fen;
use crate::rules::game::{Game, Outcome};
use crate::rules::position::Position;
use crate::rules::variants::{Variant, VariantKind};

/// Tag values that are the same for every game of a match.
#[derive(Clone, Debug)]
pub struct PgnContext {
    pub event: String,
    pub site: String,
    /// `YYYY.MM.DD`.
    pub date: String,
    pub variant: VariantKind,
    pub time_control: String,
}

/// Today's date in PGN form (UTC), computed from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to (year, month, day) (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The move comment: `{+0.25/12 0.153s}`, `{-M3/20 0.010s}`, `{0.153s}`.
fn move_comment(score: Option<Score>, depth: Option<u32>, time_ms: u64) -> String {
    let mut c = String::new();
    if let Some(s) = score {
        match s {
            Score::Cp(cp) => {
                let sign = if cp < 0 { "-" } else { "+" };
                let _ = write!(c, "{sign}{}.{:02}", cp.abs() / 100, cp.abs() % 100);
            }
            Score::Mate(m) => {
                let sign = if m < 0 { "-" } else { "+" };
                let _ = write!(c, "{sign}M{}", m.abs());
            }
        }
        let _ = write!(c, "/{} ", depth.unwrap_or(0));
    }
    let _ = write!(c, "{}.{:03}s", time_ms / 1000, time_ms % 1000);
    c
}

/// The moves as written in the PGN: SAN for standard chess, tokens otherwise.
/// Falls back to tokens if shakmaty disagrees with our rules (never expected).
fn move_texts(record: &GameRecord, variant: VariantKind) -> Vec<String> {
    let tokens: Vec<String> = record.moves.iter().map(|m| m.token.clone()).collect();
    if variant != VariantKind::Chess {
        return tokens;
    }
    let mut pos: shakmaty::Chess = match Fen::from_ascii(record.start_fen.as_bytes())
        .map_err(|e| e.to_string())
        .and_then(|f| {
            f.into_position(CastlingMode::Standard)
                .map_err(|e| e.to_string())
        }) {
        Ok(p) => p,
        Err(e) => {
            log::warn!(
                "game {}: shakmaty rejects the start position ({e}); PGN moves stay in UCI",
                record.number
            );
            return tokens;
        }
    };
    let mut out = Vec::with_capacity(tokens.len());
    for (i, t) in tokens.iter().enumerate() {
        let mv = UciMove::from_ascii(t.as_bytes())
            .ok()
            .and_then(|u| u.to_move(&pos).ok());
        match mv {
            Some(m) => out.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string()),
            None => {
                log::warn!(
                    "game {}: shakmaty cannot read move '{t}'; PGN moves stay in UCI",
                    record.number
                );
                out.extend(tokens[i..].iter().cloned());
                break;
            }
        }
    }
    out
}

/// One game as PGN text (ends with a blank line).
pub fn game_to_pgn(record: &GameRecord, ctx: &PgnContext) -> String {
    let variant = ctx.variant;
    let start_fen_of_variant =
        crate::with_variant!(variant, V => fen::format(&Position::<V>::startpos()));
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
        format!("{{{}}}", record.reason)
            .split(' ')
            .map(str::to_string),
    );
    words.push(record.result.pgn().to_string());
    let mut line = String::new();
    for w in words {
        if !line.is_empty() && line.len() + 1 + w.len() > 79 {
            s.push_str(&line);
            s.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    s.push_str(&line);
    s.push_str("\n\n");
    s
}

/// A game read from PGN text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    /// Moves as written (SAN or tokens), move numbers removed.
    pub moves: Vec<String>,
    /// The comment following each move, if any.
    pub comments: Vec<Option<String>>,
    /// The game-termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub result: String,
}

impl PgnGame {
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn parse_tag(line: &str) -> Result<(String, String), String> {
    let inner = line
        .trim()
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(|| format!("bad tag line '{line}'"))?;
    let (key, rest) = inner
        .trim()
        .split_once(char::is_whitespace)
        .ok_or_else(|| format!("bad tag line '{line}'"))?;
    let rest = rest.trim();
    let quoted = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| format!("tag value not quoted in '{line}'"))?;
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                value.push(n);
            }
        } else {
            value.push(c);
        }
    }
    Ok((key.to_string(), value))
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// Splits PGN text into games (tags, moves, per-move comments, result).
pub fn read_pgn(text: &str) -> Result<Vec<PgnGame>, String> {
    let mut games = Vec::new();
    let mut cur = PgnGame::default();
    let mut in_moves = false;
    let mut chars = text.char_indices().peekable();
    let mut at_line_start = true;
    let mut word = String::new();

    fn flush_word(
        word: &mut String,
        cur: &mut PgnGame,
        games: &mut Vec<PgnGame>,
        in_moves: &mut bool,
    ) {
        if word.is_empty() {
            return;
        }
        let w = std::mem::take(word);
        if RESULTS.contains(&w.as_str()) {
            cur.result = w;
            games.push(std::mem::take(cur));
            *in_moves = false;
            return;
        }
        // Strip a move number: `12.`, `12...`, `12.e4`.
        let digits = w.chars().take_while(|c| c.is_ascii_digit()).count();
        let rest = if digits > 0 && w[digits..].starts_with('.') {
            w[digits..].trim_start_matches('.')
        } else {
            &w[..]
        };
        if rest.is_empty() {
            return;
        }
        cur.moves.push(rest.to_string());
        cur.comments.push(None);
        *in_moves = true;
    }

    while let Some((i, c)) = chars.next() {
        match c {
            '[' if at_line_start && !in_moves => {
                let end = text[i..].find('\n').map_or(text.len(), |e| i + e);
                cur.tags.push(parse_tag(&text[i..end])?);
                while chars.peek().is_some_and(|&(j, _)| j < end) {
                    chars.next();
                }
                continue;
            }
            '{' => {
                flush_word(&mut word, &mut cur, &mut games, &mut in_moves);
                let mut comment = String::new();
                let mut closed = false;
                for (_, c2) in chars.by_ref() {
                    if c2 == '}' {
                        closed = true;
                        break;
                    }
                    comment.push(c2);
                }
                if !closed {
                    return Err("unterminated comment".to_string());
                }
                if let Some(last) = cur.comments.last_mut() {
                    *last = Some(comment.split_whitespace().collect::<Vec<_>>().join(" "));
                }
            }
            ';' => {
                flush_word(&mut word, &mut cur, &mut games, &mut in_moves);
                for (_, c2) in chars.by_ref() {
                    if c2 == '\n' {
                        break;
                    }
                }
                at_line_start = true;
                continue;
            }
            '(' => {
                flush_word(&mut word, &mut cur, &mut games, &mut in_moves);
                let mut depth = 1;
                for (_, c2) in chars.by_ref() {
                    match c2 {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            '$' if word.is_empty() => {
                while chars.peek().is_some_and(|&(_, c2)| c2.is_ascii_digit()) {
                    chars.next();
                }
            }
            c if c.is_whitespace() => {
                flush_word(&mut word, &mut cur, &mut games, &mut in_moves);
                at_line_start = c == '\n';
                continue;
            }
            c => word.push(c),
        }
        at_line_start = false;
    }
    flush_word(&mut word, &mut cur, &mut games, &mut in_moves);
    if !cur.moves.is_empty() || !cur.tags.is_empty() {
        return Err("the last game has no result marker".to_string());
    }
    Ok(games)
}

/// A game replayed through the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    pub variant: VariantKind,
    /// Canonical docs/RULES.md tokens (UCI for chess).
    pub tokens: Vec<String>,
    pub final_fen: String,
    /// The rules' verdict on the final position, if the game is over by rule.
    pub outcome: Option<Outcome>,
}

/// Replays a PGN game with the referee's rules: `[Variant]` (absent = chess) and
/// `[FEN]` select the start; chess moves are SAN (read by shakmaty), variant moves
/// are tokens. Any illegal move is an error.
pub fn replay(game: &PgnGame) -> Result<Replayed, String> {
    let variant = match game.tag("Variant") {
        None => VariantKind::Chess,
        Some(v) => {
            let v = v.to_ascii_lowercase();
            if v == "standard" {
                VariantKind::Chess
            } else {
                v.parse::<VariantKind>()?
            }
        }
    };
    crate::with_variant!(variant, V => replay_v::<V>(game, variant))
}

fn replay_v<V: Variant>(game: &PgnGame, variant: VariantKind) -> Result<Replayed, String> {
    let start = match game.tag("FEN") {
        Some(f) => fen::parse::<V>(f)?,
        None => Position::<V>::startpos(),
    };
    let mut g = Game::new(start);
    let mut tokens = Vec::with_capacity(game.moves.len());
    let mut chess = if variant == VariantKind::Chess {
        let f = fen::format(&start);
        let p: shakmaty::Chess = Fen::from_ascii(f.as_bytes())
            .map_err(|e| e.to_string())?
            .into_position(CastlingMode::Standard)
            .map_err(|e| e.to_string())?;
        Some(p)
    } else {
        None
    };
    for (i, text) in game.moves.iter().enumerate() {
        let token = match chess.as_mut() {
            Some(pos) => {
                let san: San = SanPlus::from_ascii(text.as_bytes())
                    .map_err(|e| format!("move {}: bad SAN '{text}': {e}", i + 1))?
                    .san;
                let m = san
                    .to_move(pos)
                    .map_err(|e| format!("move {}: '{text}': {e}", i + 1))?;
                let uci = m.to_uci(CastlingMode::Standard).to_string();
                pos.play_unchecked(m);
                uci
            }
            None => text.clone(),
        };
        g.play_token(&token)
            .map_err(|e| format!("move {}: {e}", i + 1))?;
        tokens.push(token);
    }
    Ok(Replayed {
        variant,
        tokens,
        final_fen: fen::format(&g.pos),
        outcome: g.outcome(),
    })
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
            Ok(mut g) if g.len() == 1 && RESULTS[..3].contains(&g[0].result.as_str()) => {
                games.push(g.remove(0));
                end = stop;
            }
            _ => break,
        }
    }
    (games, end)
}
