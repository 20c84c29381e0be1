//! Names the build: the commit and its date, and whether the commit is a
//! tagged release (`v` + the package version), read from git when the source
//! is a git checkout. `TURNCOAT_COMMIT` and `TURNCOAT_DATE` (and
//! `TURNCOAT_RELEASE=1`) name a build made from an unpacked source archive;
//! without either, the build is named by its version alone.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn main() {
    for var in ["TURNCOAT_COMMIT", "TURNCOAT_DATE", "TURNCOAT_RELEASE"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    // Rebuilt when HEAD moves (a commit, a checkout) or a tag is added.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/refs");
        println!("cargo:rerun-if-changed={dir}/packed-refs");
    }
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let commit = std::env::var("TURNCOAT_COMMIT")
        .ok()
        .or_else(|| git(&["rev-parse", "--short=7", "HEAD"]));
    let date = std::env::var("TURNCOAT_DATE")
        .ok()
        .or_else(|| git(&["log", "-1", "--format=%cs", "HEAD"]));
    let release = std::env::var("TURNCOAT_RELEASE").is_ok_and(|v| v == "1")
        || git(&["tag", "--points-at", "HEAD"])
            .is_some_and(|tags| tags.lines().any(|t| t == format!("v{version}")));
    // `Turncoat 1.0.0`, or `Turncoat 1.0.0-dev-abc1234` for another commit.
    let name = match (&commit, release) {
        (Some(c), false) => format!("Turncoat {version}-dev-{c}"),
        _ => format!("Turncoat {version}"),
    };
    println!("cargo:rustc-env=TURNCOAT_NAME={name}");
    println!(
        "cargo:rustc-env=TURNCOAT_COMMIT={}",
        commit.unwrap_or_default()
    );
    println!("cargo:rustc-env=TURNCOAT_DATE={}", date.unwrap_or_default());
}
