//! Cowardly Crew: conversions count twice in move ordering, and pieces standing
//! next to each other are a liability (capturing one converts the other).

use shakmaty::{attacks, Bitboard, Color, Role};

use crate::nnue::{embedded_network, EmbeddedNetwork};
use crate::policy::Policy;
use turncoat_rules::moves::Move;
use turncoat_rules::position::Position;
use turncoat_rules::variants::cowardly_crew::{
    captured, eligible, king_guard, CowardlyCrew, CONVERT_NONE,
};
use turncoat_rules::variants::value_of;

impl Policy for CowardlyCrew {
    /// Trained on 1.56 M positions of Cowardly Crew's own self-play
    /// (docs/TRAINING.md, "Cowardly Crew").
    const NETWORK: Option<EmbeddedNetwork> = Some(embedded_network!("cowardlycrew.net"));

    // Chess's selectivity heuristics (`Selectivity`),
    // measured as a whole, lost here in a match (docs/STRENGTH.md, "Variant
    // guards"): the trait's default, `Selectivity::NONE`, stays.

    /// MVV-LVA plus the conversions: each converted piece counts twice, since the
    /// opponent loses it and we gain it.
    fn gain_estimate(pos: &Position<Self>, mv: Move) -> i32 {
        let victim = match captured(pos, mv) {
            Some((_, role)) => value_of(role),
            None => 0,
        };
        let promotion = mv
            .promotion
            .map_or(0, |r| value_of(r) - value_of(Role::Pawn));
        let converted = if mv.extra & CONVERT_NONE != 0 {
            0
        } else {
            material(pos, eligible(pos, mv))
        };
        victim + promotion + 2 * converted
    }

    /// Clusters: a capture converts the capturer's neighbours, so two of our
    /// pieces side by side (away from our king, which protects its neighbours)
    /// are a liability. This measured a gain in self-play (VariantEval on vs
    /// off); earlier terms for king-side immunity and attacked neighbours lost
    /// and were dropped (docs/STRENGTH.md, "The variants' own evaluation terms").
    fn evaluate(pos: &Position<Self>) -> i32 {
        let mut score = 0;
        for color in [Color::White, Color::Black] {
            let sign = if color == Color::White { 1 } else { -1 };
            score -= sign * CLUSTER_PENALTY * cluster_pairs(pos, color);
        }
        score
    }
}

/// Penalty per pair of neighbouring pieces (kings and king guards excluded):
/// capturing one of them converts the other.
const CLUSTER_PENALTY: i32 = 10;

/// Pairs of `color`'s convertible pieces standing next to each other.
fn cluster_pairs(pos: &Position<CowardlyCrew>, color: Color) -> i32 {
    let free = pos.by_color(color) & !pos.by_role(Role::King) & !king_guard(pos, color);
    let mut pairs = 0;
    for sq in free {
        pairs += (attacks::king_attacks(sq) & free).count() as i32;
    }
    pairs / 2
}

/// Sum of conventional values of the pieces on `squares`.
fn material(pos: &Position<CowardlyCrew>, squares: Bitboard) -> i32 {
    [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ]
    .into_iter()
    .map(|role| (squares & pos.by_role(role)).count() as i32 * value_of(role))
    .sum()
}
