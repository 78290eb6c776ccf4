//! Fault sites: which PTX instruction faulted.
//!
//! Before each instruction whose lowering may fault (a memory access with a bounds check, a
//! misalignment check, `trap`, a call's stack overflow), `lower` assigns the instruction's site
//! id to one variable, [`ir::Kernel::fault_site_var`]; a backend that records a fault also
//! writes that variable's value to heap word `abi::FAULT_SITE_WORD`, and the host maps the id
//! back to `file:line:col` through [`ir::Kernel::fault_sites`]. The assignments are of
//! constants and only the (never taken) fault paths read the variable, so after inlining the
//! backends' helpers, a compiler sees a constant at each fault path: the cost is one store on
//! the fault path.
//!
//! The site assignment goes where the instruction's code starts, in the block it started in;
//! its faulting statements (also in blocks the instruction creates, e.g. a predicated `trap`)
//! come after it. A call inlines the callee's instructions, each with its own site, so a fault
//! inside a device function names the callee's line.

use crate::function::{FnLower, LResult};
use crate::ir::{Block, Const, Expr, FaultSite, Kernel, Memory, Operand, Stmt, Ty, VarId};
use ptxcross_frontend::ast::Instruction;
use ptxcross_frontend::SourceFile;

/// A site recorded while lowering: source byte offset and instruction text.
#[derive(Clone, Debug)]
pub struct PendingSite {
    pub offset: u32,
    pub instruction: String,
}

impl FnLower {
    /// Runs `lower` (which emits `inst`'s code) and, if that code may fault, puts the site
    /// assignment in front of it.
    pub fn with_fault_site(&mut self, inst: &Instruction, lower: impl FnOnce(&mut FnLower) -> LResult<()>) -> LResult<()> {
        let (block, depth, blocks_before) = (self.cur, self.emit_stack.len(), self.blocks.len());
        let (at, prepended) = (self.emit_stack.last().map_or(0, Vec::len), self.entry_prepended);
        lower(self)?;
        // What `lower` put at the entry block's start (the heap segment's word at a kernel's
        // first heap access, the opaque zero, …) moved the instruction's start there: without
        // this, the site went that many statements too early, before the previous
        // instruction's faults, which then named this instruction.
        let at = if block == 0 && depth == 1 { at + (self.entry_prepended - prepended) } else { at };
        let same_block = self.cur == block && self.emit_stack.len() == depth;
        if !same_block && depth != 1 {
            return Ok(()); // not a shape instructions are lowered in; no site rather than a wrong one
        }
        let faults = {
            let started: &[Stmt] = if same_block { self.emit_stack.last().map_or(&[], |v| v) } else { &self.blocks[block].stmts };
            started.get(at..).is_some_and(|s| s.iter().any(may_fault))
                || self.blocks[blocks_before..].iter().any(|b| b.stmts.iter().any(may_fault))
                || (!same_block && self.emit_stack.iter().flatten().any(may_fault))
        };
        if !faults {
            return Ok(());
        }
        let var = match self.fault_site_var {
            Some(v) => v,
            None => {
                let v = self.new_var(Ty::U32, "fault site");
                self.fault_site_var = Some(v);
                v
            }
        };
        let id = self.record_fault_site(inst);
        let assign = Stmt::Assign { dst: var, expr: Expr::Use(Operand::Const(Const::U32(id))) };
        let list = if same_block { self.emit_stack.last_mut() } else { Some(&mut self.blocks[block].stmts) };
        if let Some(list) = list {
            list.insert(at.min(list.len()), assign);
        }
        Ok(())
    }
}

/// `inst`'s opcode with its modifiers (`ld.global.f32`): how sites and scheduler points name
/// an instruction.
pub fn instruction_name(inst: &Instruction) -> String {
    std::iter::once(inst.opcode.name.as_str()).chain(inst.modifiers.iter().map(|m| m.text.as_str())).collect::<Vec<_>>().join(".")
}

impl FnLower {
    /// Adds `inst` to the kernel's fault sites; returns its id (what the site variable holds).
    pub fn record_fault_site(&mut self, inst: &Instruction) -> u32 {
        self.fault_sites.push(PendingSite { offset: inst.span.start, instruction: instruction_name(inst) });
        self.fault_sites.len() as u32
    }
}

/// Whether `s` may record a fault (parameter loads at constant indices cannot).
fn may_fault(s: &Stmt) -> bool {
    let block = |b: &Block| b.stmts.iter().any(may_fault);
    match s {
        Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Param, index: Operand::Const(_) }, .. } => false,
        Stmt::Assign { expr: Expr::LoadWord { .. } | Expr::AtomicWord { .. }, .. } => true,
        Stmt::StoreWord { .. } | Stmt::Fault { .. } => true,
        Stmt::If { then_body, else_body, .. } => block(then_body) || block(else_body),
        Stmt::Loop { body } => block(body),
        Stmt::Switch { cases, default, .. } => cases.iter().any(|c| block(&c.body)) || block(default),
        _ => false,
    }
}

/// Removes the site assignments that no fault can read (issue 11, code size): an assignment
/// is dead when every path from it reaches another site assignment before any statement that
/// may record a fault. Which statements cannot: pure assignments, barriers and fences,
/// parameter loads at constant indices, and the loads and stores the backends make without a check — a heap word at an
/// index `lower` has proven in range ([`Kernel::heap_index_memories_of`]), a shared or private
/// local word whose index the value facts bound ([`Kernel::index_in_range`]). A site assignment
/// before such an access alone (the store of `y[i] = a * x[i] + y[i]`, whose tests the load's
/// made, a shared store at a proven index) was one statement or instruction per access.
///
/// A backwards liveness walk of the site variable, conservative where control leaves the
/// straight line: a loop's body end, `break`, `continue`, a `switch` and every other statement
/// count as reading it; an `if` reads it where either branch does; `return` does not (the
/// flush there records the site saved with the deferred faults). So each fault
/// still names the site it named before: only assignments that nothing reads go.
pub fn remove_dead_sites(kernel: &mut Kernel) {
    let Some(site) = kernel.fault_site_var else { return };
    let values = kernel.value_vars();
    let heap = kernel.heap_index_memories_of(&values);
    let facts = kernel.index_facts_of(&values);
    // The walk rewrites the body while the tests read the rest of the kernel (borrowed, not
    // cloned: a copy of its variables cost 3% of the CUB file's translation).
    let mut body = std::mem::take(&mut kernel.body);
    let view: &Kernel = kernel;
    let silent_index = |memory: Memory, index: Operand| match (memory, index) {
        (Memory::Param, Operand::Const(_)) => true,
        (Memory::Shared | Memory::Local, _) => view.index_in_range(memory, index, &facts),
        (_, Operand::Var(v)) => memory.is_heap() && heap.get(v.index()).copied().flatten() == Some(memory),
        _ => false,
    };
    // Whether `s` cannot record a fault (and so cannot read the site).
    let silent = |s: &Stmt| match s {
        Stmt::Assign { dst, .. } if *dst == site => false,
        Stmt::Assign { expr: Expr::LoadWord { memory, index }, .. } => silent_index(*memory, *index),
        Stmt::Assign { expr, .. } => expr.is_pure(),
        Stmt::StoreWord { memory, index, .. } => *memory != Memory::Param && silent_index(*memory, *index),
        Stmt::Barrier | Stmt::SharedBarrier | Stmt::Fence { .. } => true,
        _ => false,
    };
    /// Walks `b` backwards with `live` (whether the site is read after the block); removes
    /// dead assignments; returns whether the site is read at the block's start.
    fn walk(b: &mut Block, mut live: bool, site: VarId, silent: &dyn Fn(&Stmt) -> bool) -> bool {
        let mut keep = vec![true; b.stmts.len()];
        for (i, s) in b.stmts.iter_mut().enumerate().rev() {
            match s {
                Stmt::Assign { dst, expr: Expr::Use(Operand::Const(_)) } if *dst == site => {
                    keep[i] = live;
                    live = false;
                }
                Stmt::If { then_body, else_body, .. } => {
                    let t = walk(then_body, live, site, silent);
                    let e = walk(else_body, live, site, silent);
                    live = t || e;
                }
                // The thread ends: the backends' flush records the deferred faults with the
                // site kept for them (`px_bad_site`), never the variable's last value.
                Stmt::Return => live = false,
                _ if silent(s) => {}
                _ => {
                    for body in s.bodies_mut() {
                        walk(body, true, site, silent);
                    }
                    live = true;
                }
            }
        }
        let mut i = 0;
        b.stmts.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        live
    }
    walk(&mut body, false, site, &silent);
    kernel.body = body;
}

/// The sites of a kernel with `file`'s line and column numbers.
pub fn resolve(sites: Vec<PendingSite>, file: &SourceFile) -> Vec<FaultSite> {
    sites
        .into_iter()
        .map(|p| {
            let (line, col) = file.line_col(p.offset);
            FaultSite { line, col, instruction: p.instruction }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{VarInfo, VarId};

    fn kernel(stmts: Vec<Stmt>) -> Kernel {
        Kernel {
            name: "k".into(),
            entry_point: "k".into(),
            workgroup_size: [1, 1, 1],
            vars: vec![VarInfo { ty: Ty::U32, name: "site".into() }, VarInfo { ty: Ty::U32, name: "x".into() }],
            body: Block { stmts },
            shared_words: 4,
            local_words: 0,
            local_placement: Default::default(),
            params: Vec::new(),
            fault_site_var: Some(VarId(0)),
            fault_sites: Vec::new(),
            param_bytes: 0,
            features: Default::default(),
            functions: Vec::new(),
            printf: Vec::new(),
        }
    }

    #[test]
    fn only_site_assignments_that_no_fault_reads_go() {
        let site = |id: u32| Stmt::Assign { dst: VarId(0), expr: Expr::Use(Operand::Const(Const::U32(id))) };
        let c = |x: u32| Operand::Const(Const::U32(x));
        let x = Operand::Var(VarId(1));
        // A heap load at an unproven index may fault; a shared store at word 3 of 4 cannot,
        // one at word 4 can; so can an `if` whose body faults.
        let load = Stmt::Assign { dst: VarId(1), expr: Expr::LoadWord { memory: Memory::Heap, index: c(100) } };
        let quiet = Stmt::StoreWord { memory: Memory::Shared, index: c(3), value: x };
        let past = Stmt::StoreWord { memory: Memory::Shared, index: c(4), value: x };
        let guarded = Stmt::If { cond: Operand::Const(Const::Bool(true)), then_body: Block { stmts: vec![Stmt::Fault { code: 1 }] }, else_body: Block::new() };
        let stmts = vec![
            site(1),
            load.clone(),
            site(2),
            quiet.clone(),
            site(3),
            past.clone(),
            site(4),
            quiet.clone(),
            guarded.clone(),
            site(5),
            quiet.clone(),
            site(6),
            Stmt::Loop { body: Block { stmts: vec![site(7), quiet.clone(), site(8), Stmt::Fault { code: 2 }, site(9), quiet.clone()] } },
            site(10),
            quiet.clone(),
        ];
        let mut k = kernel(stmts);
        remove_dead_sites(&mut k);
        let want = vec![
            site(1),
            load,
            quiet.clone(),
            site(3),
            past,
            site(4),
            quiet.clone(),
            guarded,
            quiet.clone(),
            // Before a loop the site counts as read (conservative), and so at its body's end.
            site(6),
            Stmt::Loop { body: Block { stmts: vec![quiet.clone(), site(8), Stmt::Fault { code: 2 }, site(9), quiet.clone()] } },
            quiet,
        ];
        assert_eq!(k.body.stmts, want);
    }

    /// The instruction before a kernel's first heap access (whose lowering prepends the heap
    /// segment's word to the entry block) keeps its own site: each fault's `if` must follow
    /// the site assignment of the instruction it belongs to. (Before, the store's site went in
    /// front of the `ld.param`'s alignment fault, which then named the store.)
    #[test]
    fn a_site_follows_what_its_instruction_prepends_to_the_entry() {
        let ptx = ".version 7.7\n.target sm_80\n.address_size 64\n\
            .visible .entry k(.param .u64 out, .param .u32 a, .param .u32 off)\n{\n\
            .reg .b32 %r<4>;\n.reg .b64 %rd<6>;\n\
            ld.param.u64 %rd1, [out];\nld.param.u32 %r1, [off];\ncvt.u64.u32 %rd2, %r1;\n\
            mov.u64 %rd3, a;\nadd.s64 %rd4, %rd3, %rd2;\nld.param.u32 %r2, [%rd4];\n\
            st.global.u32 [%rd1], %r2;\nret;\n}\n";
        let file = SourceFile::new("k.ptx", ptx);
        let ast = ptxcross_frontend::parse(&file).unwrap_or_else(|e| panic!("{}", e[0].render(&file)));
        let options = crate::LowerOptions { block: Some([1, 1, 1]), ..Default::default() };
        let m = crate::lower(&ast, &file, &options).unwrap_or_else(|e| panic!("{}", e[0].render(&file)));
        let k = &m.kernels[0];
        let site = k.fault_site_var.expect("a site variable");
        // Each `if (c) { fault }` at the top level, by the instruction of the site before it.
        let mut current = None;
        let mut named = Vec::new();
        for s in &k.body.stmts {
            match s {
                Stmt::Assign { dst, expr: Expr::Use(Operand::Const(Const::U32(id))) } if *dst == site => current = Some(*id),
                Stmt::If { then_body, else_body, .. } if else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]) => {
                    let id = current.expect("a site before the fault") as usize;
                    named.push(k.fault_sites[id - 1].instruction.clone());
                }
                _ => {}
            }
        }
        assert_eq!(named.first().map(String::as_str), Some("ld.param.u32"), "the ld.param's alignment fault: {named:?}");
        assert!(named.iter().skip(1).all(|n| n == "st.global.u32"), "{named:?}");
    }
}
