//! Plain heap word loads as one call each (issue 11, code size).
//!
//! A plain 4-byte `ld.global` is, after `lower` (`inst/memory.rs`, `load_heap`), about sixteen
//! statements: the segment test of the 64-bit address, the alignment test and its deferred
//! fault, the range test and its deferred fault, the load at `select(ok, i, SINK)` and the
//! value's `select(ok, w, 0)`. Those statements stay inline in the kernel that `lower` returns,
//! because the passes and the analyses that come after read that shape: `launch_proof` (its
//! claims start from the tests), `Kernel::heap_index_memories_of` (the backends' proof that
//! the index is in range), `misread_constants` and `cleanup` (which shares one pointer's tests
//! between its load and its store). [`crate::emission::Emission`] (once for both backends)
//! calls [`outline_module`] on a copy of each kernel just before it is written, when those
//! have all run: every load whose sixteen
//! statements are its own (no other statement reads one of their values) becomes
//! `v = heap_load32(address, segment base)`, one [`Function`] per kernel holding exactly those
//! statements (with the heap's index limit computed inside, so that the backends' proof still
//! recognises the index there). Same statements, same order of memory accesses and faults:
//! the statements between the first and the last of the sequence that are not part of it are
//! pure assignments of other variables, which the call now follows. Drivers inline the
//! function again (lavapipe in NIR; naga's SPIR-V of WGSL likewise).

use crate::abi::{FAULT_GLOBAL_OUT_OF_RANGE, FAULT_MISALIGNED, HEAP_RESERVED_WORDS, HEAP_SINK_WORD};
use crate::ir::{
    stmt_operands, BinaryOp, Block, Builtin, CmpOp, Const, ConvertOp, Expr, Function, Kernel, Memory, Module, Operand, Stmt, Ty,
    UnaryOp, VarId, VarInfo,
};
use rustc_hash::FxHashMap;

/// The assignment of each value of the kernel (`Kernel::value_vars`), by variable index (a
/// vector: the matchers look up every operand they follow).
struct Defs<'a>(Vec<Option<&'a Expr>>);

impl<'a> Defs<'a> {
    fn get(&self, v: &VarId) -> Option<&&'a Expr> {
        self.0.get(v.index()).and_then(Option::as_ref)
    }
}

/// The name of the outlined load's function.
pub const HEAP_LOAD_FUNCTION: &str = "heap_load32";
/// The name of the outlined store's function.
pub const HEAP_STORE_FUNCTION: &str = "heap_store32";

/// [`outline_module`]'s result.
pub struct Outlined {
    /// The module with its accesses outlined; `None` where no kernel changed.
    pub module: Option<Module>,
    /// Per kernel: [`Kernel::value_vars`] where the outlining computed it and left the kernel
    /// as it was (the emitters' [`crate::emission::Analyses`] start from it: not computed twice).
    pub values: Vec<Option<Vec<bool>>>,
}

/// `module` with each kernel's plain heap word loads and stores outlined
/// ([`outline_heap_accesses`]) where the kernel has at least two of a kind (a function's own
/// statements cost about what one access saves); no module where no kernel changes, or where
/// the environment has `PTXCROSS_NO_HEAP_OUTLINE=1` (a measurement switch: the inline code).
pub fn outline_module(module: &Module) -> Outlined {
    let mut values: Vec<Option<Vec<bool>>> = module.kernels.iter().map(|_| None).collect();
    if std::env::var_os("PTXCROSS_NO_HEAP_OUTLINE").is_some_and(|v| v == "1") {
        return Outlined { module: None, values }; // the inline form, for before/after measurements with one binary
    }
    let mut changed: Vec<(usize, Kernel)> = Vec::new();
    for (i, k) in module.kernels.iter().enumerate() {
        // The accesses are per segment with several segment slots (`Memory::Segment`).
        if k.features.segment_slots >= 2 || heap_accesses(&k.body) < 2 {
            continue;
        }
        let kernel_values = k.value_vars();
        let (defs, uses) = analyse(k, &kernel_values);
        let mut counts = [0; 2];
        let mut found = Vec::new();
        count(&k.body, &defs, &uses, k.fault_site_var, &mut counts, &mut found);
        let enabled = counts.map(|n| n >= 2);
        if enabled == [false, false] {
            drop(defs);
            values[i] = Some(kernel_values);
            continue;
        }
        let mut k2 = k.clone();
        // With both kinds enabled, the matches are those just counted, block by block in the
        // same order (each block's matches read only its own statements, which the walk
        // rewrites after matching): not searched for twice.
        let found = (enabled == [true, true]).then_some(found);
        apply(&mut k2, &defs, &uses, enabled, found);
        changed.push((i, k2));
    }
    if changed.is_empty() {
        return Outlined { module: None, values };
    }
    let mut kernels: Vec<Option<Kernel>> = module.kernels.iter().map(|_| None).collect();
    for (i, k) in changed {
        kernels[i] = Some(k);
    }
    let module = Module {
        kernels: kernels.into_iter().zip(&module.kernels).map(|(new, old)| new.unwrap_or_else(|| old.clone())).collect(),
        globals: module.globals.clone(),
    };
    Outlined { module: Some(module), values }
}

/// Heap word loads and stores in `b`, at most 2 counted.
fn heap_accesses(b: &Block) -> usize {
    let mut n = 0;
    for s in &b.stmts {
        if n >= 2 {
            break;
        }
        if matches!(
            s,
            Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Heap, .. }, .. } | Stmt::StoreWord { memory: Memory::Heap, .. }
        ) {
            n += 1;
        }
        for body in s.bodies() {
            n += heap_accesses(body);
        }
    }
    n
}

/// One matched access: the call's operands.
struct Call {
    addr: Operand,
    base: Operand,
    /// A store's value.
    value: Option<Operand>,
    /// A load's value (`select(ok, w, 0)`), assigned the call.
    v: VarId,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Load,
    Store,
}


/// Outlines all of `kernel`'s plain 4-byte heap loads and stores (see the module doc);
/// returns how many of each.
pub fn outline_heap_accesses(kernel: &mut Kernel) -> [usize; 2] {
    if kernel.features.segment_slots >= 2 {
        return [0, 0];
    }
    let original = kernel.clone();
    let values = original.value_vars();
    let (defs, uses) = analyse(&original, &values);
    apply(kernel, &defs, &uses, [true, true], None)
}

/// The kernel's values' assignments (`values`: its [`Kernel::value_vars`]) and how often each
/// variable is read.
fn analyse<'k>(kernel: &'k Kernel, values: &[bool]) -> (Defs<'k>, Vec<u32>) {
    let mut defs = Defs(vec![None; kernel.vars.len()]);
    let mut uses: Vec<u32> = vec![0; kernel.vars.len()];
    fn scan<'a>(b: &'a Block, values: &[bool], defs: &mut Defs<'a>, uses: &mut [u32]) {
        for s in &b.stmts {
            if let Stmt::Assign { dst, expr } = s {
                if values.get(dst.index()).copied().unwrap_or(false) {
                    if let Some(d) = defs.0.get_mut(dst.index()) {
                        *d = Some(expr);
                    }
                }
            }
            stmt_operands(s, |o| {
                if let Operand::Var(v) = o {
                    if let Some(u) = uses.get_mut(v.index()) {
                        *u += 1;
                    }
                }
            });
            for body in s.bodies() {
                scan(body, values, defs, uses);
            }
        }
    }
    scan(&kernel.body, values, &mut defs, &mut uses);
    (defs, uses)
}

/// One block's matches ([`block_matches`]).
type Matches = Vec<(usize, Access, Call, Vec<usize>)>;

/// How many accesses of each kind [`apply`] would outline with both kinds enabled; `found`
/// gets each block's matches, in the order in which [`walk`] visits the blocks.
fn count(b: &Block, defs: &Defs, uses: &[u32], site: Option<VarId>, n: &mut [usize; 2], found: &mut Vec<Matches>) {
    for s in &b.stmts {
        for body in s.bodies() {
            count(body, defs, uses, site, n, found);
        }
    }
    let matches = block_matches(b, defs, uses, site, [true, true]);
    for (_, access, _, _) in &matches {
        n[*access as usize] += 1;
    }
    found.push(matches);
}

/// Outlines the loads (`enabled[0]`) and the stores (`enabled[1]`) of `kernel`, whose values
/// and uses before are `defs` and `uses`; returns how many of each. `found`: each block's
/// matches with both kinds enabled, from [`count`] (`None`: found here).
fn apply(kernel: &mut Kernel, defs: &Defs, uses: &[u32], enabled: [bool; 2], found: Option<Vec<Matches>>) -> [usize; 2] {
    let site = kernel.fault_site_var;
    let find = |name: &str| kernel.functions.iter().position(|f| f.name == name).map(|i| i as u32);
    let mut funcs = [find(HEAP_LOAD_FUNCTION), find(HEAP_STORE_FUNCTION)];
    let mut count = [0; 2];
    let mut body = std::mem::take(&mut kernel.body);
    let mut new_functions = Vec::new();
    let mut new_vars = Vec::new();
    let (n_functions, n_vars) = (kernel.functions.len(), kernel.vars.len());
    walk(
        &mut body,
        defs,
        uses,
        site,
        &mut |access| {
            let slot = access as usize;
            let f = *funcs[slot].get_or_insert_with(|| {
                new_functions.push(access_function(access));
                (n_functions + new_functions.len() - 1) as u32
            });
            // A store's call result (nothing) goes to a variable of its own, read by nobody.
            let dummy = (access == Access::Store).then(|| {
                new_vars.push(VarInfo { ty: Ty::U32, name: "stored".into() });
                VarId((n_vars + new_vars.len() - 1) as u32)
            });
            (f, dummy)
        },
        enabled,
        &mut found.map(Vec::into_iter),
        &mut count,
    );
    kernel.body = body;
    kernel.functions.extend(new_functions);
    kernel.vars.extend(new_vars);
    if count != [0, 0] {
        // The sequences' variables are no longer in the body.
        let _ = crate::cleanup::compact_vars(kernel);
    }
    count
}

#[allow(clippy::too_many_arguments)]
fn walk(
    b: &mut Block,
    defs: &Defs,
    uses: &[u32],
    site: Option<VarId>,
    func: &mut dyn FnMut(Access) -> (u32, Option<VarId>),
    enabled: [bool; 2],
    found: &mut Option<std::vec::IntoIter<Matches>>,
    count: &mut [usize; 2],
) {
    for s in &mut b.stmts {
        for body in s.bodies_mut() {
            walk(body, defs, uses, site, func, enabled, found, count);
        }
    }
    let found = match found {
        Some(blocks) => blocks.next().unwrap_or_default(),
        None => block_matches(b, defs, uses, site, enabled),
    };
    if found.is_empty() {
        return;
    }
    let mut calls: FxHashMap<usize, Stmt> = FxHashMap::default();
    let mut drop = vec![false; b.stmts.len()];
    for (j, access, call, at) in found {
        let (f, dummy) = func(access);
        let dst = match access {
            Access::Load => call.v,
            Access::Store => dummy.expect("a store's result variable"),
        };
        let mut args = vec![call.addr, call.base];
        args.extend(call.value);
        calls.insert(j, Stmt::Assign { dst, expr: Expr::Call { func: f, ty: Ty::U32, args } });
        for p in at {
            drop[p] = true;
        }
        count[access as usize] += 1;
    }
    let old = std::mem::take(&mut b.stmts);
    b.stmts = old
        .into_iter()
        .enumerate()
        .filter(|(p, _)| !drop[*p])
        .map(|(p, s)| calls.remove(&p).unwrap_or(s))
        .collect();
}

/// The accesses of `b`'s own statements (not nested blocks') that can be outlined: the
/// position of each's last statement (the call's), its kind and operands, and the positions
/// of its other statements.
fn block_matches(b: &Block, defs: &Defs, uses: &[u32], site: Option<VarId>, enabled: [bool; 2]) -> Matches {
    // Every match holds a heap load or store among the block's own statements (the load's
    // `w` is one of its sequence's, the store its last): most blocks have none, and cost no
    // index then.
    let heap_access = |s: &Stmt| {
        matches!(s, Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Heap, .. }, .. } | Stmt::StoreWord { memory: Memory::Heap, .. })
    };
    if !b.stmts.iter().any(heap_access) {
        return Vec::new();
    }
    // The block indexed once (matching is then linear in the block's length): where each
    // variable is assigned, and its lone faults by what they test.
    let mut ix = Index { site, ..Index::default() };
    for (p, s) in b.stmts.iter().enumerate() {
        match s {
            Stmt::Assign { dst, .. } => {
                ix.at.insert(*dst, p);
            }
            _ => {
                if let Some(c) = lone(s, FAULT_MISALIGNED) {
                    // `mis = (off & 3) != 0`, by `off`.
                    if let Some(Expr::Compare { op: CmpOp::Ne, ty: Ty::U32, lhs: Operand::Var(low), rhs }) = defs.get(&c) {
                        if let Some(Expr::Binary { op: BinaryOp::And, ty: Ty::U32, lhs: Operand::Var(off), rhs: three }) = defs.get(low) {
                            if is_u32(*rhs, 0) && is_u32(*three, 3) {
                                ix.misaligned.entry(*off).or_insert((p, [*low, c]));
                            }
                        }
                    }
                }
                if let Some(c) = lone(s, FAULT_GLOBAL_OUT_OF_RANGE) {
                    // A load's `!ok`, or a store's `!ok && aligned`: by `ok`.
                    let not_ok = |v: VarId| match defs.get(&v) {
                        Some(Expr::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg: Operand::Var(ok) }) => Some(*ok),
                        _ => None,
                    };
                    if let Some(ok) = not_ok(c) {
                        ix.out_of_range.entry(ok).or_insert((p, c, None));
                    } else if let Some(Expr::Binary { op: BinaryOp::And, ty: Ty::Bool, lhs: Operand::Var(bad), rhs: Operand::Var(aligned) }) = defs.get(&c) {
                        if let Some(ok) = not_ok(*bad) {
                            ix.out_of_range.entry(ok).or_insert((p, c, Some((*bad, *aligned))));
                        }
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut taken = vec![false; b.stmts.len()];
    for j in 0..b.stmts.len() {
        let load = || enabled[0].then(|| match_load(b, j, defs, uses, &ix)).flatten().map(|m| (Access::Load, m));
        let store = || enabled[1].then(|| match_store(b, j, defs, uses, &ix)).flatten().map(|m| (Access::Store, m));
        let Some((access, (call, at))) = load().or_else(store) else { continue };
        // Sequences never interleave (another access's statements between the first and the
        // last of one make it fail), so each match holds in the block as it was.
        if at.iter().any(|&p| taken[p]) {
            continue;
        }
        for &p in &at {
            taken[p] = true;
        }
        out.push((j, access, call, at));
    }
    out
}

/// An out-of-range fault's position, condition, and for a store's `(bad, aligned)`.
type OutOfRange = (usize, VarId, Option<(VarId, VarId)>);

/// One block's statements by what the matchers look for.
#[derive(Default)]
struct Index {
    /// The fault-site variable.
    site: Option<VarId>,
    /// Position of each variable's assignment (the last, for a variable assigned twice: such a
    /// variable is no value, and no matcher accepts one).
    at: FxHashMap<VarId, usize>,
    /// `if mis { fault misaligned }` with `mis = (off & 3) != 0`, by `off`: its position and
    /// `[low, mis]`.
    misaligned: FxHashMap<VarId, (usize, [VarId; 2])>,
    /// `if c { fault out of range }` by `ok`, with `c = !ok` (a load's) or `c = bad && aligned`,
    /// `bad = !ok` (a store's: `Some((bad, aligned))`): its position and `c`.
    out_of_range: FxHashMap<VarId, OutOfRange>,
}

fn var(o: Operand) -> Option<VarId> {
    match o {
        Operand::Var(v) => Some(v),
        Operand::Const(_) => None,
    }
}

fn is_u32(o: Operand, x: u32) -> bool {
    o == Operand::Const(Const::U32(x))
}

/// The segment test of `off` (`FnLower::heap_offset`): `off = select(hi != base,
/// 0xffff_fff0, lo)`, `hi = u32(addr >> 32)`, `lo = u32(addr)`; gives `addr`, `base` and
/// the variables `[hi64, hi, lo, other]`.
fn segment(off: VarId, defs: &Defs) -> Option<(Operand, Operand, [VarId; 4])> {
    let def = |v: VarId| defs.get(&v).copied();
    let Expr::Select { ty: Ty::U32, cond: other, a: far, b: lo } = def(off)? else { return None };
    let (other, lo) = (var(*other)?, var(*lo)?);
    if !is_u32(*far, 0xffff_fff0) {
        return None;
    }
    let Expr::Compare { op: CmpOp::Ne, ty: Ty::U32, lhs: hi, rhs: base } = def(other)? else { return None };
    let (hi, base) = (var(*hi)?, *base);
    let Expr::Convert { op: ConvertOp::Truncate, from: Ty::U64, to: Ty::U32, arg: hi64 } = def(hi)? else { return None };
    let hi64 = var(*hi64)?;
    let Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U64, lhs: addr, rhs } = def(hi64)? else { return None };
    let addr = *addr;
    if !is_u32(*rhs, 32) {
        return None;
    }
    let Expr::Convert { op: ConvertOp::Truncate, from: Ty::U64, to: Ty::U32, arg } = def(lo)? else { return None };
    (*arg == addr).then_some((addr, base, [hi64, hi, lo, other]))
}

/// `idx = off >> 2`, `ok = idx - 64 < lim` (`heap_word_check` for one word): `[idx, rel]`.
fn range_test(ok: VarId, defs: &Defs) -> Option<(VarId, [VarId; 2])> {
    let def = |v: VarId| defs.get(&v).copied();
    let Expr::Compare { op: CmpOp::LtU, ty: Ty::U32, lhs: rel, rhs: lim } = def(ok)? else { return None };
    let rel = var(*rel)?;
    if !is_heap_limit(*lim, defs) {
        return None;
    }
    let Expr::Binary { op: BinaryOp::Sub, ty: Ty::U32, lhs: idx, rhs } = def(rel)? else { return None };
    let idx = var(*idx)?;
    if !is_u32(*rhs, HEAP_RESERVED_WORDS) {
        return None;
    }
    Some((idx, [idx, rel]))
}

/// `idx = off >> 2`: `off`.
fn word_of(idx: VarId, defs: &Defs) -> Option<VarId> {
    let Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U32, lhs: off, rhs } = defs.get(&idx)? else { return None };
    is_u32(*rhs, 2).then_some(())?;
    var(*off)
}

/// The condition of `s` if it is `if c { fault code }` alone.
fn lone(s: &Stmt, code: u32) -> Option<VarId> {
    match s {
        Stmt::If { cond: Operand::Var(c), then_body, else_body }
            if else_body.stmts.is_empty() && then_body.stmts.as_slice() == [Stmt::Fault { code }] =>
        {
            Some(*c)
        }
        _ => None,
    }
}

/// The positions of the assignments of `vars` in `b` before `j` and of the statements at
/// `more`, if every variable is read exactly as often as its count says (so only inside the
/// sequence), and the other statements between the first of them and `j` are pure
/// assignments of other variables, none of `operands` (the ones read before `j`) nor the
/// fault site: the call at `j`
/// then reads the same operands and records the same faults, in the same order with every
/// memory access and fault around it.
fn sequence(b: &Block, j: usize, vars: &[(VarId, u32)], more: &[usize], uses: &[u32], operands: &[Operand], ix: &Index) -> Option<Vec<usize>> {
    if vars.iter().any(|(v, n)| uses.get(v.index()) != Some(n)) {
        return None;
    }
    let mut at = Vec::with_capacity(vars.len() + more.len());
    for &(v, _) in vars {
        at.push(ix.at.get(&v).copied().filter(|&p| p < j)?);
    }
    if more.iter().any(|&p| p >= j) {
        return None;
    }
    at.extend_from_slice(more);
    let first = *at.iter().min()?;
    for (p, s) in b.stmts.iter().enumerate().take(j).skip(first) {
        if at.contains(&p) {
            continue;
        }
        match s {
            Stmt::Assign { dst, expr } if expr.is_pure() && Some(*dst) != ix.site && !operands.contains(&Operand::Var(*dst)) => {}
            _ => return None,
        }
    }
    Some(at)
}

/// The load whose value statement is `b.stmts[j]` (`v = select(ok, w, 0)`), and the positions
/// of its other statements in `b` (all before `j`).
fn match_load(b: &Block, j: usize, defs: &Defs, uses: &[u32], ix: &Index) -> Option<(Call, Vec<usize>)> {
    let Stmt::Assign { dst: v, expr: Expr::Select { ty: Ty::U32, cond, a, b: zero } } = &b.stmts[j] else { return None };
    let def = |v: VarId| defs.get(&v).copied();
    let (ok, w) = (var(*cond)?, var(*a)?);
    if !is_u32(*zero, 0) {
        return None;
    }
    let Expr::LoadWord { memory: Memory::Heap, index } = def(w)? else { return None };
    let i = var(*index)?;
    let Expr::Select { ty: Ty::U32, cond: c2, a: idx, b: sink } = def(i)? else { return None };
    let idx = var(*idx)?;
    if var(*c2)? != ok || !is_u32(*sink, HEAP_SINK_WORD) {
        return None;
    }
    let (idx2, [_, rel]) = range_test(ok, defs)?;
    let off = word_of(idx, defs)?;
    let (addr, base, [hi64, hi, lo, other]) = segment(off, defs)?;
    let &(mis_at, [low, mis]) = ix.misaligned.get(&off)?;
    // `if bad { fault out of range }`, `bad = !ok`.
    let &(bad_at, bad, None) = ix.out_of_range.get(&ok)? else { return None };
    if idx2 != idx {
        return None;
    }
    // Read inside the sequence only: `off` by `idx` and `low`, `idx` by `rel` and `i`, `ok` by
    // `bad`, `i` and the value; the others once.
    let vars = [hi64, hi, lo, other, off, low, mis, idx, rel, ok, bad, i, w].into_iter().zip([1, 1, 1, 1, 2, 1, 1, 2, 1, 3, 1, 1, 1]);
    let at = sequence(b, j, &vars.collect::<Vec<_>>(), &[mis_at, bad_at], uses, &[addr, base], ix)?;
    Some((Call { addr, base, value: None, v: *v }, at))
}

/// The store `b.stmts[j]` (`store_heap`, 4 bytes: `heap[select(ok && !mis, idx, SINK)] =
/// value`, its faults `if mis { misaligned }` and `if !ok && !mis { out of range }`), and the
/// positions of its other statements in `b` (all before `j`).
fn match_store(b: &Block, j: usize, defs: &Defs, uses: &[u32], ix: &Index) -> Option<(Call, Vec<usize>)> {
    let Stmt::StoreWord { memory: Memory::Heap, index, value } = &b.stmts[j] else { return None };
    let def = |v: VarId| defs.get(&v).copied();
    let i = var(*index)?;
    let Expr::Select { ty: Ty::U32, cond: ok2, a: idx, b: sink } = def(i)? else { return None };
    let (ok2, idx) = (var(*ok2)?, var(*idx)?);
    if !is_u32(*sink, HEAP_SINK_WORD) {
        return None;
    }
    let Expr::Binary { op: BinaryOp::And, ty: Ty::Bool, lhs: ok, rhs: aligned } = def(ok2)? else { return None };
    let (ok, aligned) = (var(*ok)?, var(*aligned)?);
    let (idx2, [_, rel]) = range_test(ok, defs)?;
    let off = word_of(idx, defs)?;
    let (addr, base, [hi64, hi, lo, other]) = segment(off, defs)?;
    let &(mis_at, [low, mis]) = ix.misaligned.get(&off)?;
    if idx2 != idx || !matches!(def(aligned), Some(Expr::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg }) if *arg == Operand::Var(mis)) {
        return None;
    }
    // `if bad_aligned { fault out of range }`, `bad_aligned = bad && aligned`, `bad = !ok`.
    let &(bad_at, bad_aligned, Some((bad, aligned2))) = ix.out_of_range.get(&ok)? else { return None };
    if aligned2 != aligned {
        return None;
    }
    // Read inside the sequence only: `off` by `idx` and `low`, `idx` by `rel` and `i`, `mis`
    // by its fault and `aligned`, `ok` by `bad` and `ok2`, `aligned` by `bad_aligned` and
    // `ok2`; the others once.
    let vars = [hi64, hi, lo, other, off, low, mis, idx, rel, ok, bad, aligned, bad_aligned, ok2, i]
        .into_iter()
        .zip([1, 1, 1, 1, 2, 1, 2, 2, 1, 2, 1, 2, 1, 1, 1]);
    let at = sequence(b, j, &vars.collect::<Vec<_>>(), &[mis_at, bad_at], uses, &[addr, base], ix)?;
    Some((Call { addr, base, value: Some(*value), v: VarId(u32::MAX) }, at))
}

/// `lim = max(HeapWords, 64) - 64`, as `FnLower::heap_limit(0)` builds it.
fn is_heap_limit(lim: Operand, defs: &Defs) -> bool {
    let Some(Expr::Binary { op: BinaryOp::Sub, ty: Ty::U32, lhs: Operand::Var(m), rhs }) = var(lim).and_then(|l| defs.get(&l)) else {
        return false;
    };
    let Some(Expr::Binary { op: BinaryOp::MaxU, ty: Ty::U32, lhs: Operand::Var(hw), rhs: r2 }) = defs.get(m) else { return false };
    is_u32(*rhs, HEAP_RESERVED_WORDS)
        && is_u32(*r2, HEAP_RESERVED_WORDS)
        && matches!(defs.get(hw), Some(Expr::Builtin(Builtin::HeapWords)))
}

/// The statements `lower` writes for a plain 4-byte heap access, in their order, as a
/// function of `addr: u64`, `base: u32` (and for a store `value: u32`):
/// `heap_load32(addr, base) -> u32` (`load_heap`) or `heap_store32(addr, base, value) -> 0`
/// (`store_heap`), with `heap_offset`'s segment test and `FnLower::heap_limit`'s limit.
fn access_function(access: Access) -> Function {
    let store = access == Access::Store;
    let mut vars: Vec<VarInfo> = Vec::new();
    let mut new = |ty: Ty, name: &str| {
        vars.push(VarInfo { ty, name: name.into() });
        Operand::Var(VarId(vars.len() as u32 - 1))
    };
    let (addr, base) = (new(Ty::U64, "addr"), new(Ty::U32, "segment base"));
    let value = store.then(|| new(Ty::U32, "value"));
    let (hw, max, lim) = (new(Ty::U32, "heap words"), new(Ty::U32, "max"), new(Ty::U32, "heap index limit"));
    let (hi64, hi, lo, other, off) = (new(Ty::U64, "hi64"), new(Ty::U32, "hi"), new(Ty::U32, "lo"), new(Ty::Bool, "other"), new(Ty::U32, "off"));
    let (low, mis, idx, rel, ok, bad) =
        (new(Ty::U32, "low"), new(Ty::Bool, "mis"), new(Ty::U32, "idx"), new(Ty::U32, "rel"), new(Ty::Bool, "ok"), new(Ty::Bool, "bad"));
    let c = |x: u32| Operand::Const(Const::U32(x));
    let set = |dst: Operand, expr: Expr| {
        let Operand::Var(dst) = dst else { unreachable!() };
        Stmt::Assign { dst, expr }
    };
    let bin = |op, ty, lhs, rhs| Expr::Binary { op, ty, lhs, rhs };
    let not = |arg| Expr::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg };
    let fault = |cond: Operand, code: u32| Stmt::If { cond, then_body: Block { stmts: vec![Stmt::Fault { code }] }, else_body: Block::new() };
    let trunc = |arg| Expr::Convert { op: ConvertOp::Truncate, from: Ty::U64, to: Ty::U32, arg };
    let mut stmts = vec![
        set(hw, Expr::Builtin(Builtin::HeapWords)),
        set(max, bin(BinaryOp::MaxU, Ty::U32, hw, c(HEAP_RESERVED_WORDS))),
        set(lim, bin(BinaryOp::Sub, Ty::U32, max, c(HEAP_RESERVED_WORDS))),
        set(hi64, bin(BinaryOp::ShrU, Ty::U64, addr, c(32))),
        set(hi, trunc(hi64)),
        set(lo, trunc(addr)),
        set(other, Expr::Compare { op: CmpOp::Ne, ty: Ty::U32, lhs: hi, rhs: base }),
        set(off, Expr::Select { ty: Ty::U32, cond: other, a: c(0xffff_fff0), b: lo }),
        set(low, bin(BinaryOp::And, Ty::U32, off, c(3))),
        set(mis, Expr::Compare { op: CmpOp::Ne, ty: Ty::U32, lhs: low, rhs: c(0) }),
        fault(mis, FAULT_MISALIGNED),
        set(idx, bin(BinaryOp::ShrU, Ty::U32, off, c(2))),
        set(rel, bin(BinaryOp::Sub, Ty::U32, idx, c(HEAP_RESERVED_WORDS))),
        set(ok, Expr::Compare { op: CmpOp::LtU, ty: Ty::U32, lhs: rel, rhs: lim }),
        set(bad, not(ok)),
    ];
    let result = if let Some(value) = value {
        let (aligned, bad_aligned, ok2, i) = (new(Ty::Bool, "aligned"), new(Ty::Bool, "bad_aligned"), new(Ty::Bool, "ok2"), new(Ty::U32, "i"));
        stmts.extend([
            set(aligned, not(mis)),
            set(bad_aligned, bin(BinaryOp::And, Ty::Bool, bad, aligned)),
            fault(bad_aligned, FAULT_GLOBAL_OUT_OF_RANGE),
            set(ok2, bin(BinaryOp::And, Ty::Bool, ok, aligned)),
            set(i, Expr::Select { ty: Ty::U32, cond: ok2, a: idx, b: c(HEAP_SINK_WORD) }),
        ]);
        stmts.push(Stmt::StoreWord { memory: Memory::Heap, index: i, value });
        c(0)
    } else {
        let (i, w, v) = (new(Ty::U32, "i"), new(Ty::U32, "w"), new(Ty::U32, "value"));
        stmts.extend([
            fault(bad, FAULT_GLOBAL_OUT_OF_RANGE),
            set(i, Expr::Select { ty: Ty::U32, cond: ok, a: idx, b: c(HEAP_SINK_WORD) }),
            set(w, Expr::LoadWord { memory: Memory::Heap, index: i }),
            set(v, Expr::Select { ty: Ty::U32, cond: ok, a: w, b: c(0) }),
        ]);
        v
    };
    let params = if store { vec![VarId(0), VarId(1), VarId(2)] } else { vec![VarId(0), VarId(1)] };
    Function {
        name: if store { HEAP_STORE_FUNCTION } else { HEAP_LOAD_FUNCTION }.into(),
        vars,
        params,
        body: Block { stmts },
        result,
        result_ty: Ty::U32,
    }
}
