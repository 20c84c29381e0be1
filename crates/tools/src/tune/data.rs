//! Training positions for the tuner: our own standard-chess games replayed from
//! PGN, each position made quiet and labelled with the game's result.
//!
//! The evaluation is only meaningful where no capture is pending, so each
//! position is replaced by the leaf of its quiescence principal variation (a
//! small capture-only search here, not the engine's, so the data does not depend
//! on search internals or limits).

use std::path::Path;

use turncoat_engine::eval::{self, Weights, S};
use turncoat_engine::policy::Policy;
use turncoat_engine::search::see;
use turncoat_rules::fen;
use turncoat_rules::game::{self, Game};
use turncoat_rules::moves::{Move, MoveList};
use turncoat_rules::pgn::{self, PgnGame};
use turncoat_rules::position::Position;
use turncoat_rules::variants::chess::Chess;
use turncoat_rules::variants::Variant;

/// How positions are chosen from the games.
#[derive(Clone, Debug)]
pub struct Selection {
    /// Positions before this ply of the game (counted from the standard start
    /// through the FEN move counter, so random opening plies count) are dropped.
    pub skip_plies: u64,
}

/// Many positions as sparse linear traces, stored flat (a million positions
/// fit in well under 200 MB).
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    /// `coeffs[starts[i]..starts[i + 1]]` are position `i`'s (parameter, count).
    pub starts: Vec<u32>,
    pub coeffs: Vec<(u16, i16)>,
    pub fixed: Vec<S>,
    pub phase: Vec<u8>,
    /// +1 when White is to move, -1 otherwise (the tempo bonus's sign).
    pub stm: Vec<i8>,
    /// Game result from White's view: 1, 0.5 or 0.
    pub result: Vec<f32>,
    /// The engine's search score of the position from its PGN move comment,
    /// centipawns from White's view (`NaN` when there is none); mates count as
    /// +-10000.
    pub score: Vec<f32>,
    /// What the fit predicts: the result, or a blend with the search score
    /// ([`Dataset::blend`]).
    pub target: Vec<f32>,
}

/// Counts of what the loader kept and skipped, for the report.
#[derive(Clone, Debug, Default)]
pub struct LoadStats {
    pub games: usize,
    pub games_skipped: usize,
    pub positions: usize,
    pub skipped_opening: usize,
    pub skipped_check: usize,
    pub skipped_noisy_leaf: usize,
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.result.len()
    }

    pub fn is_empty(&self) -> bool {
        self.result.is_empty()
    }

    /// Position `i`'s (parameter, count) pairs.
    pub fn coeffs_of(&self, i: usize) -> &[(u16, i16)] {
        &self.coeffs[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Replaces the targets by `lambda * result + (1 - lambda) * sigmoid(k *
    /// score / 400)` where a score is known: the game result alone is a noisy
    /// label for a position (one blunder decides it), the search score a
    /// smoother one.
    pub fn blend(&mut self, lambda: f64, k: f64) {
        for i in 0..self.len() {
            let score = self.score[i] as f64;
            let result = self.result[i] as f64;
            self.target[i] = if score.is_nan() {
                result
            } else {
                lambda * result + (1.0 - lambda) * super::fit::sigmoid(k * score / 400.0)
            } as f32;
        }
    }

    pub fn push(
        &mut self,
        t: &eval::EvalTrace,
        result: f32,
        score: Option<f32>,
    ) -> Result<(), String> {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        for &(p, c) in &t.coeffs {
            let p = u16::try_from(p).map_err(|_| format!("parameter index {p} too large"))?;
            let c = i16::try_from(c).map_err(|_| format!("coefficient {c} too large"))?;
            self.coeffs.push((p, c));
        }
        let end = u32::try_from(self.coeffs.len()).map_err(|_| "too many positions")?;
        self.starts.push(end);
        self.fixed.push(t.fixed);
        self.phase.push(t.phase as u8);
        self.stm.push(if t.white_to_move { 1 } else { -1 });
        self.result.push(result);
        self.score.push(score.unwrap_or(f32::NAN));
        self.target.push(result);
        Ok(())
    }
}

/// Reads every game of every file into one dataset.
pub fn load(
    files: &[impl AsRef<Path>],
    sel: &Selection,
    w: &Weights,
) -> Result<(Dataset, LoadStats), String> {
    let mut data = Dataset::default();
    let mut stats = LoadStats::default();
    for file in files {
        let path = file.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let games = pgn::read_pgn(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for (n, g) in games.iter().enumerate() {
            add_game(g, sel, w, &mut data, &mut stats)
                .map_err(|e| format!("{}: game {}: {e}", path.display(), n + 1))?;
        }
    }
    Ok((data, stats))
}

/// White's score of a PGN result marker; `None` for an unfinished game.
fn result_value(result: &str) -> Option<f32> {
    match result {
        "1-0" => Some(1.0),
        "0-1" => Some(0.0),
        "1/2-1/2" => Some(0.5),
        _ => None,
    }
}

fn add_game(
    g: &PgnGame,
    sel: &Selection,
    w: &Weights,
    data: &mut Dataset,
    stats: &mut LoadStats,
) -> Result<(), String> {
    let variant = g.tag("Variant").unwrap_or("chess").to_ascii_lowercase();
    if variant != "chess" && variant != "standard" {
        return Err(format!(
            "variant '{variant}': the tuner reads standard chess games only"
        ));
    }
    // A game lost on time or by a crash says nothing about its positions.
    let decided_on_board = matches!(
        g.tag("Termination"),
        None | Some("normal") | Some("adjudication")
    );
    let result = match result_value(&g.result) {
        Some(r) if decided_on_board => r,
        _ => {
            stats.games_skipped += 1;
            return Ok(());
        }
    };
    let replayed = pgn::replay(g)?;
    let start: Position<Chess> = match g.tag("FEN") {
        Some(f) => fen::parse(f)?,
        None => Position::startpos(),
    };
    stats.games += 1;
    let mut game = Game::new(start);
    let mut ply = 2 * (start.fullmoves().max(1) - 1) + u64::from(start.turn().is_black());
    for (i, token) in replayed
        .tokens
        .iter()
        .map(Some)
        .chain(std::iter::once(None))
        .enumerate()
    {
        if ply < sel.skip_plies {
            stats.skipped_opening += 1;
        } else if Chess::in_check(&game.pos) {
            stats.skipped_check += 1;
        } else {
            match quiet_leaf(&game.pos) {
                Some(leaf) => {
                    let score = g
                        .comments
                        .get(i)
                        .and_then(|c| c.as_deref())
                        .and_then(comment_score)
                        .map(|s| if game.pos.turn().is_white() { s } else { -s });
                    data.push(&eval::trace(&leaf, w), result, score)?;
                    stats.positions += 1;
                }
                None => stats.skipped_noisy_leaf += 1,
            }
        }
        if let Some(t) = token {
            game.play_token(t)?;
            ply += 1;
        }
    }
    Ok(())
}

/// The score of a `turncoat match` move comment (`+0.25/12 0.153s`, `-M3/20
/// 0.010s`), centipawns from the mover's view.
pub fn comment_score(comment: &str) -> Option<f32> {
    let score = comment.split('/').next()?;
    let (sign, rest) = match score.as_bytes().first()? {
        b'+' => (1.0, &score[1..]),
        b'-' => (-1.0, &score[1..]),
        _ => (1.0, score),
    };
    if let Some(mate) = rest.strip_prefix('M') {
        mate.parse::<u32>().ok()?;
        return Some(sign * 10_000.0);
    }
    let pawns: f32 = rest.parse().ok()?;
    pawns.is_finite().then_some(sign * pawns * 100.0)
}

/// Longest quiescence line followed (a safety net; SEE-pruned captures end far
/// sooner).
const MAX_QPLY: usize = 24;

/// The position at the end of `pos`'s quiescence principal variation, or `None`
/// when that leaf is in check (its static evaluation would be meaningless).
pub fn quiet_leaf(pos: &Position<Chess>) -> Option<Position<Chess>> {
    let mut pv = Vec::new();
    qsearch(
        pos,
        -turncoat_engine::search::INF,
        turncoat_engine::search::INF,
        0,
        &mut pv,
    );
    let mut leaf = *pos;
    for mv in pv {
        game::play(&mut leaf, mv);
    }
    (!Chess::in_check(&leaf)).then_some(leaf)
}

/// Captures and promotions that do not lose material (SEE), best victim first;
/// stand pat on the static evaluation. Fills `pv` with the best line.
fn qsearch(
    pos: &Position<Chess>,
    mut alpha: i32,
    beta: i32,
    qply: usize,
    pv: &mut Vec<Move>,
) -> i32 {
    pv.clear();
    let stand_pat = eval::evaluate(pos, true);
    if stand_pat >= beta || qply >= MAX_QPLY {
        return stand_pat;
    }
    alpha = alpha.max(stand_pat);
    let mut best = stand_pat;
    let mut moves = MoveList::new();
    Chess::noisy_moves(pos, &mut moves);
    let mut ordered: Vec<(i32, Move)> = moves
        .iter()
        .map(|&m| (Chess::gain_estimate(pos, m), m))
        .collect();
    ordered.sort_by_key(|&(gain, _)| std::cmp::Reverse(gain));
    let mut child_pv = Vec::new();
    for (_, mv) in ordered {
        if !see::see_ge(pos, mv, 0) {
            continue;
        }
        let mut child = *pos;
        game::play(&mut child, mv);
        let score = -qsearch(&child, -beta, -alpha, qply + 1, &mut child_pv);
        if score > best {
            best = score;
            if score > alpha {
                alpha = score;
                pv.clear();
                pv.push(mv);
                pv.extend_from_slice(&child_pv);
                if score >= beta {
                    break;
                }
            }
        }
    }
    best
}
