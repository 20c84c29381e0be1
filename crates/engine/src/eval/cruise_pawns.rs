//! Cruise Pawns: no null move, launches and shoot-downs are noisy, dominated
//! missile paths are skipped, and the evaluation judges a pending missile as
//! detonated and counts threats that cannot be shot down.

use shakmaty::{Bitboard, Color, Role, Square};

use crate::nnue::{self, embedded_network, EmbeddedNetwork, PieceBoards};
use crate::policy::{Policy, Selectivity};
use crate::search::see;
use turncoat_rules::moves::{Move, MoveKind, MoveList};
use turncoat_rules::position::Position;
use turncoat_rules::variants::cruise_pawns::{
    attack_map, detonated, generate, is_shoot_down, loaded_pawns, shift, CruisePawns, Path, Scope,
    LAUNCH, MAX_PATH, SHOOT_DOWN,
};
use turncoat_rules::variants::{best_two, value_of};

impl Policy for CruisePawns {
    /// On, but never with a missile in flight ([`Policy::may_pass`] below).
    const NULL_MOVE: bool = true;
    /// Trained on Cruise Pawns' own self-play (docs/TRAINING.md, "Cruise
    /// Pawns").
    const NETWORK: Option<EmbeddedNetwork> = Some(embedded_network!("cruisepawns.net"));
    /// Chess's selectivity, measured as a whole, did not lose here
    /// (docs/STRENGTH.md, "Variant guards").
    const SELECTIVITY: Selectivity = Selectivity::CHESS;

    /// A pass with a missile in flight would hand the launcher a position where
    /// its own missile is pending, which the rules cannot hold; without one,
    /// passing is as harmless as in chess.
    fn may_pass(pos: &Position<Self>) -> bool {
        pos.state().is_none()
    }

    /// Every legal move except launches that can be shot down; of the paths
    /// from one launch square to one target that cannot, one (the defender's
    /// options after any of them are the same).
    fn search_moves(pos: &Position<Self>, out: &mut MoveList) {
        generate(pos, out, Scope::Search);
    }

    /// The launches that can be shot down, which `bad_noisy` orders last, except
    /// those dominated by another path from the same square to the same target
    /// whose shootable squares are a subset of theirs: the defender's options
    /// after the dominated one are a superset. Most nodes never need them, and
    /// they are most of the path search's work.
    fn late_moves(pos: &Position<Self>, out: &mut MoveList) {
        generate(pos, out, Scope::Shootable);
    }

    fn noisy_moves(pos: &Position<Self>, out: &mut MoveList) {
        generate(pos, out, Scope::Noisy);
    }

    fn is_noisy(pos: &Position<Self>, mv: Move) -> bool {
        match mv.kind {
            LAUNCH => mv.extra != 0,
            MoveKind::EnPassant => true,
            MoveKind::Normal => {
                mv.extra & SHOOT_DOWN != 0
                    || mv.promotion.is_some()
                    || pos.occupied().contains(mv.to)
            }
            _ => mv.promotion.is_some(),
        }
    }

    /// Launches that can be shot down lose their pawn for nothing unless the
    /// defender errs; captures that lose the exchange lose material.
    const REDUCE_BAD_NOISY: bool = true;

    /// One ply: a launch at a pawn and a shoot-down that saves a pawn win
    /// nothing, and trying them for four plies of quiescence made it most of
    /// the tree (depth 11 from the start: 858 k nodes with 4, 535 k with 1).
    const QS_CHECK_PLIES: usize = 1;

    /// A launch whose path crosses an empty square the defender attacks (it can
    /// be shot down), or a capture that loses the exchange (plain chess
    /// attackers: a recapturing missile is not counted).
    fn bad_noisy(pos: &Position<Self>, mv: Move) -> bool {
        match mv.kind {
            LAUNCH => mv.extra != 0 && shootable(pos, mv),
            MoveKind::Normal if mv.extra & SHOOT_DOWN == 0 => !see::see_ge(pos, mv, 0),
            _ => false,
        }
    }

    /// A launch wins its target for the pawn it spends; a shoot-down saves the
    /// missile's target.
    fn gain_estimate(pos: &Position<Self>, mv: Move) -> i32 {
        let promo = mv
            .promotion
            .map_or(0, |r| value_of(r) - value_of(Role::Pawn));
        match mv.kind {
            LAUNCH => match pos.role_at(mv.to) {
                Some(role) if mv.extra != 0 => value_of(role) - value_of(Role::Pawn),
                _ => 0,
            },
            MoveKind::EnPassant => value_of(Role::Pawn),
            _ if is_shoot_down(mv) => {
                let saved = pos
                    .state()
                    .and_then(|m| pos.role_at(m.target()))
                    .map_or(0, value_of);
                saved + promo
            }
            _ => pos.role_at(mv.to).map_or(0, value_of) + promo,
        }
    }

    /// A pending missile is as good as detonated unless shot down (quiescence
    /// tries the shoot-downs), as for the hand-written terms: the network reads
    /// the board without its target. The flying pawn is off the board already.
    fn network_boards(pos: &Position<Self>) -> PieceBoards {
        nnue::piece_boards(&detonated(pos))
    }

    fn evaluate(pos: &Position<Self>) -> i32 {
        missile_terms(pos)
    }
}

/// Can the launch `mv` be shot down: does its path cross an empty square that
/// the defender attacks once the pawn has left?
fn shootable(pos: &Position<CruisePawns>, mv: Move) -> bool {
    // With a missile in flight the defender launches on the detonated board.
    let mut occ = pos.occupied();
    if let Some(missile) = *pos.state() {
        occ.discard(missile.target());
    }
    let squares = Path(mv.extra).intermediate() & !occ;
    if squares.is_empty() {
        return false;
    }
    // Ordering asks this for every launch of a node, launches come grouped by
    // launch square: the defender's attacks are computed once per position
    // and launch square.
    thread_local! {
        static LAST: std::cell::Cell<(u64, Square, Bitboard)> =
            const { std::cell::Cell::new((0, Square::A1, Bitboard::EMPTY)) };
    }
    let key = pos.key();
    let attacked = LAST.with(|last| {
        let (k, from, map) = last.get();
        if k == key && from == mv.from && key != 0 {
            return map;
        }
        let map = attack_map(pos, !pos.turn(), occ.without(mv.from));
        last.set((key, mv.from, map));
        map
    });
    (attacked & squares).any()
}

/// The side to move's best unstoppable threat (target minus the spent pawn)
/// counts this fraction. The first form of these terms (side-independent
/// threats, loaded-pawn and cover bonuses) lost clearly in self-play
/// (VariantEval on vs off); this one, with the waiting side's second threat
/// counted too ([`DOUBLE_THREAT_DIVISOR`]), measured a gain (docs/STRENGTH.md,
/// "The variants' own evaluation terms").
pub const THREAT_DIVISOR: i32 = 2;
/// The waiting side's best unstoppable threat: this fraction (it can parry).
pub const PARRIED_THREAT_DIVISOR: i32 = 16;
/// The waiting side's second unstoppable threat (minus the spent pawn): this
/// fraction (the mover can rarely parry two).
pub const DOUBLE_THREAT_DIVISOR: i32 = 2;

/// Enemy non-king pieces that `color`'s loaded pawns reach by a path whose every
/// intermediate square is friendly-occupied or empty and unattacked by the enemy
/// (`enemy_attacks`): threats that cannot be shot down. Flooded with bitboards
/// per direction, all launchers at once; king safety is ignored.
pub fn unstoppable_targets(
    pos: &Position<CruisePawns>,
    color: Color,
    enemy_attacks: Bitboard,
) -> Bitboard {
    let launchers = loaded_pawns(pos, color);
    if launchers.is_empty() {
        return Bitboard::EMPTY;
    }
    let enemy = pos.by_color(!color);
    let victims = enemy & !pos.by_role(Role::King);
    let blocked = enemy | (enemy_attacks & !pos.occupied());
    let mut front = [Bitboard::EMPTY; 8];
    for (d, f) in front.iter_mut().enumerate() {
        *f = shift(launchers, d);
    }
    let mut hits = Bitboard::EMPTY;
    for step in 1..=MAX_PATH {
        let mut next_front = [Bitboard::EMPTY; 8];
        for (d, &squares) in front.iter().enumerate() {
            hits |= squares & victims;
            if step < MAX_PATH {
                let pass = squares & !blocked;
                if pass.any() {
                    for nd in [(d + 7) % 8, d, (d + 1) % 8] {
                        next_front[nd] |= shift(pass, nd);
                    }
                }
            }
        }
        front = next_front;
    }
    hits
}

fn missile_terms(pos: &Position<CruisePawns>) -> i32 {
    let mut score = 0;
    // A pending missile is as good as detonated unless shot down (quiescence
    // tries the shoot-downs): judge the detonated board.
    let board = match *pos.state() {
        Some(missile) => {
            if let Some(p) = pos.piece_at(missile.target()) {
                let v = value_of(p.role);
                score += if p.color == Color::White { -v } else { v };
            }
            detonated(pos)
        }
        None => *pos,
    };
    let occ = board.occupied();
    let attacked = [
        attack_map(&board, Color::Black, occ),
        attack_map(&board, Color::White, occ),
    ];
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        let enemy_attacks = attacked[(!color) as usize];
        let mut term = 0;
        // The side to move can fire at once: its best threat that cannot be
        // shot down is nearly won material (the missile pawn is spent).
        // The other side's threats can be parried, so they count for little.
        let hits = unstoppable_targets(&board, color, enemy_attacks);
        let (best, second) = best_two(
            hits.into_iter()
                .map(|sq| board.role_at(sq).map_or(0, value_of)),
        );
        if color == board.turn() {
            term += (best - value_of(Role::Pawn)).max(0) / THREAT_DIVISOR;
        } else {
            // One threat can be parried; two at once rarely both.
            term += best / PARRIED_THREAT_DIVISOR
                + (second - value_of(Role::Pawn)).max(0) / DOUBLE_THREAT_DIVISOR;
        }
        score += sign * term;
    }
    score
}
