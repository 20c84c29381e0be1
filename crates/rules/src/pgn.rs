//! PGN, read and written: splits PGN text into games (tags, moves, per-move
//! comments, result) and replays a game through the rules, and writes a game
//! ([`write_game`]) with one tag roster, numbering and escaping, so that every
//! tool (the match runner, the tuner, the web board) reads and writes the same
//! dialect. Standard chess is SAN (read by shakmaty, written by
//! [`crate::notation`]); variant moves are docs/RULES.md tokens.

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingMode, Position as _};

use std::fmt;

use crate::fen::{self, FenError};
use crate::game::{Game, MoveError, Outcome};
use crate::position::Position;
use crate::variants::{UnknownVariant, Variant, VariantKind};

/// Why PGN text could not be read, or a game in it not replayed. The message
/// (`Display`) is the sentence a user reads.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PgnError {
    /// A line starting with `[` that is not `[Key "value"]`.
    BadTag { line: String },
    /// A tag whose value is not in double quotes.
    UnquotedTag { line: String },
    /// A `{` comment with no `}`.
    UnterminatedComment,
    /// Moves or tags after the last result marker.
    MissingResult,
    /// The `Variant` tag names no variant Turncoat plays.
    Variant(UnknownVariant),
    /// The `FEN` tag was refused.
    Fen(FenError),
    /// Standard chess: shakmaty, which reads SAN, refuses the start position
    /// (`why` is its reason).
    ChessStart { why: String },
    /// Standard chess: move `ply` (1-based) is not SAN.
    BadSan {
        ply: usize,
        text: String,
        why: String,
    },
    /// Standard chess: move `ply` is SAN that names no legal move (illegal or
    /// ambiguous).
    SanMove {
        ply: usize,
        text: String,
        why: String,
    },
    /// Move `ply` was refused by the rules.
    Move { ply: usize, error: MoveError },
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgnError::BadTag { line } => write!(f, "bad tag line '{line}'"),
            PgnError::UnquotedTag { line } => write!(f, "tag value not quoted in '{line}'"),
            PgnError::UnterminatedComment => f.write_str("unterminated comment"),
            PgnError::MissingResult => f.write_str("the last game has no result marker"),
            PgnError::Variant(e) => e.fmt(f),
            PgnError::Fen(e) => e.fmt(f),
            PgnError::ChessStart { why } => f.write_str(why),
            PgnError::BadSan { ply, text, why } => {
                write!(f, "move {ply}: bad SAN '{text}': {why}")
            }
            PgnError::SanMove { ply, text, why } => write!(f, "move {ply}: '{text}': {why}"),
            PgnError::Move { ply, error } => write!(f, "move {ply}: {error}"),
        }
    }
}

impl std::error::Error for PgnError {}

impl From<UnknownVariant> for PgnError {
    fn from(e: UnknownVariant) -> Self {
        PgnError::Variant(e)
    }
}

impl From<FenError> for PgnError {
    fn from(e: FenError) -> Self {
        PgnError::Fen(e)
    }
}

/// For front ends that still report errors as text.
impl From<PgnError> for String {
    fn from(e: PgnError) -> String {
        e.to_string()
    }
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

fn parse_tag(line: &str) -> Result<(String, String), PgnError> {
    let bad = || PgnError::BadTag {
        line: line.to_string(),
    };
    let inner = line
        .trim()
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(bad)?;
    let (key, rest) = inner
        .trim()
        .split_once(char::is_whitespace)
        .ok_or_else(bad)?;
    let rest = rest.trim();
    let quoted = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| PgnError::UnquotedTag {
            line: line.to_string(),
        })?;
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

/// The game-termination markers.
pub const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// Splits PGN text into games (tags, moves, per-move comments, result).
pub fn read_pgn(text: &str) -> Result<Vec<PgnGame>, PgnError> {
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
                    return Err(PgnError::UnterminatedComment);
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
        return Err(PgnError::MissingResult);
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
pub fn replay(game: &PgnGame) -> Result<Replayed, PgnError> {
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

fn replay_v<V: Variant>(game: &PgnGame, variant: VariantKind) -> Result<Replayed, PgnError> {
    let start = match game.tag("FEN") {
        Some(f) => fen::parse::<V>(f)?,
        None => Position::<V>::startpos(),
    };
    let mut g = Game::new(start);
    let mut tokens = Vec::with_capacity(game.moves.len());
    let mut chess = if variant == VariantKind::Chess {
        let f = fen::format(&start);
        let refused = |why: String| PgnError::ChessStart { why };
        let p: shakmaty::Chess = Fen::from_ascii(f.as_bytes())
            .map_err(|e| refused(e.to_string()))?
            .into_position(CastlingMode::Standard)
            .map_err(|e| refused(e.to_string()))?;
        Some(p)
    } else {
        None
    };
    for (i, text) in game.moves.iter().enumerate() {
        let token = match chess.as_mut() {
            Some(pos) => {
                let san: San = SanPlus::from_ascii(text.as_bytes())
                    .map_err(|e| PgnError::BadSan {
                        ply: i + 1,
                        text: text.clone(),
                        why: e.to_string(),
                    })?
                    .san;
                let m = san.to_move(pos).map_err(|e| PgnError::SanMove {
                    ply: i + 1,
                    text: text.clone(),
                    why: e.to_string(),
                })?;
                let uci = m.to_uci(CastlingMode::Standard).to_string();
                pos.play_unchecked(m);
                uci
            }
            None => V::move_from_text(&g.pos, text)
                .map_or_else(|| text.clone(), |m| crate::game::token(&g.pos, m)),
        };
        g.play_token(&token)
            .map_err(|error| PgnError::Move { ply: i + 1, error })?;
        tokens.push(token);
    }
    Ok(Replayed {
        variant,
        tokens,
        final_fen: fen::format(&g.pos),
        outcome: g.outcome(),
    })
}

/// A game to write as PGN. The seven-tag roster comes first, then `Variant`
/// (not for chess), `SetUp` and `FEN` (when the game did not start from the
/// variant's start position), the writer's own `tags`, and `PlyCount`.
#[derive(Clone, Debug)]
pub struct PgnRecord<'a> {
    pub variant: VariantKind,
    /// The start position's FEN (the variant's seventh field included).
    pub start_fen: &'a str,
    pub event: &'a str,
    pub site: &'a str,
    /// `YYYY.MM.DD` ([`today`]).
    pub date: &'a str,
    pub round: &'a str,
    pub white: &'a str,
    pub black: &'a str,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: &'a str,
    /// Further tags, in order, after the roster and the position's.
    pub tags: Vec<(&'a str, String)>,
    /// The moves as tokens, each with its comment (the match runner's score and
    /// time; none on the web board).
    pub moves: Vec<(&'a str, Option<String>)>,
    /// Said after the last move (how the game ended).
    pub final_comment: Option<&'a str>,
}

/// A game written as PGN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenGame {
    /// The game, ending with a blank line.
    pub text: String,
    /// Why moves from some point stayed tokens instead of the variant's
    /// notation (a start position or move the rules refuse), for the writer's
    /// log; the text is complete either way.
    pub notation_stopped: Option<String>,
}

/// Writes `record` as PGN: tags escaped ([`tag_value`]), moves in the
/// variant's notation, numbered before each White move and before a Black move
/// that opens the game or follows a comment (PGN 8.2.2.2), comments made safe
/// ([`comment_text`]), lines wrapped before 80 columns.
pub fn write_game(record: &PgnRecord<'_>) -> WrittenGame {
    let mut s = String::new();
    let mut tag = |k: &str, v: &str| {
        s.push_str(&format!("[{k} \"{}\"]\n", tag_value(v)));
    };
    tag("Event", record.event);
    tag("Site", record.site);
    tag("Date", record.date);
    tag("Round", record.round);
    tag("White", record.white);
    tag("Black", record.black);
    tag("Result", record.result);
    if record.variant != VariantKind::Chess {
        tag("Variant", record.variant.name());
    }
    if record.start_fen != record.variant.start_fen() {
        tag("SetUp", "1");
        tag("FEN", record.start_fen);
    }
    for (k, v) in &record.tags {
        tag(k, v);
    }
    tag("PlyCount", &record.moves.len().to_string());
    s.push('\n');

    let tokens: Vec<String> = record.moves.iter().map(|(t, _)| t.to_string()).collect();
    let (texts, notation_stopped) =
        crate::notation::line_texts(record.variant, record.start_fen, &tokens);
    let (mut fullmove, mut white_to_move) = move_number(record.start_fen);
    let mut words: Vec<String> = Vec::new();
    let mut after_comment = true;
    for ((_, comment), text) in record.moves.iter().zip(texts) {
        if white_to_move {
            words.push(format!("{fullmove}."));
        } else if after_comment {
            words.push(format!("{fullmove}..."));
        }
        words.push(text);
        after_comment = comment.is_some();
        if let Some(c) = comment {
            push_comment(&mut words, c);
        }
        if !white_to_move {
            fullmove += 1;
        }
        white_to_move = !white_to_move;
    }
    if let Some(c) = record.final_comment {
        push_comment(&mut words, c);
    }
    words.push(record.result.to_string());
    push_movetext(&mut s, words);
    WrittenGame {
        text: s,
        notation_stopped,
    }
}

/// The start's move number and whether White moves first, from the FEN's sixth
/// and second fields (1 and White where they do not say).
fn move_number(start_fen: &str) -> (u32, bool) {
    let f: Vec<&str> = start_fen.split_whitespace().collect();
    (
        f.get(5).and_then(|x| x.parse::<u32>().ok()).unwrap_or(1),
        f.get(1) != Some(&"b"),
    )
}

fn push_comment(words: &mut Vec<String>, comment: &str) {
    words.extend(
        format!("{{{}}}", comment_text(comment))
            .split(' ')
            .map(str::to_string),
    );
}

/// A tag value: quotes and backslashes escaped, control characters (a line
/// break would end the tag) as spaces.
pub fn tag_value(s: &str) -> String {
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
pub fn comment_text(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '{' | '[' => '(',
            '}' | ']' => ')',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// Appends the movetext `words` (move numbers, moves, comments, result) wrapped
/// before 80 columns, then the blank line that ends a game.
fn push_movetext(out: &mut String, words: impl IntoIterator<Item = String>) {
    let mut line = String::new();
    for w in words {
        if !line.is_empty() && line.len() + 1 + w.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    out.push_str(&line);
    out.push_str("\n\n");
}

/// Today's date in PGN form (UTC), computed from the system clock.
pub fn today() -> String {
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    use std::time::{SystemTime, UNIX_EPOCH};
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    use web_time::{SystemTime, UNIX_EPOCH};
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
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
