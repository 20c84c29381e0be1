//! The rules' face for front ends: a [`LiveGame`] holds one game of any
//! variant, chosen at run time, and answers in types what a board, a notation
//! pane or a binding asks: the legal moves with their tokens, readable text and
//! squares ([`MoveInfo`]); what a played move did ([`Effects`]); the variant's
//! state beyond chess as data ([`VariantState`]); check and the outcome; and why
//! a FEN or a token was refused ([`FenError`], [`MoveError`]).
//!
//! A front end holding one needs no FEN field, no token syntax and no second
//! copy of a rule: each variant's rulebook describes its own moves
//! ([`Variant::action`], [`Variant::effects`], [`Variant::state_info`]). The
//! engine keeps its own path (`Position<V>`, generation and `play`,
//! monomorphised per variant); this is the one run-time dispatch, at the top.

use shakmaty::{Color, Piece, Role, Square};

use crate::fen::{self, FenError};
use crate::game::{self, Game, MoveError, Outcome, SetupError};
use crate::moves::{Move, MoveKind, MoveList};
use crate::position::{castle_side, rook_file, Board, Position};
use crate::variants::{Variant, VariantKind};

/// Where a game starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Start<'a> {
    /// The variant's start position.
    Startpos,
    /// A FEN of the variant (the seventh field where it has one).
    Fen(&'a str),
}

/// A legal move as a front end shows and enters it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveInfo {
    /// The canonical token (docs/RULES.md, "Notation: tokens").
    pub token: String,
    /// The readable text (docs/RULES.md, "Notation: readable"): SAN in
    /// standard chess, SAN and the variant's part in the variants (check and
    /// mate marks included), as the web board's PGN writes them.
    pub text: String,
    /// Every square the token names, in its order: what a board clicks to
    /// enter it (a relocation names the pawn's square, then its new one).
    pub squares: Vec<Square>,
    /// What the move does in the first place.
    pub action: Action,
    /// The token's extras, in order.
    pub extras: Vec<Extra>,
}

/// The part of a move its token's base names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A piece goes from `from` to `to`, maybe promoting (castling: the king's
    /// move; the rook's is in the [`Effects`]).
    Move {
        from: Square,
        to: Square,
        promotion: Option<Role>,
    },
    /// Subversion: the enemy piece on `target` changes sides, paid for with the
    /// mover's pieces on `paid` (in square order).
    Subvert { target: Square, paid: Vec<Square> },
    /// Cruise Pawns: the pawn on `from` flies along `path`; an empty path is a
    /// self-detonation.
    Launch { from: Square, path: Vec<Square> },
}

impl Action {
    /// The square a piece leaves: the mover's, or the launching pawn's; none
    /// for a subversion, where nothing moves.
    pub fn origin(&self) -> Option<Square> {
        match self {
            Action::Move { from, .. } | Action::Launch { from, .. } => Some(*from),
            Action::Subvert { .. } => None,
        }
    }
}

/// An extra of a token (docs/RULES.md: "zero or more extras, each introduced by
/// a comma").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Extra {
    /// Cowardly Crew's `,n`: the capture converts nothing.
    Spare,
    /// Attending Pawns: the attendant on `from` goes to `to` (it may stay).
    Relocate { from: Square, to: Square },
    /// Attending Pawns: the promoted piece's new attendant is created on `at`.
    Create { at: Square },
}

impl MoveInfo {
    /// The move with its squares worked out from the action and the extras.
    pub fn new(token: String, text: String, action: Action, extras: Vec<Extra>) -> MoveInfo {
        let mut squares = match &action {
            Action::Move { from, to, .. } => vec![*from, *to],
            Action::Subvert { target, paid } => std::iter::once(*target)
                .chain(paid.iter().copied())
                .collect(),
            Action::Launch { from, path } => {
                std::iter::once(*from).chain(path.iter().copied()).collect()
            }
        };
        for extra in &extras {
            match *extra {
                Extra::Spare => {}
                Extra::Relocate { from, to } => squares.extend([from, to]),
                Extra::Create { at } => squares.push(at),
            }
        }
        MoveInfo {
            token,
            text,
            squares,
            action,
            extras,
        }
    }
}

/// Why a piece left the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Why {
    /// Taken by a move (en passant and an attendant's placement included).
    Captured,
    /// Paid for a subversion.
    Paid,
    /// The target of a missile that detonated.
    BlownUp,
    /// A pawn that detonated itself.
    SelfDetonated,
}

/// A piece that left the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    pub square: Square,
    pub piece: Piece,
    pub why: Why,
}

/// A Cruise Pawns missile: where it was launched and where it flies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flight {
    pub launch: Square,
    /// s1..sk, the target last.
    pub path: Vec<Square>,
    /// sk, the piece it destroys when it detonates.
    pub target: Square,
    /// s1..s(k-1): the squares where it may be shot down (when empty).
    pub shootable: Vec<Square>,
}

impl Flight {
    /// The flight of a missile launched from `launch` along `path` (k >= 1).
    pub fn new(launch: Square, path: Vec<Square>) -> Flight {
        let target = path.last().copied().unwrap_or(launch);
        let shootable = path[..path.len().saturating_sub(1)].to_vec();
        Flight {
            launch,
            path,
            target,
            shootable,
        }
    }
}

/// What happened to a missile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MissileEvent {
    /// A missile took off and is in flight.
    Launched(Flight),
    /// The missile in flight detonated on its target (before the reply).
    Detonated(Flight),
    /// The missile in flight was shot down on `at`; its target survives.
    ShotDown { flight: Flight, at: Square },
}

/// What a played move did to the board, as its variant's rulebook says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    /// Pieces that moved, (from, to), in order: the mover, castling's rook,
    /// then Attending Pawns' relocated attendants.
    pub moved: Vec<(Square, Square)>,
    /// A promotion: the square and the new piece's role.
    pub promoted: Option<(Square, Role)>,
    /// Pieces that changed colour, in square order (a1, b1, ..., h8): to the
    /// mover's side, except in the Andernach variants, where the moved piece
    /// itself turns to the opponent's.
    pub converted: Vec<Square>,
    /// Pacifist: the same pieces by cascade round, in order; empty in the
    /// variants without a cascade.
    pub cascade: Vec<Vec<Square>>,
    /// Cowardly Crew's form that converts nothing: the pieces that could have
    /// changed colour and stay, in square order.
    pub spared: Vec<Square>,
    /// Pieces that left the board, in the order they left it.
    pub removed: Vec<Removal>,
    /// Attending Pawns: the square of a pawn created by a promotion.
    pub created: Vec<Square>,
    /// Cruise Pawns: what happened to missiles, in order (a detonation, then
    /// the reply's own launch).
    pub missile: Vec<MissileEvent>,
}

/// The variant's state beyond chess (the FEN's seventh field), as data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantState {
    /// Nothing beyond chess (or nothing at the moment: no missile in flight).
    None,
    /// Attending Pawns: the links as (celebrity, pawn), by celebrity square.
    Links(Vec<(Square, Square)>),
    /// Cruise Pawns: the missile in flight.
    Missile(Flight),
}

/// A move of the game's history with what it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    pub info: MoveInfo,
    pub effects: Effects,
    /// What it did, in words ([`crate::sentence::say`]).
    pub said: String,
}

impl Played {
    /// Squares a piece was removed from that stand empty after the move, in
    /// square order: what a board marks as emptied. A captured piece's square
    /// that the capturer now holds is not among them, nor the square the moving
    /// piece (or a self-detonating pawn) started from.
    pub fn emptied(&self) -> Vec<Square> {
        let fx = &self.effects;
        let origin = self.info.action.origin();
        let mut out: Vec<Square> = fx
            .removed
            .iter()
            .map(|r| r.square)
            .filter(|&sq| {
                Some(sq) != origin
                    && !fx.moved.iter().any(|&(_, to)| to == sq)
                    && !fx.created.contains(&sq)
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The action of a move that the variant does not describe otherwise: the
/// chess base, with no extras.
pub fn base_action(mv: Move) -> Action {
    Action::Move {
        from: mv.from,
        to: mv.to,
        promotion: mv.promotion,
    }
}

/// What the chess part of `mv` (legal in `pos`) does: the piece moves (with
/// castling's rook), captures what stands on its target (en passant: beside
/// it) and promotes. A variant's own move kind does nothing here.
pub fn chess_effects<V: Variant>(pos: &Position<V>, mv: Move) -> Effects {
    let mut fx = Effects::default();
    let captured = match mv.kind {
        MoveKind::Normal | MoveKind::DoublePush => Some(mv.to),
        MoveKind::EnPassant => Some(Square::from_coords(mv.to.file(), mv.from.rank())),
        MoveKind::Castle | MoveKind::Null | MoveKind::Special => None,
    };
    match mv.kind {
        MoveKind::Null | MoveKind::Special => return fx,
        _ => fx.moved.push((mv.from, mv.to)),
    }
    if mv.kind == MoveKind::Castle {
        let side = castle_side(mv);
        let rank = mv.from.rank();
        fx.moved.push((
            Square::from_coords(rook_file(side), rank),
            Square::from_coords(side.rook_to_file(), rank),
        ));
    }
    if let Some(square) = captured {
        if let Some(piece) = pos.piece_at(square) {
            fx.removed.push(Removal {
                square,
                piece,
                why: Why::Captured,
            });
        }
    }
    if let Some(role) = mv.promotion {
        fx.promoted = Some((mv.to, role));
    }
    fx
}

/// One game of a variant chosen at run time: its start, the moves played with
/// what they did, and the position now.
pub struct LiveGame {
    variant: VariantKind,
    inner: Box<dyn Erased>,
    history: Vec<Played>,
}

impl Clone for LiveGame {
    fn clone(&self) -> Self {
        LiveGame {
            variant: self.variant,
            inner: self.inner.clone_box(),
            history: self.history.clone(),
        }
    }
}

impl std::fmt::Debug for LiveGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveGame")
            .field("variant", &self.variant)
            .field("start_fen", &self.start_fen())
            .field("moves", &self.tokens())
            .finish()
    }
}

impl LiveGame {
    /// A game of `variant` from `start`, no move played yet.
    pub fn new(variant: VariantKind, start: Start<'_>) -> Result<LiveGame, FenError> {
        let inner: Box<dyn Erased> = crate::with_variant!(variant, V => {
            let pos = match start {
                Start::Startpos => Position::<V>::startpos(),
                Start::Fen(f) => fen::parse::<V>(f)?,
            };
            Box::new(Live::<V> {
                game: Game::new(pos),
                before: Vec::new(),
            })
        });
        Ok(LiveGame {
            variant,
            inner,
            history: Vec::new(),
        })
    }

    /// A game of `variant` from `start` with `moves` (tokens) played, each
    /// checked; the error names the first refused part.
    pub fn with_moves<S: AsRef<str>>(
        variant: VariantKind,
        start: Start<'_>,
        moves: &[S],
    ) -> Result<LiveGame, SetupError> {
        let mut game = LiveGame::new(variant, start).map_err(|error| SetupError::Fen {
            fen: match start {
                Start::Fen(f) => f.to_string(),
                Start::Startpos => variant.start_fen().to_string(),
            },
            error,
        })?;
        for (index, token) in moves.iter().enumerate() {
            game.play(token.as_ref())
                .map_err(|error| SetupError::Move { index, error })?;
        }
        Ok(game)
    }

    pub fn variant(&self) -> VariantKind {
        self.variant
    }

    /// The start position's FEN (canonical).
    pub fn start_fen(&self) -> String {
        self.inner.start_fen()
    }

    /// How many plies were played before the start position, as its fullmove
    /// number and side to move say (what numbers the moves of a record).
    pub fn start_ply(&self) -> u64 {
        self.inner.start_ply()
    }

    /// The current position's FEN (canonical, the seventh field where the
    /// variant has one).
    pub fn fen(&self) -> String {
        self.inner.fen()
    }

    /// The pieces on the board now.
    pub fn board(&self) -> Board {
        self.inner.board()
    }

    /// The current position's Zobrist key (board, side to move, castling, en
    /// passant and the variant's state; not the move counters): a position
    /// in 8 bytes where a FEN takes some 60.
    pub fn key(&self) -> u64 {
        self.inner.key()
    }

    pub fn side_to_move(&self) -> Color {
        self.inner.turn()
    }

    /// Is the side to move in check (Pacifist: has it no king; Cruise Pawns:
    /// judged on the board after the missile in flight detonates)?
    pub fn in_check(&self) -> bool {
        self.inner.in_check()
    }

    /// Can `side` never checkmate, whatever is played
    /// ([`Variant::cannot_mate`])?
    pub fn cannot_mate(&self, side: Color) -> bool {
        self.inner.cannot_mate(side)
    }

    /// The king in check, where the side to move has one king and it is.
    pub fn checked_king(&self) -> Option<Square> {
        self.inner.checked_king()
    }

    /// The end of the game by rule (docs/RULES.md, "Common: game end"), if it
    /// has ended.
    pub fn outcome(&self) -> Option<Outcome> {
        self.inner.outcome()
    }

    /// The variant's state beyond chess.
    pub fn state(&self) -> VariantState {
        self.inner.state()
    }

    /// Every legal move, in the generator's order.
    pub fn legal_moves(&self) -> Vec<MoveInfo> {
        self.inner.legal_moves()
    }

    /// Plays the move whose token is `token`; a refused token changes nothing.
    pub fn play(&mut self, token: &str) -> Result<&Played, MoveError> {
        let played = self.inner.play(token)?;
        self.history.push(played);
        Ok(self.history.last().expect("just pushed"))
    }

    /// Plays a move of [`LiveGame::legal_moves`] (refused if it is not legal
    /// now, as its token would be).
    pub fn play_move(&mut self, mv: &MoveInfo) -> Result<&Played, MoveError> {
        self.play(&mv.token)
    }

    /// Takes the last move back; `None` at the start.
    pub fn undo(&mut self) -> Option<Played> {
        if self.inner.undo() {
            self.history.pop()
        } else {
            None
        }
    }

    /// The moves played, in order, with what they did.
    pub fn history(&self) -> &[Played] {
        &self.history
    }

    /// The tokens of the moves played.
    pub fn tokens(&self) -> Vec<String> {
        self.history.iter().map(|p| p.info.token.clone()).collect()
    }
}

/// What [`LiveGame`] asks of a game of one variant.
trait Erased: Send + Sync {
    fn clone_box(&self) -> Box<dyn Erased>;
    fn start_fen(&self) -> String;
    fn start_ply(&self) -> u64;
    fn fen(&self) -> String;
    fn board(&self) -> Board;
    fn key(&self) -> u64;
    fn turn(&self) -> Color;
    fn in_check(&self) -> bool;
    fn checked_king(&self) -> Option<Square>;
    fn cannot_mate(&self, side: Color) -> bool;
    fn outcome(&self) -> Option<Outcome>;
    fn state(&self) -> VariantState;
    fn legal_moves(&self) -> Vec<MoveInfo>;
    fn play(&mut self, token: &str) -> Result<Played, MoveError>;
    fn undo(&mut self) -> bool;
}

/// A game of variant `V` and the positions before each of its moves.
#[derive(Clone)]
struct Live<V: Variant> {
    game: Game<V>,
    before: Vec<Position<V>>,
}

impl<V: Variant> Live<V> {
    fn info(&self, mv: Move, token: String, text: String) -> MoveInfo {
        let (action, extras) = V::action(&self.game.pos, mv);
        MoveInfo::new(token, text, action, extras)
    }
}

impl<V: Variant> Erased for Live<V> {
    fn clone_box(&self) -> Box<dyn Erased> {
        Box::new(self.clone())
    }

    fn start_fen(&self) -> String {
        fen::format(&self.game.start)
    }

    fn start_ply(&self) -> u64 {
        let start = &self.game.start;
        2 * (start.fullmoves().max(1) - 1) + u64::from(start.turn() == Color::Black)
    }

    fn fen(&self) -> String {
        fen::format(&self.game.pos)
    }

    fn board(&self) -> Board {
        *self.game.pos.board()
    }

    fn key(&self) -> u64 {
        self.game.pos.key()
    }

    fn turn(&self) -> Color {
        self.game.pos.turn()
    }

    fn in_check(&self) -> bool {
        V::in_check(&self.game.pos)
    }

    fn cannot_mate(&self, side: Color) -> bool {
        V::cannot_mate(self.game.pos.board(), side)
    }

    fn checked_king(&self) -> Option<Square> {
        let pos = &self.game.pos;
        if V::in_check(pos) {
            pos.king_of(pos.turn())
        } else {
            None
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
    }

    fn state(&self) -> VariantState {
        V::state_info(&self.game.pos)
    }

    fn legal_moves(&self) -> Vec<MoveInfo> {
        let pos = &self.game.pos;
        let mut list = MoveList::new();
        V::legal_moves(pos, &mut list);
        let texts = V::move_texts(pos, &list);
        list.iter()
            .zip(texts)
            .map(|(&mv, text)| self.info(mv, game::token(pos, mv), text))
            .collect()
    }

    fn play(&mut self, token: &str) -> Result<Played, MoveError> {
        let pos = self.game.pos;
        let mv = game::find_move(&pos, token).ok_or_else(|| game::illegal_move(&pos, token))?;
        let text = V::move_text(&pos, mv);
        let info = self.info(mv, token.to_string(), text);
        let effects = V::effects(&pos, mv);
        let said = crate::sentence::said(
            pos.board(),
            pos.turn(),
            &info.action,
            &info.extras,
            &effects,
        );
        self.game.play(mv);
        self.before.push(pos);
        Ok(Played {
            info,
            effects,
            said,
        })
    }

    fn undo(&mut self) -> bool {
        let Some(pos) = self.before.pop() else {
            return false;
        };
        self.game.pos = pos;
        self.game.moves.pop();
        self.game.keys.pop();
        true
    }
}
