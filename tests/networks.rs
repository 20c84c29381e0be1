//! Networks per variant: a variant uses its own network (`Policy::NETWORK`) when
//! `Use NNUE` is on and it has one, and exactly its hand-written evaluation
//! otherwise.

use std::sync::Arc;

use turncoat::engine::openings::random_opening;
use turncoat::engine::policy::Policy;
use turncoat::engine::search::tt::TranspositionTable;
use turncoat::engine::search::{self, Limits, Options, SearchResult, Shared};
use turncoat::rules::fen;
use turncoat::rules::position::Position;
use turncoat::rules::variants::VariantKind;
use turncoat::with_variant;

fn searched<V: Policy>(pos: &Position<V>, use_nnue: bool) -> SearchResult {
    let limits = Limits {
        nodes: Some(3000),
        ..Limits::default()
    };
    let options = Options {
        use_nnue,
        ..Options::default()
    };
    let shared = Shared::new(Arc::new(TranspositionTable::new(1)));
    search::search(pos, &[], &limits, &options, &shared, &mut |_| {})
}

fn check<V: Policy>() {
    let mut fens = vec![V::START_FEN.to_string()];
    for index in 0..3 {
        fens.push(random_opening::<V>(3, index, 6).expect("an opening"));
    }
    for text in &fens {
        let pos: Position<V> = fen::parse(text).expect(text);
        let on = searched(&pos, true);
        let off = searched(&pos, false);
        let same = (
            on.best == off.best,
            on.score == off.score,
            on.nodes == off.nodes,
        );
        match V::NETWORK {
            // Without a network `Use NNUE` changes nothing: the same tree, the
            // same hand-written scores.
            None => assert_eq!(same, (true, true, true), "{}: {text}", V::NAME),
            Some(net) => {
                let cp = net
                    .network()
                    .evaluate_board(&V::network_boards(&pos), pos.turn());
                assert!(cp.abs() < 3000, "{}: {text}: network says {cp}", V::NAME);
                assert_ne!(
                    same,
                    (true, true, true),
                    "{}: {text}: network unused",
                    V::NAME
                );
            }
        }
    }
}

#[test]
fn a_variant_uses_its_network_only_when_it_has_one() {
    for &variant in VariantKind::ALL {
        with_variant!(variant, V => check::<V>());
    }
}
