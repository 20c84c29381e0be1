//! `turncoat datagen`: every written line is a quiet, legal chess position after
//! the random opening with an integer score and a result, and a seed means the
//! same games whatever the number of threads.

mod common;

use common::run_turncoat;
use turncoat::rules::fen;
use turncoat::rules::game;
use turncoat::rules::moves::{MoveKind, MoveList};
use turncoat::rules::position::Position;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::{Variant, VariantKind};
use turncoat::with_variant;

fn generate(name: &str, threads: &str) -> Vec<String> {
    generate_variant("chess", name, threads, "6")
}

fn generate_variant(variant: &str, name: &str, threads: &str, games: &str) -> Vec<String> {
    let path = std::env::temp_dir().join(format!(
        "turncoat-datagen-{}-{variant}-{name}.txt",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let out = path.to_string_lossy().into_owned();
    let (ok, _, err) = run_turncoat(&[
        "datagen",
        "--variant",
        variant,
        "--out",
        &out,
        "--games",
        games,
        "--nodes",
        "400",
        "--random-plies",
        "10",
        "--seed",
        "7",
        "--threads",
        threads,
    ]);
    assert!(ok, "{err}");
    assert!(err.contains(&format!("{games} games")), "{err}");
    let text = std::fs::read_to_string(&path).expect("output written");
    let _ = std::fs::remove_file(&path);
    text.lines().map(str::to_string).collect()
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
    let (ok, _, err) = run_turncoat(&["datagen", "--out", "/nonexistent-dir/x.txt"]);
    assert!(!ok);
    assert!(err.contains("cannot open"), "{err}");
}
