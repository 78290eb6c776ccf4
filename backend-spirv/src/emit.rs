//! The emitter: one pass over the structured IR, the module-level parts into an `rspirv`
//! builder, the function bodies straight into words (`function_words`).
//!
//! Shape of the output (SPIR-V 1.3, `Logical`/`GLSL450`, Vulkan flavour):
//! - module-wide: the heap and parameter storage buffers (`StorageBuffer` class, core in 1.3),
//!   the builtin `Input` variables, types and constants (created lazily, so a 64-bit type exists
//!   only when something uses it and the capability list follows from what was emitted);
//! - per kernel: an entry function `void()` with one `Function` variable per IR variable
//!   (zero-initialised, like WGSL, so both backends agree even on reads of unwritten registers),
//!   a `Workgroup` array for shared memory and a `Private` array for local memory (or, for
//!   kernels that keep local memory in the scratch buffer, that storage buffer);
//! - bounds-checked word accesses as small helper functions (`load`, `store`, one per atomic
//!   op), emitted once per module for the heap, the parameters and the scratch buffer, once per kernel for shared
//!   and local memory (their sizes are the kernel's). Drivers inline them.
//!
//! Structured control flow maps 1:1: `If` → `OpSelectionMerge` + `OpBranchConditional`,
//! `Loop` → header (`OpLoopMerge`) / body / continue block (a plain back-edge) / merge.
//! After a statement that cannot fall through (`Return`, `Break`, `Continue`, or a compound
//! statement none of whose paths falls through) the rest of the block is dead and not emitted;
//! a merge block nobody reaches gets `OpUnreachable`.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap as HashMap;

use ptxcross_lower::abi;
use ptxcross_lower::emission::{Analyses, Emission};
use ptxcross_lower::ir::{
    AtomicOp, BinaryOp, Block, Builtin, CmpOp, Const, ConvertOp, Expr, Function, Kernel, LocalPlacement, Memory, Operand,
    Scope, Stmt, Ty, UnaryOp, VarId,
};
use rspirv::dr::{self, Builder};
use rspirv::spirv::{self, Op, StorageClass, Word};

use crate::function_words::FunctionWords;
use crate::{EmitError, EmitErrorKind};

/// GLSL.std.450 extended instruction numbers.
mod glsl {
    pub const ROUND_EVEN: u32 = 2;
    pub const TRUNC: u32 = 3;
    pub const FLOOR: u32 = 8;
    pub const CEIL: u32 = 9;
    pub const SQRT: u32 = 31;
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const FMA: u32 = 50;
    pub const FIND_UMSB: u32 = 75;
}

/// Scope values (`spirv::Scope`), passed as constant ids.
const SCOPE_DEVICE: u32 = 1;
const SCOPE_WORKGROUP: u32 = 2;
/// Relaxed memory semantics for word atomics (PTX `atom` without `.sem` is relaxed).
const SEMANTICS_RELAXED: u32 = 0;
/// `bar.sync`: AcquireRelease | UniformMemory (storage buffers) | WorkgroupMemory.
const SEMANTICS_BARRIER: u32 = 0x8 | 0x40 | 0x100;
/// `Stmt::SharedBarrier`: AcquireRelease | WorkgroupMemory.
const SEMANTICS_SHARED_BARRIER: u32 = 0x8 | 0x100;
/// `Stmt::Fence`: SequentiallyConsistent (PTX `fence.sc`; at least `fence.acq_rel`) |
/// UniformMemory | WorkgroupMemory.
const SEMANTICS_FENCE: u32 = 0x10 | 0x40 | 0x100;

/// What a helper function does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Access {
    Load,
    Store,
    Atomic(AtomicOp),
    /// A 64-bit atomic on heap or shared doubleword `idx` (`Expr::AtomicDword`).
    Atomic64(AtomicOp),
    /// A relaxed atomic load of shared doubleword `idx` (`Expr::LoadDword`).
    Load64,
}

#[derive(Clone, Copy, Debug)]
struct PendingHelper {
    id: Word,
    memory: Memory,
    access: Access,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum BuiltinVar {
    LocalInvocationId,
    WorkgroupId,
    NumWorkgroups,
    /// Scalars (`GroupNonUniform`).
    SubgroupSize,
    SubgroupLocalInvocationId,
}

/// SPIR-V's `Subgroup` scope.
const SCOPE_SUBGROUP: u32 = 3;

struct LoopCtx {
    merge: Word,
    cont: Word,
    has_break: bool,
    /// Switches open inside this loop: `Break`/`Continue` there is invalid IR (see `ir::Stmt::Switch`).
    open_switches: u32,
}

/// SPIR-V's universal limits (spec §2.17) that the emitter could exceed; checked while
/// emitting, so no module over a limit reaches a validator or a driver.
pub(crate) mod limits {
    /// Control-flow nesting depth (structured loops and selections).
    pub const NESTING: usize = 1023;
    /// `Function`-storage variables per function.
    pub const FUNCTION_VARIABLES: usize = 524_287;
    /// (literal, label) pairs of one `OpSwitch`.
    pub const SWITCH_PAIRS: usize = 16_383;
    /// Characters of a literal string (`OpName`, `OpEntryPoint` names), NUL included.
    pub const STRING_CHARS: usize = 65_535;
    /// Result-id bound.
    pub const ID_BOUND: u32 = 4_194_303;
}

/// A debug name shortened to SPIR-V's string limit (on a character boundary).
fn debug_name(s: &str) -> String {
    let mut end = s.len().min(limits::STRING_CHARS - 1);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// The grammar entry of `op`, found by opcode: rspirv's `Instruction::new` finds it by a
/// linear search of the whole grammar table for every instruction (12% of the emitter's time
/// on the CUB file). The instruction is the one `Instruction::new` builds.
fn instruction(op: Op, result_type: Option<Word>, result_id: Option<Word>, operands: Vec<dr::Operand>) -> dr::Instruction {
    type Class = &'static rspirv::grammar::Instruction<'static>;
    static BY_OPCODE: std::sync::OnceLock<Vec<Option<Class>>> = std::sync::OnceLock::new();
    let table = BY_OPCODE.get_or_init(|| {
        let mut t: Vec<Option<Class>> = Vec::new();
        for class in rspirv::grammar::INSTRUCTION_TABLE.iter() {
            let i = class.opcode as usize;
            if t.len() <= i {
                t.resize(i + 1, None);
            }
            // The first entry of an opcode, as the search finds.
            t[i].get_or_insert(class);
        }
        t
    });
    match table.get(op as usize).copied().flatten() {
        Some(class) => dr::Instruction { class, result_type, result_id, operands },
        None => dr::Instruction::new(op, result_type, result_id, operands),
    }
}

/// Per-kernel state.
struct KernelState {
    name: String,
    /// Per variable: its `Function` variable, or 0 for a value (`values`).
    vars: Vec<Word>,
    /// Per variable: the id of its value once assigned, for the kernel's values
    /// (`Kernel::value_vars`: assigned once, read only where the assignment dominates), which
    /// get no variable: each read is the assignment's result id itself.
    values: Vec<Option<Word>>,
    is_value: Vec<bool>,
    /// Per variable: its parameter loads are read directly (`Kernel::direct_param_loads`).
    direct_params: Vec<bool>,
    /// Per variable: the heap memory (heap or segment slot) in which `lower` has checked it as
    /// an index (`Kernel::heap_index_memories_of`).
    heap_direct: Vec<Option<Memory>>,
    /// `Kernel::index_facts`: shared and local indices proven in range (`Kernel::index_in_range`).
    facts: ptxcross_lower::ir::IndexFacts,
    loops: Vec<LoopCtx>,
    /// `None` when the kernel has no shared (local) words: every access faults.
    shared_var: Option<Word>,
    /// Elements of the shared array: words, or doublewords (`Kernel::shared_dwords`).
    shared_len: u32,
    shared_dwords: bool,
    local_var: Option<Word>,
    local_len: u32,
    /// Shared/local helpers of this kernel.
    helpers: HashMap<(Memory, Access), Word>,
    interface: BTreeSet<Word>,
    /// Per function of the kernel (`Kernel::functions`): its `OpFunction` id.
    func_ids: Vec<Word>,
}

impl KernelState {
    /// The state for emitting `k`'s body under `name`: its analyses, nothing allocated yet,
    /// and no shared or local memory or callees (a kernel sets those after).
    fn of(k: &Kernel, name: &str, a: &Analyses, is_value: Vec<bool>) -> KernelState {
        KernelState {
            name: name.to_string(),
            vars: Vec::with_capacity(k.vars.len()),
            values: vec![None; k.vars.len()],
            is_value,
            direct_params: a.direct_params.clone(),
            heap_direct: a.heap_direct.clone(),
            facts: a.facts.clone(),
            loops: Vec::new(),
            shared_var: None,
            shared_len: 0,
            shared_dwords: false,
            local_var: None,
            local_len: 0,
            helpers: HashMap::default(),
            interface: BTreeSet::new(),
            func_ids: Vec::new(),
        }
    }
}

pub(crate) struct Emitter {
    /// The module but its functions (types, constants, globals, names, decorations, entry
    /// points); it also hands out every id.
    b: Builder,
    /// The functions, as words (`function_words`).
    f: FunctionWords,
    glsl: Option<Word>,
    uses_int64: bool,
    uses_float64: bool,
    /// Some kernel asked for `DenormPreserve` (SPV_KHR_float_controls).
    uses_denorm_preserve: bool,
    /// Subgroup built-ins, ballots, shuffles (native warp collectives): capabilities
    /// `GroupNonUniform`, `GroupNonUniformBallot`, `GroupNonUniformShuffle`.
    uses_subgroup: bool,
    uses_ballot: bool,
    uses_shuffle: bool,
    consts: HashMap<(Word, u64), Word>,
    bools: [Option<Word>; 2],
    nulls: HashMap<Word, Word>,
    /// Type ids by (kind, operand, operand): rspirv's builder finds an existing type by a
    /// linear search of all types and constants, with an allocation per query (1.4% of
    /// translating the CUB file); the id is the one that search would return.
    types: HashMap<(u8, u32, u32), Word>,
    heap_var: Option<Word>,
    /// The heap as `u64` doublewords (binding `abi::BINDING_HEAP64`), for `AtomicDword`.
    heap64_var: Option<Word>,
    /// Heap segment slots ≥ 1 (`Memory::Segment`): their `u32` and `u64` views by slot.
    segment_vars: HashMap<u8, Word>,
    segment64_vars: HashMap<u8, Word>,
    /// Some kernel's shared memory is `u64` doublewords (`Kernel::shared_dwords`).
    shared_atomics64: bool,
    /// Some kernel has a device-scope `Fence`: the heap is declared `Coherent`.
    device_fence: bool,
    param_var: Option<Word>,
    scratch_var: Option<Word>,
    /// The module's `Private` u32 holding the running instruction's fault site id (every
    /// kernel's `Kernel::fault_site_var` maps to it); `None`: no kernel tracks sites.
    site_var: Option<Word>,
    /// `Private` u32s: fault bits recorded without a branch (`Emitter::defer`), and the site
    /// of the thread's first such fault; flushed to the heap's fault word when the thread
    /// ends (`Emitter::flush`).
    bad_var: Option<Word>,
    bad_site_var: Option<Word>,
    /// `defer(bad, bits)`: the function that records a deferred fault (`Emitter::defer`),
    /// emitted once per module beside `bad_var`.
    defer_fn: Option<Word>,
    builtin_vars: HashMap<BuiltinVar, Word>,
    /// Heap/param helpers, shared by every kernel of the module.
    global_helpers: HashMap<(Memory, Access), Word>,
    pending: Vec<PendingHelper>,
    /// Functions of the kernels (`ir::Function`), emitted once per module: by name, the
    /// distinct bodies under it and their ids.
    functions: HashMap<String, Vec<(Function, Word)>>,
    /// Functions given an id but not emitted yet.
    pending_functions: Vec<(Function, Word)>,
    /// Kernel being emitted.
    k: Option<KernelState>,
}


/// Branching statements at one level from which [`Emitter::block`] groups them. Why: Khronos'
/// validator walks the dominator tree from a block up to its dominator for every use of a
/// variable (`CheckIdDefinitionDominateUse`: the function's variables are defined in its entry
/// block) and for every block of every construct (`Construct::blocks`), and n selections in a
/// row make a dominator chain n deep (each merge block is dominated by the header before it):
/// quadratic, 100 s for the CUB radix sort's largest kernel (16,557 guards in a row). Inside
/// a selection on a constant `true` the group's blocks hang below its header, whose merge is
/// dominated by that header directly (the false edge); groups of groups, [`WRAP_FAN_OUT`] per
/// level down to runs of at most 64, keep the depth near 64 + 16 log₁₆(n / 64) (the radix sort:
/// 180 instead of 16,617, for 4% more blocks; validated in 5 s). Drivers fold the constant branches.
const WRAP_MIN_BRANCHING: usize = 64;

/// Groups per level of the tree of constant-true selections.
const WRAP_FAN_OUT: usize = 16;

/// Whether the statement emits blocks of its own (not `if (c) { fault }`, which is branchless).
fn branches(s: &Stmt) -> bool {
    match s {
        Stmt::If { then_body, else_body, .. } => {
            !(else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]))
        }
        Stmt::Loop { .. } | Stmt::Switch { .. } => true,
        _ => false,
    }
}

/// Whether [`Emitter::grouped`] splits `stmts` into constant-true selections.
fn is_grouped(stmts: &[Stmt]) -> bool {
    stmts.iter().filter(|s| branches(s)).count() > WRAP_MIN_BRANCHING
}

/// A value assigned directly in a block that [`Emitter::grouped`] splits into constant-true
/// selections may be read in a later group, which the assigning group does not dominate (the
/// grouping exists to cut those dominator chains): such values keep a `Function` variable.
/// Values assigned deeper are read only inside their own block (`Kernel::value_vars`), which
/// one group holds whole.
fn keep_variables_across_groups(b: &Block, is_value: &mut [bool]) {
    let grouped = is_grouped(&b.stmts);
    for s in &b.stmts {
        if let (true, Stmt::Assign { dst, .. }) = (grouped, s) {
            if let Some(v) = is_value.get_mut(dst.index()) {
                *v = false;
            }
        }
        for body in s.bodies() {
            keep_variables_across_groups(body, is_value);
        }
    }
}

fn invalid(msg: impl Into<String>) -> EmitErrorKind {
    EmitErrorKind::InvalidIr(msg.into())
}

fn internal(e: impl std::fmt::Display) -> EmitErrorKind {
    EmitErrorKind::Internal(format!("SPIR-V builder (rspirv or function_words): {e}"))
}

fn mem_fault_bit(m: Memory) -> u32 {
    match m {
        Memory::Heap => abi::FAULT_GLOBAL_OUT_OF_RANGE,
        Memory::Shared => abi::FAULT_SHARED_OUT_OF_RANGE,
        Memory::Local => abi::FAULT_LOCAL_OUT_OF_RANGE,
        Memory::Param => abi::FAULT_PARAM_OUT_OF_RANGE,
        Memory::Scratch => abi::FAULT_LOCAL_OUT_OF_RANGE,
        Memory::Segment(_) => abi::FAULT_GLOBAL_OUT_OF_RANGE,
    }
}

/// Names of heap segment slots 1.. (`Memory::Segment`), for helpers and variables.
const SEGMENT_NAMES: [&str; abi::MAX_SEGMENT_SLOTS as usize] = [
    "heap", "segment1", "segment2", "segment3", "segment4", "segment5", "segment6", "segment7", "segment8", "segment9",
    "segment10", "segment11", "segment12", "segment13", "segment14", "segment15",
];

fn mem_name(m: Memory) -> &'static str {
    match m {
        Memory::Heap => "heap",
        Memory::Shared => "shared",
        Memory::Local => "local",
        Memory::Param => "param",
        Memory::Scratch => "scratch",
        Memory::Segment(j) => SEGMENT_NAMES.get(j as usize).copied().unwrap_or("segment"),
    }
}

fn atomic_name(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::Add => "add",
        AtomicOp::Sub => "sub",
        AtomicOp::And => "and",
        AtomicOp::Or => "or",
        AtomicOp::Xor => "xor",
        AtomicOp::Exchange => "exchange",
        AtomicOp::MinU => "min_u",
        AtomicOp::MaxU => "max_u",
        AtomicOp::MinS => "min_s",
        AtomicOp::MaxS => "max_s",
        AtomicOp::CompareExchange => "compare_exchange",
    }
}

/// Emits a whole module (prepared by `lower`'s `Emission`: plain heap loads as calls of one
/// function per kernel, the kernels' analyses). Errors name the kernel they arose in.
pub(crate) fn emit_module(em: &Emission) -> std::result::Result<Vec<u32>, EmitError> {
    use rspirv::binary::Assemble;

    let module = em.module();

    if module.kernels.is_empty() {
        return Err(EmitError {
            kernel: None,
            kind: EmitErrorKind::Unsupported(
                "the module has no kernels, and a Vulkan SPIR-V module needs an entry point".into(),
            ),
        });
    }
    let mut e = Emitter {
        b: Builder::new(),
        f: FunctionWords::default(),
        glsl: None,
        uses_int64: false,
        uses_float64: false,
        uses_denorm_preserve: false,
        uses_subgroup: false,
        uses_ballot: false,
        uses_shuffle: false,
        consts: HashMap::default(),
        bools: [None, None],
        nulls: HashMap::default(),
        types: HashMap::default(),
        heap_var: None,
        heap64_var: None,
        segment_vars: HashMap::default(),
        segment64_vars: HashMap::default(),
        shared_atomics64: false,
        device_fence: false,
        param_var: None,
        scratch_var: None,
        site_var: None,
        bad_var: None,
        bad_site_var: None,
        defer_fn: None,
        builtin_vars: HashMap::default(),
        global_helpers: HashMap::default(),
        pending: Vec::new(),
        functions: HashMap::default(),
        pending_functions: Vec::new(),
        k: None,
    };
    e.b.set_version(1, 3);
    e.b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    if module.kernels.iter().any(|k| k.fault_site_var.is_some()) {
        // Before any kernel: the module-wide helpers read it in their fault paths.
        let u = e.t_u32();
        let p = e.ptr(StorageClass::Private, u);
        let init = e.null(u);
        let v = e.global_var(p, StorageClass::Private, Some(init));
        e.b.name(v, "fault_site");
        e.site_var = Some(v);
    }
    if module.kernels.iter().any(Kernel::defers_faults) {
        let u = e.t_u32();
        let p = e.ptr(StorageClass::Private, u);
        let init = e.null(u);
        let v = e.global_var(p, StorageClass::Private, Some(init));
        e.b.name(v, "deferred_faults");
        e.bad_var = Some(v);
        if e.site_var.is_some() {
            let v = e.global_var(p, StorageClass::Private, Some(init));
            e.b.name(v, "deferred_fault_site");
            e.bad_site_var = Some(v);
        }
        e.defer_function().map_err(|kind| EmitError { kernel: None, kind })?;
    }

    let mut names = BTreeSet::new();
    for (index, kernel) in module.kernels.iter().enumerate() {
        let wrap = |kind: EmitErrorKind| EmitError { kernel: Some(kernel.name.clone()), kind };
        if kernel.entry_point.is_empty() || kernel.entry_point.contains('\0') {
            return Err(wrap(invalid(format!("entry point name {:?} is empty or contains NUL", kernel.entry_point))));
        }
        if !names.insert(kernel.entry_point.as_str()) {
            return Err(wrap(invalid(format!("duplicate entry point name `{}`", kernel.entry_point))));
        }
        e.kernel(kernel, || em.analyses(index)).map_err(wrap)?;
        if kernel.features.int64 {
            e.uses_int64 = true;
        }
        if kernel.features.float64 {
            e.uses_float64 = true;
        }
    }

    // The next id to hand out is the module's id bound.
    let bound = e.b.id();
    if bound > limits::ID_BOUND {
        return Err(EmitError {
            kernel: None,
            kind: EmitErrorKind::Unsupported(format!(
                "the module needs {bound} SPIR-V ids; Vulkan allows at most {} (split the kernels into several modules)",
                limits::ID_BOUND
            )),
        });
    }
    e.b.capability(spirv::Capability::Shader);
    if e.uses_int64 {
        e.b.capability(spirv::Capability::Int64);
    }
    if e.shared_atomics64 && e.heap64_var.is_none() {
        e.b.capability(spirv::Capability::Int64Atomics);
    }
    if let Some(h64) = e.heap64_var {
        e.b.capability(spirv::Capability::Int64Atomics);
        // Two views of one buffer: neither may be assumed distinct from the other.
        let h = e.heap_var();
        for v in [h, h64] {
            e.b.decorate(v, spirv::Decoration::Aliased, []);
        }
    }
    let mut slots64: Vec<(u8, Word)> = e.segment64_vars.iter().map(|(&j, &v)| (j, v)).collect();
    slots64.sort_unstable();
    for (j, h64) in slots64 {
        e.b.capability(spirv::Capability::Int64Atomics);
        let h = e.segment_var(j);
        for v in [h, h64] {
            e.b.decorate(v, spirv::Decoration::Aliased, []);
        }
    }
    if e.device_fence {
        // A device-scope fence orders plain heap accesses too (PTX's message passing: data
        // stored plainly, then a fence and a flag): under the GLSL450 memory model they must
        // then bypass non-coherent caches.
        let h = e.heap_var();
        e.b.decorate(h, spirv::Decoration::Coherent, []);
        if let Some(h64) = e.heap64_var {
            e.b.decorate(h64, spirv::Decoration::Coherent, []);
        }
        let mut slots: Vec<Word> = e.segment_vars.values().chain(e.segment64_vars.values()).copied().collect();
        slots.sort_unstable();
        for v in slots {
            e.b.decorate(v, spirv::Decoration::Coherent, []);
        }
    }
    if e.uses_float64 {
        e.b.capability(spirv::Capability::Float64);
    }
    if e.uses_subgroup {
        e.b.capability(spirv::Capability::GroupNonUniform);
    }
    if e.uses_ballot {
        e.b.capability(spirv::Capability::GroupNonUniformBallot);
    }
    if e.uses_shuffle {
        e.b.capability(spirv::Capability::GroupNonUniformShuffle);
    }
    if e.uses_denorm_preserve {
        e.b.capability(spirv::Capability::DenormPreserve);
        e.b.extension("SPV_KHR_float_controls");
    }
    let functions = e.f.finish().map_err(|m| EmitError { kernel: None, kind: internal(m) })?;
    let mut words = e.b.module().assemble();
    words.extend_from_slice(&functions);
    Ok(words)
}

impl Emitter {
    // ---------------------------------------------------------------- types and constants

    fn memo_type(&mut self, key: (u8, u32, u32), make: impl FnOnce(&mut dr::Builder) -> Word) -> Word {
        if let Some(&id) = self.types.get(&key) {
            return id;
        }
        let id = make(&mut self.b);
        self.types.insert(key, id);
        id
    }
    fn t_void(&mut self) -> Word {
        self.memo_type((0, 0, 0), |b| b.type_void())
    }
    fn t_bool(&mut self) -> Word {
        self.memo_type((1, 0, 0), |b| b.type_bool())
    }
    fn t_u32(&mut self) -> Word {
        self.memo_type((2, 32, 0), |b| b.type_int(32, 0))
    }
    fn t_uvec2(&mut self) -> Word {
        let u = self.t_u32();
        self.memo_type((4, u, 2), |b| b.type_vector(u, 2))
    }
    fn t_uvec3(&mut self) -> Word {
        let u = self.t_u32();
        self.memo_type((4, u, 3), |b| b.type_vector(u, 3))
    }
    fn ty(&mut self, t: Ty) -> Word {
        match t {
            Ty::Bool => self.t_bool(),
            Ty::U32 => self.t_u32(),
            Ty::U64 => {
                self.uses_int64 = true;
                self.memo_type((2, 64, 0), |b| b.type_int(64, 0))
            }
            Ty::F32 => self.memo_type((3, 32, 0), |b| b.type_float(32, None)),
            Ty::F64 => {
                self.uses_float64 = true;
                self.memo_type((3, 64, 0), |b| b.type_float(64, None))
            }
        }
    }
    /// A module-scope `OpVariable` (the builder would put it into the selected block).
    fn global_var(&mut self, ptr_ty: Word, class: StorageClass, init: Option<Word>) -> Word {
        let id = self.b.id();
        let mut operands = vec![dr::Operand::StorageClass(class)];
        operands.extend(init.map(dr::Operand::IdRef));
        let inst = instruction(Op::Variable, Some(ptr_ty), Some(id), operands);
        self.b.module_mut().types_global_values.push(inst);
        id
    }
    fn ptr(&mut self, class: StorageClass, pointee: Word) -> Word {
        self.memo_type((5, class as u32, pointee), |b| b.type_pointer(None, class, pointee))
    }

    fn konst(&mut self, c: Const) -> Word {
        if let Const::Bool(v) = c {
            if let Some(id) = self.bools[v as usize] {
                return id;
            }
            let t = self.t_bool();
            let id = if v { self.b.constant_true(t) } else { self.b.constant_false(t) };
            self.bools[v as usize] = Some(id);
            return id;
        }
        let t = self.ty(c.ty());
        let bits = c.bits();
        if let Some(&id) = self.consts.get(&(t, bits)) {
            return id;
        }
        let id = match c {
            Const::U64(_) | Const::F64(_) => self.b.constant_bit64(t, bits),
            _ => self.b.constant_bit32(t, bits as u32),
        };
        self.consts.insert((t, bits), id);
        id
    }
    fn c_u32(&mut self, v: u32) -> Word {
        self.konst(Const::U32(v))
    }
    fn null(&mut self, t: Word) -> Word {
        if let Some(&id) = self.nulls.get(&t) {
            return id;
        }
        let id = self.b.constant_null(t);
        self.nulls.insert(t, id);
        id
    }
    fn glsl(&mut self) -> Word {
        match self.glsl {
            Some(id) => id,
            None => {
                let id = self.b.ext_inst_import("GLSL.std.450");
                self.glsl = Some(id);
                id
            }
        }
    }

    // ---------------------------------------------------------------- raw instructions

    /// An instruction with a result, all operands ids (`OpLoad` of a pointer, `OpAccessChain`
    /// of a base and indices among them: what rspirv's builder methods write without their
    /// optional operands).
    fn op(&mut self, op: Op, ty: Word, args: &[Word]) -> Result2<Word> {
        let id = self.b.id();
        self.f.inst(op, &[ty, id], args).map_err(internal)?;
        Ok(id)
    }
    /// An instruction without a result (`OpStore` of a pointer and a value among them).
    fn op_void(&mut self, op: Op, args: &[Word]) -> Result2<()> {
        self.f.inst(op, &[], args).map_err(internal)
    }
    /// `OpSelectionMerge` without a selection control.
    fn selection_merge(&mut self, merge: Word) -> Result2<()> {
        self.op_void(Op::SelectionMerge, &[merge, spirv::SelectionControl::NONE.bits()])
    }
    /// `Stmt::Barrier` (and the barrier of `Expr::SharedUniformLoad`): workgroup execution
    /// barrier ordering shared and heap memory.
    fn workgroup_barrier(&mut self) -> Result2<()> {
        let scope = self.c_u32(SCOPE_WORKGROUP);
        let sem = self.c_u32(SEMANTICS_BARRIER);
        self.op_void(Op::ControlBarrier, &[scope, scope, sem])
    }
    fn ext(&mut self, ty: Word, inst: u32, args: &[Word]) -> Result2<Word> {
        let set = self.glsl();
        let id = self.b.id();
        self.f.inst(Op::ExtInst, &[ty, id, set, inst], args).map_err(internal)?;
        Ok(id)
    }
    /// `OpCompositeExtract` of one literal index.
    fn extract(&mut self, ty: Word, composite: Word, index: u32) -> Result2<Word> {
        let id = self.b.id();
        self.f.inst(Op::CompositeExtract, &[ty, id, composite, index], &[]).map_err(internal)?;
        Ok(id)
    }
    /// `OpCompositeInsert` of `object` at one literal index.
    fn insert(&mut self, ty: Word, object: Word, composite: Word, index: u32) -> Result2<Word> {
        let id = self.b.id();
        self.f.inst(Op::CompositeInsert, &[ty, id, object, composite, index], &[]).map_err(internal)?;
        Ok(id)
    }
    /// `OpArrayLength` of member 0 of the block `var` points to.
    fn array_length(&mut self, ty: Word, var: Word) -> Result2<Word> {
        let id = self.b.id();
        self.f.inst(Op::ArrayLength, &[ty, id, var, 0], &[]).map_err(internal)?;
        Ok(id)
    }
    /// `OpFunction` (result type, function type; no function control), `id` a new one if `None`.
    fn begin_function(&mut self, ret: Word, id: Option<Word>, fty: Word) -> Result2<Word> {
        let id = id.unwrap_or_else(|| self.b.id());
        self.f.begin_function(ret, id, fty).map_err(internal)?;
        Ok(id)
    }
    fn function_parameter(&mut self, ty: Word) -> Result2<Word> {
        let id = self.b.id();
        self.f.parameter(ty, id).map_err(internal)?;
        Ok(id)
    }
    fn end_function(&mut self) -> Result2<()> {
        self.f.end_function().map_err(internal)
    }
    /// A `Function` variable initialised to `init` (in the function's first block).
    fn function_var(&mut self, ptr_ty: Word, init: Word) -> Result2<Word> {
        let id = self.b.id();
        self.f.inst(Op::Variable, &[ptr_ty, id, StorageClass::Function as u32, init], &[]).map_err(internal)?;
        Ok(id)
    }
    fn ret(&mut self) -> Result2<()> {
        self.terminate(Op::Return, &[])
    }
    fn ret_value(&mut self, v: Word) -> Result2<()> {
        self.terminate(Op::ReturnValue, &[v])
    }
    fn unreachable(&mut self) -> Result2<()> {
        self.terminate(Op::Unreachable, &[])
    }
    fn no_contraction(&mut self, id: Word) {
        self.b.decorate(id, spirv::Decoration::NoContraction, []);
    }
    /// A new block, its `OpLabel` `label`.
    fn begin_block(&mut self, label: Word) -> Result2<()> {
        self.f.begin_block(label).map_err(internal)
    }
    /// A new block with a new label.
    fn new_block(&mut self) -> Result2<Word> {
        let label = self.b.id();
        self.begin_block(label)?;
        Ok(label)
    }
    /// A terminator: ends the current block.
    fn terminate(&mut self, op: Op, operands: &[Word]) -> Result2<()> {
        self.f.terminate(op, &[], operands).map_err(internal)
    }
    fn branch_conditional(&mut self, cond: Word, then_l: Word, else_l: Word) -> Result2<()> {
        self.terminate(Op::BranchConditional, &[cond, then_l, else_l])
    }
    fn branch(&mut self, target: Word) -> Result2<()> {
        self.terminate(Op::Branch, &[target])
    }
    fn fault(&mut self, bits: u32) -> Result2<()> {
        let v = self.c_u32(bits);
        self.fault_bits(v)
    }

    /// Records fault `bad ? bits : 0` without a branch: the bits collect in `bad_var` (the
    /// running instruction's site in `bad_site_var` if it is the thread's first), which
    /// `flush` records in the heap when the thread ends. Out-of-range plain loads and stores
    /// use it (they go to a safe index instead, see `helper`), and `If { c, [Fault] }`: a
    /// never-taken fault branch would otherwise cost every access on SIMD drivers, which run
    /// both sides of a divergent branch.
    ///
    /// One `OpFunctionCall` of the module's `defer` function (`defer_function`), as the WGSL
    /// backend's `px_defer` (issue 11, code size): the ten instructions of its body were
    /// repeated at every deferred fault, two per plain heap access. Drivers inline it.
    fn defer(&mut self, bad: Word, bits: Word) -> Result2<()> {
        let f = self.defer_fn.ok_or_else(|| EmitErrorKind::Internal("a deferred fault `defers_faults` missed".into()))?;
        let void = self.t_void();
        self.op(Op::FunctionCall, void, &[f, bad, bits])?;
        Ok(())
    }

    /// Emits `defer(bad: bool, bits: u32)` (see [`Emitter::defer`]); called once, at module
    /// scope, when `bad_var` is made.
    fn defer_function(&mut self) -> Result2<()> {
        let bad_var = self.bad_var.ok_or_else(|| EmitErrorKind::Internal("defer function without `bad_var`".into()))?;
        let u = self.t_u32();
        let bt = self.t_bool();
        let void = self.t_void();
        let zero = self.c_u32(0);
        let fty = self.b.type_function(void, vec![bt, u]);
        let id = self.b.id();
        self.begin_function(void, Some(id), fty)?;
        self.b.name(id, "defer");
        let bad = self.function_parameter(bt)?;
        let bits = self.function_parameter(u)?;
        self.new_block()?;
        let old = self.op(Op::Load, u, &[bad_var])?;
        if let (Some(site_var), Some(bad_site_var)) = (self.site_var, self.bad_site_var) {
            let none_yet = self.op(Op::IEqual, bt, &[old, zero])?;
            let first = self.op(Op::LogicalAnd, bt, &[bad, none_yet])?;
            let site = self.op(Op::Load, u, &[site_var])?;
            let kept = self.op(Op::Load, u, &[bad_site_var])?;
            let new_site = self.op(Op::Select, u, &[first, site, kept])?;
            self.op_void(Op::Store, &[bad_site_var, new_site])?;
        }
        let add = self.op(Op::Select, u, &[bad, bits, zero])?;
        let new = self.op(Op::BitwiseOr, u, &[old, add])?;
        self.op_void(Op::Store, &[bad_var, new])?;
        self.ret()?;
        self.end_function()?;
        self.defer_fn = Some(id);
        Ok(())
    }

    /// Records the faults `defer` collected (before the entry point returns).
    fn flush(&mut self) -> Result2<()> {
        let Some(bad_var) = self.bad_var else { return Ok(()) };
        let u = self.t_u32();
        let bt = self.t_bool();
        let zero = self.c_u32(0);
        let bits = self.op(Op::Load, u, &[bad_var])?;
        let any = self.op(Op::INotEqual, bt, &[bits, zero])?;
        let merge = self.b.id();
        let then_l = self.b.id();
        self.selection_merge(merge)?;
        self.branch_conditional(any, then_l, merge)?;
        self.begin_block(then_l)?;
        if let (Some(site_var), Some(bad_site_var)) = (self.site_var, self.bad_site_var) {
            let site = self.op(Op::Load, u, &[bad_site_var])?;
            self.op_void(Op::Store, &[site_var, site])?;
        }
        self.fault_bits(bits)?;
        self.branch(merge)?;
        self.begin_block(merge)
    }

    /// A [`Stmt::Fence`] for a driver that miscompiles memory barriers
    /// (`Features::fences_as_sink_atomics`): a relaxed device-scope atomic add of 0 to the
    /// heap's sink word, which that driver (lavapipe 22.x) compiles as a sequentially
    /// consistent LLVM `atomicrmw`, ordering every memory access around it.
    fn sink_atomic_fence(&mut self) -> Result2<()> {
        let zero = self.c_u32(0);
        self.reserved_word_atomic(abi::HEAP_SINK_WORD, Op::AtomicIAdd, zero)?;
        Ok(())
    }

    /// A pointer to reserved heap word `word` (the fault log's, the sink's).
    fn reserved_word_ptr(&mut self, word: u32) -> Result2<Word> {
        let heap = self.heap_var();
        let u = self.t_u32();
        let p = self.ptr(StorageClass::StorageBuffer, u);
        let zero = self.c_u32(0);
        let word = self.c_u32(word);
        self.op(Op::AccessChain, p, &[heap, zero, word])
    }

    /// A relaxed device-scope atomic `op` with `value` on reserved heap word `word`; yields
    /// the old word.
    fn reserved_word_atomic(&mut self, word: u32, op: Op, value: Word) -> Result2<Word> {
        let ptr = self.reserved_word_ptr(word)?;
        let u = self.t_u32();
        let scope = self.c_u32(SCOPE_DEVICE);
        let sem = self.c_u32(SEMANTICS_RELAXED);
        self.op(op, u, &[ptr, scope, sem, value])
    }

    fn fault_bits(&mut self, v: Word) -> Result2<()> {
        self.reserved_word_atomic(abi::FAULT_WORD, Op::AtomicOr, v)?;
        if let Some(site_var) = self.site_var {
            // First fault wins: the site word takes the running instruction's id if still 0.
            let u = self.t_u32();
            let site = self.op(Op::Load, u, &[site_var])?;
            let ptr = self.reserved_word_ptr(abi::FAULT_SITE_WORD)?;
            let zero = self.c_u32(0);
            let scope = self.c_u32(SCOPE_DEVICE);
            let sem = self.c_u32(SEMANTICS_RELAXED);
            self.op(Op::AtomicCompareExchange, u, &[ptr, scope, sem, sem, site, zero])?;
        }
        Ok(())
    }

    // ---------------------------------------------------------------- module-scope variables

    /// The runtime-array storage-buffer block `struct { u32 words[]; }`; `read_only` marks the
    /// member NonWritable (a distinct struct type, so decorations do not clash).
    fn buffer_var(&mut self, binding: u32, read_only: bool, name: &str) -> Word {
        let u = self.t_u32();
        let arr = self.b.type_runtime_array(u);
        // Decorate the runtime array once (both buffers share it).
        if self.heap_var.is_none() && self.param_var.is_none() && self.scratch_var.is_none() && self.segment_vars.is_empty() {
            self.b.decorate(arr, spirv::Decoration::ArrayStride, [dr::Operand::LiteralBit32(4)]);
        }
        let st_id = self.b.id();
        let st = self.b.type_struct_id(Some(st_id), [arr]);
        self.b.decorate(st, spirv::Decoration::Block, []);
        self.b.member_decorate(st, 0, spirv::Decoration::Offset, [dr::Operand::LiteralBit32(0)]);
        if read_only {
            self.b.member_decorate(st, 0, spirv::Decoration::NonWritable, []);
        }
        self.b.name(st, format!("{name}_block"));
        self.b.member_name(st, 0, "words");
        let p = self.ptr(StorageClass::StorageBuffer, st);
        let var = self.global_var(p, StorageClass::StorageBuffer, None);
        self.b.decorate(var, spirv::Decoration::DescriptorSet, [dr::Operand::LiteralBit32(abi::BIND_GROUP)]);
        self.b.decorate(var, spirv::Decoration::Binding, [dr::Operand::LiteralBit32(binding)]);
        self.b.name(var, name);
        var
    }
    fn heap_var(&mut self) -> Word {
        match self.heap_var {
            Some(v) => v,
            None => {
                let v = self.buffer_var(abi::BINDING_HEAP, false, "heap");
                self.heap_var = Some(v);
                v
            }
        }
    }
    /// Heap segment slot `j` ≥ 1 (`Memory::Segment(j)`) at binding `abi::segment_binding(j)`.
    fn segment_var(&mut self, j: u8) -> Word {
        if let Some(&v) = self.segment_vars.get(&j) {
            return v;
        }
        let v = self.buffer_var(abi::segment_binding(j as u32), false, mem_name(Memory::Segment(j)));
        self.segment_vars.insert(j, v);
        v
    }
    /// The `u64` view of heap memory `memory` (slot 0's, or a segment slot's).
    fn heap64_var_of(&mut self, memory: Memory) -> Word {
        let Memory::Segment(j) = memory else { return self.heap64_var() };
        if let Some(&v) = self.segment64_vars.get(&j) {
            return v;
        }
        let var = self.u64_view_var(&format!("{}_64", mem_name(memory)), abi::segment_binding64(j as u32));
        self.segment64_vars.insert(j, var);
        var
    }
    /// `struct { u64 dwords[]; }` named `name` at `binding`: a `u64` view of a heap buffer.
    fn u64_view_var(&mut self, name: &str, binding: u32) -> Word {
        let arr = self.u64_runtime_array();
        let st_id = self.b.id();
        let st = self.b.type_struct_id(Some(st_id), [arr]);
        self.b.decorate(st, spirv::Decoration::Block, []);
        self.b.member_decorate(st, 0, spirv::Decoration::Offset, [dr::Operand::LiteralBit32(0)]);
        self.b.name(st, format!("{name}_block"));
        self.b.member_name(st, 0, "dwords");
        let p = self.ptr(StorageClass::StorageBuffer, st);
        let var = self.global_var(p, StorageClass::StorageBuffer, None);
        self.b.decorate(var, spirv::Decoration::DescriptorSet, [dr::Operand::LiteralBit32(abi::BIND_GROUP)]);
        self.b.decorate(var, spirv::Decoration::Binding, [dr::Operand::LiteralBit32(binding)]);
        self.b.name(var, name);
        var
    }
    /// The `u64` runtime array type (one id: rspirv finds an existing type), decorated with its
    /// stride once.
    fn u64_runtime_array(&mut self) -> Word {
        let t = self.ty(Ty::U64);
        let arr = self.b.type_runtime_array(t);
        if self.heap64_var.is_none() && self.segment64_vars.is_empty() {
            self.b.decorate(arr, spirv::Decoration::ArrayStride, [dr::Operand::LiteralBit32(8)]);
        }
        arr
    }
    /// `struct { u64 dwords[]; }` at binding `abi::BINDING_HEAP64`.
    fn heap64_var(&mut self) -> Word {
        if let Some(v) = self.heap64_var {
            return v;
        }
        let var = self.u64_view_var("heap64", abi::BINDING_HEAP64);
        self.heap64_var = Some(var);
        var
    }
    fn param_var(&mut self) -> Word {
        match self.param_var {
            Some(v) => v,
            None => {
                let v = self.buffer_var(abi::BINDING_PARAMS, true, "params");
                self.param_var = Some(v);
                v
            }
        }
    }
    fn scratch_var(&mut self) -> Word {
        match self.scratch_var {
            Some(v) => v,
            None => {
                let v = self.buffer_var(abi::BINDING_SCRATCH, false, "scratch");
                self.scratch_var = Some(v);
                v
            }
        }
    }
    /// The storage buffer of `memory` (heap, params or scratch).
    fn storage_buffer_var(&mut self, memory: Memory) -> Word {
        match memory {
            Memory::Heap => self.heap_var(),
            Memory::Segment(j) => self.segment_var(j),
            Memory::Param => self.param_var(),
            _ => self.scratch_var(),
        }
    }
    fn builtin_var(&mut self, which: BuiltinVar) -> Word {
        if let Some(&v) = self.builtin_vars.get(&which) {
            return v;
        }
        let scalar = matches!(which, BuiltinVar::SubgroupSize | BuiltinVar::SubgroupLocalInvocationId);
        let t = if scalar { self.t_u32() } else { self.t_uvec3() };
        let p = self.ptr(StorageClass::Input, t);
        let var = self.global_var(p, StorageClass::Input, None);
        let (bi, name) = match which {
            BuiltinVar::LocalInvocationId => (spirv::BuiltIn::LocalInvocationId, "local_invocation_id"),
            BuiltinVar::WorkgroupId => (spirv::BuiltIn::WorkgroupId, "workgroup_id"),
            BuiltinVar::NumWorkgroups => (spirv::BuiltIn::NumWorkgroups, "num_workgroups"),
            BuiltinVar::SubgroupSize => (spirv::BuiltIn::SubgroupSize, "subgroup_size"),
            BuiltinVar::SubgroupLocalInvocationId => (spirv::BuiltIn::SubgroupLocalInvocationId, "subgroup_invocation_id"),
        };
        if scalar {
            self.uses_subgroup = true;
        }
        self.b.decorate(var, spirv::Decoration::BuiltIn, [dr::Operand::BuiltIn(bi)]);
        self.b.name(var, name);
        self.builtin_vars.insert(which, var);
        var
    }

    /// Loads a scalar subgroup built-in (and lists it in the entry point's interface).
    fn subgroup_builtin(&mut self, which: BuiltinVar) -> Result2<Word> {
        let var = self.builtin_var(which);
        self.ks()?.interface.insert(var);
        let u = self.t_u32();
        self.op(Op::Load, u, &[var])
    }

    fn ks(&mut self) -> Result2<&mut KernelState> {
        self.k.as_mut().ok_or_else(|| EmitErrorKind::Internal("no kernel being emitted".into()))
    }

    // ---------------------------------------------------------------- kernels

    /// `analyses`: the kernel's (`Emission::analyses`), asked for after the limits are checked
    /// (they recurse as deep as the kernel nests).
    fn kernel<'a>(&mut self, kernel: &Kernel, analyses: impl FnOnce() -> &'a Analyses) -> Result2<()> {
        if kernel.workgroup_size.contains(&0) {
            return Err(invalid(format!("workgroup size {:?} has a zero dimension", kernel.workgroup_size)));
        }
        // Limits first (the nesting check also keeps the recursive emission's stack bounded).
        let depth = kernel.body.nesting().total;
        if depth > limits::NESTING {
            return Err(EmitErrorKind::Unsupported(format!(
                "kernel {}'s control flow nests {depth} levels deep; Vulkan allows at most {}",
                kernel.name,
                limits::NESTING
            )));
        }
        if kernel.vars.len() > limits::FUNCTION_VARIABLES {
            return Err(EmitErrorKind::Unsupported(format!(
                "kernel {} needs {} variables; Vulkan allows at most {} per function",
                kernel.name,
                kernel.vars.len(),
                limits::FUNCTION_VARIABLES
            )));
        }
        if kernel.entry_point.len() >= limits::STRING_CHARS {
            return Err(invalid(format!(
                "entry point name of {} bytes (SPIR-V strings hold at most {})",
                kernel.entry_point.len(),
                limits::STRING_CHARS - 1
            )));
        }
        let u = self.t_u32();
        let shared_dwords = kernel.shared_dwords();
        let shared_len = if shared_dwords { kernel.shared_words.div_ceil(2) } else { kernel.shared_words };
        let shared_var = if kernel.shared_words > 0 {
            let len = self.c_u32(shared_len);
            let elem = if shared_dwords {
                self.shared_atomics64 = true;
                self.uses_int64 = true;
                self.ty(Ty::U64)
            } else {
                u
            };
            let arr = self.b.type_array(elem, len);
            let p = self.ptr(StorageClass::Workgroup, arr);
            let v = self.global_var(p, StorageClass::Workgroup, None);
            self.b.name(v, debug_name(&format!("{}_shared", kernel.entry_point)));
            Some(v)
        } else {
            None
        };
        let local_var = if kernel.local_words > 0 && kernel.local_placement == LocalPlacement::Private {
            let len = self.c_u32(kernel.local_words);
            let arr = self.b.type_array(u, len);
            let p = self.ptr(StorageClass::Private, arr);
            // Zero-initialised like WGSL's private variables, so both targets agree.
            let init = self.null(arr);
            let v = self.global_var(p, StorageClass::Private, Some(init));
            self.b.name(v, debug_name(&format!("{}_local", kernel.entry_point)));
            Some(v)
        } else {
            None
        };
        let a = analyses();
        let mut is_value = a.values.clone();
        keep_variables_across_groups(&kernel.body, &mut is_value);
        // The kernel's functions: one id per distinct function of the module.
        let mut func_ids = Vec::with_capacity(kernel.functions.len());
        for f in &kernel.functions {
            let known = self.functions.get(&f.name).and_then(|l| l.iter().find(|(g, _)| g == f)).map(|(_, id)| *id);
            let id = known.unwrap_or_else(|| {
                let id = self.b.id();
                self.functions.entry(f.name.clone()).or_default().push((f.clone(), id));
                self.pending_functions.push((f.clone(), id));
                id
            });
            func_ids.push(id);
        }
        self.k = Some(KernelState {
            shared_var,
            shared_len,
            shared_dwords,
            local_var,
            local_len: kernel.local_words,
            func_ids,
            ..KernelState::of(kernel, &kernel.name, a, is_value)
        });

        let void = self.t_void();
        let fty = self.b.type_function(void, []);
        let fid = self.begin_function(void, None, fty)?;
        self.b.name(fid, kernel.entry_point.clone());
        self.new_block()?;
        // Debug names are made unique (`t`, `t_17`, …): spirv-val's name mapper is quadratic in
        // the number of equal names (5,000 temporaries named `t`: 3.3 s of CPU instead of 0.07 s).
        let mut names = std::collections::HashSet::new();
        for (i, info) in kernel.vars.iter().enumerate() {
            if kernel.fault_site_var.is_some_and(|v| v.index() == i) && info.ty == Ty::U32 {
                if let Some(site) = self.site_var {
                    self.ks()?.vars.push(site);
                    continue;
                }
            }
            if self.ks()?.is_value[i] {
                self.ks()?.vars.push(0);
                continue;
            }
            let t = self.ty(info.ty);
            let p = self.ptr(StorageClass::Function, t);
            let init = self.null(t);
            let v = self.function_var(p, init)?;
            if !info.name.is_empty() {
                let name = debug_name(&info.name);
                let name = if names.insert(name.clone()) { name } else { format!("{name}_{i}") };
                self.b.name(v, name);
            }
            self.ks()?.vars.push(v);
        }
        let terminated = self.block(kernel, &kernel.body)?;
        if !terminated {
            self.flush()?;
            self.ret()?;
        }
        self.end_function()?;

        let interface: Vec<Word> = self.ks()?.interface.iter().copied().collect();
        self.b.entry_point(spirv::ExecutionModel::GLCompute, fid, kernel.entry_point.clone(), interface);
        self.b.execution_mode(fid, spirv::ExecutionMode::LocalSize, kernel.workgroup_size);
        // PTX keeps subnormals unless an instruction says `.ftz`, and `lower` flushes those
        // itself; Vulkan lets a driver flush by default, and NVIDIA's does (f32 subnormals read
        // as zero on an H200, driver 580). `DenormPreserve` asks for IEEE behaviour.
        for (ty, width) in [(Ty::F32, 32u32), (Ty::F64, 64)] {
            if kernel.vars.iter().chain(kernel.functions.iter().flat_map(|f| &f.vars)).any(|v| v.ty == ty) {
                self.b.execution_mode(fid, spirv::ExecutionMode::DenormPreserve, [width]);
                // (`SignedZeroInfNanPreserve` is not declared: lavapipe ignored it for the folds
                // `lower/src/misread_constants.rs` prevents, and naga's SPIR-V reader refuses it.)
                self.uses_denorm_preserve = true;
            }
        }

        // Helpers this kernel asked for (its own shared/local ones, and new heap/param ones).
        let pending = std::mem::take(&mut self.pending);
        for h in pending {
            self.helper(h)?;
        }
        self.k = None;
        for (f, id) in std::mem::take(&mut self.pending_functions) {
            self.function(&f, id)?;
        }
        Ok(())
    }

    /// Emits `f` (an `ir::Function`) as `OpFunction` `id`: its parameters are values (ids),
    /// its other variables as a kernel's.
    fn function(&mut self, f: &Function, id: Word) -> Result2<()> {
        let k = f.as_kernel(&f.name);
        let a = Analyses::of(&k);
        let mut is_value = a.values.clone();
        keep_variables_across_groups(&k.body, &mut is_value);
        for p in &f.params {
            is_value[p.index()] = true;
        }
        self.k = Some(KernelState::of(&k, &f.name, &a, is_value));
        let ret = self.ty(f.result_ty);
        let ptys: Vec<Word> = f.params.iter().map(|p| k.vars[p.index()].ty).collect::<Vec<_>>().into_iter().map(|t| self.ty(t)).collect();
        let fty = self.b.type_function(ret, ptys.clone());
        self.begin_function(ret, Some(id), fty)?;
        self.b.name(id, debug_name(&f.name));
        for (p, t) in f.params.iter().zip(ptys) {
            let pid = self.function_parameter(t)?;
            self.ks()?.values[p.index()] = Some(pid);
        }
        self.new_block()?;
        for (i, info) in k.vars.iter().enumerate() {
            if self.ks()?.is_value[i] {
                self.ks()?.vars.push(0);
                continue;
            }
            let t = self.ty(info.ty);
            let p = self.ptr(StorageClass::Function, t);
            let init = self.null(t);
            let v = self.function_var(p, init)?;
            self.ks()?.vars.push(v);
        }
        if self.block(&k, &k.body)? {
            return Err(invalid(format!("function {} leaves before giving its result", f.name)));
        }
        let (r, rty) = self.operand(&k, f.result)?;
        if rty != f.result_ty {
            return Err(invalid(format!("function {}: result of type {rty:?}, declared {:?}", f.name, f.result_ty)));
        }
        self.ret_value(r)?;
        self.end_function()?;
        let pending = std::mem::take(&mut self.pending);
        for h in pending {
            self.helper(h)?;
        }
        self.k = None;
        Ok(())
    }

    /// Emits the statements of `block`; returns whether control cannot fall off its end.
    ///
    /// A long run of branching statements (selections, loops, switches) at one level is
    /// emitted as a tree of selections on a constant `true` (see [`WRAP_MIN_BRANCHING`]).
    fn block(&mut self, kernel: &Kernel, block: &Block) -> Result2<bool> {
        self.grouped(kernel, &block.stmts)
    }

    fn stmts(&mut self, kernel: &Kernel, stmts: &[Stmt]) -> Result2<bool> {
        for stmt in stmts {
            if self.stmt(kernel, stmt)? {
                // Everything after a terminator is dead: not emitted.
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `stmts` in at most [`WRAP_FAN_OUT`] groups of as many branching statements each (at
    /// least [`WRAP_MIN_BRANCHING`]), each group inside a selection on a constant `true` and
    /// grouped again while it has more than [`WRAP_MIN_BRANCHING`].
    fn grouped(&mut self, kernel: &Kernel, stmts: &[Stmt]) -> Result2<bool> {
        if !is_grouped(stmts) {
            return self.stmts(kernel, stmts);
        }
        let branching = stmts.iter().filter(|s| branches(s)).count();
        let per_group = branching.div_ceil(WRAP_FAN_OUT).max(WRAP_MIN_BRANCHING);
        let mut rest = stmts;
        while !rest.is_empty() {
            // The next group: up to and including its `per_group`-th branching statement.
            let mut seen = 0;
            let mut end = rest.len();
            for (i, s) in rest.iter().enumerate() {
                if branches(s) {
                    seen += 1;
                    if seen == per_group {
                        end = i + 1;
                        break;
                    }
                }
            }
            let (group, after) = rest.split_at(end);
            rest = after;
            let merge = self.b.id();
            let body = self.b.id();
            let t = self.konst(Const::Bool(true));
            self.selection_merge(merge)?;
            self.branch_conditional(t, body, merge)?;
            self.begin_block(body)?;
            let term = self.grouped(kernel, group)?;
            if !term {
                self.branch(merge)?;
            }
            self.begin_block(merge)?;
            if term {
                // The merge is reached only by the constant condition's false edge; what
                // follows the terminator is dead, as in `stmts`.
                self.unreachable()?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether `v` is an index of `memory` that `lower` has checked.
    fn heap_direct(&mut self, memory: Memory, v: VarId) -> Result2<bool> {
        Ok(memory.is_heap() && self.ks()?.heap_direct.get(v.index()).copied().flatten() == Some(memory))
    }

    fn var(&mut self, kernel: &Kernel, v: VarId) -> Result2<(Word, Ty)> {
        let ty = kernel
            .vars
            .get(v.index())
            .map(|i| i.ty)
            .ok_or_else(|| invalid(format!("variable {v} does not exist (kernel has {})", kernel.vars.len())))?;
        let id = self.ks()?.vars[v.index()];
        Ok((id, ty))
    }

    fn stmt(&mut self, kernel: &Kernel, stmt: &Stmt) -> Result2<bool> {
        match stmt {
            Stmt::Assign { dst, expr } => {
                let (ptr, ty) = self.var(kernel, *dst)?;
                let direct = self.ks()?.direct_params.get(dst.index()).copied().unwrap_or(false);
                let (val, vty) = match expr {
                    // In range for every launch, and not deciding a branch: no check
                    // (`Kernel::direct_param_loads`).
                    Expr::LoadWord { memory: Memory::Param, index } if direct && kernel.param_word_in_range(*index) => {
                        let idx = self.operand_of(kernel, *index, Ty::U32, "load index")?;
                        let p = self.word_ptr(Memory::Param, idx)?;
                        let u = self.t_u32();
                        (self.op(Op::Load, u, &[p])?, Ty::U32)
                    }
                    // In range for every launch but kept opaque to the driver (a lavapipe
                    // workaround, `Kernel::direct_param_loads`): the checked load's selects
                    // without its fault, which could never fire.
                    Expr::LoadWord { memory: Memory::Param, index } if kernel.param_word_in_range(*index) => {
                        let idx = self.operand_of(kernel, *index, Ty::U32, "load index")?;
                        let ok = self.in_bounds(Memory::Param, idx)?.ok_or_else(|| EmitErrorKind::Internal("parameter buffer without a length".into()))?;
                        let u = self.t_u32();
                        let zero = self.c_u32(0);
                        let j = self.op(Op::Select, u, &[ok, idx, zero])?;
                        let p = self.word_ptr(Memory::Param, j)?;
                        let w = self.op(Op::Load, u, &[p])?;
                        (self.op(Op::Select, u, &[ok, w, zero])?, Ty::U32)
                    }
                    // Checked by `lower` (`Kernel::heap_indices_in_range`): no check here.
                    Expr::LoadWord { memory, index: index @ Operand::Var(v) } if self.heap_direct(*memory, *v)? => {
                        let idx = self.operand_of(kernel, *index, Ty::U32, "load index")?;
                        let p = self.word_ptr(*memory, idx)?;
                        let u = self.t_u32();
                        (self.op(Op::Load, u, &[p])?, Ty::U32)
                    }
                    // In range by the value facts (`Kernel::index_in_range`): no check.
                    Expr::LoadWord { memory: m @ (Memory::Shared | Memory::Local), index } if kernel.index_in_range(*m, *index, &self.ks()?.facts) => {
                        let idx = self.operand_of(kernel, *index, Ty::U32, "load index")?;
                        let p = self.word_ptr(*m, idx)?;
                        let u = self.t_u32();
                        (self.op(Op::Load, u, &[p])?, Ty::U32)
                    }
                    _ => self.expr(kernel, expr)?,
                };
                if vty != ty {
                    return Err(invalid(format!("assignment of a {vty:?} value to {dst} of type {ty:?}")));
                }
                if ptr == 0 {
                    self.ks()?.values[dst.index()] = Some(val);
                } else {
                    self.op_void(Op::Store, &[ptr, val])?;
                }
                Ok(false)
            }
            Stmt::StoreWord { memory, index, value } => {
                if *memory == Memory::Param {
                    return Err(invalid("store to the read-only parameter memory"));
                }
                let idx = self.operand_of(kernel, *index, Ty::U32, "store index")?;
                let val = self.operand_of(kernel, *value, Ty::U32, "stored word")?;
                if let Operand::Var(v) = index {
                    if self.heap_direct(*memory, *v)? {
                        // Checked by `lower` (`Kernel::heap_indices_in_range`).
                        let p = self.word_ptr(*memory, idx)?;
                        self.op_void(Op::Store, &[p, val])?;
                        return Ok(false);
                    }
                }
                if matches!(memory, Memory::Shared | Memory::Local) && kernel.index_in_range(*memory, *index, &self.ks()?.facts) {
                    // In range by the value facts (`Kernel::index_in_range`).
                    let p = self.word_ptr(*memory, idx)?;
                    self.op_void(Op::Store, &[p, val])?;
                    return Ok(false);
                }
                let f = self.helper_id(*memory, Access::Store)?;
                let void = self.t_void();
                self.op(Op::FunctionCall, void, &[f, idx, val])?;
                Ok(false)
            }
            Stmt::If { cond, then_body, else_body }
                if else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]) =>
            {
                // `if (c) { fault }` (lower's alignment checks): deferred, without a branch.
                let Stmt::Fault { code } = then_body.stmts[0] else { unreachable!() };
                let c = self.operand_of(kernel, *cond, Ty::Bool, "if condition")?;
                let bits = self.c_u32(code);
                self.defer(c, bits)?;
                Ok(false)
            }
            Stmt::If { cond, then_body, else_body } => {
                let c = self.operand_of(kernel, *cond, Ty::Bool, "if condition")?;
                let merge = self.b.id();
                let then_l = self.b.id();
                let else_l = if else_body.stmts.is_empty() { merge } else { self.b.id() };
                self.selection_merge(merge)?;
                self.branch_conditional(c, then_l, else_l)?;
                self.begin_block(then_l)?;
                let then_term = self.block(kernel, then_body)?;
                if !then_term {
                    self.branch(merge)?;
                }
                let else_term = if else_body.stmts.is_empty() {
                    false
                } else {
                    self.begin_block(else_l)?;
                    let t = self.block(kernel, else_body)?;
                    if !t {
                        self.branch(merge)?;
                    }
                    t
                };
                self.begin_block(merge)?;
                if then_term && else_term {
                    self.unreachable()?;
                    return Ok(true);
                }
                Ok(false)
            }
            Stmt::Loop { body } => {
                let header = self.b.id();
                let body_l = self.b.id();
                let cont = self.b.id();
                let merge = self.b.id();
                self.branch(header)?;
                self.begin_block(header)?;
                self.op_void(Op::LoopMerge, &[merge, cont, spirv::LoopControl::NONE.bits()])?;
                self.branch(body_l)?;
                self.begin_block(body_l)?;
                self.ks()?.loops.push(LoopCtx { merge, cont, has_break: false, open_switches: 0 });
                let term = self.block(kernel, body);
                let ctx = self.ks()?.loops.pop();
                if !term? {
                    self.branch(cont)?;
                }
                self.begin_block(cont)?;
                self.branch(header)?;
                self.begin_block(merge)?;
                if !ctx.is_some_and(|c| c.has_break) {
                    // Left only through Return: code after the loop is dead.
                    self.unreachable()?;
                    return Ok(true);
                }
                Ok(false)
            }
            Stmt::Switch { selector, cases, default } => {
                let sel = self.operand_of(kernel, *selector, Ty::U32, "switch selector")?;
                let pairs: usize = cases.iter().map(|c| c.values.len()).sum();
                if pairs > limits::SWITCH_PAIRS {
                    return Err(EmitErrorKind::Unsupported(format!(
                        "a switch with {pairs} cases; Vulkan allows at most {} per switch",
                        limits::SWITCH_PAIRS
                    )));
                }
                let merge = self.b.id();
                let default_l = self.b.id();
                let labels: Vec<Word> = cases.iter().map(|_| self.b.id()).collect();
                let mut seen = std::collections::HashSet::new();
                let mut targets = Vec::with_capacity(2 * pairs);
                for (c, &l) in cases.iter().zip(&labels) {
                    for &v in &c.values {
                        if !seen.insert(v) {
                            return Err(invalid(format!("switch case value {v} appears twice")));
                        }
                        targets.extend([v, l]);
                    }
                }
                self.selection_merge(merge)?;
                self.f.terminate(Op::Switch, &[sel, default_l], &targets).map_err(internal)?;
                if let Some(l) = self.ks()?.loops.last_mut() {
                    l.open_switches += 1;
                }
                let mut all_terminated = true;
                let bodies = cases.iter().map(|c| &c.body).zip(labels).chain(std::iter::once((default, default_l)));
                let mut result = Ok(());
                for (body, label) in bodies {
                    result = self.begin_block(label).and_then(|()| self.block(kernel, body)).and_then(|t| {
                        all_terminated &= t;
                        if t {
                            Ok(())
                        } else {
                            self.branch(merge)
                        }
                    });
                    if result.is_err() {
                        break;
                    }
                }
                if let Some(l) = self.ks()?.loops.last_mut() {
                    l.open_switches -= 1;
                }
                result?;
                self.begin_block(merge)?;
                if all_terminated {
                    self.unreachable()?;
                    return Ok(true);
                }
                Ok(false)
            }
            Stmt::Break => {
                let ks = self.ks()?;
                let l = ks.loops.last_mut().ok_or_else(|| invalid("`Break` outside of a loop"))?;
                if l.open_switches > 0 {
                    return Err(invalid("`Break` directly inside a switch case"));
                }
                l.has_break = true;
                let merge = l.merge;
                self.branch(merge)?;
                Ok(true)
            }
            Stmt::Continue => {
                let ks = self.ks()?;
                let l = ks.loops.last().ok_or_else(|| invalid("`Continue` outside of a loop"))?;
                if l.open_switches > 0 {
                    return Err(invalid("`Continue` directly inside a switch case"));
                }
                let cont = l.cont;
                self.branch(cont)?;
                Ok(true)
            }
            Stmt::Return => {
                self.flush()?;
                self.ret()?;
                Ok(true)
            }
            Stmt::Barrier => {
                self.workgroup_barrier()?;
                Ok(false)
            }
            Stmt::SharedBarrier => {
                let scope = self.c_u32(SCOPE_WORKGROUP);
                let sem = self.c_u32(SEMANTICS_SHARED_BARRIER);
                self.op_void(Op::ControlBarrier, &[scope, scope, sem])?;
                Ok(false)
            }
            Stmt::Fault { code } => {
                self.fault(*code)?;
                Ok(false)
            }
            Stmt::Fence { scope } => {
                let s = match scope {
                    Scope::Workgroup => SCOPE_WORKGROUP,
                    Scope::Device => {
                        self.device_fence = true;
                        SCOPE_DEVICE
                    }
                };
                if kernel.features.fences_as_sink_atomics {
                    self.sink_atomic_fence()?;
                    return Ok(false);
                }
                let s = self.c_u32(s);
                let sem = self.c_u32(SEMANTICS_FENCE);
                self.op_void(Op::MemoryBarrier, &[s, sem])?;
                Ok(false)
            }
        }
    }

    // ---------------------------------------------------------------- expressions

    fn operand(&mut self, kernel: &Kernel, o: Operand) -> Result2<(Word, Ty)> {
        match o {
            Operand::Const(c) => Ok((self.konst(c), c.ty())),
            Operand::Var(v) => {
                let (ptr, ty) = self.var(kernel, v)?;
                if ptr == 0 {
                    let id = self.ks()?.values[v.index()].ok_or_else(|| invalid(format!("value {v} read before its assignment")))?;
                    return Ok((id, ty));
                }
                let t = self.ty(ty);
                let id = self.op(Op::Load, t, &[ptr])?;
                Ok((id, ty))
            }
        }
    }

    fn operand_of(&mut self, kernel: &Kernel, o: Operand, want: Ty, what: &str) -> Result2<Word> {
        let (id, ty) = self.operand(kernel, o)?;
        if ty != want {
            return Err(invalid(format!("{what}: expected a {want:?} operand, found {ty:?} ({o:?})")));
        }
        Ok(id)
    }

    fn expr(&mut self, kernel: &Kernel, e: &Expr) -> Result2<(Word, Ty)> {
        match *e {
            Expr::Use(o) => self.operand(kernel, o),
            Expr::Unary { op, ty, arg } => {
                let a = self.operand_of(kernel, arg, ty, "unary operand")?;
                self.unary(op, ty, a)
            }
            Expr::Binary { op, ty, lhs, rhs } => {
                let l = self.operand_of(kernel, lhs, ty, "binary lhs")?;
                let rty = if matches!(op, BinaryOp::Shl | BinaryOp::ShrU | BinaryOp::ShrS) { Ty::U32 } else { ty };
                let mut r = self.operand_of(kernel, rhs, rty, "binary rhs")?;
                if rty != ty && ty == Ty::U64 {
                    // 64-bit shift: give the amount the base's width. SPIR-V allows mixed
                    // widths, but not every driver has been robust with them.
                    r = match rhs {
                        Operand::Const(Const::U32(c)) => self.konst(Const::U64(c as u64)),
                        _ => {
                            let t = self.ty(Ty::U64);
                            self.op(Op::UConvert, t, &[r])?
                        }
                    };
                }
                Ok((self.binary(op, ty, l, r)?, ty))
            }
            Expr::Fma { ty, a, b, c } => {
                if !ty.is_float() {
                    return Err(invalid(format!("Fma on {ty:?}")));
                }
                let a = self.operand_of(kernel, a, ty, "fma a")?;
                let b = self.operand_of(kernel, b, ty, "fma b")?;
                let c = self.operand_of(kernel, c, ty, "fma c")?;
                let t = self.ty(ty);
                Ok((self.ext(t, glsl::FMA, &[a, b, c])?, ty))
            }
            Expr::Compare { op, ty, lhs, rhs } => {
                let l = self.operand_of(kernel, lhs, ty, "compare lhs")?;
                let r = self.operand_of(kernel, rhs, ty, "compare rhs")?;
                Ok((self.compare(op, ty, l, r)?, Ty::Bool))
            }
            Expr::Select { ty, cond, a, b } => {
                let c = self.operand_of(kernel, cond, Ty::Bool, "select condition")?;
                let a = self.operand_of(kernel, a, ty, "select a")?;
                let b = self.operand_of(kernel, b, ty, "select b")?;
                let t = self.ty(ty);
                Ok((self.op(Op::Select, t, &[c, a, b])?, ty))
            }
            Expr::Convert { op, from, to, arg } => {
                let a = self.operand_of(kernel, arg, from, "convert operand")?;
                Ok((self.convert(op, from, to, a)?, to))
            }
            Expr::Builtin(Builtin::SubgroupSize) => Ok((self.subgroup_builtin(BuiltinVar::SubgroupSize)?, Ty::U32)),
            Expr::Builtin(Builtin::SubgroupInvocationId) => {
                Ok((self.subgroup_builtin(BuiltinVar::SubgroupLocalInvocationId)?, Ty::U32))
            }
            Expr::Builtin(b @ (Builtin::HeapWords | Builtin::SegmentWords(_))) => {
                let mem = if let Builtin::SegmentWords(j) = b { Memory::Segment(j) } else { Memory::Heap };
                let var = self.storage_buffer_var(mem);
                let u = self.t_u32();
                Ok((self.array_length(u, var)?, Ty::U32))
            }
            Expr::WarpBallot { pred } => {
                // The word of the subgroup's ballot that holds this invocation's warp.
                let p = self.operand_of(kernel, pred, Ty::Bool, "ballot predicate")?;
                let u = self.t_u32();
                let v4 = self.b.type_vector(u, 4);
                let scope = self.c_u32(SCOPE_SUBGROUP);
                self.uses_ballot = true;
                let ballot = self.op(Op::GroupNonUniformBallot, v4, &[scope, p])?;
                let sgi = self.subgroup_builtin(BuiltinVar::SubgroupLocalInvocationId)?;
                let five = self.c_u32(5);
                let word = self.op(Op::ShiftRightLogical, u, &[sgi, five])?;
                Ok((self.op(Op::VectorExtractDynamic, u, &[ballot, word])?, Ty::U32))
            }
            Expr::WarpShuffle { value, lane } => {
                let v = self.operand_of(kernel, value, Ty::U32, "shuffle value")?;
                let l = self.operand_of(kernel, lane, Ty::U32, "shuffle lane")?;
                let u = self.t_u32();
                let sgi = self.subgroup_builtin(BuiltinVar::SubgroupLocalInvocationId)?;
                let (high, low) = (self.c_u32(!31), self.c_u32(31));
                let base = self.op(Op::BitwiseAnd, u, &[sgi, high])?;
                let l = self.op(Op::BitwiseAnd, u, &[l, low])?;
                let id = self.op(Op::BitwiseOr, u, &[base, l])?;
                let scope = self.c_u32(SCOPE_SUBGROUP);
                self.uses_shuffle = true;
                Ok((self.op(Op::GroupNonUniformShuffle, u, &[scope, v, id])?, Ty::U32))
            }
            Expr::Builtin(bi) => {
                let (which, dim) = match bi {
                    Builtin::ThreadId(d) => (BuiltinVar::LocalInvocationId, d),
                    Builtin::CtaId(d) => (BuiltinVar::WorkgroupId, d),
                    Builtin::NumCtas(d) => (BuiltinVar::NumWorkgroups, d),
                    Builtin::SubgroupSize | Builtin::SubgroupInvocationId | Builtin::HeapWords | Builtin::SegmentWords(_) => {
                        unreachable!("matched above")
                    }
                };
                if dim > 2 {
                    return Err(invalid(format!("builtin {bi:?}: dimension {dim} is not x, y or z")));
                }
                let var = self.builtin_var(which);
                self.ks()?.interface.insert(var);
                let v3 = self.t_uvec3();
                let u = self.t_u32();
                let vec = self.op(Op::Load, v3, &[var])?;
                Ok((self.extract(u, vec, dim as u32)?, Ty::U32))
            }
            Expr::LoadWord { memory, index } => {
                let idx = self.operand_of(kernel, index, Ty::U32, "load index")?;
                let f = self.helper_id(memory, Access::Load)?;
                let u = self.t_u32();
                Ok((self.op(Op::FunctionCall, u, &[f, idx])?, Ty::U32))
            }
            Expr::SharedUniformLoad { index } => {
                // SPIR-V has no uniformity analysis to satisfy: the barrier, then the load.
                self.workgroup_barrier()?;
                let idx = self.operand_of(kernel, index, Ty::U32, "uniform load index")?;
                let f = self.helper_id(Memory::Shared, Access::Load)?;
                let u = self.t_u32();
                Ok((self.op(Op::FunctionCall, u, &[f, idx])?, Ty::U32))
            }
            Expr::AtomicWord { memory, op, index, value, comparand } => {
                // The scratch buffer's: shared memory that lives there (`Features::scratch_shared_words`).
                if !(memory.is_heap() || memory == Memory::Shared || memory == Memory::Scratch) {
                    return Err(invalid(format!("atomic on {} memory (only heap, shared and scratch have atomics)", mem_name(memory))));
                }
                let idx = self.operand_of(kernel, index, Ty::U32, "atomic index")?;
                let val = self.operand_of(kernel, value, Ty::U32, "atomic value")?;
                let mut args = vec![0, idx, val];
                match (op, comparand) {
                    (AtomicOp::CompareExchange, Some(c)) => {
                        args.push(self.operand_of(kernel, c, Ty::U32, "atomic comparand")?);
                    }
                    (AtomicOp::CompareExchange, None) => {
                        return Err(invalid("CompareExchange without a comparand"));
                    }
                    (_, Some(_)) => return Err(invalid(format!("atomic {op:?} with a comparand"))),
                    (_, None) => {}
                }
                args[0] = self.helper_id(memory, Access::Atomic(op))?;
                let u = self.t_u32();
                Ok((self.op(Op::FunctionCall, u, &args)?, Ty::U32))
            }
            Expr::LoadDword { memory, index } => {
                if memory != Memory::Shared {
                    return Err(invalid(format!("64-bit load of {} memory (only shared doublewords)", mem_name(memory))));
                }
                let idx = self.operand_of(kernel, index, Ty::U32, "load index")?;
                let f = self.helper_id(memory, Access::Load64)?;
                let t = self.ty(Ty::U64);
                Ok((self.op(Op::FunctionCall, t, &[f, idx])?, Ty::U64))
            }
            Expr::AtomicDword { memory, op, index, value, comparand } => {
                if !(memory.is_heap() || memory == Memory::Shared) {
                    return Err(invalid(format!("64-bit atomic on {} memory (only heap and shared have them)", mem_name(memory))));
                }
                let idx = self.operand_of(kernel, index, Ty::U32, "atomic index")?;
                let val = self.operand_of(kernel, value, Ty::U64, "atomic value")?;
                let mut args = vec![0, idx, val];
                match (op, comparand) {
                    (AtomicOp::CompareExchange, Some(c)) => {
                        args.push(self.operand_of(kernel, c, Ty::U64, "atomic comparand")?);
                    }
                    (AtomicOp::CompareExchange, None) => {
                        return Err(invalid("CompareExchange without a comparand"));
                    }
                    (_, Some(_)) => return Err(invalid(format!("atomic {op:?} with a comparand"))),
                    (_, None) => {}
                }
                args[0] = self.helper_id(memory, Access::Atomic64(op))?;
                let t = self.ty(Ty::U64);
                Ok((self.op(Op::FunctionCall, t, &args)?, Ty::U64))
            }
            Expr::Call { func, ty, ref args } => {
                let f = kernel.functions.get(func as usize).ok_or_else(|| invalid(format!("call of function {func}, which does not exist")))?;
                if f.params.len() != args.len() || f.result_ty != ty {
                    return Err(invalid(format!("call of {} with {} arguments of result {ty:?}", f.name, args.len())));
                }
                let mut ids = vec![*self.ks()?.func_ids.get(func as usize).ok_or_else(|| invalid("call outside a kernel"))?];
                for (a, p) in args.iter().zip(&f.params) {
                    let want = f.vars[p.index()].ty;
                    ids.push(self.operand_of(kernel, *a, want, "call argument")?);
                }
                let t = self.ty(ty);
                Ok((self.op(Op::FunctionCall, t, &ids)?, ty))
            }
        }
    }

    /// Splits a U64 value into (lo, hi) U32 halves.
    fn split64(&mut self, v: Word) -> Result2<(Word, Word)> {
        let v2 = self.t_uvec2();
        let u = self.t_u32();
        let vec = self.op(Op::Bitcast, v2, &[v])?;
        Ok((self.extract(u, vec, 0)?, self.extract(u, vec, 1)?))
    }
    fn join64(&mut self, lo: Word, hi: Word) -> Result2<Word> {
        let v2 = self.t_uvec2();
        let t = self.ty(Ty::U64);
        let vec = self.op(Op::CompositeConstruct, v2, &[lo, hi])?;
        self.op(Op::Bitcast, t, &[vec])
    }
    /// Leading zeros of a U32 value: `31 - FindUMsb(x)`, which is 32 for 0 (FindUMsb(0) = -1).
    fn clz32(&mut self, x: Word) -> Result2<Word> {
        let u = self.t_u32();
        let msb = self.ext(u, glsl::FIND_UMSB, &[x])?;
        let c31 = self.c_u32(31);
        self.op(Op::ISub, u, &[c31, msb])
    }

    /// Applies `f` to the sign word of a float (the whole word for F32, the high word of F64):
    /// sign-bit manipulations done on integers, so NaN payloads and zeros are exact.
    fn float_sign_op(&mut self, ty: Ty, a: Word, op: Op, mask: u32) -> Result2<Word> {
        let u = self.t_u32();
        let m = self.c_u32(mask);
        let t = self.ty(ty);
        match ty {
            Ty::F32 => {
                let bits = self.op(Op::Bitcast, u, &[a])?;
                let r = self.op(op, u, &[bits, m])?;
                self.op(Op::Bitcast, t, &[r])
            }
            _ => {
                // F64 through a uvec2 (no Int64 needed): component 1 holds the high word.
                let v2 = self.t_uvec2();
                let vec = self.op(Op::Bitcast, v2, &[a])?;
                let hi = self.extract(u, vec, 1)?;
                let hi2 = self.op(op, u, &[hi, m])?;
                let ins = self
                    .insert(v2, hi2, vec, 1)?;
                self.op(Op::Bitcast, t, &[ins])
            }
        }
    }

    /// F64 truncation as `x < 0 ? ceil(x) : floor(x)`: exact on every IEEE implementation of
    /// Floor/Ceil, sign of zero included. (GLSL.std.450 Trunc on f64 is not used: lavapipe's
    /// lowering of it returns +0 for -0.5 and -0, and 2^52-1 for 2^52-0.5 — measured.)
    fn trunc_f64(&mut self, x: Word) -> Result2<Word> {
        let t = self.ty(Ty::F64);
        let bt = self.t_bool();
        let zero = self.konst(Const::F64(0));
        let neg = self.op(Op::FOrdLessThan, bt, &[x, zero])?;
        let c = self.ext(t, glsl::CEIL, &[x])?;
        let f = self.ext(t, glsl::FLOOR, &[x])?;
        self.op(Op::Select, t, &[neg, c, f])
    }

    /// F64 round-half-even without GLSL.std.450 RoundEven (lavapipe's f64 lowering of it rounds
    /// 1.5 to 1 and loses the sign of zero — measured): for |x| < 2^52,
    /// `(|x| + 2^52) - 2^52` rounds |x| to an integer under the IEEE default rounding (both
    /// operations NoContraction, so nothing reassociates them), then x's sign bit is put back;
    /// larger magnitudes, infinities and NaN are already integral/unchanged and pass through.
    fn round_even_f64(&mut self, x: Word) -> Result2<Word> {
        let t = self.ty(Ty::F64);
        let bt = self.t_bool();
        let u = self.t_u32();
        let v2 = self.t_uvec2();
        let two52 = self.konst(Const::F64(0x4330_0000_0000_0000));
        let ax = self.float_sign_op(Ty::F64, x, Op::BitwiseAnd, 0x7fff_ffff)?;
        let small = self.op(Op::FOrdLessThan, bt, &[ax, two52])?;
        let big = self.op(Op::FAdd, t, &[ax, two52])?;
        self.no_contraction(big);
        let r = self.op(Op::FSub, t, &[big, two52])?;
        self.no_contraction(r);
        // copysign(r, x): r >= 0, so OR x's sign bit into r's high word.
        let xv = self.op(Op::Bitcast, v2, &[x])?;
        let xhi = self.extract(u, xv, 1)?;
        let mask = self.c_u32(0x8000_0000);
        let sign = self.op(Op::BitwiseAnd, u, &[xhi, mask])?;
        let rv = self.op(Op::Bitcast, v2, &[r])?;
        let rhi = self.extract(u, rv, 1)?;
        let rhi = self.op(Op::BitwiseOr, u, &[rhi, sign])?;
        let rv = self.insert(v2, rhi, rv, 1)?;
        let signed = self.op(Op::Bitcast, t, &[rv])?;
        self.op(Op::Select, t, &[small, signed, x])
    }

    fn unary(&mut self, op: UnaryOp, ty: Ty, a: Word) -> Result2<(Word, Ty)> {
        let bad = || invalid(format!("unary {op:?} on {ty:?}"));
        let t = self.ty(ty);
        let u = self.t_u32();
        let r = match op {
            UnaryOp::Not => match ty {
                Ty::Bool => self.op(Op::LogicalNot, t, &[a])?,
                Ty::U32 | Ty::U64 => self.op(Op::Not, t, &[a])?,
                _ => return Err(bad()),
            },
            UnaryOp::Neg if ty.is_int() => self.op(Op::SNegate, t, &[a])?,
            UnaryOp::FNeg if ty.is_float() => self.float_sign_op(ty, a, Op::BitwiseXor, 0x8000_0000)?,
            UnaryOp::FAbs if ty.is_float() => self.float_sign_op(ty, a, Op::BitwiseAnd, 0x7fff_ffff)?,
            UnaryOp::FTrunc if ty == Ty::F64 => self.trunc_f64(a)?,
            UnaryOp::FRoundEven if ty == Ty::F64 => self.round_even_f64(a)?,
            UnaryOp::FSqrt | UnaryOp::FFloor | UnaryOp::FCeil | UnaryOp::FTrunc | UnaryOp::FRoundEven if ty.is_float() => {
                let inst = match op {
                    UnaryOp::FSqrt => glsl::SQRT,
                    UnaryOp::FFloor => glsl::FLOOR,
                    UnaryOp::FCeil => glsl::CEIL,
                    UnaryOp::FTrunc => glsl::TRUNC,
                    _ => glsl::ROUND_EVEN,
                };
                self.ext(t, inst, &[a])?
            }
            UnaryOp::Popcount => match ty {
                // Vulkan allows OpBitCount only on 32-bit integers.
                Ty::U32 => return Ok((self.op(Op::BitCount, u, &[a])?, Ty::U32)),
                Ty::U64 => {
                    let (lo, hi) = self.split64(a)?;
                    let l = self.op(Op::BitCount, u, &[lo])?;
                    let h = self.op(Op::BitCount, u, &[hi])?;
                    return Ok((self.op(Op::IAdd, u, &[l, h])?, Ty::U32));
                }
                _ => return Err(bad()),
            },
            UnaryOp::CountLeadingZeros => match ty {
                Ty::U32 => return Ok((self.clz32(a)?, Ty::U32)),
                Ty::U64 => {
                    let (lo, hi) = self.split64(a)?;
                    let zh = self.clz32(hi)?;
                    let zl = self.clz32(lo)?;
                    let c32 = self.c_u32(32);
                    let zl32 = self.op(Op::IAdd, u, &[zl, c32])?;
                    let zero = self.c_u32(0);
                    let bt = self.t_bool();
                    let hi_nz = self.op(Op::INotEqual, bt, &[hi, zero])?;
                    return Ok((self.op(Op::Select, u, &[hi_nz, zh, zl32])?, Ty::U32));
                }
                _ => return Err(bad()),
            },
            UnaryOp::BitReverse => match ty {
                Ty::U32 => self.op(Op::BitReverse, u, &[a])?,
                Ty::U64 => {
                    let (lo, hi) = self.split64(a)?;
                    let rl = self.op(Op::BitReverse, u, &[lo])?;
                    let rh = self.op(Op::BitReverse, u, &[hi])?;
                    // Reversed: the old high word becomes the low word.
                    self.join64(rh, rl)?
                }
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        };
        Ok((r, ty))
    }

    /// Signed division (truncating) or remainder (sign of the dividend) through unsigned
    /// operations on the magnitudes. Vulkan leaves `OpSRem`/`OpSMod` undefined when an operand
    /// is negative, and NVIDIA's driver does return other values there (`rem.s32 1, -1` gave 1,
    /// seen on an H200 with driver 580); `OpSDiv` is avoided for the same reason. The IR's
    /// preconditions (divisor not 0, not MIN / -1) hold; |MIN| is exact as an unsigned value.
    fn signed_div_rem(&mut self, rem: bool, ty: Ty, l: Word, r: Word) -> Result2<Word> {
        let t = self.ty(ty);
        let bt = self.t_bool();
        let zero = self.konst(if ty == Ty::U64 { Const::U64(0) } else { Const::U32(0) });
        // The sign of a 64-bit operand is tested on its high word: lavapipe (Mesa 22.3.6)
        // evaluates a 64-bit `x < 0` wrongly for sign-extended 32-bit values (`div.s64` of
        // `cvt.s64.s32` -2^31 by 127 divided the unsigned value; tests/tests/adversarial.rs).
        let (l_neg, r_neg) = if ty == Ty::U64 {
            let z32 = self.c_u32(0);
            let (_, lh) = self.split64(l)?;
            let (_, rh) = self.split64(r)?;
            (self.op(Op::SLessThan, bt, &[lh, z32])?, self.op(Op::SLessThan, bt, &[rh, z32])?)
        } else {
            (self.op(Op::SLessThan, bt, &[l, zero])?, self.op(Op::SLessThan, bt, &[r, zero])?)
        };
        let l_flip = self.op(Op::SNegate, t, &[l])?;
        let r_flip = self.op(Op::SNegate, t, &[r])?;
        let l_abs = self.op(Op::Select, t, &[l_neg, l_flip, l])?;
        let r_abs = self.op(Op::Select, t, &[r_neg, r_flip, r])?;
        let (magnitude, negative) = if rem {
            (self.op(Op::UMod, t, &[l_abs, r_abs])?, l_neg)
        } else {
            (self.op(Op::UDiv, t, &[l_abs, r_abs])?, self.op(Op::LogicalNotEqual, bt, &[l_neg, r_neg])?)
        };
        let flipped = self.op(Op::SNegate, t, &[magnitude])?;
        self.op(Op::Select, t, &[negative, flipped, magnitude])
    }

    fn binary(&mut self, op: BinaryOp, ty: Ty, l: Word, r: Word) -> Result2<Word> {
        use BinaryOp::*;
        let bad = || invalid(format!("binary {op:?} on {ty:?}"));
        let t = self.ty(ty);
        let int = ty.is_int();
        let float = ty.is_float();
        let simple = |op: Op| Some(op);
        let opc = match op {
            Add if int => simple(Op::IAdd),
            Sub if int => simple(Op::ISub),
            Mul if int => simple(Op::IMul),
            DivU if int => simple(Op::UDiv),
            DivS | RemS if int => return self.signed_div_rem(op == RemS, ty, l, r),
            RemU if int => simple(Op::UMod),
            And if int => simple(Op::BitwiseAnd),
            Or if int => simple(Op::BitwiseOr),
            Xor if int => simple(Op::BitwiseXor),
            And if ty == Ty::Bool => simple(Op::LogicalAnd),
            Or if ty == Ty::Bool => simple(Op::LogicalOr),
            Xor if ty == Ty::Bool => simple(Op::LogicalNotEqual),
            FAdd | FSub | FMul | FDiv if float => {
                let o = match op {
                    FAdd => Op::FAdd,
                    FSub => Op::FSub,
                    FMul => Op::FMul,
                    _ => Op::FDiv,
                };
                let id = self.op(o, t, &[l, r])?;
                // Never fuse into an FMA: PTX add/sub/mul round each operation.
                self.no_contraction(id);
                return Ok(id);
            }
            _ => None,
        };
        if let Some(o) = opc {
            return self.op(o, t, &[l, r]);
        }
        match op {
            MulHiU | MulHiS if int => {
                let st = self.b.type_struct([t, t]);
                let o = if op == MulHiU { Op::UMulExtended } else { Op::SMulExtended };
                let pair = self.op(o, st, &[l, r])?;
                self.extract(t, pair, 1)
            }
            Shl | ShrU | ShrS if int => {
                let o = match op {
                    Shl => Op::ShiftLeftLogical,
                    ShrU => Op::ShiftRightLogical,
                    _ => Op::ShiftRightArithmetic,
                };
                // (64-bit shift amounts were widened by the caller.)
                self.op(o, t, &[l, r])
            }
            MinU | MinS | MaxU | MaxS if int => {
                let inst = match op {
                    MinU => glsl::UMIN,
                    MinS => glsl::SMIN,
                    MaxU => glsl::UMAX,
                    _ => glsl::SMAX,
                };
                self.ext(t, inst, &[l, r])
            }
            // A comparison and a select, not GLSL's FMin/FMax: NVIDIA's driver flushed subnormal
            // operands of FMin even under `DenormPreserve` (min(0, -subnormal) gave -0 on an
            // H200, driver 580), while its comparisons keep them. The IR's preconditions (no
            // NaN, no ±0 pair) make the two forms equal.
            FMin | FMax if float => {
                let bt = self.t_bool();
                let o = if op == FMin { Op::FOrdLessThan } else { Op::FOrdGreaterThan };
                let l_wins = self.op(o, bt, &[l, r])?;
                self.op(Op::Select, t, &[l_wins, l, r])
            }
            _ => Err(bad()),
        }
    }

    fn compare(&mut self, op: CmpOp, ty: Ty, l: Word, r: Word) -> Result2<Word> {
        use CmpOp::*;
        let bt = self.t_bool();
        let int = ty.is_int();
        let float = ty.is_float();
        let o = match op {
            Eq if int => Op::IEqual,
            Ne if int => Op::INotEqual,
            Eq if ty == Ty::Bool => Op::LogicalEqual,
            Ne if ty == Ty::Bool => Op::LogicalNotEqual,
            LtU if int => Op::ULessThan,
            LeU if int => Op::ULessThanEqual,
            GtU if int => Op::UGreaterThan,
            GeU if int => Op::UGreaterThanEqual,
            LtS if int => Op::SLessThan,
            LeS if int => Op::SLessThanEqual,
            GtS if int => Op::SGreaterThan,
            GeS if int => Op::SGreaterThanEqual,
            FEq if float => Op::FOrdEqual,
            FNe if float => Op::FOrdNotEqual,
            FLt if float => Op::FOrdLessThan,
            FLe if float => Op::FOrdLessThanEqual,
            FGt if float => Op::FOrdGreaterThan,
            FGe if float => Op::FOrdGreaterThanEqual,
            _ => return Err(invalid(format!("compare {op:?} on {ty:?}"))),
        };
        self.op(o, bt, &[l, r])
    }

    fn convert(&mut self, op: ConvertOp, from: Ty, to: Ty, a: Word) -> Result2<Word> {
        use ConvertOp::*;
        use Ty::*;
        let t = self.ty(to);
        let o = match (op, from, to) {
            (Truncate, U64, U32) | (ZeroExtend, U32, U64) => Op::UConvert,
            (SignExtend, U32, U64) => Op::SConvert,
            (FloatToUint, F32 | F64, U32 | U64) => Op::ConvertFToU,
            (FloatToSint, F32 | F64, U32 | U64) => Op::ConvertFToS,
            (UintToFloat, U32 | U64, F32 | F64) => Op::ConvertUToF,
            (SintToFloat, U32 | U64, F32 | F64) => Op::ConvertSToF,
            (FloatToFloat, F32, F64) | (FloatToFloat, F64, F32) => Op::FConvert,
            (Bitcast, U32, F32) | (Bitcast, F32, U32) | (Bitcast, U64, F64) | (Bitcast, F64, U64) => Op::Bitcast,
            _ => return Err(invalid(format!("convert {op:?} from {from:?} to {to:?}"))),
        };
        self.op(o, t, &[a])
    }

    // ---------------------------------------------------------------- memory helpers

    /// The function id of the helper for `access` on `memory`, scheduling its emission.
    fn helper_id(&mut self, memory: Memory, access: Access) -> Result2<Word> {
        let key = (memory, access);
        let per_kernel = matches!(memory, Memory::Shared | Memory::Local);
        let dword = matches!(access, Access::Atomic64(_) | Access::Load64);
        if memory == Memory::Shared && self.ks()?.shared_dwords != dword {
            return Err(invalid(if dword {
                "a 64-bit shared atomic in a kernel whose shared memory is words".to_string()
            } else {
                format!("{access:?} on shared memory that is doublewords (only 64-bit atomics reach it)")
            }));
        }
        let existing = if per_kernel { self.ks()?.helpers.get(&key).copied() } else { self.global_helpers.get(&key).copied() };
        if let Some(id) = existing {
            return Ok(id);
        }
        let id = self.b.id();
        if per_kernel {
            self.ks()?.helpers.insert(key, id);
        } else {
            self.global_helpers.insert(key, id);
        }
        self.pending.push(PendingHelper { id, memory, access });
        Ok(id)
    }

    /// A pointer to word `idx` of `memory` (which must exist).
    fn word_ptr(&mut self, memory: Memory, idx: Word) -> Result2<Word> {
        let u = self.t_u32();
        match memory {
            Memory::Heap | Memory::Segment(_) | Memory::Param | Memory::Scratch => {
                let var = self.storage_buffer_var(memory);
                let p = self.ptr(StorageClass::StorageBuffer, u);
                let zero = self.c_u32(0);
                self.op(Op::AccessChain, p, &[var, zero, idx])
            }
            Memory::Shared | Memory::Local => {
                let (var, class) = if memory == Memory::Shared {
                    (self.ks()?.shared_var, StorageClass::Workgroup)
                } else {
                    (self.ks()?.local_var, StorageClass::Private)
                };
                let var = var.ok_or_else(|| EmitErrorKind::Internal("word_ptr on absent memory".into()))?;
                let p = self.ptr(class, u);
                self.op(Op::AccessChain, p, &[var, idx])
            }
        }
    }

    /// `Some(in-bounds condition)` for word `idx` of `memory`, `None` if no index is valid.
    fn in_bounds(&mut self, memory: Memory, idx: Word) -> Result2<Option<Word>> {
        let u = self.t_u32();
        let bt = self.t_bool();
        let len = match memory {
            Memory::Heap | Memory::Segment(_) | Memory::Param | Memory::Scratch => {
                let var = self.storage_buffer_var(memory);
                self.array_length(u, var)?
            }
            Memory::Shared | Memory::Local => {
                let ks = self.ks()?;
                let (var, n) = if memory == Memory::Shared { (ks.shared_var, ks.shared_len) } else { (ks.local_var, ks.local_len) };
                if var.is_none() {
                    return Ok(None);
                }
                self.c_u32(n)
            }
        };
        let below = self.op(Op::ULessThan, bt, &[idx, len])?;
        if memory.is_heap() {
            let lo = self.c_u32(abi::HEAP_RESERVED_WORDS);
            let above = self.op(Op::UGreaterThanEqual, bt, &[idx, lo])?;
            return Ok(Some(self.op(Op::LogicalAnd, bt, &[above, below])?));
        }
        Ok(Some(below))
    }

    /// Emits a helper function:
    /// ```text
    /// load(idx)            -> u32 : in bounds ? words[idx] : (fault; 0)
    /// store(idx, v)               : in bounds ? words[idx] = v : fault
    /// atomic_op(idx, v[, cmp]) -> u32 : in bounds ? atomic(words[idx]) : (fault; 0)
    /// ```
    fn helper(&mut self, h: PendingHelper) -> Result2<()> {
        let u = self.t_u32();
        let void = self.t_void();
        let (ret, nparams, name) = match h.access {
            Access::Load => (u, 1, format!("load_{}", mem_name(h.memory))),
            Access::Store => (void, 2, format!("store_{}", mem_name(h.memory))),
            Access::Atomic(op) => {
                (u, if op == AtomicOp::CompareExchange { 3 } else { 2 }, format!("atomic_{}_{}", atomic_name(op), mem_name(h.memory)))
            }
            Access::Atomic64(op) => {
                let t = self.ty(Ty::U64);
                (t, if op == AtomicOp::CompareExchange { 3 } else { 2 }, format!("atomic64_{}_{}", atomic_name(op), mem_name(h.memory)))
            }
            Access::Load64 => (self.ty(Ty::U64), 1, format!("load64_{}", mem_name(h.memory))),
        };
        // The index is a u32; values have the result's type (u64 for `Atomic64`).
        let params_t: Vec<Word> = (0..nparams).map(|i| if i == 0 || ret == void { u } else { ret }).collect();
        let fty = self.b.type_function(ret, params_t.clone());
        self.begin_function(ret, Some(h.id), fty)?;
        let name = match (&self.k, h.memory) {
            (Some(k), Memory::Shared | Memory::Local) => format!("{name}_{}", k.name),
            _ => name,
        };
        self.b.name(h.id, debug_name(&name));
        let mut params = Vec::with_capacity(nparams);
        for &t in &params_t {
            params.push(self.function_parameter(t)?);
        }
        let idx = params[0];
        self.new_block()?;
        let zero = if let Access::Atomic64(_) | Access::Load64 = h.access { self.konst(Const::U64(0)) } else { self.c_u32(0) };
        let bit = mem_fault_bit(h.memory);
        let in_bounds = match h.access {
            Access::Atomic64(_) if h.memory.is_heap() => Some(self.in_bounds64(h.memory, idx)?),
            _ => self.in_bounds(h.memory, idx)?,
        };
        // Plain loads and stores of every memory but the scratch buffer's stores (its thread
        // slices `lower` checks, and a bad store must change nothing) are branchless: an
        // out-of-range index is replaced by a safe one (the heap's sink word, which belongs
        // to no allocation; word 0 of the CTA's shared memory, which a bad store may change,
        // see `ir::Stmt::StoreWord`; word 0 of the thread's local memory, rewritten with its
        // own value; word 0 of the read-only parameters or of the scratch buffer, only read),
        // a load's value by 0, and the fault is deferred.
        let safe = match h.memory {
            Memory::Heap | Memory::Segment(_) => Some(abi::HEAP_SINK_WORD),
            Memory::Param | Memory::Shared | Memory::Local => Some(0),
            Memory::Scratch => (h.access == Access::Load).then_some(0),
        };
        if let (Some(ok), Some(safe), Access::Load64) = (in_bounds, safe, h.access) {
            // Branchless like the word loads: doubleword 0 is read instead, the value replaced.
            let bt = self.t_bool();
            let bad = self.op(Op::LogicalNot, bt, &[ok])?;
            let bits = self.c_u32(bit);
            self.defer(bad, bits)?;
            let safe = self.c_u32(safe);
            let j = self.op(Op::Select, u, &[ok, idx, safe])?;
            let var = self.ks()?.shared_var.ok_or_else(|| EmitErrorKind::Internal("load64 on absent shared memory".into()))?;
            let p = self.ptr(StorageClass::Workgroup, ret);
            let ptr = self.op(Op::AccessChain, p, &[var, j])?;
            let scope = self.c_u32(SCOPE_WORKGROUP);
            let sem = self.c_u32(SEMANTICS_RELAXED);
            let v = self.op(Op::AtomicLoad, ret, &[ptr, scope, sem])?;
            let r = self.op(Op::Select, ret, &[ok, v, zero])?;
            self.ret_value(r)?;
            self.end_function()?;
            return Ok(());
        }
        if let (Some(ok), Some(safe), Access::Atomic(op), false) = (in_bounds, safe, h.access, h.memory == Memory::Local) {
            if let Some(identity) = op.identity() {
                // Without a branch (`AtomicOp::identity`): out of range, the identity goes to
                // the safe word, the result is 0 and the fault is deferred.
                let bt = self.t_bool();
                let bad = self.op(Op::LogicalNot, bt, &[ok])?;
                // `abi::DISCARD_INDEX`: a sub-word store lower has faulted already.
                let discard = self.c_u32(abi::DISCARD_INDEX);
                let real = self.op(Op::INotEqual, bt, &[idx, discard])?;
                let bad = self.op(Op::LogicalAnd, bt, &[bad, real])?;
                let bits = self.c_u32(bit);
                self.defer(bad, bits)?;
                let safe = self.c_u32(safe);
                let j = self.op(Op::Select, u, &[ok, idx, safe])?;
                let identity = self.c_u32(identity);
                let v = self.op(Op::Select, u, &[ok, params[1], identity])?;
                let ptr = self.word_ptr(h.memory, j)?;
                let old = self.atomic(h.memory, op, u, ptr, &[v])?;
                let r = self.op(Op::Select, u, &[ok, old, zero])?;
                self.ret_value(r)?;
                self.end_function()?;
                return Ok(());
            }
        }
        if let (Some(ok), Some(safe), Access::Load | Access::Store) = (in_bounds, safe, h.access) {
            let bt = self.t_bool();
            let mut bad = self.op(Op::LogicalNot, bt, &[ok])?;
            if h.access == Access::Store && (h.memory.is_heap() || h.memory == Memory::Shared) {
                // `abi::DISCARD_INDEX`: a store lower has faulted already.
                let discard = self.c_u32(abi::DISCARD_INDEX);
                let real = self.op(Op::INotEqual, bt, &[idx, discard])?;
                bad = self.op(Op::LogicalAnd, bt, &[bad, real])?;
            }
            let bits = self.c_u32(bit);
            self.defer(bad, bits)?;
            let safe = self.c_u32(safe);
            let j = self.op(Op::Select, u, &[ok, idx, safe])?;
            let ptr = self.word_ptr(h.memory, j)?;
            if h.access == Access::Load {
                let v = self.op(Op::Load, u, &[ptr])?;
                let r = self.op(Op::Select, u, &[ok, v, zero])?;
                self.ret_value(r)?;
            } else {
                let mut v = params[1];
                if h.memory == Memory::Local {
                    // The thread's own private array: a bad store rewrites word 0 unchanged.
                    let old = self.op(Op::Load, u, &[ptr])?;
                    v = self.op(Op::Select, u, &[ok, v, old])?;
                }
                self.op_void(Op::Store, &[ptr, v])?;
                self.ret()?;
            }
            self.end_function()?;
            return Ok(());
        }
        match in_bounds {
            None => {
                // Memory of size 0: every access is out of range.
                self.fault(bit)?;
                if ret == void {
                    self.ret()?;
                } else {
                    self.ret_value(zero)?;
                }
            }
            Some(ok) => {
                let ok_l = self.b.id();
                let bad_l = self.b.id();
                let merge = self.b.id();
                self.selection_merge(merge)?;
                self.branch_conditional(ok, ok_l, bad_l)?;
                self.begin_block(ok_l)?;
                let ptr = match h.access {
                    Access::Atomic64(_) | Access::Load64 if h.memory == Memory::Shared => {
                        let var = self.ks()?.shared_var.ok_or_else(|| EmitErrorKind::Internal("atomic64 on absent shared memory".into()))?;
                        let p = self.ptr(StorageClass::Workgroup, ret);
                        self.op(Op::AccessChain, p, &[var, idx])?
                    }
                    Access::Atomic64(_) => {
                        let var = self.heap64_var_of(h.memory);
                        let p = self.ptr(StorageClass::StorageBuffer, ret);
                        let zero = self.c_u32(0);
                        self.op(Op::AccessChain, p, &[var, zero, idx])?
                    }
                    _ => self.word_ptr(h.memory, idx)?,
                };
                let value = match h.access {
                    Access::Load => Some(self.op(Op::Load, u, &[ptr])?),
                    Access::Store => {
                        self.op_void(Op::Store, &[ptr, params[1]])?;
                        None
                    }
                    Access::Atomic(op) => Some(self.atomic(h.memory, op, ret, ptr, &params[1..])?),
                    Access::Atomic64(op) => Some(self.atomic(h.memory, op, ret, ptr, &params[1..])?),
                    Access::Load64 => {
                        let scope = self.c_u32(SCOPE_WORKGROUP);
                        let sem = self.c_u32(SEMANTICS_RELAXED);
                        Some(self.op(Op::AtomicLoad, ret, &[ptr, scope, sem])?)
                    }
                };
                self.branch(merge)?;
                self.begin_block(bad_l)?;
                if h.memory == Memory::Scratch {
                    // Deferred like the scratch buffer's (branchless) loads, so that the
                    // thread's first fault is the one named.
                    let (yes, bits) = (self.konst(Const::Bool(true)), self.c_u32(bit));
                    self.defer(yes, bits)?;
                } else {
                    self.fault(bit)?;
                }
                self.branch(merge)?;
                self.begin_block(merge)?;
                match value {
                    Some(v) => {
                        let r = self.b.id();
                        self.f.inst(Op::Phi, &[ret, r, v, ok_l, zero, bad_l], &[]).map_err(internal)?;
                        self.ret_value(r)?;
                    }
                    None => self.ret()?,
                }
            }
        }
        self.end_function()?;
        Ok(())
    }

    /// Whether doubleword `idx` lies in the heap: both its words are allocatable
    /// (`2*idx >= HEAP_RESERVED_WORDS`) and it is below the u64 view's length.
    fn in_bounds64(&mut self, memory: Memory, idx: Word) -> Result2<Word> {
        let u = self.t_u32();
        let bt = self.t_bool();
        let var = self.heap64_var_of(memory);
        let len = self.array_length(u, var)?;
        let below = self.op(Op::ULessThan, bt, &[idx, len])?;
        let lo = self.c_u32(abi::HEAP_RESERVED_WORDS.div_ceil(2));
        let above = self.op(Op::UGreaterThanEqual, bt, &[idx, lo])?;
        self.op(Op::LogicalAnd, bt, &[above, below])
    }

    /// An atomic on `ptr` (a pointer to `u`, u32 or u64) in `memory`.
    fn atomic(&mut self, memory: Memory, op: AtomicOp, u: Word, ptr: Word, args: &[Word]) -> Result2<Word> {
        let scope = self.c_u32(if memory.is_heap() { SCOPE_DEVICE } else { SCOPE_WORKGROUP });
        let sem = self.c_u32(SEMANTICS_RELAXED);
        let value = args[0];
        let o = match op {
            AtomicOp::Add => Op::AtomicIAdd,
            AtomicOp::Sub => Op::AtomicISub,
            AtomicOp::And => Op::AtomicAnd,
            AtomicOp::Or => Op::AtomicOr,
            AtomicOp::Xor => Op::AtomicXor,
            AtomicOp::Exchange => Op::AtomicExchange,
            AtomicOp::MinU => Op::AtomicUMin,
            AtomicOp::MaxU => Op::AtomicUMax,
            AtomicOp::MinS => Op::AtomicSMin,
            AtomicOp::MaxS => Op::AtomicSMax,
            AtomicOp::CompareExchange => {
                let cmp = *args.get(1).ok_or_else(|| EmitErrorKind::Internal("cas without comparand".into()))?;
                // Value = the new word, Comparator = the expected old word.
                return self.op(Op::AtomicCompareExchange, u, &[ptr, scope, sem, sem, value, cmp]);
            }
        };
        self.op(o, u, &[ptr, scope, sem, value])
    }
}

/// Errors inside the emitter, before the kernel name is attached.
type Result2<T> = std::result::Result<T, EmitErrorKind>;
