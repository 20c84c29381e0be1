//! FEN: the six standard fields plus the variant's seventh (docs/RULES.md "FEN").
//! Parsing says what is wrong; printing is canonical (docs/RULES.md's en passant rule,
//! seventh field always printed for variants that have state).

use std::fmt::{self, Write as _};

use shakmaty::{attacks, Bitboard, Color, File, Piece, Rank, Role, Square};

use crate::position::{past_en_passant, Position};
use crate::variants::attending_pawns::LinkError;
use crate::variants::cruise_pawns::MissileFieldError;
use crate::variants::Variant;

/// Why a FEN was refused: the field and what is wrong with it, or the rule of
/// docs/RULES.md ("FEN: rejected positions") the position breaks. The message
/// (`Display`) is the sentence a user reads.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FenError {
    /// Fewer than 4 or more than 7 space-separated fields.
    FieldCount { found: usize },
    /// The board field does not have 8 ranks.
    RankCount { found: usize },
    /// A digit that is not 1 to 8 in the board field.
    EmptyCount { found: char, rank: Rank },
    /// A letter that names no piece in the board field.
    PieceLetter { found: char, rank: Rank },
    /// A rank of the board field with more than 8 squares.
    RankTooLong { rank: Rank },
    /// A rank of the board field with fewer than 8 squares.
    RankTooShort { rank: Rank, squares: u32 },
    /// A side to move other than `w` or `b`.
    SideToMove { found: String },
    /// A castling field with a letter other than `KQkq` (or not `-`).
    Castling { found: String },
    /// An en passant field that is not a square (or `-`).
    EnPassantSquare { found: String },
    /// An en passant square on the wrong rank for the side to move.
    EnPassantRank { square: Square, expected: Rank },
    /// A halfmove clock that is not a number.
    HalfmoveClock { found: String },
    /// A fullmove number that is not a number.
    FullmoveNumber { found: String },
    /// A seventh field in a variant that has none.
    NoSeventhField {
        variant: &'static str,
        found: String,
    },
    /// A colour without exactly one king (every variant but Pacifist).
    KingCount { color: Color, count: usize },
    /// The side not to move is in check.
    OpponentInCheck,
    /// A pawn on rank 1 or 8 (Attending Pawns: on the other side's first rank).
    PawnOnBackRank { square: Square },
    /// Pacifist: the kings do not number two in total.
    PacifistKings { found: usize },
    /// Pacifist: the side not to move has no king.
    WaitingSideHasNoKing { color: Color },
    /// Pacifist: every king of the side not to move is overly persuaded.
    WaitingKingsPersuaded { color: Color },
    /// Attending Pawns: a link of the seventh field.
    Link(LinkError),
    /// Cruise Pawns: the seventh field does not describe a missile.
    Missile {
        field: String,
        error: MissileFieldError,
    },
    /// Cruise Pawns: an en passant square while a missile is in flight (`found`
    /// is the field as written, when it was read before loading).
    EnPassantInFlight { found: Option<String> },
    /// Cruise Pawns: the missile's launch square holds a piece.
    MissileLaunchOccupied { square: Square },
    /// Cruise Pawns: a piece of the defender stands on the path before the target.
    MissilePathBlocked { square: Square },
    /// Cruise Pawns: the target is not a non-king piece of the side to move.
    MissileTarget { square: Square },
    /// Cruise Pawns: the launcher would be in check once the missile detonated.
    OpponentInCheckAfterDetonation,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::FieldCount { found } => {
                write!(f, "FEN needs 4 to 7 space-separated fields, found {found}")
            }
            FenError::RankCount { found } => {
                write!(f, "board needs 8 ranks separated by '/', found {found}")
            }
            FenError::EmptyCount { found, rank } => write!(
                f,
                "bad empty-square count '{found}' in rank {}",
                rank.char()
            ),
            FenError::PieceLetter { found, rank } => {
                write!(f, "bad piece letter '{found}' in rank {}", rank.char())
            }
            FenError::RankTooLong { rank } => {
                write!(f, "rank {} has more than 8 squares", rank.char())
            }
            FenError::RankTooShort { rank, squares } => {
                write!(f, "rank {} has {squares} squares, expected 8", rank.char())
            }
            FenError::SideToMove { found } => {
                write!(f, "side to move must be 'w' or 'b', found '{found}'")
            }
            FenError::Castling { found } => write!(f, "bad castling field '{found}'"),
            FenError::EnPassantSquare { found } => write!(f, "bad en passant square '{found}'"),
            FenError::EnPassantRank { square, expected } => write!(
                f,
                "en passant square {square} is not on rank {}",
                expected.char()
            ),
            FenError::HalfmoveClock { found } => write!(f, "bad halfmove clock '{found}'"),
            FenError::FullmoveNumber { found } => write!(f, "bad fullmove number '{found}'"),
            FenError::NoSeventhField { variant, found } => write!(
                f,
                "variant {variant} has no seventh FEN field, found '{found}'"
            ),
            FenError::KingCount { color, count } => {
                write!(f, "{color} has {count} kings, expected exactly one")
            }
            FenError::OpponentInCheck => f.write_str("the side not to move is in check"),
            FenError::PawnOnBackRank { square } => {
                write!(f, "pawn on {square}: pawns may not stand on rank 1 or 8")
            }
            FenError::PacifistKings { found } => write!(
                f,
                "pacifist needs exactly two kings in total, found {found}"
            ),
            FenError::WaitingSideHasNoKing { color } => {
                write!(f, "{color} (not to move) has no king")
            }
            FenError::WaitingKingsPersuaded { color } => {
                write!(f, "every king of {color} (not to move) is overly persuaded")
            }
            FenError::Link(e) => e.fmt(f),
            FenError::Missile { field, error } => {
                write!(f, "bad missile field '{field}': {error}")
            }
            FenError::EnPassantInFlight { found } => {
                f.write_str("en passant field must be '-' while a missile is in flight")?;
                match found {
                    Some(ep) => write!(f, ", found '{ep}'"),
                    None => Ok(()),
                }
            }
            FenError::MissileLaunchOccupied { square } => {
                write!(f, "missile launch square {square} is occupied")
            }
            FenError::MissilePathBlocked { square } => write!(
                f,
                "missile path passes the defender's piece on {square} before its target"
            ),
            FenError::MissileTarget { square } => write!(
                f,
                "missile target {square} is not a non-king piece of the side to move"
            ),
            FenError::OpponentInCheckAfterDetonation => {
                f.write_str("the side not to move is in check (judged on the detonated board)")
            }
        }
    }
}

impl std::error::Error for FenError {}

/// For front ends that still report errors as text.
impl From<FenError> for String {
    fn from(e: FenError) -> String {
        e.to_string()
    }
}

/// Parses a FEN (4 to 7 fields) for variant `V`.
pub fn parse<V: Variant>(fen: &str) -> Result<Position<V>, FenError> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.len() < 4 || fields.len() > 7 {
        return Err(FenError::FieldCount {
            found: fields.len(),
        });
    }
    V::check_fen_fields(&fields)?;
    if fields.len() == 7 && fields[4].parse::<u32>().is_err() {
        return Err(FenError::HalfmoveClock {
            found: fields[4].to_string(),
        });
    }
    let mut pos = Position::<V>::empty();
    parse_board(&mut pos, fields[0])?;

    match fields[1] {
        "w" => pos.set_turn(Color::White),
        "b" => pos.set_turn(Color::Black),
        other => {
            return Err(FenError::SideToMove {
                found: other.to_string(),
            })
        }
    }

    pos.set_castling(parse_castling(&pos, fields[2])?);

    let ep = match fields[3] {
        "-" => None,
        s => Some(s.parse::<Square>().map_err(|_| FenError::EnPassantSquare {
            found: s.to_string(),
        })?),
    };
    if let Some(sq) = ep {
        let expected = if pos.turn() == Color::White {
            Rank::Sixth
        } else {
            Rank::Third
        };
        if sq.rank() != expected {
            return Err(FenError::EnPassantRank {
                square: sq,
                expected,
            });
        }
        pos.set_ep(visible_ep(&pos, sq));
    }

    if let Some(h) = fields.get(4) {
        pos.set_halfmoves(h.parse::<u32>().map_err(|_| FenError::HalfmoveClock {
            found: h.to_string(),
        })?);
    }
    if let Some(f) = fields.get(5) {
        let n = f
            .parse::<u64>()
            .ok()
            .filter(|&n| n <= MAX_FULLMOVES)
            .ok_or_else(|| FenError::FullmoveNumber {
                found: f.to_string(),
            })?;
        pos.set_fullmoves(n.max(1));
    }

    let state = V::parse_state(&pos, fields.get(6).copied())?;
    pos.set_state(state);
    pos.refresh_key();
    V::validate(&pos)?;
    Ok(pos)
}

fn parse_board<V: Variant>(pos: &mut Position<V>, board: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount { found: ranks.len() });
    }
    for (i, row) in ranks.iter().enumerate() {
        let rank = Rank::new(7 - i as u32);
        let mut file = 0u32;
        for ch in row.chars() {
            if let Some(d) = ch.to_digit(10) {
                if d == 0 || d > 8 {
                    return Err(FenError::EmptyCount { found: ch, rank });
                }
                file += d;
            } else {
                let role = Role::from_char(ch.to_ascii_lowercase())
                    .ok_or(FenError::PieceLetter { found: ch, rank })?;
                if file >= 8 {
                    return Err(FenError::RankTooLong { rank });
                }
                let color = Color::from_white(ch.is_ascii_uppercase());
                pos.put(
                    Square::from_coords(File::new(file), rank),
                    Piece { color, role },
                );
                file += 1;
            }
            if file > 8 {
                return Err(FenError::RankTooLong { rank });
            }
        }
        if file != 8 {
            return Err(FenError::RankTooShort {
                rank,
                squares: file,
            });
        }
    }
    Ok(())
}

/// Castling rights whose king and rook stand at home; others are dropped silently.
fn parse_castling<V: Variant>(pos: &Position<V>, field: &str) -> Result<Bitboard, FenError> {
    let mut rights = Bitboard::EMPTY;
    if field == "-" {
        return Ok(rights);
    }
    for ch in field.chars() {
        let (color, rook_file) = match ch {
            'K' => (Color::White, File::H),
            'Q' => (Color::White, File::A),
            'k' => (Color::Black, File::H),
            'q' => (Color::Black, File::A),
            _ => {
                return Err(FenError::Castling {
                    found: field.to_string(),
                })
            }
        };
        let rank = color.backrank();
        let king_home = Square::from_coords(File::E, rank);
        let rook_home = Square::from_coords(rook_file, rank);
        if pos.piece_at(king_home) == Some(color.king())
            && pos.piece_at(rook_home) == Some(color.rook())
        {
            rights.add(rook_home);
        }
    }
    Ok(rights)
}

/// docs/RULES.md: the en passant field names the passed square only when a pawn of the
/// side to move attacks it (pins ignored) and the pawn that made the double step
/// stands just past it.
fn visible_ep<V: Variant>(pos: &Position<V>, sq: Square) -> Option<Square> {
    if !V::EN_PASSANT {
        return None;
    }
    let us = pos.turn();
    let pushed = past_en_passant(sq, us);
    let attackers = attacks::pawn_attacks(!us, sq) & pos.by_piece(us.pawn());
    // The pawn that made the double step; in Anti- and Super-Andernach it has
    // changed side since.
    let pusher = if V::DOUBLE_STEP_CHANGES_SIDE { us } else { !us };
    let pushed_ok = (!V::FEN_EN_PASSANT_NEEDS_PUSHER
        || pos.piece_at(pushed) == Some(pusher.pawn()))
        && !pos.occupied().contains(sq);
    (attackers.any() && pushed_ok).then_some(sq)
}

/// The largest fullmove number a FEN may carry. Move numbers count in 64 bits,
/// so a FEN written after play past any 32-bit number reads back; twice this
/// (the plies before such a start) stays exact in a JavaScript number, which
/// the web board counts plies in.
pub const MAX_FULLMOVES: u64 = 1 << 52;

/// Prints the FEN, with the seventh field where the variant has one.
pub fn format<V: Variant>(pos: &Position<V>) -> String {
    let mut s = String::with_capacity(90);
    for r in (0..8).rev() {
        let mut empty = 0;
        for f in 0..8 {
            let sq = Square::from_coords(File::new(f), Rank::new(r));
            match pos.piece_at(sq) {
                Some(p) => {
                    if empty > 0 {
                        let _ = write!(s, "{empty}");
                        empty = 0;
                    }
                    s.push(p.char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            let _ = write!(s, "{empty}");
        }
        if r > 0 {
            s.push('/');
        }
    }
    s.push(' ');
    s.push(if pos.turn() == Color::White { 'w' } else { 'b' });
    s.push(' ');
    let c = pos.castling();
    let mut any = false;
    for (sq, ch) in [
        (Square::H1, 'K'),
        (Square::A1, 'Q'),
        (Square::H8, 'k'),
        (Square::A8, 'q'),
    ] {
        if c.contains(sq) {
            s.push(ch);
            any = true;
        }
    }
    if !any {
        s.push('-');
    }
    match pos.ep_square() {
        Some(ep) => {
            let _ = write!(s, " {ep}");
        }
        None => s.push_str(" -"),
    }
    let _ = write!(s, " {} {}", pos.halfmoves(), pos.fullmoves());
    if let Some(extra) = V::format_state(pos) {
        s.push(' ');
        s.push_str(&extra);
    }
    s
}

/// A board diagram for the UCI `d` command (Stockfish's layout).
pub fn diagram<V: Variant>(pos: &Position<V>) -> String {
    let mut s = String::new();
    s.push_str("\n +---+---+---+---+---+---+---+---+\n");
    for r in (0..8).rev() {
        for f in 0..8 {
            let sq = Square::from_coords(File::new(f), Rank::new(r));
            let ch = pos.piece_at(sq).map_or(' ', |p| p.char());
            let _ = write!(s, " | {ch}");
        }
        let _ = writeln!(s, " | {}", r + 1);
        s.push_str(" +---+---+---+---+---+---+---+---+\n");
    }
    s.push_str("   a   b   c   d   e   f   g   h\n");
    s
}
