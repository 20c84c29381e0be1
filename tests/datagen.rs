//! `turncoat datagen`: every written line is a quiet, legal chess position after
//! the random opening with an integer score and a result, a seed means the
//! same games whatever the number of threads, shards together are the unsharded
//! run, and the packed format holds exactly what the text format does, in every
//! variant, and refuses damaged files by name.

mod common;

use std::path::PathBuf;

use common::run_turncoat;
use turncoat::rules::fen;
use turncoat::rules::game;
use turncoat::rules::moves::{MoveKind, MoveList};
use turncoat::rules::position::Position;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::{Variant, VariantKind};
use turncoat::tools::packed::{self, GameResult, PackedError, Reader};
use turncoat::with_variant;

/// The options every run here shares, so that runs compared with each other
/// (sharded against whole, through GNU parallel or not) differ only where meant.
const RUN_OPTIONS: [&str; 6] = ["--nodes", "400", "--random-plies", "10", "--seed", "7"];

fn generate(name: &str, threads: &str) -> Vec<String> {
    generate_variant("chess", name, threads, "6")
}

fn generate_variant(variant: &str, name: &str, threads: &str, games: &str) -> Vec<String> {
    let (text, err) = datagen(variant, name, threads, games, &[]);
    assert!(err.contains(&format!("{games} games")), "{err}");
    text.lines().map(str::to_string).collect()
}

/// The file `turncoat datagen` writes with these options and `extra`, and its
/// stderr.
fn datagen(
    variant: &str,
    name: &str,
    threads: &str,
    games: &str,
    extra: &[&str],
) -> (String, String) {
    let (bytes, err) = datagen_bytes(variant, name, threads, games, extra);
    (String::from_utf8(bytes).expect("text output"), err)
}

fn datagen_bytes(
    variant: &str,
    name: &str,
    threads: &str,
    games: &str,
    extra: &[&str],
) -> (Vec<u8>, String) {
    let path = std::env::temp_dir().join(format!(
        "turncoat-datagen-{}-{variant}-{name}.txt",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let out = path.to_string_lossy().into_owned();
    let mut args = vec![
        "datagen",
        "--variant",
        variant,
        "--out",
        &out,
        "--games",
        games,
    ];
    // `extra` may choose its own seed.
    let own_seed = extra.contains(&"--seed");
    args.extend(
        RUN_OPTIONS
            .chunks(2)
            .filter(|pair| !(own_seed && pair[0] == "--seed"))
            .flatten(),
    );
    args.extend(["--threads", threads]);
    args.extend(extra);
    let (ok, _, err) = run_turncoat(&args);
    assert!(ok, "{err}");
    let bytes = std::fs::read(&path).expect("output written");
    let _ = std::fs::remove_file(&path);
    (bytes, err)
}

/// `--shard I/N` plays the games i with i mod N = I-1 of the run: three shards
/// of a 7-game run (3, 2 and 2 games) hold together exactly the positions of
/// the unsharded run, as a multiset (a game played twice, or a game left out,
/// shows).
#[test]
fn three_shards_hold_the_unsharded_run() {
    let (whole, _) = datagen("chess", "whole", "2", "7", &[]);
    let mut whole: Vec<&str> = whole.lines().collect();
    let mut union = Vec::new();
    for (i, games) in [(1, 3), (2, 2), (3, 2)] {
        let shard = format!("{i}/3");
        let (part, err) = datagen(
            "chess",
            &format!("shard{i}"),
            "1",
            "7",
            &["--shard", &shard],
        );
        // The progress line counts the shard's own games.
        assert!(err.contains(&format!("{games} games, ")), "{shard}: {err}");
        assert!(!part.is_empty(), "{shard}: no positions");
        union.extend(part.lines().map(str::to_string));
    }
    let mut union: Vec<&str> = union.iter().map(String::as_str).collect();
    whole.sort_unstable();
    union.sort_unstable();
    assert_eq!(whole.len(), union.len());
    assert_eq!(whole, union);
}

/// `--balance-nodes` is the opening check's search: the default is the
/// matches' 20,000 nodes, and 200 nodes let another opening through for game 1
/// of seed 20 (as `the_balance_check_s_nodes_choose_the_series` in
/// tests/tournament.rs finds), so that run's positions differ.
#[test]
fn balance_nodes_choose_the_openings() {
    let (default, _) = datagen("chess", "bal-default", "1", "2", &["--seed", "20"]);
    let (explicit, _) = datagen(
        "chess",
        "bal-20000",
        "1",
        "2",
        &["--seed", "20", "--balance-nodes", "20000"],
    );
    assert_eq!(default, explicit);
    let (cheap, err) = datagen(
        "chess",
        "bal-200",
        "1",
        "2",
        &["--seed", "20", "--balance-nodes", "200"],
    );
    assert!(err.contains("2 games"), "{err}");
    assert_ne!(default, cheap);
    // Game 0's opening is the same either way: its positions are where they were.
    let first = |text: &str| text.lines().next().map(str::to_string);
    assert_eq!(first(&default), first(&cheap));
}

#[test]
fn positions_are_quiet_legal_and_labelled() {
    let lines = generate("one", "1");
    assert!(lines.len() > 100, "only {} positions", lines.len());
    for line in &lines {
        let fields: Vec<&str> = line.split(';').collect();
        assert_eq!(fields.len(), 3, "{line}");
        let pos: Position<Chess> = fen::parse(fields[0]).expect(line);
        assert!(pos.checkers().is_empty(), "in check: {line}");
        // Ten random plies and at least one searched move were made first.
        assert!(pos.fullmoves() >= 6, "inside the opening: {line}");
        let score: i32 = fields[1].parse().expect(line);
        assert!(score.abs() < 30_000, "mate score kept: {line}");
        assert!(["1", "0.5", "0"].contains(&fields[2]), "{line}");
    }
    // Quiet as datagen defines it: not in check (above) and the move played from
    // the position neither captures (en passant included) nor promotes. The move
    // is not written, but where the next line is the position one ply later it is
    // the legal move linking the two: it must be quiet. (A position before a
    // capture is dropped, so a capture never links two lines.)
    let mut linked = 0;
    for pair in lines.windows(2) {
        let here: Position<Chess> = fen::parse(pair[0].split(';').next().unwrap()).unwrap();
        let next = pair[1].split(';').next().unwrap();
        let mut moves = MoveList::new();
        Chess::legal_moves(&here, &mut moves);
        for mv in moves {
            let mut after = here;
            game::play(&mut after, mv);
            if fen::format(&after) == next {
                linked += 1;
                let token = game::token(&here, mv);
                assert!(mv.promotion.is_none(), "promotion {token} from {}", pair[0]);
                assert!(
                    mv.kind != MoveKind::EnPassant,
                    "en passant {token} from {}",
                    pair[0]
                );
                assert!(
                    !here.by_color(!here.turn()).contains(mv.to),
                    "capture {token} from {}",
                    pair[0]
                );
            }
        }
    }
    // Most moves of a game are quiet: the check above must have had work to do.
    assert!(
        linked * 2 > lines.len(),
        "only {linked} of {} lines linked",
        lines.len()
    );
}

#[test]
fn a_seed_gives_the_same_games_on_any_number_of_threads() {
    let mut one = generate("det1", "1");
    let mut two = generate("det2", "2");
    one.sort();
    two.sort();
    assert_eq!(one, two);
}

/// Every variant: legal positions of the variant (its FEN, seventh field
/// included), not in check, labelled; the same games on one thread or two.
#[test]
fn every_variant_is_deterministic_and_legal() {
    for &variant in VariantKind::ALL {
        if variant == VariantKind::Chess {
            continue;
        }
        let name = variant.name();
        let mut one = generate_variant(name, "v1", "1", "6");
        let mut two = generate_variant(name, "v2", "2", "6");
        assert!(one.len() > 20, "{name}: only {} positions", one.len());
        for line in &one {
            let fields: Vec<&str> = line.split(';').collect();
            assert_eq!(fields.len(), 3, "{line}");
            with_variant!(variant, V => {
                let pos: Position<V> = fen::parse(fields[0]).expect(line);
                assert!(!V::in_check(&pos), "{name}: in check: {line}");
                assert_eq!(fen::format(&pos), fields[0], "{name}: not canonical");
            });
            let score: i32 = fields[1].parse().expect(line);
            assert!(score.abs() < 30_000, "mate score kept: {line}");
            assert!(["1", "0.5", "0"].contains(&fields[2]), "{line}");
        }
        one.sort();
        two.sort();
        assert_eq!(one, two, "{name}");
    }
}

#[test]
fn bad_arguments_are_refused() {
    let (ok, _, err) = run_turncoat(&["datagen", "--out", "/dev/null", "--nodes", "0"]);
    assert!(!ok);
    assert!(err.contains("--nodes"), "{err}");
    let (ok, _, err) = run_turncoat(&["datagen", "--out", "/dev/null", "--balance-nodes", "0"]);
    assert!(!ok);
    assert!(err.contains("--balance-nodes"), "{err}");
    let (ok, _, err) = run_turncoat(&["datagen", "--out", "/nonexistent-dir/x.txt"]);
    assert!(!ok);
    assert!(err.contains("cannot open"), "{err}");
    for bad in ["0/3", "4/3", "1/0", "x"] {
        let (ok, _, err) = run_turncoat(&["datagen", "--out", "/dev/null", "--shard", bad]);
        assert!(!ok, "{bad}");
        assert!(
            err.contains(&format!("bad shard '{bad}': expected I/N with 1 <= I <= N")),
            "{err}"
        );
    }
}

// ------------------------------------------------------------- packed format

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("turncoat-datagen-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `datagen-convert` of `input` into a new file of `format`: its bytes.
fn convert(variant: &str, input: &std::path::Path, format: &str, out: &std::path::Path) -> Vec<u8> {
    let (ok, _, err) = run_turncoat(&[
        "datagen-convert",
        "--variant",
        variant,
        "--format",
        format,
        "--out",
        out.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    std::fs::read(out).expect("converted file")
}

/// In every variant the same run written as text and as packed records holds
/// the same positions in the same order (one thread): each text line's
/// position, packed by the library, is the packed file's next record, and
/// unpacks to the line's FEN, score and result exactly; `datagen-convert`
/// turns either file into the other byte for byte.
#[test]
fn packed_records_are_the_text_lines_in_every_variant() {
    let dir = scratch("formats");
    for &variant in VariantKind::ALL {
        let name = variant.name();
        let (text, _) = datagen(name, "as-text", "1", "3", &[]);
        let (bytes, err) = datagen_bytes(name, "as-packed", "1", "3", &["--format", "packed"]);
        assert!(err.contains("3 games"), "{err}");
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > 5, "{name}: only {} positions", lines.len());

        let mut expected = packed::header(variant);
        let mut reader = Reader::new(&bytes[..]).expect("a packed file");
        assert_eq!(reader.variant(), variant);
        for line in &lines {
            let fields: Vec<&str> = line.split(';').collect();
            let score: i32 = fields[1].parse().unwrap();
            let result = match fields[2] {
                "1" => GameResult::WhiteWon,
                "0.5" => GameResult::Draw,
                _ => GameResult::BlackWon,
            };
            let mut record = Vec::new();
            with_variant!(variant, V => {
                let pos: Position<V> = fen::parse(fields[0]).unwrap();
                packed::encode(&pos, score, result, &mut record).unwrap();
            });
            // 32 bytes, and more only for what the fixed part cannot hold.
            assert!(record.len() >= packed::FIXED_BYTES, "{line}");
            if fields[0].split(' ').count() == 6 {
                assert_eq!(record.len(), packed::FIXED_BYTES, "{line}");
            }
            expected.extend_from_slice(&record);
            let unpacked = reader
                .next_record()
                .expect("a record")
                .expect("not the end");
            assert_eq!(unpacked.line(), *line, "{name}");
        }
        assert!(
            reader.next_record().unwrap().is_none(),
            "{name}: extra records"
        );
        assert_eq!(
            bytes, expected,
            "{name}: the file is not the lines' records"
        );

        let text_file = dir.join(format!("{name}.txt"));
        let packed_file = dir.join(format!("{name}.bin"));
        std::fs::write(&text_file, &text).unwrap();
        std::fs::write(&packed_file, &bytes).unwrap();
        let back = convert(
            name,
            &packed_file,
            "text",
            &dir.join(format!("{name}-back.txt")),
        );
        assert_eq!(String::from_utf8(back).unwrap(), text, "{name}");
        let packed_again = convert(
            name,
            &text_file,
            "packed",
            &dir.join(format!("{name}-again.bin")),
        );
        assert_eq!(packed_again, bytes, "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A packed file cut anywhere is an error that names the record it cut (the
/// records before it read whole), and a byte changed anywhere is a typed error
/// or another valid record, never a panic.
#[test]
fn damaged_packed_files_are_typed_errors() {
    let (bytes, _) = datagen_bytes(
        "attendingpawns",
        "damaged",
        "1",
        "2",
        &["--format", "packed"],
    );
    let header = packed::header(VariantKind::AttendingPawns).len();
    // Record boundaries, from the lengths the records give themselves.
    let mut starts = vec![header];
    while *starts.last().unwrap() < bytes.len() {
        let at = *starts.last().unwrap();
        starts.push(at + packed::FIXED_BYTES + usize::from(bytes[at + 31]));
    }
    assert_eq!(*starts.last().unwrap(), bytes.len());
    assert!(starts.len() > 3, "too few records");
    for cut in 0..bytes.len() {
        let read = |data: &[u8]| -> Result<usize, PackedError> {
            let mut reader = Reader::new(data)?;
            let mut n = 0;
            while reader.next_record()?.is_some() {
                n += 1;
            }
            Ok(n)
        };
        match read(&bytes[..cut]) {
            Err(PackedError::Truncated { offset }) => {
                let offset = offset as usize;
                if cut < header {
                    assert_eq!(offset, 0, "cut at {cut}");
                } else {
                    let inside = starts.iter().rposition(|&s| s <= cut).unwrap();
                    assert_eq!(offset, starts[inside], "cut at {cut}");
                    assert!(cut > offset);
                }
            }
            Ok(n) => assert!(
                starts.contains(&cut) && n == starts.iter().position(|&s| s == cut).unwrap(),
                "cut at {cut}"
            ),
            Err(e) => panic!("cut at {cut}: {e}"),
        }
    }
    assert!(matches!(
        Reader::new(&b"rnbqkbnr/pppppppp"[..]),
        Err(PackedError::NotPacked)
    ));
    assert!(matches!(
        Reader::new(&b"TCPK\x02\x05chess"[..]),
        Err(PackedError::Version { found: 2 })
    ));
    assert!(matches!(
        Reader::new(&b"TCPK\x01\x05chest"[..]),
        Err(PackedError::UnknownVariant { .. })
    ));
    // Every value of every byte of the first record: an error or a record,
    // and what reads as a record is one the variant takes or a typed refusal.
    let first = &bytes[..starts[2]];
    for i in header..first.len() {
        for value in 0..=255u8 {
            let mut damaged = first.to_vec();
            damaged[i] = value;
            let mut reader = Reader::new(&damaged[..]).unwrap();
            let _ = reader
                .next_position::<turncoat::rules::variants::attending_pawns::AttendingPawns>();
        }
    }
}

/// Through the command line: `train` names the byte where a cut-off file ends,
/// `datagen` cuts the unfinished record off before it appends, and refuses to
/// append packed records to a text file or to a file of another variant, and
/// text to a packed file.
#[test]
fn packed_files_on_the_command_line() {
    let dir = scratch("cli");
    let file = dir.join("cc.bin");
    let out = file.to_str().unwrap();
    let gen = |games: &str, variant: &str| {
        run_turncoat(&[
            "datagen",
            "--variant",
            variant,
            "--out",
            out,
            "--format",
            "packed",
            "--games",
            games,
            "--nodes",
            "300",
            "--random-plies",
            "10",
            "--seed",
            "3",
            "--threads",
            "1",
        ])
    };
    let (ok, _, err) = gen("2", "cowardlycrew");
    assert!(ok, "{err}");
    let whole = std::fs::read(&file).unwrap();
    let cut = whole.len() - 5;
    std::fs::write(&file, &whole[..cut]).unwrap();
    let last = cut - (packed::FIXED_BYTES - 5);
    let (ok, _, err) = run_turncoat(&[
        "train",
        "--variant",
        "cowardlycrew",
        out,
        "--out",
        dir.join("x.net").to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.contains(&format!(
            "{out}: the file ends inside the record at byte {last}"
        )),
        "{err}"
    );
    // Appending repairs it first: the two runs' records, whole.
    let (ok, _, err) = gen("2", "cowardlycrew");
    assert!(ok, "{err}");
    assert!(
        err.contains(&format!(
            "{out}: cut off the last {} bytes",
            packed::FIXED_BYTES - 5
        )),
        "{err}"
    );
    let twice = std::fs::read(&file).unwrap();
    let records = &whole[packed::header(VariantKind::CowardlyCrew).len()..];
    assert_eq!(
        twice.len(),
        whole.len() - packed::FIXED_BYTES + records.len()
    );
    assert_eq!(&twice[..last], &whole[..last]);
    assert_eq!(&twice[last..], records);

    let (ok, _, err) = run_turncoat(&["datagen", "--variant", "cowardlycrew", "--out", out]);
    assert!(!ok);
    assert!(
        err.contains(&format!("{out} is a packed file: add --format packed")),
        "{err}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), twice);
    let (ok, _, err) = gen("1", "pacifist");
    assert!(!ok);
    assert!(
        err.contains(&format!(
            "{out}: a file of cowardlycrew positions, not pacifist"
        )),
        "{err}"
    );
    let text = dir.join("text.txt");
    std::fs::write(&text, "4k3/8/8/8/8/8/8/4K3 w - - 0 1;0;0.5\n").unwrap();
    let (ok, _, err) = run_turncoat(&[
        "datagen",
        "--out",
        text.to_str().unwrap(),
        "--format",
        "packed",
        "--games",
        "1",
    ]);
    assert!(!ok);
    assert!(err.contains("not a packed data file"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's GNU parallel recipe for data: three packed shards at once;
/// `datagen-convert` of the three files together holds the unsharded run's
/// lines. Needs `parallel` (Debian package `parallel`; .ci/run installs it).
#[test]
fn packed_shards_through_gnu_parallel_hold_the_unsharded_run() {
    // moreutils has a `parallel` of its own, which takes other arguments.
    if !common::gnu_parallel() {
        return;
    }
    let dir = scratch("parallel");
    let (whole, _) = datagen("subversion", "parallel-whole", "1", "5", &[]);
    let shard = dir.join("shard-{}.bin");
    let out = std::process::Command::new("parallel")
        .args([
            "--will-cite",
            "--halt",
            "now,fail=1",
            env!("CARGO_BIN_EXE_turncoat"),
        ])
        .args(["datagen", "--variant", "subversion", "--games", "5"])
        .args(RUN_OPTIONS)
        .args([
            "--threads",
            "1",
            "--format",
            "packed",
            "--shard",
            "{}/3",
            "--out",
            shard.to_str().unwrap(),
            ":::",
            "1",
            "2",
            "3",
        ])
        .output()
        .expect("run parallel");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let joined = dir.join("all.txt");
    let (ok, _, err) = run_turncoat(&[
        "datagen-convert",
        "--variant",
        "subversion",
        "--format",
        "text",
        "--out",
        joined.to_str().unwrap(),
        dir.join("shard-1.bin").to_str().unwrap(),
        dir.join("shard-2.bin").to_str().unwrap(),
        dir.join("shard-3.bin").to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let joined = std::fs::read_to_string(&joined).unwrap();
    let mut from_shards: Vec<&str> = joined.lines().collect();
    let mut whole: Vec<&str> = whole.lines().collect();
    assert!(whole.len() > 20, "only {} positions", whole.len());
    from_shards.sort_unstable();
    whole.sort_unstable();
    assert_eq!(from_shards, whole);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--hand-written` plays and scores with the hand-written evaluation: in a
/// variant with a network the games differ from the default run's, in one
/// without they are the same, byte for byte.
#[test]
fn hand_written_data_owes_nothing_to_the_network() {
    use turncoat::engine::policy::Policy;
    for kind in [VariantKind::Chess, VariantKind::SuperAndernach] {
        let name = kind.name();
        let (default, _) = datagen(name, "hand-default", "1", "2", &[]);
        let (hand, err) = datagen(name, "hand-written", "1", "2", &["--hand-written"]);
        assert!(err.contains("2 games"), "{err}");
        assert!(!hand.is_empty(), "{name}: no positions");
        let has_network = with_variant!(kind, V => V::NETWORK.is_some());
        assert_eq!(default == hand, !has_network, "{name}");
    }
}

/// `--eval-file` plays with the network in the file: the shipped chess file
/// makes exactly the default chess data; Cowardly Crew's file gives
/// Super-Andernach (which ships no network) a network, so its data changes; a
/// file that is not a network stops the run before any game, with the reason.
#[test]
fn eval_file_plays_with_the_network_in_the_file() {
    let net = |v: &str| {
        format!(
            "{}/crates/engine/src/nnue/{v}.net",
            env!("CARGO_MANIFEST_DIR")
        )
    };
    let (default, _) = datagen("chess", "file-default", "1", "2", &[]);
    let (file, _) = datagen(
        "chess",
        "file-chess",
        "1",
        "2",
        &["--eval-file", &net("chess")],
    );
    assert!(!default.is_empty());
    assert_eq!(file, default);
    let (hand, _) = datagen("superandernach", "file-none", "1", "2", &[]);
    let crew = net("cowardlycrew");
    let (with_net, _) = datagen(
        "superandernach",
        "file-crew",
        "1",
        "2",
        &["--eval-file", &crew],
    );
    assert!(!with_net.is_empty());
    assert_ne!(with_net, hand);

    let out = std::env::temp_dir().join(format!(
        "turncoat-datagen-{}-bad-net.txt",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&out);
    let not_a_net = format!("{}/Cargo.toml", env!("CARGO_MANIFEST_DIR"));
    let out_text = out.to_string_lossy().into_owned();
    let mut args = vec![
        "datagen",
        "--out",
        &out_text,
        "--games",
        "2",
        "--eval-file",
        &not_a_net,
    ];
    args.extend(RUN_OPTIONS);
    let (ok, _, err) = run_turncoat(&args);
    assert!(!ok);
    assert!(
        err.contains(&format!("--eval-file {not_a_net}: not a network file")),
        "{err}"
    );
    assert!(!out.exists(), "the output was created");
    let _ = std::fs::remove_file(&out);
    let (ok, _, err) = run_turncoat(&[
        "datagen",
        "--out",
        &out_text,
        "--hand-written",
        "--eval-file",
        &not_a_net,
    ]);
    assert!(!ok && err.contains("cannot be used with"), "{err}");
    let _ = std::fs::remove_file(&out);
}

// ------------------------------------------------------------------ relabel

/// `turncoat relabel` of `input` with `extra`: the file written, and stderr.
fn relabel(input: &std::path::Path, out: &std::path::Path, extra: &[&str]) -> (String, String) {
    let mut args = vec![
        "relabel",
        "--format",
        "text",
        "--nodes",
        "400",
        "--out",
        out.to_str().unwrap(),
        input.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (ok, _, err) = run_turncoat(&args);
    assert!(ok, "{err}");
    (std::fs::read_to_string(out).expect("relabelled file"), err)
}

/// `relabel` keeps a datagen file's positions and results, in order, and
/// gives them the scores of a search by the chosen evaluation: the shipped
/// chess network's file scores as the embedded network does, the
/// hand-written evaluation otherwise. An existing `--out` is refused and kept.
#[test]
fn relabel_scores_the_positions_again_and_keeps_the_rest() {
    let dir = scratch("relabel");
    let (text, _) = datagen("chess", "relabel-input", "1", "2", &[]);
    let input = dir.join("in.txt");
    std::fs::write(&input, &text).expect("input");
    let (embedded, err) = relabel(&input, &dir.join("embedded.txt"), &[]);
    // "N positions written to F; M left out as mates, K malformed lines skipped"
    let last = err.lines().last().unwrap_or("");
    let (head, tail) = last.split_once("; ").expect("summary line");
    let number = |s: &str| -> usize {
        s.split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .expect(last)
    };
    let (written, mates, skipped) = (
        number(head),
        number(tail),
        number(tail.split(", ").nth(1).unwrap_or("")),
    );
    let key = |line: &str| {
        let f: Vec<&str> = line.split(';').collect();
        (f[0].to_string(), f[2].to_string())
    };
    let kept: Vec<_> = embedded.lines().map(key).collect();
    let before: Vec<_> = text.lines().map(key).collect();
    assert_eq!(written, kept.len(), "{err}");
    assert_eq!(written + mates, before.len(), "{err}");
    assert_eq!(skipped, 0, "{err}");
    assert!(written > 20, "{err}");
    // The same positions and results in the same order, less any mates.
    let mut rest = before.iter();
    assert!(kept.iter().all(|k| rest.any(|b| b == k)), "order changed");
    let shipped = format!(
        "{}/crates/engine/src/nnue/chess.net",
        env!("CARGO_MANIFEST_DIR")
    );
    let (file, _) = relabel(&input, &dir.join("file.txt"), &["--eval-file", &shipped]);
    assert_eq!(file, embedded);
    let (hand, _) = relabel(&input, &dir.join("hand.txt"), &["--hand-written"]);
    assert_ne!(hand, embedded);

    let out = dir.join("embedded.txt");
    let (ok, _, err) = run_turncoat(&[
        "relabel",
        "--out",
        out.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("exists already"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).expect("kept"), embedded);
    let _ = std::fs::remove_dir_all(&dir);
}
