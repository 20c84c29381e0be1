//! The `match` subcommand: command-line options over `engines.toml`, a progress
//! line per game on stderr, and the result lines (cutechess / fastchess formats)
//! on stdout at the end.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;

use super::config::Config;
use super::pgn::{self, PgnContext};
use super::referee::{GameRecord, Limit};
use super::resume::{record_from_pgn, state_path, MatchState, PgnFile};
use super::stats::{fmt_num, Sprt};
use super::{MatchReport, MatchSpec, Standings};
use turncoat_engine::openings::OpeningSource;
use turncoat_rules::variants::VariantKind;

/// Options of `turncoat match`; each overrides the `[match]` table of the config.
#[derive(Args, Debug, Clone, Default)]
#[command(after_help = "\
Defaults: each option not given comes from the [match] table of the config
(./engines.toml unless --config), and failing that: every engine of the config,
variant chess, 10 games, tc 10+0.1, concurrency 1, the variant's start position
(no random plies), a time-based seed (printed), no PGN, no SPRT, round robin.
The shipped engines.toml sets its own [match] (Cowardly Crew, Turncoat's network
against its hand-written evaluation, 20000 nodes, 30 games, concurrency 2, 8 random
plies, seed 1, target/match.pgn): `turncoat match` with no option plays that.

Examples:
  turncoat match
  turncoat match --variant subversion --nodes 20000 --games 2000 --sprt 0,10
  turncoat match --config benches/strength.toml
  turncoat match --nodes 2000 --games 2000 --seed 7 --shard 1/4 --pgn s1.pgn")]
pub struct MatchArgs {
    /// Engine configuration file.
    #[arg(long, default_value = "engines.toml")]
    pub config: PathBuf,
    /// Engines to play (names from the config), comma-separated; default: the
    /// config's `[match] engines`, else every engine it defines.
    #[arg(long, value_delimiter = ',')]
    pub engines: Option<Vec<String>>,
    /// Variant (a `UCI_Variant` name).
    #[arg(long)]
    pub variant: Option<VariantKind>,
    /// Games per pair of engines (played in colour-swapped pairs).
    #[arg(long)]
    pub games: Option<u32>,
    /// Time control `[moves/]seconds[+increment]`, e.g. 10+0.1.
    #[arg(long, group = "limit")]
    pub tc: Option<String>,
    /// Fixed time per move in milliseconds.
    #[arg(long, group = "limit")]
    pub movetime: Option<u64>,
    /// Fixed nodes per move.
    #[arg(long, group = "limit")]
    pub nodes: Option<u64>,
    /// Fixed depth per move.
    #[arg(long, group = "limit")]
    pub depth: Option<u32>,
    /// Games played at the same time.
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// EPD/FEN file with opening positions, used in order.
    #[arg(long, conflicts_with = "random_plies")]
    pub openings: Option<PathBuf>,
    /// Random-walk openings of K plies from the start position.
    #[arg(long)]
    pub random_plies: Option<u32>,
    /// Seed of the random openings (default: the config's, else time-based).
    #[arg(long)]
    pub seed: Option<u64>,
    /// PGN output file (overwritten, unless it holds the games of an unfinished
    /// match: continue that one with --resume).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Write no PGN.
    #[arg(long, conflicts_with = "pgn")]
    pub no_pgn: bool,
    /// SPRT: elo0,elo1[,alpha,beta][,normalized] (logistic Elo unless normalized;
    /// alpha = beta = 0.05 by default).
    // The brackets are the help text's notation for optional parts, not links.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long)]
    pub sprt: Option<String>,
    /// With more than two engines: the first plays every other (else round robin).
    #[arg(long)]
    pub gauntlet: bool,
    /// Continue an interrupted match from the games its PGN holds (same options;
    /// the seed comes from `<pgn>.state` when not given).
    #[arg(long)]
    pub resume: bool,
    /// Play only part I of N of the match: its game pairs p with p mod N = I-1
    /// (merge the N PGNs with `turncoat match-merge`).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
}

const DEFAULT_GAMES: u32 = 10;
const DEFAULT_TIME_MARGIN_MS: u64 = 100;
const DEFAULT_MOVE_TIMEOUT_MS: u64 = 60_000;
const DEFAULT_START_TIMEOUT_MS: u64 = 10_000;
const STOP_GRACE: Duration = Duration::from_millis(1000);

/// Merges the command line over the config file.
pub fn resolve(args: &MatchArgs) -> Result<(MatchSpec, Config), String> {
    resolve_seeded(args).map(|(spec, config, _)| (spec, config))
}

/// [`resolve`], also telling whether the seed came from the clock (none given).
fn resolve_seeded(args: &MatchArgs) -> Result<(MatchSpec, Config, bool), String> {
    let config = Config::load(&args.config)?;
    let d = &config.defaults;
    let names: Vec<String> = match (&args.engines, &d.engines) {
        (Some(n), _) => n.iter().map(|s| s.trim().to_string()).collect(),
        (None, Some(n)) => n.clone(),
        (None, None) => config.engines.iter().map(|e| e.name.clone()).collect(),
    };
    let mut engines = Vec::new();
    for name in &names {
        let e = config.engine(name).ok_or_else(|| {
            format!(
                "unknown engine '{name}': {} defines {}",
                config.path.display(),
                if config.engines.is_empty() {
                    "no engine".to_string()
                } else {
                    config.engine_names()
                }
            )
        })?;
        if engines
            .iter()
            .any(|x: &super::config::EngineConfig| &x.name == name)
        {
            return Err(format!("engine '{name}' is listed twice"));
        }
        engines.push(e.clone());
    }
    if engines.len() < 2 {
        return Err(format!(
            "a match needs at least two engines, got {} (from {})",
            engines.len(),
            if args.engines.is_some() {
                "--engines".to_string()
            } else {
                config.path.display().to_string()
            }
        ));
    }
    let limit = if let Some(tc) = &args.tc {
        tc.parse::<Limit>()?
    } else if let Some(ms) = args.movetime {
        Limit::MoveTime(ms)
    } else if let Some(n) = args.nodes {
        Limit::Nodes(n)
    } else if let Some(dp) = args.depth {
        Limit::Depth(dp)
    } else {
        d.limit.unwrap_or(Limit::Clock {
            moves: None,
            base_ms: 10_000,
            inc_ms: 100,
        })
    };
    limit.validate()?;
    let seed_from_clock = args.seed.or(d.seed).is_none();
    let seed = args.seed.or(d.seed).unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|t| t.as_nanos() as u64)
            .unwrap_or(1)
    });
    let openings = if let Some(f) = &args.openings {
        OpeningSource::File(f.clone())
    } else if let Some(k) = args.random_plies {
        OpeningSource::Random { plies: k, seed }
    } else {
        match (&d.openings, d.random_plies) {
            (Some(_), Some(_)) => {
                return Err(format!(
                    "{}: [match] gives both openings and random_plies; keep one",
                    config.path.display()
                ))
            }
            (Some(f), None) => OpeningSource::File(f.clone()),
            (None, Some(k)) => OpeningSource::Random { plies: k, seed },
            (None, None) => OpeningSource::StartPosition,
        }
    };
    let sprt = match &args.sprt {
        Some(s) => Some(s.parse::<Sprt>()?),
        None => d.sprt,
    };
    let concurrency = args.concurrency.or(d.concurrency).unwrap_or(1);
    if concurrency == 0 {
        return Err("--concurrency must be at least 1".to_string());
    }
    let games = args.games.or(d.games).unwrap_or(DEFAULT_GAMES);
    if games == 0 {
        return Err("--games must be at least 1".to_string());
    }
    let variant = args.variant.or(d.variant).unwrap_or(VariantKind::Chess);
    let pgn = if args.no_pgn {
        None
    } else {
        args.pgn.clone().or_else(|| d.pgn.clone())
    };
    let shard = match &args.shard {
        Some(s) => Some(s.parse::<super::Shard>()?),
        None => None,
    };
    if args.resume && pgn.is_none() {
        return Err("--resume needs the match's PGN file (--pgn, or pgn in [match])".to_string());
    }
    let mut spec = MatchSpec {
        variant,
        engines,
        gauntlet: args.gauntlet || d.gauntlet.unwrap_or(false),
        games,
        limit,
        concurrency,
        openings,
        pgn,
        sprt,
        time_margin: Duration::from_millis(d.time_margin_ms.unwrap_or(DEFAULT_TIME_MARGIN_MS)),
        move_timeout: Duration::from_millis(d.move_timeout_ms.unwrap_or(DEFAULT_MOVE_TIMEOUT_MS)),
        start_timeout: Duration::from_millis(
            d.start_timeout_ms.unwrap_or(DEFAULT_START_TIMEOUT_MS),
        ),
        stop_grace: STOP_GRACE,
        adjudication: d.adjudication,
        event: String::new(),
        shard,
    };
    spec.event = format!("Turncoat match ({variant}, {})", spec.describe_limits());
    Ok((spec, config, seed_from_clock))
}

/// The one-line description of a game's end: `1-0 {White wins by checkmate}`.
fn game_line(rec: &GameRecord) -> String {
    format!(
        "Finished game {} ({} vs {}): {} {{{}}}",
        rec.number,
        rec.white_name,
        rec.black_name,
        rec.result.pgn(),
        rec.reason
    )
}

/// The progress line printed on stderr after each game.
pub fn progress_line(rec: &GameRecord, st: &Standings) -> String {
    let head = format!("[{}/{}] {}", st.games_done, st.games_total, game_line(rec));
    if st.names.len() == 2 {
        let w = st.wdl[0];
        format!(
            "{head} | {} {} - {} - {} [{}] Elo {} +/- {}",
            st.names[0],
            w.wins,
            w.losses,
            w.draws,
            fmt_num(w.score(), 3),
            fmt_num(w.elo(), 1),
            fmt_num(w.error_margin(), 1)
        )
    } else {
        let scores: Vec<String> = (0..st.names.len())
            .map(|i| {
                let t = st.total(i);
                format!("{} {:.1}/{}", st.names[i], t.points(), t.games())
            })
            .collect();
        format!("{head} | {}", scores.join(", "))
    }
}

/// The result lines printed at the end.
pub fn result_lines(report: &MatchReport) -> Vec<String> {
    let st = &report.standings;
    let mut out = Vec::new();
    for (k, &(a, b)) in st.encounters.iter().enumerate() {
        let w = st.wdl[k];
        if w.games() == 0 {
            continue;
        }
        out.push(w.score_line(&st.names[a], &st.names[b]));
        out.push(w.elo_line());
        if st.ptnml[k].pairs() > 0 {
            out.push(st.ptnml[k].line());
        }
    }
    if let Some((sprt, llr)) = report.sprt {
        out.push(sprt.line(llr));
    }
    if st.names.len() > 2 {
        out.push(String::new());
        out.extend(ranking_table(st));
        out.push(String::new());
        out.extend(crosstable(st));
    }
    out
}

/// cutechess's ranking table: rank, name, Elo, +/-, games, score, draws.
fn ranking_table(st: &Standings) -> Vec<String> {
    let mut rows: Vec<(usize, super::stats::Wdl)> =
        (0..st.names.len()).map(|i| (i, st.total(i))).collect();
    rows.sort_by(|x, y| {
        y.1.score()
            .partial_cmp(&x.1.score())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let width = st.names.iter().map(|n| n.len()).max().unwrap_or(4).max(4);
    let mut out = vec![format!(
        "Rank {:<width$} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "Name", "Elo", "+/-", "Games", "Score", "Draw"
    )];
    for (rank, (i, w)) in rows.iter().enumerate() {
        out.push(format!(
            "{:>4} {:<width$} {:>7} {:>7} {:>7} {:>6}% {:>6}%",
            rank + 1,
            st.names[*i],
            fmt_num(w.elo(), 0),
            fmt_num(w.error_margin(), 0),
            w.games(),
            fmt_num(w.score() * 100.0, 1),
            fmt_num(w.draw_ratio() * 100.0, 1)
        ));
    }
    out
}

/// Crosstable: row engine's points against each column engine (`-` where they do
/// not meet).
fn crosstable(st: &Standings) -> Vec<String> {
    let n = st.names.len();
    let width = st.names.iter().map(|x| x.len()).max().unwrap_or(4).max(10);
    let cells: Vec<Vec<String>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    if i == j {
                        return "x".to_string();
                    }
                    match st.head_to_head(i, j) {
                        Some(w) if w.games() > 0 => format!("{:.1}/{}", w.points(), w.games()),
                        _ => "-".to_string(),
                    }
                })
                .collect()
        })
        .collect();
    let col = cells
        .iter()
        .flatten()
        .map(|c| c.len())
        .chain(st.names.iter().map(|x| x.len()))
        .max()
        .unwrap_or(4);
    let mut out = Vec::new();
    let mut header = format!("{:<width$} ", "Crosstable");
    for name in &st.names {
        header.push_str(&format!(" {name:>col$}"));
    }
    header.push_str(&format!(" {:>8}", "Points"));
    out.push(header);
    for (i, row) in cells.iter().enumerate() {
        let mut line = format!("{:<width$} ", st.names[i]);
        for c in row {
            line.push_str(&format!(" {c:>col$}"));
        }
        let t = st.total(i);
        line.push_str(&format!(
            " {:>8}",
            format!("{:.1}/{}", t.points(), t.games())
        ));
        out.push(line);
    }
    out
}

fn describe_openings(o: &OpeningSource) -> String {
    match o {
        OpeningSource::StartPosition => "start position".to_string(),
        OpeningSource::File(f) => format!("file {}", f.display()),
        OpeningSource::Random { plies, seed } => {
            format!("random {plies} plies, seed {seed}")
        }
    }
}

/// `h:mm:ss`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The progress on stderr, as fastchess gives it: opening generation, each game's
/// start and end, elapsed time and ETA.
struct Reporter {
    started: Instant,
    openings_started: Option<Instant>,
    last_openings_line: Instant,
    /// Games of this run finished (not counting resumed ones).
    finished_here: usize,
}

impl super::Progress for Reporter {
    fn openings_progress(&mut self, done: usize, total: usize) {
        let now = Instant::now();
        let since = *self.openings_started.get_or_insert_with(|| {
            eprintln!("Generating {total} openings ...");
            now
        });
        if done == total {
            eprintln!(
                "Openings ready: {total} in {:.1} s",
                now.duration_since(since).as_secs_f64()
            );
        } else if now.duration_since(self.last_openings_line) >= Duration::from_secs(2) {
            self.last_openings_line = now;
            eprintln!(
                "Generating openings: {done}/{total} ({} elapsed)",
                clock(now.duration_since(since))
            );
        }
    }

    fn game_started(
        &mut self,
        game: &super::Scheduled,
        names: &[String],
        _started: usize,
        _to_play: usize,
    ) {
        eprintln!(
            "Started game {} ({} vs {})",
            game.number, names[game.white], names[game.black]
        );
    }

    fn game_finished(&mut self, rec: &GameRecord, st: &Standings) {
        self.finished_here += 1;
        let elapsed = self.started.elapsed();
        let left = st.games_total.saturating_sub(st.games_done);
        let eta = elapsed.mul_f64(left as f64 / self.finished_here as f64);
        eprintln!(
            "{} | elapsed {}, ETA {}",
            progress_line(rec, st),
            clock(elapsed),
            clock(eta)
        );
    }
}

/// Runs `turncoat match`.
pub fn run(args: MatchArgs) -> Result<(), String> {
    let (mut spec, mut config, seed_from_clock) = resolve_seeded(&args)?;
    // The PGN first: an unwritable path or a PGN another match is writing stops
    // the match before anything else.
    let mut pgn_file = match &spec.pgn {
        Some(path) => Some(PgnFile::open(path)?),
        None => None,
    };
    let mut done_records = Vec::new();
    // The state is read (and so checked) with or without --resume: a file that
    // is not a state file, or the state of an unfinished match, is never
    // overwritten.
    let before = match &pgn_file {
        Some(pf) => MatchState::read(&state_path(&pf.path))?,
        None => None,
    };
    if let (false, Some(pf)) = (args.resume, pgn_file.as_mut()) {
        if before.as_ref().is_some_and(|st| !st.finished) {
            let held = pf.complete_games()?;
            if held > 0 {
                return Err(format!(
                    "'{}' holds {held} games of an unfinished match (see {}): continue it with \
                     --resume and its options, or give this match another --pgn",
                    pf.path.display(),
                    state_path(&pf.path).display()
                ));
            }
        }
    }
    if let (true, Some(pf)) = (args.resume, pgn_file.as_mut()) {
        let state_file = state_path(&pf.path);
        if let (Some(st), true) = (&before, seed_from_clock) {
            if st.seed.is_some() {
                // Same match: take its seed rather than a new one.
                let mut seeded = args.clone();
                seeded.seed = st.seed;
                (spec, config, _) = resolve_seeded(&seeded)?;
            }
        }
        if let Some(st) = &before {
            let diffs = st.differences(&MatchState::of(&spec));
            if !diffs.is_empty() {
                return Err(format!(
                    "cannot resume: '{}' was played with other options ({}): {}",
                    pf.path.display(),
                    state_file.display(),
                    diffs.join("; ")
                ));
            }
        }
        let games = pf.take_games()?;
        if !games.is_empty() && before.is_none() {
            return Err(format!(
                "cannot resume: '{}' holds {} games but there is no {} beside it",
                pf.path.display(),
                games.len(),
                state_file.display()
            ));
        }
        for g in &games {
            done_records.push(record_from_pgn(g, &spec, &pf.path)?);
        }
        eprintln!(
            "Resuming from {}: {} games already played",
            pf.path.display(),
            done_records.len()
        );
    }
    if let Some(pf) = pgn_file.as_mut() {
        pf.set_state(MatchState::of(&spec));
    }
    let total = super::planned_games(&spec).len();
    eprintln!(
        "Match: {} | {} | {} games{} | {} | concurrency {} | openings: {} | config {}",
        spec.engines
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
            .join(" vs "),
        spec.variant,
        total,
        spec.shard
            .map(|s| format!(
                " (shard {s} of a {}-game match)",
                super::schedule(spec.engines.len(), spec.gauntlet, spec.games).len()
            ))
            .unwrap_or_default(),
        spec.describe_limits(),
        spec.concurrency,
        describe_openings(&spec.openings),
        config.path.display()
    );
    if let Err(e) = ctrlc::set_handler(|| {
        if super::engine::interrupted() {
            // A second signal: leave now.
            std::process::exit(130);
        }
        eprintln!("Interrupted: stopping the engines; the games finished so far follow");
        super::engine::interrupt();
    }) {
        log::warn!("cannot catch SIGINT / SIGTERM: {e}");
    }
    let ctx = PgnContext {
        event: spec.event.clone(),
        site: "?".to_string(),
        date: pgn::today(),
        variant: spec.variant,
        time_controls: (0..spec.engines.len())
            .map(|i| spec.limit_of(i).pgn_tag())
            .collect(),
        seed: MatchState::of(&spec).seed,
    };
    let mut write_pgn = |rec: &GameRecord| -> Result<(), String> {
        match pgn_file.as_mut() {
            Some(f) => f.write_game(&pgn::game_to_pgn(rec, &ctx)),
            None => Ok(()),
        }
    };
    let started = Instant::now();
    let mut reporter = Reporter {
        started,
        openings_started: None,
        last_openings_line: started,
        finished_here: 0,
    };
    let report = super::run_match_from(&spec, done_records, &mut reporter, &mut write_pgn)?;
    if let (false, Some(pf)) = (report.interrupted, pgn_file.as_mut()) {
        pf.finish()?;
    }
    let secs = started.elapsed().as_secs_f64();
    let played = report.games.len() - report.resumed;
    eprintln!(
        "{} games in {:.1} s ({:.2} games/s){}{}",
        played,
        secs,
        played as f64 / secs.max(1e-9),
        if report.resumed > 0 {
            format!(", after {} resumed", report.resumed)
        } else {
            String::new()
        },
        spec.pgn
            .as_ref()
            .map(|p| format!(", PGN: {}", p.display()))
            .unwrap_or_default()
    );
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in result_lines(&report) {
        writeln!(out, "{line}").map_err(|e| format!("cannot write results: {e}"))?;
    }
    if report.interrupted {
        return Err(format!(
            "interrupted after {} of {} games{}",
            report.games.len(),
            total,
            if spec.pgn.is_some() {
                "; continue with the same command and --resume"
            } else {
                ""
            }
        ));
    }
    Ok(())
}
