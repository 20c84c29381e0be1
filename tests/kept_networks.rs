//! The networks kept in `networks/`: the generations of lineages that are not
//! shipped, kept because the data they were trained on is not (a lost machine
//! loses the data, and the next generation is played by the newest network).
//! Each one loads as `EvalFile` and `datagen --eval-file` load it, and each is
//! named in the folder's README, which says what it learnt from and how it
//! was made: no network in the tree is a file nobody can explain.

use std::path::{Path, PathBuf};

use turncoat::engine::nnue;

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("networks")
}

/// The `.net` files of the folder, by name.
fn kept() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder())
        .expect("networks/ is in the tree")
        .map(|entry| entry.expect("a readable entry").file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".net"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_kept_network_loads() {
    let names = kept();
    assert!(!names.is_empty(), "networks/ keeps at least one network");
    for name in names {
        if let Err(e) = nnue::load_file(&folder().join(&name)) {
            panic!("networks/{name} does not load: {e}");
        }
    }
}

#[test]
fn every_kept_network_is_described() {
    let readme =
        std::fs::read_to_string(folder().join("README.md")).expect("networks/README.md exists");
    for name in kept() {
        assert!(
            readme.contains(&format!("`{name}`")),
            "networks/README.md does not describe {name}"
        );
    }
}
