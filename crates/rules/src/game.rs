//! A game: a start position, the moves played and the key history, with the
//! end-of-game rules of docs/RULES.md in their binding order. Shared by the UCI front
//! end (for `position ... moves`) and the match runner's referee.

use std::fmt;

use shakmaty::{Color, Role};

use crate::fen::FenError;
use crate::moves::{Move, MoveList};
use crate::position::{Board, Position};
use crate::variants::{Variant, VariantKind};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win { winner: Color, reason: &'static str },
    Draw { reason: &'static str },
}

impl Outcome {
    /// PGN result string.
    pub fn result(self) -> &'static str {
        match self {
            Outcome::Win {
                winner: Color::White,
                ..
            } => "1-0",
            Outcome::Win {
                winner: Color::Black,
                ..
            } => "0-1",
            Outcome::Draw { .. } => "1/2-1/2",
        }
    }

    pub fn reason(self) -> &'static str {
        match self {
            Outcome::Win { reason, .. } | Outcome::Draw { reason } => reason,
        }
    }
}

/// Standard insufficient material: K v K, or K + one minor v K.
pub fn insufficient_material(pos: &Board) -> bool {
    let occ = pos.occupied();
    let kings = pos.by_role(Role::King);
    let minors = pos.by_role(Role::Knight) | pos.by_role(Role::Bishop);
    let others = occ & !kings;
    others.is_empty() || (others.count() == 1 && (others & minors).any())
}

/// Finds the legal move whose canonical token is `token`.
pub fn find_move<V: Variant>(pos: &Position<V>, token: &str) -> Option<Move> {
    let mut moves = MoveList::new();
    V::legal_moves(pos, &mut moves);
    let mut buf = String::new();
    moves.into_iter().find(|&mv| {
        buf.clear();
        V::format_move(pos, mv, &mut buf);
        buf == token
    })
}

/// Why a token was refused: the position (as FEN) and what the legal moves
/// that start the same way are, so that a user who typed `g1f3` in Attending
/// Pawns reads "did you mean g1f3,g2g2?". The message (`Display`) is the
/// sentence a user reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The side to move has no legal move at all (the game is over).
    NoLegalMove { token: String, fen: String },
    /// No legal move starts like the token: a typo, a token of another variant,
    /// or no token at all. `stem` is its part before the variant's extras.
    Unknown {
        token: String,
        fen: String,
        stem: String,
        in_check: bool,
    },
    /// Legal moves start with the token's stem (the same move, target or launch
    /// with other extras); all of them, in generation order.
    DidYouMean {
        token: String,
        fen: String,
        candidates: Vec<String>,
    },
    /// No legal move starts with the stem, but these leave the token's first
    /// square.
    FromSquare {
        token: String,
        fen: String,
        moves: Vec<String>,
    },
}

/// How many suggestions a message lists before "(and N more)".
const SUGGESTIONS_SHOWN: usize = 6;

impl MoveError {
    /// The refused token.
    pub fn token(&self) -> &str {
        match self {
            MoveError::NoLegalMove { token, .. }
            | MoveError::Unknown { token, .. }
            | MoveError::DidYouMean { token, .. }
            | MoveError::FromSquare { token, .. } => token,
        }
    }

    /// The position it was refused in.
    pub fn fen(&self) -> &str {
        match self {
            MoveError::NoLegalMove { fen, .. }
            | MoveError::Unknown { fen, .. }
            | MoveError::DidYouMean { fen, .. }
            | MoveError::FromSquare { fen, .. } => fen,
        }
    }
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move '{}' in {}", self.token(), self.fen())?;
        let (hint, list) = match self {
            MoveError::NoLegalMove { .. } => {
                return f.write_str(": the side to move has no legal move")
            }
            MoveError::Unknown { stem, in_check, .. } => {
                write!(f, ": no legal move starts with '{stem}'")?;
                if *in_check {
                    f.write_str(" (the side to move is in check)")?;
                }
                return Ok(());
            }
            MoveError::DidYouMean { candidates, .. } => ("did you mean", candidates),
            MoveError::FromSquare { moves, .. } => ("the legal moves from that square are", moves),
        };
        let shown: Vec<&str> = list
            .iter()
            .take(SUGGESTIONS_SHOWN)
            .map(String::as_str)
            .collect();
        write!(f, ": {hint} {}", shown.join(", "))?;
        if list.len() > SUGGESTIONS_SHOWN {
            write!(f, " (and {} more)", list.len() - SUGGESTIONS_SHOWN)?;
        }
        if matches!(self, MoveError::DidYouMean { .. }) {
            f.write_str("?")?;
        }
        Ok(())
    }
}

impl std::error::Error for MoveError {}

/// For front ends that still report errors as text.
impl From<MoveError> for String {
    fn from(e: MoveError) -> String {
        e.to_string()
    }
}

/// Why `token` is not a legal move of `pos`, with the legal tokens that start the
/// same way (the same piece, target or launch square).
pub fn illegal_move<V: Variant>(pos: &Position<V>, token: &str) -> MoveError {
    let mut moves = MoveList::new();
    V::legal_moves(pos, &mut moves);
    let legal: Vec<String> = moves.iter().map(|&m| self::token(pos, m)).collect();
    let token_s = token.to_string();
    let fen = crate::fen::format(pos);
    if legal.is_empty() {
        return MoveError::NoLegalMove {
            token: token_s,
            fen,
        };
    }
    // The part before the variant's extras: `g1f3`, `@d5`, `e4`.
    let stem = token.split([',', '*']).next().unwrap_or(token);
    let from = token.get(..2).unwrap_or(token);
    let starting = |prefix: &str| -> Vec<String> {
        legal
            .iter()
            .filter(|t| t.starts_with(prefix))
            .cloned()
            .collect()
    };
    let candidates = starting(stem);
    if !candidates.is_empty() {
        return MoveError::DidYouMean {
            token: token_s,
            fen,
            candidates,
        };
    }
    if !token.starts_with('@') {
        let moves = starting(from);
        if !moves.is_empty() {
            return MoveError::FromSquare {
                token: token_s,
                fen,
                moves,
            };
        }
    }
    MoveError::Unknown {
        token: token_s,
        fen,
        stem: stem.to_string(),
        in_check: V::in_check(pos),
    }
}

/// The canonical token of a move in `pos`.
pub fn token<V: Variant>(pos: &Position<V>, mv: Move) -> String {
    let mut s = String::new();
    V::format_move(pos, mv, &mut s);
    s
}

/// Plays `mv` (which must be legal) with the debug-build key check.
#[inline]
pub fn play<V: Variant>(pos: &mut Position<V>, mv: Move) {
    V::play(pos, mv);
    pos.debug_check_key();
}

#[derive(Clone, Debug)]
pub struct Game<V: Variant> {
    pub start: Position<V>,
    pub pos: Position<V>,
    pub moves: Vec<Move>,
    /// Keys of every position so far, the current one last.
    pub keys: Vec<u64>,
}

impl<V: Variant> Game<V> {
    pub fn new(start: Position<V>) -> Self {
        Game {
            start,
            pos: start,
            moves: Vec::new(),
            keys: vec![start.key()],
        }
    }

    /// Plays a move given as a token; an illegal or malformed token changes nothing.
    pub fn play_token(&mut self, token: &str) -> Result<Move, MoveError> {
        let mv = find_move(&self.pos, token).ok_or_else(|| illegal_move(&self.pos, token))?;
        self.play(mv);
        Ok(mv)
    }

    pub fn play(&mut self, mv: Move) {
        play(&mut self.pos, mv);
        self.moves.push(mv);
        self.keys.push(self.pos.key());
    }

    /// How often the current position occurred so far (itself included). The
    /// whole history is scanned: in Pacifist and Attending Pawns a clock reset
    /// is not irreversible ([`Variant::CLOCK_RESET_IRREVERSIBLE`]), so the
    /// halfmove window would miss repetitions.
    pub fn repetitions(&self) -> usize {
        let key = self.pos.key();
        self.keys.iter().filter(|&&k| k == key).count()
    }

    /// docs/RULES.md order: no legal move, threefold repetition, 50-move rule,
    /// insufficient material.
    pub fn outcome(&self) -> Option<Outcome> {
        let mut moves = MoveList::new();
        V::legal_moves(&self.pos, &mut moves);
        if moves.is_empty() {
            return Some(V::no_legal_moves(&self.pos));
        }
        if self.repetitions() >= 3 {
            return Some(Outcome::Draw {
                reason: "threefold repetition",
            });
        }
        if self.pos.halfmoves() >= 100 {
            return Some(Outcome::Draw {
                reason: "50-move rule",
            });
        }
        if V::insufficient_material(&self.pos) {
            return Some(Outcome::Draw {
                reason: "insufficient material",
            });
        }
        None
    }
}

/// A position as a front end names it: the variant, a FEN (`None` = the
/// variant's start position) and the moves played from there, as tokens. It is
/// kept in this form and materialised for its variant at each use, so front ends
/// need not be generic over the variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub variant: VariantKind,
    pub fen: Option<String>,
    pub moves: Vec<String>,
}

impl Setup {
    pub fn startpos(variant: VariantKind) -> Self {
        Setup {
            variant,
            fen: None,
            moves: Vec::new(),
        }
    }

    /// Builds the game, checking the FEN and every move.
    pub fn game<V: Variant>(&self) -> Result<Game<V>, SetupError> {
        let start = match &self.fen {
            None => Position::<V>::startpos(),
            Some(f) => crate::fen::parse::<V>(f).map_err(|error| SetupError::Fen {
                fen: f.clone(),
                error,
            })?,
        };
        let mut game = Game::new(start);
        for (index, token) in self.moves.iter().enumerate() {
            game.play_token(token)
                .map_err(|error| SetupError::Move { index, error })?;
        }
        Ok(game)
    }

    /// Is every part of it valid?
    pub fn check(&self) -> Result<(), SetupError> {
        crate::with_variant!(self.variant, V => self.game::<V>().map(|_| ()))
    }
}

/// Why a (variant, FEN, moves) game could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The start FEN was refused.
    Fen { fen: String, error: FenError },
    /// The move at `index` (0-based) of the list was refused; the message is the
    /// move's own, which names the token and the position.
    Move { index: usize, error: MoveError },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Fen { fen, error } => write!(f, "invalid FEN '{fen}': {error}"),
            SetupError::Move { error, .. } => error.fmt(f),
        }
    }
}

impl std::error::Error for SetupError {}

/// For front ends that still report errors as text.
impl From<SetupError> for String {
    fn from(e: SetupError) -> String {
        e.to_string()
    }
}
