//! The variant abstraction and the registry of implemented variants.
//!
//! A variant is a zero-sized type implementing [`Variant`]: its rulebook (moves,
//! post-move effects, legality, game end, FEN 7th field) lives in
//! `rules/variants/<name>.rs`, written down in `docs/RULES.md`. What a search
//! needs besides (safe pruning, quiescence moves, evaluation terms) is the
//! engine's `Policy` trait, kept apart in `engine/`. Everything generic over
//! `V: Variant` is monomorphised, so standard chess pays nothing for the hooks;
//! the choice of variant is made once, at the top, by [`with_variant!`](crate::with_variant).

use std::fmt::Debug;
use std::hash::Hash;

use shakmaty::{Color, Role};

use crate::fen::FenError;
use crate::game::Outcome;
use crate::live::{Action, Effects, Extra, VariantState};
use crate::movegen::{self, Legality, Stage};
use crate::moves::{Move, MoveList};
use crate::position::{Board, Position};

pub mod andernach;
pub mod attending_pawns;
pub mod chess;
pub mod cowardly_crew;
pub mod cruise_pawns;
pub mod pacifist;
pub mod subversion;

/// A variant's rulebook. Defaults are standard chess; a variant overrides what its
/// section of `docs/RULES.md` changes.
pub trait Variant: Copy + Clone + Default + Debug + Send + Sync + 'static {
    /// The `UCI_Variant` value.
    const NAME: &'static str;
    /// The start position (what `position startpos` means), with the 7th field
    /// where the variant has one.
    const START_FEN: &'static str;
    /// What the FEN 7th field holds, as a label for people (`d`).
    const STATE_NAME: &'static str = "State";
    /// Does a double step leave an en passant square (Pacifist: no)?
    const EN_PASSANT: bool = true;
    /// Does standard insufficient material (K v K, K+minor v K) end the game?
    const INSUFFICIENT_MATERIAL: bool = true;
    /// Can a side left with its king alone never checkmate (FIDE; so a flag
    /// fall against the other side is a draw)? Not where a lone king can win
    /// pieces back: a capture converts (Cowardly Crew, the Andernach
    /// variants) or a cascade does (Pacifist).
    const LONE_KING_CANNOT_MATE: bool = true;
    /// Does every reset of the halfmove clock make all earlier positions
    /// unreachable, as a capture or a pawn move does in chess? Then a position
    /// can only repeat one since the last reset, and a search need look back no
    /// further than the clock. Where a reset can be undone this is false and
    /// repetitions are looked for over the whole game (docs/RULES.md, "Common:
    /// repetition").
    const CLOCK_RESET_IRREVERSIBLE: bool = true;
    /// Does a double step change the pawn's side (Anti- and Super-Andernach)?
    /// Then the pawn just past the en passant square is the side to move's.
    const DOUBLE_STEP_CHANGES_SIDE: bool = false;
    /// Does a FEN's en passant square stand only when the pawn that made the
    /// double step is just past it? Not in the Andernach variants, read as
    /// Cutechess reads them: there the square stands whenever a pawn of the
    /// side to move attacks it, and the variant's state says what a capture
    /// on it takes.
    const FEN_EN_PASSANT_NEEDS_PUSHER: bool = true;
    /// Is the readable notation one that other programs read too (SAN in
    /// chess, Cutechess's SAN in the Andernach variants)? Then the portable
    /// notation the match runner writes is the readable one, else the tokens
    /// ([`crate::notation::Notation`]).
    const SHARED_NOTATION: bool = false;
    /// Extra state beyond chess: exactly what the FEN 7th field says, so it takes
    /// part in comparing and hashing positions; `()` when there is none.
    type State: Copy + Clone + Default + Debug + PartialEq + Eq + Hash + Send + Sync;
    /// Facts the board determines, carried from move to move only to save
    /// recomputing them (Pacifist's influence counts); `()` when there are none.
    /// Not part of the position's identity: never compared, hashed or printed.
    type Cache: Copy + Clone + Default + Debug + Send + Sync;

    /// Appends every legal move of the side to move.
    fn legal_moves(pos: &Position<Self>, out: &mut MoveList) {
        movegen::generate(pos, out, Legality::Legal, Stage::All);
    }

    /// Number of legal moves (perft's bulk count at the last ply); `buf` is
    /// scratch space. Override when counting is cheaper than generating.
    fn count_legal_moves(pos: &Position<Self>, buf: &mut MoveList) -> u64 {
        buf.clear();
        Self::legal_moves(pos, buf);
        buf.len() as u64
    }

    /// Is the material on `board` a draw by itself (game end, and the search's
    /// draw test)? Standard insufficient material where the variant uses it.
    fn insufficient_material(board: &Board) -> bool {
        Self::INSUFFICIENT_MATERIAL && crate::game::insufficient_material(board)
    }

    /// Can `side` never checkmate, whatever is played? Only a lone king, and
    /// only where [`Variant::LONE_KING_CANNOT_MATE`]: the board's clocks make
    /// a flag fall against the other side a draw then (docs/RULES.md,
    /// "Common: game end").
    fn cannot_mate(board: &Board, side: Color) -> bool {
        Self::LONE_KING_CANNOT_MATE
            && (board.by_color(side) & !board.by_role(Role::King)).is_empty()
    }

    /// Plays a move produced by `legal_moves`.
    fn play(pos: &mut Position<Self>, mv: Move) {
        pos.play_base(mv);
    }

    /// Is the side to move in check (search extensions, mate detection, `+`)?
    fn in_check(pos: &Position<Self>) -> bool {
        pos.checkers().any()
    }

    /// The result when the side to move has no legal move.
    fn no_legal_moves(pos: &Position<Self>) -> Outcome {
        if Self::in_check(pos) {
            Outcome::Win {
                winner: !pos.turn(),
                reason: "checkmate",
            }
        } else {
            Outcome::Draw {
                reason: "stalemate",
            }
        }
    }

    /// Reads the FEN 7th field (`None` when absent). Called after the six standard
    /// fields are loaded.
    fn parse_state(_pos: &Position<Self>, field: Option<&str>) -> Result<Self::State, FenError> {
        match field {
            None => Ok(Self::State::default()),
            Some(f) => Err(FenError::NoSeventhField {
                variant: Self::NAME,
                found: f.to_string(),
            }),
        }
    }

    /// Checks the raw FEN fields (4 to 7, as written) before anything is loaded,
    /// for rules about what a field must say rather than what it loads to (Cruise
    /// Pawns: en passant `-` while a missile is in flight).
    fn check_fen_fields(_fields: &[&str]) -> Result<(), FenError> {
        Ok(())
    }

    /// The FEN 7th field, for variants that always print one.
    fn format_state(_pos: &Position<Self>) -> Option<String> {
        None
    }

    /// Zobrist key of the variant state (0 for none); use `zobrist::extra`.
    fn state_key(_state: &Self::State) -> u64 {
        0
    }

    /// Rejects positions the variant cannot hold (`docs/RULES.md`, "FEN").
    fn validate(pos: &Position<Self>) -> Result<(), FenError> {
        validate_standard(pos, false)
    }

    /// Appends the token of `mv` (base plus extras, `docs/RULES.md`, "Notation").
    fn format_move(_pos: &Position<Self>, mv: Move, out: &mut String) {
        mv.write_base(out);
    }

    /// The readable text of `mv` (legal in `pos`) in its two parts, the check
    /// mark going between them (docs/RULES.md, "Notation: readable"); `legal`
    /// is every legal move of `pos` (SAN's disambiguation). SAN by default:
    /// a variant adds its own part.
    fn notation_parts(pos: &Position<Self>, mv: Move, legal: &[Move]) -> crate::notation::Parts {
        crate::notation::Parts::head(crate::notation::san_head(pos, mv, legal))
    }

    /// What `mv` (legal in `pos`) is called for people: its readable text
    /// (docs/RULES.md, "Notation: readable"; SAN in standard chess). The move
    /// list, the web board's PGN, the analysis lines and the legal moves a
    /// front end offers all read it from here.
    fn move_text(pos: &Position<Self>, mv: Move) -> String {
        crate::notation::readable(pos, mv)
    }

    /// The texts of `legal`, every legal move of `pos`, in order: as
    /// [`Variant::move_text`], with the list generated once.
    fn move_texts(pos: &Position<Self>, legal: &[Move]) -> Vec<String> {
        crate::notation::readable_all(pos, legal)
    }

    /// The legal move `text` names, its readable text or its token (PGN
    /// reading; [`crate::notation::read_move`] says why not).
    fn move_from_text(pos: &Position<Self>, text: &str) -> Option<Move> {
        crate::notation::read_move(pos, text).ok()
    }

    /// What `mv` (legal in `pos`) is, for front ends: the part its token's base
    /// names and its extras, in token order (the move `format_move` prints).
    fn action(_pos: &Position<Self>, mv: Move) -> (Action, Vec<Extra>) {
        (crate::live::base_action(mv), Vec::new())
    }

    /// What playing `mv` (legal in `pos`) does to the board, as data for front
    /// ends: what `play` does, told rather than done.
    fn effects(pos: &Position<Self>, mv: Move) -> Effects {
        crate::live::chess_effects(pos, mv)
    }

    /// The state beyond chess (what the FEN's seventh field says), as data.
    fn state_info(_pos: &Position<Self>) -> VariantState {
        VariantState::None
    }
}

/// The largest and second largest of `values` (0 where missing). The threat
/// terms of several variants count the best threat against the side to move as
/// parried and the second as likely to land.
pub fn best_two(values: impl IntoIterator<Item = i32>) -> (i32, i32) {
    let (mut best, mut second) = (0, 0);
    for v in values {
        if v > best {
            second = best;
            best = v;
        } else if v > second {
            second = v;
        }
    }
    (best, second)
}

/// Conventional piece values used by ordering and by variants' rank comparisons.
#[inline]
pub const fn value_of(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// docs/RULES.md's rank comparison: P=1 < N=B=2 < R=3 < Q=4 < K=5.
#[inline]
pub const fn rank_of(role: Role) -> u8 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    }
}

/// The standard FEN checks: exactly one king per colour, the side not to move not
/// in check, no pawn on rank 1 or 8 (`allow_own_first_rank` admits a pawn on its
/// own first rank, as Attending Pawns does).
pub fn validate_standard<V: Variant>(
    pos: &Position<V>,
    allow_own_first_rank: bool,
) -> Result<(), FenError> {
    validate_king_count(pos)?;
    validate_pawn_ranks(pos, allow_own_first_rank)?;
    if pos.king_attacked(!pos.turn()) {
        return Err(FenError::OpponentInCheck);
    }
    Ok(())
}

/// Exactly one king per colour (every variant but Pacifist).
pub fn validate_king_count<V: Variant>(pos: &Position<V>) -> Result<(), FenError> {
    for color in [Color::White, Color::Black] {
        let count = pos.by_piece(color.king()).count();
        if count != 1 {
            return Err(FenError::KingCount { color, count });
        }
    }
    Ok(())
}

pub fn validate_pawn_ranks<V: Variant>(
    pos: &Position<V>,
    allow_own_first_rank: bool,
) -> Result<(), FenError> {
    use shakmaty::Bitboard;
    let back =
        Bitboard::from_rank(shakmaty::Rank::First) | Bitboard::from_rank(shakmaty::Rank::Eighth);
    for sq in pos.by_role(Role::Pawn) & back {
        let color = pos.color_at(sq).unwrap_or(Color::White);
        let own_first = sq.rank() == color.backrank();
        if !(allow_own_first_rank && own_first) {
            return Err(FenError::PawnOnBackRank { square: sq });
        }
    }
    Ok(())
}

/// The implemented variants, as the `UCI_Variant` combo lists them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VariantKind {
    Chess,
    CowardlyCrew,
    Pacifist,
    AttendingPawns,
    Subversion,
    CruisePawns,
    Andernach,
    AntiAndernach,
    SuperAndernach,
}

impl VariantKind {
    /// In the order of docs/RULES.md's list (the `UCI_Variant` combo order).
    pub const ALL: &'static [VariantKind] = &[
        VariantKind::Chess,
        VariantKind::CowardlyCrew,
        VariantKind::Pacifist,
        VariantKind::AttendingPawns,
        VariantKind::Subversion,
        VariantKind::CruisePawns,
        VariantKind::Andernach,
        VariantKind::AntiAndernach,
        VariantKind::SuperAndernach,
    ];

    pub fn name(self) -> &'static str {
        crate::with_variant!(self, V => V::NAME)
    }

    pub fn from_name(name: &str) -> Option<VariantKind> {
        Self::ALL.iter().copied().find(|v| v.name() == name)
    }

    pub fn start_fen(self) -> &'static str {
        crate::with_variant!(self, V => V::START_FEN)
    }

    /// The names joined for error messages and `--help`.
    pub fn names() -> String {
        Self::ALL
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A variant name that is not one of [`VariantKind::ALL`]'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant {
    pub name: String,
}

impl std::fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown variant '{}' (known: {})",
            self.name,
            VariantKind::names()
        )
    }
}

impl std::error::Error for UnknownVariant {}

/// For front ends that still report errors as text.
impl From<UnknownVariant> for String {
    fn from(e: UnknownVariant) -> String {
        e.to_string()
    }
}

impl std::str::FromStr for VariantKind {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, UnknownVariant> {
        VariantKind::from_name(s).ok_or_else(|| UnknownVariant {
            name: s.to_string(),
        })
    }
}

impl std::fmt::Display for VariantKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `--variant` in front ends that use clap: the registry's names are the
/// values it takes and lists in `--help`, and a wrong one is refused with
/// [`UnknownVariant`]'s sentence, as everywhere else.
#[cfg(feature = "clap")]
mod cli {
    use super::{UnknownVariant, VariantKind};
    use clap::builder::{PossibleValue, TypedValueParser, ValueParserFactory};
    use clap::error::ErrorKind;

    #[derive(Clone, Copy, Debug)]
    pub struct VariantParser;

    impl TypedValueParser for VariantParser {
        type Value = VariantKind;

        fn parse_ref(
            &self,
            _cmd: &clap::Command,
            _arg: Option<&clap::Arg>,
            value: &std::ffi::OsStr,
        ) -> Result<VariantKind, clap::Error> {
            let name = value.to_string_lossy();
            name.parse().map_err(|e: UnknownVariant| {
                clap::Error::raw(ErrorKind::InvalidValue, format!("{e}\n"))
            })
        }

        fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
            Some(Box::new(
                VariantKind::ALL
                    .iter()
                    .map(|v| PossibleValue::new(v.name())),
            ))
        }
    }

    impl ValueParserFactory for VariantKind {
        type Parser = VariantParser;
        fn value_parser() -> VariantParser {
            VariantParser
        }
    }
}

/// Runs `$body` with the type alias `$V` bound to the variant type of `$kind`:
/// the one place where a run-time variant choice becomes a compile-time one.
#[macro_export]
macro_rules! with_variant {
    ($kind:expr, $V:ident => $body:expr) => {
        match $kind {
            $crate::variants::VariantKind::Chess => {
                type $V = $crate::variants::chess::Chess;
                $body
            }
            $crate::variants::VariantKind::AttendingPawns => {
                type $V = $crate::variants::attending_pawns::AttendingPawns;
                $body
            }
            $crate::variants::VariantKind::Subversion => {
                type $V = $crate::variants::subversion::Subversion;
                $body
            }
            $crate::variants::VariantKind::CruisePawns => {
                type $V = $crate::variants::cruise_pawns::CruisePawns;
                $body
            }
            $crate::variants::VariantKind::Andernach => {
                type $V = $crate::variants::andernach::Andernach;
                $body
            }
            $crate::variants::VariantKind::AntiAndernach => {
                type $V = $crate::variants::andernach::AntiAndernach;
                $body
            }
            $crate::variants::VariantKind::SuperAndernach => {
                type $V = $crate::variants::andernach::SuperAndernach;
                $body
            }
            $crate::variants::VariantKind::Pacifist => {
                type $V = $crate::variants::pacifist::Pacifist;
                $body
            }
            $crate::variants::VariantKind::CowardlyCrew => {
                type $V = $crate::variants::cowardly_crew::CowardlyCrew;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Front ends compare a game's start with `start_fen()` to decide whether a
    /// PGN needs `SetUp`/`FEN`: it must be exactly what the start position prints.
    #[test]
    fn every_start_fen_is_the_start_position_printed() {
        for &kind in VariantKind::ALL {
            let printed =
                crate::with_variant!(kind, V => crate::fen::format(&Position::<V>::startpos()));
            assert_eq!(printed, kind.start_fen(), "{kind}");
        }
    }
}
