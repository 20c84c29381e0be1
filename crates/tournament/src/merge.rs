//! `turncoat match-merge`: combines the PGN files of one match's shards
//! (`turncoat match --shard I/N`, played anywhere) into the report of the whole
//! match: the same result lines `turncoat match` prints. Games are placed by their
//! `Round` tag (the game number in the whole match); rounds 2k-1 and 2k are a game
//! pair (one opening, colours swapped).
//!
//! Games that cannot be counted (no `Round` tag, a result other than `1-0`, `0-1`,
//! `1/2-1/2`) are skipped and reported; a game cut off at the end of a file (a
//! shard killed, or out of disk space, while writing it) is dropped, as
//! `--resume` drops it, and reported; files from different matches (variants,
//! time controls, events, seeds or engine pairs) are refused with what differs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;

use super::pgn::{read_pgn, PgnGame};
use super::stats::{Pentanomial, Wdl};

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// PGN files written by `turncoat match --pgn` (e.g. one per shard).
    #[arg(required = true)]
    pub pgn: Vec<PathBuf>,
}

/// The merged report: the result lines, and notes about skipped games (for
/// stderr).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    pub lines: Vec<String>,
    pub notes: Vec<String>,
}

/// What identifies a match in each game's tags: a merge needs one value of each.
/// (Shards of different seeds have other openings under the same game numbers.)
const MATCH_TAGS: [(&str, &str); 4] = [
    ("Variant", "variants"),
    ("TimeControl", "time controls"),
    (
        "Event",
        "events (the event names the variant and time control)",
    ),
    ("Seed", "seeds (of the random openings)"),
];

fn tag_or<'a>(g: &'a PgnGame, key: &str) -> &'a str {
    match (key, g.tag(key)) {
        ("Variant", None) => "chess",
        (_, Some(v)) => v,
        (_, None) => "-",
    }
}

/// The games of one file, and whether a game cut off at its end was dropped:
/// when the text does not read as PGN but does up to the last game's tags, that
/// last game is the one being written when the shard stopped.
fn read_games(text: &str) -> Result<(Vec<PgnGame>, bool), String> {
    let e = match read_pgn(text) {
        Ok(games) => return Ok((games, false)),
        Err(e) => e,
    };
    match last_game_start(text) {
        Some(start) => match read_pgn(&text[..start]) {
            Ok(games) => Ok((games, true)),
            Err(_) => Err(e.to_string()),
        },
        None => Err(e.to_string()),
    }
}

/// Where the last game's tag section starts: the last tag line (`[` at the start
/// of a line) that does not follow another tag line.
fn last_game_start(text: &str) -> Option<usize> {
    let mut start = None;
    let mut after_tag = false;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let is_tag = line.starts_with('[');
        if is_tag && !after_tag {
            start = Some(at);
        }
        after_tag = is_tag;
        at += line.len();
    }
    start
}

/// Merges `(file name, PGN text)` pairs.
pub fn merge(files: &[(String, String)]) -> Result<Merged, String> {
    // (round, file, game) of every countable game; skipped games by reason.
    let mut games: BTreeMap<u64, (String, PgnGame)> = BTreeMap::new();
    let mut skipped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut first: Option<(String, PgnGame)> = None;
    let mut notes = Vec::new();
    for (name, text) in files {
        let (parsed, cut) = read_games(text).map_err(|e| format!("{name}: {e}"))?;
        if cut {
            notes.push(format!(
                "dropped 1 unfinished game at the end of {name} (cut off while it was written)"
            ));
        }
        for (k, g) in parsed.into_iter().enumerate() {
            let at = format!("{name} game {}", k + 1);
            let Some(round) = g.tag("Round") else {
                skipped
                    .entry("no Round tag".to_string())
                    .or_default()
                    .push(at);
                continue;
            };
            let Ok(round) = round.trim().parse::<u64>() else {
                skipped
                    .entry(format!("Round tag '{round}' is not a game number"))
                    .or_default()
                    .push(at);
                continue;
            };
            let result = g.tag("Result").unwrap_or("");
            if !["1-0", "0-1", "1/2-1/2"].contains(&result) {
                skipped
                    .entry(format!("result '{result}' is not 1-0, 0-1 or 1/2-1/2"))
                    .or_default()
                    .push(at);
                continue;
            }
            // One match: the same variant, time control, event and engine pair.
            if let Some((first_at, f)) = &first {
                for (key, what) in MATCH_TAGS {
                    let (a, b) = (tag_or(f, key), tag_or(&g, key));
                    if a != b {
                        return Err(format!(
                            "cannot merge different matches: {what} differ: {first_at} has {key} \"{a}\", {at} has {key} \"{b}\""
                        ));
                    }
                }
                let pair = |x: &PgnGame| {
                    let mut v = [
                        tag_or(x, "White").to_string(),
                        tag_or(x, "Black").to_string(),
                    ];
                    v.sort();
                    v
                };
                if pair(f) != pair(&g) {
                    let p = pair(f);
                    return Err(format!(
                        "cannot merge different engine pairs: {first_at} is {} vs {}, {at} is {} vs {} \
                         (match-merge combines the games of two engines)",
                        p[0],
                        p[1],
                        tag_or(&g, "White"),
                        tag_or(&g, "Black")
                    ));
                }
            } else {
                first = Some((at.clone(), g.clone()));
            }
            if let Some((other, _)) = games.get(&round) {
                return Err(format!(
                    "game {round} is in both {other} and {at}: the files overlap (the same shard twice?)"
                ));
            }
            games.insert(round, (at, g));
        }
    }
    let n_skipped: usize = skipped.values().map(Vec::len).sum();
    if n_skipped > 0 {
        notes.push(format!("skipped {n_skipped} games that cannot be counted:"));
        for (why, at) in &skipped {
            let shown: Vec<&str> = at.iter().take(5).map(String::as_str).collect();
            notes.push(format!(
                "  {} with {why} ({}{})",
                at.len(),
                shown.join(", "),
                if at.len() > shown.len() { ", ..." } else { "" }
            ));
        }
    }
    let Some((_, lowest)) = games.values().next() else {
        return Err(format!(
            "no usable games in {}{}",
            files
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            if n_skipped > 0 {
                format!(" ({})", notes.join(" ").trim())
            } else {
                String::new()
            }
        ));
    };
    // The report is from the view of the first game's White, as the runner's is.
    let a = tag_or(lowest, "White").to_string();
    let o = tag_or(lowest, "Black").to_string();
    let score = |g: &PgnGame| -> f64 {
        let s = match g.tag("Result") {
            Some("1-0") => 1.0,
            Some("0-1") => 0.0,
            _ => 0.5,
        };
        if tag_or(g, "White") == a {
            s
        } else {
            1.0 - s
        }
    };
    let mut wdl = Wdl::default();
    let mut ptnml = Pentanomial::default();
    let mut unpaired = 0;
    let rounds: Vec<(u64, f64)> = games.iter().map(|(&r, (_, g))| (r, score(g))).collect();
    for &(_, s) in &rounds {
        if s == 1.0 {
            wdl.wins += 1;
        } else if s == 0.0 {
            wdl.losses += 1;
        } else {
            wdl.draws += 1;
        }
    }
    let mut i = 0;
    while i < rounds.len() {
        let (round, s) = rounds[i];
        if round % 2 == 1 && i + 1 < rounds.len() && rounds[i + 1].0 == round + 1 {
            ptnml.add_pair(s, rounds[i + 1].1);
            i += 2;
        } else {
            unpaired += 1;
            i += 1;
        }
    }
    let mut lines = vec![wdl.score_line(&a, &o), wdl.elo_line()];
    if ptnml.pairs() > 0 {
        lines.push(ptnml.line());
    }
    if unpaired > 0 {
        notes.push(format!(
            "{unpaired} games without their pair are counted in the score only"
        ));
    }
    Ok(Merged { lines, notes })
}

pub fn run(args: MergeArgs) -> Result<(), String> {
    let mut files = Vec::new();
    for p in &args.pgn {
        let text = std::fs::read_to_string(p)
            .map_err(|e| format!("cannot read '{}': {e}", p.display()))?;
        files.push((p.display().to_string(), text));
    }
    let merged = merge(&files)?;
    for note in &merged.notes {
        eprintln!("{note}");
    }
    for line in &merged.lines {
        println!("{line}");
    }
    Ok(())
}
