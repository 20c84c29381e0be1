//! The layers of `src/lib.rs` hold: `src/rules/` names nothing above it, and
//! `src/engine/` names no front end. A file that imports upwards fails here with
//! its path and line.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// Every `path:line: text` under `dir` that names one of `forbidden`.
fn upward_imports(dir: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(!files.is_empty(), "no Rust files under {dir}");
    let mut found = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).expect("readable source");
        for (i, line) in text.lines().enumerate() {
            if forbidden.iter().any(|f| line.contains(f)) {
                found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    found
}

const FRONT_ENDS: &[&str] = &[
    "crate::uci",
    "crate::tournament",
    "crate::tools",
    "crate::serve",
    "crate::cli",
];

#[test]
fn rules_import_nothing_above_them() {
    let mut forbidden = vec!["crate::engine"];
    forbidden.extend_from_slice(FRONT_ENDS);
    let found = upward_imports("src/rules", &forbidden);
    assert!(
        found.is_empty(),
        "src/rules imports upwards:\n{}",
        found.join("\n")
    );
}

#[test]
fn engine_imports_no_front_end() {
    let found = upward_imports("src/engine", FRONT_ENDS);
    assert!(
        found.is_empty(),
        "src/engine imports a front end:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_an_upward_import() {
    // The scanner itself must find what it looks for: this file names the
    // engine, so scanning `tests` for it finds at least this line.
    let found = upward_imports("tests", &["crate::engine"]);
    assert!(found.iter().any(|l| l.contains("layers.rs")), "{found:?}");
}
