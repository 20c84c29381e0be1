//! The standard-chess network: a small efficiently updatable neural network
//! (768 -> 2 x N -> 1, the output layer one of 8 chosen by the number of pieces;
//! N, the hidden width, is read from the file: 256 for the variants' networks)
//! that replaces the hand-written evaluation in chess (UCI `Use NNUE`, on by
//! default).
//!
//! Inputs are the 768 (colour, role, square) piece features, seen from each side:
//! from Black's view the board is flipped vertically and the colours swapped, so
//! one set of first-layer weights serves both. A king-bucketed network
//! ([`Layout::KingBuckets`]) has four such sets, each view reading the one its
//! own king's place selects, its board mirrored left-right when that king is on
//! files e-h; a king move that changes either makes that view's sums afresh.
//! A network with attendants ([`Layout::Attendants`], Attending Pawns) reads
//! 128 more: which pawns attend a celebrity, which a piece's move drags along.
//! The two HIDDEN-wide accumulators (side to move first) go through a squared
//! clipped ReLU into one output neuron, whose weights depend on the material left
//! ([`bucket`]): an endgame weighs the same features differently from a
//! middlegame, at no cost to the accumulators.
//! The weights come from `turncoat train` (`crates/tools/src/train.rs`), fitted to
//! Stockfish's static evaluation of quiet positions of our own games;
//! `docs/TRAINING.md` says which data made the shipped file.
//!
//! Quantisation follows the common scheme: first layer times QA (255) in i16, output
//! weights times QB (64), the output scaled back to centipawns by SCALE / (QA * QB).
//!
//! Every variant may have a network of its own in this shape, trained on its own
//! self-play (`turncoat datagen --variant`, `turncoat train --variant`), named
//! by the variant's `Policy::NETWORK` ([`EmbeddedNetwork`]). A variant
//! without one keeps the hand-written evaluation. `docs/TRAINING.md` gives the
//! measurements behind the sizes and says how each network was made.

use std::sync::Mutex;

use shakmaty::{Bitboard, Color, Piece, Role, Square};

use turncoat_rules::position::Board;

pub const INPUTS: usize = 768;
/// Boards a network may read ([`PieceBoards`]): the twelve pieces, then each
/// colour's attendants ([`Layout::Attendants`]).
pub const KINDS: usize = 14;
/// The board of White's attendants in [`PieceBoards`] (Black's follows):
/// pawns attached to a celebrity, a subset of the pawn boards.
pub const ATTENDANTS: usize = 12;
/// The hidden width `turncoat train` makes unless told otherwise.
pub const HIDDEN: usize = 256;
/// The widest hidden layer a network file may have (the accumulators' room);
/// widths are multiples of [`WIDTH_STEP`], the vector code's stride.
pub const MAX_HIDDEN: usize = 512;
pub const WIDTH_STEP: usize = 32;
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// Network output 1.0 = SCALE centipawns (also the trainer's sigmoid scale).
pub const SCALE: i32 = 400;
/// Trained weights are clipped to this: an output weight then quantises to at
/// most 127 (within [`MAX_OUTPUT_WEIGHT`]). The sums' ranges depend on every
/// weight together, so the loader checks them ([`NetworkError`]).
pub const WEIGHT_CLIP: f32 = 1.98;
/// The largest |output weight| (quantised): the vector code multiplies an
/// activation (0..=QA) by it in 16 bits, and 255 * 128 = 32640 fits, 255 * 129
/// does not.
pub const MAX_OUTPUT_WEIGHT: i32 = i16::MAX as i32 / QA;
/// The largest `QA * sum(|w2|) + |b2|` of an output layer: [`Network::evaluate`]
/// computes `(sum / QA + b2) * SCALE` in i32, where `|sum| <= QA^2 * sum(|w2|)`.
/// The dot products' own 32-bit sums, at most QA times this, then fit too.
pub const MAX_OUTPUT_SUM: i64 = (i32::MAX / SCALE) as i64;
/// Output layers, by the number of pieces on the board (see [`bucket`]).
pub const BUCKETS: usize = 8;
/// Input sets of a king-bucketed network ([`Layout::KingBuckets`]).
pub const KING_BUCKETS: usize = 4;

/// How a network's inputs are laid out, told by the file's magic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The 768 piece features of [`feature`] (file magic `TCN2`): every variant's network.
    Plain,
    /// 768 features for each of [`KING_BUCKETS`] places of the view's own king
    /// (file magic `TCN3`), the view's board mirrored left-right when that king
    /// stands on files e-h. The same piece weighs differently behind a castled
    /// king, an uncastled one, or one out in the open; the mirror halves what
    /// the buckets must learn.
    KingBuckets,
    /// The 768 piece features, then 128 that say which pawns attend a
    /// celebrity (file magic `TCN4`; Attending Pawns): an attached pawn
    /// weighs as a pawn and as an attendant, so the network can tell a pawn
    /// a raiding piece drags along from one that stays.
    Attendants,
}

impl Layout {
    pub const ALL: [Layout; 3] = [Layout::Plain, Layout::KingBuckets, Layout::Attendants];

    pub const fn inputs(self) -> usize {
        match self {
            Layout::Plain => INPUTS,
            Layout::KingBuckets => INPUTS * KING_BUCKETS,
            Layout::Attendants => INPUTS + 2 * 64,
        }
    }

    /// How many of [`PieceBoards`]' boards the layout reads: the attendants'
    /// only where it has features for them.
    pub const fn kinds(self) -> usize {
        match self {
            Layout::Attendants => KINDS,
            _ => ATTENDANTS,
        }
    }

    /// Input sets (one per king bucket): each holds [`INPUTS`] piece
    /// features, the attendants' after the last.
    pub const fn sets(self) -> usize {
        match self {
            Layout::KingBuckets => KING_BUCKETS,
            _ => 1,
        }
    }

    /// Its name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Plain => "plain",
            Layout::KingBuckets => "king-bucketed",
            Layout::Attendants => "pawn-link",
        }
    }

    pub const fn magic(self) -> &'static [u8; 4] {
        match self {
            Layout::Plain => b"TCN2",
            Layout::KingBuckets => b"TCN3",
            Layout::Attendants => b"TCN4",
        }
    }

    /// The magic of a residual network of this layout (`TCR2`, `TCR3`, `TCR4`):
    /// one whose output corrects the hand-set evaluation ([`Network::residual`]).
    pub const fn residual_magic(self) -> &'static [u8; 4] {
        match self {
            Layout::Plain => b"TCR2",
            Layout::KingBuckets => b"TCR3",
            Layout::Attendants => b"TCR4",
        }
    }

    /// The layout a magic names, and whether the network is residual.
    fn from_magic(magic: &[u8]) -> Option<(Layout, bool)> {
        Layout::ALL.into_iter().find_map(|l| {
            if l.magic() == magic {
                Some((l, false))
            } else if l.residual_magic() == magic {
                Some((l, true))
            } else {
                None
            }
        })
    }

    /// The part of `view`'s input indices fixed by where its own king stands
    /// (`None`: no king of that colour, read as on its home square).
    #[inline]
    pub fn view_key(self, view: Color, king: Option<Square>) -> ViewKey {
        match self {
            Layout::Plain | Layout::Attendants => ViewKey::default(),
            Layout::KingBuckets => {
                let king = king.map_or(4, |k| relative(view, k));
                let flip = if king % 8 >= 4 { 7 } else { 0 };
                let bucket = match ((king ^ flip) / 8, (king ^ flip) % 8) {
                    // a1-c1 (a castled king, g1 and b1 alike), d1-e1 (uncastled),
                    // the second rank, further up.
                    (0, 0..=2) => 0,
                    (0, _) => 1,
                    (1, _) => 2,
                    _ => 3,
                };
                ViewKey {
                    base: bucket * INPUTS,
                    flip,
                }
            }
        }
    }
}

/// Where a view's features start ([`Layout::view_key`]) and whether its board is
/// mirrored left-right (`flip` 7) or not (0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewKey {
    base: usize,
    flip: usize,
}

/// Bytes of a network file of hidden width `hidden`: magic, `hidden` as u32, w1,
/// b1, then w2 (i16) and b2 (i32) of each bucket in turn, little-endian.
pub const fn file_len(layout: Layout, hidden: usize) -> usize {
    4 + 4 + 2 * (layout.inputs() * hidden + hidden) + BUCKETS * (2 * 2 * hidden + 4)
}

/// Can a network have `hidden` neurons per accumulator (the file reader's and
/// the trainer's check alike)?
pub const fn valid_width(hidden: usize) -> bool {
    hidden != 0 && hidden <= MAX_HIDDEN && hidden.is_multiple_of(WIDTH_STEP)
}

/// A network shipped in the binary: a field of its variant's record
/// (`Policy::NETWORK`, made by the crate's `embedded_network!`), so that adding a variant
/// with a network touches that variant's file and nothing else. The file lives in
/// `crates/engine/src/nnue/`; `docs/TRAINING.md` says which data and commands
/// made each, and a network ships only when it beat the variant's hand-written
/// evaluation in a match.
#[derive(Clone, Copy, Debug)]
pub struct EmbeddedNetwork {
    /// The file's name in `crates/engine/src/nnue/`.
    pub file: &'static str,
    pub bytes: &'static [u8],
}

/// `EmbeddedNetwork` of the file `$file` in `crates/engine/src/nnue/`. The
/// bytes are a `static`: a constant's bytes are copied into every place that
/// uses the constant, which put each network into the binary twice (400 KB
/// each, and the browser's download with them).
macro_rules! embedded_network {
    ($file:literal) => {
        $crate::nnue::EmbeddedNetwork {
            file: $file,
            bytes: {
                static BYTES: [u8; include_bytes!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/src/nnue/",
                    $file
                ))
                .len()] = *include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/nnue/", $file));
                &BYTES
            },
        }
    };
}
pub(crate) use embedded_network;

impl EmbeddedNetwork {
    /// The network, parsed on first use and kept for the program's life. A
    /// shipped file that does not parse is a build defect (the test
    /// `shipped_networks_parse` guards it), hence the panic.
    pub fn network(self) -> &'static Network {
        static PARSED: Mutex<Vec<(&'static str, &'static Network)>> = Mutex::new(Vec::new());
        let mut parsed = PARSED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&(_, net)) = parsed.iter().find(|(file, _)| *file == self.file) {
            return net;
        }
        let net: &'static Network = Box::leak(Box::new(
            Network::from_bytes(self.bytes)
                .unwrap_or_else(|e| panic!("crates/engine/src/nnue/{}: {e}", self.file)),
        ));
        parsed.push((self.file, net));
        net
    }
}

/// The largest network file there is (king buckets, [`MAX_HIDDEN`] wide):
/// a front end reading a file the user names reads no more than this.
pub const MAX_FILE_LEN: usize = file_len(Layout::KingBuckets, MAX_HIDDEN);

/// A network from a file the user chose (UCI `EvalFile`, `datagen
/// --eval-file`), parsed and kept for the program's life: the search holds
/// networks as `&'static`, as it holds the embedded ones. Each distinct content
/// is parsed and kept once, so naming the same file again costs nothing and
/// a session that switches between a few files keeps only those.
pub fn keep(bytes: &[u8]) -> Result<&'static Network, NetworkError> {
    type Kept = Vec<(Box<[u8]>, &'static Network)>;
    static KEPT: Mutex<Kept> = Mutex::new(Vec::new());
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&(_, net)) = kept.iter().find(|(b, _)| **b == *bytes) {
        return Ok(net);
    }
    let net: &'static Network = Box::leak(Network::from_bytes(bytes)?);
    kept.push((bytes.into(), net));
    Ok(net)
}

/// Why [`load_file`] read no network.
#[derive(Debug)]
pub enum LoadError {
    Io(std::io::Error),
    /// A directory, pipe or device: only a regular file is opened (a pipe
    /// would block, a device might never end).
    NotAFile,
    /// More bytes than [`MAX_FILE_LEN`].
    TooLarge,
    Network(NetworkError),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Io(e) => write!(f, "{e}"),
            LoadError::NotAFile => f.write_str("not a regular file"),
            LoadError::TooLarge => {
                write!(f, "larger than any network ({MAX_FILE_LEN} bytes at most)")
            }
            LoadError::Network(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// The network in the file at `path` ([`keep`]): the one place a network is
/// read from a file the user names (UCI `EvalFile`, `datagen --eval-file`).
/// No more is read than the largest network takes.
pub fn load_file(path: &std::path::Path) -> Result<&'static Network, LoadError> {
    keep(&read_file(path)?).map_err(LoadError::Network)
}

/// The bytes of the file at `path`, read as a network file is: a regular
/// file only, and no more than the largest network takes (the tools that
/// rewrite network files read them through this too).
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, LoadError> {
    use std::io::Read;
    if !std::fs::metadata(path).map_err(LoadError::Io)?.is_file() {
        return Err(LoadError::NotAFile);
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_LEN as u64 + 1).read_to_end(&mut bytes))
        .map_err(LoadError::Io)?;
    if bytes.len() > MAX_FILE_LEN {
        return Err(LoadError::TooLarge);
    }
    Ok(bytes)
}

/// The output layer for a board with `pieces` pieces (kings included): four
/// piece counts a bucket, 2-5 the first, 30-32 the last.
#[inline]
pub fn bucket(pieces: u32) -> usize {
    (pieces.saturating_sub(2) as usize / 4).min(BUCKETS - 1)
}

/// `sq` seen from `view`'s side: flipped vertically for Black.
#[inline]
fn relative(view: Color, sq: Square) -> usize {
    if view == Color::White {
        sq as usize
    } else {
        sq as usize ^ 56
    }
}

/// The input index of a piece seen from `view`'s side in a plain network.
#[inline]
pub fn feature(view: Color, piece: Piece, sq: Square) -> usize {
    keyed_feature(view, piece, sq, ViewKey::default())
}

/// The input index of a piece seen from `view`'s side, whose king gives `key`.
#[inline]
pub fn keyed_feature(view: Color, piece: Piece, sq: Square, key: ViewKey) -> usize {
    let theirs = (piece.color != view) as usize;
    key.base + theirs * 384 + (piece.role as usize - 1) * 64 + (relative(view, sq) ^ key.flip)
}

/// The input index of board `kind` of [`PieceBoards`] at `sq`, seen from
/// `view`'s side, whose king gives `key`: a piece's ([`keyed_feature`]), or
/// for an attendant one of the 128 after the piece features.
#[inline]
pub fn kind_feature(view: Color, kind: usize, sq: Square, key: ViewKey) -> usize {
    if kind < ATTENDANTS {
        keyed_feature(view, piece_of(kind), sq, key)
    } else {
        let theirs = (kind_color(kind) != view) as usize;
        INPUTS + theirs * 64 + (relative(view, sq) ^ key.flip)
    }
}

/// A network's quantised weights, borrowed, in the file's order: the hidden
/// width, w1 by feature (`hidden` each), b1, each bucket's w2 (`2 * hidden`), b2.
pub type Weights<'a> = (usize, &'a [i16], &'a [i16], &'a [i16], &'a [i32; BUCKETS]);

pub struct Network {
    layout: Layout,
    /// The output is a correction to add to the hand-set evaluation
    /// ([`crate::eval::residual_base`]) rather than the whole evaluation: a
    /// network that starts from what the hand-set terms know and learns only
    /// what they miss, for variants whose data is too little to learn it all.
    residual: bool,
    /// Neurons per accumulator (per view).
    hidden: usize,
    /// First layer, one `hidden`-wide column per input feature.
    w1: Vec<i16>,
    b1: Vec<i16>,
    /// Output weights per bucket (`2 * hidden` each): side to move's half first,
    /// then the opponent's.
    w2: Vec<i16>,
    b2: [i32; BUCKETS],
}

/// Why bytes are not a network the engine can use: not of the file format, or
/// weights whose sums would overflow the integer arithmetic of the evaluation
/// (which wraps silently in the vector code, and panics in a debug build).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    /// Neither magic, or shorter than magic and width.
    NotANetwork { len: usize, magic: String },
    /// A hidden width the engine cannot hold ([`valid_width`]).
    Width(usize),
    /// The length does not match the magic and width.
    Length {
        len: usize,
        expected: usize,
        hidden: usize,
    },
    /// First-layer neuron `neuron` of input set `set` sums to `low..=high` on
    /// some board (one piece at most on each square), beyond the 16-bit
    /// accumulators.
    AccumulatorRange {
        set: usize,
        neuron: usize,
        low: i32,
        high: i32,
    },
    /// Output weight `index` of layer `bucket` exceeds [`MAX_OUTPUT_WEIGHT`].
    OutputWeight {
        bucket: usize,
        index: usize,
        weight: i16,
    },
    /// Output layer `bucket`'s `QA * sum(|w2|) + |b2|` exceeds [`MAX_OUTPUT_SUM`].
    OutputSum { bucket: usize, bound: i64 },
}

impl std::fmt::Display for NetworkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetworkError::NotANetwork { len, magic } => {
                let layouts = Layout::ALL;
                let magics: Vec<String> = layouts
                    .iter()
                    .map(|l| l.magic())
                    .chain(layouts.iter().map(|l| l.residual_magic()))
                    .map(|m| format!("{:?}", String::from_utf8_lossy(m)))
                    .collect();
                let (last, rest) = magics.split_last().expect("six magics");
                write!(
                    f,
                    "not a network file ({len} bytes, magic {magic:?}, {} or {last} expected)",
                    rest.join(", ")
                )
            }
            NetworkError::Width(hidden) => write!(
                f,
                "{hidden} hidden neurons: a multiple of {WIDTH_STEP} up to {MAX_HIDDEN} expected"
            ),
            NetworkError::Length {
                len,
                expected,
                hidden,
            } => write!(
                f,
                "{len} bytes, {expected} expected for {hidden} hidden neurons"
            ),
            NetworkError::AccumulatorRange {
                set,
                neuron,
                low,
                high,
            } => write!(
                f,
                "first-layer neuron {neuron} (input set {set}) sums to {low}..{high} on some \
                 board: outside the 16-bit accumulators' {}..{}",
                i16::MIN,
                i16::MAX
            ),
            NetworkError::OutputWeight {
                bucket,
                index,
                weight,
            } => write!(
                f,
                "output weight {index} of layer {bucket} is {weight}: at most \
                 {MAX_OUTPUT_WEIGHT} in size, so that {QA} times it fits 16 bits"
            ),
            NetworkError::OutputSum { bucket, bound } => write!(
                f,
                "output layer {bucket}: {QA} * sum(|w2|) + |b2| is {bound}, more than \
                 {MAX_OUTPUT_SUM}: the output would overflow 32 bits"
            ),
        }
    }
}

impl std::error::Error for NetworkError {}

/// The shape, not the weights: what a log line or an option's state shows.
impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("layout", &self.layout)
            .field("hidden", &self.hidden)
            .finish_non_exhaustive()
    }
}

impl Network {
    /// Parses a network file; the error says why it is not one of this shape,
    /// or why its weights would overflow the evaluation's integers.
    pub fn from_bytes(bytes: &[u8]) -> Result<Box<Network>, NetworkError> {
        let magic = &bytes[..bytes.len().min(4)];
        let found = Layout::from_magic(magic).filter(|_| bytes.len() >= 8);
        let Some((layout, residual)) = found else {
            return Err(NetworkError::NotANetwork {
                len: bytes.len(),
                magic: String::from_utf8_lossy(magic).into_owned(),
            });
        };
        let hidden = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
        if !valid_width(hidden) {
            return Err(NetworkError::Width(hidden));
        }
        if bytes.len() != file_len(layout, hidden) {
            return Err(NetworkError::Length {
                len: bytes.len(),
                expected: file_len(layout, hidden),
                hidden,
            });
        }
        // The length is checked above, so every read below is in bounds.
        let mut rest = &bytes[8..];
        let mut net = Box::new(Network {
            layout,
            residual,
            hidden,
            w1: vec![0; layout.inputs() * hidden],
            b1: vec![0; hidden],
            w2: vec![0; BUCKETS * 2 * hidden],
            b2: [0; BUCKETS],
        });
        read_i16s(&mut rest, &mut net.w1);
        read_i16s(&mut rest, &mut net.b1);
        for b in 0..BUCKETS {
            read_i16s(&mut rest, &mut net.w2[b * 2 * hidden..][..2 * hidden]);
            let (head, tail) = rest.split_at(4);
            net.b2[b] = i32::from_le_bytes([head[0], head[1], head[2], head[3]]);
            rest = tail;
        }
        net.check_ranges()?;
        Ok(net)
    }

    /// Refuses weights whose sums can leave the integers the evaluation keeps
    /// them in. First layer: on any board (at most one piece a square) a
    /// neuron's sum lies between its bias plus, square by square, the smallest
    /// (negative) and the largest (positive) weight of the twelve pieces there
    /// (and of the two attended pawns, pawn and attendant together, where the
    /// layout has attendants), and both ends are reached; that range must fit
    /// the i16 accumulators, whose every partial sum then fits too. Output: see
    /// [`MAX_OUTPUT_WEIGHT`] and [`MAX_OUTPUT_SUM`].
    fn check_ranges(&self) -> Result<(), NetworkError> {
        let h = self.hidden;
        let (mut low, mut high) = (vec![0i32; h], vec![0i32; h]);
        let (mut square_low, mut square_high) = (vec![0i32; h], vec![0i32; h]);
        for set in 0..self.layout.sets() {
            for (j, &b) in self.b1.iter().enumerate() {
                (low[j], high[j]) = (i32::from(b), i32::from(b));
            }
            for sq in 0..64 {
                square_low.fill(0);
                square_high.fill(0);
                for kind in 0..self.layout.kinds() {
                    // An attendant is a pawn too: its column and its pawn's
                    // add up on its square.
                    let (column, pawn) = if kind < ATTENDANTS {
                        (self.column(set * INPUTS + kind * 64 + sq), None)
                    } else {
                        let pawn = piece_of(kind).color.fold_wb(0, 6);
                        (
                            self.column(INPUTS + (kind - ATTENDANTS) * 64 + sq),
                            Some(self.column(set * INPUTS + pawn * 64 + sq)),
                        )
                    };
                    for (j, &w) in column.iter().enumerate() {
                        let w = i32::from(w) + pawn.map_or(0, |p| i32::from(p[j]));
                        square_low[j] = square_low[j].min(w);
                        square_high[j] = square_high[j].max(w);
                    }
                }
                for (x, d) in low.iter_mut().zip(&square_low) {
                    *x += d;
                }
                for (x, d) in high.iter_mut().zip(&square_high) {
                    *x += d;
                }
            }
            let fits = |x: i32| i16::try_from(x).is_ok();
            if let Some(neuron) = (0..h).find(|&j| !fits(low[j]) || !fits(high[j])) {
                return Err(NetworkError::AccumulatorRange {
                    set,
                    neuron,
                    low: low[neuron],
                    high: high[neuron],
                });
            }
        }
        for (bucket, w2) in self.w2.chunks_exact(2 * h).enumerate() {
            if let Some(index) = w2
                .iter()
                .position(|&w| i32::from(w).abs() > MAX_OUTPUT_WEIGHT)
            {
                return Err(NetworkError::OutputWeight {
                    bucket,
                    index,
                    weight: w2[index],
                });
            }
            let weights: i64 = w2.iter().map(|&w| i64::from(w).abs()).sum();
            let bound = i64::from(QA) * weights + i64::from(self.b2[bucket]).abs();
            if bound > MAX_OUTPUT_SUM {
                return Err(NetworkError::OutputSum { bucket, bound });
            }
        }
        Ok(())
    }

    /// The quantised weights in the file's order (w1 by feature, b1, then each
    /// bucket's w2 and b2): what `turncoat train --init` starts from.
    pub fn weights(&self) -> Weights<'_> {
        (self.hidden, &self.w1, &self.b1, &self.w2, &self.b2)
    }

    /// Neurons per accumulator.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Is the output a correction to the hand-set evaluation
    /// ([`crate::eval::residual_base`]), to be added to it?
    pub fn residual(&self) -> bool {
        self.residual
    }

    /// `view`'s key on `boards` (where its own king stands).
    #[inline]
    fn view_key(&self, view: Color, boards: &PieceBoards) -> ViewKey {
        match self.layout {
            Layout::Plain => ViewKey::default(),
            layout => layout.view_key(view, boards[king_index(view)].first()),
        }
    }

    /// The first-layer column of input `feature`.
    #[inline]
    fn column(&self, feature: usize) -> &[i16] {
        &self.w1[feature * self.hidden..][..self.hidden]
    }

    /// Centipawns from the side to move's view, the sums made from scratch
    /// (`eval`, tests); the search keeps them in an `AccumulatorStack`.
    pub fn evaluate_board(&self, boards: &PieceBoards, turn: Color) -> i32 {
        let mut acc = Accumulator::zeroed();
        acc.refresh(self, boards);
        self.evaluate(&acc, turn, piece_count(boards))
    }

    /// Centipawns from the side to move's view of a board with `pieces` pieces.
    pub fn evaluate(&self, acc: &Accumulator, turn: Color, pieces: u32) -> i32 {
        let (b, h) = (bucket(pieces), self.hidden);
        let (us, them) = (&acc.v[turn as usize][..h], &acc.v[!turn as usize][..h]);
        let (w_us, w_them) = self.w2[b * 2 * h..][..2 * h].split_at(h);
        let sum = screlu_dot(us, w_us) + screlu_dot(them, w_them);
        (sum / QA + self.b2[b]) * SCALE / (QA * QB)
    }
}

/// Fills `out` from the front of `bytes` (little-endian) and advances it.
fn read_i16s(bytes: &mut &[u8], out: &mut [i16]) {
    let (head, tail) = bytes.split_at(2 * out.len());
    for (w, c) in out.iter_mut().zip(head.chunks_exact(2)) {
        *w = i16::from_le_bytes([c[0], c[1]]);
    }
    *bytes = tail;
}

/// sum(clamp(x, 0, QA)^2 * w), by the widest kernel this CPU runs: AVX2 where
/// the build targets it or (x86-64 builds for any CPU, the released binaries)
/// where the running CPU has it, else SSE2 (every x86-64); NEON on aarch64;
/// WebAssembly's SIMD in the browser build; else [`screlu_dot_scalar`].
/// The kernels agree exactly when `|w| <= MAX_OUTPUT_WEIGHT` and
/// `QA^2 * sum(|w|)` fits i32 (what the loader's checks leave); `acc`'s length
/// is a multiple of WIDTH_STEP, `w` at least as long.
#[inline]
pub fn screlu_dot(acc: &[i16], w: &[i16]) -> i32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        // SAFETY: the build targets AVX2 (cfg above), so every CPU it runs on
        // has it.
        unsafe { screlu_dot_avx2(acc, w) }
    }
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    {
        match x86_dispatch::chosen() {
            // SAFETY: `chosen` picks AVX2 only where the CPU has it.
            x86_dispatch::AVX2 => unsafe { screlu_dot_avx2(acc, w) },
            x86_dispatch::SSE2 => screlu_dot_sse2(acc, w),
            _ => screlu_dot_scalar(acc, w),
        }
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        screlu_dot_neon(acc, w)
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        screlu_dot_simd128(acc, w)
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_feature = "neon"),
        all(target_arch = "wasm32", target_feature = "simd128")
    )))]
    {
        screlu_dot_scalar(acc, w)
    }
}

/// The kernel [`screlu_dot`] runs on this CPU: "avx2", "sse2", "neon",
/// "simd128" or "scalar" (`--version` and each search's first info string say
/// it, since the speed depends on it).
pub fn dot_kernel() -> &'static str {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        "avx2"
    }
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    {
        match x86_dispatch::chosen() {
            x86_dispatch::AVX2 => "avx2",
            x86_dispatch::SSE2 => "sse2",
            _ => "scalar",
        }
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        "neon"
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        "simd128"
    }
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_feature = "neon"),
        all(target_arch = "wasm32", target_feature = "simd128")
    )))]
    {
        "scalar"
    }
}

/// The kernel choice of an x86-64 build for any CPU (without AVX2 at compile
/// time, as released binaries are): made once, on the first evaluation, and
/// kept in an atomic, so that each call costs one load and a well-predicted
/// branch. `TURNCOAT_FORCE_KERNEL=sse2` or `=scalar` picks a narrower kernel
/// (tests of those paths on a CPU with AVX2); other values are ignored.
#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
mod x86_dispatch {
    use std::sync::atomic::{AtomicU8, Ordering};

    pub const UNKNOWN: u8 = 0;
    pub const SCALAR: u8 = 1;
    pub const SSE2: u8 = 2;
    pub const AVX2: u8 = 3;

    static CHOSEN: AtomicU8 = AtomicU8::new(UNKNOWN);

    /// SCALAR, SSE2 or AVX2 (AVX2 only where the CPU has it).
    #[inline(always)]
    pub fn chosen() -> u8 {
        match CHOSEN.load(Ordering::Relaxed) {
            UNKNOWN => choose(),
            k => k,
        }
    }

    /// Detects the CPU's kernel; threads racing here store the same value.
    #[cold]
    #[inline(never)]
    fn choose() -> u8 {
        let k = match std::env::var("TURNCOAT_FORCE_KERNEL").as_deref() {
            Ok("scalar") => SCALAR,
            Ok("sse2") => SSE2,
            _ if std::is_x86_feature_detected!("avx2") => AVX2,
            _ => SSE2,
        };
        CHOSEN.store(k, Ordering::Relaxed);
        k
    }
}

/// [`screlu_dot`] sixteen lanes at a time: a 16-bit multiply `x * w` (exact as
/// `|w| <= MAX_OUTPUT_WEIGHT`), then a multiply-add of pairs into 32 bits.
/// Compiled on every x86-64 build (its own target feature), so that a binary
/// for any x86-64 CPU uses it where the CPU has AVX2.
///
/// # Safety
///
/// The CPU must have AVX2 (`is_x86_feature_detected!("avx2")`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub unsafe fn screlu_dot_avx2(acc: &[i16], w: &[i16]) -> i32 {
    use std::arch::x86_64::*;
    assert!(w.len() >= acc.len() && acc.len().is_multiple_of(16));
    let zero = _mm256_setzero_si256();
    let qa = _mm256_set1_epi16(QA as i16);
    let mut sum = _mm256_setzero_si256();
    for i in (0..acc.len()).step_by(16) {
        // SAFETY: the loads read 16 lanes inside `acc` and `w` (lengths
        // checked above) and need no alignment.
        let (x, wv) = unsafe {
            (
                _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i),
                _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i),
            )
        };
        let x = _mm256_min_epi16(_mm256_max_epi16(x, zero), qa);
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_mullo_epi16(x, wv), x));
    }
    let mut lanes = [0i32; 8];
    // SAFETY: `lanes` holds 8 i32, the 256 bits stored (unaligned store).
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, sum) };
    lanes.iter().sum()
}

/// [`screlu_dot`] eight lanes at a time, as `screlu_dot_avx2` does sixteen;
/// compiled on every x86-64 build, so that its tests run on any machine.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn screlu_dot_sse2(acc: &[i16], w: &[i16]) -> i32 {
    use std::arch::x86_64::*;
    assert!(w.len() >= acc.len() && acc.len().is_multiple_of(8));
    // SAFETY: SSE2 is part of x86-64; every load reads 8 lanes inside
    // `acc` or `w` (lengths checked above).
    unsafe {
        let zero = _mm_setzero_si128();
        let qa = _mm_set1_epi16(QA as i16);
        let mut sum = _mm_setzero_si128();
        for i in (0..acc.len()).step_by(8) {
            let x = _mm_loadu_si128(acc.as_ptr().add(i) as *const __m128i);
            let x = _mm_min_epi16(_mm_max_epi16(x, zero), qa);
            let wv = _mm_loadu_si128(w.as_ptr().add(i) as *const __m128i);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_mullo_epi16(x, wv), x));
        }
        let mut lanes = [0i32; 4];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, sum);
        lanes.iter().sum()
    }
}

/// [`screlu_dot`] eight lanes at a time in NEON, the same steps as
/// [`screlu_dot_sse2`]: `vmulq_s16` keeps the low 16 bits of `x * w` (exact as
/// `|w| <= MAX_OUTPUT_WEIGHT`), and `vmlal_s16` / `vmlal_high_s16` widen the
/// products by `x` into 32-bit lanes, as `_mm_madd_epi16` does. NEON is part
/// of every aarch64 CPU the usual targets build for, so there is no detection.
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
#[inline]
pub fn screlu_dot_neon(acc: &[i16], w: &[i16]) -> i32 {
    use std::arch::aarch64::*;
    assert!(w.len() >= acc.len() && acc.len().is_multiple_of(8));
    // SAFETY: the build targets NEON (cfg above); every load reads 8 lanes
    // inside `acc` or `w` (lengths checked above) and needs no alignment
    // beyond i16's.
    unsafe {
        let zero = vdupq_n_s16(0);
        let qa = vdupq_n_s16(QA as i16);
        let (mut lo, mut hi) = (vdupq_n_s32(0), vdupq_n_s32(0));
        for i in (0..acc.len()).step_by(8) {
            let x = vld1q_s16(acc.as_ptr().add(i));
            let x = vminq_s16(vmaxq_s16(x, zero), qa);
            let xw = vmulq_s16(x, vld1q_s16(w.as_ptr().add(i)));
            lo = vmlal_s16(lo, vget_low_s16(xw), vget_low_s16(x));
            hi = vmlal_high_s16(hi, xw, x);
        }
        vaddvq_s32(vaddq_s32(lo, hi))
    }
}

/// [`screlu_dot`] eight lanes at a time in WebAssembly's 128-bit SIMD, the
/// same steps as [`screlu_dot_sse2`]: `i16x8_mul` keeps the low 16 bits as
/// `_mm_mullo_epi16` does (exact as `|w| <= MAX_OUTPUT_WEIGHT`), and
/// `i32x4_dot_i16x8` is `_mm_madd_epi16`. Two sums halve the chain of
/// dependent adds; 32-bit adds are exact, so the order does not matter.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline]
pub fn screlu_dot_simd128(acc: &[i16], w: &[i16]) -> i32 {
    use core::arch::wasm32::*;
    assert!(w.len() >= acc.len() && acc.len().is_multiple_of(16));
    let zero = i16x8_splat(0);
    let qa = i16x8_splat(QA as i16);
    let (mut s0, mut s1) = (i32x4_splat(0), i32x4_splat(0));
    let step = |at: usize| {
        // SAFETY: every load reads 8 lanes inside `acc` or `w` (lengths
        // checked above); `v128_load` needs no alignment.
        let (x, wv) = unsafe {
            (
                v128_load(acc.as_ptr().add(at) as *const v128),
                v128_load(w.as_ptr().add(at) as *const v128),
            )
        };
        let x = i16x8_min(i16x8_max(x, zero), qa);
        i32x4_dot_i16x8(i16x8_mul(x, wv), x)
    };
    for i in (0..acc.len()).step_by(16) {
        s0 = i32x4_add(s0, step(i));
        s1 = i32x4_add(s1, step(i + 8));
    }
    let s = i32x4_add(s0, s1);
    i32x4_extract_lane::<0>(s)
        + i32x4_extract_lane::<1>(s)
        + i32x4_extract_lane::<2>(s)
        + i32x4_extract_lane::<3>(s)
}

/// [`screlu_dot`] one lane at a time in 32 bits: the other architectures'
/// kernel, and the reference the vector kernels are tested against.
#[inline]
pub fn screlu_dot_scalar(acc: &[i16], w: &[i16]) -> i32 {
    let mut sum = 0i32;
    for (&x, &w) in acc.iter().zip(w) {
        let x = i32::from(x.clamp(0, QA as i16));
        sum += x * i32::from(w) * x;
    }
    sum
}

/// Both sides' first-layer sums for one board; colour index = view. Room for
/// the widest network; a network of `hidden` neurons uses the first `hidden`.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct Accumulator {
    v: [[i16; MAX_HIDDEN]; 2],
}

/// The bitboards of a board, the form the accumulator reads and diffs: the
/// 12 pieces in `piece_of` order, White's pawn to king, then Black's; then
/// White's and Black's attendants ([`ATTENDANTS`]), empty but in Attending
/// Pawns, and read only by a network with features for them.
pub type PieceBoards = [Bitboard; KINDS];

/// The piece on board `index` of [`PieceBoards`] (an attendant is a pawn).
pub fn piece_of(index: usize) -> Piece {
    if index >= ATTENDANTS {
        return kind_color(index).pawn();
    }
    Piece {
        color: Color::from_white(index < 6),
        role: Role::ALL[index % 6],
    }
}

/// The colour of board `index` of [`PieceBoards`].
#[inline]
fn kind_color(index: usize) -> Color {
    Color::from_white(index < 6 || index == ATTENDANTS)
}

/// The `PieceBoards` index of `color`'s king.
#[inline]
fn king_index(color: Color) -> usize {
    if color == Color::White {
        5
    } else {
        11
    }
}

/// Pieces on the board, kings included.
#[inline]
pub fn piece_count(boards: &PieceBoards) -> u32 {
    boards[..ATTENDANTS]
        .iter()
        .fold(Bitboard::EMPTY, |a, &b| a | b)
        .count() as u32
}

/// The network's view of a position.
#[inline]
pub fn piece_boards(pos: &Board) -> PieceBoards {
    std::array::from_fn(|i| {
        if i < ATTENDANTS {
            pos.by_piece(piece_of(i))
        } else {
            Bitboard::EMPTY
        }
    })
}

impl Accumulator {
    pub fn zeroed() -> Accumulator {
        Accumulator {
            v: [[0; MAX_HIDDEN]; 2],
        }
    }

    /// The sums from scratch, in place (an accumulator is 2 KiB: not moved).
    pub fn refresh(&mut self, net: &Network, boards: &PieceBoards) {
        for view in [Color::White, Color::Black] {
            self.refresh_view(net, boards, view);
        }
    }

    /// `view`'s sums from scratch.
    fn refresh_view(&mut self, net: &Network, boards: &PieceBoards, view: Color) {
        let h = net.hidden;
        let key = net.view_key(view, boards);
        let sums = &mut self.v[view as usize][..h];
        sums.copy_from_slice(&net.b1);
        for (i, &squares) in boards[..net.layout.kinds()].iter().enumerate() {
            for sq in squares {
                let column = net.column(kind_feature(view, i, sq, key));
                for (a, &w) in sums.iter_mut().zip(column) {
                    *a += w;
                }
            }
        }
    }

    /// Brings `self`, the sums of `from`, to those of `to` by the squares that
    /// changed: a move touches two to four, a conversion or an attendant a few
    /// more. Each view's sums are read and written once per batch of them.
    pub fn update(&mut self, net: &Network, from: &PieceBoards, to: &PieceBoards) {
        self.diff(net, None, from, to);
    }

    /// Sets `self` to the sums of `to` from `source`, the sums of `from`: the
    /// search's step from a parent's slot to a child's, without first copying
    /// the parent's sums into the child's.
    pub fn update_from(
        &mut self,
        net: &Network,
        source: &Accumulator,
        from: &PieceBoards,
        to: &PieceBoards,
    ) {
        self.diff(net, Some(source), from, to);
    }

    /// `update` (`source` None) or `update_from`. A view whose king changed
    /// bucket or board half (a king-bucketed network) is made from scratch: its
    /// every feature moved.
    fn diff(
        &mut self,
        net: &Network,
        mut source: Option<&Accumulator>,
        from: &PieceBoards,
        to: &PieceBoards,
    ) {
        const MAX: usize = 16;
        let (white, black) = (
            net.view_key(Color::White, to),
            net.view_key(Color::Black, to),
        );
        // The views kept by differences; the others are made afresh.
        let mut kept = [Color::White; 2];
        let mut n_kept = 0;
        for (view, key) in [(Color::White, white), (Color::Black, black)] {
            if key == net.view_key(view, from) {
                kept[n_kept] = view;
                n_kept += 1;
            } else {
                self.refresh_view(net, to, view);
            }
        }
        let views = &kept[..n_kept];
        if views.is_empty() {
            return;
        }
        let mut added = [(0usize, 0usize); MAX];
        let mut removed = [(0usize, 0usize); MAX];
        let (mut n_added, mut n_removed) = (0, 0);
        // The first batch reads `source`; any later one (a conversion cascade
        // larger than a batch) continues from `self`.
        for i in 0..net.layout.kinds() {
            let (old, new) = (from[i], to[i]);
            if old == new {
                continue;
            }
            let features = |sq| {
                (
                    kind_feature(Color::White, i, sq, white),
                    kind_feature(Color::Black, i, sq, black),
                )
            };
            for sq in old & !new {
                if n_removed == MAX {
                    self.apply(net, source, views, &added[..n_added], &removed[..n_removed]);
                    (n_added, n_removed, source) = (0, 0, None);
                }
                removed[n_removed] = features(sq);
                n_removed += 1;
            }
            for sq in new & !old {
                if n_added == MAX {
                    self.apply(net, source, views, &added[..n_added], &removed[..n_removed]);
                    (n_added, n_removed, source) = (0, 0, None);
                }
                added[n_added] = features(sq);
                n_added += 1;
            }
        }
        self.apply(net, source, views, &added[..n_added], &removed[..n_removed]);
    }

    /// Sets `views`' sums to `source`'s (or to their own when `None`) plus the
    /// `added` features' columns minus the `removed` ones (each `(White's view,
    /// Black's view)`), in one pass over each view's sums.
    fn apply(
        &mut self,
        net: &Network,
        source: Option<&Accumulator>,
        views: &[Color],
        added: &[(usize, usize)],
        removed: &[(usize, usize)],
    ) {
        let h = net.hidden;
        for &view in views {
            // Where each feature's column starts in w1.
            let start = |f: &(usize, usize)| h * if view == Color::White { f.0 } else { f.1 };
            // Lanes held in registers while every column is added.
            const LANES: usize = WIDTH_STEP;
            for c in (0..h).step_by(LANES) {
                let mut lanes = [0i16; LANES];
                let input = source.map_or(&self.v[view as usize], |s| &s.v[view as usize]);
                lanes.copy_from_slice(&input[c..][..LANES]);
                for f in added {
                    for (a, &w) in lanes.iter_mut().zip(&net.w1[start(f) + c..][..LANES]) {
                        *a = a.wrapping_add(w);
                    }
                }
                for f in removed {
                    for (a, &w) in lanes.iter_mut().zip(&net.w1[start(f) + c..][..LANES]) {
                        *a = a.wrapping_sub(w);
                    }
                }
                self.v[view as usize][c..][..LANES].copy_from_slice(&lanes);
            }
        }
    }
}

/// The search's accumulators, one slot per ply. A slot's sums are exact for the
/// board stored beside them, so any slot can be brought to any board by the
/// difference; evaluation at ply p reuses slot p when it already holds the board,
/// else starts from slot p - 1 (usually the parent), else slot p (usually a
/// sibling), else from scratch, and from scratch too when the difference is
/// larger than the board. Sums are written straight into slot p.
pub struct AccumulatorStack {
    net: &'static Network,
    slots: Vec<Slot>,
}

/// One ply's sums and the board they are exact for (`valid` false: never set).
#[derive(Clone, Copy)]
struct Slot {
    valid: bool,
    boards: PieceBoards,
    acc: Accumulator,
}

impl AccumulatorStack {
    pub fn new(net: &'static Network, plies: usize) -> AccumulatorStack {
        let empty = Slot {
            valid: false,
            boards: [Bitboard::EMPTY; KINDS],
            acc: Accumulator::zeroed(),
        };
        AccumulatorStack {
            net,
            slots: vec![empty; plies],
        }
    }

    /// The network whose sums these are.
    pub fn network(&self) -> &'static Network {
        self.net
    }

    /// Centipawns from the side to move's view for `boards` at `ply`.
    pub fn evaluate(&mut self, boards: &PieceBoards, turn: Color, ply: usize) -> i32 {
        let changed = |slot: &Slot| -> u32 {
            slot.boards
                .iter()
                .zip(boards)
                .map(|(x, y)| (*x ^ *y).count() as u32)
                .sum()
        };
        // From scratch costs one column per piece; a difference one per square.
        let pieces = piece_count(boards);
        let (before, rest) = self.slots.split_at_mut(ply);
        let slot = &mut rest[0];
        let parent = before.last().filter(|p| p.valid);
        if !(slot.valid && slot.boards == *boards) {
            match parent {
                Some(p) if changed(p) < pieces => {
                    slot.acc.update_from(self.net, &p.acc, &p.boards, boards)
                }
                _ if slot.valid && changed(slot) < pieces => {
                    let from = slot.boards;
                    slot.acc.update(self.net, &from, boards)
                }
                _ => slot.acc.refresh(self.net, boards),
            }
            slot.boards = *boards;
            slot.valid = true;
        }
        self.net.evaluate(&slot.acc, turn, pieces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(net: &Network, boards: &PieceBoards) -> Box<Accumulator> {
        let mut acc = Box::new(Accumulator::zeroed());
        acc.refresh(net, boards);
        acc
    }

    /// A dot-product kernel: [`screlu_dot`] or one of its variants.
    type Kernel = fn(&[i16], &[i16]) -> i32;

    /// Every kernel this CPU runs equals the scalar reference exactly, within
    /// the engine crate so that a cross build (aarch64 under an emulator)
    /// checks its kernel without building the binary: random sums of any i16
    /// against the largest weights the loader allows for each width, and the
    /// extreme sum of 256 lanes clipped to QA against weights of +-128.
    #[test]
    fn every_kernel_equals_the_scalar_one() {
        #[allow(unused_mut)]
        let mut kernels: Vec<(&str, Kernel)> = vec![("screlu_dot", screlu_dot)];
        #[cfg(target_arch = "x86_64")]
        {
            kernels.push(("sse2", screlu_dot_sse2));
            if std::is_x86_feature_detected!("avx2") {
                kernels.push(("avx2", |acc, w| {
                    assert!(std::is_x86_feature_detected!("avx2"));
                    // SAFETY: the CPU has AVX2 (checked above).
                    unsafe { screlu_dot_avx2(acc, w) }
                }));
            }
        }
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        kernels.push(("neon", screlu_dot_neon));
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut cases = Vec::new();
        for width in (WIDTH_STEP..=MAX_HIDDEN).step_by(WIDTH_STEP) {
            let limit = (i32::MAX / (QA * QA) / width as i32).min(MAX_OUTPUT_WEIGHT) as u64;
            for _ in 0..20 {
                let acc: Vec<i16> = (0..width).map(|_| next() as i16).collect();
                let w: Vec<i16> = (0..width)
                    .map(|_| ((next() % (2 * limit + 1)) as i64 - limit as i64) as i16)
                    .collect();
                cases.push((acc, w));
            }
        }
        cases.push((vec![i16::MAX; 256], vec![128; 256]));
        cases.push((vec![255; 256], vec![-128; 256]));
        let top = 255 * 255 * 128 * 256;
        assert_eq!(
            screlu_dot_scalar(&cases[cases.len() - 2].0, &cases[cases.len() - 2].1),
            top
        );
        for (acc, w) in &cases {
            let expected = screlu_dot_scalar(acc, w);
            for (name, kernel) in &kernels {
                assert_eq!(kernel(acc, w), expected, "{name}, width {}", acc.len());
            }
        }
        assert!(cases.iter().any(|(a, w)| screlu_dot_scalar(a, w) != 0));
    }

    #[test]
    fn features_mirror_between_views() {
        let white_knight = Piece {
            color: Color::White,
            role: Role::Knight,
        };
        let black_knight = Piece {
            color: Color::Black,
            role: Role::Knight,
        };
        // White's g1 knight seen by White = Black's g8 knight seen by Black.
        assert_eq!(feature(Color::White, white_knight, Square::G1), 64 + 6);
        assert_eq!(feature(Color::Black, black_knight, Square::G8), 64 + 6);
        assert_eq!(
            feature(Color::Black, white_knight, Square::G1),
            384 + 64 + 62
        );
    }

    /// A king-bucketed network of small pseudo-random weights (the update tests
    /// need one whose every input set differs).
    fn king_bucketed(hidden: usize) -> &'static Network {
        let mut bytes = Layout::KingBuckets.magic().to_vec();
        bytes.extend_from_slice(&(hidden as u32).to_le_bytes());
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        while bytes.len() < file_len(Layout::KingBuckets, hidden) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            bytes.extend_from_slice(&((x % 61) as i16 - 30).to_le_bytes());
        }
        Box::leak(Network::from_bytes(&bytes).expect("a king-bucketed network"))
    }

    /// Boards of a king-bucketed network's test: the start, the back rank
    /// cleared, then White's king e1 -> d1 (the same input set, unmirrored),
    /// d1 -> f1 (mirrored again, the castled set), f1 -> g1 (nothing of the
    /// view's key changes), g1 -> f2 (the second-rank set), and Black's king
    /// e8 -> f7 (Black's view only).
    fn king_walks(start: PieceBoards) -> Vec<PieceBoards> {
        let mut boards = vec![start];
        let mut cleared = start;
        cleared[0] = Bitboard::EMPTY;
        cleared[1] = cleared[1].without(Square::B1).without(Square::G1);
        cleared[2] = cleared[2].without(Square::F1);
        cleared[6] = cleared[6].without(Square::F7);
        boards.push(cleared);
        for (i, from, to) in [
            (5, Square::E1, Square::D1),
            (5, Square::D1, Square::F1),
            (5, Square::F1, Square::G1),
            (5, Square::G1, Square::F2),
            (11, Square::E8, Square::F7),
        ] {
            let mut next = *boards.last().expect("at least the start");
            next[i] = next[i].without(from).with(to);
            boards.push(next);
        }
        boards
    }

    #[test]
    fn king_buckets_update_like_sums_from_scratch() {
        let net = king_bucketed(64);
        let start = piece_boards(&turncoat_rules::position::Position::<
            turncoat_rules::variants::chess::Chess,
        >::startpos());
        let walk = king_walks(start);
        for (step, pair) in walk.windows(2).enumerate() {
            let exact = sums(net, &pair[1]).v;
            let mut acc = sums(net, &pair[0]);
            acc.update(net, &pair[0], &pair[1]);
            assert!(acc.v == exact, "step {step}");
            let mut child = sums(net, &start);
            child.update_from(net, &sums(net, &pair[0]), &pair[0], &pair[1]);
            assert!(child.v == exact);
        }
        let mut stack = AccumulatorStack::new(net, 8);
        for (ply, boards) in walk.iter().enumerate() {
            assert_eq!(
                stack.evaluate(boards, Color::White, ply),
                net.evaluate_board(boards, Color::White),
                "ply {ply}"
            );
        }
        // The king's input set changes the evaluation: the sets differ.
        assert_ne!(
            net.evaluate_board(&walk[2], Color::White),
            net.evaluate_board(&walk[3], Color::White)
        );
    }

    /// Every variant's network passes the loader's checks (`network()` would
    /// panic at the first search otherwise), and a cut file does not.
    #[test]
    fn shipped_networks_parse() {
        use crate::policy::Policy;
        use turncoat_rules::variants::VariantKind;
        for &kind in VariantKind::ALL {
            let Some(embedded) = turncoat_rules::with_variant!(kind, V => <V as Policy>::NETWORK)
            else {
                continue;
            };
            if let Err(e) = Network::from_bytes(embedded.bytes) {
                panic!("{}: {e}", embedded.file);
            }
            assert!(matches!(
                Network::from_bytes(&embedded.bytes[1..]),
                Err(NetworkError::NotANetwork { .. })
            ));
        }
    }

    fn chess_network() -> &'static Network {
        use crate::policy::Policy;
        turncoat_rules::variants::chess::Chess::NETWORK
            .expect("chess ships a network")
            .network()
    }

    /// Updating by differences gives the sums made from scratch, for a move
    /// and for a difference larger than one batch (every piece changes colour:
    /// 32 squares removed and 32 added).
    #[test]
    fn update_matches_sums_from_scratch() {
        let net = chess_network();
        let start = piece_boards(&turncoat_rules::position::Position::<
            turncoat_rules::variants::chess::Chess,
        >::startpos());
        let mut moved = start;
        moved[0] = moved[0].without(Square::E2).with(Square::E4);
        let swapped: PieceBoards = std::array::from_fn(|i| start[(i + 6) % 12]);
        for target in [moved, swapped] {
            let exact = sums(net, &target).v;
            let mut acc = sums(net, &start);
            acc.update(net, &start, &target);
            assert!(acc.v == exact);
            // Into another accumulator (the child's slot holds other sums).
            let source = sums(net, &start);
            let mut child = sums(net, &swapped);
            child.v[0][0] = 12345;
            child.update_from(net, &source, &start, &target);
            assert!(child.v == exact);
        }
    }

    /// The stack's evaluations equal those made from scratch whichever slot
    /// they start from: a child, a sibling, the same board again, a board far
    /// from every slot.
    #[test]
    fn stack_matches_evaluation_from_scratch() {
        let net = chess_network();
        let start = piece_boards(&turncoat_rules::position::Position::<
            turncoat_rules::variants::chess::Chess,
        >::startpos());
        let mut e4 = start;
        e4[0] = e4[0].without(Square::E2).with(Square::E4);
        let mut d4 = start;
        d4[0] = d4[0].without(Square::D2).with(Square::D4);
        let swapped: PieceBoards = std::array::from_fn(|i| start[(i + 6) % 12]);
        let mut stack = AccumulatorStack::new(net, 4);
        for (boards, turn, ply) in [
            (start, Color::White, 0),
            (e4, Color::Black, 1),
            (d4, Color::Black, 1),
            (d4, Color::Black, 1),
            (swapped, Color::White, 2),
            (start, Color::White, 0),
            (e4, Color::Black, 1),
        ] {
            assert_eq!(
                stack.evaluate(&boards, turn, ply),
                net.evaluate_board(&boards, turn),
                "ply {ply}"
            );
        }
    }
}
