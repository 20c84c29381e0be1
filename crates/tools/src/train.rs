//! `turncoat train`: fits a network (crates/engine/src/nnue.rs) to labelled positions of
//! one variant (`--variant`, chess by default).
//!
//! Input: text lines `FEN;score;result` as `turncoat datagen` or
//! scripts/label_positions.py write them (the variant's FEN, seventh field
//! included where it has one; score: centipawns, White's view; result 1, 0.5 or 0
//! for White), or the same as packed records (`crate::packed`), read a line or
//! record at a time ([`crate::data`]): a packed file and its text give the same
//! network. Every variant's network has the same inputs, the 768
//! piece-on-square features of `nnue::feature`, read from the position as the
//! variant's FEN parser builds it (so a line that is not a legal FEN of the variant
//! is skipped). The target is `lambda * sigmoid(scale * score / K) +
//! (1 - lambda) * result`, seen from the side to move; the loss is the squared
//! error of `sigmoid(output * 400 / K)`, output 1.0 = 400 centipawns
//! (nnue::SCALE), K = `--win-scale` (400 unless told). Adam with
//! mini-batches, the batch's gradient summed over rayon's threads; the learning rate
//! drops tenfold for the last fifth of the epochs. A random 1/50 of the positions
//! is held out and its loss printed each epoch, as is the loss on any `--test`
//! files (positions never trained on, e.g. from matches against other engines: a
//! check on positions unlike the training data's). Positions mirrored left-right are
//! added when `--mirror` is given (chess is symmetric that way but for castling,
//! which the network does not see).
//!
//! `--residual` makes a network that corrects the hand-set evaluation
//! (`eval::residual_base`) instead of replacing it: the loss is taken on
//! `sigmoid(output + base)`, the base computed here for each position (and
//! for its mirror) as the engine computes it in play. An untrained residual
//! network plays like the hand-set evaluation, so little data cannot make it
//! worse than that; what it learns is what the hand-set terms miss.

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use rayon::prelude::*;
use shakmaty::{Color, Role, Square};

use crate::data::{self, Labelled};
use turncoat_engine::eval;
use turncoat_engine::nnue::{self, Layout, BUCKETS};
use turncoat_engine::policy::Policy;
use turncoat_rules::fen;
use turncoat_rules::position::Position;
use turncoat_rules::variants::VariantKind;
use turncoat_rules::with_variant;

#[derive(Args, Debug, Clone)]
pub struct TrainArgs {
    /// The variant whose positions these are.
    #[arg(long, default_value = "chess")]
    pub variant: VariantKind,
    /// Labelled position files: `FEN;score;result` lines, or packed files
    /// (`datagen --format packed`, `datagen-convert`).
    #[arg(required = true)]
    pub data: Vec<PathBuf>,
    /// Where to write the network (e.g. crates/engine/src/nnue/VARIANT.net to replace
    /// the shipped one). Written once, at the end, and only if training stayed finite.
    #[arg(long)]
    pub out: PathBuf,
    /// Also write the network after every finished epoch to `<out>.partial`, so
    /// that a run killed part-way leaves its last epoch (go on from it with
    /// `--init`); the file is removed when the run ends and writes `--out`.
    #[arg(long)]
    pub checkpoint: bool,
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    #[arg(long, default_value_t = 16384)]
    pub batch: usize,
    /// Neurons per accumulator: a multiple of 32 up to 512 (256 unless told;
    /// with --init, the starting network's). With --init of a narrower network
    /// it is widened: its neurons kept, the new ones' output weights zero, so
    /// it evaluates as before until training moves them.
    #[arg(long)]
    pub hidden: Option<usize>,
    /// Make a king-bucketed network (`nnue::Layout::KingBuckets`: one input set
    /// per place of the own king, the board mirrored when it stands on files
    /// e-h; `--mirror` then only repeats positions). With --init, the starting
    /// network's layout.
    #[arg(long, conflicts_with = "attendants")]
    pub king_buckets: bool,
    /// Give the network features for the attendants (`nnue::Layout::Attendants`:
    /// which pawns attend a celebrity; Attending Pawns only). With --init of a
    /// plain network, its weights are kept and the attendants' start at zero.
    #[arg(long)]
    pub attendants: bool,
    /// Adam step size.
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// Weight of the score in the target (1 = scores only).
    #[arg(long, default_value_t = 1.0)]
    pub lambda: f32,
    /// The score's weight for each output bucket in turn (`nnue::bucket`: 2-5
    /// pieces first, 30 and more last), eight numbers in 0..1 separated by
    /// commas, in place of --lambda. A self-play game's result says most about
    /// the positions near its end, and a search's score least: few pieces
    /// left, a search sees material and not yet the draw.
    #[arg(long, value_delimiter = ',', num_args = 1.., conflicts_with = "lambda")]
    pub bucket_lambda: Option<Vec<f32>>,
    /// Factor from the labels' centipawns to Turncoat's.
    #[arg(long, default_value_t = 0.9)]
    pub scale: f32,
    /// Turncoat's centipawns per unit of the win-probability sigmoid in the
    /// target and the loss (400, the network's own unit, unless told). A
    /// result blended in by --lambda moves the network's centipawns unless
    /// this matches what the scores win: `train` prints the value that fits
    /// the data's results best. The network still outputs centipawns.
    #[arg(long, default_value_t = nnue::SCALE as f32)]
    pub win_scale: f32,
    /// Also train on every position mirrored left-right (sound where the
    /// variant's rules are symmetric that way but for castling).
    #[arg(long)]
    pub mirror: bool,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Start from this network file instead of random weights (fine-tuning a
    /// shipped network on new data; a lower --lr suits it).
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Labelled positions never trained on, whose loss is printed before the first
    /// epoch and after each (repeatable): e.g. positions of matches against other
    /// engines, unlike the self-play data the network trains on.
    #[arg(long = "test", value_name = "FILE")]
    pub test: Vec<PathBuf>,
    /// Train a correction to the hand-set evaluation rather than a whole
    /// evaluation: the engine adds the network's output to
    /// `eval::residual_base` (file magic TCR2, TCR3 or TCR4). With --init, the
    /// starting network's kind.
    #[arg(long)]
    pub residual: bool,
}

/// The most features a [`Sample`] holds: 32 pieces, and an attendant
/// (`nnue::Layout::Attendants`) for at most every other one.
const MAX_FEATURES: usize = 48;

/// One position: its pieces, side to move, target probability from White's view.
/// Training holds every position's sample in memory ([`SAMPLE_BYTES`] each,
/// twice that with `--mirror`), and the data files not at all.
#[derive(Clone, Copy)]
struct Sample {
    /// Occupied squares of the network's boards (`nnue::PieceBoards`, by
    /// index): the pieces first, then the attendants.
    features: [(u8, Square); MAX_FEATURES],
    /// Entries of `features`.
    count: u8,
    /// Pieces on the board, the first entries of `features`.
    pieces: u8,
    white_to_move: bool,
    target: f32,
    /// A residual network's base (`eval::residual_base`, side to move's view,
    /// in output units: centipawns / SCALE) for the position and for its
    /// mirror image; 0 for a whole network.
    base: [f32; 2],
}

/// The memory a position takes in training.
pub const SAMPLE_BYTES: usize = std::mem::size_of::<Sample>();

impl Sample {
    /// The input features seen by the side to move, then by the other side
    /// (`nnue::kind_feature`, as the engine indexes them), and how many of
    /// each are used: the attendants' only where `layout` has features for them.
    fn views(&self, layout: Layout) -> ([u16; MAX_FEATURES], [u16; MAX_FEATURES], usize) {
        let (us, them) = if self.white_to_move {
            (Color::White, Color::Black)
        } else {
            (Color::Black, Color::White)
        };
        let n = if layout.kinds() > nnue::ATTENDANTS {
            self.count
        } else {
            self.pieces
        } as usize;
        let features = &self.features[..n];
        let key = |view: Color| {
            let king = features
                .iter()
                .find(|&&(kind, _)| {
                    let piece = nnue::piece_of(kind.into());
                    piece.color == view && piece.role == Role::King
                })
                .map(|&(_, sq)| sq);
            layout.view_key(view, king)
        };
        let (key_us, key_them) = (key(us), key(them));
        let (mut views_us, mut views_them) = ([0u16; MAX_FEATURES], [0u16; MAX_FEATURES]);
        for (i, &(kind, sq)) in features.iter().enumerate() {
            views_us[i] = nnue::kind_feature(us, kind.into(), sq, key_us) as u16;
            views_them[i] = nnue::kind_feature(them, kind.into(), sq, key_them) as u16;
        }
        (views_us, views_them, n)
    }

    /// The position mirrored left-right (file a <-> h).
    fn mirrored(&self) -> Sample {
        let mut m = *self;
        for (_, sq) in m.features[..m.count as usize].iter_mut() {
            *sq = sq.flip_horizontal();
        }
        m.base = [self.base[1], self.base[0]];
        m
    }

    /// The output layer this position trains (`nnue::bucket`).
    fn bucket(&self) -> usize {
        nnue::bucket(u32::from(self.pieces))
    }

    fn target_to_move(&self) -> f32 {
        if self.white_to_move {
            self.target
        } else {
            1.0 - self.target
        }
    }
}

/// A xorshift64 generator from `seed` (non-zero): the initial weights and the
/// shuffle, reproducible per `--seed`.
fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Why a line is refused: its labels (always an error) or its position (the line
/// is skipped with a warning, as positions from other tools may be odd).
#[cfg(test)]
#[derive(Debug, PartialEq)]
enum LineError {
    Label(String),
    Position(String),
}

/// A text line's sample, as [`load`] makes it.
#[cfg(test)]
fn parse_line(line: &str, args: &TrainArgs) -> Result<Sample, LineError> {
    let (score, result) = data::parse_labels(line).map_err(LineError::Label)?;
    let text = line.split(';').next().unwrap_or("");
    with_variant!(args.variant, V => {
        let pos = fen::parse::<V>(text).map_err(|e| LineError::Position(e.to_string()))?;
        let place = data::Place::Line(1);
        sample_of(&Labelled { pos, score, result, place }, args).map_err(LineError::Position)
    })
}

/// A labelled position's sample: the pieces of the board its network reads
/// (`Policy::network_boards`, as the search evaluates it) and the target.
fn sample_of<V: Policy>(labelled: &Labelled<V>, args: &TrainArgs) -> Result<Sample, String> {
    let Labelled {
        pos, score, result, ..
    } = labelled;
    let boards = V::network_boards(pos);
    let pieces = nnue::piece_count(&boards);
    let lambda = match &args.bucket_lambda {
        Some(by_bucket) => by_bucket[nnue::bucket(pieces)],
        None => args.lambda,
    };
    let mut sample = Sample {
        features: [(0, Square::A1); MAX_FEATURES],
        count: 0,
        pieces: pieces as u8,
        white_to_move: pos.turn() == Color::White,
        target: lambda * sigmoid(args.scale * score / args.win_scale) + (1.0 - lambda) * result,
        base: [0.0; 2],
    };
    if args.residual {
        let units = |cp: i32| cp as f32 / nnue::SCALE as f32;
        sample.base[0] = units(eval::residual_base(pos));
        if args.mirror {
            sample.base[1] = units(eval::residual_base(&mirror_image(pos)?));
        }
    }
    if sample.pieces > 32 {
        return Err("more than 32 pieces".into());
    }
    for (i, &squares) in boards.iter().enumerate() {
        for sq in squares {
            // At most 32 pieces and 16 attendants (each linked to a celebrity).
            if sample.count as usize == MAX_FEATURES {
                return Err("more features than a sample holds".into());
            }
            sample.features[sample.count as usize] = (i as u8, sq);
            sample.count += 1;
        }
    }
    Ok(sample)
}

/// The position mirrored left-right (files a <-> h), without castling rights
/// (a mirrored castling is not a move of the rules): what `--mirror` trains
/// on, as a position, for a residual network's base. Through the FEN, which
/// the variant's parser checks.
fn mirror_image<V: Policy>(pos: &Position<V>) -> Result<Position<V>, String> {
    let text = fen::format(pos);
    let mut fields: Vec<String> = text.split(' ').map(str::to_string).collect();
    if fields.len() < 4 {
        return Err(format!("cannot mirror the FEN {text}"));
    }
    fields[0] = fields[0]
        .split('/')
        .map(|rank| rank.chars().rev().collect::<String>())
        .collect::<Vec<_>>()
        .join("/");
    fields[2] = "-".to_string();
    if let Ok(sq) = fields[3].parse::<Square>() {
        fields[3] = sq.flip_horizontal().to_string();
    }
    fen::parse::<V>(&fields.join(" ")).map_err(|e| format!("its mirror image: {e}"))
}

/// Float weights in the file's layout.
#[derive(Clone)]
struct Params {
    layout: Layout,
    /// A residual network ([`nnue::Network::residual`]).
    residual: bool,
    /// Neurons per accumulator.
    hidden: usize,
    w1: Vec<f32>,
    b1: Vec<f32>,
    /// BUCKETS output layers of 2 * hidden weights, one after the other.
    w2: Vec<f32>,
    b2: Vec<f32>,
    /// Sigmoid units per output unit in the loss, `nnue::SCALE / --win-scale`
    /// (1 unless told); not part of the network file.
    steepness: f32,
}

/// One thread's working memory for a sample: the two views' first-layer sums
/// and a gradient column (allocated once per batch share, not per sample).
struct Scratch {
    acc: Vec<f32>,
    d: Vec<f32>,
}

impl Params {
    fn zeros(layout: Layout, hidden: usize) -> Params {
        Params {
            layout,
            residual: false,
            hidden,
            w1: vec![0.0; layout.inputs() * hidden],
            b1: vec![0.0; hidden],
            w2: vec![0.0; BUCKETS * 2 * hidden],
            b2: vec![0.0; BUCKETS],
            steepness: 1.0,
        }
    }

    fn scratch(&self) -> Scratch {
        Scratch {
            acc: vec![0.0; 2 * self.hidden],
            d: vec![0.0; self.hidden],
        }
    }

    fn random(seed: u64, layout: Layout, hidden: usize) -> Params {
        let mut next = xorshift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut uniform =
            move |bound: f32| ((next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * bound;
        let mut p = Params::zeros(layout, hidden);
        // As many features are on in either layout: the plain one's bound.
        let b1 = 1.0 / (nnue::INPUTS as f32).sqrt();
        p.w1.iter_mut().for_each(|w| *w = uniform(b1));
        let b2 = 1.0 / ((2 * hidden) as f32).sqrt();
        p.w2.iter_mut().for_each(|w| *w = uniform(b2));
        p
    }

    /// The same network with `hidden` neurons per accumulator: the first
    /// `self.hidden` are the old ones, the rest have random input weights (as
    /// [`Params::random`] draws them), zero biases and zero output weights. So
    /// it evaluates exactly as before, and training can give the new neurons
    /// work without first undoing what the old ones learned.
    fn widened(self, hidden: usize, seed: u64) -> Params {
        debug_assert!(hidden >= self.hidden);
        let old = self.hidden;
        let fresh = Params::random(seed, self.layout, hidden);
        let mut w = Params {
            layout: self.layout,
            residual: self.residual,
            hidden,
            w1: fresh.w1,
            b1: vec![0.0; hidden],
            w2: vec![0.0; BUCKETS * 2 * hidden],
            b2: self.b2,
            steepness: self.steepness,
        };
        for (new, old_column) in w.w1.chunks_exact_mut(hidden).zip(self.w1.chunks_exact(old)) {
            new[..old].copy_from_slice(old_column);
        }
        w.b1[..old].copy_from_slice(&self.b1);
        for (new, old_half) in w.w2.chunks_exact_mut(hidden).zip(self.w2.chunks_exact(old)) {
            new[..old].copy_from_slice(old_half);
        }
        w
    }

    /// A plain network's weights in [`Layout::Attendants`]: the attendants'
    /// columns zero, so it evaluates as before until training moves them.
    fn with_attendants(mut self) -> Params {
        debug_assert_eq!(self.layout, Layout::Plain);
        self.layout = Layout::Attendants;
        self.w1
            .resize(Layout::Attendants.inputs() * self.hidden, 0.0);
        self
    }

    fn add(&mut self, other: &Params) {
        for (a, b) in self.w1.iter_mut().zip(&other.w1) {
            *a += b;
        }
        for (a, b) in self.b1.iter_mut().zip(&other.b1) {
            *a += b;
        }
        for (a, b) in self.w2.iter_mut().zip(&other.w2) {
            *a += b;
        }
        for (a, b) in self.b2.iter_mut().zip(&other.b2) {
            *a += b;
        }
    }

    fn slices_mut(&mut self) -> [&mut [f32]; 4] {
        [&mut self.w1, &mut self.b1, &mut self.w2, &mut self.b2]
    }

    /// The output's probability through output layer `bucket`; `acc` is left
    /// holding the first layer's sums for both views (side to move first).
    fn forward(&self, views: [&[u16]; 2], bucket: usize, base: f32, acc: &mut [f32]) -> f32 {
        sigmoid(self.steepness * (self.forward_logit(views, bucket, acc) + base))
    }

    /// The output before the sigmoid, in units of `nnue::SCALE` centipawns: what
    /// the engine computes (in integers), without the f32 logit of a
    /// probability near 1 that loses centipawns at large scores.
    fn forward_logit(&self, views: [&[u16]; 2], bucket: usize, acc: &mut [f32]) -> f32 {
        let h = self.hidden;
        for (a, feats) in acc.chunks_exact_mut(h).zip(views) {
            a.copy_from_slice(&self.b1);
            for &f in feats {
                let column = &self.w1[f as usize * h..][..h];
                for (x, w) in a.iter_mut().zip(column) {
                    *x += w;
                }
            }
        }
        let mut out = self.b2[bucket];
        for (half, a) in acc.chunks_exact(h).enumerate() {
            let w2 = &self.w2[(2 * bucket + half) * h..][..h];
            for (x, w) in a.iter().zip(w2) {
                let c = x.clamp(0.0, 1.0);
                out += c * c * w;
            }
        }
        out
    }

    /// One sample's squared error.
    fn error(&self, s: &Sample, scratch: &mut Scratch) -> f32 {
        let (us, them, n) = s.views(self.layout);
        let p = self.forward(
            [&us[..n], &them[..n]],
            s.bucket(),
            s.base[0],
            &mut scratch.acc,
        );
        (p - s.target_to_move()).powi(2)
    }

    /// Adds the gradient of one sample's squared error to `grad`; returns the error.
    fn backprop(&self, s: &Sample, grad: &mut Params, scratch: &mut Scratch) -> f32 {
        let h = self.hidden;
        let (us, them, n) = s.views(self.layout);
        let bucket = s.bucket();
        let Scratch { acc, d } = scratch;
        let p = self.forward([&us[..n], &them[..n]], bucket, s.base[0], acc);
        let err = p - s.target_to_move();
        let g = 2.0 * err * p * (1.0 - p) * self.steepness;
        grad.b2[bucket] += g;
        for (half, (a, feats)) in acc.chunks_exact(h).zip([&us[..n], &them[..n]]).enumerate() {
            let w2 = &self.w2[(2 * bucket + half) * h..][..h];
            let gw2 = &mut grad.w2[(2 * bucket + half) * h..][..h];
            for i in 0..h {
                let c = a[i].clamp(0.0, 1.0);
                gw2[i] += g * c * c;
                d[i] = if a[i] > 0.0 && a[i] < 1.0 {
                    g * w2[i] * 2.0 * c
                } else {
                    0.0
                };
            }
            for (b, x) in grad.b1.iter_mut().zip(d.iter()) {
                *b += x;
            }
            for &f in feats {
                let column = &mut grad.w1[f as usize * h..][..h];
                for (w, x) in column.iter_mut().zip(d.iter()) {
                    *w += x;
                }
            }
        }
        err * err
    }

    fn gradient(&self, batch: &[Sample]) -> (Params, f32) {
        let chunk = batch.len().div_ceil(rayon::current_num_threads()).max(1);
        batch
            .par_chunks(chunk)
            .map(|part| {
                let mut grad = Params::zeros(self.layout, self.hidden);
                let mut scratch = self.scratch();
                let loss = part
                    .iter()
                    .map(|s| self.backprop(s, &mut grad, &mut scratch))
                    .sum::<f32>();
                (grad, loss)
            })
            .reduce(
                || (Params::zeros(self.layout, self.hidden), 0.0),
                |(mut a, la), (b, lb)| {
                    a.add(&b);
                    (a, la + lb)
                },
            )
    }

    fn loss(&self, samples: &[Sample]) -> f32 {
        let total: f32 = samples
            .par_iter()
            .map_init(|| self.scratch(), |scratch, s| self.error(s, scratch))
            .sum();
        total / samples.len().max(1) as f32
    }

    /// Reads a network file back into floats: the weights it was written from,
    /// to within the quantisation step.
    fn read(path: &PathBuf) -> Result<Params, String> {
        let bytes = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Params::read_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// [`Params::read`] of a file's bytes.
    fn read_bytes(bytes: &[u8]) -> Result<Params, String> {
        let net = nnue::Network::from_bytes(bytes).map_err(|e| e.to_string())?;
        let (hidden, w1, b1, w2, b2) = net.weights();
        let qa = nnue::QA as f32;
        let qb = nnue::QB as f32;
        Ok(Params {
            layout: net.layout(),
            residual: net.residual(),
            hidden,
            w1: w1.iter().map(|&w| w as f32 / qa).collect(),
            b1: b1.iter().map(|&w| w as f32 / qa).collect(),
            w2: w2.iter().map(|&w| w as f32 / qb).collect(),
            b2: b2.iter().map(|&b| b as f32 / (qa * qb)).collect(),
            steepness: 1.0,
        })
    }

    /// Writes the network file: to `<path>.tmp`, then renamed over `path`, so that
    /// a run killed while writing leaves the old file whole.
    fn write(&self, path: &PathBuf) -> Result<(), String> {
        let mut bytes = Vec::with_capacity(nnue::file_len(self.layout, self.hidden));
        bytes.extend_from_slice(if self.residual {
            self.layout.residual_magic()
        } else {
            self.layout.magic()
        });
        bytes.extend_from_slice(&(self.hidden as u32).to_le_bytes());
        let quantise = |x: f32, q: i32| (x * q as f32).round() as i16;
        for &w in self.w1.iter().chain(&self.b1) {
            bytes.extend_from_slice(&quantise(w, nnue::QA).to_le_bytes());
        }
        for (w2, &b2) in self.w2.chunks_exact(2 * self.hidden).zip(&self.b2) {
            for &w in w2 {
                bytes.extend_from_slice(&quantise(w, nnue::QB).to_le_bytes());
            }
            let b2 = (b2 * (nnue::QA * nnue::QB) as f32).round() as i32;
            bytes.extend_from_slice(&b2.to_le_bytes());
        }
        // No file the engine would refuse (its sums out of range) is written.
        nnue::Network::from_bytes(&bytes).map_err(|e| {
            format!(
                "the network is not one the engine can load ({e}); '{}' not written",
                path.display()
            )
        })?;
        let tmp = appended(path, ".tmp");
        let err = |e: std::io::Error| format!("cannot write '{}': {e}", tmp.display());
        let mut file = fs::File::create(&tmp).map_err(err)?;
        file.write_all(&bytes).map_err(err)?;
        drop(file);
        fs::rename(&tmp, path).map_err(|e| format!("cannot write '{}': {e}", path.display()))
    }
}

struct Adam {
    m: Params,
    v: Params,
    t: i32,
}

impl Adam {
    fn step(&mut self, p: &mut Params, g: &mut Params, lr: f32, batch: usize) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.t += 1;
        let c1 = 1.0 - B1.powi(self.t);
        let c2 = 1.0 - B2.powi(self.t);
        let scale = 1.0 / batch as f32;
        let params = p.slices_mut();
        let grads = g.slices_mut();
        let ms = self.m.slices_mut();
        let vs = self.v.slices_mut();
        for (((p, g), m), v) in params.into_iter().zip(grads).zip(ms).zip(vs) {
            for i in 0..p.len() {
                let g = g[i] * scale;
                m[i] = B1 * m[i] + (1.0 - B1) * g;
                v[i] = B2 * v[i] + (1.0 - B2) * g * g;
                let step = lr * (m[i] / c1) / ((v[i] / c2).sqrt() + 1e-8);
                p[i] = (p[i] - step).clamp(-nnue::WEIGHT_CLIP, nnue::WEIGHT_CLIP);
            }
        }
    }
}

/// The sigmoid units [`WinFit::best`] chooses from, in centipawns.
const WIN_FIT_RANGE: std::ops::RangeInclusive<u32> = 50..=2000;

/// What the data's scores win, for `--win-scale`: positions and White's
/// results by score (Turncoat's centipawns, White's view) in bins of
/// [`WinFit::BIN`] centipawns, the scores beyond +-[`WinFit::EDGE`] in the
/// last bins. Enough for the squared error of `sigmoid(cp / K)` against the
/// results for any K, without holding the scores.
struct WinFit {
    count: Vec<f64>,
    /// Sum of the results, and of their squares, a bin.
    sum: Vec<f64>,
    sum_sq: Vec<f64>,
}

impl Default for WinFit {
    fn default() -> Self {
        let bins = (2.0 * WinFit::EDGE / WinFit::BIN) as usize + 1;
        WinFit {
            count: vec![0.0; bins],
            sum: vec![0.0; bins],
            sum_sq: vec![0.0; bins],
        }
    }
}

impl WinFit {
    const BIN: f32 = 10.0;
    const EDGE: f32 = 2000.0;

    fn add(&mut self, cp: f32, result: f32) {
        let bin = ((cp.clamp(-Self::EDGE, Self::EDGE) + Self::EDGE) / Self::BIN).round() as usize;
        let result = f64::from(result);
        self.count[bin] += 1.0;
        self.sum[bin] += result;
        self.sum_sq[bin] += result * result;
    }

    /// The mean squared error of `sigmoid(cp / k)` as the results' prediction.
    fn error(&self, k: f64) -> f64 {
        let mut total = 0.0;
        for (i, ((n, sum), sum_sq)) in self
            .count
            .iter()
            .zip(&self.sum)
            .zip(&self.sum_sq)
            .enumerate()
        {
            let cp = i as f64 * f64::from(Self::BIN) - f64::from(Self::EDGE);
            let p = 1.0 / (1.0 + (-cp / k).exp());
            total += n * p * p - 2.0 * p * sum + sum_sq;
        }
        total / self.count.iter().sum::<f64>().max(1.0)
    }

    /// The whole number of centipawns in [`WIN_FIT_RANGE`] whose sigmoid
    /// predicts the results best; none without positions, or where the best
    /// lies at the range's end (results that do not follow the scores, such
    /// as all draws, fit an ever flatter sigmoid).
    fn best(&self) -> Option<u32> {
        if self.count.iter().sum::<f64>() == 0.0 {
            return None;
        }
        let (best, _) = WIN_FIT_RANGE
            .map(|k| (k, self.error(f64::from(k))))
            .min_by(|a, b| a.1.total_cmp(&b.1))?;
        (best != *WIN_FIT_RANGE.start() && best != *WIN_FIT_RANGE.end()).then_some(best)
    }
}

/// The positions of `paths` (`--variant`'s, text or packed), malformed lines
/// skipped, and positions a [`Sample`] cannot hold left out (Attending Pawns'
/// promotions add pieces, so its boards can pass 32). The two are counted
/// apart: the first says the data are damaged, the second does not. The files
/// are read a line or record at a time; what stays in memory is the samples,
/// [`SAMPLE_BYTES`] each.
fn load(
    paths: &[PathBuf],
    args: &TrainArgs,
    mut wins: Option<&mut WinFit>,
) -> Result<Vec<Sample>, String> {
    let mut samples = Vec::new();
    let (mut malformed, mut left_out) = (0usize, 0usize);
    for path in paths {
        with_variant!(args.variant, V => data::read::<V>(path, |item| {
            let (count, why) = match item {
                Ok(labelled) => match sample_of(&labelled, args) {
                    Ok(sample) => {
                        samples.push(sample);
                        if let Some(wins) = wins.as_deref_mut() {
                            wins.add(args.scale * labelled.score, labelled.result);
                        }
                        return Ok(());
                    }
                    Err(e) => (
                        &mut left_out,
                        format!(
                            "{}:{}: {e}: {}",
                            path.display(),
                            labelled.place,
                            fen::format(&labelled.pos)
                        ),
                    ),
                },
                Err(message) => (&mut malformed, message),
            };
            *count += 1;
            if *count <= 5 {
                log::warn!("{why}");
            }
            Ok(())
        }))?;
    }
    if malformed > 0 {
        eprintln!("skipped {malformed} malformed lines");
    }
    if left_out > 0 {
        eprintln!("left out {left_out} positions the trainer cannot hold");
    }
    Ok(samples)
}

pub fn run(args: &TrainArgs) -> Result<(), String> {
    let params = fit(args)?;
    params.write(&args.out)?;
    eprintln!("wrote {}", args.out.display());
    if args.checkpoint {
        let partial = checkpoint_path(&args.out);
        fs::remove_file(&partial)
            .map_err(|e| format!("cannot remove '{}': {e}", partial.display()))?;
    }
    Ok(())
}

/// `--checkpoint`'s file: `--out` with `.partial` appended.
fn checkpoint_path(out: &std::path::Path) -> PathBuf {
    appended(out, ".partial")
}

/// `path` with `suffix` added to its file name (`x.net` -> `x.net.tmp`).
fn appended(path: &std::path::Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// Loads the data and trains: the network `run` writes.
fn fit(args: &TrainArgs) -> Result<Params, String> {
    if args.threads == 0 || args.batch == 0 || args.epochs == 0 {
        return Err("--threads, --batch and --epochs must be at least 1".to_string());
    }
    if !(args.lr.is_finite() && args.lr > 0.0) {
        return Err(format!("--lr must be a positive number, got {}", args.lr));
    }
    if !(0.0..=1.0).contains(&args.lambda) {
        return Err(format!("--lambda must lie in 0..1, got {}", args.lambda));
    }
    if let Some(by_bucket) = &args.bucket_lambda {
        if by_bucket.len() != BUCKETS {
            return Err(format!(
                "--bucket-lambda needs {BUCKETS} numbers, one an output bucket, got {}",
                by_bucket.len()
            ));
        }
        if let Some(bad) = by_bucket.iter().find(|l| !(0.0..=1.0).contains(*l)) {
            return Err(format!("--bucket-lambda: each must lie in 0..1, got {bad}"));
        }
    }
    if !(args.scale.is_finite() && args.scale > 0.0) {
        return Err(format!(
            "--scale must be a positive number, got {}",
            args.scale
        ));
    }
    if !(args.win_scale.is_finite() && args.win_scale > 0.0) {
        return Err(format!(
            "--win-scale must be a positive number, got {}",
            args.win_scale
        ));
    }
    if args.out.is_dir() {
        return Err(format!("--out '{}' is a directory", args.out.display()));
    }
    if args.attendants && args.variant != VariantKind::AttendingPawns {
        return Err(format!(
            "--attendants: only Attending Pawns has attendants, not {}",
            args.variant
        ));
    }
    if let Some(h) = args.hidden.filter(|&h| !nnue::valid_width(h)) {
        return Err(format!(
            "--hidden must be a multiple of {} up to {}, got {h}",
            nnue::WIDTH_STEP,
            nnue::MAX_HIDDEN
        ));
    }
    let initial = match &args.init {
        Some(path) => {
            let mut p = Params::read(path)?;
            if let Some(h) = args.hidden.filter(|&h| h != p.hidden) {
                if h < p.hidden {
                    return Err(format!(
                        "--hidden {h} but the --init network has {} hidden neurons \
                         (a network can be widened, not narrowed)",
                        p.hidden
                    ));
                }
                p = p.widened(h, args.seed);
            }
            if args.king_buckets && p.layout != Layout::KingBuckets {
                return Err(
                    "--king-buckets but the --init network is not king-bucketed".to_string()
                );
            }
            if args.residual && !p.residual {
                return Err("--residual but the --init network is not residual".to_string());
            }
            if args.attendants && p.layout == Layout::Plain {
                p.with_attendants()
            } else if args.attendants && p.layout != Layout::Attendants {
                return Err(format!(
                    "--attendants but the --init network is {}",
                    p.layout.name()
                ));
            } else {
                p
            }
        }
        None => {
            let hidden = args.hidden.unwrap_or(nnue::HIDDEN);
            let layout = if args.king_buckets {
                Layout::KingBuckets
            } else if args.attendants {
                Layout::Attendants
            } else {
                Layout::Plain
            };
            let mut p = Params::random(args.seed, layout, hidden);
            p.residual = args.residual;
            p
        }
    };
    let initial = Params {
        steepness: nnue::SCALE as f32 / args.win_scale,
        ..initial
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut wins = WinFit::default();
    let mut samples = load(&args.data, args, Some(&mut wins))?;
    let test = load(&args.test, args, None)?;
    match wins.best() {
        Some(k) => eprintln!(
            "the results fit sigmoid(cp / K) best at K = {k} (--win-scale {})",
            args.win_scale
        ),
        None => eprintln!("the results fit no sigmoid(cp / K) with K in {WIN_FIT_RANGE:?}"),
    }
    if !args.test.is_empty() && test.is_empty() {
        return Err("the --test files hold no positions".to_string());
    }
    if samples.len() < 100 {
        return Err(format!(
            "only {} positions: too few to train",
            samples.len()
        ));
    }
    // Shuffle (xorshift Fisher-Yates), then hold out 1/50 for validation.
    let mut next = xorshift(args.seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
    for i in (1..samples.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        samples.swap(i, j);
    }
    let held = samples.len() / 50;
    let mut training = samples.split_off(held);
    let validation = samples;
    if args.mirror {
        let mirrored: Vec<Sample> = training.iter().map(Sample::mirrored).collect();
        training.extend(mirrored);
    }
    eprintln!(
        "{} training, {} validation, {} test positions, loaded in {:.1} s",
        training.len(),
        validation.len(),
        test.len(),
        start.elapsed().as_secs_f64()
    );
    let held_out = HeldOut {
        validation: &validation,
        test: &test,
    };
    pool.install(|| train_from(args, &mut training, held_out, initial, &mut next, start))
}

/// The positions the network never trains on: the validation 1/50 of the data and
/// the `--test` files (possibly none).
#[derive(Clone, Copy)]
struct HeldOut<'a> {
    validation: &'a [Sample],
    test: &'a [Sample],
}

impl HeldOut<'_> {
    /// "validation V" and, when there are test positions, "  test T".
    fn losses(&self, params: &Params) -> (f32, String) {
        let validation = params.loss(self.validation);
        let mut line = format!("validation {validation:.6}");
        if !self.test.is_empty() {
            line += &format!("  test {:.6}", params.loss(self.test));
        }
        (validation, line)
    }
}

/// The epochs of Adam from `params`. Fails, so that nothing is written, as soon as
/// an epoch's training or validation loss is not finite (a diverging run).
fn train_from(
    args: &TrainArgs,
    training: &mut [Sample],
    held_out: HeldOut,
    mut params: Params,
    next: &mut dyn FnMut() -> u64,
    start: Instant,
) -> Result<Params, String> {
    let mut adam = Adam {
        m: Params::zeros(params.layout, params.hidden),
        v: Params::zeros(params.layout, params.hidden),
        t: 0,
    };
    eprintln!("epoch   0: {}", held_out.losses(&params).1);
    for epoch in 1..=args.epochs {
        let lr = if epoch * 5 > args.epochs * 4 {
            args.lr / 10.0
        } else {
            args.lr
        };
        for i in (1..training.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            training.swap(i, j);
        }
        let mut total = 0.0;
        for batch in training.chunks(args.batch) {
            let (mut grad, loss) = params.gradient(batch);
            total += loss;
            adam.step(&mut params, &mut grad, lr, batch.len());
        }
        let train_loss = total / training.len() as f32;
        let (validation_loss, losses) = held_out.losses(&params);
        eprintln!(
            "epoch {epoch:3}: train {train_loss:.6}  {losses}  ({:.0} s)",
            start.elapsed().as_secs_f64()
        );
        if !train_loss.is_finite() || !validation_loss.is_finite() {
            return Err(format!(
                "epoch {epoch}: the loss is not finite (train {train_loss}, validation \
                     {validation_loss}): training diverged; no network written to '{}'",
                args.out.display()
            ));
        }
        if args.checkpoint {
            params.write(&checkpoint_path(&args.out))?;
        }
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    fn args() -> TrainArgs {
        TrainArgs {
            variant: VariantKind::Chess,
            data: vec![],
            out: PathBuf::new(),
            checkpoint: false,
            epochs: 1,
            batch: 1,
            lr: 0.0,
            lambda: 1.0,
            bucket_lambda: None,
            scale: 1.0,
            win_scale: 400.0,
            mirror: false,
            seed: 1,
            threads: 1,
            init: None,
            test: vec![],
            hidden: None,
            king_buckets: false,
            attendants: false,
            residual: false,
        }
    }

    /// The file the trainer writes is the network the engine reads: with weights
    /// on the quantisation grid the engine's centipawns equal the trainer's float
    /// output, bucket by bucket (each bucket's bias 200 cp from the next, so a
    /// layer read from the wrong place shows), at every width tried, plain and
    /// king-bucketed (kings on both halves of the board and in every bucket).
    /// docs/TRAINING.md gives this as the memory a position takes in training.
    #[test]
    fn a_sample_takes_112_bytes() {
        assert_eq!(SAMPLE_BYTES, 112);
    }

    #[test]
    fn written_network_evaluates_like_the_trainer() {
        for hidden in [nnue::HIDDEN, 64, 512] {
            written_network_evaluates_like_the_trainer_at(Layout::Plain, hidden);
        }
        written_network_evaluates_like_the_trainer_at(Layout::KingBuckets, 64);
    }

    fn written_network_evaluates_like_the_trainer_at(layout: Layout, hidden: usize) {
        let mut p = Params::zeros(layout, hidden);
        let grid = |i: usize, span: usize| ((i * 7919) % (2 * span + 1)) as f32 - span as f32;
        for (i, w) in p.w1.iter_mut().enumerate() {
            *w = grid(i, 12) / nnue::QA as f32;
        }
        for (i, w) in p.b1.iter_mut().enumerate() {
            *w = grid(i + 5, 20) / nnue::QA as f32;
        }
        for (i, w) in p.w2.iter_mut().enumerate() {
            *w = grid(i + 11, 30) / nnue::QB as f32;
        }
        for (b, w) in p.b2.iter_mut().enumerate() {
            *w = (b as f32 - 3.5) * 0.5;
        }
        let path = std::env::temp_dir().join(format!("turncoat-train-{}.net", std::process::id()));
        p.write(&path).unwrap();
        let bytes = fs::read(&path).unwrap();
        let _ = fs::remove_file(&path);
        let net = nnue::Network::from_bytes(&bytes).expect("a network file");
        assert_eq!((net.layout(), net.hidden()), (layout, hidden));
        let mut buckets = Vec::new();
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
            "8/8/3k4/8/8/8/2R5/4K3 w - - 0 1",
            "8/8/3k4/8/8/8/2R5/4K3 b - - 0 1",
            "r4rk1/pp3ppp/8/8/8/8/PP3PPP/R4RK1 w - - 0 1",
            "6k1/5ppp/8/8/8/8/1n3PPP/6K1 b - - 0 1",
            "8/6k1/8/8/8/8/1K5R/8 w - - 0 1",
            "8/6k1/8/8/8/8/1K5R/8 b - - 0 1",
        ] {
            let s = parse_line(&format!("{fen};0;0.5"), &args()).unwrap();
            let (us, them, n) = s.views(layout);
            let out = p.forward_logit([&us[..n], &them[..n]], s.bucket(), &mut p.scratch().acc);
            let float_cp = out * nnue::SCALE as f32;
            let pos: turncoat_rules::position::Position<turncoat_rules::variants::chess::Chess> =
                turncoat_rules::fen::parse(fen).unwrap();
            let engine_cp = net.evaluate_board(&nnue::piece_boards(&pos), pos.turn());
            assert!(
                (engine_cp as f32 - float_cp).abs() <= 2.0,
                "{fen}, {hidden} wide: engine {engine_cp}, trainer {float_cp}"
            );
            buckets.push(s.bucket());
        }
        assert_eq!(buckets, [7, 7, 0, 0, 3, 1, 0, 0]);
    }

    /// `--init` reads a network back exactly: every shipped network, read and
    /// written again, is the same file byte for byte.
    #[test]
    fn a_network_read_back_writes_the_same_file() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/src/nnue");
        let mut files: Vec<std::path::PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "net"))
            .collect();
        files.sort();
        // Six variants ship a network (the Andernach variants have none yet).
        assert_eq!(files.len(), 6, "{files:?}");
        for path in files {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            let p = Params::read(&path).unwrap();
            let out = std::env::temp_dir()
                .join(format!("turncoat-reread-{name}-{}.net", std::process::id()));
            p.write(&out).unwrap();
            let again = fs::read(&out).unwrap();
            let _ = fs::remove_file(&out);
            assert!(again == fs::read(&path).unwrap(), "{name}.net changed");
        }
    }

    #[test]
    fn init_refuses_a_file_that_is_not_a_network() {
        let dir = std::env::temp_dir();
        let short = dir.join(format!("turncoat-short-{}.net", std::process::id()));
        fs::write(&short, b"TCN2\x00\x01\x00\x00").unwrap();
        let err = Params::read(&short).err().unwrap();
        let _ = fs::remove_file(&short);
        assert!(
            err.ends_with(&format!(
                "8 bytes, {} expected for 256 hidden neurons",
                nnue::file_len(Layout::Plain, 256)
            )),
            "{err}"
        );
        // A 128-wide file's length with a 256 header; a width that is not a
        // multiple of 32; another magic.
        let mut wrong = vec![0u8; nnue::file_len(Layout::Plain, 128)];
        wrong[..4].copy_from_slice(Layout::Plain.magic());
        wrong[4..8].copy_from_slice(&256u32.to_le_bytes());
        let file = dir.join(format!("turncoat-wrong-{}.net", std::process::id()));
        let refused = |bytes: &[u8]| {
            fs::write(&file, bytes).unwrap();
            let err = Params::read(&file).err().unwrap();
            let _ = fs::remove_file(&file);
            err
        };
        let err = refused(&wrong);
        assert!(
            err.ends_with(&format!(
                "{} bytes, {} expected for 256 hidden neurons",
                nnue::file_len(Layout::Plain, 128),
                nnue::file_len(Layout::Plain, 256)
            )),
            "{err}"
        );
        wrong[4..8].copy_from_slice(&100u32.to_le_bytes());
        let err = refused(&wrong);
        assert!(
            err.ends_with("100 hidden neurons: a multiple of 32 up to 512 expected"),
            "{err}"
        );
        wrong[..4].copy_from_slice(b"TCN1");
        let err = refused(&wrong);
        assert!(
            err.ends_with(&format!(
                "not a network file ({} bytes, magic \"TCN1\", \"TCN2\", \"TCN3\", \"TCN4\", \"TCR2\", \"TCR3\" or \"TCR4\" expected)",
                nnue::file_len(Layout::Plain, 128)
            )),
            "{err}"
        );
        let missing = dir.join("turncoat-no-such-network.net");
        assert!(Params::read(&missing).is_err());
    }

    /// Every variant: positions from `turncoat datagen --variant V --hand-written`, a few epochs of
    /// training, the file written: the engine's quantised evaluation of each
    /// position equals the trainer's float output on the quantised weights (the
    /// file's values, so only the engine's integer divisions differ: 2 cp), and
    /// the float output on the trained weights within the quantisation error (as
    /// a win probability, 0.02).
    #[test]
    fn every_variant_trains_a_network_the_engine_evaluates_alike() {
        let dir = std::env::temp_dir();
        for &variant in VariantKind::ALL {
            let data = dir.join(format!(
                "turncoat-train-{}-{variant}.txt",
                std::process::id()
            ));
            let net_path = dir.join(format!(
                "turncoat-train-{}-{variant}.net",
                std::process::id()
            ));
            let _ = fs::remove_file(&data);
            crate::datagen::run(&crate::datagen::DatagenArgs {
                variant,
                out: data.clone(),
                // Attending Pawns keeps few positions a game (four to ten).
                games: if variant == VariantKind::AttendingPawns {
                    40
                } else {
                    20
                },
                nodes: 300,
                random_plies: 8,
                threads: 1,
                balance_nodes: turncoat_engine::openings::BALANCE_NODES,
                keep_noisy: false,
                seed: 5,
                hash: 1,
                // The hand-written evaluation's games: what the trainer is
                // tested on does not change when a shipped network does.
                evaluation: crate::evaluation::Evaluation {
                    hand_written: true,
                    eval_file: None,
                },
                shard: None,
                format: crate::data::Format::Text,
            })
            .unwrap();
            let text = fs::read_to_string(&data).unwrap();
            // Attending Pawns both plain and with its attendants' features.
            for attendants in [false, true] {
                if attendants && variant != VariantKind::AttendingPawns {
                    continue;
                }
                let kind = if attendants { "attendants" } else { "plain" };
                let mut a = args();
                a.variant = variant;
                a.attendants = attendants;
                a.data = vec![data.clone()];
                a.out = net_path.clone();
                a.epochs = 3;
                a.batch = 64;
                a.lr = 0.01;
                a.scale = 1.0;
                let p = fit(&a).unwrap_or_else(|e| panic!("{variant} ({kind}): {e}"));
                p.write(&net_path).unwrap();
                let bytes = fs::read(&net_path).unwrap();
                let _ = fs::remove_file(&net_path);
                let net = nnue::Network::from_bytes(&bytes).expect("a network file");
                // The weights as the file holds them.
                let mut q = p.clone();
                let snap = |v: &mut Vec<f32>, scale: i32| {
                    v.iter_mut()
                        .for_each(|w| *w = (*w * scale as f32).round() / scale as f32)
                };
                snap(&mut q.w1, nnue::QA);
                snap(&mut q.b1, nnue::QA);
                snap(&mut q.w2, nnue::QB);
                snap(&mut q.b2, nnue::QA * nnue::QB);
                let centipawns = |params: &Params, s: &Sample| {
                    let (us, them, n) = s.views(params.layout);
                    let out = params.forward_logit(
                        [&us[..n], &them[..n]],
                        s.bucket(),
                        &mut params.scratch().acc,
                    );
                    out * nnue::SCALE as f32
                };
                let (mut exact, mut rounded, mut checked) = (0f32, 0f32, 0);
                for line in text.lines().take(200) {
                    let s = parse_line(line, &a).unwrap();
                    let engine_cp = with_variant!(variant, V => {
                        let pos = fen::parse::<V>(line.split(';').next().unwrap()).unwrap();
                        net.evaluate_board(&V::network_boards(&pos), pos.turn())
                    }) as f32;
                    exact = exact.max((engine_cp - centipawns(&q, &s)).abs());
                    // As a win probability: large scores magnify the rounding.
                    let win = |cp: f32| sigmoid(cp / nnue::SCALE as f32);
                    rounded = rounded.max((win(engine_cp) - win(centipawns(&p, &s))).abs());
                    checked += 1;
                }
                assert!(
                    checked >= 20,
                    "{variant} ({kind}): only {checked} positions"
                );
                assert!(
                    exact <= 2.0,
                    "{variant} ({kind}): engine and trainer differ by {exact} cp"
                );
                assert!(
                    rounded <= 0.02,
                    "{variant} ({kind}): quantisation moves the probability by {rounded}"
                );
            }
            let _ = fs::remove_file(&data);
        }
    }

    /// A residual network: written with its own magic and read back as one; the
    /// engine's evaluation (the network's output plus `eval::residual_base`)
    /// equals the trainer's output plus the sample's base, on Andernach
    /// positions from `datagen`; and an untrained (all-zero) residual network
    /// evaluates exactly as the hand-set evaluation does.
    #[test]
    fn a_residual_network_corrects_the_hand_set_evaluation() {
        use turncoat_rules::variants::andernach::Andernach;
        let dir = std::env::temp_dir();
        let data = dir.join(format!("turncoat-residual-{}.txt", std::process::id()));
        let net_path = dir.join(format!("turncoat-residual-{}.net", std::process::id()));
        crate::datagen::run(&crate::datagen::DatagenArgs {
            variant: VariantKind::Andernach,
            out: data.clone(),
            games: 10,
            nodes: 300,
            random_plies: 8,
            threads: 1,
            balance_nodes: turncoat_engine::openings::BALANCE_NODES,
            keep_noisy: false,
            seed: 5,
            hash: 1,
            evaluation: crate::evaluation::Evaluation {
                hand_written: true,
                eval_file: None,
            },
            shard: None,
            format: crate::data::Format::Text,
        })
        .unwrap();
        let mut a = args();
        a.variant = VariantKind::Andernach;
        a.data = vec![data.clone()];
        a.out = net_path.clone();
        a.epochs = 2;
        a.batch = 64;
        a.lr = 0.01;
        a.residual = true;
        a.mirror = true;
        let p = fit(&a).unwrap();
        assert!(p.residual);
        p.write(&net_path).unwrap();
        let bytes = fs::read(&net_path).unwrap();
        assert_eq!(&bytes[..4], b"TCR2");
        assert!(Params::read(&net_path).unwrap().residual);
        let _ = fs::remove_file(&net_path);
        let net = nnue::Network::from_bytes(&bytes).expect("a network file");
        assert!(net.residual());
        // The weights as the file holds them.
        let q = Params::read_bytes(&bytes).unwrap();
        let text = fs::read_to_string(&data).unwrap();
        let _ = fs::remove_file(&data);
        let mut checked = 0;
        for line in text.lines().take(100) {
            let s = parse_line(line, &a).unwrap();
            let pos = fen::parse::<Andernach>(line.split(';').next().unwrap()).unwrap();
            let base = eval::residual_base(&pos);
            assert_eq!(s.base[0], base as f32 / nnue::SCALE as f32, "{line}");
            let mirrored = mirror_image(&pos).unwrap();
            assert_eq!(
                s.base[1],
                eval::residual_base(&mirrored) as f32 / nnue::SCALE as f32,
                "{line}"
            );
            let engine_cp = net.evaluate_board(&Andernach::network_boards(&pos), pos.turn()) + base;
            let (us, them, n) = s.views(q.layout);
            let logit = q.forward_logit([&us[..n], &them[..n]], s.bucket(), &mut q.scratch().acc);
            let trainer_cp = (logit + s.base[0]) * nnue::SCALE as f32;
            // On the file's weights only the engine's integer divisions differ
            // (2 cp, as in the test of every variant above).
            assert!(
                (engine_cp as f32 - trainer_cp).abs() <= 2.0,
                "{line}: engine {engine_cp}, trainer {trainer_cp}"
            );
            checked += 1;
        }
        assert!(checked >= 50, "only {checked} positions");

        let mut zero = Params::zeros(Layout::Plain, 32);
        zero.residual = true;
        zero.write(&net_path).unwrap();
        let bytes = fs::read(&net_path).unwrap();
        let _ = fs::remove_file(&net_path);
        let net = nnue::Network::from_bytes(&bytes).unwrap();
        for fen_text in [
            VariantKind::Andernach.start_fen(),
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 4 4",
        ] {
            let pos = fen::parse::<Andernach>(fen_text).unwrap();
            assert_eq!(
                net.evaluate_board(&Andernach::network_boards(&pos), pos.turn())
                    + eval::residual_base(&pos),
                eval::evaluate_hand_set(&pos, true),
                "{fen_text}"
            );
        }
    }

    /// `--mirror`'s position for a residual base: files swapped, castling
    /// rights gone, the en passant square mirrored.
    #[test]
    fn mirror_image_swaps_the_files() {
        use turncoat_rules::variants::andernach::Andernach;
        let pos = fen::parse::<Andernach>("r3k2r/1b6/8/3pP3/8/8/6N1/R3K2R w KQkq d6 0 7").unwrap();
        assert_eq!(
            fen::format(&mirror_image(&pos).unwrap()),
            "r2k3r/6b1/8/3Pp3/8/8/1N6/R2K3R w - e6 0 7"
        );
    }

    #[test]
    fn labels_must_be_finite_and_results_in_0_to_1() {
        let fen = "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1";
        for (labels, why) in [
            ("NaN;0.5", "score NaN is not finite"),
            ("inf;0.5", "score inf is not finite"),
            ("-inf;1", "score -inf is not finite"),
            ("12;NaN", "result NaN is outside 0..1"),
            ("12;1.5", "result 1.5 is outside 0..1"),
            ("12;-0.5", "result -0.5 is outside 0..1"),
            ("x;0.5", "score 'x' is not a number"),
            ("12", "expected FEN;score;result"),
        ] {
            match parse_line(&format!("{fen};{labels}"), &args()) {
                Err(LineError::Label(e)) => assert!(e.starts_with(why), "{labels}: {e}"),
                Err(LineError::Position(e)) => panic!("{labels}: position error {e}"),
                Ok(_) => panic!("{labels}: accepted"),
            }
        }
        assert!(parse_line(&format!("{fen};-35;0"), &args()).is_ok());
        assert!(matches!(
            parse_line("not a fen;10;0.5", &args()),
            Err(LineError::Position(_))
        ));
    }

    /// The held-out losses: the validation set always, the `--test` set when given.
    /// Untrained (all-zero) weights predict 0.5 for every position; with the game
    /// result as the target (lambda 0) a draw costs 0 and a win 0.25.
    #[test]
    fn held_out_losses_show_the_test_set_when_there_is_one() {
        let mut a = args();
        a.lambda = 0.0;
        let line = |fen: &str, result: &str| parse_line(&format!("{fen};0;{result}"), &a).unwrap();
        let white = "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1";
        let black = "4k3/8/8/8/8/8/8/4K1N1 b - - 0 1";
        let validation = [line(white, "0.5")];
        // A White win seen by White and by Black: the same error.
        let test = [
            line(white, "1"),
            line(black, "1"),
            line(black, "0.5"),
            line(white, "0.5"),
        ];
        let p = Params::zeros(Layout::Plain, nnue::HIDDEN);
        let with_test = HeldOut {
            validation: &validation,
            test: &test,
        };
        assert_eq!(
            with_test.losses(&p),
            (0.0, "validation 0.000000  test 0.125000".to_string())
        );
        let without = HeldOut {
            validation: &test,
            test: &[],
        };
        assert_eq!(
            without.losses(&p),
            (0.125, "validation 0.125000".to_string())
        );
    }

    /// `--test` files are read like the data: a missing file is an error, and so
    /// is a set of files with no position in it (a test that tests nothing).
    #[test]
    fn test_files_must_exist_and_hold_positions() {
        let dir = std::env::temp_dir();
        let data = dir.join(format!("turncoat-test-data-{}.txt", std::process::id()));
        let empty = dir.join(format!("turncoat-test-empty-{}.txt", std::process::id()));
        let mut lines = String::new();
        for i in 0..120 {
            lines += &format!("4k3/8/8/8/8/8/8/4K1N1 w - - 0 1;{i};0.5\n");
        }
        fs::write(&data, lines).unwrap();
        fs::write(&empty, "\n").unwrap();
        let mut a = args();
        a.data = vec![data.clone()];
        a.lr = 0.001;
        a.batch = 64;
        a.test = vec![empty.clone()];
        let err = fit(&a).err();
        let nowhere = dir.join("turncoat-no-such-test-file.txt");
        a.test = vec![nowhere.clone()];
        let missing = fit(&a).err();
        a.test = vec![data.clone()];
        let ok = fit(&a).is_ok();
        let _ = fs::remove_file(&data);
        let _ = fs::remove_file(&empty);
        assert_eq!(err.as_deref(), Some("the --test files hold no positions"));
        let missing = missing.expect("a missing --test file must fail");
        assert!(
            missing.starts_with(&nowhere.display().to_string()),
            "{missing}"
        );
        assert!(ok);
    }

    /// `--hidden` must be a width the engine reads, and agree with `--init`'s
    /// network; both are refused before any data is read.
    #[test]
    fn hidden_width_is_checked_before_training() {
        let mut a = args();
        a.data = vec![PathBuf::from("turncoat-no-such-data.txt")];
        a.lr = 0.001;
        a.hidden = Some(100);
        assert_eq!(
            fit(&a).err().as_deref(),
            Some("--hidden must be a multiple of 32 up to 512, got 100")
        );
        a.hidden = Some(544);
        assert_eq!(
            fit(&a).err().as_deref(),
            Some("--hidden must be a multiple of 32 up to 512, got 544")
        );
        let net = std::env::temp_dir().join(format!("turncoat-init-{}.net", std::process::id()));
        Params::zeros(Layout::Plain, 64).write(&net).unwrap();
        a.init = Some(net.clone());
        a.hidden = Some(32);
        let narrower = fit(&a).err();
        a.hidden = Some(80);
        let invalid = fit(&a).err();
        a.hidden = Some(64);
        let matching = fit(&a).err();
        a.hidden = Some(128);
        let wider = fit(&a).err();
        let _ = fs::remove_file(&net);
        assert_eq!(
            narrower.as_deref(),
            Some(
                "--hidden 32 but the --init network has 64 hidden neurons \
                 (a network can be widened, not narrowed)"
            )
        );
        assert_eq!(
            invalid.as_deref(),
            Some("--hidden must be a multiple of 32 up to 512, got 80")
        );
        // The width passes (the same, or wider); the missing data file is what
        // fails now.
        for passed in [matching, wider] {
            let passed = passed.expect("the data file does not exist");
            assert!(passed.starts_with("turncoat-no-such-data.txt"), "{passed}");
        }
    }

    /// `--hidden` wider than the `--init` network's: the old neurons kept
    /// weight for weight, the new ones silent (zero output weights), so the
    /// widened network's output is the old one's exactly, in floats and in
    /// the file the engine reads.
    #[test]
    fn a_widened_network_evaluates_as_before() {
        let a = args();
        let narrow = Params::random(5, Layout::Plain, 64);
        let wide = narrow.clone().widened(96, 9);
        assert_eq!(
            (wide.hidden, wide.w1.len(), wide.w2.len()),
            (96, 768 * 96, 8 * 2 * 96)
        );
        assert_eq!(wide.w1[..64], narrow.w1[..64]);
        assert_eq!(wide.w1[767 * 96..][..64], narrow.w1[767 * 64..]);
        assert_eq!(wide.b1[..64], narrow.b1[..]);
        assert!(wide.b1[64..].iter().all(|&b| b == 0.0));
        assert!(wide.w1[64..96].iter().any(|&w| w != 0.0));
        assert_eq!(wide.w2[96..][..64], narrow.w2[64..128]);
        assert!(wide.w2[96 + 64..192].iter().all(|&w| w == 0.0));
        assert_eq!(wide.b2, narrow.b2);
        let (mut ns, mut ws) = (narrow.scratch(), wide.scratch());
        let dir = std::env::temp_dir();
        let (np, wp) = (
            dir.join(format!("turncoat-narrow-{}.net", std::process::id())),
            dir.join(format!("turncoat-wide-{}.net", std::process::id())),
        );
        narrow.write(&np).unwrap();
        wide.write(&wp).unwrap();
        let (nb, wb) = (fs::read(&np).unwrap(), fs::read(&wp).unwrap());
        let _ = (fs::remove_file(&np), fs::remove_file(&wp));
        let narrow_net = nnue::Network::from_bytes(&nb).unwrap();
        let wide_net = nnue::Network::from_bytes(&wb).unwrap();
        for line in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1;30;0.5",
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9;-12;0",
            "8/5k2/8/3K4/8/8/5P2/8 w - - 0 60;150;1",
        ] {
            let s = parse_line(line, &a).unwrap();
            let (us, them, n) = s.views(Layout::Plain);
            assert_eq!(
                narrow.forward_logit([&us[..n], &them[..n]], s.bucket(), &mut ns.acc),
                wide.forward_logit([&us[..n], &them[..n]], s.bucket(), &mut ws.acc),
                "{line}"
            );
            let pos: Position<turncoat_rules::variants::chess::Chess> =
                fen::parse(line.split(';').next().unwrap()).unwrap();
            let boards = nnue::piece_boards(&pos);
            assert_eq!(
                narrow_net.evaluate_board(&boards, pos.turn()),
                wide_net.evaluate_board(&boards, pos.turn()),
                "{line}"
            );
        }
    }

    /// `--checkpoint` leaves the last finished epoch's network in `<out>.partial`
    /// (after the last epoch: the network `run` writes), and `run` removes it once
    /// `--out` is written; without the flag no such file appears.
    #[test]
    fn checkpoint_holds_the_last_epoch_until_the_run_ends() {
        let dir = std::env::temp_dir();
        let id = std::process::id();
        let data = dir.join(format!("turncoat-ckpt-data-{id}.txt"));
        let out = dir.join(format!("turncoat-ckpt-{id}.net"));
        let again = dir.join(format!("turncoat-ckpt-again-{id}.net"));
        let partial = checkpoint_path(&out);
        assert_eq!(
            partial.file_name().and_then(|n| n.to_str()),
            Some(format!("turncoat-ckpt-{id}.net.partial").as_str())
        );
        let mut lines = String::new();
        for i in 0..120 {
            lines += &format!("4k3/8/8/8/8/8/8/4K1N1 w - - 0 1;{};0.5\n", i * 3);
        }
        fs::write(&data, lines).unwrap();
        let mut a = args();
        a.data = vec![data.clone()];
        a.out = out.clone();
        a.lr = 0.001;
        a.batch = 64;
        a.epochs = 2;
        a.hidden = Some(32);
        let plain = fit(&a).map(|_| partial.exists());
        a.checkpoint = true;
        let fitted = fit(&a).unwrap();
        fitted.write(&again).unwrap();
        let checkpoint = fs::read(&partial).ok();
        let fitted = fs::read(&again).ok();
        let ran = run(&a);
        let written = fs::read(&out).ok();
        let partial_left = partial.exists();
        for f in [&data, &out, &again, &partial] {
            let _ = fs::remove_file(f);
        }
        assert_eq!(plain, Ok(false));
        assert_eq!(
            checkpoint.as_ref().map(|b| b.len()),
            Some(nnue::file_len(Layout::Plain, 32))
        );
        assert_eq!(checkpoint, fitted);
        assert_eq!(ran, Ok(()));
        assert_eq!(written, fitted);
        assert!(!partial_left);
    }

    /// A run whose loss becomes non-finite stops with an error at that epoch and
    /// hands back no network (so `run` writes nothing).
    #[test]
    fn a_non_finite_loss_is_an_error() {
        let fen = "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1";
        let s = parse_line(&format!("{fen};20;0.5"), &args()).unwrap();
        let mut training = vec![s; 8];
        let validation = vec![s; 2];
        let held_out = HeldOut {
            validation: &validation,
            test: &[],
        };
        let mut a = args();
        a.lr = 0.001;
        a.epochs = 3;
        a.batch = 4;
        a.out = PathBuf::from("never-written.net");
        let mut state = 1u64;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            state
        };
        // Finite weights train fine.
        let ok = train_from(
            &a,
            &mut training,
            held_out,
            Params::random(1, Layout::Plain, nnue::HIDDEN),
            &mut next,
            Instant::now(),
        );
        assert!(ok.is_ok());
        let mut bad = Params::random(1, Layout::Plain, nnue::HIDDEN);
        bad.b2.iter_mut().for_each(|b| *b = f32::NAN);
        let err = train_from(&a, &mut training, held_out, bad, &mut next, Instant::now())
            .err()
            .expect("a NaN loss must fail");
        assert!(
            err.starts_with("epoch 1: the loss is not finite (train NaN, validation NaN)"),
            "{err}"
        );
        assert!(
            err.ends_with("no network written to 'never-written.net'"),
            "{err}"
        );
    }

    #[test]
    fn black_view_mirrors_white_view() {
        let s = parse_line("4k3/8/8/8/8/8/8/4K1N1 b - - 0 1;0;0.5", &args()).unwrap();
        let (us, them, _) = s.views(Layout::Plain);
        let black = Color::Black;
        let knight = shakmaty::Piece {
            color: Color::White,
            role: shakmaty::Role::Knight,
        };
        // Black to move: "us" is Black's view, where White's g1 knight is theirs on g8.
        assert!(us[..3].contains(&(nnue::feature(black, knight, Square::G1) as u16)));
        assert!(them[..3].contains(&(nnue::feature(Color::White, knight, Square::G1) as u16)));
        assert_eq!(s.target_to_move(), 0.5);
        // Mirrored, the knight stands on b1.
        let (_, them, _) = s.mirrored().views(Layout::Plain);
        assert!(them[..3].contains(&(nnue::feature(Color::White, knight, Square::B1) as u16)));
    }

    /// King buckets: White's king on e1 puts White's view in the second input
    /// set (d1-e1), mirrored (the king is on the e-h half), so the g1 knight
    /// reads as on b1: 768 + 64 + 1. Black's king on e8 does the same for
    /// Black's view, where the knight is theirs on g8, mirrored to b8 (57).
    /// Mirrored left-right the position has the same features.
    #[test]
    fn king_buckets_mirror_by_the_own_king() {
        let s = parse_line("4k3/8/8/8/8/8/8/4K1N1 b - - 0 1;0;0.5", &args()).unwrap();
        let (us, them, _) = s.views(Layout::KingBuckets);
        assert!(us[..3].contains(&(768 + 384 + 64 + 57)));
        assert!(them[..3].contains(&(768 + 64 + 1)));
        let (m_us, m_them, _) = s.mirrored().views(Layout::KingBuckets);
        let sorted = |v: &[u16]| {
            let mut v = v[..3].to_vec();
            v.sort_unstable();
            v
        };
        assert_eq!(sorted(&m_us), sorted(&us));
        assert_eq!(sorted(&m_them), sorted(&them));
        // Castled short, White's king on g1 is in the first set (as on b1).
        let castled = parse_line("4k3/8/8/8/8/8/8/6K1 w - - 0 1;0;0.5", &args()).unwrap();
        let (us, _, _) = castled.views(Layout::KingBuckets);
        assert!(us[..2].contains(&(5 * 64 + 1)));
        // Out on e4 (mirrored to d4): the fourth set.
        let out = parse_line("4k3/8/8/8/4K3/8/8/8 w - - 0 1;0;0.5", &args()).unwrap();
        let (us, _, _) = out.views(Layout::KingBuckets);
        assert!(us[..2].contains(&(3 * 768 + 5 * 64 + 27)));
    }

    /// Attendants (Attending Pawns): a pawn attached to a celebrity is a
    /// pawn and an attendant, 768 + theirs * 64 + the square from the view's
    /// side; an unattached pawn only a pawn. A plain layout reads the pieces
    /// alone; the left-right mirror moves the attendants with their squares.
    #[test]
    fn attendants_are_features_after_the_pieces() {
        let mut a = args();
        a.variant = VariantKind::AttendingPawns;
        let s = parse_line("4k3/3p4/8/8/8/8/1P2P3/1N2K3 b - - 0 1 b1b2,e8d7;0;0.5", &a).unwrap();
        let sorted = |v: &[u16]| {
            let mut v = v.to_vec();
            v.sort_unstable();
            v
        };
        let (us, them, n) = s.views(Layout::Attendants);
        assert_eq!(n, 8);
        // Black to move: Black's view first, the board flipped (d7 -> d2 = 11,
        // b2 -> b7 = 49): the king, pawn, White's pawns, knight, king, then
        // Black's attendant d7 and White's b2.
        assert_eq!(
            sorted(&us[..n]),
            [
                11,
                5 * 64 + 4,
                384 + 49,
                384 + 52,
                384 + 64 + 57,
                384 + 5 * 64 + 60,
                768 + 11,
                768 + 64 + 49
            ]
        );
        assert_eq!(sorted(&them[..n])[6..], [768 + 9, 768 + 64 + 51]);
        let (us_plain, _, n_plain) = s.views(Layout::Plain);
        assert_eq!(n_plain, 6);
        assert_eq!(sorted(&us_plain[..6]), sorted(&us[..n])[..6]);
        let (_, them, n) = s.mirrored().views(Layout::Attendants);
        assert_eq!(
            (n, sorted(&them[..n])[6..].to_vec()),
            (8, vec![768 + 14, 768 + 64 + 52])
        );

        // --init of a plain network with --attendants: the attendants' columns
        // start at zero, every weight before them kept.
        let plain = Params::random(3, Layout::Plain, 32);
        let extended = plain.clone().with_attendants();
        assert_eq!(extended.layout, Layout::Attendants);
        assert_eq!(extended.w1.len(), 896 * 32);
        assert_eq!(extended.w1[..768 * 32], plain.w1[..]);
        assert!(extended.w1[768 * 32..].iter().all(|&w| w == 0.0));
        let mut scratch = plain.scratch();
        let (p_us, p_them, pn) = s.views(Layout::Plain);
        let (e_us, e_them, en) = s.views(Layout::Attendants);
        assert_eq!(
            plain.forward_logit([&p_us[..pn], &p_them[..pn]], s.bucket(), &mut scratch.acc),
            extended.forward_logit([&e_us[..en], &e_them[..en]], s.bucket(), &mut scratch.acc)
        );
    }

    /// `--attendants` is refused outside Attending Pawns, and with a
    /// king-bucketed `--init` network.
    #[test]
    fn attendants_belong_to_attending_pawns() {
        let mut a = args();
        a.attendants = true;
        a.lr = 0.01;
        a.out = PathBuf::from("never-written.net");
        let err = fit(&a).map(|_| ()).unwrap_err();
        assert_eq!(
            err,
            "--attendants: only Attending Pawns has attendants, not chess"
        );
        let dir = std::env::temp_dir();
        let init = dir.join(format!("turncoat-kb-init-{}.net", std::process::id()));
        Params::random(1, Layout::KingBuckets, 32)
            .write(&init)
            .unwrap();
        a.variant = VariantKind::AttendingPawns;
        a.init = Some(init.clone());
        let err = fit(&a).map(|_| ()).unwrap_err();
        let _ = fs::remove_file(&init);
        assert_eq!(err, "--attendants but the --init network is king-bucketed");
    }

    /// Clipping each weight does not keep the sums in range: a neuron whose
    /// bias and every input weight sit at the clip, 1.98 (505 quantised), sums
    /// to 65 * 505 = 32825 on a board full of one piece, beyond i16. Such a
    /// network is not written (the engine would refuse it); with a zero bias,
    /// 64 * 505 = 32320, it is.
    #[test]
    fn a_network_the_engine_would_refuse_is_not_written() {
        let path =
            std::env::temp_dir().join(format!("turncoat-refused-{}.net", std::process::id()));
        let _ = fs::remove_file(&path);
        let mut p = Params::zeros(Layout::Plain, 32);
        for f in 0..nnue::INPUTS {
            p.w1[f * 32] = nnue::WEIGHT_CLIP;
        }
        p.b1[0] = nnue::WEIGHT_CLIP;
        let refused = p.write(&path);
        let written = path.exists();
        p.b1[0] = 0.0;
        let accepted = p.write(&path);
        let _ = fs::remove_file(&path);
        let err = refused.expect_err("a network out of range must not be written");
        assert!(
            err.starts_with(
                "the network is not one the engine can load (first-layer neuron 0 (input set 0) \
                 sums to 505..32825"
            ),
            "{err}"
        );
        assert!(!written);
        assert_eq!(accepted, Ok(()));
    }

    /// Random legal chess positions: the kings and up to `extra` other pieces
    /// on random squares, each side to move alike, labelled with the material
    /// balance from White's view (pawn 100, knight and bishop 300, rook 500,
    /// queen 900): a target the network can learn and no constant predicts.
    fn material_samples(seed: u64, count: usize, extra: u64) -> Vec<Sample> {
        let mut next = xorshift(seed);
        let a = args();
        let mut samples = Vec::new();
        while samples.len() < count {
            let mut squares: Vec<usize> = (0..64).collect();
            for i in (1..64).rev() {
                squares.swap(i, (next() % (i as u64 + 1)) as usize);
            }
            let mut board = ['.'; 64];
            (board[squares[0]], board[squares[1]]) = ('K', 'k');
            let mut score = 0;
            for &sq in &squares[2..2 + (next() % (extra + 1)) as usize] {
                let piece = b"PNBRQpnbrq"[(next() % 10) as usize] as char;
                let value = match piece.to_ascii_lowercase() {
                    'p' if !(8..56).contains(&sq) => continue,
                    'p' => 100,
                    'n' | 'b' => 300,
                    'r' => 500,
                    _ => 900,
                };
                board[sq] = piece;
                score += if piece.is_ascii_uppercase() {
                    value
                } else {
                    -value
                };
            }
            let ranks: Vec<String> = board
                .chunks(8)
                .rev()
                .map(|rank| {
                    let mut text = String::new();
                    let mut empty = 0;
                    for &c in rank {
                        if c == '.' {
                            empty += 1;
                            continue;
                        }
                        if empty > 0 {
                            text += &empty.to_string();
                            empty = 0;
                        }
                        text.push(c);
                    }
                    if empty > 0 {
                        text += &empty.to_string();
                    }
                    text
                })
                .collect();
            let side = if next().is_multiple_of(2) { "w" } else { "b" };
            let line = format!("{} {side} - - 0 1;{score};0.5", ranks.join("/"));
            // Kings next to each other, or the side not to move in check: not legal.
            if let Ok(sample) = parse_line(&line, &a) {
                samples.push(sample);
            }
        }
        samples
    }

    /// The gradient `backprop` adds up (`gradient`, over a batch) equals the
    /// central differences of the batch's summed error, for each of the 3148
    /// parameters of a 4-neuron network. The first-layer weights are kept small
    /// and the biases apart so that every sum stays more than two steps away from
    /// the clipped ReLU's kinks at 0 and 1, where a difference would straddle two
    /// slopes: two neurons between them, one above 1 and one below 0 (whose
    /// weights then have a gradient of exactly 0, as have the unused inputs and
    /// output layers). Tolerance: the error is computed in f32, so a difference
    /// of two errors near 1 carries about 1e-7 of rounding, 5e-6 after dividing
    /// by the 2e-2 step; the central difference's own error, step^2 / 6 times the
    /// third derivative, is about 1e-5 here. 5e-5 plus 0.1 % of the gradient
    /// covers both; a missing factor or a wrong sign is off by a multiple.
    #[test]
    fn gradient_matches_finite_differences() {
        gradient_matches_finite_differences_at(1.0);
        // A --win-scale of 250 centipawns.
        gradient_matches_finite_differences_at(1.6);
    }

    fn gradient_matches_finite_differences_at(steepness: f32) {
        const H: usize = 4;
        const STEP: f32 = 1e-2;
        const ABSOLUTE: f64 = 5e-5;
        const RELATIVE: f64 = 1e-3;
        let samples = material_samples(7, 4, 4);
        let mut p = Params::random(5, Layout::Plain, H);
        p.w1.iter_mut().for_each(|w| *w *= 0.5);
        p.b1 = vec![0.3, 0.7, 1.4, -0.4];
        p.w2.iter_mut().for_each(|w| *w *= 4.0);
        p.b2 = (0..BUCKETS).map(|b| 0.1 * b as f32 - 0.3).collect();
        p.steepness = steepness;
        let mut scratch = p.scratch();
        let mut buckets = Vec::new();
        for s in &samples {
            p.error(s, &mut scratch);
            for (j, &a) in scratch.acc.iter().enumerate() {
                let inside = j % H < 2;
                assert!(
                    if inside {
                        a > 2.0 * STEP && a < 1.0 - 2.0 * STEP
                    } else {
                        !(-2.0 * STEP..=1.0 + 2.0 * STEP).contains(&a)
                    },
                    "neuron {j}: sum {a}"
                );
            }
            buckets.push(s.bucket());
        }
        buckets.dedup();
        assert!(buckets.len() > 1, "one output layer only: {buckets:?}");

        let (grad, _) = p.gradient(&samples);
        let total = |q: &Params| -> f64 {
            let mut scratch = q.scratch();
            samples
                .iter()
                .map(|s| f64::from(q.error(s, &mut scratch)))
                .sum()
        };
        let analytic = [&grad.w1, &grad.b1, &grad.w2, &grad.b2];
        let (mut checked, mut nonzero, mut worst) = (0, 0, 0f64);
        for (group, name) in ["w1", "b1", "w2", "b2"].into_iter().enumerate() {
            for (i, &exact) in analytic[group].iter().enumerate() {
                let x = p.slices_mut()[group][i];
                let (up, down) = (x + STEP, x - STEP);
                p.slices_mut()[group][i] = up;
                let high = total(&p);
                p.slices_mut()[group][i] = down;
                let low = total(&p);
                p.slices_mut()[group][i] = x;
                let numeric = (high - low) / f64::from(up - down);
                let exact = f64::from(exact);
                let off = (numeric - exact).abs();
                assert!(
                    off <= ABSOLUTE + RELATIVE * exact.abs(),
                    "{name}[{i}]: backprop {exact}, differences {numeric}"
                );
                worst = worst.max(off);
                checked += 1;
                nonzero += usize::from(exact.abs() > 1e-3);
            }
        }
        eprintln!(
            "{checked} parameters, {nonzero} gradients above 1e-3, largest difference {worst:e}"
        );
        assert_eq!(checked, 768 * H + H + BUCKETS * 2 * H + BUCKETS);
        assert!(nonzero > 50, "only {nonzero} sizeable gradients");
    }

    /// A few epochs cut the loss on positions never trained on: 1000
    /// material-labelled positions, 200 more held out, six epochs of Adam on one
    /// thread (the batch sums in one order, so the run is the same each time).
    /// The held-out loss must fall below half of the untrained network's and
    /// below half of the targets' variance, the loss of the best constant
    /// prediction: the network has learnt more than the average.
    #[test]
    fn a_few_epochs_cut_the_validation_loss() {
        let mut training = material_samples(21, 1000, 12);
        let validation = material_samples(22, 200, 12);
        let targets: Vec<f32> = validation.iter().map(Sample::target_to_move).collect();
        let mean = targets.iter().sum::<f32>() / targets.len() as f32;
        let variance =
            targets.iter().map(|t| (t - mean).powi(2)).sum::<f32>() / targets.len() as f32;
        let mut a = args();
        a.epochs = 6;
        a.batch = 32;
        a.lr = 0.01;
        a.out = PathBuf::from("never-written.net");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let initial = Params::random(3, Layout::Plain, 32);
        let before = pool.install(|| initial.loss(&validation));
        let held_out = HeldOut {
            validation: &validation,
            test: &[],
        };
        let mut next = xorshift(9);
        let trained = pool
            .install(|| {
                train_from(
                    &a,
                    &mut training,
                    held_out,
                    initial,
                    &mut next,
                    Instant::now(),
                )
            })
            .unwrap();
        let after = pool.install(|| trained.loss(&validation));
        eprintln!("validation loss {before} -> {after}; targets' variance {variance}");
        assert!(
            after < before / 2.0 && after < variance / 2.0,
            "validation loss {before} -> {after}; targets' variance {variance}"
        );
    }

    /// `--win-scale` changes the sigmoid the target and the loss read
    /// centipawns through, not the centipawns: with scores alone as the target,
    /// the output without error is the label's centipawns at any K. A
    /// position labelled +300 cp, K = 200: its target is sigmoid(1.5), and a
    /// network whose output is 0.75 (300 cp) meets it exactly, while one at
    /// 1.5 (600 cp, what the target would ask of K = 400's loss) does not.
    #[test]
    fn win_scale_changes_the_sigmoid_not_the_centipawns() {
        let mut a = args();
        a.win_scale = 200.0;
        let s = parse_line("4k3/8/8/8/8/8/8/3QK3 w - - 0 1;300;0.5", &a).unwrap();
        assert_eq!(s.target, sigmoid(1.5));
        let mut p = Params::zeros(Layout::Plain, 32);
        p.steepness = nnue::SCALE as f32 / a.win_scale;
        let mut scratch = p.scratch();
        p.b2[s.bucket()] = 0.75;
        assert!(p.error(&s, &mut scratch) < 1e-12);
        p.b2[s.bucket()] = 1.5;
        assert!(p.error(&s, &mut scratch) > 1e-3);
    }

    /// The fit finds the sigmoid the results were made from: every 10
    /// centipawns from -1500 to 1500, results won as often as sigmoid(cp /
    /// 275) says (as whole games: 1000 a score, that many of them wins);
    /// results that do not follow the scores fit none.
    #[test]
    fn win_fit_finds_the_sigmoid_the_results_follow() {
        let mut wins = WinFit::default();
        for cp in (-1500..=1500).step_by(10) {
            let won = (1000.0 / (1.0 + (-f64::from(cp) / 275.0).exp())).round() as usize;
            for game in 0..1000 {
                wins.add(cp as f32, if game < won { 1.0 } else { 0.0 });
            }
        }
        assert_eq!(wins.best(), Some(275));
        let mut draws = WinFit::default();
        for cp in (-1500..=1500).step_by(10) {
            draws.add(cp as f32, 0.5);
        }
        assert_eq!(draws.best(), None);
        assert_eq!(WinFit::default().best(), None);
    }

    #[test]
    fn win_scale_must_be_positive() {
        for bad in [0.0, -400.0, f32::NAN, f32::INFINITY] {
            let mut a = args();
            a.win_scale = bad;
            a.lr = 0.001;
            a.out = PathBuf::from("never-written.net");
            let err = fit(&a).err().unwrap();
            assert!(err.contains("--win-scale"), "{bad}: {err}");
        }
    }

    /// `--bucket-lambda` weighs the score by the position's output bucket: a
    /// lone king and knight against a king (3 pieces, bucket 0) at 0, all
    /// result; the start position (32 pieces, bucket 7) at 1, all score; a
    /// position of 12 pieces (bucket 2) at 0.25, a quarter of each. Scores of
    /// +200 cp at K = 400 (sigmoid 0.5) and a White win, seen by White.
    #[test]
    fn bucket_lambda_weighs_each_bucket_by_its_own_number() {
        let mut a = args();
        a.bucket_lambda = Some(vec![0.0, 0.5, 0.25, 0.5, 0.5, 0.5, 0.5, 1.0]);
        let target = |fen: &str| parse_line(&format!("{fen};200;1"), &a).unwrap().target;
        let score = sigmoid(0.5);
        assert_eq!(target("4k3/8/8/8/8/8/8/4K1N1 w - - 0 1"), 1.0);
        assert_eq!(
            target("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            score
        );
        assert_eq!(
            target("r3k2r/ppp5/8/8/8/8/PPP5/R3K2R w - - 0 1"),
            0.25 * score + 0.75
        );
    }

    /// Not eight numbers, or one outside 0..1: an error before any data is read.
    #[test]
    fn bucket_lambda_needs_eight_numbers_in_0_to_1() {
        for (bad, why) in [
            (vec![1.0; 7], "--bucket-lambda needs 8 numbers"),
            (vec![1.0; 9], "--bucket-lambda needs 8 numbers"),
            (
                vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.5],
                "--bucket-lambda: each must lie in 0..1, got 1.5",
            ),
            (
                vec![f32::NAN, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
                "--bucket-lambda: each must lie in 0..1, got NaN",
            ),
        ] {
            let mut a = args();
            a.bucket_lambda = Some(bad);
            a.lr = 0.001;
            a.out = PathBuf::from("never-written.net");
            let err = fit(&a).err().unwrap();
            assert!(err.starts_with(why), "{err}");
        }
    }
}
