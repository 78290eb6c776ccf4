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
use crate::ir::{Block, Const, Expr, FaultSite, Memory, Operand, Stmt, Ty};
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
        let at = self.emit_stack.last().map_or(0, Vec::len);
        lower(self)?;
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
