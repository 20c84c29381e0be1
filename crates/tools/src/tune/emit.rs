//! Prints fitted parameters as the Rust source of `crates/engine/src/eval/mod.rs`'s tables and
//! `DEFAULT_WEIGHTS`, in the file's own layout, ready to paste over it.

use std::fmt::Write as _;

use turncoat_engine::eval::{param, scalar_weights, weights_of, Weights, S};

const ROLE_NAMES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];

fn s(v: S) -> String {
    format!("S({}, {})", v.0, v.1)
}

fn material(out: &mut String, name: &str, p: &[S], part: fn(S) -> i32) {
    let values: Vec<String> = (0..6)
        .map(|r| part(p[param::MATERIAL + r]).to_string())
        .collect();
    let _ = writeln!(out, "const {name}: [i32; 6] = [{}];", values.join(", "));
}

fn pst(out: &mut String, name: &str, p: &[S], part: fn(S) -> i32) {
    let _ = writeln!(out, "#[rustfmt::skip]");
    let _ = writeln!(out, "const {name}: [[i32; 64]; 6] = [");
    for (role, role_name) in ROLE_NAMES.iter().enumerate() {
        let _ = writeln!(out, "    // {role_name}");
        for row in 0..8 {
            let cells: Vec<String> = (0..8)
                .map(|col| format!("{:3}", part(p[param::PST + 64 * role + 8 * row + col])))
                .collect();
            let open = if row == 0 { "    [" } else { "     " };
            let close = if row == 7 { "]," } else { "," };
            let _ = writeln!(out, "{open}{}{close}", cells.join(", "));
        }
    }
    let _ = writeln!(out, "];");
}

/// The source text of `MATERIAL_MG`, `MATERIAL_EG`, `PST_MG`, `PST_EG` and
/// `DEFAULT_WEIGHTS` for parameters `p`; `king_attack` comes from `base`.
pub fn rust_source(p: &[S], base: &Weights) -> String {
    let mg = |v: S| v.0;
    let eg = |v: S| v.1;
    let mut out = String::new();
    material(&mut out, "MATERIAL_MG", p, mg);
    material(&mut out, "MATERIAL_EG", p, eg);
    out.push('\n');
    pst(&mut out, "PST_MG", p, mg);
    out.push('\n');
    pst(&mut out, "PST_EG", p, eg);
    out.push('\n');
    let mut w = weights_of(p, base);
    let list = |v: &[S]| v.iter().map(|&x| s(x)).collect::<Vec<_>>();
    let _ = writeln!(out, "pub const DEFAULT_WEIGHTS: Weights = Weights {{");
    let _ = writeln!(out, "    mobility: [{}],", list(&w.mobility).join(", "));
    let _ = writeln!(out, "    passed: [");
    for v in list(&w.passed) {
        let _ = writeln!(out, "        {v},");
    }
    let _ = writeln!(out, "    ],");
    for (name, _, v) in scalar_weights(&mut w) {
        let _ = writeln!(out, "    {name}: {},", s(*v));
    }
    let _ = writeln!(out, "    safe_check: [{}],", list(&w.safe_check).join(", "));
    let attack: Vec<String> = w.king_attack.iter().map(|a| a.to_string()).collect();
    let _ = writeln!(out, "    king_attack: [{}],", attack.join(", "));
    let _ = writeln!(out, "}};");
    out
}
