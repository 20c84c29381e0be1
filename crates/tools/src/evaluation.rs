//! The evaluation a tool's searches score with (`datagen`, `relabel`): the
//! variant's embedded network, a network file, or the hand-written evaluation.

use std::path::PathBuf;

use clap::Args;

use turncoat_engine::nnue;
use turncoat_engine::search::Options;

#[derive(Args, Debug, Clone, Default)]
pub struct Evaluation {
    /// Search with the hand-written evaluation and its hand-set values, not
    /// the variant's network: data that owes nothing to any network or other
    /// engine, the first generation of a lineage trained only on Turncoat's
    /// own search. (In chess this is not `Use NNUE` off: chess's tuned values
    /// were fitted partly to Stockfish's scores.)
    #[arg(long)]
    pub hand_written: bool,
    /// Search with this network (a `turncoat train` file) instead of the
    /// variant's embedded one: the last generation's network, without building
    /// it into the engine.
    #[arg(long, value_name = "FILE", conflicts_with = "hand_written")]
    pub eval_file: Option<PathBuf>,
}

impl Evaluation {
    /// The search options that evaluate so; a network file is read here,
    /// once a run, and a bad one stops the run before any search.
    pub fn options(&self) -> Result<Options, String> {
        let network = self
            .eval_file
            .as_ref()
            .map(|path| {
                nnue::load_file(path).map_err(|e| format!("--eval-file {}: {e}", path.display()))
            })
            .transpose()?;
        Ok(Options {
            use_nnue: !self.hand_written,
            hand_set_eval: self.hand_written,
            network,
            ..Options::default()
        })
    }
}
