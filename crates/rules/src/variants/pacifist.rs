//! Pacifist Chess (docs/RULES.md, "Pacifist"): nothing is ever captured. A piece whose
//! square is *overly persuaded* (more enemy influence than friendly) changes
//! colour in a cascade after the opponent's move; a side wins by converting the
//! enemy kings so that no move wins one back.
//!
//! Everything that counts influence works on bitboards: the cascade and legality
//! use a bit-sliced counter over the whole board (one attack set per piece, with
//! x-ray through same-colour batteries obtained by making the colour's own sliders
//! of the ray's kind transparent), and [`influence`] answers a single square with
//! one lookup per ray kind.

use shakmaty::{attacks, Bitboard, Color, File, Rank, Role, Square};

use super::{validate_pawn_ranks, Variant};
use crate::bitboards::{mover_order, piece_attacks, FILE_A, FILE_H};
use crate::fen::FenError;
use crate::game::Outcome;
use crate::live::{chess_effects, Effects};
use crate::movegen::{MoveCounter, MoveSink};
use crate::moves::{Move, MoveKind, MoveList, PROMOTIONS};
use crate::notation::Parts;
use crate::position::{castle_side, rook_file, Position};

#[derive(Copy, Clone, Debug, Default)]
pub struct Pacifist;

// ----- influence (rule 2) and overly persuaded squares (rule 3) -----

/// The bare board influence depends on: roles and colours, nothing else. Cheap to
/// copy, so legality is judged by playing a move and its cascade on a copy.
#[derive(Copy, Clone, Debug, Default)]
pub struct Board {
    pub roles: [u64; 6],
    pub colors: [u64; 2],
}

#[inline]
pub fn ri(role: Role) -> usize {
    role as usize - 1
}

#[inline]
pub fn ci(color: Color) -> usize {
    color as usize
}

impl Board {
    #[inline]
    fn of<V: Variant>(pos: &Position<V>) -> Board {
        let mut roles = [0; 6];
        for role in Role::ALL {
            roles[ri(role)] = pos.by_role(role).0;
        }
        Board {
            roles,
            colors: [pos.by_color(Color::Black).0, pos.by_color(Color::White).0],
        }
    }

    /// Equality, word by word (a derived `==` calls `memcmp`).
    #[inline]
    fn same(&self, other: &Board) -> bool {
        (0..6).fold(0, |d, r| d | (self.roles[r] ^ other.roles[r]))
            | (self.colors[0] ^ other.colors[0])
            | (self.colors[1] ^ other.colors[1])
            == 0
    }

    #[inline]
    pub fn occ(&self) -> u64 {
        self.colors[0] | self.colors[1]
    }

    #[inline]
    fn pieces(&self, role: Role, color: Color) -> u64 {
        self.roles[ri(role)] & self.colors[ci(color)]
    }

    /// Moves a piece of `color` between empty-target squares (no capture exists).
    #[inline]
    fn shift_piece(&mut self, color: Color, from: Square, role: Role, to: Square, new_role: Role) {
        let f = 1u64 << from as u32;
        let t = 1u64 << to as u32;
        self.roles[ri(role)] ^= f;
        self.roles[ri(new_role)] ^= t;
        self.colors[ci(color)] ^= f | t;
    }

    /// Plays the board part of a move of `us` (no captures, no en passant) and
    /// returns the squares it changed.
    #[inline]
    pub fn apply(&mut self, us: Color, mv: Move, role: Role) -> u64 {
        let squares = (1u64 << mv.from as u32) | (1u64 << mv.to as u32);
        if mv.kind == MoveKind::Castle {
            let side = castle_side(mv);
            let rank = us.backrank();
            let rook_from = Square::from_coords(rook_file(side), rank);
            let rook_to = Square::from_coords(side.rook_to_file(), rank);
            self.shift_piece(us, mv.from, Role::King, mv.to, Role::King);
            self.shift_piece(us, rook_from, Role::Rook, rook_to, Role::Rook);
            squares | (1u64 << rook_from as u32) | (1u64 << rook_to as u32)
        } else {
            self.shift_piece(us, mv.from, role, mv.to, mv.promotion.unwrap_or(role));
            squares
        }
    }

    /// Rule 2 for every square at once: the influence counts of `color`, as a
    /// bit-sliced counter. Each piece adds its influence set; a slider's set is its
    /// attack set with the same colour's sliders of that ray kind made transparent,
    /// which is exactly "every piece between it and the square is a same-colour
    /// slider of the ray's kind" (the battery x-ray).
    #[inline]
    fn influence_counter(&self, color: Color) -> Counter {
        let own = self.colors[ci(color)];
        let occ = self.occ();
        let mut acc = Pairs::default();
        let pawns = self.roles[ri(Role::Pawn)] & own;
        // Capture diagonals only; each direction's set has no overlap.
        let (left, right) = match color {
            Color::White => ((pawns & !FILE_A) << 7, (pawns & !FILE_H) << 9),
            Color::Black => ((pawns & !FILE_A) >> 9, (pawns & !FILE_H) >> 7),
        };
        acc.counter.add2(left, right);
        for sq in Bitboard(self.roles[ri(Role::Knight)] & own) {
            acc.push(attacks::knight_attacks(sq).0);
        }
        for sq in Bitboard(self.roles[ri(Role::King)] & own) {
            acc.push(attacks::king_attacks(sq).0);
        }
        let queens = self.roles[ri(Role::Queen)];
        let orth = (self.roles[ri(Role::Rook)] | queens) & own;
        let orth_occ = Bitboard(occ & !orth);
        for sq in Bitboard(orth) {
            acc.push(attacks::rook_attacks(sq, orth_occ).0);
        }
        let diag = (self.roles[ri(Role::Bishop)] | queens) & own;
        let diag_occ = Bitboard(occ & !diag);
        for sq in Bitboard(diag) {
            acc.push(attacks::bishop_attacks(sq, diag_occ).0);
        }
        acc.finish()
    }

    /// Rule 2 on one square from scratch (the piece on `sq` excluded): the
    /// pieces of `color` counted there, whose number is the influence (a piece
    /// lies on one ray at most and is counted once). The leading run of
    /// `color`'s sliders along each ray is one attack lookup with those sliders
    /// transparent.
    #[inline]
    fn influencers(&self, sq: Square, color: Color) -> u64 {
        let own = self.colors[ci(color)];
        let steps = (attacks::knight_attacks(sq).0 & self.roles[ri(Role::Knight)])
            | (attacks::king_attacks(sq).0 & self.roles[ri(Role::King)])
            | (attacks::pawn_attacks(!color, sq).0 & self.roles[ri(Role::Pawn)]);
        (steps & own)
            | self.ray_influencers(sq, color, RayKind::Orthogonal)
            | self.ray_influencers(sq, color, RayKind::Diagonal)
    }

    /// The sliders of `color` counted on `sq` along rays of `kind` (rule 2):
    /// the attack set with those sliders transparent, looked up only when one
    /// of them stands on a line through `sq`.
    #[inline]
    fn ray_influencers(&self, sq: Square, color: Color, kind: RayKind) -> u64 {
        self.ray_influencers_without(sq, color, kind, 0)
    }

    /// [`Board::ray_influencers`] with the pieces on `gone` taken off.
    #[inline]
    fn ray_influencers_without(&self, sq: Square, color: Color, kind: RayKind, gone: u64) -> u64 {
        let sliders = self.sliders(color, kind) & !gone;
        if kind.lines(sq) & sliders == 0 {
            return 0;
        }
        kind.attacks(sq, self.occ() & !gone & !sliders) & sliders
    }

    /// Rule 2 on one square: the influence of `color` on `sq`.
    #[inline]
    fn influence_on(&self, sq: Square, color: Color) -> u32 {
        self.influencers(sq, color).count_ones()
    }

    /// The squares where a piece arriving or leaving may change the influence on
    /// `k` (rule 2): its king and knight neighbourhoods (pawns attack from the
    /// former) and each ray up to the first piece that is not a slider of the
    /// ray's kind, beyond which no walk from `k` reaches; and `k` itself.
    #[inline]
    fn footprint(&self, k: Square) -> u64 {
        let occ = self.occ();
        let orth = self.roles[ri(Role::Rook)] | self.roles[ri(Role::Queen)];
        let diag = self.roles[ri(Role::Bishop)] | self.roles[ri(Role::Queen)];
        attacks::king_attacks(k).0
            | attacks::knight_attacks(k).0
            | RayKind::Orthogonal.attacks(k, occ & !orth)
            | RayKind::Diagonal.attacks(k, occ & !diag)
            | 1u64 << k as u32
    }

    /// Rule 3 on one square: is `sq` safe (not overly persuaded) for `color`?
    /// Without enemy influence it is, whatever ours (most squares).
    #[inline]
    fn safe_for(&self, sq: Square, color: Color) -> bool {
        let theirs = self.influencers(sq, !color);
        theirs == 0 || no_more_than(theirs, self.influencers(sq, color))
    }

    /// Rule 3 on a king of `us` on `k`, with what a move of ours could cut off.
    #[inline]
    fn guard(&self, k: Square, us: Color) -> Guard {
        let pawns = self.roles[ri(Role::Pawn)];
        let steps = (attacks::knight_attacks(k).0 & self.roles[ri(Role::Knight)])
            | (attacks::king_attacks(k).0 & self.roles[ri(Role::King)]);
        // Pawns of a colour influence `k` from where the other colour's pawn on
        // `k` would capture.
        let ours = (steps | (attacks::pawn_attacks(!us, k).0 & pawns)) & self.colors[ci(us)];
        let them = (steps | (attacks::pawn_attacks(us, k).0 & pawns)) & self.colors[ci(!us)];
        let rays = |color| {
            [RayKind::Orthogonal, RayKind::Diagonal]
                .map(|kind| self.ray_influencers(k, color, kind))
        };
        Guard {
            k,
            steps: [ours, them],
            rays: [rays(us), rays(!us)],
        }
    }

    /// After a plain move `mv` of `us` from `before` to this board, when no
    /// piece of the other side was overly persuaded before it: is one now, so
    /// that the cascade (rule 4) converts something? Only their pieces where the
    /// move changed the counts can have turned: where the moved piece now
    /// reaches, and on the walks through its two squares (a square left opens
    /// them, a square taken blocks them). Those are judged one by one.
    #[inline]
    fn persuades_any(&self, before: &Board, us: Color, mv: Move) -> bool {
        let walks = |b: &Board, sq: Square| {
            let orth = b.roles[ri(Role::Rook)] | b.roles[ri(Role::Queen)];
            let diag = b.roles[ri(Role::Bishop)] | b.roles[ri(Role::Queen)];
            RayKind::Orthogonal.attacks(sq, b.occ() & !orth)
                | RayKind::Diagonal.attacks(sq, b.occ() & !diag)
        };
        let Some((_, role)) = self.piece_at(mv.to) else {
            return true;
        };
        let changed =
            self.influence_set(mv.to, us, role) | walks(self, mv.from) | walks(before, mv.to);
        Bitboard(self.colors[ci(!us)] & changed)
            .into_iter()
            .any(|sq| !self.safe_for(sq, !us))
    }

    /// Has `color` a king that is not overly persuaded (rule 3) on this board?
    #[inline]
    fn has_safe_king(&self, color: Color) -> bool {
        Bitboard(self.pieces(Role::King, color))
            .into_iter()
            .any(|k| self.safe_for(k, color))
    }

    /// The board with the pieces on `squares` taken off (rule 6 lifts the
    /// castling king: it neither counts nor blocks).
    #[inline]
    fn without(&self, squares: u64) -> Board {
        let mut b = *self;
        for r in &mut b.roles {
            *r &= !squares;
        }
        for c in &mut b.colors {
            *c &= !squares;
        }
        b
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<(Color, Role)> {
        let bit = 1u64 << sq as u32;
        if self.occ() & bit == 0 {
            return None;
        }
        let color = Color::from_white(self.colors[ci(Color::White)] & bit != 0);
        let role = Role::ALL
            .into_iter()
            .find(|&r| self.roles[ri(r)] & bit != 0)?;
        Some((color, role))
    }

    /// The sliders of `color` whose rays are of `kind` (R or Q for files and
    /// ranks, B or Q for diagonals).
    #[inline]
    fn sliders(&self, color: Color, kind: RayKind) -> u64 {
        let role = match kind {
            RayKind::Orthogonal => Role::Rook,
            RayKind::Diagonal => Role::Bishop,
        };
        (self.roles[ri(role)] | self.roles[ri(Role::Queen)]) & self.colors[ci(color)]
    }

    /// The occupancy the rays of `color`'s `kind` sliders see: their own battery
    /// partners of that kind are transparent (rule 2's x-ray).
    #[inline]
    fn ray_occupancy(&self, color: Color, kind: RayKind) -> u64 {
        self.occ() & !self.sliders(color, kind)
    }

    /// The squares the piece (`color`, `role`) on `sq` influences (rule 2).
    #[inline]
    fn influence_set(&self, sq: Square, color: Color, role: Role) -> u64 {
        match role {
            Role::Pawn => attacks::pawn_attacks(color, sq).0,
            Role::Knight => attacks::knight_attacks(sq).0,
            Role::King => attacks::king_attacks(sq).0,
            Role::Rook => {
                RayKind::Orthogonal.attacks(sq, self.ray_occupancy(color, RayKind::Orthogonal))
            }
            Role::Bishop => {
                RayKind::Diagonal.attacks(sq, self.ray_occupancy(color, RayKind::Diagonal))
            }
            Role::Queen => {
                RayKind::Orthogonal.attacks(sq, self.ray_occupancy(color, RayKind::Orthogonal))
                    | RayKind::Diagonal.attacks(sq, self.ray_occupancy(color, RayKind::Diagonal))
            }
        }
    }
}

/// The two kinds of rays of rule 2.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum RayKind {
    Orthogonal,
    Diagonal,
}

/// A king of ours judged by rule 3, for deciding many moves at once: the pieces
/// counted on its square (rule 2), ours then theirs, by steps and along rays of
/// each kind (indexed by [`RayKind`]).
#[derive(Copy, Clone, Debug)]
struct Guard {
    k: Square,
    steps: [u64; 2],
    rays: [[u64; 2]; 2],
}

/// `|a| <= |b|` for small sets, without a population count (which this build
/// target does in software): the usual sets here hold a few pieces.
#[inline]
fn no_more_than(mut a: u64, mut b: u64) -> bool {
    while a != 0 {
        if b == 0 {
            return false;
        }
        a &= a - 1;
        b &= b - 1;
    }
    true
}

/// The number of pieces in a small set (see [`no_more_than`]).
#[inline]
fn count_small(mut set: u64) -> i32 {
    let mut n = 0;
    while set != 0 {
        set &= set - 1;
        n += 1;
    }
    n
}

impl Guard {
    #[inline]
    fn ours(&self) -> u64 {
        self.steps[0] | self.rays[0][0] | self.rays[0][1]
    }

    #[inline]
    fn them(&self) -> u64 {
        self.steps[1] | self.rays[1][0] | self.rays[1][1]
    }

    /// [`Guard::risky`] once our piece (`role`) on `from` has left `board`
    /// (its old board): the piece no longer counts, and only the rays of the
    /// line through `from` and the king, if any, can see further. Ours are
    /// walked again only when some of theirs count.
    #[inline]
    fn risky_after_leaving(&self, board: &Board, from: Square, us: Color, role: Role) -> u64 {
        let bit = 1u64 << from as u32;
        let mut g = *self;
        g.steps[0] &= !bit;
        for kind in [RayKind::Orthogonal, RayKind::Diagonal] {
            if kind.lines(self.k) & bit != 0 {
                g.rays[1][kind as usize] = board.ray_influencers_without(self.k, !us, kind, bit);
                if g.them() == 0 {
                    return 0;
                }
                g.rays[0][kind as usize] = board.ray_influencers_without(self.k, us, kind, bit);
            }
        }
        g.risky(role)
    }

    /// The empty squares where a piece of ours of `role` arriving may leave the
    /// king overly persuaded. An arrival adds no enemy influence anywhere (it can
    /// only block enemy rays) and takes nothing from ours except by cutting the
    /// walk from the king to the sliders counted behind it, on one ray only, and
    /// not at all on rays of its own kind (rule 2: the walk passes our sliders of
    /// the ray's kind). So only squares between the king and those sliders are
    /// risky, and none when all of them together do not outweigh the margin.
    /// Promotions are judged as pawns (a superset). Everything is risky for a
    /// king already overly persuaded.
    #[inline]
    fn risky(&self, role: Role) -> u64 {
        // The cut sliders are among ours: with no enemy influence they never
        // outweigh the margin.
        let them = self.them();
        if them == 0 {
            return 0;
        }
        let margin = count_small(self.ours()) - count_small(them);
        if margin < 0 {
            return !0;
        }
        let [orth, diag] = self.rays[0];
        let cut = match role {
            Role::Rook => diag,
            Role::Bishop => orth,
            Role::Queen => 0,
            _ => orth | diag,
        };
        if count_small(cut) <= margin {
            return 0;
        }
        Bitboard(cut)
            .into_iter()
            .fold(0, |r, s| r | attacks::between(self.k, s).0)
    }
}

/// Empty-board lines of each kind from each square: a cache-resident filter
/// before the magic lookups of [`Tally::change_to`].
static LINES: [[u64; 64]; 2] = {
    let mut lines = [[0u64; 64]; 2];
    let mut i = 0;
    while i < 64 {
        let sq = Square::new(i as u32);
        lines[0][i] = attacks::rook_attacks(sq, Bitboard::EMPTY).0;
        lines[1][i] = attacks::bishop_attacks(sq, Bitboard::EMPTY).0;
        i += 1;
    }
    lines
};

impl RayKind {
    /// The empty-board lines of this kind through `sq`.
    #[inline]
    fn lines(self, sq: Square) -> u64 {
        LINES[self as usize][sq as usize]
    }

    #[inline]
    fn attacks(self, sq: Square, occupied: u64) -> u64 {
        match self {
            RayKind::Orthogonal => attacks::rook_attacks(sq, Bitboard(occupied)).0,
            RayKind::Diagonal => attacks::bishop_attacks(sq, Bitboard(occupied)).0,
        }
    }
}

/// A board with the influence counts of both colours (`[black, white]`), kept up
/// to date through changes: a move or a cascade round only recounts the pieces
/// that changed and the sliders whose rays see a square that changed. The
/// default is the empty board, which no piece influences.
#[derive(Copy, Clone, Debug, Default)]
pub struct Tally {
    pub board: Board,
    pub counts: [Counter; 2],
}

/// Updates `color`'s counts for the sliders of `color` that stand on the same
/// squares of `old` and `new` (which differ on `diff` only): their rays change
/// only where a square of their reach changed from blocking to transparent or
/// back.
#[inline]
fn restretch(old: &Board, new: &Board, color: Color, diff: u64, counts: &mut Counter) {
    for kind in [RayKind::Orthogonal, RayKind::Diagonal] {
        let stay = old.sliders(color, kind) & new.sliders(color, kind) & !diff;
        if stay == 0 {
            continue;
        }
        let o_old = old.ray_occupancy(color, kind);
        let o_new = new.ray_occupancy(color, kind);
        let changed = o_old ^ o_new;
        if changed == 0 {
            continue;
        }
        let mut seen = 0;
        for x in Bitboard(changed) {
            if kind.lines(x) & stay != 0 {
                seen |= kind.attacks(x, o_old);
            }
        }
        for s in Bitboard(seen & stay) {
            let a = kind.attacks(s, o_old);
            let b = kind.attacks(s, o_new);
            counts.sub(a & !b);
            counts.add(b & !a);
        }
    }
}

/// Above this many conversions in one round, counting afresh is cheaper.
const RECOUNT_ABOVE: u32 = 4;

impl Tally {
    /// The tally of `pos`: the one its last move left in the position's cache,
    /// or counted afresh when the position was made another way (a FEN, or a
    /// board built piece by piece), which the stored board tells.
    #[inline]
    pub fn of(pos: &Position<Pacifist>) -> Tally {
        let board = Board::of(pos);
        let carried = *pos.cache();
        if carried.board.same(&board) {
            carried
        } else {
            Tally::new(board)
        }
    }

    #[inline]
    fn new(board: Board) -> Tally {
        Tally {
            board,
            counts: [
                board.influence_counter(Color::Black),
                board.influence_counter(Color::White),
            ],
        }
    }

    /// Rule 3 for every square: `[black, white]`, the squares overly persuaded for
    /// that colour (the other colour's influence is strictly greater).
    #[inline]
    pub fn persuaded(&self) -> [u64; 2] {
        let [black, white] = &self.counts;
        let (white_more, black_more) = white.compare(black);
        [white_more, black_more]
    }

    /// Replaces the board by `new`, which differs from the current one on the
    /// squares `diff` only, updating the counts by difference.
    #[inline]
    pub fn change_to(&mut self, new: &Board, diff: u64) {
        let old = &self.board;
        let counts = &mut self.counts;
        debug_assert_eq!(
            (0..6).fold(
                (old.colors[0] ^ new.colors[0]) | (old.colors[1] ^ new.colors[1]),
                |d, r| d | (old.roles[r] ^ new.roles[r])
            ),
            diff & (old.occ() | new.occ()),
            "changed squares"
        );
        // Pieces that appeared, left or changed: their whole influence.
        for sq in Bitboard(diff) {
            if let Some((c, r)) = old.piece_at(sq) {
                counts[ci(c)].sub(old.influence_set(sq, c, r));
            }
            if let Some((c, r)) = new.piece_at(sq) {
                counts[ci(c)].add(new.influence_set(sq, c, r));
            }
        }
        for color in [Color::Black, Color::White] {
            restretch(old, new, color, diff, &mut counts[ci(color)]);
        }
        self.board = *new;
        debug_assert_eq!(
            self.counts,
            Tally::new(*new).counts,
            "incremental influence"
        );
    }

    /// [`Tally::change_to`] for a cascade round: the pieces on `turning` join
    /// `mover` on `new`, keeping their roles. Only a slider changing colour
    /// changes what the sliders that stay see (each colour's own sliders of a
    /// kind are transparent to it; any other piece blocks both colours).
    #[inline]
    fn convert(&mut self, new: &Board, turning: u64, mover: Color) {
        let old = self.board;
        for sq in Bitboard(turning) {
            let bit = 1u64 << sq as u32;
            let role = Role::ALL
                .into_iter()
                .find(|&r| old.roles[ri(r)] & bit != 0)
                .expect("a piece turns");
            self.counts[ci(!mover)].sub(old.influence_set(sq, !mover, role));
            self.counts[ci(mover)].add(new.influence_set(sq, mover, role));
        }
        let sliders =
            old.roles[ri(Role::Bishop)] | old.roles[ri(Role::Rook)] | old.roles[ri(Role::Queen)];
        if turning & sliders != 0 {
            for color in [Color::Black, Color::White] {
                restretch(&old, new, color, turning, &mut self.counts[ci(color)]);
            }
        }
        self.board = *new;
        debug_assert_eq!(self.counts, Tally::new(*new).counts, "converted influence");
    }

    /// The king steps of `g`'s king that leave it not overly persuaded where it
    /// lands (rule 3), from the counts: where it goes it neither counts nor
    /// blocks, so the square is judged with the king lifted. Lifting it takes
    /// its own step from our count on each neighbour, and lets the walk from a
    /// neighbour through its square go on as the walk from the king's square
    /// goes on that side: it counts the sliders the guard counts there.
    #[inline]
    fn king_steps(&self, g: &Guard, us: Color) -> u64 {
        let k = g.k;
        let around = attacks::king_attacks(k).0;
        // None of their sliders counted on the king: lifting it gives them
        // nothing, and where they count nothing the king is safe.
        let theirs = self.counts[ci(!us)].0;
        let touched = theirs.iter().fold(0, |t, p| t | p);
        if g.rays[1] == [0, 0] && around & touched == 0 {
            return around;
        }
        let mut ours = self.counts[ci(us)];
        let mut them = self.counts[ci(!us)];
        ours.sub(around);
        for (counter, rays) in [(&mut ours, &g.rays[0]), (&mut them, &g.rays[1])] {
            for s in Bitboard(rays[0] | rays[1]) {
                // The neighbour on the far side of the king from `s`.
                let far =
                    attacks::ray(s, k).0 & around & !attacks::between(s, k).0 & !(1u64 << s as u32);
                counter.add(far);
            }
        }
        around & !them.compare(&ours).0
    }

    /// Rule 4: the cascade after a move of `mover`. Returns the converted squares
    /// and the overly persuaded squares of the final board (`[black, white]`).
    #[inline]
    pub fn cascade(&mut self, mover: Color) -> (u64, [u64; 2]) {
        self.cascade_by_round(mover, |_| {})
    }

    /// [`Tally::cascade`] that shows `round` the pieces each round converts,
    /// in order (what a front end shows of rule 4).
    #[inline]
    pub fn cascade_by_round(
        &mut self,
        mover: Color,
        mut round: impl FnMut(u64),
    ) -> (u64, [u64; 2]) {
        let mut converted = 0;
        loop {
            let persuaded = self.persuaded();
            // Simultaneous rounds: every persuaded piece of the non-mover turns at once.
            let turning = self.board.colors[ci(!mover)] & persuaded[ci(!mover)];
            if turning == 0 {
                return (converted, persuaded);
            }
            round(turning);
            let mut next = self.board;
            next.colors[ci(!mover)] ^= turning;
            next.colors[ci(mover)] |= turning;
            if turning.count_ones() > RECOUNT_ABOVE {
                *self = Tally::new(next);
            } else {
                self.convert(&next, turning, mover);
            }
            converted |= turning;
        }
    }
}

/// A bit-sliced counter: bit `i` of the count on square `s` is bit `s` of plane
/// `i`. Six planes count to 63, more than the pieces a board can hold around one
/// square, so no FEN can overflow it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counter([u64; 6]);

impl Counter {
    /// Adds `carry << plane` (a ripple-carry add). Counts of 8 and more are rare,
    /// so the upper planes sit behind one well-predicted branch.
    #[inline(always)]
    fn ripple(&mut self, mut carry: u64, plane: usize) {
        let (low, high) = self.0.split_at_mut(3);
        for p in low.iter_mut().skip(plane) {
            let next = *p & carry;
            *p ^= carry;
            carry = next;
        }
        if carry != 0 {
            for p in high.iter_mut() {
                let next = *p & carry;
                *p ^= carry;
                carry = next;
            }
        }
    }

    /// Adds one to the count of every square in `set`.
    #[inline(always)]
    fn add(&mut self, set: u64) {
        self.ripple(set, 0);
    }

    /// Takes one from the count of every square in `set` (each was counted).
    #[inline(always)]
    fn sub(&mut self, set: u64) {
        let p = &mut self.0;
        let mut borrow = set;
        for plane in p.iter_mut().take(3) {
            let next = !*plane & borrow;
            *plane ^= borrow;
            borrow = next;
        }
        if borrow != 0 {
            for plane in p.iter_mut().skip(3) {
                let next = !*plane & borrow;
                *plane ^= borrow;
                borrow = next;
            }
        }
    }

    /// Adds two sets at once: a full adder on plane 0, then one ripple.
    #[inline(always)]
    fn add2(&mut self, x: u64, y: u64) {
        let p0 = self.0[0];
        self.0[0] = p0 ^ x ^ y;
        self.ripple((p0 & (x | y)) | (x & y), 1);
    }

    /// `(self > other, other > self)`, square by square. Counts of 8 and more
    /// are rare, so the upper planes are compared only when one is in use.
    #[inline(always)]
    fn compare(&self, other: &Counter) -> (u64, u64) {
        let (a, b) = (&self.0, &other.0);
        let upper = a[3] | a[4] | a[5] | b[3] | b[4] | b[5];
        let top = if upper == 0 { 3 } else { 6 };
        let mut greater = 0;
        let mut less = 0;
        let mut equal = !0u64;
        for i in (0..top).rev() {
            greater |= equal & a[i] & !b[i];
            less |= equal & b[i] & !a[i];
            equal &= !(a[i] ^ b[i]);
        }
        (greater, less)
    }

    /// The squares where the count is at least one.
    #[inline]
    pub fn nonzero(&self) -> u64 {
        self.0.iter().fold(0, |acc, plane| acc | plane)
    }

    /// The squares where both counters are equal.
    #[inline]
    pub fn equal_to(&self, other: &Counter) -> u64 {
        let mut equal = !0u64;
        for i in 0..6 {
            equal &= !(self.0[i] ^ other.0[i]);
        }
        equal
    }
}

/// Feeds sets to a [`Counter`] two at a time (half the ripples).
#[derive(Default)]
struct Pairs {
    counter: Counter,
    pending: Option<u64>,
}

impl Pairs {
    #[inline(always)]
    fn push(&mut self, set: u64) {
        match self.pending.take() {
            Some(first) => self.counter.add2(first, set),
            None => self.pending = Some(set),
        }
    }

    #[inline(always)]
    fn finish(mut self) -> Counter {
        if let Some(last) = self.pending {
            self.counter.add(last);
        }
        self.counter
    }
}

/// Rule 2 on one square: how many pieces of `color` influence `sq` (the piece on
/// `sq` excluded).
pub fn influence(pos: &Position<Pacifist>, sq: Square, color: Color) -> u32 {
    Board::of(pos).influence_on(sq, color)
}

/// Rule 3 for every square: the squares overly persuaded for `color`.
pub fn overly_persuaded(pos: &Position<Pacifist>, color: Color) -> Bitboard {
    Bitboard(Tally::of(pos).persuaded()[ci(color)])
}

// ----- moves (rules 1, 5, 6) -----

/// Pseudo-moves are chess moves to empty squares (rule 1); each is kept when
/// its cascade leaves the mover a king that is not overly persuaded (rule 5).
/// `noisy_only` keeps promotions and moves that convert more than the pieces
/// any move would convert anyway. `out` may be a counter: perft's last ply then
/// counts the moves that need no judging with one popcount per piece.
pub fn generate<S: Sink>(pos: &Position<Pacifist>, out: &mut S, noisy_only: bool) {
    let us = pos.turn();
    let tally = Tally::of(pos);
    let base = tally.board;
    let empty = !base.occ();
    let persuaded = tally.persuaded();
    let free_conversions = base.colors[ci(!us)] & persuaded[ci(!us)];
    // A king of ours that is safe now. Moves from squares off its footprint
    // cannot change the influence on it by leaving; see `sure` for arriving.
    let safe_king = match Bitboard(base.pieces(Role::King, us) & !persuaded[ci(us)]).first() {
        Some(k) if !noisy_only => Some(base.guard(k, us)),
        _ => None,
    };
    // With nothing of theirs counted on that king, a move of ours other than
    // the king's can give them influence there only by leaving a square on a
    // line through it that holds one of their sliders of the line's kind
    // (arriving adds none to them; then ours do not matter): only those
    // squares of the footprint are related. A bulk count takes that; a list
    // keeps the footprint order for the search.
    let related = match safe_king {
        None => !0,
        Some(g) if S::BULK && g.them() == 0 => {
            let mut open = 0;
            for kind in [RayKind::Orthogonal, RayKind::Diagonal] {
                for s in Bitboard(kind.lines(g.k) & base.sliders(!us, kind)) {
                    open |= attacks::ray(g.k, s).0;
                }
            }
            let king = 1u64 << g.k as u32;
            if open == 0 {
                king
            } else {
                (open & base.footprint(g.k)) | king
            }
        }
        Some(g) => base.footprint(g.k),
    };
    let king_sure = safe_king.map_or(0, |g| tally.king_steps(&g, us) & empty);
    // The arrival squares where a move of the piece (`role`) on `from` leaves
    // that king safe before the cascade, hence legal unjudged (see `consider`).
    // Leaving a footprint square is judged exactly on the board without the
    // piece, once for all its moves.
    let sure = |from: Square, role: Role| -> u64 {
        let Some(g) = safe_king else {
            return 0;
        };
        let bit = 1u64 << from as u32;
        if from == g.k {
            king_sure
        } else if related & bit == 0 {
            !g.risky(role)
        } else {
            !g.risky_after_leaving(&base, from, us, role)
        }
    };

    let consider = |out: &mut dyn MoveSink, mv: Move, role: Role| {
        let mut b = base;
        let changed = b.apply(us, mv, role);
        // The cascade only turns enemy pieces into ours, which never raises their
        // influence nor lowers ours anywhere, and our kings never turn: a king of
        // ours that is safe before the cascade stays safe after it. Then the move
        // is legal without running the cascade (most moves).
        let legal = if !noisy_only && b.has_safe_king(us) {
            true
        } else if !noisy_only
            && free_conversions == 0
            && mv.kind != MoveKind::Castle
            && !b.persuades_any(&base, us, mv)
        {
            // No cascade: the board stays as it is, without a safe king.
            false
        } else {
            let mut after = tally;
            after.change_to(&b, changed);
            let (converted, persuaded) = after.cascade(us);
            let kings = after.board.pieces(Role::King, us);
            kings & !persuaded[ci(us)] != 0
                && (!noisy_only || mv.promotion.is_some() || converted & !free_conversions != 0)
        };
        if legal {
            out.push(mv);
        }
    };
    let is_related = |sq: Square| related & (1u64 << sq as u32) != 0;

    for role in [
        Role::King,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ] {
        for from in mover_order(us, Bitboard(base.pieces(role, us))) {
            let mut targets = piece_attacks(from, role.of(us), Bitboard(base.occ())).0 & empty;
            // The order of the moves (off the footprint first) is kept for the
            // search's move ordering.
            if !is_related(from) {
                out.push_all(us, from, Bitboard(targets & !related));
                targets &= related;
            }
            if targets == 0 {
                continue;
            }
            let sure = sure(from, role);
            if targets & !sure == 0 {
                out.push_all(us, from, Bitboard(targets));
                continue;
            }
            for to in mover_order(us, Bitboard(targets)) {
                let mv = Move::new(MoveKind::Normal, from, to);
                if sure & (1u64 << to as u32) != 0 {
                    out.push(mv);
                } else {
                    consider(out, mv, role);
                }
            }
        }
    }

    let (forward, second, last): (i32, Rank, Rank) = match us {
        Color::White => (8, Rank::Second, Rank::Eighth),
        Color::Black => (-8, Rank::Seventh, Rank::First),
    };
    // Rule 5: no double step across a square overly persuaded for the mover,
    // judged before the move with the pawn still on its square.
    let passed = {
        let pawns = base.pieces(Role::Pawn, us) & Bitboard::from_rank(second).0;
        let (one, two) = match us {
            Color::White => ((pawns << 8) & empty, (pawns << 16) & empty),
            Color::Black => ((pawns >> 8) & empty, (pawns >> 16) & empty),
        };
        let candidates = match us {
            Color::White => one & (two >> 8),
            Color::Black => one & (two << 8),
        };
        candidates & !persuaded[ci(us)]
    };
    let pawn_move = |out: &mut dyn MoveSink, mv: Move, sure: u64| {
        if sure & (1u64 << mv.to as u32) != 0 {
            out.push(mv);
        } else {
            consider(out, mv, Role::Pawn);
        }
    };
    let mut pawns = base.pieces(Role::Pawn, us);
    if S::BULK {
        if let Some(g) = safe_king {
            // Pawns off the footprint share one sure set (see `sure`): their
            // steps are counted together, the others judged one by one.
            let free = pawns & !related;
            pawns &= related;
            let sure = !g.risky(Role::Pawn);
            let ahead = |set: u64| match us {
                Color::White => set << 8,
                Color::Black => set >> 8,
            };
            let one = ahead(free) & empty;
            let two = ahead(one & passed) & empty;
            let promoting = one & Bitboard::from_rank(last).0;
            let one = one & !promoting;
            out.add_all((one | two) & sure);
            let back = |to: Square, by: i32| to.offset(-by).expect("a pawn behind");
            for to in Bitboard(one & !sure) {
                consider(
                    out,
                    Move::new(MoveKind::Normal, back(to, forward), to),
                    Role::Pawn,
                );
            }
            for to in Bitboard(two & !sure) {
                let mv = Move::new(MoveKind::DoublePush, back(to, 2 * forward), to);
                consider(out, mv, Role::Pawn);
            }
            for to in Bitboard(promoting) {
                for promo in PROMOTIONS {
                    let mv = Move::new(MoveKind::Normal, back(to, forward), to);
                    pawn_move(out, mv.with_promotion(promo), sure);
                }
            }
        }
    }
    for from in mover_order(us, Bitboard(pawns)) {
        let Some(one) = from.offset(forward) else {
            continue;
        };
        if !Bitboard(empty).contains(one) {
            continue;
        }
        let sure = sure(from, Role::Pawn);
        if one.rank() == last {
            for promo in PROMOTIONS {
                pawn_move(
                    out,
                    Move::new(MoveKind::Normal, from, one).with_promotion(promo),
                    sure,
                );
            }
            continue;
        }
        pawn_move(out, Move::new(MoveKind::Normal, from, one), sure);
        if passed & (1u64 << one as u32) != 0 {
            if let Some(two) = one.offset(forward) {
                pawn_move(out, Move::new(MoveKind::DoublePush, from, two), sure);
            }
        }
    }

    if !noisy_only {
        // Rule 6: start square judged as it stands, the passed square with the
        // king lifted; the destination by rule 5 after the cascade.
        // The safe king's own squares are known already.
        let king_from = Square::from_coords(File::E, us.backrank());
        let known = safe_king.is_some_and(|g| g.k == king_from);
        let lifted = base.without(1u64 << king_from as u32);
        let mut castles = Castles::default();
        crate::movegen::generate_castling(
            pos,
            &mut castles,
            |sq| {
                if known {
                    sq == king_from || king_sure & (1u64 << sq as u32) != 0
                } else if sq == king_from {
                    persuaded[ci(us)] & (1u64 << sq as u32) == 0
                } else {
                    lifted.safe_for(sq, us)
                }
            },
            |_| true,
        );
        // The destination is judged by the counts as they stand: castling
        // leaves the enemy influence there as it was and ours no smaller. Only
        // the back-rank walks from it see the changed squares; the one towards
        // the corner met our rook (counted, and no enemy piece beyond it) and
        // now meets nothing, the other stopped at our king (a non-slider,
        // counting nothing) and now meets our rook, counted too, with the walk
        // going on through it. The king's start square is no king or knight
        // step from the destination, and the cascade only helps us.
        for &mv in &castles.moves[..castles.len] {
            if persuaded[ci(us)] & (1u64 << mv.to as u32) == 0 {
                out.push(mv);
            } else {
                consider(out, mv, Role::King);
            }
        }
    }
}

/// Where [`generate`] puts moves: a list, or perft's bulk count, which takes
/// sets of moves at once (`add_all`, one per target square) and so may be
/// given moves in any order.
pub trait Sink: MoveSink {
    const BULK: bool;

    /// One move to each square of `targets` (only when `BULK`).
    #[inline]
    fn add_all(&mut self, targets: u64) {
        let _ = targets;
        unreachable!("only bulk sinks take sets");
    }
}

impl Sink for MoveList {
    const BULK: bool = false;
}

/// Perft's bulk count.
impl Sink for MoveCounter {
    const BULK: bool = true;

    #[inline]
    fn add_all(&mut self, targets: u64) {
        self.0 += targets.count_ones() as u64;
    }
}

/// At most two castling moves, judged after generation without allocating.
#[derive(Default)]
struct Castles {
    moves: [Move; 2],
    len: usize,
}

impl MoveSink for Castles {
    fn push(&mut self, mv: Move) {
        self.moves[self.len] = mv;
        self.len += 1;
    }
}

/// The pieces any move of the side to move converts (rule 4 applied to the
/// board as it stands), with the overly persuaded squares of the result.
pub fn pending_conversions(pos: &Position<Pacifist>) -> (Tally, u64, [u64; 2]) {
    let mut t = Tally::of(pos);
    let (converted, persuaded) = t.cascade(pos.turn());
    (t, converted, persuaded)
}

/// Rule 4 for a front end: the pieces `mv` (legal in `pos`) converts, round by
/// round, each round in square order.
pub fn cascade_rounds(pos: &Position<Pacifist>, mv: Move) -> Vec<Vec<Square>> {
    let mut after = *pos;
    after.play_base(mv);
    let mover = pos.turn();
    let mut rounds = Vec::new();
    Tally::of(&after).cascade_by_round(mover, |turning| {
        rounds.push(Bitboard(turning).into_iter().collect());
    });
    rounds
}

// ----- the rulebook -----

impl Variant for Pacifist {
    const NAME: &'static str = "pacifist";
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    /// Rule 1: no en passant, so a double step never leaves a square.
    const EN_PASSANT: bool = false;
    /// docs/RULES.md: insufficient material is not used in Pacifist.
    const INSUFFICIENT_MATERIAL: bool = false;
    /// A cascade can turn pieces to a lone king's side.
    const LONE_KING_CANNOT_MATE: bool = false;
    /// Rule 7: the clock resets on a conversion, and a converted piece can be
    /// converted back (nothing ever leaves the board).
    const CLOCK_RESET_IRREVERSIBLE: bool = false;

    type State = ();
    /// The influence counts, carried from move to move (see [`Tally::of`]).
    type Cache = Tally;

    fn legal_moves(pos: &Position<Self>, out: &mut MoveList) {
        generate(pos, out, false);
    }

    fn count_legal_moves(pos: &Position<Self>, _buf: &mut MoveList) -> u64 {
        let mut counter = MoveCounter::default();
        generate(pos, &mut counter, false);
        counter.0
    }

    /// The chess part, then the cascade (rule 4); the clock resets on a pawn move
    /// (done by `play_base`) and on any conversion (rule 7). The counts of the
    /// result are kept for the next ply.
    fn play(pos: &mut Position<Self>, mv: Move) {
        let parent = *pos.cache();
        let before = Board::of(pos);
        pos.play_base(mv);
        let mover = !pos.turn();
        let board = Board::of(pos);
        // The move changes no piece of the other side (nothing is captured),
        // so their counts change only along their rays through the squares
        // it emptied or filled: those are updated, the mover's counted afresh.
        let mut tally = if parent.board.same(&before) {
            let mut counts = parent.counts;
            counts[ci(mover)] = board.influence_counter(mover);
            let diff = before.occ() ^ board.occ();
            restretch(&before, &board, !mover, diff, &mut counts[ci(!mover)]);
            Tally { board, counts }
        } else {
            Tally::new(board)
        };
        debug_assert_eq!(tally.counts, Tally::new(board).counts, "played counts");
        let (converted, _) = tally.cascade(mover);
        if converted != 0 {
            for sq in Bitboard(converted) {
                pos.recolor(sq, mover);
            }
            pos.set_halfmoves(0);
        }
        debug_assert!(tally.board.same(&Board::of(pos)), "carried board");
        pos.set_cache(tally);
    }

    /// SAN (never a capture), then `~<n>` when the cascade turns n pieces
    /// (docs/RULES.md, "Pacifist: notation").
    fn notation_parts(pos: &Position<Self>, mv: Move, legal: &[Move]) -> Parts {
        let mut parts = Parts::head(crate::notation::san_head(pos, mv, legal));
        let mut after = *pos;
        Self::play(&mut after, mv);
        // Nothing is captured and the mover's pieces never turn: the other
        // side's squares that are the mover's now are the converted ones.
        let n = (pos.them() & after.by_color(pos.turn())).count();
        if n > 0 {
            parts.tail = format!("~{n}");
        }
        parts
    }

    /// The chess part (nothing is captured), then the cascade by rounds.
    fn effects(pos: &Position<Self>, mv: Move) -> Effects {
        let mut fx = chess_effects(pos, mv);
        fx.cascade = cascade_rounds(pos, mv);
        fx.converted = fx.cascade.iter().flatten().copied().collect();
        fx.converted.sort_unstable();
        fx
    }

    /// There is no check. The analogue is having no king: every legal move must
    /// then win one back (rule 7), so the search must not stand pat or pass.
    fn in_check(pos: &Position<Self>) -> bool {
        pos.by_piece(pos.turn().king()).is_empty()
    }

    /// Rule 7: with a king, no legal move is a draw; without one, a loss.
    fn no_legal_moves(pos: &Position<Self>) -> Outcome {
        if pos.by_piece(pos.turn().king()).any() {
            Outcome::Draw {
                reason: "king with no legal move",
            }
        } else {
            Outcome::Win {
                winner: !pos.turn(),
                reason: "all kings converted",
            }
        }
    }

    /// docs/RULES.md: exactly two kings in total; the side not to move must have a king
    /// that is not overly persuaded; no pawn on rank 1 or 8.
    fn validate(pos: &Position<Self>) -> Result<(), FenError> {
        let kings = pos.by_role(Role::King).count();
        if kings != 2 {
            return Err(FenError::PacifistKings { found: kings });
        }
        validate_pawn_ranks(pos, false)?;
        let waiting = !pos.turn();
        let their_kings = pos.by_piece(waiting.king());
        if their_kings.is_empty() {
            return Err(FenError::WaitingSideHasNoKing { color: waiting });
        }
        if (their_kings & !overly_persuaded(pos, waiting)).is_empty() {
            return Err(FenError::WaitingKingsPersuaded { color: waiting });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcuts taken by perft's bulk count and by the carried tally agree
    /// with the move list and a fresh count on random games from busy
    /// positions.
    #[test]
    fn bulk_count_and_carried_tally_on_random_games() {
        let mut seed: u64 = 0x5eed_0fb0_bca7;
        let mut positions = 0;
        for start in [
            Pacifist::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q2/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r2q1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 0 9",
        ] {
            for _ in 0..40 {
                let mut p = crate::fen::parse::<Pacifist>(start).expect("fen");
                for _ in 0..80 {
                    let mut moves = MoveList::new();
                    Pacifist::legal_moves(&p, &mut moves);
                    let counted = Pacifist::count_legal_moves(&p, &mut MoveList::new());
                    assert_eq!(counted, moves.len() as u64, "{}", crate::fen::format(&p));
                    positions += 1;
                    if moves.is_empty() {
                        break;
                    }
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    crate::game::play(&mut p, moves[((seed >> 33) % moves.len() as u64) as usize]);
                    let carried = *p.cache();
                    assert!(carried.board.same(&Board::of(&p)));
                    assert_eq!(carried.counts, Tally::new(Board::of(&p)).counts);
                }
            }
        }
        assert!(positions > 4000, "{positions}");
        println!("{positions} positions");
    }

    /// A counter holding `counts[i]` on square `i` (built with `add`).
    fn counter_of(counts: &[u32]) -> Counter {
        let mut c = Counter::default();
        for (sq, &n) in counts.iter().enumerate() {
            for _ in 0..n {
                c.add(1 << sq);
            }
        }
        c
    }

    /// The production `compare`, on both of its paths: counts below 8 (only the
    /// three low planes are read) and counts of 8 and more (all six), where a
    /// three-plane comparison would see 8 as 0 and 40 as 0.
    #[test]
    fn counter_counts_and_compares() {
        // Square 0: 40 against 39; square 1: 0 against 39.
        let mut a = Counter::default();
        let mut b = Counter::default();
        for _ in 0..40 {
            a.add(1);
        }
        for _ in 0..39 {
            b.add(1 | 2);
        }
        assert_eq!(a.compare(&b), (1, 2));
        assert_eq!(b.compare(&a), (2, 1));
        b.add(1);
        assert_eq!(a.equal_to(&b) & 3, 1);
        assert_eq!(a.compare(&b), (0, 2));
        a.sub(1);
        assert_eq!(a.compare(&b), (0, 3));

        // Low counts only: squares 0..3 hold 5/3, 3/5, 7/7, 0/1.
        let lo_a = counter_of(&[5, 3, 7, 0]);
        let lo_b = counter_of(&[3, 5, 7, 1]);
        assert_eq!(lo_a.compare(&lo_b), (0b0001, 0b1010));
        assert_eq!(lo_b.compare(&lo_a), (0b1010, 0b0001));
        assert_eq!(lo_a.compare(&lo_a), (0, 0));
        assert_eq!(lo_a.equal_to(&lo_b) & 0b1111, 0b0100);

        // Upper planes in use: 8 > 7 on square 0 although 8 has no low bit; 0 < 7
        // on square 1; 16 = 16 on square 2; 2 < 6 on square 3 (a low-count square
        // compared while another square needs the upper planes).
        let hi_a = counter_of(&[8, 0, 16, 2]);
        let hi_b = counter_of(&[7, 7, 16, 6]);
        assert_eq!(hi_a.compare(&hi_b), (0b0001, 0b1010));
        assert_eq!(hi_b.compare(&hi_a), (0b1010, 0b0001));

        // add2 adds both sets: square 0 twice, square 1 once.
        let mut c = Counter::default();
        c.add2(1, 1 | 2);
        assert_eq!(c.compare(&counter_of(&[2, 1])), (0, 0));
        assert_eq!(c.compare(&counter_of(&[1, 1])), (1, 0));
        // Every square beyond the ones used stays at 0 on both sides.
        assert_eq!(c.equal_to(&counter_of(&[2, 1])), !0);
    }
}
