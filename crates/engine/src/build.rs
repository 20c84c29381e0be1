//! What names this build: its version, commit and date (set by build.rs).

/// The package version (semantic versioning).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The commit the build was made from (7 hex digits), if known.
pub const COMMIT: Option<&str> = non_empty(env!("TURNCOAT_COMMIT"));

/// The commit's date (YYYY-MM-DD), if known.
pub const DATE: Option<&str> = non_empty(env!("TURNCOAT_DATE"));

/// `Turncoat 1.0.0` for the tagged release `v1.0.0`, `Turncoat
/// 1.0.0-dev-abc1234` for any other commit (as Stockfish names its
/// development builds), the version alone where the commit is not known.
pub const NAME: &str = env!("TURNCOAT_NAME");

const fn non_empty(s: &'static str) -> Option<&'static str> {
    if s.is_empty() {
        None
    } else {
        Some(s)
    }
}

/// The `--version` line's text after the program name: `1.0.0 (abc1234
/// 2026-12-10)`, or the version alone where the commit is not known.
pub fn version_line() -> String {
    match (COMMIT, DATE) {
        (Some(c), Some(d)) => format!("{VERSION} ({c} {d})"),
        (Some(c), None) => format!("{VERSION} ({c})"),
        _ => VERSION.to_string(),
    }
}
