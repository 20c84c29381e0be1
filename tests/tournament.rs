//! The match runner: statistics against hand-computed values, engines.toml errors,
//! PGN round trips, openings, scheduling, and real matches between scripted fake
//! engines (the example `fake-engine`, `tests/support/fake_engine.rs`) that misbehave
//! on purpose.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use turncoat::engine::openings::{self, OpeningSource, Rng};
use turncoat::engine::policy::Policy;
use turncoat::rules::fen;
use turncoat::rules::game::Game;
use turncoat::rules::moves::MoveList;
use turncoat::rules::position::Position;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::VariantKind;
use turncoat::tournament::config::{Config, EngineConfig};
use turncoat::tournament::engine::ReportedScore;
use turncoat::tournament::pgn::{self, PgnContext};
use turncoat::tournament::referee::{
    Adjudication, DrawRule, GameRecord, GameResult, Limit, PlayedMove, ResignRule, Termination,
};
use turncoat::tournament::stats::{Pentanomial, Sprt, SprtModel, Verdict, Wdl};
use turncoat::tournament::{self, MatchReport, MatchSpec};

const EXE: &str = env!("CARGO_BIN_EXE_turncoat");

// ---------------------------------------------------------------- helpers

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("turncoat-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn fake(name: &str, args: &[&str]) -> EngineConfig {
    let all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    EngineConfig {
        name: name.to_string(),
        cmd: PathBuf::from(common::fake_engine()),
        args: all,
        dir: None,
        options: Vec::new(),
        limit: None,
    }
}

fn spec(engines: Vec<EngineConfig>, games: u32) -> MatchSpec {
    MatchSpec {
        variant: VariantKind::Chess,
        engines,
        gauntlet: false,
        games,
        limit: Limit::Nodes(100),
        concurrency: 1,
        openings: OpeningSource::Random { plies: 4, seed: 1 },
        pgn: None,
        sprt: None,
        time_margin: Duration::from_millis(500),
        move_timeout: Duration::from_secs(5),
        start_timeout: Duration::from_secs(5),
        stop_grace: Duration::from_millis(500),
        adjudication: Adjudication {
            max_moves: Some(40),
            ..Adjudication::default()
        },
        event: "test".to_string(),
        shard: None,
    }
}

fn play(spec: &MatchSpec) -> Result<MatchReport, String> {
    tournament::run_match(
        spec,
        &mut |_: &GameRecord, _: &_| {},
        &mut |_: &GameRecord| Ok(()),
    )
}

fn match_cmd(args: &[&str]) -> Output {
    Command::new(EXE)
        .arg("match")
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run turncoat match")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

// ---------------------------------------------------------------- statistics

#[test]
fn elo_los_error_bar_match_hand_computed_values() {
    // W/L/D = 60/40/100: score 0.55 -> -400 log10(1/0.55 - 1) = 34.86.
    let w = Wdl::new(60, 40, 100);
    assert!(close(w.score(), 0.55, 1e-12));
    assert!(close(w.elo(), 34.860_070, 1e-5), "{}", w.elo());
    // Error bar: cutechess's formula (its approximate inverse erf included).
    assert!(
        close(w.error_margin(), 34.110_109, 1e-4),
        "{}",
        w.error_margin()
    );
    // LOS = 50 (1 + erf((60 - 40) / sqrt(2 * 100))) = 97.725 %.
    assert!(close(w.los(), 97.724_987, 1e-5), "{}", w.los());
    assert_eq!(
        w.elo_line(),
        "Elo difference: 34.9 +/- 34.1, LOS: 97.7 %, DrawRatio: 50.0 %"
    );
    assert_eq!(
        w.score_line("A", "B"),
        "Score of A vs B: 60 - 40 - 100  [0.550] 200"
    );

    let w = Wdl::new(30, 50, 20);
    assert!(close(w.elo(), -70.436_504, 1e-5));
    assert!(close(w.error_margin(), 62.496_061, 1e-4));
    assert!(close(w.los(), 1.267_366, 1e-5));

    let w = Wdl::new(10, 10, 80);
    assert_eq!(
        w.elo_line(),
        "Elo difference: 0.0 +/- 30.5, LOS: 50.0 %, DrawRatio: 80.0 %"
    );
    // Degenerate cases, where cutechess and fastchess print inf / -inf / nan:
    // figures that do not exist read n/a; LOS without a decisive game is 50 %.
    assert_eq!(
        Wdl::new(4, 0, 0).elo_line(),
        "Elo difference: n/a +/- n/a, LOS: 97.7 %, DrawRatio: 0.0 %"
    );
    assert_eq!(
        Wdl::new(0, 3, 0).elo_line(),
        "Elo difference: n/a +/- n/a, LOS: 4.2 %, DrawRatio: 0.0 %"
    );
    assert_eq!(
        Wdl::new(0, 0, 6).elo_line(),
        "Elo difference: 0.0 +/- n/a, LOS: 50.0 %, DrawRatio: 100.0 %"
    );
    // 3 wins and a draw: finite Elo, but the interval reaches a 100 % score.
    assert_eq!(
        Wdl::new(3, 0, 1).elo_line(),
        "Elo difference: 338.0 +/- n/a, LOS: 95.8 %, DrawRatio: 25.0 %"
    );
    assert_eq!(
        Wdl::new(0, 0, 0).elo_line(),
        "Elo difference: n/a +/- n/a, LOS: 50.0 %, DrawRatio: n/a %"
    );
    assert_eq!(
        Wdl::new(0, 0, 0).score_line("A", "B"),
        "Score of A vs B: 0 - 0 - 0  [n/a] 0"
    );
    for w in [
        Wdl::new(4, 0, 0),
        Wdl::new(0, 3, 0),
        Wdl::new(0, 0, 6),
        Wdl::new(1, 0, 0),
        Wdl::new(0, 0, 0),
    ] {
        let all = format!("{} {}", w.elo_line(), w.score_line("A", "B"));
        assert!(
            !all.to_lowercase().contains("nan") && !all.contains("inf"),
            "{all}"
        );
    }
    let one_pair = Pentanomial {
        counts: [0, 1, 0, 0, 0],
        ..Pentanomial::default()
    };
    assert_eq!(
        one_pair.line(),
        "Ptnml(0-2): [0, 1, 0, 0, 0], WL/DD: 0, 0, Elo: -190.85 +/- n/a (95% CI from 1 pairs)"
    );
    let all_won = Pentanomial {
        counts: [0, 0, 0, 0, 3],
        ..Pentanomial::default()
    };
    assert_eq!(
        all_won.line(),
        "Ptnml(0-2): [0, 0, 0, 0, 3], WL/DD: 0, 0, Elo: n/a +/- n/a (95% CI from 3 pairs)"
    );
}

#[test]
fn pentanomial_elo_and_sprt_llr_match_hand_computed_values() {
    let p = Pentanomial {
        counts: [2, 8, 20, 15, 5],
        ..Pentanomial::default()
    };
    assert_eq!(p.pairs(), 50);
    // Mean pair score (0*2 + .25*8 + .5*20 + .75*15 + 1*5) / 50 = 0.565.
    assert!(close(p.score(), 0.565, 1e-12));
    assert!(close(p.elo(), 45.423_676, 1e-5), "{}", p.elo());
    assert!(
        close(p.error_margin(), 48.119_996, 1e-5),
        "{}",
        p.error_margin()
    );

    // The exact GLLR of fishtest's LLRcalc.LLR_logistic (reference values from
    // its formulas, secular equation solved by bisection).
    let sprt: Sprt = "0,5".parse().unwrap();
    assert!(close(sprt.llr(&p), 0.342_230_175, 1e-6), "{}", sprt.llr(&p));
    let sprt2: Sprt = "-1,3,0.05,0.05".parse().unwrap();
    assert!(
        close(sprt2.llr(&p), 0.282_231_382, 1e-6),
        "{}",
        sprt2.llr(&p)
    );
    let (lo, hi) = sprt.bounds();
    assert!(close(lo, -2.944_439, 1e-6) && close(hi, 2.944_439, 1e-6));
    assert_eq!(sprt.verdict(0.37), Verdict::Continue);
    assert_eq!(sprt.verdict(3.0), Verdict::AcceptH1);
    assert_eq!(sprt.verdict(-3.0), Verdict::AcceptH0);
    assert_eq!(
        sprt.line(3.0),
        "SPRT: llr 3.00 (101.9%), lbound -2.94, ubound 2.94 - H1 was accepted \
         [elo0 0, elo1 5, alpha 0.05, beta 0.05, logistic Elo]"
    );

    let sym = Pentanomial {
        counts: [5, 10, 20, 10, 5],
        ..Pentanomial::default()
    };
    assert!(close(sym.elo(), 0.0, 1e-9));
    assert!(close(sym.error_margin(), 53.157_980, 1e-5));
    assert!(
        close(sprt.llr(&sym), -0.017_253_425, 1e-6),
        "{}",
        sprt.llr(&sym)
    );

    let big = Pentanomial {
        counts: [40, 100, 200, 130, 30],
        ..Pentanomial::default()
    };
    assert!(close(big.elo(), 3.474_472, 1e-5));
    assert!(close(big.error_margin(), 15.386_847, 1e-5));
    assert!(
        close(sprt.llr(&big), 0.078_944_527, 1e-6),
        "{}",
        sprt.llr(&big)
    );
}

/// The LLR against published values: fastchess's SPRT tests (fishtest runs'
/// pentanomial counts, checked there to 1 %), and to 1e-6 against a Python port
/// of fishtest's `LLRcalc.LLR_logistic` / `LLR_normalized` (brentq replaced by
/// bisection), which gives 2.250368, 3.010154, 111.797555, -3.074126, -4.978673.
#[test]
fn sprt_llr_matches_fishtest_and_fastchess() {
    let cases: [(&str, [u32; 5], f64, f64); 5] = [
        (
            "0,2,normalized",
            [365, 16618, 36229, 16974, 390],
            2.25,
            2.250_367_704,
        ),
        (
            "-1.75,0.25,normalized",
            [127, 4883, 10712, 5150, 104],
            3.01,
            3.010_154_197,
        ),
        (
            "0,5,normalized",
            [0, 0, 0, 0, 5550],
            111.82,
            111.797_555_087,
        ),
        (
            "0.5,2.5",
            [223, 9863, 21279, 10037, 246],
            -3.07,
            -3.074_126_440,
        ),
        (
            "0,2,logistic",
            [871, 26175, 55983, 26678, 821],
            -4.98,
            -4.978_672_863,
        ),
    ];
    for (bounds, counts, published, reference) in cases {
        let sprt: Sprt = bounds.parse().unwrap();
        let llr = sprt.llr(&Pentanomial {
            counts,
            ..Pentanomial::default()
        });
        assert!(close(llr, reference, 1e-6), "{bounds} {counts:?}: {llr}");
        assert!(
            close(llr, published, 0.01 * published.abs()),
            "{bounds}: {llr} vs {published}"
        );
    }
    let n: Sprt = "0,2,0.05,0.1,normalized".parse().unwrap();
    assert_eq!(
        (n.elo0, n.elo1, n.alpha, n.beta, n.model),
        (0.0, 2.0, 0.05, 0.1, SprtModel::Normalized)
    );
    assert!("0,2,bayesian".parse::<Sprt>().is_err());
}

/// One game pair never decides an SPRT (the old approximation with 1e-3 cells
/// gave -3.97 for a single [0, 1, 0, 0, 0] pair at 0,10).
#[test]
fn sprt_is_never_decided_after_one_pair() {
    for bounds in ["0,10", "0,5", "-5,5", "0,10,normalized", "0,2,normalized"] {
        let sprt: Sprt = bounds.parse().unwrap();
        for k in 0..5 {
            let mut p = Pentanomial::default();
            p.counts[k] = 1;
            let llr = sprt.llr(&p);
            assert!(llr.abs() < 0.1, "{bounds}, pair {k}: {llr}");
            assert_eq!(sprt.verdict(llr), Verdict::Continue);
        }
    }
    // Reference values of the logistic GLLR for single pairs at 0,10.
    let sprt: Sprt = "0,10".parse().unwrap();
    let one = |k: usize| {
        let mut p = Pentanomial::default();
        p.counts[k] = 1;
        sprt.llr(&p)
    };
    assert!(close(one(1), -0.029_227_737, 1e-6), "{}", one(1));
    assert!(close(one(4), 0.028_423_812, 1e-6), "{}", one(4));
}

/// Simulated SPRTs with the true Elo at elo0: H1 is accepted in about alpha of
/// the runs. 400 runs of 0,20 (logistic, alpha = beta = 0.05) on pairs drawn from
/// a pentanomial distribution of mean score 1/2; the SPRT's real error rate is at
/// most alpha (Wald's bounds, a little overshoot), so the count of H1 runs is
/// binomial with p <= 0.05: mean <= 20, sd 4.4. The test asks for 6..=34 of 400
/// (p within about 3.2 sd of 0.05), and that no run ends in fewer than 10 pairs.
#[test]
fn sprt_simulation_accepts_h1_in_about_alpha_of_runs_at_elo0() {
    let sprt: Sprt = "0,20".parse().unwrap();
    // P(LL, LD, WL+DD, WD, WW): mean pair score 0.5 (Elo 0 = elo0).
    let cumulative = [0.05, 0.25, 0.75, 0.95, 1.0];
    let mut rng = Rng::new(2024);
    let (mut h1, mut h0, mut shortest, mut total_pairs) = (0, 0, usize::MAX, 0);
    for _ in 0..400 {
        let mut p = Pentanomial::default();
        let mut verdict = Verdict::Continue;
        let mut pairs = 0;
        while verdict == Verdict::Continue && pairs < 20_000 {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let k = cumulative.iter().position(|&c| u < c).unwrap_or(4);
            p.counts[k] += 1;
            pairs += 1;
            verdict = sprt.verdict(sprt.llr(&p));
        }
        total_pairs += pairs;
        shortest = shortest.min(pairs);
        match verdict {
            Verdict::AcceptH1 => h1 += 1,
            Verdict::AcceptH0 => h0 += 1,
            Verdict::Continue => panic!("undecided after {pairs} pairs"),
        }
    }
    assert_eq!(h0 + h1, 400);
    assert!((6..=34).contains(&h1), "H1 accepted in {h1} of 400 runs");
    assert!(shortest >= 10, "a run decided after {shortest} pairs");
    eprintln!(
        "H1 {h1}/400, shortest {shortest} pairs, mean {} pairs",
        total_pairs / 400
    );
}

#[test]
fn pentanomial_pairs_are_classified() {
    let mut p = Pentanomial::default();
    p.add_pair(1.0, 1.0);
    p.add_pair(1.0, 0.0);
    p.add_pair(0.5, 0.5);
    p.add_pair(0.5, 0.0);
    p.add_pair(1.0, 0.5);
    assert_eq!(p.counts, [0, 1, 2, 1, 1]);
    assert_eq!((p.win_loss, p.draw_draw), (1, 1));
    assert!(p
        .line()
        .starts_with("Ptnml(0-2): [0, 1, 2, 1, 1], WL/DD: 1, 1, Elo: "));
}

#[test]
fn sprt_and_time_control_parsing() {
    let s: Sprt = "0,5".parse().unwrap();
    assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (0.0, 5.0, 0.05, 0.05));
    assert!("5,0".parse::<Sprt>().is_err());
    assert!("0,5,0.05".parse::<Sprt>().is_err());
    assert!("0,x".parse::<Sprt>().is_err());
    assert!("0,5,0.7,0.05".parse::<Sprt>().is_err());

    assert_eq!(
        "10+0.1".parse::<Limit>().unwrap(),
        Limit::Clock {
            moves: None,
            base_ms: 10_000,
            inc_ms: 100
        }
    );
    assert_eq!(
        "40/60+0.5".parse::<Limit>().unwrap(),
        Limit::Clock {
            moves: Some(40),
            base_ms: 60_000,
            inc_ms: 500
        }
    );
    assert_eq!("60".parse::<Limit>().unwrap().pgn_tag(), "60");
    assert_eq!("10+0.1".parse::<Limit>().unwrap().pgn_tag(), "10+0.1");
    assert_eq!(Limit::MoveTime(100).pgn_tag(), "0.1/move");
    assert_eq!(Limit::Nodes(5).pgn_tag(), "-");
    for bad in ["", "abc", "10+", "0", "-5", "0/10", "10+x"] {
        assert!(bad.parse::<Limit>().is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------- schedule, openings

#[test]
fn schedule_pairs_games_with_swapped_colours_and_shared_openings() {
    let s = tournament::schedule(2, false, 6);
    assert_eq!(s.len(), 6);
    for pair in s.chunks(2) {
        assert_eq!((pair[0].white, pair[0].black), (0, 1));
        assert_eq!((pair[1].white, pair[1].black), (1, 0));
        assert_eq!(pair[0].opening, pair[1].opening);
    }
    assert_eq!(
        s.iter().map(|g| g.number).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );
    // Round robin of 4: 6 encounters; gauntlet of 4: 3.
    assert_eq!(tournament::schedule(4, false, 2).len(), 12);
    let g = tournament::schedule(4, true, 2);
    assert_eq!(g.len(), 6);
    assert!(g.iter().all(|x| x.white == 0 || x.black == 0));
    // An odd count leaves the last pair incomplete.
    assert_eq!(tournament::schedule(2, false, 3).len(), 3);
}

/// Data generation checks its openings with a cheaper search
/// (`random_opening_checked`); at the matches' node count it is the matches'
/// series, at another count its own (seed 20, ten plies: opening 1 of chess is
/// refused at 20,000 nodes and kept at 200, openings 0 and 2 are the same).
#[test]
fn the_balance_check_s_nodes_choose_the_series() {
    let at = |i: u64, nodes: u64| {
        openings::random_opening_checked::<Chess>(20, i, 10, nodes).expect("an opening")
    };
    for i in 0..3 {
        assert_eq!(
            at(i, openings::BALANCE_NODES),
            openings::random_opening::<Chess>(20, i, 10).expect("an opening")
        );
    }
    assert_eq!(at(0, 200), at(0, openings::BALANCE_NODES));
    assert_ne!(at(1, 200), at(1, openings::BALANCE_NODES));
    assert_eq!(at(2, 200), at(2, openings::BALANCE_NODES));
    assert_eq!(at(1, 200), at(1, 200), "deterministic");
}

#[test]
fn random_openings_are_deterministic_and_undecided() {
    for &v in VariantKind::ALL {
        let src = OpeningSource::Random { plies: 8, seed: 42 };
        let a = openings::openings(v, &src, 20).unwrap();
        let b = openings::openings(v, &src, 20).unwrap();
        assert_eq!(a, b, "{v}: same seed, same openings");
        // A prefix is the same whatever the count asked for.
        assert_eq!(openings::openings(v, &src, 5).unwrap(), a[..5]);
        let c = openings::openings(v, &OpeningSource::Random { plies: 8, seed: 43 }, 20).unwrap();
        assert_ne!(a, c, "{v}: another seed, other openings");
        let distinct: std::collections::HashSet<_> = a.iter().collect();
        assert!(distinct.len() > 15, "{v}: openings should vary");
        for f in &a {
            turncoat::with_variant!(v, V => {
                let pos = fen::parse::<V>(f).unwrap();
                assert!(Game::new(pos).outcome().is_none());
            });
        }
    }
    // `below(3)` stays in range and hits every value about equally often: 3000
    // draws put each count near 1000 (a fair die is within +-100 with
    // probability > 0.9999), so a stuck or biased generator fails.
    let mut r = Rng::new(7);
    let mut counts = [0usize; 3];
    for _ in 0..3000 {
        let k = r.below(3);
        assert!(k < 3, "below(3) gave {k}");
        counts[k] += 1;
    }
    assert!(
        counts.iter().all(|&c| (900..=1100).contains(&c)),
        "{counts:?}"
    );
}

#[test]
fn openings_file_reads_fen_and_epd_and_reports_bad_lines() {
    let dir = scratch("openings");
    let file = dir.join("book.epd");
    std::fs::write(
        &file,
        "# a comment\n\
         rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
         \n\
         rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - bm Nf3; id \"x\";\n\
         rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n",
    )
    .unwrap();
    // The third position is checkmate: skipped.
    let all = openings::load_file::<Chess>(&file).unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(
        all[1],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"
    );
    // Used in order, cycling.
    let four =
        openings::openings(VariantKind::Chess, &OpeningSource::File(file.clone()), 4).unwrap();
    assert_eq!(four[0], four[2]);
    assert_eq!(four[1], four[3]);

    std::fs::write(
        &file,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\nnot a fen\n",
    )
    .unwrap();
    let e = openings::load_file::<Chess>(&file).unwrap_err().to_string();
    assert!(e.contains("book.epd:2:"), "{e}");
}

// ---------------------------------------------------------------- engines.toml

fn write_config(dir: &Path, body: &str) -> PathBuf {
    let p = dir.join("engines.toml");
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn config_errors_name_file_and_line() {
    let dir = scratch("config");
    // Missing file.
    let e = Config::load(&dir.join("nope.toml")).unwrap_err();
    assert!(e.contains("nope.toml") && e.contains("cannot read"), "{e}");

    // Syntax error on line 3.
    let p = write_config(&dir, "[[engine]]\nname = \"a\"\ncmd = @self\n");
    let e = Config::load(&p).unwrap_err();
    assert!(e.contains("engines.toml:3:"), "{e}");

    // Unknown key on line 4.
    let p = write_config(
        &dir,
        "[[engine]]\nname = \"a\"\ncmd = \"@self\"\noptoins = {}\n",
    );
    let e = Config::load(&p).unwrap_err();
    assert!(
        e.contains("engines.toml:4:") && e.contains("optoins"),
        "{e}"
    );

    // A cmd that does not exist, on line 6.
    let p = write_config(
        &dir,
        "[[engine]]\nname = \"a\"\ncmd = \"@self\"\n\n[[engine]]\nname = \"b\"\ncmd = \"./no/such/engine\"\n",
    );
    let e = Config::load(&p).unwrap_err();
    assert!(
        e.contains("engines.toml:7:") && e.contains("does not exist"),
        "{e}"
    );
    let p = write_config(
        &dir,
        "[[engine]]\nname = \"a\"\ncmd = \"no-such-engine-xyz\"\n",
    );
    let e = Config::load(&p).unwrap_err();
    assert!(
        e.contains("engines.toml:3:") && e.contains("not found in PATH"),
        "{e}"
    );

    // Unknown engine in [match] engines, on line 8.
    let p = write_config(
        &dir,
        "[[engine]]\nname = \"a\"\ncmd = \"@self\"\n[[engine]]\nname = \"b\"\ncmd = \"@self\"\n[match]\nengines = [\"a\", \"c\"]\n",
    );
    let e = Config::load(&p).unwrap_err();
    assert!(
        e.contains("engines.toml:8:") && e.contains("unknown engine 'c'"),
        "{e}"
    );

    // Duplicate names, bad variant, two limits.
    let p = write_config(
        &dir,
        "[[engine]]\nname = \"a\"\ncmd = \"@self\"\n[[engine]]\nname = \"a\"\ncmd = \"@self\"\n",
    );
    assert!(Config::load(&p).unwrap_err().contains("engines.toml:5:"));
    let p = write_config(&dir, "[match]\nvariant = \"bughouse\"\n");
    let e = Config::load(&p).unwrap_err();
    assert!(
        e.contains("engines.toml:2:") && e.contains("unknown variant"),
        "{e}"
    );
    let p = write_config(&dir, "[match]\nnodes = 5\ndepth = 3\n");
    assert!(Config::load(&p).unwrap_err().contains("only one of"));
    // An engine's own limit: one at most, and a playable one, named.
    let p = write_config(
        &dir,
        "[[engine]]\nname = \"a\"\ncmd = \"@self\"\nnodes = 5\ntc = \"1+0\"\n",
    );
    let e = Config::load(&p).unwrap_err();
    assert!(
        e.contains("engines.toml:4:") && e.contains("engine 'a': give only one of"),
        "{e}"
    );
    let p = write_config(
        &dir,
        "[[engine]]\nname = \"a\"\ncmd = \"@self\"\n\ndepth = 0\n",
    );
    let e = Config::load(&p).unwrap_err();
    assert!(
        e.contains("engines.toml:5:") && e.contains("engine 'a': depth must be positive"),
        "{e}"
    );
    let p = write_config(
        &dir,
        "[[engine]]\nname = \"a\"\ncmd = \"@self\"\ntc = \"soon\"\n",
    );
    let e = Config::load(&p).unwrap_err();
    assert!(
        e.contains("engines.toml:4:") && e.contains("engine 'a': bad time control 'soon'"),
        "{e}"
    );
}

#[test]
fn bad_config_exits_non_zero_with_a_clear_message() {
    let dir = scratch("config-cli");
    let missing = dir.join("missing.toml");
    let out = match_cmd(&["--config", missing.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("missing.toml"),
        "{}",
        text(&out.stderr)
    );

    let p = write_config(&dir, "[[engine]]\nname = \"a\"\ncmd = \"@self\"\n[[engine]]\nname = \"b\"\ncmd = \"/nonexistent/engine\"\n");
    let out = match_cmd(&["--config", p.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("engines.toml:6:") && err.contains("/nonexistent/engine"),
        "{err}"
    );

    let p = write_config(
        &dir,
        "[[engine]]\nname = \"a\"\ncmd = \"@self\"\n[[engine]]\nname = \"b\"\ncmd = \"@self\"\n",
    );
    let out = match_cmd(&["--config", p.to_str().unwrap(), "--engines", "a,zz"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("unknown engine 'zz'") && err.contains("engines.toml"),
        "{err}"
    );
}

#[test]
fn shipped_engines_toml_is_valid() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("engines.toml");
    let c = Config::load(&path).unwrap();
    assert!(c.engines.len() >= 2);
    let names = c.defaults.engines.clone().unwrap();
    assert_eq!(names.len(), 2);
    for n in &names {
        assert!(c.engine(n).is_some());
    }
}

// ---------------------------------------------------------------- PGN

fn record(start_fen: &str, tokens: &[&str], result: GameResult) -> GameRecord {
    GameRecord {
        number: 1,
        white: 0,
        black: 1,
        white_name: "W \"quoted\"".to_string(),
        black_name: "B".to_string(),
        start_fen: start_fen.to_string(),
        moves: tokens
            .iter()
            .enumerate()
            .map(|(i, t)| PlayedMove {
                token: t.to_string(),
                score: Some(if i == 3 {
                    ReportedScore::Mate(-2)
                } else {
                    ReportedScore::Cp(i as i32 * 7 - 20)
                }),
                depth: Some(i as u32),
                time_ms: 1234,
            })
            .collect(),
        result,
        termination: Termination::Normal,
        reason: "White wins by something".to_string(),
    }
}

fn ctx(v: VariantKind) -> PgnContext {
    PgnContext {
        event: "Test".to_string(),
        site: "?".to_string(),
        date: pgn::today(),
        variant: v,
        time_controls: vec!["10+0.1".to_string(); 2],
        seed: Some(77),
    }
}

#[test]
fn pgn_chess_round_trip_in_san() {
    let start = fen::format(&Position::<Chess>::startpos());
    // En passant, promotion with capture, both castlings.
    let tokens = [
        "e2e4", "d7d5", "e4e5", "f7f5", "e5f6", "g8h6", "f6g7", "b8c6", "g7h8q", "d8d6", "g1f3",
        "c8d7", "f1e2", "e8c8", "e1g1",
    ];
    let rec = record(&start, &tokens, GameResult::WhiteWins);
    let text = pgn::game_to_pgn(&rec, &ctx(VariantKind::Chess));
    for want in [
        "1. e4 {",
        "1... d5 {",
        "3. exf6",
        "5. gxh8=Q",
        "7... O-O-O",
        "8. O-O {",
    ] {
        assert!(text.contains(want), "{want} missing in\n{text}");
    }
    assert!(text.contains("exf6"), "{text}");
    assert!(text.contains("gxh8=Q"), "{text}");
    assert!(text.contains("O-O-O"), "{text}");
    assert!(text.contains("{-M2/3 1.234s}"), "{text}");
    assert!(text.contains("[White \"W \\\"quoted\\\"\"]"), "{text}");
    assert!(!text.contains("[Variant"), "no Variant tag for chess");
    assert!(!text.contains("[FEN"), "no FEN tag from the start position");
    assert!(text.lines().all(|l| l.len() <= 80), "{text}");

    let games = pgn::read_pgn(&text).unwrap();
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(g.tag("White"), Some("W \"quoted\""));
    assert_eq!(g.tag("Result"), Some("1-0"));
    assert_eq!(g.tag("Termination"), Some("normal"));
    assert_eq!(g.result, "1-0");
    assert_eq!(g.comments[3].as_deref(), Some("-M2/3 1.234s"));
    let r = pgn::replay(g).unwrap();
    assert_eq!(r.tokens, tokens);

    // From a FEN with Black to move: SetUp/FEN tags, "N..." first number.
    let fen_b = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let rec = record(fen_b, &["e7e5", "g1f3"], GameResult::Draw);
    let text = pgn::game_to_pgn(&rec, &ctx(VariantKind::Chess));
    assert!(text.contains("[SetUp \"1\"]") && text.contains(&format!("[FEN \"{fen_b}\"]")));
    assert!(text.contains("1... e5"), "{text}");
    let g = &pgn::read_pgn(&text).unwrap()[0];
    assert_eq!(pgn::replay(g).unwrap().tokens, ["e7e5", "g1f3"]);
}

/// Text from outside (an engine's move, an engine's name) cannot end a comment
/// or a tag early: the game reads back with its moves, tags and ending.
#[test]
fn pgn_writer_keeps_outside_text_in_its_comment_and_tags() {
    let start = fen::format(&Position::<Chess>::startpos());
    let mut r = record(&start, &["e2e4", "e7e5"], GameResult::WhiteWins);
    r.white_name = "two\nlines [Event \"x\"]\\".to_string();
    r.black_name = "tab\there\r".to_string();
    r.reason = "Black makes an illegal move: }1. Nf3 {\n[Event \"y\"]".to_string();
    let text = pgn::game_to_pgn(&r, &ctx(VariantKind::Chess));
    let games = pgn::read_pgn(&text).unwrap();
    assert_eq!(games.len(), 1, "{text}");
    let g = &games[0];
    assert_eq!(g.moves, ["e4", "e5"], "{text}");
    assert_eq!(g.tag("White"), Some("two lines [Event \"x\"]\\"));
    assert_eq!(g.tag("Black"), Some("tab here "));
    assert_eq!(
        g.comments[1].as_deref(),
        Some("Black makes an illegal move: )1. Nf3 ( [Event \"y\"]")
    );
    assert_eq!(g.tag("Seed"), Some("77"));
    let (complete, end) = pgn::complete_prefix(&text);
    assert_eq!((complete.len(), end), (1, text.len()));
}

#[test]
fn pgn_reader_handles_comments_variations_and_nags() {
    let text = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 $1 {best} (1. d4 d5 (1... Nf6)) e5 ; rest of line\n2.Nf3 Nc6 *\n\n[Event \"y\"]\n\n1. d4 1/2-1/2\n";
    let games = pgn::read_pgn(text).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].moves, ["e4", "e5", "Nf3", "Nc6"]);
    assert_eq!(games[0].comments[0].as_deref(), Some("best"));
    assert_eq!(games[0].result, "*");
    assert_eq!(games[1].moves, ["d4"]);
    assert_eq!(games[1].result, "1/2-1/2");
    let r = pgn::replay(&games[0]).unwrap();
    assert_eq!(r.tokens, ["e2e4", "e7e5", "g1f3", "b8c6"]);
    // An illegal move is an error.
    let bad = pgn::read_pgn("1. e4 e4 *\n").unwrap();
    assert!(pgn::replay(&bad[0]).is_err());
}

/// Random legal games in every variant survive write + read + replay.
#[test]
fn pgn_round_trip_in_every_variant() {
    for &v in VariantKind::ALL {
        turncoat::with_variant!(v, V => round_trip_random::<V>(v));
    }
}

fn round_trip_random<V: Policy>(v: VariantKind) {
    let mut rng = Rng::new(99);
    for game_no in 0..5 {
        let start = if game_no % 2 == 0 {
            Position::<V>::startpos()
        } else {
            let f = openings::random_opening::<V>(5, game_no, 6).unwrap();
            fen::parse::<V>(&f).unwrap()
        };
        let mut g = Game::new(start);
        let mut tokens = Vec::new();
        let mut moves = MoveList::new();
        while tokens.len() < 120 && g.outcome().is_none() {
            moves.clear();
            V::legal_moves(&g.pos, &mut moves);
            let mv = moves[rng.below(moves.len())];
            tokens.push(turncoat::rules::game::token(&g.pos, mv));
            g.play(mv);
        }
        let toks: Vec<&str> = tokens.iter().map(String::as_str).collect();
        let rec = record(&fen::format(&start), &toks, GameResult::Draw);
        let text = pgn::game_to_pgn(&rec, &ctx(v));
        assert_eq!(text.contains("[Variant"), v != VariantKind::Chess);
        let back = &pgn::read_pgn(&text).unwrap()[0];
        let r = pgn::replay(back).unwrap_or_else(|e| panic!("{v}: {e}\n{text}"));
        assert_eq!(r.variant, v);
        assert_eq!(r.tokens, tokens, "{v}");
        assert_eq!(r.final_fen, fen::format(&g.pos));
    }
}

// ---------------------------------------------------------------- matches with fake engines

/// Runs a 2-game match `good` vs `bad` through the binary and returns (stdout,
/// stderr, games read back from the PGN).
fn forfeit_match(name: &str, bad_args: &str, limit: &str) -> (String, String, Vec<pgn::PgnGame>) {
    let dir = scratch(name);
    let bad: Vec<String> = bad_args
        .split_whitespace()
        .map(|s| format!("\"{s}\""))
        .collect();
    let fake = common::fake_engine();
    let cfg = format!(
        "[[engine]]\nname = \"good\"\ncmd = \"{fake}\"\nargs = []\n\n\
         [[engine]]\nname = \"bad\"\ncmd = \"{fake}\"\nargs = [{}]\n\n\
         [match]\ngames = 2\n{limit}\nrandom_plies = 4\nseed = 3\ntime_margin = 500\nmove_timeout = 1\n\
         [match.adjudication]\nmax_moves = 30\n",
        bad.join(", ")
    );
    let cfg_path = write_config(&dir, &cfg);
    let pgn_path = dir.join("games.pgn");
    let out = match_cmd(&[
        "--config",
        cfg_path.to_str().unwrap(),
        "--pgn",
        pgn_path.to_str().unwrap(),
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    let games = pgn::read_pgn(&std::fs::read_to_string(&pgn_path).unwrap()).unwrap();
    // The runner goes on after each forfeit: both games are played and reported.
    assert_eq!(games.len(), 2, "{stderr}");
    assert_eq!(stderr.matches("Finished game").count(), 2, "{stderr}");
    assert!(
        stdout.contains("Score of good vs bad: 2 - 0 - 0"),
        "{stdout}\n{stderr}"
    );
    for g in &games {
        // Every move in the PGN was legal.
        pgn::replay(g).unwrap();
    }
    assert_eq!(games[0].tag("Result"), Some("1-0"));
    assert_eq!(games[1].tag("Result"), Some("0-1"));
    (stdout, stderr, games)
}

/// The FEN quoted by a log line after `marker`, checked to be a real position.
fn logged_fen(stderr: &str, marker: &str, end: &str) -> String {
    let line = stderr
        .lines()
        .find(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no log line with '{marker}' in\n{stderr}"));
    let after = &line[line
        .find(" in ")
        .map(|i| i + 4)
        .expect("' in ' before the FEN")..];
    let f = after.split(end).next().unwrap().trim().to_string();
    fen::parse::<Chess>(&f).unwrap_or_else(|e| panic!("logged FEN '{f}': {e}"));
    f
}

#[test]
fn illegal_move_forfeits_with_log() {
    let (_, stderr, games) = forfeit_match("illegal", "--mode illegal --at 2", "movetime = 50");
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("rules infraction"));
        assert!(g
            .comments
            .last()
            .unwrap()
            .as_deref()
            .unwrap()
            .contains("makes an illegal move: a1a8"));
    }
    assert_eq!(
        stderr.matches("plays the illegal move 'a1a8' in ").count(),
        2,
        "{stderr}"
    );
    logged_fen(&stderr, "illegal move 'a1a8'", "; it forfeits");
}

#[test]
fn time_loss_forfeits_with_log() {
    let (_, stderr, games) = forfeit_match(
        "time",
        "--mode slow --at 2 --sleep-ms 1200",
        "tc = \"0.3+0\"",
    );
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("time forfeit"));
        assert_eq!(g.tag("TimeControl"), Some("0.3"));
        assert!(g
            .comments
            .last()
            .unwrap()
            .as_deref()
            .unwrap()
            .contains("loses on time"));
    }
    assert_eq!(
        stderr.matches("loses on time: its move").count(),
        2,
        "{stderr}"
    );
    logged_fen(&stderr, "loses on time", "\n");
}

/// The time a move took, as the PGN's move comment gives it (`{+0.00/1 0.031s}`).
fn comment_ms(comment: &str) -> i64 {
    let t = comment
        .rsplit(' ')
        .next()
        .and_then(|t| t.strip_suffix('s'))
        .unwrap_or_else(|| panic!("no time in comment '{comment}'"));
    let (secs, ms) = t.split_once('.').expect("s.mmm");
    secs.parse::<i64>().unwrap() * 1000 + ms.parse::<i64>().unwrap()
}

/// A 2-game match of two fake engines that log every `go` they receive:
/// `quick` answers at once, `slow` after 30 ms (so that swapped clocks
/// differ). `quick_entry` adds lines to quick's `[[engine]]` entry, `limit` is
/// the `[match]` limit line; games from random 2-ply openings, adjudicated
/// drawn after `max_moves` moves. Returns the runner's stderr, the games and
/// the `go` lines each engine received (quick's, then slow's).
fn go_logging_match(
    name: &str,
    quick_entry: &str,
    limit: &str,
    max_moves: u32,
) -> (String, Vec<pgn::PgnGame>, [Vec<String>; 2]) {
    let dir = scratch(name);
    let fake = common::fake_engine();
    let (quick_log, slow_log) = (dir.join("quick.log"), dir.join("slow.log"));
    let cfg = format!(
        "[[engine]]\nname = \"quick\"\ncmd = \"{fake}\"\nargs = [\"--log-go\", \"{}\"]\n\
         {quick_entry}\n\
         [[engine]]\nname = \"slow\"\ncmd = \"{fake}\"\n\
         args = [\"--delay-ms\", \"30\", \"--log-go\", \"{}\"]\n\n\
         [match]\ngames = 2\n{limit}\nrandom_plies = 2\nseed = 5\n\
         [match.adjudication]\nmax_moves = {max_moves}\n",
        quick_log.display(),
        slow_log.display()
    );
    let cfg_path = write_config(&dir, &cfg);
    let pgn_path = dir.join(format!("{name}.pgn"));
    let out = match_cmd(&[
        "--config",
        cfg_path.to_str().unwrap(),
        "--pgn",
        pgn_path.to_str().unwrap(),
    ]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let games = pgn::read_pgn(&std::fs::read_to_string(&pgn_path).unwrap()).unwrap();
    assert_eq!(games.len(), 2, "{stderr}");
    let sent = [quick_log, slow_log].map(|log| {
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    });
    (stderr, games, sent)
}

#[test]
fn each_side_is_sent_its_own_clock() {
    // Both engines log every `go` they receive. The runner's clock is exact in
    // milliseconds: each side starts with 3 s, loses what each of its moves took
    // (the PGN's move comments hold those times), gains 50 ms per move, and 3 s
    // again after every 3 moves. So every `go` must carry exactly the clocks
    // computed from the PGN, whatever the machine's load; `slow` takes 30 ms a
    // move and `quick` answers at once, so swapped clocks differ.
    let (_, games, sent) = go_logging_match("clocks", "", "tc = \"3/3+0.05\"", 8);
    let (base, inc, period) = (3000i64, 50i64, 3u32);
    let mut expected: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for g in &games {
        // Random openings of 2 plies: White moves first.
        assert_eq!(g.tag("FEN").and_then(|f| f.split(' ').nth(1)), Some("w"));
        assert_eq!(g.tag("Termination"), Some("adjudication"), "{g:?}");
        assert_eq!(g.moves.len(), 16);
        let engine_of = |tag: &str| usize::from(g.tag(tag) == Some("slow"));
        let players = [engine_of("White"), engine_of("Black")];
        assert_ne!(players[0], players[1]);
        let mut clocks = [base; 2];
        let mut moves_done = [0u32; 2];
        for ply in 0..g.moves.len() {
            let side = ply % 2;
            expected[players[side]].push(format!(
                "go wtime {} btime {} winc {inc} binc {inc} movestogo {}",
                clocks[0],
                clocks[1],
                period - moves_done[side] % period
            ));
            // The last move's comment is the game's ending: no `go` follows it.
            if ply + 1 < g.moves.len() {
                let took = comment_ms(g.comments[ply].as_deref().unwrap());
                // What makes swapped clocks differ from the right ones.
                if players[side] == 1 {
                    assert!(took >= 30, "slow took {took} ms");
                }
                clocks[side] = (clocks[side] - took).max(0) + inc;
                moves_done[side] += 1;
                if moves_done[side] % period == 0 {
                    clocks[side] += base;
                }
            }
        }
    }
    assert_eq!(sent, expected);
}

#[test]
fn each_engine_plays_by_its_own_limit() {
    // `quick` has its own limit (`nodes = 123` in its [[engine]] entry), `slow`
    // plays by the match's clock. So `quick` is sent `go nodes 123` every
    // move, and `slow` its own clock, which it is also shown as its
    // opponent's (the opponent has none); the PGN names each side's time
    // control, as Cutechess does when they differ.
    let (stderr, games, sent) =
        go_logging_match("own-limit", "nodes = 123\n", "tc = \"3+0.05\"", 6);
    assert!(
        stderr.contains("| tc 3+0.05, quick nodes 123 |"),
        "{stderr}"
    );
    let (base, inc) = (3000i64, 50i64);
    let mut expected: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for g in &games {
        assert_eq!(
            g.tag("Event"),
            Some("Turncoat match (chess, tc 3+0.05, quick nodes 123)")
        );
        assert_eq!(g.tag("TimeControl"), None);
        let tc_of = |name: Option<&str>| if name == Some("quick") { "-" } else { "3+0.05" };
        assert_eq!(g.tag("WhiteTimeControl"), Some(tc_of(g.tag("White"))));
        assert_eq!(g.tag("BlackTimeControl"), Some(tc_of(g.tag("Black"))));
        assert_eq!(g.tag("Termination"), Some("adjudication"), "{g:?}");
        assert_eq!(g.moves.len(), 12);
        let slow_side = usize::from(g.tag("Black") == Some("slow"));
        let mut clock = base;
        for ply in 0..g.moves.len() {
            let side = ply % 2;
            if side != slow_side {
                expected[0].push("go nodes 123".to_string());
                continue;
            }
            expected[1].push(format!(
                "go wtime {clock} btime {clock} winc {inc} binc {inc}"
            ));
            if ply + 1 < g.moves.len() {
                let took = comment_ms(g.comments[ply].as_deref().unwrap());
                clock = (clock - took).max(0) + inc;
            }
        }
    }
    assert_eq!(sent, expected);
}

#[test]
fn crash_forfeits_with_log_and_engine_restarts() {
    let (_, stderr, games) = forfeit_match("crash", "--mode crash --at 2", "nodes = 10");
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("abandoned"));
        assert!(g
            .comments
            .last()
            .unwrap()
            .as_deref()
            .unwrap()
            .contains("disconnects"));
    }
    // Restarted for game 2 (which it crashes again, rather than failing to start).
    assert_eq!(stderr.matches("bad (").count(), 2, "{stderr}");
    assert_eq!(
        stderr
            .matches("crashed: the engine died (exit status: 3)")
            .count(),
        2,
        "{stderr}"
    );
    logged_fen(&stderr, "crashed", "\n");
}

#[test]
fn hang_forfeits_with_log_and_engine_restarts() {
    let (_, stderr, games) = forfeit_match("hang", "--mode hang --at 2", "nodes = 10");
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("abandoned"));
        assert!(g
            .comments
            .last()
            .unwrap()
            .as_deref()
            .unwrap()
            .contains("connection stalls"));
    }
    assert_eq!(stderr.matches("stopped responding").count(), 2, "{stderr}");
    logged_fen(&stderr, "stopped responding", "; killing it");
}

#[test]
fn silent_engine_fails_the_handshake() {
    let mut s = spec(
        vec![fake("good", &[]), fake("mute", &["--mode", "silent"])],
        2,
    );
    // The mute engine never answers, so any timeout fails it; 2 s (not 300 ms)
    // keeps the good engine's handshake safe on a loaded machine.
    s.start_timeout = Duration::from_secs(2);
    let e = play(&s).unwrap_err();
    assert!(e.contains("mute") && e.contains("uciok"), "{e}");
}

#[test]
fn engine_without_the_variant_is_refused() {
    let &other = VariantKind::ALL
        .iter()
        .find(|&&v| v != VariantKind::Chess)
        .expect("a variant besides chess");
    let mut s = spec(
        vec![fake("good", &[]), fake("plain", &["--mode", "no-variant"])],
        2,
    );
    s.variant = other;
    let e = play(&s).unwrap_err();
    assert!(e.contains("plain") && e.contains("UCI_Variant"), "{e}");
}

/// A match built in code (not from engines.toml) is refused too when an engine's
/// options set `UCI_Variant`: the runner owns the variant.
#[test]
fn uci_variant_among_options_is_refused_in_a_match_spec() {
    let mut b = fake("b", &[]);
    b.options = vec![("uci_variant ".to_string(), "pacifist".to_string())];
    let s = spec(vec![fake("a", &[]), b], 2);
    let e = play(&s).unwrap_err();
    assert_eq!(
        e,
        "engine 'b': option 'uci_variant ' is not an engine option here: the runner sets \
         UCI_Variant from --variant (or variant in [match]); remove it"
    );
}

#[test]
fn results_do_not_depend_on_concurrency() {
    let summary =
        |r: &MatchReport| -> Vec<(usize, usize, String, Vec<String>, GameResult, String)> {
            r.games
                .iter()
                .map(|g| {
                    (
                        g.white,
                        g.black,
                        g.start_fen.clone(),
                        g.moves.iter().map(|m| m.token.clone()).collect(),
                        g.result,
                        g.reason.clone(),
                    )
                })
                .collect()
        };
    let engines = vec![fake("a", &[]), fake("b", &["--score", "3"]), fake("c", &[])];
    let mut s = spec(engines, 4);
    s.openings = OpeningSource::Random { plies: 6, seed: 11 };
    let one = play(&s).unwrap();
    s.concurrency = 3;
    let three = play(&s).unwrap();
    assert_eq!(one.games.len(), 12);
    assert_eq!(summary(&one), summary(&three));
    assert_eq!(one.standings.wdl, three.standings.wdl);
    assert_eq!(one.standings.ptnml, three.standings.ptnml);
    let numbers: Vec<usize> = three.games.iter().map(|g| g.number).collect();
    assert_eq!(numbers, (1..=12).collect::<Vec<_>>());
}

/// Three engines: the ranking table and the crosstable print points with a
/// decimal point (never "1/2" for one point of two) and no nan / inf.
#[test]
fn round_robin_tables_use_decimal_points() {
    let engines = vec![
        fake("a", &[]),
        fake("b", &["--mode", "illegal", "--at", "1"]),
        fake("c", &[]),
    ];
    let mut s = spec(engines, 2);
    s.adjudication.max_moves = Some(3);
    let r = play(&s).unwrap();
    assert_eq!(r.games.len(), 6);
    let lines = tournament::cli::result_lines(&r);
    let cross = lines
        .iter()
        .position(|l| l.starts_with("Crosstable"))
        .expect("a crosstable");
    // b forfeits every game at its first move; a and c draw by the length limit.
    let rows: Vec<Vec<&str>> = lines[cross + 1..cross + 4]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["a", "x", "2.0/2", "1.0/2", "3.0/4"]);
    assert_eq!(rows[1], ["b", "0.0/2", "x", "0.0/2", "0.0/4"]);
    assert_eq!(rows[2], ["c", "1.0/2", "2.0/2", "x", "3.0/4"]);
    let all = lines.join("\n");
    assert!(
        !all.contains(" 1/2") && !all.to_lowercase().contains("nan"),
        "{all}"
    );
    assert!(!all.contains("inf"), "{all}");
    let b_row = lines
        .iter()
        .find(|l| l.split_whitespace().nth(1) == Some("b"))
        .expect("b in the ranking");
    assert_eq!(
        b_row.split_whitespace().collect::<Vec<_>>(),
        ["3", "b", "n/a", "n/a", "4", "0.0%", "0.0%"]
    );
}

#[test]
fn sprt_stops_the_match_when_decided() {
    let mut s = spec(
        vec![
            fake("good", &[]),
            fake("bad", &["--mode", "illegal", "--at", "1"]),
        ],
        200,
    );
    // Every pair is won twice: the logistic GLLR for 0,50 grows by about 0.13
    // per such pair and first passes 2.944 at the 23rd (2.939 after 22, 3.073
    // after 23; fishtest's formulas).
    s.sprt = Some("0,50".parse().unwrap());
    s.concurrency = 2;
    let r = play(&s).unwrap();
    let (sprt, llr) = r.sprt.unwrap();
    assert_eq!(sprt.verdict(llr), Verdict::AcceptH1);
    assert_eq!(r.games.len(), 46);
    assert!(close(llr, 3.072_858_945, 1e-6), "{llr}");
    assert_eq!(r.standings.wdl[0].wins as usize, r.games.len());
}

#[test]
fn resign_and_draw_adjudication_and_max_length() {
    // Resign: both engines agree (+1000 / -1000) for 3 moves each.
    let mut s = spec(
        vec![
            fake("winner", &["--score", "1000"]),
            fake("loser", &["--score", "-1000"]),
        ],
        2,
    );
    s.adjudication = Adjudication {
        max_moves: None,
        resign: Some(ResignRule {
            moves: 3,
            score: 500,
        }),
        draw: None,
    };
    let r = play(&s).unwrap();
    assert_eq!(r.games.len(), 2);
    for g in &r.games {
        assert_eq!(g.termination, Termination::Adjudication);
        assert_eq!(g.moves.len(), 6, "{g:?}");
        assert_eq!(g.points_of(0), 1.0);
        assert!(g.reason.ends_with("wins by adjudication"));
    }
    // One engine alone thinking it is lost is not enough.
    let mut s2 = s.clone();
    s2.engines = vec![
        fake("a", &["--score", "0"]),
        fake("loser", &["--score", "-1000"]),
    ];
    s2.adjudication.max_moves = Some(10);
    let r = play(&s2).unwrap();
    assert_eq!(r.games.len(), 2);
    assert!(r.games.iter().all(|g| g.reason.contains("maximum length")));
    assert!(r
        .games
        .iter()
        .all(|g| g.moves.len() == 20 && g.result == GameResult::Draw));

    // Draw: both within 10 cp for 2 moves each, from move 3 on.
    let mut s3 = spec(vec![fake("a", &[]), fake("b", &[])], 2);
    s3.adjudication = Adjudication {
        max_moves: None,
        resign: None,
        draw: Some(DrawRule {
            start: 3,
            moves: 2,
            score: 10,
        }),
    };
    let r = play(&s3).unwrap();
    assert_eq!(r.games.len(), 2);
    for g in &r.games {
        assert_eq!(
            (g.result, g.termination),
            (GameResult::Draw, Termination::Adjudication)
        );
        assert_eq!(g.moves.len(), 6);
        assert_eq!(g.reason, "Draw by adjudication");
    }
}

// ---------------------------------------------------------------- the real engine

/// Four games of the shipped engines.toml's demo (two Turncoat configurations in
/// its variant) at a fixed depth, through the binary; the PGN reads back through
/// our rules.
#[test]
fn real_turncoat_match_at_fixed_depth() {
    let dir = scratch("real");
    let pgn_path = dir.join("real.pgn");
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("engines.toml");
    let out = match_cmd(&[
        "--config",
        cfg.to_str().unwrap(),
        "--depth",
        "3",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--pgn",
        pgn_path.to_str().unwrap(),
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("Finished game").count(), 4, "{stderr}");
    assert!(
        stdout.contains("Score of Turncoat vs Turncoat-HandWritten: "),
        "{stdout}"
    );
    assert!(stdout.contains("Elo difference: "), "{stdout}");
    assert!(stdout.contains("Ptnml(0-2): "), "{stdout}");
    let games = pgn::read_pgn(&std::fs::read_to_string(&pgn_path).unwrap()).unwrap();
    assert_eq!(games.len(), 4);
    for g in &games {
        let term = g.tag("Termination").unwrap();
        assert!(term == "normal" || term == "adjudication", "forfeit: {g:?}");
        let r = pgn::replay(g).unwrap();
        assert!(!r.tokens.is_empty());
        if term == "normal" {
            assert_eq!(Some(r.outcome.unwrap().result()), g.tag("Result"));
        }
    }
}

/// The performance target: at `--nodes 1000`, two Turncoat instances play at
/// least 10 games per second of standard chess on 2 cores (release build; run
/// with `cargo test --release -- --ignored`).
#[test]
#[ignore]
fn throughput_at_1000_nodes() {
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("engines.toml");
    let started = std::time::Instant::now();
    let out = match_cmd(&[
        "--config",
        cfg.to_str().unwrap(),
        "--variant",
        "chess",
        "--nodes",
        "1000",
        "--games",
        "40",
        "--concurrency",
        "2",
        "--no-pgn",
    ]);
    let secs = started.elapsed().as_secs_f64();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rate = 40.0 / secs;
    eprintln!("{rate:.1} games/s");
    assert!(rate >= 10.0, "{rate:.1} games/s");
}

#[test]
fn match_merge_combines_shards() {
    use turncoat::tournament::merge::merge;
    fn game(round: u32, white: &str, black: &str, result: &str) -> String {
        format!(
            "[Event \"t\"]\n[Round \"{round}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n1. e4 e5 {result}\n\n"
        )
    }
    // Shard 1: A wins both games of pair 1; pair 2 is a win and a loss.
    let s1 = [
        game(1, "A", "B", "1-0"),
        game(2, "B", "A", "0-1"),
        game(3, "A", "B", "1-0"),
        game(4, "B", "A", "1-0"),
    ]
    .concat();
    // Shard 2: a draw pair, and a pair A loses and draws.
    let s2 = [
        game(5, "B", "A", "1/2-1/2"),
        game(6, "A", "B", "1/2-1/2"),
        game(7, "A", "B", "0-1"),
        game(8, "B", "A", "1/2-1/2"),
    ]
    .concat();
    let lines = merge(&[("s1".into(), s1), ("s2".into(), s2)])
        .unwrap()
        .lines;
    assert_eq!(lines[0], "Score of A vs B: 3 - 2 - 3  [0.562] 8");
    assert!(
        lines[2].starts_with("Ptnml(0-2): [0, 1, 2, 0, 1], WL/DD: 1, 1,"),
        "{}",
        lines[2]
    );
    let err = merge(&[(
        "s3".into(),
        game(1, "A", "C", "1-0") + &game(2, "B", "A", "1-0"),
    )])
    .unwrap_err();
    assert!(
        err.contains(
            "cannot merge different engine pairs: s3 game 1 is A vs C, s3 game 2 is B vs A"
        ),
        "{err}"
    );
}
