//! `engines.toml`: engine definitions (`[[engine]]`) and match defaults (`[match]`).
//! Every error names the file and, where the file is at fault, the line.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::referee::{Adjudication, DrawRule, Limit, ResignRule, MAX_TIME_MS};
use super::stats::Sprt;
use turncoat_rules::variants::VariantKind;

/// The `cmd` value that means "this very executable" (the running `turncoat`).
pub const SELF_CMD: &str = "@self";

/// The shortest `move_timeout` / `start_timeout`, in seconds: less forfeits
/// engines that are merely slow to answer (a process start, a busy machine).
pub const MIN_TIMEOUT_S: f64 = 0.1;

/// The option that selects the variant. The runner sets it from the match's
/// variant; an engine's options may not, or that engine would play another game
/// than its opponent (and lose it by "illegal" moves).
pub const VARIANT_OPTION: &str = "UCI_Variant";

/// Refuses `key` if it names [`VARIANT_OPTION`] (in any case, as UCI compares
/// option names).
pub fn refuse_variant_option(engine: &str, key: &str) -> Result<(), String> {
    if key.trim().eq_ignore_ascii_case(VARIANT_OPTION) {
        return Err(format!(
            "engine '{engine}': option '{key}' is not an engine option here: the runner sets \
             {VARIANT_OPTION} from --variant (or variant in [match]); remove it"
        ));
    }
    Ok(())
}

/// One `[[engine]]` entry, resolved: `cmd` is an existing file.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    pub name: String,
    pub cmd: PathBuf,
    pub args: Vec<String>,
    /// Working directory of the process (default: the runner's).
    pub dir: Option<PathBuf>,
    /// `setoption name K value V`, in file order.
    pub options: Vec<(String, String)>,
    /// This engine's own limit (`tc`, `movetime`, `nodes` or `depth` in its
    /// `[[engine]]` entry, as Cutechess's and fastchess's per-engine `tc=` and
    /// `nodes=`), in place of the match's: time odds, or a weaker opponent
    /// made by searching less.
    pub limit: Option<Limit>,
}

/// The `[match]` table; `None` means "not given here" (CLI or built-in default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchDefaults {
    /// Engines to play (names checked against the `[[engine]]` entries).
    pub engines: Option<Vec<String>>,
    pub variant: Option<VariantKind>,
    pub games: Option<u32>,
    pub limit: Option<Limit>,
    pub concurrency: Option<usize>,
    pub openings: Option<PathBuf>,
    pub random_plies: Option<u32>,
    pub seed: Option<u64>,
    pub pgn: Option<PathBuf>,
    pub gauntlet: Option<bool>,
    pub sprt: Option<Sprt>,
    pub time_margin_ms: Option<u64>,
    pub move_timeout_ms: Option<u64>,
    pub start_timeout_ms: Option<u64>,
    pub adjudication: Adjudication,
}

/// A loaded `engines.toml`.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub path: PathBuf,
    pub engines: Vec<EngineConfig>,
    pub defaults: MatchDefaults,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    engine: Vec<RawEngine>,
    #[serde(default, rename = "match")]
    matches: Option<RawMatch>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEngine {
    name: Spanned<String>,
    cmd: Spanned<String>,
    #[serde(default)]
    args: Vec<String>,
    dir: Option<Spanned<String>>,
    #[serde(default)]
    options: BTreeMap<String, Spanned<toml::Value>>,
    tc: Option<Spanned<String>>,
    movetime: Option<Spanned<u64>>,
    nodes: Option<Spanned<u64>>,
    depth: Option<Spanned<u32>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawMatch {
    engines: Option<Spanned<Vec<String>>>,
    variant: Option<Spanned<String>>,
    games: Option<u32>,
    tc: Option<Spanned<String>>,
    movetime: Option<Spanned<u64>>,
    nodes: Option<Spanned<u64>>,
    depth: Option<Spanned<u32>>,
    concurrency: Option<Spanned<usize>>,
    openings: Option<String>,
    random_plies: Option<u32>,
    seed: Option<u64>,
    pgn: Option<String>,
    gauntlet: Option<bool>,
    sprt: Option<Spanned<String>>,
    time_margin: Option<Spanned<u64>>,
    move_timeout: Option<Spanned<f64>>,
    start_timeout: Option<Spanned<f64>>,
    adjudication: Option<RawAdjudication>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawAdjudication {
    max_moves: Option<u32>,
    resign_moves: Option<u32>,
    resign_score: Option<i32>,
    draw_moves: Option<u32>,
    draw_score: Option<i32>,
    draw_start: Option<u32>,
}

/// Turns byte spans into `file:line:` prefixes.
struct Locator<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Locator<'_> {
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        (line, col)
    }

    fn at(&self, span: Range<usize>, msg: impl std::fmt::Display) -> String {
        let (line, _) = self.line_col(span.start);
        format!("{}:{line}: {msg}", self.path.display())
    }
}

impl Config {
    /// Reads and validates a config file.
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read config file '{}': {e}", path.display()))?;
        Config::parse(path, &text)
    }

    /// Parses config text; `path` names the file in messages and anchors relative
    /// paths (its directory).
    pub fn parse(path: &Path, text: &str) -> Result<Config, String> {
        let loc = Locator { path, text };
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            let msg = e.message().trim().to_string();
            match e.span() {
                Some(span) => {
                    let (line, col) = loc.line_col(span.start);
                    format!("{}:{line}:{col}: {msg}", path.display())
                }
                None => format!("{}: {msg}", path.display()),
            }
        })?;
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);

        let mut engines: Vec<EngineConfig> = Vec::new();
        for e in raw.engine {
            let name = e.name.get_ref().trim().to_string();
            // A comma would split `--engines`; a control character (a line break)
            // would end a PGN tag early.
            if name.is_empty() || name.contains(',') || name.contains(char::is_control) {
                return Err(loc.at(
                    e.name.span(),
                    format!(
                        "engine name {name:?} must be non-empty and contain no comma and no \
                         control character (line break, tab)"
                    ),
                ));
            }
            if engines.iter().any(|x| x.name == name) {
                return Err(loc.at(e.name.span(), format!("duplicate engine name '{name}'")));
            }
            let cmd = resolve_cmd(e.cmd.get_ref(), &base)
                .map_err(|msg| loc.at(e.cmd.span(), format!("engine '{name}': {msg}")))?;
            let dir = match &e.dir {
                None => None,
                Some(d) => {
                    let p = base.join(d.get_ref());
                    if !p.is_dir() {
                        return Err(loc.at(
                            d.span(),
                            format!(
                                "engine '{name}': working directory '{}' does not exist",
                                p.display()
                            ),
                        ));
                    }
                    Some(p)
                }
            };
            let mut options = Vec::new();
            for (key, value) in &e.options {
                refuse_variant_option(&name, key).map_err(|msg| loc.at(value.span(), msg))?;
                let v = match value.get_ref() {
                    toml::Value::String(s) => s.clone(),
                    toml::Value::Integer(i) => i.to_string(),
                    toml::Value::Float(f) => f.to_string(),
                    toml::Value::Boolean(b) => b.to_string(),
                    _ => {
                        return Err(loc.at(
                            value.span(),
                            format!(
                            "engine '{name}': option '{key}' must be a string, number or boolean"
                        ),
                        ))
                    }
                };
                options.push((key.clone(), v));
            }
            let who = format!("engine '{name}': ");
            let limit = limit_of(&e.tc, &e.movetime, &e.nodes, &e.depth, &loc, &who)?;
            engines.push(EngineConfig {
                name,
                cmd,
                args: e.args,
                dir,
                options,
                limit,
            });
        }

        let defaults = match raw.matches {
            None => MatchDefaults::default(),
            Some(m) => match_defaults(m, &loc, &base, &engines)?,
        };
        Ok(Config {
            path: path.to_path_buf(),
            engines,
            defaults,
        })
    }

    pub fn engine(&self, name: &str) -> Option<&EngineConfig> {
        self.engines.iter().find(|e| e.name == name)
    }

    pub fn engine_names(&self) -> String {
        self.engines
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn match_defaults(
    m: RawMatch,
    loc: &Locator<'_>,
    base: &Path,
    engines: &[EngineConfig],
) -> Result<MatchDefaults, String> {
    let mut d = MatchDefaults::default();
    if let Some(list) = &m.engines {
        for name in list.get_ref() {
            if !engines.iter().any(|e| &e.name == name) {
                return Err(loc.at(
                    list.span(),
                    format!(
                        "unknown engine '{name}' (defined: {})",
                        engines
                            .iter()
                            .map(|e| e.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        d.engines = Some(list.get_ref().clone());
    }
    if let Some(v) = &m.variant {
        d.variant = Some(
            v.get_ref()
                .parse::<VariantKind>()
                .map_err(|e| loc.at(v.span(), e))?,
        );
    }
    d.games = m.games;
    d.limit = limit_of(&m.tc, &m.movetime, &m.nodes, &m.depth, loc, "")?;
    if let Some(c) = &m.concurrency {
        if *c.get_ref() == 0 {
            return Err(loc.at(c.span(), "concurrency must be at least 1"));
        }
        d.concurrency = Some(*c.get_ref());
    }
    d.openings = m.openings.map(|p| base.join(p));
    d.random_plies = m.random_plies;
    d.seed = m.seed;
    d.pgn = m.pgn.filter(|p| !p.trim().is_empty()).map(|p| base.join(p));
    d.gauntlet = m.gauntlet;
    if let Some(s) = &m.sprt {
        d.sprt = Some(
            s.get_ref()
                .parse::<Sprt>()
                .map_err(|e| loc.at(s.span(), e))?,
        );
    }
    if let Some(t) = &m.time_margin {
        if *t.get_ref() > MAX_TIME_MS {
            return Err(loc.at(
                t.span(),
                format!("time_margin must be at most {MAX_TIME_MS} ms"),
            ));
        }
        d.time_margin_ms = Some(*t.get_ref());
    }
    let secs = |x: &Option<Spanned<f64>>, what: &str| -> Result<Option<u64>, String> {
        let Some(s) = x else { return Ok(None) };
        let v = *s.get_ref();
        let ms = (v * 1000.0).round();
        if v.is_finite() && v >= MIN_TIMEOUT_S && ms <= MAX_TIME_MS as f64 {
            Ok(Some(ms as u64))
        } else {
            Err(loc.at(
                s.span(),
                format!(
                    "{what} must be between {MIN_TIMEOUT_S} and {} seconds (got {v})",
                    MAX_TIME_MS as f64 / 1000.0
                ),
            ))
        }
    };
    d.move_timeout_ms = secs(&m.move_timeout, "move_timeout")?;
    d.start_timeout_ms = secs(&m.start_timeout, "start_timeout")?;
    if let Some(a) = m.adjudication {
        d.adjudication = Adjudication {
            max_moves: a.max_moves.filter(|&n| n > 0),
            resign: match (a.resign_moves, a.resign_score) {
                (Some(moves), Some(score)) if moves > 0 => Some(ResignRule { moves, score }),
                _ => None,
            },
            draw: match (a.draw_moves, a.draw_score) {
                (Some(moves), Some(score)) if moves > 0 => Some(DrawRule {
                    start: a.draw_start.unwrap_or(0),
                    moves,
                    score,
                }),
                _ => None,
            },
        };
    }
    Ok(d)
}

/// The limit of a `[match]` or `[[engine]]` table: at most one of `tc`,
/// `movetime`, `nodes` and `depth`, checked as the command line's; `who`
/// starts the messages (the engine's name, or nothing for `[match]`).
fn limit_of(
    tc: &Option<Spanned<String>>,
    movetime: &Option<Spanned<u64>>,
    nodes: &Option<Spanned<u64>>,
    depth: &Option<Spanned<u32>>,
    loc: &Locator<'_>,
    who: &str,
) -> Result<Option<Limit>, String> {
    let mut limits: Vec<(Range<usize>, Limit)> = Vec::new();
    if let Some(tc) = tc {
        let limit = tc
            .get_ref()
            .parse::<Limit>()
            .map_err(|e| loc.at(tc.span(), format!("{who}{e}")))?;
        limits.push((tc.span(), limit));
    }
    if let Some(x) = movetime {
        limits.push((x.span(), Limit::MoveTime(*x.get_ref())));
    }
    if let Some(x) = nodes {
        limits.push((x.span(), Limit::Nodes(*x.get_ref())));
    }
    if let Some(x) = depth {
        limits.push((x.span(), Limit::Depth(*x.get_ref())));
    }
    if limits.len() > 1 {
        return Err(loc.at(
            limits[1].0.clone(),
            format!("{who}give only one of tc, movetime, nodes, depth"),
        ));
    }
    match limits.pop() {
        None => Ok(None),
        Some((span, limit)) => {
            limit
                .validate()
                .map_err(|e| loc.at(span, format!("{who}{e}")))?;
            Ok(Some(limit))
        }
    }
}

/// `@self` is the running executable; a path with a separator is relative to the
/// config file's directory; a bare name is looked up in `PATH`.
fn resolve_cmd(cmd: &str, base: &Path) -> Result<PathBuf, String> {
    let cmd = cmd.trim();
    if cmd.is_empty() {
        return Err("empty cmd".to_string());
    }
    if cmd == SELF_CMD {
        return std::env::current_exe()
            .map_err(|e| format!("cannot locate the running executable for '{SELF_CMD}': {e}"));
    }
    let p = Path::new(cmd);
    if p.components().count() > 1 || p.is_absolute() {
        let full = base.join(p);
        if full.is_file() {
            Ok(full)
        } else {
            Err(format!(
                "command '{}' does not exist (cmd = \"{cmd}\")",
                full.display()
            ))
        }
    } else {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|d| d.join(cmd))
            .find(|f| f.is_file())
            .ok_or_else(|| format!("command '{cmd}' not found in PATH"))
    }
}
