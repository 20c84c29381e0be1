//! `turncoat match-merge`: combines the PGN files of match shards played anywhere
//! (e.g. `turncoat match --seed S --pgn shard-S.pgn` on several machines) into one
//! Elo and pentanomial report. Games pair up as the runner plays them: rounds
//! 2k-1 and 2k of a file share an opening with colours swapped.

use std::path::PathBuf;

use clap::Args;

use super::pgn::{read_pgn, PgnGame};
use super::stats::{Pentanomial, Wdl};

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// PGN files written by `turncoat match --pgn`.
    #[arg(required = true)]
    pub pgn: Vec<PathBuf>,
}

/// Score of `player` in `game` (1, 0.5, 0), or `None` if not in it / unfinished.
fn score_of(game: &PgnGame, player: &str) -> Option<f64> {
    let white = game.tag("White")? == player;
    let black = game.tag("Black")? == player;
    if !white && !black {
        return None;
    }
    let s = match game.tag("Result")? {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" => 0.5,
        _ => return None,
    };
    Some(if white { s } else { 1.0 - s })
}

/// The merged report lines, from the point of view of the first file's White
/// player of round 1.
pub fn merge(files: &[(String, String)]) -> Result<Vec<String>, String> {
    let mut players: Option<(String, String)> = None;
    let mut wdl = Wdl::default();
    let mut ptnml = Pentanomial::default();
    let mut unpaired = 0;
    for (name, text) in files {
        let mut games = read_pgn(text).map_err(|e| format!("{name}: {e}"))?;
        games.sort_by_key(|g| {
            g.tag("Round")
                .and_then(|r| r.parse::<u32>().ok())
                .unwrap_or(0)
        });
        for g in &games {
            let (w, b) = (g.tag("White").unwrap_or(""), g.tag("Black").unwrap_or(""));
            let (a, o) = players
                .get_or_insert_with(|| (w.to_string(), b.to_string()))
                .clone();
            if !((w == a && b == o) || (w == o && b == a)) {
                return Err(format!(
                    "{name}: game {} is {w} vs {b}, but the merge is {a} vs {o} (two engines only)",
                    g.tag("Round").unwrap_or("?")
                ));
            }
        }
        let Some((a, _)) = players.clone() else {
            continue;
        };
        let scores: Vec<(u32, f64)> = games
            .iter()
            .filter_map(|g| Some((g.tag("Round")?.parse().ok()?, score_of(g, &a)?)))
            .collect();
        for &(_, s) in &scores {
            if s == 1.0 {
                wdl.wins += 1;
            } else if s == 0.0 {
                wdl.losses += 1;
            } else {
                wdl.draws += 1;
            }
        }
        let mut i = 0;
        while i < scores.len() {
            let (round, s) = scores[i];
            if round % 2 == 1 && i + 1 < scores.len() && scores[i + 1].0 == round + 1 {
                ptnml.add_pair(s, scores[i + 1].1);
                i += 2;
            } else {
                unpaired += 1;
                i += 1;
            }
        }
    }
    let Some((a, o)) = players else {
        return Err("no games in the given files".to_string());
    };
    let mut lines = vec![wdl.score_line(&a, &o), wdl.elo_line()];
    if ptnml.pairs() > 0 {
        lines.push(ptnml.line());
    }
    if unpaired > 0 {
        lines.push(format!(
            "({unpaired} games without their pair are counted in the score only)"
        ));
    }
    Ok(lines)
}

pub fn run(args: MergeArgs) -> Result<(), String> {
    let mut files = Vec::new();
    for p in &args.pgn {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        files.push((p.display().to_string(), text));
    }
    for line in merge(&files)? {
        println!("{line}");
    }
    Ok(())
}
