//! `turncoat train` on bad input: labels that are not numbers in range are errors
//! naming the file and line, no network is written then, and `--out` is required
//! (it once defaulted to the shipped network); `turncoat shift-output` the same.

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

/// `turncoat` with `args`: its success and stderr.
fn turncoat(args: &[&str]) -> (bool, String) {
    let out = Command::new(EXE).args(args).output().expect("run turncoat");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `train` makes the same network, byte for byte, from a text file and from its
/// packed conversion (`datagen-convert`), with the same seed and options (two
/// epochs, --mirror, scores blended with results, the file as --test too): the
/// conversion keeps every position and label that train reads from the text,
/// in order, whatever the text's spelling (castling letters in any order, an en
/// passant square no pawn can take, `35.0`, `1.0`, spaces), and drops the line
/// whose position train skips (and the 12 of `data`'s whose knight gives
/// check to the side not to move).
#[test]
fn a_packed_file_trains_the_network_of_its_text() {
    let dir = scratch("packed");
    let mut body = data("4k3/8/8/8/8/8/8/4K3 w - - 0 1 a1a2;10;1");
    for line in [
        "r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1;35.0;1.0",
        "4k3/8/8/8/8/8/8/4K2R b K e3 3 40;-20;0",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1; 30 ;1",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3;-41;0",
    ] {
        body.push_str(line);
        body.push('\n');
    }
    let text = dir.join("data.txt");
    std::fs::write(&text, &body).unwrap();
    let packed = dir.join("data.bin");
    let (ok, err) = turncoat(&[
        "datagen-convert",
        "--out",
        packed.to_str().unwrap(),
        text.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains(&format!(
            "141 positions written to {}, 13 malformed lines skipped",
            packed.display()
        )),
        "{err}"
    );
    let net = |data: &Path, name: &str| {
        let out = dir.join(name);
        let data = data.to_str().unwrap();
        let (ok, err) = turncoat(&[
            "train",
            data,
            "--test",
            data,
            "--epochs",
            "2",
            "--batch",
            "32",
            "--threads",
            "1",
            "--hidden",
            "32",
            "--mirror",
            "--lambda",
            "0.7",
            "--scale",
            "1",
            "--seed",
            "5",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
        // 141 positions: 2 held out, 139 trained on, mirrored.
        assert!(
            err.contains("278 training, 2 validation, 141 test positions"),
            "{err}"
        );
        std::fs::read(out).unwrap()
    };
    let from_text = net(&text, "text.net");
    let from_packed = net(&packed, "packed.net");
    assert_eq!(from_text, from_packed);

    // A packed file is of one variant.
    let (ok, err) = turncoat(&[
        "train",
        "--variant",
        "pacifist",
        packed.to_str().unwrap(),
        "--out",
        dir.join("p.net").to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.contains(&format!(
            "error: {}: a file of chess positions, not pacifist",
            packed.display()
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `datagen-convert` refuses labels the packed format cannot hold, naming the
/// line, and never overwrites a file.
#[test]
fn datagen_convert_refuses_what_it_cannot_pack() {
    let dir = scratch("convert");
    let packed = dir.join("out.bin");
    let o = packed.to_str().unwrap();
    let text = dir.join("data.txt");
    let t = text.to_str().unwrap();
    for (labels, why) in [
        (
            "12.5;1",
            "score 12.5 is not a whole number in -32768..32767",
        ),
        (
            "40000;1",
            "score 40000 is not a whole number in -32768..32767",
        ),
        ("12;0.25", "result 0.25 is not 0, 0.5 or 1"),
    ] {
        std::fs::write(
            &text,
            data(&format!("4k3/8/8/8/8/8/8/4K3 w - - 0 1;{labels}")),
        )
        .unwrap();
        let (ok, err) = turncoat(&["datagen-convert", "--out", o, t]);
        assert!(!ok, "{labels}");
        assert!(
            err.contains(&format!("error: {t}:101: {why}")),
            "{labels}: {err}"
        );
        assert!(!packed.exists(), "{labels}: a file was left");
    }
    std::fs::write(&packed, "keep").unwrap();
    std::fs::write(&text, data("4k3/8/8/8/8/8/8/4K3 w - - 0 1;12;1")).unwrap();
    let (ok, err) = turncoat(&["datagen-convert", "--out", o, t]);
    assert!(!ok);
    assert!(err.contains("exists already"), "{err}");
    assert_eq!(std::fs::read_to_string(&packed).unwrap(), "keep");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Positions the trainer cannot hold (an Attending Pawns board of more than
/// 32 pieces, which its promotions make: each creates the new piece's
/// attendant pawn) are left out and counted apart from malformed lines: the
/// first are sound data, the second damaged.
#[test]
fn positions_beyond_a_sample_are_counted_apart_from_malformed_lines() {
    let dir = scratch("beyond");
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 \
                 a1a2,b1b2,c1c2,d1d2,e1e2,f1f2,g1g2,h1h2,a8a7,b8b7,c8c7,d8d7,e8e7,f8f7,g8g7,h8h7";
    // 33 pieces, from Attending Pawns self-play.
    let crowded = "1Q1rkb1r/2Pppp1p/2B4n/q3n3/1p3pbp/1P2P1p1/P1PP3P/RNBQKPNR b KQk - 0 9 \
                   a1a2,b1b3,c1c2,d1d2,e1e3,g1f1,h1h2,g4g3,a5b4,e5f4,h6h4,b8c7,d8d7,e8e7,f8f7,h8h7";
    let mut body = String::new();
    for i in 0..150 {
        body.push_str(&format!("{start};{};0.5\n", i - 75));
    }
    body.push_str(&format!("{crowded};-150;0\n"));
    body.push_str("not a position;10;1\n");
    let file = dir.join("data.txt");
    std::fs::write(&file, body).unwrap();
    let (ok, err) = turncoat(&[
        "train",
        "--variant",
        "attendingpawns",
        file.to_str().unwrap(),
        "--epochs",
        "1",
        "--batch",
        "8",
        "--threads",
        "1",
        "--hidden",
        "32",
        "--out",
        dir.join("ap.net").to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("skipped 1 malformed lines\n"), "{err}");
    assert!(
        err.contains("left out 1 positions the trainer cannot hold\n"),
        "{err}"
    );
    assert!(
        err.contains(":151: more than 32 pieces: 1Q1rkb1r/"),
        "{err}"
    );
    assert!(err.contains("147 training, 3 validation"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `turncoat shift-output`: raising the shipped Subversion network by 25 cp
/// and lowering the result by 25 gives the file back byte for byte; a file
/// that is not a network, a path that is not a file, or an `--out` that
/// exists, is an error that writes nothing.
#[test]
fn shift_output_round_trips_and_refuses_bad_input() {
    let dir = scratch("shift");
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/engine/src/nnue/subversion.net");
    let (up, back) = (dir.join("up.net"), dir.join("back.net"));
    let run = |input: &Path, by: &str, out: &Path| {
        Command::new(EXE)
            .arg("shift-output")
            .arg(input)
            .args(["--by", by, "--out"])
            .arg(out)
            .output()
            .expect("run turncoat")
    };
    assert!(run(&shipped, "25", &up).status.success());
    let lowered = run(&up, "-25", &back);
    assert!(
        lowered.status.success(),
        "{}",
        String::from_utf8_lossy(&lowered.stderr)
    );
    let (a, b) = (
        std::fs::read(&shipped).unwrap(),
        std::fs::read(&back).unwrap(),
    );
    assert!(a == b, "raised and lowered by 25 cp, the file changed");
    assert_ne!(std::fs::read(&up).unwrap(), a);

    let again = run(&shipped, "25", &up);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
    let junk = dir.join("junk.net");
    std::fs::write(&junk, b"not a network at all").unwrap();
    let refused = run(&junk, "25", &dir.join("never.net"));
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not a network file"));
    assert!(!dir.join("never.net").exists());
    // Read as the engine reads `EvalFile`: a directory (or a pipe, which
    // would block) is not a network file.
    let not_a_file = run(&dir, "25", &dir.join("never.net"));
    assert!(!not_a_file.status.success());
    assert!(String::from_utf8_lossy(&not_a_file.stderr).contains("not a regular file"));
    let _ = std::fs::remove_dir_all(&dir);
}
