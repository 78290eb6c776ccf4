//! What old targets and ISA versions change in an instruction's meaning (ISA 8.5 text).
//!
//! - **`.target sm_1x`**: "Single-precision instructions support subnormal inputs and results by
//!   default for sm_20 and subsequent targets, and flush subnormal inputs and results to
//!   sign-preserving zero for sm_1x targets" (§9.7.3); the same for `set`/`setp`/`slct`
//!   (§9.7.6) and `cvt` (§9.7.9.21, where `.ftz` "is implied" on sm_1x). So every
//!   single-precision instruction that takes `.ftz` means its `.ftz` form there. ptxas 13.5
//!   compiles `.target sm_13` code that way for sm_80 (FADD.FTZ, FMUL.FTZ, FMNMX.FTZ,
//!   FSETP.FTZ, FRND.FTZ; `cvt.f64.f32` flushes its input). The cvt errata of ISA ≤ 1.4 is kept:
//!   there a cvt with a 64-bit source or destination type did not flush (§9.7.9.21 notes).
//! - **`mad.f32` without a rounding modifier** (§9.7.3.7): for sm_1x it is the truncating
//!   multiply-add, which "when JIT-compiled for SM 2.0 devices ... is implemented as
//!   fma.rn.ftz.f32" — what every GPU since runs (ptxas 13.5: FFMA.FTZ). For sm_20 and later
//!   targets a rounding modifier is required; PTX ISA ≤ 3.0 "silently defaults to mad.rn.f32",
//!   3.1 warns and does the same, later versions are an error (ptxas 13.5 agrees on each).
//! - **PTX ISA 1.0–1.3 defaults** (§9.7.3.8, .13, .15–.21 PTX ISA notes): `div/rcp/sqrt/rsqrt/
//!   sin/cos/lg2/ex2.f32` without a modifier are their `.approx.ftz` forms, `div/rcp/sqrt.f64`
//!   `.rn`, `rsqrt.f64` `.approx`. Later versions require the modifier.

use crate::function::LResult;
use ptxcross_frontend::ast::{self, Instruction, ScalarType};
use ptxcross_frontend::Diagnostic;

/// The module facts the rules above depend on.
#[derive(Clone, Copy, Debug)]
pub struct Legacy {
    /// `.target sm_10` … `sm_13`.
    pub sm_1x: bool,
    /// `.version major.minor` (8.5 where the module has none).
    pub version: (u32, u32),
}

impl Default for Legacy {
    fn default() -> Legacy {
        Legacy { sm_1x: false, version: (8, 5) }
    }
}

impl Legacy {
    pub fn of(module: &ast::Module) -> Legacy {
        let sm_1x = module.target.iter().any(|t| matches!(t.as_str(), "sm_10" | "sm_11" | "sm_12" | "sm_13"));
        Legacy { sm_1x, version: module.version.unwrap_or((8, 5)) }
    }

    /// `inst` as the target and version make it mean, spelled with today's modifiers, or `None`
    /// when it already means what it says.
    pub fn rewrite(self, inst: &Instruction) -> LResult<Option<Instruction>> {
        let defaulted = self.ptx13_defaults(inst);
        let inst = defaulted.as_ref().unwrap_or(inst);
        Ok(self.target_form(inst)?.or(defaulted))
    }

    /// The PTX 1.0–1.3 default spelled out, or `None`.
    fn ptx13_defaults(self, inst: &Instruction) -> Option<Instruction> {
        let op = inst.opcode.name.as_str();
        if self.version > (1, 3) || !matches!(op, "div" | "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2") {
            return None;
        }
        let has = |x: &str| inst.modifiers.iter().any(|m| m.text == x);
        if ["approx", "full", "rn", "rz", "rm", "rp"].iter().any(|x| has(x)) {
            return None;
        }
        let added: &[&str] = if has("f32") {
            if has("ftz") { &["approx"] } else { &["approx", "ftz"] }
        } else if has("f64") {
            match op {
                "rsqrt" => &["approx"],
                "div" | "rcp" | "sqrt" => &["rn"],
                _ => return None,
            }
        } else {
            return None;
        };
        let mut s = inst.clone();
        for (i, text) in added.iter().enumerate() {
            s.modifiers.insert(i, ast::Modifier { text: (*text).into(), span: inst.opcode.span });
        }
        Some(s)
    }

    /// What the target (sm_1x) and version make of `mad.f32` and single-precision subnormals.
    fn target_form(self, inst: &Instruction) -> LResult<Option<Instruction>> {
        let op = inst.opcode.name.as_str();
        let has = |m: &str| inst.modifiers.iter().any(|x| x.text == m);
        let types: Vec<ScalarType> = inst.modifiers.iter().filter_map(|m| ScalarType::from_suffix(&m.text)).collect();
        let mut implied: Vec<&str> = Vec::new();
        let rounded = ["rn", "rz", "rm", "rp"].iter().any(|r| has(r));
        if op == "mad" && types == [ScalarType::F32] && !rounded {
            if self.sm_1x || self.version <= (3, 1) {
                implied.push("rn");
            } else {
                return Err(Diagnostic::new(
                    "`mad.f32` needs a rounding modifier (`.rn`, `.rz`, `.rm` or `.rp`) for sm_20 and later targets from PTX ISA 3.2 on (§9.7.3.7)",
                    inst.span,
                ));
            }
        }
        if self.sm_1x && !has("ftz") && self.implies_ftz(op, &types) {
            implied.push("ftz");
        }
        if implied.is_empty() {
            return Ok(None);
        }
        let mut s = inst.clone();
        // Before the type modifiers, where the grammar puts them (only `Mods::name` cares).
        let at = s.modifiers.iter().position(|m| ScalarType::from_suffix(&m.text).is_some()).unwrap_or(s.modifiers.len());
        for (i, m) in implied.into_iter().enumerate() {
            s.modifiers.insert(at + i, ast::Modifier { text: m.into(), span: inst.opcode.span });
        }
        Ok(Some(s))
    }

    /// Whether `op` with these type modifiers is a single-precision instruction that takes
    /// `.ftz` (on sm_1x it always flushes).
    fn implies_ftz(self, op: &str, types: &[ScalarType]) -> bool {
        let f32 = ScalarType::F32;
        match op {
            "add" | "sub" | "mul" | "mad" | "fma" | "div" | "abs" | "neg" | "min" | "max" | "rcp" | "sqrt" | "rsqrt" | "sin"
            | "cos" | "lg2" | "ex2" | "tanh" => types == [f32],
            // The comparison type is the last (`set.dtype.f32`, `setp.f32`).
            "set" | "setp" => types.last() == Some(&f32),
            // `slct.dtype.f32`: c is compared.
            "slct" => types.get(1) == Some(&f32),
            "cvt" => {
                types.contains(&f32)
                    && (self.version >= (1, 5) || !types.iter().any(|&t| matches!(t, ScalarType::F64 | ScalarType::U64 | ScalarType::S64 | ScalarType::B64)))
            }
            _ => false,
        }
    }
}
