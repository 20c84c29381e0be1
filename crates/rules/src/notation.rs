//! Move notation: what a move is called for people. A variant names its moves
//! through [`Variant::move_text`]: standard
//! chess in SAN, the conversion variants by their tokens (`docs/RULES.md`,
//! "Notation"), because SAN has no way to say which pieces change sides or what
//! was paid. Every front end (the web board's move list, the PGN writer, the
//! legal moves a live game offers) gets its texts from here, so a move is
//! written the same way everywhere.

use shakmaty::{CastlingSide, Role};

use crate::game;
use crate::moves::{Move, MoveKind, MoveList};
use crate::position::{castle_side, Position};
use crate::variants::{Variant, VariantKind};

/// Standard Algebraic Notation of `mv`, legal in `pos`, under `V`'s rules:
/// piece letter, the least disambiguation that makes it unique (file, else rank,
/// else both), `x` for a capture (en passant included), `=Q` for a promotion,
/// `+` or `#` from `V`'s own check and move generation.
pub fn san<V: Variant>(pos: &Position<V>, mv: Move) -> String {
    let mut out = String::with_capacity(8);
    if mv.kind == MoveKind::Castle {
        out.push_str(match castle_side(mv) {
            CastlingSide::KingSide => "O-O",
            CastlingSide::QueenSide => "O-O-O",
        });
    } else {
        let role = pos.role_at(mv.from).unwrap_or(Role::Pawn);
        let capture = mv.kind == MoveKind::EnPassant || pos.them().contains(mv.to);
        if role == Role::Pawn {
            if capture {
                out.push(mv.from.file().char());
            }
        } else {
            out.push(role.upper_char());
            disambiguate(pos, mv, role, &mut out);
        }
        if capture {
            out.push('x');
        }
        out.push_str(&mv.to.to_string());
        if let Some(p) = mv.promotion {
            out.push('=');
            out.push(p.upper_char());
        }
    }
    out.push_str(check_suffix(pos, mv));
    out
}

/// The file, rank or square of `mv.from` that tells it apart from the other
/// legal moves of a `role` to the same square (none when there are none).
fn disambiguate<V: Variant>(pos: &Position<V>, mv: Move, role: Role, out: &mut String) {
    let mut list = MoveList::new();
    V::legal_moves(pos, &mut list);
    let rivals: Vec<Move> = list
        .iter()
        .copied()
        .filter(|m| {
            m.to == mv.to
                && m.from != mv.from
                && m.kind != MoveKind::Castle
                && pos.role_at(m.from) == Some(role)
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

/// `#` when `mv` checkmates, `+` when it checks, else nothing.
fn check_suffix<V: Variant>(pos: &Position<V>, mv: Move) -> &'static str {
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

/// The texts of a line of `tokens` played from `start_fen` under `variant`'s
/// notation. When the start or a token is refused, the rest stay tokens and the
/// reason comes back beside them (the match runner logs it; the web board shows
/// the tokens).
pub fn line_texts(
    variant: VariantKind,
    start_fen: &str,
    tokens: &[String],
) -> (Vec<String>, Option<String>) {
    crate::with_variant!(variant, V => line_texts_of::<V>(start_fen, tokens))
}

fn line_texts_of<V: Variant>(start_fen: &str, tokens: &[String]) -> (Vec<String>, Option<String>) {
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
        out.push(V::move_text(&pos, mv));
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
        let (texts, why) = line_texts(VariantKind::Chess, Chess::START_FEN, &tokens);
        assert_eq!(texts, ["e4", "e5", "e1e3", "d7d5"]);
        assert_eq!(
            why.as_deref(),
            Some("move 'e1e3' is not legal; moves from it stay tokens")
        );
        let (texts, why) = line_texts(VariantKind::CowardlyCrew, "8/8 w - - 0 1", &tokens[..1]);
        assert_eq!(texts, ["e2e4"]);
        assert!(why.is_some_and(|w| w.starts_with("the start position is refused")));
    }
}
