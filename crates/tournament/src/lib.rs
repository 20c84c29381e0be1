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
//!
//! Determinism: the schedule fixes, for game `i`, its players, colours and opening
//! before any game starts, and results are reported in game order, so the match's
//! content does not depend on the concurrency.

pub mod cli;
pub mod config;
pub mod engine;
pub mod merge;
pub mod pgn;
pub mod referee;
pub mod resume;
pub mod stats;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use config::EngineConfig;
use referee::{Adjudication, EngineSlot, GameRecord, GameSettings, GameSpec, Limit};
use stats::{Pentanomial, Sprt, Verdict, Wdl};
use turncoat_engine::openings::{self, OpeningSource};

use turncoat_rules::variants::VariantKind;

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
    /// Play only this part of the match (see [`Shard`]).
    pub shard: Option<Shard>,
}

impl MatchSpec {
    /// The limit engine `index` plays with: its own, or the match's.
    pub fn limit_of(&self, index: usize) -> Limit {
        self.engines
            .get(index)
            .and_then(|e| e.limit)
            .unwrap_or(self.limit)
    }

    /// The match's limit for messages and the PGN `Event`, with the engines
    /// that have their own: `nodes 10000`, `nodes 10000, Weak nodes 2500`.
    pub fn describe_limits(&self) -> String {
        let mut s = self.limit.describe();
        for e in &self.engines {
            if let Some(limit) = e.limit {
                s.push_str(&format!(", {} {}", e.name, limit.describe()));
            }
        }
        s
    }
}

/// `--shard I/N`: of the match's game pairs `p = 0, 1, ...` (see [`pair_index`]),
/// play those with `p mod N = I - 1`. Game numbers, colours and openings stay
/// those of the whole match, so the N parts' PGNs merge into it.
pub use turncoat_engine::shard::Shard;

/// The game pair a scheduled game belongs to: pairs are numbered in schedule
/// order, round by round and, within a round, encounter by encounter.
pub fn pair_index(g: &Scheduled, encounters: usize) -> usize {
    g.opening * encounters + g.encounter
}

/// The games of `spec` this run plays: the whole schedule, or its shard.
pub fn planned_games(spec: &MatchSpec) -> Vec<Scheduled> {
    let sched = schedule(spec.engines.len(), spec.gauntlet, spec.games);
    match spec.shard {
        None => sched,
        Some(sh) => {
            let enc = pairings(spec.engines.len(), spec.gauntlet).len();
            sched
                .into_iter()
                .filter(|g| sh.includes(pair_index(g, enc) as u64))
                .collect()
        }
    }
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
    /// The match was interrupted (SIGINT / SIGTERM): `games` are those finished
    /// and reported before it.
    pub interrupted: bool,
    /// How many of `games` were played by an earlier run (`--resume`).
    pub resumed: usize,
}

/// Reports progress: called once per game, in game order.
pub trait Progress {
    fn game_finished(&mut self, record: &GameRecord, standings: &Standings);

    /// `done` of `total` openings are ready (called as they come in).
    fn openings_progress(&mut self, _done: usize, _total: usize) {}

    /// A game has started; `started` games of this run (of `to_play`) so far.
    fn game_started(
        &mut self,
        _game: &Scheduled,
        _names: &[String],
        _started: usize,
        _to_play: usize,
    ) {
    }
}

impl<F: FnMut(&GameRecord, &Standings)> Progress for F {
    fn game_finished(&mut self, record: &GameRecord, standings: &Standings) {
        self(record, standings)
    }
}

/// What a worker thread tells the reporting thread.
enum WorkerEvent {
    Started(usize),
    Finished(usize, Option<GameRecord>),
}

/// Checks that each engine starts, answers the handshake and offers the variant.
pub fn preflight(spec: &MatchSpec) -> Result<(), String> {
    for cfg in &spec.engines {
        let mut e = engine::EngineProcess::start(cfg, spec.start_timeout)?;
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
    run_match_from(spec, Vec::new(), progress, pgn_out)
}

/// Plays the match (or its shard) after the games `done`, which an earlier run
/// played and which must be the first games of [`planned_games`] in order
/// (`--resume`). They count in the standings and the report but are neither
/// replayed nor passed to `pgn_out`.
pub fn run_match_from(
    spec: &MatchSpec,
    done: Vec<GameRecord>,
    progress: &mut dyn Progress,
    pgn_out: &mut dyn FnMut(&GameRecord) -> Result<(), String>,
) -> Result<MatchReport, String> {
    if spec.engines.len() < 2 {
        return Err("a match needs at least two engines".to_string());
    }
    if spec.sprt.is_some() && spec.engines.len() != 2 {
        return Err("--sprt needs exactly two engines".to_string());
    }
    if spec.sprt.is_some() && spec.shard.is_some() {
        return Err(
            "--sprt cannot be combined with --shard: a shard sees only part of the games; \
             run the shards without --sprt and merge them"
                .to_string(),
        );
    }
    if spec.games == 0 {
        return Err("the number of games must be positive".to_string());
    }
    spec.limit.validate()?;
    for e in &spec.engines {
        if let Some(limit) = e.limit {
            limit
                .validate()
                .map_err(|msg| format!("engine '{}': {msg}", e.name))?;
        }
    }
    let sched = planned_games(spec);
    if done.len() > sched.len() {
        return Err(format!(
            "cannot resume: {} games were already played, but this match has only {}",
            done.len(),
            sched.len()
        ));
    }
    for (rec, g) in done.iter().zip(&sched) {
        if rec.number != g.number || rec.white != g.white || rec.black != g.black {
            return Err(format!(
                "cannot resume: game {} was {} vs {}, but this match schedules game {} as {} vs {} \
                 (different engines, games or shard?)",
                rec.number,
                rec.white_name,
                rec.black_name,
                g.number,
                spec.engines[g.white].name,
                spec.engines[g.black].name
            ));
        }
    }

    let names: Vec<String> = spec.engines.iter().map(|e| e.name.clone()).collect();
    let mut standings = Standings::new(
        names.clone(),
        pairings(spec.engines.len(), spec.gauntlet),
        sched.len(),
    );
    let mut sprt_state = spec.sprt.map(|s| (s, 0.0));
    let resumed = done.len();
    let mut games = Vec::with_capacity(sched.len());
    let mut decided = false;
    for (rec, g) in done.into_iter().zip(&sched) {
        standings.add(g, &rec);
        games.push(rec);
        if let Some((sprt, llr)) = sprt_state.as_mut() {
            *llr = sprt.llr(&standings.ptnml[0]);
            decided = sprt.verdict(*llr) != Verdict::Continue;
        }
    }
    let todo: Vec<Scheduled> = if decided {
        Vec::new()
    } else {
        sched[resumed..].to_vec()
    };

    // The engines first (a quick check), then the openings (which may take
    // minutes): a bad engine or option is reported at once.
    if !todo.is_empty() {
        preflight(spec)?;
    }
    let mut wanted: Vec<usize> = todo.iter().map(|g| g.opening).collect();
    wanted.dedup();
    let openings = openings::openings_at(
        spec.variant,
        &spec.openings,
        &wanted,
        spec.concurrency,
        &mut |k, n| progress.openings_progress(k, n),
        &engine::interrupted,
    )?;

    let settings = GameSettings {
        variant: spec.variant,
        limit: spec.limit,
        time_margin: spec.time_margin,
        move_timeout: spec.move_timeout,
        start_timeout: spec.start_timeout,
        stop_grace: spec.stop_grace,
        adjudication: spec.adjudication,
    };
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let workers = spec.concurrency.clamp(1, todo.len().max(1));
    let mut error: Option<String> = None;
    let mut started = 0;

    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<WorkerEvent>();
        for _ in 0..workers {
            let tx = tx.clone();
            let (todo, openings, settings, next, stop) =
                (&todo, &openings, &settings, &next, &stop);
            let engines = &spec.engines;
            scope.spawn(move || {
                let mut slots: Vec<EngineSlot> =
                    engines.iter().cloned().map(EngineSlot::new).collect();
                loop {
                    if stop.load(Ordering::Relaxed) || engine::interrupted() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(g) = todo.get(i) else { break };
                    let Some(start_fen) = openings.get(&g.opening) else {
                        break;
                    };
                    if tx.send(WorkerEvent::Started(i)).is_err() {
                        break;
                    }
                    let (w, b) = pair_mut(&mut slots, g.white, g.black);
                    let game = GameSpec {
                        number: g.number,
                        white: g.white,
                        black: g.black,
                        start_fen,
                    };
                    let rec = referee::play_game(&game, w, b, settings, stop);
                    if tx.send(WorkerEvent::Finished(i, rec)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);

        let mut pending: BTreeMap<usize, Option<GameRecord>> = BTreeMap::new();
        let mut next_report = 0;
        for event in rx {
            let (i, rec) = match event {
                WorkerEvent::Started(i) => {
                    started += 1;
                    if !stop.load(Ordering::Relaxed) && !engine::interrupted() {
                        progress.game_started(&todo[i], &names, started, todo.len());
                    }
                    continue;
                }
                WorkerEvent::Finished(i, rec) => (i, rec),
            };
            pending.insert(i, rec);
            while let Some(rec) = pending.remove(&next_report) {
                let g = todo[next_report];
                next_report += 1;
                // After an interruption the engines were killed: games ending
                // now did not end on the board.
                if stop.load(Ordering::Relaxed) || engine::interrupted() {
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
        interrupted: engine::interrupted(),
        resumed,
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
