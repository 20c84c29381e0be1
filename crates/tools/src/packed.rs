//! The packed training-data format: what `datagen --format packed` writes,
//! `datagen-convert` makes from text files and `train` reads, one record per
//! labelled position, about half the size of its text line.
//!
//! A file is a header, then records back to back:
//!
//! - Header: the magic `TCPK`, the format version (1), the length of the
//!   variant's name (one byte) and the name (`VariantKind::name`), so that a
//!   file of one variant is never read as another's.
//! - Record: 32 fixed bytes, then `extra` more (byte 31), all little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | occupancy, bit `s` for square `s` (a1 = 0, b1 = 1, ..., h8 = 63) |
//! | 8..24 | the first 32 pieces in square order, one 4-bit code each, low nibble first: role 0..5 (pawn, knight, bishop, rook, queen, king) plus 8 for Black |
//! | 24 | bit 7: Black to move; bits 0..6: the en passant square, or 64 for none |
//! | 25 | bits 0..3: castling rights K, Q, k, q; bits 4..5: result (0 Black won, 1 draw, 2 White won); bit 6: long clocks; bit 7: 0 |
//! | 26 | halfmove clock (0 with long clocks) |
//! | 27..29 | fullmove number, u16 (0 with long clocks) |
//! | 29..31 | score, i16: centipawns, White's view |
//! | 31 | `extra`: the length of the record's variable part |
//!
//! The variable part holds, in this order, what only some positions need: the
//! codes of the pieces beyond 32 (Attending Pawns' promotions create pawns, so
//! a board may hold more), two nibbles a byte; with long clocks the halfmove
//! clock and the fullmove number as u32 (a FEN may give clocks beyond u8 and
//! u16 though no game of ours reaches them); and the variant's seventh FEN field
//! (Attending Pawns' links, Cruise Pawns' missile) as one byte per token: a
//! square as its index (0..63), or a character of [`PUNCTUATION`] as 64 plus
//! its place there. No seventh field, no token. A chess position is thus 32
//! bytes, a Cruise Pawns one without a missile 33.
//!
//! A record is the position's canonical FEN (as `fen::format` prints it), field
//! by field: unpacking it gives that FEN back exactly, in every variant, and a
//! record is refused (a typed [`PackedError`]) when any byte says something no
//! FEN does (an unknown piece code, padding that is not zero, an en passant
//! square beyond h8), so that a damaged file is noticed rather than trained on.

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use shakmaty::{Bitboard, Color, Role, Square};

use turncoat_rules::fen::{self, FenError};
use turncoat_rules::position::Position;
use turncoat_rules::variants::{Variant, VariantKind};

/// The first bytes of a packed file. No FEN starts with `T`, so a file is told
/// from a text file by them.
pub const MAGIC: [u8; 4] = *b"TCPK";
/// The format version this code reads and writes.
pub const VERSION: u8 = 1;
/// A record's fixed part.
pub const FIXED_BYTES: usize = 32;
/// The most bytes a record's variable part can have (its length is one byte).
pub const MAX_EXTRA: usize = u8::MAX as usize;
/// Pieces whose codes fit in the fixed part.
const FIXED_PIECES: usize = 32;
/// Byte 24's value for "no en passant square".
const NO_EP: u8 = 64;
const BLACK_TO_MOVE: u8 = 0x80;
const LONG_CLOCKS: u8 = 0x40;
const RESERVED: u8 = 0x80;
/// The castling bits of byte 25, in `fen::format`'s order, with the rook's
/// square each stands for.
const CASTLING: [(Square, char); 4] = [
    (Square::H1, 'K'),
    (Square::A1, 'Q'),
    (Square::H8, 'k'),
    (Square::A8, 'q'),
];
/// The characters besides squares that a seventh FEN field may use (Attending
/// Pawns: `a1a2,b1b2` or `-`; Cruise Pawns: `e4*e5f6g7` or `-`).
pub const PUNCTUATION: [char; 3] = [',', '*', '-'];
/// Role order of the piece codes.
const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// A game's result for White, as the data files hold it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameResult {
    BlackWon,
    Draw,
    WhiteWon,
}

impl GameResult {
    /// The text files' spelling: `0`, `0.5`, `1`.
    pub fn text(self) -> &'static str {
        match self {
            GameResult::BlackWon => "0",
            GameResult::Draw => "0.5",
            GameResult::WhiteWon => "1",
        }
    }

    /// White's score: 0, 0.5 or 1.
    pub fn value(self) -> f32 {
        match self {
            GameResult::BlackWon => 0.0,
            GameResult::Draw => 0.5,
            GameResult::WhiteWon => 1.0,
        }
    }

    /// The result whose [`value`](Self::value) is `x` exactly, if any.
    pub fn from_value(x: f32) -> Option<GameResult> {
        [GameResult::BlackWon, GameResult::Draw, GameResult::WhiteWon]
            .into_iter()
            .find(|r| r.value() == x)
    }

    fn code(self) -> u8 {
        self as u8
    }

    fn from_code(code: u8) -> Option<GameResult> {
        [GameResult::BlackWon, GameResult::Draw, GameResult::WhiteWon]
            .get(usize::from(code))
            .copied()
    }
}

/// One labelled position as a file holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The position's canonical FEN (the seventh field where the variant has one).
    pub fen: String,
    /// Centipawns, White's view.
    pub score: i16,
    pub result: GameResult,
}

impl Record {
    /// The text files' line, without its newline: `FEN;score;result`.
    pub fn line(&self) -> String {
        format!("{};{};{}", self.fen, self.score, self.result.text())
    }
}

/// Why a packed file cannot be read or a position cannot be packed. Offsets are
/// bytes from the start of the file. The message (`Display`) is the sentence a
/// user reads.
#[derive(Debug)]
#[non_exhaustive]
pub enum PackedError {
    Io(io::Error),
    /// The file does not start with [`MAGIC`].
    NotPacked,
    /// A version this code does not read.
    Version {
        found: u8,
    },
    /// The header names no variant of the registry.
    UnknownVariant {
        found: String,
    },
    /// A file of `found` read or appended to as one of `expected`.
    WrongVariant {
        expected: VariantKind,
        found: VariantKind,
    },
    /// The file ends inside the header or record that starts at `offset` (a
    /// run killed while writing leaves this).
    Truncated {
        offset: u64,
    },
    /// The record at `offset` says something no FEN does.
    Malformed {
        offset: u64,
        what: &'static str,
    },
    /// The record at `offset` unpacks to a FEN that its variant refuses.
    Position {
        offset: u64,
        fen: String,
        error: FenError,
    },
    /// A position or label the format cannot hold.
    Unrepresentable {
        what: String,
    },
}

impl fmt::Display for PackedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackedError::Io(e) => write!(f, "{e}"),
            PackedError::NotPacked => f.write_str("not a packed data file (no TCPK header)"),
            PackedError::Version { found } => write!(
                f,
                "packed data format version {found}; this build reads version {VERSION}"
            ),
            PackedError::UnknownVariant { found } => {
                write!(f, "the header names an unknown variant '{found}'")
            }
            PackedError::WrongVariant { expected, found } => {
                write!(f, "a file of {found} positions, not {expected}")
            }
            PackedError::Truncated { offset } => write!(
                f,
                "the file ends inside the record at byte {offset} (a run killed while \
                 writing?); the records before it are whole: `truncate -s {offset}` keeps them"
            ),
            PackedError::Malformed { offset, what } => {
                write!(f, "byte {offset}: not a record: {what}")
            }
            PackedError::Position { offset, fen, error } => {
                write!(
                    f,
                    "byte {offset}: the record's position '{fen}' is refused: {error}"
                )
            }
            PackedError::Unrepresentable { what } => write!(f, "cannot pack {what}"),
        }
    }
}

impl std::error::Error for PackedError {}

impl From<io::Error> for PackedError {
    fn from(e: io::Error) -> PackedError {
        PackedError::Io(e)
    }
}

/// The header of a file of `variant`'s positions.
pub fn header(variant: VariantKind) -> Vec<u8> {
    let name = variant.name().as_bytes();
    let mut bytes = Vec::with_capacity(6 + name.len());
    bytes.extend_from_slice(&MAGIC);
    bytes.push(VERSION);
    // Registry names are short ASCII words.
    bytes.push(name.len() as u8);
    bytes.extend_from_slice(name);
    bytes
}

fn piece_code(color: Color, role: Role) -> u8 {
    let role = role as u8 - Role::Pawn as u8;
    match color {
        Color::White => role,
        Color::Black => role | 8,
    }
}

/// The FEN letter of a piece code (`None`: no piece has it).
fn piece_letter(code: u8) -> Option<char> {
    let role = *ROLES.get(usize::from(code & 7))?;
    let color = Color::from_white(code & 8 == 0);
    Some(role.of(color).char())
}

/// Appends `pos`'s record, labelled with `score` (centipawns, White's view) and
/// `result`, to `out`.
pub fn encode<V: Variant>(
    pos: &Position<V>,
    score: i32,
    result: GameResult,
    out: &mut Vec<u8>,
) -> Result<(), PackedError> {
    let score = i16::try_from(score).map_err(|_| PackedError::Unrepresentable {
        what: format!("score {score}: outside -32768..32767"),
    })?;
    let occupied = pos.occupied();
    let mut fixed = [0u8; FIXED_BYTES];
    fixed[..8].copy_from_slice(&occupied.0.to_le_bytes());
    let mut extra = Vec::new();
    for (i, sq) in occupied.into_iter().enumerate() {
        let piece = pos
            .piece_at(sq)
            .ok_or_else(|| PackedError::Unrepresentable {
                what: format!("a board whose occupancy names an empty square {sq}"),
            })?;
        let code = piece_code(piece.color, piece.role);
        if i < FIXED_PIECES {
            fixed[8 + i / 2] |= code << (4 * (i % 2));
        } else if (i - FIXED_PIECES).is_multiple_of(2) {
            extra.push(code);
        } else if let Some(last) = extra.last_mut() {
            *last |= code << 4;
        }
    }
    fixed[24] = pos.ep_square().map_or(NO_EP, |sq| sq as u8);
    if pos.turn() == Color::Black {
        fixed[24] |= BLACK_TO_MOVE;
    }
    let mut flags = result.code() << 4;
    let mut rights = pos.castling();
    for (bit, (sq, _)) in CASTLING.iter().enumerate() {
        if rights.contains(*sq) {
            flags |= 1 << bit;
            rights.discard(*sq);
        }
    }
    if rights.any() {
        return Err(PackedError::Unrepresentable {
            what: format!("castling rights on squares other than the corners: {rights:?}"),
        });
    }
    let (halfmoves, fullmoves) = (pos.halfmoves(), pos.fullmoves());
    match (u8::try_from(halfmoves), u16::try_from(fullmoves)) {
        (Ok(h), Ok(f)) if f > 0 => {
            fixed[26] = h;
            fixed[27..29].copy_from_slice(&f.to_le_bytes());
        }
        _ => {
            // The format's long clocks are 32 bits each; move numbers count
            // in 64 bits, and one past 32 bits is refused, not cut.
            let full = u32::try_from(fullmoves).map_err(|_| PackedError::Unrepresentable {
                what: format!("fullmove number {fullmoves}: more than 32 bits"),
            })?;
            flags |= LONG_CLOCKS;
            extra.extend_from_slice(&halfmoves.to_le_bytes());
            extra.extend_from_slice(&full.to_le_bytes());
        }
    }
    fixed[25] = flags;
    fixed[29..31].copy_from_slice(&score.to_le_bytes());
    if let Some(field) = V::format_state(pos) {
        encode_field(&field, &mut extra)?;
    }
    fixed[31] = u8::try_from(extra.len()).map_err(|_| PackedError::Unrepresentable {
        what: format!(
            "{}: {} bytes beyond the fixed part, more than {MAX_EXTRA}",
            fen::format(pos),
            extra.len()
        ),
    })?;
    out.extend_from_slice(&fixed);
    out.extend_from_slice(&extra);
    Ok(())
}

/// The seventh FEN field as tokens: squares and [`PUNCTUATION`].
fn encode_field(field: &str, out: &mut Vec<u8>) -> Result<(), PackedError> {
    let bad = || PackedError::Unrepresentable {
        what: format!("the seventh FEN field '{field}'"),
    };
    if field.is_empty() {
        return Err(bad());
    }
    let bytes = field.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if (b'a'..=b'h').contains(&c) && bytes.get(i + 1).is_some_and(|r| (b'1'..=b'8').contains(r))
        {
            out.push((bytes[i + 1] - b'1') * 8 + (c - b'a'));
            i += 2;
        } else {
            let place = PUNCTUATION
                .iter()
                .position(|&p| p as u32 == u32::from(c))
                .ok_or_else(bad)?;
            out.push(64 + place as u8);
            i += 1;
        }
    }
    Ok(())
}

/// The record whose fixed part is `fixed` and variable part `extra`, found at
/// byte `offset` of its file.
fn decode(fixed: &[u8; FIXED_BYTES], extra: &[u8], offset: u64) -> Result<Record, PackedError> {
    let bad = |what| PackedError::Malformed { offset, what };
    let mut word = [0u8; 8];
    word.copy_from_slice(&fixed[..8]);
    let occupied = Bitboard(u64::from_le_bytes(word));
    let count = occupied.count();
    let beyond = count.saturating_sub(FIXED_PIECES);
    let piece_bytes = beyond.div_ceil(2);
    let flags = fixed[25];
    if flags & RESERVED != 0 {
        return Err(bad("a reserved bit is set"));
    }
    let long = flags & LONG_CLOCKS != 0;
    let clock_bytes = if long { 8 } else { 0 };
    if extra.len() < piece_bytes + clock_bytes {
        return Err(bad(
            "the variable part is shorter than its pieces and clocks",
        ));
    }
    let nibble = |i: usize| {
        let (byte, i) = if i < FIXED_PIECES {
            (fixed[8 + i / 2], i)
        } else {
            (extra[(i - FIXED_PIECES) / 2], i - FIXED_PIECES)
        };
        (byte >> (4 * (i % 2))) & 15
    };
    // Unused nibbles are zero: one byte string per position.
    let padding_end = if count < FIXED_PIECES {
        FIXED_PIECES
    } else {
        FIXED_PIECES + 2 * piece_bytes
    };
    if (count..padding_end).any(|i| nibble(i) != 0) {
        return Err(bad("the padding after the last piece is not zero"));
    }
    let mut mailbox = [None; 64];
    for (i, sq) in occupied.into_iter().enumerate() {
        mailbox[sq as usize] = Some(piece_letter(nibble(i)).ok_or(bad("an unknown piece code"))?);
    }

    let mut fen = String::with_capacity(96);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match mailbox[rank * 8 + file] {
                Some(letter) => {
                    if empty > 0 {
                        fen.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    fen.push(letter);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            fen.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen.push_str(if fixed[24] & BLACK_TO_MOVE != 0 {
        " b "
    } else {
        " w "
    });
    let mut any = false;
    for (bit, (_, letter)) in CASTLING.iter().enumerate() {
        if flags & (1 << bit) != 0 {
            fen.push(*letter);
            any = true;
        }
    }
    if !any {
        fen.push('-');
    }
    match fixed[24] & !BLACK_TO_MOVE {
        NO_EP => fen.push_str(" -"),
        sq if sq < NO_EP => {
            fen.push(' ');
            push_square(&mut fen, sq);
        }
        _ => return Err(bad("an en passant square beyond h8")),
    }
    let result = GameResult::from_code((flags >> 4) & 3).ok_or(bad("result code 3"))?;
    let (halfmoves, fullmoves) = if long {
        if fixed[26..29].iter().any(|&b| b != 0) {
            return Err(bad("short clocks beside long ones"));
        }
        let clocks = &extra[piece_bytes..piece_bytes + 8];
        let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        (word(&clocks[..4]), word(&clocks[4..]))
    } else {
        (
            u32::from(fixed[26]),
            u32::from(u16::from_le_bytes([fixed[27], fixed[28]])),
        )
    };
    if fullmoves == 0 {
        return Err(bad("fullmove number 0"));
    }
    fen.push_str(&format!(" {halfmoves} {fullmoves}"));
    let field = &extra[piece_bytes + clock_bytes..];
    if !field.is_empty() {
        fen.push(' ');
        for &token in field {
            match token {
                0..64 => push_square(&mut fen, token),
                _ => fen.push(
                    *PUNCTUATION
                        .get(usize::from(token - 64))
                        .ok_or(bad("an unknown token in the seventh field"))?,
                ),
            }
        }
    }
    Ok(Record {
        fen,
        score: i16::from_le_bytes([fixed[29], fixed[30]]),
        result,
    })
}

fn push_square(s: &mut String, index: u8) {
    s.push(char::from(b'a' + index % 8));
    s.push(char::from(b'1' + index / 8));
}

/// Reads as much of `buf` as the source holds: fewer bytes only at its end.
pub fn read_full(source: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match source.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Whether `start` (a file's first bytes) are a packed file's.
pub fn is_packed(start: &[u8]) -> bool {
    start.starts_with(&MAGIC)
}

/// A packed file's records, one at a time (the file is never held whole).
pub struct Reader<R> {
    source: R,
    variant: VariantKind,
    /// Where the next record starts.
    offset: u64,
    extra: Vec<u8>,
}

impl<R: Read> Reader<R> {
    /// Reads the header.
    pub fn new(mut source: R) -> Result<Reader<R>, PackedError> {
        let mut start = [0u8; 6];
        let got = read_full(&mut source, &mut start)?;
        let seen = got.min(MAGIC.len());
        if start[..seen] != MAGIC[..seen] {
            return Err(PackedError::NotPacked);
        }
        if got < start.len() {
            return Err(PackedError::Truncated { offset: 0 });
        }
        if start[4] != VERSION {
            return Err(PackedError::Version { found: start[4] });
        }
        let mut name = vec![0u8; usize::from(start[5])];
        if read_full(&mut source, &mut name)? < name.len() {
            return Err(PackedError::Truncated { offset: 0 });
        }
        let name = String::from_utf8_lossy(&name).into_owned();
        let variant =
            VariantKind::from_name(&name).ok_or(PackedError::UnknownVariant { found: name })?;
        Ok(Reader {
            source,
            variant,
            offset: (start.len() + usize::from(start[5])) as u64,
            extra: Vec::with_capacity(MAX_EXTRA),
        })
    }

    /// The variant the header names.
    pub fn variant(&self) -> VariantKind {
        self.variant
    }

    /// Where the next record starts (after the last one read).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Reads the next record's bytes: `None` at the end of the file.
    fn next_bytes(&mut self) -> Result<Option<[u8; FIXED_BYTES]>, PackedError> {
        let mut fixed = [0u8; FIXED_BYTES];
        match read_full(&mut self.source, &mut fixed)? {
            0 => return Ok(None),
            FIXED_BYTES => {}
            _ => {
                return Err(PackedError::Truncated {
                    offset: self.offset,
                })
            }
        }
        self.extra.resize(usize::from(fixed[31]), 0);
        if read_full(&mut self.source, &mut self.extra)? < self.extra.len() {
            return Err(PackedError::Truncated {
                offset: self.offset,
            });
        }
        Ok(Some(fixed))
    }

    /// The next record: `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<Record>, PackedError> {
        let Some(fixed) = self.next_bytes()? else {
            return Ok(None);
        };
        let record = decode(&fixed, &self.extra, self.offset)?;
        self.offset += (FIXED_BYTES + self.extra.len()) as u64;
        Ok(Some(record))
    }

    /// The next record's position, as its variant `V` reads it, with its
    /// labels: `None` at the end of the file.
    pub fn next_position<V: Variant>(
        &mut self,
    ) -> Result<Option<(Position<V>, i16, GameResult)>, PackedError> {
        let offset = self.offset;
        let Some(record) = self.next_record()? else {
            return Ok(None);
        };
        match fen::parse::<V>(&record.fen) {
            Ok(pos) => Ok(Some((pos, record.score, record.result))),
            Err(error) => Err(PackedError::Position {
                offset,
                fen: record.fen,
                error,
            }),
        }
    }

    /// Skips the next record without decoding it: `false` at the end of the file.
    fn skip_record(&mut self) -> Result<bool, PackedError> {
        let found = self.next_bytes()?.is_some();
        if found {
            self.offset += (FIXED_BYTES + self.extra.len()) as u64;
        }
        Ok(found)
    }
}

/// Opens `path` to append records of `variant`: a new or empty file gets the
/// header; an existing one must be a packed file of `variant`, and a record cut
/// short at its end (a run killed while writing it) is cut off. Returns the
/// file, positioned at its end, and the bytes cut off.
pub fn open_append(path: &Path, variant: VariantKind) -> Result<(File, u64), PackedError> {
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    let len = file.metadata()?.len();
    if len == 0 {
        file.write_all(&header(variant))?;
        return Ok((file, 0));
    }
    let whole = {
        let mut reader = Reader::new(BufReader::new(&file))?;
        if reader.variant() != variant {
            return Err(PackedError::WrongVariant {
                expected: variant,
                found: reader.variant(),
            });
        }
        loop {
            match reader.skip_record() {
                Ok(true) => {}
                Ok(false) => break reader.offset(),
                Err(PackedError::Truncated { offset }) => break offset,
                Err(e) => return Err(e),
            }
        }
    };
    if whole < len {
        file.set_len(whole)?;
    }
    file.seek(SeekFrom::Start(whole))?;
    Ok((file, len - whole))
}

#[cfg(test)]
mod tests {
    use super::*;
    use turncoat_rules::variants::attending_pawns::AttendingPawns;
    use turncoat_rules::variants::chess::Chess;
    use turncoat_rules::variants::cruise_pawns::CruisePawns;

    fn pack<V: Variant>(fen_text: &str, score: i32, result: GameResult) -> Vec<u8> {
        let pos = fen::parse::<V>(fen_text).unwrap();
        let mut out = Vec::new();
        encode(&pos, score, result, &mut out).unwrap();
        out
    }

    fn unpack(bytes: &[u8]) -> Result<Record, PackedError> {
        let mut fixed = [0u8; FIXED_BYTES];
        fixed.copy_from_slice(&bytes[..FIXED_BYTES]);
        assert_eq!(usize::from(fixed[31]), bytes.len() - FIXED_BYTES);
        decode(&fixed, &bytes[FIXED_BYTES..], 0)
    }

    /// The start position, byte by byte as the table in the module's comment
    /// lays it out.
    #[test]
    fn the_start_position_packs_as_documented() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let bytes = pack::<Chess>(start, -12, GameResult::Draw);
        let mut expected = vec![0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff];
        // a1..h1: R N B Q K B N R (3 1 2 4 5 2 1 3), then eight white pawns.
        expected.extend([0x13, 0x42, 0x25, 0x31, 0, 0, 0, 0]);
        // Eight black pawns (8), then r n b q k b n r (11 9 10 12 13 10 9 11).
        expected.extend([0x88, 0x88, 0x88, 0x88, 0x9b, 0xca, 0xad, 0xb9]);
        expected.extend([64, 0x1f, 0, 1, 0]);
        expected.extend((-12i16).to_le_bytes());
        expected.push(0);
        assert_eq!(bytes, expected);
        assert_eq!(
            unpack(&bytes).unwrap(),
            Record {
                fen: start.to_string(),
                score: -12,
                result: GameResult::Draw
            }
        );
    }

    /// Positions that need the variable part: the seventh field, more than 32
    /// pieces (Attending Pawns creates pawns when it promotes), clocks beyond
    /// the fixed fields', en passant and Black to move.
    #[test]
    fn the_variable_part_round_trips() {
        let missile = "3b3k/6n1/3p4/8/8/8/8/K7 b - - 0 1 e4*e5f6g7";
        let bytes = pack::<CruisePawns>(missile, 7, GameResult::WhiteWon);
        assert!(bytes.len() > FIXED_BYTES, "a missile takes tokens");
        assert_eq!(unpack(&bytes).unwrap().fen, missile);
        let idle = "3b3k/6n1/3p4/8/4P3/8/8/K7 w - - 3 9 -";
        let bytes = pack::<CruisePawns>(idle, 0, GameResult::Draw);
        assert_eq!(bytes.len(), FIXED_BYTES + 1);
        assert_eq!(unpack(&bytes).unwrap().fen, idle);

        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let links = fen::format(&fen::parse::<AttendingPawns>(start).unwrap());
        let bytes = pack::<AttendingPawns>(&links, 0, GameResult::Draw);
        // 16 links of two squares, 15 commas.
        assert_eq!(bytes.len(), FIXED_BYTES + 47);
        assert_eq!(unpack(&bytes).unwrap().fen, links);

        // 34 pieces: the 33rd and 34th go into the variable part.
        let crowded = "rnbqkbnr/pppppppp/8/8/8/P6P/PPPPPPPP/RNBQKBNR b KQkq - 0 1 -";
        let bytes = pack::<AttendingPawns>(crowded, 5, GameResult::BlackWon);
        assert_eq!(bytes.len(), FIXED_BYTES + 1 + 1);
        let record = unpack(&bytes).unwrap();
        assert_eq!(record.fen, crowded);
        assert_eq!((record.score, record.result), (5, GameResult::BlackWon));

        for (fen_text, long) in [
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 255 65535", false),
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 256 1", true),
            ("4k3/8/8/8/8/8/8/4K3 b - - 7 65536", true),
            ("4k3/8/8/8/8/8/8/4K3 b - - 4294967295 4294967295", true),
        ] {
            let bytes = pack::<Chess>(fen_text, -32768, GameResult::Draw);
            assert_eq!(bytes.len(), FIXED_BYTES + if long { 8 } else { 0 });
            assert_eq!(unpack(&bytes).unwrap().fen, fen_text);
        }
    }

    #[test]
    fn what_the_format_cannot_hold_is_refused() {
        let far = fen::parse::<Chess>("4k3/8/8/8/8/8/8/4K3 w - - 0 4294967296").unwrap();
        let e = encode(&far, 0, GameResult::Draw, &mut Vec::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot pack fullmove number 4294967296: more than 32 bits"
        );
        let pos = fen::parse::<Chess>("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        for score in [32768, -32769] {
            let e = encode(&pos, score, GameResult::Draw, &mut Vec::new()).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("cannot pack score {score}: outside -32768..32767")
            );
        }
        let mut out = Vec::new();
        let e = encode_field("a1+a2", &mut out).unwrap_err();
        assert_eq!(e.to_string(), "cannot pack the seventh FEN field 'a1+a2'");
        assert!(encode_field("", &mut out).is_err());
    }

    /// Every byte that says something no FEN does is refused by name.
    #[test]
    fn malformed_records_are_refused() {
        let good = pack::<Chess>("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 0, GameResult::WhiteWon);
        let what = |change: &dyn Fn(&mut Vec<u8>)| {
            let mut bytes = good.clone();
            change(&mut bytes);
            match unpack(&bytes) {
                Err(PackedError::Malformed { what, .. }) => what,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(what(&|b| b[25] |= 0x80), "a reserved bit is set");
        assert_eq!(what(&|b| b[25] |= 0x30), "result code 3");
        assert_eq!(what(&|b| b[24] = 65), "an en passant square beyond h8");
        assert_eq!(what(&|b| b[8] = 0x56), "an unknown piece code");
        assert_eq!(
            what(&|b| b[9] = 1),
            "the padding after the last piece is not zero"
        );
        assert_eq!(what(&|b| b[27] = 0), "fullmove number 0");
        assert_eq!(
            what(&|b| b[25] |= LONG_CLOCKS),
            "the variable part is shorter than its pieces and clocks"
        );
        assert_eq!(
            what(&|b| {
                b[25] |= LONG_CLOCKS;
                b[31] = 8;
                b.extend([0, 0, 0, 0, 1, 0, 0, 0]);
            }),
            "short clocks beside long ones"
        );
        assert_eq!(
            what(&|b| {
                b[31] = 1;
                b.push(67);
            }),
            "an unknown token in the seventh field"
        );
    }
}
