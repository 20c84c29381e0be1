//! `turncoat train` on bad input: labels that are not numbers in range are errors
//! naming the file and line, no network is written then, and `--out` is required
//! (it once defaulted to the shipped network).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXE: &str = env!("CARGO_BIN_EXE_turncoat");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("turncoat-train-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// 150 valid labelled positions (kings on e8 and e1, a white knight on one of
/// the 48 squares of ranks 2 to 7, varied scores), with `bad` as line 101.
fn data(bad: &str) -> String {
    let mut lines = Vec::new();
    for i in 0..150usize {
        if i == 100 {
            lines.push(bad.to_string());
            continue;
        }
        let (file, rank) = (i % 8, 2 + (i / 8) % 6);
        let rows: Vec<String> = (1..=8)
            .rev()
            .map(|r| match r {
                8 => "4k3".to_string(),
                1 => "4K3".to_string(),
                r if r == rank => {
                    let left = if file > 0 {
                        file.to_string()
                    } else {
                        String::new()
                    };
                    let right = if file < 7 {
                        (7 - file).to_string()
                    } else {
                        String::new()
                    };
                    format!("{left}N{right}")
                }
                _ => "8".to_string(),
            })
            .collect();
        lines.push(format!(
            "{} w - - 0 1;{};0.5",
            rows.join("/"),
            (i as i32 - 75) * 3
        ));
    }
    lines.join("\n") + "\n"
}

fn train(dir: &Path, body: &str, out: Option<&str>) -> Output {
    let file = dir.join("data.txt");
    std::fs::write(&file, body).unwrap();
    let mut cmd = Command::new(EXE);
    cmd.args([
        "train",
        file.to_str().unwrap(),
        "--epochs",
        "1",
        "--batch",
        "64",
        "--threads",
        "1",
    ]);
    if let Some(o) = out {
        cmd.args(["--out", o]);
    }
    cmd.output().expect("run turncoat train")
}

#[test]
fn bad_labels_are_errors_with_the_line_and_nothing_is_written() {
    let dir = scratch("labels");
    let out_net = dir.join("x.net");
    let o = out_net.to_str().unwrap();
    let file = dir.join("data.txt");
    for (bad, why) in [
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1;NaN;0.5",
            "score NaN is not finite",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1;inf;0.5",
            "score inf is not finite",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1;10;2",
            "result 2 is outside 0..1",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1;10;NaN",
            "result NaN is outside 0..1",
        ),
    ] {
        let out = train(&dir, &data(bad), Some(o));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad}: {err}");
        assert!(
            err.contains(&format!("error: {}:101: {why}", file.display()))
                && err.contains(&format!(": {bad}\n")),
            "{bad}:\n{err}"
        );
        assert!(!out_net.exists(), "{bad}: a network was written");
    }
    // The same data without the bad line trains and writes the network.
    let out = train(&dir, &data("4k3/8/8/8/8/8/8/4K3 w - - 0 1;10;1"), Some(o));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out_net.exists());
}

#[test]
fn out_is_required() {
    let dir = scratch("out");
    let out = train(&dir, &data("4k3/8/8/8/8/8/8/4K3 w - - 0 1;10;1"), None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("--out <OUT>"), "{err}");
    assert!(err.contains("required"), "{err}");
}
