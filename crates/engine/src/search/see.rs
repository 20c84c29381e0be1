//! Static exchange evaluation: does a capture sequence on one square win at least
//! `threshold`? Plain chess exchanges only; variants whose captures do more
//! (conversions, relocations, missiles) switch it off with `Policy::SEE`.

use shakmaty::{attacks, Bitboard, Color, Role};

use crate::policy::Policy;
use turncoat_rules::moves::{Move, MoveKind};
use turncoat_rules::position::Position;
use turncoat_rules::variants::value_of;

#[inline]
fn see_value(role: Role) -> i32 {
    match role {
        Role::King => 20_000,
        r => value_of(r),
    }
}

/// True when `mv` wins at least `threshold` centipawns by the exchange on its
/// destination square (pins ignored).
pub fn see_ge<V: Policy>(pos: &Position<V>, mv: Move, threshold: i32) -> bool {
    if mv.kind != MoveKind::Normal {
        return 0 >= threshold;
    }
    let from = mv.from;
    let to = mv.to;
    let Some(mover) = pos.role_at(from) else {
        return false;
    };
    let mut swap = pos.role_at(to).map_or(0, see_value) - threshold;
    if swap < 0 {
        return false;
    }
    swap = see_value(mover) - swap;
    if swap <= 0 {
        return true;
    }
    let mut occ = pos.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(to);
    let mut stm = pos.turn();
    let diag = pos.bishops_and_queens();
    let orth = pos.rooks_and_queens();
    let mut attackers =
        pos.attackers_to(to, Color::White, occ) | pos.attackers_to(to, Color::Black, occ);
    let mut res = true;
    loop {
        stm = !stm;
        attackers &= occ;
        let stm_attackers = attackers & pos.by_color(stm);
        if stm_attackers.is_empty() {
            break;
        }
        res = !res;
        let mut next = None;
        for role in [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ] {
            let b = stm_attackers & pos.by_role(role);
            if let Some(sq) = b.first() {
                next = Some((role, sq));
                break;
            }
        }
        let Some((role, sq)) = next else { break };
        if role == Role::King {
            // The king may only take if the other side has no attacker left.
            return if (attackers & !pos.by_color(stm)).any() {
                !res
            } else {
                res
            };
        }
        swap = see_value(role) - swap;
        if swap < i32::from(res) {
            break;
        }
        occ ^= Bitboard::from_square(sq);
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= attacks::bishop_attacks(to, occ) & diag;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= attacks::rook_attacks(to, occ) & orth;
        }
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use turncoat_rules::fen;
    use turncoat_rules::game::find_move;
    use turncoat_rules::variants::chess::Chess;

    fn see(fen_str: &str, token: &str, threshold: i32) -> bool {
        let pos: Position<Chess> = fen::parse(fen_str).expect("fen");
        let mv = find_move(&pos, token).expect("legal");
        see_ge(&pos, mv, threshold)
    }

    #[test]
    fn exchanges() {
        // Rook takes a pawn defended by a pawn: loses 400.
        let f = "4k3/8/3p4/4p3/8/8/8/4RK2 w - - 0 1";
        assert!(see(f, "e1e5", -400));
        assert!(!see(f, "e1e5", -399));
        // Free pawn.
        let f = "4k3/8/8/4p3/8/8/8/4RK2 w - - 0 1";
        assert!(see(f, "e1e5", 100));
        assert!(!see(f, "e1e5", 101));
        // Knight takes a knight defended by a queen, backed by a rook x-ray:
        // NxN QxN RxQ wins 320 - 320 + 900.
        let f = "3qk3/8/8/3n4/8/4N3/8/3RK3 w - - 0 1";
        assert!(see(f, "e3d5", 320));
        assert!(!see(f, "e3d5", 321));
    }
}
