//! The `match` subcommand: command-line options over `engines.toml`, a progress
//! line per game on stderr, and the result lines (cutechess / fastchess formats)
//! on stdout at the end.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;

use super::config::Config;
use super::pgn::{self, PgnContext};
use super::referee::{GameRecord, Limit};
use super::stats::{fmt_num, Sprt};
use super::{MatchReport, MatchSpec, Standings};
use crate::engine::openings::OpeningSource;
use crate::rules::variants::VariantKind;

/// Options of `turncoat match`; each overrides the `[match]` table of the config.
#[derive(Args, Debug, Clone, Default)]
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
    /// PGN output file (overwritten).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Write no PGN.
    #[arg(long, conflicts_with = "pgn")]
    pub no_pgn: bool,
    /// SPRT: elo0,elo1[,alpha,beta] (logistic Elo; alpha = beta = 0.05 by default).
    #[arg(long)]
    pub sprt: Option<String>,
    /// With more than two engines: the first plays every other (else round robin).
    #[arg(long)]
    pub gauntlet: bool,
}

const DEFAULT_GAMES: u32 = 10;
const DEFAULT_TIME_MARGIN_MS: u64 = 100;
const DEFAULT_MOVE_TIMEOUT_MS: u64 = 60_000;
const DEFAULT_START_TIMEOUT_MS: u64 = 10_000;
const STOP_GRACE: Duration = Duration::from_millis(1000);

/// Merges the command line over the config file.
pub fn resolve(args: &MatchArgs) -> Result<(MatchSpec, Config), String> {
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
    let spec = MatchSpec {
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
        event: format!("Turncoat match ({variant}, {})", limit.describe()),
    };
    Ok((spec, config))
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
            "{head} | {} {} - {} - {} [{:.3}] Elo {} +/- {}",
            st.names[0],
            w.wins,
            w.losses,
            w.draws,
            w.score(),
            fmt_num(w.elo(), 1),
            fmt_num(w.error_margin(), 1)
        )
    } else {
        let scores: Vec<String> = (0..st.names.len())
            .map(|i| {
                let t = st.total(i);
                format!("{} {}/{}", st.names[i], t.points(), t.games())
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
            "{:>4} {:<width$} {:>7} {:>7} {:>7} {:>6.1}% {:>6.1}%",
            rank + 1,
            st.names[*i],
            fmt_num(w.elo(), 0),
            fmt_num(w.error_margin(), 0),
            w.games(),
            w.score() * 100.0,
            w.draw_ratio() * 100.0
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
                        Some(w) if w.games() > 0 => format!("{}/{}", w.points(), w.games()),
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
        line.push_str(&format!(" {:>8}", format!("{}/{}", t.points(), t.games())));
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

/// Creates (truncates) the PGN file, and its directory if needed.
fn create_pgn(path: &std::path::Path) -> Result<File, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the PGN directory '{}': {e}", dir.display()))?;
    }
    File::create(path).map_err(|e| format!("cannot write PGN file '{}': {e}", path.display()))
}

/// Runs `turncoat match`.
pub fn run(args: MatchArgs) -> Result<(), String> {
    let (spec, config) = resolve(&args)?;
    let total = super::schedule(spec.engines.len(), spec.gauntlet, spec.games).len();
    eprintln!(
        "Match: {} | {} | {} games | {} | concurrency {} | openings: {} | config {}",
        spec.engines
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
            .join(" vs "),
        spec.variant,
        total,
        spec.limit.describe(),
        spec.concurrency,
        describe_openings(&spec.openings),
        config.path.display()
    );
    let ctx = PgnContext {
        event: spec.event.clone(),
        site: "?".to_string(),
        date: pgn::today(),
        variant: spec.variant,
        time_control: spec.limit.pgn_tag(),
    };
    // Created with the first finished game, so that a match that fails to start
    // leaves an earlier PGN alone.
    let mut pgn_file: Option<File> = None;
    let mut write_pgn = |rec: &GameRecord| -> Result<(), String> {
        let Some(path) = &spec.pgn else {
            return Ok(());
        };
        if pgn_file.is_none() {
            pgn_file = Some(create_pgn(path)?);
        }
        if let Some(f) = pgn_file.as_mut() {
            f.write_all(pgn::game_to_pgn(rec, &ctx).as_bytes())
                .and_then(|_| f.flush())
                .map_err(|e| format!("cannot write PGN file '{}': {e}", path.display()))?;
        }
        Ok(())
    };
    let started = Instant::now();
    let mut progress = |rec: &GameRecord, st: &Standings| eprintln!("{}", progress_line(rec, st));
    let report = super::run_match(&spec, &mut progress, &mut write_pgn)?;
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "{} games in {:.1} s ({:.2} games/s){}",
        report.games.len(),
        secs,
        report.games.len() as f64 / secs.max(1e-9),
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
    Ok(())
}
