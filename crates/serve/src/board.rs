//! Positions for the page: replay a (variant, FEN, tokens) game through the
//! rules, list the legal tokens, and work out what the last move did by
//! comparing the boards before and after it. Also SAN (chess) and PGN in the
//! match runner's dialect.

use shakmaty::{Color, Square};

use super::protocol::{
    GameEnd, LastMove, Missile, PgnGameInfo, PositionInfo, Squares, MAX_FEN_BYTES, MAX_MOVES,
    MAX_PGN_GAMES,
};
use turncoat_rules::fen;
use turncoat_rules::game::{self, Game, Outcome};
use turncoat_rules::moves::MoveList;
use turncoat_rules::pgn;
use turncoat_rules::position::Position;
use turncoat_rules::variants::{Variant, VariantKind};
use turncoat_rules::with_variant;

/// A game as the page describes it: checked when built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub variant: VariantKind,
    /// Normalised start FEN.
    pub start_fen: String,
    pub moves: Vec<String>,
}

impl Spec {
    pub fn startpos(variant: VariantKind) -> Spec {
        Spec {
            variant,
            start_fen: variant.start_fen().to_string(),
            moves: Vec::new(),
        }
    }
}

pub fn parse_variant(name: &str) -> Result<VariantKind, String> {
    name.parse::<VariantKind>().map_err(String::from)
}

fn start<V: Variant>(fen_text: Option<&str>) -> Result<Position<V>, String> {
    match fen_text.map(str::trim) {
        None | Some("") | Some("startpos") => Ok(Position::<V>::startpos()),
        Some(f) if f.len() > MAX_FEN_BYTES => Err(format!(
            "invalid FEN: longer than {MAX_FEN_BYTES} characters"
        )),
        Some(f) => fen::parse::<V>(f).map_err(|e| format!("invalid FEN '{f}': {e}")),
    }
}

fn replay<V: Variant>(start_pos: Position<V>, moves: &[String]) -> Result<Game<V>, String> {
    if moves.len() > MAX_MOVES {
        return Err(format!("too many moves (at most {MAX_MOVES})"));
    }
    let mut game = Game::new(start_pos);
    for (i, token) in moves.iter().enumerate() {
        game.play_token(token)
            .map_err(|e| format!("move {}: {e}", i + 1))?;
    }
    Ok(game)
}

/// Checks a game and describes its current position.
pub fn describe(
    variant: VariantKind,
    fen_text: Option<&str>,
    moves: &[String],
) -> Result<(Spec, PositionInfo), String> {
    with_variant!(variant, V => describe_v::<V>(variant, fen_text, moves))
}

fn square_name(sq: Square) -> String {
    sq.to_string()
}

fn describe_v<V: Variant>(
    variant: VariantKind,
    fen_text: Option<&str>,
    moves: &[String],
) -> Result<(Spec, PositionInfo), String> {
    let start_pos = start::<V>(fen_text)?;
    let game = replay(start_pos, moves)?;
    let start_fen = fen::format(&start_pos);
    let pos = &game.pos;
    let mut list = MoveList::new();
    V::legal_moves(pos, &mut list);
    let legal = list.iter().map(|&m| game::token(pos, m)).collect();
    let last = match moves.last() {
        None => None,
        Some(token) => {
            let mut before = start_pos;
            for &mv in &game.moves[..game.moves.len() - 1] {
                game::play(&mut before, mv);
            }
            Some(last_move(variant, &before, pos, token))
        }
    };
    let check = if V::in_check(pos) {
        pos.king_of(pos.turn()).map(square_name)
    } else {
        None
    };
    let outcome = game.outcome().map(|o| GameEnd {
        result: o.result().to_string(),
        winner: match o {
            Outcome::Win { winner, .. } => Some(color_name(winner).to_string()),
            Outcome::Draw { .. } => None,
        },
        reason: o.reason().to_string(),
    });
    let fen_now = fen::format(pos);
    let seventh = fen_now.split_whitespace().nth(6).unwrap_or("-");
    let missile = match variant {
        VariantKind::CruisePawns => parse_missile(seventh),
        _ => None,
    };
    let links = match variant {
        VariantKind::AttendingPawns => parse_links(seventh),
        _ => Vec::new(),
    };
    let info = PositionInfo {
        variant: variant.name().to_string(),
        start_fen: start_fen.clone(),
        fen: fen_now,
        moves: moves.to_vec(),
        turn: color_name(pos.turn()).to_string(),
        legal,
        last,
        check,
        outcome,
        missile,
        links,
    };
    let spec = Spec {
        variant,
        start_fen,
        moves: moves.to_vec(),
    };
    Ok((spec, info))
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The squares a token names, in order (`@e5,a2` gives e5, a2).
pub fn token_squares(token: &str) -> Squares {
    let b = token.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if (b'a'..=b'h').contains(&b[i]) && (b'1'..=b'8').contains(&b[i + 1]) {
            out.push(token[i..i + 2].to_string());
            i += 2;
        } else {
            i += 1;
        }
    }
    out
}

/// `e4*e5f6g7` (or `-`) as a missile.
fn parse_missile(field: &str) -> Option<Missile> {
    let (launch, path) = field.split_once('*')?;
    Some(Missile {
        launch: launch.to_string(),
        path: token_squares(path),
    })
}

/// `a1a2,b1b2` as pairs.
fn parse_links(field: &str) -> Vec<[String; 2]> {
    field
        .split(',')
        .filter_map(|l| {
            let sq = token_squares(l);
            match sq.as_slice() {
                [c, p] => Some([c.clone(), p.clone()]),
                _ => None,
            }
        })
        .collect()
}

fn last_move<V: Variant>(
    variant: VariantKind,
    before: &Position<V>,
    after: &Position<V>,
    token: &str,
) -> LastMove {
    let squares = token_squares(token);
    let subversion = token.starts_with('@');
    // Squares pieces leave by moving: the base move's origin (or the launch
    // square) and each relocated attendant's origin; a subversion moves nothing.
    let mut origins: Vec<String> = Vec::new();
    if !subversion {
        origins.extend(squares.first().cloned());
        for extra in token.split(',').skip(1) {
            if extra.len() == 4 {
                origins.extend(token_squares(&extra[..2]));
            }
        }
    }
    let mut converted = Vec::new();
    let mut removed = Vec::new();
    for sq in Square::ALL {
        let name = square_name(sq);
        match (before.piece_at(sq), after.piece_at(sq)) {
            (Some(b), Some(a)) if b.color != a.color && b.role == a.role => {
                // A capture onto a square by a piece of the same kind is no
                // conversion: skip the squares the token moves pieces to,
                // except a subversion's target, which is one.
                let named = squares.iter().skip(1).any(|s| *s == name)
                    || (!subversion && squares.first() == Some(&name));
                let is_target = subversion && squares.first() == Some(&name);
                if is_target || !named {
                    converted.push(name);
                }
            }
            (Some(_), None) if !origins.contains(&name) => removed.push(name),
            _ => {}
        }
    }
    let cascade = if variant == VariantKind::Pacifist && !converted.is_empty() {
        pacifist_cascade(&fen::format(before), token)
            .filter(|rounds| {
                let mut all: Vec<String> = rounds.iter().flatten().cloned().collect();
                all.sort();
                let mut want = converted.clone();
                want.sort();
                all == want
            })
            .unwrap_or_else(|| vec![converted.clone()])
    } else {
        Vec::new()
    };
    let san = san_line(variant, &fen::format(before), &[token.to_string()])
        .pop()
        .unwrap_or_else(|| token.to_string());
    LastMove {
        token: token.to_string(),
        san,
        squares,
        converted,
        cascade,
        removed,
    }
}

/// Pacifist rule 4, round by round, replayed on a copy: the chess part of the
/// move, then each round's overly persuaded pieces of the side that did not move.
fn pacifist_cascade(before_fen: &str, token: &str) -> Option<Vec<Squares>> {
    use turncoat_rules::variants::pacifist::{overly_persuaded, Pacifist};
    let mut pos = fen::parse::<Pacifist>(before_fen).ok()?;
    let mv = game::find_move(&pos, token)?;
    let mover = pos.turn();
    pos.play_base(mv);
    let mut rounds = Vec::new();
    for _ in 0..64 {
        let flip = overly_persuaded(&pos, !mover) & pos.by_color(!mover);
        if flip.is_empty() {
            break;
        }
        rounds.push(flip.into_iter().map(square_name).collect());
        for sq in flip {
            pos.recolor(sq, mover);
        }
    }
    Some(rounds)
}

/// The moves as the board shows them: SAN in chess, tokens in the variants.
pub fn san_line(variant: VariantKind, start_fen: &str, tokens: &[String]) -> Vec<String> {
    turncoat_rules::pgn::move_texts(variant, start_fen, tokens).0
}

/// Reads PGN text and replays each game through the rules (SAN in chess).
pub fn import_pgn(text: &str) -> Result<Vec<PgnGameInfo>, String> {
    let games = pgn::read_pgn(text)?;
    if games.is_empty() {
        return Err("no game found in the PGN".to_string());
    }
    if games.len() > MAX_PGN_GAMES {
        return Err(format!("more than {MAX_PGN_GAMES} games"));
    }
    let mut out = Vec::with_capacity(games.len());
    for (i, g) in games.iter().enumerate() {
        let replayed = pgn::replay(g).map_err(|e| format!("game {}: {e}", i + 1))?;
        let start_fen = match g.tag("FEN") {
            Some(f) => with_variant!(replayed.variant, V => fen::parse::<V>(f)
                .map(|p| fen::format(&p)))
            .map_err(|e| format!("game {}: {e}", i + 1))?,
            None => replayed.variant.start_fen().to_string(),
        };
        out.push(PgnGameInfo {
            tags: g.tags.iter().map(|(k, v)| [k.clone(), v.clone()]).collect(),
            variant: replayed.variant.name().to_string(),
            sans: san_line(replayed.variant, &start_fen, &replayed.tokens),
            start_fen,
            moves: replayed.tokens,
            result: g.result.clone(),
        });
    }
    Ok(out)
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The game as PGN in the match runner's dialect: the seven-tag roster, then
/// `Variant` (not for chess), `SetUp`/`FEN` (when not the start position),
/// `PlyCount`; SAN in chess, tokens in the variants; 79-column lines.
pub fn export_pgn(
    variant: VariantKind,
    fen_text: Option<&str>,
    moves: &[String],
    white: &str,
    black: &str,
) -> Result<String, String> {
    let (spec, info) = describe(variant, fen_text, moves)?;
    let result = info
        .outcome
        .as_ref()
        .map_or("*".to_string(), |o| o.result.clone());
    let date = pgn::today();
    let mut s = String::new();
    let mut tag = |k: &str, v: &str| {
        s.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
    };
    tag("Event", "Turncoat web board");
    tag("Site", "turncoat serve");
    tag("Date", &date);
    tag("Round", "-");
    tag("White", white);
    tag("Black", black);
    tag("Result", &result);
    if variant != VariantKind::Chess {
        tag("Variant", variant.name());
    }
    if spec.start_fen != variant.start_fen() {
        tag("SetUp", "1");
        tag("FEN", &spec.start_fen);
    }
    if info.outcome.is_some() {
        tag("Termination", "normal");
    }
    tag("PlyCount", &moves.len().to_string());
    s.push('\n');
    let fields: Vec<&str> = spec.start_fen.split_whitespace().collect();
    let mut fullmove = fields
        .get(5)
        .and_then(|x| x.parse::<u32>().ok())
        .unwrap_or(1);
    let mut white_to_move = fields.get(1) != Some(&"b");
    let mut words: Vec<String> = Vec::new();
    for (i, text) in san_line(variant, &spec.start_fen, moves)
        .into_iter()
        .enumerate()
    {
        if white_to_move {
            words.push(format!("{fullmove}."));
        } else if i == 0 {
            words.push(format!("{fullmove}..."));
        }
        words.push(text);
        if !white_to_move {
            fullmove += 1;
        }
        white_to_move = !white_to_move;
    }
    if let Some(o) = &info.outcome {
        words.extend(format!("{{{}}}", o.reason).split(' ').map(str::to_string));
    }
    words.push(result);
    turncoat_rules::pgn::push_movetext(&mut s, words);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_of_tokens() {
        assert_eq!(token_squares("e2e4"), vec!["e2", "e4"]);
        assert_eq!(token_squares("@e5,a2,b1"), vec!["e5", "a2", "b1"]);
        assert_eq!(token_squares("e4*e5f6g7"), vec!["e4", "e5", "f6", "g7"]);
        assert_eq!(token_squares("e7e8q,d7"), vec!["e7", "e8", "d7"]);
        assert_eq!(token_squares("d4e5,n"), vec!["d4", "e5"]);
    }

    #[test]
    fn pgn_round_trip() {
        let moves: Vec<String> = ["e2e4", "e7e5", "g1f3"].map(String::from).to_vec();
        let text = export_pgn(VariantKind::Chess, None, &moves, "a", "b").unwrap();
        assert!(text.contains("1. e4 e5 2. Nf3 *"), "{text}");
        let games = import_pgn(&text).unwrap();
        assert_eq!(games[0].moves, moves);
    }
}
