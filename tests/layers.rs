//! The layers are crates, and each crate's manifest names the only crates it may
//! use: the compiler refuses any other import. This test pins the manifests, so
//! that an upward or sideways dependency (the rules on the engine, a front end
//! on another front end) fails here with the edge that broke the layering.

use std::fs;
use std::path::Path;

/// Each workspace crate and the Turncoat crates it may depend on.
const ALLOWED: &[(&str, &[&str])] = &[
    ("crates/rules", &[]),
    ("crates/engine", &["turncoat-rules"]),
    ("crates/uci", &["turncoat-rules", "turncoat-engine"]),
    ("crates/tournament", &["turncoat-rules", "turncoat-engine"]),
    ("crates/board", &["turncoat-rules", "turncoat-engine"]),
    (
        "crates/serve",
        &["turncoat-rules", "turncoat-engine", "turncoat-board"],
    ),
    (
        "crates/wasm",
        &["turncoat-rules", "turncoat-engine", "turncoat-board"],
    ),
    ("crates/tools", &["turncoat-rules", "turncoat-engine"]),
];

/// The `turncoat-*` names in a manifest's dependency tables (not dev-dependencies).
fn turncoat_dependencies(manifest: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]"
                || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
            continue;
        }
        if in_dependencies {
            let name = line.split(['=', '.', ' ']).next().unwrap_or("");
            if name.starts_with("turncoat") {
                found.push(name.to_string());
            }
        }
    }
    found
}

#[test]
fn every_crate_depends_only_on_the_layers_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut crates: Vec<String> = fs::read_dir(root.join("crates"))
        .expect("crates/")
        .map(|e| format!("crates/{}", e.expect("entry").file_name().to_string_lossy()))
        .collect();
    crates.sort();
    let mut listed: Vec<String> = ALLOWED.iter().map(|(c, _)| c.to_string()).collect();
    listed.sort();
    assert_eq!(crates, listed, "a crate without a place in the layering");
    for (dir, allowed) in ALLOWED {
        let manifest = fs::read_to_string(root.join(dir).join("Cargo.toml")).expect("manifest");
        for dep in turncoat_dependencies(&manifest) {
            assert!(
                allowed.contains(&dep.as_str()),
                "{dir} depends on {dep}; it may use only {allowed:?}"
            );
        }
    }
}

#[test]
fn the_manifest_reader_sees_a_sideways_dependency() {
    let manifest = "[package]\nname = \"x\"\n\n[dependencies]\nturncoat-rules.workspace = true\n\
                    turncoat-serve = { path = \"../serve\" }\n\n[dev-dependencies]\nturncoat-tools = \"1\"\n";
    assert_eq!(
        turncoat_dependencies(manifest),
        vec!["turncoat-rules".to_string(), "turncoat-serve".to_string()]
    );
}

/// The lean engine (`--no-default-features`) links none of the servers' crates.
#[test]
fn the_lean_build_has_no_server_dependencies() {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "tree",
            "--no-default-features",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(tree.contains("turncoat-engine"), "{tree}");
    for heavy in [
        "tokio ",
        "axum ",
        "hyper ",
        "toml ",
        "ctrlc ",
        "turncoat-serve",
        "turncoat-tournament",
        "turncoat-tools",
    ] {
        assert!(
            !tree.contains(heavy),
            "the lean build pulls in {heavy}:\n{tree}"
        );
    }
}
