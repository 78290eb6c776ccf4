//! Instruction lowering (spec chapter 9), one module per instruction family. Each lowering
//! accepts exactly the modifiers it implements: anything else is "not supported yet", never
//! a guess.

mod approx;
mod atomic;
pub(crate) mod b128;
mod bitops;
mod cluster;
mod control;
mod convert;
mod divsqrt;
mod divsqrt_u32;
mod f64_exact;
mod float;
mod flushed;
mod fp8;
mod half;
mod half_arith;
mod int;
pub(crate) mod legacy;
mod matrix;
pub(crate) mod mbarrier;
mod memory;
mod moves;
mod texture;
mod video;
mod warp;
mod wgmma;
mod wmma;

pub(crate) use warp::ExchangeMark;
pub use atomic::collect_read_regs;
use crate::function::{unsupported, FnLower, LResult};
use crate::ptx_types;
use ptxcross_frontend::ast::{self, Instruction, ScalarType, Span};
use ptxcross_frontend::Diagnostic;

/// An instruction's modifiers with helpers to query and check them.
pub struct Mods<'i> {
    pub inst: &'i Instruction,
}

impl<'i> Mods<'i> {
    pub fn has(&self, m: &str) -> bool {
        self.inst.modifiers.iter().any(|x| x.text == m)
    }
    /// Type modifiers in order of appearance.
    pub fn types(&self) -> Vec<ScalarType> {
        self.inst.modifiers.iter().filter_map(|m| ScalarType::from_suffix(&m.text)).collect()
    }
    /// The single type of a one-type instruction.
    pub fn ty(&self) -> LResult<ScalarType> {
        match self.types().as_slice() {
            [t] => Ok(*t),
            [] => Err(Diagnostic::new(format!("`{}` needs a type modifier", self.name()), self.inst.span)),
            _ => Err(Diagnostic::new(format!("`{}` takes one type modifier", self.name()), self.inst.span)),
        }
    }
    pub fn name(&self) -> String {
        let mut s = self.inst.opcode.name.to_string();
        for m in &self.inst.modifiers {
            s.push('.');
            s.push_str(&m.text);
        }
        s
    }
    /// Errors on the first modifier that is neither a type nor in `allowed`.
    pub fn only(&self, allowed: &[&str]) -> LResult<()> {
        for m in &self.inst.modifiers {
            if ScalarType::from_suffix(&m.text).is_none() && !allowed.contains(&m.text.as_str()) {
                return Err(unsupported(format!("`.{}` on `{}`", m.text, self.name()), m.span));
            }
        }
        Ok(())
    }
    /// The first of `options` present.
    pub fn one_of(&self, options: &[&'static str]) -> Option<&'static str> {
        options.iter().copied().find(|o| self.has(o))
    }
}

/// Checks the operand count.
pub fn operands(inst: &Instruction, n: usize) -> LResult<&[ast::Operand]> {
    if inst.operands.len() != n {
        return Err(Diagnostic::new(
            format!("`{}` takes {} operands, found {}", inst.opcode.name, n, inst.operands.len()),
            inst.span,
        ));
    }
    Ok(&inst.operands)
}

/// The value of an operand written as an integer constant: a literal or a constant expression
/// (§4.5.4: `lop3`'s immLut is naturally written `0xF0 & 0xCC | 0xAA`, as the spec's own
/// examples compute it, §9.7.9.6).
pub fn imm_u64(op: &ast::Operand) -> Option<u64> {
    match &op.kind {
        ast::OperandKind::Expr(e) => match crate::consts::eval(e) {
            Ok(crate::consts::ConstValue::Int(v)) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

pub fn int_type(t: ScalarType, span: Span, what: &str) -> LResult<()> {
    if ptx_types::is_int(t) {
        Ok(())
    } else {
        Err(Diagnostic::new(format!("`{what}` needs an integer type, found .{}", t.suffix()), span))
    }
}

impl FnLower {
    /// Lowers one instruction (its guard included) into the CFG under construction.
    pub fn instruction(&mut self, inst: &Instruction) -> LResult<()> {
        // (Restored after: an inlined call lowers its callee's instructions inside its own.)
        let outer = self.inst_span.replace(inst.span);
        let outer_reads = std::mem::replace(&mut self.reads_special_registers, matches!(inst.opcode.name.as_str(), "mov" | "cvt"));
        let first_var = self.vars.len() as u32;
        let lowered = self.instruction_unnamed(inst);
        self.reads_special_registers = outer_reads;
        if self.split_int64 {
            // Only a `--split-int64` refusal reads it (`kernel::finish_kernel`).
            self.inst_vars.push((first_var, self.vars.len() as u32, inst.span));
        }
        self.inst_span = outer;
        lowered.map_err(|mut d| {
            if d.message.contains(crate::function::INSTRUCTION) {
                d.message = d.message.replace(crate::function::INSTRUCTION, &format!(" of `{}`", Mods { inst }.name()));
            }
            d
        })
    }

    fn instruction_unnamed(&mut self, inst: &Instruction) -> LResult<()> {
        let op = inst.opcode.name.as_str();
        self.inst_serial += 1;
        if self.warp_loads.record && crate::warp_loads::orders_memory(inst) {
            self.warp_loads.ordering_points.push((self.cur, self.inst_serial));
        }
        // Control transfers shape the CFG themselves, guard included.
        match op {
            "bra" | "ret" | "exit" | "brx" | "trap" => return self.control(inst),
            "bar" | "barrier" => {
                if inst.guard.is_some() {
                    return Err(unsupported("a predicated barrier", inst.span));
                }
                if inst.modifiers.iter().any(|m| m.text == "warp") {
                    return self.bar_warp_sync(inst);
                }
                if inst.modifiers.iter().any(|m| m.text == "red") {
                    return self.bar_red(inst);
                }
                return self.barrier(inst);
            }
            _ => {}
        }
        if self.scheduler && (matches!(op, "shfl" | "vote" | "activemask" | "redux" | "match" | "elect") || mbarrier::waits(inst)) {
            if let Some(g) = &inst.guard {
                // A warp collective (or an `mbarrier` wait) is a point of the CTA barrier
                // scheduler, which ends its block: the guard becomes a branch around it.
                let p = self.read(
                    &ast::Operand { kind: ast::OperandKind::Symbol { name: g.pred.name.clone(), component: None }, span: g.span },
                    ScalarType::Pred,
                )?;
                let (body, join) = (self.new_node(), self.new_node());
                let (t, e) = if g.negated { (join, body) } else { (body, join) };
                self.terminate(crate::cfg::Terminator::Branch { cond: p, then_target: t, else_target: e }, body);
                self.plain(inst)?;
                self.terminate(crate::cfg::Terminator::Jump(join), join);
                return Ok(());
            }
        }
        match &inst.guard {
            None => self.plain(inst),
            Some(g) => {
                let p = self.read(
                    &ast::Operand { kind: ast::OperandKind::Symbol { name: g.pred.name.clone(), component: None }, span: g.span },
                    ScalarType::Pred,
                )?;
                // A warp collective under its guard records it (`meeting`).
                let outer = self.inst_guard.replace((p, g.negated));
                let body = self.collect(|s| s.plain(inst));
                self.inst_guard = outer;
                let body = body?;
                let (t, e) = if g.negated { (ir_block(), body) } else { (body, ir_block()) };
                self.emit_if(p, t, e);
                Ok(())
            }
        }
    }

    fn plain(&mut self, inst: &Instruction) -> LResult<()> {
        if let Some(meant) = self.legacy.rewrite(inst)? {
            return self.plain(&meant);
        }
        let mut exempt = subnormal_exemption(&Mods { inst });
        exempt.f32 |= self.flushed_f32 && flushed::covered(&Mods { inst });
        let outer = std::mem::replace(&mut self.subnormal_exempt, exempt);
        let before = self.subnormals.f32;
        let lowered = self.dispatch(inst);
        self.subnormal_exempt = outer;
        if self.subnormals.f32 && !before && self.f32_subnormal_site.is_none() {
            self.f32_subnormal_site = Some((Mods { inst }.name(), inst.span));
        }
        lowered
    }

    fn dispatch(&mut self, inst: &Instruction) -> LResult<()> {
        if let Some(stripped) = without_cache_hint(inst)? {
            return self.dispatch(&stripped);
        }
        let m = Mods { inst };
        match inst.opcode.name.as_str() {
            "mov" => self.mov(&m),
            "cvta" => self.cvta(&m),
            "setp" => self.setp(&m),
            "selp" => self.selp(&m),
            "add" | "sub" | "mul" | "mad" | "fma" | "div" | "rem" | "min" | "max" | "abs" | "neg" => {
                let types = m.types();
                if types.iter().any(|t| ptx_types::is_float(*t) || ptx_types::is_half(*t)) {
                    self.float_arith(&m)
                } else {
                    self.int_arith(&m)
                }
            }
            "and" | "or" | "xor" | "not" | "cnot" | "shl" | "shr" | "popc" | "clz" | "brev" | "bfe" | "bfi" | "shf" => {
                self.bitwise(&m)
            }
            "prmt" => self.prmt(&m),
            "lop3" => self.lop3(&m),
            "fns" => self.fns(&m),
            "slct" => self.slct(&m),
            "isspacep" => self.isspacep(&m),
            "sqrt" | "rcp" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" | "tanh" | "copysign" | "testp" => {
                self.float_special(&m)
            }
            "cvt" => self.cvt(&m),
            "set" => self.set(&m),
            "mul24" | "mad24" => self.mul24(&m),
            "addc" | "subc" | "madc" => self.carry_arith(&m),
            "sad" => self.sad(&m),
            "bfind" => self.bfind(&m),
            "bmsk" => self.bmsk(&m),
            "szext" => self.szext(&m),
            "dp4a" | "dp2a" => self.dot(&m),
            "ld" | "ldu" => self.ld(&m),
            "st" => self.st(&m),
            "atom" | "red" => self.atom(&m),
            // A breakpoint only matters under a debugger.
            "brkpt" => m.only(&[]),
            // §9.7.19.3: triggers performance monitor events, which only host-programmed
            // counters see: nothing here. The operand is an immediate event index 0..15, or
            // with `.mask` a 16-bit mask.
            "pmevent" => {
                m.only(&["mask"])?;
                let [a] = operands(inst, 1)? else { unreachable!() };
                let limit = if m.has("mask") { 0xffff } else { 15 };
                match &a.kind {
                    ptxcross_frontend::ast::OperandKind::Expr(e) if matches!(crate::consts::eval(e), Ok(crate::consts::ConstValue::Int(v)) if v <= limit) => Ok(()),
                    _ => Err(Diagnostic::new(format!("`{}` takes an immediate from 0 to {limit} (§9.7.19.3)", m.name()), a.span)),
                }
            }
            "shfl" => self.shfl(&m),
            "vote" => self.vote(&m),
            "activemask" => self.activemask(&m),
            "redux" => self.redux(&m),
            "match" => self.match_sync(&m),
            "elect" => self.elect(&m),
            "cp" if m.has("mbarrier") => self.cp_async_mbarrier_arrive(&m),
            "cp" => self.cp_async(&m),
            "mbarrier" => self.mbarrier(&m),
            "fence" if m.has("mbarrier_init") => self.fence_mbarrier_init(&m),
            "ldmatrix" => self.ldmatrix(&m),
            "stmatrix" => self.stmatrix(&m),
            "mma" => self.mma(&m),
            "wmma" => self.wmma(&m),
            "wgmma" => self.wgmma(&m),
            "membar" | "fence" => self.fence(&m),
            "nanosleep" => self.nanosleep(&m),
            "setmaxnreg" => self.setmaxnreg(&m),
            "prefetch" | "prefetchu" => self.prefetch(&m),
            // Cache-residency hints (§9.7.10.15/16): no single-thread effect. `discard` leaves
            // the data unspecified, so leaving it as it is is one allowed outcome.
            "applypriority" | "discard" => {
                m.only(&["global", "L2", "L2::evict_normal"])?;
                operands(inst, 2).map(|_| ())
            }
            "createpolicy" => self.createpolicy(&m),
            "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vmad" | "vset" | "vadd2" | "vsub2"
            | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vset2" | "vadd4" | "vsub4" | "vavrg4" | "vabsdiff4"
            | "vmin4" | "vmax4" | "vset4" => self.video(&m),
            "mapa" | "getctarank" => self.cluster_address(&m),
            "tex" => self.tex(&m),
            "txq" => self.txq(&m),
            "suld" => self.surface(&m, true),
            "sust" => self.surface(&m, false),
            _ => Err(unsupported(format!("instruction `{}`", m.name()), inst.span)),
        }
    }
}

/// The float formats whose subnormals cannot change what instruction `m` computes, even where
/// its IR does float arithmetic in that format:
/// - f32 under `.ftz`: the rules flush every f32 operand (to normal or zero) and every f32
///   result (a subnormal result becomes the zero of its sign, which is what a flushing device
///   gives too; add/sub results that are subnormal are exact, and `mul.ftz`'s tininess is
///   decided on the exact f64 product, `fma.ftz`/`div`/`sqrt`/`rcp` on bits and in f64).
/// - f32 in an instruction with no f32-valued type (f32, bf16, bf16x2, tf32): its f32 values
///   are exact widenings of f16 (normal in f32: f16's least subnormal is 2^-24) or integers.
/// - f64 in an instruction with no f64 type: its f64 values are exact widenings of narrower
///   formats, their products and rounded-to-odd sums and exact residuals, all of magnitude
///   zero or at least 2^-149·2^-149·2^-53, far above f64's least normal 2^-1022.
/// - every format in `cvt.rzi`/`cvt.rni` to an integer type: a subnormal rounds to 0 toward
///   zero and to nearest, and so does the zero a flushing device makes of it (`.rmi`/`.rpi`
///   of a negative/positive subnormal give -1/1, so they are not exempt).
fn subnormal_exemption(m: &Mods) -> crate::function::SubnormalUse {
    let types = m.types();
    let to_int_toward_zero_or_nearest = m.inst.opcode.name == "cvt"
        && (m.has("rzi") || m.has("rni"))
        && types.first().is_some_and(|&t| crate::ptx_types::is_int(t));
    if to_int_toward_zero_or_nearest {
        return crate::function::SubnormalUse { f32: true, f64: true };
    }
    let f32_valued =
        types.iter().any(|t| matches!(t, ScalarType::F32 | ScalarType::Bf16 | ScalarType::Bf16x2 | ScalarType::Tf32));
    crate::function::SubnormalUse {
        f32: m.has("ftz") || !f32_valued,
        f64: !types.contains(&ScalarType::F64),
    }
}

/// `inst` without its `.L2::cache_hint` qualifier and the cache-policy operand that comes with
/// it (the last one), or `None` when it has none: a cache policy is a hint (§9.7.10.2), read
/// nowhere else. The policy operand must still be a register or an immediate.
fn without_cache_hint(inst: &Instruction) -> LResult<Option<Instruction>> {
    if !inst.modifiers.iter().any(|m| m.text == "L2::cache_hint") {
        return Ok(None);
    }
    if !matches!(inst.opcode.name.as_str(), "ld" | "st" | "ldu" | "prefetch" | "atom" | "red") {
        return Err(unsupported(format!("`.L2::cache_hint` on `{}`", inst.opcode.name), inst.span));
    }
    let mut s = inst.clone();
    s.modifiers.retain(|m| m.text != "L2::cache_hint");
    match s.operands.pop() {
        Some(ast::Operand { kind: ast::OperandKind::Symbol { .. } | ast::OperandKind::Expr(_), .. }) => Ok(Some(s)),
        _ => Err(Diagnostic::new("`.L2::cache_hint` needs a cache-policy operand", inst.span)),
    }
}

fn ir_block() -> crate::ir::Block {
    crate::ir::Block::new()
}
