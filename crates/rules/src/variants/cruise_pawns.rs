//! Cruise Pawns (docs/RULES.md, "Cruise Pawns"): a pawn that has left its starting rank
//! may fly as a missile along a path of up to 7 squares, turning at most 45 degrees
//! per step, and blow up an enemy non-king piece; the defender may shoot it down.
//!
//! The pending missile is the variant state (FEN 7th field `<launch>*<path>`, `-`
//! when none, in the Zobrist key). A launch is a [`LAUNCH`] whose `extra`
//! is the packed [`Path`]; a shoot-down is an ordinary capture-shaped move flagged
//! with [`SHOOT_DOWN`] in `extra`. While a missile is in flight the defender's moves
//! are the legal shoot-downs plus every legal move of the *detonated board* (the
//! target removed), and "in check" is judged on that board.
//!
//! The generators share one code path (`Scope`): `legal_moves` (every path, what
//! perft, `find_move` and the referee see); for the search, the moves it tries first
//! (launches only along paths that cannot be shot down, one per target), the
//! launches it tries last (those that can, paths dominated by another path to the
//! same target skipped) and quiescence's noisy moves.

use shakmaty::{attacks, Bitboard, Color, Rank, Role, Square};

use super::{validate_king_count, validate_pawn_ranks, Variant};
use crate::bitboards::{mover_order, FILE_A, FILE_H};
use crate::fen::FenError;
use crate::live::{
    base_action, chess_effects, Action, Effects, Extra, MissileEvent, Removal, VariantState, Why,
};
use crate::movegen::{self, Legality, Stage};
use crate::moves::{Move, MoveKind, MoveList};
use crate::notation::Parts;
use crate::position::{Board, Position};
use crate::zobrist;

#[derive(Copy, Clone, Debug, Default)]
pub struct CruisePawns;

/// A launch or self-detonation: `from` is the pawn, `to` the target (the pawn's
/// own square for a self-detonation), `extra` the path.
pub const LAUNCH: MoveKind = MoveKind::Special;

/// Longest missile path (docs/RULES.md rule 1: 0 <= k <= 7).
pub const MAX_PATH: usize = 7;

/// `Move::extra` flag of a shoot-down (the move is otherwise a plain `Normal` move,
/// printed as an ordinary token). Path payloads never reach bit 63.
pub const SHOOT_DOWN: u64 = 1 << 63;

// ----- paths -----

/// A missile path s1..sk packed in 45 bits: k in bits 0..3, square s(i+1) in the
/// six bits from 3 + 6i. The same value is a launch's `Move::extra` and the state's
/// path, so playing a launch copies it without decoding.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Path(pub u64);

impl Path {
    pub const EMPTY: Path = Path(0);

    /// k, the number of squares flown (0 for a self-detonation).
    #[inline]
    pub fn len(self) -> usize {
        (self.0 & 7) as usize
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// s(i+1), for i < k.
    #[inline]
    pub fn square(self, i: usize) -> Square {
        Square::new(((self.0 >> (3 + 6 * i)) & 63) as u32)
    }

    /// The path with `sq` appended (k must be below 7).
    #[inline]
    pub fn push(self, sq: Square) -> Path {
        let k = self.len();
        Path(((self.0 & !7) | (sq as u64) << (3 + 6 * k)) | (k as u64 + 1))
    }

    /// sk, the square the missile detonates on.
    #[inline]
    pub fn target(self) -> Option<Square> {
        (!self.is_empty()).then(|| self.square(self.len() - 1))
    }

    /// s1..s(k-1): the squares where it may be shot down (when empty).
    #[inline]
    pub fn intermediate(self) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for i in 0..self.len().saturating_sub(1) {
            b.add(self.square(i));
        }
        b
    }

    pub fn squares(self) -> impl Iterator<Item = Square> {
        (0..self.len()).map(move |i| self.square(i))
    }
}

/// The missile in flight: where it was launched and where it flies.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Missile {
    pub launch: Square,
    pub path: Path,
}

impl Missile {
    /// The piece it will destroy (a path in flight always has k >= 1).
    #[inline]
    pub fn target(self) -> Square {
        self.path.target().unwrap_or(self.launch)
    }

    /// The missile as front ends see it.
    pub fn flight(self) -> crate::live::Flight {
        crate::live::Flight::new(self.launch, self.path.squares().collect())
    }
}

// ----- geometry: the eight flight directions and what a path can reach -----

/// N, NE, E, SE, S, SW, W, NW: neighbours in the array are 45 degrees apart, so
/// "keep the direction or turn 45 degrees" is `d`, `d+1`, `d+7` (mod 8).
const DIRS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

const OFF_BOARD: u8 = 64;

/// `NEXT[sq][d]`: the neighbour of `sq` in direction `d`, or `OFF_BOARD`.
static NEXT: [[u8; 8]; 64] = {
    let mut t = [[OFF_BOARD; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut d = 0;
        while d < 8 {
            let (nf, nr) = (f + DIRS[d].0, r + DIRS[d].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                t[sq][d] = (nr * 8 + nf) as u8;
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

#[inline]
fn next(sq: Square, d: usize) -> Option<Square> {
    let n = NEXT[sq as usize][d];
    (n != OFF_BOARD).then(|| Square::new(n as u32))
}

/// The direction of the step `from -> to`, if they are neighbours.
fn direction(from: Square, to: Square) -> Option<usize> {
    (0..8).find(|&d| next(from, d) == Some(to))
}

/// Turns of at most 45 degrees: same direction or one neighbour in `DIRS`.
#[inline]
fn turn_ok(a: usize, b: usize) -> bool {
    let diff = (a + 8 - b) % 8;
    diff <= 1 || diff == 7
}

/// Every square of `b` moved one step in direction `d` (off-board bits dropped).
#[inline]
pub fn shift(b: Bitboard, d: usize) -> Bitboard {
    let b = b.0;
    Bitboard(match d {
        0 => b << 8,
        1 => (b & !FILE_H) << 9,
        2 => (b & !FILE_H) << 1,
        3 => (b & !FILE_H) >> 7,
        4 => b >> 8,
        5 => (b & !FILE_A) >> 9,
        6 => (b & !FILE_A) >> 1,
        _ => (b & !FILE_A) << 7,
    })
}

/// Rank 2 for White, 7 for Black: pawns there cannot fire (rule 1).
#[inline]
fn starting_rank(color: Color) -> Rank {
    match color {
        Color::White => Rank::Second,
        Color::Black => Rank::Seventh,
    }
}

/// Pawns of `color` that may launch or self-detonate.
#[inline]
pub fn loaded_pawns(pos: &Board, color: Color) -> Bitboard {
    pos.by_piece(color.pawn()) & !Bitboard::from_rank(starting_rank(color))
}

/// Squares `color` attacks with occupancy `occ` (plain chess attacks).
pub fn attack_map(pos: &Board, color: Color, occ: Bitboard) -> Bitboard {
    let ours = pos.by_color(color);
    let mut out = Bitboard::EMPTY;
    for sq in pos.by_role(Role::Knight) & ours {
        out |= attacks::knight_attacks(sq);
    }
    for sq in pos.bishops_and_queens() & ours {
        out |= attacks::bishop_attacks(sq, occ);
    }
    for sq in pos.rooks_and_queens() & ours {
        out |= attacks::rook_attacks(sq, occ);
    }
    for sq in pos.by_role(Role::King) & ours {
        out |= attacks::king_attacks(sq);
    }
    let pawns = pos.by_role(Role::Pawn) & ours;
    out | match color {
        Color::White => shift(pawns, 1) | shift(pawns, 7),
        Color::Black => shift(pawns, 3) | shift(pawns, 5),
    }
}

// ----- move generation -----

/// Which moves a generator call wants.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every legal move and every legal path (perft, `find_move`, the referee).
    All,
    /// Every legal move except launches that can be shot down, with one path per
    /// target that cannot (the search's first stage).
    Search,
    /// Only the launches that can be shot down, and of the paths from one launch
    /// square to one target only those whose shootable squares are not a
    /// superset of another's (the search's late stage). A target with a path
    /// that cannot be shot down has no path here: that one dominates them all.
    /// `Search` and `Shootable` together hold one or more paths from every
    /// launch square to every target.
    Shootable,
    /// Captures, promotions, launches that cannot be shot down (one path per
    /// target) and shoot-downs.
    Noisy,
}

impl Scope {
    /// Does the path search treat the squares where the missile could be shot
    /// down as walls?
    fn unshootable_only(self) -> bool {
        matches!(self, Scope::Search | Scope::Noisy)
    }
}

/// The moves of `scope`: the rules generate all of them, the search asks for
/// the smaller scopes.
pub fn generate(pos: &Position<CruisePawns>, out: &mut MoveList, scope: Scope) {
    match *pos.state() {
        None => generate_free(pos, out, scope),
        Some(missile) => generate_in_flight(pos, missile, out, scope),
    }
}

/// Moves of a board with no missile in flight: chess moves, launches and
/// self-detonations.
fn generate_free(pos: &Position<CruisePawns>, out: &mut MoveList, scope: Scope) {
    match scope {
        Scope::All | Scope::Search => movegen::generate(pos, out, Legality::Legal, Stage::All),
        Scope::Noisy => movegen::generate(pos, out, Legality::Legal, Stage::Noisy),
        Scope::Shootable => {}
    }
    generate_launches(pos, out, scope);
}

/// Rule 1-2: launches (every path, or those of `scope`) and self-detonations.
fn generate_launches(pos: &Position<CruisePawns>, out: &mut MoveList, scope: Scope) {
    let us = pos.turn();
    let them = !us;
    let occ = pos.occupied();
    let enemy = pos.them();
    let victims = enemy & !pos.by_role(Role::King);
    let king = pos.king_of(us);
    let mut alive_for = (Bitboard::EMPTY, Bitboard::EMPTY);
    let mut alive = [[0u64; 8]; MAX_PATH];
    for launch in mover_order(us, loaded_pawns(pos, us)) {
        let occ0 = occ.without(launch);
        // The launch is legal when the king is safe once the pawn has left and the
        // target is gone. Only a victim on a line from the king can open one by
        // disappearing; for the others the attackers with the pawn gone decide.
        let (base, lines) = match king {
            Some(k) => (
                pos.attackers_to(k, them, occ0),
                attacks::queen_attacks(k, occ0) & victims,
            ),
            None => (Bitboard::EMPTY, Bitboard::EMPTY),
        };
        if base.is_empty() && matches!(scope, Scope::All | Scope::Search) {
            out.push(Move::new(LAUNCH, launch, launch));
        }
        let mut targets = if base.is_empty() {
            victims & !lines
        } else {
            match base.single_square() {
                Some(c) if victims.contains(c) && !lines.contains(c) => Bitboard::from_square(c),
                _ => Bitboard::EMPTY,
            }
        };
        if let Some(k) = king {
            for t in lines {
                let occ1 = occ0.without(t);
                if (pos.attackers_to(k, them, occ1) & !Bitboard::from_square(t)).is_empty() {
                    targets.add(t);
                }
            }
        }
        if targets.is_empty() {
            continue;
        }
        let shootable = if scope == Scope::All {
            Bitboard::EMPTY
        } else {
            attack_map(pos, them, occ0) & !occ0
        };
        let walls = if scope.unshootable_only() {
            shootable
        } else {
            Bitboard::EMPTY
        };
        if (targets, walls) != alive_for {
            alive = alive_table(enemy | walls, targets);
            alive_for = (targets, walls);
        }
        macro_rules! fly {
            ($sink:expr) => {
                Flight {
                    launch,
                    black: us == Color::Black,
                    enemy,
                    walls,
                    targets,
                    shootable,
                    alive,
                    sink: $sink,
                }
                .fly_from(out)
            };
        }
        match scope {
            Scope::All => fly!(AllPaths),
            Scope::Search | Scope::Noisy => fly!(FirstPaths::default()),
            Scope::Shootable => {
                let mut kept = Kept::new();
                fly!(&mut kept);
                kept.flush(launch, out);
            }
        }
    }
}

/// `alive[r][d]`: squares from which a missile last flown in direction `d` hits
/// one of `targets` within `r` more steps, never passing a `blocked` square (an
/// enemy piece, or a wall of the search's unshootable paths). Exact pruning for
/// the path search, computed with bitboards for all squares at once.
fn alive_table(blocked: Bitboard, targets: Bitboard) -> [[u64; 8]; MAX_PATH] {
    let passable = !blocked;
    // `into[nd]`: squares whose neighbour in direction `nd` is a target.
    let mut into = [Bitboard::EMPTY; 8];
    for (nd, b) in into.iter_mut().enumerate() {
        *b = shift(targets, (nd + 4) & 7);
    }
    let mut alive = [[0u64; 8]; MAX_PATH];
    for d in 0..8 {
        alive[1][d] = (into[(d + 7) & 7] | into[d] | into[(d + 1) & 7]).0;
    }
    for r in 2..MAX_PATH {
        let mut via = [Bitboard::EMPTY; 8];
        for (nd, b) in via.iter_mut().enumerate() {
            *b = shift(Bitboard(alive[r - 1][nd]) & passable, (nd + 4) & 7);
        }
        for d in 0..8 {
            alive[r][d] = alive[1][d] | (via[(d + 7) & 7] | via[d] | via[(d + 1) & 7]).0;
        }
    }
    alive
}

/// Where the path search puts the paths it finds.
trait Sink {
    /// Does the sink compare shootable squares (so the search must track them)?
    const REDUCED: bool;
    fn hit(&mut self, launch: Square, to: Square, mask: u64, path: Path, out: &mut MoveList);
    /// Targets that need no more paths.
    fn settled(&self) -> u64 {
        0
    }
}

/// Every path is a move (`legal_moves`).
struct AllPaths;

impl Sink for AllPaths {
    const REDUCED: bool = false;
    #[inline(always)]
    fn hit(&mut self, launch: Square, to: Square, _mask: u64, path: Path, out: &mut MoveList) {
        out.push(Move::new(LAUNCH, launch, to).with_extra(path.0));
    }
}

/// The first path to each target (the flight's walls make every path one that
/// cannot be shot down, so any one of them dominates the rest).
#[derive(Default)]
struct FirstPaths {
    settled: u64,
}

impl Sink for FirstPaths {
    const REDUCED: bool = false;
    #[inline(always)]
    fn hit(&mut self, launch: Square, to: Square, _mask: u64, path: Path, out: &mut MoveList) {
        self.settled |= 1 << to as u32;
        out.push(Move::new(LAUNCH, launch, to).with_extra(path.0));
    }
    #[inline(always)]
    fn settled(&self) -> u64 {
        self.settled
    }
}

impl Sink for &mut Kept {
    const REDUCED: bool = true;
    #[inline(always)]
    fn hit(&mut self, launch: Square, to: Square, mask: u64, path: Path, out: &mut MoveList) {
        self.offer(launch, to, mask, path, out);
    }
    #[inline(always)]
    fn settled(&self) -> u64 {
        self.safe
    }
}

/// Most undominated paths kept per launch square before extras are pushed as they
/// come (a superset is harmless for the search).
const KEPT: usize = 32;
const _: () = assert!(KEPT == 32, "Kept's slot sets are u32");

/// The undominated shootable paths of one launch square found so far
/// (allocation-free). Entries live in `KEPT` slots; each target's slots are a
/// bit set, so a path is compared only with the kept paths to its own target.
struct Kept {
    /// Occupied slots.
    live: u32,
    /// Per target square, its slots (meaningful where `present` has the target).
    slots_of: [u32; 64],
    mask: [u64; KEPT],
    path: [u64; KEPT],
    /// Order of arrival of each slot's path: paths leave in that order.
    seq: [u32; KEPT],
    next_seq: u32,
    /// Targets with a kept path (a first path to a target needs no comparison).
    present: u64,
    /// Targets with an unshootable path: it dominates every other path, and
    /// the search's first stage (`Scope::Search`) has it.
    safe: u64,
}

impl Kept {
    fn new() -> Self {
        Kept {
            live: 0,
            slots_of: [0; 64],
            mask: [0; KEPT],
            path: [0; KEPT],
            seq: [0; KEPT],
            next_seq: 0,
            present: 0,
            safe: 0,
        }
    }

    /// Offers a path to `target` whose shootable squares are `mask`.
    fn offer(&mut self, launch: Square, target: Square, mask: u64, path: Path, out: &mut MoveList) {
        let t = target as usize;
        let bit = 1u64 << t;
        if self.safe & bit != 0 {
            return; // an unshootable path to the target exists
        }
        if self.present & bit == 0 {
            self.slots_of[t] = 0;
        } else {
            let mut slots = self.slots_of[t];
            while slots != 0 {
                let i = slots.trailing_zeros() as usize;
                slots &= slots - 1;
                if self.mask[i] & !mask == 0 {
                    return; // an equal or better path is already kept
                }
            }
            let mut slots = self.slots_of[t];
            while slots != 0 {
                let i = slots.trailing_zeros() as usize;
                slots &= slots - 1;
                if mask & !self.mask[i] == 0 {
                    self.live &= !(1 << i);
                    self.slots_of[t] &= !(1 << i);
                }
            }
        }
        if mask == 0 {
            self.safe |= bit;
            self.present &= !bit;
            return;
        }
        if self.live == u32::MAX {
            out.push(launch_move(launch, path));
            if self.slots_of[t] == 0 {
                self.present &= !bit;
            }
            return;
        }
        let i = (!self.live).trailing_zeros() as usize;
        self.live |= 1 << i;
        self.slots_of[t] |= 1 << i;
        self.mask[i] = mask;
        self.path[i] = path.0;
        self.seq[i] = self.next_seq;
        self.next_seq += 1;
        self.present |= bit;
    }

    /// Pushes the kept paths in order of arrival.
    fn flush(&self, launch: Square, out: &mut MoveList) {
        let mut order = [0u8; KEPT];
        let mut n = 0;
        let mut slots = self.live;
        while slots != 0 {
            order[n] = slots.trailing_zeros() as u8;
            slots &= slots - 1;
            n += 1;
        }
        order[..n].sort_unstable_by_key(|&i| self.seq[i as usize]);
        for &i in &order[..n] {
            out.push(launch_move(launch, Path(self.path[i as usize])));
        }
    }
}

#[inline]
fn launch_move(launch: Square, path: Path) -> Move {
    let to = path.target().unwrap_or(launch);
    Move::new(LAUNCH, launch, to).with_extra(path.0)
}

/// The path search from one launch square.
struct Flight<S: Sink> {
    launch: Square,
    /// Black's missile explores the mirror image of White's order (first
    /// directions south before north, right turns before left), so that the
    /// colour-flipped position lists its paths in the flipped order.
    black: bool,
    /// Enemy pieces: a path may end on one but never pass it.
    enemy: Bitboard,
    /// Squares a path may not pass (where it could be shot down, for the
    /// search's unshootable paths).
    walls: Bitboard,
    /// Enemy non-king pieces whose destruction leaves our king safe.
    targets: Bitboard,
    /// Empty squares the defender attacks once the pawn has left (reduced search).
    shootable: Bitboard,
    /// `alive_table(enemy, targets)`; the reduced search drops a target, and
    /// recomputes this, once the target has an unshootable path: no later path
    /// to it can be kept, so the branches that lead only there are cut.
    alive: [[u64; 8]; MAX_PATH],
    sink: S,
}

impl<S: Sink> Flight<S> {
    fn fly_from(&mut self, out: &mut MoveList) {
        let first = &NEXT[self.launch as usize];
        for i in 0..8 {
            // The vertical mirror of direction `i` is `4 - i` (mod 8).
            let d = if self.black { (12 - i) & 7 } else { i };
            self.step(first[d], d, 0, 0, 0, out);
        }
    }

    /// The missile, having flown `k` squares (packed in `bits` as in [`Path`],
    /// `mask` their shootable ones), steps onto `n` in direction `d`. Parents
    /// expand their children inline so that leaves cost no call.
    #[inline(always)]
    fn step(&mut self, n: u8, d: usize, k: usize, bits: u64, mask: u64, out: &mut MoveList) {
        if n == OFF_BOARD {
            return;
        }
        let bits = bits | (n as u64) << (3 + 6 * k);
        let b = 1u64 << n;
        if self.enemy.0 & b != 0 {
            if self.targets.0 & b != 0 {
                let path = Path(bits | (k as u64 + 1));
                self.sink
                    .hit(self.launch, Square::new(n as u32), mask, path, out);
                if self.sink.settled() & b != 0 {
                    self.targets.0 &= !b;
                    self.alive = alive_table(self.enemy | self.walls, self.targets);
                }
            }
            return;
        }
        if self.walls.0 & b != 0 {
            return;
        }
        let remaining = MAX_PATH - 1 - k;
        if remaining == 0 || self.alive[remaining][d] & b == 0 {
            return;
        }
        let mask = if S::REDUCED && self.shootable.0 & b != 0 {
            mask | b
        } else {
            mask
        };
        self.expand(n as usize, d, k + 1, bits, mask, out);
    }

    /// The missile stands on `sq` (passable) having flown `k` squares in direction
    /// `d`: it goes on straight or turns 45 degrees.
    fn expand(&mut self, sq: usize, d: usize, k: usize, bits: u64, mask: u64, out: &mut MoveList) {
        let next = &NEXT[sq];
        let (left, right) = ((d + 7) & 7, (d + 1) & 7);
        let (first, last) = if self.black {
            (right, left)
        } else {
            (left, right)
        };
        self.step(next[first], first, k, bits, mask, out);
        self.step(next[d], d, k, bits, mask, out);
        self.step(next[last], last, k, bits, mask, out);
    }
}

/// Rule 3: the defender's ply while a missile is in flight.
fn generate_in_flight(
    pos: &Position<CruisePawns>,
    missile: Missile,
    out: &mut MoveList,
    scope: Scope,
) {
    let mut detonated = *pos;
    detonated.take(missile.target());
    if scope == Scope::Shootable {
        generate_launches(&detonated, out, scope);
        return;
    }
    let defender = pos.turn();
    let occ = pos.occupied();
    let king = pos.king_of(defender);
    let start = out.len();
    let mut shot = Bitboard::EMPTY;
    let last_rank = (!defender).backrank();
    for si in mover_order(defender, missile.path.intermediate() & !occ) {
        for from in mover_order(defender, pos.attackers_to(si, defender, occ)) {
            // Shoot-down legality: the target still stands, the missile is gone.
            let occ2 = occ.without(from).with(si);
            let safe = match king {
                Some(k) => {
                    let k = if k == from { si } else { k };
                    pos.attackers_to(k, !defender, occ2).is_empty()
                }
                None => true,
            };
            if !safe {
                continue;
            }
            shot.add(si);
            let mv = Move::new(MoveKind::Normal, from, si).with_extra(SHOOT_DOWN);
            if pos.role_at(from) == Some(Role::Pawn) && si.rank() == last_rank {
                for role in [Role::Queen, Role::Knight, Role::Rook, Role::Bishop] {
                    out.push(mv.with_promotion(role));
                }
            } else {
                out.push(mv);
            }
        }
    }
    let shoot_downs = out.len();
    generate_free(&detonated, out, scope);
    if shot.any() {
        // "A token that is a legal shoot-down is a shoot-down."
        let mut keep = shoot_downs;
        for i in shoot_downs..out.len() {
            let mv = out[i];
            let duplicate = mv.kind == MoveKind::Normal
                && shot.contains(mv.to)
                && out[start..shoot_downs]
                    .iter()
                    .any(|s| s.from == mv.from && s.to == mv.to && s.promotion == mv.promotion);
            if !duplicate {
                out[keep] = mv;
                keep += 1;
            }
        }
        out.truncate(keep);
    }
}

/// Is `mv` a shoot-down (only meaningful while a missile is in flight)?
#[inline]
pub fn is_shoot_down(mv: Move) -> bool {
    mv.kind == MoveKind::Normal && mv.extra & SHOOT_DOWN != 0
}

/// The board after the pending missile (if any) has detonated, with no missile.
pub fn detonated(pos: &Position<CruisePawns>) -> Position<CruisePawns> {
    let mut board = *pos;
    if let Some(missile) = *pos.state() {
        board.take(missile.target());
        board.set_state(None);
    }
    board
}

/// Plays a move on a board with no missile in flight.
#[inline]
fn play_free(pos: &mut Position<CruisePawns>, mv: Move) {
    if mv.kind == LAUNCH {
        pos.take(mv.from);
        let path = Path(mv.extra);
        pos.set_state((!path.is_empty()).then_some(Missile {
            launch: mv.from,
            path,
        }));
        pos.play_base(mv); // clears en passant, passes the turn
        pos.set_halfmoves(0);
    } else {
        pos.play_base(mv);
    }
}

// ----- FEN -----

/// Why the seventh FEN field does not describe a missile in flight (its syntax
/// and geometry; the board is checked by `validate`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MissileFieldError {
    /// Not `<launch>*<path>` (nor `-`).
    Shape,
    /// The launch square is not a square.
    LaunchSquare { found: String },
    /// The path is not a list of squares.
    Path { found: String },
    /// A path square is not a square.
    PathSquare { found: String },
    /// A missile in flight flies 1 to 7 squares.
    Length { found: usize },
    /// The launch square is on the launcher's starting rank.
    LaunchOnStartingRank { square: Square },
    /// The launch square is on rank 1 or 8.
    LaunchOnBackRank { square: Square },
    /// A path square is not a neighbour of the one before it.
    NotNeighbour { square: Square, previous: Square },
    /// The path turns by more than 45 degrees.
    SharpTurn { at: Square },
}

impl std::fmt::Display for MissileFieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MissileFieldError::Shape => f.write_str("expected <launch>*<path> or '-'"),
            MissileFieldError::LaunchSquare { found } => {
                write!(f, "bad launch square '{found}'")
            }
            MissileFieldError::Path { found } => write!(f, "bad path '{found}'"),
            MissileFieldError::PathSquare { found } => write!(f, "bad square '{found}'"),
            MissileFieldError::Length { found } => write!(
                f,
                "a missile in flight flies 1 to {MAX_PATH} squares, found {found}"
            ),
            MissileFieldError::LaunchOnStartingRank { square } => write!(
                f,
                "launch square {square} is on the launcher's starting rank"
            ),
            MissileFieldError::LaunchOnBackRank { square } => write!(
                f,
                "launch square {square} is on rank 1 or 8, where no pawn stands"
            ),
            MissileFieldError::NotNeighbour { square, previous } => {
                write!(f, "{square} is not a neighbour of {previous}")
            }
            MissileFieldError::SharpTurn { at } => {
                write!(f, "the path turns more than 45 degrees at {at}")
            }
        }
    }
}

impl std::error::Error for MissileFieldError {}

/// Reads `<launch>*<s1>...<sk>` (syntax and geometry; the board is checked by
/// `validate`).
fn parse_missile(pos: &Position<CruisePawns>, field: &str) -> Result<Missile, FenError> {
    read_missile(pos, field).map_err(|error| FenError::Missile {
        field: field.to_string(),
        error,
    })
}

fn read_missile(pos: &Position<CruisePawns>, field: &str) -> Result<Missile, MissileFieldError> {
    let (launch, path_str) = field.split_once('*').ok_or(MissileFieldError::Shape)?;
    let launch: Square = launch
        .parse()
        .map_err(|_| MissileFieldError::LaunchSquare {
            found: launch.to_string(),
        })?;
    if !path_str.is_ascii() || path_str.len() % 2 != 0 {
        return Err(MissileFieldError::Path {
            found: path_str.to_string(),
        });
    }
    let k = path_str.len() / 2;
    if !(1..=MAX_PATH).contains(&k) {
        return Err(MissileFieldError::Length { found: k });
    }
    let launcher = !pos.turn();
    if launch.rank() == starting_rank(launcher) {
        return Err(MissileFieldError::LaunchOnStartingRank { square: launch });
    }
    if launch.rank() == Rank::First || launch.rank() == Rank::Eighth {
        return Err(MissileFieldError::LaunchOnBackRank { square: launch });
    }
    let mut path = Path::EMPTY;
    let mut prev = launch;
    let mut prev_dir = None;
    for i in 0..k {
        let s = &path_str[2 * i..2 * i + 2];
        let sq: Square = s.parse().map_err(|_| MissileFieldError::PathSquare {
            found: s.to_string(),
        })?;
        let d = direction(prev, sq).ok_or(MissileFieldError::NotNeighbour {
            square: sq,
            previous: prev,
        })?;
        if let Some(p) = prev_dir {
            if !turn_ok(p, d) {
                return Err(MissileFieldError::SharpTurn { at: prev });
            }
        }
        path = path.push(sq);
        prev = sq;
        prev_dir = Some(d);
    }
    Ok(Missile { launch, path })
}

impl Variant for CruisePawns {
    const NAME: &'static str = "cruisepawns";
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 -";
    const STATE_NAME: &'static str = "Missile in flight (launch*path)";
    type State = Option<Missile>;
    type Cache = ();

    fn legal_moves(pos: &Position<Self>, out: &mut MoveList) {
        generate(pos, out, Scope::All);
    }

    fn play(pos: &mut Position<Self>, mv: Move) {
        match *pos.state() {
            None => play_free(pos, mv),
            Some(missile) => {
                pos.set_state(None);
                if is_shoot_down(mv) {
                    pos.play_base(mv);
                } else {
                    // The missile detonates first; the reply is played on that board.
                    pos.take(missile.target());
                    play_free(pos, mv);
                }
                // Shoot-downs reset the clock; a detonation counts as a capture.
                pos.set_halfmoves(0);
            }
        }
    }

    /// In flight, judged on the detonated board (the target cannot attack its own
    /// king, so only the blocker it was matters).
    fn in_check(pos: &Position<Self>) -> bool {
        match *pos.state() {
            None => pos.checkers().any(),
            Some(missile) => match pos.king_of(pos.turn()) {
                Some(k) => pos
                    .attackers_to(k, !pos.turn(), pos.occupied().without(missile.target()))
                    .any(),
                None => false,
            },
        }
    }

    fn parse_state(pos: &Position<Self>, field: Option<&str>) -> Result<Self::State, FenError> {
        match field {
            None | Some("-") => Ok(None),
            Some(f) => parse_missile(pos, f).map(Some),
        }
    }

    fn check_fen_fields(fields: &[&str]) -> Result<(), FenError> {
        match (fields.get(3), fields.get(6)) {
            (Some(&ep), Some(&missile)) if missile != "-" && ep != "-" => {
                Err(FenError::EnPassantInFlight {
                    found: Some(ep.to_string()),
                })
            }
            _ => Ok(()),
        }
    }

    fn format_state(pos: &Position<Self>) -> Option<String> {
        Some(match *pos.state() {
            None => "-".to_string(),
            Some(missile) => {
                let mut s = String::with_capacity(17);
                crate::moves::write_square(&mut s, missile.launch);
                s.push('*');
                for sq in missile.path.squares() {
                    crate::moves::write_square(&mut s, sq);
                }
                s
            }
        })
    }

    /// Table 0 keys the launch square, table i the i-th path square.
    fn state_key(state: &Self::State) -> u64 {
        match state {
            None => 0,
            Some(missile) => missile
                .path
                .squares()
                .enumerate()
                .fold(zobrist::extra(0, missile.launch), |key, (i, sq)| {
                    key ^ zobrist::extra(i + 1, sq)
                }),
        }
    }

    fn validate(pos: &Position<Self>) -> Result<(), FenError> {
        validate_king_count(pos)?;
        validate_pawn_ranks(pos, false)?;
        let Some(missile) = *pos.state() else {
            if pos.king_attacked(!pos.turn()) {
                return Err(FenError::OpponentInCheck);
            }
            return Ok(());
        };
        let defender = pos.turn();
        if pos.ep_square().is_some() {
            return Err(FenError::EnPassantInFlight { found: None });
        }
        if pos.occupied().contains(missile.launch) {
            return Err(FenError::MissileLaunchOccupied {
                square: missile.launch,
            });
        }
        let path = missile.path;
        for sq in path.intermediate() {
            if pos.by_color(defender).contains(sq) {
                return Err(FenError::MissilePathBlocked { square: sq });
            }
        }
        let target = missile.target();
        match pos.piece_at(target) {
            Some(p) if p.color == defender && p.role != Role::King => {}
            _ => return Err(FenError::MissileTarget { square: target }),
        }
        let launcher = !defender;
        if let Some(k) = pos.king_of(launcher) {
            let occ = pos.occupied().without(target);
            if (pos.attackers_to(k, defender, occ) & !Bitboard::from_square(target)).any() {
                return Err(FenError::OpponentInCheckAfterDetonation);
            }
        }
        Ok(())
    }

    fn format_move(_pos: &Position<Self>, mv: Move, out: &mut String) {
        if mv.kind == LAUNCH {
            crate::moves::write_square(out, mv.from);
            out.push('*');
            for sq in Path(mv.extra).squares() {
                crate::moves::write_square(out, sq);
            }
        } else {
            mv.write_base(out);
        }
    }

    /// docs/RULES.md, "Cruise Pawns: notation": a launch as the pawn's
    /// square, `*` and the path joined by `-`, the target with its letter
    /// (`e4*e5-f6-Ng7`; `e4*` for a self-detonation); with a missile in
    /// flight a shoot-down is SAN with `x*` for its capture sign (`Bx*f6`),
    /// and any other reply is `*` (the detonation) and the reply's text on
    /// the detonated board (`*Kh8`). Shoot-downs and other moves are told
    /// apart from their own kind only.
    fn notation_parts(pos: &Position<Self>, mv: Move, legal: &[Move]) -> Parts {
        if pos.state().is_none() {
            return free_parts(pos, mv, legal);
        }
        if is_shoot_down(mv) {
            return Parts::head(crate::notation::san_head_marked(
                pos,
                mv,
                legal,
                Some("x*"),
                is_shoot_down,
            ));
        }
        let others: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|&m| !is_shoot_down(m))
            .collect();
        let mut parts = free_parts(&detonated(pos), mv, &others);
        parts.head.insert(0, '*');
        parts
    }

    fn action(_pos: &Position<Self>, mv: Move) -> (Action, Vec<Extra>) {
        if mv.kind != LAUNCH {
            return (base_action(mv), Vec::new());
        }
        let path = Path(mv.extra).squares().collect();
        (
            Action::Launch {
                from: mv.from,
                path,
            },
            Vec::new(),
        )
    }

    /// Rule 3 first while a missile is in flight (a shoot-down, or the
    /// detonation before any other reply), then the move itself (rules 1-2).
    fn effects(pos: &Position<Self>, mv: Move) -> Effects {
        let Some(missile) = *pos.state() else {
            return free_effects(pos, mv);
        };
        let flight = missile.flight();
        if is_shoot_down(mv) {
            let mut fx = chess_effects(pos, mv);
            fx.missile
                .push(MissileEvent::ShotDown { flight, at: mv.to });
            return fx;
        }
        let mut fx = Effects::default();
        let target = missile.target();
        if let Some(piece) = pos.piece_at(target) {
            fx.removed.push(Removal {
                square: target,
                piece,
                why: Why::BlownUp,
            });
        }
        fx.missile.push(MissileEvent::Detonated(flight));
        let reply = free_effects(&detonated(pos), mv);
        fx.moved = reply.moved;
        fx.promoted = reply.promoted;
        fx.removed.extend(reply.removed);
        fx.missile.extend(reply.missile);
        fx
    }

    fn state_info(pos: &Position<Self>) -> VariantState {
        match *pos.state() {
            Some(missile) => VariantState::Missile(missile.flight()),
            None => VariantState::None,
        }
    }
}

/// The readable text of a move on a board with no missile in flight: a launch
/// (the target's letter before its square) or SAN.
fn free_parts(pos: &Position<CruisePawns>, mv: Move, legal: &[Move]) -> Parts {
    if mv.kind != LAUNCH {
        return Parts::head(crate::notation::san_head(pos, mv, legal));
    }
    let path = Path(mv.extra);
    let mut head = format!("{}*", mv.from);
    for (i, sq) in path.squares().enumerate() {
        if i > 0 {
            head.push('-');
        }
        if Some(sq) == path.target() {
            head.push(pos.role_at(sq).map_or('?', |r| r.upper_char()));
        }
        head.push_str(&sq.to_string());
    }
    Parts::head(head)
}

/// What a move does on a board with no missile in flight: a launch takes the
/// pawn into the air (or blows it up), anything else is chess.
fn free_effects(pos: &Position<CruisePawns>, mv: Move) -> Effects {
    if mv.kind != LAUNCH {
        return chess_effects(pos, mv);
    }
    let mut fx = Effects::default();
    let path = Path(mv.extra);
    if path.is_empty() {
        if let Some(piece) = pos.piece_at(mv.from) {
            fx.removed.push(Removal {
                square: mv.from,
                piece,
                why: Why::SelfDetonated,
            });
        }
    } else {
        fx.missile.push(MissileEvent::Launched(
            Missile {
                launch: mv.from,
                path,
            }
            .flight(),
        ));
    }
    fx
}
