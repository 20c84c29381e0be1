//! PGN, read and written: splits PGN text into games (tags, moves, per-move
//! comments, result) and replays a game through the rules, and writes a game
//! ([`write_game`]) with one tag roster, numbering and escaping, so that every
//! tool (the match runner, the tuner, the web board) reads and writes the same
//! dialect. Standard chess is SAN (read by shakmaty, written by
//! [`crate::notation`]); a variant's moves are written in the notation the
//! writer asks for ([`Notation`]: readable, or the portable one the match
//! runner keeps) and read in either, readable text or tokens.

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingMode, Position as _};

use std::fmt;

use crate::fen::{self, FenError};
use crate::game::{Game, MoveError, Outcome};
use crate::notation::Notation;
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
    /// Variations that cannot be read: a `)` with none open, one before any
    /// move, or nested deeper than [`MAX_VARIATION_DEPTH`].
    BadVariation { why: String },
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
            PgnError::BadVariation { why } => write!(f, "bad variation: {why}"),
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
    /// Moves as written (SAN, readable text or tokens), move numbers removed.
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

/// A `{...}` comment's text after its opening brace, up to the closing one
/// (consumed), its whitespace runs made single spaces.
fn read_comment(
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
) -> Result<String, PgnError> {
    let mut comment = String::new();
    for (_, c) in chars.by_ref() {
        if c == '}' {
            return Ok(comment.split_whitespace().collect::<Vec<_>>().join(" "));
        }
        comment.push(c);
    }
    Err(PgnError::UnterminatedComment)
}

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
                let comment = read_comment(&mut chars)?;
                if let Some(last) = cur.comments.last_mut() {
                    *last = Some(comment);
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
/// their readable text or tokens. Any illegal move is an error.
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

/// A game's start (its `FEN` tag, else the variant's start position) and, in
/// chess, the same position as shakmaty's, which reads the SAN.
fn game_start<V: Variant>(
    fen_tag: Option<&str>,
    variant: VariantKind,
) -> Result<(Position<V>, Option<shakmaty::Chess>), PgnError> {
    let start = match fen_tag {
        Some(f) => fen::parse::<V>(f)?,
        None => Position::<V>::startpos(),
    };
    if variant != VariantKind::Chess {
        return Ok((start, None));
    }
    let f = fen::format(&start);
    let refused = |why: String| PgnError::ChessStart { why };
    let chess: shakmaty::Chess = Fen::from_ascii(f.as_bytes())
        .map_err(|e| refused(e.to_string()))?
        .into_position(CastlingMode::Standard)
        .map_err(|e| refused(e.to_string()))?;
    Ok((start, Some(chess)))
}

fn replay_v<V: Variant>(game: &PgnGame, variant: VariantKind) -> Result<Replayed, PgnError> {
    let (start, mut chess) = game_start::<V>(game.tag("FEN"), variant)?;
    let mut g = Game::new(start);
    let mut tokens = Vec::with_capacity(game.moves.len());
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
    /// How the moves are written: readable for people (the web board), or
    /// portable, as the match runner keeps its games (tokens in the variants
    /// no other program reads).
    pub notation: Notation,
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
        crate::notation::line_texts(record.variant, record.start_fen, &tokens, record.notation);
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
fn move_number(start_fen: &str) -> (u64, bool) {
    let f: Vec<&str> = start_fen.split_whitespace().collect();
    (
        // 64 bits, as the rules count: a FEN may start at the largest 32-bit
        // move number; 0 is read as 1, as the FEN reader does.
        f.get(5)
            .and_then(|x| x.parse::<u64>().ok())
            .unwrap_or(1)
            .max(1),
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

/// Comment text: braces (which would end the comment, or open another) become
/// parentheses, control characters spaces; PGN has no escape inside a
/// comment. Brackets stay: lichess's commands (`[%clk 0:04:58]`) live in
/// comments, and a written comment never starts a line (the movetext wraps
/// between words, and a comment is one word, its opening brace first), so
/// its `[` cannot read as a tag.
pub fn comment_text(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '{' => '(',
            '}' => ')',
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

// ------------------------------------------------------------ games as trees

/// How deep variations may nest, in PGN read or a game tree written (deeper
/// nesting is refused: each level is a level of recursion).
pub const MAX_VARIATION_DEPTH: usize = 64;

/// The numeric annotation glyphs a move may be written with, by number
/// (`$1` is `!`, ..., `$6` is `?!`).
pub const MOVE_GLYPHS: [(u8, &str); 6] = [
    (1, "!"),
    (2, "?"),
    (3, "!!"),
    (4, "??"),
    (5, "!?"),
    (6, "?!"),
];

/// The NAG a suffix such as `?!` stands for.
pub fn glyph_nag(suffix: &str) -> Option<u8> {
    MOVE_GLYPHS
        .iter()
        .find(|(_, g)| *g == suffix)
        .map(|(n, _)| *n)
}

/// A move of a game read with its variations ([`read_pgn_tree`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnMove {
    /// The move as written, annotation glyphs removed (`Nf3?!` is `Nf3`).
    pub text: String,
    /// Its annotations as NAGs, in order (a suffix `?!` is `$6`).
    pub nags: Vec<u8>,
    /// The comment before the move, where a line starts with one.
    pub before: Option<String>,
    /// The comment after it.
    pub comment: Option<String>,
    /// Other moves in its place, each a line.
    pub variations: Vec<Vec<PgnMove>>,
}

/// A game read with its variations, comments and annotations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnTreeGame {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<PgnMove>,
    /// The result marker; `*` where the game has none.
    pub result: String,
}

impl PgnTreeGame {
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The game without its variations, comments before moves and
    /// annotations ([`replay`] reads it).
    pub fn main_line(&self) -> PgnGame {
        PgnGame {
            tags: self.tags.clone(),
            moves: self.moves.iter().map(|m| m.text.clone()).collect(),
            comments: self.moves.iter().map(|m| m.comment.clone()).collect(),
            result: self.result.clone(),
        }
    }
}

/// Why tolerant PGN reading failed: what no reading can make sense of.
fn variation_error(what: &str) -> PgnError {
    PgnError::BadVariation {
        why: what.to_string(),
    }
}

/// The game being read: its lines from the main line (first) to the
/// variation being read (last), and a comment waiting for the next move.
#[derive(Default)]
struct TreeReader {
    games: Vec<PgnTreeGame>,
    tags: Vec<(String, String)>,
    lines: Vec<Vec<PgnMove>>,
    pending_comment: Option<String>,
}

impl TreeReader {
    fn line(&mut self) -> &mut Vec<PgnMove> {
        if self.lines.is_empty() {
            self.lines.push(Vec::new());
        }
        let last = self.lines.len() - 1;
        &mut self.lines[last]
    }

    fn in_moves(&self) -> bool {
        self.lines.iter().any(|l| !l.is_empty()) || self.lines.len() > 1
    }

    /// Ends the game being read with `result` (variations left open are
    /// closed where they stop).
    fn finish(&mut self, result: &str) -> Result<(), PgnError> {
        while self.lines.len() > 1 {
            self.close_variation()?;
        }
        let moves = self.lines.pop().unwrap_or_default();
        let tags = std::mem::take(&mut self.tags);
        if moves.is_empty() && tags.is_empty() && result == "*" {
            return Ok(());
        }
        self.pending_comment = None;
        self.games.push(PgnTreeGame {
            tags,
            moves,
            result: result.to_string(),
        });
        Ok(())
    }

    fn open_variation(&mut self) -> Result<(), PgnError> {
        if self.line().is_empty() {
            return Err(variation_error("a variation before any move"));
        }
        if self.lines.len() > MAX_VARIATION_DEPTH {
            return Err(variation_error("variations nested too deep"));
        }
        self.lines.push(Vec::new());
        Ok(())
    }

    fn close_variation(&mut self) -> Result<(), PgnError> {
        if self.lines.len() < 2 {
            return Err(variation_error("a ')' with no variation open"));
        }
        let variation = self.lines.pop().unwrap_or_default();
        self.pending_comment = None;
        if !variation.is_empty() {
            if let Some(last) = self.line().last_mut() {
                last.variations.push(variation);
            }
        }
        Ok(())
    }

    fn comment(&mut self, text: String) {
        match self.line().last_mut() {
            Some(last) => {
                last.comment = Some(match last.comment.take() {
                    Some(c) => format!("{c} {text}"),
                    None => text,
                })
            }
            None => self.pending_comment = Some(text),
        }
    }

    fn nag(&mut self, nag: u8) {
        if let Some(last) = self.line().last_mut() {
            last.nags.push(nag);
        }
    }

    /// A word of movetext: a result, a move number, a glyph, a move.
    fn word(&mut self, w: &str) -> Result<(), PgnError> {
        if RESULTS.contains(&w) {
            return self.finish(w);
        }
        if let Some(n) = glyph_nag(w) {
            self.nag(n);
            return Ok(());
        }
        // A move number: `12.`, `12...`, `12.e4`, `12...e5`.
        let digits = w.chars().take_while(|c| c.is_ascii_digit()).count();
        let rest = if digits > 0 && w[digits..].starts_with('.') {
            w[digits..].trim_start_matches('.')
        } else {
            w
        };
        if rest.is_empty() || rest == "e.p." {
            return Ok(());
        }
        // Annotation glyphs written after the move.
        let cut = rest.trim_end_matches(['!', '?']);
        let suffix = &rest[cut.len()..];
        let nags = if suffix.is_empty() {
            Vec::new()
        } else {
            glyph_nag(suffix).into_iter().collect()
        };
        let before = self.pending_comment.take();
        self.line().push(PgnMove {
            text: cut.to_string(),
            nags,
            before,
            ..PgnMove::default()
        });
        Ok(())
    }
}

/// Reads PGN as lichess's import does: tags, moves with their move numbers,
/// comments (`{}` and `;`), variations (`( )`, kept as a tree), annotation
/// glyphs (`Nf3?!`, `$1`), and a last game without its result marker (`*`);
/// a tag section after moves starts the next game even where the result is
/// missing.
pub fn read_pgn_tree(text: &str) -> Result<Vec<PgnTreeGame>, PgnError> {
    let mut r = TreeReader::default();
    let mut chars = text.char_indices().peekable();
    let mut at_line_start = true;
    let mut word = String::new();
    while let Some((i, c)) = chars.next() {
        let starts_line = at_line_start;
        at_line_start = false;
        if !matches!(c, '{' | ';' | '(' | ')' | '$') && !c.is_whitespace() {
            // `[` or `%` at a line's start, or a word's next character.
            if starts_line && word.is_empty() && (c == '[' || c == '%') {
                let end = text[i..].find('\n').map_or(text.len(), |e| i + e);
                if c == '[' {
                    if r.in_moves() {
                        r.finish("*")?;
                    }
                    let tag = parse_tag(&text[i..end])?;
                    r.tags.push(tag);
                }
                while chars.peek().is_some_and(|&(j, _)| j < end) {
                    chars.next();
                }
                continue;
            }
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            r.word(&std::mem::take(&mut word))?;
        }
        match c {
            '{' => {
                let comment = read_comment(&mut chars)?;
                if !comment.is_empty() {
                    r.comment(comment);
                }
            }
            ';' => {
                let mut comment = String::new();
                for (_, c2) in chars.by_ref() {
                    if c2 == '\n' {
                        break;
                    }
                    comment.push(c2);
                }
                let comment = comment.trim();
                if !comment.is_empty() {
                    r.comment(comment.to_string());
                }
                at_line_start = true;
            }
            '(' => r.open_variation()?,
            ')' => r.close_variation()?,
            '$' => {
                let mut digits = String::new();
                while let Some(&(_, d)) = chars.peek().filter(|(_, d)| d.is_ascii_digit()) {
                    digits.push(d);
                    chars.next();
                }
                if let Ok(n) = digits.parse::<u8>() {
                    r.nag(n);
                }
            }
            c => at_line_start = c == '\n',
        }
    }
    if !word.is_empty() {
        r.word(&word)?;
    }
    r.finish("*")?;
    Ok(r.games)
}

/// A move of a replayed game tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeMove {
    /// The canonical docs/RULES.md token (UCI in chess).
    pub token: String,
    /// In readable text (SAN in chess; docs/RULES.md, "Notation: readable").
    pub text: String,
    pub nags: Vec<u8>,
    pub before: Option<String>,
    pub comment: Option<String>,
    pub variations: Vec<Vec<TreeMove>>,
}

/// A game tree replayed through the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayedTree {
    pub variant: VariantKind,
    /// The start position's FEN as the rules write it.
    pub start_fen: String,
    pub moves: Vec<TreeMove>,
    /// The variations cut short where a move could not be played, in the
    /// order met.
    pub cut: Vec<CutVariation>,
}

/// A variation kept only up to the move that could not be played (none of it
/// when that was its first move), as lichess's import keeps what it can read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CutVariation {
    /// How many of its moves were kept.
    pub kept: usize,
    /// Why the next one was refused (it names the move's ply).
    pub error: PgnError,
}

/// The variant a game's `Variant` tag names (absent or `Standard`: chess).
fn variant_of(tag: Option<&str>) -> Result<VariantKind, PgnError> {
    match tag {
        None => Ok(VariantKind::Chess),
        Some(v) => {
            let v = v.to_ascii_lowercase();
            if v == "standard" {
                Ok(VariantKind::Chess)
            } else {
                Ok(v.parse::<VariantKind>()?)
            }
        }
    }
}

/// Replays a game tree as [`replay`] replays a game: every move of the main
/// line must be legal where it is played; a variation is kept up to its first
/// move that is not, and the cut reported ([`ReplayedTree::cut`]).
pub fn replay_tree(game: &PgnTreeGame) -> Result<ReplayedTree, PgnError> {
    let variant = variant_of(game.tag("Variant"))?;
    crate::with_variant!(variant, V => replay_tree_v::<V>(game, variant))
}

/// The position a line is played from: the rules' game, and shakmaty's copy
/// for reading SAN in chess.
#[derive(Clone)]
struct LineStart<V: Variant> {
    game: Game<V>,
    chess: Option<shakmaty::Chess>,
}

fn replay_tree_v<V: Variant>(
    game: &PgnTreeGame,
    variant: VariantKind,
) -> Result<ReplayedTree, PgnError> {
    let (start, chess) = game_start::<V>(game.tag("FEN"), variant)?;
    let from = LineStart {
        game: Game::new(start),
        chess,
    };
    let mut cut = Vec::new();
    let moves = replay_line(from, &game.moves, variant, 0, 0, &mut cut)?;
    Ok(ReplayedTree {
        variant,
        start_fen: fen::format(&start),
        moves,
        cut,
    })
}

/// `0-0` and `0-0-0` (zeros) as SAN writes castling.
fn castling_with_letters(text: &str) -> String {
    if let Some(rest) = text.strip_prefix("0-0-0") {
        format!("O-O-O{rest}")
    } else if let Some(rest) = text.strip_prefix("0-0") {
        format!("O-O{rest}")
    } else {
        text.to_string()
    }
}

/// The token of move `ply` (1-based) written `text` in `at`.
fn token_of<V: Variant>(at: &mut LineStart<V>, text: &str, ply: usize) -> Result<String, PgnError> {
    let text = castling_with_letters(text);
    match at.chess.as_mut() {
        Some(pos) => {
            let san: San = SanPlus::from_ascii(text.as_bytes())
                .map_err(|e| PgnError::BadSan {
                    ply,
                    text: text.clone(),
                    why: e.to_string(),
                })?
                .san;
            let m = san.to_move(pos).map_err(|e| PgnError::SanMove {
                ply,
                text: text.clone(),
                why: e.to_string(),
            })?;
            let uci = m.to_uci(CastlingMode::Standard).to_string();
            pos.play_unchecked(m);
            Ok(uci)
        }
        None => Ok(V::move_from_text(&at.game.pos, &text)
            .map_or_else(|| text.clone(), |m| crate::game::token(&at.game.pos, m))),
    }
}

/// Replays `line` (depth 0: the main line; more: a variation) from `at`. A
/// main line's illegal move is the game's error; a variation's ends the
/// variation there, noted in `cut`.
fn replay_line<V: Variant>(
    mut at: LineStart<V>,
    line: &[PgnMove],
    variant: VariantKind,
    plies_before: usize,
    depth: usize,
    cut: &mut Vec<CutVariation>,
) -> Result<Vec<TreeMove>, PgnError> {
    if depth > MAX_VARIATION_DEPTH {
        return Err(variation_error("variations nested too deep"));
    }
    let fen_at_start = fen::format(&at.game.pos);
    let mut tokens = Vec::with_capacity(line.len());
    let mut out = Vec::with_capacity(line.len());
    for (i, m) in line.iter().enumerate() {
        let ply = plies_before + i + 1;
        // The variations replace this move: played from the position before it.
        let mut variations = Vec::with_capacity(m.variations.len());
        for v in &m.variations {
            let replayed = replay_line(at.clone(), v, variant, ply - 1, depth + 1, cut)?;
            if !replayed.is_empty() {
                variations.push(replayed);
            }
        }
        let played = token_of(&mut at, &m.text, ply).and_then(|token| {
            at.game
                .play_token(&token)
                .map(|_| token)
                .map_err(|error| PgnError::Move { ply, error })
        });
        let token = match played {
            Ok(token) => token,
            Err(error) if depth > 0 => {
                cut.push(CutVariation { kept: i, error });
                break;
            }
            Err(error) => return Err(error),
        };
        tokens.push(token.clone());
        out.push(TreeMove {
            token,
            text: String::new(),
            nags: m.nags.clone(),
            before: m.before.clone(),
            comment: m.comment.clone(),
            variations,
        });
    }
    let (texts, _) =
        crate::notation::line_texts(variant, &fen_at_start, &tokens, Notation::Readable);
    for (m, text) in out.iter_mut().zip(texts) {
        m.text = text;
    }
    Ok(out)
}

/// Writes `record` as [`write_game`] does, with the moves of `tree` (its main
/// line, and variations in parentheses after the move they replace), each
/// move's annotation glyphs (`Nf3?!`, `$10`) and comments before and after
/// it; `record.moves` is not read. `PlyCount` counts the main line.
pub fn write_game_tree(record: &PgnRecord<'_>, tree: &[TreeMove]) -> Result<WrittenGame, PgnError> {
    let main: Vec<(&str, Option<String>)> = tree.iter().map(|m| (m.token.as_str(), None)).collect();
    let header = write_game(&PgnRecord {
        moves: main,
        final_comment: None,
        ..record.clone()
    });
    // The tags as written, up to the blank line before the moves.
    let tags_end = header.text.find("\n\n").map_or(0, |e| e + 2);
    let mut s = header.text[..tags_end].to_string();
    let (fullmove, white_to_move) = move_number(record.start_fen);
    let mut words = Vec::new();
    crate::with_variant!(record.variant, V => {
        let start = fen::parse::<V>(record.start_fen)?;
        let line = Line { variant: record.variant, notation: record.notation };
        tree_words::<V>(Game::new(start), tree, line, fullmove, white_to_move, 0, &mut words)?;
    });
    if let Some(c) = record.final_comment {
        push_comment(&mut words, c);
    }
    words.push(record.result.to_string());
    push_movetext(&mut s, words);
    Ok(WrittenGame {
        text: s,
        notation_stopped: header.notation_stopped,
    })
}

/// The variant and notation a game tree is written in.
#[derive(Copy, Clone)]
struct Line {
    variant: VariantKind,
    notation: Notation,
}

/// The movetext words of `line`, played from `game` (move `fullmove`, White
/// to move or not), variations included.
fn tree_words<V: Variant>(
    mut game: Game<V>,
    line: &[TreeMove],
    how: Line,
    mut fullmove: u64,
    mut white_to_move: bool,
    depth: usize,
    words: &mut Vec<String>,
) -> Result<(), PgnError> {
    if depth > MAX_VARIATION_DEPTH {
        return Err(variation_error("variations nested too deep"));
    }
    let tokens: Vec<String> = line.iter().map(|m| m.token.clone()).collect();
    let (texts, _) =
        crate::notation::line_texts(how.variant, &fen::format(&game.pos), &tokens, how.notation);
    // A Black move is numbered where a line starts or something came between.
    let mut numbered = true;
    for (i, (m, text)) in line.iter().zip(texts).enumerate() {
        if let Some(c) = &m.before {
            push_comment(words, c);
        }
        if white_to_move {
            words.push(format!("{fullmove}."));
        } else if numbered || m.before.is_some() {
            words.push(format!("{fullmove}..."));
        }
        let glyph = m
            .nags
            .first()
            .and_then(|n| MOVE_GLYPHS.iter().find(|(g, _)| g == n))
            .map_or("", |(_, g)| *g);
        words.push(format!("{text}{glyph}"));
        let others = if glyph.is_empty() {
            &m.nags[..]
        } else {
            &m.nags[1..]
        };
        words.extend(others.iter().map(|n| format!("${n}")));
        if let Some(c) = &m.comment {
            push_comment(words, c);
        }
        numbered = m.comment.is_some();
        for v in &m.variations {
            let first = words.len();
            tree_words(
                game.clone(),
                v,
                how,
                fullmove,
                white_to_move,
                depth + 1,
                words,
            )?;
            if words.len() > first {
                words[first].insert(0, '(');
                if let Some(last) = words.last_mut() {
                    last.push(')');
                }
                numbered = true;
            }
        }
        game.play_token(&m.token)
            .map_err(|error| PgnError::Move { ply: i + 1, error })?;
        if !white_to_move {
            fullmove += 1;
        }
        white_to_move = !white_to_move;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LICHESS: &str = "[Event \"Casual game\"]\n[Site \"https://lichess.org/abcdefgh\"]\n\n\
        % an escaped line\n\
        {Opening} 1. e4 e5 2. Nf3?! {a comment} (2. Nc3 Nc6 (2... Nf6 $1) 3. f4) 2... Nc6 $2\n\
        3. Bb5 a6 ; to the line's end\n4. 0-0 0-0-0?? $10\n";

    fn texts(line: &[PgnMove]) -> Vec<&str> {
        line.iter().map(|m| m.text.as_str()).collect()
    }

    fn tokens(line: &[TreeMove]) -> Vec<&str> {
        line.iter().map(|m| m.token.as_str()).collect()
    }

    #[test]
    fn lichess_pgn_is_read_as_a_tree() {
        let games = read_pgn_tree(LICHESS).unwrap();
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(g.result, "*");
        assert_eq!(g.tag("Site"), Some("https://lichess.org/abcdefgh"));
        assert_eq!(
            texts(&g.moves),
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "0-0", "0-0-0"]
        );
        assert_eq!(g.moves[0].before.as_deref(), Some("Opening"));
        let nf3 = &g.moves[2];
        assert_eq!(nf3.nags, [6]);
        assert_eq!(nf3.comment.as_deref(), Some("a comment"));
        assert_eq!(nf3.variations.len(), 1);
        let v = &nf3.variations[0];
        assert_eq!(texts(v), ["Nc3", "Nc6", "f4"]);
        assert_eq!(texts(&v[1].variations[0]), ["Nf6"]);
        assert_eq!(v[1].variations[0][0].nags, [1]);
        assert_eq!(g.moves[3].nags, [2]);
        assert_eq!(g.moves[5].comment.as_deref(), Some("to the line's end"));
        assert_eq!(g.moves[7].nags, [4, 10]);
    }

    #[test]
    fn a_tree_replays_and_is_written_back() {
        let g = &read_pgn_tree(LICHESS).unwrap()[0];
        // 0-0-0 for Black is illegal here: the castling is read, then refused.
        let err = replay_tree(g).unwrap_err();
        assert_eq!(
            err,
            PgnError::SanMove {
                ply: 8,
                text: "O-O-O".to_string(),
                why: "illegal san".to_string(),
            }
        );
        let mut g = g.clone();
        g.moves.pop();
        let t = replay_tree(&g).unwrap();
        assert_eq!(t.variant, VariantKind::Chess);
        assert_eq!(
            tokens(&t.moves),
            ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "e1g1"]
        );
        assert_eq!(t.moves[6].text, "O-O");
        let v = &t.moves[2].variations[0];
        assert_eq!(tokens(v), ["b1c3", "b8c6", "f2f4"]);
        assert_eq!(v[2].text, "f4");
        assert_eq!(tokens(&v[1].variations[0]), ["g8f6"]);
        let start = VariantKind::Chess.start_fen();
        let record = PgnRecord {
            variant: VariantKind::Chess,
            start_fen: start,
            event: "e",
            site: "s",
            date: "2024.01.01",
            round: "-",
            white: "w",
            black: "b",
            result: "*",
            tags: Vec::new(),
            moves: Vec::new(),
            final_comment: None,
            notation: Notation::Readable,
        };
        let written = write_game_tree(&record, &t.moves).unwrap().text;
        assert!(written.contains("[PlyCount \"7\"]"), "{written}");
        let movetext: String = written
            .split("\n\n")
            .nth(1)
            .unwrap()
            .split('\n')
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            movetext,
            "{Opening} 1. e4 e5 2. Nf3?! {a comment} (2. Nc3 Nc6 (2... Nf6!) 3. f4) 2... Nc6? \
             3. Bb5 a6 {to the line's end} 4. O-O *"
        );
        // Read back: the same tree.
        let again = replay_tree(&read_pgn_tree(&written).unwrap()[0]).unwrap();
        assert_eq!(again.moves, t.moves);
    }

    #[test]
    fn games_without_results_and_variants() {
        let text = "[White \"a\"]\n\n1. e4\n\n[White \"b\"]\n[Variant \"subversion\"]\n\n1. e2e4 e7e5 (1... d7d5)";
        let games = read_pgn_tree(text).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(
            (games[0].result.as_str(), texts(&games[0].moves)),
            ("*", vec!["e4"])
        );
        let t = replay_tree(&games[1]).unwrap();
        assert_eq!(t.variant, VariantKind::Subversion);
        assert_eq!(tokens(&t.moves), ["e2e4", "e7e5"]);
        assert_eq!(tokens(&t.moves[1].variations[0]), ["d7d5"]);
        // The strict reader still wants the result (the match runner's
        // resumption finds a cut file by it).
        assert_eq!(read_pgn(text), Err(PgnError::MissingResult));
    }

    #[test]
    fn what_cannot_be_read() {
        let bad = |text: &str| read_pgn_tree(text).unwrap_err();
        assert_eq!(
            bad("1. e4 ) e5"),
            PgnError::BadVariation {
                why: "a ')' with no variation open".to_string()
            }
        );
        assert_eq!(
            bad("(1. d4) 1. e4"),
            PgnError::BadVariation {
                why: "a variation before any move".to_string()
            }
        );
        let deep = format!("1. e4 {}", "(1. d4 ".repeat(MAX_VARIATION_DEPTH + 1));
        assert_eq!(
            bad(&deep),
            PgnError::BadVariation {
                why: "variations nested too deep".to_string()
            }
        );
        assert_eq!(bad("1. e4 {open"), PgnError::UnterminatedComment);
        // A variation left open is closed at the end.
        let g = &read_pgn_tree("1. e4 e5 (1... c5 2. Nf3").unwrap()[0];
        assert_eq!(texts(&g.moves[1].variations[0]), ["c5", "Nf3"]);
        // An illegal move in a variation ends that variation there (all of
        // it when it is its first move), the cut reported with its ply; the
        // rest of the game loads.
        let g = &read_pgn_tree("1. e4 e5 (1... e4) (1... c5 2. Nf3 Qxf7 3. d4) 2. Nf3 (2. Ke3)")
            .unwrap()[0];
        let t = replay_tree(g).unwrap();
        assert_eq!(tokens(&t.moves), ["e2e4", "e7e5", "g1f3"]);
        assert_eq!(t.moves[1].variations.len(), 1);
        assert_eq!(tokens(&t.moves[1].variations[0]), ["c7c5", "g1f3"]);
        assert!(t.moves[2].variations.is_empty());
        let cut: Vec<(usize, usize)> = t
            .cut
            .iter()
            .map(|c| match c.error {
                PgnError::SanMove { ply, .. } => (c.kept, ply),
                ref e => panic!("{e:?}"),
            })
            .collect();
        assert_eq!(cut, [(0, 2), (2, 4), (0, 3)]);
        assert_eq!(
            t.cut[1].error.to_string(),
            PgnError::SanMove {
                ply: 4,
                text: "Qxf7".to_string(),
                why: "illegal san".to_string()
            }
            .to_string()
        );
        // In the main line it is still the game's error.
        let g = &read_pgn_tree("1. e4 e5 2. Ke3").unwrap()[0];
        assert!(matches!(
            replay_tree(g),
            Err(PgnError::SanMove { ply: 3, .. })
        ));
    }
}
