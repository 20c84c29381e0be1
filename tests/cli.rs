//! The command line: subcommands print what users expect and bad input gives a
//! clear message and a non-zero exit, never a panic.

mod common;

fn run(args: &[&str]) -> (bool, String, String) {
    common::run_turncoat(args)
}

#[test]
fn perft_counts_and_divides() {
    let (ok, out, _) = run(&["perft", "--variant", "chess", "--startpos", "--depth", "3"]);
    assert!(ok);
    assert!(out.contains("Nodes searched: 8902"), "{out}");
    let (ok, out, _) = run(&[
        "perft",
        "--fen",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "--depth",
        "1",
        "--divide",
    ]);
    assert!(ok);
    assert!(out.contains("e1g1: 1") && out.contains("e1c1: 1"), "{out}");
    assert!(out.contains("Nodes searched: 26"), "{out}");
    let (ok, out, _) = run(&["perft", "--depth", "4", "--threads", "2"]);
    assert!(ok);
    assert!(out.contains("Nodes searched: 197281"), "{out}");
}

#[test]
fn bench_prints_nodes_and_speed() {
    let (ok, out, _) = run(&["bench", "4"]);
    assert!(ok);
    assert!(out.contains("Nodes searched  : "), "{out}");
    assert!(out.contains("Nodes/second    : "), "{out}");
    // The node count is the build's signature: the same twice.
    let (_, again, _) = run(&["bench", "4"]);
    let nodes = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("Nodes searched"))
            .map(str::to_string)
    };
    assert_eq!(nodes(&out), nodes(&again));
}

#[test]
fn bad_input_exits_non_zero_with_a_message() {
    for (args, needle) in [
        (
            vec!["perft", "--fen", "not a fen", "--depth", "2"],
            "invalid FEN",
        ),
        (
            vec!["perft", "--variant", "checkers", "--depth", "2"],
            "unknown variant 'checkers'",
        ),
        (vec!["perft", "--depth", "0"], "depth must be"),
        (vec!["perft", "--depth", "x"], "invalid value"),
        (
            vec!["perft", "--depth", "2", "--threads", "100000"],
            "--threads must be 1..256",
        ),
        (
            vec!["perft", "--depth", "2", "--threads", "0"],
            "--threads must be 1..256",
        ),
        (vec!["bench", "3", "--variant", "nope"], "unknown variant"),
        (vec!["frobnicate"], "unrecognized subcommand"),
    ] {
        let (ok, _, err) = run(&args);
        assert!(!ok, "{args:?} succeeded");
        assert!(err.contains(needle), "{args:?}: '{err}' lacks '{needle}'");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    }
}

#[test]
fn help_for_every_subcommand() {
    for sub in ["perft", "bench", "match"] {
        let (ok, out, _) = run(&[sub, "--help"]);
        assert!(ok, "{sub} --help");
        assert!(out.contains("Usage: turncoat"), "{out}");
    }
}

/// The commit this checkout is at, its date and whether `v<version>` tags it,
/// from git; `None` (a note, a failure under `CI=true`) outside a checkout.
fn checkout() -> Option<(String, String, bool)> {
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let (Some(commit), Some(date), Some(tags)) = (
        git(&["rev-parse", "--short=7", "HEAD"]),
        git(&["log", "-1", "--format=%cs", "HEAD"]),
        git(&["tag", "--points-at", "HEAD"]),
    ) else {
        common::skip_or_fail("the build's name", "not a git checkout (or no git)");
        return None;
    };
    let tagged = tags
        .lines()
        .any(|t| t == format!("v{}", env!("CARGO_PKG_VERSION")));
    Some((commit, date, tagged))
}

/// `turncoat -V` names the version, the commit and its date, `--version` adds
/// the network kernel, and `id name` is `Turncoat <version>` for a tagged
/// release and `Turncoat <version>-dev-<commit>` otherwise.
#[test]
fn version_names_the_build() {
    let Some((commit, date, tagged)) = checkout() else {
        return;
    };
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(version, "1.0.0");
    let (ok, out, _) = run(&["-V"]);
    assert!(ok);
    assert_eq!(out, format!("turncoat {version} ({commit} {date})\n"));
    let (ok, out, _) = run(&["--version"]);
    assert!(ok);
    let kernel = turncoat::engine::nnue::dot_kernel();
    assert_eq!(
        out,
        format!("turncoat {version} ({commit} {date})\nnetwork kernel: {kernel}\n")
    );
    let name = if tagged {
        format!("Turncoat {version}")
    } else {
        format!("Turncoat {version}-dev-{commit}")
    };
    assert_eq!(turncoat::engine::NAME, name);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_turncoat"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("engine starts");
    use std::io::Write as _;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"uci\nquit\n")
        .expect("write");
    let out = child.wait_with_output().expect("exits");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().next(),
        Some(format!("id name {name}").as_str())
    );
}
