//! `turncoat datagen-convert`: data files from one format to the other: text
//! files (older `datagen` runs, scripts/label_positions.py) packed, or packed
//! files written out as text (to read them, or to relabel them with the script).
//!
//! Every position is read as `train` reads it ([`crate::data`]) and written in
//! its canonical FEN, so `train` makes the same network from the input and from
//! the output. Text positions the variant refuses are skipped, as `train` skips
//! them; labels the packed format cannot hold (a score that is not a whole
//! number in i16's range, a result other than 0, 0.5 or 1) are an error naming
//! the line, whichever format is written.

use std::path::Path;

use clap::Args;

use crate::data::{self, Files, Output};
use turncoat_rules::with_variant;

#[derive(Args, Debug, Clone)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub files: Files,
}

pub fn run(args: &ConvertArgs) -> Result<(), String> {
    let (written, skipped) = data::write_beside(&args.files.out, |tmp| convert(args, tmp))?;
    eprintln!(
        "{written} positions written to {}{}",
        args.files.out.display(),
        if skipped > 0 {
            format!(", {skipped} malformed lines skipped")
        } else {
            String::new()
        }
    );
    Ok(())
}

/// Writes the inputs' positions to `path`: how many, and how many were skipped.
fn convert(args: &ConvertArgs, path: &Path) -> Result<(u64, u64), String> {
    let mut out = Output::create(path, args.files.variant, args.files.format)?;
    let (mut written, mut skipped) = (0u64, 0u64);
    let mut bytes = Vec::new();
    for input in &args.files.input {
        with_variant!(args.files.variant, V => data::read::<V>(input, |item| {
            let labelled = match item {
                Ok(labelled) => labelled,
                Err(message) => {
                    skipped += 1;
                    if skipped <= 5 {
                        log::warn!("{message}");
                    }
                    return Ok(());
                }
            };
            let (score, result) = data::packable_labels(labelled.score, labelled.result)
                .map_err(|e| format!("{}:{}: {e}", input.display(), labelled.place))?;
            bytes.clear();
            data::encode(&labelled.pos, score, result, args.files.format, &mut bytes)
                .map_err(|e| format!("{}:{}: {e}", input.display(), labelled.place))?;
            out.write_all(&bytes)?;
            written += 1;
            Ok(())
        }))?;
    }
    out.finish()?;
    Ok((written, skipped))
}
