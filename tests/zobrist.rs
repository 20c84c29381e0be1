//! Zobrist keys in every build: after every move of random games, in every
//! variant, the incrementally updated key equals `Position::compute_key()`, the
//! key from scratch (board, side, castling, en passant and the variant's state:
//! Attending Pawns' links, Cruise Pawns' missile in flight). The debug-build
//! check inside `play` disappears under `--release`; this one does not.

mod common;

use turncoat::rules::fen;
use turncoat::rules::game;
use turncoat::rules::moves::MoveList;
use turncoat::rules::position::Position;
use turncoat::rules::variants::attending_pawns::AttendingPawns;
use turncoat::rules::variants::chess::Chess;
use turncoat::rules::variants::cowardly_crew::CowardlyCrew;
use turncoat::rules::variants::cruise_pawns::CruisePawns;
use turncoat::rules::variants::pacifist::Pacifist;
use turncoat::rules::variants::subversion::Subversion;
use turncoat::rules::variants::Variant;

/// Plays `games` random games of up to `plies` plies from the start position
/// and from `extra` FENs; returns how many keys were compared.
fn random_games<V: Variant>(games: u64, plies: usize, extra: &[&str]) -> usize {
    let mut next = common::xorshift(0x9e37_79b9_7f4a_7c15u64 ^ V::NAME.len() as u64);
    let mut starts = vec![Position::<V>::startpos()];
    for f in extra {
        starts.push(fen::parse(f).unwrap_or_else(|e| panic!("{f}: {e}")));
    }
    let mut checked = 0;
    let mut moves = MoveList::new();
    for start in &starts {
        assert_eq!(start.key(), start.compute_key(), "{}", fen::format(start));
        for _ in 0..games {
            let mut pos = *start;
            for _ in 0..plies {
                moves.clear();
                V::legal_moves(&pos, &mut moves);
                if moves.is_empty() {
                    break;
                }
                let mv = moves[(next() % moves.len() as u64) as usize];
                let before = fen::format(&pos);
                let token = game::token(&pos, mv);
                game::play(&mut pos, mv);
                assert_eq!(
                    pos.key(),
                    pos.compute_key(),
                    "{}: {token} from {before} gives {}",
                    V::NAME,
                    fen::format(&pos)
                );
                // The key from scratch of the same position read back from its
                // FEN agrees too (state printed and read, nothing hidden).
                let reread: Position<V> = fen::parse(&fen::format(&pos)).expect("own FEN");
                assert_eq!(
                    reread.key(),
                    pos.key(),
                    "{}: {}",
                    V::NAME,
                    fen::format(&pos)
                );
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn chess() {
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    assert!(random_games::<Chess>(30, 120, &[kiwipete]) > 3000);
}

#[test]
fn cowardly_crew() {
    let open = "r2qk2r/ppp2ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPP2PPP/R2QK2R w KQkq - 0 1";
    assert!(random_games::<CowardlyCrew>(30, 120, &[open]) > 3000);
}

#[test]
fn subversion() {
    let open = "r2qk2r/ppp2ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPP2PPP/R2QK2R w KQkq - 0 1";
    assert!(random_games::<Subversion>(30, 120, &[open]) > 3000);
}

#[test]
fn attending_pawns() {
    let links = "r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R w KQkq - 0 1 \
        a1a2,c3b2,d2c2,e1f2,h1h2,e3d4,f3g2,a8a7,c6b7,d7c7,e8f7,h8h7,e6d5,f6g7";
    assert!(random_games::<AttendingPawns>(30, 120, &[links]) > 3000);
}

#[test]
fn cruise_pawns() {
    let flying = "r1q3n1/1b6/8/4nkb1/8/R3PNB1/5K1P/6N1 b - - 0 34 b3*b4c5d6e7f7g6g5";
    let open = "r2q1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 0 9 -";
    assert!(random_games::<CruisePawns>(30, 120, &[flying, open]) > 4000);
}

#[test]
fn pacifist() {
    let n = random_games::<Pacifist>(100, 120, &[]);
    assert!(n > 1500, "{n}");
}
