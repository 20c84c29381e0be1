//! UCI options: their declarations (printed after `uci`) and `setoption` parsing.
//! Names are matched case-insensitively, as Stockfish does.

use turncoat_engine::nnue::{self, Network};
use turncoat_rules::variants::VariantKind;

pub const HASH_MAX_MB: usize = 65_536;
pub use turncoat_engine::THREADS_MAX;

#[derive(Clone, Debug)]
pub struct EngineOptions {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead: u64,
    pub ponder: bool,
    pub variant: VariantKind,
    pub variant_eval: bool,
    /// Evaluate with the variant's network where it has one (UCI `Use NNUE`, as
    /// Stockfish); the hand-written evaluation otherwise.
    pub use_nnue: bool,
    /// A network read from a file (UCI `EvalFile`, as Stockfish's): it
    /// evaluates in place of the variant's own, in every variant, while `Use
    /// NNUE` is on; `None` (`<embedded>`) leaves each variant its shipped one.
    pub eval_file: Option<EvalFile>,
}

/// The file `EvalFile` names and the network read from it.
#[derive(Clone, Debug)]
pub struct EvalFile {
    pub path: String,
    pub network: &'static Network,
}

/// `EvalFile`'s value that means the variant's own network (and its default).
pub const EMBEDDED: &str = "<embedded>";

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            move_overhead: 10,
            ponder: false,
            variant: VariantKind::Chess,
            variant_eval: true,
            use_nnue: true,
            eval_file: None,
        }
    }
}

/// What a successful `setoption` asks the engine to do beyond storing a value.
#[derive(Debug, PartialEq, Eq)]
pub enum Effect {
    None,
    ResizeHash,
    ClearHash,
    VariantChanged,
    /// `EvalFile` read a network (or went back to the embedded ones): the
    /// front end says which.
    NetworkChanged,
}

/// The `option ...` lines of the `uci` answer.
pub fn declarations() -> Vec<String> {
    let d = EngineOptions::default();
    let mut variants = format!(
        "option name UCI_Variant type combo default {}",
        d.variant.name()
    );
    for v in VariantKind::ALL {
        variants.push_str(" var ");
        variants.push_str(v.name());
    }
    vec![
        format!(
            "option name Hash type spin default {} min 1 max {HASH_MAX_MB}",
            d.hash_mb
        ),
        format!(
            "option name Threads type spin default {} min 1 max {THREADS_MAX}",
            d.threads
        ),
        format!(
            "option name MultiPV type spin default {} min 1 max 256",
            d.multipv
        ),
        format!(
            "option name Move Overhead type spin default {} min 0 max 5000",
            d.move_overhead
        ),
        "option name Clear Hash type button".to_string(),
        "option name Ponder type check default false".to_string(),
        variants,
        "option name VariantEval type check default true".to_string(),
        "option name Use NNUE type check default true".to_string(),
        format!("option name EvalFile type string default {EMBEDDED}"),
    ]
}

/// Splits `setoption name <name...> [value <value...>]` (tokens after `setoption`).
pub fn split_setoption(args: &[&str]) -> Result<(String, Option<String>), String> {
    if args.first() != Some(&"name") {
        return Err("setoption expects 'name <option> [value <value>]'".to_string());
    }
    let value_at = args.iter().position(|&t| t == "value");
    let name_end = value_at.unwrap_or(args.len());
    let name = args[1..name_end].join(" ");
    if name.is_empty() {
        return Err("setoption without an option name".to_string());
    }
    let value = value_at.map(|i| args[i + 1..].join(" "));
    Ok((name, value))
}

fn spin(name: &str, value: Option<&str>, min: u64, max: u64) -> Result<u64, String> {
    let v = value.ok_or_else(|| format!("option {name} needs a value"))?;
    let n: u64 = v
        .trim()
        .parse()
        .map_err(|_| format!("option {name}: '{v}' is not a number"))?;
    if n < min || n > max {
        return Err(format!("option {name}: {n} is outside {min}..{max}"));
    }
    Ok(n)
}

fn check(name: &str, value: Option<&str>) -> Result<bool, String> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(format!("option {name} expects true or false")),
    }
}

/// The `UCI_Variant` combo's entry named `value` regardless of case, as
/// Stockfish compares combo values (`Pacifist` is `pacifist`); the canonical
/// name is what is kept.
fn variant_named(value: &str) -> Result<VariantKind, String> {
    VariantKind::ALL
        .iter()
        .copied()
        .find(|v| v.name().eq_ignore_ascii_case(value))
        .ok_or_else(|| {
            format!(
                "unknown variant '{value}' (known: {})",
                VariantKind::names()
            )
        })
}

impl EngineOptions {
    /// Applies one `setoption`; on error nothing changes.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Effect, String> {
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                self.hash_mb = spin(name, value, 1, HASH_MAX_MB as u64)? as usize;
                Ok(Effect::ResizeHash)
            }
            "threads" => {
                self.threads = spin(name, value, 1, THREADS_MAX as u64)? as usize;
                Ok(Effect::None)
            }
            "multipv" => {
                self.multipv = spin(name, value, 1, 256)? as usize;
                Ok(Effect::None)
            }
            "move overhead" => {
                self.move_overhead = spin(name, value, 0, 5000)?;
                Ok(Effect::None)
            }
            "clear hash" => Ok(Effect::ClearHash),
            "ponder" => {
                self.ponder = check(name, value)?;
                Ok(Effect::None)
            }
            "varianteval" => {
                self.variant_eval = check(name, value)?;
                Ok(Effect::None)
            }
            "use nnue" => {
                self.use_nnue = check(name, value)?;
                Ok(Effect::None)
            }
            "evalfile" => {
                let path = value.map(str::trim).unwrap_or("");
                self.eval_file = if path.is_empty() || path.eq_ignore_ascii_case(EMBEDDED) {
                    None
                } else {
                    Some(EvalFile {
                        path: path.to_string(),
                        network: nnue::load_file(std::path::Path::new(path))
                            .map_err(|e| format!("EvalFile '{path}': {e}"))?,
                    })
                };
                Ok(Effect::NetworkChanged)
            }
            "uci_variant" => {
                let v = value.ok_or_else(|| format!("option {name} needs a value"))?;
                self.variant = variant_named(v.trim())?;
                Ok(Effect::VariantChanged)
            }
            _ => Err(format!("unknown option '{name}'")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setoption_parsing() {
        let (n, v) = split_setoption(&["name", "Move", "Overhead", "value", "30"]).unwrap();
        assert_eq!((n.as_str(), v.as_deref()), ("Move Overhead", Some("30")));
        let mut o = EngineOptions::default();
        assert_eq!(o.set(&n, v.as_deref()), Ok(Effect::None));
        assert_eq!(o.move_overhead, 30);
        assert!(o.set("Hash", Some("0")).is_err());
        assert_eq!(o.hash_mb, 16);
        assert!(o.set("Frobnicate", Some("1")).is_err());
        assert!(o.set("UCI_Variant", Some("nonsense")).is_err());
        assert_eq!(o.variant, VariantKind::Chess);
    }
}
