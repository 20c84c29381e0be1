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
