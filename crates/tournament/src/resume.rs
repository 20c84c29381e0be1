//! The PGN file of a running match and what lets a match outlive its process:
//!
//! - the PGN is opened (and its directory created) before anything else, so an
//!   unwritable path is an error before the first game, and it is locked
//!   exclusively (`flock`), so a second match writing the same path is refused
//!   instead of interleaving its games; the kernel drops the lock when the
//!   process ends, however it ends, so a killed run leaves no stale lock;
//! - beside it, `<pgn>.state` records the options that define the match (written
//!   atomically: a temporary file, then a rename), so that `--resume` replays the
//!   same schedule from the same seed, and refuses a command line that would
//!   define another match. It is written with the first game (a match that fails
//!   to start changes nothing) and marked finished at the end; while it is not,
//!   the PGN's games are an interrupted match's, and another match on that path
//!   is refused rather than overwriting them;
//! - a PGN removed during the match (or its directory) stops it with an error,
//!   instead of writing on into a file nobody can reach;
//! - `--resume` reads the games the PGN already holds (a game cut short by a kill
//!   is dropped and replayed), and the runner plays the rest after them.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::pgn::{self, PgnGame};
use super::referee::{GameRecord, GameResult, PlayedMove, Termination};
use super::MatchSpec;

/// The PGN output of a match: open, locked, and written game by game.
pub struct PgnFile {
    pub path: PathBuf,
    file: File,
    /// Truncate before the first game (a new match overwrites an old PGN, but only
    /// once it has a game to write, so a match that fails to start leaves it).
    truncate_first: bool,
    /// The file did not exist before: removed again if no game gets written.
    created: bool,
    written: usize,
    /// The state of the match being played: written to `<pgn>.state` with the
    /// first game, marked finished by [`PgnFile::finish`].
    state: Option<MatchState>,
    state_written: bool,
}

impl PgnFile {
    /// Opens (creating it and its directory if needed) and locks `path`; nothing
    /// in it is changed yet.
    pub fn open(path: &Path) -> Result<PgnFile, String> {
        if path.is_dir() {
            return Err(format!(
                "cannot write PGN file '{}': it is a directory",
                path.display()
            ));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create the PGN directory '{}': {e}", dir.display()))?;
        }
        let created = !path.exists();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| format!("cannot write PGN file '{}': {e}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(format!(
                    "PGN file '{}' is locked: another match is writing it; give this one \
                     another --pgn path, or wait for that match to end",
                    path.display()
                ))
            }
            Err(TryLockError::Error(e)) => {
                return Err(format!("cannot lock PGN file '{}': {e}", path.display()))
            }
        }
        Ok(PgnFile {
            path: path.to_path_buf(),
            file,
            truncate_first: true,
            created,
            written: 0,
            state: None,
            state_written: false,
        })
    }

    /// How many complete games the file holds (a game cut short at its end is
    /// not counted).
    pub fn complete_games(&mut self) -> Result<usize, String> {
        let text = self.read_text()?;
        Ok(pgn::complete_prefix(&text).0.len())
    }

    fn read_text(&mut self) -> Result<String, String> {
        let err =
            |e: std::io::Error| format!("cannot read PGN file '{}': {e}", self.path.display());
        let mut bytes = Vec::new();
        self.file.seek(SeekFrom::Start(0)).map_err(err)?;
        self.file.read_to_end(&mut bytes).map_err(err)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The state of the match this run plays, to be written with its first game.
    pub fn set_state(&mut self, state: MatchState) {
        self.state = Some(state);
        self.state_written = false;
    }

    /// The match ended (every game played, or its SPRT decided): marks its state
    /// finished, so that another match may take this path.
    pub fn finish(&mut self) -> Result<(), String> {
        self.check_still_there()?;
        if let Some(state) = self.state.as_mut() {
            state.finished = true;
            state.write(&state_path(&self.path))?;
        }
        Ok(())
    }

    /// For `--resume`: the complete games the file holds, in file order. A game
    /// cut short at the end (the previous run was killed while writing it) is cut
    /// off the file; anything else that is not a complete game is an error.
    pub fn take_games(&mut self) -> Result<Vec<PgnGame>, String> {
        let text = self.read_text()?;
        let (games, end) = pgn::complete_prefix(&text);
        let tail = &text[end..];
        if !tail.trim().is_empty() {
            if let Ok(more) = pgn::read_pgn(tail) {
                if !more.is_empty() {
                    return Err(format!(
                        "cannot resume from '{}': after its {} games of this runner it holds {} more \
                         games it cannot place (not written by `turncoat match`?)",
                        self.path.display(),
                        games.len(),
                        more.len()
                    ));
                }
            }
            log::warn!(
                "{}: dropping an unfinished game at the end ({} bytes); it will be replayed",
                self.path.display(),
                tail.len()
            );
        }
        // `end` is a byte offset in the lossy text; the file is UTF-8 written by us,
        // so it is the same offset in the file.
        let werr =
            |e: std::io::Error| format!("cannot write PGN file '{}': {e}", self.path.display());
        self.file.set_len(end as u64).map_err(werr)?;
        self.file.seek(SeekFrom::End(0)).map_err(werr)?;
        let kept = &text[..end];
        if !kept.is_empty() && !kept.ends_with("\n\n") {
            let pad = if kept.ends_with('\n') { "\n" } else { "\n\n" };
            self.file.write_all(pad.as_bytes()).map_err(werr)?;
        }
        self.truncate_first = false;
        self.created = false;
        Ok(games)
    }

    /// Is the path still this file? A file removed during the match (or with its
    /// directory) stays writable through the open handle, so the writes would
    /// succeed into a file nobody can reach any more: that stops the match.
    fn check_still_there(&self) -> Result<(), String> {
        let fail = |why: String| format!("cannot write PGN file '{}': {why}", self.path.display());
        let lost = "stopping: the games written to it are not there any more; their results \
                    are in the lines above";
        let ours = self.file.metadata().map_err(|e| fail(e.to_string()))?;
        match std::fs::metadata(&self.path) {
            Ok(now) if same_file(&now, &ours) => Ok(()),
            Ok(_) => Err(fail(format!(
                "another file took its place during the match; {lost}"
            ))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(fail(format!(
                "it was removed (or its directory) during the match; {lost}"
            ))),
            Err(e) => Err(fail(e.to_string())),
        }
    }

    /// Appends one game (one write, then flush).
    pub fn write_game(&mut self, text: &str) -> Result<(), String> {
        self.check_still_there()?;
        let err =
            |e: std::io::Error| format!("cannot write PGN file '{}': {e}", self.path.display());
        if self.truncate_first {
            self.file.set_len(0).map_err(err)?;
            self.truncate_first = false;
        }
        // The state goes with the first game (after the old games are gone): a
        // match that never got this far leaves the files as they were.
        if !self.state_written {
            if let Some(state) = &self.state {
                state.write(&state_path(&self.path))?;
                self.state_written = true;
            }
        }
        self.file.seek(SeekFrom::End(0)).map_err(err)?;
        self.file.write_all(text.as_bytes()).map_err(err)?;
        self.file.flush().map_err(err)?;
        self.written += 1;
        Ok(())
    }
}

impl Drop for PgnFile {
    /// Removes the file (and the state this run wrote) if this run created it
    /// and wrote no game: a match that failed to start, or was refused, leaves no
    /// empty PGN behind.
    fn drop(&mut self) {
        if self.created && self.written == 0 {
            let _ = std::fs::remove_file(&self.path);
            if self.state_written {
                let _ = std::fs::remove_file(state_path(&self.path));
            }
        }
    }
}

/// Do two metadata name the same file?
#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Without inode numbers: the path exists, which is the best this can tell.
#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    true
}

/// `<pgn>.state`, beside the PGN.
pub fn state_path(pgn: &Path) -> PathBuf {
    let mut name = pgn
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".state");
    pgn.with_file_name(name)
}

/// The options that define a match's games, as (key, value) in a fixed order.
/// Two runs with the same fingerprint schedule the same games.
pub fn fingerprint(spec: &MatchSpec) -> Vec<(String, String)> {
    let mut v = vec![
        ("variant".to_string(), spec.variant.to_string()),
        (
            "engines".to_string(),
            spec.engines
                .iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(","),
        ),
    ];
    for e in &spec.engines {
        v.push((
            format!("engine {}", e.name),
            format!(
                "cmd {} args [{}] options [{}]{}",
                e.cmd.display(),
                e.args.join(" "),
                e.options
                    .iter()
                    .map(|(k, x)| format!("{k}={x}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                e.limit
                    .map(|l| format!(" limit {}", l.describe()))
                    .unwrap_or_default()
            ),
        ));
    }
    v.extend([
        ("gauntlet".to_string(), spec.gauntlet.to_string()),
        ("games".to_string(), spec.games.to_string()),
        ("limit".to_string(), spec.limit.describe()),
        ("openings".to_string(), format!("{:?}", spec.openings)),
        (
            "shard".to_string(),
            spec.shard.map_or("none".to_string(), |s| s.to_string()),
        ),
        (
            "sprt".to_string(),
            spec.sprt.map_or("none".to_string(), |s| {
                format!(
                    "{},{},{},{},{}",
                    s.elo0,
                    s.elo1,
                    s.alpha,
                    s.beta,
                    s.model.name()
                )
            }),
        ),
        (
            "adjudication".to_string(),
            format!("{:?}", spec.adjudication),
        ),
    ]);
    v
}

/// The keys every state file has (see [`fingerprint`]): a file without them was
/// not written by this runner.
const STATE_KEYS: [&str; 3] = ["variant", "engines", "games"];
/// The key that says whether the match finished (not part of the fingerprint).
const FINISHED_KEY: &str = "finished";

/// What `<pgn>.state` holds.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchState {
    /// The seed of the random openings (absent when the match has none).
    pub seed: Option<u64>,
    pub fingerprint: Vec<(String, String)>,
    /// The match ended (not interrupted, not killed): its PGN may be overwritten.
    pub finished: bool,
}

impl MatchState {
    pub fn of(spec: &MatchSpec) -> MatchState {
        let seed = match spec.openings {
            super::openings::OpeningSource::Random { seed, .. } => Some(seed),
            _ => None,
        };
        MatchState {
            seed,
            fingerprint: fingerprint(spec),
            finished: false,
        }
    }

    /// Writes the state atomically: `<state>.tmp`, then a rename over `<state>`.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let mut map: BTreeMap<String, String> = self.fingerprint.iter().cloned().collect();
        if let Some(s) = self.seed {
            map.insert("seed".to_string(), s.to_string());
        }
        map.insert(FINISHED_KEY.to_string(), self.finished.to_string());
        let body =
            toml::to_string(&map).map_err(|e| format!("cannot encode the match state: {e}"))?;
        let text = format!(
            "# turncoat match: the options of the match whose games are in the PGN beside\n\
             # this file; `turncoat match ... --resume` continues it.\n{body}"
        );
        let mut tmp = path.as_os_str().to_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let err = |e: std::io::Error| format!("cannot write match state '{}': {e}", tmp.display());
        {
            let mut f = File::create(&tmp).map_err(err)?;
            f.write_all(text.as_bytes()).map_err(err)?;
            f.sync_all().map_err(err)?;
        }
        std::fs::rename(&tmp, path)
            .map_err(|e| format!("cannot write match state '{}': {e}", path.display()))
    }

    /// Reads a state file; `Ok(None)` if there is none. A file that is not one
    /// (corrupt, or another program's) is an error, and is left as it is.
    pub fn read(path: &Path) -> Result<Option<MatchState>, String> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read match state '{}': {e}", path.display())),
        };
        let foreign = |why: String| {
            format!(
                "{}: not a match state file: {why}; nothing was changed: remove it, or give \
                 this match another --pgn",
                path.display()
            )
        };
        let text = String::from_utf8(bytes).map_err(|_| foreign("not UTF-8".to_string()))?;
        let mut map: BTreeMap<String, String> =
            toml::from_str(&text).map_err(|e| foreign(e.message().trim().to_string()))?;
        if let Some(key) = STATE_KEYS.iter().find(|k| !map.contains_key(**k)) {
            return Err(foreign(format!("no '{key}'")));
        }
        let seed = match map.remove("seed") {
            None => None,
            Some(s) => Some(
                s.parse::<u64>()
                    .map_err(|_| foreign(format!("bad seed '{s}'")))?,
            ),
        };
        let finished = match map.remove(FINISHED_KEY).as_deref() {
            // An older runner's state does not say; that runner let another
            // match overwrite it, and so does this one.
            None => true,
            Some("true") => true,
            Some("false") => false,
            Some(other) => return Err(foreign(format!("bad {FINISHED_KEY} '{other}'"))),
        };
        Ok(Some(MatchState {
            seed,
            fingerprint: map.into_iter().collect(),
            finished,
        }))
    }

    /// The options that differ from `other` (this = the earlier run), as
    /// `key: 'then' -> 'now'`.
    pub fn differences(&self, now: &MatchState) -> Vec<String> {
        let then: BTreeMap<&String, &String> =
            self.fingerprint.iter().map(|(k, v)| (k, v)).collect();
        let current: BTreeMap<&String, &String> =
            now.fingerprint.iter().map(|(k, v)| (k, v)).collect();
        let mut keys: Vec<&String> = then.keys().chain(current.keys()).copied().collect();
        keys.sort();
        keys.dedup();
        keys.into_iter()
            .filter_map(|k| {
                let (a, b) = (then.get(k), current.get(k));
                (a != b).then(|| {
                    format!(
                        "{k}: '{}' then, '{}' now",
                        a.map_or("-", |s| s.as_str()),
                        b.map_or("-", |s| s.as_str())
                    )
                })
            })
            .collect()
    }
}

/// A game read back from the PGN as the record the runner had made of it (result,
/// players, opening and moves as written; enough for the standings and report).
pub fn record_from_pgn(g: &PgnGame, spec: &MatchSpec, file: &Path) -> Result<GameRecord, String> {
    let round = g.tag("Round").unwrap_or("?");
    let bad = |what: String| format!("{}: game {round}: {what}", file.display());
    let number: usize = round
        .parse()
        .map_err(|_| bad("no numeric Round tag".to_string()))?;
    let index = |tag: &str| -> Result<usize, String> {
        let name = g.tag(tag).unwrap_or("");
        spec.engines
            .iter()
            .position(|e| e.name == name)
            .ok_or_else(|| bad(format!("{tag} '{name}' is not an engine of this match")))
    };
    let (white, black) = (index("White")?, index("Black")?);
    let result = match g.tag("Result").unwrap_or(&g.result) {
        "1-0" => GameResult::WhiteWins,
        "0-1" => GameResult::BlackWins,
        "1/2-1/2" => GameResult::Draw,
        other => return Err(bad(format!("result '{other}' is not a finished game"))),
    };
    let start_fen = match g.tag("FEN") {
        Some(f) => f.to_string(),
        None => spec.variant.start_fen().to_string(),
    };
    Ok(GameRecord {
        number,
        white,
        black,
        white_name: spec.engines[white].name.clone(),
        black_name: spec.engines[black].name.clone(),
        start_fen,
        moves: g
            .moves
            .iter()
            .map(|m| PlayedMove {
                token: m.clone(),
                score: None,
                depth: None,
                time_ms: 0,
            })
            .collect(),
        result,
        termination: g
            .tag("Termination")
            .and_then(Termination::from_pgn_tag)
            .unwrap_or(Termination::Normal),
        reason: g.comments.last().cloned().flatten().unwrap_or_default(),
    })
}
