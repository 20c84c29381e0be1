//! `turncoat shift-output`: a network file whose output is moved by a whole
//! number of centipawns (every output layer's bias), or scaled by a factor
//! (every output layer's weights and bias), nothing else changed.
//! A network that gives the side to move a constant excess over what its
//! searches bear out makes the score rise and fall with the depth's parity;
//! Subversion's second network ships lowered by 25 cp this way
//! (docs/TRAINING.md, "Subversion, generation 2"). A scaled network asks
//! whether the search's margins want the network's centipawns larger or
//! smaller (docs/TRAINING.md, "A lineage of Turncoat's own, third start").

use std::path::PathBuf;

use clap::Args;

use turncoat_engine::nnue::{self, Network, BUCKETS, QA, QB, SCALE};

use crate::data;

#[derive(Args, Debug, Clone)]
pub struct ShiftArgs {
    /// The network file to read.
    pub input: PathBuf,
    /// Centipawns to add to the network's output (negative to lower it),
    /// after any --times.
    #[arg(long, allow_hyphen_values = true, default_value_t = 0)]
    pub by: i32,
    /// Factor to multiply the network's output by (each output weight and
    /// bias, rounded to its units): 0.88 makes its centipawns 12 % smaller.
    #[arg(long, default_value_t = 1.0)]
    pub times: f64,
    /// Where to write the shifted network (a new file).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(args: &ShiftArgs) -> Result<(), String> {
    let bytes =
        nnue::read_file(&args.input).map_err(|e| format!("{}: {e}", args.input.display()))?;
    let scaled = scale(&bytes, args.times).map_err(|e| format!("{}: {e}", args.input.display()))?;
    let shifted = shift(&scaled, args.by).map_err(|e| format!("{}: {e}", args.input.display()))?;
    data::write_beside(&args.out, |tmp| {
        std::fs::write(tmp, &shifted).map_err(|e| format!("cannot write {}: {e}", tmp.display()))
    })?;
    eprintln!(
        "wrote {}: {} with its output times {} and moved by {} cp",
        args.out.display(),
        args.input.display(),
        args.times,
        args.by
    );
    Ok(())
}

/// The output bias's units per centipawn: the output is
/// `(sum / QA + b2) * SCALE / (QA * QB)` centipawns.
const PER_CP: f64 = (QA * QB) as f64 / SCALE as f64;

/// Where each output layer's bias (an i32) starts in `net`'s file: after
/// magic, width, w1 and b1 (i16), and each bucket's bias after its
/// 2 * hidden output weights (i16).
pub(crate) fn bias_offsets(net: &Network) -> impl Iterator<Item = usize> {
    let hidden = net.hidden();
    let first = 8 + 2 * (net.layout().inputs() * hidden + hidden);
    (0..BUCKETS).map(move |bucket| first + bucket * (4 * hidden + 4) + 4 * hidden)
}

/// Where each output layer's weights (2 * hidden i16) start in `net`'s file.
pub(crate) fn weight_offsets(net: &Network) -> impl Iterator<Item = usize> {
    let hidden = net.hidden();
    bias_offsets(net).map(move |at| at - 4 * hidden)
}

/// The little-endian i16 (a weight of either layer) at byte `at` of a network file.
pub(crate) fn i16_at(bytes: &[u8], at: usize) -> i16 {
    i16::from_le_bytes([bytes[at], bytes[at + 1]])
}

/// The little-endian i32 (an output layer's bias) at byte `at` of a network file.
pub(crate) fn i32_at(bytes: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Subversion's shipped network: the file the tools' tests scale, shift and
/// average.
#[cfg(test)]
pub(crate) fn subversion_network() -> &'static [u8] {
    use turncoat_engine::policy::Policy;
    use turncoat_rules::variants::subversion::Subversion;
    Subversion::NETWORK
        .expect("Subversion ships a network")
        .bytes
}

/// The largest output weight the engine loads (255 times it must fit 16 bits).
const MAX_OUTPUT_WEIGHT: f64 = 128.0;

/// `bytes`, a network file, with every output layer's weights and bias
/// multiplied by `factor` and rounded (half away from zero), so that the
/// output is `factor` times what it was, give or take the rounding of the
/// weights (a 64th of a unit each). A weight pushed past what the engine
/// loads is an error, not clipped: a clipped network is a different network.
pub fn scale(bytes: &[u8], factor: f64) -> Result<Vec<u8>, String> {
    if !(factor.is_finite() && factor > 0.0) {
        return Err(format!("--times must be a positive number, got {factor}"));
    }
    let net = Network::from_bytes(bytes).map_err(|e| e.to_string())?;
    let mut out = bytes.to_vec();
    if factor == 1.0 {
        return Ok(out);
    }
    let hidden = net.hidden();
    for (bucket, (weights, bias)) in weight_offsets(&net).zip(bias_offsets(&net)).enumerate() {
        for at in (weights..weights + 4 * hidden).step_by(2) {
            let w = f64::from(i16_at(&out, at));
            let scaled = (w * factor).round();
            if scaled.abs() > MAX_OUTPUT_WEIGHT {
                return Err(format!(
                    "times {factor}: output layer {bucket}: a weight of {scaled} is beyond +-128"
                ));
            }
            out[at..at + 2].copy_from_slice(&(scaled as i16).to_le_bytes());
        }
        let b2 = f64::from(i32_at(&out, bias));
        let scaled = (b2 * factor).round() as i64;
        let scaled = i32::try_from(scaled).map_err(|_| {
            format!("times {factor}: output layer {bucket}: a bias of {scaled} leaves 32 bits")
        })?;
        out[bias..bias + 4].copy_from_slice(&scaled.to_le_bytes());
    }
    Network::from_bytes(&out).map_err(|e| format!("times {factor}: {e}"))?;
    Ok(out)
}

/// `bytes`, a network file, with `cp` centipawns added to every output
/// layer's bias (rounded to the bias's units, 40.8 a centipawn; 25 cp is
/// exactly 1,020). The result is checked as the engine would load it.
pub fn shift(bytes: &[u8], cp: i32) -> Result<Vec<u8>, String> {
    let net = Network::from_bytes(bytes).map_err(|e| e.to_string())?;
    let step = (f64::from(cp) * PER_CP).round();
    let mut out = bytes.to_vec();
    for (bucket, at) in bias_offsets(&net).enumerate() {
        let b2 = i32_at(&out, at);
        let moved = (f64::from(b2) + step) as i64;
        let moved = i32::try_from(moved)
            .map_err(|_| format!("output layer {bucket}: a bias of {moved} leaves 32 bits"))?;
        out[at..at + 4].copy_from_slice(&moved.to_le_bytes());
    }
    Network::from_bytes(&out).map_err(|e| format!("shifted by {cp} cp: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{subversion_network as shipped, *};
    use turncoat_engine::policy::Policy;
    use turncoat_rules::fen;
    use turncoat_rules::position::Position;
    use turncoat_rules::variants::subversion::Subversion;
    use turncoat_rules::variants::Variant;

    /// Raised by 25 cp: the eight biases, and nothing else, grow by exactly
    /// 1,020; lowered again, the file is what it was. The evaluation moves by
    /// 25 cp, give or take the one its truncating division can round away.
    #[test]
    fn a_shift_moves_the_biases_and_the_evaluation() {
        let raised = shift(shipped(), 25).unwrap();
        let changed: Vec<usize> = (0..raised.len())
            .filter(|&i| raised[i] != shipped()[i])
            .collect();
        let net = Network::from_bytes(shipped()).unwrap();
        for (bucket, at) in bias_offsets(&net).enumerate() {
            let word = |b: &[u8]| i32_at(b, at);
            assert_eq!(word(&raised) - word(shipped()), 1020, "bucket {bucket}");
        }
        let in_a_bias = |i: usize| bias_offsets(&net).any(|at| (at..at + 4).contains(&i));
        assert!(!changed.is_empty() && changed.iter().all(|&i| in_a_bias(i)));
        assert_eq!(shift(&raised, -25).unwrap(), shipped());

        let up = Network::from_bytes(&raised).unwrap();
        for text in [
            Subversion::START_FEN,
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        ] {
            let pos: Position<Subversion> = fen::parse(text).unwrap();
            let boards = Subversion::network_boards(&pos);
            let (before, after) = (
                net.evaluate_board(&boards, pos.turn()),
                up.evaluate_board(&boards, pos.turn()),
            );
            assert!(
                (after - before - 25).abs() <= 1,
                "{text}: {before} -> {after}"
            );
        }
    }

    /// Times 1 is the file itself; times 0.5 halves every output weight and
    /// bias (rounded half away from zero) and touches nothing else; a factor
    /// that is not a positive number, or one that pushes a weight past 128,
    /// is refused.
    #[test]
    fn a_scale_multiplies_the_output_layers_and_nothing_else() {
        assert_eq!(scale(shipped(), 1.0).unwrap(), shipped());
        let half = scale(shipped(), 0.5).unwrap();
        let net = Network::from_bytes(shipped()).unwrap();
        let hidden = net.hidden();
        let mut touched = vec![false; half.len()];
        for (weights, bias) in weight_offsets(&net).zip(bias_offsets(&net)) {
            for at in (weights..weights + 4 * hidden).step_by(2) {
                let w = |b: &[u8]| i16_at(b, at);
                let expected = (f64::from(w(shipped())) / 2.0).round() as i16;
                assert_eq!(w(&half), expected, "weight at {at}");
                touched[at] = true;
                touched[at + 1] = true;
            }
            let b = |x: &[u8]| i32_at(x, bias);
            assert_eq!(b(&half), (f64::from(b(shipped())) / 2.0).round() as i32);
            touched[bias..bias + 4].fill(true);
        }
        let weights_changed = (0..half.len()).filter(|&i| half[i] != shipped()[i]).count();
        assert!(weights_changed > 0);
        assert!((0..half.len()).all(|i| touched[i] || half[i] == shipped()[i]));

        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let message = scale(shipped(), bad).unwrap_err();
            assert!(
                message.starts_with("--times must be a positive number"),
                "{message}"
            );
        }
        let message = scale(shipped(), 1000.0).unwrap_err();
        assert!(
            message.starts_with("times 1000: output layer 0: a weight of"),
            "{message}"
        );
    }

    /// Not a network, or a shift whose bias the engine's output sum cannot
    /// hold: an error, nothing shifted.
    #[test]
    fn bad_files_and_shifts_are_refused() {
        let err = |bytes: &[u8], cp: i32| shift(bytes, cp).map(|_| ()).unwrap_err();
        assert!(err(b"TCN2", 25).starts_with("not a network file"));
        // A million centipawns is 40.8 M in the bias, beyond the output sum's
        // 5.37 M.
        let message = err(shipped(), 1_000_000);
        assert!(
            message.starts_with("shifted by 1000000 cp: output layer 0:"),
            "{message}"
        );
    }
}
