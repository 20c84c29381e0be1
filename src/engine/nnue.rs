//! The standard-chess network: a small efficiently updatable neural network
//! (768 -> 2 x N -> 1, the output layer one of 8 chosen by the number of pieces;
//! N, the hidden width, is read from the file: 256 for the variants' networks)
//! that replaces the hand-written evaluation in chess (UCI `Use NNUE`, on by
//! default).
//!
//! Inputs are the 768 (colour, role, square) piece features, seen from each side:
//! from Black's view the board is flipped vertically and the colours swapped, so
//! one set of first-layer weights serves both. The two HIDDEN-wide accumulators
//! (side to move first) go through a squared clipped ReLU into one output neuron,
//! whose weights depend on the material left ([`bucket`]): an endgame weighs the
//! same features differently from a middlegame, at no cost to the accumulators.
//! The weights come from `turncoat train` (`src/tools/train.rs`), fitted to
//! Stockfish's static evaluation of quiet positions of our own games;
//! `docs/TRAINING.md` says which data made the shipped file.
//!
//! Quantisation follows the common scheme: first layer times QA (255) in i16, output
//! weights times QB (64), the output scaled back to centipawns by SCALE / (QA * QB).
//!
//! Every variant may have a network of its own in this shape, trained on its own
//! self-play (`turncoat datagen --variant`, `turncoat train --variant`): [`Net`]
//! lists the shipped ones, and a variant's `Policy::NNUE` names its own. A variant
//! without one keeps the hand-written evaluation. `docs/TRAINING.md` gives the
//! measurements behind the sizes and says how each network was made.

use std::sync::OnceLock;

use shakmaty::{Bitboard, Color, Piece, Role, Square};

use crate::rules::position::Board;

pub const INPUTS: usize = 768;
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
/// Trained weights are clipped to this so that quantised sums cannot overflow.
pub const WEIGHT_CLIP: f32 = 1.98;
/// Output layers, by the number of pieces on the board (see [`bucket`]).
pub const BUCKETS: usize = 8;
pub const MAGIC: &[u8; 4] = b"TCN2";
/// Bytes of a network file of hidden width `hidden`: magic, `hidden` as u32, w1,
/// b1, then w2 (i16) and b2 (i32) of each bucket in turn, little-endian.
pub const fn file_len(hidden: usize) -> usize {
    4 + 4 + 2 * (INPUTS * hidden + hidden) + BUCKETS * (2 * 2 * hidden + 4)
}

/// Can a network have `hidden` neurons per accumulator (the file reader's and
/// the trainer's check alike)?
pub const fn valid_width(hidden: usize) -> bool {
    hidden != 0 && hidden <= MAX_HIDDEN && hidden.is_multiple_of(WIDTH_STEP)
}

/// The shipped networks, one per variant that has one (`src/engine/nnue/<variant>.net`,
/// embedded in the binary; `docs/TRAINING.md` says which data and commands made
/// each). A variant's `Policy::NNUE` names its entry; a network
/// ships only when it beat the variant's hand-written evaluation in a match
/// (`docs/TRAINING.md`, "Variant networks").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Net {
    Chess,
    CowardlyCrew,
    Pacifist,
    AttendingPawns,
    Subversion,
    CruisePawns,
}

impl Net {
    /// The network's file name (in `src/engine/nnue/`) and its embedded bytes.
    fn embedded(self) -> (&'static str, &'static [u8]) {
        macro_rules! embed {
            ($file:literal) => {
                ($file, include_bytes!(concat!("nnue/", $file)))
            };
        }
        match self {
            Net::Chess => embed!("chess.net"),
            Net::CowardlyCrew => embed!("cowardlycrew.net"),
            Net::Pacifist => embed!("pacifist.net"),
            Net::AttendingPawns => embed!("attendingpawns.net"),
            Net::Subversion => embed!("subversion.net"),
            Net::CruisePawns => embed!("cruisepawns.net"),
        }
    }

    /// The network (parsed once).
    pub fn network(self) -> &'static Network {
        // One cell per `Net`, indexed by its discriminant.
        static PARSED: [OnceLock<Box<Network>>; 6] = [const { OnceLock::new() }; 6];
        let (file, bytes) = self.embedded();
        PARSED[self as usize].get_or_init(|| {
            Network::from_bytes(bytes).unwrap_or_else(|e| panic!("src/engine/nnue/{file}: {e}"))
        })
    }
}

/// The output layer for a board with `pieces` pieces (kings included): four
/// piece counts a bucket, 2-5 the first, 30-32 the last.
#[inline]
pub fn bucket(pieces: u32) -> usize {
    (pieces.saturating_sub(2) as usize / 4).min(BUCKETS - 1)
}

/// The input index of a piece seen from `view`'s side.
#[inline]
pub fn feature(view: Color, piece: Piece, sq: Square) -> usize {
    let theirs = (piece.color != view) as usize;
    let sq = if view == Color::White {
        sq as usize
    } else {
        sq as usize ^ 56
    };
    theirs * 384 + (piece.role as usize - 1) * 64 + sq
}

/// A network's quantised weights, borrowed, in the file's order: the hidden
/// width, w1 by feature (`hidden` each), b1, each bucket's w2 (`2 * hidden`), b2.
pub type Weights<'a> = (usize, &'a [i16], &'a [i16], &'a [i16], &'a [i32; BUCKETS]);

pub struct Network {
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

impl Network {
    /// Parses a network file; the error says why it is not one of this shape.
    pub fn from_bytes(bytes: &[u8]) -> Result<Box<Network>, String> {
        let magic = &bytes[..bytes.len().min(4)];
        if bytes.len() < 8 || magic != MAGIC {
            return Err(format!(
                "not a network file ({} bytes, magic {:?}, {:?} expected)",
                bytes.len(),
                String::from_utf8_lossy(magic),
                String::from_utf8_lossy(MAGIC)
            ));
        }
        let hidden = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
        if !valid_width(hidden) {
            return Err(format!(
                "{hidden} hidden neurons: a multiple of {WIDTH_STEP} up to {MAX_HIDDEN} expected"
            ));
        }
        if bytes.len() != file_len(hidden) {
            return Err(format!(
                "{} bytes, {} expected for {hidden} hidden neurons",
                bytes.len(),
                file_len(hidden)
            ));
        }
        // The length is checked above, so every read below is in bounds.
        let mut rest = &bytes[8..];
        let mut net = Box::new(Network {
            hidden,
            w1: vec![0; INPUTS * hidden],
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
        Ok(net)
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

/// sum(clamp(x, 0, QA)^2 * w). `x * w` fits i16 after the clamp (|w| <= 127),
/// so SSE2 (every x86-64) does eight lanes: a 16-bit multiply, then a
/// multiply-add of pairs into 32 bits; AVX2, where the build targets it
/// (`.cargo/config.toml`: the building machine's CPU), sixteen. `acc`'s length
/// is a multiple of WIDTH_STEP, `w` at least as long.
#[inline]
fn screlu_dot(acc: &[i16], w: &[i16]) -> i32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        use std::arch::x86_64::*;
        assert!(w.len() >= acc.len() && acc.len().is_multiple_of(16));
        // SAFETY: the build targets AVX2 (cfg above); every load reads 16 lanes
        // inside `acc` or `w` (lengths checked above).
        unsafe {
            let zero = _mm256_setzero_si256();
            let qa = _mm256_set1_epi16(QA as i16);
            let mut sum = _mm256_setzero_si256();
            for i in (0..acc.len()).step_by(16) {
                let x = _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i);
                let x = _mm256_min_epi16(_mm256_max_epi16(x, zero), qa);
                let wv = _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i);
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_mullo_epi16(x, wv), x));
            }
            let mut lanes = [0i32; 8];
            _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, sum);
            lanes.iter().sum()
        }
    }
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    {
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
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut sum = 0i32;
        for (&x, &w) in acc.iter().zip(w) {
            let x = i32::from(x.clamp(0, QA as i16));
            sum += x * i32::from(w) * x;
        }
        sum
    }
}

/// Both sides' first-layer sums for one board; colour index = view. Room for
/// the widest network; a network of `hidden` neurons uses the first `hidden`.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct Accumulator {
    v: [[i16; MAX_HIDDEN]; 2],
}

/// The 12 piece bitboards of a board, the form the accumulator reads and diffs:
/// index `piece_of` order, White's pawn to king, then Black's.
pub type PieceBoards = [Bitboard; 12];

pub fn piece_of(index: usize) -> Piece {
    Piece {
        color: Color::from_white(index < 6),
        role: Role::ALL[index % 6],
    }
}

/// Pieces on the board, kings included.
#[inline]
pub fn piece_count(boards: &PieceBoards) -> u32 {
    boards.iter().fold(Bitboard::EMPTY, |a, &b| a | b).count() as u32
}

/// The network's view of a position.
#[inline]
pub fn piece_boards(pos: &Board) -> PieceBoards {
    std::array::from_fn(|i| pos.by_piece(piece_of(i)))
}

impl Accumulator {
    pub fn zeroed() -> Accumulator {
        Accumulator {
            v: [[0; MAX_HIDDEN]; 2],
        }
    }

    /// The sums from scratch, in place (an accumulator is 2 KiB: not moved).
    pub fn refresh(&mut self, net: &Network, boards: &PieceBoards) {
        let h = net.hidden;
        for view in &mut self.v {
            view[..h].copy_from_slice(&net.b1);
        }
        for (i, &squares) in boards.iter().enumerate() {
            for sq in squares {
                self.add(net, piece_of(i), sq);
            }
        }
    }

    #[inline]
    pub fn add(&mut self, net: &Network, piece: Piece, sq: Square) {
        for view in [Color::White, Color::Black] {
            let column = net.column(feature(view, piece, sq));
            for (a, &w) in self.v[view as usize].iter_mut().zip(column) {
                *a += w;
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

    /// `update` (`source` None) or `update_from`.
    fn diff(
        &mut self,
        net: &Network,
        mut source: Option<&Accumulator>,
        from: &PieceBoards,
        to: &PieceBoards,
    ) {
        const MAX: usize = 16;
        let mut added = [(0usize, 0usize); MAX];
        let mut removed = [(0usize, 0usize); MAX];
        let (mut n_added, mut n_removed) = (0, 0);
        // The first batch reads `source`; any later one (a conversion cascade
        // larger than a batch) continues from `self`.
        for i in 0..12 {
            let (old, new) = (from[i], to[i]);
            if old == new {
                continue;
            }
            let piece = piece_of(i);
            let features = |sq| {
                (
                    feature(Color::White, piece, sq),
                    feature(Color::Black, piece, sq),
                )
            };
            for sq in old & !new {
                if n_removed == MAX {
                    self.apply(net, source, &added[..n_added], &removed[..n_removed]);
                    (n_added, n_removed, source) = (0, 0, None);
                }
                removed[n_removed] = features(sq);
                n_removed += 1;
            }
            for sq in new & !old {
                if n_added == MAX {
                    self.apply(net, source, &added[..n_added], &removed[..n_removed]);
                    (n_added, n_removed, source) = (0, 0, None);
                }
                added[n_added] = features(sq);
                n_added += 1;
            }
        }
        self.apply(net, source, &added[..n_added], &removed[..n_removed]);
    }

    /// Sets `self` to `source` (or to itself when `None`) plus the `added`
    /// features' columns minus the `removed` ones (each `(White's view, Black's
    /// view)`), in one pass over each view's sums.
    fn apply(
        &mut self,
        net: &Network,
        source: Option<&Accumulator>,
        added: &[(usize, usize)],
        removed: &[(usize, usize)],
    ) {
        let h = net.hidden;
        for view in [Color::White, Color::Black] {
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
            boards: [Bitboard::EMPTY; 12],
            acc: Accumulator::zeroed(),
        };
        AccumulatorStack {
            net,
            slots: vec![empty; plies],
        }
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

    #[test]
    fn shipped_network_parses() {
        let (_, bytes) = Net::Chess.embedded();
        assert!(Network::from_bytes(bytes).is_ok());
        assert!(Network::from_bytes(&bytes[1..]).is_err());
    }

    /// Updating by differences gives the sums made from scratch, for a move
    /// and for a difference larger than one batch (every piece changes colour:
    /// 32 squares removed and 32 added).
    #[test]
    fn update_matches_sums_from_scratch() {
        let net = Net::Chess.network();
        let start = piece_boards(&crate::rules::position::Position::<
            crate::rules::variants::chess::Chess,
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
        let net = Net::Chess.network();
        let start = piece_boards(&crate::rules::position::Position::<
            crate::rules::variants::chess::Chess,
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
