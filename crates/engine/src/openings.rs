//! Opening positions: the variant's start position, positions from an EPD/FEN file,
//! or seeded random walks from the start position. Game pair `r` (0-based) always
//! gets opening `r`, whatever the concurrency.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::policy::Policy;
use turncoat_rules::fen::{self, FenError};
use turncoat_rules::game::Game;
use turncoat_rules::moves::MoveList;
use turncoat_rules::position::Position;
use turncoat_rules::variants::{Variant, VariantKind};

/// Where openings come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningSource {
    /// Every game starts from the variant's start position.
    StartPosition,
    /// One position per line (FEN or EPD), used in file order, cycling.
    File(PathBuf),
    /// `plies` random legal plies from the start position, seeded.
    Random { plies: u32, seed: u64 },
}

/// Why the openings could not be made. The message (`Display`) is the sentence
/// a user reads.
#[derive(Debug)]
#[non_exhaustive]
pub enum OpeningsError {
    /// The openings file could not be read.
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    /// Line `line` (1-based) of the file is not a position of `variant`.
    Line {
        path: PathBuf,
        line: usize,
        variant: &'static str,
        error: EpdError,
    },
    /// Every position of the file is already decided (or it has none).
    NoPlayablePosition { path: PathBuf },
    /// The caller cancelled the random walks.
    Interrupted,
    /// No random walk of `plies` plies stayed undecided and level.
    NoRandomOpening {
        variant: &'static str,
        plies: u32,
        index: u64,
    },
}

impl fmt::Display for OpeningsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningsError::Read { path, error } => {
                write!(f, "cannot read openings file '{}': {error}", path.display())
            }
            OpeningsError::Line {
                path,
                line,
                variant,
                error,
            } => write!(
                f,
                "{}:{line}: not a {variant} position: {error}",
                path.display()
            ),
            OpeningsError::NoPlayablePosition { path } => write!(
                f,
                "openings file '{}' holds no playable position",
                path.display()
            ),
            OpeningsError::Interrupted => f.write_str("interrupted while generating the openings"),
            OpeningsError::NoRandomOpening {
                variant,
                plies,
                index,
            } => write!(
                f,
                "no undecided {plies}-ply random opening found for {variant} (index {index})"
            ),
        }
    }
}

impl std::error::Error for OpeningsError {}

/// For front ends that still report errors as text.
impl From<OpeningsError> for String {
    fn from(e: OpeningsError) -> String {
        e.to_string()
    }
}

/// Why a line of an openings file is not a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EpdError {
    /// Fewer than the 4 fields every FEN and EPD line starts with.
    TooFewFields,
    /// No prefix of its fields is a FEN the variant accepts (the longest's reason).
    Fen(FenError),
}

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EpdError::TooFewFields => f.write_str("a position needs at least 4 fields"),
            EpdError::Fen(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for EpdError {}

/// SplitMix64: tiny, fast, and fully specified, so a seed means the same openings
/// on every platform and in every version of this crate.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), without modulo bias worth mentioning for n < 2^32.
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// The `count` opening FENs for game pairs `0..count`, on one thread.
pub fn openings(
    variant: VariantKind,
    source: &OpeningSource,
    count: usize,
) -> Result<Vec<String>, OpeningsError> {
    let indices: Vec<usize> = (0..count).collect();
    let map = openings_at(variant, source, &indices, 1, &mut |_, _| {}, &|| false)?;
    Ok(map.into_values().collect())
}

/// The openings of the game pairs `indices` (each index once, any order), keyed by
/// index: the same FENs as [`openings`] gives at those indices. Random walks are
/// generated on `threads` threads; `progress(done, total)` is called on the
/// calling thread as they come in (and once at the end); once `cancelled()`
/// answers true, generation stops with an error.
pub fn openings_at(
    variant: VariantKind,
    source: &OpeningSource,
    indices: &[usize],
    threads: usize,
    progress: &mut dyn FnMut(usize, usize),
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<std::collections::BTreeMap<usize, String>, OpeningsError> {
    turncoat_rules::with_variant!(variant, V => openings_at_for::<V>(source, indices, threads, progress, cancelled))
}

fn openings_at_for<V: Policy>(
    source: &OpeningSource,
    indices: &[usize],
    threads: usize,
    progress: &mut dyn FnMut(usize, usize),
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<std::collections::BTreeMap<usize, String>, OpeningsError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let total = indices.len();
    let out = match source {
        OpeningSource::StartPosition => {
            let f = fen::format(&Position::<V>::startpos());
            indices.iter().map(|&i| (i, f.clone())).collect()
        }
        OpeningSource::File(path) => {
            let all = load_file::<V>(path)?;
            indices
                .iter()
                .map(|&i| (i, all[i % all.len()].clone()))
                .collect()
        }
        OpeningSource::Random { plies, seed } => {
            let next = AtomicUsize::new(0);
            let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<String, OpeningsError>)>();
            let mut map = std::collections::BTreeMap::new();
            let mut first_err: Option<OpeningsError> = None;
            std::thread::scope(|scope| {
                for _ in 0..threads.clamp(1, total.max(1)) {
                    let tx = tx.clone();
                    let next = &next;
                    scope.spawn(move || loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = indices.get(k) else { break };
                        let r = if cancelled() {
                            Err(OpeningsError::Interrupted)
                        } else {
                            random_opening::<V>(*seed, i as u64, *plies)
                        };
                        let failed = r.is_err();
                        if tx.send((i, r)).is_err() || failed {
                            // Stop everyone: the match cannot start anyway.
                            next.store(indices.len(), Ordering::Relaxed);
                            break;
                        }
                    });
                }
                drop(tx);
                for (i, r) in rx {
                    match r {
                        Ok(f) => {
                            map.insert(i, f);
                            progress(map.len(), total);
                        }
                        Err(e) => {
                            first_err.get_or_insert(e);
                        }
                    }
                }
            });
            if let Some(e) = first_err {
                return Err(e);
            }
            return Ok(map);
        }
    };
    progress(total, total);
    Ok(out)
}

/// Reads an EPD/FEN file: one position per line; blank lines and lines starting
/// with `#` are skipped; EPD operations after the position are ignored. Positions
/// that are already decided are skipped with a warning; an unreadable position is
/// an error naming the file and line.
pub fn load_file<V: Variant>(path: &Path) -> Result<Vec<String>, OpeningsError> {
    let text = std::fs::read_to_string(path).map_err(|error| OpeningsError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    // Some editors start a UTF-8 file with a byte-order mark: it is no part of
    // the first position.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos = parse_epd_line::<V>(line).map_err(|error| OpeningsError::Line {
            path: path.to_path_buf(),
            line: i + 1,
            variant: V::NAME,
            error,
        })?;
        if let Some(outcome) = Game::new(pos).outcome() {
            log::warn!(
                "{}:{}: skipping an opening that is already over ({})",
                path.display(),
                i + 1,
                outcome.reason()
            );
            continue;
        }
        out.push(fen::format(&pos));
    }
    if out.is_empty() {
        return Err(OpeningsError::NoPlayablePosition {
            path: path.to_path_buf(),
        });
    }
    Ok(out)
}

/// A FEN line (4 to 7 fields) or an EPD line (4 fields then `opcode operand;`...):
/// the longest prefix of fields that parses wins.
fn parse_epd_line<V: Variant>(line: &str) -> Result<Position<V>, EpdError> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let mut first_err = None;
    for n in (4..=fields.len().min(7)).rev() {
        match fen::parse::<V>(&fields[..n].join(" ")) {
            Ok(pos) => return Ok(pos),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.map_or(EpdError::TooFewFields, EpdError::Fen))
}

/// Largest score (centipawns, either side) a random opening may have: random
/// walks often hang material, and a decided opening measures nothing.
pub const BALANCE_CP: i32 = 150;
/// Nodes of the balance check (single thread, fresh tables: deterministic).
pub const BALANCE_NODES: u64 = 20_000;

/// Is `pos` roughly level by a short search of our own engine?
fn balanced<V: Policy>(pos: &Position<V>, history: &[u64], nodes: u64) -> bool {
    let limits = crate::search::Limits {
        nodes: Some(nodes),
        ..Default::default()
    };
    let result = crate::search::search_fresh(pos, history, &limits, 1);
    result.score.abs() <= BALANCE_CP
}

/// Opening number `index` of the random-walk series `seed`: `plies` uniformly
/// random legal plies from the start position, retried (with the same stream) until
/// no position on the way ends the game and the last one is roughly level
/// ([`BALANCE_CP`]). Deterministic in `(seed, index, plies)`.
pub fn random_opening<V: Policy>(
    seed: u64,
    index: u64,
    plies: u32,
) -> Result<String, OpeningsError> {
    random_opening_checked::<V>(seed, index, plies, BALANCE_NODES)
}

/// [`random_opening`] with the balance check searching `balance_nodes` instead
/// of [`BALANCE_NODES`]. Training data wants it cheaper: in a variant whose
/// games are short (Attending Pawns keeps about 15 positions a game) the check
/// at 20,000 nodes costs more than the game's own 1000-node searches. The same
/// arguments give the same opening; another node count may give another.
pub fn random_opening_checked<V: Policy>(
    seed: u64,
    index: u64,
    plies: u32,
    balance_nodes: u64,
) -> Result<String, OpeningsError> {
    let mut rng = Rng::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    // Mix once more so that consecutive indices do not give correlated streams.
    rng = Rng::new(rng.next_u64());
    let mut moves = MoveList::new();
    'attempt: for _ in 0..10_000 {
        let mut game = Game::new(Position::<V>::startpos());
        for _ in 0..plies {
            moves.clear();
            V::legal_moves(&game.pos, &mut moves);
            if moves.is_empty() {
                continue 'attempt;
            }
            let mv = moves[rng.below(moves.len())];
            game.play(mv);
            if game.outcome().is_some() {
                continue 'attempt;
            }
        }
        if !balanced(&game.pos, &game.keys[..game.keys.len() - 1], balance_nodes) {
            continue 'attempt;
        }
        return Ok(fen::format(&game.pos));
    }
    Err(OpeningsError::NoRandomOpening {
        variant: V::NAME,
        plies,
        index,
    })
}
