//! The fit: mean squared error between `sigmoid(K * eval / 400)` and the game
//! results, minimised first over the scale `K` (with the weights as they are),
//! then over the parameters with full-batch Adam. The evaluation of a position is
//! linear in the parameters (its trace), so one pass over the data gives the exact
//! gradient; no evaluator call per parameter.

use rayon::prelude::*;

use super::data::Dataset;
use turncoat_engine::eval::{param, S, TEMPO};

/// Parameters as floats: `[mg, eg]` of parameter `i` at `2 i`, `2 i + 1`.
pub type Params = Vec<f64>;

pub fn to_float(p: &[S]) -> Params {
    p.iter().flat_map(|s| [s.0 as f64, s.1 as f64]).collect()
}

pub fn to_int(p: &[f64]) -> Vec<S> {
    p.chunks(2)
        .map(|c| S(c[0].round() as i32, c[1].round() as i32))
        .collect()
}

/// The logistic function.
#[inline]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Position `i`'s evaluation (White's view, centipawns, untruncated).
#[inline]
fn eval_of(d: &Dataset, i: usize, p: &[f64]) -> f64 {
    let (mut mg, mut eg) = (d.fixed[i].0 as f64, d.fixed[i].1 as f64);
    for &(k, c) in d.coeffs_of(i) {
        let k = 2 * k as usize;
        mg += c as f64 * p[k];
        eg += c as f64 * p[k + 1];
    }
    let phase = d.phase[i] as f64;
    (mg * phase + eg * (24.0 - phase)) / 24.0 + (d.stm[i] as i32 * TEMPO) as f64
}

/// Every position's evaluation under `p`.
pub fn evals(d: &Dataset, p: &[f64]) -> Vec<f64> {
    (0..d.len())
        .into_par_iter()
        .map(|i| eval_of(d, i, p))
        .collect()
}

/// Mean squared error of fixed evaluations `e` against `results` at scale `k`.
pub fn mse(e: &[f64], results: &[f32], k: f64) -> f64 {
    let sum: f64 = e
        .par_iter()
        .zip(results.par_iter())
        .map(|(&e, &r)| {
            let d = sigmoid(k * e / 400.0) - r as f64;
            d * d
        })
        .sum();
    sum / e.len().max(1) as f64
}

/// The `K` in `[lo, hi]` minimising [`mse`] (golden-section search: the error is
/// unimodal in `K` in practice).
pub fn fit_k(e: &[f64], results: &[f32], lo: f64, hi: f64) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (lo, hi);
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    let (mut fc, mut fd) = (mse(e, results, c), mse(e, results, d));
    while b - a > 1e-6 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = mse(e, results, c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = mse(e, results, d);
        }
    }
    (a + b) / 2.0
}

/// Which parameters move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Group {
    /// Material, piece-square tables and the `Weights` terms.
    All,
    /// Only the `Weights` terms (mobility, pawns, rooks, bishop pair, shield).
    Weights,
    /// Only material and piece-square tables.
    Tables,
}

impl Group {
    fn includes(self, param_index: usize) -> bool {
        let table = param_index < param::MOBILITY;
        match self {
            Group::All => true,
            Group::Weights => !table,
            Group::Tables => table,
        }
    }
}

/// Settings of the parameter fit.
#[derive(Clone, Debug)]
pub struct Settings {
    pub k: f64,
    pub epochs: usize,
    /// Adam step size in centipawns.
    pub rate: f64,
    /// Weight of the L2 pull toward the starting values: the loss adds
    /// `reg * sum((p - p0)^2)`.
    pub reg: f64,
    pub group: Group,
}

/// Loss (MSE plus regularisation) and its gradient at `p`.
fn loss_and_grad(d: &Dataset, p: &[f64], p0: &[f64], s: &Settings) -> (f64, Vec<f64>) {
    let n = d.len().max(1) as f64;
    let scale = s.k / 400.0;
    let (sum, mut grad) = (0..d.len())
        .into_par_iter()
        .fold(
            || (0.0, vec![0.0; p.len()]),
            |(mut sum, mut grad), i| {
                let sig = sigmoid(scale * eval_of(d, i, p));
                let err = sig - d.target[i] as f64;
                sum += err * err;
                // d(err^2)/d(eval), then split over the mg and eg halves.
                let de = 2.0 * err * sig * (1.0 - sig) * scale;
                let phase = d.phase[i] as f64 / 24.0;
                let (gm, ge) = (de * phase, de * (1.0 - phase));
                for &(k, c) in d.coeffs_of(i) {
                    let k = 2 * k as usize;
                    grad[k] += gm * c as f64;
                    grad[k + 1] += ge * c as f64;
                }
                (sum, grad)
            },
        )
        .reduce(
            || (0.0, vec![0.0; p.len()]),
            |(s1, mut g1), (s2, g2)| {
                for (a, b) in g1.iter_mut().zip(g2) {
                    *a += b;
                }
                (s1 + s2, g1)
            },
        );
    let mut loss = sum / n;
    for (j, g) in grad.iter_mut().enumerate() {
        *g /= n;
        let delta = p[j] - p0[j];
        loss += s.reg * delta * delta;
        *g += 2.0 * s.reg * delta;
    }
    (loss, grad)
}

/// Minimises the loss from `start` with Adam; `progress` receives (epoch, loss)
/// every so often. Returns the fitted parameters.
pub fn optimize(
    d: &Dataset,
    start: &[f64],
    s: &Settings,
    progress: &mut dyn FnMut(usize, f64),
) -> Params {
    let (b1, b2, eps): (f64, f64, f64) = (0.9, 0.999, 1e-8);
    let mut p = start.to_vec();
    let mut m = vec![0.0; p.len()];
    let mut v = vec![0.0; p.len()];
    let frozen: Vec<bool> = (0..p.len()).map(|j| !s.group.includes(j / 2)).collect();
    for epoch in 1..=s.epochs {
        let (loss, grad) = loss_and_grad(d, &p, start, s);
        if epoch == 1 || epoch % 50 == 0 || epoch == s.epochs {
            progress(epoch, loss);
        }
        let (c1, c2) = (1.0 - b1.powi(epoch as i32), 1.0 - b2.powi(epoch as i32));
        for (j, &g) in grad.iter().enumerate() {
            if frozen[j] || g == 0.0 {
                continue;
            }
            m[j] = b1 * m[j] + (1.0 - b1) * g;
            v[j] = b2 * v[j] + (1.0 - b2) * g * g;
            p[j] -= s.rate * (m[j] / c1) / ((v[j] / c2).sqrt() + eps);
        }
    }
    p
}
