//! `--shard I/N`: one part of a series of numbered games, so that a long run
//! (a match, a data generation) can be split over machines. Game `g` of a
//! series is the same wherever it is played (its opening comes from the seed and
//! `g`), so the N parts together are the unsharded run. The match runner numbers
//! game pairs, `datagen` games; both keep the numbers `g` with `g mod N = I - 1`.

use std::fmt;
use std::str::FromStr;

/// Part `index` (1-based) of `count`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Whether number `g` (0-based) of the series belongs to this part.
    pub fn includes(&self, g: u64) -> bool {
        // `count` fits in u64 wherever usize does.
        g % self.count as u64 == (self.index - 1) as u64
    }
}

/// A `--shard` argument that is not `I/N` with `1 <= I <= N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardError {
    /// The argument as given.
    pub found: String,
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad shard '{}': expected I/N with 1 <= I <= N, e.g. 2/4",
            self.found
        )
    }
}

impl std::error::Error for ShardError {}

impl From<ShardError> for String {
    fn from(e: ShardError) -> String {
        e.to_string()
    }
}

impl FromStr for Shard {
    type Err = ShardError;
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError {
            found: s.to_string(),
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_i_of_n_and_refuses_the_rest() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(" 1 / 1 ".parse(), Ok(Shard { index: 1, count: 1 }));
        for bad in ["0/4", "5/4", "1/0", "2", "a/4", "2/b", "-1/4", "", "1/2/3"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("bad shard '{bad}': expected I/N with 1 <= I <= N, e.g. 2/4")
            );
        }
        assert_eq!(Shard { index: 3, count: 7 }.to_string(), "3/7");
    }

    /// The N parts split the numbers between them: each number in exactly one.
    #[test]
    fn the_parts_partition_the_numbers() {
        let n = 3;
        let parts: Vec<Shard> = (1..=n).map(|index| Shard { index, count: n }).collect();
        for g in 0..20u64 {
            let owners: Vec<usize> = parts
                .iter()
                .filter(|s| s.includes(g))
                .map(|s| s.index)
                .collect();
            assert_eq!(owners, vec![(g % 3) as usize + 1], "game {g}");
        }
        assert!((0..5).all(|g| Shard { index: 1, count: 1 }.includes(g)));
    }
}
