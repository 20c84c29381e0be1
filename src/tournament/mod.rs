//! `turncoat match`: refereed engine-vs-engine matches and tournaments.
//!
//! No existing tournament manager knows our variants, so Turncoat carries its own.
//! The pieces, one per file:
//! - [`config`]: `engines.toml` (engine definitions and match defaults);
//! - [`engine`]: a UCI engine as a child process, every wait with a deadline;
//! - [`referee`]: one game, judged by the same rules library as the engine;
//! - [`openings`]: start positions (file or seeded random walks);
//! - [`stats`]: Elo, LOS, error bars, pentanomial statistics, SPRT;
//! - [`pgn`]: PGN writer and reader;
//! - [`cli`]: the `match` subcommand (options, progress and result lines);
//! - [`fake`]: a scripted misbehaving engine for the tests.
//!
//! Determinism: the schedule fixes, for game `i`, its players, colours and opening
//! before any game starts, and results are reported in game order, so the match's
//! content does not depend on the concurrency.

pub mod cli;
pub mod config;
pub mod engine;
pub mod fake;
pub mod merge;
pub mod pgn;
pub mod referee;
pub mod stats;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::engine::openings::{self, OpeningSource};
use config::EngineConfig;
use referee::{Adjudication, EngineSlot, GameRecord, GameSettings, GameSpec, Limit};
use stats::{Pentanomial, Sprt, Verdict, Wdl};

use crate::rules::variants::VariantKind;

/// A fully resolved match: what the CLI and `engines.toml` together ask for.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    pub variant: VariantKind,
    /// Players, in order; with `gauntlet` the first plays all others.
    pub engines: Vec<EngineConfig>,
    pub gauntlet: bool,
    /// Games per encounter (per pair of engines); colours alternate in pairs.
    pub games: u32,
    pub limit: Limit,
    pub concurrency: usize,
    pub openings: OpeningSource,
    pub pgn: Option<PathBuf>,
    pub sprt: Option<Sprt>,
    pub time_margin: Duration,
    pub move_timeout: Duration,
    pub start_timeout: Duration,
    pub stop_grace: Duration,
    pub adjudication: Adjudication,
    /// PGN `Event`.
    pub event: String,
}

/// One scheduled game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    /// 1-based.
    pub number: usize,
    pub white: usize,
    pub black: usize,
    /// Index of the opening (= the round of game pairs).
    pub opening: usize,
    /// Index of the encounter (pair of engines) in [`pairings`].
    pub encounter: usize,
}

/// The encounters: round robin (every pair once) or gauntlet (engine 0 against
/// each other engine).
pub fn pairings(n_engines: usize, gauntlet: bool) -> Vec<(usize, usize)> {
    if gauntlet {
        (1..n_engines).map(|j| (0, j)).collect()
    } else {
        let mut v = Vec::new();
        for i in 0..n_engines {
            for j in i + 1..n_engines {
                v.push((i, j));
            }
        }
        v
    }
}

/// The full schedule: for each round r (a game pair, opening r) and each encounter
/// (a, b): a plays White in the first game, b in the second.
pub fn schedule(n_engines: usize, gauntlet: bool, games: u32) -> Vec<Scheduled> {
    let enc = pairings(n_engines, gauntlet);
    let mut out = Vec::new();
    let rounds = games.div_ceil(2) as usize;
    for r in 0..rounds {
        for (k, &(a, b)) in enc.iter().enumerate() {
            for g in 0..2 {
                if 2 * r + g >= games as usize {
                    break;
                }
                let (white, black) = if g == 0 { (a, b) } else { (b, a) };
                out.push(Scheduled {
                    number: out.len() + 1,
                    white,
                    black,
                    opening: r,
                    encounter: k,
                });
            }
        }
    }
    out
}

/// Running totals, updated in game order.
#[derive(Clone, Debug)]
pub struct Standings {
    pub names: Vec<String>,
    pub encounters: Vec<(usize, usize)>,
    /// Per encounter (a, b): a's results against b.
    pub wdl: Vec<Wdl>,
    /// Per encounter: a's game pairs against b.
    pub ptnml: Vec<Pentanomial>,
    /// Per encounter: a's points in the first game of the unfinished pair.
    pending_pair: Vec<Option<(usize, f64)>>,
    pub games_done: usize,
    pub games_total: usize,
}

impl Standings {
    fn new(names: Vec<String>, encounters: Vec<(usize, usize)>, games_total: usize) -> Self {
        let n = encounters.len();
        Standings {
            names,
            encounters,
            wdl: vec![Wdl::default(); n],
            ptnml: vec![Pentanomial::default(); n],
            pending_pair: vec![None; n],
            games_done: 0,
            games_total,
        }
    }

    fn add(&mut self, g: &Scheduled, rec: &GameRecord) {
        let k = g.encounter;
        let a = self.encounters[k].0;
        let p = rec.points_of(a);
        let w = &mut self.wdl[k];
        if p == 1.0 {
            w.wins += 1;
        } else if p == 0.0 {
            w.losses += 1;
        } else {
            w.draws += 1;
        }
        match self.pending_pair[k].take() {
            Some((opening, first)) if opening == g.opening => self.ptnml[k].add_pair(first, p),
            _ => self.pending_pair[k] = Some((g.opening, p)),
        }
        self.games_done += 1;
    }

    /// Engine `i`'s total results against everyone.
    pub fn total(&self, i: usize) -> Wdl {
        let mut t = Wdl::default();
        for (k, &(a, b)) in self.encounters.iter().enumerate() {
            let w = if a == i {
                self.wdl[k]
            } else if b == i {
                self.wdl[k].flipped()
            } else {
                continue;
            };
            t.wins += w.wins;
            t.losses += w.losses;
            t.draws += w.draws;
        }
        t
    }

    /// Engine `i`'s results against engine `j` (`None` if they do not meet).
    pub fn head_to_head(&self, i: usize, j: usize) -> Option<Wdl> {
        self.encounters.iter().enumerate().find_map(|(k, &(a, b))| {
            if (a, b) == (i, j) {
                Some(self.wdl[k])
            } else if (a, b) == (j, i) {
                Some(self.wdl[k].flipped())
            } else {
                None
            }
        })
    }
}

/// The outcome of a match.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// Finished games in game order (all scheduled games unless SPRT stopped early).
    pub games: Vec<GameRecord>,
    pub standings: Standings,
    /// The SPRT and its final LLR, when one was run (two engines only).
    pub sprt: Option<(Sprt, f64)>,
}

/// Reports progress: called once per game, in game order.
pub trait Progress {
    fn game_finished(&mut self, record: &GameRecord, standings: &Standings);
}

impl<F: FnMut(&GameRecord, &Standings)> Progress for F {
    fn game_finished(&mut self, record: &GameRecord, standings: &Standings) {
        self(record, standings)
    }
}

/// Checks that each engine starts, answers the handshake and offers the variant.
pub fn preflight(spec: &MatchSpec) -> Result<(), String> {
    for cfg in &spec.engines {
        let mut e = engine::Engine::start(cfg, spec.start_timeout)?;
        e.configure(spec.variant, &cfg.options, spec.start_timeout)?;
        log::info!(
            "engine '{}' ready ({})",
            cfg.name,
            e.id_name.as_deref().unwrap_or("no id name")
        );
    }
    Ok(())
}

/// Plays the whole match. `pgn_out` receives each game's PGN text in game order.
pub fn run_match(
    spec: &MatchSpec,
    progress: &mut dyn Progress,
    pgn_out: &mut dyn FnMut(&GameRecord) -> Result<(), String>,
) -> Result<MatchReport, String> {
    if spec.engines.len() < 2 {
        return Err("a match needs at least two engines".to_string());
    }
    if spec.sprt.is_some() && spec.engines.len() != 2 {
        return Err("--sprt needs exactly two engines".to_string());
    }
    if spec.games == 0 {
        return Err("the number of games must be positive".to_string());
    }
    let sched = schedule(spec.engines.len(), spec.gauntlet, spec.games);
    let rounds = sched.iter().map(|g| g.opening + 1).max().unwrap_or(0);
    let openings = openings::openings(spec.variant, &spec.openings, rounds)?;
    preflight(spec)?;

    let settings = GameSettings {
        variant: spec.variant,
        limit: spec.limit,
        time_margin: spec.time_margin,
        move_timeout: spec.move_timeout,
        start_timeout: spec.start_timeout,
        stop_grace: spec.stop_grace,
        adjudication: spec.adjudication,
    };
    let names: Vec<String> = spec.engines.iter().map(|e| e.name.clone()).collect();
    let mut standings = Standings::new(
        names,
        pairings(spec.engines.len(), spec.gauntlet),
        sched.len(),
    );
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let workers = spec.concurrency.clamp(1, sched.len().max(1));
    let mut games = Vec::with_capacity(sched.len());
    let mut sprt_state = spec.sprt.map(|s| (s, 0.0));
    let mut error: Option<String> = None;

    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Option<GameRecord>)>();
        for _ in 0..workers {
            let tx = tx.clone();
            let (sched, openings, settings, next, stop) =
                (&sched, &openings, &settings, &next, &stop);
            let engines = &spec.engines;
            scope.spawn(move || {
                let mut slots: Vec<EngineSlot> =
                    engines.iter().cloned().map(EngineSlot::new).collect();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(g) = sched.get(i) else { break };
                    let (w, b) = pair_mut(&mut slots, g.white, g.black);
                    let game = GameSpec {
                        number: g.number,
                        white: g.white,
                        black: g.black,
                        start_fen: &openings[g.opening],
                    };
                    let rec = referee::play_game(&game, w, b, settings, stop);
                    if tx.send((i, rec)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);

        let mut pending: BTreeMap<usize, Option<GameRecord>> = BTreeMap::new();
        let mut next_report = 0;
        for (i, rec) in rx {
            pending.insert(i, rec);
            while let Some(rec) = pending.remove(&next_report) {
                let g = sched[next_report];
                next_report += 1;
                if stop.load(Ordering::Relaxed) {
                    continue;
                }
                let Some(rec) = rec else { continue };
                standings.add(&g, &rec);
                if let Err(e) = pgn_out(&rec) {
                    error.get_or_insert(e);
                    stop.store(true, Ordering::Relaxed);
                }
                progress.game_finished(&rec, &standings);
                games.push(rec);
                if let Some((sprt, llr)) = sprt_state.as_mut() {
                    *llr = sprt.llr(&standings.ptnml[0]);
                    if sprt.verdict(*llr) != Verdict::Continue {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    Ok(MatchReport {
        games,
        standings,
        sprt: sprt_state,
    })
}

/// Two distinct mutable elements of a slice.
fn pair_mut<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "an engine cannot play itself");
    if a < b {
        let (l, r) = v.split_at_mut(b);
        (&mut l[a], &mut r[0])
    } else {
        let (l, r) = v.split_at_mut(a);
        (&mut r[0], &mut l[b])
    }
}
