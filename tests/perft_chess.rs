//! Standard-chess perft suite (the positions of the chessprogramming wiki).
//! Shallow depths run by default; the full depths are `#[ignore]`d:
//! `cargo test --release --test perft_chess -- --ignored`.

use turncoat::rules::fen;
use turncoat::rules::perft;
use turncoat::rules::position::Position;
use turncoat::rules::variants::chess::Chess;

const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POS3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
const POS4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const POS5: &str = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
const POS6: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

fn count(fen_str: &str, depth: u32) -> u64 {
    let pos: Position<Chess> = fen::parse(fen_str).expect("valid FEN");
    perft::perft(&pos, depth)
}

#[test]
fn startpos_shallow() {
    assert_eq!(count(STARTPOS, 1), 20);
    assert_eq!(count(STARTPOS, 2), 400);
    assert_eq!(count(STARTPOS, 3), 8_902);
    assert_eq!(count(STARTPOS, 4), 197_281);
}

#[test]
fn kiwipete_shallow() {
    assert_eq!(count(KIWIPETE, 1), 48);
    assert_eq!(count(KIWIPETE, 2), 2_039);
    assert_eq!(count(KIWIPETE, 3), 97_862);
}

#[test]
fn position3_shallow() {
    assert_eq!(count(POS3, 1), 14);
    assert_eq!(count(POS3, 3), 2_812);
    assert_eq!(count(POS3, 5), 674_624);
}

#[test]
fn position4_shallow() {
    assert_eq!(count(POS4, 1), 6);
    assert_eq!(count(POS4, 2), 264);
    assert_eq!(count(POS4, 3), 9_467);
    assert_eq!(count(POS4, 4), 422_333);
}

#[test]
fn position5_shallow() {
    assert_eq!(count(POS5, 1), 44);
    assert_eq!(count(POS5, 2), 1_486);
    assert_eq!(count(POS5, 3), 62_379);
}

#[test]
fn position6_shallow() {
    assert_eq!(count(POS6, 1), 46);
    assert_eq!(count(POS6, 2), 2_079);
    assert_eq!(count(POS6, 3), 89_890);
}

#[test]
fn parallel_equals_serial() {
    let pos: Position<Chess> = fen::parse(KIWIPETE).expect("valid FEN");
    assert_eq!(perft::perft_parallel(&pos, 4, 2), 4_085_603);
    let divide = perft::divide(&pos, 3, 2);
    assert_eq!(divide.len(), 48);
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 97_862);
    assert!(divide.contains(&("e1g1".to_string(), 2_059)));
}

#[test]
#[ignore]
fn startpos_d6() {
    assert_eq!(count(STARTPOS, 6), 119_060_324);
}

#[test]
#[ignore]
fn kiwipete_d5() {
    assert_eq!(count(KIWIPETE, 5), 193_690_690);
}

#[test]
#[ignore]
fn position3_d6() {
    assert_eq!(count(POS3, 6), 11_030_083);
}

#[test]
#[ignore]
fn position4_d5() {
    assert_eq!(count(POS4, 5), 15_833_292);
}

#[test]
#[ignore]
fn position5_d5() {
    assert_eq!(count(POS5, 5), 89_941_194);
}

#[test]
#[ignore]
fn position6_d5() {
    assert_eq!(count(POS6, 5), 164_075_551);
}
