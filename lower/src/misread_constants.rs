//! Constants a driver could misread, hidden from it (a driver workaround).
//!
//! **Selects.** Mesa's algebraic rules match constants by value, float patterns included, on selects
//! whatever their type: `select(c, 1.0, 0.0)` becomes a bool-to-float conversion, and it fired
//! on the bits of 1.0 and −0.0, so the −0.0 came out +0.0 (lavapipe, Mesa 22.3, both
//! backends, integer selects on the bits too: `max.f64 d, -0.0, x` of a negative x and
//! `selp.f64 d, 1.0, -0.0, p` gave +0; differential case `float-seed-00000000f10a0032`).
//! The constant reaches the select directly, through copies and bitcasts of it (WGSL's
//! `px_opaque_T` is inlined), or as the result of any operation the driver folds (the integer
//! f16 → f32 conversion of a constant half: `min.ftz.f16` of a positive half and a constant
//! negative subnormal gave +0, differential case `hx-seed-000000004a6600d5`), in a register
//! assigned once or between two of its assignments, so this runs on the final IR and follows
//! values along the code as the driver's constant folding does ([`fold`], which also merges
//! what both arms of a branch set). A −0.0 or ±1.0 of the select's width (whatever the other
//! operand: the driver may know more of that one than this pass) is
//! replaced by itself XOR a zero the compiler cannot know (the parameter header's zero word,
//! `abi::PARAM_ZERO_WORD`), so no pattern can match it. The driver also knows a value it
//! loads where it forwards the load from a store of its own: a stored word of −0.0 or ±1.0
//! (of f32, or the high word of f64's) is stored hidden in every kernel (a +0 that meets a
//! plain +1.0 gives the same bits through `b2f`).
//!
//! The general rule (closing the class, 2026-11-27): **no select reaches the driver with two
//! operands it may know**. Mesa's rules (`nir_opt_algebraic.py`) that misread are exactly
//! `bcsel@16/32/64(a, 1.0, 0.0) → b2f(a)`, `bcsel(a, 0.0, 1.0) → b2f(!a)`, `bcsel(a, -1.0,
//! -0.0) → -b2f(a)` and `bcsel(a, -0.0, -1.0) → -b2f(!a)`: float constants match by value,
//! so each 0.0 also matches the other zero, and `select(c, 1.0, -0.0)` gives +0, `select(c,
//! -1.0, 0.0)` −0. Both operands must be constants *to the driver*, but what it knows is
//! open-ended (known bits `(x & m) | k`, loads it forwards from its own stores, read-modify-
//! writes of sub-words, `min`/`max` it can decide, phis of equal values), and it also makes
//! new constant operands: `iadd`, `imul`, `fadd`, `fmul` by a constant move into a select
//! with one constant operand (`iadd(bcsel(c, #b, x), #d) → bcsel(c, b + d, x + d)`), so a
//! select of two harmless constants (5 and 7, then `mul.lo` and `add`) becomes one of −1.0
//! and +0. So the rule is not about values: every select of 32 or 64 bits whose operands are
//! not already hidden (a ±0 or ±1.0 this pass knows, above) gets one operand hidden unless
//! one is a value the driver cannot know — opaque ([`opaque_vars`], kernels with float ops)
//! or computed by this pass through an unknown zero. A select with an unknown operand stays
//! one through those rewrites (an add or multiply of an unknown value by a constant is
//! unknown), and the merge of nested selects (`bcsel(a, bcsel(b, c, d), d) → bcsel(a & b,
//! c, d)`) keeps operands of selects that have one. The hidden operand is a constant if one
//! is known here (XOR with the zero), else the first operand, by an *add* of the zero: a
//! variable may carry the same zero already (a load forwarded from a hidden store), which a
//! second XOR would cancel. Exempt: the checked heap access's selects (the false side faults
//! the launch) and booleans. The driver also makes selects of phis (`nir_opt_peephole_select`
//! flattens a small selection: −1.0 set in one arm, +0 in the other, gave −0), so a selection
//! without side effects leaves one branch with each 32/64-bit variable it assigns hidden, under
//! the same exemptions ([`rewrite_block`]). 16-bit selects: the IR has none (halves live in 32-bit words, so
//! `bcsel@16` cannot match what `lower` emits); the f16 operations computed in f32 select f32
//! values, covered like any other.
//!
//! **Float arithmetic.** Lavapipe folds `x - (-0.0)` to `x` in SPIR-V although the op is
//! `NoContraction` and even when the module declares `SignedZeroInfNanPreserve` (tried; −0 − −0 gave −0; IEEE
//! and PTX say +0: differential cases `float-seed-…f10a0007`, `…0008`, `…004b`, where an fma
//! with a zero factor and an infinite other factor also gave the addend instead of NaN). The
//! identities a compiler may apply to a zero, infinite or NaN operand are not IEEE-exact in
//! every case, so such constant operands of add, sub, mul, div, min, max and fma are hidden
//! the same way (the WGSL backend's contraction guard hides constants too; this covers both
//! backends at the IR). Other constants stay plain: the folds they allow (`x * 1.0`,
//! `x / 2.0 → x * 0.5`) are exact.
//!
//! **Values the driver can know.** The same folds fire on a value the driver *proves* to be
//! ±0, ±infinity or NaN, where `lower` sees no constant: integer `x - x`, `x & 0`, bits
//! shifted out, a sub-word load that `.ftz` flushes (differential cases
//! `float-seed-…f10d0016/0076/00aa/00ca/00fb/012b`: `sub.u32 z, x, x; add.rn.f32 d, a, z`
//! with a = −0 gave −0 on SPIR-V, IEEE/PTX +0; `0 · ∞` gave the addend of an fma). What a
//! compiler may prove is open-ended (known bits, selects of equal values, loads it forwards
//! from its own stores, conversions, equalities of a dominating branch, …), so the rule is
//! not a list of patterns but safe by construction: an operand of a float add, sub, mul,
//! div, min, max or fma reaches the op through the unknown zero unless it is **opaque**
//! ([`opaque_vars`]): every assignment of the variable is a memory load, an atomic's old
//! value, a shuffle of an opaque value, a copy, bitcast, negation, absolute value or f32 ↔ f64
//! conversion of an opaque value (or the two halves of one, or a doubleword of two), or the
//! result of one of those float ops (or sqrt/rounding of an opaque value) that has a variable
//! operand — itself opaque or hidden by this rule, so the
//! driver knows nothing of it (each op is one `NoContraction` operation on SPIR-V, which
//! the drivers keep; WGSL, which cannot say it, guards float-op results itself, see
//! `backend-wgsl`'s `opaque_vars`). Memory holds only such values: a store of any other
//! value stores it through the unknown zero, so a load the driver forwards from a store in
//! the same kernel yields nothing it knows either. A value some equality test reads (an
//! integer or float `==`/`!=`, a switch selector), or that is connected to such a value by
//! copies, bitcasts, negations or absolute values, is not opaque: the driver knows it where
//! the test holds. Binary ops hide their left operand with one zero and their right one
//! with another ([`LHS`], [`RHS`]); values hidden where they are defined (a select's
//! constant, a stored word) use a third ([`DEF`]), so that no value is hidden twice with the
//! same zero (the XORs would cancel), and an add, sub or div whose two operands are the same value
//! up to copies, bitcasts, negation and absolute value hides both: `x - x`, `x + (-x)` and
//! `x / x` are not folded either (the WGSL backend's rule for sub and div). A float variable
//! set to a constant and also otherwise (a loop's accumulator, `sum = 0` then `sum += …`)
//! gets the constant hidden where it is set, so the variable is opaque and its uses in the
//! loop need no XOR. Integer-only
//! kernels are left alone; the cost is one XOR per hidden operand or store (`README`,
//! "Performance").

use crate::abi;
use crate::interp;
use crate::ir::BinaryOp::{FAdd, FDiv, FMax, FMin, FMul, FSub};
use crate::ir::{
    push_var, BinaryOp, Block, CmpOp, Const, ConvertOp, Expr, Kernel, Memory, Operand, Stmt, Ty, UnaryOp, VarId, VarInfo,
};

/// Rewrites the operands of `kernel` a driver could misread (see the module comment). Leaves
/// the kernel unchanged when it has none.
pub fn hide_misread_constants(kernel: &mut Kernel) {
    let values = kernel.value_vars();
    hide_misread_constants_given(kernel, &values);
}

/// [`hide_misread_constants`] given the kernel's [`Kernel::value_vars`] (`cleanup::simplify`
/// returns them when it ends on a round that changed nothing).
pub fn hide_misread_constants_given(kernel: &mut Kernel, values: &[bool]) {
    // What the driver can compute of each variable is followed along the code by `rewrite`
    // (see [`fold`]), where the operands are looked at.
    let known: Vec<Option<u64>> = vec![None; kernel.vars.len()];
    // The body's assignments as written, listed once for every analysis below (each walked
    // the whole body for a list of its own).
    let mut list = Vec::new();
    assignments(&kernel.body, &mut list);
    let has_float_ops = list.iter().any(|(_, e)| is_float_op(e));
    let roots = same_roots(&list);
    let heap_tests = heap_range_tests(&list);
    let push_used = push_used(&list, kernel.vars.len());
    let site_var = kernel.fault_site_var;
    let tested = equality_tested(&kernel.body, &list, kernel.vars.len());
    let mut cx = Cx {
        known,
        opaque: Vec::new(),
        hide_values: has_float_ops,
        vars: &mut kernel.vars,
        zero: [None; 3],
        zero64: [None; 3],
        tested_zeros: Vec::new(),
        made_hidden: Vec::new(),
        heap_tests,
        push_used,
        site_var,
        uses: Vec::new(),
        tested,
    };
    use_counts(&kernel.body, &mut cx.uses);
    if has_float_ops {
        // A float variable set to a constant and also otherwise (a loop's accumulator, `sum =
        // 0` then `sum += …`) gets the constant hidden where it is set, once, instead of
        // every use of the variable in the loop being hidden.
        let mut count = vec![0u32; cx.vars.len()];
        let mut constant = vec![false; cx.vars.len()];
        for (d, e) in &list {
            if let (Some(c), Some(k)) = (count.get_mut(d.index()), constant.get_mut(d.index())) {
                *c += 1;
                *k |= matches!(e, Expr::Use(Operand::Const(_)));
            }
        }
        let set_to_constant: Vec<bool> = (0..cx.vars.len())
            .map(|i| constant[i] && count[i] >= 2 && matches!(cx.vars[i].ty, Ty::F32 | Ty::F64))
            .collect();
        drop(list);
        if set_to_constant.contains(&true) {
            hide_constant_settings(&mut kernel.body, &mut cx, &set_to_constant);
        }
        let zeros: Vec<VarId> = cx.zero.iter().flatten().chain(cx.zero64.iter().flatten()).copied().collect();
        cx.opaque = opaque_vars(&kernel.body, cx.vars.len(), &zeros);
    }
    rewrite(&mut kernel.body, &mut cx, &roots, values);
    let mut prologue = Vec::new();
    if let Some(z) = cx.zero[DEF] {
        prologue.push(Stmt::Assign { dst: z, expr: Expr::LoadWord { memory: Memory::Param, index: Operand::Const(Const::U32(abi::PARAM_ZERO_WORD)) } });
    }
    if cx.zero[LHS].is_some() || cx.zero[RHS].is_some() {
        // Two more zeros, from the header's 1.0f: `one ^ 1.0f`, and `one` rotated by 16 bits
        // XOR 1.0f's bits rotated (all 32 bits unknown, unlike a shift's).
        let u = |v: u32| Operand::Const(Const::U32(v));
        let one = cx.var(Ty::U32, "misread_constants.one");
        prologue.push(Stmt::Assign { dst: one, expr: Expr::LoadWord { memory: Memory::Param, index: u(abi::PARAM_ONE_F32_WORD) } });
        if let Some(z) = cx.zero[LHS] {
            prologue.push(Stmt::Assign { dst: z, expr: Expr::Binary { op: BinaryOp::Xor, ty: Ty::U32, lhs: Operand::Var(one), rhs: u(abi::ONE_F32_BITS) } });
        }
        if let Some(z) = cx.zero[RHS] {
            let (hi, lo, rot) = (cx.var(Ty::U32, "misread_constants.one"), cx.var(Ty::U32, "misread_constants.one"), cx.var(Ty::U32, "misread_constants.one"));
            prologue.push(Stmt::Assign { dst: hi, expr: Expr::Binary { op: BinaryOp::Shl, ty: Ty::U32, lhs: Operand::Var(one), rhs: u(16) } });
            prologue.push(Stmt::Assign { dst: lo, expr: Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U32, lhs: Operand::Var(one), rhs: u(16) } });
            prologue.push(Stmt::Assign { dst: rot, expr: Expr::Binary { op: BinaryOp::Or, ty: Ty::U32, lhs: Operand::Var(hi), rhs: Operand::Var(lo) } });
            prologue.push(Stmt::Assign { dst: z, expr: Expr::Binary { op: BinaryOp::Xor, ty: Ty::U32, lhs: Operand::Var(rot), rhs: u(abi::ONE_F32_BITS.rotate_left(16)) } });
        }
    }
    if !cx.tested_zeros.is_empty() {
        let word = cx.var(Ty::U32, "misread_constants.word");
        let u = |v: u32| Operand::Const(Const::U32(v));
        prologue.push(Stmt::Assign { dst: word, expr: Expr::LoadWord { memory: Memory::Param, index: u(abi::PARAM_ZERO_WORD) } });
        for (i, &(_, z, z64)) in cx.tested_zeros.iter().enumerate() {
            let shift = u(1 + i as u32 % 31);
            prologue.push(Stmt::Assign { dst: z, expr: Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U32, lhs: Operand::Var(word), rhs: shift } });
            if let Some(z64) = z64 {
                prologue.push(Stmt::Assign { dst: z64, expr: Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: Operand::Var(z) } });
            }
        }
    }
    for slot in 0..3 {
        if let (Some(z64), Some(z)) = (cx.zero64[slot], cx.zero[slot]) {
            prologue.push(Stmt::Assign { dst: z64, expr: Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: Operand::Var(z) } });
        }
    }
    kernel.body.stmts.splice(0..0, prologue);
}

/// The value of `e` where the driver can compute it (`None`: it cannot, as far as this pass
/// knows), by the IR's own rules ([`interp`]). A driver folds constants through every
/// operation, not only copies and bitcasts: a constant `f16` operand reaches a float op as
/// the result of `lower`'s integer f16 → f32 conversion, which the driver folds to a float
/// constant (differential case `hx-seed-000000004a6600d5`: the `−0.0` that `min.f16` selects
/// against 1.0 on its both-zero path came out `+0.0` once the driver saw it). So every
/// operation of known operands is folded here, and the results an unknown operand cannot
/// change (`x & 0`, `x * 0`, `x | !0`, `x - x`, `x ^ x`, min/max with the type's bound).
/// Not folded: the float ops whose operands this pass hides (the driver no longer sees
/// their operands), shifts by the width or more and divisions by zero (preconditions of
/// the IR op: the driver's value need not be the interpreter's).
fn fold(e: &Expr, known: &[Option<u64>]) -> Option<u64> {
    let k = |o: Operand| bits(o, known);
    match *e {
        Expr::Use(o) => k(o),
        Expr::Convert { op, from, to, arg } => k(arg).map(|v| interp::convert(op, from, to, v)),
        Expr::Unary { op, ty, arg } => k(arg).map(|v| interp::unary(op, ty, v)),
        Expr::Compare { op, ty, lhs, rhs } => Some(interp::compare(op, ty, k(lhs)?, k(rhs)?) as u64),
        Expr::Select { cond, a, b, .. } => match k(cond) {
            Some(c) => k(if c != 0 { a } else { b }),
            None => k(a).filter(|&x| a == b || k(b) == Some(x)),
        },
        Expr::Binary { op, ty, lhs, rhs } if !is_float_op(e) => {
            use BinaryOp::*;
            let ones = u64::MAX >> (64 - ty.bits());
            let (l, r) = (k(lhs), k(rhs));
            let absorbed = |v: u64| l == Some(v) || r == Some(v);
            match op {
                And | Mul | MulHiU | MulHiS | MinU if absorbed(0) => return Some(0),
                Or | MaxU if absorbed(ones) => return Some(ones),
                Sub | Xor if lhs == rhs => return Some(0),
                _ => {}
            }
            let (l, r) = (l?, r?);
            let shift = matches!(op, Shl | ShrU | ShrS);
            if (shift && r >= ty.bits() as u64) || (matches!(op, DivU | DivS | RemU | RemS) && r == 0) {
                return None;
            }
            Some(interp::binary(op, ty, l, r))
        }
        _ => None,
    }
}

fn bits(o: Operand, known: &[Option<u64>]) -> Option<u64> {
    match o {
        Operand::Const(Const::U32(v) | Const::F32(v)) => Some(v as u64),
        Operand::Const(Const::U64(v) | Const::F64(v)) => Some(v),
        Operand::Const(Const::Bool(b)) => Some(b as u64),
        Operand::Var(v) => known.get(v.index()).copied().flatten(),
    }
}

/// Whether some statement of `b` (nested ones included) satisfies `f`.
fn any_stmt(b: &Block, f: &mut impl FnMut(&Stmt) -> bool) -> bool {
    b.stmts.iter().any(|s| f(s) || s.bodies().any(|body| any_stmt(body, f)))
}

/// Whether `e` is one of the float ops of [`float_op_operands`] (without building the list).
fn is_float_op(e: &Expr) -> bool {
    matches!(
        *e,
        Expr::Binary { op: FAdd | FSub | FMul | FDiv | FMin | FMax, ty: Ty::F32 | Ty::F64, .. } | Expr::Fma { ty: Ty::F32 | Ty::F64, .. }
    )
}

/// The float ops whose operands are hidden unless opaque: their type and operands.
fn float_op_operands(e: &Expr) -> Option<(Ty, Vec<Operand>)> {
    match *e {
        Expr::Binary { op: FAdd | FSub | FMul | FDiv | FMin | FMax, ty: ty @ (Ty::F32 | Ty::F64), lhs, rhs } => Some((ty, vec![lhs, rhs])),
        Expr::Fma { ty: ty @ (Ty::F32 | Ty::F64), a, b, c } => Some((ty, vec![a, b, c])),
        _ => None,
    }
}

/// The variable a value is a copy, bitcast, negation or absolute value of (`None`: not one).
fn transparent_arg(e: &Expr) -> Option<VarId> {
    match *e {
        Expr::Use(Operand::Var(v))
        | Expr::Convert { op: ConvertOp::Bitcast, arg: Operand::Var(v), .. }
        | Expr::Unary { op: UnaryOp::FNeg | UnaryOp::FAbs, arg: Operand::Var(v), .. } => Some(v),
        _ => None,
    }
}

fn assignments<'a>(b: &'a Block, out: &mut Vec<(VarId, &'a Expr)>) {
    for s in &b.stmts {
        if let Stmt::Assign { dst, expr } = s {
            out.push((*dst, expr));
        }
        for body in s.bodies() {
            assignments(body, out);
        }
    }
}

/// The range tests of checked heap loads (`lower::inst::memory`): `c` of each index
/// `select(c, i, HEAP_SINK_WORD)`. (The backends' own opacity rules, WGSL's contraction
/// guard, read a checked load's word as its load through [`heap_range_tests_of`] and
/// [`checked_load_word`].)
pub(crate) fn heap_range_tests(list: &[(VarId, &Expr)]) -> Vec<Operand> {
    list.iter()
        .filter_map(|(_, e)| match **e {
            Expr::Select { ty: Ty::U32, cond, b: Operand::Const(Const::U32(crate::abi::HEAP_SINK_WORD)), .. } => Some(cond),
            _ => None,
        })
        .collect()
}

/// `w` if `e` is a checked heap load's word `select(c, w, 0)` with `c` one of `tests`
/// ([`heap_range_tests`]). Such a word is as opaque as `w`: the driver knows it only where
/// it knows `c`, and where `c` is false the access faults the launch, so its value is moot.
pub fn checked_load_word(e: &Expr, tests: &[Operand]) -> Option<Operand> {
    match *e {
        Expr::Select { ty: Ty::U32, cond, a, b: Operand::Const(Const::U32(0)) } if tests.contains(&cond) => Some(a),
        _ => None,
    }
}

/// [`heap_range_tests`] of `kernel`'s body.
pub fn heap_range_tests_of(kernel: &Kernel) -> Vec<Operand> {
    let mut list = Vec::new();
    assignments(&kernel.body, &mut list);
    heap_range_tests(&list)
}

/// Per variable: whether an equality test (an integer or float `==`/`!=`, a switch selector)
/// reads it or a value connected to it by copies, bitcasts, negations or absolute values. Where
/// such a test holds, the driver may replace the value by the other side
/// (`nir_opt_if`'s `opt_if_rewrite_uniform_uses`: `if (x == c) { … x … }` uses `c`).
/// `list`: the [`assignments`] of `body`.
fn equality_tested(body: &Block, list: &[(VarId, &Expr)], n: usize) -> Vec<bool> {
    // Equality tests: the driver may replace the value by the other side where one holds.
    let mut tested = vec![false; n];
    let mark = |o: Operand, tested: &mut Vec<bool>| {
        if let Operand::Var(v) = o {
            if let Some(t) = tested.get_mut(v.index()) {
                *t = true;
            }
        }
    };
    fn walk(b: &Block, f: &mut impl FnMut(&Stmt)) {
        for s in &b.stmts {
            f(s);
            for body in s.bodies() {
                walk(body, f);
            }
        }
    }
    walk(body, &mut |s| match s {
        Stmt::Assign { expr: Expr::Compare { op: CmpOp::Eq | CmpOp::Ne | CmpOp::FEq | CmpOp::FNe, ty, lhs, rhs }, .. } if *ty != Ty::Bool => {
            mark(*lhs, &mut tested);
            mark(*rhs, &mut tested);
        }
        Stmt::Switch { selector, .. } => mark(*selector, &mut tested),
        _ => {}
    });
    // Spread along copies, bitcasts, negations and absolute values, both ways, until stable.
    loop {
        let mut changed = false;
        for (d, e) in list {
            if let Some(a) = transparent_arg(e) {
                let (di, ai) = (d.index(), a.index());
                if di < n && ai < n && tested[di] != tested[ai] {
                    tested[di] = true;
                    tested[ai] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    tested
}

/// Per variable of `kernel`: whether the driver can know nothing of its value once this pass
/// has run (see the module comment): every assignment is opaque, and no equality test reads
/// it or a value connected to it by copies, bitcasts, negations or absolute values.
/// `zeros`: the unknown zeros (a value XOR-ed with one is opaque).
fn opaque_vars(body: &Block, n: usize, zeros: &[VarId]) -> Vec<bool> {
    let mut list = Vec::new();
    assignments(body, &mut list);
    let tested = equality_tested(body, &list, n);
    // Single assignments `ZeroExtend(v)` and `Shl(ZeroExtend(v), 32)` (v u32): the halves of
    // a doubleword assembled from two loaded words (how 64-bit loads are built).
    let mut count = vec![0u32; n];
    for (d, _) in &list {
        if let Some(c) = count.get_mut(d.index()) {
            *c += 1;
        }
    }
    let single = |v: VarId| count.get(v.index()) == Some(&1);
    let mut zext_of: rustc_hash::FxHashMap<VarId, VarId> = rustc_hash::FxHashMap::default();
    for (d, e) in &list {
        if let Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: Operand::Var(a) } = **e {
            if single(*d) {
                zext_of.insert(*d, a);
            }
        }
    }
    let mut high_of: rustc_hash::FxHashMap<VarId, VarId> = rustc_hash::FxHashMap::default();
    for (d, e) in &list {
        if let Expr::Binary { op: BinaryOp::Shl, ty: Ty::U64, lhs: Operand::Var(x), rhs: Operand::Const(Const::U32(32)) } = **e {
            if let (true, Some(&a)) = (single(*d), zext_of.get(&x)) {
                high_of.insert(*d, a);
            }
        }
    }
    let sink_conds = heap_range_tests(&list);
    // Optimistic start (every assigned variable), then remove each one with an assignment that
    // is not opaque, until stable.
    let mut opaque = vec![false; n];
    for (d, _) in &list {
        if let Some(o) = opaque.get_mut(d.index()) {
            *o = !tested[d.index()];
        }
    }
    loop {
        let mut changed = false;
        for (d, e) in &list {
            if !opaque.get(d.index()).copied().unwrap_or(false) {
                continue;
            }
            let var_opaque = |o: Operand| matches!(o, Operand::Var(v) if opaque.get(v.index()).copied().unwrap_or(false));
            let ok = if let Some(w) = checked_load_word(e, &sink_conds) {
                var_opaque(w)
            } else {
                match **e {
                    // Memory holds only opaque values (other stored values are hidden), and the
                    // driver cannot know what other threads or the host wrote.
                    Expr::LoadWord { .. }
                    | Expr::LoadDword { .. }
                    | Expr::AtomicWord { .. }
                    | Expr::AtomicDword { .. }
                    | Expr::SharedUniformLoad { .. } => true,
                    Expr::WarpShuffle { value, .. } => var_opaque(value),
                    // Hidden by this pass already (constants a float variable is set to).
                    Expr::Binary { op: BinaryOp::Xor, rhs: Operand::Var(z), .. } if zeros.contains(&z) => true,
                    Expr::Use(_) | Expr::Convert { op: ConvertOp::Bitcast, .. } | Expr::Unary { op: UnaryOp::FNeg | UnaryOp::FAbs, .. } => {
                        transparent_arg(e).is_some_and(|v| var_opaque(Operand::Var(v)))
                    }
                    // An f32 ↔ f64 conversion of an opaque value: one rounding (exact when
                    // widening, as in the exact emulations), like the float ops below.
                    Expr::Convert { op: ConvertOp::FloatToFloat, arg, .. } => var_opaque(arg),
                    // Halves of an opaque doubleword (how 64-bit values are stored), and a
                    // doubleword of two opaque words (how they are loaded).
                    Expr::Convert { op: ConvertOp::Truncate, arg, .. } => var_opaque(arg),
                    Expr::Binary { op: BinaryOp::Or, ty: Ty::U64, lhs: Operand::Var(l), rhs: Operand::Var(r) } => {
                        let halves = |hi: VarId, lo: VarId| match (high_of.get(&hi), zext_of.get(&lo)) {
                            (Some(&h), Some(&l)) => var_opaque(Operand::Var(h)) && var_opaque(Operand::Var(l)),
                            _ => false,
                        };
                        halves(l, r) || halves(r, l)
                    }
                    Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U64, lhs, rhs: Operand::Const(Const::U32(32)) } => var_opaque(lhs),
                    Expr::Unary {
                        op: UnaryOp::FSqrt | UnaryOp::FFloor | UnaryOp::FCeil | UnaryOp::FTrunc | UnaryOp::FRoundEven,
                        ty: Ty::F32 | Ty::F64,
                        arg,
                    } => var_opaque(arg),
                    // A float op with a variable operand: that operand is opaque or hidden.
                    _ => float_op_operands(e).is_some_and(|(_, ops)| ops.iter().any(|o| matches!(o, Operand::Var(_)))),
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

/// Whether `b` (nested blocks included) does something that running it unconditionally
/// would change (see [`rewrite_block`]'s merge rule): a driver cannot turn a selection with
/// such a branch into a select.
fn has_side_effect(b: &Block) -> bool {
    any_stmt(b, &mut |s| match s {
        Stmt::Assign { expr, .. } => matches!(
            expr,
            Expr::AtomicWord { .. }
                | Expr::AtomicDword { .. }
                | Expr::SharedUniformLoad { .. }
                | Expr::WarpBallot { .. }
                | Expr::WarpShuffle { .. }
        ),
        Stmt::If { .. } | Stmt::Switch { .. } | Stmt::Loop { .. } => false,
        _ => true,
    })
}

/// Per variable: whether an integer add, subtract or multiply uses it, directly or through
/// copies, bitcasts, negations and absolute values (the driver's `iadd`/`imul` of a select
/// by a constant becomes a select of new constants: see [`Cx::settled`]).
/// `list`: the body's [`assignments`].
fn push_used(list: &[(VarId, &Expr)], n: usize) -> Vec<bool> {
    let mut used = vec![false; n];
    for (_, e) in list {
        if let Expr::Binary { op: BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul, ty: Ty::U32 | Ty::U64, lhs, rhs } = **e {
            for o in [lhs, rhs] {
                if let Operand::Var(v) = o {
                    if let Some(u) = used.get_mut(v.index()) {
                        *u = true;
                    }
                }
            }
        }
    }
    loop {
        let mut changed = false;
        for (d, e) in list {
            if let Some(a) = transparent_arg(e) {
                if used.get(d.index()).copied().unwrap_or(false) && !used.get(a.index()).copied().unwrap_or(true) {
                    used[a.index()] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return used;
        }
    }
}

/// Per variable: the variable it is a copy, bitcast, negation or absolute value of, followed
/// to the end (itself if none), for values (`x - x`, `x + (-x)`, `x / x`: see the module
/// comment). Variables assigned more than once are their own root.
/// `list`: the body's [`assignments`].
fn same_roots(list: &[(VarId, &Expr)]) -> Vec<(VarId, Option<VarId>)> {
    let mut count = rustc_hash::FxHashMap::default();
    for (d, _) in list {
        *count.entry(*d).or_insert(0u32) += 1;
    }
    list.iter().filter(|(d, _)| count[d] == 1).map(|(d, e)| (*d, transparent_arg(e))).collect()
}

fn root(v: VarId, links: &rustc_hash::FxHashMap<VarId, VarId>) -> VarId {
    let mut r = v;
    // Bounded: a chain of copies is acyclic in structured code, but input is not trusted.
    for _ in 0..links.len() + 1 {
        match links.get(&r) {
            Some(&next) if next != r => r = next,
            _ => break,
        }
    }
    r
}

/// The zero a value is hidden with where it is defined (a select's constant, an
/// accumulator's constant, a stored word): such a value may flow (through a select, or a
/// load forwarded from the store) into an operand hidden again, and a second XOR with the
/// *same* zero would cancel the first (`select(c, k ^ z, x) ^ z` is `select(c, k, x ^ z)`:
/// found by the float fuzzer, a select's −0.0 came out +0 on SPIR-V). Operands are hidden
/// with [`LHS`] and [`RHS`], used once each right at the op, so nothing hides them again.
const DEF: usize = 0;
/// The names of the zero variables (how [`hidden_vars`] knows them).
const ZERO_NAME: &str = "misread_constants.zero";
const ZERO64_NAME: &str = "misread_constants.zero64";
/// The zeros of a float op's left (and fma's addend) and right operands: two, so that
/// `x - x` is not `(x ^ z) - (x ^ z)`.
const LHS: usize = 1;
const RHS: usize = 2;

struct Cx<'a> {
    known: Vec<Option<u64>>,
    /// [`opaque_vars`] (empty when the kernel has no float ops: nothing is hidden then).
    opaque: Vec<bool>,
    /// Whether values (not only constants) are hidden: the kernel has float ops.
    hide_values: bool,
    vars: &'a mut Vec<VarInfo>,
    /// The three u32 zeros ([`DEF`], [`LHS`], [`RHS`]), loaded at the kernel's start once some operand
    /// needs them, and their 64-bit zero extensions.
    zero: [Option<VarId>; 3],
    zero64: [Option<VarId>; 3],
    /// Per variable an equality test reads that leaves a loop or a selection hidden
    /// ([`Cx::exit_zero`]): the variable, its own u32 zero and that zero's 64-bit extension.
    tested_zeros: Vec<(VarId, VarId, Option<VarId>)>,
    /// Per variable: computed by this pass through an unknown zero ([`Cx::hidden_by`]).
    made_hidden: Vec<bool>,
    /// [`heap_range_tests`] of the kernel.
    heap_tests: Vec<Operand>,
    /// [`push_used`] of the kernel.
    push_used: Vec<bool>,
    /// The kernel's fault site variable, which nothing in the IR reads (the backends write it
    /// to the heap on a fault path, as is): left out of the merge rule. Its values are small
    /// site ids, never ±0.0 or ±1.0 bits, and no add uses it.
    site_var: Option<VarId>,
    /// Per variable: how many times the kernel reads it ([`use_counts`]).
    uses: Vec<u32>,
    /// [`equality_tested`] of the kernel as written (variables this pass adds: false).
    tested: Vec<bool>,
}

impl Cx<'_> {
    fn mark_hidden(&mut self, v: VarId) {
        if self.made_hidden.len() <= v.index() {
            self.made_hidden.resize(v.index() + 1, false);
        }
        self.made_hidden[v.index()] = true;
    }

    fn var(&mut self, ty: Ty, name: &str) -> VarId {
        self.vars.push(VarInfo { ty, name: name.into() });
        VarId(self.vars.len() as u32 - 1)
    }

    /// The value of operand `x` of a select of `ty` if it could be misread (the select rule of
    /// [`rewrite_block`]): −0.0 or ±1.0 of the select's width, as far as this pass knows. A misread
    /// select pairs a ±1.0 with a zero of the opposite sign (`select(c, 1.0, -0.0)` becomes
    /// `b2f(c)`, `select(c, -1.0, 0.0)` becomes `-b2f(c)`), so each such value is hidden
    /// whatever the other operand is: that one may be a value this pass cannot see but the
    /// driver can (a phi of equal constants, known bits such as `(x & 0x80000000) |
    /// 0x80000000`, a load it forwards: `driver_workarounds`). Hiding the ±1.0 side too
    /// (not only a zero opposite a ±1.0 this pass knows) is what makes a driver-derived −0.0
    /// harmless; a driver-derived −1.0 opposite a +0 stays possible where this pass cannot
    /// follow the derivation (`tests/differential/open/`).
    fn risky(&self, ty: Ty, x: Operand) -> Option<u64> {
        let sign = 1u64 << (ty.bits() - 1);
        let one = if ty.bits() == 32 { 0x3f80_0000 } else { 0x3ff0_0000_0000_0000 };
        bits(x, &self.known).filter(|&v| v == sign || v & !sign == one)
    }

    /// `x` itself, or the constant of `ty` (its bits) this pass knows it to be. A value known
    /// here is hidden as that constant, not as the variable: the variable may be a value
    /// hidden already with the same zero (`select(c, k ^ z, k ^ z)`, which the driver reads
    /// as `k ^ z`), and a second XOR with it would cancel the first (found: `selp` of two
    /// equal −0.0 constants, then selected against 1.0, came out +0, both backends).
    fn as_known(&self, ty: Ty, x: Operand) -> Operand {
        match (x, bits(x, &self.known)) {
            (Operand::Var(_), Some(v)) if ty.bits() == 32 => Operand::Const(Const::U32(v as u32)),
            (Operand::Var(_), Some(v)) => Operand::Const(Const::U64(v)),
            _ => x,
        }
    }

    /// Whether a stored word is one of the two signed halves of a misread select (see
    /// [`Cx::risky`]): −0.0 or ±1.0 of f32, or the high word of −0.0 or ±1.0 of f64. Such a
    /// word is stored hidden in every kernel, so that a load the driver forwards from the
    /// store is unknown to it (lavapipe, both backends: `st.local.u32 [a], 0x80000000;
    /// ld.local.u32 r, [a]; selp.b32 d, 0x3f800000, r, p` gave +0 where p is false, in a
    /// kernel without float ops, whose stores are otherwise left alone).
    fn misread_word(&self, x: Operand) -> bool {
        matches!(bits(x, &self.known), Some(0x8000_0000 | 0xbf80_0000 | 0xbff0_0000 | 0x3f80_0000 | 0x3ff0_0000))
    }

    /// Whether `x` is a constant ±0, ±infinity or NaN of float type `ty`.
    fn special_float(&self, ty: Ty, x: Operand) -> bool {
        let Some(v) = bits(x, &self.known) else { return false };
        let (sign, exponent) = if ty == Ty::F64 { (1u64 << 63, 0x7ffu64 << 52) } else { (1 << 31, 0xffu64 << 23) };
        v & !sign == 0 || v & exponent == exponent
    }

    /// Whether operand `x` (of float type `ty`) of a float op must reach it hidden.
    fn exposed(&self, ty: Ty, x: Operand) -> bool {
        match x {
            Operand::Const(_) => self.special_float(ty, x),
            Operand::Var(v) => {
                self.special_float(ty, x) || (self.hide_values && !self.opaque.get(v.index()).copied().unwrap_or(false))
            }
        }
    }

    /// Whether a stored word must be stored hidden: it is not opaque (see the module comment).
    fn stored_exposed(&self, x: Operand) -> bool {
        self.hide_values
            && match x {
                Operand::Const(_) => true,
                Operand::Var(v) => !self.opaque.get(v.index()).copied().unwrap_or(false),
            }
    }

    fn zero(&mut self, slot: usize, ity: Ty) -> Operand {
        let z = match self.zero[slot] {
            Some(z) => z,
            None => {
                let z = self.var(Ty::U32, ZERO_NAME);
                self.zero[slot] = Some(z);
                z
            }
        };
        if ity == Ty::U32 {
            return Operand::Var(z);
        }
        match self.zero64[slot] {
            Some(z) => Operand::Var(z),
            None => {
                let z = self.var(Ty::U64, ZERO64_NAME);
                self.zero64[slot] = Some(z);
                Operand::Var(z)
            }
        }
    }

    /// Statements computing `x` (of `ty`) through an XOR with the unknown zero of `slot`. A
    /// value is hidden itself, not replaced by its constant (a NaN's payload is the device's
    /// conversion's, not ours).
    fn hidden(&mut self, ty: Ty, x: Operand, slot: usize, out: &mut Vec<Stmt>) -> Operand {
        self.hidden_by(ty, x, slot, BinaryOp::Xor, out)
    }

    /// Whether a select (or a selection's merge) of `ty` into `dst`, of operands this pass
    /// knows as `known`, needs no operand hidden although the driver may know them all: one
    /// is a constant other than ±0 and ±1.0, so the select is not misread as it is, and no
    /// add, subtract or multiply uses `dst` (through copies, bitcasts, negations: [`push_used`]),
    /// so the driver makes no other select of it (`iadd(bcsel(c, #b, x), #d)`: Mesa moves
    /// `iadd`, `imul`, `fadd`, `fmul` by a constant into a select, and `fadd`/`fmul` operands
    /// that are no opaque values are hidden; newer Mesa also moves `fneg` (exact: ±0/±1.0
    /// stay out of reach of a constant that is neither), `fsat` (of float ops, which take no
    /// select operand unhidden) and comparisons (boolean selects). A driver that moved a
    /// bitwise op by a constant into a select would need this list widened).
    fn settled(&self, ty: Ty, dst: VarId, known: impl IntoIterator<Item = Option<u64>>) -> bool {
        let sign = 1u64 << (ty.bits() - 1);
        let one = if ty.bits() == 32 { 0x3f80_0000 } else { 0x3ff0_0000_0000_0000 };
        !self.push_used.get(dst.index()).copied().unwrap_or(true)
            && known.into_iter().any(|k| k.is_some_and(|v| v & !sign != 0 && v & !sign != one))
    }

    /// Whether the driver can know nothing of select operand `x` ([`rewrite_block`]'s select
    /// rule): a variable [`opaque_vars`] found opaque, or one this pass computed through an
    /// unknown zero.
    fn unknown(&self, x: Operand) -> bool {
        match x {
            Operand::Const(_) => false,
            Operand::Var(v) => {
                self.opaque.get(v.index()).copied().unwrap_or(false) || self.made_hidden.get(v.index()).copied().unwrap_or(false)
            }
        }
    }

    /// Whether a select of `ty` with condition `cond` and second operand `b` is one of the
    /// checked heap access's own (`lower::inst::memory`): the index `select(c, i,
    /// HEAP_SINK_WORD)` or the loaded word `select(c, w, 0)`. Where `c` is false the access
    /// faults the launch, so whatever the driver makes of the false side is never read.
    fn heap_select(&self, ty: Ty, cond: Operand, b: Operand) -> bool {
        ty == Ty::U32
            && self.heap_tests.contains(&cond)
            && matches!(b, Operand::Const(Const::U32(v)) if v == 0 || v == crate::abi::HEAP_SINK_WORD)
    }

    /// The zero (of `ity`) variable `d` leaves a loop or a selection with: [`DEF`], or a zero of
    /// its own where an equality test reads `d`. Where `d + z == c` holds and the driver knows
    /// `d`'s value on every path it keeps, it knows `z`, and it replaces `z` by that constant in
    /// the code the test guards (`nir_opt_if`'s `opt_if_rewrite_uniform_uses`); a zero shared
    /// with other rules would unhide every value hidden with it there. Lavapipe, SPIR-V: the
    /// structurizer's loop-exit selector left a loop as `0 + z` at each `break` the driver
    /// kept (a fourth, behind `@%p3 bra D; @!%p3 bra C`, is dead to it), so `switch (0 + z)`
    /// taught it `z = 0` in case 0, where `selp.u32 r, 0xbf800000, 0, p` was `select(p,
    /// 0xbf800000 ^ z, 0)`: −1.0 against 0, read as `-b2f(p)`, gave 0x80000000 for `p` false
    /// (differential cases `seed-000000005a12045c`, `…5a120186`). One zero for all such
    /// variables was not enough: a register read by `setp.eq` and set to −1.0 or +0 by a
    /// branch in that case 0 came out −0 the same way (`driver_workarounds`). Each zero is the
    /// zero word shifted right by 1 to 31 bits (repeating after 31 variables): a value the
    /// driver cannot prove equal to another, and from which no sound compiler can learn the
    /// word.
    fn exit_zero(&mut self, d: VarId, ity: Ty) -> Operand {
        if !self.tested.get(d.index()).copied().unwrap_or(false) {
            return self.zero(DEF, ity);
        }
        let i = match self.tested_zeros.iter().position(|t| t.0 == d) {
            Some(i) => i,
            None => {
                let z = self.var(Ty::U32, ZERO_NAME);
                self.tested_zeros.push((d, z, None));
                self.tested_zeros.len() - 1
            }
        };
        let (_, z, z64) = self.tested_zeros[i];
        if ity == Ty::U32 {
            return Operand::Var(z);
        }
        let z64 = match z64 {
            Some(z64) => z64,
            None => {
                let z64 = self.var(Ty::U64, ZERO64_NAME);
                self.tested_zeros[i].2 = Some(z64);
                z64
            }
        };
        Operand::Var(z64)
    }

    /// Statements setting variable `d` to itself plus the unknown zero ([`Cx::exit_zero`]): an
    /// add, which no XOR with the same zero that `d` may carry cancels.
    fn rehide(&mut self, d: VarId, out: &mut Vec<Stmt>) {
        let ty = self.vars.get(d.index()).map_or(Ty::U32, |v| v.ty);
        let ity = if ty.bits() == 32 { Ty::U32 } else { Ty::U64 };
        let z = self.exit_zero(d, ity);
        if ty == ity {
            out.push(Stmt::Assign { dst: d, expr: Expr::Binary { op: BinaryOp::Add, ty, lhs: Operand::Var(d), rhs: z } });
            return;
        }
        let (t, h) = (self.var(ity, "misread_constants.bits"), self.var(ity, "misread_constants.hidden"));
        out.push(Stmt::Assign { dst: t, expr: Expr::Convert { op: ConvertOp::Bitcast, from: ty, to: ity, arg: Operand::Var(d) } });
        out.push(Stmt::Assign { dst: h, expr: Expr::Binary { op: BinaryOp::Add, ty: ity, lhs: Operand::Var(t), rhs: z } });
        out.push(Stmt::Assign { dst: d, expr: Expr::Convert { op: ConvertOp::Bitcast, from: ity, to: ty, arg: Operand::Var(h) } });
    }

    /// Statements setting `e` (of `d`'s type) to `d` plus the unknown zero ([`Cx::exit_zero`]),
    /// by an add as in [`Cx::rehide`].
    fn hide_into(&mut self, d: VarId, e: VarId, out: &mut Vec<Stmt>) {
        let ty = self.vars.get(d.index()).map_or(Ty::U32, |v| v.ty);
        let ity = if ty.bits() == 32 { Ty::U32 } else { Ty::U64 };
        let z = self.exit_zero(d, ity);
        if ty == ity {
            out.push(Stmt::Assign { dst: e, expr: Expr::Binary { op: BinaryOp::Add, ty, lhs: Operand::Var(d), rhs: z } });
            return;
        }
        let (t, h) = (self.var(ity, "misread_constants.bits"), self.var(ity, "misread_constants.hidden"));
        out.push(Stmt::Assign { dst: t, expr: Expr::Convert { op: ConvertOp::Bitcast, from: ty, to: ity, arg: Operand::Var(d) } });
        out.push(Stmt::Assign { dst: h, expr: Expr::Binary { op: BinaryOp::Add, ty: ity, lhs: Operand::Var(t), rhs: z } });
        out.push(Stmt::Assign { dst: e, expr: Expr::Convert { op: ConvertOp::Bitcast, from: ity, to: ty, arg: Operand::Var(h) } });
    }

    /// [`Cx::hidden`] with `op` (XOR or add) combining `x` and the zero.
    fn hidden_by(&mut self, ty: Ty, x: Operand, slot: usize, op: BinaryOp, out: &mut Vec<Stmt>) -> Operand {
        let ity = if ty.bits() == 32 { Ty::U32 } else { Ty::U64 };
        let z = self.zero(slot, ity);
        let k = match x {
            Operand::Const(Const::U32(v) | Const::F32(v)) => Operand::Const(Const::U32(v)),
            Operand::Const(Const::U64(v) | Const::F64(v)) => Operand::Const(Const::U64(v)),
            _ if ity == ty => x,
            _ => {
                let t = self.var(ity, "misread_constants.bits");
                out.push(Stmt::Assign { dst: t, expr: Expr::Convert { op: ConvertOp::Bitcast, from: ty, to: ity, arg: x } });
                Operand::Var(t)
            }
        };
        let h = self.var(ity, "misread_constants.hidden");
        out.push(Stmt::Assign { dst: h, expr: Expr::Binary { op, ty: ity, lhs: k, rhs: z } });
        self.mark_hidden(h);
        if ity == ty {
            return Operand::Var(h);
        }
        let f = self.var(ty, "misread_constants.hidden");
        out.push(Stmt::Assign { dst: f, expr: Expr::Convert { op: ConvertOp::Bitcast, from: ity, to: ty, arg: Operand::Var(h) } });
        self.mark_hidden(f);
        Operand::Var(f)
    }
}

/// Replaces each `v = constant` of a variable in `which` by `v = hidden(constant)`.
fn hide_constant_settings(b: &mut Block, cx: &mut Cx, which: &[bool]) {
    let mut i = 0;
    while i < b.stmts.len() {
        for body in b.stmts[i].bodies_mut() {
            hide_constant_settings(body, cx, which);
        }
        let mut before = Vec::new();
        if let Stmt::Assign { dst, expr } = &mut b.stmts[i] {
            if let (true, Expr::Use(c @ Operand::Const(_))) = (which.get(dst.index()).copied().unwrap_or(false), &*expr) {
                let ty = cx.vars.get(dst.index()).map_or(Ty::F32, |v| v.ty);
                let h = cx.hidden(ty, *c, DEF, &mut before);
                *expr = Expr::Use(h);
            }
        }
        let n = before.len();
        b.stmts.splice(i..i, before);
        i += n + 1;
    }
}

fn rewrite(b: &mut Block, cx: &mut Cx, roots: &[(VarId, Option<VarId>)], values: &[bool]) {
    let links: rustc_hash::FxHashMap<VarId, VarId> = roots.iter().filter_map(|(d, a)| a.map(|a| (*d, a))).collect();
    let mut nested = Vec::new();
    nested_of_block(b, values, false, &mut nested);
    let mut nested = nested.into_iter();
    rewrite_block(b, cx, &links, &mut nested);
    debug_assert!(nested.next().is_none(), "a statement with bodies was not rewritten");
}

/// What [`rewrite_block`] reads of the bodies of a statement that has some, on the code as
/// written (before the rewrite adds statements to it).
struct Nested {
    /// The variables the bodies assign that are not values, sorted.
    changed: Vec<VarId>,
    /// A loop's: its assignments to `changed` (in statement order), and the reads of each of
    /// `changed` in it (by position in `changed`).
    assigns: Vec<(VarId, Expr)>,
    inside: Vec<u32>,
}

/// The non-value assignments and reads of a block, nested blocks included (reads as
/// `(variable, count)`, merged at each statement with bodies).
#[derive(Default)]
struct Listed {
    assigned: Vec<VarId>,
    assigns: Vec<(VarId, Expr)>,
    reads: Vec<(VarId, u32)>,
}

/// The [`Nested`] of every statement of `b` that has bodies, in the order [`rewrite_block`]
/// meets them (pre-order; the statements it inserts have no bodies), each listed once from
/// its children's lists (listing every nested statement again at each level was O(statements
/// × depth)). Only variables that are not values count: `changed` leaves values out; and only
/// the assignments `in_loop` (in a loop, at any depth) are kept, for their loops.
fn nested_of_block(b: &Block, values: &[bool], in_loop: bool, out: &mut Vec<Nested>) -> Listed {
    let is_value = |v: VarId| values.get(v.index()).copied().unwrap_or(false);
    let mut listed = Listed::default();
    for s in &b.stmts {
        crate::ir::stmt_operands(s, |o| {
            if let Operand::Var(v) = o {
                if !is_value(v) {
                    listed.reads.push((v, 1));
                }
            }
        });
        if let Stmt::Assign { dst, expr } = s {
            if !is_value(*dst) {
                listed.assigned.push(*dst);
                if in_loop {
                    listed.assigns.push((*dst, expr.clone()));
                }
            }
        }
        if s.bodies().next().is_none() {
            continue;
        }
        let is_loop = matches!(s, Stmt::Loop { .. });
        let at = out.len();
        out.push(Nested { changed: Vec::new(), assigns: Vec::new(), inside: Vec::new() });
        let mut inner = Listed::default();
        for body in s.bodies() {
            let l = nested_of_block(body, values, in_loop || is_loop, out);
            inner.assigned.extend(l.assigned);
            inner.assigns.extend(l.assigns);
            inner.reads.extend(l.reads);
        }
        inner.assigned.sort_unstable();
        inner.assigned.dedup();
        inner.reads.sort_unstable_by_key(|&(v, _)| v);
        inner.reads.dedup_by(|next, kept| {
            let same = next.0 == kept.0;
            if same {
                kept.1 += next.1;
            }
            same
        });
        if is_loop {
            let count = |d: &VarId| inner.reads.binary_search_by_key(d, |&(v, _)| v).map_or(0, |at| inner.reads[at].1);
            out[at].inside = inner.assigned.iter().map(count).collect();
            out[at].assigns = inner.assigns.clone();
        }
        out[at].changed = inner.assigned.clone();
        listed.assigned.extend(inner.assigned);
        listed.assigns.extend(inner.assigns);
        listed.reads.extend(inner.reads);
    }
    listed
}

/// Rewrites `b`, following in `cx.known` what the driver can compute of each variable at
/// each point ([`fold`]), as the driver does in SSA form: a register assigned several times
/// (`add.cc.u32 %r7, 0xfffffffd, 0x2d6f81cd` over a loaded `%r7`) is known between an
/// assignment of a known value and the next assignment. A variable assigned in a nested
/// block is known after the statement only where every branch leaves it the same value (a
/// loop: where it has that value before the loop and every assignment in it sets it, and
/// then also throughout the loop); each branch starts from the state before the statement. A value
/// variable (one assignment, before every use: [`Kernel::value_vars`]) keeps what is known
/// of it wherever it is used.
fn rewrite_block(
    b: &mut Block,
    cx: &mut Cx,
    links: &rustc_hash::FxHashMap<VarId, VarId>,
    nested: &mut std::vec::IntoIter<Nested>,
) {
    let mut i = 0;
    while i < b.stmts.len() {
        if b.stmts[i].bodies().next().is_some() {
            // The bodies' non-value assignments, listed before the rewrite began.
            let Some(Nested { changed, assigns: list, inside }) = nested.next() else {
                unreachable!("nested_of_block lists every statement with bodies")
            };
            let is_loop = matches!(b.stmts[i], Stmt::Loop { .. });
            // Reads inside a loop (`inside`, by position in `changed`), counted on its code as
            // written (before this pass adds statements to it), against the kernel's reads
            // counted the same way (`cx.uses`).
            let known_of = |known: &[Option<u64>], d: &VarId| known.get(d.index()).copied().flatten();
            let mut saved: Vec<Option<u64>> = changed.iter().map(|d| known_of(&cx.known, d)).collect();
            if is_loop {
                // A variable the loop changes is known in it and after it only where it is
                // known before it and every assignment in the loop sets that same value
                // (folded knowing nothing of what the loop changes): the driver's loop phi
                // of equal constants (−1.0 set before a loop and in it, then selected
                // against +0, came out −0, both backends).
                // In place: what the loop changes is unknown for these folds (and set again
                // from `saved` below, before anything reads it). A copy of `known` per loop
                // cost a walk over all the kernel's variables.
                for d in &changed {
                    if let Some(slot) = cx.known.get_mut(d.index()) {
                        *slot = None;
                    }
                }
                // One pass over the loop's assignments (per variable, a pass of its own was
                // quadratic in the loop's size): each one that does not fold to the value
                // known before the loop makes its variable unknown.
                let known = &cx.known;
                for (x, e) in &list {
                    if let Ok(at) = changed.binary_search(x) {
                        if saved[at].is_some_and(|k| fold(e, known) != Some(k)) {
                            saved[at] = None;
                        }
                    }
                }
            }
            // What each branch leaves known (a loop: what `saved` holds throughout it).
            let mut ends: Vec<Vec<Option<u64>>> = Vec::new();
            for body in b.stmts[i].bodies_mut() {
                for (d, k) in changed.iter().zip(&saved) {
                    if let Some(slot) = cx.known.get_mut(d.index()) {
                        *slot = *k;
                    }
                }
                rewrite_block(body, cx, links, nested);
                if !is_loop {
                    ends.push(changed.iter().map(|d| cx.known.get(d.index()).copied().flatten()).collect());
                }
            }
            // A loop's exit is a phi of what each `break` leaves, which the driver turns into
            // selects once it removes or unrolls the loop (a one-trip region loop whose
            // nested exits set −1.0 and +0 into one register came out −0 on SPIR-V:
            // `driver_workarounds`, "nested branches … in either else"). So, as for a
            // selection's merge below, a 32- or 64-bit variable the loop assigns, that is
            // read outside it and not opaque, leaves through every `break` of a loop with
            // two or more of them as itself plus the unknown zero. (A selection whose branch
            // breaks is left alone by the selection rule: this covers its values.) A loop
            // with one `break` has no exit phi, and unrolling a constant trip count leaves one
            // exit.
            if is_loop {
                let hide: Vec<VarId> = changed
                    .iter()
                    .zip(&inside)
                    .filter(|&(d, &reads_inside)| {
                        let ty = cx.vars.get(d.index()).map_or(Ty::Bool, |v| v.ty);
                        // The loop-cut check's counter: integer bookkeeping of ptxcross's
                        // own, compared and never stored, which `loop_cut::strip_checks` must
                        // still recognise in a launch-specialised variant.
                        let check = cx.vars.get(d.index()).is_some_and(crate::loop_cut::is_check_var);
                        !check
                            && matches!(ty.bits(), 32 | 64)
                            && ty != Ty::Bool
                            && Some(*d) != cx.site_var
                            && !cx.unknown(Operand::Var(*d))
                            && cx.uses.get(d.index()).copied().unwrap_or(0) > reads_inside
                    })
                    .map(|(d, _)| *d)
                    .collect();
                if let Some(Stmt::Loop { body }) = (!hide.is_empty()).then_some(&mut b.stmts[i]) {
                    if count_breaks(body) >= 2 {
                        // Through a shadow per variable, set at every `break` and copied back
                        // after the loop: the variable itself keeps its assignments in the loop
                        // (an induction variable stays one for `launch_proof`).
                        let shadows: Vec<(VarId, VarId)> = hide
                            .iter()
                            .map(|&d| {
                                let ty = cx.vars.get(d.index()).map_or(Ty::U32, |v| v.ty);
                                (d, cx.var(ty, "misread_constants.exit"))
                            })
                            .collect();
                        hide_at_breaks(body, cx, &shadows);
                        let copies = shadows.iter().map(|&(d, e)| Stmt::Assign { dst: d, expr: Expr::Use(Operand::Var(e)) });
                        b.stmts.splice(i + 1..i + 1, copies);
                    }
                }
            }
            // A selection's merge is a phi, which the driver turns into a select of what the
            // branches leave (`nir_opt_peephole_select`): a register set to −1.0 in one arm
            // and +0 in the other came out −0, both backends (`driver_workarounds`). So the
            // select rule holds for phis too: a 32- or 64-bit variable the selection assigns
            // (that is not opaque) leaves one branch through an add of the unknown zero
            // (a switch: every case but none, as the driver makes a chain of selects of
            // it). The branch that ends in `Break`, `Continue` or `Return` does not reach the
            // merge, so the first that may is used. A selection with a side effect in a branch
            // (a store, an atomic, a barrier, a warp operation, a fault, a return or break)
            // cannot become a select, as running both branches would change what the kernel
            // does: its merge stays a phi, and is left alone.
            if !is_loop && !b.stmts[i].bodies().any(has_side_effect) {
                let hide: Vec<(usize, VarId)> = changed
                    .iter()
                    .enumerate()
                    .filter(|&(j, d)| {
                        let ty = cx.vars.get(d.index()).map_or(Ty::Bool, |v| v.ty);
                        ty != Ty::Bool
                            && Some(*d) != cx.site_var
                            && !cx.unknown(Operand::Var(*d))
                            && !cx.settled(ty, *d, ends.iter().map(|e| e[j]))
                    })
                    .map(|(j, d)| (j, *d))
                    .collect();
                if !hide.is_empty() {
                    let is_switch = matches!(b.stmts[i], Stmt::Switch { .. });
                    let falls: Vec<bool> = b.stmts[i]
                        .bodies()
                        .map(|body| !matches!(body.stmts.last(), Some(Stmt::Break | Stmt::Continue | Stmt::Return)))
                        .collect();
                    let targets: Vec<usize> = if is_switch {
                        (0..falls.len()).filter(|&k| falls[k]).collect()
                    } else {
                        falls.iter().position(|&f| f).into_iter().collect()
                    };
                    let mut extra: Vec<Vec<Stmt>> = vec![Vec::new(); falls.len()];
                    for &k in &targets {
                        for &(j, d) in &hide {
                            cx.rehide(d, &mut extra[k]);
                            if let Some(e) = ends.get_mut(k) {
                                e[j] = None;
                            }
                        }
                    }
                    for (body, more) in b.stmts[i].bodies_mut().zip(extra) {
                        body.stmts.extend(more);
                    }
                }
            }
            // After a selection, a variable is known where every branch leaves it the same
            // known value: the driver's phi of equal constants (both arms of a branch setting
            // −0.0, then selected against 1.0, came out +0, both backends). A branch that
            // leaves through `Break`, `Continue` or `Return` counts too (conservative).
            for (j, d) in changed.iter().enumerate() {
                let first = if is_loop { saved[j] } else { ends.first().and_then(|e| e[j]) };
                let merged = first.filter(|_| ends.iter().all(|e| e[j] == first));
                if let Some(slot) = cx.known.get_mut(d.index()) {
                    *slot = merged;
                }
            }
        }
        let mut before = Vec::new();
        // What the assignment sets, from the statement as written (the hidden operands below
        // are what the driver sees instead), recorded once its operands have been looked at.
        let learned = match &b.stmts[i] {
            Stmt::Assign { dst, expr } => Some((*dst, fold(expr, &cx.known))),
            _ => None,
        };
        match &mut b.stmts[i] {
            Stmt::Assign { dst, expr } => match expr {
                Expr::Select { ty, cond, a, b: other } if *ty != Ty::Bool => {
                    let dst = *dst;
                    let ty = *ty;
                    let exempt = cx.heap_select(ty, *cond, *other);
                    let mut hid = false;
                    for o in [&mut *a, &mut *other] {
                        if cx.risky(ty, *o).is_some() {
                            let k = cx.as_known(ty, *o);
                            *o = cx.hidden(ty, k, DEF, &mut before);
                            hid = true;
                        }
                    }
                    // The general rule (module comment, "Selects"): no select reaches the
                    // driver with two operands it may know.
                    if !hid && !exempt && !cx.unknown(*a) && !cx.unknown(*other) && !cx.settled(ty, dst, [*a, *other].map(|o| bits(o, &cx.known))) {
                        // A constant is hidden as such (it cannot cancel with anything); a
                        // variable by an add of the zero, which no XOR with the same zero
                        // it may carry already (a load forwarded from a hidden store) undoes.
                        let o = if bits(*other, &cx.known).is_some() && bits(*a, &cx.known).is_none() { other } else { a };
                        *o = match bits(*o, &cx.known) {
                            Some(_) => {
                                let k = cx.as_known(ty, *o);
                                cx.hidden(ty, k, DEF, &mut before)
                            }
                            None => cx.hidden_by(ty, *o, DEF, BinaryOp::Add, &mut before),
                        };
                    }
                }
                Expr::Binary { op, ty: ty @ (Ty::F32 | Ty::F64), lhs, rhs } if matches!(op, FAdd | FSub | FMul | FDiv | FMin | FMax) => {
                    let ty = *ty;
                    // The same value on both sides: the identities of `x - x`, `x + (-x)`,
                    // `x / x` are not IEEE-exact (infinities, NaN).
                    let same = matches!(op, FAdd | FSub | FDiv)
                        && matches!((*lhs, *rhs), (Operand::Var(l), Operand::Var(r)) if root(l, links) == root(r, links));
                    if same || cx.exposed(ty, *lhs) {
                        *lhs = cx.hidden(ty, *lhs, LHS, &mut before);
                    }
                    if same || cx.exposed(ty, *rhs) {
                        *rhs = cx.hidden(ty, *rhs, RHS, &mut before);
                    }
                }
                Expr::Fma { ty, a, b: f, c } => {
                    let ty = *ty;
                    for (slot, o) in [(LHS, a), (RHS, f), (LHS, c)] {
                        if cx.exposed(ty, *o) {
                            *o = cx.hidden(ty, *o, slot, &mut before);
                        }
                    }
                }
                _ => {}
            },
            Stmt::StoreWord { memory, value, .. } if *memory != Memory::Param && (cx.stored_exposed(*value) || cx.misread_word(*value)) => {
                let k = cx.as_known(Ty::U32, *value);
                *value = cx.hidden(Ty::U32, k, DEF, &mut before);
            }
            _ => {}
        }
        if let Some((dst, value)) = learned {
            if let Some(slot) = cx.known.get_mut(dst.index()) {
                *slot = value;
            }
        }
        let n = before.len();
        b.stmts.splice(i..i, before);
        i += n + 1;
    }
}

/// Adds to `counts` (per variable) the reads of each variable in `b`, nested blocks included.
fn use_counts(b: &Block, counts: &mut Vec<u32>) {
    for s in &b.stmts {
        crate::ir::stmt_operands(s, |o| {
            if let Operand::Var(v) = o {
                if counts.len() <= v.index() {
                    counts.resize(v.index() + 1, 0);
                }
                counts[v.index()] += 1;
            }
        });
        for body in s.bodies() {
            use_counts(body, counts);
        }
    }
}

/// The `Break`s of the loop whose body is `b` (not those of loops nested in it).
fn count_breaks(b: &Block) -> usize {
    b.stmts
        .iter()
        .map(|s| match s {
            Stmt::Break => 1,
            Stmt::Loop { .. } => 0,
            s => s.bodies().map(count_breaks).sum(),
        })
        .sum()
}

/// Puts `e = d + zero` for each `(d, e)` of `vars` before every `Break` of the loop whose
/// body is `b` ([`rewrite_block`]'s loop-exit rule).
fn hide_at_breaks(b: &mut Block, cx: &mut Cx, vars: &[(VarId, VarId)]) {
    let mut i = 0;
    while i < b.stmts.len() {
        match &mut b.stmts[i] {
            Stmt::Break => {
                let mut more = Vec::new();
                for &(d, e) in vars {
                    cx.hide_into(d, e, &mut more);
                }
                let n = more.len();
                b.stmts.splice(i..i, more);
                i += n;
            }
            Stmt::Loop { .. } => {}
            s => {
                for body in s.bodies_mut() {
                    hide_at_breaks(body, cx, vars);
                }
            }
        }
        i += 1;
    }
}

/// Per variable of `kernel` (after this pass): whether every assignment is a value this pass
/// computed through an unknown zero (the XOR with it, or a bitcast of that), so the driver
/// cannot see what produced it. The WGSL backend, whose own guard hides float-op results
/// and constants (WGSL cannot say `NoContraction`), reads these as opaque instead of hiding
/// them a second time.
pub fn hidden_vars(kernel: &Kernel) -> Vec<bool> {
    let n = kernel.vars.len();
    let mut list = Vec::new();
    assignments(&kernel.body, &mut list);
    // The zeros are this pass's own variables, named so (PTX names cannot hold a dot).
    let zero: Vec<bool> = kernel.vars.iter().map(|v| v.name == ZERO_NAME || v.name == ZERO64_NAME).collect();
    let is_zero = |o: &Operand| matches!(o, Operand::Var(v) if zero.get(v.index()).copied().unwrap_or(false));
    // Optimistic start, then remove each variable with another kind of assignment.
    let mut hidden = vec![false; n];
    for (d, _) in &list {
        if let Some(h) = hidden.get_mut(d.index()) {
            *h = true;
        }
    }
    loop {
        let mut changed = false;
        for (d, e) in &list {
            let ok = match e {
                Expr::Binary { op: BinaryOp::Xor, lhs, rhs, .. } => is_zero(rhs) && lhs != rhs,
                Expr::Convert { op: ConvertOp::Bitcast, arg: Operand::Var(h), .. } => hidden.get(h.index()).copied().unwrap_or(false),
                _ => false,
            };
            if let Some(h) = hidden.get_mut(d.index()).filter(|h| !ok && **h) {
                *h = false;
                changed = true;
            }
        }
        if !changed {
            return hidden;
        }
    }
}

/// Whether `bits` of a `ty` value is a signaling NaN (all-ones exponent, quiet bit clear,
/// payload non-zero).
fn signaling_nan(ty: Ty, bits: u64) -> bool {
    match ty {
        Ty::F32 | Ty::U32 => {
            let b = bits as u32;
            b & 0x7f80_0000 == 0x7f80_0000 && b & 0x0040_0000 == 0 && b & 0x003f_ffff != 0
        }
        Ty::F64 | Ty::U64 => {
            bits & 0x7ff0_0000_0000_0000 == 0x7ff0_0000_0000_0000 && bits & (1 << 51) == 0 && bits & ((1 << 51) - 1) != 0
        }
        _ => false,
    }
}

/// Signaling-NaN constants become values the driver cannot know: their bits XOR the
/// parameter header's zero word, then bitcast. PTX moves keep a signaling NaN's bits (`mov`,
/// `selp`, `st`; CUDA does), but NVIDIA's Vulkan driver (H200, driver 580) quieted such a
/// constant held in an `.f32` register and then selected (`tests/nvidia/probes/snan_moves`:
/// 0xff800001 came out 0xffc00001), although the select itself moves bits
/// (`inst::moves::bit_move_type`). Covered: float constants and bitcasts of integer constants
/// to a float type, wherever an expression reads them. The cost is one load per kernel and
/// one XOR per such constant, in kernels that have one (rare: only hand-written bits).
pub fn hide_signaling_nans(kernel: &mut Kernel) {
    /// The float type `e` bitcasts to, if it is such a bitcast.
    fn bitcast_to(e: &Expr) -> Option<Ty> {
        match *e {
            Expr::Convert { op: ConvertOp::Bitcast, to, .. } => Some(to),
            _ => None,
        }
    }
    /// Whether operand `o` of an expression that bitcasts to `to` is a signaling NaN.
    fn is_snan_operand(to: Option<Ty>, o: Operand) -> bool {
        match (to, o) {
            (_, Operand::Const(Const::F32(b))) => signaling_nan(Ty::F32, b as u64),
            (_, Operand::Const(Const::F64(b))) => signaling_nan(Ty::F64, b),
            (Some(Ty::F32), Operand::Const(Const::U32(b))) => signaling_nan(Ty::U32, b as u64),
            (Some(Ty::F64), Operand::Const(Const::U64(b))) => signaling_nan(Ty::U64, b),
            _ => false,
        }
    }
    let has_snan = |expr: &Expr| {
        let mut found = false;
        expr.for_each_operand(|o| found |= is_snan_operand(bitcast_to(expr), o));
        found
    };
    if !kernel.body.any_assign(&has_snan) {
        return;
    }
    let z = push_var(&mut kernel.vars, Ty::U32, "misread_constants.snan_zero");
    let z64 = push_var(&mut kernel.vars, Ty::U64, "misread_constants.snan_zero");
    fn rewrite(b: &mut Block, vars: &mut Vec<VarInfo>, z: VarId, z64: VarId) {
        let mut out = Vec::with_capacity(b.stmts.len());
        for mut s in std::mem::take(&mut b.stmts) {
            if let Stmt::Assign { expr, .. } = &mut s {
                let to = bitcast_to(expr);
                let mut before = Vec::new();
                expr.for_each_operand_mut(|o| {
                    if !is_snan_operand(to, *o) {
                        return;
                    }
                    let (bits, int_ty, float_ty) = match *o {
                        Operand::Const(Const::F32(x)) => (Const::U32(x), Ty::U32, Some(Ty::F32)),
                        Operand::Const(Const::F64(x)) => (Const::U64(x), Ty::U64, Some(Ty::F64)),
                        Operand::Const(c) => (c, c.ty(), None),
                        Operand::Var(_) => return,
                    };
                    let hidden = push_var(vars, int_ty, "misread_constants.snan");
                    let zero = if int_ty == Ty::U32 { z } else { z64 };
                    before.push(Stmt::Assign {
                        dst: hidden,
                        expr: Expr::Binary { op: BinaryOp::Xor, ty: int_ty, lhs: Operand::Const(bits), rhs: Operand::Var(zero) },
                    });
                    *o = match float_ty {
                        Some(fty) => {
                            let f = push_var(vars, fty, "misread_constants.snan");
                            before.push(Stmt::Assign { dst: f, expr: Expr::Convert { op: ConvertOp::Bitcast, from: int_ty, to: fty, arg: Operand::Var(hidden) } });
                            Operand::Var(f)
                        }
                        None => Operand::Var(hidden),
                    };
                });
                out.append(&mut before);
            }
            for body in s.bodies_mut() {
                rewrite(body, vars, z, z64);
            }
            out.push(s);
        }
        b.stmts = out;
    }
    rewrite(&mut kernel.body, &mut kernel.vars, z, z64);
    let prologue = [
        Stmt::Assign { dst: z, expr: Expr::LoadWord { memory: Memory::Param, index: Operand::Const(Const::U32(abi::PARAM_ZERO_WORD)) } },
        Stmt::Assign { dst: z64, expr: Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: Operand::Var(z) } },
    ];
    kernel.body.stmts.splice(0..0, prologue);
}
