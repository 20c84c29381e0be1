//! The match runner as a user meets it: a second writer of a PGN,
//! unwritable PGN paths, engine options checked against the engine's `uci`
//! reply, SIGINT / SIGTERM, progress lines, move comments, `--resume` after
//! SIGKILL, `--shard` (directly and through GNU parallel) with `match-merge`, and
//! `match-merge` on odd inputs. Engines are the scripted `fake-engine`
//! (scripted, deterministic) or Turncoat itself at fixed nodes.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use turncoat::tournament::pgn::{self, PgnGame};

const EXE: &str = env!("CARGO_BIN_EXE_turncoat");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("turncoat-runner-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A config with two fake engines `a` and `b` (extra fake-engine arguments for
/// each) and a `[match]` table.
fn fake_config(dir: &Path, a_args: &str, b_args: &str, match_table: &str) -> PathBuf {
    let quote = |s: &str| -> String {
        s.split_whitespace()
            .map(|w| format!("\"{w}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fake = common::fake_engine();
    let body = format!(
        "[[engine]]\nname = \"a\"\ncmd = \"{fake}\"\nargs = [{}]\n\n\
         [[engine]]\nname = \"b\"\ncmd = \"{fake}\"\nargs = [{}]\n\n\
         [match]\n{match_table}\n",
        quote(a_args),
        quote(b_args)
    );
    let path = dir.join("engines.toml");
    std::fs::write(&path, body).expect("write config");
    path
}

fn run(args: &[&str]) -> Output {
    Command::new(EXE)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run turncoat")
}

/// A running `turncoat match` whose stderr is collected as it comes.
struct Running {
    child: Child,
    stderr: Arc<Mutex<String>>,
}

impl Running {
    fn start(args: &[&str]) -> Running {
        let mut child = Command::new(EXE)
            .args(args)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn turncoat match");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().expect("stderr");
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Running { child, stderr }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits (at most 60 s) until `f(stderr)` holds.
    fn wait_for(&self, what: &str, f: impl Fn(&str) -> bool) {
        let until = Instant::now() + Duration::from_secs(60);
        while !f(&self.stderr()) {
            assert!(
                Instant::now() < until,
                "timed out waiting for {what}:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn finish(mut self) -> (std::process::ExitStatus, String, String) {
        let mut out = String::new();
        if let Some(mut o) = self.child.stdout.take() {
            o.read_to_string(&mut out).expect("read stdout");
        }
        let status = self.child.wait().expect("wait");
        // The stderr thread ends with the process; give it a moment to flush.
        std::thread::sleep(Duration::from_millis(50));
        (status, out, self.stderr())
    }
}

fn games_of(path: &Path) -> Vec<PgnGame> {
    pgn::read_pgn(&std::fs::read_to_string(path).expect("read PGN")).expect("parse PGN")
}

/// What must be equal between two runs of one match: numbers, players, openings,
/// moves, results and endings (not the per-move times).
fn summary(games: &[PgnGame]) -> Vec<(String, String, String, String, Vec<String>, String)> {
    let mut v: Vec<_> = games
        .iter()
        .map(|g| {
            let t = |k: &str| g.tag(k).unwrap_or("").to_string();
            (
                t("Round"),
                t("White"),
                t("Black"),
                t("FEN"),
                g.moves.clone(),
                format!("{} {}", t("Result"), t("Termination")),
            )
        })
        .collect();
    v.sort_by_key(|x| x.0.parse::<u32>().unwrap_or(0));
    v
}

/// Fake engines still running whose arguments contain `marker`.
fn live_fakes(marker: &str) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| text(&c).replace('\0', " "))
        .filter(|c| c.contains("fake-engine") && c.contains(marker))
        .count()
}

// ---------------------------------------------------------------- the PGN lock

#[test]
fn a_second_match_writing_the_same_pgn_is_refused() {
    let dir = scratch("lock");
    let cfg = fake_config(
        &dir,
        "--delay-ms 40",
        "--delay-ms 40",
        "games = 4\nnodes = 10\nrandom_plies = 2\nseed = 4\n[match.adjudication]\nmax_moves = 6",
    );
    let pgn_path = dir.join("games.pgn");
    let (c, p) = (cfg.to_str().unwrap(), pgn_path.to_str().unwrap());
    let first = Running::start(&["match", "--config", c, "--pgn", p]);
    first.wait_for("the first game", |e| e.contains("Started game 1 "));
    let second = run(&["match", "--config", c, "--pgn", p, "--games", "2"]);
    let err = text(&second.stderr);
    assert!(!second.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "error: PGN file '{p}' is locked: another match is writing it"
        )),
        "{err}"
    );
    assert!(!err.contains("Started game"), "{err}");
    let (status, _, err1) = first.finish();
    assert!(status.success(), "{err1}");
    let games = games_of(&pgn_path);
    let rounds: Vec<&str> = games.iter().map(|g| g.tag("Round").unwrap()).collect();
    assert_eq!(rounds, ["1", "2", "3", "4"]);
    // The lock goes with the process: the path is free again.
    let third = run(&["match", "--config", c, "--pgn", p, "--games", "2"]);
    assert!(third.status.success(), "{}", text(&third.stderr));
    assert_eq!(games_of(&pgn_path).len(), 2);
}

// ---------------------------------------------------------------- unwritable paths

#[test]
fn an_unwritable_pgn_path_is_an_error_before_any_game() {
    let dir = scratch("unwritable");
    let cfg = fake_config(&dir, "", "", "games = 2\nnodes = 10");
    let file = dir.join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let under_file = file.join("games.pgn");
    let out = run(&[
        "match",
        "--config",
        cfg.to_str().unwrap(),
        "--pgn",
        under_file.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!(
            "error: cannot create the PGN directory '{}'",
            file.display()
        )),
        "{err}"
    );
    assert!(
        !err.contains("Started game") && !err.contains("Match:"),
        "{err}"
    );

    let out = run(&[
        "match",
        "--config",
        cfg.to_str().unwrap(),
        "--pgn",
        dir.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!(
            "error: cannot write PGN file '{}': it is a directory",
            dir.display()
        )),
        "{err}"
    );
}

// ---------------------------------------------------------------- engine options

#[test]
fn engine_options_are_checked_against_the_uci_reply_before_the_first_game() {
    let dir = scratch("options");
    let cases = [
        (
            "VariantEvl = false",
            "error: engine 'b' does not declare option 'VariantEvl' (it declares: Hash, VariantEval, Style)",
        ),
        (
            "Hash = 999999",
            "error: engine 'b': option 'Hash' = 999999: 999999 is out of range; the engine declares a spin option from 1 to 1024",
        ),
        (
            "Hash = \"lots\"",
            "error: engine 'b': option 'Hash' = lots: 'lots' is not an integer; the engine declares a spin option from 1 to 1024",
        ),
        (
            "Style = \"Wild\"",
            "error: engine 'b': option 'Style' = Wild: 'Wild' is not one of its values; the engine declares a combo option with values Solid, Normal, Risky",
        ),
        (
            "VariantEval = \"maybe\"",
            "error: engine 'b': option 'VariantEval' = maybe: 'maybe' is neither true nor false; the engine declares a check option (true or false)",
        ),
    ];
    for (option, expected) in cases {
        let fake = common::fake_engine();
        let body = format!(
            "[[engine]]\nname = \"a\"\ncmd = \"{fake}\"\nargs = []\n\n\
             [[engine]]\nname = \"b\"\ncmd = \"{fake}\"\nargs = []\noptions = {{ {option} }}\n\n\
             [match]\ngames = 2\nnodes = 10\n"
        );
        let cfg = dir.join("engines.toml");
        std::fs::write(&cfg, body).unwrap();
        let out = run(&["match", "--config", cfg.to_str().unwrap(), "--no-pgn"]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{option}: {err}");
        assert!(err.contains(expected), "{option}:\n{err}");
        assert!(!err.contains("Started game"), "{option}: {err}");
    }
    // Declared options with fitting values (names in any case) are fine.
    let fake = common::fake_engine();
    let body = format!(
        "[[engine]]\nname = \"a\"\ncmd = \"{fake}\"\nargs = []\n\
         options = {{ hash = 1024, Style = \"risky\", VariantEval = false }}\n\n\
         [[engine]]\nname = \"b\"\ncmd = \"{fake}\"\nargs = []\n\n\
         [match]\ngames = 2\nnodes = 10\n[match.adjudication]\nmax_moves = 4\n"
    );
    let cfg = dir.join("engines.toml");
    std::fs::write(&cfg, body).unwrap();
    let out = run(&["match", "--config", cfg.to_str().unwrap(), "--no-pgn"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// An option the engine declares but refuses when set (its `info string
/// error` before `readyok`: here a network file that is not there) stops the
/// match before the first game: the engine would otherwise play on with its
/// embedded network, and every game would measure an engine the
/// configuration did not ask for.
#[test]
fn an_option_the_engine_refuses_stops_the_match_before_the_first_game() {
    let dir = scratch("refused");
    let missing = dir.join("no-such.net");
    let body = format!(
        "[[engine]]\nname = \"a\"\ncmd = \"@self\"\n\n\
         [[engine]]\nname = \"b\"\ncmd = \"@self\"\noptions = {{ EvalFile = \"{}\" }}\n\n\
         [match]\ngames = 2\nnodes = 100\n",
        missing.display()
    );
    let cfg = dir.join("engines.toml");
    std::fs::write(&cfg, body).unwrap();
    let out = run(&["match", "--config", cfg.to_str().unwrap(), "--no-pgn"]);
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "error: engine 'b' refused its options: info string error: EvalFile '{}': \
             No such file or directory",
            missing.display()
        )),
        "{err}"
    );
    assert!(!err.contains("Started game"), "{err}");
}

// ---------------------------------------------------------------- progress and signals

#[test]
fn progress_lines_and_move_comments() {
    let dir = scratch("progress");
    let cfg = fake_config(
        &dir,
        "--score 25",
        "--no-info",
        "games = 2\nnodes = 10\nrandom_plies = 2\nseed = 8\n[match.adjudication]\nmax_moves = 5",
    );
    let pgn_path = dir.join("p.pgn");
    let out = run(&[
        "match",
        "--config",
        cfg.to_str().unwrap(),
        "--pgn",
        pgn_path.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("Generating 1 openings ...\n"), "{err}");
    assert!(err.contains("Openings ready: 1 in "), "{err}");
    assert!(err.contains("Started game 1 (a vs b)\n"), "{err}");
    assert!(err.contains("Started game 2 (b vs a)\n"), "{err}");
    let finished: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("Finished game"))
        .collect();
    assert_eq!(finished.len(), 2, "{err}");
    for l in &finished {
        assert!(l.contains(" | elapsed 0:00:"), "{l}");
        assert!(l.contains(", ETA 0:00:"), "{l}");
    }
    assert!(finished[1].ends_with("ETA 0:00:00"), "{}", finished[1]);
    // `a` sends `info depth 1 score cp 25`: every move of a has `{+0.25/1 T}`;
    // `b` sends no info line: only its time is known.
    for g in games_of(&pgn_path) {
        let a_is_white = g.tag("White") == Some("a");
        assert_eq!(g.moves.len(), 10);
        // The last move's comment is replaced by the game's ending in the reader.
        for (i, c) in g.comments[..9].iter().enumerate() {
            let c = c.as_deref().unwrap();
            let by_a = (i % 2 == 0) == a_is_white;
            let (head, time) = c.rsplit_once(' ').unwrap_or(("", c));
            assert!(time.ends_with('s') && time.contains('.'), "{c}");
            if by_a {
                assert_eq!(head, "+0.25/1", "{c}");
            } else {
                assert_eq!(head, "", "{c}");
            }
        }
    }
}

fn signal_test(signal: &str, marker: &str) {
    let dir = scratch(&format!("signal-{signal}"));
    let cfg = fake_config(
        &dir,
        &format!("--delay-ms 25 --score {marker}"),
        &format!("--delay-ms 25 --score {marker}"),
        "games = 40\nnodes = 10\nrandom_plies = 2\nseed = 6\nconcurrency = 2\n[match.adjudication]\nmax_moves = 4",
    );
    let pgn_path = dir.join("s.pgn");
    let running = Running::start(&[
        "match",
        "--config",
        cfg.to_str().unwrap(),
        "--pgn",
        pgn_path.to_str().unwrap(),
    ]);
    running.wait_for("3 finished games", |e| {
        e.matches("Finished game").count() >= 3
    });
    assert!(live_fakes(marker) > 0, "no engine seen running");
    let pid = running.child.id().to_string();
    let kill = Command::new("kill").args([signal, &pid]).status().unwrap();
    assert!(kill.success());
    let (status, out, err) = running.finish();
    assert!(!status.success(), "{err}");
    let finished = err.matches("Finished game").count();
    assert!(finished < 40, "{err}");
    // The summary of the games finished so far, and how to go on.
    let games = games_of(&pgn_path);
    assert_eq!(games.len(), finished, "{err}");
    let first = out.lines().next().unwrap_or("");
    assert!(first.starts_with("Score of a vs b: "), "{out}");
    assert!(first.ends_with(&format!("] {finished}")), "{out}");
    assert!(
        err.contains(&format!(
            "error: interrupted after {finished} of 40 games; continue with the same command and --resume"
        )),
        "{err}"
    );
    // The engines are gone with the runner.
    let until = Instant::now() + Duration::from_secs(5);
    while live_fakes(marker) > 0 {
        assert!(Instant::now() < until, "engines outlived the runner");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigint_prints_the_games_so_far_and_exits_non_zero() {
    signal_test("-INT", "7301");
}

#[test]
fn sigterm_prints_the_games_so_far_and_exits_non_zero() {
    signal_test("-TERM", "7302");
}

// ---------------------------------------------------------------- --resume

/// One match of fake engines (15 ms a move) played twice: to the end into
/// `whole.pgn`, and into `cut.pgn` killed once `kill_at` games are finished.
struct Interrupted {
    dir: PathBuf,
    cfg: PathBuf,
    /// The uninterrupted run.
    once: std::process::Output,
    whole: PathBuf,
    cut: PathBuf,
}

fn interrupted_match(name: &str, black: &str, table: &str, kill_at: usize) -> Interrupted {
    let dir = scratch(name);
    let cfg = fake_config(&dir, "--delay-ms 15", black, table);
    let c = cfg.to_str().unwrap();
    let whole = dir.join("whole.pgn");
    let once = run(&["match", "--config", c, "--pgn", whole.to_str().unwrap()]);
    assert!(once.status.success(), "{}", text(&once.stderr));
    let cut = dir.join("cut.pgn");
    kill_after(
        &["match", "--config", c, "--pgn", cut.to_str().unwrap()],
        kill_at,
    );
    Interrupted {
        dir,
        cfg,
        once,
        whole,
        cut,
    }
}

#[test]
fn resume_after_sigkill_gives_the_uninterrupted_match() {
    let table =
        "games = 10\nnodes = 10\nrandom_plies = 4\nseed = 9\n[match.adjudication]\nmax_moves = 8";
    let Interrupted {
        cfg,
        once,
        whole,
        cut,
        ..
    } = interrupted_match("resume", "--delay-ms 15 --score 3", table, 3);
    let c = cfg.to_str().unwrap();
    let cut_s = cut.to_str().unwrap();
    let before = games_of(&cut).len();
    assert!((3..10).contains(&before), "{before} games before the kill");
    // As if the kill had come in the middle of writing a game.
    let mut partial = std::fs::read_to_string(&cut).unwrap();
    partial.push_str("[Event \"Turncoat match (chess, nodes 10)\"]\n[Site \"?\"]\n[Da");
    std::fs::write(&cut, partial).unwrap();

    // Other options define another match: refused, saying which.
    let other = run(&[
        "match", "--config", c, "--pgn", cut_s, "--resume", "--games", "12",
    ]);
    let err = text(&other.stderr);
    assert!(!other.status.success());
    assert!(
        err.contains("cannot resume") && err.contains("games: '10' then, '12' now"),
        "{err}"
    );

    let resumed = run(&["match", "--config", c, "--pgn", cut_s, "--resume"]);
    let err = text(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "Resuming from {cut_s}: {before} games already played"
        )),
        "{err}"
    );
    assert_eq!(err.matches("Finished game").count(), 10 - before, "{err}");
    assert_eq!(text(&resumed.stdout), text(&once.stdout));
    let (a, b) = (games_of(&whole), games_of(&cut));
    assert_eq!(b.len(), 10);
    assert_eq!(summary(&a), summary(&b));
    let rounds: Vec<String> = b
        .iter()
        .map(|g| g.tag("Round").unwrap().to_string())
        .collect();
    assert_eq!(rounds, (1..=10).map(|i| i.to_string()).collect::<Vec<_>>());

    // Resuming a finished match plays nothing and prints the same report.
    let again = run(&["match", "--config", c, "--pgn", cut_s, "--resume"]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(text(&again.stderr).matches("Started game").count(), 0);
    assert_eq!(text(&again.stdout), text(&once.stdout));
    assert_eq!(games_of(&cut).len(), 10);
}

// ---------------------------------------------------------------- shards

fn real_match_args(cfg: &str, pgn: &str) -> Vec<String> {
    [
        "match",
        "--config",
        cfg,
        "--nodes",
        "400",
        "--games",
        "8",
        "--random-plies",
        "4",
        "--seed",
        "12",
        "--concurrency",
        "2",
        "--pgn",
        pgn,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn shards_merge_into_the_unsharded_match() {
    let dir = scratch("shards");
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("engines.toml");
    let c = cfg.to_str().unwrap();
    let whole = dir.join("whole.pgn");
    let args = real_match_args(c, whole.to_str().unwrap());
    let once = Command::new(EXE).args(&args).output().unwrap();
    assert!(once.status.success(), "{}", text(&once.stderr));

    let mut shard_files = Vec::new();
    for i in 1..=3 {
        let p = dir.join(format!("shard-{i}.pgn"));
        let mut a = real_match_args(c, p.to_str().unwrap());
        a.extend(["--shard".to_string(), format!("{i}/3")]);
        let out = Command::new(EXE).args(&a).output().unwrap();
        let err = text(&out.stderr);
        assert!(out.status.success(), "{err}");
        // Pairs 0..4: shard 1 gets pairs 0 and 3, shards 2 and 3 one pair each.
        let expected = if i == 1 { 4 } else { 2 };
        assert_eq!(games_of(&p).len(), expected, "{err}");
        shard_files.push(p);
    }
    let rounds: Vec<String> = games_of(&shard_files[0])
        .iter()
        .map(|g| g.tag("Round").unwrap().to_string())
        .collect();
    assert_eq!(rounds, ["1", "2", "7", "8"]);
    let mut all = Vec::new();
    for f in &shard_files {
        all.extend(games_of(f));
    }
    assert_eq!(summary(&all), summary(&games_of(&whole)));
    let mut merge = Command::new(EXE);
    merge.arg("match-merge").args(&shard_files);
    let merged = merge.output().unwrap();
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    assert_eq!(text(&merged.stdout), text(&once.stdout));

    // A shard must be I/N with 1 <= I <= N.
    for bad in ["0/3", "4/3", "1/0", "x", "1-3"] {
        let mut a = real_match_args(c, dir.join("bad.pgn").to_str().unwrap());
        a.extend(["--shard".to_string(), bad.to_string()]);
        let out = Command::new(EXE).args(&a).output().unwrap();
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{bad}");
        assert!(
            err.contains(&format!(
                "error: bad shard '{bad}': expected I/N with 1 <= I <= N"
            )),
            "{err}"
        );
    }
}

/// The README's GNU parallel recipe: 4 shards at once, then `match-merge`. Needs
/// `parallel` (Debian package `parallel`; .ci/run installs it).
#[test]
fn four_shards_through_gnu_parallel_merge_into_the_unsharded_match() {
    if !common::gnu_parallel() {
        return;
    }
    let dir = scratch("parallel");
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("engines.toml");
    let c = cfg.to_str().unwrap();
    let whole = dir.join("whole.pgn");
    let once = Command::new(EXE)
        .args(real_match_args(c, whole.to_str().unwrap()))
        .output()
        .unwrap();
    assert!(once.status.success(), "{}", text(&once.stderr));

    let shard_pgn = dir.join("shard-{}.pgn");
    let mut cmd = Command::new("parallel");
    cmd.args(["--will-cite", "--halt", "now,fail=1", EXE])
        .args(&real_match_args(c, shard_pgn.to_str().unwrap())[..])
        .args(["--shard", "{}/4", ":::", "1", "2", "3", "4"]);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let files: Vec<PathBuf> = (1..=4)
        .map(|i| dir.join(format!("shard-{i}.pgn")))
        .collect();
    let mut all = Vec::new();
    for f in &files {
        let g = games_of(f);
        assert_eq!(g.len(), 2, "{}", f.display());
        all.extend(g);
    }
    assert_eq!(summary(&all), summary(&games_of(&whole)));
    let merged = Command::new(EXE)
        .arg("match-merge")
        .args(&files)
        .output()
        .unwrap();
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    assert_eq!(text(&merged.stdout), text(&once.stdout));
}

// ---------------------------------------------------------------- match-merge

fn game(round: Option<u32>, white: &str, black: &str, result: &str, tags: &str) -> String {
    let round = round
        .map(|r| format!("[Round \"{r}\"]\n"))
        .unwrap_or_default();
    format!(
        "[Event \"m\"]\n{round}[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n{tags}\n1. e4 e5 {result}\n\n"
    )
}

fn merge_files(dir: &Path, files: &[(&str, String)]) -> Output {
    let mut paths = Vec::new();
    for (name, body) in files {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        paths.push(p);
    }
    Command::new(EXE)
        .arg("match-merge")
        .args(&paths)
        .output()
        .unwrap()
}

#[test]
fn match_merge_reports_skipped_games_and_refuses_mixed_matches() {
    let dir = scratch("merge");
    let body = [
        game(Some(1), "A", "B", "1-0", ""),
        game(Some(2), "B", "A", "1/2-1/2", ""),
        game(None, "A", "B", "1-0", ""),
        game(Some(3), "A", "B", "*", ""),
    ]
    .concat();
    let out = merge_files(&dir, &[("x.pgn", body)]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    let x = dir.join("x.pgn");
    let x = x.display();
    assert_eq!(
        stderr,
        format!(
            "skipped 2 games that cannot be counted:\n  1 with no Round tag ({x} game 3)\n  \
             1 with result '*' is not 1-0, 0-1 or 1/2-1/2 ({x} game 4)\n"
        )
    );
    assert_eq!(
        stdout,
        "Score of A vs B: 1 - 0 - 1  [0.750] 2\n\
         Elo difference: 190.8 +/- n/a, LOS: 84.1 %, DrawRatio: 50.0 %\n\
         Ptnml(0-2): [0, 0, 0, 1, 0], WL/DD: 0, 0, Elo: 190.85 +/- n/a (95% CI from 1 pairs)\n"
    );

    // Nothing usable: an error, not a report of 0 games.
    let out = merge_files(
        &dir,
        &[(
            "none.pgn",
            game(None, "A", "B", "1-0", "") + &game(Some(2), "A", "B", "*", ""),
        )],
    );
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(err.starts_with("error: no usable games in "), "{err}");
    assert!(text(&out.stdout).is_empty());

    // Different variants, time controls, engine pairs: refused, saying which.
    let chess = game(Some(1), "A", "B", "1-0", "");
    let cases = [
        (
            game(Some(2), "B", "A", "1-0", "[Variant \"subversion\"]\n"),
            "cannot merge different matches: variants differ: ",
        ),
        (
            game(Some(2), "B", "A", "1-0", "[TimeControl \"10+0.1\"]\n"),
            "cannot merge different matches: time controls differ: ",
        ),
        (
            game(Some(2), "B", "C", "1-0", ""),
            "cannot merge different engine pairs: ",
        ),
        (game(Some(1), "B", "A", "1-0", ""), "game 1 is in both "),
    ];
    for (second, expected) in cases {
        let out = merge_files(&dir, &[("one.pgn", chess.clone()), ("two.pgn", second)]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{expected}");
        assert!(err.contains(expected), "{err}");
    }
    for (second, what) in [
        ("[Variant \"subversion\"]\n", "Variant \"chess\", "),
        ("[TimeControl \"10+0.1\"]\n", "TimeControl \"10+0.1\""),
    ] {
        let out = merge_files(
            &dir,
            &[
                ("one.pgn", chess.clone()),
                ("two.pgn", game(Some(2), "B", "A", "1-0", second)),
            ],
        );
        assert!(text(&out.stderr).contains(what), "{}", text(&out.stderr));
    }
}

#[test]
fn no_nan_anywhere_in_a_match_report() {
    // All games drawn (max_moves adjudication after 2 moves): cutechess and
    // fastchess print nan here.
    let dir = scratch("draws");
    let cfg = fake_config(
        &dir,
        "",
        "",
        "games = 2\nnodes = 10\n[match.adjudication]\nmax_moves = 2",
    );
    let out = run(&[
        "match",
        "--config",
        cfg.to_str().unwrap(),
        "--no-pgn",
        "--sprt",
        "0,10",
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stdout,
        "Score of a vs b: 0 - 0 - 2  [0.500] 2\n\
         Elo difference: 0.0 +/- n/a, LOS: 50.0 %, DrawRatio: 100.0 %\n\
         Ptnml(0-2): [0, 0, 1, 0, 0], WL/DD: 0, 1, Elo: 0.00 +/- n/a (95% CI from 1 pairs)\n\
         SPRT: llr -0.03 (-0.9%), lbound -2.94, ubound 2.94 - continue [elo0 0, elo1 10, alpha 0.05, beta 0.05, logistic Elo]\n"
    );
    let all = format!("{stdout}{stderr}").to_lowercase();
    assert!(!all.contains("nan") && !all.contains("inf "), "{all}");
}

// ---------------------------------------------------------------- engines' output is data

/// An engine that logs a Latin-1 byte (not UTF-8) and then more than a pipe
/// holds on stderr plays on: its stderr is read as bytes to the end.
#[test]
fn an_engine_writing_non_utf8_to_stderr_keeps_playing() {
    let dir = scratch("latin1");
    // b writes 16 KiB of stderr per move, 128 KiB per game: twice what the pipe
    // holds, so an engine whose stderr is no longer read blocks (or, the pipe
    // closed, dies) during its 5th move.
    let cfg = fake_config(
        &dir,
        "",
        "--stderr-kib 16",
        "games = 2\nnodes = 10\nmove_timeout = 1\n[match.adjudication]\nmax_moves = 8",
    );
    let out = run(&["match", "--config", cfg.to_str().unwrap(), "--no-pgn"]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    let finished: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("Finished game"))
        .collect();
    assert_eq!(finished.len(), 2, "{err}");
    for l in finished {
        assert!(
            l.contains(": 1/2-1/2 {Draw by adjudication: maximum length of 8 moves}"),
            "{l}"
        );
    }
    assert!(
        text(&out.stdout).starts_with("Score of a vs b: 0 - 0 - 2  [0.500] 2\n"),
        "{}",
        text(&out.stdout)
    );
}

// ---------------------------------------------------------------- the variant is the runner's

/// The runner owns the variant: `UCI_Variant` among an engine's options (in any
/// case) is refused before anything runs, with the file and line.
#[test]
fn uci_variant_among_engine_options_is_refused() {
    let dir = scratch("uci-variant");
    let fake = common::fake_engine();
    for key in ["UCI_Variant", "uci_variant"] {
        let body = format!(
            "[[engine]]\nname = \"a\"\ncmd = \"{fake}\"\n\n\
             [[engine]]\nname = \"b\"\ncmd = \"{fake}\"\n\
             options = {{ Hash = 16, {key} = \"pacifist\" }}\n\n\
             [match]\ngames = 2\nnodes = 10\n[match.adjudication]\nmax_moves = 4\n"
        );
        let cfg = dir.join("engines.toml");
        std::fs::write(&cfg, body).unwrap();
        let out = run(&[
            "match",
            "--config",
            cfg.to_str().unwrap(),
            "--variant",
            "chess",
            "--no-pgn",
        ]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{key}: {err}");
        assert!(
            err.contains(&format!(
                "error: {}:8: engine 'b': option '{key}' is not an engine option here: \
                 the runner sets UCI_Variant from --variant (or variant in [match]); remove it",
                cfg.display()
            )),
            "{key}: {err}"
        );
        assert!(!err.contains("Started game"), "{key}: {err}");
    }
}

// ---------------------------------------------------------------- the PGN and its state

/// Runs `args` until `n` games are finished, then kills the runner (SIGKILL).
fn kill_after(args: &[&str], n: usize) {
    let mut running = Running::start(args);
    running.wait_for(&format!("{n} finished games"), |e| {
        e.matches("Finished game").count() >= n
    });
    running.child.kill().unwrap();
    let _ = running.child.wait();
}

/// A match that fails to start (or any other match) on the PGN of an
/// interrupted one changes neither its PGN nor its state: the interrupted match
/// still resumes to the games of an uninterrupted run.
#[test]
fn another_match_on_an_interrupted_matchs_pgn_is_refused_and_changes_nothing() {
    let table =
        "games = 8\nnodes = 10\nrandom_plies = 2\nseed = 21\n[match.adjudication]\nmax_moves = 6";
    let Interrupted {
        dir,
        cfg,
        once,
        whole,
        cut,
    } = interrupted_match("state-kept", "--delay-ms 15", table, 2);
    let c = cfg.to_str().unwrap();
    let cut_s = cut.to_str().unwrap();
    let state = dir.join("cut.pgn.state");
    let (pgn_then, state_then) = (std::fs::read(&cut).unwrap(), std::fs::read(&state).unwrap());
    let held = games_of(&cut).len();
    assert!((2..8).contains(&held), "{held} games");

    // Another match whose engine option has a typo (it would fail to start), the
    // same with valid options, and this very match without --resume.
    let typo = dir.join("typo.toml");
    let fake = common::fake_engine();
    std::fs::write(
        &typo,
        format!(
            "[[engine]]\nname = \"a\"\ncmd = \"{fake}\"\noptions = {{ Hsh = 16 }}\n\n\
             [[engine]]\nname = \"b\"\ncmd = \"{fake}\"\n\n[match]\ngames = 4\nnodes = 10\n"
        ),
    )
    .unwrap();
    let t = typo.to_str().unwrap();
    for args in [
        vec!["match", "--config", t, "--pgn", cut_s],
        vec!["match", "--config", c, "--pgn", cut_s, "--games", "4"],
        vec!["match", "--config", c, "--pgn", cut_s],
    ] {
        let out = run(&args);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "error: '{cut_s}' holds {held} games of an unfinished match (see {}): \
                 continue it with --resume and its options, or give this match another --pgn",
                state.display()
            )),
            "{args:?}:\n{err}"
        );
        assert!(!err.contains("Started game"), "{err}");
        assert_eq!(std::fs::read(&cut).unwrap(), pgn_then, "{args:?}");
        assert_eq!(std::fs::read(&state).unwrap(), state_then, "{args:?}");
    }

    let resumed = run(&["match", "--config", c, "--pgn", cut_s, "--resume"]);
    let err = text(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    assert_eq!(text(&resumed.stdout), text(&once.stdout));
    assert_eq!(summary(&games_of(&cut)), summary(&games_of(&whole)));
    // Finished, the match's PGN may be overwritten by another match.
    let state_text = std::fs::read_to_string(&state).unwrap();
    assert!(
        state_text.contains("\nfinished = \"true\"\n"),
        "{state_text}"
    );
    let other = run(&["match", "--config", c, "--pgn", cut_s, "--games", "2"]);
    assert!(other.status.success(), "{}", text(&other.stderr));
    assert_eq!(games_of(&cut).len(), 2);
    // So may one whose state does not say (written by an older runner).
    let state_text = std::fs::read_to_string(&state).unwrap();
    let older = state_text.replace("finished = \"true\"\n", "");
    assert_ne!(older, state_text);
    std::fs::write(&state, older).unwrap();
    let other = run(&["match", "--config", c, "--pgn", cut_s, "--games", "4"]);
    assert!(other.status.success(), "{}", text(&other.stderr));
    assert_eq!(games_of(&cut).len(), 4);
}

/// A state file that is not one (corrupt, or another program's) is an error
/// with or without --resume, and neither it nor the PGN is touched.
#[test]
fn a_corrupt_or_foreign_state_file_is_an_error_and_is_left_alone() {
    let dir = scratch("bad-state");
    let cfg = fake_config(&dir, "", "", "games = 2\nnodes = 10");
    let c = cfg.to_str().unwrap();
    let pgn_path = dir.join("g.pgn");
    let p = pgn_path.to_str().unwrap();
    let state = dir.join("g.pgn.state");
    let held = "[Event \"x\"]\n[Round \"1\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n";
    for (body, why) in [
        ("this is { not TOML", "not a match state file: "),
        ("[package]\nname = \"x\"\n", "not a match state file: "),
        (
            "title = \"my notes\"\n",
            "not a match state file: no 'variant'",
        ),
    ] {
        for pgn_before in [None, Some(held)] {
            for resume in [false, true] {
                std::fs::write(&state, body).unwrap();
                match pgn_before {
                    Some(t) => std::fs::write(&pgn_path, t).unwrap(),
                    None => {
                        let _ = std::fs::remove_file(&pgn_path);
                    }
                }
                let mut args = vec!["match", "--config", c, "--pgn", p];
                if resume {
                    args.push("--resume");
                }
                let out = run(&args);
                let err = text(&out.stderr);
                let case = format!("{body:?} pgn {pgn_before:?} resume {resume}");
                assert!(!out.status.success(), "{case}: {err}");
                assert!(
                    err.contains(&format!("error: {}: {why}", state.display())),
                    "{case}:\n{err}"
                );
                assert!(
                    err.contains(
                        "nothing was changed: remove it, or give this match another --pgn"
                    ),
                    "{case}:\n{err}"
                );
                assert!(!err.contains("Started game"), "{case}: {err}");
                assert_eq!(std::fs::read_to_string(&state).unwrap(), body, "{case}");
                match pgn_before {
                    Some(t) => {
                        assert_eq!(std::fs::read_to_string(&pgn_path).unwrap(), t, "{case}")
                    }
                    None => assert!(!pgn_path.exists(), "{case}: PGN left behind"),
                }
            }
        }
    }
}

/// A shard killed while writing a game: `match-merge` drops the unfinished game
/// (as `--resume` does) and says so; shards of different seeds are refused.
#[test]
fn match_merge_drops_a_cut_off_game_and_refuses_shards_of_other_seeds() {
    let dir = scratch("merge-cut");
    let cfg = fake_config(
        &dir,
        "",
        "--score 7",
        "games = 8\nnodes = 10\nrandom_plies = 2\n[match.adjudication]\nmax_moves = 6",
    );
    let c = cfg.to_str().unwrap();
    let play = |seed: &str, shard: Option<&str>, file: &str| -> (PathBuf, String) {
        let path = dir.join(file);
        let mut args = vec![
            "match",
            "--config",
            c,
            "--seed",
            seed,
            "--pgn",
            path.to_str().unwrap(),
        ];
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        let out = run(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (path, text(&out.stdout))
    };
    let (_, whole) = play("31", None, "whole.pgn");
    let (s1, _) = play("31", Some("1/2"), "s1.pgn");
    let (s2, _) = play("31", Some("2/2"), "s2.pgn");
    let complete = std::fs::read_to_string(&s2).unwrap();
    let second_game = complete.match_indices("\n[Event ").nth(1).unwrap().0 + 1;
    // Cut in the tags, in the movetext, and in a comment of a game after the last.
    let next = &complete[second_game..];
    let cuts = [
        "[Event \"Turncoat match (chess, nodes 10)\"]\n[Site \"?\"]\n[Da".to_string(),
        next[..next.find("\n\n").unwrap() + 8].to_string(),
        next[..next.find('{').unwrap() + 3].to_string(),
    ];
    for cut in cuts {
        std::fs::write(&s2, format!("{complete}{cut}")).unwrap();
        let merged = run(&["match-merge", s1.to_str().unwrap(), s2.to_str().unwrap()]);
        let err = text(&merged.stderr);
        assert!(merged.status.success(), "{cut:?}: {err}");
        assert_eq!(
            err,
            format!(
                "dropped 1 unfinished game at the end of {} (cut off while it was written)\n",
                s2.display()
            ),
            "{cut:?}"
        );
        assert_eq!(text(&merged.stdout), whole, "{cut:?}");
    }

    let (other, _) = play("32", Some("2/2"), "other-seed.pgn");
    let merged = run(&["match-merge", s1.to_str().unwrap(), other.to_str().unwrap()]);
    let err = text(&merged.stderr);
    assert!(!merged.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "error: cannot merge different matches: seeds (of the random openings) differ: \
             {} game 1 has Seed \"31\", {} game 1 has Seed \"32\"",
            s1.display(),
            other.display()
        )),
        "{err}"
    );
    assert!(text(&merged.stdout).is_empty());
}

// ---------------------------------------------------------------- engine text in the PGN

/// An illegal "move" that closes a PGN comment and opens another stays inside
/// the game's final comment: the PGN holds exactly the moves played, and
/// `match-merge` and `--resume` read it back.
#[test]
fn an_engines_move_text_cannot_break_out_of_a_pgn_comment() {
    let dir = scratch("comment");
    let cfg = fake_config(
        &dir,
        "",
        "--mode illegal --at 2 --illegal-text }Nf6{",
        "games = 2\nnodes = 10\nrandom_plies = 2\nseed = 41",
    );
    let c = cfg.to_str().unwrap();
    let pgn_path = dir.join("c.pgn");
    let p = pgn_path.to_str().unwrap();
    let first = run(&["match", "--config", c, "--pgn", p]);
    let err = text(&first.stderr);
    assert!(first.status.success(), "{err}");
    assert!(
        err.contains("game 1: b (Black) plays the illegal move '?Nf6?' in "),
        "{err}"
    );
    let games = games_of(&pgn_path);
    assert_eq!(games.len(), 2);
    // b forfeits at its second move: as Black after 3 plies, as White after 2.
    for (g, (plies, side)) in games.iter().zip([(3, "Black"), (2, "White")]) {
        assert_eq!(g.moves.len(), plies, "{g:?}");
        pgn::replay(g).unwrap();
        assert_eq!(
            g.comments.last().cloned().flatten().as_deref(),
            Some(format!("{side} makes an illegal move: ?Nf6?").as_str())
        );
        assert_eq!(g.tag("Termination"), Some("rules infraction"));
    }
    let merged = run(&["match-merge", p]);
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    assert_eq!(text(&merged.stdout), text(&first.stdout));
    let resumed = run(&["match", "--config", c, "--pgn", p, "--resume"]);
    let err = text(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    assert!(
        err.contains(&format!("Resuming from {p}: 2 games already played")),
        "{err}"
    );
    assert_eq!(text(&resumed.stdout), text(&first.stdout));

    // A long text is cut after 40 characters.
    let long = format!("e2e4{{{}", "x".repeat(60));
    let cfg = fake_config(
        &dir,
        "",
        &format!("--mode illegal --at 1 --illegal-text {long}"),
        "games = 1\nnodes = 10",
    );
    let out = run(&["match", "--config", cfg.to_str().unwrap(), "--no-pgn"]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    let shown = format!("e2e4?{}...", "x".repeat(35));
    assert!(
        err.contains(&format!(
            "(a vs b): 1-0 {{Black makes an illegal move: {shown}}}"
        )),
        "{err}"
    );
}

/// Engine names are data too: quotes and backslashes survive the PGN tags (and
/// `match-merge` and `--resume` read them back); a line break is refused in the
/// config.
#[test]
fn engine_names_with_quotes_and_backslashes_round_trip_and_line_breaks_are_refused() {
    let dir = scratch("names");
    let fake = common::fake_engine();
    let body = format!(
        "[[engine]]\nname = \"he said \\\"hi\\\"\"\ncmd = \"{fake}\"\n\n\
         [[engine]]\nname = \"back\\\\slash]\"\ncmd = \"{fake}\"\n\n\
         [match]\ngames = 2\nnodes = 10\nrandom_plies = 2\nseed = 42\n\
         [match.adjudication]\nmax_moves = 3\n"
    );
    let cfg = dir.join("engines.toml");
    std::fs::write(&cfg, body).unwrap();
    let c = cfg.to_str().unwrap();
    let pgn_path = dir.join("n.pgn");
    let p = pgn_path.to_str().unwrap();
    let first = run(&["match", "--config", c, "--pgn", p]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let out = text(&first.stdout);
    assert!(
        out.starts_with("Score of he said \"hi\" vs back\\slash]: 0 - 0 - 2  [0.500] 2\n"),
        "{out}"
    );
    let games = games_of(&pgn_path);
    assert_eq!(games[0].tag("White"), Some("he said \"hi\""));
    assert_eq!(games[0].tag("Black"), Some("back\\slash]"));
    let merged = run(&["match-merge", p]);
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    assert_eq!(text(&merged.stdout), out);
    let resumed = run(&["match", "--config", c, "--pgn", p, "--resume"]);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(text(&resumed.stdout), out);

    for (name, shown) in [("two\\nlines", "two\\nlines"), ("tab\\there", "tab\\there")] {
        let body = format!(
            "[[engine]]\nname = \"a\"\ncmd = \"{fake}\"\n\n\
             [[engine]]\nname = \"{name}\"\ncmd = \"{fake}\"\n"
        );
        std::fs::write(&cfg, body).unwrap();
        let out = run(&["match", "--config", c, "--no-pgn"]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{err}");
        assert!(
            err.contains(&format!(
                "error: {c}:6: engine name \"{shown}\" must be non-empty and contain no comma \
                 and no control character (line break, tab)"
            )),
            "{err}"
        );
    }
}

// ---------------------------------------------------------------- clocks and timeouts

#[test]
fn absurd_clocks_and_timeouts_are_refused_and_the_longest_clock_works() {
    let dir = scratch("clock-limits");
    let log = dir.join("a-go.log");
    let cfg = fake_config(
        &dir,
        &format!("--log-go {}", log.display()),
        "",
        "games = 2\nrandom_plies = 2\nseed = 3\n[match.adjudication]\nmax_moves = 2",
    );
    let c = cfg.to_str().unwrap();
    let limit = "2147483.647 s (about 24.8 days)";
    for (flag, value, expected) in [
        (
            "--tc",
            "9300000000000000",
            format!(
                "error: bad time control '9300000000000000': the base time is more than {limit}"
            ),
        ),
        (
            "--tc",
            "2147483.648",
            format!("error: bad time control '2147483.648': the base time is more than {limit}"),
        ),
        (
            "--tc",
            "10+9300000000000000",
            format!(
                "error: bad time control '10+9300000000000000': the increment is more than {limit}"
            ),
        ),
        (
            "--tc",
            "0.0001",
            "error: bad time control '0.0001': the base time must be at least 0.001 s".to_string(),
        ),
        (
            "--movetime",
            "9300000000000000000",
            "error: movetime must be at most 2147483647 ms (about 24.8 days)".to_string(),
        ),
    ] {
        let out = run(&["match", "--config", c, "--no-pgn", flag, value]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{flag} {value}: {err}");
        assert!(err.contains(&expected), "{flag} {value}:\n{err}");
        assert!(!err.contains("Started game"), "{err}");
    }
    // The longest clock is sent as it is: a's first `go` of game 1 (as White).
    let out = run(&["match", "--config", c, "--no-pgn", "--tc", "2147483.647"]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("loses on time"), "{err}");
    let sent = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        sent.lines().next(),
        Some("go wtime 2147483647 btime 2147483647 winc 0 binc 0"),
        "{sent}"
    );

    // Timeouts and the margin: a sane minimum and the same maximum.
    for (line, expected) in [
        (
            "move_timeout = 0.0001",
            "move_timeout must be between 0.1 and 2147483.647 seconds (got 0.0001)",
        ),
        (
            "start_timeout = 0.0001",
            "start_timeout must be between 0.1 and 2147483.647 seconds (got 0.0001)",
        ),
        (
            "move_timeout = 1e30",
            "move_timeout must be between 0.1 and 2147483.647 seconds (got 1000000000000000000000000000000)",
        ),
        (
            "time_margin = 9300000000000000",
            "time_margin must be at most 2147483647 ms",
        ),
    ] {
        let cfg = fake_config(&dir, "", "", &format!("games = 2\nnodes = 10\n{line}"));
        let out = run(&["match", "--config", cfg.to_str().unwrap(), "--no-pgn"]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{line}: {err}");
        assert!(
            err.contains(&format!("error: {}:14: {expected}", cfg.display())),
            "{line}:\n{err}"
        );
    }
}

// ---------------------------------------------------------------- a decided SPRT, a vanished PGN

/// `--resume` of a match its SPRT has decided plays no more games and reports the
/// decision again.
#[test]
fn resuming_a_decided_sprt_match_plays_nothing_and_reports_the_decision() {
    let dir = scratch("sprt-resume");
    let cfg = fake_config(
        &dir,
        "",
        "--mode illegal --at 1",
        "games = 200\nnodes = 10\nrandom_plies = 2\nseed = 51\nsprt = \"0,50\"",
    );
    let c = cfg.to_str().unwrap();
    let pgn_path = dir.join("sprt.pgn");
    let p = pgn_path.to_str().unwrap();
    let first = run(&["match", "--config", c, "--pgn", p]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    // Every game a win for a: the SPRT accepts H1 after 23 pairs (see
    // tests/tournament.rs, sprt_stops_the_match_when_decided).
    let report = text(&first.stdout);
    let sprt_line = report.lines().last().unwrap_or("");
    assert!(
        sprt_line
            .starts_with("SPRT: llr 3.07 (104.4%), lbound -2.94, ubound 2.94 - H1 was accepted"),
        "{report}"
    );
    assert_eq!(games_of(&pgn_path).len(), 46);
    let again = run(&["match", "--config", c, "--pgn", p, "--resume"]);
    let err = text(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert!(
        err.contains(&format!("Resuming from {p}: 46 games already played")),
        "{err}"
    );
    assert!(!err.contains("Started game"), "{err}");
    assert_eq!(text(&again.stdout), report);
    assert_eq!(games_of(&pgn_path).len(), 46);
}

/// The PGN's directory removed during the match, or another file put in the
/// PGN's place: the runner says so and stops with a non-zero status instead of
/// writing on into a file nobody can reach.
#[test]
fn a_pgn_removed_during_the_match_stops_it_with_an_error() {
    let dir = scratch("pgn-gone");
    let cfg = fake_config(
        &dir,
        "--delay-ms 20",
        "--delay-ms 20",
        "games = 20\nnodes = 10\nrandom_plies = 2\nseed = 61\n[match.adjudication]\nmax_moves = 6",
    );
    let sub = dir.join("out");
    let pgn_path = sub.join("m.pgn");
    let p = pgn_path.to_str().unwrap();
    let lost = "stopping: the games written to it are not there any more; their results are in \
                the lines above";
    for replace in [false, true] {
        let running = Running::start(&["match", "--config", cfg.to_str().unwrap(), "--pgn", p]);
        running.wait_for("the first finished game", |e| {
            e.contains("Finished game 1 ")
        });
        let why = if replace {
            std::fs::rename(&pgn_path, dir.join("moved.pgn")).unwrap();
            std::fs::write(&pgn_path, "").unwrap();
            "another file took its place during the match"
        } else {
            std::fs::remove_dir_all(&sub).unwrap();
            "it was removed (or its directory) during the match"
        };
        let (status, _, err) = running.finish();
        assert!(!status.success(), "{err}");
        assert!(
            err.contains(&format!(
                "error: cannot write PGN file '{p}': {why}; {lost}"
            )),
            "{err}"
        );
        assert!(err.matches("Finished game").count() < 20, "{err}");
    }
}
