//! Labelled-position files in either format, read one position at a time:
//! text lines `FEN;score;result` (what `datagen --format text` and
//! scripts/label_positions.py write) or the packed records of [`packed`]
//! (told apart by their first bytes). `train` and `datagen-convert` read
//! through here, so that both formats give them the same positions in the same
//! order.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use crate::packed::{self, GameResult, Reader};
use turncoat_rules::fen;
use turncoat_rules::position::Position;
use turncoat_rules::variants::{Variant, VariantKind};

/// How a data file is written.
#[derive(ValueEnum, Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// One `FEN;score;result` line per position: readable, and what
    /// scripts/label_positions.py reads.
    #[default]
    Text,
    /// The packed records of `turncoat_tools::packed` (32 bytes a chess position).
    Packed,
}

/// The files a data tool reads and the one it writes (`datagen-convert`,
/// `relabel`).
#[derive(Args, Debug, Clone)]
pub struct Files {
    /// The variant whose positions these are.
    #[arg(long, default_value = "chess")]
    pub variant: VariantKind,
    /// The files to read, in order (text or packed, told apart by their first
    /// bytes).
    #[arg(required = true)]
    pub input: Vec<PathBuf>,
    /// The file to write; it must not exist yet.
    #[arg(long)]
    pub out: PathBuf,
    /// The format to write.
    #[arg(long, value_enum, default_value_t = Format::Packed)]
    pub format: Format,
}

/// One position of a data file with its labels.
pub struct Labelled<V: Variant> {
    pub pos: Position<V>,
    /// Centipawns, White's view.
    pub score: f32,
    /// White's result, in 0..=1.
    pub result: f32,
    /// Where in its file it is, for messages.
    pub place: Place,
}

/// A position's place in its file: a text file's line (1-based), a packed
/// file's byte offset.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Place {
    Line(usize),
    Byte(u64),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Line(n) => write!(f, "{n}"),
            Place::Byte(n) => write!(f, "byte {n}"),
        }
    }
}

/// The score and result fields of a text line: a finite score, a result in
/// 0..=1.
pub fn parse_labels(line: &str) -> Result<(f32, f32), String> {
    let mut fields = line.split(';').skip(1);
    let (Some(score), Some(result)) = (fields.next(), fields.next()) else {
        return Err("expected FEN;score;result".to_string());
    };
    let score: f32 = score
        .trim()
        .parse()
        .map_err(|_| format!("score '{}' is not a number", score.trim()))?;
    if !score.is_finite() {
        return Err(format!("score {score} is not finite"));
    }
    let result: f32 = result
        .trim()
        .parse()
        .map_err(|_| format!("result '{}' is not a number", result.trim()))?;
    if !(0.0..=1.0).contains(&result) {
        return Err(format!(
            "result {result} is outside 0..1 (1 = White won, 0.5 = draw, 0 = Black won)"
        ));
    }
    Ok((score, result))
}

/// Reads `path`'s positions of variant `V` in file order, giving each to
/// `each`: `Ok` a position, `Err` the message about a text line whose position
/// `V` refuses (`path: error: line`), which the caller skips (positions from
/// other tools may be odd). Fails, naming the file and line (text) or byte
/// (packed), on labels that are not numbers in range, on a packed file of
/// another variant, and on a packed record that is damaged or cut short; fails
/// with `each`'s error as soon as it returns one. Only one line or record is
/// held at a time.
pub fn read<V: Variant>(
    path: &Path,
    mut each: impl FnMut(Result<Labelled<V>, String>) -> Result<(), String>,
) -> Result<(), String> {
    let name = path.display();
    let mut file = File::open(path).map_err(|e| format!("{name}: {e}"))?;
    let mut start = [0u8; packed::MAGIC.len()];
    let got = packed::read_full(&mut file, &mut start).map_err(|e| format!("{name}: {e}"))?;
    file.seek(SeekFrom::Start(0))
        .map_err(|e| format!("{name}: {e}"))?;
    if packed::is_packed(&start[..got]) {
        let mut reader = Reader::new(BufReader::new(file)).map_err(|e| format!("{name}: {e}"))?;
        let found = reader.variant();
        if found.name() != V::NAME {
            return Err(format!(
                "{name}: a file of {found} positions, not {}",
                V::NAME
            ));
        }
        loop {
            let place = Place::Byte(reader.offset());
            let Some((pos, score, result)) = reader
                .next_position::<V>()
                .map_err(|e| format!("{name}: {e}"))?
            else {
                break;
            };
            each(Ok(Labelled {
                pos,
                score: f32::from(score),
                result: result.value(),
                place,
            }))?;
        }
        return Ok(());
    }
    for (number, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{name}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let (score, result) =
            parse_labels(&line).map_err(|e| format!("{name}:{}: {e}: {line}", number + 1))?;
        let text = line.split(';').next().unwrap_or("");
        match fen::parse::<V>(text) {
            Ok(pos) => each(Ok(Labelled {
                pos,
                score,
                result,
                place: Place::Line(number + 1),
            }))?,
            Err(e) => each(Err(format!("{name}: {e}: {line}")))?,
        }
    }
    Ok(())
}

/// The labels as a packed record holds them: a whole score in i16's range and
/// a result of 0, 0.5 or 1.
pub fn packable_labels(score: f32, result: f32) -> Result<(i32, GameResult), String> {
    let whole =
        score.fract() == 0.0 && (f32::from(i16::MIN)..=f32::from(i16::MAX)).contains(&score);
    if !whole {
        return Err(format!(
            "score {score} is not a whole number in -32768..32767"
        ));
    }
    Ok((score as i32, packable_result(result)?))
}

/// A result as a packed record holds it: 0, 0.5 or 1.
pub fn packable_result(result: f32) -> Result<GameResult, String> {
    GameResult::from_value(result).ok_or_else(|| format!("result {result} is not 0, 0.5 or 1"))
}

/// Runs `write` on a new file beside `out` (its name and `.tmp`) and renames
/// that to `out` once `write` succeeds, so that a failed run leaves no half
/// file at `out`; an `out` that exists already is refused, and left as it was.
pub fn write_beside<T>(
    out: &Path,
    write: impl FnOnce(&Path) -> Result<T, String>,
) -> Result<T, String> {
    if out.exists() {
        return Err(format!(
            "{} exists already; choose another --out",
            out.display()
        ));
    }
    let mut tmp = out.as_os_str().to_os_string();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let result = write(&tmp).and_then(|value| {
        fs::rename(&tmp, out).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        Ok(value)
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Appends one position as `format` writes it to `bytes`: a text line or a
/// packed record (an error only for what a packed record cannot hold).
pub fn encode<V: Variant>(
    pos: &Position<V>,
    score: i32,
    result: GameResult,
    format: Format,
    bytes: &mut Vec<u8>,
) -> Result<(), String> {
    match format {
        Format::Text => {
            let line = format!("{};{score};{}\n", fen::format(pos), result.text());
            bytes.extend_from_slice(line.as_bytes());
            Ok(())
        }
        Format::Packed => packed::encode(pos, score, result, bytes).map_err(|e| e.to_string()),
    }
}

/// A new data file being written: a packed file's header first, then what
/// [`encode`] makes; [`Output::finish`] flushes it to the disk.
pub struct Output {
    out: BufWriter<File>,
    name: String,
}

impl Output {
    pub fn create(path: &Path, variant: VariantKind, format: Format) -> Result<Output, String> {
        let name = path.display().to_string();
        let file = File::create(path).map_err(|e| format!("cannot create {name}: {e}"))?;
        let mut output = Output {
            out: BufWriter::new(file),
            name,
        };
        if format == Format::Packed {
            output.write_all(&packed::header(variant))?;
        }
        Ok(output)
    }

    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.out
            .write_all(bytes)
            .map_err(|e| format!("cannot write {}: {e}", self.name))
    }

    pub fn finish(self) -> Result<(), String> {
        let name = self.name;
        self.out
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .map_err(|e| format!("cannot write {name}: {e}"))
    }
}
