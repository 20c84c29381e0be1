//! Positions for the page: a (variant, FEN, tokens) game is played through the
//! rules' face ([`LiveGame`]), whose answers (legal moves and their squares,
//! what the last move did, the missile in flight, the links) become the page's
//! JSON. Also PGN import, and export in the match runner's dialect.

use shakmaty::{Color, Square};

use super::protocol::{
    Agreed, GameEnd, ImportedMove, LastMove, LegalMove, Missile, MoveKind, PgnGameInfo,
    PositionInfo, Squares, TreeNode, MAX_FEN_BYTES, MAX_MOVES, MAX_PGN_GAMES, MAX_TREE_NODES,
};
use turncoat_rules::game::Outcome;
use turncoat_rules::live::{Action, Extra, Flight, LiveGame, MoveInfo, Start, VariantState};
use turncoat_rules::notation::Notation;
use turncoat_rules::pgn;
use turncoat_rules::variants::VariantKind;

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

    /// The game as JSON (`variant`, `fen`, `moves`), as the browser's page
    /// hands it to the Web Worker that searches.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "variant": self.variant.name(),
            "fen": self.start_fen,
            "moves": self.moves,
        })
        .to_string()
    }

    /// Reads [`Spec::to_json`]'s form, checking the game again.
    pub fn from_json(text: &str) -> Result<Spec, String> {
        #[derive(serde::Deserialize)]
        struct Wire {
            variant: String,
            fen: String,
            moves: Vec<String>,
        }
        let wire: Wire = serde_json::from_str(text).map_err(|e| format!("bad game: {e}"))?;
        let variant = parse_variant(&wire.variant)?;
        describe(variant, Some(&wire.fen), &wire.moves).map(|(spec, _)| spec)
    }
}

pub fn parse_variant(name: &str) -> Result<VariantKind, String> {
    name.parse::<VariantKind>().map_err(String::from)
}

/// The game the page asks for, every part checked: the FEN first, then the
/// number of moves, then each move.
fn replay(
    variant: VariantKind,
    fen_text: Option<&str>,
    moves: &[String],
) -> Result<LiveGame, String> {
    let start = match fen_text.map(str::trim) {
        None | Some("") | Some("startpos") => Start::Startpos,
        Some(f) if f.len() > MAX_FEN_BYTES => {
            return Err(format!(
                "invalid FEN: longer than {MAX_FEN_BYTES} characters"
            ))
        }
        Some(f) => Start::Fen(f),
    };
    let mut game = LiveGame::new(variant, start).map_err(|e| match start {
        Start::Fen(f) => format!("invalid FEN '{f}': {e}"),
        Start::Startpos => e.to_string(),
    })?;
    if moves.len() > MAX_MOVES {
        return Err(format!("too many moves (at most {MAX_MOVES})"));
    }
    for (i, token) in moves.iter().enumerate() {
        game.play(token)
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
    let game = replay(variant, fen_text, moves)?;
    let start_fen = game.start_fen();
    let legal_moves: Vec<LegalMove> = game.legal_moves().iter().map(legal_move).collect();
    let last = game.history().last().map(|played| {
        let fx = &played.effects;
        LastMove {
            token: played.info.token.clone(),
            san: played.info.text.clone(),
            said: played.said.clone(),
            kind: kind(&played.info),
            squares: names(&played.info.squares),
            converted: names(&fx.converted),
            cascade: fx.cascade.iter().map(|round| names(round)).collect(),
            removed: names(&played.emptied()),
        }
    });
    let outcome = game.outcome().map(|o| GameEnd {
        result: o.result().to_string(),
        winner: match o {
            Outcome::Win { winner, .. } => Some(color_name(winner).to_string()),
            Outcome::Draw { .. } => None,
        },
        reason: o.reason().to_string(),
    });
    let (missile, links) = match game.state() {
        VariantState::Missile(flight) => (Some(missile(&flight)), Vec::new()),
        VariantState::Links(links) => (
            None,
            links
                .iter()
                .map(|(c, p)| [c.to_string(), p.to_string()])
                .collect(),
        ),
        VariantState::None => (None, Vec::new()),
    };
    let info = PositionInfo {
        variant: variant.name().to_string(),
        start_fen: start_fen.clone(),
        fen: game.fen(),
        moves: moves.to_vec(),
        sans: game.history().iter().map(|p| p.info.text.clone()).collect(),
        said: game.history().iter().map(|p| p.said.clone()).collect(),
        start_ply: game.start_ply(),
        turn: color_name(game.side_to_move()).to_string(),
        legal: legal_moves.iter().map(|m| m.token.clone()).collect(),
        legal_moves,
        last,
        check: game.checked_king().map(|k| k.to_string()),
        outcome,
        missile,
        links,
        cannot_mate: [Color::White, Color::Black]
            .into_iter()
            .filter(|&c| game.cannot_mate(c))
            .map(|c| color_name(c).to_string())
            .collect(),
    };
    let spec = Spec {
        variant,
        start_fen,
        moves: moves.to_vec(),
    };
    Ok((spec, info))
}

fn names(squares: &[Square]) -> Squares {
    squares.iter().map(Square::to_string).collect()
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn missile(flight: &Flight) -> Missile {
    Missile {
        launch: flight.launch.to_string(),
        path: names(&flight.path),
        target: flight.target.to_string(),
        shootable: names(&flight.shootable),
    }
}

fn kind(info: &MoveInfo) -> MoveKind {
    match &info.action {
        Action::Move { .. } => "move",
        Action::Subvert { .. } => "subversion",
        Action::Launch { path, .. } if path.is_empty() => "detonation",
        Action::Launch { .. } => "launch",
    }
}

/// The page's clicks for a move (see [`LegalMove::steps`]).
fn legal_move(info: &MoveInfo) -> LegalMove {
    let steps = match &info.action {
        Action::Move {
            from,
            to,
            promotion,
        } => {
            let mut steps = vec![from.to_string(), to.to_string()];
            steps.extend(promotion.map(|role| format!("={}", role.char())));
            for extra in &info.extras {
                steps.push(match extra {
                    Extra::Spare => ",n".to_string(),
                    Extra::Relocate { to, .. } => to.to_string(),
                    Extra::Create { at } => at.to_string(),
                });
            }
            steps
        }
        Action::Subvert { target, paid } => std::iter::once(target)
            .chain(paid)
            .map(Square::to_string)
            .collect(),
        // The pawn clicked again arms the missile.
        Action::Launch { from, path } => [from, from]
            .into_iter()
            .chain(path)
            .map(Square::to_string)
            .collect(),
    };
    LegalMove {
        token: info.token.clone(),
        san: info.text.clone(),
        kind: kind(info),
        steps,
    }
}

/// The moves as the board shows them: in readable text (docs/RULES.md,
/// "Notation: readable").
pub fn san_line(variant: VariantKind, start_fen: &str, tokens: &[String]) -> Vec<String> {
    turncoat_rules::notation::line_texts(variant, start_fen, tokens, Notation::Readable).0
}

/// Reads PGN text as tolerantly as lichess (annotation glyphs, `0-0`,
/// comments, variations kept, a missing result) and replays each game, its
/// variations too, through the rules (SAN in chess; readable text or tokens in
/// the variants).
pub fn import_pgn(text: &str) -> Result<Vec<PgnGameInfo>, String> {
    let games = pgn::read_pgn_tree(text)?;
    if games.is_empty() {
        return Err("no game found in the PGN".to_string());
    }
    if games.len() > MAX_PGN_GAMES {
        return Err(format!("more than {MAX_PGN_GAMES} games"));
    }
    let mut out = Vec::with_capacity(games.len());
    for (i, g) in games.iter().enumerate() {
        let replayed = pgn::replay_tree(g).map_err(|e| format!("game {}: {e}", i + 1))?;
        let start_fen = LiveGame::new(replayed.variant, Start::Fen(&replayed.start_fen))
            .map(|game| game.start_fen())
            .map_err(|e| format!("game {}: {e}", i + 1))?;
        let tree = imported(&replayed.moves);
        out.push(PgnGameInfo {
            tags: g.tags.iter().map(|(k, v)| [k.clone(), v.clone()]).collect(),
            variant: replayed.variant.name().to_string(),
            moves: tree.iter().map(|m| m.token.clone()).collect(),
            sans: tree.iter().map(|m| m.san.clone()).collect(),
            start_fen,
            result: g.result.clone(),
            tree,
            cut: replayed
                .cut
                .iter()
                .map(|c| match c.kept {
                    0 => format!("a variation was left out: {}", c.error),
                    1 => format!("a variation was cut after its first move: {}", c.error),
                    n => format!("a variation was cut after {n} moves: {}", c.error),
                })
                .collect(),
        });
    }
    Ok(out)
}

fn imported(line: &[pgn::TreeMove]) -> Vec<ImportedMove> {
    line.iter()
        .map(|m| ImportedMove {
            token: m.token.clone(),
            san: m.text.clone(),
            glyph: m.nags.first().and_then(|n| {
                pgn::MOVE_GLYPHS
                    .iter()
                    .find(|(g, _)| g == n)
                    .map(|(_, g)| g.to_string())
            }),
            nags: m.nags.clone(),
            before: m.before.clone(),
            comment: m.comment.clone(),
            variations: m.variations.iter().map(|v| imported(v)).collect(),
        })
        .collect()
}

/// The page's flat tree as the PGN writer's: lines of moves, variations after
/// the move they replace. Checks the shape (each parent before its
/// children), the size and the nesting; the moves are checked when written.
fn tree_of(nodes: &[TreeNode]) -> Result<Vec<pgn::TreeMove>, String> {
    if nodes.len() > MAX_TREE_NODES {
        return Err(format!(
            "too many moves in the tree (at most {MAX_TREE_NODES})"
        ));
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len() + 1];
    for (i, n) in nodes.iter().enumerate() {
        let parent = usize::try_from(n.parent + 1)
            .ok()
            .filter(|&p| p <= i)
            .ok_or_else(|| format!("tree node {i}: its parent {} is not before it", n.parent))?;
        children[parent].push(i);
    }
    // Children of the start are at 0, of node i at i + 1.
    fn line(
        first: usize,
        nodes: &[TreeNode],
        children: &[Vec<usize>],
        depth: usize,
    ) -> Result<Vec<pgn::TreeMove>, String> {
        if depth > pgn::MAX_VARIATION_DEPTH {
            return Err("variations nested too deep".to_string());
        }
        let mut out = Vec::new();
        let mut at = Some(first);
        let mut siblings: &[usize] = &[];
        while let Some(i) = at {
            let variations = siblings
                .iter()
                .map(|&s| line(s, nodes, children, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            let n = &nodes[i];
            out.push(pgn::TreeMove {
                token: n.token.clone(),
                text: String::new(),
                nags: n.nags.clone(),
                before: n.before.clone(),
                comment: n.comment.clone(),
                variations,
            });
            let next = &children[i + 1];
            at = next.first().copied();
            siblings = next.get(1..).unwrap_or(&[]);
        }
        Ok(out)
    }
    let top = &children[0];
    let Some(&first) = top.first() else {
        return Ok(Vec::new());
    };
    let mut main = line(first, nodes, &children, 0)?;
    // The start's other children are variations of the first move.
    for &s in &top[1..] {
        main[0].variations.push(line(s, nodes, &children, 1)?);
    }
    if main.len() > MAX_MOVES {
        return Err(format!("too many moves (at most {MAX_MOVES})"));
    }
    Ok(main)
}

/// The game as PGN in the match runner's dialect (the rules' one writer): the
/// seven-tag roster, `Variant`, `SetUp`/`FEN`, `Termination` when the game is
/// over, `PlyCount`; the moves in readable text (the match runner keeps
/// tokens in the variants; the import reads both). A game the rules
/// have not ended may have ended by the players' choice (`ended`). With a
/// `tree`, its main line is the game, written with its variations, comments
/// and glyphs.
/// Who played an exported game, and what the board knows of it beyond the
/// moves: how the players ended it, and its time control.
#[derive(Clone, Copy, Debug, Default)]
pub struct Players<'a> {
    pub white: &'a str,
    pub black: &'a str,
    pub ended: Option<Agreed>,
    /// PGN's TimeControl: seconds a side, `+` the increment (`300+3`).
    pub time_control: Option<&'a str>,
}

impl<'a> Players<'a> {
    pub fn named(white: &'a str, black: &'a str) -> Self {
        Players {
            white,
            black,
            ..Players::default()
        }
    }
}

/// Longest TimeControl tag value accepted for export.
const MAX_TIME_CONTROL_LEN: usize = 24;

/// Whether `tc` is PGN's `seconds` or `seconds+increment` (what the board's
/// clocks write).
fn valid_time_control(tc: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.len() <= 10 && t.bytes().all(|b| b.is_ascii_digit());
    tc.len() <= MAX_TIME_CONTROL_LEN
        && match tc.split_once('+') {
            Some((base, inc)) => digits(base) && digits(inc),
            None => digits(tc),
        }
}

pub fn export_pgn(
    variant: VariantKind,
    fen_text: Option<&str>,
    moves: &[String],
    players: &Players,
    tree: Option<&[TreeNode]>,
) -> Result<String, String> {
    let Players {
        white,
        black,
        ended,
        time_control,
    } = *players;
    if let Some(tc) = time_control.filter(|tc| !valid_time_control(tc)) {
        return Err(format!(
            "time_control {:?} is not seconds or seconds+increment",
            tc.chars()
                .take(MAX_TIME_CONTROL_LEN + 1)
                .collect::<String>()
        ));
    }
    let tree = tree.map(tree_of).transpose()?;
    let main: Vec<String> = match &tree {
        Some(t) => t.iter().map(|m| m.token.clone()).collect(),
        None => moves.to_vec(),
    };
    let game = replay(variant, fen_text, &main)?;
    let start_fen = game.start_fen();
    let outcome = game.outcome();
    // The rules' end wins over the players'.
    let ended = ended.filter(|_| outcome.is_none());
    let date = pgn::today();
    let mut tags = Vec::new();
    if let Some(tc) = time_control {
        tags.push(("TimeControl", tc.to_string()));
    }
    if outcome.is_some() || ended.is_some() {
        let how = if ended.is_some_and(Agreed::on_time) {
            "time forfeit"
        } else {
            "normal"
        };
        tags.push(("Termination", how.to_string()));
    }
    let record = pgn::PgnRecord {
        variant,
        start_fen: &start_fen,
        event: "Turncoat web board",
        site: "turncoat serve",
        date: &date,
        round: "-",
        white,
        black,
        result: outcome
            .map(|o| o.result())
            .or(ended.map(Agreed::result))
            .unwrap_or("*"),
        tags,
        moves: main.iter().map(|m| (m.as_str(), None)).collect(),
        final_comment: outcome
            .as_ref()
            .map(|o| o.reason())
            .or(ended.map(Agreed::reason)),
        notation: Notation::Readable,
    };
    match tree {
        Some(t) => Ok(pgn::write_game_tree(&record, &t)?.text),
        None => Ok(pgn::write_game(&record).text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chess game tree from the start, as the page exports it.
    fn export_tree(nodes: &[TreeNode]) -> Result<String, String> {
        export_pgn(
            VariantKind::Chess,
            None,
            &[],
            &Players::named("a", "b"),
            Some(nodes),
        )
    }

    fn steps(variant: VariantKind, fen: Option<&str>, token: &str) -> Vec<String> {
        let (_, info) = describe(variant, fen, &[]).unwrap();
        info.legal_moves
            .into_iter()
            .find(|m| m.token == token)
            .unwrap_or_else(|| panic!("{token}"))
            .steps
    }

    /// The clicks of each kind of token, as the page entered them when it
    /// split the tokens itself.
    #[test]
    fn steps_of_moves() {
        use VariantKind::*;
        assert_eq!(steps(Chess, None, "e2e4"), ["e2", "e4"]);
        let cc = Some("7k/8/3p1n2/4n3/3P1r2/8/8/K7 w - - 0 1");
        assert_eq!(steps(CowardlyCrew, cc, "d4e5,n"), ["d4", "e5", ",n"]);
        let sv = Some("7k/8/8/2p1r3/3N4/8/6PP/RNB1K3 w - - 0 1");
        assert_eq!(
            steps(Subversion, sv, "@e5,g2,h2,d4"),
            ["e5", "g2", "h2", "d4"]
        );
        assert_eq!(steps(AttendingPawns, None, "b1c3,b2d3"), ["b1", "c3", "d3"]);
        let ap = Some("5r2/4P3/8/7k/8/8/8/K6N w - - 0 1 h1e7");
        assert_eq!(
            steps(AttendingPawns, ap, "e7f8q,g7"),
            ["e7", "f8", "=q", "g7"]
        );
        let cp = Some("7r/P7/8/8/8/8/8/K6k w - - 0 1 -");
        assert_eq!(
            steps(CruisePawns, cp, "a7*b8c8d8e8f8g8h8"),
            ["a7", "a7", "b8", "c8", "d8", "e8", "f8", "g8", "h8"]
        );
        assert_eq!(steps(CruisePawns, cp, "a7*"), ["a7", "a7"]);
        assert_eq!(steps(CruisePawns, cp, "a7a8q"), ["a7", "a8", "=q"]);
    }

    /// Castling moves the rook: its start square is not marked as a removed
    /// piece's (the board diff that came before the rules' effects marked it).
    #[test]
    fn castling_removes_nothing() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let moves = ["e1g1".to_string()];
        let (_, info) = describe(VariantKind::Chess, Some(fen), &moves).unwrap();
        let last = info.last.expect("a last move");
        assert_eq!(last.san, "O-O");
        assert_eq!(last.squares, ["e1", "g1"]);
        assert!(last.removed.is_empty(), "{:?}", last.removed);
    }

    #[test]
    fn what_the_page_gets_beside_the_tokens() {
        // Kinds of the last move; the missile's target and shootable squares.
        let fen = "7r/P7/8/8/8/8/8/K6k w - - 0 1 -";
        let launch = ["a7*b6c5d5e5f6g7h8".to_string()];
        let (_, info) = describe(VariantKind::CruisePawns, Some(fen), &launch).unwrap();
        assert_eq!(info.last.as_ref().unwrap().kind, "launch");
        let missile = info.missile.expect("in flight");
        assert_eq!(missile.target, "h8");
        assert_eq!(missile.shootable, ["b6", "c5", "d5", "e5", "f6", "g7"]);
        let (_, info) =
            describe(VariantKind::CruisePawns, Some(fen), &["a7*".to_string()]).unwrap();
        assert_eq!(info.last.unwrap().kind, "detonation");
        let sv = "1r5k/8/2n5/3pb3/3N4/8/6PP/K7 w - - 0 1";
        let (_, info) =
            describe(VariantKind::Subversion, Some(sv), &["@e5,g2".to_string()]).unwrap();
        assert_eq!(info.last.unwrap().kind, "subversion");
        // The legal moves come in the order of `legal`, with their SAN.
        let (_, info) = describe(VariantKind::Chess, None, &[]).unwrap();
        let tokens: Vec<&str> = info.legal_moves.iter().map(|m| m.token.as_str()).collect();
        assert_eq!(tokens, info.legal);
        let nf3 = info.legal_moves.iter().find(|m| m.token == "g1f3").unwrap();
        assert_eq!((nf3.san.as_str(), nf3.kind), ("Nf3", "move"));
        // Plies before the start: move 12, Black to move.
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12";
        let (_, info) = describe(VariantKind::Chess, Some(fen), &[]).unwrap();
        assert_eq!(info.start_ply, 23);
        // Counted in 64 bits: the largest fullmove number a FEN may carry.
        let fen = "4k3/8/8/8/8/8/8/4K3 b - - 0 4294967295";
        let (_, info) = describe(VariantKind::Chess, Some(fen), &[]).unwrap();
        assert_eq!(info.start_ply, 8_589_934_589);
    }

    /// A variant's moves as the page lists them (readable text) and what the
    /// status line says of the last one; its PGN written and read back in
    /// readable text.
    #[test]
    fn variant_moves_readable_and_said() {
        let fen = "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7";
        let moves = ["d8f6".to_string(), "a1a2".to_string()];
        let (_, info) = describe(VariantKind::CruisePawns, Some(fen), &moves).unwrap();
        assert_eq!(info.sans, ["Bx*f6+", "Ka2"]);
        assert_eq!(
            info.said,
            [
                "the bishop on d8 shoots the missile down on f6",
                "the king on a1 goes to a2"
            ]
        );
        let moves = ["h8g8".to_string()];
        let (_, info) = describe(VariantKind::CruisePawns, Some(fen), &moves).unwrap();
        let last = info.last.expect("a last move");
        assert_eq!(last.san, "*Kg8");
        assert_eq!(
            last.said,
            "the missile detonates on g7: the knight is removed; the king on h8 goes to g8"
        );
        let launch = info.legal_moves.iter().find(|m| m.token == "a1b2");
        assert_eq!(launch.map(|m| m.san.as_str()), Some("Kb2"));
        // Subversion: exported readable, imported back as the same tokens.
        let fen = "1r5k/8/2n5/3pb3/3N4/8/6PP/K7 w - - 0 1";
        let moves = ["@e5,g2".to_string(), "h8g8".to_string()];
        let text = export_pgn(
            VariantKind::Subversion,
            Some(fen),
            &moves,
            &Players::named("a", "b"),
            None,
        )
        .unwrap();
        assert!(text.contains("1. @Be5+/Pg2 Kg8 *"), "{text}");
        let games = import_pgn(&text).unwrap();
        assert_eq!(games[0].moves, moves);
        assert_eq!(games[0].sans, ["@Be5+/Pg2", "Kg8"]);
    }

    fn node(parent: i64, token: &str) -> TreeNode {
        TreeNode {
            parent,
            token: token.to_string(),
            nags: Vec::new(),
            before: None,
            comment: None,
        }
    }

    /// lichess's PGN in: glyphs, `0-0`, comments, variations, no result; the
    /// page's tree out, the same again.
    #[test]
    fn a_game_tree_in_and_out() {
        let text =
            "[Event \"x\"]\n\n1. e4 e5 2. Nf3?! {a comment} (2. Nc3 $1) 2... Nc6 3. Bc4 Bc5 4. 0-0";
        let games = import_pgn(text).unwrap();
        let g = &games[0];
        assert_eq!(g.result, "*");
        assert_eq!(
            g.moves,
            ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1"]
        );
        assert_eq!(g.sans[6], "O-O");
        let nf3 = &g.tree[2];
        assert_eq!(
            (nf3.glyph.as_deref(), nf3.nags.as_slice()),
            (Some("?!"), &[6][..])
        );
        assert_eq!(nf3.comment.as_deref(), Some("a comment"));
        assert_eq!(nf3.variations[0][0].san, "Nc3");
        assert_eq!(nf3.variations[0][0].glyph.as_deref(), Some("!"));
        // The page's flat tree of the same game, plus 1. d4 as a variation of
        // the first move.
        let mut nodes = vec![node(-1, "e2e4"), node(0, "e7e5"), node(1, "g1f3")];
        nodes[2].nags = vec![6];
        nodes[2].comment = Some("a comment".to_string());
        nodes.push(node(2, "b8c6"));
        nodes.push(node(1, "b1c3"));
        nodes[4].nags = vec![1];
        nodes.push(node(-1, "d2d4"));
        let text = export_tree(&nodes).unwrap();
        assert!(
            text.contains("1. e4 (1. d4) 1... e5 2. Nf3?! {a comment} (2. Nc3!) 2... Nc6 *"),
            "{text}"
        );
        assert!(text.contains("[PlyCount \"4\"]"), "{text}");
        let back = import_pgn(&text).unwrap();
        assert_eq!(back[0].moves, ["e2e4", "e7e5", "g1f3", "b8c6"]);
        assert_eq!(back[0].tree[0].variations[0][0].token, "d2d4");
        // Refused: a parent after its child, an illegal move in a variation.
        let bad = vec![node(1, "e2e4"), node(-1, "d2d4")];
        assert!(export_tree(&bad).unwrap_err().contains("parent"));
        let bad = vec![node(-1, "e2e4"), node(-1, "e7e5")];
        assert!(export_tree(&bad).is_err());
        // Variations in variations: node 2k + 1 has two children, the second
        // a variation one level deeper than the last.
        let deep: Vec<TreeNode> = (0..150)
            .map(|j: i64| node(if j < 2 { -1 } else { 2 * ((j - 2) / 2) + 1 }, "e2e4"))
            .collect();
        let refused = export_tree(&deep);
        assert_eq!(refused, Err("variations nested too deep".to_string()));
    }

    #[test]
    fn pgn_round_trip() {
        let moves: Vec<String> = ["e2e4", "e7e5", "g1f3"].map(String::from).to_vec();
        let text = export_pgn(
            VariantKind::Chess,
            None,
            &moves,
            &Players::named("a", "b"),
            None,
        )
        .unwrap();
        assert!(text.contains("1. e4 e5 2. Nf3 *"), "{text}");
        let games = import_pgn(&text).unwrap();
        assert_eq!(games[0].moves, moves);
        // Numbering from a start with Black to move at move 12.
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12";
        let moves: Vec<String> = ["e7e5", "g1f3"].map(String::from).to_vec();
        let text = export_pgn(
            VariantKind::Chess,
            Some(fen),
            &moves,
            &Players::named("a", "b"),
            None,
        )
        .unwrap();
        assert!(text.contains("12... e5 13. Nf3 *"), "{text}");
        // A resignation: the result and why; the rules' end wins over it.
        let moves: Vec<String> = ["e2e4", "e7e5"].map(String::from).to_vec();
        let text = export_pgn(
            VariantKind::Chess,
            None,
            &moves,
            &Players {
                ended: Some(Agreed::WhiteResigns),
                ..Players::named("a", "b")
            },
            None,
        )
        .unwrap();
        assert!(text.contains("[Result \"0-1\"]"), "{text}");
        assert!(text.contains("[Termination \"normal\"]"), "{text}");
        assert!(text.contains("1. e4 e5 {White resigns} 0-1"), "{text}");
        let mate: Vec<String> = ["f2f3", "e7e5", "g2g4", "d8h4"].map(String::from).to_vec();
        let text = export_pgn(
            VariantKind::Chess,
            None,
            &mate,
            &Players {
                ended: Some(Agreed::DrawAgreed),
                ..Players::named("a", "b")
            },
            None,
        )
        .unwrap();
        assert!(text.contains("[Result \"0-1\"]"), "{text}");
        assert!(!text.contains("Draw agreed"), "{text}");
        // A flag fall on a clock: the time control, the forfeit and why.
        let moves: Vec<String> = ["e2e4", "e7e5", "g1f3"].map(String::from).to_vec();
        let players = Players {
            ended: Some(Agreed::BlackFlag),
            time_control: Some("180+2"),
            ..Players::named("a", "b")
        };
        let text = export_pgn(VariantKind::Chess, None, &moves, &players, None).unwrap();
        assert!(text.contains("[Result \"1-0\"]"), "{text}");
        assert!(text.contains("[TimeControl \"180+2\"]"), "{text}");
        assert!(text.contains("[Termination \"time forfeit\"]"), "{text}");
        assert!(text.contains("2. Nf3 {Black's time is up} 1-0"), "{text}");
        let players = Players {
            ended: Some(Agreed::WhiteFlagDrawn),
            time_control: Some("60+0"),
            ..Players::named("a", "b")
        };
        let text = export_pgn(VariantKind::Chess, None, &moves, &players, None).unwrap();
        assert!(text.contains("[Result \"1/2-1/2\"]"), "{text}");
        assert!(text.contains("[Termination \"time forfeit\"]"), "{text}");
        assert!(
            text.contains("{White's time is up, but Black cannot checkmate} 1/2-1/2"),
            "{text}"
        );
        for bad in ["", "3m", "180+", "+2", "1+2+3", "99999999999", "180 + 2"] {
            let players = Players {
                time_control: Some(bad),
                ..Players::named("a", "b")
            };
            let refused = export_pgn(VariantKind::Chess, None, &moves, &players, None);
            assert!(refused.is_err(), "{bad:?}");
        }
    }
}
