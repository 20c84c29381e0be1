//! The move type shared by every variant, and the printing of docs/RULES.md tokens.
//!
//! A move is a small `Copy` value: the chess base (`from`, `to`, promotion) plus a
//! 64-bit `extra` payload whose meaning belongs to the variant (Cowardly Crew's
//! "convert none" flag, Subversion's paid squares, Attending Pawns' placements,
//! Cruise Pawns' missile path). Keeping it one fixed size lets the search store moves
//! in killers, history and the transposition table without caring which variant runs.
//!
//! Tokens are never parsed field by field: a token is legal exactly when it equals the
//! printed token of one legal move (see [`crate::variants::Variant::format_move`]),
//! which is how "one canonical token per move" is enforced everywhere.

use std::fmt::Write as _;

use shakmaty::{Role, Square};

/// The roles a pawn may promote to, in generation order.
pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Knight, Role::Rook, Role::Bishop];

/// What kind of base move this is; decides how `Position::play_base` applies it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum MoveKind {
    /// The "no move" placeholder (`0000`), never produced by move generation.
    #[default]
    Null,
    /// A piece (pawns included) moves from `from` to `to`, capturing what stands there.
    Normal,
    /// A pawn's two-square advance.
    DoublePush,
    /// En passant; the captured pawn stands beside `from`, behind `to`.
    EnPassant,
    /// Castling, written king from-to; the rook is found from the castling rights.
    Castle,
    /// A move the variant's rulebook applies entirely by itself (`play_base`
    /// leaves it alone): `from`, `to` and `extra` mean what that variant says.
    /// Each variant has at most one such kind and names it (Subversion's
    /// `SUBVERSION`, Cruise Pawns' `LAUNCH`).
    Special,
}

/// A move of any variant. `extra` is variant payload; 0 means "none".
#[derive(Copy, Clone, Debug)]
pub struct Move {
    pub kind: MoveKind,
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
    pub extra: u64,
}

/// Equality compares the four one-byte fields as one word, not field by field:
/// move ordering compares every move with the killers and the counter move.
impl PartialEq for Move {
    #[inline]
    fn eq(&self, other: &Move) -> bool {
        self.base_code() == other.base_code() && self.extra == other.extra
    }
}

impl Eq for Move {}

impl std::hash::Hash for Move {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.base_code().hash(state);
        self.extra.hash(state);
    }
}

impl Default for Move {
    fn default() -> Self {
        Move::NULL
    }
}

impl Move {
    pub const NULL: Move = Move {
        kind: MoveKind::Null,
        from: Square::A1,
        to: Square::A1,
        promotion: None,
        extra: 0,
    };

    #[inline]
    pub const fn new(kind: MoveKind, from: Square, to: Square) -> Move {
        Move {
            kind,
            from,
            to,
            promotion: None,
            extra: 0,
        }
    }

    #[inline]
    pub const fn with_promotion(mut self, role: Role) -> Move {
        self.promotion = Some(role);
        self
    }

    #[inline]
    pub const fn with_extra(mut self, extra: u64) -> Move {
        self.extra = extra;
        self
    }

    /// Kind, from, to and promotion in one number (equal exactly when all four are).
    #[inline]
    fn base_code(self) -> u32 {
        u32::from_le_bytes([
            self.kind as u8,
            self.from as u8,
            self.to as u8,
            self.promotion.map_or(0, |r| r as u8),
        ])
    }

    #[inline]
    pub fn is_null(self) -> bool {
        self.kind == MoveKind::Null
    }

    /// Appends the UCI long-algebraic base (`e2e4`, `e7e8q`, `e1g1`), without extras.
    pub fn write_base(self, out: &mut String) {
        if self.is_null() {
            out.push_str("0000");
            return;
        }
        let _ = write!(out, "{}{}", self.from, self.to);
        if let Some(role) = self.promotion {
            out.push(role.char());
        }
    }

    /// The base token; variants with extras print through their own `format_move`.
    pub fn base_token(self) -> String {
        let mut s = String::with_capacity(5);
        self.write_base(&mut s);
        s
    }
}

/// Reusable move buffer. Variants can produce thousands of moves (missile paths,
/// payment sets), so this is a `Vec`; the search and perft keep one per ply so that
/// no allocation happens after warm-up.
pub type MoveList = Vec<Move>;

/// Square list helper for extras: `a1=0 .. h8=63` order is the sorting docs/RULES.md uses.
pub fn write_square(out: &mut String, sq: Square) {
    let _ = write!(out, "{sq}");
}
