//! The tuner: the linear trace must reproduce the engine's evaluation exactly
//! (otherwise the fitted weights mean something else in the engine), K fitting
//! must find a known K, the emitted source must be what `src/eval.rs` compiles,
//! and `turncoat tune` must run on a small PGN and fail cleanly on bad input.

mod common;

use shakmaty::Color;
use turncoat::engine::eval::{self, Weights, DEFAULT_WEIGHTS, S};
use turncoat::rules::fen;
use turncoat::rules::game::Game;
use turncoat::rules::position::Position;
use turncoat::rules::variants::chess::Chess;
use turncoat::tools::tune::{data, emit, fit};
use turncoat::tournament::pgn;

const GAMES: &str = "tests/data/tune_games.pgn";

/// Every position of the test games plus the bench positions.
fn positions() -> Vec<Position<Chess>> {
    let mut out: Vec<Position<Chess>> = turncoat::engine::bench::CHESS_POSITIONS
        .iter()
        .map(|f| fen::parse(f).expect("bench FEN"))
        .collect();
    let text = std::fs::read_to_string(GAMES).expect("test games");
    for g in pgn::read_pgn(&text).expect("PGN") {
        let tokens = pgn::replay(&g).expect("replay").tokens;
        let mut game = Game::new(fen::parse::<Chess>(g.tag("FEN").expect("FEN tag")).unwrap());
        out.push(game.pos);
        for t in &tokens {
            game.play_token(t).expect("legal");
            out.push(game.pos);
        }
    }
    out
}

/// `evaluate_with` from White's view.
fn white_eval(pos: &Position<Chess>, w: &Weights) -> i32 {
    let e = eval::evaluate_with(pos, true, w);
    if pos.turn() == Color::White {
        e
    } else {
        -e
    }
}

/// Weights with every field changed, so that a term traced into the wrong
/// parameter shows.
fn odd_weights() -> Weights {
    let mut w = DEFAULT_WEIGHTS.clone();
    let mut n = 0;
    let mut next = || {
        n += 1;
        S(7 * n - 40, 50 - 11 * n)
    };
    for m in &mut w.mobility {
        *m = next();
    }
    for p in &mut w.passed {
        *p = next();
    }
    w.isolated = next();
    w.doubled = next();
    w.rook_open_file = next();
    w.rook_semi_open_file = next();
    w.bishop_pair = next();
    w.king_shield = next();
    w.supported = next();
    w.phalanx = next();
    w.passed_own_king = next();
    w.passed_their_king = next();
    w.threat_by_pawn = next();
    w.threat_by_minor = next();
    w.threat_by_rook = next();
    w.hanging = next();
    w.passed_blocked = next();
    w.king_open_files = next();
    w.outpost = next();
    for c in &mut w.safe_check {
        *c = next();
    }
    w.king_attack_quad = next();
    w.king_attack_lin = next();
    w.pawn_storm = next();
    w
}

#[test]
fn trace_reproduces_evaluate_with() {
    let positions = positions();
    assert!(positions.len() > 300, "{}", positions.len());
    for w in [DEFAULT_WEIGHTS.clone(), odd_weights()] {
        let params = eval::params_of(&w);
        for pos in &positions {
            let t = eval::trace(pos, &w);
            assert_eq!(
                t.evaluate(&params),
                white_eval(pos, &w),
                "{}",
                fen::format(pos)
            );
        }
    }
}

#[test]
fn trace_weights_round_trip() {
    let w = odd_weights();
    assert_eq!(eval::weights_of(&eval::params_of(&w), &DEFAULT_WEIGHTS), w);
}

/// Results worked by hand, not with `fit::sigmoid`: with K = ln 3 the logistic
/// 1 / (1 + e^(-K e / 400)) is 3/4 at e = 400 (1 / (1 + 1/3)), 1/2 at 0, 1/4 at
/// -400, and sqrt 3 / (1 + sqrt 3) = 0.6339746 at e = 200 (1 - that at -200);
/// with K = ln 9 it is 0.9 / 0.75 / 0.5 / 0.25 / 0.1 at 400 / 200 / 0 / -200 / -400.
#[test]
fn fit_k_recovers_a_known_k() {
    assert_eq!(fit::sigmoid(0.0), 0.5);
    assert!((fit::sigmoid(3f64.ln()) - 0.75).abs() < 1e-12);
    assert!((fit::sigmoid(-(9f64.ln())) - 0.1).abs() < 1e-12);
    let evals = [-400.0, -200.0, 0.0, 200.0, 400.0];
    for (k0, results) in [
        (
            1.098_612_3, // ln 3
            [0.25, 0.366_025_4, 0.5, 0.633_974_6, 0.75],
        ),
        (2.197_224_6, [0.1, 0.25, 0.5, 0.75, 0.9]), // ln 9
    ] {
        let k = fit::fit_k(&evals, &results, 0.05, 10.0);
        assert!((k - k0).abs() < 1e-3, "found {k}, want {k0}");
    }
}

#[test]
fn optimize_lowers_the_error() {
    let sel = data::Selection { skip_plies: 12 };
    let (d, stats) = data::load(&[GAMES], &sel, &DEFAULT_WEIGHTS).expect("load");
    assert_eq!(stats.games, 6);
    assert_eq!(d.len(), stats.positions);
    let p0 = fit::to_float(&eval::params_of(&DEFAULT_WEIGHTS));
    let k = fit::fit_k(&fit::evals(&d, &p0), &d.result, 0.05, 10.0);
    let before = fit::mse(&fit::evals(&d, &p0), &d.result, k);
    let settings = fit::Settings {
        k,
        epochs: 30,
        rate: 1.0,
        reg: 0.0,
        group: fit::Group::Weights,
    };
    let p = fit::optimize(&d, &p0, &settings, &mut |_, _| {});
    let after = fit::mse(&fit::evals(&d, &p), &d.result, k);
    assert!(after < before, "{before} -> {after}");
    // Only the Weights terms moved.
    let tables = 2 * eval::param::MOBILITY;
    assert_eq!(p[..tables], p0[..tables]);
    assert_ne!(p[tables..], p0[tables..]);
}

#[test]
fn quiet_leaf_resolves_captures() {
    // White's knight takes the undefended queen; Black has nothing back.
    let pos: Position<Chess> = fen::parse("7k/8/3q4/8/4N3/8/8/4K3 w - - 0 1").unwrap();
    let leaf = data::quiet_leaf(&pos).expect("quiet");
    assert_eq!(fen::format(&leaf), "7k/8/3N4/8/8/8/8/4K3 b - - 0 1");
    // Already quiet: unchanged.
    let start: Position<Chess> = Position::startpos();
    assert_eq!(data::quiet_leaf(&start).map(|p| p.key()), Some(start.key()));
}

#[test]
fn comment_scores_and_blended_targets() {
    let close = |a: Option<f32>, b: f32| a.is_some_and(|a| (a - b).abs() < 1e-3);
    assert!(close(data::comment_score("+1.12/4 0.005s"), 112.0));
    assert!(close(data::comment_score("-0.30/12 0.153s"), -30.0));
    assert!(close(data::comment_score("+M3/20 0.010s"), 10_000.0));
    assert!(close(data::comment_score("-M1/2 0.001s"), -10_000.0));
    assert_eq!(data::comment_score("0.153s"), None);
    assert_eq!(data::comment_score("Draw by threefold repetition"), None);

    let mut d = data::Dataset::default();
    let t = eval::EvalTrace::default();
    d.push(&t, 1.0, Some(0.0)).unwrap();
    d.push(&t, 0.0, None).unwrap();
    d.blend(0.25, 2.0);
    assert_eq!(d.target, vec![0.25 + 0.75 * 0.5, 0.0]);
    assert_eq!(d.result, vec![1.0, 0.0]);
    // The test games carry scores for most positions.
    let sel = data::Selection { skip_plies: 12 };
    let (d, _) = data::load(&[GAMES], &sel, &DEFAULT_WEIGHTS).unwrap();
    let scored = d.score.iter().filter(|s| !s.is_nan()).count();
    assert!(scored * 10 > d.len() * 9, "{scored} of {}", d.len());
}

#[test]
fn emitted_source_is_what_eval_rs_compiles() {
    let source = emit::rust_source(&eval::params_of(&DEFAULT_WEIGHTS), &DEFAULT_WEIGHTS);
    let eval_rs = include_str!("../crates/engine/src/eval/mod.rs");
    let mut rest = eval_rs;
    for line in source.lines() {
        let at = rest
            .find(line)
            .unwrap_or_else(|| panic!("crates/engine/src/eval/mod.rs lacks (in order): {line}"));
        rest = &rest[at + line.len()..];
    }
}

fn run(args: &[&str]) -> (bool, String, String) {
    common::run_turncoat(args)
}

#[test]
fn tune_command_prints_rust_source() {
    let (ok, out, err) = run(&["tune", GAMES, "--epochs", "20"]);
    assert!(ok, "{err}");
    for item in [
        "const MATERIAL_MG: [i32; 6]",
        "const PST_EG: [[i32; 64]; 6]",
        "pub const DEFAULT_WEIGHTS: Weights = Weights {",
        "king_attack: [",
    ] {
        assert!(out.contains(item), "{item} missing from:\n{out}");
    }
    assert!(err.contains("6 games") && err.contains("MSE"), "{err}");
    let (ok, out, err) = run(&[
        "tune", GAMES, "--epochs", "5", "--lambda", "0.5", "--params", "weights",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("pub const DEFAULT_WEIGHTS"), "{out}");
    let (ok, _, err) = run(&["tune", GAMES, "--lambda", "2"]);
    assert!(!ok);
    assert!(err.contains("--lambda"), "{err}");
}

#[test]
fn tune_command_rejects_bad_input() {
    let (ok, _, err) = run(&["tune", "tests/data/no_such_file.pgn"]);
    assert!(!ok);
    assert!(
        err.contains("cannot read tests/data/no_such_file.pgn"),
        "{err}"
    );

    let dir = std::env::temp_dir().join(format!("turncoat-tune-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.pgn");
    std::fs::write(&bad, "[Event \"x\"]\n\n1. e4 e5 2. Ke3 Qh4 1-0\n").unwrap();
    let (ok, _, err) = run(&["tune", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("game 1") && err.contains("Ke3"), "{err}");

    let unfinished = dir.join("unfinished.pgn");
    std::fs::write(&unfinished, "[Event \"x\"]\n\n1. e4 e5\n").unwrap();
    let (ok, _, err) = run(&["tune", unfinished.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("no result marker"), "{err}");
    std::fs::remove_dir_all(&dir).ok();

    let (ok, _, _) = run(&["tune"]);
    assert!(!ok);
}

/// `evaluate_hand_set` (data generation's `--hand-written`) evaluates chess
/// with the values the variants keep, none of the tuned ones: exactly what
/// Anti-Andernach (hand-set values, no terms of its own) says of the same
/// board, and not what chess's tuned evaluation says.
#[test]
fn hand_set_evaluation_owes_nothing_to_the_tuned_values() {
    use turncoat::rules::variants::andernach::AntiAndernach;
    for text in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
        "8/5pk1/6p1/3R4/1r6/6P1/5PK1/8 b - - 3 41",
    ] {
        let chess: Position<Chess> = fen::parse(text).expect("chess fen");
        let anti: Position<AntiAndernach> = fen::parse(text).expect("antiandernach fen");
        let hand_set = eval::evaluate_hand_set(&chess, true);
        assert_eq!(hand_set, eval::evaluate(&anti, true), "{text}");
        assert_ne!(hand_set, eval::evaluate(&chess, true), "{text}");
    }
}
