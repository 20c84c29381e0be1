//! Match statistics: cutechess's Elo / error bar / LOS from win-loss-draw counts,
//! fastchess-style pentanomial statistics from game pairs, and the SPRT
//! log-likelihood ratio (logistic-Elo GSPRT, as fishtest and fastchess compute it).

use std::fmt;

/// The 97.5 % quantile of the standard normal distribution (two-sided 95 % CI).
const Z95: f64 = 1.959_963_984_540_054;

/// Elo difference for an expected score `p` (logistic model).
pub fn elo_from_score(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

/// Expected score for an Elo difference (logistic model).
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function (std has none): Maclaurin series below 0.5, Lentz's
/// continued fraction for erfc above; about 1e-15 accurate.
pub fn erf(x: f64) -> f64 {
    if x < 0.0 {
        -erf(-x)
    } else if x < 0.5 {
        // Maclaurin series; converges fast for small x.
        let x2 = x * x;
        let mut term = x;
        let mut sum = x;
        let mut n = 0.0;
        loop {
            n += 1.0;
            term *= -x2 / n;
            let add = term / (2.0 * n + 1.0);
            sum += add;
            if add.abs() < 1e-17 {
                break;
            }
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        1.0 - erfc_cf(x)
    }
}

/// erfc(x) for x >= 0.5 by Lentz's continued fraction.
fn erfc_cf(x: f64) -> f64 {
    // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for k in 1..500 {
        let a = k as f64 / 2.0;
        d = x + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / std::f64::consts::PI.sqrt() / f
}

/// cutechess's inverse error function (Winitzki's approximation). Used only for
/// the error bar, so that our numbers match cutechess's to the printed digit.
fn erf_inv_cutechess(x: f64) -> f64 {
    let pi = std::f64::consts::PI;
    let a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi));
    let y = (1.0 - x * x).ln();
    let z = 2.0 / (pi * a) + y / 2.0;
    let r = ((z * z - y / a).sqrt() - z).sqrt();
    if x < 0.0 {
        -r
    } else {
        r
    }
}

fn phi_inv_cutechess(p: f64) -> f64 {
    std::f64::consts::SQRT_2 * erf_inv_cutechess(2.0 * p - 1.0)
}

/// Win / loss / draw counts from one player's point of view.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl Wdl {
    pub fn new(wins: u32, losses: u32, draws: u32) -> Wdl {
        Wdl {
            wins,
            losses,
            draws,
        }
    }

    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Points scored (a draw is half a point).
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Score ratio in 0..=1 (NaN with no games).
    pub fn score(&self) -> f64 {
        self.points() / self.games() as f64
    }

    pub fn draw_ratio(&self) -> f64 {
        self.draws as f64 / self.games() as f64
    }

    /// Elo difference (cutechess `Elo::diff`): infinite at a 100 % or 0 % score.
    pub fn elo(&self) -> f64 {
        elo_from_score(self.score())
    }

    /// Standard deviation of the mean score per game (cutechess `m_stdev`).
    fn stdev(&self) -> f64 {
        let n = self.games() as f64;
        let (w, l, d) = (
            self.wins as f64 / n,
            self.losses as f64 / n,
            self.draws as f64 / n,
        );
        let mu = w + d / 2.0;
        let var = w * (1.0 - mu).powi(2) + l * mu.powi(2) + d * (0.5 - mu).powi(2);
        var.sqrt() / n.sqrt()
    }

    /// Half-width of the 95 % confidence interval of the Elo difference
    /// (cutechess `Elo::errorMargin`). Not finite (printed `n/a`) when it does not
    /// exist: no games, a zero variance (all draws, all wins or all losses), or an
    /// interval reaching a 0 % or 100 % score.
    pub fn error_margin(&self) -> f64 {
        let mu = self.score();
        let sd = self.stdev();
        if sd.is_nan() || sd <= 0.0 {
            return f64::NAN;
        }
        let lo = mu + phi_inv_cutechess(0.025) * sd;
        let hi = mu + phi_inv_cutechess(0.975) * sd;
        (elo_from_score(hi) - elo_from_score(lo)) / 2.0
    }

    /// Likelihood of superiority in percent (cutechess `Elo::LOS`); 50 % when no
    /// game was decisive (cutechess would divide 0 by 0).
    pub fn los(&self) -> f64 {
        let (w, l) = (self.wins as f64, self.losses as f64);
        if w + l == 0.0 {
            return 50.0;
        }
        100.0 * (0.5 + 0.5 * erf((w - l) / (2.0 * (w + l)).sqrt()))
    }

    /// The same counts from the opponent's side.
    pub fn flipped(&self) -> Wdl {
        Wdl::new(self.losses, self.wins, self.draws)
    }

    /// `Score of A vs B: W - L - D  [0.xxx] N` (cutechess).
    pub fn score_line(&self, a: &str, b: &str) -> String {
        format!(
            "Score of {a} vs {b}: {} - {} - {}  [{}] {}",
            self.wins,
            self.losses,
            self.draws,
            fmt_num(self.score(), 3),
            self.games()
        )
    }

    /// `Elo difference: X +/- Y, LOS: Z %, DrawRatio: D %` (cutechess). Where
    /// cutechess prints `inf`, `-inf` or `nan` (a 100 % or 0 % score, no decisive
    /// game, zero variance), the figure reads `n/a`.
    pub fn elo_line(&self) -> String {
        format!(
            "Elo difference: {} +/- {}, LOS: {} %, DrawRatio: {} %",
            fmt_num(self.elo(), 1),
            fmt_num(self.error_margin(), 1),
            fmt_num(self.los(), 1),
            fmt_num(self.draw_ratio() * 100.0, 1)
        )
    }
}

/// A figure with `decimals` decimals; `n/a` when it is not finite (an Elo
/// difference at a 0 % or 100 % score, an error bar without variance: where
/// cutechess and fastchess print `inf`, `-inf` or `nan`). Never prints `-0.0`.
pub fn fmt_num(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        "n/a".to_string()
    } else {
        // Adding 0.0 turns -0.0 into 0.0; also avoid printing "-0.0" for tiny
        // negatives that round to zero.
        let s = format!("{:.decimals$}", x + 0.0);
        if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
            s[1..].to_string()
        } else {
            s
        }
    }
}

/// Game-pair results: `counts[k]` is the number of pairs in which the player
/// scored `k / 2` points (k = 0: two losses, ..., k = 4: two wins).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    pub counts: [u32; 5],
    /// Pairs made of a win and a loss (part of `counts[2]`).
    pub win_loss: u32,
    /// Pairs made of two draws (part of `counts[2]`).
    pub draw_draw: u32,
}

impl Pentanomial {
    /// Adds one pair given the player's score in each game (1, 0.5 or 0).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let k = ((first + second) * 2.0).round() as usize;
        self.counts[k.min(4)] += 1;
        if k == 2 {
            if first == 0.5 {
                self.draw_draw += 1;
            } else {
                self.win_loss += 1;
            }
        }
    }

    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Mean score per game and the variance of the per-pair mean score.
    fn mean_var(counts: &[f64; 5]) -> (f64, f64) {
        let n: f64 = counts.iter().sum();
        let mu: f64 = counts
            .iter()
            .enumerate()
            .map(|(k, &c)| c * k as f64 / 4.0)
            .sum::<f64>()
            / n;
        let var: f64 = counts
            .iter()
            .enumerate()
            .map(|(k, &c)| c * (k as f64 / 4.0 - mu).powi(2))
            .sum::<f64>()
            / n;
        (mu, var)
    }

    fn as_f64(&self) -> [f64; 5] {
        self.counts.map(|c| c as f64)
    }

    pub fn score(&self) -> f64 {
        Self::mean_var(&self.as_f64()).0
    }

    pub fn elo(&self) -> f64 {
        elo_from_score(self.score())
    }

    /// Half-width of the 95 % confidence interval of the Elo difference, from the
    /// variance of the pair scores; not finite (printed `n/a`) when the variance is
    /// zero (e.g. a single pair) or the interval reaches a 0 % or 100 % score.
    pub fn error_margin(&self) -> f64 {
        let (mu, var) = Self::mean_var(&self.as_f64());
        if var.is_nan() || var <= 0.0 {
            return f64::NAN;
        }
        let sd = (var / self.pairs() as f64).sqrt();
        (elo_from_score(mu + Z95 * sd) - elo_from_score(mu - Z95 * sd)) / 2.0
    }

    /// `Ptnml(0-2): [LL, LD, WL+DD, WD, WW], WL/DD: a, b, Elo: X +/- Y (95 % CI, N pairs)`.
    pub fn line(&self) -> String {
        let c = self.counts;
        format!(
            "Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD: {}, {}, Elo: {} +/- {} (95% CI from {} pairs)",
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            self.win_loss,
            self.draw_draw,
            fmt_num(self.elo(), 2),
            fmt_num(self.error_margin(), 2),
            self.pairs()
        )
    }
}

/// The Elo scale of the SPRT bounds: logistic Elo (the default) or normalised Elo
/// (fishtest's and fastchess's default; Elo per standard deviation of the pair
/// score, see <https://www.cantate.be/Fishtest/normalized_elo_practical.pdf>).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SprtModel {
    Logistic,
    Normalized,
}

impl SprtModel {
    pub fn name(self) -> &'static str {
        match self {
            SprtModel::Logistic => "logistic",
            SprtModel::Normalized => "normalized",
        }
    }
}

/// SPRT parameters: H0 elo = `elo0`, H1 elo = `elo1` (in `model`'s Elo), error rates.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: SprtModel,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Continue,
    AcceptH0,
    AcceptH1,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Continue => "continue",
            Verdict::AcceptH0 => "H0 was accepted",
            Verdict::AcceptH1 => "H1 was accepted",
        })
    }
}

impl std::str::FromStr for Sprt {
    type Err = String;
    /// `elo0,elo1[,alpha,beta][,model]`; alpha and beta default to 0.05, the model
    /// (`logistic` or `normalized`) to logistic.
    fn from_str(s: &str) -> Result<Sprt, String> {
        let mut parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let bad =
            || format!("bad SPRT '{s}': expected elo0,elo1[,alpha,beta][,logistic|normalized]");
        let model = match parts.last().map(|p| p.to_ascii_lowercase()) {
            Some(m) if m == "logistic" => Some(SprtModel::Logistic),
            Some(m) if m == "normalized" || m == "normalised" => Some(SprtModel::Normalized),
            _ => None,
        };
        if model.is_some() {
            parts.pop();
        }
        if parts.len() != 2 && parts.len() != 4 {
            return Err(bad());
        }
        let nums: Vec<f64> = parts
            .iter()
            .map(|p| p.parse::<f64>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let sprt = Sprt {
            elo0: nums[0],
            elo1: nums[1],
            alpha: nums.get(2).copied().unwrap_or(0.05),
            beta: nums.get(3).copied().unwrap_or(0.05),
            model: model.unwrap_or(SprtModel::Logistic),
        };
        if !sprt.elo0.is_finite() || !sprt.elo1.is_finite() || sprt.elo0 >= sprt.elo1 {
            return Err(format!("bad SPRT '{s}': elo0 must be below elo1"));
        }
        if sprt.model == SprtModel::Logistic
            && (sprt.elo0.abs() >= 1000.0 || sprt.elo1.abs() >= 1000.0)
        {
            return Err(format!(
                "bad SPRT '{s}': the Elo bounds must lie within +/-1000"
            ));
        }
        let ok = |p: f64| p > 0.0 && p < 0.5;
        if !ok(sprt.alpha) || !ok(sprt.beta) {
            return Err(format!(
                "bad SPRT '{s}': alpha and beta must lie in (0, 0.5)"
            ));
        }
        Ok(sprt)
    }
}

/// `800 / ln 10`: normalised Elo per unit of the t-value (fishtest's `nelo_divided_by_nt`).
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The root of the secular equation `sum_i p_i a_i / (1 + x a_i) = 0` between
/// `-1/max(a)` and `-1/min(a)` (fishtest's `secular`), by bisection: the function
/// decreases from +inf to -inf there. `None` when the `a_i` do not straddle 0.
fn secular(a: &[f64; 5], p: &[f64; 5]) -> Option<f64> {
    let (mut v, mut w) = (f64::INFINITY, f64::NEG_INFINITY);
    for &x in a {
        v = v.min(x);
        w = w.max(x);
    }
    if v >= 0.0 || w <= 0.0 || !v.is_finite() || !w.is_finite() {
        return None;
    }
    let f = |x: f64| -> f64 {
        a.iter()
            .zip(p)
            .map(|(&ai, &pi)| pi * ai / (1.0 + x * ai))
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / w, -1.0 / v);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

fn mean_and_variance(a: &[f64; 5], p: &[f64; 5]) -> (f64, f64) {
    let mu: f64 = a.iter().zip(p).map(|(x, q)| x * q).sum();
    let var: f64 = a.iter().zip(p).map(|(x, q)| q * (x - mu) * (x - mu)).sum();
    (mu, var)
}

/// Pair scores of the pentanomial cells.
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// The maximum-likelihood distribution on the pair scores with expectation `s`,
/// given the empirical frequencies `phat` (fishtest's `MLE_expected`).
fn mle_expected(phat: &[f64; 5], s: f64) -> Option<[f64; 5]> {
    let shifted = PAIR_SCORES.map(|a| a - s);
    let x = secular(&shifted, phat)?;
    Some(std::array::from_fn(|i| phat[i] / (1.0 + x * shifted[i])))
}

/// The maximum-likelihood distribution with t-value `(mu - 1/2) / sigma` equal to
/// `t`, given `phat` (fishtest's `MLE_t_value`: at most 10 fixed-point steps from
/// the uniform distribution).
fn mle_t_value(phat: &[f64; 5], t: f64) -> Option<[f64; 5]> {
    let mut p = [0.2; 5];
    for _ in 0..10 {
        let (mu, var) = mean_and_variance(&PAIR_SCORES, &p);
        let sigma = var.sqrt();
        let phi: [f64; 5] = std::array::from_fn(|i| {
            let a = PAIR_SCORES[i];
            a - 0.5 - t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0
        });
        let x = secular(&phi, phat)?;
        let next: [f64; 5] = std::array::from_fn(|i| phat[i] / (1.0 + x * phi[i]));
        let diff = next
            .iter()
            .zip(&p)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        p = next;
        if diff < 1e-9 {
            break;
        }
    }
    Some(p)
}

impl Sprt {
    /// (lower, upper) LLR bounds: ln(beta / (1 - alpha)), ln((1 - beta) / alpha).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The generalised log-likelihood ratio of H1 against H0 on the game pairs,
    /// computed as fishtest's `LLR_logistic` / `LLR_normalized` (and fastchess's
    /// `getLLR`) do: empty cells count 1e-3 (so that the frequencies stay
    /// positive), the empirical distribution is projected by maximum likelihood
    /// onto each hypothesis (expected score `s0` / `s1`, or t-value for the
    /// normalised model), and the LLR is `N * sum phat_i ln(p1_i / p0_i)`. Unlike
    /// the Brownian approximation `N (s1 - s0)(2 mu - s0 - s1) / (2 var)`, this stays
    /// small after a few pairs even when their variance is near zero.
    pub fn llr(&self, ptnml: &Pentanomial) -> f64 {
        if ptnml.pairs() == 0 {
            return 0.0;
        }
        let counts = ptnml.as_f64().map(|c| if c == 0.0 { 1e-3 } else { c });
        let n: f64 = counts.iter().sum();
        let phat = counts.map(|c| c / n);
        let (p0, p1) = match self.model {
            SprtModel::Logistic => (
                mle_expected(&phat, score_from_elo(self.elo0)),
                mle_expected(&phat, score_from_elo(self.elo1)),
            ),
            SprtModel::Normalized => {
                // Pairs: the per-pair t-value is sqrt(2) times the per-game one.
                let t = |nelo: f64| std::f64::consts::SQRT_2 * nelo / NELO_PER_T;
                (
                    mle_t_value(&phat, t(self.elo0)),
                    mle_t_value(&phat, t(self.elo1)),
                )
            }
        };
        let (Some(p0), Some(p1)) = (p0, p1) else {
            return 0.0;
        };
        let llr: f64 = (0..5)
            .map(|i| phat[i] * (p1[i].ln() - p0[i].ln()))
            .sum::<f64>()
            * n;
        if llr.is_finite() {
            llr
        } else {
            0.0
        }
    }

    pub fn verdict(&self, llr: f64) -> Verdict {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            Verdict::AcceptH1
        } else if llr <= lo {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }

    /// `SPRT: llr 2.96 (100.6%), lbound -2.94, ubound 2.94 - H1 was accepted`
    /// (cutechess's line; the verdict part reads `continue` while undecided).
    pub fn line(&self, llr: f64) -> String {
        let (lo, hi) = self.bounds();
        format!(
            "SPRT: llr {:.2} ({:.1}%), lbound {:.2}, ubound {:.2} - {} [elo0 {}, elo1 {}, alpha {}, beta {}, {} Elo]",
            llr,
            llr / hi * 100.0,
            lo,
            hi,
            self.verdict(llr),
            self.elo0,
            self.elo1,
            self.alpha,
            self.beta,
            self.model.name()
        )
    }
}
