//! Transposition table shared lock-free between search threads.
//!
//! Each entry is two `AtomicU64`: `key ^ data` and `data` (the "xor trick"), so a
//! torn write by another thread is detected as a key mismatch instead of returning
//! garbage. Moves are stored as a 32-bit fingerprint ([`move_fingerprint`]) and
//! resolved against the node's legal moves, because variant moves (missile paths,
//! payment sets) do not fit in the entry.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use turncoat_rules::moves::Move;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Copy, Clone, Debug)]
pub struct Entry {
    pub move_fp: u32,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

pub struct TranspositionTable {
    slots: Vec<Slot>,
    /// The side of the square of slots in use (see [`TranspositionTable::index`]).
    side: u64,
    age: AtomicU8,
}

/// A 32-bit fingerprint of a move (0 is reserved for "no move").
pub fn move_fingerprint(mv: Move) -> u32 {
    if mv.is_null() {
        return 0;
    }
    let mut h = (mv.from as u64)
        | (mv.to as u64) << 6
        | (mv.promotion.map_or(0, |r| r as u64)) << 12
        | (mv.kind as u64) << 15;
    h ^= mv.extra.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h = (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let fp = (h ^ (h >> 32)) as u32;
    fp.max(1)
}

/// Asks Linux to back the table with 2 MB pages (where transparent huge pages
/// are "madvise", as is common, it does not otherwise): every probe lands on a
/// random slot, and with 4 KB pages most probes also missed the TLB. Only the
/// whole 2 MB blocks inside the allocation are advised, since the global
/// allocator's block is not 2 MB aligned; untouched pages stay unallocated.
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    const HUGE_PAGE: usize = 2 << 20;
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + len) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: the range lies inside the allocation just made; madvise
        // with MADV_HUGEPAGE changes no contents, and failure (e.g. a kernel
        // without huge pages) only leaves the default.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _len: usize) {}

/// Why a hash table of the size asked for could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashError {
    /// More bytes than an allocation can hold.
    TooLarge { megabytes: usize },
    /// The allocator refused.
    OutOfMemory { megabytes: usize },
}

impl std::fmt::Display for HashError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HashError::TooLarge { megabytes } => {
                write!(f, "a {megabytes} MB hash table is too large")
            }
            HashError::OutOfMemory { megabytes } => {
                write!(f, "cannot allocate a {megabytes} MB hash table")
            }
        }
    }
}

impl std::error::Error for HashError {}

/// For front ends that still report errors as text.
impl From<HashError> for String {
    fn from(e: HashError) -> String {
        e.to_string()
    }
}

/// The fewest slots a table has, whatever size is asked for.
const MIN_SLOTS: usize = 1024;

impl TranspositionTable {
    /// A table of (at most) `megabytes` MB. Small sizes cannot fail; use
    /// [`TranspositionTable::try_new`] for sizes a user typed.
    pub fn new(megabytes: usize) -> Self {
        Self::try_new(megabytes).unwrap_or_else(|_| Self::try_new(1).expect("a 1 MB table"))
    }

    /// Allocates zeroed memory (the OS hands out zero pages lazily, so a large
    /// table costs nothing until used) and reports failure instead of aborting.
    pub fn try_new(megabytes: usize) -> Result<Self, HashError> {
        let bytes = megabytes.max(1).saturating_mul(1024 * 1024);
        Self::try_with_slots(
            (bytes / std::mem::size_of::<Slot>()).max(MIN_SLOTS),
            megabytes,
        )
    }

    /// A table just big enough for one search of `nodes` nodes (four slots a
    /// node, from 1024 slots to 1 MB), for many short searches that each start
    /// from a cleared table: clearing costs what the table weighs (a 1 MB
    /// table, a tenth of a 1000-node search).
    pub fn for_nodes(nodes: u64) -> Self {
        let most = 1024 * 1024 / std::mem::size_of::<Slot>();
        let n = usize::try_from(nodes.saturating_mul(4))
            .unwrap_or(most)
            .clamp(MIN_SLOTS, most);
        Self::try_with_slots(n, 1).unwrap_or_else(|_| Self::new(1))
    }

    /// `n` zeroed slots; `megabytes` is what an error reports.
    fn try_with_slots(n: usize, megabytes: usize) -> Result<Self, HashError> {
        let layout =
            std::alloc::Layout::array::<Slot>(n).map_err(|_| HashError::TooLarge { megabytes })?;
        // SAFETY: `Slot` is two `AtomicU64`, for which all-zero bytes are a valid
        // value; the pointer comes from the global allocator with the layout of
        // `n` slots, which is what `Vec::from_raw_parts` requires.
        let slots = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout) as *mut Slot;
            if ptr.is_null() {
                return Err(HashError::OutOfMemory { megabytes });
            }
            advise_huge_pages(ptr as *mut u8, layout.size());
            Vec::from_raw_parts(ptr, n, n)
        };
        Ok(TranspositionTable {
            slots,
            side: n.isqrt() as u64,
            age: AtomicU8::new(0),
        })
    }

    /// The size in MB (rounded down).
    pub fn megabytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>() / (1024 * 1024)
    }

    /// Empties the table, writing only to used slots: untouched pages of a big
    /// table stay unallocated.
    pub fn clear(&self) {
        for s in &self.slots {
            if s.data.load(Ordering::Relaxed) != 0 || s.check.load(Ordering::Relaxed) != 0 {
                s.check.store(0, Ordering::Relaxed);
                s.data.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Called once per `go`: older entries become preferred victims.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    /// Starts loading a position's slot into the cache: called as soon as a
    /// child's key is known, so the probe at the child's start rarely waits
    /// for memory.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot: *const Slot = &self.slots[self.index(key)];
            // SAFETY: a prefetch is only a hint and never faults; the pointer
            // is a valid slot.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The slot of `key`: the slots in use form a `side` x `side` square, the
    /// key's high half picks the row and its low half the column. The colour
    /// flip swaps the halves ([`zobrist::flip`]), so a flipped key lands on the
    /// mirrored slot (row and column swapped): two flipped keys share a slot
    /// exactly when the keys do, and a position and its flip meet the same
    /// collisions and replacements. Up to `2 * side` slots (a fraction
    /// `2 / side`: none at 1, 4, 16 ... MB) stay unused.
    ///
    /// [`zobrist::flip`]: turncoat_rules::zobrist::flip
    #[inline]
    fn index(&self, key: u64) -> usize {
        let pick = |half: u64| (half * self.side) >> 32;
        (pick(key >> 32) * self.side + pick(key & 0xffff_ffff)) as usize
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let slot = &self.slots[self.index(key)];
        let data = slot.data.load(Ordering::Relaxed);
        let check = slot.check.load(Ordering::Relaxed);
        if data == 0 || check ^ data != key {
            return None;
        }
        Some(unpack(data))
    }

    pub fn store(&self, key: u64, mv: Move, score: i32, depth: i32, bound: Bound) {
        let slot = &self.slots[self.index(key)];
        let old = slot.data.load(Ordering::Relaxed);
        let age = self.age.load(Ordering::Relaxed) & 0x3f;
        if old != 0 {
            let old_depth = ((old >> 48) & 0xff) as i32 - 1;
            let old_age = ((old >> 58) & 0x3f) as u8;
            // Keep a deeper entry of this search unless this one is exact; a
            // position's own deep entry is not given up for a shallow bound
            // (quiescence revisits positions the main search stored).
            if old_age == age && old_depth > depth + 2 && bound != Bound::Exact {
                return;
            }
        }
        let mut fp = move_fingerprint(mv);
        if fp == 0 && old != 0 && slot.check.load(Ordering::Relaxed) ^ old == key {
            fp = old as u32; // keep the known best move
        }
        let data = pack(fp, score, depth, bound, age);
        slot.check.store(key ^ data, Ordering::Relaxed);
        slot.data.store(data, Ordering::Relaxed);
    }

    /// Permille of slots written in the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed) & 0x3f;
        let sample = self.slots.len().min(1000);
        let used = self.slots[..sample]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && ((d >> 58) & 0x3f) as u8 == age
            })
            .count();
        (used * 1000 / sample) as u32
    }
}

// Layout: move fingerprint 32 | score 16 | depth+1 8 | bound 2 | age 6.
fn pack(fp: u32, score: i32, depth: i32, bound: Bound, age: u8) -> u64 {
    let b = match bound {
        Bound::Exact => 1u64,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    fp as u64
        | ((score.clamp(-32767, 32767) as i16 as u16 as u64) << 32)
        | (((depth + 1).clamp(0, 255) as u64) << 48)
        | (b << 56)
        | ((age as u64 & 0x3f) << 58)
}

fn unpack(data: u64) -> Entry {
    Entry {
        move_fp: data as u32,
        score: (data >> 32) as u16 as i16 as i32,
        depth: ((data >> 48) & 0xff) as i32 - 1,
        bound: match (data >> 56) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    /// Four slots a node, within 1024 slots and 1 MB.
    #[test]
    fn a_table_for_a_node_limit_is_sized_to_it() {
        let slots = |nodes| TranspositionTable::for_nodes(nodes).slots.len();
        assert_eq!(slots(1000), 4000);
        assert_eq!(slots(5000), 20_000);
        assert_eq!(slots(0), 1024);
        assert_eq!(slots(100), 1024);
        assert_eq!(slots(1 << 20), 65_536);
        assert_eq!(slots(u64::MAX), 65_536);
        assert_eq!(TranspositionTable::for_nodes(u64::MAX).megabytes(), 1);
    }

    /// A key and its colour flip land on mirrored slots (row and column of
    /// the square swapped), inside the square, whatever the table's size.
    #[test]
    fn a_flipped_key_lands_on_the_mirrored_slot() {
        let mut key = 0x9e37_79b9_7f4a_7c15u64;
        for (megabytes, side) in [(1, 256), (2, 362), (3, 443), (16, 1024)] {
            let tt = TranspositionTable::new(megabytes);
            assert_eq!(tt.side, side);
            for _ in 0..10_000 {
                key ^= key << 13;
                key ^= key >> 7;
                key ^= key << 17;
                let (i, j) = (tt.index(key), tt.index(key.rotate_left(32)));
                let side = side as usize;
                assert!(i < side * side && j < side * side);
                assert_eq!(j, (i % side) * side + i / side, "{key:#x}");
            }
        }
    }

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        let mv = Move::new(
            turncoat_rules::moves::MoveKind::Normal,
            Square::E2,
            Square::E4,
        );
        tt.store(0x1234_5678_9abc_def0, mv, -315, 7, Bound::Lower);
        let e = tt.probe(0x1234_5678_9abc_def0).expect("entry");
        assert_eq!(e.move_fp, move_fingerprint(mv));
        assert_eq!(e.score, -315);
        assert_eq!(e.depth, 7);
        assert_eq!(e.bound, Bound::Lower);
        assert!(tt.probe(0x1234_5678_9abc_def1).is_none());
    }
}
