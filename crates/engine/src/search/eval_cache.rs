//! A small per-thread cache of the hand-written evaluation's scores.
//!
//! The hand-written evaluation is computed from scratch at every node, and a
//! search meets the same positions again and again (the next iteration, a
//! re-search, transpositions, quiescence after the main search's horizon).
//! A direct-mapped table small enough to stay in the core's L2 cache answers
//! those from memory. The network needs none: its accumulators are updated
//! incrementally and its last layer is cheap; a residual network's base, the
//! hand-set evaluation it corrects, is cached here all the same.

/// Entries: 16,384 of 8 bytes, 128 KB.
const ENTRIES: usize = 1 << 14;
/// The low half of an entry when it holds no score (no evaluation is
/// `i32::MIN`).
const EMPTY: u32 = i32::MIN as u32;

/// Each entry is the key's high 32 bits and the score; the slot is chosen by
/// the key's low bits, so 46 of the key's 64 bits must agree for a hit.
pub struct EvalCache {
    entries: Box<[u64]>,
}

impl Default for EvalCache {
    fn default() -> Self {
        EvalCache {
            entries: vec![u64::from(EMPTY); ENTRIES].into_boxed_slice(),
        }
    }
}

impl EvalCache {
    /// The score stored for `key`, if any.
    #[inline]
    pub fn get(&self, key: u64) -> Option<i32> {
        let entry = self.entries[key as usize & (ENTRIES - 1)];
        let score = entry as u32;
        (entry >> 32 == key >> 32 && score != EMPTY).then_some(score as i32)
    }

    #[inline]
    pub fn put(&mut self, key: u64, score: i32) {
        debug_assert!(score != i32::MIN);
        self.entries[key as usize & (ENTRIES - 1)] = (key >> 32) << 32 | u64::from(score as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_is_found_only_under_its_own_key() {
        let mut cache = EvalCache::default();
        let key = 0x1234_5678_9abc_def0u64;
        assert_eq!(cache.get(key), None);
        cache.put(key, -315);
        assert_eq!(cache.get(key), Some(-315));
        // Same slot, another position: a miss, then it takes the slot.
        let other = key ^ (1 << 40);
        assert_eq!(cache.get(other), None);
        cache.put(other, 0);
        assert_eq!(cache.get(other), Some(0));
        assert_eq!(cache.get(key), None);
        // A fresh cache answers nothing, not even for a key of all zeros.
        assert_eq!(EvalCache::default().get(0), None);
        assert_eq!(EvalCache::default().get(u64::MAX), None);
    }
}
