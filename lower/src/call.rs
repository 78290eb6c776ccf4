//! Device functions: `.func` definitions, `call`, `ret` (spec §5.1.6.4 device-function
//! parameters, §9.7.12.2 `call`, §9.7.12.3 `ret`, §11.2 `.weak`/`.extern` linkage).
//!
//! Every call is expanded inside the kernel being lowered, through the one per-instruction
//! lowering (`FnLower::instruction`), so a PTX rule never lives twice:
//! - **Inlined** (a non-recursive callee, while the kernel's [`INLINE_BUDGET`] lasts): the
//!   callee's body is lowered at the call site with fresh registers and labels; its `.param`
//!   and `.local` variables are laid out in the caller's frame in local memory; `ret` jumps to
//!   the call's continuation. Barriers inside stay visible to the SIMT check.
//!   A non-recursive callee that holds a barrier or warp collective, itself or through its
//!   callees ([`Functions::simt_holder`]), is always inlined, budget or not: a stack-called
//!   body cannot hold one (the SIMT machinery — structurizer, meeting proof, scheduler — sees
//!   the kernel's CFG with each barrier at its call site). The growth is bounded: the callees
//!   of a non-recursive function form a DAG at most [`MAX_INLINE_DEPTH`] deep, and every
//!   inlined copy counts towards the kernel's total, which [`INLINE_GROWTH_LIMIT`] caps (a
//!   DAG of functions each calling the next twice doubles per level: 64 levels would be 2^64
//!   copies). Beyond either limit the call is refused, naming the function.
//! - **Through the call stack** (recursion, direct or mutual, and calls beyond the budget):
//!   the callee's body is lowered once per kernel. A call pushes the caller's registers that
//!   the callee can clobber (live ones of a caller in the callee's strongly connected
//!   component of the call graph), the caller's frame base and a return-site id onto a stack
//!   in local memory, then jumps to the callee; its `ret` pops the id and dispatches (a
//!   `Switch`) to the return site. The structurizer handles this like any other CFG. A call
//!   that would overflow the stack records `abi::FAULT_CALL_STACK_OVERFLOW` and ends the thread.
//! - **Indirect** calls (`call %rd, (…), proto;`): a `Switch` over the module's functions
//!   whose address is taken and whose signature fits the call; any other pointer records
//!   `abi::FAULT_BAD_FUNCTION_POINTER` and ends the thread.
//!
//! Parameters: a function's formal `.param`s and returns, and call-site `.param` variables,
//! are local memory (the spec makes the address of a function parameter a `.local` address).
//! `.reg` formals (the old ABI) are registers of the callee.

use crate::abi;
use crate::cfg::{BasicBlock, NodeId, Terminator};
use crate::function::{unresolved_function, unsupported, FnLower, LResult, Scope, Symbol};
use crate::ir::{BinaryOp, CmpOp, Const, ConvertOp, Expr, Memory, Operand, Stmt, Ty, VarId};
use crate::kernel::{collect_decls, collect_labels, lower_statements};
use crate::layout::{align_up, element_count, var_size_align};
use crate::ptx_types::value_ty;
use ptxcross_frontend::ast::{self, OperandKind, ScalarType, Statement, StateSpace, VarDecl};
use ptxcross_frontend::Diagnostic;
use std::collections::{HashMap, HashSet};

/// Instructions a kernel may gain through inlining (unless `LowerOptions::inline_budget`
/// says otherwise); calls beyond it go through the stack.
pub const INLINE_BUDGET: usize = 5_000;
/// Inlined calls nest at most this deep (lowering recurses per level); deeper calls go
/// through the stack, whose bodies are lowered one after another.
pub const MAX_INLINE_DEPTH: usize = 64;
/// Instructions a kernel may gain through inlining in all (budget or not): inlining a function
/// that holds a barrier or warp collective is refused beyond it, so a module whose call DAG
/// multiplies its copies (each function calling the next several times) is refused, not
/// lowered for hours. Ten times the default budget: nvcc's kernels with their
/// `__syncthreads()` helpers stay well under it.
pub const INLINE_GROWTH_LIMIT: usize = 50_000;
/// Bytes of call stack per thread (in local memory) when a kernel makes stack calls. CUDA's
/// default is 1 KiB, but a frame here holds every live register of the caller's strongly
/// connected component and every call site's `.param` variables, several times what ptxas
/// keeps in a frame: with 1 KiB, five nested calls of a small recursive function overflowed,
/// which ptxas's frames would hold (call fuzzer, seed 0xca110005; not run on NVIDIA). Local memory of this size lives in
/// the context's scratch buffer (`local_scratch`), not in a private array, so the size costs
/// no pipeline-creation time; it only lowers the blocks per dispatch of such kernels.
pub const CALL_STACK_BYTES: u32 = 4096;

// ---- The module's functions ------------------------------------------------------------------

/// The module's device functions after `.weak` resolution, with the call graph facts that
/// decide how each call is lowered.
pub struct Functions<'a> {
    /// Definitions in module order; the index is the function's id (and address, see
    /// `abi::FUNCTION_ADDRESS_BASE`).
    pub defs: Vec<&'a ast::Function>,
    /// Every `.func` name: `Some(id)` if defined, `None` for a declaration only (`.extern`).
    names: HashMap<&'a str, Option<usize>>,
    component: Vec<usize>,
    recursive: Vec<bool>,
    address_taken: Vec<bool>,
    /// Instructions in the body: the inlining cost.
    size: Vec<usize>,
    /// Whether the function holds a barrier or warp collective ([`needs_simt_view`]), in its
    /// body or a callee's, and the function whose body has it (itself or one it calls,
    /// directly or not): such a function is inlined whatever the budget.
    simt_holder: Vec<Option<usize>>,
    /// Some function or kernel of the module has `cvta.param` / `cvta.to.param`: its kernels
    /// get the parameter window. Found once per module (per kernel, this walk of every body
    /// was 5–9% of translating the CUB file's 247 kernels).
    pub module_uses_cvta_param: bool,
    /// The alignment of call-stack frames: 16 where some function's formals or `.local`/
    /// `.param` variables ask for more than 8 (nvcc's `.param .align 16 .b8 func_retval0[16]`,
    /// `.b128` ones; a 16-byte access needs it), else 8 (smaller frames, deeper recursion).
    pub frame_align: u32,
    /// The format strings of the module's `vprintf` calls (`printf`).
    pub printf_sites: crate::printf::Sites,
}

/// Whether the SIMT machinery must see `inst` where it runs (docs/simt.md), so a body holding
/// it cannot be lowered once for all its callers behind the call stack: CTA barriers (every
/// `bar`/`barrier` form), `bar.warp.sync`, the warp collectives, the matrix instructions that
/// exchange values over the warp (`FnLower::warp_exchange`), `mbarrier` waits (points of the
/// CTA barrier scheduler) and CTA-scope fences, which are lowered as workgroup barriers
/// (`FnLower::fence`). Anything else whose lowering records a
/// barrier is still refused in a stack-called body (`Calls::lower_stack_body`).
fn needs_simt_view(inst: &ast::Instruction) -> bool {
    match inst.opcode.name.as_str() {
        "bar" | "barrier" | "shfl" | "vote" | "match" | "redux" | "activemask" | "elect" | "ldmatrix" | "stmatrix" | "mma"
        | "wmma" | "wgmma" => true,
        "membar" | "fence" => inst.modifiers.iter().any(|m| m.text == "cta" || m.text == "mbarrier_init"),
        "mbarrier" => crate::inst::mbarrier::waits(inst),
        _ => false,
    }
}

/// Whether a declaration in `stmts` (nested blocks included) of local memory (`.local`, a
/// call's `.param`) asks for an alignment above 8.
fn wide_local_alignment(stmts: &[ast::Statement]) -> bool {
    stmts.iter().any(|s| match s {
        ast::Statement::Var(d) if matches!(d.space, StateSpace::Local | StateSpace::Param) => {
            d.align.map_or(d.ty.size_bytes() as u64 * d.vector.unwrap_or(1) as u64, |a| a as u64) > 8
        }
        ast::Statement::Block(inner, _) => wide_local_alignment(inner),
        _ => false,
    })
}

/// Whether `stmts` contain `cvta.param` / `cvta.to.param` (any sub-qualifier).
fn uses_cvta_param(stmts: &[ast::Statement]) -> bool {
    stmts.iter().any(|s| match s {
        ast::Statement::Instruction(i) => i.opcode.name == "cvta" && i.modifiers.iter().any(|m| m.text.trim_start_matches('.').starts_with("param")),
        ast::Statement::Block(inner, _) => uses_cvta_param(inner),
        _ => false,
    })
}

impl<'a> Functions<'a> {
    pub fn new(module: &'a ast::Module) -> LResult<Functions<'a>> {
        let funcs: Vec<&ast::Function> = module
            .items
            .iter()
            .filter_map(|i| match i {
                ast::Item::Function(f) if f.kind == ast::FunctionKind::Func => Some(f),
                _ => None,
            })
            .collect();
        // A strong definition overrides `.weak` ones; of several weak ones the first is kept.
        let weak = |f: &ast::Function| f.linkage.contains(&ast::Linkage::Weak);
        let mut chosen: HashMap<&str, usize> = HashMap::new();
        let mut names: HashMap<&str, Option<usize>> = HashMap::new();
        for (k, f) in funcs.iter().enumerate() {
            let name = f.name.name.as_str();
            names.entry(name).or_insert(None);
            if f.body.is_none() {
                continue;
            }
            match chosen.get(name) {
                None => {
                    chosen.insert(name, k);
                }
                Some(&prev) => match (weak(funcs[prev]), weak(f)) {
                    (true, false) => {
                        chosen.insert(name, k);
                    }
                    (false, false) => {
                        return Err(Diagnostic::new(format!("function `{name}` is defined twice"), f.name.span))
                    }
                    _ => {}
                },
            }
        }
        let mut order: Vec<usize> = chosen.values().copied().collect();
        order.sort_unstable();
        let defs: Vec<&ast::Function> = order.iter().map(|&k| funcs[k]).collect();
        for (id, f) in defs.iter().enumerate() {
            names.insert(f.name.name.as_str(), Some(id));
        }
        let n = defs.len();
        let id_of = |name: &str| names.get(name).copied().flatten();

        // Functions whose address is taken: named anywhere but as a call target.
        let mut address_taken = vec![false; n];
        let mut mark = |name: &str| {
            if let Some(id) = id_of(name) {
                address_taken[id] = true;
            }
        };
        for item in &module.items {
            match item {
                ast::Item::Function(f) => walk(f.body.as_deref().unwrap_or(&[]), &mut |inst| {
                    let skip = if inst.opcode.name == "call" { CallParts::target_index(inst) } else { None };
                    for (i, op) in inst.operands.iter().enumerate() {
                        if Some(i) != skip {
                            operand_names(op, &mut mark);
                        }
                    }
                }),
                ast::Item::Var(d) => {
                    for v in &d.names {
                        if let Some(init) = &v.init {
                            initializer_names(init, &mut mark);
                        }
                    }
                }
                ast::Item::Directive(_) => {}
            }
        }

        // The call graph (an indirect call may reach every address-taken function). For the
        // barriers a call may reach, an indirect call reaches only the candidates
        // `indirect_call` expands: those whose parameter and return counts fit.
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut simt_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut size = vec![0usize; n];
        let mut simt_holder: Vec<Option<usize>> = vec![None; n];
        for (id, f) in defs.iter().enumerate() {
            walk(f.body.as_deref().unwrap_or(&[]), &mut |inst| {
                size[id] += 1;
                if needs_simt_view(inst) {
                    simt_holder[id] = Some(id);
                }
                if inst.opcode.name != "call" {
                    return;
                }
                let target = CallParts::target_index(inst).and_then(|i| inst.operands.get(i));
                match target.map(|t| &t.kind) {
                    Some(OperandKind::Symbol { name, .. }) if names.contains_key(name.as_str()) => {
                        if let Some(t) = id_of(name) {
                            edges[id].push(t);
                            simt_edges[id].push(t);
                        }
                    }
                    _ => {
                        edges[id].extend((0..n).filter(|&t| address_taken[t]));
                        let counts = CallParts::of(inst).ok().map(|p| (p.args.len(), p.rets.len()));
                        simt_edges[id].extend((0..n).filter(|&t| {
                            address_taken[t] && counts.is_none_or(|c| c == (defs[t].params.len(), defs[t].returns.len()))
                        }));
                    }
                }
            });
        }
        propagate_to_callers(&simt_edges, &mut simt_holder);
        let component = strongly_connected_components(&edges);
        let mut comp_size: HashMap<usize, usize> = HashMap::new();
        for &c in &component {
            *comp_size.entry(c).or_default() += 1;
        }
        let recursive = (0..n).map(|v| comp_size[&component[v]] > 1 || edges[v].contains(&v)).collect();
        let module_uses_cvta_param = module.items.iter().any(|i| match i {
            ast::Item::Function(g) => uses_cvta_param(g.body.as_deref().unwrap_or(&[])),
            _ => false,
        });
        let frame_align = if module.items.iter().any(|i| match i {
            ast::Item::Function(g) => {
                g.returns.iter().chain(&g.params).any(|p| {
                    p.align.map_or(p.ty.size_bytes() as u64 * p.vector.unwrap_or(1) as u64, |a| a as u64) > 8
                }) || wide_local_alignment(g.body.as_deref().unwrap_or(&[]))
            }
            _ => false,
        }) {
            16
        } else {
            8
        };
        let printf_sites = crate::printf::Sites::find(module);
        Ok(Functions { defs, names, component, recursive, address_taken, size, simt_holder, module_uses_cvta_param, frame_align, printf_sites })
    }

    /// " (in `g`, …)" where function `id`'s barrier or collective is in its callee `holder`.
    fn holder_phrase(&self, id: usize, holder: usize) -> String {
        if holder == id {
            String::new()
        } else {
            format!(" (in `{}`, which it calls)", self.defs[holder].name.name)
        }
    }

    /// The address of function `name` (for symbolic initializers), if it is a defined function.
    pub fn address(&self, name: &str, address_size: u32) -> Option<u64> {
        let id = self.names.get(name).copied().flatten()?;
        Some(function_address(id, address_size))
    }
}

fn function_address(id: usize, address_size: u32) -> u64 {
    let a = abi::FUNCTION_ADDRESS_BASE + id as u64;
    if address_size == 64 {
        a
    } else {
        a as u32 as u64
    }
}

/// Gives every caller, direct or not, of a function with a holder that holder (a function
/// that has its own keeps itself): once per function, over the reversed call graph.
fn propagate_to_callers(edges: &[Vec<usize>], holder: &mut [Option<usize>]) {
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); edges.len()];
    for (caller, targets) in edges.iter().enumerate() {
        for &t in targets {
            callers[t].push(caller);
        }
    }
    let mut work: Vec<usize> = (0..edges.len()).filter(|&v| holder[v].is_some()).collect();
    while let Some(v) = work.pop() {
        for &c in &callers[v] {
            if holder[c].is_none() {
                holder[c] = holder[v];
                work.push(c);
            }
        }
    }
}

/// Calls `f` on every instruction of `stmts`, nested blocks included.
fn walk<'s>(stmts: &'s [Statement], f: &mut impl FnMut(&'s ast::Instruction)) {
    for s in stmts {
        match s {
            Statement::Instruction(i) => f(i),
            Statement::Block(inner, _) => walk(inner, f),
            _ => {}
        }
    }
}

fn operand_names(op: &ast::Operand, f: &mut impl FnMut(&str)) {
    match &op.kind {
        OperandKind::Symbol { name, .. } => f(name),
        OperandKind::Expr(e) => expr_names(e, f),
        OperandKind::Address(v) | OperandKind::Vector(v) | OperandKind::List(v) => {
            v.iter().for_each(|o| operand_names(o, f))
        }
        OperandKind::Not(o) | OperandKind::Neg(o) => operand_names(o, f),
        OperandKind::Pair(a, b) => {
            operand_names(a, f);
            operand_names(b, f)
        }
        _ => {}
    }
}

fn expr_names(e: &ast::Expr, f: &mut impl FnMut(&str)) {
    match e {
        ast::Expr::Symbol { name, .. } => f(name),
        ast::Expr::Unary { arg, .. } | ast::Expr::Cast { arg, .. } => expr_names(arg, f),
        ast::Expr::Binary { lhs, rhs, .. } => {
            expr_names(lhs, f);
            expr_names(rhs, f)
        }
        ast::Expr::Conditional { cond, then, otherwise, .. } => {
            expr_names(cond, f);
            expr_names(then, f);
            expr_names(otherwise, f)
        }
        ast::Expr::Call { args, .. } => args.iter().for_each(|a| expr_names(a, f)),
        _ => {}
    }
}

fn initializer_names(init: &ast::Initializer, f: &mut impl FnMut(&str)) {
    match init {
        ast::Initializer::Expr(e) => expr_names(e, f),
        ast::Initializer::List(items, _) => items.iter().for_each(|i| initializer_names(i, f)),
    }
}

/// Tarjan's algorithm; returns a component id per vertex.
fn strongly_connected_components(edges: &[Vec<usize>]) -> Vec<usize> {
    struct T<'e> {
        edges: &'e [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        comp: Vec<usize>,
        ncomp: usize,
    }
    impl T<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for i in 0..self.edges[v].len() {
                let w = self.edges[v][i];
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    _ => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    self.comp[w] = self.ncomp;
                    if w == v {
                        break;
                    }
                }
                self.ncomp += 1;
            }
        }
    }
    let n = edges.len();
    let mut t = T {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        comp: vec![0; n],
        ncomp: 0,
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.comp
}

// ---- Signatures and frames -----------------------------------------------------------------------

/// One formal parameter or return value in a callee's frame.
#[derive(Clone, Debug)]
struct Slot {
    /// Byte offset from the start of the callee's area.
    offset: u32,
    size: u32,
    align: u32,
    /// A `.reg` formal: a register of the callee (stored in its slot only across a stack call).
    reg: bool,
    ty: ScalarType,
}

/// A function's formals: returns first, then parameters, each at its alignment.
#[derive(Clone, Debug)]
struct Signature {
    rets: Vec<Slot>,
    params: Vec<Slot>,
    bytes: u32,
}

fn signature(f: &ast::Function) -> LResult<Signature> {
    let mut off = 0u64;
    let mut slot = |p: &ast::Param| -> LResult<Slot> {
        let reg = match p.space {
            Some(StateSpace::Param) | Some(StateSpace::ParamFunc) => false,
            None | Some(StateSpace::Reg) => true,
            Some(s) => return Err(unsupported(format!("a function parameter in state space {s:?}"), p.span)),
        };
        let elem = p.ty.size_bytes() as u64 * p.vector.unwrap_or(1) as u64;
        let count = element_count(&p.array)
            .ok_or_else(|| Diagnostic::new(format!("parameter `{}` has an unsized array type", p.name.name), p.span))?;
        if reg && (count != 1 || p.vector.is_some()) {
            return Err(unsupported("array or vector `.reg` parameters", p.span));
        }
        if reg && value_ty(p.ty).is_none() {
            return Err(unsupported(format!("`.reg` parameters of type .{}", p.ty.suffix()), p.span));
        }
        // A `.reg` formal occupies a full 8-byte slot (any register fits).
        let (size, align) =
            if reg { (8, 8) } else { (elem * count, p.align.map(|a| a as u64).unwrap_or(elem).max(1)) };
        off = align_up(off, align);
        let s = Slot { offset: off as u32, size: size as u32, align: align as u32, reg, ty: p.ty };
        off += size;
        if off > 64 * 1024 {
            return Err(Diagnostic::new("function parameters exceed 64 KiB", p.span));
        }
        Ok(s)
    };
    let rets = f.returns.iter().map(&mut slot).collect::<LResult<Vec<_>>>()?;
    let params = f.params.iter().map(&mut slot).collect::<LResult<Vec<_>>>()?;
    Ok(Signature { rets, params, bytes: align_up(off, 8) as u32 })
}

/// Lays out `.local` and `.param` declarations (a body's, nested blocks included) from byte
/// `start` of the frame; returns each name's offset (keyed by its span start) and the end.
pub fn layout_locals(decls: &[&VarDecl], start: u64) -> LResult<(HashMap<u32, u32>, u64)> {
    let mut offsets = HashMap::new();
    let mut end = start;
    for d in decls {
        for n in &d.names {
            let (size, align) = var_size_align(d, &n.array)?;
            let size = size.ok_or_else(|| Diagnostic::new("local or parameter array without a size", n.span))?;
            let off = align_up(end, align);
            offsets.insert(n.span.start, off as u32);
            end = off.saturating_add(size);
            if end > 64 * 1024 {
                return Err(unsupported(format!("{end} bytes of local memory per thread (at most 64 KiB)"), n.span));
            }
        }
    }
    Ok((offsets, end))
}

// ---- Call sites ------------------------------------------------------------------------------

/// `call{.uni} (rets), target, (args){, proto};` split into its parts.
struct CallParts<'i> {
    rets: Vec<&'i ast::Operand>,
    target: &'i ast::Operand,
    args: Vec<&'i ast::Operand>,
}

impl<'i> CallParts<'i> {
    /// Index of the target operand: after the return list, if any.
    fn target_index(inst: &ast::Instruction) -> Option<usize> {
        match inst.operands.first().map(|o| &o.kind) {
            Some(OperandKind::List(_)) => Some(1),
            Some(_) => Some(0),
            None => None,
        }
    }

    fn of(inst: &'i ast::Instruction) -> LResult<CallParts<'i>> {
        let ops = &inst.operands;
        let list = |o: Option<&'i ast::Operand>| match o.map(|o| &o.kind) {
            Some(OperandKind::List(v)) => Some(v.iter().collect::<Vec<_>>()),
            _ => None,
        };
        let mut i = 0;
        let rets = match list(ops.first()) {
            Some(v) => {
                i += 1;
                v
            }
            None => Vec::new(),
        };
        let target = ops.get(i).ok_or_else(|| Diagnostic::new("`call` needs a target function", inst.span))?;
        i += 1;
        let args = match list(ops.get(i)) {
            Some(v) => {
                i += 1;
                v
            }
            None => Vec::new(),
        };
        // An indirect call names its prototype or `.calltargets` list last: the candidates are
        // found from the module's address-taken functions instead.
        if i < ops.len() {
            i += 1;
        }
        if i < ops.len() {
            return Err(Diagnostic::new("`call` has too many operands", ops[i].span));
        }
        Ok(CallParts { rets, target, args })
    }
}

/// The call stack's registers (byte offsets in local memory).
#[derive(Clone, Copy)]
struct StackRegs {
    sp: VarId,
    fb: VarId,
}

/// A function called through the stack: its body, lowered once per kernel.
struct StackFn {
    entry: NodeId,
    exit: NodeId,
    sig: Signature,
    /// The return-site id popped in the epilogue.
    return_id: Option<VarId>,
    /// Return sites, indexed by the id their calls push.
    returns: Vec<NodeId>,
    frame_bytes: u32,
}

/// A stack call site; its push and restore code is written once liveness is known.
struct StackSite {
    /// The stack-called function whose body holds the call (`None`: the kernel's own frame).
    frame: Option<usize>,
    callee: usize,
    ret_id: u32,
    check: NodeId,
    overflow: VarId,
    push: NodeId,
    restore: NodeId,
    callee_fb: VarId,
}

/// Call lowering state of one kernel.
pub struct Calls<'a> {
    funcs: &'a Functions<'a>,
    /// Names visible in every function: globals, module `.shared` variables, functions.
    module_scope: Scope,
    inlined: usize,
    budget: usize,
    stack: Option<StackRegs>,
    stack_fns: HashMap<usize, StackFn>,
    pending: Vec<usize>,
    sites: Vec<StackSite>,
    /// Variables of each stack-called body: (function, first, end).
    frames: Vec<(usize, u32, u32)>,
    /// The stack-called function being lowered (`None`: the kernel's frame).
    current: Option<usize>,
    /// Variables of the call machinery itself, never saved across calls.
    machinery: HashSet<VarId>,
    /// Functions being inlined (outermost first).
    inline_stack: Vec<usize>,
}

/// The lowering context a callee body swaps in and the caller gets back.
struct Context {
    scopes: Vec<Scope>,
    labels: HashMap<String, NodeId>,
    ret_target: Option<NodeId>,
    frame_base: Option<VarId>,
    local_cursor: u32,
    frame_bytes: u32,
}

impl Context {
    fn swap(fl: &mut FnLower, module_scope: &Scope, ret_target: NodeId) -> Context {
        Context {
            scopes: std::mem::replace(&mut fl.scopes, vec![module_scope.clone(), Scope::default()]),
            labels: std::mem::take(&mut fl.labels),
            ret_target: fl.ret_target.replace(ret_target),
            frame_base: fl.frame_base,
            local_cursor: fl.local_cursor,
            frame_bytes: fl.frame_bytes,
        }
    }
    fn restore(self, fl: &mut FnLower) {
        fl.scopes = self.scopes;
        fl.labels = self.labels;
        fl.ret_target = self.ret_target;
        fl.frame_base = self.frame_base;
        fl.local_cursor = self.local_cursor;
        fl.frame_bytes = self.frame_bytes;
    }
}

impl<'a> Calls<'a> {
    /// Declares the module's functions in `fl`'s outermost scope (which must already hold the
    /// globals) and takes that scope, kernel parameters left out, as every function's.
    pub fn new(funcs: &'a Functions<'a>, fl: &mut FnLower, budget: usize) -> Calls<'a> {
        for (&name, &index) in &funcs.names {
            fl.scopes[0].insert(name.into(), Symbol::Function { index, name: name.to_string() });
        }
        let module_scope =
            fl.scopes[0].iter().filter(|(_, s)| !matches!(s, Symbol::Param { .. })).map(|(k, v)| (k.clone(), v.clone())).collect();
        Calls {
            funcs,
            module_scope,
            inlined: 0,
            budget,
            stack: None,
            stack_fns: HashMap::new(),
            pending: Vec::new(),
            sites: Vec::new(),
            frames: Vec::new(),
            current: None,
            machinery: HashSet::new(),
            inline_stack: Vec::new(),
        }
    }
}

/// Lowers one `call` instruction (its guard included) into the CFG under construction.
pub fn lower_call(inst: &ast::Instruction, fl: &mut FnLower, calls: &mut Calls) -> LResult<()> {
    for m in &inst.modifiers {
        if m.text != "uni" {
            return Err(unsupported(format!("`.{}` on `call`", m.text), m.span));
        }
    }
    let parts = CallParts::of(inst)?;
    let skip = match fl.guard(inst)? {
        None => None,
        Some(cond) => {
            let body = fl.new_node();
            let skip = fl.new_node();
            fl.terminate(Terminator::Branch { cond, then_target: body, else_target: skip }, body);
            Some(skip)
        }
    };
    match &parts.target.kind {
        OperandKind::Symbol { name, component: None } if calls.funcs.names.contains_key(name.as_str()) => {
            match calls.funcs.names[name.as_str()] {
                Some(id) => direct_call(fl, calls, &parts, id)?,
                // Device-side `printf` (CUDA's runtime function, see `printf`).
                None if name == "vprintf" => crate::printf::lower_vprintf(fl, &calls.funcs.printf_sites, inst, &parts.rets, &parts.args)?,
                None if name == "__assertfail" => crate::printf::lower_assertfail(fl, &calls.funcs.printf_sites, inst)?,
                None => return Err(unresolved_function(name, parts.target.span)),
            }
        }
        OperandKind::Symbol { name, component: None } => match fl.lookup(name) {
            Some(Symbol::Reg { .. }) => indirect_call(fl, calls, &parts)?,
            _ => return Err(Diagnostic::new(format!("unknown function `{name}`"), parts.target.span)),
        },
        _ => return Err(Diagnostic::new("`call` target must be a function or a register", parts.target.span)),
    }
    if let Some(skip) = skip {
        fl.terminate(Terminator::Jump(skip), skip);
    }
    Ok(())
}

fn direct_call(fl: &mut FnLower, calls: &mut Calls, parts: &CallParts, id: usize) -> LResult<()> {
    let callee = calls.funcs.defs[id];
    let (np, nr) = (callee.params.len(), callee.returns.len());
    if parts.args.len() != np || parts.rets.len() != nr {
        return Err(Diagnostic::new(
            format!(
                "call to `{}` passes {} argument(s) and {} return value(s); it takes {np} and returns {nr}",
                callee.name.name,
                parts.args.len(),
                parts.rets.len()
            ),
            parts.target.span,
        ));
    }
    let f = calls.funcs;
    let depth_left = calls.inline_stack.len() < MAX_INLINE_DEPTH;
    match f.simt_holder[id] {
        // Recursive ones go to the stack, whose body lowering refuses the barrier.
        Some(holder) if !f.recursive[id] => {
            let holder = f.holder_phrase(id, holder);
            if !depth_left {
                return Err(Diagnostic::new(
                    format!(
                        "call to device function `{}`, which holds a barrier or warp collective{holder} and so must be \
                         inlined, nests deeper than {MAX_INLINE_DEPTH} inlined calls",
                        callee.name.name
                    ),
                    parts.target.span,
                ));
            }
            if calls.inlined + f.size[id] > INLINE_GROWTH_LIMIT {
                return Err(Diagnostic::new(
                    format!(
                        "inlining device function `{}`, which holds a barrier or warp collective{holder} and so must be \
                         inlined, would grow the kernel by more than {INLINE_GROWTH_LIMIT} instructions",
                        callee.name.name
                    ),
                    parts.target.span,
                ));
            }
            inline_call(fl, calls, parts, id)
        }
        _ if !f.recursive[id] && calls.inlined + f.size[id] <= calls.budget && depth_left => inline_call(fl, calls, parts, id),
        _ => stack_call(fl, calls, parts, id),
    }
}

/// Where one formal's bytes live for this call: a byte offset in local memory.
type SlotAddr<'f> = dyn Fn(&mut FnLower, &Slot) -> Operand + 'f;

/// Writes the call's arguments into the callee's formals; returns the values of `.reg`
/// formals (`None` for `.param` ones), which an inlined callee takes as registers.
fn bind_args(fl: &mut FnLower, parts: &CallParts, sig: &Signature, addr: &SlotAddr, regs_in_memory: bool) -> LResult<Vec<Option<Operand>>> {
    let mut values = Vec::new();
    for (slot, actual) in sig.params.iter().zip(&parts.args) {
        let dst = addr(fl, slot);
        if slot.reg {
            let v = fl.read(actual, slot.ty)?;
            if regs_in_memory {
                store_value(fl, dst, v, slot.ty);
            }
            values.push(Some(v));
            continue;
        }
        values.push(None);
        match local_symbol(fl, actual) {
            Some(src) => copy_local(fl, src, dst, slot.size, slot.align),
            // A `.b128` register argument: its two 64-bit halves, low first.
            None if slot.ty == ScalarType::B128 && slot.size == 16 => {
                let (lo, hi) = fl.read_b128(actual)?;
                fl.store_bytes(Memory::Local, dst, 8, lo);
                let d8 = fl.bin(BinaryOp::Add, Ty::U32, dst, FnLower::u32c(8));
                fl.store_bytes(Memory::Local, d8, 8, hi);
            }
            None if (slot.size as u64) <= 8 && value_ty(slot.ty).is_some() => {
                let v = fl.read(actual, slot.ty)?;
                store_value(fl, dst, v, slot.ty);
            }
            None => return Err(Diagnostic::new("a `.param` array argument must be a `.param` variable", actual.span)),
        }
    }
    Ok(values)
}

/// Copies the callee's return values (at `addr`) to the call's return operands; `reg_values`
/// holds an inlined callee's `.reg` returns.
fn bind_returns(fl: &mut FnLower, parts: &CallParts, sig: &Signature, addr: &SlotAddr, reg_values: &[Option<Operand>]) -> LResult<()> {
    for (i, (slot, actual)) in sig.rets.iter().zip(&parts.rets).enumerate() {
        let src = addr(fl, slot);
        let value = match reg_values.get(i).copied().flatten() {
            Some(v) => v,
            None => {
                if !slot.reg {
                    if let Some(dst) = local_symbol(fl, actual) {
                        copy_local(fl, src, dst, slot.size, slot.align);
                        continue;
                    }
                    if slot.ty == ScalarType::B128 && slot.size == 16 {
                        let lo = fl.load_bytes(Memory::Local, src, 8);
                        let s8 = fl.bin(BinaryOp::Add, Ty::U32, src, FnLower::u32c(8));
                        let hi = fl.load_bytes(Memory::Local, s8, 8);
                        fl.write_b128(actual, lo, hi)?;
                        continue;
                    }
                    if slot.size > 8 || value_ty(slot.ty).is_none() {
                        return Err(Diagnostic::new("a `.param` array return must be a `.param` variable", actual.span));
                    }
                }
                load_value(fl, src, slot.ty)
            }
        };
        fl.write(actual, slot.ty, value)?;
    }
    Ok(())
}

/// The local-memory byte offset of a `.param`/`.local` variable named by `op`, if it is one.
fn local_symbol(fl: &mut FnLower, op: &ast::Operand) -> Option<Operand> {
    let OperandKind::Symbol { name, component: None } = &op.kind else { return None };
    match fl.lookup(name) {
        Some(&Symbol::Local { offset, .. }) => Some(fl.local_offset(offset, 0)),
        _ => None,
    }
}

fn copy_local(fl: &mut FnLower, src: Operand, dst: Operand, size: u32, align: u32) {
    let step = if align.is_multiple_of(4) && size.is_multiple_of(4) { 4 } else { 1 };
    for i in (0..size).step_by(step as usize) {
        let s = fl.bin(BinaryOp::Add, Ty::U32, src, FnLower::u32c(i));
        let d = fl.bin(BinaryOp::Add, Ty::U32, dst, FnLower::u32c(i));
        let v = fl.load_bytes(Memory::Local, s, step);
        fl.store_bytes(Memory::Local, d, step, v);
    }
}

/// Stores `v` (of `value_ty(t)`) as a `t` at local byte `dst`.
fn store_value(fl: &mut FnLower, dst: Operand, v: Operand, t: ScalarType) {
    let have = fl.operand_ty(v);
    if have == Ty::Bool {
        let w = fl.select(Ty::U32, v, FnLower::u32c(1), FnLower::u32c(0));
        fl.store_bytes(Memory::Local, dst, 4, w);
        return;
    }
    let size = t.size_bytes().clamp(1, 8);
    let raw = if size == 8 { Ty::U64 } else { Ty::U32 };
    let w = fl.fit(v, have, raw, t);
    fl.store_bytes(Memory::Local, dst, size, w);
}

/// Loads a `t` from local byte `src` as `value_ty(t)`.
fn load_value(fl: &mut FnLower, src: Operand, t: ScalarType) -> Operand {
    if t == ScalarType::Pred {
        let w = fl.load_bytes(Memory::Local, src, 4);
        return fl.cmp(CmpOp::Ne, Ty::U32, w, FnLower::u32c(0));
    }
    let size = t.size_bytes().clamp(1, 8);
    let raw = if size == 8 { Ty::U64 } else { Ty::U32 };
    let v = fl.load_bytes(Memory::Local, src, size);
    let v = if size < 4 { fl.canonicalize(v, t) } else { v };
    fl.fit(v, raw, value_ty(t).unwrap_or(raw), t)
}

/// Declares the callee's formals in the current (callee) scope: `.param` ones at `base` +
/// their slot offset in the frame, `.reg` ones as fresh registers set to `values` (or loaded
/// from their slots when `values` is `None`).
fn declare_formals(fl: &mut FnLower, f: &ast::Function, sig: &Signature, base: u32, values: Option<&[Option<Operand>]>) {
    let formals = f.returns.iter().zip(&sig.rets).chain(f.params.iter().zip(&sig.params));
    let nrets = f.returns.len();
    for (i, (p, slot)) in formals.enumerate() {
        let name = p.name.name.to_string();
        if !slot.reg {
            fl.declare(name, Symbol::Local { offset: base + slot.offset, call_site: false });
            continue;
        }
        let ty = value_ty(slot.ty).unwrap_or(Ty::U32);
        let var = fl.new_var(ty, &name);
        fl.declare(name, Symbol::Reg { var, ty: slot.ty });
        if i < nrets {
            continue; // a return register starts undefined
        }
        let v = match values {
            Some(vals) => vals[i - nrets].unwrap_or(Operand::Const(Const::U32(0))),
            None => {
                let a = fl.local_offset(base + slot.offset, 0);
                load_value(fl, a, slot.ty)
            }
        };
        fl.assign(var, Expr::Use(v));
    }
}

/// The values of a callee's `.reg` returns (`None` for `.param` ones), read in its scope.
fn reg_returns(fl: &FnLower, f: &ast::Function, sig: &Signature) -> Vec<Option<Operand>> {
    f.returns
        .iter()
        .zip(&sig.rets)
        .map(|(p, slot)| match (slot.reg, fl.lookup(&p.name.name)) {
            (true, Some(&Symbol::Reg { var, .. })) => Some(Operand::Var(var)),
            _ => None,
        })
        .collect()
}

/// Lays out a callee body's `.local`/`.param` variables at the current frame's cursor.
fn layout_body(fl: &mut FnLower, f: &ast::Function) -> LResult<HashMap<u32, u32>> {
    let body = f.body.as_deref().unwrap_or(&[]);
    let (mut shared, mut local) = (Vec::new(), Vec::new());
    collect_decls(body, &mut shared, &mut local);
    if let Some(d) = shared.first() {
        return Err(unsupported("`.shared` variables declared inside a device function", d.span));
    }
    let (offsets, end) = layout_locals(&local, fl.local_cursor as u64)?;
    fl.local_cursor = end as u32;
    fl.frame_bytes = fl.frame_bytes.max(fl.local_cursor);
    if end > 0 {
        fl.has_local = true;
    }
    Ok(offsets)
}

fn inline_call(fl: &mut FnLower, calls: &mut Calls, parts: &CallParts, id: usize) -> LResult<()> {
    let callee = calls.funcs.defs[id];
    let sig = signature(callee)?;
    let base = align_up(fl.local_cursor as u64, 16) as u32;
    let addr = move |fl: &mut FnLower, s: &Slot| fl.local_offset(base + s.offset, 0);
    let values = bind_args(fl, parts, &sig, &addr, false)?;
    let cont = fl.new_node();
    let saved = Context::swap(fl, &calls.module_scope, cont);
    fl.local_cursor = base + sig.bytes;
    fl.frame_bytes = fl.frame_bytes.max(fl.local_cursor);
    if sig.bytes > 0 {
        fl.has_local = true;
    }
    declare_formals(fl, callee, &sig, base, Some(&values));
    let offsets = layout_body(fl, callee)?;
    let body = callee.body.as_deref().unwrap_or(&[]);
    collect_labels(body, fl);
    fl.scopes.push(Scope::default());
    calls.inlined += calls.funcs.size[id];
    calls.inline_stack.push(id);
    lower_statements(body, fl, &offsets, calls)?;
    calls.inline_stack.pop();
    fl.terminate(Terminator::Jump(cont), cont);
    let rets = reg_returns(fl, callee, &sig);
    let frame_bytes = fl.frame_bytes;
    saved.restore(fl);
    // The callee's area is free again for the caller's next call; the frame keeps its size.
    fl.frame_bytes = fl.frame_bytes.max(frame_bytes);
    bind_returns(fl, parts, &sig, &addr, &rets)
}

// ---- Calls through the stack -----------------------------------------------------------------

impl Calls<'_> {
    fn stack_regs(&mut self, fl: &mut FnLower) -> StackRegs {
        if let Some(s) = self.stack {
            return s;
        }
        let s = StackRegs { sp: fl.new_var(Ty::U32, "call stack pointer"), fb: fl.new_var(Ty::U32, "frame base") };
        self.machinery.extend([s.sp, s.fb]);
        fl.has_local = true;
        self.stack = Some(s);
        s
    }

    /// The stack-called body of function `id`, queued for lowering on first use.
    fn stack_fn(&mut self, fl: &mut FnLower, id: usize) -> LResult<&mut StackFn> {
        if !self.stack_fns.contains_key(&id) {
            let sig = signature(self.funcs.defs[id])?;
            let (entry, exit) = (fl.new_node(), fl.new_node());
            self.stack_fns.insert(id, StackFn { entry, exit, sig, return_id: None, returns: Vec::new(), frame_bytes: 0 });
            self.pending.push(id);
        }
        Ok(self.stack_fns.get_mut(&id).expect("inserted"))
    }
}

fn stack_call(fl: &mut FnLower, calls: &mut Calls, parts: &CallParts, id: usize) -> LResult<()> {
    let regs = calls.stack_regs(fl);
    let (entry, sig, ret_id) = {
        let sf = calls.stack_fn(fl, id)?;
        (sf.entry, sf.sig.clone(), sf.returns.len() as u32)
    };
    // check → (overflow | push) → arguments → callee … epilogue → restore → copy returns.
    let (check, overflow_node, push, args) = (fl.new_node(), fl.new_node(), fl.new_node(), fl.new_node());
    let overflow = fl.new_var(Ty::Bool, "call stack overflow");
    fl.blocks[overflow_node] =
        BasicBlock { stmts: vec![Stmt::Fault { code: abi::FAULT_CALL_STACK_OVERFLOW }], term: Terminator::Return };
    fl.blocks[check].term = Terminator::Branch { cond: Operand::Var(overflow), then_target: overflow_node, else_target: push };
    fl.blocks[push].term = Terminator::Jump(args);
    fl.terminate(Terminator::Jump(check), args);
    // The callee's frame starts at the stack pointer after the pushes.
    let sp = regs.sp;
    let addr = move |fl: &mut FnLower, s: &Slot| fl.bin(BinaryOp::Add, Ty::U32, Operand::Var(sp), FnLower::u32c(s.offset));
    bind_args(fl, parts, &sig, &addr, true)?;
    let restore = fl.new_node();
    fl.terminate(Terminator::Jump(entry), restore);
    let copy = fl.new_node();
    fl.terminate(Terminator::Jump(copy), copy);
    let callee_fb = fl.new_var(Ty::U32, "callee frame base");
    let ret_addr = move |fl: &mut FnLower, s: &Slot| {
        fl.bin(BinaryOp::Add, Ty::U32, Operand::Var(callee_fb), FnLower::u32c(s.offset))
    };
    bind_returns(fl, parts, &sig, &ret_addr, &[])?;
    calls.machinery.extend([overflow, callee_fb]);
    calls.stack_fns.get_mut(&id).expect("stack fn").returns.push(restore);
    calls.sites.push(StackSite {
        frame: calls.current,
        callee: id,
        ret_id,
        check,
        overflow,
        push,
        restore,
        callee_fb,
    });
    Ok(())
}

fn indirect_call(fl: &mut FnLower, calls: &mut Calls, parts: &CallParts) -> LResult<()> {
    let wide = fl.address_size == 64;
    let (t, ty) = if wide { (ScalarType::U64, Ty::U64) } else { (ScalarType::U32, Ty::U32) };
    let ptr = fl.read(parts.target, t)?;
    let n = calls.funcs.defs.len();
    let rel = fl.bin(BinaryOp::Sub, ty, ptr, FnLower::int_const(ty, function_address(0, fl.address_size)));
    let inside = fl.cmp(CmpOp::LtU, ty, rel, FnLower::int_const(ty, n as u64));
    let rel = fl.resize(rel, ty, Ty::U32, false);
    let selector = fl.select(Ty::U32, inside, rel, FnLower::u32c(n as u32));
    let bad = fl.new_node();
    fl.blocks[bad] =
        BasicBlock { stmts: vec![Stmt::Fault { code: abi::FAULT_BAD_FUNCTION_POINTER }], term: Terminator::Return };
    let candidates: Vec<usize> = (0..n)
        .filter(|&i| {
            let f = calls.funcs.defs[i];
            calls.funcs.address_taken[i] && f.params.len() == parts.args.len() && f.returns.len() == parts.rets.len()
        })
        .collect();
    let join = fl.new_node();
    let mut targets = vec![bad; n + 1];
    let nodes: Vec<NodeId> = candidates.iter().map(|_| fl.new_node()).collect();
    for (&c, &node) in candidates.iter().zip(&nodes) {
        targets[c] = node;
    }
    let first = nodes.first().copied().unwrap_or(join);
    fl.terminate(Terminator::indexed(selector, &targets), first);
    for (k, &c) in candidates.iter().enumerate() {
        direct_call(fl, calls, parts, c)?;
        let next = nodes.get(k + 1).copied().unwrap_or(join);
        fl.terminate(Terminator::Jump(join), next);
    }
    Ok(())
}

impl Calls<'_> {
    /// After the kernel's body: lowers the stack-called bodies, writes every stack call's
    /// push/restore code and every epilogue's dispatch, and sizes local memory. Returns the
    /// kernel's local memory size in bytes.
    pub fn finish(&mut self, fl: &mut FnLower) -> LResult<u32> {
        let Some(regs) = self.stack else { return Ok(fl.frame_bytes) };
        let next = fl.new_node();
        fl.terminate(Terminator::Return, next);
        let kernel_frame = fl.frame_bytes;
        while let Some(id) = self.pending.pop() {
            self.lower_stack_body(fl, id, regs)?;
        }
        let stack_base = align_up(kernel_frame as u64, self.funcs.frame_align as u64) as u32;
        let limit = stack_base + CALL_STACK_BYTES;

        let saves = self.saved_registers(fl);
        let sites = std::mem::take(&mut self.sites);
        for (site, saved) in sites.iter().zip(saves) {
            self.write_site(fl, regs, site, &saved, limit);
        }
        for sf in self.stack_fns.values() {
            let term = match (sf.returns.as_slice(), sf.return_id) {
                ([only], _) => Terminator::Jump(*only),
                (_, Some(id)) => Terminator::indexed(Operand::Var(id), &sf.returns),
                _ => Terminator::Return,
            };
            fl.blocks[sf.exit].term = term;
        }
        fl.blocks[0].stmts.insert(0, Stmt::Assign { dst: regs.sp, expr: Expr::Use(FnLower::u32c(stack_base)) });
        fl.blocks[0].stmts.insert(1, Stmt::Assign { dst: regs.fb, expr: Expr::Use(FnLower::u32c(stack_base)) });
        Ok(limit)
    }

    fn lower_stack_body(&mut self, fl: &mut FnLower, id: usize, regs: StackRegs) -> LResult<()> {
        let callee = self.funcs.defs[id];
        let (entry, exit, sig) = {
            let sf = &self.stack_fns[&id];
            (sf.entry, sf.exit, sf.sig.clone())
        };
        let first_var = fl.vars.len() as u32;
        let barriers = fl.barriers.len();
        let points = fl.sched.points.len();
        fl.cur = entry;
        let saved = Context::swap(fl, &self.module_scope, exit);
        fl.frame_base = Some(regs.fb);
        fl.local_cursor = sig.bytes;
        fl.frame_bytes = sig.bytes;
        // Prologue (the frame size is added once the body is lowered): FB = SP.
        fl.assign(regs.fb, Expr::Use(Operand::Var(regs.sp)));
        declare_formals(fl, callee, &sig, 0, None);
        let offsets = layout_body(fl, callee)?;
        let body = callee.body.as_deref().unwrap_or(&[]);
        collect_labels(body, fl);
        fl.scopes.push(Scope::default());
        let outer = self.current.replace(id);
        self.inlined += self.funcs.size[id];
        lower_statements(body, fl, &offsets, self)?;
        self.current = outer;
        // Epilogue: `.reg` returns to their slots, pop the frame, dispatch on the return id.
        fl.terminate(Terminator::Jump(exit), exit);
        for ((p, slot), v) in callee.returns.iter().zip(&sig.rets).zip(reg_returns(fl, callee, &sig)) {
            if let Some(v) = v {
                let a = fl.local_offset(slot.offset, 0);
                store_value(fl, a, v, p.ty);
            }
        }
        fl.assign(regs.sp, Expr::Use(Operand::Var(regs.fb)));
        let below = fl.bin(BinaryOp::Sub, Ty::U32, Operand::Var(regs.sp), FnLower::u32c(4));
        let index = fl.bin(BinaryOp::ShrU, Ty::U32, below, FnLower::u32c(2));
        let return_id = fl.new_var(Ty::U32, "return site");
        fl.assign(return_id, Expr::LoadWord { memory: Memory::Local, index });
        let after = fl.new_node();
        fl.terminate(Terminator::Return, after);
        if let Some(span) = fl.barriers.get(barriers).map(|b| b.1).or(fl.sched.points.get(points).map(|p| p.span)) {
            // Non-recursive functions that hold one are inlined (`direct_call`): what reaches
            // here is recursion, or a barrier `needs_simt_view` does not know.
            let why = if self.funcs.recursive[id] {
                "is recursive (it calls itself, directly or through other functions), so it is called through the \
                 call stack"
            } else {
                "is called through the call stack (beyond the inlining budget)"
            };
            return Err(unsupported(
                format!(
                    "a barrier or warp collective in device function `{}`, which {why}; only inlined functions may \
                     contain barriers and warp collectives",
                    callee.name.name
                ),
                span,
            ));
        }
        let frame_bytes = align_up(fl.frame_bytes as u64, self.funcs.frame_align as u64) as u32;
        let grow = Stmt::Assign {
            dst: regs.sp,
            expr: Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: Operand::Var(regs.sp), rhs: FnLower::u32c(frame_bytes) },
        };
        fl.blocks[entry].stmts.insert(1, grow);
        saved.restore(fl);
        self.machinery.insert(return_id);
        let sf = self.stack_fns.get_mut(&id).expect("stack fn");
        sf.return_id = Some(return_id);
        sf.frame_bytes = frame_bytes;
        self.frames.push((id, first_var, fl.vars.len() as u32));
        Ok(())
    }

    /// For each stack call site: the caller's registers the callee can clobber and that are
    /// live at the return site. Liveness runs before the epilogues' dispatch edges exist: a
    /// value live after an epilogue belongs to the activation that resumes there, whose own
    /// call site restores it, so the current activation's registers are dead at its `ret`.
    fn saved_registers(&self, fl: &FnLower) -> Vec<Vec<VarId>> {
        let comp = &self.funcs.component;
        let needs = |s: &StackSite| s.frame.is_some_and(|f| comp[f] == comp[s.callee]);
        // Liveness over the variables of the frames that need saving.
        let mut domain: Vec<VarId> = Vec::new();
        for &(f, a, b) in &self.frames {
            if self.sites.iter().any(|s| needs(s) && s.frame == Some(f)) {
                domain.extend((a..b).map(VarId).filter(|v| !self.machinery.contains(v)));
            }
        }
        if domain.is_empty() {
            return self.sites.iter().map(|_| Vec::new()).collect();
        }
        let live = liveness::live_in(&fl.blocks, &domain, fl.vars.len());
        self.sites
            .iter()
            .map(|s| {
                if !needs(s) {
                    return Vec::new();
                }
                let (_, a, b) = *self.frames.iter().find(|fr| Some(fr.0) == s.frame).expect("frame");
                live[s.restore].iter().copied().filter(|v| (a..b).contains(&v.0)).collect()
            })
            .collect()
    }

    fn write_site(&self, fl: &mut FnLower, regs: StackRegs, site: &StackSite, saved: &[VarId], limit: u32) {
        let sp = Operand::Var(regs.sp);
        // Saved registers, padding words if needed, the caller's frame base, the return id: a
        // multiple of two (four) words keeps frames 8- (16-) byte aligned, `Functions::
        // frame_align`: 8-byte `ld.param`s, and the `.align 16` formals and locals of a
        // stack-called function (`.b128` ones) for 16-byte accesses.
        let unpadded: u32 = saved.iter().map(|v| words_of(fl.vars[v.index()].ty)).sum::<u32>()
            + site.frame.is_some() as u32
            + 1;
        let pad = unpadded.next_multiple_of(self.funcs.frame_align / 4) - unpadded;
        let words = unpadded + pad;
        let need = words * 4 + self.stack_fns[&site.callee].frame_bytes;
        let check = fl
            .collect(|fl| {
                let end = fl.bin(BinaryOp::Add, Ty::U32, sp, FnLower::u32c(need));
                let over = fl.cmp(CmpOp::GtU, Ty::U32, end, FnLower::u32c(limit));
                fl.assign(site.overflow, Expr::Use(over));
                Ok(())
            })
            .expect("no errors");
        fl.blocks[site.check].stmts = check.stmts;
        let push = fl
            .collect(|fl| {
                let mut k = 0;
                let mut put = |fl: &mut FnLower, w: Operand| {
                    let a = fl.bin(BinaryOp::Add, Ty::U32, sp, FnLower::u32c(4 * k));
                    let index = fl.bin(BinaryOp::ShrU, Ty::U32, a, FnLower::u32c(2));
                    fl.push(Stmt::StoreWord { memory: Memory::Local, index, value: w });
                    k += 1;
                };
                for &v in saved {
                    for w in to_words(fl, v) {
                        put(fl, w);
                    }
                }
                for _ in 0..pad {
                    put(fl, FnLower::u32c(0));
                }
                if site.frame.is_some() {
                    put(fl, Operand::Var(regs.fb));
                }
                put(fl, FnLower::u32c(site.ret_id));
                let top = fl.bin(BinaryOp::Add, Ty::U32, sp, FnLower::u32c(4 * words));
                fl.assign(regs.sp, Expr::Use(top));
                Ok(())
            })
            .expect("no errors");
        fl.blocks[site.push].stmts = push.stmts;
        let restore = fl
            .collect(|fl| {
                fl.assign(site.callee_fb, Expr::Use(sp));
                let base = fl.bin(BinaryOp::Sub, Ty::U32, sp, FnLower::u32c(4 * words));
                let base_var = fl.new_var(Ty::U32, "restore base");
                fl.assign(base_var, Expr::Use(base));
                let mut k = 0;
                let mut get = |fl: &mut FnLower| {
                    let a = fl.bin(BinaryOp::Add, Ty::U32, Operand::Var(base_var), FnLower::u32c(4 * k));
                    let index = fl.bin(BinaryOp::ShrU, Ty::U32, a, FnLower::u32c(2));
                    k += 1;
                    fl.value(Ty::U32, Expr::LoadWord { memory: Memory::Local, index })
                };
                for &v in saved {
                    let ws: Vec<Operand> = (0..words_of(fl.vars[v.index()].ty)).map(|_| get(fl)).collect();
                    from_words(fl, v, &ws);
                }
                for _ in 0..pad {
                    get(fl);
                }
                if site.frame.is_some() {
                    let fb = get(fl);
                    fl.assign(regs.fb, Expr::Use(fb));
                }
                fl.assign(regs.sp, Expr::Use(Operand::Var(base_var)));
                Ok(())
            })
            .expect("no errors");
        let old = std::mem::take(&mut fl.blocks[site.restore].stmts);
        fl.blocks[site.restore].stmts = restore.stmts.into_iter().chain(old).collect();
    }
}

fn words_of(ty: Ty) -> u32 {
    if ty.bits() == 64 {
        2
    } else {
        1
    }
}

/// A variable's bits as U32 words (low first).
fn to_words(fl: &mut FnLower, v: VarId) -> Vec<Operand> {
    let x = Operand::Var(v);
    match fl.vars[v.index()].ty {
        Ty::Bool => vec![fl.select(Ty::U32, x, FnLower::u32c(1), FnLower::u32c(0))],
        Ty::U32 => vec![x],
        Ty::F32 => vec![fl.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, x)],
        ty => {
            let bits = if ty == Ty::F64 { fl.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, x) } else { x };
            let lo = fl.resize(bits, Ty::U64, Ty::U32, false);
            let hi = fl.bin(BinaryOp::ShrU, Ty::U64, bits, FnLower::u32c(32));
            let hi = fl.resize(hi, Ty::U64, Ty::U32, false);
            vec![lo, hi]
        }
    }
}

fn from_words(fl: &mut FnLower, v: VarId, w: &[Operand]) {
    let value = match fl.vars[v.index()].ty {
        Ty::Bool => fl.cmp(CmpOp::Ne, Ty::U32, w[0], FnLower::u32c(0)),
        Ty::U32 => w[0],
        Ty::F32 => fl.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, w[0]),
        ty => {
            let lo = fl.resize(w[0], Ty::U32, Ty::U64, false);
            let hi = fl.resize(w[1], Ty::U32, Ty::U64, false);
            let hi = fl.bin(BinaryOp::Shl, Ty::U64, hi, FnLower::u32c(32));
            let bits = fl.bin(BinaryOp::Or, Ty::U64, hi, lo);
            if ty == Ty::F64 {
                fl.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, bits)
            } else {
                bits
            }
        }
    };
    fl.assign(v, Expr::Use(value));
}

/// Backward liveness on the CFG under construction, restricted to a few variables.
mod liveness {
    use crate::cfg::{BasicBlock, Terminator};
    use crate::ir::{Expr, Operand, Stmt, VarId};

    type Set = Vec<u64>;

    /// The live-in set of every block (only variables of `domain`).
    pub fn live_in(blocks: &[BasicBlock], domain: &[VarId], nvars: usize) -> Vec<Vec<VarId>> {
        let mut bit = vec![usize::MAX; nvars];
        for (i, v) in domain.iter().enumerate() {
            bit[v.index()] = i;
        }
        let words = domain.len().div_ceil(64);
        let mut live: Vec<Set> = vec![vec![0; words]; blocks.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..blocks.len()).rev() {
                let mut s: Set = vec![0; words];
                for succ in blocks[b].term.successors() {
                    union(&mut s, &live[succ]);
                }
                match &blocks[b].term {
                    Terminator::Branch { cond, .. } => use_op(&mut s, *cond, &bit),
                    Terminator::Switch { selector, .. } => use_op(&mut s, *selector, &bit),
                    _ => {}
                }
                transfer(&blocks[b].stmts, &mut s, &bit);
                if s != live[b] {
                    live[b] = s;
                    changed = true;
                }
            }
        }
        live.iter()
            .map(|s| domain.iter().enumerate().filter(|(i, _)| s[i / 64] >> (i % 64) & 1 == 1).map(|(_, &v)| v).collect())
            .collect()
    }

    fn union(a: &mut Set, b: &Set) {
        a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
    }

    fn use_op(s: &mut Set, o: Operand, bit: &[usize]) {
        if let Operand::Var(v) = o {
            let i = bit[v.index()];
            if i != usize::MAX {
                s[i / 64] |= 1 << (i % 64);
            }
        }
    }

    fn kill(s: &mut Set, v: VarId, bit: &[usize]) {
        let i = bit[v.index()];
        if i != usize::MAX {
            s[i / 64] &= !(1 << (i % 64));
        }
    }

    fn use_expr(s: &mut Set, e: &Expr, bit: &[usize]) {
        let mut u = |o: &Operand| use_op(s, *o, bit);
        match e {
            Expr::Use(a) | Expr::Unary { arg: a, .. } | Expr::Convert { arg: a, .. } => u(a),
            Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
                u(lhs);
                u(rhs)
            }
            Expr::Fma { a, b, c, .. } | Expr::Select { cond: a, a: b, b: c, .. } => {
                u(a);
                u(b);
                u(c)
            }
            Expr::Builtin(_) => {}
            Expr::LoadWord { index, .. } | Expr::LoadDword { index, .. } | Expr::SharedUniformLoad { index } | Expr::WarpBallot { pred: index } => u(index),
            Expr::WarpShuffle { value, lane } => {
                u(value);
                u(lane)
            }
            Expr::Call { args, .. } => args.iter().for_each(u),
            Expr::AtomicWord { index, value, comparand, .. } | Expr::AtomicDword { index, value, comparand, .. } => {
                u(index);
                u(value);
                if let Some(c) = comparand {
                    u(c)
                }
            }
        }
    }

    /// Live-out → live-in across `stmts`.
    fn transfer(stmts: &[Stmt], s: &mut Set, bit: &[usize]) {
        for st in stmts.iter().rev() {
            match st {
                Stmt::Assign { dst, expr } => {
                    kill(s, *dst, bit);
                    use_expr(s, expr, bit);
                }
                Stmt::StoreWord { index, value, .. } => {
                    use_op(s, *index, bit);
                    use_op(s, *value, bit);
                }
                Stmt::If { cond, then_body, else_body } => {
                    let mut t = s.clone();
                    transfer(&then_body.stmts, &mut t, bit);
                    transfer(&else_body.stmts, s, bit);
                    union(s, &t);
                    use_op(s, *cond, bit);
                }
                Stmt::Switch { selector, cases, default } => {
                    // Not built before structurization; like `If` over every case.
                    let mut acc = s.clone();
                    transfer(&default.stmts, &mut acc, bit);
                    for c in cases {
                        let mut t = s.clone();
                        transfer(&c.body.stmts, &mut t, bit);
                        union(&mut acc, &t);
                    }
                    *s = acc;
                    use_op(s, *selector, bit);
                }
                Stmt::Loop { body } => {
                    // Not built before structurization; conservatively: uses, no kills.
                    let mut t = s.clone();
                    transfer(&body.stmts, &mut t, bit);
                    union(s, &t);
                }
                Stmt::Break
                | Stmt::Continue
                | Stmt::Return
                | Stmt::Barrier
                | Stmt::SharedBarrier
                | Stmt::Fault { .. }
                | Stmt::Fence { .. } => {}
            }
        }
    }
}
