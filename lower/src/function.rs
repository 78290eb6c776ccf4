//! Lowering of one kernel body: symbols and scopes, the CFG under construction, IR emission
//! helpers, and the PTX operand rules (reading registers of one declared type as another).

use crate::cfg::{BasicBlock, Cfg, NodeId, Terminator};
use crate::consts::{eval, ConstValue};
use crate::ir::*;
use crate::operand_types::{self, Check, Misfit};
use crate::outline;
use crate::ptx_types::{self, value_ty};
use ptxcross_frontend::ast::{self, OperandKind, ScalarType, Span};
use ptxcross_frontend::Diagnostic;
use std::collections::HashMap;

/// Names visible in one scope. Fx-hashed: every operand of every instruction is looked up
/// here (SipHash of the names was ~1% of translating the CUB file). Never iterated in an
/// order that reaches the output. Keys are [`Name`](ptxcross_frontend::ast::Name)s: a
/// register's name fits inline, so declaring `%r<N>` allocates nothing per register.
pub type Scope = rustc_hash::FxHashMap<ptxcross_frontend::ast::Name, Symbol>;

pub type LResult<T> = Result<T, Diagnostic>;

pub fn unsupported(what: impl std::fmt::Display, span: Span) -> Diagnostic {
    Diagnostic::new(format!("not supported yet: {what}"), span)
}

/// A form the spec does not have: the PTX's bug, not a gap of ours (see [`unsupported`]).
/// `WARP_SZ` as the integer literal it is: "a run-time immediate constant" (§2.2.1), an
/// operand wherever an integer literal is (ptxas: `mov.pred`, `mov.b128`, not `mov.f32`), and
/// 32 on every NVIDIA GPU.
pub fn warp_sz_literal(op: &ast::Operand) -> Option<ast::Operand> {
    match &op.kind {
        OperandKind::Symbol { name, component: None } if name.as_str() == "WARP_SZ" => Some(ast::Operand {
            kind: OperandKind::Expr(ast::Expr::Int { value: 32, unsigned_suffix: false, span: op.span }),
            span: op.span,
        }),
        _ => None,
    }
}

pub fn invalid(what: impl std::fmt::Display, span: Span) -> Diagnostic {
    Diagnostic::new(format!("invalid: {what}"), span)
}

/// What a name in a kernel body refers to.
#[derive(Clone, Debug)]
pub enum Symbol {
    Reg { var: VarId, ty: ScalarType },
    /// Byte offset in the CTA's shared array.
    Shared { offset: u32 },
    /// Byte offset in the thread's local array. `call_site`: a `.param` variable declared in a
    /// body, which only passes a call's arguments or returns (§7.1); a function's own
    /// formals and `.local` variables are not.
    Local { offset: u32, call_site: bool },
    /// Byte offset in the parameter buffer (header included).
    Param { offset: u32 },
    /// Byte offset in the module's globals segment.
    Global { offset: u64 },
    /// A device function (`mov.u64 %rd, f;` takes its address): its index in the module's
    /// function table, `None` for a `.extern` declaration without a definition.
    Function { index: Option<usize>, name: String },
}

/// Where an address points after the state space of the access is applied.
#[derive(Clone, Copy, Debug)]
pub enum Space {
    Global,
    Shared,
    Local,
    /// `.param` / `.param::func`: in a kernel's body its parameters, in a device function its own.
    Param,
    /// `.param::entry` (§9.7.10.8): kernel parameters, wherever the access is.
    ParamEntry,
    Const,
    Generic,
}

pub struct FnLower {
    pub address_size: u32,
    pub block: [u32; 3],
    pub vars: Vec<VarInfo>,
    pub scopes: Vec<Scope>,
    pub blocks: Vec<BasicBlock>,
    pub cur: NodeId,
    /// Statement buffers: the bottom one is the current block's; predication pushes more.
    pub emit_stack: Vec<Vec<Stmt>>,
    /// How many statements [`FnLower::prepend_to_entry`] has put at the entry block's start
    /// (`fault_site` moves its insertion point in that block by the ones an instruction added).
    pub entry_prepended: usize,
    pub labels: HashMap<String, NodeId>,
    /// `.branchtargets` lists by their label (`ts: .branchtargets L1, L2;`), for `brx.idx`.
    pub branch_targets: HashMap<String, Vec<String>>,
    /// Barriers (block, span) for the SIMT check.
    pub barriers: Vec<(NodeId, Span)>,
    pub shared_bytes: u32,
    pub local_bytes: u32,
    pub has_shared: bool,
    pub has_local: bool,
    pub globals_base: Option<VarId>,
    /// See [`FnLower::heap_base_hi`].
    heap_base: Option<VarId>,
    /// See [`FnLower::heap_limit`], by `k`.
    heap_limits: [Option<VarId>; 2],
    /// `LowerOptions::segment_slots` (0: one segment).
    pub segment_slots: u32,
    /// Word of the parameter buffer after the parameter area (where slot numbers start).
    pub param_bytes: u32,
    /// Per slot ≥ 1: its segment base's high word and its index limits by `k` (see
    /// [`FnLower::slot_base_hi`], [`FnLower::heap_limit_of`]).
    slot_cache: HashMap<(u8, u8), VarId>,
    /// Segment offsets of the `.global`/`.const` variables declared inside function bodies,
    /// by the source offset of their names (`layout::GlobalPlace::declared_at`).
    pub body_globals: HashMap<u32, u64>,
    /// Where the module's `.const` variables lie in the globals segment (offset, length):
    /// they are laid out together, so `isspacep.const` is one range test.
    pub const_window: Option<(u64, u64)>,
    /// The module takes generic addresses of kernel parameters (`cvta.param`): generic
    /// accesses and `isspacep` also test the parameter window (`abi::PARAM_WINDOW_BASE`).
    pub has_param_window: bool,
    /// See [`FnLower::opaque_zero_u64`].
    opaque_zero: Option<VarId>,
    /// See `LowerOptions::native_fma`.
    pub native_fma: bool,
    /// See `LowerOptions::native_fma_guarded`.
    pub native_fma_guarded: bool,
    /// The target has no 64-bit floats (`LowerOptions::no_float64`, `split_int64`): emulations that would
    /// compute in f64 use integers instead.
    pub no_float64: bool,
    /// `LowerOptions::split_int64`: 64-bit values are split into halves after lowering.
    pub split_int64: bool,
    /// See `LowerOptions::flushed_f32` and `inst::flushed`: f32 comparisons, min/max, neg/abs,
    /// rounding to integral and f32 ↔ f64 conversions are emitted exact on a flushing device.
    pub flushed_f32: bool,
    /// What the module's target and ISA version change in instructions (`inst::legacy`).
    pub legacy: crate::inst::legacy::Legacy,
    /// The first instruction whose f32 results depend on the target keeping subnormals (its
    /// name and place), for the host's refusal.
    pub f32_subnormal_site: Option<(String, Span)>,
    /// The instruction being lowered, and the first one that emitted a `Stmt::Fence` (the WGSL
    /// backend, which cannot express a fence, names it when it refuses the kernel).
    pub inst_span: Option<Span>,
    pub fence_site: Option<Span>,
    /// The first strong 16-byte `ld`/`st`, which runs under a lock (`wide_lock`): the WGSL
    /// backend names it when it refuses the kernel.
    pub wide_lock_site: Option<Span>,
    /// The instruction being lowered may read special registers (`mov` and `cvt`, see
    /// `operand_types::special_register_fits`).
    pub reads_special_registers: bool,
    /// Under `no_float64`: the first instruction that assigned a value needing 64-bit floats
    /// (the host's `--no-float64` refusal names it).
    pub float64_site: Option<Span>,
    /// Per instruction lowered: the variables it created (`first..end`) and its span (a
    /// `--split-int64` refusal names the instruction whose temporary it could not split; kept
    /// under `split_int64` only).
    pub inst_vars: Vec<(u32, u32, Span)>,
    /// Where `ret` goes: `None` in a kernel (the thread finishes); inside a device function,
    /// the call site's continuation (inlined) or the function's epilogue (stack-called).
    pub ret_target: Option<NodeId>,
    /// Frame base (byte offset in local memory) of the stack-called function being lowered:
    /// `Symbol::Local` offsets are relative to it. `None`: they are absolute.
    pub frame_base: Option<VarId>,
    /// Next free byte of the current frame's local area (inlined callees allocate there).
    pub local_cursor: u32,
    /// High-water mark of the current frame's local area.
    pub frame_bytes: u32,
    /// Names of the registers some instruction of the kernel reads (to find dead results).
    pub read_regs: rustc_hash::FxHashSet<String>,
    /// First shared word of the warp-collective scratch (see `inst::warp`), once created.
    pub warp_scratch: Option<u32>,
    /// First word of the warp matrix instructions' exchange scratch (see
    /// `inst::warp::FnLower::warp_exchange`), once created: in shared memory, or with
    /// `exchange_in_scratch` word 0 of the block's words in the scratch buffer.
    pub matrix_scratch: Option<u32>,
    /// The warp matrix exchange goes through the scratch buffer (`Memory::Scratch`, the
    /// block's own words) instead of shared memory: set when shared memory cannot hold it
    /// (`LowerOptions::max_shared_bytes`).
    pub exchange_in_scratch: bool,
    /// The last emulated warp matrix exchange lowered, while the next one may still drop its
    /// trailing barrier (`inst::warp`, `warp_exchange`).
    pub(crate) last_exchange: Option<crate::inst::ExchangeMark>,
    /// Word index of the warp collectives' meeting check words (`inst::warp`: per warp, the
    /// lanes executing the current collective, then the lanes owed to an earlier one).
    pub meet_scratch: Option<u32>,
    /// Emit the meeting check at the waiting warp collectives (`FnLower::meet_check`): set
    /// where the static proof (`meeting`) could not show that no check can fire.
    pub meet_checks: bool,
    /// The waiting warp collectives lowered so far (outside the scheduler), for `meeting`.
    pub collective_sites: Vec<crate::meeting::Site>,
    /// Their results that are the same in every lane executing them together.
    pub warp_results: Vec<crate::meeting::WarpResult>,
    /// Variables holding a value that is the same in every thread of the CTA that reads it
    /// (`bar.red`'s reduction), for `meeting`.
    pub cta_results: Vec<VarId>,
    /// Variables holding an `activemask` result (the lanes of the warp running that block
    /// together), for `meeting` (`Site::member_is_active`).
    pub active_masks: Vec<VarId>,
    /// Global loads that may be broadcast from one lane of the warp, and those that are
    /// (`warp_loads`).
    pub warp_loads: crate::warp_loads::WarpLoads,
    /// Instructions lowered so far (`FnLower::instruction`), and the block and number of the
    /// last full-CTA `bar.sync` lowered outside the scheduler: `ld.shared` right after it reads
    /// one value in every thread (`FnLower::ld`).
    pub inst_serial: u64,
    pub cta_barrier_at: Option<(NodeId, u64)>,
    /// Give such loads their second barrier (a kernel outside the scheduler, in a module with
    /// waiting warp collectives).
    pub uniform_shared_loads: bool,
    /// The guard of the instruction being lowered inside its own `if` (see
    /// `FnLower::instruction`), and whether it is negated (`@!p`), for `collective_sites`.
    pub inst_guard: Option<(Operand, bool)>,
    /// Emit warp collectives as native subgroup operations (`LowerOptions::native_warps`).
    pub native_warps: bool,
    /// Some native warp collective was emitted (the kernel gets the layout check).
    pub used_native_warps: bool,
    /// See `fault_site`.
    pub fault_site_var: Option<VarId>,
    pub fault_sites: Vec<crate::fault_site::PendingSite>,
    /// Whether some emitted operation's result depends on the target keeping f32 / f64
    /// subnormals (becomes `Features::f32_subnormals` / `f64_subnormals`).
    pub subnormals: SubnormalUse,
    /// Formats whose subnormals cannot matter to the instruction being lowered (see
    /// `inst::subnormal_exemption`); nothing is exempt outside instructions.
    pub subnormal_exempt: SubnormalUse,
    /// `%dynamic_smem_size` and `%total_smem_size` (see `kernel.rs`).
    pub smem_sizes: (u32, u32),
    /// The kernel directive that asks for a cluster launch (`.reqnctapercluster`,
    /// `.explicitcluster`, `.maxclusterrank`): the cluster registers then refuse, since a
    /// launch here is never a cluster launch.
    pub cluster_directive: Option<String>,
    /// The per-thread counter behind `%clock`, `%clock64` and `%globaltimer`, once created.
    clock: Option<VarId>,
    /// `%gridid`, read once from the parameter header.
    grid_id: Option<VarId>,
    /// Lower every `bar`/`barrier` as a point of the CTA barrier scheduler (see `scheduler`):
    /// set for kernels whose barriers a workgroup barrier cannot express.
    pub scheduler: bool,
    /// Today's lowering (`scheduler` false) met a barrier that only the scheduler translates
    /// (`bar.arrive`, an immediate thread count naming fewer warps than the CTA): its span.
    pub needs_scheduler: Option<Span>,
    /// Today's lowering met a thread count held in a register (run-time checked there).
    pub register_count: bool,
    /// The scheduler's barrier points (scheduler mode).
    pub sched: crate::scheduler::Points,
    /// The CFG's entry block (the scheduler's loop starts in a block of its own).
    pub entry: NodeId,
    /// Emit long expansions once as functions ([`FnLower::outlined`]).
    pub outline: bool,
    /// The kernel's functions so far (`ir::Kernel::functions`).
    pub functions: Vec<crate::ir::Function>,
    /// The functions by their key: index, the subnormal use of their operations, and whether
    /// they take the opaque zero as a last argument.
    outlined_keys: HashMap<String, (u32, SubnormalUse, bool)>,
    /// While a function's body is being built: its opaque-zero parameter, once asked for.
    capture: Option<Option<VarId>>,
    /// The formats of the kernel's `printf` calls (`ir::Kernel::printf`).
    pub printf_formats: Vec<crate::printf::Format>,
}

/// A pair of flags, one per float format that a device may flush.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubnormalUse {
    pub f32: bool,
    pub f64: bool,
}

impl FnLower {
    pub fn new(address_size: u32, block: [u32; 3]) -> FnLower {
        FnLower {
            address_size,
            block,
            vars: Vec::new(),
            scopes: vec![Scope::default()],
            blocks: vec![BasicBlock { stmts: vec![], term: Terminator::Return }],
            cur: 0,
            emit_stack: vec![Vec::new()],
            entry_prepended: 0,
            labels: HashMap::new(),
            branch_targets: HashMap::new(),
            barriers: Vec::new(),
            shared_bytes: 0,
            local_bytes: 0,
            has_shared: false,
            has_local: false,
            globals_base: None,
            heap_base: None,
            heap_limits: [None; 2],
            segment_slots: 0,
            param_bytes: 0,
            slot_cache: HashMap::new(),
            body_globals: HashMap::new(),
            const_window: None,
            has_param_window: false,
            opaque_zero: None,
            native_fma: false,
            native_fma_guarded: false,
            no_float64: false,
            split_int64: false,
            flushed_f32: false,
            legacy: Default::default(),
            f32_subnormal_site: None,
            inst_span: None,
            fence_site: None,
            wide_lock_site: None,
            reads_special_registers: false,
            float64_site: None,
            inst_vars: Vec::new(),
            ret_target: None,
            frame_base: None,
            local_cursor: 0,
            frame_bytes: 0,
            read_regs: Default::default(),
            warp_scratch: None,
            matrix_scratch: None,
            exchange_in_scratch: false,
            last_exchange: None,
            meet_scratch: None,
            meet_checks: false,
            collective_sites: Vec::new(),
            warp_results: Vec::new(),
            cta_results: Vec::new(),
            active_masks: Vec::new(),
            warp_loads: Default::default(),
            inst_serial: 0,
            cta_barrier_at: None,
            uniform_shared_loads: false,
            inst_guard: None,
            native_warps: false,
            used_native_warps: false,
            fault_site_var: None,
            fault_sites: Vec::new(),
            subnormals: SubnormalUse::default(),
            subnormal_exempt: SubnormalUse::default(),
            smem_sizes: (0, 0),
            cluster_directive: None,
            clock: None,
            grid_id: None,
            scheduler: false,
            needs_scheduler: None,
            register_count: false,
            sched: Default::default(),
            entry: 0,
            outline: false,
            functions: Vec::new(),
            outlined_keys: HashMap::new(),
            capture: None,
            printf_formats: Vec::new(),
        }
    }
}

impl FnLower {
    pub fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    pub fn declare(&mut self, name: impl Into<ptxcross_frontend::ast::Name>, sym: Symbol) {
        self.scopes.last_mut().expect("scope").insert(name.into(), sym);
    }

    pub fn new_var(&mut self, ty: Ty, name: &str) -> VarId {
        self.vars.push(VarInfo { ty, name: name.into() });
        VarId(self.vars.len() as u32 - 1)
    }

    // ---- CFG construction -------------------------------------------------------------

    pub fn new_node(&mut self) -> NodeId {
        self.blocks.push(BasicBlock { stmts: vec![], term: Terminator::Return });
        self.blocks.len() - 1
    }

    pub fn label_node(&mut self, name: &str) -> NodeId {
        if let Some(&n) = self.labels.get(name) {
            return n;
        }
        let n = self.new_node();
        self.labels.insert(name.to_string(), n);
        n
    }

    /// Ends the current block with `term` and continues in `next`.
    pub fn terminate(&mut self, term: Terminator, next: NodeId) {
        debug_assert_eq!(self.emit_stack.len(), 1);
        // Moved out at its length, the buffer kept for the next block: a block's statements
        // no longer grow from nothing, one reallocation at a time.
        let stmts: Vec<Stmt> = self.emit_stack[0].drain(..).collect();
        self.blocks[self.cur].stmts = stmts;
        self.blocks[self.cur].term = term;
        self.cur = next;
    }

    pub fn into_cfg(mut self) -> (Cfg, Vec<VarInfo>, Vec<(NodeId, Span)>) {
        let next = self.new_node();
        self.terminate(Terminator::Return, next);
        (Cfg { blocks: self.blocks, entry: self.entry }, self.vars, self.barriers)
    }

    // ---- Emission ------------------------------------------------------------------------

    /// Appends a block made by [`FnLower::collect`] (its statements already went through
    /// [`FnLower::push`]'s bookkeeping there).
    pub fn push_block(&mut self, b: Block) {
        self.emit_stack.last_mut().expect("emit stack").extend(b.stmts);
    }

    pub fn push(&mut self, s: Stmt) {
        if matches!(s, Stmt::Fence { .. }) && self.fence_site.is_none() {
            self.fence_site = self.inst_span;
        }
        if self.no_float64 && self.float64_site.is_none() {
            if let Stmt::Assign { dst, expr } = &s {
                if crate::features::needs_float64(self.vars[dst.0 as usize].ty, expr) {
                    self.float64_site = self.inst_span;
                }
            }
        }
        self.emit_stack.last_mut().expect("emit stack").push(s);
    }

    /// Emits `expr` into a fresh temporary of type `ty` (constant-folding the simple cases).
    pub fn value(&mut self, ty: Ty, expr: Expr) -> Operand {
        if let Some(c) = fold(&expr) {
            return Operand::Const(c);
        }
        if let Expr::Use(o) = expr {
            return o;
        }
        let (f32_use, f64_use) = crate::features::subnormal_use(&expr);
        self.subnormals.f32 |= f32_use && !self.subnormal_exempt.f32;
        self.subnormals.f64 |= f64_use && !self.subnormal_exempt.f64;
        let v = self.new_var(ty, "t");
        self.push(Stmt::Assign { dst: v, expr });
        Operand::Var(v)
    }

    pub fn bin(&mut self, op: BinaryOp, ty: Ty, lhs: Operand, rhs: Operand) -> Operand {
        if self.flushed_f32 && ty == Ty::F32 && matches!(op, BinaryOp::FMin | BinaryOp::FMax) {
            return self.f32_min_max_exact(op == BinaryOp::FMin, lhs, rhs);
        }
        self.value(ty, Expr::Binary { op, ty, lhs, rhs })
    }
    pub fn un(&mut self, op: UnaryOp, ty: Ty, arg: Operand) -> Operand {
        if self.flushed_f32 && ty == Ty::F32 {
            // Exact on a target that flushes f32 subnormals (`inst::flushed`).
            match op {
                UnaryOp::FNeg | UnaryOp::FAbs => return self.f32_sign_exact(op, arg),
                UnaryOp::FFloor | UnaryOp::FCeil | UnaryOp::FTrunc | UnaryOp::FRoundEven => {
                    return self.f32_round_integral_exact(op, arg)
                }
                _ => {}
            }
        }
        let rty = if matches!(op, UnaryOp::Popcount | UnaryOp::CountLeadingZeros) { Ty::U32 } else { ty };
        self.value(rty, Expr::Unary { op, ty, arg })
    }
    pub fn cmp(&mut self, op: CmpOp, ty: Ty, lhs: Operand, rhs: Operand) -> Operand {
        if self.flushed_f32 && ty == Ty::F32 && matches!(op, CmpOp::FEq | CmpOp::FNe | CmpOp::FLt | CmpOp::FLe | CmpOp::FGt | CmpOp::FGe) {
            return self.f32_compare_exact(op, lhs, rhs);
        }
        let (lhs, rhs) = self.hide_wide_compare_constant(op, ty, lhs, rhs);
        self.value(Ty::Bool, Expr::Compare { op, ty, lhs, rhs })
    }

    /// lavapipe (Mesa 22.3.6, Debian 12) miscompiles a 64-bit ordering comparison of a
    /// sign-extended 32-bit value with a constant, on both backends: `cvt.s64.s32 %rd, %r;
    /// setp.lt.s64 %p, %rd, 0` is false for negative `%r` (and `< 5` for every value), while the
    /// same comparison with a run-time zero is right. Found by the differential tester
    /// (tests/differential/open/cvt-s64-compare-1000001). So the constant of a 64-bit ordering
    /// comparison is XOR-ed with the parameter header's zero word (`abi::PARAM_ZERO_WORD`),
    /// which no compiler can know: the driver never sees the pattern it folds wrongly.
    fn hide_wide_compare_constant(&mut self, op: CmpOp, ty: Ty, lhs: Operand, rhs: Operand) -> (Operand, Operand) {
        use CmpOp::*;
        let ordering = matches!(op, LtU | LeU | GtU | GeU | LtS | LeS | GtS | GeS);
        let is_const = |o: Operand| matches!(o, Operand::Const(_));
        if ty != Ty::U64 || !ordering || is_const(lhs) == is_const(rhs) {
            return (lhs, rhs);
        }
        let zero = self.opaque_zero_u64();
        if is_const(lhs) {
            (self.bin(BinaryOp::Xor, Ty::U64, lhs, zero), rhs)
        } else {
            (lhs, self.bin(BinaryOp::Xor, Ty::U64, rhs, zero))
        }
    }
    pub fn select(&mut self, ty: Ty, cond: Operand, a: Operand, b: Operand) -> Operand {
        if a == b {
            return a;
        }
        if let Operand::Const(Const::Bool(c)) = cond {
            return if c { a } else { b };
        }
        self.value(ty, Expr::Select { ty, cond, a, b })
    }
    pub fn convert(&mut self, op: ConvertOp, from: Ty, to: Ty, arg: Operand) -> Operand {
        if from == to && op == ConvertOp::Bitcast {
            return arg;
        }
        if self.flushed_f32 && op == ConvertOp::FloatToFloat {
            match (from, to) {
                (Ty::F32, Ty::F64) => return self.f32_widen_exact(arg),
                (Ty::F64, Ty::F32) => return self.f32_narrow_exact(arg),
                _ => {}
            }
        }
        self.value(to, Expr::Convert { op, from, to, arg })
    }
    pub fn u32c(v: u32) -> Operand {
        Operand::Const(Const::U32(v))
    }
    pub fn u64c(v: u64) -> Operand {
        Operand::Const(Const::U64(v))
    }
    pub fn int_const(ty: Ty, v: u64) -> Operand {
        match ty {
            Ty::U64 => Self::u64c(v),
            _ => Self::u32c(v as u32),
        }
    }
    pub fn assign(&mut self, dst: VarId, expr: Expr) {
        self.push(Stmt::Assign { dst, expr });
    }

    /// `f(args)`, a long expansion of one rule, as a call of a function of the kernel that
    /// computes it (built by `f` on the first use of `what` with these argument types and
    /// constants, see `ir::Function`) — or inline, where outlining is off, inside another
    /// function, when every argument is a constant (it may fold), or when `f` emits anything
    /// but pure arithmetic (it stays as emitted: nothing of the attempt is kept).
    ///
    /// Constant arguments are part of the function (a function per constant): the driver
    /// and `misread_constants` see them where they are used, as in inlined code. `what` must
    /// name everything else `f` depends on (modes, flags of the instruction).
    pub fn outlined(&mut self, what: &str, args: &[Operand], arg_tys: &[Ty], ret: Ty, f: impl Fn(&mut Self, &[Operand]) -> Operand) -> Operand {
        // Without 64-bit integers (`split_int64`), a call's values must not need splitting.
        let wide = |t: &Ty| matches!(t, Ty::U64 | Ty::F64);
        let split = self.split_int64 && (arg_tys.iter().any(wide) || wide(&ret));
        if !self.outline || self.capture.is_some() || split || args.iter().all(|a| matches!(a, Operand::Const(_))) {
            return f(self, args);
        }
        let mut key = what.to_string();
        for (a, t) in args.iter().zip(arg_tys) {
            match a {
                Operand::Const(c) => key += &format!(",{:x}", c.bits()),
                Operand::Var(_) => key += &format!(",{t:?}"),
            }
        }
        // The instruction's subnormal exemption decides what its operations report.
        key += &format!(",x{}{}", self.subnormal_exempt.f32 as u8, self.subnormal_exempt.f64 as u8);
        if let Some(&(func, sub, zero)) = self.outlined_keys.get(&key) {
            return self.call_outlined(func, sub, zero, args, ret);
        }
        let mark = self.vars.len();
        let saved_subnormals = std::mem::take(&mut self.subnormals);
        self.capture = Some(None);
        self.emit_stack.push(Vec::new());
        let mut params = Vec::new();
        let inner: Vec<Operand> = args
            .iter()
            .zip(arg_tys)
            .map(|(&a, &t)| match a {
                Operand::Const(_) => a,
                Operand::Var(_) => {
                    let p = self.new_var(t, "arg");
                    params.push(p);
                    Operand::Var(p)
                }
            })
            .collect();
        let result = f(self, &inner);
        let stmts = self.emit_stack.pop().unwrap_or_default();
        let zero = self.capture.take().flatten();
        let sub = std::mem::replace(&mut self.subnormals, saved_subnormals);
        params.extend(zero);
        let vars = self.vars.split_off(mark.min(self.vars.len()));
        let func = outline::function(key.clone(), vars, mark as u32, params, stmts, result, ret);
        match func {
            Some(func) => {
                let id = self.functions.len() as u32;
                self.functions.push(func);
                self.outlined_keys.insert(key, (id, sub, zero.is_some()));
                self.call_outlined(id, sub, zero.is_some(), args, ret)
            }
            None => f(self, args),
        }
    }

    fn call_outlined(&mut self, func: u32, sub: SubnormalUse, zero: bool, args: &[Operand], ret: Ty) -> Operand {
        self.subnormals.f32 |= sub.f32;
        self.subnormals.f64 |= sub.f64;
        let mut args: Vec<Operand> = args.iter().copied().filter(|a| matches!(a, Operand::Var(_))).collect();
        if zero {
            let z = self.opaque_zero_u64();
            let z = self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, z);
            args.push(z);
        }
        let v = self.new_var(ret, "t");
        self.push(Stmt::Assign { dst: v, expr: Expr::Call { func, ty: ret, args } });
        Operand::Var(v)
    }

    /// Runs `f` with its statements collected into a block (for `If` bodies).
    pub fn collect(&mut self, f: impl FnOnce(&mut Self) -> LResult<()>) -> LResult<Block> {
        self.emit_stack.push(Vec::new());
        let r = f(self);
        let stmts = self.emit_stack.pop().expect("emit stack");
        r.map(|_| Block { stmts })
    }

    pub fn emit_if(&mut self, cond: Operand, then_body: Block, else_body: Block) {
        match cond {
            Operand::Const(Const::Bool(true)) => self.emit_stack.last_mut().unwrap().extend(then_body.stmts),
            Operand::Const(Const::Bool(false)) => self.emit_stack.last_mut().unwrap().extend(else_body.stmts),
            _ => self.push(Stmt::If { cond, then_body, else_body }),
        }
    }

    // ---- Integer helpers shared by many instructions ---------------------------------------

    /// Canonical form of a sub-word integer value held in a `U32` (see `ptx_types::value_ty`).
    pub fn canonicalize(&mut self, v: Operand, t: ScalarType) -> Operand {
        let bits = ptx_types::bits(t);
        if bits >= 32 || !ptx_types::is_int(t) {
            return v;
        }
        if ptx_types::is_signed(t) {
            let sh = Self::u32c(32 - bits);
            let l = self.bin(BinaryOp::Shl, Ty::U32, v, sh);
            self.bin(BinaryOp::ShrS, Ty::U32, l, sh)
        } else {
            self.bin(BinaryOp::And, Ty::U32, v, Self::u32c(((1u64 << bits) - 1) as u32))
        }
    }

    /// U32 → U64 or U64 → U32, extending by `signed`.
    pub fn resize(&mut self, v: Operand, from: Ty, to: Ty, signed: bool) -> Operand {
        match (from, to) {
            (a, b) if a == b => v,
            (Ty::U32, Ty::U64) => {
                let op = if signed { ConvertOp::SignExtend } else { ConvertOp::ZeroExtend };
                self.convert(op, Ty::U32, Ty::U64, v)
            }
            (Ty::U64, Ty::U32) => self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, v),
            _ => v,
        }
    }

    // ---- Operands -------------------------------------------------------------------------

    fn special_register(&mut self, name: &str, component: Option<&str>, span: Span) -> LResult<Option<Operand>> {
        let dim = |c: Option<&str>| -> LResult<u8> {
            match c {
                Some("x") => Ok(0),
                Some("y") => Ok(1),
                Some("z") => Ok(2),
                _ => Err(Diagnostic::new(format!("special register `{name}` needs a .x/.y/.z component"), span)),
            }
        };
        // The vector registers' fourth element "is unused and always returns zero" (§10.1,
        // 10.2, 10.6, 10.7, 10.12–10.15).
        const VECTORS: [&str; 8] =
            ["%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid"];
        if component == Some("w") && VECTORS.contains(&name) {
            if self.cluster_directive.is_some() && name.contains("cluster") {
                return Err(unsupported(format!("special register `{name}` in a kernel with cluster launches"), span));
            }
            return Ok(Some(Self::u32c(0)));
        }
        Ok(Some(match name {
            "%tid" => self.value(Ty::U32, Expr::Builtin(Builtin::ThreadId(dim(component)?))),
            "%ctaid" => self.value(Ty::U32, Expr::Builtin(Builtin::CtaId(dim(component)?))),
            "%nctaid" => self.value(Ty::U32, Expr::Builtin(Builtin::NumCtas(dim(component)?))),
            "%ntid" => Self::u32c(self.block[dim(component)? as usize]),
            "WARP_SZ" => Self::u32c(32),
            "%laneid" => {
                let t = self.linear_tid();
                self.bin(BinaryOp::And, Ty::U32, t, Self::u32c(31))
            }
            "%warpid" => {
                let t = self.linear_tid();
                self.bin(BinaryOp::ShrU, Ty::U32, t, Self::u32c(5))
            }
            "%nwarpid" => Self::u32c(self.block.iter().product::<u32>().div_ceil(32)),
            "%lanemask_eq" | "%lanemask_lt" | "%lanemask_le" | "%lanemask_gt" | "%lanemask_ge" => {
                return Ok(self.lanemask(name))
            }
            "%dynamic_smem_size" => Self::u32c(self.smem_sizes.0),
            "%total_smem_size" => Self::u32c(self.smem_sizes.1),
            // §10.8/10.9: ids range over [0, %nsmid) and need not be contiguous; one SM here.
            "%smid" => Self::u32c(0),
            "%nsmid" => Self::u32c(1),
            "%gridid" => self.grid_id(),
            // §10.27: "initialized by the driver … defined in the driver documentation"; CUDA's
            // driver leaves them 0 unless a tool asks for more.
            n if n.strip_prefix("%envreg").and_then(|k| k.parse::<u32>().ok()).is_some_and(|k| k < 32) => Self::u32c(0),
            "%clock" | "%clock_hi" | "%clock64" | "%globaltimer" | "%globaltimer_lo" | "%globaltimer_hi" => {
                let t = self.tick();
                match name {
                    "%clock" | "%globaltimer_lo" => self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, t),
                    "%clock_hi" | "%globaltimer_hi" => {
                        let h = self.bin(BinaryOp::ShrU, Ty::U64, t, Self::u32c(32));
                        self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, h)
                    }
                    _ => t,
                }
            }
            // A launch without clusters: every CTA is a 1-CTA cluster (§10.11–10.17).
            n @ ("%cluster_ctarank" | "%cluster_nctarank" | "%cluster_ctaid" | "%cluster_nctaid" | "%clusterid"
            | "%nclusterid" | "%is_explicit_cluster") => {
                if let Some(d) = &self.cluster_directive {
                    return Err(unsupported(
                        format!("special register `{n}` in a kernel with `.{d}` (cluster launches are not supported)"),
                        span,
                    ));
                }
                match n {
                    "%cluster_ctarank" => Self::u32c(0),
                    "%cluster_nctarank" => Self::u32c(1),
                    "%cluster_ctaid" => {
                        dim(component)?;
                        Self::u32c(0)
                    }
                    "%cluster_nctaid" => {
                        dim(component)?;
                        Self::u32c(1)
                    }
                    "%clusterid" => self.value(Ty::U32, Expr::Builtin(Builtin::CtaId(dim(component)?))),
                    "%nclusterid" => self.value(Ty::U32, Expr::Builtin(Builtin::NumCtas(dim(component)?))),
                    _ => Operand::Const(crate::ir::Const::Bool(false)),
                }
            }
            n if n.starts_with('%')
                && ["%pm0", "%pm1", "%pm2", "%pm3", "%pm4", "%pm5", "%pm6", "%pm7", "%envreg", "%aggr_smem_size", "%reserved_smem_offset", "%current_graph_exec"]
                .iter()
                .any(|s| n.starts_with(s)) =>
            {
                // Why each group has no translation (yet).
                let why = if n.starts_with("%pm") {
                    " (performance counters: \"their behavior is currently undefined\", §10.25)"
                } else if n.starts_with("%envreg") {
                    " (there are 32, %envreg0..%envreg31)"
                } else {
                    ""
                };
                return Err(unsupported(format!("special register `{n}`{why}"), span));
            }
            _ => return Ok(None),
        }))
    }

    /// Linear thread id in the CTA (x fastest), as PTX numbers warps.
    pub fn linear_tid(&mut self) -> Operand {
        let x = self.value(Ty::U32, Expr::Builtin(Builtin::ThreadId(0)));
        if self.block[1] * self.block[2] == 1 {
            return x;
        }
        let y = self.value(Ty::U32, Expr::Builtin(Builtin::ThreadId(1)));
        let z = self.value(Ty::U32, Expr::Builtin(Builtin::ThreadId(2)));
        let zy = self.bin(BinaryOp::Mul, Ty::U32, z, Self::u32c(self.block[1]));
        let zy = self.bin(BinaryOp::Add, Ty::U32, zy, y);
        let r = self.bin(BinaryOp::Mul, Ty::U32, zy, Self::u32c(self.block[0]));
        self.bin(BinaryOp::Add, Ty::U32, r, x)
    }

    /// `%gridid` (u64): the context's launch counter, written by the host into the parameter
    /// header (`abi::PARAM_GRID_ID_WORD`), read once. §10.10: "the temporal grid launch
    /// number for this context".
    fn grid_id(&mut self) -> Operand {
        if let Some(v) = self.grid_id {
            return Operand::Var(v);
        }
        let v = self.new_var(Ty::U64, "%gridid");
        let lo = self.new_var(Ty::U32, "t");
        let hi = self.new_var(Ty::U32, "t");
        let w = crate::abi::PARAM_GRID_ID_WORD;
        let stmts = vec![
            Stmt::Assign { dst: lo, expr: Expr::LoadWord { memory: Memory::Param, index: Self::u32c(w) } },
            Stmt::Assign { dst: hi, expr: Expr::LoadWord { memory: Memory::Param, index: Self::u32c(w + 1) } },
        ];
        let combine = pack64_stmts(v, Operand::Var(lo), Operand::Var(hi), &mut self.vars);
        self.prepend_to_entry(stmts.into_iter().chain(combine).collect());
        self.grid_id = Some(v);
        Operand::Var(v)
    }

    /// One read of `%clock`/`%clock64`/`%globaltimer`: a per-thread u64 counter that starts at
    /// 0 and advances by one at every read, so each thread sees strictly increasing values.
    ///
    /// Why this is honest: §10.23/10.24 define `%clock`/`%clock64` only as "cycle counters
    /// that wrap silently", with no rate, no origin and no relation between threads (on
    /// NVIDIA GPUs they are per-SM counters), and §10.28 leaves `%globaltimer` "unspecified"
    /// when JIT-compiled to other targets. A counter that moves at every read keeps what
    /// programs can rely on: later reads in a thread give larger values (so `clock64() -
    /// start` grows, spin-waits with a deadline end, and the low 32 bits are `%clock`).
    /// Elapsed-time figures computed from it count reads, not cycles or nanoseconds.
    fn tick(&mut self) -> Operand {
        let v = match self.clock {
            Some(v) => v,
            None => {
                let v = self.new_var(Ty::U64, "clock");
                self.prepend_to_entry(vec![Stmt::Assign { dst: v, expr: Expr::Use(Self::u64c(0)) }]);
                self.clock = Some(v);
                v
            }
        };
        let next = self.bin(BinaryOp::Add, Ty::U64, Operand::Var(v), Self::u64c(1));
        self.assign(v, Expr::Use(next));
        next
    }

    /// The globals segment base (u64), read once from the parameter header.
    pub fn globals_base(&mut self) -> Operand {
        if let Some(v) = self.globals_base {
            return Operand::Var(v);
        }
        // Read in the entry block so every later use sees it.
        let v = self.new_var(Ty::U64, "globals segment base");
        let lo = self.new_var(Ty::U32, "t");
        let hi = self.new_var(Ty::U32, "t");
        let w = crate::abi::PARAM_GLOBALS_BASE_WORD;
        let stmts = vec![
            Stmt::Assign { dst: lo, expr: Expr::LoadWord { memory: Memory::Param, index: Self::u32c(w) } },
            Stmt::Assign { dst: hi, expr: Expr::LoadWord { memory: Memory::Param, index: Self::u32c(w + 1) } },
        ];
        let combine = pack64_stmts(v, Operand::Var(lo), Operand::Var(hi), &mut self.vars);
        self.prepend_to_entry(stmts.into_iter().chain(combine).collect());
        self.globals_base = Some(v);
        Operand::Var(v)
    }

    /// The high word of the global address of byte 0 of the heap segment this launch binds
    /// (u32: `(HEAP_BASE + k * SEGMENT_WINDOW) >> 32` for `k` = `abi::PARAM_HEAP_SEGMENT_WORD`;
    /// the low word is 0), computed once at entry.
    pub fn heap_base_hi(&mut self) -> Operand {
        const _: () = assert!(crate::abi::SEGMENT_WINDOW == 1 << 32 && crate::abi::HEAP_BASE.is_multiple_of(1 << 32));
        if let Some(v) = self.heap_base {
            return Operand::Var(v);
        }
        let v = self.new_var(Ty::U32, "heap segment base, high word");
        let k = self.new_var(Ty::U32, "heap segment");
        let index = Self::u32c(crate::abi::PARAM_HEAP_SEGMENT_WORD);
        self.prepend_to_entry(vec![
            Stmt::Assign { dst: k, expr: Expr::LoadWord { memory: Memory::Param, index } },
            Stmt::Assign {
                dst: v,
                expr: Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: k.into(), rhs: Self::u32c((crate::abi::HEAP_BASE >> 32) as u32) },
            },
        ]);
        self.heap_base = Some(v);
        Operand::Var(v)
    }

    /// The high word of segment slot `j`'s base address (slot 0: [`FnLower::heap_base_hi`]),
    /// from its segment number at parameter word `abi::segment_slot_word`, read once at entry.
    pub fn slot_base_hi(&mut self, j: u8) -> Operand {
        if j == 0 {
            return self.heap_base_hi();
        }
        if let Some(&v) = self.slot_cache.get(&(j, u8::MAX)) {
            return Operand::Var(v);
        }
        let k = self.new_var(Ty::U32, "segment slot");
        let v = self.new_var(Ty::U32, "segment slot base, high word");
        let index = Self::u32c(crate::abi::segment_slot_word(j as u32, self.param_bytes));
        self.prepend_to_entry(vec![
            Stmt::Assign { dst: k, expr: Expr::LoadWord { memory: Memory::Param, index } },
            Stmt::Assign {
                dst: v,
                expr: Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: k.into(), rhs: Self::u32c((crate::abi::HEAP_BASE >> 32) as u32) },
            },
        ]);
        self.slot_cache.insert((j, u8::MAX), v);
        Operand::Var(v)
    }

    /// [`FnLower::heap_limit`] of heap memory `mem` ([`Memory::Heap`] or a segment slot).
    pub fn heap_limit_of(&mut self, mem: Memory, k: u32) -> Operand {
        let Memory::Segment(j) = mem else { return self.heap_limit(k) };
        let slot = k.min(1) as u8;
        if let Some(&v) = self.slot_cache.get(&(j, slot)) {
            return Operand::Var(v);
        }
        let v = self.index_limit_at_entry(crate::ir::Builtin::SegmentWords(j), ("segment words", "segment index limit"), slot as u32);
        self.slot_cache.insert((j, slot), v);
        Operand::Var(v)
    }

    /// `max(HeapWords, HEAP_RESERVED_WORDS + k) - (HEAP_RESERVED_WORDS + k)` (u32), computed
    /// once at entry: word index `i` and the `k` words after it are in the heap exactly when
    /// `i - HEAP_RESERVED_WORDS < limit` (unsigned, wrapping; see
    /// `ir::Kernel::heap_indices_in_range`). `k` is 0 or 1.
    pub fn heap_limit(&mut self, k: u32) -> Operand {
        let slot = (k as usize).min(1);
        if let Some(v) = self.heap_limits[slot] {
            return Operand::Var(v);
        }
        let v = self.index_limit_at_entry(crate::ir::Builtin::HeapWords, ("heap words", "heap index limit"), slot as u32);
        self.heap_limits[slot] = Some(v);
        Operand::Var(v)
    }

    /// `max(words, HEAP_RESERVED_WORDS + k) - (HEAP_RESERVED_WORDS + k)` of the word count
    /// `words` (the heap's or a segment slot's), assigned at entry; `names`: the count's and
    /// the limit's variable names.
    fn index_limit_at_entry(&mut self, words: crate::ir::Builtin, names: (&str, &str), k: u32) -> VarId {
        let d = Self::u32c(crate::abi::HEAP_RESERVED_WORDS + k);
        let hw = self.new_var(Ty::U32, names.0);
        let m = self.new_var(Ty::U32, "t");
        let v = self.new_var(Ty::U32, names.1);
        self.prepend_to_entry(vec![
            Stmt::Assign { dst: hw, expr: Expr::Builtin(words) },
            Stmt::Assign { dst: m, expr: Expr::Binary { op: BinaryOp::MaxU, ty: Ty::U32, lhs: hw.into(), rhs: d } },
            Stmt::Assign { dst: v, expr: Expr::Binary { op: BinaryOp::Sub, ty: Ty::U32, lhs: m.into(), rhs: d } },
        ]);
        v
    }

    /// The header's zero word (`abi::PARAM_ZERO_WORD`) as a u64 no compiler can know, read once.
    fn opaque_zero_u64(&mut self) -> Operand {
        if let Some(zero) = self.capture {
            // Inside a function: a 32-bit parameter (never split), the caller passes its own
            // zero's low word; the body widens it where first asked for.
            let v = match zero {
                Some(v) => v,
                None => self.new_var(Ty::U32, "opaque zero"),
            };
            self.capture = Some(Some(v));
            return self.value(Ty::U64, Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: Operand::Var(v) });
        }
        if let Some(v) = self.opaque_zero {
            return Operand::Var(v);
        }
        let v = self.new_var(Ty::U64, "opaque zero");
        let w = self.new_var(Ty::U32, "t");
        let index = Self::u32c(crate::abi::PARAM_ZERO_WORD);
        self.prepend_to_entry(vec![
            Stmt::Assign { dst: w, expr: Expr::LoadWord { memory: Memory::Param, index } },
            Stmt::Assign { dst: v, expr: Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: w.into() } },
        ]);
        self.opaque_zero = Some(v);
        Operand::Var(v)
    }

    /// Puts `stmts` at the start of the entry block, so every later use sees their results.
    pub(crate) fn prepend_to_entry(&mut self, stmts: Vec<Stmt>) {
        self.entry_prepended += stmts.len();
        let entry = if self.cur == 0 { &mut self.emit_stack[0] } else { &mut self.blocks[0].stmts };
        entry.splice(0..0, stmts);
    }

    /// Reads operand `op` as PTX type `t` (the type its instruction gives the slot, checked
    /// against the register's declared type by Table 25, §6.4), giving a value of `value_ty(t)`.
    pub fn read(&mut self, op: &ast::Operand, t: ScalarType) -> LResult<Operand> {
        self.read_checked(op, t, Check::Strict)
    }

    /// Checks that operand `op`, if a register, fits a slot of type `t`, for lowerings that
    /// then read or write it as another type (`mov.f32` moves the bits).
    pub fn check_operand(&self, op: &ast::Operand, t: ScalarType, check: Check) -> LResult<()> {
        if let OperandKind::Symbol { name, component } = &op.kind {
            // No copy of the name for a plain register (`mov`'s destination, on every `mov`).
            let key: std::borrow::Cow<str> = component.as_deref().map_or(name.as_str().into(), |c| vector_element_name(name, c).into());
            if let Some(Symbol::Reg { ty, .. }) = self.lookup(&key) {
                operand_fits(name, *ty, t, check, op.span)?;
            }
        }
        Ok(())
    }

    /// Reads the scalar data operand of `st` or the source of `cvt` as type `t`: a register
    /// wider than `t` is allowed and truncated to `t` (§9.4.1, Table 26).
    pub fn read_relaxed(&mut self, op: &ast::Operand, t: ScalarType) -> LResult<Operand> {
        self.read_checked(op, t, Check::Relaxed)
    }

    pub fn read_checked(&mut self, op: &ast::Operand, t: ScalarType, check: Check) -> LResult<Operand> {
        let want = value_ty(t).ok_or_else(|| unsupported(format!("operands of type .{}", t.suffix()), op.span))?;
        if let Some(lit) = warp_sz_literal(op) {
            return self.read_checked(&lit, t, check);
        }
        match &op.kind {
            OperandKind::Symbol { name, component } => {
                if let Some(v) = self.special_register(name, component.as_deref(), op.span)? {
                    // `WARP_SZ` is a constant, an operand of any instruction.
                    if name.as_str() != "WARP_SZ" {
                        let reg = || component.as_ref().map_or_else(|| name.to_string(), |c| format!("{name}.{c}"));
                        if !self.reads_special_registers {
                            return Err(Diagnostic::new(
                                format!("{OPERAND_MISFIT} special register `{}` is not an operand{INSTRUCTION} (only mov and cvt read special registers)", reg()),
                                op.span,
                            ));
                        }
                        if operand_types::special_register_fits(name, t, check).is_err() {
                            return Err(Diagnostic::new(format!("{OPERAND_MISFIT} special register `{}` is not a .{} operand{INSTRUCTION}", reg(), t.suffix()), op.span));
                        }
                    }
                    let have = self.operand_ty(v);
                    return Ok(self.fit(v, have, want, t));
                }
                // The register's own name is looked up as it is (no copy per read).
                let key: std::borrow::Cow<str> = match component {
                    Some(c) => {
                        let key = vector_element_name(name, c);
                        if self.lookup(&key).is_none() {
                            return Err(Diagnostic::new(format!("`{name}` has no component `.{c}`"), op.span));
                        }
                        key.into()
                    }
                    None => name.as_str().into(),
                };
                match self.lookup(&key).cloned() {
                    Some(Symbol::Reg { var, ty: reg_ty }) => {
                        operand_fits(name, reg_ty, t, check, op.span)?;
                        let have = self.vars[var.index()].ty;
                        if (have == Ty::Bool) != (want == Ty::Bool) {
                            return Err(Diagnostic::new(
                                format!("register `{name}` of type .{} used as .{}", reg_ty.suffix(), t.suffix()),
                                op.span,
                            ));
                        }
                        let v = self.fit(Operand::Var(var), have, want, t);
                        // A sub-word read of a register of another type (e.g. `cvt.s64.s16`
                        // from a `.b32` register) sees only the low bits, extended per `t`
                        // (a half's bits: zero-extended, as `value_ty` holds them).
                        Ok(if reg_ty != t && ptx_types::bits(t) < 32 {
                            if ptx_types::is_int(t) {
                                self.canonicalize(v, t)
                            } else {
                                self.bin(BinaryOp::And, Ty::U32, v, Self::u32c(((1u64 << ptx_types::bits(t)) - 1) as u32))
                            }
                        } else {
                            v
                        })
                    }
                    Some(sym) => {
                        let addr = self.symbol_address(&sym, 0, op.span)?;
                        let aty = self.operand_ty(addr);
                        Ok(self.fit(addr, aty, want, t))
                    }
                    None => Err(Diagnostic::new(format!("unknown identifier `{name}`"), op.span)),
                }
            }
            OperandKind::Expr(e) => {
                if let Ok(v) = eval(e) {
                    if operand_types::literal_fits(&v, t).is_err() {
                        return Err(Diagnostic::new(
                            format!("{OPERAND_MISFIT} {} literal is not a .{} operand{INSTRUCTION}", literal_kind(&v), t.suffix()),
                            op.span,
                        ));
                    }
                }
                self.constant(e, t, op.span)
            }
            OperandKind::Not(inner) if want == Ty::Bool => {
                let v = self.read_checked(inner, t, check)?;
                Ok(self.un(UnaryOp::Not, Ty::Bool, v))
            }
            OperandKind::Not(_) => Err(Diagnostic::new("`!` applies to predicates only", op.span)),
            _ => Err(unsupported("this operand form here", op.span)),
        }
    }

    pub fn operand_ty(&self, o: Operand) -> Ty {
        match o {
            Operand::Var(v) => self.vars[v.index()].ty,
            Operand::Const(c) => c.ty(),
        }
    }

    /// Converts a value held as `have` to `want` per PTX's relaxed operand rules: same-size
    /// bit reinterpretation, truncation of wider registers, extension of narrower ones.
    pub fn fit(&mut self, v: Operand, have: Ty, want: Ty, t: ScalarType) -> Operand {
        if have == want {
            return v;
        }
        match (have, want) {
            (Ty::U32, Ty::F32) | (Ty::F32, Ty::U32) | (Ty::U64, Ty::F64) | (Ty::F64, Ty::U64) => {
                self.convert(ConvertOp::Bitcast, have, want, v)
            }
            (Ty::U64, Ty::U32) => self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, v),
            (Ty::U32, Ty::U64) => {
                let op = if ptx_types::is_signed(t) { ConvertOp::SignExtend } else { ConvertOp::ZeroExtend };
                self.convert(op, Ty::U32, Ty::U64, v)
            }
            (Ty::F64, Ty::U32) => {
                let b = self.convert(ConvertOp::Bitcast, Ty::F64, Ty::U64, v);
                self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, b)
            }
            (Ty::F32, Ty::U64) => {
                let b = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, v);
                self.convert(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, b)
            }
            (Ty::U64, Ty::F32) => {
                let b = self.convert(ConvertOp::Truncate, Ty::U64, Ty::U32, v);
                self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, b)
            }
            (Ty::U32, Ty::F64) => {
                let b = self.convert(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, v);
                self.convert(ConvertOp::Bitcast, Ty::U64, Ty::F64, b)
            }
            _ => v,
        }
    }

    /// A literal or constant expression as PTX type `t`.
    pub fn constant(&mut self, e: &ast::Expr, t: ScalarType, span: Span) -> LResult<Operand> {
        let want = value_ty(t).ok_or_else(|| unsupported(format!("constants of type .{}", t.suffix()), span))?;
        let v = eval(e)?;
        Ok(match (v, want) {
            (ConstValue::Int(i), Ty::U32) => {
                let c = Self::u32c(i as u32);
                self.canonicalize(c, t)
            }
            (ConstValue::Int(i), Ty::U64) => Self::u64c(i),
            (ConstValue::Int(i), Ty::Bool) => Operand::Const(Const::Bool(i != 0)),
            (ConstValue::Int(i), Ty::F32) => Operand::Const(Const::F32((i as i64 as f32).to_bits())),
            (ConstValue::Int(i), Ty::F64) => Operand::Const(Const::F64((i as i64 as f64).to_bits())),
            (ConstValue::F32(b), Ty::F32) => Operand::Const(Const::F32(b)),
            (ConstValue::F32(b), Ty::U32) => Self::u32c(b),
            (ConstValue::F32(b), Ty::F64) => Operand::Const(Const::F64((f32::from_bits(b) as f64).to_bits())),
            (ConstValue::F64(b), Ty::F64) => Operand::Const(Const::F64(b)),
            (ConstValue::F64(b), Ty::U64) => Self::u64c(b),
            // A decimal literal in an f32 instruction is rounded to f32 (nearest even).
            (ConstValue::F64(b), Ty::F32) => Operand::Const(Const::F32((f64::from_bits(b) as f32).to_bits())),
            (ConstValue::Symbol(name, off), _) => {
                let sym = self
                    .lookup(&name)
                    .cloned()
                    .ok_or_else(|| Diagnostic::new(format!("unknown identifier `{name}`"), span))?;
                let a = self.symbol_address(&sym, off, span)?;
                let aty = self.operand_ty(a);
                self.fit(a, aty, want, t)
            }
            (v, _) => {
                return Err(Diagnostic::new(format!("constant {v:?} does not fit type .{}", t.suffix()), span))
            }
        })
    }

    /// The address a variable name denotes when used as a value (`mov.u64 %rd, smem;`):
    /// its address in its own state space (spec §6.4.1), offset by `off`.
    pub fn symbol_address(&mut self, sym: &Symbol, off: i64, span: Span) -> LResult<Operand> {
        let wide = self.address_size == 64;
        let small = |x: u64| if wide { Self::u64c(x) } else { Self::u32c(x as u32) };
        Ok(match sym {
            Symbol::Shared { offset } => small((*offset as i64 + off) as u64),
            Symbol::Local { offset, .. } => {
                let a = self.local_offset(*offset, off);
                if wide {
                    self.resize(a, Ty::U32, Ty::U64, false)
                } else {
                    a
                }
            }
            Symbol::Function { index, name } => {
                let i = index.ok_or_else(|| unresolved_function(name, span))?;
                let a = crate::abi::FUNCTION_ADDRESS_BASE + i as u64;
                small(a)
            }
            Symbol::Global { offset } => {
                let base = self.globals_base();
                let heap_rel = (*offset as i64 + off) as u64;
                self.bin(BinaryOp::Add, Ty::U64, base, Self::u64c(heap_rel))
            }
            // A kernel parameter's address in the param state space: its byte offset in the
            // parameter buffer (header included), which `ld.param [%rd+k]` reads back (see
            // `inst::memory`). Only in the kernel's own body: a device function's `ld.param`
            // through a register reads its own parameters, which live in local memory.
            Symbol::Param { offset } if self.in_kernel_body() => small((*offset as i64 + off) as u64),
            Symbol::Param { .. } => {
                return Err(unsupported("taking the address of a kernel parameter inside a device function", span))
            }
            Symbol::Reg { .. } => return Err(Diagnostic::new("a register has no address", span)),
        })
    }

    /// Whether the code being lowered is the kernel's own (not an inlined or stack-called
    /// device function).
    pub fn in_kernel_body(&self) -> bool {
        self.ret_target.is_none() && self.frame_base.is_none()
    }

    /// Byte offset in local memory of local symbol byte `offset + off`: relative to the frame
    /// base inside a stack-called function, absolute elsewhere.
    pub fn local_offset(&mut self, offset: u32, off: i64) -> Operand {
        let rel = Self::u32c((offset as i64 + off) as u32);
        match self.frame_base {
            Some(fb) => self.bin(BinaryOp::Add, Ty::U32, Operand::Var(fb), rel),
            None => rel,
        }
    }

    /// Writes `value` (of `value_ty(t)`) to destination operand `op`, whose declared type must
    /// fit `t` (Table 25, §6.4).
    pub fn write(&mut self, op: &ast::Operand, t: ScalarType, value: Operand) -> LResult<()> {
        self.write_checked(op, t, value, Check::Strict)
    }

    /// Writes the scalar destination of `ld` or `cvt`: a register wider than `t` is allowed and
    /// gets the value sign-extended for signed `t`, zero-extended otherwise (§9.4.1, Table 27).
    pub fn write_relaxed(&mut self, op: &ast::Operand, t: ScalarType, value: Operand) -> LResult<()> {
        self.write_checked(op, t, value, Check::Relaxed)
    }

    pub fn write_checked(&mut self, op: &ast::Operand, t: ScalarType, value: Operand, check: Check) -> LResult<()> {
        match &op.kind {
            OperandKind::Sink => Ok(()),
            OperandKind::Symbol { name, component } => match self
                .lookup(&component.as_deref().map_or_else(|| name.to_string(), |c| vector_element_name(name, c)))
                .cloned()
            {
                Some(Symbol::Reg { var, ty: reg_ty }) => {
                    operand_fits(name, reg_ty, t, check, op.span)?;
                    let have = self.operand_ty(value);
                    let reg = self.vars[var.index()].ty;
                    if (have == Ty::Bool) != (reg == Ty::Bool) {
                        return Err(Diagnostic::new(
                            format!("cannot write .{} value to register `{name}` of type .{}", t.suffix(), reg_ty.suffix()),
                            op.span,
                        ));
                    }
                    let mut v = self.fit(value, have, reg, t);
                    // Registers narrower than 32 bits keep their canonical form.
                    if ptx_types::bits(reg_ty) < 32 && ptx_types::is_int(reg_ty) {
                        v = self.canonicalize(v, reg_ty);
                    }
                    self.assign(var, Expr::Use(v));
                    // A narrower value in a `.b128` register (its low half is `var`): extended
                    // to the register's width, with the sign for signed types, zeros otherwise
                    // (§9.4.1, Table 27: destinations wider than the type).
                    if reg_ty == ScalarType::B128 && component.is_none() {
                        if let Some((_, hi)) = self.b128_register(name) {
                            let ext = if ptx_types::is_signed(t) {
                                self.bin(crate::ir::BinaryOp::ShrS, Ty::U64, Operand::Var(var), Self::u32c(63))
                            } else {
                                Self::u64c(0)
                            };
                            self.assign(hi, Expr::Use(ext));
                        }
                    }
                    Ok(())
                }
                Some(_) => Err(Diagnostic::new(format!("`{name}` is not a register"), op.span)),
                None => Err(Diagnostic::new(format!("unknown register `{name}`"), op.span)),
            },
            _ => Err(Diagnostic::new("destination must be a register", op.span)),
        }
    }
}

/// The start of every operand-type refusal; `FnLower::instruction` replaces [`INSTRUCTION`] in
/// it by the instruction (`read`/`write` know the slot's type, not the instruction).
pub const OPERAND_MISFIT: &str = "invalid operand:";
pub const INSTRUCTION: &str = "\u{1}instruction\u{1}";

/// Refuses register `name` declared `reg_ty` in a slot of type `t` where it does not fit.
fn operand_fits(name: &str, reg_ty: ScalarType, t: ScalarType, check: Check, span: Span) -> LResult<()> {
    match operand_types::register_fits(reg_ty, t, check) {
        Ok(()) => Ok(()),
        Err(Misfit::Invalid) => Err(Diagnostic::new(
            format!("{OPERAND_MISFIT} register `{name}` declared .{} is not a .{} operand{INSTRUCTION}", reg_ty.suffix(), t.suffix()),
            span,
        )),
        Err(Misfit::Undefined) => Err(unsupported(
            format!(
                "register `{name}` declared .{} as a .{} operand{INSTRUCTION} (ptxas accepts some such uses; PTX defines no meaning for them)",
                reg_ty.suffix(),
                t.suffix()
            ),
            span,
        )),
    }
}

fn literal_kind(v: &ConstValue) -> &'static str {
    match v {
        ConstValue::Int(_) => "an integer",
        ConstValue::F32(_) => "a 32-bit (`0f`) floating-point",
        ConstValue::F64(_) => "a 64-bit (`0d` or decimal) floating-point",
        ConstValue::Symbol(..) => "a symbol",
    }
}

/// The register holding element `c` (`x`/`y`/`z`/`w`, or `r`/`g`/`b`/`a`) of the vector
/// register `name` (`.reg .v4 .f32 %v;` declares `%v.x` … `%v.w`, §5.4.2).
pub fn vector_element_name(name: &str, c: &str) -> String {
    let c = match c {
        "r" => "x",
        "g" => "y",
        "b" => "z",
        "a" => "w",
        c => c,
    };
    format!("{name}.{c}")
}

/// A `.extern` function without a definition in the module: the module needs linking with the
/// one that defines it.
pub fn unresolved_function(name: &str, span: Span) -> Diagnostic {
    // The CUDA device runtime's own functions, which nvcc declares `.extern`.
    let runtime = match name {
        "vprintf" => Some("device-side `printf`"),
        "__assertfail" | "__assert_fail" => Some("device-side `assert`"),
        _ => None,
    };
    if let Some(what) = runtime {
        return unsupported(format!("{what} (a call to the CUDA runtime's `{name}`)"), span);
    }
    Diagnostic::new(
        format!(
            "unresolved `.extern` function `{name}`: it has no definition in this module; link it with the module \
             that defines it (`ptxcross link`, or several `cuLinkAddData` inputs)"
        ),
        span,
    )
}

/// `dst = (hi << 32) | lo` as statements (used where the emit stack is not available).
pub fn pack64_stmts(dst: VarId, lo: Operand, hi: Operand, vars: &mut Vec<VarInfo>) -> Vec<Stmt> {
    let mut new = |name: &str| {
        vars.push(VarInfo { ty: Ty::U64, name: name.into() });
        VarId(vars.len() as u32 - 1)
    };
    let (l, h, hs) = (new("t"), new("t"), new("t"));
    vec![
        Stmt::Assign { dst: l, expr: Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: lo } },
        Stmt::Assign { dst: h, expr: Expr::Convert { op: ConvertOp::ZeroExtend, from: Ty::U32, to: Ty::U64, arg: hi } },
        Stmt::Assign {
            dst: hs,
            expr: Expr::Binary { op: BinaryOp::Shl, ty: Ty::U64, lhs: Operand::Var(h), rhs: Operand::Const(Const::U32(32)) },
        },
        Stmt::Assign {
            dst,
            expr: Expr::Binary { op: BinaryOp::Or, ty: Ty::U64, lhs: Operand::Var(hs), rhs: Operand::Var(l) },
        },
    ]
}

/// Constant folding of the integer cases lowering creates most (address arithmetic).
fn fold(e: &Expr) -> Option<Const> {
    match e {
        Expr::Use(Operand::Const(c)) => Some(*c),
        Expr::Binary { op, ty, lhs: Operand::Const(a), rhs: Operand::Const(b) } if ty.is_int() => {
            let (a, b) = (a.bits(), b.bits());
            let mask = if *ty == Ty::U64 { u64::MAX } else { u32::MAX as u64 };
            let w = ty.bits();
            let r = match op {
                BinaryOp::Add => a.wrapping_add(b),
                BinaryOp::Sub => a.wrapping_sub(b),
                BinaryOp::Mul => a.wrapping_mul(b),
                BinaryOp::And => a & b,
                BinaryOp::Or => a | b,
                BinaryOp::Xor => a ^ b,
                BinaryOp::Shl if (b as u32) < w => a << b,
                BinaryOp::ShrU if (b as u32) < w => (a & mask) >> b,
                _ => return None,
            } & mask;
            Some(if *ty == Ty::U64 { Const::U64(r) } else { Const::U32(r as u32) })
        }
        Expr::Convert { op: ConvertOp::ZeroExtend, arg: Operand::Const(Const::U32(v)), .. } => Some(Const::U64(*v as u64)),
        Expr::Convert { op: ConvertOp::SignExtend, arg: Operand::Const(Const::U32(v)), .. } => {
            Some(Const::U64(*v as i32 as i64 as u64))
        }
        Expr::Convert { op: ConvertOp::Truncate, arg: Operand::Const(Const::U64(v)), .. } => Some(Const::U32(*v as u32)),
        Expr::Convert { op: ConvertOp::Bitcast, to, arg: Operand::Const(c), .. } => Some(match to {
            Ty::F32 => Const::F32(c.bits() as u32),
            Ty::U32 => Const::U32(c.bits() as u32),
            Ty::F64 => Const::F64(c.bits()),
            Ty::U64 => Const::U64(c.bits()),
            Ty::Bool => return None,
        }),
        Expr::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg: Operand::Const(Const::Bool(b)) } => Some(Const::Bool(!b)),
        // Integer comparisons only: float ones keep their run-time NaN semantics. The reference
        // interpreter defines the IR's semantics; folding is evaluating it early.
        Expr::Compare { op, ty, lhs: Operand::Const(a), rhs: Operand::Const(b) } if !ty.is_float() && op.accepts(*ty) => {
            Some(Const::Bool(crate::interp::compare(*op, *ty, a.bits(), b.bits())))
        }
        _ => None,
    }
}
