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

    /// `bar.sync a{, b}` / `barrier{.cta}.sync{.aligned}` / `bar{.cta}.arrive a, b` /
    /// `barrier{.cta}.arrive{.aligned} a, b` (§9.7.13.1). Today's lowering is a workgroup
    /// barrier: the full-CTA forms (no thread count, or a count naming every warp of the CTA:
    /// [`FnLower::barrier_count`]). `bar.arrive` and an immediate count naming fewer warps only
    /// have a translation through the CTA barrier scheduler (`scheduler`): today's lowering
    /// notes them (`needs_scheduler`) and the kernel is lowered again in scheduler mode, where
    /// every barrier is a point of the scheduler ([`FnLower::scheduler_point`]).
    pub(super) fn barrier(&mut self, inst: &Instruction) -> LResult<()> {
        let m = Mods { inst };
        let arrive = m.has("arrive");
        if arrive {
            m.only(&["arrive", "aligned", "cta"])?;
            // "a non-zero thread count is required for barrier{.cta}.arrive"
            if inst.operands.len() != 2 {
                return Err(Diagnostic::new(
                    format!("`{}` takes 2 operands (a barrier id and a thread count), found {}", m.name(), inst.operands.len()),
                    inst.span,
                ));
            }
        } else {
            m.only(&["sync", "aligned", "cta"])?;
            if !(m.has("sync") || inst.opcode.name == "bar" && inst.modifiers.is_empty()) {
                return Err(unsupported(format!("`{}` (only the .sync and .arrive forms are implemented)", m.name()), inst.span));
            }
            match inst.operands.len() {
                0 if inst.opcode.name == "barrier" => {}
                1 | 2 => {}
                n => return Err(Diagnostic::new(format!("`{}` takes 1 or 2 operands, found {n}", m.name()), inst.span)),
            }
        }
        if self.scheduler {
            return self.scheduler_point(inst, arrive);
        }
        let partial = match inst.operands.get(1) {
            Some(ast::Operand { kind: OperandKind::Expr(e), span }) => self.immediate_count(e, arrive, *span)?.is_some(),
            Some(_) => {
                self.register_count = true;
                false
            }
            None => false,
        };
        if arrive || partial {
            // Nothing emitted: the kernel is lowered again with the scheduler.
            self.needs_scheduler.get_or_insert(inst.span);
            return Ok(());
        }
        if inst.operands.len() == 2 {
            self.barrier_count(&inst.operands[1])?;
        }
        if let Some(id) = inst.operands.first() {
            self.barrier_id(id)?;
        }
        self.push(Stmt::Barrier);
        self.barriers.push((self.cur, inst.span));
        self.cta_barrier_at = Some((self.cur, self.inst_serial));
        Ok(())
    }

    /// An immediate thread count `b` of `bar`/`barrier` (§9.7.13.1: "the value must be a
    /// multiple of the warp size"; "a non-zero thread count is required for
    /// barrier{.cta}.arrive"): `None` when it names every warp of the CTA (the CTA's thread
    /// count rounded up to a multiple of 32, or the thread count itself, accepted as before),
    /// else the number of warps it names. 0, a count above the CTA's warps, or one that is no
    /// multiple of 32 is an error (`arrive` needs a count, and a whole-CTA one is a count too).
    pub(super) fn immediate_count(&self, e: &ast::Expr, arrive: bool, span: ast::Span) -> LResult<Option<u32>> {
        let total: u32 = self.block.iter().product();
        let warps = total.div_ceil(32);
        let Ok(crate::consts::ConstValue::Int(b)) = crate::consts::eval(e) else {
            return Err(Diagnostic::new("a barrier's thread count must be an integer (PTX ISA §9.7.13.1)", span));
        };
        if (b == total as u64 || b == warps as u64 * 32) && !arrive {
            return Ok(None);
        }
        if b == 0 || b > warps as u64 * 32 || b % 32 != 0 && b != total as u64 {
            return Err(Diagnostic::new(
                format!(
                    "barrier thread count {b}: it must be a non-zero multiple of the warp size (32) naming at most the CTA's \
                     {warps} warps ({total} threads) (PTX ISA §9.7.13.1)"
                ),
                span,
            ));
        }
        Ok(Some((b as u32).div_ceil(32)))
    }

    /// A barrier of a scheduler kernel (see `scheduler`): records the barrier id (0–15; a
    /// register value past 15 records `abi::FAULT_BARRIER_ID` and is taken modulo 16), the
    /// number of warps that complete it (`scheduler::ALL_WARPS`: every non-exited warp, for
    /// the forms without a count and counts naming the whole CTA; a register count that is 0,
    /// names more warps than the CTA has or is no multiple of 32 records
    /// `abi::FAULT_BARRIER_COUNT` and waits for every warp), whether the thread goes on
    /// (`arrive`) and its fault site, then ends the block: the scheduler resumes the thread at
    /// the next one.
    pub(super) fn scheduler_point(&mut self, inst: &Instruction, arrive: bool) -> LResult<()> {
        let (id, expect) = self.point_id_expect(inst.operands.first(), inst.operands.get(1), arrive)?;
        self.park(inst, id, expect, arrive);
        Ok(())
    }

    /// A scheduler point's barrier id and expected warps (see [`FnLower::scheduler_point`]).
    pub(super) fn point_id_expect(&mut self, id: Option<&ast::Operand>, count: Option<&ast::Operand>, arrive: bool) -> LResult<(Operand, Operand)> {
        let total: u32 = self.block.iter().product();
        let warps = total.div_ceil(32);
        let id = match id {
            None => Self::u32c(0),
            Some(op) => {
                self.barrier_id(op)?;
                match &op.kind {
                    OperandKind::Expr(e) => match crate::consts::eval(e) {
                        Ok(crate::consts::ConstValue::Int(v)) => Self::u32c(v as u32),
                        _ => return Err(Diagnostic::new("a barrier id must be an integer 0 through 15 (PTX ISA §9.7.13.1)", op.span)),
                    },
                    _ => {
                        let v = self.read(op, ScalarType::U32)?;
                        self.bin(BinaryOp::And, Ty::U32, v, Self::u32c(15))
                    }
                }
            }
        };
        let all = Self::u32c(crate::scheduler::ALL_WARPS);
        let expect = match count {
            None => all,
            Some(op) => match &op.kind {
                OperandKind::Expr(e) => match self.immediate_count(e, arrive, op.span)? {
                    None => all,
                    Some(w) if w == warps && !arrive => all,
                    Some(w) => Self::u32c(w),
                },
                _ => {
                    let b = self.read(op, ScalarType::U32)?;
                    let nonzero = self.cmp(CmpOp::Ne, Ty::U32, b, Self::u32c(0));
                    let fits = self.cmp(CmpOp::LeU, Ty::U32, b, Self::u32c(warps * 32));
                    let low = self.bin(BinaryOp::And, Ty::U32, b, Self::u32c(31));
                    let multiple = self.cmp(CmpOp::Eq, Ty::U32, low, Self::u32c(0));
                    let exact = self.cmp(CmpOp::Eq, Ty::U32, b, Self::u32c(total));
                    let shape = self.bin(BinaryOp::Or, Ty::Bool, multiple, exact);
                    let ok = self.bin(BinaryOp::And, Ty::Bool, nonzero, fits);
                    let ok = self.bin(BinaryOp::And, Ty::Bool, ok, shape);
                    self.emit_if(ok, Block::new(), Block { stmts: vec![Stmt::Fault { code: abi::FAULT_BARRIER_COUNT }] });
                    let rounded = self.bin(BinaryOp::Add, Ty::U32, b, Self::u32c(31));
                    let named = self.bin(BinaryOp::ShrU, Ty::U32, rounded, Self::u32c(5));
                    if arrive {
                        self.select(Ty::U32, ok, named, all)
                    } else {
                        let whole = self.cmp(CmpOp::Eq, Ty::U32, named, Self::u32c(warps));
                        let bad = self.un(crate::ir::UnaryOp::Not, Ty::Bool, ok);
                        let full = self.bin(BinaryOp::Or, Ty::Bool, whole, bad);
                        self.select(Ty::U32, full, all, named)
                    }
                }
            },
        };
        Ok((id, expect))
    }

    /// Ends the block at a scheduler point (see `scheduler`): records the barrier the thread
    /// waits at (`id`, `expect` warps, `arrive`) and its fault site; the thread resumes at the
    /// next block.
    pub(super) fn park(&mut self, inst: &Instruction, id: Operand, expect: Operand, arrive: bool) {
        let v = self.sched.vars(&mut self.vars);
        self.assign(v.id, crate::ir::Expr::Use(id));
        self.assign(v.expect, crate::ir::Expr::Use(expect));
        self.assign(v.arrive, crate::ir::Expr::Use(Operand::Const(crate::ir::Const::Bool(arrive))));
        self.end_at_point(inst, crate::scheduler::PointKind::Barrier);
    }
}
