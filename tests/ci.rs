//! What CI relies on: `.ci/run` runs the tests with `CI=true`, under which a
//! test that cannot find what it needs (`common::skip_or_fail`) fails instead of
//! passing with a note, and it runs the network tests a second time in a build
//! for generic x86-64.

mod common;

use std::path::Path;

#[test]
fn a_skip_says_why_and_fails_under_ci() {
    for ci in [None, Some(""), Some("false"), Some("0")] {
        assert_eq!(
            common::skip_note(ci, "some test", "no frobnicator"),
            "some test skipped: no frobnicator",
            "CI={ci:?}"
        );
    }
    for ci in ["true", "TRUE"] {
        let failed =
            std::panic::catch_unwind(|| common::skip_note(Some(ci), "some test", "no frobnicator"))
                .expect_err("a skip under CI must fail");
        assert_eq!(
            failed.downcast_ref::<String>().map(String::as_str),
            Some("some test cannot run under CI: no frobnicator"),
            "CI={ci}"
        );
    }
}

/// `.ci/run` exports `CI=true` before its first test run, and runs the network
/// tests in the build for any x86-64 CPU, told to expect the kernel the CPU
/// offers, then forced to SSE2 and to the scalar kernel.
#[test]
fn ci_run_sets_ci_and_tests_the_generic_build() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run");
    let script = std::fs::read_to_string(&path).expect(".ci/run");
    let lines: Vec<&str> = script.lines().map(str::trim).collect();
    let export = lines.iter().position(|l| *l == "export CI=true");
    let first_test = lines.iter().position(|l| l.contains("cargo test"));
    assert!(
        export.is_some() && export < first_test,
        "no `export CI=true` before the first `cargo test` in .ci/run"
    );
    let joined = script.replace("\\\n", " ");
    let generic: Vec<&str> = joined
        .lines()
        .filter(|l| l.contains("RUSTFLAGS=\"-C target-cpu=x86-64\""))
        .collect();
    let parts: [&[&str]; 2] = [
        &[
            "TURNCOAT_DOT_KERNEL=$native",
            "cargo test --target-dir target/generic --test nnue --test networks",
        ],
        &[
            "TURNCOAT_FORCE_KERNEL=$forced TURNCOAT_DOT_KERNEL=$forced",
            "cargo test --target-dir target/generic --test nnue",
        ],
    ];
    assert_eq!(generic.len(), parts.len(), "{generic:?}");
    for (line, parts) in generic.iter().zip(parts) {
        for part in parts {
            assert!(line.contains(part), "{part} missing from: {line}");
        }
    }
    assert!(
        lines.contains(&"for forced in sse2 scalar; do"),
        "the generic build is not forced to SSE2 and scalar"
    );
}

/// `.ci/run` builds the board's static site into target/web (installing what
/// the build needs) before the first `cargo test`, where tests/web.rs serves
/// it to Chromium; and the wasm-bindgen crate is pinned to one exact version,
/// the one the installed command line must have.
#[test]
fn ci_run_builds_the_static_board_before_the_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join(".ci/run")).expect(".ci/run");
    let lines: Vec<&str> = script.lines().map(str::trim).collect();
    let build = lines
        .iter()
        .position(|l| *l == "scripts/build-web.sh --install target/web");
    let first_test = lines.iter().position(|l| l.contains("cargo test"));
    assert!(
        build.is_some() && build < first_test,
        "no `scripts/build-web.sh --install target/web` before the first `cargo test` in .ci/run"
    );
    let manifest =
        std::fs::read_to_string(root.join("crates/wasm/Cargo.toml")).expect("crates/wasm");
    let pin = manifest
        .lines()
        .find(|l| l.starts_with("wasm-bindgen ="))
        .expect("a wasm-bindgen dependency");
    assert!(
        pin.contains("\"=0."),
        "wasm-bindgen not pinned exactly: {pin}"
    );
}

/// `.ci/run` runs the cross builds (Windows under Wine, aarch64 under QEMU, a
/// static musl build) after the tests, and `scripts/cross-test.sh` fails, never
/// skips, when a tool it needs is missing: it is what says a release works.
#[test]
fn ci_run_runs_the_cross_builds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join(".ci/run")).expect(".ci/run");
    assert!(
        script
            .lines()
            .any(|l| l.trim() == "scripts/cross-test.sh windows aarch64 musl"),
        "no cross-test line in .ci/run"
    );
    let cross = std::fs::read_to_string(root.join("scripts/cross-test.sh")).expect("script");
    assert!(
        !cross.to_lowercase().contains("skip"),
        "cross-test.sh must not skip"
    );
    assert!(cross.contains(r#"need wine "#) && cross.contains(r#"need qemu-aarch64 "#));
    let out = std::process::Command::new("bash")
        .arg(root.join("scripts/cross-test.sh"))
        .arg("freebsd")
        .output()
        .expect("bash runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown argument freebsd"));
}
