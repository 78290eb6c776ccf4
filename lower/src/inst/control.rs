//! Control flow: `bra`, `ret`, `exit`, `trap`, and barriers (spec §9.7.12, §9.7.13.4).

use super::{operands, Mods};
use crate::abi;
use crate::cfg::Terminator;
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{BinaryOp, Block, CmpOp, Operand, Stmt, Ty};
use ptxcross_frontend::ast::{self, Instruction, OperandKind, ScalarType};
use ptxcross_frontend::Diagnostic;

impl FnLower {
    pub(crate) fn guard(&mut self, inst: &Instruction) -> LResult<Option<Operand>> {
        match &inst.guard {
            None => Ok(None),
            Some(g) => {
                let p = self.read(
                    &ast::Operand { kind: OperandKind::Symbol { name: g.pred.name.clone(), component: None }, span: g.span },
                    ScalarType::Pred,
                )?;
                Ok(Some(if g.negated { self.un(crate::ir::UnaryOp::Not, crate::ir::Ty::Bool, p) } else { p }))
            }
        }
    }

    /// Ends the current block with `term` taken when `guard` holds (else falls through).
    fn guarded_transfer(&mut self, guard: Option<Operand>, target: usize) {
        let next = self.new_node();
        match guard {
            None => self.terminate(crate::cfg::Terminator::Jump(target), next),
            Some(cond) => self.terminate(Terminator::Branch { cond, then_target: target, else_target: next }, next),
        }
    }

    pub(super) fn control(&mut self, inst: &Instruction) -> LResult<()> {
        let m = Mods { inst };
        let guard = self.guard(inst)?;
        match inst.opcode.name.as_str() {
            "bra" => {
                m.only(&["uni"])?;
                let [target] = operands(inst, 1)? else { unreachable!() };
                let OperandKind::Symbol { name, component: None } = &target.kind else {
                    return Err(Diagnostic::new("`bra` takes a label", target.span));
                };
                if !self.labels.contains_key(name.as_str()) {
                    return Err(Diagnostic::new(format!("unknown label `{name}`"), target.span));
                }
                let t = self.label_node(name);
                self.guarded_transfer(guard, t);
                Ok(())
            }
            "brx" => {
                // brx.idx{.uni} index, tlist (§9.7.13.4): `tlist[index]`. An out-of-range index
                // is undefined in PTX; it takes the last target here (never a hang or a fault).
                m.only(&["idx", "uni"])?;
                if !m.has("idx") {
                    return Err(unsupported(format!("`{}` (only brx.idx exists)", m.name()), inst.span));
                }
                let [index, list] = operands(inst, 2)? else { unreachable!() };
                let OperandKind::Symbol { name, component: None } = &list.kind else {
                    return Err(Diagnostic::new("`brx.idx` takes a `.branchtargets` label", list.span));
                };
                let Some(names) = self.branch_targets.get(name.as_str()).cloned() else {
                    return Err(Diagnostic::new(format!("`{name}` is not a `.branchtargets` list"), list.span));
                };
                let mut targets = Vec::with_capacity(names.len());
                for n in &names {
                    if !self.labels.contains_key(n.as_str()) {
                        return Err(Diagnostic::new(format!("unknown label `{n}` in `.branchtargets` `{name}`"), list.span));
                    }
                    targets.push(self.label_node(n));
                }
                if targets.is_empty() {
                    return Err(Diagnostic::new(format!("`.branchtargets` `{name}` is empty"), list.span));
                }
                let idx = self.read(index, ScalarType::U32)?;
                let dispatch = self.new_node();
                self.blocks[dispatch].term = Terminator::indexed(idx, &targets);
                self.guarded_transfer(guard, dispatch);
                Ok(())
            }
            "ret" | "exit" => {
                m.only(&["uni"])?;
                operands(inst, 0)?;
                // `ret` in a device function goes back to its caller; `exit` (and `ret` in a
                // kernel) ends the thread.
                let target = match (inst.opcode.name.as_str(), self.ret_target) {
                    ("ret", Some(t)) => t,
                    _ => {
                        let end = self.new_node();
                        self.blocks[end].term = Terminator::Return;
                        end
                    }
                };
                self.guarded_transfer(guard, target);
                Ok(())
            }
            "trap" => {
                operands(inst, 0)?;
                // The launch fails with a trap fault; the thread stops.
                let ret = self.new_node();
                self.blocks[ret].stmts.push(Stmt::Fault { code: abi::FAULT_TRAP });
                self.blocks[ret].term = Terminator::Return;
                self.guarded_transfer(guard, ret);
                Ok(())
            }
            _ => Err(unsupported(format!("instruction `{}`", m.name()), inst.span)),
        }
    }

    /// The thread count `b` of `bar{.cta}.sync a, b` / `barrier{.cta}.sync a, b` / `bar.red`
    /// (§9.7.13.1: "Operand b specifies the number of threads participating in the barrier …
    /// When specifying a thread count, the value must be a multiple of the warp size"; the
    /// participants are whole warps). Only a count naming every warp of the CTA has a sound
    /// translation (the workgroup barrier): the CTA's thread count rounded up to a multiple of
    /// 32, or (outside the spec's rule when it is no multiple of 32, accepted as before) the
    /// thread count itself. The CTA shape is fixed at translation (`%ntid` is folded), so an
    /// immediate count is decided here (another value is refused); a count in a register is
    /// tested at run time: another value records `abi::FAULT_BARRIER_COUNT` at this
    /// instruction's site, and the full-CTA barrier follows either way (every thread must
    /// reach it).
    pub(super) fn barrier_count(&mut self, count: &ast::Operand) -> LResult<()> {
        let total: u32 = self.block.iter().product();
        let warps = total.div_ceil(32) * 32;
        if let OperandKind::Expr(e) = &count.kind {
            let ok = matches!(crate::consts::eval(e), Ok(crate::consts::ConstValue::Int(c)) if c == total as u64 || c == warps as u64);
            if !ok {
                return Err(unsupported(
                    format!("a barrier with a thread count other than the whole CTA ({warps} for this CTA of {total} threads)"),
                    count.span,
                ));
            }
            return Ok(());
        }
        let c = self.read(count, ScalarType::U32)?;
        let full = self.cmp(CmpOp::Eq, Ty::U32, c, Self::u32c(warps));
        let exact = self.cmp(CmpOp::Eq, Ty::U32, c, Self::u32c(total));
        let ok = self.bin(BinaryOp::Or, Ty::Bool, full, exact);
        self.emit_if(ok, Block::new(), Block { stmts: vec![Stmt::Fault { code: abi::FAULT_BARRIER_COUNT }] });
        Ok(())
    }

    /// Barrier id `a` of `bar`/`barrier`/`bar.red` (§9.7.13.1: "a logical barrier resource as
    /// an immediate constant or register with value 0 through 15"). Every implemented barrier
    /// waits for the whole CTA, so the id does not change what it does: threads that wait at
    /// different ids at once would never be released on NVIDIA (undefined), and meet at one
    /// barrier here instead of hanging. An immediate out of range is an error; a register
    /// value out of range records `abi::FAULT_BARRIER_ID` (the barrier still happens).
    pub(super) fn barrier_id(&mut self, id: &ast::Operand) -> LResult<()> {
        if let OperandKind::Expr(e) = &id.kind {
            return match crate::consts::eval(e) {
                Ok(crate::consts::ConstValue::Int(v)) if v < 16 => Ok(()),
                Ok(crate::consts::ConstValue::Int(v)) => {
                    Err(Diagnostic::new(format!("barrier id {v} is out of range: 0 through 15 (PTX ISA §9.7.13.1)"), id.span))
                }
                _ => Err(Diagnostic::new("a barrier id must be an integer 0 through 15 (PTX ISA §9.7.13.1)", id.span)),
            };
        }
        let v = self.read(id, ScalarType::U32)?;
        let ok = self.cmp(CmpOp::LtU, Ty::U32, v, Self::u32c(16));
        self.emit_if(ok, Block::new(), Block { stmts: vec![Stmt::Fault { code: abi::FAULT_BARRIER_ID }] });
        Ok(())
    }

    /// `bar.sync a` / `bar.sync a, b` / `barrier.sync` / `bar.cta.sync` …: a CTA-wide barrier.
    /// Only the full-CTA form is implemented (no thread count, or a count naming every warp of
    /// the CTA: [`FnLower::barrier_count`]).
    pub(super) fn barrier(&mut self, inst: &Instruction) -> LResult<()> {
        let m = Mods { inst };
        if m.has("arrive") {
            // §9.7.13.1: the arriving threads go on while the others wait for a count of
            // arrivals (producer/consumer named barriers): Vulkan's and WGSL's workgroup
            // barriers make every invocation wait, and a count below the CTA's has no
            // equivalent either.
            return Err(unsupported(
                format!("`{}` (a barrier some threads pass without waiting; only the .sync form is implemented)", m.name()),
                inst.span,
            ));
        }
        m.only(&["sync", "aligned", "cta"])?;
        if !(m.has("sync") || inst.opcode.name == "bar" && inst.modifiers.is_empty()) {
            return Err(unsupported(format!("`{}` (only the .sync form is implemented)", m.name()), inst.span));
        }
        match inst.operands.len() {
            0 if inst.opcode.name == "barrier" => {}
            1 => {}
            2 => self.barrier_count(&inst.operands[1])?,
            n => return Err(Diagnostic::new(format!("`{}` takes 1 or 2 operands, found {n}", m.name()), inst.span)),
        }
        if let Some(id) = inst.operands.first() {
            self.barrier_id(id)?;
        }
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, inst.span));
        Ok(())
    }
}
