//! `turncoat average-networks`: one network whose every weight and bias is
//! the (weighted) mean of the same weight in several networks of one shape.
//! Fine-tunes of one parent on the same data each fit the noise of their
//! labels a little differently; their mean (a "model soup") keeps what they
//! agree on, and a mean with the parent itself takes a shorter step from it
//! (docs/TRAINING.md, "A lineage of Turncoat's own, third start").

use std::path::PathBuf;

use clap::Args;

use turncoat_engine::nnue::{self, Network};

use crate::data;
use crate::shift::{bias_offsets, i16_at, i32_at};

#[derive(Args, Debug, Clone)]
pub struct AverageArgs {
    /// The network files to average: two or more of one layout and width.
    #[arg(required = true, num_args = 2..)]
    pub inputs: Vec<PathBuf>,
    /// Each input's weight in the mean, in the inputs' order (all 1 unless
    /// told): `--weights 3,1` is three parts the first network to one the
    /// second.
    #[arg(long, value_delimiter = ',')]
    pub weights: Option<Vec<f64>>,
    /// Where to write the mean (a new file).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(args: &AverageArgs) -> Result<(), String> {
    let files = args
        .inputs
        .iter()
        .map(|path| nnue::read_file(path).map_err(|e| format!("{}: {e}", path.display())))
        .collect::<Result<Vec<_>, _>>()?;
    let weights = args
        .weights
        .clone()
        .unwrap_or_else(|| vec![1.0; files.len()]);
    if weights.len() != files.len() {
        return Err(format!(
            "--weights gives {} weights for {} networks",
            weights.len(),
            files.len()
        ));
    }
    let parts: Vec<(&[u8], f64)> = files.iter().map(Vec::as_slice).zip(weights).collect();
    let mean = average(&parts).map_err(|e| {
        let names: Vec<String> = args
            .inputs
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        format!("{}: {e}", names.join(", "))
    })?;
    data::write_beside(&args.out, |tmp| {
        std::fs::write(tmp, &mean).map_err(|e| format!("cannot write {}: {e}", tmp.display()))
    })?;
    eprintln!(
        "wrote {}: the mean of {} networks",
        args.out.display(),
        files.len()
    );
    Ok(())
}

/// The weighted mean of network files `parts` (file, weight), field by field:
/// each i16 weight and each output layer's i32 bias, rounded half away from
/// zero. The networks must share their layout, kind and width (their first
/// eight bytes); the weights must be non-negative with a positive sum. The
/// mean is checked as the engine would load it.
pub fn average(parts: &[(&[u8], f64)]) -> Result<Vec<u8>, String> {
    let Some(&(first, _)) = parts.first() else {
        return Err("no networks to average".to_string());
    };
    let net = Network::from_bytes(first).map_err(|e| e.to_string())?;
    for (i, &(bytes, weight)) in parts.iter().enumerate() {
        if !(weight.is_finite() && weight >= 0.0) {
            return Err(format!(
                "network {}: weight {weight} is not a non-negative number",
                i + 1
            ));
        }
        Network::from_bytes(bytes).map_err(|e| format!("network {}: {e}", i + 1))?;
        if bytes[..8] != first[..8] {
            return Err(format!(
                "network {} is not of the first one's layout and width",
                i + 1
            ));
        }
    }
    let total: f64 = parts.iter().map(|&(_, w)| w).sum();
    if total <= 0.0 {
        return Err("the weights sum to zero".to_string());
    }
    let mean_at = |at: usize, width: usize| -> f64 {
        parts
            .iter()
            .map(|&(bytes, weight)| {
                let value = if width == 2 {
                    f64::from(i16_at(bytes, at))
                } else {
                    f64::from(i32_at(bytes, at))
                };
                value * weight
            })
            .sum::<f64>()
            / total
    };
    let biases: Vec<usize> = bias_offsets(&net).collect();
    let mut out = first[..8].to_vec();
    let mut at = 8;
    while at < first.len() {
        if biases.contains(&at) {
            // A mean of i32s lies between them: it fits an i32.
            let mean = mean_at(at, 4).round() as i32;
            out.extend_from_slice(&mean.to_le_bytes());
            at += 4;
        } else {
            let mean = mean_at(at, 2).round() as i16;
            out.extend_from_slice(&mean.to_le_bytes());
            at += 2;
        }
    }
    Network::from_bytes(&out).map_err(|e| format!("the mean: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shift::{scale, subversion_network as shipped, weight_offsets};

    /// A network averaged with itself, at any weights, is itself; averaged
    /// with its output halved, every output weight and bias is the rounded
    /// mean of the two (three quarters of the original, give or take the
    /// halving's rounding) and the first layer is untouched.
    #[test]
    fn the_mean_is_taken_field_by_field() {
        assert_eq!(
            average(&[(shipped(), 1.0), (shipped(), 1.0)]).unwrap(),
            shipped()
        );
        assert_eq!(
            average(&[(shipped(), 3.0), (shipped(), 0.5)]).unwrap(),
            shipped()
        );

        let half = scale(shipped(), 0.5).unwrap();
        let mean = average(&[(shipped(), 1.0), (&half, 1.0)]).unwrap();
        let net = Network::from_bytes(shipped()).unwrap();
        let hidden = net.hidden();
        let w = |b: &[u8], at: usize| f64::from(i16_at(b, at));
        let mut checked = 0;
        for (weights, bias) in weight_offsets(&net).zip(bias_offsets(&net)) {
            for at in (weights..weights + 4 * hidden).step_by(2) {
                let expected = ((w(shipped(), at) + w(&half, at)) / 2.0).round();
                assert_eq!(w(&mean, at), expected, "weight at {at}");
                checked += 1;
            }
            let b = |x: &[u8]| f64::from(i32_at(x, bias));
            assert_eq!(b(&mean), ((b(shipped()) + b(&half)) / 2.0).round());
        }
        assert_eq!(checked, 8 * 2 * hidden);
        let first_layer = weight_offsets(&net).next().unwrap();
        assert_eq!(mean[..first_layer], shipped()[..first_layer]);

        // Weights 3 and 1: three quarters of the way to the first network.
        let leaning = average(&[(shipped(), 3.0), (&half, 1.0)]).unwrap();
        let at = weight_offsets(&net).next().unwrap();
        let expected = ((3.0 * w(shipped(), at) + w(&half, at)) / 4.0).round();
        assert_eq!(w(&leaning, at), expected);
    }

    /// Networks of other shapes, files that are no networks, and weights that
    /// are negative or sum to zero are refused with the reason.
    #[test]
    fn mismatched_networks_and_bad_weights_are_refused() {
        // A plain network 32 wide, every weight zero: loadable, but not of
        // the shipped network's width (256).
        let mut narrow = b"TCN2".to_vec();
        narrow.extend_from_slice(&32u32.to_le_bytes());
        narrow.resize(nnue::file_len(nnue::Layout::Plain, 32), 0);
        assert!(Network::from_bytes(&narrow).is_ok());
        let err = |parts: &[(&[u8], f64)]| average(parts).map(|_| ()).unwrap_err();
        assert_eq!(err(&[]), "no networks to average");
        assert_eq!(
            err(&[(shipped(), 1.0), (&narrow, 1.0)]),
            "network 2 is not of the first one's layout and width"
        );
        assert!(
            err(&[(shipped(), 1.0), (b"TCN2", 1.0)]).starts_with("network 2: not a network file")
        );
        assert_eq!(
            err(&[(shipped(), 1.0), (shipped(), -1.0)]),
            "network 2: weight -1 is not a non-negative number"
        );
        assert_eq!(
            err(&[(shipped(), 0.0), (shipped(), 0.0)]),
            "the weights sum to zero"
        );
    }
}
