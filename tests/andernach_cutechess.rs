//! The Andernach variants against Cutechess's own board code, live: random
//! walks played by the Cutechess driver (benches/cutechess/driver.cpp), and at
//! every ply the FEN, the set of legal moves, the SAN of each and the game
//! result compared with Turncoat's. Needs the driver, so it is `--ignored`:
//!
//! ```text
//! scripts/build-cutechess-driver.sh            # builds target/cutechess/cutechess-driver
//! cargo test --release --test andernach_cutechess -- --ignored --nocapture
//! ```
//!
//! Without the driver the test says so and passes (fails under `CI=true`).
//! `TURNCOAT_CUTECHESS_DRIVER` names another driver binary;
//! `TURNCOAT_WALKS` (default 200) and `TURNCOAT_WALK_PLIES` (default 150) set
//! the number and length of the walks per variant and start position,
//! `TURNCOAT_WALK_SEED` (default 1) the seed.

mod common;

use std::path::PathBuf;
use std::process::Command;

use turncoat::rules::fen;
use turncoat::rules::game::{self, Game};
use turncoat::rules::moves::MoveList;
use turncoat::rules::position::Position;
use turncoat::rules::variants::andernach::{
    self, Andernach, AntiAndernach, SideChange, SuperAndernach,
};

/// The driver, or `None` (with a note; a failure under `CI=true`).
fn driver() -> Option<PathBuf> {
    let path = std::env::var_os("TURNCOAT_CUTECHESS_DRIVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/cutechess/cutechess-driver")
        });
    if path.is_file() {
        return Some(path);
    }
    common::skip_or_fail(
        "walks against Cutechess",
        &format!(
            "no Cutechess driver at {} (build it with scripts/build-cutechess-driver.sh)",
            path.display()
        ),
    );
    None
}

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Positions the walks start from: the start position, and middlegames
/// where conversions, promotions, en passant and castling come early.
const STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/1P4P1/8/3pP3/2pP4/8/1p4p1/R3K2R w KQkq - 0 1",
    "4k3/2p1p3/8/1P1P1P2/1p1p1p2/8/2P1P3/4K3 w - - 0 1",
    "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
    "r3k3/1p4P1/8/2Pp4/4pP2/8/1P4p1/4K2R b Kq - 0 1",
];

/// Counts of what the walks compared.
#[derive(Default, Debug)]
struct Tally {
    walks: u64,
    positions: u64,
    moves: u64,
    /// Positions with an en passant square.
    en_passant: u64,
    /// Positions whose game was over (mate, stalemate or a draw rule).
    ended: u64,
    /// Moves that handed the pawn past the en passant square back to the
    /// opponent (a piece's move there; Anti- and Super-Andernach).
    handed_back: u64,
    /// Moves to the en passant square played from the FEN alone where an en
    /// passant capture takes nothing (no enemy pawn past the square).
    spared: u64,
}

fn walk_variant<V: SideChange>(driver: &std::path::Path, tally: &mut Tally) {
    let walks = env_num("TURNCOAT_WALKS", 200);
    let plies = env_num("TURNCOAT_WALK_PLIES", 150);
    let seed = env_num("TURNCOAT_WALK_SEED", 1);
    for (i, start) in STARTS.iter().enumerate() {
        let out = Command::new(driver)
            .args([
                "walk",
                V::NAME,
                &(seed + i as u64).to_string(),
                &walks.to_string(),
                &plies.to_string(),
                start,
            ])
            .output()
            .expect("driver runs");
        assert!(
            out.status.success(),
            "driver failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        let mut game: Option<Game<V>> = None;
        for line in text.lines() {
            if line == "end" {
                tally.walks += 1;
                game = None;
                continue;
            }
            let g = game.get_or_insert_with(|| {
                Game::new(fen::parse::<V>(start).expect("start FEN is valid"))
            });
            compare_ply(g, line, tally);
        }
    }
}

/// One line of the driver's walk: "<fen>\t<result>\t<lan>=<san> ...\t<chosen>\t<fen'>",
/// fen' the FEN after the chosen move played from the FEN alone.
fn compare_ply<V: SideChange>(g: &mut Game<V>, line: &str, tally: &mut Tally) {
    let fields: Vec<&str> = line.split('\t').collect();
    assert_eq!(fields.len(), 5, "bad driver line {line}");
    let (cc_fen, cc_result, cc_moves, chosen, cc_reloaded) =
        (fields[0], fields[1], fields[2], fields[3], fields[4]);
    let pos: Position<V> = g.pos;
    let here = fen::format(&pos);
    assert_eq!(here, cc_fen, "{}: FEN differs", V::NAME);

    let mut cc: Vec<(String, String)> = cc_moves
        .split(' ')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (lan, san) = s.split_once('=').expect("lan=san");
            (lan.to_string(), san.to_string())
        })
        .collect();
    cc.sort();
    let mut moves = MoveList::new();
    V::legal_moves(&pos, &mut moves);
    let mut ours: Vec<(String, String)> = moves
        .iter()
        .map(|&m| (game::token(&pos, m), andernach::san(&pos, m)))
        .collect();
    ours.sort();
    let cc_lans: Vec<&str> = cc.iter().map(|(l, _)| l.as_str()).collect();
    let our_lans: Vec<&str> = ours.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(
        our_lans,
        cc_lans,
        "{}: legal moves differ in {here}",
        V::NAME
    );
    assert_eq!(ours, cc, "{}: SAN differs in {here}", V::NAME);
    for (lan, san) in &cc {
        let mv = andernach::parse_san(&pos, san)
            .unwrap_or_else(|| panic!("{}: cannot read Cutechess SAN {san} in {here}", V::NAME));
        assert_eq!(&game::token(&pos, mv), lan, "{}: {san} read wrong", V::NAME);
    }

    let cc_short = cc_result.split(' ').next().unwrap_or(cc_result);
    let our_short = g.outcome().map_or("*", |o| o.result());
    assert_eq!(
        our_short,
        cc_short,
        "{}: result differs in {here} (Cutechess: {cc_result})",
        V::NAME
    );
    tally.positions += 1;
    tally.moves += cc.len() as u64;
    tally.en_passant += u64::from(pos.ep_square().is_some());
    tally.ended += u64::from(our_short != "*");

    if chosen != "-" {
        // From the FEN alone, as a game that starts there (an opening's FEN).
        let mut reloaded = Game::new(fen::parse::<V>(cc_fen).expect("Cutechess's FEN reads"));
        let mv = game::find_move(&reloaded.pos, chosen).expect("legal from the FEN");
        tally.spared +=
            u64::from(reloaded.pos.state().is_some() && reloaded.pos.ep_square() == Some(mv.to));
        reloaded
            .play_token(chosen)
            .unwrap_or_else(|e| panic!("{}: {e}", V::NAME));
        assert_eq!(
            fen::format(&reloaded.pos),
            cc_reloaded,
            "{}: {chosen} from the FEN {here} differs",
            V::NAME
        );
        let mv = game::find_move(&g.pos, chosen).expect("legal");
        tally.handed_back += u64::from(andernach::handed_back(&g.pos, mv).is_some());
        g.play_token(chosen)
            .unwrap_or_else(|e| panic!("{}: {e}", V::NAME));
    }
}

#[test]
#[ignore = "needs the Cutechess driver (scripts/build-cutechess-driver.sh)"]
fn walks_agree_with_cutechess() {
    let Some(driver) = driver() else {
        return;
    };
    let mut report = Vec::new();
    let mut t = Tally::default();
    walk_variant::<Andernach>(&driver, &mut t);
    report.push(("andernach", t));
    let mut t = Tally::default();
    walk_variant::<AntiAndernach>(&driver, &mut t);
    report.push(("antiandernach", t));
    let mut t = Tally::default();
    walk_variant::<SuperAndernach>(&driver, &mut t);
    report.push(("superandernach", t));
    for (name, t) in &report {
        println!(
            "{name}: {} walks, {} positions ({} with an en passant square, {} after the \
             game's end), {} legal moves compared (set, SAN, reading back); {} moves \
             handed a pawn back, {} en passant moves from a FEN took nothing",
            t.walks, t.positions, t.en_passant, t.ended, t.moves, t.handed_back, t.spared
        );
    }
    for (name, t) in &report {
        assert!(t.positions > 0);
        // The walks are long enough to meet both of Cutechess's ways with the
        // en passant square (docs/RULES.md, "Andernach: en passant as
        // Cutechess referees it") where they happen.
        if *name != "andernach" {
            assert!(t.handed_back > 0, "{name}: no move handed a pawn back");
            assert!(
                t.spared > 0,
                "{name}: no en passant move from a FEN took nothing"
            );
        }
    }
}
