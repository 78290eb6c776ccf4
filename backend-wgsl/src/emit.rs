//! The WGSL writer. One pass per kernel: statements and expressions are written while their
//! types are checked against the IR's rules; memory accesses and multi-instruction operations
//! call helper functions, collected (once each, sorted by name) in [`ModuleCx::helpers`].

use crate::{EmitError, Profile};
use ptxcross_lower::abi;
use ptxcross_lower::emission::{Analyses, Emission};
use ptxcross_lower::ir::{
    AtomicOp, BinaryOp, Block, Builtin, CmpOp, Const, ConvertOp, Expr, Function, Kernel, LocalPlacement, Memory, Module,
    Operand, Stmt, Ty, UnaryOp, VarId, statement_count,
};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

type R<T> = Result<T, String>;

/// What the WGSL of one kernel needs from the device (wgpu features).
/// The size of `k`'s private local-memory array, if it has one (not when its local memory
/// lives in the scratch buffer).
fn private_local_words(k: &Kernel) -> Option<u32> {
    (k.local_words > 0 && k.local_placement == LocalPlacement::Private).then_some(k.local_words)
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Requirements {
    /// `u64`/`i64` (wgpu `Features::SHADER_INT64`). Also set for kernels with `F64` values:
    /// the bit-level `f64` operations (sign, NaN tests, constants) go through `u64`.
    pub int64: bool,
    /// `f64` (wgpu `Features::SHADER_F64`).
    pub float64: bool,
    /// `atomic<u64>` with every operation (wgpu `Features::SHADER_INT64_ATOMIC_ALL_OPS`).
    pub int64_atomics: bool,
}

/// What a kernel uses, from one walk over its IR (before any text is written).
#[derive(Default)]
struct Usage {
    int64: bool,
    float64: bool,
    heap_atomics: bool,
    shared_atomics: bool,
    /// An `AtomicWord` on `Scratch` (shared memory that lives there): the scratch buffer is
    /// `atomic<u32>`.
    scratch_atomics: bool,
    /// A `Barrier` statement somewhere.
    barriers: bool,
    heap_atomics64: bool,
    /// An `AtomicDword` on `Shared`: shared memory is `atomic<u64>` (`Kernel::shared_dwords`).
    shared_atomics64: bool,
    /// A `Stmt::Fence` (WGSL has no standalone memory fence).
    fence: bool,
}

fn ty_usage(u: &mut Usage, ty: Ty) {
    match ty {
        Ty::U64 => u.int64 = true,
        Ty::F64 => u.float64 = true,
        _ => {}
    }
}

fn operand_usage(u: &mut Usage, o: &Operand) {
    if let Operand::Const(c) = o {
        ty_usage(u, c.ty());
    }
}

fn expr_usage(u: &mut Usage, e: &Expr) {
    match e {
        Expr::Use(a) => operand_usage(u, a),
        Expr::Unary { ty, arg, .. } => {
            ty_usage(u, *ty);
            operand_usage(u, arg);
        }
        Expr::Binary { ty, lhs, rhs, .. } | Expr::Compare { ty, lhs, rhs, .. } => {
            ty_usage(u, *ty);
            operand_usage(u, lhs);
            operand_usage(u, rhs);
        }
        Expr::Fma { ty, a, b, c } => {
            ty_usage(u, *ty);
            for o in [a, b, c] {
                operand_usage(u, o);
            }
        }
        Expr::Select { ty, cond, a, b } => {
            ty_usage(u, *ty);
            for o in [cond, a, b] {
                operand_usage(u, o);
            }
        }
        Expr::Convert { from, to, arg, .. } => {
            ty_usage(u, *from);
            ty_usage(u, *to);
            operand_usage(u, arg);
        }
        Expr::Builtin(_) => {}
        Expr::LoadWord { index, .. } => operand_usage(u, index),
        Expr::LoadDword { index, .. } => {
            u.shared_atomics64 = true;
            u.int64 = true;
            operand_usage(u, index)
        }
        // A barrier too: keeps the kernel whole (the splitting into functions skips barriers).
        Expr::SharedUniformLoad { index } => {
            u.barriers = true;
            operand_usage(u, index)
        }
        // Subgroup operations need uniform control flow like barriers: the kernel stays whole.
        Expr::WarpBallot { pred } => {
            u.barriers = true;
            operand_usage(u, pred)
        }
        Expr::WarpShuffle { value, lane } => {
            u.barriers = true;
            operand_usage(u, value);
            operand_usage(u, lane)
        }
        Expr::AtomicWord { memory, index, value, comparand, .. } => {
            match memory {
                Memory::Heap | Memory::Segment(_) => u.heap_atomics = true,
                Memory::Shared => u.shared_atomics = true,
                Memory::Scratch => u.scratch_atomics = true,
                _ => {}
            }
            for o in [index, value].into_iter().chain(comparand) {
                operand_usage(u, o);
            }
        }
        Expr::Call { ty, args, .. } => {
            ty_usage(u, *ty);
            args.iter().for_each(|o| operand_usage(u, o));
        }
        Expr::AtomicDword { memory, index, value, comparand, .. } => {
            if *memory == Memory::Shared {
                u.shared_atomics64 = true;
            } else {
                u.heap_atomics64 = true;
            }
            u.int64 = true;
            for o in [index, value].into_iter().chain(comparand) {
                operand_usage(u, o);
            }
        }
    }
}

fn block_usage(u: &mut Usage, b: &Block) {
    for s in &b.stmts {
        match s {
            Stmt::Assign { expr, .. } => expr_usage(u, expr),
            Stmt::StoreWord { index, value, .. } => {
                operand_usage(u, index);
                operand_usage(u, value);
            }
            Stmt::If { cond, then_body, else_body } => {
                operand_usage(u, cond);
                block_usage(u, then_body);
                block_usage(u, else_body);
            }
            Stmt::Switch {
                selector,
                cases,
                default,
            } => {
                operand_usage(u, selector);
                cases.iter().for_each(|c| block_usage(u, &c.body));
                block_usage(u, default);
            }
            Stmt::Loop { body } => block_usage(u, body),
            Stmt::Barrier | Stmt::SharedBarrier => u.barriers = true,
            Stmt::Fence { .. } => u.fence = true,
            Stmt::Break | Stmt::Continue | Stmt::Return | Stmt::Fault { .. } => {}
        }
    }
}

/// Statements per part of a kernel split into several functions (see [`split_into_parts`]).
const PART_STATEMENTS: usize = 1_000;

/// Per variable of `k`: every assignment to it is a memory load, a built-in, or a copy or
/// bitcast of such a variable (and there is at least one), or `lower` computed it through
/// its unknown zero already (`ptxcross_lower::hidden_vars`, the rule for values the driver
/// could know, shared with SPIR-V): the driver's compiler sees an opaque value there,
/// never the result of an arithmetic op or a constant, so float ops reading it need no
/// contraction guard for it (see `KernelCx::exposed`).
fn opaque_vars(k: &Kernel) -> Vec<bool> {
    let hidden = ptxcross_lower::hidden_vars(k);
    let range_tests = ptxcross_lower::heap_range_tests_of(k);
    fn assigns<'a>(b: &'a Block, out: &mut Vec<(VarId, &'a Expr)>) {
        for s in &b.stmts {
            match s {
                Stmt::Assign { dst, expr } => out.push((*dst, expr)),
                Stmt::If { then_body, else_body, .. } => {
                    assigns(then_body, out);
                    assigns(else_body, out);
                }
                Stmt::Loop { body } => assigns(body, out),
                Stmt::Switch { cases, default, .. } => {
                    cases.iter().for_each(|c| assigns(&c.body, out));
                    assigns(default, out);
                }
                _ => {}
            }
        }
    }
    let mut list = Vec::new();
    assigns(&k.body, &mut list);
    let n = k.vars.len();
    let mut assigned = vec![false; n];
    for (d, _) in &list {
        if let Some(a) = assigned.get_mut(d.index()) {
            *a = true;
        }
    }
    // Optimistic start, then remove every variable with a non-opaque assignment until stable.
    let mut opaque = assigned;
    loop {
        let mut changed = false;
        for (d, e) in &list {
            if !opaque.get(d.index()).copied().unwrap_or(false) || hidden.get(d.index()).copied().unwrap_or(false) {
                continue;
            }
            let var_opaque = |o: &Operand| matches!(o, Operand::Var(v) if opaque.get(v.index()).copied().unwrap_or(false));
            // A checked heap load's word, `select(in_range, w, 0)`, as its load `w`.
            let ok = if let Some(w) = ptxcross_lower::checked_load_word(e, &range_tests) {
                var_opaque(&w)
            } else {
                match e {
                    Expr::LoadWord { .. } | Expr::LoadDword { .. } | Expr::AtomicWord { .. } | Expr::AtomicDword { .. } | Expr::SharedUniformLoad { .. } => true,
                    Expr::WarpBallot { .. } | Expr::WarpShuffle { .. } => true,
                    Expr::Builtin(_) => true,
                    Expr::Use(o) => var_opaque(o),
                    Expr::Convert { op: ConvertOp::Bitcast, arg, .. } => var_opaque(arg),
                    _ => false,
                }
            };
            if !ok {
                opaque[d.index()] = false;
                changed = true;
            }
        }
        if !changed {
            return opaque;
        }
    }
}

/// The kernel's top-level statements in parts of about [`PART_STATEMENTS`] statements, or one
/// part. Why: naga's WGSL front end (which wgpu runs on every WGSL module) typed a function's
/// expressions in time quadratic in their number (naga 30 `Typifier::grow` skipped through the
/// whole expression arena on every call; this workspace patches naga, see vendor/naga, but
/// browsers' and other wgpu builds may not have the fix), so one function of 100,000
/// statements took minutes; in parts of bounded size it is linear. Each part becomes a
/// function over module-scope `var<private>` copies of the kernel's variables (same
/// zero-initialised, per-invocation semantics as function variables). Kernels with barriers
/// stay whole: browsers' uniformity analysis could not see that the early return between
/// parts is uniform.
fn split_into_parts<'a>(stmts: &'a [Stmt], usage: &Usage) -> Vec<&'a [Stmt]> {
    if usage.barriers || statement_count(stmts) <= 2 * PART_STATEMENTS {
        return vec![stmts];
    }
    let mut parts = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, s) in stmts.iter().enumerate() {
        size += statement_count(std::slice::from_ref(s));
        if size >= PART_STATEMENTS {
            parts.push(&stmts[start..=i]);
            (start, size) = (i + 1, 0);
        }
    }
    if start < stmts.len() {
        parts.push(&stmts[start..]);
    }
    parts
}

fn kernel_usage(k: &Kernel) -> Usage {
    let mut u = Usage {
        int64: k.features.int64,
        float64: k.features.float64,
        heap_atomics: k.features.heap_atomics,
        shared_atomics: k.features.shared_atomics,
        scratch_atomics: false,
        barriers: false,
        heap_atomics64: k.features.heap_atomics64,
        shared_atomics64: k.features.shared_atomics64,
        fence: false,
    };
    for v in &k.vars {
        ty_usage(&mut u, v.ty);
    }
    block_usage(&mut u, &k.body);
    for f in &k.functions {
        for v in &f.vars {
            ty_usage(&mut u, v.ty);
        }
        block_usage(&mut u, &f.body);
    }
    u
}

/// What the WGSL that [`crate::emit`] writes for `kernel` needs from the device.
pub fn requirements(kernel: &Kernel) -> Requirements {
    let u = kernel_usage(kernel);
    Requirements { int64: u.int64 || u.float64, float64: u.float64, int64_atomics: u.heap_atomics64 || u.shared_atomics64 }
}

/// Module-wide state: the name prefix and the helper functions needed so far.
struct ModuleCx {
    profile: Profile,
    /// Prefix of every module-scope name the backend invents (`px_`).
    p: String,
    heap_atomic: bool,
    /// The scratch buffer is `atomic<u32>` (some kernel has an atomic there).
    scratch_atomic: bool,
    /// Some kernel tracks fault sites (`Kernel::fault_site_var`): the module has a private
    /// `px_site` that those kernels assign instead of their site variable, and the fault
    /// function copies it to heap word `abi::FAULT_SITE_WORD` while that word is 0.
    site: bool,
    /// Helper functions by name (BTreeMap: deterministic output order).
    helpers: BTreeMap<String, String>,
    /// The kernels' functions (`ir::Function`), emitted once per module among the helpers:
    /// by their IR name, the distinct functions under it and their WGSL names.
    functions: HashMap<String, Vec<(Function, String)>>,
}

/// Names of heap segment slots (`Memory::Segment(j)`, index `j` ≥ 1) and of their 64-bit
/// views: their arrays' and helpers' names after the module prefix.
const SEGMENT_KINDS: [&str; abi::MAX_SEGMENT_SLOTS as usize] = [
    "heap", "segment1", "segment2", "segment3", "segment4", "segment5", "segment6", "segment7", "segment8", "segment9",
    "segment10", "segment11", "segment12", "segment13", "segment14", "segment15",
];
const SEGMENT64_KINDS: [&str; abi::MAX_SEGMENT_SLOTS as usize] = [
    "heap64", "segment1_64", "segment2_64", "segment3_64", "segment4_64", "segment5_64", "segment6_64", "segment7_64",
    "segment8_64", "segment9_64", "segment10_64", "segment11_64", "segment12_64", "segment13_64", "segment14_64",
    "segment15_64",
];

/// A memory as the helpers see it.
struct Mem {
    /// `heap`, `params`, `shared`, `local`: part of the helpers' names.
    kind: &'static str,
    /// Prefix of the helpers' names (the module's, or the kernel's for per-kernel memories).
    prefix: String,
    /// The WGSL array; `None` when the memory has no words (every access faults).
    array: Option<String>,
    /// The in-range test of word index `i`.
    in_range: String,
    /// Plain loads and stores are branchless (see `ModuleCx::defer_fn`): an out-of-range
    /// index is replaced by this one, which is always in range (`None`: such accesses branch
    /// to the fault path instead).
    safe: Option<u32>,
    fault: u32,
    atomic: bool,
    /// Elements are `atomic<u64>` (the heap's 64-bit view) instead of 32-bit words.
    wide: bool,
}

impl ModuleCx {
    fn helper(&mut self, name: &str, text: impl FnOnce() -> String) {
        if !self.helpers.contains_key(name) {
            let t = text();
            self.helpers.insert(name.to_string(), t);
        }
    }

    /// `px_fault(bits)`: ORs `bits` into the heap's fault word (and records the fault site).
    fn fault_fn(&mut self) -> String {
        let name = format!("{}fault", self.p);
        let (heap, atomic, w) = (format!("{}heap", self.p), self.heap_atomic, abi::FAULT_WORD);
        let (site, sw) = (format!("{}site", self.p), abi::FAULT_SITE_WORD);
        let record_site = self.site;
        self.helper(&name, || {
            let mut text = if atomic {
                format!(
                    "// Records fault bits (abi::FAULT_*) in the heap's fault word.\n\
                     fn {name}(bits: u32) {{\n    atomicOr(&{heap}[{w}u], bits);\n"
                )
            } else {
                format!(
                    "// Records fault bits (abi::FAULT_*) in the heap's fault word. Not atomic (the heap is\n\
                     // a plain array<u32>): racing writers may drop each other's bits, but every writer\n\
                     // stores a non-zero word, so the fault itself is never lost.\n\
                     fn {name}(bits: u32) {{\n    let w = {heap}[{w}u];\n    if ((w & bits) != bits) {{\n        {heap}[{w}u] = w | bits;\n    }}\n"
                )
            };
            if record_site && atomic {
                text += &format!(
                    "    // The first fault names its instruction (retried while the weak exchange fails spuriously).\n    \
                     loop {{\n        let r = atomicCompareExchangeWeak(&{heap}[{sw}u], 0u, {site});\n        \
                     if (r.exchanged || r.old_value != 0u) {{\n            break;\n        }}\n    }}\n"
                );
            } else if record_site {
                text += &format!(
                    "    // A faulting instruction's site, if none is recorded yet (racy: one of them).\n    \
                     if ({heap}[{sw}u] == 0u) {{\n        {heap}[{sw}u] = {site};\n    }}\n"
                );
            }
            text + "}\n"
        });
        name
    }

    /// `px_opaque_T(x)`: the identity, as a function call so that the shader compiler does not
    /// treat the operation around it as a const-expression.
    fn opaque_fn(&mut self, ty: Ty) -> String {
        let t = wgsl_ty(ty);
        let name = format!("{}opaque_{t}", self.p);
        self.helper(&name, || {
            format!(
                "// Identity. Keeps an operation on constants only from being a const-expression (where\n\
                 // overflow, NaN or infinity would be a shader-creation error): IR ops are run-time ops.\n\
                 fn {name}(x: {t}) -> {t} {{\n    return x;\n}}\n"
            )
        });
        name
    }

    /// `px_hide_f32(x, z)`: `x` with its bits XOR-ed with `z` (a run-time zero), see
    /// [`KernelCx::hide`].
    fn hide_fn(&mut self, ty: Ty) -> String {
        // An f64 gets the zero in both words: no bit of the hidden value stays known.
        let (t, u, z) = if ty == Ty::F64 { ("f64", "u64", "(u64(z) | (u64(z) << 32u))") } else { ("f32", "u32", "z") };
        let name = format!("{}hide_{t}", self.p);
        self.helper(&name, || {
            format!(
                "// x, through an XOR with a run-time zero: the driver's compiler cannot see which float\n\
                 // op produced it, so it cannot fuse, factor or fold IR ops (WGSL has no NoContraction).\n\
                 fn {name}(x: {t}, z: u32) -> {t} {{\n    return bitcast<{t}>(bitcast<{u}>(x) ^ {z});\n}}\n"
            )
        });
        name
    }

    fn f32_const(&mut self, bits: u32) -> String {
        let x = f32::from_bits(bits);
        if bits == 0 {
            return "0f".into();
        }
        if x.is_normal() && (1e-30..=1e30).contains(&x.abs()) {
            let s = format!("{:?}", x.abs());
            // Decimal only where both a direct parse (naga) and a parse through f64 (Tint
            // reads literals as double first) give back exactly these bits.
            let direct = s.parse::<f32>().map(f32::to_bits).ok();
            let via64 = s.parse::<f64>().map(|d| (d as f32).to_bits()).ok();
            let want = x.abs().to_bits();
            if direct == Some(want) && via64 == Some(want) {
                return if x.is_sign_negative() { format!("(-{s}f)") } else { format!("{s}f") };
            }
        }
        // NaN, infinities, -0, subnormals, extreme magnitudes: a runtime bitcast. (A
        // const-expression bitcast yielding NaN or infinity is a WGSL shader-creation error.)
        let name = format!("{}f32_from_bits", self.p);
        self.helper(&name, || {
            format!(
                "// A float constant by its bits (NaN, infinity, -0, subnormal): a runtime bitcast,\n\
                 // since a const-expression must not produce NaN or infinity.\n\
                 fn {name}(bits: u32) -> f32 {{\n    return bitcast<f32>(bits);\n}}\n"
            )
        });
        format!("{name}({bits:#010x}u)")
    }

    fn f64_const(&mut self, bits: u64) -> String {
        let x = f64::from_bits(bits);
        if bits == 0 {
            return "0.0lf".into();
        }
        if x.is_normal() && (1e-300..=1e300).contains(&x.abs()) {
            let s = format!("{:?}", x.abs());
            if s.parse::<f64>().map(f64::to_bits).ok() == Some(x.abs().to_bits()) {
                return if x.is_sign_negative() { format!("(-{s}lf)") } else { format!("{s}lf") };
            }
        }
        let name = format!("{}f64_from_bits", self.p);
        self.helper(&name, || {
            format!(
                "// A double constant by its bits (NaN, infinity, -0, subnormal).\n\
                 fn {name}(bits: u64) -> f64 {{\n    return bitcast<f64>(bits);\n}}\n"
            )
        });
        format!("{name}({bits:#018x}lu)")
    }

    /// `px_ordered_f32(a, b)`: neither operand is NaN (tested on the bits: WGSL compilers may
    /// assume floats are never NaN).
    fn ordered_fn(&mut self, ty: Ty) -> String {
        let (t, u, mask, inf, lit) = match ty {
            Ty::F64 => ("f64", "u64", "0x7fffffffffffffff", "0x7ff0000000000000", "lu"),
            _ => ("f32", "u32", "0x7fffffff", "0x7f800000", "u"),
        };
        let name = format!("{}ordered_{t}", self.p);
        self.helper(&name, || {
            format!(
                "// Neither operand is NaN (tested on the bits).\n\
                 fn {name}(a: {t}, b: {t}) -> bool {{\n    \
                 return (bitcast<{u}>(a) & {mask}{lit}) <= {inf}{lit} && (bitcast<{u}>(b) & {mask}{lit}) <= {inf}{lit};\n}}\n"
            )
        });
        name
    }

    /// `px_trunc_f32(x)` etc.: rounding to an integral float, computed exactly on the bits.
    /// WGSL's builtins are not reliable enough: lavapipe's f64 `trunc` leaves fractions on
    /// values above 2^31, its f64 `round` rounds 1.5 to 1, and drivers differ on the sign of
    /// zero results (IEEE: the sign of x, e.g. trunc(-0.5) = -0).
    fn round_fn(&mut self, op: UnaryOp, ty: Ty) -> String {
        let f = match op {
            UnaryOp::FFloor => "floor",
            UnaryOp::FCeil => "ceil",
            UnaryOp::FTrunc => "trunc",
            _ => "round_even",
        };
        // (float, uint, literal suffix, mantissa bits, exponent bias, 1.0, 0.5)
        let (t, u, l, man, bias, one, half) = match ty {
            Ty::F64 => ("f64", "u64", "lu", 52, 1023, "0x3ff0000000000000", "0x3fe0000000000000"),
            _ => ("f32", "u32", "u", 23, 127, "0x3f800000", "0x3f000000"),
        };
        let (sign, rest) = match ty {
            Ty::F64 => ("0x8000000000000000lu", "0x7ffffffffffffffflu"),
            _ => ("0x80000000u", "0x7fffffffu"),
        };
        let name = format!("{}{f}_{t}", self.p);
        // Whether the magnitude goes up to the next integer: for |x| < 1, then for |x| >= 1
        // with a non-zero fraction `frac` (`half`: the fraction's half point, `mag >> k`: the
        // integer part).
        let (up_small, up_big) = match op {
            UnaryOp::FTrunc => (None, None),
            UnaryOp::FFloor => (Some("neg".to_string()), Some("neg".to_string())),
            UnaryOp::FCeil => (Some("!neg".to_string()), Some("!neg".to_string())),
            _ => (
                Some(format!("mag > {half}{l}")),
                Some(format!("frac > (1{l} << (k - 1u)) || (frac == (1{l} << (k - 1u)) && ((mag >> k) & 1{l}) != 0{l})")),
            ),
        };
        self.helper(&name, || {
            let mut s = format!(
                "// {f}(x), exact, computed on the bits: drivers' builtins differ (sign of zero, doubles).\n\
                 fn {name}(x: {t}) -> {t} {{\n    \
                 let b = bitcast<{u}>(x);\n    \
                 let mag = b & {rest};\n    \
                 let e = i32(u32(mag >> {man}u)) - {bias}i;\n    \
                 if (e >= {man}i || mag == 0{l}) {{\n        return x; // integral, infinite or NaN\n    }}\n    \
                 let neg = (b >> {top}u) != 0{l};\n    \
                 var r = 0{l};\n    \
                 if (e < 0i) {{\n",
                top = ty.bits() - 1
            );
            if let Some(up) = &up_small {
                let _ = write!(s, "        if ({up}) {{\n            r = {one}{l};\n        }}\n");
            }
            let _ = write!(
                s,
                "    }} else {{\n        \
                 let k = u32({man}i - e);\n        \
                 let fm = (1{l} << k) - 1{l};\n        \
                 let frac = mag & fm;\n        \
                 r = mag & ~fm;\n"
            );
            if let Some(up) = &up_big {
                let _ = write!(s, "        if (frac != 0{l} && ({up})) {{\n            r = r + (1{l} << k);\n        }}\n");
            }
            let _ = write!(s, "    }}\n    return bitcast<{t}>(r | (b & {sign}));\n}}\n");
            s
        });
        name
    }

    /// `px_u32_to_f32(x)`: correctly rounded (to nearest even). WGSL lets an inexact conversion
    /// pick either neighbour, and SwiftShader (Chromium's WebGPU fallback) is off by one ulp for
    /// values above 2^31; the rounding is done here on the integer, leaving exact conversions.
    fn u32_to_f32_fn(&mut self) -> String {
        let name = format!("{}u32_to_f32", self.p);
        self.helper(&name, || {
            format!(
                "// u32 -> f32 rounded to nearest even on the integer: f32(m) for m <= 2^24 and the\n\
                 // power-of-two scale are exact (WGSL lets inexact conversions pick either neighbour).\n\
                 fn {name}(x: u32) -> f32 {{\n    \
                 if (x < 0x1000000u) {{\n        return f32(x);\n    }}\n    \
                 let s = 8u - countLeadingZeros(x);\n    \
                 var m = x >> s;\n    \
                 let rest = x & ((1u << s) - 1u);\n    \
                 let half = 1u << (s - 1u);\n    \
                 if (rest > half || (rest == half && (m & 1u) == 1u)) {{\n        m = m + 1u;\n    }}\n    \
                 return f32(m) * f32(1u << s);\n}}\n"
            )
        });
        name
    }

    fn mulhi_fn(&mut self, ty: Ty, signed: bool) -> String {
        let p = self.p.clone();
        let (bits, t) = if ty == Ty::U64 { (64, "u64") } else { (32, "u32") };
        let unsigned_name = format!("{p}mul_hi_u{bits}");
        {
            let name = unsigned_name.clone();
            // Schoolbook product of half-width limbs; every partial product and the middle sum
            // fit the type.
            let (half, mask) =
                if bits == 64 { ("32u", "0xfffffffflu") } else { ("16u", "0xffffu") };
            self.helper(&unsigned_name, || {
                format!(
                    "// High {bits} bits of the unsigned {}-bit product, from half-width limbs.\n\
                     fn {name}(a: {t}, b: {t}) -> {t} {{\n    \
                     let a0 = a & {mask};\n    let a1 = a >> {half};\n    \
                     let b0 = b & {mask};\n    let b1 = b >> {half};\n    \
                     let p00 = a0 * b0;\n    let p01 = a0 * b1;\n    let p10 = a1 * b0;\n    let p11 = a1 * b1;\n    \
                     let mid = (p00 >> {half}) + (p01 & {mask}) + (p10 & {mask});\n    \
                     return p11 + (p01 >> {half}) + (p10 >> {half}) + (mid >> {half});\n}}\n",
                    2 * bits
                )
            });
        }
        if !signed {
            return unsigned_name;
        }
        let name = format!("{p}mul_hi_s{bits}");
        let (top, zero) = if bits == 64 { ("63u", "0lu") } else { ("31u", "0u") };
        // The corrections are masks, not `select`s on sign tests: lavapipe (Mesa 22.3.6)
        // evaluated `(b >> 63u) != 0lu` as false for a sign-extended negative b (`mul.hi.s64`
        // of `cvt.s64.s32` values gave 0 for -1; tests/tests/adversarial.rs).
        self.helper(&name, || {
            format!(
                "// High {bits} bits of the signed product: the unsigned one, minus b if a < 0, minus a if b < 0.\n\
                 fn {name}(a: {t}, b: {t}) -> {t} {{\n    \
                 return {unsigned_name}(a, b) - (b & ({zero} - (a >> {top}))) - (a & ({zero} - (b >> {top})));\n}}\n"
            )
        });
        name
    }

    /// The parameter load for a word in range for every launch whose index must not look
    /// constant to the driver (`Kernel::direct_param_loads`): the checked load's selects,
    /// without the fault (its test never fails).
    fn params_opaque_load(&mut self) -> String {
        let p = self.p.clone();
        let name = format!("{p}params_opaque");
        self.helper(&name, || {
            format!(
                "// A parameter word in range for every launch, its index kept opaque to the driver.\n\
                 fn {name}(i: u32) -> u32 {{\n    let ok = i < arrayLength(&{p}params);\n    \
                 let j = select(0u, i, ok);\n    return select(0u, {p}params[j], ok);\n}}\n"
            )
        });
        name
    }

    fn mem_load(&mut self, m: &Mem) -> String {
        let name = format!("{}{}_load", m.prefix, m.kind);
        // The scratch buffer's stores keep their branch (a bad one must change nothing); its
        // loads read word 0 instead, which changes nothing either (as in the SPIR-V backend).
        let safe = m.safe.or((m.kind == "scratch").then_some(0));
        if let (Some(a), Some(safe)) = (&m.array, safe) {
            let defer = self.defer_fn();
            let (t, zero) = if m.wide { ("u64", "0lu") } else { ("u32", "0u") };
            self.helper(&name, || {
                let read = if m.atomic { format!("atomicLoad(&{a}[j])") } else { format!("{a}[j]") };
                format!(
                    "fn {name}(i: u32) -> {t} {{\n    let ok = {};\n    {defer}(!ok, {}u);\n    \
                     let j = select({safe}u, i, ok);\n    return select({zero}, {read}, ok);\n}}\n",
                    m.in_range, m.fault
                )
            });
            return name;
        }
        let fault = self.fault_fn();
        self.helper(&name, || {
            let mut s = format!("fn {name}(i: u32) -> u32 {{\n");
            if let Some(a) = &m.array {
                let read = if m.atomic { format!("atomicLoad(&{a}[i])") } else { format!("{a}[i]") };
                let _ = write!(s, "    if ({}) {{\n        return {read};\n    }}\n", m.in_range);
            }
            let _ = write!(s, "    {fault}({}u);\n    return 0u;\n}}\n", m.fault);
            s
        });
        name
    }

    fn mem_store(&mut self, m: &Mem) -> String {
        let name = format!("{}{}_store", m.prefix, m.kind);
        if let (Some(a), Some(safe)) = (&m.array, m.safe) {
            let defer = self.defer_fn();
            self.helper(&name, || {
                let write = match (m.atomic, m.kind) {
                    (true, _) => format!("atomicStore(&{a}[j], v);"),
                    // The thread's own private array: a bad store rewrites word 0 unchanged.
                    (false, "local") => format!("{a}[j] = select({a}[j], v, ok);"),
                    (false, _) => format!("{a}[j] = v;"),
                };
                // `abi::DISCARD_INDEX` (heap, shared): a store lower has faulted already.
                let bad = if matches!(m.kind, "heap" | "shared") || m.kind.starts_with("segment") {
                    // `&`: no short-circuit branch per store (see `defer_fn`).
                    format!("!ok & (i != {:#x}u)", abi::DISCARD_INDEX)
                } else {
                    "!ok".to_string()
                };
                format!(
                    "fn {name}(i: u32, v: u32) {{\n    let ok = {};\n    {defer}({bad}, {}u);\n    \
                     let j = select({safe}u, i, ok);\n    {write}\n}}\n",
                    m.in_range, m.fault
                )
            });
            return name;
        }
        // The scratch buffer's bad stores are deferred like its (branchless) loads, so that the
        // thread's first fault is the one named.
        let fault = if m.kind == "scratch" { format!("{}(true, ", self.defer_fn()) } else { format!("{}(", self.fault_fn()) };
        self.helper(&name, || {
            let mut s = format!("fn {name}(i: u32, v: u32) {{\n");
            match &m.array {
                Some(a) => {
                    let write = if m.atomic {
                        format!("atomicStore(&{a}[i], v);")
                    } else {
                        format!("{a}[i] = v;")
                    };
                    let _ = write!(
                        s,
                        "    if ({}) {{\n        {write}\n    }} else {{\n        {fault}{}u);\n    }}\n}}\n",
                        m.in_range, m.fault
                    );
                }
                None => {
                    let _ = write!(s, "    {fault}{}u);\n}}\n", m.fault);
                }
            }
            s
        });
        name
    }

    /// `px_defer(bad, bits)`: a fault recorded without a branch. The bits collect in the
    /// private `px_bad` (with the site of the thread's first deferred fault in `px_bad_site`)
    /// and reach the heap's fault word when the thread ends (`px_flush`, before every return
    /// of the entry point). Out-of-range plain loads and stores use it: they go to a safe
    /// index instead (see `ptxcross_lower::ir::Memory`), so a never-taken fault branch no
    /// longer costs every access (SIMD drivers execute both sides of a divergent branch).
    fn defer_fn(&mut self) -> String {
        let name = format!("{}defer", self.p);
        let p = self.p.clone();
        let site = self.site;
        self.helper(&name, || {
            let mut s = format!("fn {name}(bad: bool, bits: u32) {{\n");
            if site {
                // `&`, not `&&`: WGSL's `&&` short-circuits, and Tint (browsers) turns each
                // into a branch and a phi. A long run of these calls in one block (the warp
                // emulation's 32 lane reads under one predication `if`) made Chromium's
                // SwiftShader lose its device building the pipeline (minutes, then "Instance
                // dropped"); `&` on bools is a plain logical and (the WGSL spec's "Logical
                // Expressions"), built in seconds.
                let _ = writeln!(s, "    {p}bad_site = select({p}bad_site, {p}site, bad & ({p}bad == 0u));");
            }
            let _ = write!(s, "    {p}bad = {p}bad | select(0u, bits, bad);\n}}\n");
            s
        });
        name
    }

    /// `px_flush()`: records the deferred faults (`px_defer`) in the heap's fault word.
    ///
    /// With a plain heap it reads the fault and site words *before* testing `px_bad`, and
    /// only stores inside the test (issue 11): a SIMD-on-CPU driver (llvmpipe) runs an `if`'s
    /// body with a lane mask whether or not any lane takes it, and makes every storage access
    /// there a per-lane loop, while a load at a constant index outside control flow is one
    /// scalar load. Every thread that ends runs the flush, so on such a driver a never-taken
    /// `px_fault` (two loads, two stores) cost saxpy about a sixth of its time; the reads now
    /// cost nothing there. Same effect as `px_fault`: the thread reads the two words and,
    /// with nothing stored by it in between, ORs its bits into the first and writes its site
    /// into the second if that is 0 (racing threads may drop each other's bits or sites, as
    /// before; the fault itself is never lost, since every writer stores non-zero bits).
    fn flush_fn(&mut self) -> String {
        let name = format!("{}flush", self.p);
        let p = self.p.clone();
        let site = self.site;
        if !self.heap_atomic {
            let (w, sw) = (abi::FAULT_WORD, abi::FAULT_SITE_WORD);
            self.helper(&name, || {
                let (read_site, set_site) = if site {
                    (
                        format!("    let s = {p}heap[{sw}u];\n"),
                        format!("        if (s == 0u) {{\n            {p}heap[{sw}u] = {p}bad_site;\n        }}\n"),
                    )
                } else {
                    (String::new(), String::new())
                };
                format!(
                    "// Records the faults `{p}defer` collected (the thread is about to end). The fault\n\
                     // and site words are read before the test: outside control flow a constant-index\n\
                     // load is cheap on SIMD drivers that run an `if` for every lane (llvmpipe).\n\
                     fn {name}() {{\n    let w = {p}heap[{w}u];\n{read_site}    if ({p}bad != 0u) {{\n        \
                     if ((w & {p}bad) != {p}bad) {{\n            {p}heap[{w}u] = w | {p}bad;\n        }}\n\
                     {set_site}    }}\n}}\n"
                )
            });
            return name;
        }
        let fault = self.fault_fn();
        self.helper(&name, || {
            let set_site = if site { format!("        {p}site = {p}bad_site;\n") } else { String::new() };
            format!(
                "// Records the faults `{p}defer` collected (the thread is about to end).\n\
                 fn {name}() {{\n    if ({p}bad != 0u) {{\n{set_site}        {fault}({p}bad);\n    }}\n}}\n"
            )
        });
        name
    }

    fn mem_atomic(&mut self, m: &Mem, op: AtomicOp) -> String {
        let (suffix, builtin) = match op {
            AtomicOp::Add => ("add", Some("atomicAdd")),
            AtomicOp::Sub => ("sub", Some("atomicSub")),
            AtomicOp::And => ("and", Some("atomicAnd")),
            AtomicOp::Or => ("or", Some("atomicOr")),
            AtomicOp::Xor => ("xor", Some("atomicXor")),
            AtomicOp::Exchange => ("exchange", Some("atomicExchange")),
            AtomicOp::MinU => ("min_u", Some("atomicMin")),
            AtomicOp::MaxU => ("max_u", Some("atomicMax")),
            AtomicOp::MinS => ("min_s", None),
            AtomicOp::MaxS => ("max_s", None),
            AtomicOp::CompareExchange => ("cmpxchg", None),
        };
        let name = format!("{}{}_atomic_{suffix}", m.prefix, m.kind);
        if let (Some(a), Some(safe), Some(f), Some(identity), false) = (&m.array, m.safe, builtin, op.identity(), m.wide) {
            // Without a branch (`AtomicOp::identity`): out of range, the identity goes to the
            // safe word, the result is 0 and the fault is deferred.
            let defer = self.defer_fn();
            self.helper(&name, || {
                // `abi::DISCARD_INDEX`: a sub-word store lower has faulted already (`&`: no
                // short-circuit branch, see `defer_fn`).
                format!(
                    "fn {name}(i: u32, v: u32) -> u32 {{\n    let ok = {};\n    {defer}(!ok & (i != {:#x}u), {}u);\n    \
                     let r = {f}(&{a}[select({safe}u, i, ok)], select({identity:#x}u, v, ok));\n    \
                     return select(0u, r, ok);\n}}\n",
                    m.in_range,
                    abi::DISCARD_INDEX,
                    m.fault
                )
            });
            return name;
        }
        let fault = self.fault_fn();
        let (t, it, zero) = if m.wide { ("u64", "i64", "0lu") } else { ("u32", "i32", "0u") };
        self.helper(&name, || {
            let cas = op == AtomicOp::CompareExchange;
            let mut s = if cas {
                format!(
                    "// Strong compare-exchange (WGSL's is weak: retried while it fails spuriously).\n\
                     fn {name}(i: u32, cmp: {t}, v: {t}) -> {t} {{\n"
                )
            } else {
                format!("fn {name}(i: u32, v: {t}) -> {t} {{\n")
            };
            if let Some(a) = &m.array {
                let body = match (builtin, op) {
                    (Some(f), _) => format!("        return {f}(&{a}[i], v);\n"),
                    (None, AtomicOp::CompareExchange) => format!(
                        "        loop {{\n            let r = atomicCompareExchangeWeak(&{a}[i], cmp, v);\n            \
                         if (r.exchanged || r.old_value != cmp) {{\n                return r.old_value;\n            }}\n        }}\n"
                    ),
                    (None, _) => {
                        let f = if op == AtomicOp::MinS { "min" } else { "max" };
                        format!(
                            "        // Signed {f}: a compare-exchange loop (atomicMin/Max on atomic<{t}> are unsigned).\n        \
                             var w_old = atomicLoad(&{a}[i]);\n        loop {{\n            \
                             let w_new = bitcast<{t}>({f}(bitcast<{it}>(w_old), bitcast<{it}>(v)));\n            \
                             if (w_new == w_old) {{\n                return w_old;\n            }}\n            \
                             let r = atomicCompareExchangeWeak(&{a}[i], w_old, w_new);\n            \
                             if (r.exchanged) {{\n                return w_old;\n            }}\n            \
                             w_old = r.old_value;\n        }}\n"
                        )
                    }
                };
                let _ = write!(s, "    if ({}) {{\n{body}    }}\n", m.in_range);
            }
            let _ = write!(s, "    {fault}({}u);\n    return {zero};\n}}\n", m.fault);
            s
        });
        name
    }
}

/// Per-kernel state while its entry point is written.
struct KernelCx<'a> {
    m: &'a mut ModuleCx,
    k: &'a Kernel,
    /// Prefix of this kernel's module-scope names (`px_`, or `px_k1_` in multi-kernel modules).
    kp: String,
    int64: bool,
    shared_atomic: bool,
    /// Shared memory is `atomic<u64>` doublewords (`Kernel::shared_dwords`).
    shared_dwords: bool,
    /// local_invocation_id, workgroup_id, num_workgroups, subgroup_size,
    /// subgroup_invocation_id used.
    builtins: [bool; 5],
    out: String,
    /// Enclosing `loop`s (`true`) and `switch`es (`false`), innermost last.
    breakable: Vec<bool>,
    /// The next constant operand is wrapped in `px_opaque_T(…)` (see [`KernelCx::expr`]).
    opaque_next: bool,
    /// Per variable: its parameter loads are read directly (`Kernel::direct_param_loads`).
    direct_params: Vec<bool>,
    /// Per variable: the heap memory (heap or segment slot) in which `lower` has checked it as
    /// an index (`Kernel::heap_index_memories_of`).
    heap_direct: Vec<Option<Memory>>,
    /// `Kernel::index_facts`: shared and local indices proven in range (`Kernel::index_in_range`).
    facts: ptxcross_lower::ir::IndexFacts,
    /// Which opaque zeros (`px_z0`, `px_z1`) the body uses (see [`KernelCx::hide`]).
    zeros: [bool; 2],
    /// Per variable: it only ever holds loaded words, built-ins or copies (bitcasts) of such
    /// variables ([`opaque_vars`]).
    opaque: Vec<bool>,
    /// The kernel is split into functions ([`split_into_parts`]): variables are module-scope
    /// (`{kp}v3`) and `Return` is `return true;` (the entry point then returns).
    parts: bool,
    /// Per variable: it is bound once with `let` where it is assigned, not declared as a
    /// `var` (see [`let_vars`]).
    lets: Vec<bool>,
    /// WGSL names of the kernel's functions (`Kernel::functions`).
    func_names: Vec<String>,
}

/// The kernel's values (`Kernel::value_vars`: assigned once, read only where that assignment
/// dominates, i.e. where a `let` at the assignment is in scope). In a kernel split into parts
/// ([`split_into_parts`]), a value assigned at the top level may be read in a later part: those
/// stay module-scope variables. `values`: the kernel's `value_vars` (computed once per kernel).
fn let_vars(k: &Kernel, values: &[bool], parts: bool) -> Vec<bool> {
    let mut lets = values.to_vec();
    if parts {
        for s in &k.body.stmts {
            if let Stmt::Assign { dst, .. } = s {
                if let Some(l) = lets.get_mut(dst.index()) {
                    *l = false;
                }
            }
        }
    }
    lets
}

fn wgsl_ty(ty: Ty) -> &'static str {
    match ty {
        Ty::Bool => "bool",
        Ty::U32 => "u32",
        Ty::U64 => "u64",
        Ty::F32 => "f32",
        Ty::F64 => "f64",
    }
}

fn ty_name(ty: Ty) -> &'static str {
    match ty {
        Ty::Bool => "Bool",
        Ty::U32 => "U32",
        Ty::U64 => "U64",
        Ty::F32 => "F32",
        Ty::F64 => "F64",
    }
}

/// `op.ty` (`FAdd.f32`), an operation's name in an error message.
struct OpName<'a>(&'a dyn std::fmt::Debug, Ty);

impl std::fmt::Display for OpName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{:?}.{}", self.0, ty_name(self.1))
    }
}

/// `op from -> to`, a conversion's name in an error message.
struct ConvertName<'a>(&'a ConvertOp, Ty, Ty);

impl std::fmt::Display for ConvertName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{:?} {} -> {}", self.0, ty_name(self.1), ty_name(self.2))
    }
}

/// Appends `n` in decimal (what `{n}` writes, without the formatting machinery: variable
/// names are most of the emitted text).
fn push_u32(out: &mut String, mut n: u32) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Digit by digit: `str::from_utf8` of the buffer checked what is known (ASCII digits),
    // 1% of translating the CUB file.
    out.reserve(buf.len() - i);
    for &d in &buf[i..] {
        out.push(char::from(d));
    }
}

/// `{a} {op} {b}` (without `format!`: the most common expression).
fn infix(a: &str, op: &str, b: &str) -> String {
    let mut s = String::with_capacity(a.len() + op.len() + b.len() + 2);
    s.push_str(a);
    s.push(' ');
    s.push_str(op);
    s.push(' ');
    s.push_str(b);
    s
}

/// `(signed WGSL type, unsigned WGSL type)` of an integer type of that width.
fn signed_of(ty: Ty) -> (&'static str, &'static str) {
    if ty == Ty::U64 {
        ("i64", "u64")
    } else {
        ("i32", "u32")
    }
}

impl KernelCx<'_> {
    fn operand(&mut self, o: Operand) -> R<(String, Ty)> {
        match o {
            Operand::Var(v) => match self.k.vars.get(v.index()) {
                Some(info) => Ok((self.var_name(v), info.ty)),
                None => Err(format!("variable {v} is not declared (the kernel has {} variables)", self.k.vars.len())),
            },
            Operand::Const(c) => {
                let opaque = std::mem::take(&mut self.opaque_next);
                let s = match c {
                    Const::Bool(b) => b.to_string(),
                    Const::U32(v) => {
                        let mut s = String::with_capacity(11);
                        push_u32(&mut s, v);
                        s.push('u');
                        s
                    }
                    Const::U64(v) => format!("{v}lu"),
                    Const::F32(b) => self.m.f32_const(b),
                    Const::F64(b) => self.m.f64_const(b),
                };
                if opaque {
                    let f = self.m.opaque_fn(c.ty());
                    return Ok((format!("{f}({s})"), c.ty()));
                }
                Ok((s, c.ty()))
            }
        }
    }

    /// An operand that must have type `ty`.
    /// The scalar subgroup built-in of `slot` (3: `subgroup_size`, 4: `subgroup_invocation_id`),
    /// an entry-point parameter.
    fn subgroup_builtin(&mut self, slot: usize) -> String {
        self.builtins[slot] = true;
        format!("{}{}", self.m.p, if slot == 3 { "sgs" } else { "sgi" })
    }

    /// `what` names the operation in the error (formatted only then: it is `Display`, not a
    /// `String` built for every expression).
    fn typed(&mut self, o: Operand, ty: Ty, what: impl std::fmt::Display) -> R<String> {
        let (s, t) = self.operand(o)?;
        if t != ty {
            return Err(format!("{what}: operand {s} has type {} where {} is required", ty_name(t), ty_name(ty)));
        }
        Ok(s)
    }

    /// Shared memory as `atomic<u64>` doublewords (`Kernel::shared_dwords`). Loads are
    /// branchless like the word arrays' (an out-of-range index reads doubleword 0, yields 0);
    /// atomics branch.
    fn shared64(&self) -> Mem {
        Mem {
            kind: "shared64",
            prefix: self.kp.clone(),
            array: Some(format!("{}shared", self.kp)),
            in_range: format!("i < {}u", self.k.shared_words.div_ceil(2)),
            safe: Some(0),
            fault: abi::FAULT_SHARED_OUT_OF_RANGE,
            atomic: true,
            wide: true,
        }
    }

    /// `memory` as words; shared memory that is doublewords (`Kernel::shared_dwords`) is
    /// invalid here.
    fn word_mem(&self, memory: Memory) -> R<Mem> {
        if memory == Memory::Shared && self.shared_dwords {
            return Err("a word access to shared memory that is doublewords (only AtomicDword reaches it)".into());
        }
        Ok(self.mem(memory))
    }

    fn mem(&self, memory: Memory) -> Mem {
        let p = &self.m.p;
        match memory {
            // The heap and each segment slot: the same word array at its own binding.
            Memory::Heap | Memory::Segment(_) => {
                let kind = match memory {
                    Memory::Segment(j) => SEGMENT_KINDS.get(j as usize).copied().unwrap_or("segment"),
                    _ => "heap",
                };
                Mem {
                    kind,
                    prefix: p.clone(),
                    array: Some(format!("{p}{kind}")),
                    in_range: format!("i >= {}u && i < arrayLength(&{p}{kind})", abi::HEAP_RESERVED_WORDS),
                    safe: Some(abi::HEAP_SINK_WORD),
                    fault: abi::FAULT_GLOBAL_OUT_OF_RANGE,
                    atomic: self.m.heap_atomic,
                    wide: false,
                }
            }
            Memory::Param => Mem {
                kind: "params",
                prefix: p.clone(),
                array: Some(format!("{p}params")),
                in_range: format!("i < arrayLength(&{p}params)"),
                safe: Some(0),
                fault: abi::FAULT_PARAM_OUT_OF_RANGE,
                atomic: false,
                wide: false,
            },
            Memory::Shared => Mem {
                kind: "shared",
                prefix: self.kp.clone(),
                array: (self.k.shared_words > 0).then(|| format!("{}shared", self.kp)),
                in_range: format!("i < {}u", self.k.shared_words),
                safe: Some(0),
                fault: abi::FAULT_SHARED_OUT_OF_RANGE,
                atomic: self.shared_atomic,
                wide: false,
            },
            Memory::Local => Mem {
                kind: "local",
                prefix: self.kp.clone(),
                array: private_local_words(self.k).map(|_| format!("{}local", self.kp)),
                in_range: format!("i < {}u", self.k.local_words),
                safe: Some(0),
                fault: abi::FAULT_LOCAL_OUT_OF_RANGE,
                atomic: false,
                wide: false,
            },
            Memory::Scratch => Mem {
                kind: "scratch",
                prefix: p.clone(),
                array: Some(format!("{p}scratch")),
                in_range: format!("i < arrayLength(&{p}scratch)"),
                // The thread's slice is checked by `lower` (an access outside it changes
                // nothing); the buffer's own bound keeps its branch in stores (`mem_load`).
                safe: None,
                fault: abi::FAULT_LOCAL_OUT_OF_RANGE,
                atomic: self.m.scratch_atomic,
                wide: false,
            },
        }
    }

    /// An operand of a float arithmetic op or comparison, XOR-ed on its bits with a run-time
    /// zero the compiler cannot see through (`px_z0`/`px_z1`, computed from the parameter
    /// header's `abi::PARAM_ONE_F32_WORD`). WGSL cannot say SPIR-V's NoContraction, and drivers
    /// rewrite float code inexactly where they may (Mesa/lavapipe changed mandelbrot's
    /// iteration counts; multiplying products by an opaque 1.0 did not help). Hidden operands
    /// leave each IR op one correctly rounded operation. `slot` 0/1: lhs/rhs get different
    /// zeros, so that `x - x` cannot be folded either.
    /// Whether operand `o` of a float op must be hidden ([`KernelCx::hide`]): a constant, or a
    /// variable that may hold the result of an operation (see [`opaque_vars`]). A variable
    /// that only ever holds memory words, built-ins or copies of them is opaque to the
    /// driver already: no rule can fuse, reassociate or fold through it. (The ops whose
    /// rewrites need no producer, `a - a`, `a / a` and comparisons, hide every operand.)
    fn exposed(&self, o: Operand) -> bool {
        match o {
            Operand::Const(_) => true,
            Operand::Var(v) => !self.opaque.get(v.index()).copied().unwrap_or(false),
        }
    }

    fn hide(&mut self, s: String, ty: Ty, slot: usize) -> String {
        self.zeros[slot] = true;
        let f = self.m.hide_fn(ty);
        format!("{f}({s}, {}z{slot})", self.m.p)
    }

    fn unary(&mut self, op: UnaryOp, ty: Ty, arg: Operand) -> R<(String, Ty)> {
        let what = OpName(&op, ty);
        let a = self.typed(arg, ty, &what)?;
        let bad = || Err(format!("{op:?} is not defined on {}", ty_name(ty)));
        let s = match op {
            UnaryOp::Not => match ty {
                Ty::Bool => format!("!{a}"),
                Ty::U32 | Ty::U64 => format!("~{a}"),
                _ => return bad(),
            },
            UnaryOp::Neg => match ty {
                Ty::U32 => format!("0u - {a}"),
                Ty::U64 => format!("0lu - {a}"),
                _ => return bad(),
            },
            UnaryOp::FNeg | UnaryOp::FAbs => {
                let (t, u, sign, rest) = match ty {
                    Ty::F32 => ("f32", "u32", "0x80000000u", "0x7fffffffu"),
                    Ty::F64 => ("f64", "u64", "0x8000000000000000lu", "0x7ffffffffffffffflu"),
                    _ => return bad(),
                };
                if op == UnaryOp::FNeg {
                    format!("bitcast<{t}>(bitcast<{u}>({a}) ^ {sign})")
                } else {
                    format!("bitcast<{t}>(bitcast<{u}>({a}) & {rest})")
                }
            }
            UnaryOp::FSqrt => {
                if !ty.is_float() {
                    return bad();
                }
                let a = self.hide(a, ty, 0);
                format!("sqrt({a})")
            }
            UnaryOp::FFloor | UnaryOp::FCeil | UnaryOp::FTrunc | UnaryOp::FRoundEven => {
                if !ty.is_float() {
                    return bad();
                }
                let f = self.m.round_fn(op, ty);
                format!("{f}({a})")
            }
            UnaryOp::Popcount => match ty {
                Ty::U32 => format!("countOneBits({a})"),
                Ty::U64 => format!("countOneBits(u32({a})) + countOneBits(u32({a} >> 32u))"),
                _ => return bad(),
            },
            UnaryOp::CountLeadingZeros => match ty {
                Ty::U32 => format!("countLeadingZeros({a})"),
                Ty::U64 => format!(
                    "select(countLeadingZeros(u32({a} >> 32u)), 32u + countLeadingZeros(u32({a})), u32({a} >> 32u) == 0u)"
                ),
                _ => return bad(),
            },
            UnaryOp::BitReverse => match ty {
                Ty::U32 => format!("reverseBits({a})"),
                Ty::U64 => format!("(u64(reverseBits(u32({a}))) << 32u) | u64(reverseBits(u32({a} >> 32u)))"),
                _ => return bad(),
            },
        };
        let rty = match op {
            UnaryOp::Popcount | UnaryOp::CountLeadingZeros => Ty::U32,
            _ => ty,
        };
        Ok((s, rty))
    }

    fn binary(&mut self, op: BinaryOp, ty: Ty, lhs: Operand, rhs: Operand) -> R<(String, Ty)> {
        use BinaryOp::*;
        let what = OpName(&op, ty);
        let a = self.typed(lhs, ty, &what)?;
        let shift = matches!(op, Shl | ShrU | ShrS);
        let b = self.typed(rhs, if shift { Ty::U32 } else { ty }, &what)?;
        let bad = || Err(format!("{op:?} is not defined on {}", ty_name(ty)));
        let int = ty.is_int();
        // Preconditions that are visible statically (a WGSL compiler rejects these outright).
        if let Operand::Const(c) = rhs {
            if shift && int && c.bits() >= ty.bits() as u64 {
                return Err(format!("{op:?}.{}: shift amount {} is not below the width", ty_name(ty), c.bits()));
            }
            if matches!(op, DivU | DivS | RemU | RemS) && int && c.bits() == 0 {
                return Err(format!("{op:?}.{}: division by the constant 0", ty_name(ty)));
            }
        }
        let (i, u) = signed_of(ty);
        let s = match op {
            And | Or | Xor if ty == Ty::Bool => {
                let o = match op {
                    And => "&&",
                    Or => "||",
                    _ => "!=",
                };
                infix(&a, o, &b)
            }
            Add | Sub | Mul | DivU | RemU | And | Or | Xor | Shl | ShrU if int => {
                let o = match op {
                    Add => "+",
                    Sub => "-",
                    Mul => "*",
                    DivU => "/",
                    RemU => "%",
                    And => "&",
                    Or => "|",
                    Xor => "^",
                    Shl => "<<",
                    _ => ">>",
                };
                infix(&a, o, &b)
            }
            DivS | RemS if int => {
                let o = if op == DivS { "/" } else { "%" };
                format!("bitcast<{u}>(bitcast<{i}>({a}) {o} bitcast<{i}>({b}))")
            }
            ShrS if int => format!("bitcast<{u}>(bitcast<{i}>({a}) >> {b})"),
            MinU | MaxU if int => {
                let f = if op == MinU { "min" } else { "max" };
                format!("{f}({a}, {b})")
            }
            MinS | MaxS if int => {
                let f = if op == MinS { "min" } else { "max" };
                format!("bitcast<{u}>({f}(bitcast<{i}>({a}), bitcast<{i}>({b})))")
            }
            MulHiU | MulHiS if int => {
                let signed = op == MulHiS;
                if ty == Ty::U32 && self.int64 {
                    if signed {
                        format!("u32(bitcast<u64>(i64(bitcast<i32>({a})) * i64(bitcast<i32>({b}))) >> 32u)")
                    } else {
                        format!("u32((u64({a}) * u64({b})) >> 32u)")
                    }
                } else {
                    let f = self.m.mulhi_fn(ty, signed);
                    format!("{f}({a}, {b})")
                }
            }
            FAdd | FSub | FMul | FDiv if ty.is_float() => {
                let o = match op {
                    FAdd => "+",
                    FSub => "-",
                    FMul => "*",
                    _ => "/",
                };
                // `a - a` and `a / a` fold inexactly whatever `a` is: always hidden.
                let always = matches!(op, FSub | FDiv);
                let a = if always || self.exposed(lhs) { self.hide(a, ty, 0) } else { a };
                let b = if always || self.exposed(rhs) { self.hide(b, ty, 1) } else { b };
                format!("{a} {o} {b}")
            }
            FMin | FMax if ty.is_float() => {
                let f = if op == FMin { "min" } else { "max" };
                let a = if self.exposed(lhs) { self.hide(a, ty, 0) } else { a };
                let b = if self.exposed(rhs) { self.hide(b, ty, 1) } else { b };
                format!("{f}({a}, {b})")
            }
            _ => return bad(),
        };
        Ok((s, ty))
    }

    fn compare(&mut self, op: CmpOp, ty: Ty, lhs: Operand, rhs: Operand) -> R<(String, Ty)> {
        use CmpOp::*;
        let what = OpName(&op, ty);
        let a = self.typed(lhs, ty, &what)?;
        let b = self.typed(rhs, ty, &what)?;
        let sym = match op {
            Eq | FEq => "==",
            Ne | FNe => "!=",
            LtU | LtS | FLt => "<",
            LeU | LeS | FLe => "<=",
            GtU | GtS | FGt => ">",
            GeU | GeS | FGe => ">=",
        };
        let s = match op {
            Eq | Ne if !ty.is_float() => infix(&a, sym, &b),
            LtU | LeU | GtU | GeU if ty.is_int() => infix(&a, sym, &b),
            LtS | LeS | GtS | GeS if ty.is_int() => {
                let (i, _) = signed_of(ty);
                format!("bitcast<{i}>({a}) {sym} bitcast<{i}>({b})")
            }
            FEq | FNe | FLt | FLe | FGt | FGe if ty.is_float() => {
                let ord = self.m.ordered_fn(ty);
                let (ha, hb) = (self.hide(a.clone(), ty, 0), self.hide(b.clone(), ty, 1));
                format!("{ord}({a}, {b}) && ({ha} {sym} {hb})")
            }
            _ => return Err(format!("{op:?} is not defined on {}", ty_name(ty))),
        };
        Ok((s, Ty::Bool))
    }

    fn convert(&mut self, op: ConvertOp, from: Ty, to: Ty, arg: Operand) -> R<(String, Ty)> {
        use ConvertOp::*;
        let what = ConvertName(&op, from, to);
        let a = self.typed(arg, from, &what)?;
        let t = wgsl_ty(to);
        let s = match (op, from, to) {
            (Truncate, Ty::U64, Ty::U32) => format!("u32({a})"),
            (ZeroExtend, Ty::U32, Ty::U64) => format!("u64({a})"),
            (SignExtend, Ty::U32, Ty::U64) => format!("bitcast<u64>(i64(bitcast<i32>({a})))"),
            (FloatToUint, Ty::F32 | Ty::F64, Ty::U32 | Ty::U64) => format!("{t}({a})"),
            (FloatToSint, Ty::F32 | Ty::F64, Ty::U32 | Ty::U64) => {
                let (i, u) = signed_of(to);
                format!("bitcast<{u}>({i}({a}))")
            }
            (UintToFloat, Ty::U32, Ty::F32) => {
                let f = self.m.u32_to_f32_fn();
                format!("{f}({a})")
            }
            (UintToFloat, Ty::U32 | Ty::U64, Ty::F32 | Ty::F64) => format!("{t}({a})"),
            (SintToFloat, Ty::U32 | Ty::U64, Ty::F32 | Ty::F64) => {
                let (i, _) = signed_of(from);
                format!("{t}(bitcast<{i}>({a}))")
            }
            (FloatToFloat, Ty::F32, Ty::F64) | (FloatToFloat, Ty::F64, Ty::F32) => format!("{t}({a})"),
            (Bitcast, Ty::U32, Ty::F32)
            | (Bitcast, Ty::F32, Ty::U32)
            | (Bitcast, Ty::U64, Ty::F64)
            | (Bitcast, Ty::F64, Ty::U64) => format!("bitcast<{t}>({a})"),
            _ => return Err(format!("conversion {what} is not defined")),
        };
        Ok((s, to))
    }

    fn expr(&mut self, e: &Expr) -> R<(String, Ty)> {
        // An operation whose operands are all constants would be a WGSL const-expression,
        // evaluated by the shader compiler, where overflow, NaN and infinity are creation
        // errors (`3u << 31u`, `sqrt(-1f)`, `3e38f * 10f`), unlike at run time. One operand is
        // passed through an identity function to keep the operation a runtime one.
        // (An array and its length, not a `Vec`: one allocation per expression otherwise.)
        let none = Operand::Const(Const::Bool(false));
        let (operands, n): ([Operand; 3], usize) = match e {
            // (A call's arguments are the function's parameters: not constant-evaluated.)
            Expr::Use(_) | Expr::Builtin(_) | Expr::Call { .. } => ([none; 3], 0),
            Expr::Unary { arg, .. } | Expr::Convert { arg, .. } => ([*arg, none, none], 1),
            Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => ([*lhs, *rhs, none], 2),
            Expr::Fma { a, b, c, .. } => ([*a, *b, *c], 3),
            Expr::Select { cond, a, b, .. } => ([*cond, *a, *b], 3),
            // Calls of helper functions: never constant-evaluated.
            Expr::LoadWord { .. }
            | Expr::LoadDword { .. }
            | Expr::AtomicWord { .. }
            | Expr::AtomicDword { .. }
            | Expr::SharedUniformLoad { .. }
            | Expr::WarpBallot { .. }
            | Expr::WarpShuffle { .. } => ([none; 3], 0),
        };
        let operands = &operands[..n];
        // (Float arithmetic and comparisons hide their operands anyway, see `hide`.)
        let hidden = match e {
            Expr::Unary { op: UnaryOp::FSqrt, .. } | Expr::Fma { .. } => true,
            Expr::Binary { op, .. } => matches!(
                op,
                BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv | BinaryOp::FMin | BinaryOp::FMax
            ),
            Expr::Compare { op, .. } => {
                matches!(op, CmpOp::FEq | CmpOp::FNe | CmpOp::FLt | CmpOp::FLe | CmpOp::FGt | CmpOp::FGe)
            }
            _ => false,
        };
        self.opaque_next =
            !hidden && !operands.is_empty() && operands.iter().all(|o| matches!(o, Operand::Const(_)));
        let r = self.expr_inner(e);
        self.opaque_next = false;
        r
    }

    fn expr_inner(&mut self, e: &Expr) -> R<(String, Ty)> {
        match *e {
            Expr::Use(o) => self.operand(o),
            Expr::Call { func, ty, ref args } => {
                let f = self.k.functions.get(func as usize).ok_or_else(|| format!("call of function {func}, which does not exist"))?;
                if f.params.len() != args.len() || f.result_ty != ty {
                    return Err(format!("call of {} with {} arguments of result {}", f.name, args.len(), ty_name(ty)));
                }
                let mut text = self.func_names.get(func as usize).cloned().ok_or("call outside a kernel")?;
                text.push('(');
                for (i, (a, p)) in args.iter().zip(&f.params).enumerate() {
                    let want = f.vars[p.index()].ty;
                    if i > 0 {
                        text.push_str(", ");
                    }
                    text.push_str(&self.typed(*a, want, "call argument")?);
                }
                text.push(')');
                Ok((text, ty))
            }
            Expr::Unary { op, ty, arg } => self.unary(op, ty, arg),
            Expr::Binary { op, ty, lhs, rhs } => self.binary(op, ty, lhs, rhs),
            Expr::Fma { ty, a, b, c } => {
                if !ty.is_float() {
                    return Err(format!("Fma is not defined on {}", ty_name(ty)));
                }
                let a = self.typed(a, ty, "Fma")?;
                let b = self.typed(b, ty, "Fma")?;
                let c = self.typed(c, ty, "Fma")?;
                let (oa, ob, oc) = match *e {
                    Expr::Fma { a, b, c, .. } => (a, b, c),
                    _ => unreachable!(),
                };
                let a = if self.exposed(oa) { self.hide(a, ty, 0) } else { a };
                let b = if self.exposed(ob) { self.hide(b, ty, 1) } else { b };
                let c = if self.exposed(oc) { self.hide(c, ty, 0) } else { c };
                Ok((format!("fma({a}, {b}, {c})"), ty))
            }
            Expr::Compare { op, ty, lhs, rhs } => self.compare(op, ty, lhs, rhs),
            Expr::Select { ty, cond, a, b } => {
                let c = self.typed(cond, Ty::Bool, "Select condition")?;
                let a = self.typed(a, ty, "Select")?;
                let b = self.typed(b, ty, "Select")?;
                Ok((format!("select({b}, {a}, {c})"), ty))
            }
            Expr::Convert { op, from, to, arg } => self.convert(op, from, to, arg),
            Expr::Builtin(Builtin::SubgroupSize) => Ok((self.subgroup_builtin(3), Ty::U32)),
            Expr::Builtin(Builtin::SubgroupInvocationId) => Ok((self.subgroup_builtin(4), Ty::U32)),
            Expr::Builtin(Builtin::HeapWords) => Ok((format!("arrayLength(&{}heap)", self.m.p), Ty::U32)),
            Expr::Builtin(Builtin::SegmentWords(j)) => {
                let kind = SEGMENT_KINDS.get(j as usize).copied().unwrap_or("segment");
                Ok((format!("arrayLength(&{}{kind})", self.m.p), Ty::U32))
            }
            Expr::WarpBallot { pred } => {
                // The word of the subgroup's ballot that holds this invocation's warp.
                let p = self.typed(pred, Ty::Bool, "WarpBallot predicate")?;
                let sgi = self.subgroup_builtin(4);
                Ok((format!("subgroupBallot({p})[{sgi} >> 5u]"), Ty::U32))
            }
            Expr::WarpShuffle { value, lane } => {
                let v = self.typed(value, Ty::U32, "WarpShuffle value")?;
                let l = self.typed(lane, Ty::U32, "WarpShuffle lane")?;
                let sgi = self.subgroup_builtin(4);
                Ok((format!("subgroupShuffle({v}, ({sgi} & ~31u) | ({l} & 31u))"), Ty::U32))
            }
            Expr::Builtin(b) => {
                let (slot, name, d) = match b {
                    Builtin::ThreadId(d) => (0, "lid", d),
                    Builtin::CtaId(d) => (1, "wid", d),
                    Builtin::NumCtas(d) => (2, "nwg", d),
                    Builtin::SubgroupSize | Builtin::SubgroupInvocationId | Builtin::HeapWords | Builtin::SegmentWords(_) => {
                        unreachable!("matched above")
                    }
                };
                let comp = match d {
                    0 => "x",
                    1 => "y",
                    2 => "z",
                    _ => return Err(format!("builtin {b:?}: dimension {d} is not 0, 1 or 2")),
                };
                self.builtins[slot] = true;
                Ok((format!("{}{name}.{comp}", self.m.p), Ty::U32))
            }
            Expr::LoadWord { memory, index } => {
                let i = self.typed(index, Ty::U32, "LoadWord index")?;
                let m = self.word_mem(memory)?;
                let f = self.m.mem_load(&m);
                Ok((format!("{f}({i})"), Ty::U32))
            }
            Expr::SharedUniformLoad { index } => {
                // Inline, not through the bounds-checked helper: `workgroupUniformLoad` must be
                // reached in uniform control flow, and the index is in range (precondition).
                let i = self.typed(index, Ty::U32, "SharedUniformLoad index")?;
                let m = self.word_mem(Memory::Shared)?;
                let a = m.array.ok_or("SharedUniformLoad in a kernel without shared memory")?;
                Ok((format!("workgroupUniformLoad(&{a}[{i}])"), Ty::U32))
            }
            Expr::AtomicWord { memory, op, index, value, comparand } => {
                // Scratch: shared memory that lives there (`Features::scratch_shared_words`).
                if !(memory.is_heap() || memory == Memory::Shared || memory == Memory::Scratch) {
                    return Err(format!("AtomicWord on {memory:?} memory (only Heap, Shared and Scratch)"));
                }
                let i = self.typed(index, Ty::U32, "AtomicWord index")?;
                let v = self.typed(value, Ty::U32, "AtomicWord value")?;
                let m = self.word_mem(memory)?;
                let f = self.m.mem_atomic(&m, op);
                match (op, comparand) {
                    (AtomicOp::CompareExchange, Some(c)) => {
                        let c = self.typed(c, Ty::U32, "AtomicWord comparand")?;
                        Ok((format!("{f}({i}, {c}, {v})"), Ty::U32))
                    }
                    (AtomicOp::CompareExchange, None) => Err("CompareExchange without a comparand".into()),
                    (_, Some(_)) => Err(format!("atomic {op:?} with a comparand (only CompareExchange has one)")),
                    (_, None) => Ok((format!("{f}({i}, {v})"), Ty::U32)),
                }
            }
            Expr::LoadDword { memory, index } => {
                if memory != Memory::Shared || !self.shared_dwords {
                    return Err(format!("LoadDword on {memory:?} memory (only Shared that is doublewords)"));
                }
                let i = self.typed(index, Ty::U32, "LoadDword index")?;
                let m = self.shared64();
                let f = self.m.mem_load(&m);
                Ok((format!("{f}({i})"), Ty::U64))
            }
            Expr::AtomicDword { memory, op, index, value, comparand } => {
                let i = self.typed(index, Ty::U32, "AtomicDword index")?;
                let v = self.typed(value, Ty::U64, "AtomicDword value")?;
                let p = &self.m.p;
                let m = match memory {
                    Memory::Shared if self.shared_dwords => self.shared64(),
                    Memory::Heap => Mem {
                        kind: "heap64",
                        prefix: p.clone(),
                        array: Some(format!("{p}heap64")),
                        in_range: format!("i >= {}u && i < arrayLength(&{p}heap64)", abi::HEAP_RESERVED_WORDS.div_ceil(2)),
                        safe: None,
                        fault: abi::FAULT_GLOBAL_OUT_OF_RANGE,
                        atomic: true,
                        wide: true,
                    },
                    Memory::Segment(j) => {
                        let kind = SEGMENT64_KINDS.get(j as usize).copied().unwrap_or("segment64");
                        Mem {
                            kind,
                            prefix: p.clone(),
                            array: Some(format!("{p}{kind}")),
                            in_range: format!("i >= {}u && i < arrayLength(&{p}{kind})", abi::HEAP_RESERVED_WORDS.div_ceil(2)),
                            safe: None,
                            fault: abi::FAULT_GLOBAL_OUT_OF_RANGE,
                            atomic: true,
                            wide: true,
                        }
                    }
                    _ => return Err(format!("AtomicDword on {memory:?} memory (only Heap, and Shared that is doublewords)")),
                };
                let f = self.m.mem_atomic(&m, op);
                match (op, comparand) {
                    (AtomicOp::CompareExchange, Some(c)) => {
                        let c = self.typed(c, Ty::U64, "AtomicDword comparand")?;
                        Ok((format!("{f}({i}, {c}, {v})"), Ty::U64))
                    }
                    (AtomicOp::CompareExchange, None) => Err("CompareExchange without a comparand".into()),
                    (_, Some(_)) => Err(format!("atomic {op:?} with a comparand (only CompareExchange has one)")),
                    (_, None) => Ok((format!("{f}({i}, {v})"), Ty::U64)),
                }
            }
        }
    }

    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn var_name(&self, v: VarId) -> String {
        let mut s = String::with_capacity(self.kp.len() + 11);
        self.push_var_name(&mut s, v);
        s
    }

    /// Appends `var_name(v)` to `out`.
    fn push_var_name(&self, out: &mut String, v: VarId) {
        if self.parts {
            out.push_str(&self.kp);
        }
        out.push('v');
        push_u32(out, v.0);
    }

    /// A line `{name} = {e};` or `let {name}: {ty} = {e};` at `depth`, written in place.
    fn assign_line(&mut self, depth: usize, dst: VarId, ty: Option<Ty>, e: &str) {
        let mut out = std::mem::take(&mut self.out);
        for _ in 0..depth {
            out.push_str("    ");
        }
        if let Some(t) = ty {
            out.push_str("let ");
            self.push_var_name(&mut out, dst);
            out.push_str(": ");
            out.push_str(wgsl_ty(t));
        } else {
            self.push_var_name(&mut out, dst);
        }
        out.push_str(" = ");
        out.push_str(e);
        out.push_str(";\n");
        self.out = out;
    }

    /// The array of a shared or private local word access proven in range, and whether it is
    /// atomic.
    fn direct_array(&self, m: Memory) -> (String, bool) {
        match m {
            Memory::Shared => (format!("{}shared", self.kp), self.shared_atomic),
            _ => (format!("{}local", self.kp), false),
        }
    }

    /// The array of heap memory `memory` when `v` is an index of it that `lower` has checked.
    fn heap_direct(&self, memory: Memory, v: VarId) -> Option<String> {
        if !memory.is_heap() || self.heap_direct.get(v.index()).copied().flatten() != Some(memory) {
            return None;
        }
        self.mem(memory).array
    }

    fn block(&mut self, b: &Block, depth: usize) -> R<()> {
        self.stmts(&b.stmts, depth)
    }

    fn stmts(&mut self, stmts: &[Stmt], depth: usize) -> R<()> {
        for s in stmts {
            match s {
                Stmt::Assign { dst, expr } => {
                    let dty = match self.k.vars.get(dst.index()) {
                        Some(v) => v.ty,
                        None => return Err(format!("assignment to undeclared variable {dst}")),
                    };
                    let (e, ety) = match expr {
                        // In range for every launch, and not deciding a branch: no check
                        // (`Kernel::direct_param_loads`).
                        Expr::LoadWord { memory: Memory::Param, index }
                            if self.direct_params.get(dst.index()).copied().unwrap_or(false) && self.k.param_word_in_range(*index) =>
                        {
                            let i = self.typed(*index, Ty::U32, "LoadWord index")?;
                            (format!("{}params[{i}]", self.m.p), Ty::U32)
                        }
                        // In range for every launch but kept opaque to the driver (a lavapipe
                        // workaround, `Kernel::direct_param_loads`): the checked load's code
                        // without its fault, which could never fire.
                        Expr::LoadWord { memory: Memory::Param, index } if self.k.param_word_in_range(*index) => {
                            let i = self.typed(*index, Ty::U32, "LoadWord index")?;
                            let f = self.m.params_opaque_load();
                            (format!("{f}({i})"), Ty::U32)
                        }
                        // Checked by `lower` (`Kernel::heap_indices_in_range`): no check here.
                        Expr::LoadWord { memory, index: index @ Operand::Var(v) } if self.heap_direct(*memory, *v).is_some() => {
                            let i = self.typed(*index, Ty::U32, "LoadWord index")?;
                            let a = format!("{}[{i}]", self.heap_direct(*memory, *v).unwrap_or_default());
                            (if self.m.heap_atomic { format!("atomicLoad(&{a})") } else { a }, Ty::U32)
                        }
                        // In range by the value facts (`Kernel::index_in_range`): no check.
                        Expr::LoadWord { memory: m @ (Memory::Shared | Memory::Local), index } if self.k.index_in_range(*m, *index, &self.facts) => {
                            let i = self.typed(*index, Ty::U32, "LoadWord index")?;
                            let (a, atomic) = self.direct_array(*m);
                            (if atomic { format!("atomicLoad(&{a}[{i}])") } else { format!("{a}[{i}]") }, Ty::U32)
                        }
                        _ => self.expr(expr)?,
                    };
                    if ety != dty {
                        return Err(format!(
                            "{dst} has type {} but is assigned a {} ({expr:?})",
                            ty_name(dty),
                            ty_name(ety)
                        ));
                    }
                    if self.k.fault_site_var == Some(*dst) && self.m.site {
                        // The running instruction's fault site (see `ModuleCx::site`).
                        self.line(depth, &format!("{}site = {e};", self.m.p));
                    } else if self.lets.get(dst.index()).copied().unwrap_or(false) {
                        self.assign_line(depth, *dst, Some(dty), &e);
                    } else {
                        self.assign_line(depth, *dst, None, &e);
                    }
                }
                Stmt::StoreWord { memory, index, value } => {
                    if *memory == Memory::Param {
                        return Err("StoreWord on Param memory (read-only)".into());
                    }
                    let i = self.typed(*index, Ty::U32, "StoreWord index")?;
                    let v = self.typed(*value, Ty::U32, "StoreWord value")?;
                    if let Operand::Var(x) = index {
                        if let Some(array) = self.heap_direct(*memory, *x) {
                            // Checked by `lower` (`Kernel::heap_indices_in_range`).
                            let a = format!("{array}[{i}]");
                            let line = if self.m.heap_atomic { format!("atomicStore(&{a}, {v});") } else { format!("{a} = {v};") };
                            self.line(depth, &line);
                            continue;
                        }
                    }
                    if matches!(memory, Memory::Shared | Memory::Local) && self.k.index_in_range(*memory, *index, &self.facts) {
                        // In range by the value facts (`Kernel::index_in_range`).
                        let (a, atomic) = self.direct_array(*memory);
                        let line = if atomic { format!("atomicStore(&{a}[{i}], {v});") } else { format!("{a}[{i}] = {v};") };
                        self.line(depth, &line);
                        continue;
                    }
                    let m = self.word_mem(*memory)?;
                    let f = self.m.mem_store(&m);
                    self.line(depth, &format!("{f}({i}, {v});"));
                }
                Stmt::If { cond, then_body, else_body }
                    if else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]) =>
                {
                    // `if (c) { fault }` (lower's alignment checks): deferred, without a branch.
                    let Stmt::Fault { code } = then_body.stmts[0] else { unreachable!() };
                    let c = self.typed(*cond, Ty::Bool, "If condition")?;
                    let f = self.m.defer_fn();
                    self.line(depth, &format!("{f}({c}, {code}u);"));
                }
                Stmt::If { cond, then_body, else_body } => {
                    let c = self.typed(*cond, Ty::Bool, "If condition")?;
                    self.line(depth, &format!("if ({c}) {{"));
                    self.block(then_body, depth + 1)?;
                    if !else_body.stmts.is_empty() {
                        self.line(depth, "} else {");
                        self.block(else_body, depth + 1)?;
                    }
                    self.line(depth, "}");
                }
                Stmt::Loop { body } => {
                    self.line(depth, "loop {");
                    if !loop_can_exit(body) {
                        // WGSL rejects a loop without a `break` or `return` ("loop does not
                        // exit", Tint); this one never ends, as the IR says. A never-taken exit
                        // satisfies the rule without changing that.
                        self.line(depth + 1, "if (false) { break; } // the IR loop has no exit");
                    }
                    self.breakable.push(true);
                    self.block(body, depth + 1)?;
                    self.breakable.pop();
                    self.line(depth, "}");
                }
                Stmt::Switch {
                    selector,
                    cases,
                    default,
                } => {
                    let sel = self.typed(*selector, Ty::U32, "Switch selector")?;
                    self.line(depth, &format!("switch ({sel}) {{"));
                    self.breakable.push(false);
                    let mut seen = HashSet::new();
                    for c in cases {
                        if c.values.is_empty() {
                            return Err("a switch case without values".into());
                        }
                        if let Some(v) = c.values.iter().find(|&&v| !seen.insert(v)) {
                            return Err(format!("switch case value {v} appears twice"));
                        }
                        let values: Vec<String> =
                            c.values.iter().map(|v| format!("{v}u")).collect();
                        self.line(depth + 1, &format!("case {}: {{", values.join(", ")));
                        self.block(&c.body, depth + 2)?;
                        self.line(depth + 1, "}");
                    }
                    self.line(depth + 1, "default: {");
                    self.block(default, depth + 2)?;
                    self.line(depth + 1, "}");
                    self.breakable.pop();
                    self.line(depth, "}");
                }
                Stmt::Break | Stmt::Continue => {
                    match self.breakable.last() {
                        None => return Err(format!("{s:?} outside of a loop")),
                        Some(false) => return Err(format!("{s:?} directly inside a switch case")),
                        Some(true) => {}
                    }
                    self.line(depth, if matches!(s, Stmt::Break) { "break;" } else { "continue;" });
                    return Ok(()); // the rest of the block is unreachable
                }
                Stmt::Return => {
                    if self.parts {
                        self.line(depth, "return true;");
                    } else if self.k.defers_faults() {
                        let f = self.m.flush_fn();
                        self.line(depth, &format!("{f}();"));
                        self.line(depth, "return;");
                    } else {
                        self.line(depth, "return;");
                    }
                    return Ok(());
                }
                Stmt::Barrier => {
                    // Orders heap (storage) and shared (workgroup) memory; both are
                    // workgroup-scope control barriers, reached uniformly (lower's guarantee).
                    self.line(depth, "storageBarrier();");
                    self.line(depth, "workgroupBarrier();");
                }
                Stmt::SharedBarrier => self.line(depth, "workgroupBarrier();"),
                Stmt::Fault { code } => {
                    let f = self.m.fault_fn();
                    self.line(depth, &format!("{f}({code}u);"));
                }
                Stmt::Fence { .. } => return Err("Fence reached the writer (write_module refuses it)".into()),
            }
        }
        Ok(())
    }
}

/// WGSL's statement behaviors (spec: "behavior analysis"), on the IR: which of `Next`,
/// `Break`, `Continue`, `Return` a statement can end with. Statements after one that cannot
/// end with `Next` are ignored, as WGSL does.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Behaviors {
    next: bool,
    brk: bool,
    cont: bool,
    ret: bool,
}

fn block_behaviors(b: &Block) -> Behaviors {
    stmts_behaviors(&b.stmts)
}

fn stmts_behaviors(stmts: &[Stmt]) -> Behaviors {
    let mut acc = Behaviors { next: true, ..Default::default() };
    for s in stmts {
        if !acc.next {
            break;
        }
        let sb = match s {
            Stmt::Break => Behaviors { brk: true, ..Default::default() },
            Stmt::Continue => Behaviors { cont: true, ..Default::default() },
            Stmt::Return => Behaviors { ret: true, ..Default::default() },
            Stmt::If { then_body, else_body, .. } => {
                let (t, e) = (block_behaviors(then_body), block_behaviors(else_body));
                Behaviors { next: t.next || e.next, brk: t.brk || e.brk, cont: t.cont || e.cont, ret: t.ret || e.ret }
            }
            Stmt::Switch { cases, default, .. } => cases
                .iter()
                .map(|c| &c.body)
                .chain([default])
                .fold(Behaviors::default(), |acc, b| {
                    let x = block_behaviors(b);
                    Behaviors {
                        next: acc.next || x.next,
                        brk: acc.brk || x.brk,
                        cont: acc.cont || x.cont,
                        ret: acc.ret || x.ret,
                    }
                }),
            Stmt::Loop { body } => {
                let lb = block_behaviors(body);
                // A loop without an exit gets one (see `KernelCx::block`), hence `next` then too.
                // (`lb` is computed once per loop: recomputing it for the exit test would be
                // exponential in the nesting of loops.)
                let exits = lb.brk || lb.ret;
                Behaviors { next: lb.brk || !exits, ret: lb.ret, ..Default::default() }
            }
            _ => Behaviors { next: true, ..Default::default() },
        };
        acc = Behaviors { next: sb.next, brk: acc.brk || sb.brk, cont: acc.cont || sb.cont, ret: acc.ret || sb.ret };
    }
    acc
}

/// Whether WGSL sees a way out of a loop with this body (a reachable `break` or `return`).
fn loop_can_exit(body: &Block) -> bool {
    let b = block_behaviors(body);
    b.brk || b.ret
}

/// A line comment's text: printable ASCII only (a WGSL line comment ends at any line break).
fn comment_text(s: &str) -> String {
    s.chars().map(|c| if c == ' ' || c.is_ascii_graphic() { c } else { '?' }).collect()
}

fn check_entry_point(name: &str) -> R<()> {
    let mut chars = name.chars();
    let ok_start = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_');
    if !ok_start || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || name == "_" || name.starts_with("__")
    {
        return Err(format!("entry point name {name:?} is not a WGSL identifier"));
    }
    if naga::keywords::wgsl::RESERVED.contains(&name) {
        return Err(format!("entry point name {name:?} is a WGSL keyword or reserved word"));
    }
    // A predeclared name (`transpose`, `min`, …) may be shadowed by a function, as long as the
    // module does not use the predeclared one: checked on the text (`shadowed_builtins`).
    Ok(())
}

/// Entry points named like a predeclared WGSL identifier that the text also uses (so the
/// entry point would shadow it): the name occurs as a token outside comments other than in its
/// own `fn NAME(`.
fn shadowed_builtins<'m>(module: &'m Module, text: &str) -> Vec<&'m Kernel> {
    let suspects: Vec<&Kernel> = module
        .kernels
        .iter()
        .filter(|k| naga::keywords::wgsl::BUILTIN_IDENTIFIERS.contains(&k.entry_point.as_str()))
        .collect();
    if suspects.is_empty() {
        return Vec::new();
    }
    let mut counts = std::collections::HashMap::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut token = String::new();
        for c in code.chars().chain(std::iter::once(' ')) {
            if c.is_ascii_alphanumeric() || c == '_' {
                token.push(c);
            } else if !token.is_empty() {
                *counts.entry(std::mem::take(&mut token)).or_insert(0usize) += 1;
            }
        }
    }
    suspects.into_iter().filter(|k| counts.get(&k.entry_point).copied().unwrap_or(0) > 1).collect()
}

/// How deeply `if`/`loop`/`switch` statements nest in `body`, computed without recursion (so
/// that no IR can overflow the stack here; the emitter recurses only after this check). A loop
/// counts one more level if it needs the never-taken exit (conservatively: loops always do
/// here); a switch counts two (the switch and its case braces).
fn nesting_depth(body: &Block) -> usize {
    let mut max = 0;
    let mut stack: Vec<(&Block, usize)> = vec![(body, 0)];
    while let Some((b, d)) = stack.pop() {
        for s in &b.stmts {
            match s {
                Stmt::If { then_body, else_body, .. } => {
                    max = max.max(d + 1);
                    stack.push((then_body, d + 1));
                    stack.push((else_body, d + 1));
                }
                Stmt::Loop { body } => {
                    max = max.max(d + 2);
                    stack.push((body, d + 1));
                }
                Stmt::Switch { cases, default, .. } => {
                    max = max.max(d + 2);
                    stack.extend(cases.iter().map(|c| (&c.body, d + 2)));
                    stack.push((default, d + 2));
                }
                _ => {}
            }
        }
    }
    max
}

/// The deepest `if`/`loop` nesting a profile's WGSL compilers accept. WGSL's limit is 127
/// nested brace-enclosed statements in a function (naga: 127 braces, the function's own
/// included); Tint counts each `if`/`loop` twice (statement and block): 62 nested ifs pass,
/// 63 do not (measured with Chromium 13x's Tint).
fn max_nesting(profile: Profile) -> usize {
    match profile {
        Profile::Wgpu => 126,
        Profile::WebGpu => 62,
    }
}

/// Writes the module (not yet validated), prepared by `lower`'s `Emission`: plain heap loads
/// as calls of one function per kernel, the kernels' analyses.
pub fn write_module(em: &Emission, profile: Profile) -> Result<String, EmitError> {
    let module = em.module();
    let invalid = |k: &Kernel, message: String| EmitError::InvalidIr { kernel: k.name.clone(), message };

    // Checks that need no text: nesting (first: the rest recurses), names, shapes, profile.
    for k in &module.kernels {
        let depth = nesting_depth(&k.body);
        if depth > max_nesting(profile) {
            return Err(EmitError::Unsupported {
                kernel: k.name.clone(),
                message: format!(
                    "the control flow of kernel {} nests {depth} levels deep; the {profile} profile's WGSL compilers accept at most {}",
                    k.name,
                    max_nesting(profile)
                ),
            });
        }
    }
    let mut seen = HashSet::new();
    let usages: Vec<Usage> = module.kernels.iter().map(kernel_usage).collect();
    for (k, u) in module.kernels.iter().zip(&usages) {
        check_entry_point(&k.entry_point).map_err(|m| invalid(k, m))?;
        if !seen.insert(k.entry_point.as_str()) {
            return Err(invalid(k, format!("entry point name {:?} is used twice", k.entry_point)));
        }
        // Device limits (shared memory size, …) are the host's to check; this is what a WGSL
        // array type can be at all: naga, 2^31 - 1 bytes; Tint, fewer than 65536 elements.
        let max_words = match profile {
            Profile::Wgpu => i32::MAX as u64 / 4,
            Profile::WebGpu => 65535,
        };
        for (what, words) in [("shared", k.shared_words), ("local", private_local_words(k).unwrap_or(0))] {
            if words as u64 > max_words {
                return Err(EmitError::Unsupported {
                    kernel: k.name.clone(),
                    message: format!(
                        "kernel {} needs {words} words of {what} memory, more than a WGSL array can hold in the {profile} profile ({max_words})",
                        k.name
                    ),
                });
            }
        }
        if k.workgroup_size.contains(&0) {
            return Err(invalid(k, format!("workgroup size {:?} has a zero dimension", k.workgroup_size)));
        }
        if let Some(s) = k.recorded_site(k.features.wide_lock_site).filter(|_| u.fence) {
            return Err(EmitError::Unsupported {
                kernel: k.name.clone(),
                message: format!(
                    "kernel {}: `{}` at line {}:{} is a strong 16-byte access, which must be one access (NVIDIA performs \
                     it whole; CUB's scan look-back relies on it); WGSL has no atomic wider than 8 bytes, and the lock \
                     that makes it whole on the spirv backend needs memory fences, which WGSL cannot express outside a \
                     barrier: use the spirv backend",
                    k.name, s.instruction, s.line, s.col
                ),
            });
        }
        if u.fence {
            // The instruction `lower` recorded as the first to need one.
            let site = k
                .recorded_site(k.features.fence_site)
                .map(|s| format!("; the first instruction that needs one: `{}` at line {}:{}", s.instruction, s.line, s.col))
                .unwrap_or_default();
            return Err(EmitError::Unsupported {
                kernel: k.name.clone(),
                message: format!(
                    "kernel {} needs a memory fence outside a barrier (PTX `fence`/`membar` wider than .cta, or an \
                     .acquire/.release access), which WGSL cannot express: use the spirv backend{site}",
                    k.name
                ),
            });
        }
        if profile == Profile::WebGpu {
            let what = if k.features.native_warps {
                // Browsers' WGSL needs `enable subgroups;`, which naga does not parse yet; their
                // subgroups (SwiftShader: 4) do not hold whole warps anyway.
                Some("native warp collectives (translate with the emulated ones)")
            } else if u.int64 {
                Some("64-bit integers")
            } else if u.float64 {
                Some("64-bit floats (f64)")
            } else {
                None
            };
            if let Some(what) = what {
                return Err(EmitError::Unsupported {
                    kernel: k.name.clone(),
                    message: format!("the webgpu profile does not support {what} yet (kernel {})", k.name),
                });
            }
        }
    }

    // A prefix no entry point starts with, so invented names never collide with them.
    let mut p = "px_".to_string();
    let mut n = 0;
    while module.kernels.iter().any(|k| k.entry_point.starts_with(&p)) {
        n += 1;
        p = format!("px{n}_");
    }
    let heap_atomic = usages.iter().any(|u| u.heap_atomics);
    let heap_atomic64 = usages.iter().any(|u| u.heap_atomics64);
    let site = module.kernels.iter().any(|k| k.fault_site_var.is_some());
    let scratch_atomic = usages.iter().any(|u| u.scratch_atomics);
    let mut m = ModuleCx { profile, p: p.clone(), heap_atomic, scratch_atomic, site, helpers: BTreeMap::new(), functions: HashMap::new() };

    let mut decls = String::new();
    let mut entries = String::new();
    let multi = module.kernels.len() > 1;
    for (ki, (k, u)) in module.kernels.iter().zip(&usages).enumerate() {
        let kp = if multi { format!("{p}k{ki}_") } else { p.clone() };
        let mut func_names = Vec::with_capacity(k.functions.len());
        for f in &k.functions {
            func_names.push(emit_function(&mut m, k, f).map_err(|msg| invalid(k, msg))?);
        }
        let a = em.analyses(ki);
        let values = &a.values;
        let mut cx = KernelCx {
            m: &mut m,
            k,
            kp: kp.clone(),
            int64: u.int64 || u.float64,
            shared_atomic: u.shared_atomics,
            shared_dwords: u.shared_atomics64 && k.shared_words > 0,
            builtins: [false; 5],
            out: String::new(),
            breakable: Vec::new(),
            opaque_next: false,
            direct_params: a.direct_params.clone(),
            heap_direct: a.heap_direct.clone(),
            facts: a.facts.clone(),
            opaque: opaque_vars(k),
            zeros: [false; 2],
            parts: false,
            lets: Vec::new(),
            func_names,
        };
        let parts = split_into_parts(&k.body.stmts, u);
        cx.parts = parts.len() > 1;
        let mut lets = let_vars(k, values, cx.parts);
        cx.lets = lets.clone();
        if cx.m.site {
            // Written as the module's `px_site` (see `ModuleCx::site`): no declaration either.
            if let Some(l) = k.fault_site_var.and_then(|f| lets.get_mut(f.index())) {
                *l = true;
            }
        }
        // WGSL's workgroup variables start at zero: no zeroing prologue (`lower`'s
        // `zeroing_prologue`). A kernel with one has a barrier, so it is never split.
        let skip = ptxcross_lower::zeroing_prologue(k);
        let mut part_bodies = Vec::new();
        for part in &parts {
            if skip.is_empty() || parts.len() > 1 {
                cx.stmts(part, 1).map_err(|msg| invalid(k, msg))?;
            } else {
                let mut from = 0;
                for &i in skip.iter().chain(std::iter::once(&part.len())) {
                    cx.stmts(&part[from..i.min(part.len())], 1).map_err(|msg| invalid(k, msg))?;
                    from = i + 1;
                }
            }
            part_bodies.push(std::mem::take(&mut cx.out));
        }
        let builtins = cx.builtins;
        let zeros = cx.zeros;

        if k.shared_words > 0 || private_local_words(k).is_some() {
            let _ = writeln!(decls, "// kernel {}", comment_text(&k.name));
        }
        if u.shared_atomics64 && k.shared_words > 0 {
            let _ = writeln!(decls, "var<workgroup> {kp}shared: array<atomic<u64>, {}>;", k.shared_words.div_ceil(2));
        } else if k.shared_words > 0 {
            let t = if u.shared_atomics { "atomic<u32>" } else { "u32" };
            let _ = writeln!(decls, "var<workgroup> {kp}shared: array<{t}, {}>;", k.shared_words);
        }
        if let Some(words) = private_local_words(k) {
            let _ = writeln!(decls, "var<private> {kp}local: array<u32, {words}>;");
        }

        // WGSL (naga) refuses the subgroup built-ins in a workgroup of more than one
        // dimension. PTX numbers a CTA's threads x fastest, as `local_invocation_index` does,
        // so such a kernel runs as a 1-D workgroup of the same threads in the same order and
        // rebuilds `local_invocation_id` from the index (the native warps' layout check then
        // sees the order it expects).
        let [x, y, z] = k.workgroup_size;
        let flat = (builtins[3] || builtins[4]) && y * z > 1;
        let mut lid_let = String::new();
        // The built-ins used: entry-point parameters, passed on to the parts of a split kernel.
        let (mut params, mut part_params, mut args) = (Vec::new(), Vec::new(), Vec::new());
        for (slot, (attr, name, ty)) in [
            ("local_invocation_id", "lid", "vec3<u32>"),
            ("workgroup_id", "wid", "vec3<u32>"),
            ("num_workgroups", "nwg", "vec3<u32>"),
            ("subgroup_size", "sgs", "u32"),
            ("subgroup_invocation_id", "sgi", "u32"),
        ]
        .iter()
        .enumerate()
        {
            if builtins[slot] {
                if slot == 0 && flat {
                    params.push(format!("@builtin(local_invocation_index) {p}lidx: u32"));
                    let _ = writeln!(
                        lid_let,
                        "    let {p}lid = vec3<u32>({p}lidx % {x}u, ({p}lidx / {x}u) % {y}u, {p}lidx / {}u);",
                        x * y
                    );
                } else {
                    params.push(format!("@builtin({attr}) {p}{name}: {ty}"));
                }
                part_params.push(format!("{p}{name}: {ty}"));
                args.push(format!("{p}{name}"));
            }
        }
        // The run-time zeros, at the top of every function that holds kernel code.
        let mut zero_lets = String::new();
        if zeros.iter().any(|&z| z) {
            // The parameter header's f32 1.0 (abi::PARAM_ONE_F32_WORD), a value the compiler
            // cannot know: two different expressions of it that are zero at run time.
            let (w, one) = (abi::PARAM_ONE_F32_WORD, abi::ONE_F32_BITS);
            let _ = writeln!(
                zero_lets,
                "    let {p}one_bits = select({one:#010x}u, {p}params[{w}u], arrayLength(&{p}params) > {w}u);"
            );
            if zeros[0] {
                let _ = writeln!(zero_lets, "    let {p}z0 = {p}one_bits ^ {one:#010x}u; // run-time zero");
            }
            if zeros[1] {
                // Rotated, so that no bit of the zero is known (a shift would leave the top 16
                // known zero, and with them the sign and exponent of a hidden value).
                let _ = writeln!(
                    zero_lets,
                    "    let {p}z1 = (({p}one_bits << 16u) | ({p}one_bits >> 16u)) ^ {:#010x}u; // run-time zero",
                    one.rotate_left(16)
                );
            }
        }
        let size = if flat { format!("{}, 1, 1", x * y * z) } else { format!("{x}, {y}, {z}") };
        // The kernel's text at once (its bodies, a line per variable), not by doublings.
        entries.reserve(part_bodies.iter().map(String::len).sum::<usize>() + 48 * k.vars.len() + 1024);
        if parts.len() == 1 {
            let _ = writeln!(entries, "\n// kernel {}", comment_text(&k.name));
            let _ = writeln!(entries, "@compute @workgroup_size({size})");
            let _ = writeln!(entries, "fn {}({}) {{", k.entry_point, params.join(", "));
            entries.push_str(&lid_let);
            for (i, v) in k.vars.iter().enumerate() {
                if !lets[i] {
                    let _ = writeln!(entries, "    var v{i}: {}; // {}", wgsl_ty(v.ty), comment_text(&v.name));
                }
            }
            entries.push_str(&zero_lets);
            entries.push_str(&part_bodies[0]);
            if stmts_behaviors(&k.body.stmts).next && k.defers_faults() {
                let _ = writeln!(entries, "    {}();", m.flush_fn());
            }
            entries.push_str("}\n");
            continue;
        }
        // Split (see `split_into_parts`): the variables at module scope, one function per
        // part (the built-ins passed on under the same names), called in order by the entry
        // point, which returns as soon as a part has returned.
        let _ = writeln!(decls, "// kernel {}: variables of its {} parts", comment_text(&k.name), parts.len());
        for (i, v) in k.vars.iter().enumerate() {
            if !lets[i] {
                let _ = writeln!(decls, "var<private> {kp}v{i}: {}; // {}", wgsl_ty(v.ty), comment_text(&v.name));
            }
        }
        for (i, (part, body)) in parts.iter().zip(&part_bodies).enumerate() {
            let _ = writeln!(entries, "\n// kernel {}, part {i}: true when it returned", comment_text(&k.name));
            let _ = writeln!(entries, "fn {kp}part{i}({}) -> bool {{", part_params.join(", "));
            entries.push_str(&zero_lets);
            entries.push_str(body);
            if stmts_behaviors(part).next {
                entries.push_str("    return false;\n");
            }
            entries.push_str("}\n");
        }
        let _ = writeln!(entries, "\n// kernel {}", comment_text(&k.name));
        let _ = writeln!(entries, "@compute @workgroup_size({size})");
        let _ = writeln!(entries, "fn {}({}) {{", k.entry_point, params.join(", "));
        entries.push_str(&lid_let);
        let flush = if k.defers_faults() { format!("{}(); ", m.flush_fn()) } else { String::new() };
        for i in 0..parts.len() {
            let _ = writeln!(entries, "    if ({kp}part{i}({})) {{ {flush}return; }}", args.join(", "));
        }
        if !flush.is_empty() {
            let _ = writeln!(entries, "    {}", flush.trim_end());
        }
        entries.push_str("}\n");
    }

    // Sized once for the whole module (the declarations below take well under 4 KiB): grown
    // from empty, the text was moved by `realloc` at every doubling, up to its full size.
    let helpers_len: usize = m.helpers.values().map(|t| t.len() + 1).sum();
    let mut out = String::with_capacity(4096 + decls.len() + helpers_len + entries.len());
    let _ = writeln!(out, "// Generated by ptxcross-wgsl (profile {}).", m.profile);
    let heap_elem = if m.heap_atomic { "atomic<u32>" } else { "u32" };
    let _ = writeln!(
        out,
        "@group({}) @binding({}) var<storage, read_write> {p}heap: array<{heap_elem}>;",
        abi::BIND_GROUP,
        abi::BINDING_HEAP
    );
    let _ = writeln!(
        out,
        "@group({}) @binding({}) var<storage, read> {p}params: array<u32>;",
        abi::BIND_GROUP,
        abi::BINDING_PARAMS
    );
    if heap_atomic64 {
        // The heap buffer bound once more, as doublewords: its 64-bit atomics.
        let _ = writeln!(
            out,
            "@group({}) @binding({}) var<storage, read_write> {p}heap64: array<atomic<u64>>;",
            abi::BIND_GROUP,
            abi::BINDING_HEAP64
        );
    }
    // Heap segment slots 1.. of kernels translated for several segments (`Memory::Segment`).
    let slots = module.kernels.iter().map(|k| k.features.segment_slots).max().unwrap_or(0).min(abi::MAX_SEGMENT_SLOTS);
    for j in 1..slots {
        let _ = writeln!(
            out,
            "@group({}) @binding({}) var<storage, read_write> {p}{}: array<{heap_elem}>;",
            abi::BIND_GROUP,
            abi::segment_binding(j),
            SEGMENT_KINDS[j as usize]
        );
        if heap_atomic64 {
            let _ = writeln!(
                out,
                "@group({}) @binding({}) var<storage, read_write> {p}{}: array<atomic<u64>>;",
                abi::BIND_GROUP,
                abi::segment_binding64(j),
                SEGMENT64_KINDS[j as usize]
            );
        }
    }
    if module.kernels.iter().any(|k| k.uses_scratch()) {
        let _ = writeln!(
            out,
            "@group({}) @binding({}) var<storage, read_write> {p}scratch: array<{}>;",
            abi::BIND_GROUP,
            abi::BINDING_SCRATCH,
            if m.scratch_atomic { "atomic<u32>" } else { "u32" }
        );
    }
    if m.site {
        let _ = writeln!(out, "// The running PTX instruction's fault site (ptxcross_lower::ir::Kernel::fault_sites).");
        let _ = writeln!(out, "var<private> {p}site: u32;");
    }
    if m.helpers.contains_key(&format!("{p}flush")) || m.helpers.contains_key(&format!("{p}defer")) {
        let _ = writeln!(out, "// Faults recorded without a branch ({p}defer), flushed when the thread ends.");
        let _ = writeln!(out, "var<private> {p}bad: u32;");
        if m.site {
            let _ = writeln!(out, "var<private> {p}bad_site: u32;");
        }
    }
    if !decls.is_empty() {
        out.push('\n');
        out.push_str(&decls);
    }
    for text in m.helpers.values() {
        out.push('\n');
        out.push_str(text);
    }
    out.push_str(&entries);
    if let Some(k) = shadowed_builtins(module, &out).first() {
        return Err(invalid(
            k,
            format!("entry point name {:?} would shadow the WGSL built-in of that name, which the kernel's code uses", k.entry_point),
        ));
    }
    Ok(out)
}

/// The run-time zeros (`KernelCx::hide`) a function body that uses `zeros` needs, as `let`s at
/// its top.
fn zero_lets(p: &str, zeros: [bool; 2]) -> String {
    let mut out = String::new();
    if zeros.iter().any(|&z| z) {
        // The parameter header's f32 1.0 (abi::PARAM_ONE_F32_WORD), a value the compiler
        // cannot know: two different expressions of it that are zero at run time.
        let (w, one) = (abi::PARAM_ONE_F32_WORD, abi::ONE_F32_BITS);
        let _ = writeln!(out, "    let {p}one_bits = select({one:#010x}u, {p}params[{w}u], arrayLength(&{p}params) > {w}u);");
        if zeros[0] {
            let _ = writeln!(out, "    let {p}z0 = {p}one_bits ^ {one:#010x}u; // run-time zero");
        }
        if zeros[1] {
            // Rotated, so that no bit of the zero is known (a shift would leave the top 16
            // known zero, and with them the sign and exponent of a hidden value).
            let _ = writeln!(out, "    let {p}z1 = (({p}one_bits << 16u) | ({p}one_bits >> 16u)) ^ {:#010x}u; // run-time zero", one.rotate_left(16));
        }
    }
    out
}

/// The WGSL name of `f`, a function of kernel `k` (`ir::Function`), writing it among the
/// module's helpers the first time the module needs it: parameters `v{i}` by value, the other
/// variables as a kernel's, the body's run-time zeros computed at its top (the contraction
/// guard treats the parameters as values of unknown origin: every float operation guards
/// them), and `return` of the result.
fn emit_function(m: &mut ModuleCx, k: &Kernel, f: &Function) -> R<String> {
    if let Some((_, name)) = m.functions.get(&f.name).and_then(|l| l.iter().find(|(g, _)| g == f)) {
        return Ok(name.clone());
    }
    let n: usize = m.functions.values().map(Vec::len).sum();
    let name = format!("{}fn{n}", m.p);
    let pk = f.as_kernel(&f.name);
    let u = kernel_usage(&pk);
    let a = Analyses::of(&pk);
    let mut lets = let_vars(&pk, &a.values, false);
    for p in &f.params {
        lets[p.index()] = true;
    }
    let mut cx = KernelCx {
        m: &mut *m,
        k: &pk,
        kp: String::new(),
        int64: u.int64 || u.float64,
        shared_atomic: false,
        shared_dwords: false,
        builtins: [false; 5],
        out: String::new(),
        breakable: Vec::new(),
        opaque_next: false,
        direct_params: a.direct_params,
        heap_direct: a.heap_direct,
        facts: a.facts,
        opaque: opaque_vars(&pk),
        zeros: [false; 2],
        parts: false,
        lets: lets.clone(),
        func_names: Vec::new(),
    };
    cx.stmts(&pk.body.stmts, 1)?;
    let (result, rty) = cx.operand(f.result)?;
    if rty != f.result_ty {
        return Err(format!("function {}: result of type {}, declared {}", f.name, ty_name(rty), ty_name(f.result_ty)));
    }
    if cx.builtins.iter().any(|&b| b) {
        return Err(format!("function {} reads a built-in", f.name));
    }
    let (body, zeros) = (std::mem::take(&mut cx.out), cx.zeros);
    let params: Vec<String> = f.params.iter().map(|p| format!("v{}: {}", p.0, wgsl_ty(pk.vars[p.index()].ty))).collect();
    let mut text = String::new();
    let _ = writeln!(text, "// {} (ptxcross_lower::ir::Function, kernel {})", comment_text(&f.name), comment_text(&k.name));
    let _ = writeln!(text, "fn {name}({}) -> {} {{", params.join(", "), wgsl_ty(f.result_ty));
    for (i, v) in pk.vars.iter().enumerate() {
        if !lets[i] {
            let _ = writeln!(text, "    var v{i}: {}; // {}", wgsl_ty(v.ty), comment_text(&v.name));
        }
    }
    text.push_str(&zero_lets(&m.p, zeros));
    text.push_str(&body);
    let _ = writeln!(text, "    return {result};\n}}");
    m.helpers.insert(name.clone(), text);
    m.functions.entry(f.name.clone()).or_default().push((f.clone(), name.clone()));
    Ok(name)
}
