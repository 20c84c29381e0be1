//! The JSON messages of the web board, one object per message with a `type`
//! field, the same over the server's WebSocket and to the page's WebAssembly
//! engine. The page sends [`Request`]s; the backend answers with
//! [`Response`]s. Anything that does not parse is answered with
//! `{"type":"error",...}` and changes nothing.

use super::explorer::{Added, ExploredMove};
use serde::{Deserialize, Serialize};

/// Largest WebSocket message the server reads (a PGN upload is the big one).
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;
/// Longest move list a `position` request may carry.
pub const MAX_MOVES: usize = 2000;
/// Longest FEN accepted.
pub const MAX_FEN_BYTES: usize = 256;
/// MultiPV range for analysis.
pub const MAX_MULTIPV: u32 = 5;
/// Largest hash table a tab may ask for, in MB.
pub const MAX_HASH_MB: u64 = 256;
/// Default hash table per tab, in MB.
pub const DEFAULT_HASH_MB: u64 = 32;
/// Longest thinking time for one engine move, in ms.
pub const MAX_MOVETIME_MS: u64 = 60_000;
/// Largest node budget for one engine move or one position's evaluation.
pub const MAX_NODES: u64 = 200_000_000;
/// Longest time on a play clock, in ms (a day: more than any game needs).
pub const MAX_CLOCK_MS: u64 = 86_400_000;
/// Largest increment a play clock may add per move, in ms.
pub const MAX_INCREMENT_MS: u64 = 600_000;
/// Most games read from one PGN upload.
pub const MAX_PGN_GAMES: usize = 1000;

/// What the page asks.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Set the position: the variant, its start FEN (absent = the variant's
    /// start position) and the tokens played from it. Answered by `position`.
    Position {
        #[serde(default)]
        id: Option<u64>,
        variant: String,
        #[serde(default)]
        fen: Option<String>,
        #[serde(default)]
        moves: Vec<String>,
    },
    /// Infinite analysis of the current position; streams `analysis`.
    Analyse {
        #[serde(default)]
        multipv: Option<u32>,
    },
    /// Stops analysis or an engine move; answered by `stopped`.
    Stop,
    /// The engine's move in the current position (play mode): `movetime` in ms,
    /// `nodes`, or a clock (`wtime` and `btime`, the time left in ms, with
    /// `winc`/`binc`, the increments, as UCI's `go` has them: the engine then
    /// spends its own clock). Answered by `bestmove`.
    Go {
        #[serde(default)]
        id: Option<u64>,
        #[serde(default)]
        movetime: Option<u64>,
        #[serde(default)]
        nodes: Option<u64>,
        #[serde(default)]
        wtime: Option<u64>,
        #[serde(default)]
        btime: Option<u64>,
        #[serde(default)]
        winc: Option<u64>,
        #[serde(default)]
        binc: Option<u64>,
    },
    /// Engine settings for this tab.
    Options {
        #[serde(default)]
        hash: Option<u64>,
        #[serde(default)]
        threads: Option<u64>,
    },
    /// Reads PGN text; answered by `pgn`.
    PgnImport { text: String },
    /// Adds the games of PGN text (one file, or a part of one cut between
    /// games: a message is at most [`MAX_MESSAGE_BYTES`]) to the tab's
    /// opening explorer; answered by `explorer`.
    ExplorerAdd { text: String },
    /// Empties the tab's opening explorer; answered by `explorer`.
    ExplorerClear,
    /// The moves the explorer's games played from `fen`; answered by
    /// `explored`.
    Explore {
        #[serde(default)]
        id: Option<u64>,
        variant: String,
        fen: String,
    },
    /// The value of one position of a game (not necessarily the one shown):
    /// a search of `nodes` nodes, or the result when the game is over there.
    /// Answered by `evaluation`; a whole-game analysis asks one position
    /// after another.
    Evaluate {
        #[serde(default)]
        id: Option<u64>,
        variant: String,
        #[serde(default)]
        fen: Option<String>,
        #[serde(default)]
        moves: Vec<String>,
        nodes: u64,
    },
    /// The judgements and accuracies of a game from its positions' values
    /// (the start first; null where not known yet); answered by
    /// `game_report`.
    GameReport {
        values: Vec<Option<PositionValue>>,
        /// White moves first from the start position.
        white_first: bool,
    },
    /// Writes the given game as PGN; answered by `pgn_text`.
    PgnExport {
        variant: String,
        #[serde(default)]
        fen: Option<String>,
        #[serde(default)]
        moves: Vec<String>,
        #[serde(default)]
        white: Option<String>,
        #[serde(default)]
        black: Option<String>,
        /// How the game ended off the board (a resignation, a draw agreed, a
        /// flag fall), when the rules did not end it.
        #[serde(default)]
        ended: Option<Agreed>,
        /// The clocks' time control as PGN writes it (`300+3`), if any.
        #[serde(default)]
        time_control: Option<String>,
        /// The whole game with its variations, comments and annotations; when
        /// given, its main line is the game written and `moves` is not read.
        #[serde(default)]
        tree: Option<Vec<TreeNode>>,
    },
}

/// Most moves in a game tree sent for export, variations included.
pub const MAX_TREE_NODES: usize = 10 * MAX_MOVES;

/// A move of a game tree as the page sends it: a flat list in preorder, each
/// move naming its parent's place in the list (-1: the start position); a
/// move's first child continues its line, the others are variations.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TreeNode {
    pub parent: i64,
    pub token: String,
    /// Annotation glyphs as NAGs (`$6` is `?!`).
    #[serde(default)]
    pub nags: Vec<u8>,
    #[serde(default)]
    pub before: Option<String>,
    #[serde(default)]
    pub comment: Option<String>,
}

/// A game's end that came from the players or their clocks, not the rules.
#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Agreed {
    WhiteResigns,
    BlackResigns,
    DrawAgreed,
    /// White's flag fell (the clock reached zero).
    WhiteFlag,
    BlackFlag,
    /// White's flag fell, but Black can never checkmate: a draw.
    WhiteFlagDrawn,
    BlackFlagDrawn,
}

impl Agreed {
    pub fn result(self) -> &'static str {
        match self {
            Agreed::WhiteResigns | Agreed::WhiteFlag => "0-1",
            Agreed::BlackResigns | Agreed::BlackFlag => "1-0",
            Agreed::DrawAgreed | Agreed::WhiteFlagDrawn | Agreed::BlackFlagDrawn => "1/2-1/2",
        }
    }

    /// As the PGN's last comment says it.
    pub fn reason(self) -> &'static str {
        match self {
            Agreed::WhiteResigns => "White resigns",
            Agreed::BlackResigns => "Black resigns",
            Agreed::DrawAgreed => "Draw agreed",
            Agreed::WhiteFlag => "White's time is up",
            Agreed::BlackFlag => "Black's time is up",
            Agreed::WhiteFlagDrawn => "White's time is up, but Black cannot checkmate",
            Agreed::BlackFlagDrawn => "Black's time is up, but White cannot checkmate",
        }
    }

    /// A flag fall (PGN's Termination "time forfeit").
    pub fn on_time(self) -> bool {
        matches!(
            self,
            Agreed::WhiteFlag | Agreed::BlackFlag | Agreed::WhiteFlagDrawn | Agreed::BlackFlagDrawn
        )
    }
}

/// A square list, e.g. `["e2","e4"]`.
pub type Squares = Vec<String>;

/// What kind of move a token is, as the page enters and marks it: `move` (a
/// piece moves, with any promotion or extras), `subversion`, `launch` or
/// `detonation` (a launch with no path).
pub type MoveKind = &'static str;

/// A legal move as the page enters it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct LegalMove {
    pub token: String,
    /// The readable text (docs/RULES.md, "Notation: readable"): SAN in
    /// chess, SAN and the variant's part in the variants.
    pub san: String,
    pub kind: MoveKind,
    /// The clicks and choices that enter it, in order: squares, a promotion
    /// (`=q`), Cowardly Crew's spare form (`,n`), attendants' squares; for a
    /// subversion the target, then the paid squares (clicked in any order);
    /// for a launch the pawn twice, then the path.
    pub steps: Vec<String>,
}

/// What the last move did, for the page to show.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct LastMove {
    pub token: String,
    /// The readable text, as [`LegalMove::san`].
    pub san: String,
    /// What it did, in words: the status line's sentence.
    pub said: String,
    /// As [`LegalMove::kind`].
    pub kind: MoveKind,
    /// Every square the token names (from, to, targets, paid squares, path).
    pub squares: Squares,
    /// Pieces that changed colour (same piece, other owner).
    pub converted: Squares,
    /// Pacifist: the cascade, round by round (empty elsewhere).
    pub cascade: Vec<Squares>,
    /// Squares that held a piece before and are empty now, besides the mover's
    /// origin: captured, paid, destroyed.
    pub removed: Squares,
}

/// A Cruise Pawns missile in flight.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Missile {
    pub launch: String,
    pub path: Squares,
    /// The last square of the path: the piece it destroys.
    pub target: String,
    /// The path before the target: where it may be shot down (when empty).
    pub shootable: Squares,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GameEnd {
    /// `1-0`, `0-1`, `1/2-1/2`.
    pub result: String,
    /// `white`, `black` or absent for a draw.
    pub winner: Option<String>,
    pub reason: String,
}

/// One position as the page shows it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PositionInfo {
    pub variant: String,
    pub start_fen: String,
    pub fen: String,
    pub moves: Vec<String>,
    /// The moves as the page lists them, in readable text.
    pub sans: Vec<String>,
    /// What each of them did, in words (the move list's titles).
    pub said: Vec<String>,
    /// Plies before the start position (from its move number and side to
    /// move), what numbers the moves.
    pub start_ply: u64,
    /// `white` or `black`.
    pub turn: String,
    /// Every legal token, in the generator's order.
    pub legal: Vec<String>,
    /// The same moves with how the page enters them.
    pub legal_moves: Vec<LegalMove>,
    pub last: Option<LastMove>,
    /// The king in check, if any.
    pub check: Option<String>,
    pub outcome: Option<GameEnd>,
    pub missile: Option<Missile>,
    /// Attending Pawns: `[celebrity, pawn]` pairs.
    pub links: Vec<[String; 2]>,
    /// The sides (`white`, `black`) that can never checkmate here, whatever
    /// is played: a flag fall against the other side is then a draw.
    pub cannot_mate: Vec<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Line {
    pub multipv: usize,
    pub depth: u32,
    /// `{"cp": n}` or `{"mate": n}`, White's point of view.
    pub score: PageScore,
    /// `lower`, `upper` or absent.
    pub bound: Option<String>,
    pub pv: Vec<String>,
    /// The same moves in readable text.
    pub pv_san: Vec<String>,
}

/// A score as the page shows it: from White's point of view (the engine's
/// `search::Score` is the side to move's).
#[derive(Copy, Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PageScore {
    Cp(i32),
    Mate(i32),
}

/// What a position is worth, White's point of view: `{"cp": n}`,
/// `{"mate": n}`, or for a finished game `{"result": "1-0"}` (`0-1`,
/// `1/2-1/2`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PositionValue {
    Cp(i32),
    Mate(i32),
    Result(String),
}

/// A snapshot of the running analysis.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AnalysisInfo {
    pub fen: String,
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub multipv: u32,
    pub lines: Vec<Line>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PgnGameInfo {
    pub tags: Vec<[String; 2]>,
    pub variant: String,
    pub start_fen: String,
    /// The main line.
    pub moves: Vec<String>,
    /// The moves in readable text, whatever notation the PGN used.
    pub sans: Vec<String>,
    pub result: String,
    /// The main line again with its variations, comments and glyphs.
    pub tree: Vec<ImportedMove>,
    /// What the import could not keep, in words: the variations cut short at
    /// a move that cannot be played there.
    pub cut: Vec<String>,
}

/// A move of an imported game.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ImportedMove {
    pub token: String,
    pub san: String,
    /// Annotation glyphs as NAGs, and the first move glyph (`?!`) as written.
    pub nags: Vec<u8>,
    pub glyph: Option<String>,
    pub before: Option<String>,
    pub comment: Option<String>,
    /// Other moves in its place, each a line.
    pub variations: Vec<Vec<ImportedMove>>,
}

/// What the server says.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Response {
    Hello {
        engine: String,
        variants: Vec<String>,
        start_fens: Vec<String>,
        /// The most search threads this backend offers (one in the browser).
        max_threads: u64,
    },
    Position {
        id: Option<u64>,
        #[serde(flatten)]
        info: Box<PositionInfo>,
    },
    Analysis(Box<AnalysisInfo>),
    Stopped,
    Bestmove {
        id: Option<u64>,
        fen: String,
        token: Option<String>,
    },
    Options {
        hash: u64,
        threads: u64,
    },
    /// The answer to `evaluate`.
    Evaluation {
        id: Option<u64>,
        fen: String,
        value: PositionValue,
        /// The search's depth and nodes (0 for a finished game).
        depth: u32,
        nodes: u64,
        /// The best move's token, and as the move list writes it.
        best: Option<String>,
        best_san: Option<String>,
    },
    GameReport(Box<crate::report::GameReport>),
    Pgn {
        games: Vec<PgnGameInfo>,
    },
    PgnText {
        text: String,
    },
    /// The explorer after `explorer_add` or `explorer_clear`: what the last
    /// text added, and what it holds.
    Explorer {
        added: Added,
        games: usize,
        positions: usize,
    },
    Explored {
        id: Option<u64>,
        fen: String,
        /// The explorer's games that reached this position (and went on).
        games: u64,
        moves: Vec<ExploredMove>,
    },
    Error {
        /// The request's `type`, when it could be read.
        request: Option<String>,
        /// The request's `id`, when it had one.
        id: Option<u64>,
        message: String,
    },
}

impl Response {
    pub fn error(request: Option<&str>, message: impl Into<String>) -> Response {
        Response::Error {
            request: request.map(str::to_string),
            id: None,
            message: message.into(),
        }
    }

    /// The same error, naming the request's id.
    pub fn with_id(self, id: Option<u64>) -> Response {
        match self {
            Response::Error {
                request, message, ..
            } => Response::Error {
                request,
                id,
                message,
            },
            other => other,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!("{{\"type\":\"error\",\"message\":\"cannot encode the answer: {e}\"}}")
        })
    }
}

/// Parses a request; the error names the request type when it is known.
pub fn parse_request(text: &str) -> Result<Request, Response> {
    serde_json::from_str::<Request>(text).map_err(|e| {
        let value = serde_json::from_str::<serde_json::Value>(text).ok();
        let field = |k: &str| value.as_ref().and_then(|v| v.get(k).cloned());
        let kind = field("type").and_then(|t| t.as_str().map(str::to_string));
        let id = field("id").and_then(|i| i.as_u64());
        Response::error(kind.as_deref(), format!("bad request: {e}")).with_id(id)
    })
}
