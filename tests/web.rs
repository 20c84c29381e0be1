//! The web board as static files: the build of `scripts/build-web.sh` served
//! by `python3 -m http.server` (no turncoat process), driven in headless
//! Chromium by tests/browser/test_static.py: every variant's special moves by
//! clicks, analysis, play, PGN, the game as a link (reload, a fresh page, bad
//! links). Then the same answers: the WebAssembly engine's perft counts and
//! fixed-depth best move, score and node count for positions of every
//! variant must equal this (native) build's.
//!
//! Needs the static build in `target/web` (or `TURNCOAT_WEB_DIR`), made by
//! `scripts/build-web.sh target/web`, `TURNCOAT_BROWSER_PYTHON` (a Python with
//! Playwright) and /usr/bin/chromium (or `TURNCOAT_CHROMIUM`); `.ci/run` makes
//! and installs all three. Without them the test says why and passes, except
//! under `CI=true`, where that is a failure.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};
use turncoat::engine::bench;
use turncoat::rules::variants::VariantKind;
use turncoat::rules::{fen, perft, with_variant};

mod common;

/// Depth of the searches compared: deep enough for the networks, the
/// pruning and the tables to shape the tree, quick in the browser.
const SEARCH_DEPTH: u32 = 7;
/// Perft depth of the positions compared.
const PERFT_DEPTH: u32 = 3;
/// Positions of each variant compared (the first of its perft file's).
const POSITIONS_PER_VARIANT: usize = 3;

/// The file server, stopped when dropped.
struct FileServer(Child);

impl Drop for FileServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `python3 -m http.server` on a free port in `dir`; its URL.
fn file_server(dir: &Path) -> (FileServer, String) {
    let mut child = Command::new("python3")
        .args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1"])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 -m http.server starts");
    let stdout = child.stdout.take().expect("its stdout");
    let server = FileServer(child);
    // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the server's first line");
    let port = line
        .split_whitespace()
        .skip_while(|w| *w != "port")
        .nth(1)
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    (server, format!("http://127.0.0.1:{port}/"))
}

/// The positions compared: the bench's first chess positions, and the first
/// positions of each variant's perft file.
fn cases() -> Vec<(VariantKind, String)> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut out = Vec::new();
    for fen in bench::CHESS_POSITIONS.iter().take(POSITIONS_PER_VARIANT) {
        out.push((VariantKind::Chess, fen.to_string()));
    }
    for &v in VariantKind::ALL {
        if v == VariantKind::Chess {
            continue;
        }
        let text = std::fs::read_to_string(data.join(format!("{}_perft.json", v.name())))
            .expect("the variant's perft file");
        let entries: Vec<Value> = serde_json::from_str(&text).expect("perft JSON");
        let mut fens: Vec<String> = Vec::new();
        for e in entries {
            let f = e["fen"].as_str().expect("fen");
            let f = if f == "startpos" { v.start_fen() } else { f };
            if !fens.iter().any(|g| g == f) {
                fens.push(f.to_string());
            }
        }
        out.extend(fens.into_iter().take(POSITIONS_PER_VARIANT).map(|f| (v, f)));
    }
    out
}

fn native_perft(v: VariantKind, fen_text: &str, depth: u32) -> u64 {
    with_variant!(v, V => perft::perft(&fen::parse::<V>(fen_text).expect("FEN"), depth))
}

/// The static build's page files are the page's sources: a build older than
/// the page would test something else.
fn check_fresh(web: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/serve/src/static");
    for name in [
        "app.js",
        "backend.js",
        "engine-worker.js",
        "app.css",
        "editor.js",
        "editor.css",
    ] {
        let built = std::fs::read(web.join("static").join(name)).unwrap_or_default();
        let source = std::fs::read(src.join(name)).expect("page source");
        assert!(
            built == source,
            "{}/static/{name} differs from the page's source: rebuild with scripts/build-web.sh {}",
            web.display(),
            web.display()
        );
    }
}

/// Each network is in the module once: the page downloads every byte of it
/// before the first move (a constant's bytes, copied where it is used, once
/// put each network in twice).
fn networks_once(module: &Path) {
    let wasm = std::fs::read(module).expect("the module");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/engine/src/nnue");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("the networks") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "net") {
            continue;
        }
        let net = std::fs::read(&path).expect("a network");
        // The output layers at the file's end: trained weights, unlike the
        // zero columns of features that never occur.
        let tail = &net[net.len() - 256..];
        let copies = wasm.windows(tail.len()).filter(|w| *w == tail).count();
        assert_eq!(copies, 1, "{} in the module {copies} times", path.display());
        checked += 1;
    }
    assert!(checked >= 6, "{checked} networks found");
}

#[test]
fn static_board_in_chromium() {
    let Some((python, chromium)) = common::browser_tools("static board test") else {
        return;
    };
    let web: PathBuf = std::env::var_os("TURNCOAT_WEB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/web"));
    if !web.join("static/wasm/turncoat_wasm_bg.wasm").exists() {
        return common::skip_or_fail(
            "static board test",
            &format!(
                "no static build in {} (make it with scripts/build-web.sh {})",
                web.display(),
                web.display()
            ),
        );
    }
    check_fresh(&web);
    networks_once(&web.join("static/wasm/turncoat_wasm_bg.wasm"));

    let out: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("static-board");
    std::fs::create_dir_all(&out).unwrap();
    let pgns = [
        out.join("match-chess.pgn"),
        out.join("match-cruisepawns.pgn"),
    ];
    common::match_pgn("chess", &pgns[0]);
    common::match_pgn("cruisepawns", &pgns[1]);
    // A game longer than one position request carries: kept whole on a
    // reload and in its link.
    let long = out.join("long-chess.pgn");
    std::fs::write(&long, common::long_game_pgn(common::LONG_GAME_PLIES)).unwrap();
    let cases = cases();
    let cases_file = out.join("cases.json");
    let listed: Vec<Value> = cases
        .iter()
        .map(|(v, f)| {
            json!({"variant": v.name(), "fen": f, "perft_depth": PERFT_DEPTH, "search_depth": SEARCH_DEPTH})
        })
        .collect();
    std::fs::write(&cases_file, serde_json::to_string(&listed).unwrap()).unwrap();

    let (_server, url) = file_server(&web);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/test_static.py");
    let result = Command::new(&python)
        .arg(&script)
        .arg(&url)
        .arg(&out)
        .arg(&web)
        .arg(&cases_file)
        .args(&pgns)
        .env("TURNCOAT_CHROMIUM", &chromium)
        .env("TURNCOAT_LONG_GAME", &long)
        .output()
        .expect("run the browser test");
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        result.status.success(),
        "browser test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains(" 0 failed steps"), "{stdout}");

    // The same answers as this build.
    let answers: Value = stdout
        .lines()
        .find_map(|l| l.strip_prefix("same-answers "))
        .map(|j| serde_json::from_str(j).expect("same-answers JSON"))
        .expect("the browser's answers");
    assert_eq!(
        answers["kernel"], "simd128",
        "the browser build's network kernel"
    );
    assert_eq!(answers["kernel_mismatches"], 0, "simd128 kernel vs scalar");
    let got = answers["cases"].as_array().expect("cases");
    assert_eq!(got.len(), cases.len());
    for ((v, f), wasm) in cases.iter().zip(got) {
        let what = format!("{} {f}", v.name());
        assert_eq!(
            wasm["perft"].as_u64(),
            Some(native_perft(*v, f, PERFT_DEPTH)),
            "perft {PERFT_DEPTH}: {what}"
        );
        let native = bench::search_position(*v, f, SEARCH_DEPTH).expect("search");
        let search = &wasm["search"];
        assert_eq!(
            search["best"].as_str(),
            native.best.as_deref(),
            "best move: {what}"
        );
        assert_eq!(
            search["score"].as_i64(),
            Some(i64::from(native.score)),
            "score: {what}"
        );
        assert_eq!(
            search["depth"].as_u64(),
            Some(u64::from(native.depth)),
            "depth: {what}"
        );
        assert_eq!(
            search["nodes"].as_u64(),
            Some(native.nodes),
            "nodes: {what}"
        );
    }
}
