//! Move notation: what a move is called for people, and what other programs
//! read (docs/RULES.md, "Move notation").
//!
//! Every variant has a *readable* notation ([`Variant::move_text`]): SAN for
//! the piece move, its check mark, then the variant's part (docs/RULES.md,
//! "Notation: readable"), because the canonical tokens say what to play, not
//! what happens. The move list, the web board's PGN and the analysis lines use
//! it. The match runner's PGN keeps the *portable* notation ([`Notation`]):
//! SAN where other programs read the variant (chess; the Andernach variants,
//! as Cutechess writes them), the tokens elsewhere, which every tool that
//! speaks UCI can replay. Reading accepts both ([`read_move`]).

use std::fmt;

use shakmaty::{CastlingSide, Role};

use crate::game;
use crate::moves::{Move, MoveKind, MoveList};
use crate::position::{castle_side, Position};
use crate::variants::{Variant, VariantKind};

/// Which notation a line of moves is written in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Notation {
    /// For people: docs/RULES.md, "Notation: readable".
    Readable,
    /// For other programs: the readable notation where it is one they read
    /// ([`Variant::SHARED_NOTATION`]: SAN, Cutechess's SAN), the canonical
    /// tokens elsewhere. What `turncoat match` writes.
    Portable,
}

/// A readable text in its two parts: the check mark (`+`, `#`) is written
/// between them, as SAN writes it after the piece move (docs/RULES.md,
/// "Notation: readable").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parts {
    /// The piece move in SAN, or the variant's own move (`@Be5`, `e4*e5-Nf6`).
    pub head: String,
    /// The variant's part after the check mark (`~2`, `/b2-d3`, `/Pg2`), or
    /// empty.
    pub tail: String,
}

impl Parts {
    /// A text with no variant part.
    pub fn head(head: String) -> Parts {
        Parts {
            head,
            tail: String::new(),
        }
    }

    /// The text without its check mark: what reading compares.
    fn body(&self) -> String {
        let mut s = String::with_capacity(self.head.len() + self.tail.len());
        s.push_str(&self.head);
        s.push_str(&self.tail);
        s
    }
}

/// Why a text names no move.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotationError {
    /// Neither the readable text nor the token of a legal move of `fen`.
    NoSuchMove { text: String, fen: String },
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::NoSuchMove { text, fen } => write!(
                f,
                "'{text}' is neither the readable text nor the token of a legal move in {fen}"
            ),
        }
    }
}

impl std::error::Error for NotationError {}

/// The legal moves of `pos`.
fn legal<V: Variant>(pos: &Position<V>) -> MoveList {
    let mut list = MoveList::new();
    V::legal_moves(pos, &mut list);
    list
}

/// Standard Algebraic Notation of `mv`, legal in `pos`, under `V`'s rules:
/// the head SAN gives the piece move ([`san_head`]), then `+` or `#` from
/// `V`'s own check and move generation. The readable text of standard chess.
pub fn san<V: Variant>(pos: &Position<V>, mv: Move) -> String {
    let mut out = san_head(pos, mv, &legal(pos));
    out.push_str(check_suffix(pos, mv));
    out
}

/// SAN of `mv` without its check mark: the piece letter, the least
/// disambiguation among the other legal moves (`legal`) of a piece of that kind
/// to the same square (file, else rank, else both), `x` for a capture (en
/// passant included), `=Q` for a promotion; `O-O`, `O-O-O`. A variant's own
/// moves ([`MoveKind::Special`]) never count as rivals.
pub fn san_head<V: Variant>(pos: &Position<V>, mv: Move, legal: &[Move]) -> String {
    let capture = mv.kind == MoveKind::EnPassant || pos.them().contains(mv.to);
    san_head_marked(pos, mv, legal, capture.then_some("x"), |_| true)
}

/// [`san_head`] with the capture sign `capture` (`None` when the move
/// captures nothing) and only the legal moves `rival` accepts counted for
/// disambiguation: Cruise Pawns writes a shoot-down with `x*` and tells it
/// apart from shoot-downs only.
pub fn san_head_marked<V: Variant>(
    pos: &Position<V>,
    mv: Move,
    legal: &[Move],
    capture: Option<&str>,
    rival: impl Fn(Move) -> bool,
) -> String {
    let mut out = String::with_capacity(8);
    if mv.kind == MoveKind::Castle {
        out.push_str(match castle_side(mv) {
            CastlingSide::KingSide => "O-O",
            CastlingSide::QueenSide => "O-O-O",
        });
        return out;
    }
    let role = pos.role_at(mv.from).unwrap_or(Role::Pawn);
    if role == Role::Pawn {
        if capture.is_some() {
            out.push(mv.from.file().char());
        }
    } else {
        out.push(role.upper_char());
        disambiguate(pos, mv, role, legal, rival, &mut out);
    }
    if let Some(sign) = capture {
        out.push_str(sign);
    }
    out.push_str(&mv.to.to_string());
    if let Some(p) = mv.promotion {
        out.push('=');
        out.push(p.upper_char());
    }
    out
}

/// The file, rank or square of `mv.from` that tells it apart from the other
/// legal moves of a `role` to the same square (none when there are none).
fn disambiguate<V: Variant>(
    pos: &Position<V>,
    mv: Move,
    role: Role,
    legal: &[Move],
    rival: impl Fn(Move) -> bool,
    out: &mut String,
) {
    let rivals: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|&m| {
            m.to == mv.to
                && m.from != mv.from
                && !matches!(m.kind, MoveKind::Castle | MoveKind::Special)
                && pos.role_at(m.from) == Some(role)
                && rival(m)
        })
        .collect();
    if rivals.is_empty() {
        return;
    }
    if rivals.iter().all(|m| m.from.file() != mv.from.file()) {
        out.push(mv.from.file().char());
    } else if rivals.iter().all(|m| m.from.rank() != mv.from.rank()) {
        out.push(mv.from.rank().char());
    } else {
        out.push_str(&mv.from.to_string());
    }
}

/// `#` when `mv` checkmates, `+` when it checks, else nothing, as `V` judges
/// check (Pacifist: the opponent has no king; Cruise Pawns: on the board after
/// the missile in flight detonates).
pub fn check_suffix<V: Variant>(pos: &Position<V>, mv: Move) -> &'static str {
    let mut after = *pos;
    V::play(&mut after, mv);
    if !V::in_check(&after) {
        return "";
    }
    let mut replies = MoveList::new();
    V::legal_moves(&after, &mut replies);
    if replies.is_empty() {
        "#"
    } else {
        "+"
    }
}

/// The readable text of `mv`, legal in `pos`, whose legal moves are `legal`.
pub fn readable_among<V: Variant>(pos: &Position<V>, mv: Move, legal: &[Move]) -> String {
    let parts = V::notation_parts(pos, mv, legal);
    let mut s = parts.head;
    s.push_str(check_suffix(pos, mv));
    s.push_str(&parts.tail);
    s
}

/// The readable text of `mv`, legal in `pos` ([`Variant::move_text`]'s default).
pub fn readable<V: Variant>(pos: &Position<V>, mv: Move) -> String {
    readable_among(pos, mv, &legal(pos))
}

/// The readable texts of `moves`, the legal moves of `pos`, in order.
pub fn readable_all<V: Variant>(pos: &Position<V>, moves: &[Move]) -> Vec<String> {
    moves
        .iter()
        .map(|&mv| readable_among(pos, mv, moves))
        .collect()
}

/// `text` as reading compares it: check marks dropped, annotation glyphs
/// (`!`, `?`) after it dropped, castling's zeros made letters.
fn normalised(text: &str) -> String {
    let text = text.trim().trim_end_matches(['!', '?']);
    let mut s: String = text.chars().filter(|&c| c != '+' && c != '#').collect();
    for (zeros, letters) in [("0-0-0", "O-O-O"), ("0-0", "O-O")] {
        if let Some(rest) = s.strip_prefix(zeros) {
            s = format!("{letters}{rest}");
            break;
        }
    }
    s
}

/// The legal move of `pos` that `text` names: its canonical token, or its
/// readable text (check marks optional, trailing `!`/`?` and `0-0` read as
/// PGN writes them). Tokens are tried first: they are what machine-written
/// games hold, and no readable text is another move's token.
pub fn read_move<V: Variant>(pos: &Position<V>, text: &str) -> Result<Move, NotationError> {
    if let Some(mv) = game::find_move(pos, text) {
        return Ok(mv);
    }
    let wanted = normalised(text);
    let moves = legal(pos);
    moves
        .iter()
        .copied()
        .find(|&mv| V::notation_parts(pos, mv, &moves).body() == wanted)
        .ok_or_else(|| NotationError::NoSuchMove {
            text: text.to_string(),
            fen: crate::fen::format(pos),
        })
}

/// The text of `mv` (legal in `pos`) in `notation`.
pub fn text_in<V: Variant>(pos: &Position<V>, mv: Move, notation: Notation) -> String {
    match notation {
        Notation::Portable if !V::SHARED_NOTATION => game::token(pos, mv),
        _ => V::move_text(pos, mv),
    }
}

/// The texts of a line of `tokens` played from `start_fen` under `variant`'s
/// `notation`. When the start or a token is refused, the rest stay tokens and
/// the reason comes back beside them (the match runner logs it; the web board
/// shows the tokens).
pub fn line_texts(
    variant: VariantKind,
    start_fen: &str,
    tokens: &[String],
    notation: Notation,
) -> (Vec<String>, Option<String>) {
    crate::with_variant!(variant, V => line_texts_of::<V>(start_fen, tokens, notation))
}

fn line_texts_of<V: Variant>(
    start_fen: &str,
    tokens: &[String],
    notation: Notation,
) -> (Vec<String>, Option<String>) {
    let mut pos = match crate::fen::parse::<V>(start_fen) {
        Ok(p) => p,
        Err(e) => {
            let why = format!("the start position is refused ({e}); moves stay tokens");
            return (tokens.to_vec(), Some(why));
        }
    };
    let mut out = Vec::with_capacity(tokens.len());
    for (i, t) in tokens.iter().enumerate() {
        let Some(mv) = game::find_move(&pos, t) else {
            out.extend(tokens[i..].iter().cloned());
            let why = format!("move '{t}' is not legal; moves from it stay tokens");
            return (out, Some(why));
        };
        out.push(text_in(&pos, mv, notation));
        V::play(&mut pos, mv);
    }
    (out, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen;
    use crate::variants::chess::Chess;
    use shakmaty::fen::Fen;
    use shakmaty::san::SanPlus;
    use shakmaty::uci::UciMove;
    use shakmaty::CastlingMode;

    /// Our SAN of every legal move of `pos`, each beside shakmaty's.
    fn both(pos: &Position<Chess>) -> Vec<(String, String)> {
        let text = fen::format(pos);
        let theirs: shakmaty::Chess = Fen::from_ascii(text.as_bytes())
            .expect("our FEN reads")
            .into_position(CastlingMode::Standard)
            .expect("a legal chess position");
        let mut list = MoveList::new();
        Chess::legal_moves(pos, &mut list);
        list.iter()
            .map(|&mv| {
                let token = game::token(pos, mv);
                let m = UciMove::from_ascii(token.as_bytes())
                    .expect("a UCI token")
                    .to_move(&theirs)
                    .expect("legal for shakmaty too");
                let expected = SanPlus::from_move(theirs.clone(), m).to_string();
                (san(pos, mv), expected)
            })
            .collect()
    }

    /// Positions chosen for SAN's corners: every kind of disambiguation (file,
    /// rank, square), promotions with and without capture and with check, en
    /// passant, both castlings, checkmate.
    #[test]
    fn san_in_the_corners() {
        let cases: &[(&str, &[&str])] = &[
            (
                "1k6/8/8/8/8/Q1Q5/8/Q3K3 w - - 0 1",
                &["Qa3b2#", "Q1b2#", "Qcb2+", "Qa3c1", "Q1c1", "Qcc1"],
            ),
            (
                "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
                &["O-O", "O-O-O", "Rh8+"],
            ),
            ("3nk3/4P3/8/8/8/8/8/4K3 w - - 0 1", &["exd8=Q+", "exd8=N"]),
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", &["exd6", "e6"]),
            ("6k1/5ppp/8/8/8/8/8/R3K3 w Q - 0 1", &["Ra8#", "O-O-O"]),
            ("k7/8/8/8/8/8/8/N3K2N w - - 0 1", &["Ng3"]),
        ];
        for (text, wanted) in cases {
            let pos = fen::parse::<Chess>(text).expect("test FEN");
            let pairs = both(&pos);
            for (ours, theirs) in &pairs {
                assert_eq!(ours, theirs, "{text}");
            }
            let ours: Vec<&str> = pairs.iter().map(|(o, _)| o.as_str()).collect();
            for w in *wanted {
                assert!(ours.contains(w), "{text}: no {w} in {ours:?}");
            }
        }
    }

    /// Every legal move of every position of 300 pseudo-random games (a fixed
    /// sequence, so a failure repeats) is written as shakmaty writes it.
    #[test]
    fn san_agrees_with_shakmaty_along_random_games() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut compared = 0usize;
        for _ in 0..300 {
            let mut pos = Position::<Chess>::startpos();
            for _ in 0..160 {
                let mut list = MoveList::new();
                Chess::legal_moves(&pos, &mut list);
                if list.is_empty() {
                    break;
                }
                for (ours, theirs) in both(&pos) {
                    assert_eq!(ours, theirs, "{}", fen::format(&pos));
                    compared += 1;
                }
                let mv = list[(next() % list.len() as u64) as usize];
                Chess::play(&mut pos, mv);
            }
        }
        assert!(compared > 500_000, "{compared} moves compared");
    }

    #[test]
    fn a_line_stops_at_the_first_refused_token() {
        let tokens: Vec<String> = ["e2e4", "e7e5", "e1e3", "d7d5"]
            .iter()
            .map(|t| t.to_string())
            .collect();
        let (texts, why) = line_texts(
            VariantKind::Chess,
            Chess::START_FEN,
            &tokens,
            Notation::Readable,
        );
        assert_eq!(texts, ["e4", "e5", "e1e3", "d7d5"]);
        assert_eq!(
            why.as_deref(),
            Some("move 'e1e3' is not legal; moves from it stay tokens")
        );
        let (texts, why) = line_texts(
            VariantKind::CowardlyCrew,
            "8/8 w - - 0 1",
            &tokens[..1],
            Notation::Readable,
        );
        assert_eq!(texts, ["e2e4"]);
        assert!(why.is_some_and(|w| w.starts_with("the start position is refused")));
    }
}
