//! The chess network: incremental accumulators agree exactly with sums from
//! scratch, and the evaluation is colour-symmetric (a position and its mirror
//! image with colours and turn swapped score the same for the side to move).
//! Every network: the loader refuses weights whose sums overflow the integers
//! the evaluation keeps them in, and the vector kernels and the whole forward
//! pass equal a scalar computation exactly.

mod common;

use shakmaty::{Bitboard, Color};
use turncoat::engine::nnue::{
    self, AccumulatorStack, EmbeddedNetwork, Layout, Network, NetworkError, PieceBoards, BUCKETS,
    QA, QB, SCALE,
};
use turncoat::engine::policy::Policy;
use turncoat::rules::fen;
use turncoat::rules::moves::MoveList;
use turncoat::rules::position::Position;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::Variant;
use turncoat::rules::variants::VariantKind;

/// Every variant's shipped network (`Policy::NETWORK`), with its file.
fn shipped() -> Vec<EmbeddedNetwork> {
    VariantKind::ALL
        .iter()
        .filter_map(|&kind| turncoat::with_variant!(kind, V => <V as Policy>::NETWORK))
        .collect()
}

fn chess_network() -> &'static Network {
    <Chess as Policy>::NETWORK
        .expect("chess ships a network")
        .network()
}

fn from_scratch(pos: &Position<Chess>) -> i32 {
    chess_network().evaluate_board(&nnue::piece_boards(pos), pos.turn())
}

#[test]
fn incremental_matches_scratch_on_random_games() {
    let mut stack = AccumulatorStack::new(chess_network(), 64);
    let mut next = common::xorshift(0x1234_5678_9abc_def1u64);
    let mut checked = 0;
    for _game in 0..40 {
        let mut pos: Position<Chess> = fen::parse(Chess::START_FEN).unwrap();
        let mut moves = MoveList::new();
        for ply in 0..60 {
            // The stack at this ply holds a sibling or a stale line: both must
            // be brought to this exact board.
            let got = stack.evaluate(&nnue::piece_boards(&pos), pos.turn(), ply % 63);
            assert_eq!(got, from_scratch(&pos), "{}", fen::format(&pos));
            checked += 1;
            moves.clear();
            Chess::legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[(next() % moves.len() as u64) as usize];
            Chess::play(&mut pos, mv);
        }
    }
    assert!(checked > 1000);
}

#[test]
fn evaluation_is_colour_symmetric() {
    for fen_str in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w - - 0 8",
        "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 1",
        "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1",
    ] {
        let pos: Position<Chess> = fen::parse(fen_str).unwrap();
        let flipped: Position<Chess> = fen::parse(&common::flip_fen(fen_str)).unwrap();
        assert_eq!(from_scratch(&pos), from_scratch(&flipped), "{fen_str}");
    }
}

#[test]
fn network_knows_material() {
    // A queen up is winning for the side that has it, whoever is to move: by
    // more than five pawns, in the middlegame and alone with the kings (the
    // shipped network gives K+Q vs K +527 / -537).
    for (board, margin) in [
        ("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", 500),
        ("4k3/8/8/8/8/8/8/Q3K3", 500),
    ] {
        let up: Position<Chess> = fen::parse(&format!("{board} w - - 0 1")).unwrap();
        let down: Position<Chess> = fen::parse(&format!("{board} b - - 0 1")).unwrap();
        let (up, down) = (from_scratch(&up), from_scratch(&down));
        assert!(up > margin, "{board}: {up}");
        assert!(down < -margin, "{board}: {down}");
    }
}

/// A plain network file of width `hidden` from its parts (`w1` by feature).
fn network_file(w1: &[i16], b1: &[i16], w2: &[i16], b2: &[i32; BUCKETS]) -> Vec<u8> {
    layout_file(Layout::Plain, w1, b1, w2, b2)
}

/// A network file of `layout` from its parts.
fn layout_file(layout: Layout, w1: &[i16], b1: &[i16], w2: &[i16], b2: &[i32; BUCKETS]) -> Vec<u8> {
    let hidden = b1.len();
    assert_eq!(w1.len(), layout.inputs() * hidden);
    assert_eq!(w2.len(), BUCKETS * 2 * hidden);
    let mut bytes = layout.magic().to_vec();
    bytes.extend_from_slice(&(hidden as u32).to_le_bytes());
    for &w in w1.iter().chain(b1) {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    for (layer, b) in w2.chunks_exact(2 * hidden).zip(b2) {
        for &w in layer {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        bytes.extend_from_slice(&b.to_le_bytes());
    }
    assert_eq!(bytes.len(), nnue::file_len(layout, hidden));
    bytes
}

/// The evaluation computed independently of the engine's accumulators and
/// kernels: each view's sums from scratch in i64, then the formula of
/// `Network::evaluate` (integer division truncates in both).
fn reference_eval(net: &Network, boards: &PieceBoards, turn: Color) -> i32 {
    let (h, w1, b1, w2, b2) = net.weights();
    let sums = |view: Color| {
        let king = boards[if view == Color::White { 5 } else { 11 }].first();
        let key = net.layout().view_key(view, king);
        let mut sums: Vec<i64> = b1.iter().map(|&b| i64::from(b)).collect();
        for (i, &squares) in boards.iter().enumerate() {
            if i >= net.layout().kinds() {
                break;
            }
            for sq in squares {
                // An attendant: 768, then theirs * 64, then the square from
                // the view's side.
                let f = if i < nnue::ATTENDANTS {
                    nnue::keyed_feature(view, nnue::piece_of(i), sq, key)
                } else {
                    let theirs = (i == nnue::ATTENDANTS) != (view == Color::White);
                    let relative = if view == Color::White {
                        sq as usize
                    } else {
                        sq as usize ^ 56
                    };
                    768 + 64 * theirs as usize + relative
                };
                for (s, &w) in sums.iter_mut().zip(&w1[f * h..][..h]) {
                    *s += i64::from(w);
                }
            }
        }
        sums
    };
    let b = nnue::bucket(nnue::piece_count(boards));
    let mut out = 0i64;
    for (half, view) in [turn, !turn].into_iter().enumerate() {
        let layer = &w2[(2 * b + half) * h..][..h];
        for (x, &w) in sums(view).into_iter().zip(layer) {
            let x = x.clamp(0, i64::from(QA));
            out += x * x * i64::from(w);
        }
    }
    let cp = (out / i64::from(QA) + i64::from(b2[b])) * i64::from(SCALE) / i64::from(QA * QB);
    i32::try_from(cp).expect("a centipawn score")
}

/// Random boards of up to 64 pieces (any piece on any square, kings any
/// number): the loader's ranges hold for every such board.
fn random_boards(next: &mut impl FnMut() -> u64, fill: u64) -> PieceBoards {
    let mut boards = [Bitboard::EMPTY; nnue::KINDS];
    for sq in shakmaty::Square::ALL {
        if next() % 64 < fill {
            let i = (next() % 12) as usize;
            boards[i] = boards[i].with(sq);
        }
    }
    boards
}

/// Every network file shipped in crates/engine/src/nnue/ loads (the engine would
/// panic at its first search otherwise), and each is some variant's network.
#[test]
fn shipped_network_files_load() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/engine/src/nnue");
    let mut loaded = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("crates/engine/src/nnue") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|x| x == "net") {
            let bytes = std::fs::read(&path).expect("readable");
            if let Err(e) = Network::from_bytes(&bytes) {
                panic!("{}: {e}", path.display());
            }
            loaded.push(
                path.file_name()
                    .and_then(|f| f.to_str())
                    .map(str::to_string),
            );
        }
    }
    let mut used: Vec<Option<String>> =
        shipped().iter().map(|n| Some(n.file.to_string())).collect();
    loaded.sort();
    used.sort();
    assert_eq!(loaded, used);
}

/// Each range the loader checks, at its exact edge: the last value accepted,
/// one more refused with the error naming it. The first layer's range is per
/// square: two pieces' weights on the same square do not add up.
#[test]
fn weights_beyond_the_evaluations_integers_are_refused() {
    const H: usize = 32;
    let zero_w1 = vec![0i16; nnue::INPUTS * H];
    let zero_w2 = vec![0i16; BUCKETS * 2 * H];
    let load = |w1: &[i16], b1: &[i16], w2: &[i16], b2: &[i32; BUCKETS]| {
        Network::from_bytes(&network_file(w1, b1, w2, b2)).map(|_| ())
    };

    // First layer: neuron 3 gets 511 from a white pawn or a white knight on
    // any square (features 0..128 from White's view), neuron 5 -511. Over 64
    // squares that is 32704: with a bias of 63 the sum reaches i16::MAX, with
    // -64 i16::MIN.
    let mut w1 = zero_w1.clone();
    for f in 0..128 {
        w1[f * H + 3] = 511;
        w1[f * H + 5] = -511;
    }
    let mut b1 = vec![0i16; H];
    (b1[3], b1[5]) = (63, -64);
    assert_eq!(load(&w1, &b1, &zero_w2, &[0; BUCKETS]), Ok(()));
    b1[3] = 64;
    assert_eq!(
        load(&w1, &b1, &zero_w2, &[0; BUCKETS]),
        Err(NetworkError::AccumulatorRange {
            set: 0,
            neuron: 3,
            low: 64,
            high: 32768
        })
    );
    (b1[3], b1[5]) = (63, -65);
    assert_eq!(
        load(&w1, &b1, &zero_w2, &[0; BUCKETS]),
        Err(NetworkError::AccumulatorRange {
            set: 0,
            neuron: 5,
            low: -32769,
            high: -65
        })
    );

    // Output weights: 128 and -128 fit 16 bits times QA (255), 129 does not.
    let mut w2 = zero_w2.clone();
    (w2[2 * H * 4 + 7], w2[2 * H * 4 + 8]) = (128, -128);
    assert_eq!(load(&zero_w1, &[0; H], &w2, &[0; BUCKETS]), Ok(()));
    for bad in [129, -129] {
        w2[2 * H * 4 + 8] = bad;
        assert_eq!(
            load(&zero_w1, &[0; H], &w2, &[0; BUCKETS]),
            Err(NetworkError::OutputWeight {
                bucket: 4,
                index: 8,
                weight: bad
            })
        );
    }

    // Output sums: 64 weights of 128 in layer 6 give 255 * 8192 = 2088960;
    // with |b2| = 3279749 that is i32::MAX / 400 = 5368709, the most allowed.
    let mut w2 = zero_w2.clone();
    w2[2 * H * 6..2 * H * 7].fill(128);
    let mut b2 = [0; BUCKETS];
    for edge in [3_279_749, -3_279_749] {
        b2[6] = edge;
        assert_eq!(load(&zero_w1, &[0; H], &w2, &b2), Ok(()));
        b2[6] = edge + edge.signum();
        assert_eq!(
            load(&zero_w1, &[0; H], &w2, &b2),
            Err(NetworkError::OutputSum {
                bucket: 6,
                bound: 5_368_710
            })
        );
    }
    let message = NetworkError::OutputWeight {
        bucket: 4,
        index: 8,
        weight: 129,
    }
    .to_string();
    assert_eq!(
        message,
        "output weight 8 of layer 4 is 129: at most 128 in size, so that 255 times it fits 16 bits"
    );
}

/// Networks at the loader's edges evaluate without overflow, to the reference
/// and to the values worked out by hand: a full board of white pawns drives
/// neuron 3 to i16::MAX; every activation at QA with every output weight at
/// 128 and the bias at its limit gives (255 * 16384 + 1190789) * 400 / 16320
/// = 131586 (and its negation).
#[test]
fn networks_at_the_edges_evaluate_exactly() {
    const H: usize = 64;
    let full_of = |piece: usize| {
        let mut boards = [Bitboard::EMPTY; nnue::KINDS];
        boards[piece] = Bitboard::FULL;
        boards
    };
    let mut w1 = vec![0i16; nnue::INPUTS * H];
    for f in 0..128 {
        w1[f * H + 3] = 511;
        w1[f * H + 5] = -511;
    }
    let mut b1 = vec![300i16; H];
    (b1[3], b1[5]) = (63, -64);
    let mut w2 = vec![0i16; BUCKETS * 2 * H];
    w2[2 * H * 7 + 3] = 1;
    let net = Network::from_bytes(&network_file(&w1, &b1, &w2, &[0; BUCKETS])).expect("in range");
    let pawns = full_of(0);
    // Neuron 3 is clamped to QA, the rest of White's half weighs nothing:
    // 255^2 * 1 / 255 * 400 / 16320 = 6 (6.25 truncated).
    assert_eq!(net.evaluate_board(&pawns, Color::White), 6);
    for boards in [pawns, full_of(1), full_of(6)] {
        for turn in [Color::White, Color::Black] {
            assert_eq!(
                net.evaluate_board(&boards, turn),
                reference_eval(&net, &boards, turn)
            );
        }
    }

    let w1 = vec![0i16; nnue::INPUTS * H];
    let b1 = vec![300i16; H];
    for (weight, bias, cp) in [(128i16, 1_190_789, 131_586), (-128, -1_190_789, -131_586)] {
        let mut w2 = vec![0i16; BUCKETS * 2 * H];
        w2[2 * H * 7..].fill(weight);
        let mut b2 = [0; BUCKETS];
        b2[7] = bias;
        let net = Network::from_bytes(&network_file(&w1, &b1, &w2, &b2)).expect("in range");
        for turn in [Color::White, Color::Black] {
            assert_eq!(net.evaluate_board(&full_of(4), turn), cp);
            assert_eq!(reference_eval(&net, &full_of(4), turn), cp);
        }
    }
}

/// A dot-product kernel of `nnue` (`screlu_dot` and its variants).
type Kernel = fn(&[i16], &[i16]) -> i32;

/// The kernels this build has and this CPU runs, by name: the one
/// `screlu_dot` uses, and each vector one (SSE2 on every x86-64, AVX2 where the
/// CPU has it, whatever the build targets; NEON on aarch64).
fn kernels() -> Vec<(&'static str, Kernel)> {
    #[allow(unused_mut)]
    let mut kernels: Vec<(&'static str, Kernel)> = vec![("screlu_dot", nnue::screlu_dot)];
    #[cfg(target_arch = "x86_64")]
    {
        kernels.push(("sse2", nnue::screlu_dot_sse2));
        if std::is_x86_feature_detected!("avx2") {
            kernels.push(("avx2", |acc, w| {
                assert!(std::is_x86_feature_detected!("avx2"));
                // SAFETY: the CPU has AVX2 (checked above).
                unsafe { nnue::screlu_dot_avx2(acc, w) }
            }));
        }
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    kernels.push(("neon", nnue::screlu_dot_neon));
    kernels
}

/// Every x86-64 build runs the AVX2 kernel exactly where the CPU has it
/// (compiled for its own target feature), whatever the build targets: a
/// release for any x86-64 CPU loses no speed on this one, and never runs AVX2
/// on a CPU without it.
#[cfg(target_arch = "x86_64")]
#[test]
fn every_x86_build_runs_avx2_where_the_cpu_has_it() {
    let avx2 = std::is_x86_feature_detected!("avx2");
    if avx2 && std::env::var_os("TURNCOAT_FORCE_KERNEL").is_none() {
        assert_eq!(nnue::dot_kernel(), "avx2");
    }
    if !avx2 {
        assert_ne!(nnue::dot_kernel(), "avx2");
    }
}

/// Every vector kernel equals the scalar one exactly: on random sums (any i16,
/// and near the clipped range 0..=QA) with random weights as large as the
/// loader allows for the width, and at the extremes: every activation clipped to
/// QA against weights of +-128 across 256 lanes, 255^2 * 128 * 256 =
/// 2130739200, the largest sum a loaded network's half can make.
#[test]
fn vector_kernels_equal_the_scalar_one() {
    let mut next = common::xorshift(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for width in (nnue::WIDTH_STEP..=nnue::MAX_HIDDEN).step_by(nnue::WIDTH_STEP) {
        // The largest weight whose sum over the width stays within i32 after QA^2.
        let limit = (i32::MAX / (QA * QA) / width as i32).min(nnue::MAX_OUTPUT_WEIGHT) as u64;
        for trial in 0..40 {
            let acc: Vec<i16> = (0..width)
                .map(|_| {
                    if trial % 2 == 0 {
                        next() as i16
                    } else {
                        (next() % 601) as i16 - 300
                    }
                })
                .collect();
            let w: Vec<i16> = (0..width)
                .map(|_| ((next() % (2 * limit + 1)) as i64 - limit as i64) as i16)
                .collect();
            let expected = nnue::screlu_dot_scalar(&acc, &w);
            for (name, kernel) in kernels() {
                assert_eq!(
                    kernel(&acc, &w),
                    expected,
                    "{name}, width {width}, trial {trial}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 16 * 40);

    let top = 255 * 255 * 128 * 256;
    for (acc, w, expected) in [
        (i16::MAX, 128, top),
        (255, -128, -top),
        (256, 128, top),
        (i16::MIN, 128, 0),
        (-1, -128, 0),
        (1, 128, 128 * 256),
        (254, -128, -254 * 254 * 128 * 256),
    ] {
        let acc = vec![acc; 256];
        let w = vec![w; 256];
        assert_eq!(nnue::screlu_dot_scalar(&acc, &w), expected);
        for (name, kernel) in kernels() {
            assert_eq!(
                kernel(&acc, &w),
                expected,
                "{name}: {:?} x {:?}",
                acc[0],
                w[0]
            );
        }
    }
    // Alternating extremes: lanes of either sign and either clip in one vector.
    let acc: Vec<i16> = (0..512)
        .map(|i| [i16::MAX, i16::MIN, 255, 0, 128, -1, 300, 1][i % 8])
        .collect();
    let w: Vec<i16> = (0..512).map(|i| [64, -64, -64, 64][i % 4]).collect();
    let expected = nnue::screlu_dot_scalar(&acc, &w);
    // Per 8 lanes: 255^2 * 64 - 0 - 255^2 * 64 + 0 + 128^2 * 64 - 0 - 255^2 * 64 + 1 * 64.
    assert_eq!(expected, 64 * (128 * 128 - 255 * 255 + 1) * 64);
    for (name, kernel) in kernels() {
        assert_eq!(kernel(&acc, &w), expected, "{name}: alternating");
    }
}

/// The whole forward pass (the accumulators, the build's kernel, the output
/// arithmetic) equals the independent scalar reference exactly: every shipped
/// network on random boards of up to 64 pieces, and on positions of random
/// games (through the search's incremental stack as well).
#[test]
fn forward_pass_equals_the_scalar_reference() {
    let mut next = common::xorshift(0x0123_4567_89ab_cdef);
    for net in shipped() {
        let network = net.network();
        for trial in 0..200 {
            let boards = random_boards(&mut next, [8, 24, 40, 64][trial % 4]);
            for turn in [Color::White, Color::Black] {
                assert_eq!(
                    network.evaluate_board(&boards, turn),
                    reference_eval(network, &boards, turn),
                    "{}, trial {trial}",
                    net.file
                );
            }
        }
    }
    let network = chess_network();
    let mut stack = AccumulatorStack::new(network, 64);
    for _game in 0..10 {
        let mut pos: Position<Chess> = fen::parse(Chess::START_FEN).unwrap();
        let mut moves = MoveList::new();
        for ply in 0..60 {
            let boards = nnue::piece_boards(&pos);
            assert_eq!(
                stack.evaluate(&boards, pos.turn(), ply),
                reference_eval(network, &boards, pos.turn()),
                "{}",
                fen::format(&pos)
            );
            moves.clear();
            Chess::legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            Chess::play(&mut pos, moves[(next() % moves.len() as u64) as usize]);
        }
    }
}

/// The kernel `screlu_dot` runs is the one TURNCOAT_DOT_KERNEL names: CI sets
/// it to what the machine's CPU offers, for its native build and for its build
/// for any x86-64 CPU (which picks AVX2 at run time where the CPU has it), and
/// to "sse2" and "scalar" for runs of the latter with TURNCOAT_FORCE_KERNEL,
/// so that a build setting or a dispatch that does not take effect (AVX2 lost,
/// or a forced kernel not run) fails here.
#[test]
fn the_build_uses_the_kernel_it_is_told() {
    let Ok(expected) = std::env::var("TURNCOAT_DOT_KERNEL") else {
        return common::skip_or_fail(
            "the_build_uses_the_kernel_it_is_told",
            &format!(
                "TURNCOAT_DOT_KERNEL is not set (.ci/run sets it); this build uses {}",
                nnue::dot_kernel()
            ),
        );
    };
    assert_eq!(nnue::dot_kernel(), expected, "TURNCOAT_DOT_KERNEL");
}

/// A network of `layout` with small random weights: first-layer sums stay
/// mostly inside 0..QA (biases 60..=190, pieces -4..=4 each), so that every
/// feature moves the output rather than being clipped away.
fn random_network(layout: Layout, hidden: usize, seed: u64) -> &'static Network {
    let mut next = common::xorshift(seed);
    let mut uniform = |n: usize, low: i16, high: i16| -> Vec<i16> {
        (0..n)
            .map(|_| low + (next() % (high - low + 1) as u64) as i16)
            .collect()
    };
    let mut w1 = uniform(nnue::INPUTS * layout.sets() * hidden, -4, 4);
    // An attendant's columns larger (12..=20): a link is seen through the
    // centipawns' rounding.
    w1.extend(uniform(
        (layout.inputs() - w1.len() / hidden) * hidden,
        12,
        20,
    ));
    let (b1, w2) = (
        uniform(hidden, 60, 190),
        uniform(BUCKETS * 2 * hidden, -30, 30),
    );
    let b2: [i32; BUCKETS] = std::array::from_fn(|i| 1000 * i as i32 - 3500);
    let bytes = layout_file(layout, &w1, &b1, &w2, &b2);
    nnue::keep(&bytes).expect("small weights are in range")
}

/// An attendant is a pawn as well: the loader adds its two columns on its
/// square. White pawns weigh 300 on neuron 3 and White's attendants 211,
/// 511 a square, 32704 over 64: with a bias of 63 the sum reaches i16::MAX,
/// with 64 it passes it, though neither column alone comes near.
#[test]
fn an_attendant_weighs_with_its_pawn_in_the_range_check() {
    const H: usize = 32;
    let layout = Layout::Attendants;
    assert_eq!((layout.inputs(), &layout.magic()[..]), (896, &b"TCN4"[..]));
    let mut w1 = vec![0i16; layout.inputs() * H];
    for sq in 0..64 {
        w1[sq * H + 3] = 300;
        w1[(768 + sq) * H + 3] = 211;
    }
    let w2 = vec![0i16; BUCKETS * 2 * H];
    let mut b1 = vec![0i16; H];
    b1[3] = 63;
    let load = |b1: &[i16]| Network::from_bytes(&layout_file(layout, &w1, b1, &w2, &[0; BUCKETS]));
    let net = load(&b1).expect("i16::MAX is reached, not passed");
    assert_eq!(net.layout(), Layout::Attendants);
    b1[3] = 64;
    assert_eq!(
        load(&b1).map(|_| ()),
        Err(NetworkError::AccumulatorRange {
            set: 0,
            neuron: 3,
            low: 64,
            high: 32768
        })
    );
    // The same piece columns in a plain network: 300 a square fits.
    let plain = network_file(&w1[..768 * H], &b1, &w2, &[0; BUCKETS]);
    assert!(Network::from_bytes(&plain).is_ok());
}

/// A network with attendants' features, on positions of random Attending
/// Pawns games: the search's incremental stack equals the scalar reference,
/// the colour-flipped position (links flipped with it) scores the same, and
/// the links are read: the same board without them scores otherwise, while a
/// plain network does not look at them.
#[test]
fn attendants_are_read_updated_and_mirrored() {
    use turncoat::rules::variants::attending_pawns::AttendingPawns as Ap;
    let net = random_network(Layout::Attendants, 64, 0x0a77_e0da_0000_0001);
    let plain = random_network(Layout::Plain, 64, 0x0a77_e0da_0000_0002);
    let mut stack = AccumulatorStack::new(net, 64);
    let mut next = common::xorshift(0x0a77_e0da_0000_0003);
    let (mut checked, mut linked) = (0, 0);
    for _game in 0..12 {
        let mut pos: Position<Ap> = fen::parse(Ap::START_FEN).unwrap();
        let mut moves = MoveList::new();
        for ply in 0..50 {
            let boards = Ap::network_boards(&pos);
            let turn = pos.turn();
            let exact = reference_eval(net, &boards, turn);
            assert_eq!(
                stack.evaluate(&boards, turn, ply),
                exact,
                "{}",
                fen::format(&pos)
            );
            assert_eq!(net.evaluate_board(&boards, turn), exact);
            let text = fen::format(&pos);
            let flipped: Position<Ap> = fen::parse(&common::flip_fen(&text)).unwrap();
            assert_eq!(
                net.evaluate_board(&Ap::network_boards(&flipped), flipped.turn()),
                exact,
                "{text}"
            );
            let mut unlinked = boards;
            unlinked[nnue::ATTENDANTS] = Bitboard::EMPTY;
            unlinked[nnue::ATTENDANTS + 1] = Bitboard::EMPTY;
            if unlinked != boards {
                linked += 1;
                assert_ne!(net.evaluate_board(&unlinked, turn), exact, "{text}");
                assert_eq!(
                    plain.evaluate_board(&unlinked, turn),
                    plain.evaluate_board(&boards, turn)
                );
            }
            checked += 1;
            moves.clear();
            Ap::legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            Ap::play(&mut pos, moves[(next() % moves.len() as u64) as usize]);
        }
    }
    assert!(
        checked > 400 && linked > 400,
        "{checked} positions, {linked} linked"
    );
}
