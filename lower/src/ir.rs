//! The structured, typed IR that both backends consume.
//!
//! Design:
//! - **Word machine.** Every memory access is already lowered to 32-bit *word* operations on
//!   one of four memories ([`Memory`]); address arithmetic, windows of generic addresses,
//!   sub-word extraction and bounds rules are decided in `lower`, once. Backends only map words.
//! - **Registers are variables.** PTX registers (and temporaries lowering introduces) are
//!   mutable, function-local variables of a small set of types ([`Ty`]). No SSA, no phis: the
//!   structurizer never has to repair SSA, and every Vulkan/WGSL compiler runs mem2reg.
//! - **Total operations.** Every [`Expr`] is defined for *all* inputs that `lower` can feed it,
//!   identically on SPIR-V and WGSL. Where a target leaves something undefined (shift by ≥ width,
//!   division by zero, float→int overflow, NaN in min/max), the op's doc states a precondition and
//!   `lower` guarantees it by construction. Backends must never "fix up" semantics on their own.
//! - **Structured control flow.** [`Stmt::If`], [`Stmt::Switch`], [`Stmt::Loop`] with
//!   [`Stmt::Break`] / [`Stmt::Continue`] that always refer to the *innermost* loop, and
//!   [`Stmt::Return`]. This maps 1:1 onto `OpSelectionMerge`/`OpLoopMerge`/`OpSwitch` and WGSL
//!   `if`/`switch`/`loop`.

use std::fmt;

/// Index of a variable in [`Kernel::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

impl VarId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Value types. Integers are sign-less bit vectors: each operation says how it reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Bool,
    U32,
    U64,
    F32,
    F64,
}

impl Ty {
    pub fn bits(self) -> u32 {
        match self {
            Ty::Bool => 1,
            Ty::U32 | Ty::F32 => 32,
            Ty::U64 | Ty::F64 => 64,
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
    pub fn is_int(self) -> bool {
        matches!(self, Ty::U32 | Ty::U64)
    }
}

/// A constant. Floats are given by their bits so NaN payloads and -0.0 survive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Const {
    Bool(bool),
    U32(u32),
    U64(u64),
    F32(u32),
    F64(u64),
}

impl Const {
    pub fn ty(self) -> Ty {
        match self {
            Const::Bool(_) => Ty::Bool,
            Const::U32(_) => Ty::U32,
            Const::U64(_) => Ty::U64,
            Const::F32(_) => Ty::F32,
            Const::F64(_) => Ty::F64,
        }
    }
    /// The raw bits, zero-extended (bool → 0/1).
    pub fn bits(self) -> u64 {
        match self {
            Const::Bool(b) => b as u64,
            Const::U32(v) | Const::F32(v) => v as u64,
            Const::U64(v) | Const::F64(v) => v,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Var(VarId),
    Const(Const),
}

impl From<VarId> for Operand {
    fn from(v: VarId) -> Operand {
        Operand::Var(v)
    }
}
impl From<Const> for Operand {
    fn from(c: Const) -> Operand {
        Operand::Const(c)
    }
}

/// The memories a kernel sees, all as arrays of 32-bit words (see `abi`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Memory {
    /// Global memory of the context: the heap storage buffer (binding `abi::BINDING_HEAP`),
    /// holding all device allocations and module `.global`/`.const` variables.
    /// Valid word indices: `abi::HEAP_RESERVED_WORDS .. arrayLength(heap)`.
    Heap,
    /// The CTA's shared memory: a workgroup array of [`Kernel::shared_words`] words.
    Shared,
    /// The thread's local memory: a private array of [`Kernel::local_words`] words (only in
    /// kernels whose [`Kernel::local_placement`] is [`LocalPlacement::Private`]).
    Local,
    /// Kernel parameters (read-only storage buffer, binding `abi::BINDING_PARAMS`):
    /// `abi::PARAM_HEADER_WORDS` header words, then the parameters. The host always binds at
    /// least the header and the kernel's parameter area, so a constant index below
    /// that is in range without a check ([`Kernel::direct_param_loads`]).
    Param,
    /// The context's scratch buffer (read-write storage buffer, binding `abi::BINDING_SCRATCH`)
    /// holding every thread's local memory in kernels whose [`Kernel::local_placement`] is
    /// [`LocalPlacement::Scratch`], and the block's warp matrix exchange in kernels with
    /// [`Features::scratch_exchange_words`]. `lower` addresses the thread's own slice (the
    /// block's words) and checks the thread's bounds (`local_scratch.rs`); valid word indices:
    /// `0 .. arrayLength(scratch)`. Out-of-range accesses record
    /// `abi::FAULT_LOCAL_OUT_OF_RANGE`. Also the CTA's shared memory of kernels with
    /// [`Features::scratch_shared_words`] (its bounds checked by `lower` too); word atomics
    /// (workgroup scope) only there.
    Scratch,
    /// Heap segment slot `j` (1 ≤ `j` < [`Features::segment_slots`]) of a kernel translated
    /// for launches whose pointers lie in several heap segments (`LowerOptions::segment_slots`):
    /// the segment the launch binds at `abi::segment_binding(j)` (and its 64-bit view at
    /// `abi::segment_binding64(j)`); slot 0 is [`Memory::Heap`]. Word indices, range rules,
    /// sink word and atomics as in [`Memory::Heap`]; faults are recorded in slot 0's fault
    /// word. `lower` picks the slot of each access from its address's high word.
    Segment(u8),
}

impl Memory {
    /// [`Memory::Heap`] or a [`Memory::Segment`]: global memory.
    pub fn is_heap(self) -> bool {
        matches!(self, Memory::Heap | Memory::Segment(_))
    }
}

/// Where a kernel's local memory (`.local`, call-site `.param`, the call stack) lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LocalPlacement {
    /// A per-invocation private array of [`Kernel::local_words`] words, zero-initialised,
    /// accessed as [`Memory::Local`].
    #[default]
    Private,
    /// A per-thread slice of the scratch buffer ([`Memory::Scratch`]); the kernel has no
    /// [`Memory::Local`] accesses and backends declare no private array.
    Scratch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Bitwise not on U32/U64; logical not on Bool.
    Not,
    /// Two's complement negation (U32/U64), wrapping.
    Neg,
    /// Float negation: flips the sign bit (also of NaN and zero).
    FNeg,
    /// Float absolute value: clears the sign bit.
    FAbs,
    /// Correctly rounded square root is NOT promised: this is the target's `sqrt`
    /// (Vulkan: ≤ 3 ULP / inherited from 1/invsqrt). `lower` corrects it where PTX asks for `.rn`.
    FSqrt,
    /// Round toward −∞ / +∞ / 0 / nearest-even to an integral float (exact).
    FFloor,
    FCeil,
    FTrunc,
    FRoundEven,
    /// Number of set bits of a U32/U64. Result type: always `U32`.
    Popcount,
    /// Number of leading zero bits; 32 (64) for zero. Result type: always `U32`.
    CountLeadingZeros,
    /// Bit reversal (U32/U64).
    BitReverse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    // Integer ops on U32 or U64; `lhs`, `rhs` and result have the op's `ty`, except shifts.
    // `And`/`Or`/`Xor` also apply to `Bool` (logical).
    /// Wrapping add / sub / multiply (low half).
    Add,
    Sub,
    Mul,
    /// High half of the full 2N-bit product, unsigned / signed.
    MulHiU,
    MulHiS,
    /// Precondition (guaranteed by `lower`): `rhs != 0`, and for the signed forms not
    /// `MIN / -1`. Signed division truncates toward zero; remainder has the sign of `lhs`.
    DivU,
    DivS,
    RemU,
    RemS,
    And,
    Or,
    Xor,
    /// Shifts: `rhs` is always a `U32` operand; precondition `rhs < bit width of ty`.
    Shl,
    ShrU,
    ShrS,
    MinU,
    MinS,
    MaxU,
    MaxS,
    // Float ops on F32 or F64. IEEE round-to-nearest-even where Vulkan/WebGPU promise it
    // (add, sub, mul are correctly rounded on both); each op rounds on its own: backends must
    // keep targets from contracting a multiply into a later add. Subnormal inputs and results
    // are preserved where the target preserves them (Vulkan 1.1 and WebGPU leave it to the
    // device; SwiftShader flushes, lavapipe and NVIDIA preserve).
    FAdd,
    FSub,
    FMul,
    /// The target's division (Vulkan: 2.5 ULP). `lower` corrects it for `div.rn`.
    FDiv,
    /// Precondition: neither operand is NaN, and not (+0, −0) in either order (both targets
    /// leave those cases open); `lower` handles NaN and signed zeros around it.
    FMin,
    FMax,
}

/// Comparisons; result is `Bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// Bit equality of `Bool`, `U32`, `U64` operands (never floats: those use `FEq`/`FNe`).
    Eq,
    Ne,
    /// Integer comparisons, unsigned / signed.
    LtU,
    LeU,
    GtU,
    GeU,
    LtS,
    LeS,
    GtS,
    GeS,
    /// Ordered float comparisons: false when either operand is NaN (`FNe` too: it is the
    /// *ordered* not-equal, PTX `ne`). Unordered forms are built by `lower` from these.
    FEq,
    FNe,
    FLt,
    FLe,
    FGt,
    FGe,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvertOp {
    /// U64 → U32: keep the low 32 bits.
    Truncate,
    /// U32 → U64 with zero / sign extension.
    ZeroExtend,
    SignExtend,
    /// F32/F64 → U32/U64, truncating toward zero. Precondition: the operand is not NaN and its
    /// truncation fits the destination (unsigned / signed); `lower` clamps before.
    FloatToUint,
    FloatToSint,
    /// U32/U64 → F32/F64, reading the integer as unsigned / signed; rounds to nearest even.
    UintToFloat,
    SintToFloat,
    /// F32 ↔ F64 (narrowing rounds to nearest even).
    FloatToFloat,
    /// Same bit width, reinterpret (U32↔F32, U64↔F64).
    Bitcast,
}

/// Read-modify-write operations on one word. `Exchange` stores `value`; `CompareExchange`
/// stores `value` if the old word equals `comparand`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Exchange,
    MinU,
    MaxU,
    MinS,
    MaxS,
    CompareExchange,
}

impl AtomicOp {
    /// The 32-bit operand with which this operation leaves any word unchanged, if there is one
    /// (`Exchange`, `CompareExchange` and the signed min/max have none the backends use).
    ///
    /// A word atomic with one (`Expr::AtomicWord` on the heap or shared memory) is made
    /// without a branch (issue 11): out of range, it applies this operand to a safe word
    /// instead (the heap's sink word, word 0 of shared memory), yields 0 and defers its fault
    /// like a plain access (`Kernel::defers_faults`). A branch to an immediate fault per atomic
    /// cost llvmpipe, which makes every storage access under a lane mask a per-lane loop, most
    /// of a big kernel's pipeline build (docs/performance.md, "Pipeline creation for big
    /// kernels").
    pub fn identity(self) -> Option<u32> {
        match self {
            AtomicOp::Add | AtomicOp::Sub | AtomicOp::Or | AtomicOp::Xor | AtomicOp::MaxU => Some(0),
            AtomicOp::And | AtomicOp::MinU => Some(u32::MAX),
            AtomicOp::Exchange | AtomicOp::MinS | AtomicOp::MaxS | AtomicOp::CompareExchange => None,
        }
    }
}

/// Built-in per-invocation values, all `U32`. (`%ntid` is folded into constants by `lower`:
/// a kernel is translated for one block shape.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `%tid.{x,y,z}`: index of the thread in its CTA (= local invocation id).
    ThreadId(u8),
    /// The workgroup id in *this dispatch*. `lower` adds the dispatch's base from the parameter
    /// header to give `%ctaid` (a grid may run as several dispatches, see `grid.rs`).
    CtaId(u8),
    /// The number of workgroups of *this dispatch*. `lower` reads `%nctaid` from the parameter
    /// header instead; backends still implement it (hand-written IR uses it).
    NumCtas(u8),
    /// The invocation's subgroup's size (SPIR-V `SubgroupSize`, WGSL `subgroup_size`). Only in
    /// kernels with [`Features::native_warps`] (the target needs subgroup operations).
    SubgroupSize,
    /// The invocation's index in its subgroup (SPIR-V `SubgroupLocalInvocationId`, WGSL
    /// `subgroup_invocation_id`). Only in kernels with [`Features::native_warps`].
    SubgroupInvocationId,
    /// The number of words of the heap segment bound at `abi::BINDING_HEAP` (WGSL
    /// `arrayLength`, SPIR-V `OpArrayLength`): the same in every invocation. `lower` compares
    /// heap word indices with it itself, so that the backends need no check of their own
    /// ([`Kernel::heap_indices_in_range`]).
    HeapWords,
    /// The number of words of the heap segment bound at slot `j` ≥ 1 ([`Memory::Segment`]).
    SegmentWords(u8),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// Copy of an operand (any type).
    Use(Operand),
    Unary { op: UnaryOp, ty: Ty, arg: Operand },
    Binary { op: BinaryOp, ty: Ty, lhs: Operand, rhs: Operand },
    /// The target's multiply-add `a*b+c` (F32/F64). Vulkan and WebGPU allow it to round twice,
    /// so `lower` emits it only when the host has established that the device rounds once
    /// (`LowerOptions::native_fma`); otherwise it builds an exact fma from other ops.
    Fma { ty: Ty, a: Operand, b: Operand, c: Operand },
    /// Result `Bool`; `ty` is the operands' type.
    Compare { op: CmpOp, ty: Ty, lhs: Operand, rhs: Operand },
    /// `cond ? a : b` (both of type `ty`), cond is `Bool`.
    Select { ty: Ty, cond: Operand, a: Operand, b: Operand },
    Convert { op: ConvertOp, from: Ty, to: Ty, arg: Operand },
    Builtin(Builtin),
    /// Loads word `index` (a `U32` operand) of `memory`. Out-of-range index: yields 0 and
    /// records a fault (`abi::FAULT_*`); never touches memory outside the array. Faults of
    /// plain loads and stores (and of an `If` whose only statement is a `Fault`) may be
    /// recorded when the thread ends rather than at once; the thread goes on either way.
    LoadWord { memory: Memory, index: Operand },
    /// Atomic read-modify-write on word `index` of `Heap` or `Shared`; yields the old word.
    /// `value` and `comparand` are `U32`. Relaxed ordering, device scope on the heap and
    /// workgroup scope on shared memory. Out-of-range index: yields 0, records a fault,
    /// changes nothing.
    AtomicWord { memory: Memory, op: AtomicOp, index: Operand, value: Operand, comparand: Option<Operand> },
    /// Atomic read-modify-write on the 64-bit doubleword `index` (a `U32` operand: byte offset
    /// / 8, i.e. words `2*index` and `2*index + 1`, little-endian) of the `Heap` or `Shared`;
    /// yields the old doubleword. `value` and `comparand` are `U64`. Relaxed, device scope on
    /// the heap, workgroup scope on shared memory. Needs the target's 64-bit atomics (SPIR-V
    /// `Int64Atomics`, WGSL `atomic<u64>`: wgpu's `SHADER_INT64_ATOMIC_ALL_OPS`; see
    /// [`Features::heap_atomics64`], [`Features::shared_atomics64`]). Out-of-range index (on
    /// the heap either word outside `abi::HEAP_RESERVED_WORDS .. arrayLength(heap)`, on shared
    /// memory `index >= shared_words.div_ceil(2)`): yields 0, records a fault, changes nothing.
    /// A kernel with one on `Shared` declares its shared memory as doublewords and reaches it
    /// only through this expression (see [`Kernel::shared_dwords`] and `lower`'s `shared64`).
    AtomicDword { memory: Memory, op: AtomicOp, index: Operand, value: Operand, comparand: Option<Operand> },
    /// A relaxed atomic load of doubleword `index` of `Shared` (the only memory allowed, and
    /// only in a kernel whose shared memory is doublewords: [`Kernel::shared_dwords`]); yields
    /// a `U64`. Out-of-range index (`>= shared_words.div_ceil(2)`): yields 0, records a fault.
    LoadDword { memory: Memory, index: Operand },
    /// A workgroup barrier over shared memory, then word `index` of `Shared`: the same value in
    /// every invocation, and known to be so by the targets (WGSL's `workgroupUniformLoad`, whose
    /// result browsers' uniformity analysis lets a barrier depend on; a plain load after a
    /// barrier is "non-uniform" to them). Preconditions (`lower` guarantees them): every
    /// invocation of the workgroup reaches it in uniform control flow, like `Stmt::Barrier`,
    /// with the same `index`, and `index < shared_words`.
    SharedUniformLoad { index: Operand },
    /// Native warp collective (only in kernels with [`Features::native_warps`], whose first
    /// statements check that every subgroup holds whole logical warps, see `warp_layout`):
    /// the 32-bit ballot of `pred` (`Bool`) over this invocation's logical warp — bit k set
    /// iff lane k of the warp (linear thread id `(tid & !31) + k`) has `pred` true.
    /// Backends: the subgroup ballot's word `subgroup_invocation_id / 32`.
    /// Preconditions, as for `Stmt::Barrier`: every invocation of the workgroup reaches it in
    /// uniform control flow (so every existing lane takes part; `simt` ANDs `pred` with the
    /// thread's mask where it makes a region uniform).
    WarpBallot { pred: Operand },
    /// Native warp collective (see [`Expr::WarpBallot`]): the `U32` `value` of lane
    /// `lane & 31` of this invocation's logical warp (backends: the subgroup shuffle from
    /// invocation `(subgroup_invocation_id & !31) | (lane & 31)`). A lane beyond the CTA's
    /// last thread gives an unspecified value. Same uniformity precondition.
    WarpShuffle { value: Operand, lane: Operand },
    /// Calls function `func` of the kernel ([`Kernel::functions`]) on `args` (one per
    /// parameter, of its type), giving its result (of type `ty`). A function only computes its
    /// value (see [`Function`]), so a call is pure like the operations it stands for.
    Call { func: u32, ty: Ty, args: Vec<Operand> },
}

impl Expr {
    /// A native warp collective ([`Expr::WarpBallot`], [`Expr::WarpShuffle`]): like a barrier,
    /// every invocation of the workgroup must reach it in uniform control flow.
    pub fn is_warp_collective(&self) -> bool {
        matches!(self, Expr::WarpBallot { .. } | Expr::WarpShuffle { .. })
    }

    /// Whether evaluating the expression only computes its value: no memory access (a load
    /// may record a fault), no barrier, no collective. Such an assignment whose variable
    /// nobody reads can go.
    pub fn is_pure(&self) -> bool {
        matches!(
            self,
            Expr::Use(_)
                | Expr::Unary { .. }
                | Expr::Binary { .. }
                | Expr::Fma { .. }
                | Expr::Compare { .. }
                | Expr::Select { .. }
                | Expr::Convert { .. }
                | Expr::Builtin(_)
                | Expr::Call { .. }
        )
    }

    /// Calls `f` on every operand the expression reads, in order.
    pub fn for_each_operand(&self, mut f: impl FnMut(Operand)) {
        match self {
            Expr::Use(a) | Expr::Unary { arg: a, .. } | Expr::Convert { arg: a, .. } => f(*a),
            Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
                f(*lhs);
                f(*rhs);
            }
            Expr::Fma { a, b, c, .. } => [a, b, c].into_iter().for_each(|o| f(*o)),
            Expr::Select { cond, a, b, .. } => [cond, a, b].into_iter().for_each(|o| f(*o)),
            Expr::Builtin(_) => {}
            Expr::LoadWord { index, .. } | Expr::LoadDword { index, .. } | Expr::SharedUniformLoad { index } => f(*index),
            Expr::WarpBallot { pred } => f(*pred),
            Expr::WarpShuffle { value, lane } => [value, lane].into_iter().for_each(|o| f(*o)),
            Expr::Call { args, .. } => args.iter().for_each(|o| f(*o)),
            Expr::AtomicWord { index, value, comparand, .. } | Expr::AtomicDword { index, value, comparand, .. } => {
                f(*index);
                f(*value);
                if let Some(c) = comparand {
                    f(*c);
                }
            }
        }
    }

    /// Calls `f` on every operand the expression reads, for rewriting.
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Operand)) {
        match self {
            Expr::Use(a) | Expr::Unary { arg: a, .. } | Expr::Convert { arg: a, .. } => f(a),
            Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
                f(lhs);
                f(rhs);
            }
            Expr::Fma { a, b, c, .. } => [a, b, c].into_iter().for_each(f),
            Expr::Select { cond, a, b, .. } => [cond, a, b].into_iter().for_each(f),
            Expr::Builtin(_) => {}
            Expr::LoadWord { index, .. } | Expr::LoadDword { index, .. } | Expr::SharedUniformLoad { index } => f(index),
            Expr::WarpBallot { pred } => f(pred),
            Expr::WarpShuffle { value, lane } => [value, lane].into_iter().for_each(f),
            Expr::Call { args, .. } => args.iter_mut().for_each(f),
            Expr::AtomicWord { index, value, comparand, .. } | Expr::AtomicDword { index, value, comparand, .. } => {
                f(index);
                f(value);
                if let Some(c) = comparand {
                    f(c);
                }
            }
        }
    }
}

/// Calls `f` on every operand a statement itself reads (not those of nested blocks).
pub fn stmt_operands(s: &Stmt, mut f: impl FnMut(Operand)) {
    match s {
        Stmt::Assign { expr, .. } => expr.for_each_operand(f),
        Stmt::StoreWord { index, value, .. } => {
            f(*index);
            f(*value);
        }
        Stmt::If { cond, .. } => f(*cond),
        Stmt::Switch { selector, .. } => f(*selector),
        _ => {}
    }
}

/// Calls `f` on every operand a statement itself reads (not those of nested blocks), for
/// rewriting.
pub fn stmt_operands_mut(s: &mut Stmt, mut f: impl FnMut(&mut Operand)) {
    match s {
        Stmt::Assign { expr, .. } => expr.for_each_operand_mut(f),
        Stmt::StoreWord { index, value, .. } => {
            f(index);
            f(value);
        }
        Stmt::If { cond, .. } => f(cond),
        Stmt::Switch { selector, .. } => f(selector),
        _ => {}
    }
}

/// Statements in `stmts`, nested ones included (without recursion: kernels nest deeply). The
/// size measure of the WGSL backend's function splitting and of `kernel`'s meeting rule.
pub fn statement_count(stmts: &[Stmt]) -> usize {
    let (mut n, mut stack) = (0, vec![stmts]);
    while let Some(s) = stack.pop() {
        n += s.len();
        stack.extend(s.iter().flat_map(|s| s.bodies()).map(|b| b.stmts.as_slice()));
    }
    n
}

impl Stmt {
    /// The blocks nested directly in the statement (no allocation: passes walk every
    /// statement of big kernels many times).
    pub fn bodies(&self) -> impl Iterator<Item = &Block> {
        let (a, b, cases, d): (Option<&Block>, Option<&Block>, &[SwitchCase], Option<&Block>) = match self {
            Stmt::If { then_body, else_body, .. } => (Some(then_body), Some(else_body), &[], None),
            Stmt::Loop { body } => (Some(body), None, &[], None),
            Stmt::Switch { cases, default, .. } => (None, None, cases.as_slice(), Some(default)),
            _ => (None, None, &[], None),
        };
        a.into_iter().chain(b).chain(cases.iter().map(|c| &c.body)).chain(d)
    }
    /// The blocks nested directly in the statement, for rewriting.
    pub fn bodies_mut(&mut self) -> impl Iterator<Item = &mut Block> {
        let (a, b, cases, d): (Option<&mut Block>, Option<&mut Block>, &mut [SwitchCase], Option<&mut Block>) = match self {
            Stmt::If { then_body, else_body, .. } => (Some(then_body), Some(else_body), &mut [], None),
            Stmt::Loop { body } => (Some(body), None, &mut [], None),
            Stmt::Switch { cases, default, .. } => (None, None, cases.as_mut_slice(), Some(default)),
            _ => (None, None, &mut [], None),
        };
        a.into_iter().chain(b).chain(cases.iter_mut().map(|c| &mut c.body)).chain(d)
    }
}

/// The set of invocations a [`Stmt::Fence`] orders memory among.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The invocations of one workgroup (PTX `.cta`).
    Workgroup,
    /// All invocations of the dispatch (PTX `.gpu`, `.sys`, `.cluster`).
    Device,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

impl Block {
    pub fn new() -> Block {
        Block { stmts: Vec::new() }
    }

    /// Whether `f` holds for the expression of some assignment of this block, nested blocks
    /// included (the test of the rewriting passes that leave a kernel without one alone).
    pub fn any_assign(&self, f: &impl Fn(&Expr) -> bool) -> bool {
        self.stmts.iter().any(|s| match s {
            Stmt::Assign { expr, .. } => f(expr),
            s => s.bodies().any(|b| b.any_assign(f)),
        })
    }
}

/// A new variable of type `ty` at the end of `vars` (a kernel's or function's list).
pub fn push_var(vars: &mut Vec<VarInfo>, ty: Ty, name: &str) -> VarId {
    vars.push(VarInfo { ty, name: name.into() });
    VarId(vars.len() as u32 - 1)
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Assign { dst: VarId, expr: Expr },
    /// Stores a word. Out-of-range index: records a fault and changes no memory outside the
    /// one the store addresses. On the `Heap`, `Param` and `Scratch` it stores nothing any
    /// kernel or the host can see (the backends redirect a bad heap store to
    /// `abi::HEAP_SINK_WORD`, which belongs to no allocation), nor on `Local`; on `Shared`
    /// (the CTA's own memory, which lives only as long as the faulting launch) it may write
    /// word 0 instead: the backends check these bounds without a branch, by clamping the
    /// index. Index `abi::DISCARD_INDEX` on `Heap` or `Shared`: the same, without a fault
    /// (`lower` recorded the store's fault already).
    StoreWord { memory: Memory, index: Operand, value: Operand },
    If { cond: Operand, then_body: Block, else_body: Block },
    /// Multi-way selection on a `U32` selector: runs the body of the case listing the
    /// selector's value, or `default` when none does; then continues after the switch (no
    /// fall-through between cases). Case values are distinct across all cases.
    /// A `Break` or `Continue` directly inside a case body (not inside a `Loop` nested in it) is
    /// invalid IR: WGSL's `break` would leave the switch rather than the loop. `lower` leaves a
    /// loop from inside a switch through a flag tested after the switch.
    Switch { selector: Operand, cases: Vec<SwitchCase>, default: Block },
    /// `loop { body }`: leaves only through `Break` (or `Return`).
    Loop { body: Block },
    /// Leaves the innermost enclosing `Loop`.
    Break,
    /// Starts the next iteration of the innermost enclosing `Loop`.
    Continue,
    /// The invocation finishes.
    Return,
    /// `bar.sync`/`__syncthreads`: workgroup execution barrier that also orders shared and
    /// global (heap) memory among the CTA's threads. `lower` guarantees every invocation of
    /// the workgroup reaches it (uniform control flow).
    Barrier,
    /// A `Barrier` that orders shared memory only (workgroup execution barrier with
    /// workgroup-memory semantics): `lower`'s last pass (`barriers.rs`) turns a barrier into
    /// one where no heap access can run between it and the previous barrier. The same
    /// uniformity rule as `Barrier`.
    SharedBarrier,
    /// Records fault bits (`abi::FAULT_*`) in the heap's fault word; execution continues.
    Fault { code: u32 },
    /// A memory fence (PTX `fence.sc`/`fence.acq_rel`, and the fences `lower` puts around
    /// `.acquire`/`.release` accesses): sequentially consistent ordering of this invocation's
    /// heap and shared memory accesses before and after it, as seen by the invocations of
    /// `scope`. Not a control barrier: it may sit in divergent control flow. Heap accesses of
    /// a kernel with a `Device` fence are coherent at device scope (SPIR-V: the heap is
    /// `Coherent`). WGSL cannot express a standalone fence: that backend refuses it.
    Fence { scope: Scope },
}

/// One arm of a [`Stmt::Switch`]: taken when the selector equals one of `values`.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    pub values: Vec<u32>,
    pub body: Block,
}

/// Nesting of structured statements in a block: `ifs` counts `If`/`Switch` levels, `loops`
/// `Loop` levels, `total` both (the depth drivers limit, e.g. Vulkan's 1,023 control-flow
/// nesting levels). Computed without recursion, so any IR can be measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Nesting {
    pub total: usize,
    pub ifs: usize,
    pub loops: usize,
}

impl Block {
    pub fn nesting(&self) -> Nesting {
        let mut max = Nesting::default();
        let mut stack: Vec<(&Block, Nesting)> = vec![(self, Nesting::default())];
        while let Some((b, d)) = stack.pop() {
            for s in &b.stmts {
                let (inner, bodies): (Nesting, Vec<&Block>) = match s {
                    Stmt::If { then_body, else_body, .. } => {
                        (Nesting { total: d.total + 1, ifs: d.ifs + 1, ..d }, vec![then_body, else_body])
                    }
                    Stmt::Switch { cases, default, .. } => (
                        Nesting { total: d.total + 1, ifs: d.ifs + 1, ..d },
                        cases.iter().map(|c| &c.body).chain(std::iter::once(default)).collect(),
                    ),
                    Stmt::Loop { body } => (Nesting { total: d.total + 1, loops: d.loops + 1, ..d }, vec![body]),
                    _ => continue,
                };
                max = Nesting {
                    total: max.total.max(inner.total),
                    ifs: max.ifs.max(inner.ifs),
                    loops: max.loops.max(inner.loops),
                };
                stack.extend(bodies.into_iter().map(|b| (b, inner)));
            }
        }
        max
    }
}

/// A module-scope variable placed in the globals segment (see `abi::PARAM_GLOBALS_BASE_WORD`).
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalVar {
    pub name: String,
    /// Byte offset inside the segment.
    pub offset: u64,
    pub size: u64,
}

/// `.global`/`.const` module variables: one segment the host allocates in the heap and fills
/// with [`GlobalSegment::image`] before a launch; its base address is passed in the parameter
/// header.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GlobalSegment {
    pub vars: Vec<GlobalVar>,
    /// Initial bytes (len = segment size; zero where no initializer, and in relocated fields).
    pub init: Vec<u8>,
    /// Fields whose initial value is the address of a variable of the segment (PTX §5.4.4),
    /// known once the host has placed the segment.
    pub relocs: Vec<GlobalReloc>,
    /// Segment offset of the module's printf buffer (`printf::REGION_BYTES` bytes), if it
    /// declares `vprintf`.
    pub printf_region: Option<u64>,
}

/// A field of the globals segment initialized with the address of segment byte `target`
/// (`.global .u64 p = arr+8;`: `target` is `arr`'s offset + 8), or one byte of that address
/// (`mask(0xFF << 8k)`, §5.4.4: "extracts n consecutive bits … and inserts these bits at the
/// lowest position of the initialized variable").
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalReloc {
    /// Byte offset of the field in the segment.
    pub at: u64,
    /// Size of the field in bytes (8 for a whole address; 1 to 8 for a masked byte).
    pub size: u8,
    /// Segment offset the address points to (may lie outside the segment: `var-4`).
    pub target: i64,
    /// `Some(k)`: the field holds byte `k` (bits `8k..8k+8`) of the address, zero-extended.
    pub byte: Option<u8>,
    /// The module's address size in bytes: 8, or 4 in an `.address_size 32` module, whose
    /// addresses are the low 32 bits of the 64-bit ones (see `abi::SHARED_WINDOW_BASE_32`).
    pub address_bytes: u8,
}

impl GlobalSegment {
    /// The segment's initial bytes when it is placed at heap address `base`: `init` with every
    /// relocation applied. The one place of this rule: every loader (runtime, driver) calls it.
    pub fn image(&self, base: u64) -> Vec<u8> {
        let mut out = self.init.clone();
        for r in &self.relocs {
            let address = base.wrapping_add(r.target as u64);
            let address = if r.address_bytes >= 8 { address } else { address & ((1u64 << (8 * u32::from(r.address_bytes))) - 1) };
            let value = match r.byte {
                None => address,
                Some(k) => (address >> (8 * u32::from(k))) & 0xff,
            };
            let (at, size) = (r.at as usize, usize::from(r.size).min(8));
            if let Some(field) = out.get_mut(at..at.saturating_add(size)) {
                field.copy_from_slice(&value.to_le_bytes()[..size]);
            }
        }
        out
    }
}

/// A PTX instruction that may fault (see [`Kernel::fault_site_var`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultSite {
    /// 1-based line and column in the PTX source.
    pub line: u32,
    pub col: u32,
    /// Opcode and modifiers (`st.global.u32`).
    pub instruction: String,
}

/// One kernel parameter's place in the parameter buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSlot {
    pub name: String,
    /// Byte offset from the start of the parameter area (after the header).
    pub offset: u32,
    pub size: u32,
    pub align: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarInfo {
    pub ty: Ty,
    /// For readers of dumps: the PTX register name, or a description of a temporary. A
    /// [`Name`](ptxcross_frontend::ast::Name): almost every one fits its 24 inline bytes, so
    /// the passes that copy or drop a kernel's variables allocate and free nothing for them.
    pub name: ptxcross_frontend::ast::Name,
}

/// What a kernel needs from the target; computed by `lower`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Features {
    /// From `LowerOptions::fences_as_sink_atomics`: emit each [`Stmt::Fence`] as a relaxed
    /// atomic add of 0 to the heap's sink word (`abi::HEAP_SINK_WORD`) instead of a memory
    /// barrier. Only for a driver whose probe showed the barrier miscompiled: lavapipe 22.x
    /// suspends the thread's coroutine at any barrier and abandons it when another coroutine
    /// of the workgroup has finished; it compiles every storage-buffer atomic as a
    /// sequentially consistent read-modify-write, a full fence there. Elsewhere a relaxed
    /// atomic is no fence, so the option stays off.
    pub fences_as_sink_atomics: bool,
    /// Has a [`Stmt::Fence`] (body or functions): on a driver whose fences lose threads the
    /// host runs it only if `fences_as_sink_atomics` is set.
    pub fences: bool,
    /// Has loops of its own (those `loop_cut` checks; not the bounded ones later passes add):
    /// on a driver that cuts long loops the host runs it only if `loops_checked` is set.
    pub loops: bool,
    /// From `LowerOptions::detect_cut_loops`: a loop the driver cuts is reported
    /// (`abi::FAULT_LOOP_CUT`), never a silently short result.
    pub loops_checked: bool,
    pub int64: bool,
    pub float64: bool,
    /// Any `AtomicWord` on `Heap` (WGSL then declares the heap `array<atomic<u32>>`).
    pub heap_atomics: bool,
    pub shared_atomics: bool,
    /// Any `AtomicDword` on the `Heap` (the target needs 64-bit atomics on storage buffers).
    pub heap_atomics64: bool,
    /// Any `AtomicDword` on `Shared` (the target needs 64-bit atomics on workgroup memory;
    /// the kernel's shared memory is doublewords: [`Kernel::shared_dwords`]).
    pub shared_atomics64: bool,
    /// The kernel's results may depend on the target keeping f32 (f64) subnormal operands and
    /// results: set by `lower`'s instruction rules (see `features::subnormal_use`); the host
    /// refuses such a kernel on a device and backend that flush them.
    pub f32_subnormals: bool,
    pub f64_subnormals: bool,
    /// With `f32_subnormals`: the first instruction whose results depend on f32 subnormals, as
    /// a 1-based index into [`Kernel::fault_sites`] (which lists it for this purpose too), for
    /// the host's refusal on a device that flushes them.
    pub f32_subnormals_site: Option<u32>,
    /// The first instruction that needs a `Stmt::Fence`, as a 1-based index into
    /// [`Kernel::fault_sites`], for the WGSL backend's refusal (WGSL has no fence).
    pub fence_site: Option<u32>,
    /// The first strong 16-byte `ld`/`st` (made whole under a lock whose fences order its
    /// data, `wide_lock`), as a 1-based index into [`Kernel::fault_sites`], for the WGSL
    /// backend's refusal.
    pub wide_lock_site: Option<u32>,
    /// Under `LowerOptions::no_float64`: the first instruction that needs 64-bit floats, as a
    /// 1-based index into [`Kernel::fault_sites`], for the host's `--no-float64` refusal.
    pub float64_site: Option<u32>,
    /// Lowered with `LowerOptions::flushed_f32`: what does not set `f32_subnormals` is exact
    /// on a device that flushes f32 subnormals.
    pub flushed_f32: bool,
    /// Reads the globals segment base (`abi::PARAM_GLOBALS_BASE_WORD`): the launch must bind
    /// the heap segment holding the module's globals.
    pub globals: bool,
    /// The kernel comes from an `.address_size 32` module: its pointer parameters and generic
    /// addresses are 32-bit (heap byte offsets, see `abi::SHARED_WINDOW_BASE_32`), so the
    /// host passes pointers as their low 32 bits and needs a heap below `abi::HEAP_LIMIT_32`.
    pub pointers32: bool,
    /// The kernel uses native warp collectives ([`Expr::WarpBallot`], [`Expr::WarpShuffle`],
    /// the subgroup builtins): the target needs subgroup ballot and shuffle operations. Its
    /// first statements fault with `abi::FAULT_WARP_LAYOUT` (and nothing else happens) where
    /// the subgroups do not hold whole logical warps; the next kernel of the module, with the
    /// same `name` and `warp_fallback` set, is the emulated translation the host runs then.
    pub native_warps: bool,
    /// The kernel is the emulated twin of the native-warps kernel just before it in the
    /// module (same `name`): only launched by the host when that one cannot run.
    pub warp_fallback: bool,
    /// 0: the kernel reaches one heap segment, bound at `abi::BINDING_HEAP`. `S` ≥ 2: it was
    /// translated for `S` bound segments (`LowerOptions::segment_slots`): slot 0 at
    /// `abi::BINDING_HEAP`, slot `j` at `abi::segment_binding(j)`, each slot's segment number
    /// at parameter word `abi::segment_slot_word(j, param_bytes)`.
    pub segment_slots: u32,
    /// The kernel is the launch-specialised variant of a checked kernel
    /// (`launch_proof::specialise`): the host runs it only for launches that satisfy the
    /// checked kernel's launch precondition (`launch_proof::analyse`), which proves the fault
    /// recording it leaves out unnecessary.
    pub launch_specialised: bool,
    /// Words of the scratch buffer each block uses for the warp matrix exchange
    /// (`inst::warp`, `warp_exchange`; 0: none there): ahead of its threads' local memory in
    /// the block's part of the buffer (`abi::BINDING_SCRATCH`).
    pub scratch_exchange_words: u32,
    /// Words of the CTA's shared memory that live in the scratch buffer instead of a
    /// workgroup array (0: none; `Kernel::shared_words` is then 0), because the kernel has
    /// more than the device's workgroup memory (`local_scratch::shared_in_scratch`): after
    /// the block's warp matrix exchange in its part of the buffer (`abi::BINDING_SCRATCH`).
    pub scratch_shared_words: u32,
}

/// A function of a kernel's code, called through [`Expr::Call`]: a long expansion of one PTX
/// rule (correctly rounded division and square root, the `.approx` transcendentals, exact
/// `fma`) that `lower` emits once and calls at each use instead of inlining it every time
/// (issue 11: code size, pipeline creation and validation time grow with the inlined copies).
///
/// Its variables are its own (`vars`, indexed by [`VarId`] like a kernel's); `params` are
/// variables the body never assigns, holding the call's arguments; the body holds only
/// assignments of pure, thread-independent expressions ([`Expr::Use`], `Unary`, `Binary`,
/// `Fma`, `Compare`, `Select`, `Convert`) and `If`s of such statements: no memory access (but
/// loads of the parameter header's run-time zeros, see `misread_constants`), no built-in, no
/// call, no control transfer. It ends by giving `result`.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// What it computes (a name for readers of the emitted code, unique in the kernel).
    pub name: String,
    pub vars: Vec<VarInfo>,
    pub params: Vec<VarId>,
    pub body: Block,
    pub result: Operand,
    pub result_ty: Ty,
}

impl Function {
    /// The function as a kernel with its variables and body (for passes and emitters that
    /// work on kernels; the kernel's other fields are empty).
    pub fn as_kernel(&self, name: &str) -> Kernel {
        Kernel {
            name: name.to_string(),
            entry_point: name.to_string(),
            workgroup_size: [1, 1, 1],
            vars: self.vars.clone(),
            body: self.body.clone(),
            shared_words: 0,
            local_words: 0,
            local_placement: LocalPlacement::Private,
            params: Vec::new(),
            fault_site_var: None,
            fault_sites: Vec::new(),
            param_bytes: 0,
            features: Features::default(),
            functions: Vec::new(),
            printf: Vec::new(),
        }
    }

    /// Whether the function has the shape [`Function`] documents: every statement an
    /// assignment of an allowed expression (or an `If` of such), every variable read a
    /// parameter or assigned, parameters never assigned, operand types as declared.
    pub fn is_well_formed(&self) -> bool {
        fn ok_expr(e: &Expr) -> bool {
            match e {
                Expr::Use(_) | Expr::Unary { .. } | Expr::Binary { .. } | Expr::Fma { .. } | Expr::Compare { .. } | Expr::Select { .. } | Expr::Convert { .. } => true,
                // The run-time zeros of `misread_constants`: header words every launch binds.
                Expr::LoadWord { memory: Memory::Param, index: Operand::Const(Const::U32(i)) } => *i < crate::abi::PARAM_HEADER_WORDS,
                _ => false,
            }
        }
        fn block(f: &Function, b: &Block) -> bool {
            b.stmts.iter().all(|s| match s {
                Stmt::Assign { dst, expr } => {
                    let mut vars_ok = true;
                    expr.for_each_operand(|o| {
                        if let Operand::Var(v) = o {
                            vars_ok &= v.index() < f.vars.len();
                        }
                    });
                    ok_expr(expr) && vars_ok && dst.index() < f.vars.len() && !f.params.contains(dst)
                }
                Stmt::If { cond, then_body, else_body } => {
                    !matches!(cond, Operand::Var(v) if v.index() >= f.vars.len()) && block(f, then_body) && block(f, else_body)
                }
                _ => false,
            })
        }
        self.params.iter().all(|p| p.index() < self.vars.len())
            && !matches!(self.result, Operand::Var(v) if v.index() >= self.vars.len())
            && block(self, &self.body)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The PTX entry name.
    pub name: String,
    /// An identifier valid as SPIR-V entry point name and WGSL function name (derived from
    /// `name`, unique within the module).
    pub entry_point: String,
    pub workgroup_size: [u32; 3],
    /// Indexed by [`VarId`].
    pub vars: Vec<VarInfo>,
    pub body: Block,
    /// Shared memory (static + dynamic) in words; 0 = none.
    pub shared_words: u32,
    /// Local memory per invocation in words; 0 = none.
    pub local_words: u32,
    /// Where that local memory lives (see `local_scratch.rs`).
    pub local_placement: LocalPlacement,
    pub params: Vec<ParamSlot>,
    /// The variable naming the PTX instruction that runs: `lower` assigns it a constant site id
    /// (1-based index into [`Kernel::fault_sites`]) before each instruction that may fault, and
    /// nothing in the IR reads it. When a backend records a fault it also writes the variable's
    /// value to heap word `abi::FAULT_SITE_WORD` (if that word is still 0), so the host can name
    /// the faulting instruction. Compilers see a constant at every fault path: no run-time cost
    /// outside it. `None`: no sites (hand-written IR).
    pub fault_site_var: Option<VarId>,
    /// Site id `i` is `fault_sites[i - 1]`.
    pub fault_sites: Vec<FaultSite>,
    /// Size of the parameter area in bytes (after the header).
    pub param_bytes: u32,
    pub features: Features,
    /// Functions the body calls ([`Expr::Call`]'s `func` indexes this).
    pub functions: Vec<Function>,
    /// The formats of its device-side `printf` calls, for the host that formats their records
    /// (see `printf`); empty for kernels without `printf`.
    pub printf: Vec<crate::printf::Format>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub kernels: Vec<Kernel>,
    pub globals: GlobalSegment,
}

impl Kernel {
    /// The instruction a `Features` site names (`f32_subnormals_site`, `fence_site`,
    /// `float64_site`: 1-based indices into [`Kernel::fault_sites`]), for the refusals that name it.
    pub fn recorded_site(&self, site: Option<u32>) -> Option<&FaultSite> {
        self.fault_sites.get((site? as usize).checked_sub(1)?)
    }

    /// Whether word `index` of the parameter memory is in range whatever the launch: a
    /// constant below `abi::PARAM_HEADER_WORDS + ceil(param_bytes / 4)`, the words every launch
    /// binds (`abi::PARAM_HEADER_WORDS`), and in a kernel for `S` ≥ 2 segment slots the `S - 1`
    /// slot words after them (`abi::segment_slot_word`), which every launch of it binds too.
    pub fn param_word_in_range(&self, index: Operand) -> bool {
        let slot_words = self.features.segment_slots.saturating_sub(1);
        matches!(index, Operand::Const(Const::U32(i)) if i < crate::abi::PARAM_HEADER_WORDS + self.param_bytes.div_ceil(4) + slot_words)
    }

    /// Per variable: what is known of a *value*'s bits whatever the launch (`None` for
    /// other variables and floats): an unsigned range and a number of low bits known to be
    /// zero ([`Fact`]). Built from the workgroup size (`ThreadId(d) < workgroup_size[d]`) and
    /// constants through integer and boolean operations, in one walk in statement order (a
    /// value's assignment dominates its reads, so its operands' facts are known by then);
    /// anything else (loads, non-value variables, wrapping arithmetic) is the type's full
    /// range. Issue 11's range facts: shared and local indices derived from `%tid` are in
    /// range ([`Kernel::index_in_range`]), alignment tests of offsets built from aligned
    /// terms are false (`cleanup` drops their faults).
    pub fn value_facts(&self) -> Vec<Option<Fact>> {
        self.value_facts_of(&self.value_vars())
    }

    /// [`Kernel::value_facts`] given the kernel's [`Kernel::value_vars`].
    pub fn value_facts_of(&self, values: &[bool]) -> Vec<Option<Fact>> {
        let mut facts: Vec<Option<Fact>> = vec![None; self.vars.len()];
        fn walk(k: &Kernel, b: &Block, values: &[bool], facts: &mut [Option<Fact>]) {
            for s in &b.stmts {
                if let Stmt::Assign { dst, expr } = s {
                    if values.get(dst.index()).copied().unwrap_or(false) {
                        let ty = k.vars[dst.index()].ty;
                        facts[dst.index()] = Fact::of_expr(k, expr, ty, facts);
                    }
                }
                for body in s.bodies() {
                    walk(k, body, values, facts);
                }
            }
        }
        walk(self, &self.body, values, &mut facts);
        facts
    }

    /// [`Kernel::value_facts`] with the sizes of the word arrays they are tested against
    /// (computed once per kernel: [`Kernel::shared_dwords`] walks the body).
    pub fn index_facts(&self) -> IndexFacts {
        self.index_facts_of(&self.value_vars())
    }

    /// [`Kernel::index_facts`] given the kernel's [`Kernel::value_vars`].
    pub fn index_facts_of(&self, values: &[bool]) -> IndexFacts {
        IndexFacts {
            facts: self.value_facts_of(values),
            shared_words: if self.shared_dwords() { 0 } else { self.shared_words },
            local_words: if self.local_placement == LocalPlacement::Private { self.local_words } else { 0 },
        }
    }

    /// Whether word `index` of `memory` (`Shared` as words, or a private `Local` array) is in
    /// range by `facts` ([`Kernel::index_facts`]): the backends access it without a check.
    pub fn index_in_range(&self, memory: Memory, index: Operand, facts: &IndexFacts) -> bool {
        let words = match memory {
            Memory::Shared => facts.shared_words,
            Memory::Local => facts.local_words,
            _ => return false,
        };
        Fact::of_operand(self, index, &facts.facts).is_some_and(|f| f.max < u64::from(words))
    }

    /// Per variable: whether it is a heap word index that `lower` has proven in range
    /// (`abi::HEAP_RESERVED_WORDS <= v < arrayLength(heap)`), so that the backends access
    /// `LoadWord`/`StoreWord { Heap, index: v }` directly, without their own check (issue 11:
    /// one range test per access, in `lower`, instead of three tests in `lower` and two more in
    /// the backends' helper). The proof is in the IR itself, checked here on its shape, so
    /// that no pass can invalidate it unnoticed (a pass that changes the shape only costs the
    /// check): `v` is a value (see [`Kernel::value_vars`]; so are all the variables below)
    ///
    /// `v = select(c, i + j, HEAP_SINK_WORD)` (`j` absent, or a constant),
    /// where `c` is `r < lim`, or a `&&` with such a term on either side (at any depth),
    /// `r = i - HEAP_RESERVED_WORDS`, `lim = max(hw, HEAP_RESERVED_WORDS + k) - (HEAP_RESERVED_WORDS + k)`,
    /// `hw = HeapWords` and `j <= k`.
    ///
    /// Why it holds: `lim <= hw < 2^30` (a heap binding holds less than 4 GiB), so `r < lim`
    /// rules out `i < HEAP_RESERVED_WORDS` (then `r` wraps to at least `2^32 - 64`), and gives
    /// `i + k < hw`, so `i + j` is in range; when `c` is false, `v` is the sink word
    /// (`abi::HEAP_SINK_WORD`), which belongs to no allocation (`lower` turns a faulting
    /// load's value into 0 and records the fault itself).
    pub fn heap_indices_in_range(&self) -> Vec<bool> {
        self.heap_indices_in_range_of(&self.value_vars())
    }

    /// [`Kernel::heap_indices_in_range`] given the kernel's [`Kernel::value_vars`].
    pub fn heap_indices_in_range_of(&self, values: &[bool]) -> Vec<bool> {
        self.heap_index_memories_of(values).into_iter().map(|m| m == Some(Memory::Heap)).collect()
    }

    /// Per variable: the heap memory ([`Memory::Heap`] or a [`Memory::Segment`]) in which
    /// `lower` has proven it an in-range word index, by the rule of
    /// [`Kernel::heap_indices_in_range`] with that memory's length (`HeapWords`, or
    /// `SegmentWords(j)` for slot `j`) in `lim`. The backends access `LoadWord`/`StoreWord` of
    /// exactly that memory at such an index directly.
    pub fn heap_index_memories_of(&self, values: &[bool]) -> Vec<Option<Memory>> {
        use crate::abi::{HEAP_RESERVED_WORDS, HEAP_SINK_WORD};
        let n = self.vars.len();
        let mut defs: Vec<Option<&Expr>> = vec![None; n];
        fn collect<'a>(b: &'a Block, values: &[bool], defs: &mut [Option<&'a Expr>]) {
            for s in &b.stmts {
                if let Stmt::Assign { dst, expr } = s {
                    if values.get(dst.index()).copied().unwrap_or(false) {
                        defs[dst.index()] = Some(expr);
                    }
                }
                for body in s.bodies() {
                    collect(body, values, defs);
                }
            }
        }
        collect(&self.body, values, &mut defs);
        let def = |o: Operand| match o {
            Operand::Var(v) => defs.get(v.index()).copied().flatten(),
            Operand::Const(_) => None,
        };
        // `lim`'s memory and `k`, if `o` is `max(hw, 64 + k) - (64 + k)` for `hw` the length
        // of the heap (`HeapWords`) or of segment slot `j` (`SegmentWords(j)`).
        let limit = |o: Operand| -> Option<(Memory, u32)> {
            let Some(Expr::Binary { op: BinaryOp::Sub, ty: Ty::U32, lhs, rhs: Operand::Const(Const::U32(d)) }) = def(o) else { return None };
            let Some(Expr::Binary { op: BinaryOp::MaxU, ty: Ty::U32, lhs: hw, rhs: Operand::Const(Const::U32(m)) }) = def(*lhs) else { return None };
            let memory = match def(*hw) {
                Some(Expr::Builtin(Builtin::HeapWords)) => Memory::Heap,
                Some(Expr::Builtin(Builtin::SegmentWords(j))) => Memory::Segment(*j),
                _ => return None,
            };
            (m == d && *d >= HEAP_RESERVED_WORDS).then_some((memory, *d - HEAP_RESERVED_WORDS))
        };
        // A memory whose `lim` of some `k >= j` `c` implies `i - 64 < lim` for.
        type Limit<'l> = &'l dyn Fn(Operand) -> Option<(Memory, u32)>;
        fn implies<'a>(c: Operand, i: Operand, j: u32, def: &dyn Fn(Operand) -> Option<&'a Expr>, limit: Limit, depth: u32) -> Option<Memory> {
            match def(c) {
                Some(Expr::Compare { op: CmpOp::LtU, ty: Ty::U32, lhs, rhs }) => {
                    let tested = matches!(def(*lhs), Some(Expr::Binary { op: BinaryOp::Sub, ty: Ty::U32, lhs: x, rhs: Operand::Const(Const::U32(HEAP_RESERVED_WORDS)) }) if *x == i);
                    limit(*rhs).filter(|&(_, k)| tested && j <= k).map(|(m, _)| m)
                }
                Some(Expr::Binary { op: BinaryOp::And, ty: Ty::Bool, lhs, rhs }) if depth < 8 => {
                    implies(*lhs, i, j, def, limit, depth + 1).or_else(|| implies(*rhs, i, j, def, limit, depth + 1))
                }
                _ => None,
            }
        }
        (0..n)
            .map(|v| {
                let Some(Expr::Select { ty: Ty::U32, cond, a, b: Operand::Const(Const::U32(HEAP_SINK_WORD)) }) = defs[v] else { return None };
                implies(*cond, *a, 0, &def, &limit, 0).or_else(|| match def(*a) {
                    Some(Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs, rhs: Operand::Const(Const::U32(j)) }) => {
                        implies(*cond, *lhs, *j, &def, &limit, 0)
                    }
                    _ => None,
                })
            })
            .collect()
    }

    /// Per variable: a parameter word loaded into it (`dst = LoadWord { Param, index }`) at an
    /// index that is in range for every launch ([`Kernel::param_word_in_range`], which the
    /// backends test too) is read directly, without a bounds check, unless the variable's
    /// value may reach a branch condition inside a loop ([`Kernel::condition_vars`]), or it is
    /// the word by which `loop_cut` tells lanes without a thread apart (read per lane there).
    ///
    /// Why direct: the check is not needed, and it is not free — on lavapipe a checked load,
    /// whose index the driver no longer sees as a constant, is a per-lane gather; saxpy took
    /// twice its time with it (issue 11).
    ///
    /// Why not into conditions: lavapipe (Mesa 22.3) miscompiles the grid-stride loop
    /// `if (i >= n) {} else { loop { …; i += s; if (i < n) { continue } break } }` when `n`
    /// comes from a storage-buffer load at a constant offset: some lanes never leave the loop,
    /// until the driver's loop limiter cuts it (histogram.sm80.ptx lost four bins; the
    /// loop-cut check reported it where enabled). Loading `n` through the checked helper (or
    /// only the loop's exit test from a second load) does not trigger it. So values that
    /// decide a branch inside a loop keep the checked load; addresses, data and values that
    /// only decide branches outside loops (saxpy's `n`) are direct.
    ///
    /// The words kept off the direct path are still in range for every launch, so the
    /// backends read them through an *opaque* load (the checked load's index and value
    /// selects on `i < arrayLength`, the same code the driver sees) that records no fault:
    /// its test is true for every launch, so a fault could never fire, and a kernel whose
    /// only deferred faults were these needs no end-of-thread flush
    /// ([`Kernel::defers_faults`]; issue 11, mandelbrot and matmul).
    pub fn direct_param_loads(&self) -> Vec<bool> {
        let control = self.condition_vars();
        let mut direct = vec![false; self.vars.len()];
        fn walk(k: &Kernel, b: &Block, control: &[bool], direct: &mut [bool]) {
            for s in &b.stmts {
                match s {
                    Stmt::Assign { dst, expr: Expr::LoadWord { memory: Memory::Param, index } } => {
                        let i = dst.index();
                        let per_lane = k.vars.get(i).is_some_and(crate::loop_cut::is_per_lane_load);
                        if i < direct.len() && !control[i] && !per_lane && k.param_word_in_range(*index) {
                            direct[i] = true;
                        }
                    }
                    _ => {
                        for body in s.bodies() {
                            walk(k, body, control, direct);
                        }
                    }
                }
            }
        }
        walk(self, &self.body, &control, &mut direct);
        direct
    }

    /// Per variable: whether its value may reach the condition of a branch inside a loop (an
    /// `If` that is not a lone `Fault`, which the backends record without branching, or a
    /// `Switch` selector, in a loop body at any depth: the loop's exit tests among them),
    /// through pure integer and boolean expressions (a float breaks the chain: a comparison
    /// of floats, or an integer converted to a float, does not carry its operands' words on),
    /// and through shared and local memory (any value stored there, once a loaded word
    /// decides such a branch). A word loaded through an index is not
    /// derived from the index. (The miscompile this
    /// guards against, see [`Kernel::direct_param_loads`], needs the value in a loop's exit
    /// test: reading only the loop's exit bound through the checked load avoided it.)
    pub fn condition_vars(&self) -> Vec<bool> {
        /// Operands of each variable's pure assignments; the conditions; the variables
        /// loaded from and the values stored to shared and local memory.
        struct Flow {
            /// `(assigned, operand)` of the pure assignments, grouped by the assigned
            /// variable below (one allocation, not a list per variable).
            sources: Vec<(u32, u32)>,
            work: Vec<u32>,
            loaded: Vec<bool>,
            stored: Vec<u32>,
            /// Per variable: it holds a float (the flow stops there, see below).
            float: Vec<bool>,
        }
        fn collect(b: &Block, in_loop: bool, f: &mut Flow) {
            let thread_memory = |m: &Memory| matches!(m, Memory::Local | Memory::Shared);
            for s in &b.stmts {
                match s {
                    Stmt::Assign { dst, expr } => match expr {
                        Expr::LoadWord { memory, .. } | Expr::LoadDword { memory, .. } => {
                            if let (Some(l), true) = (f.loaded.get_mut(dst.index()), thread_memory(memory)) {
                                *l = true;
                            }
                        }
                        Expr::AtomicWord { .. } | Expr::AtomicDword { .. } | Expr::SharedUniformLoad { .. } => {}
                        _ => {
                            // Integer and boolean values only: a float computed from a word
                            // (mandelbrot's pixel coordinates, `cvt.rn.f32.s32`) is not the
                            // loop bound the miscompile needs, and reading such words through
                            // the opaque load cost mandelbrot a fifth of its time (issue 11).
                            // (Fields borrowed apart: the edges go straight into `sources`,
                            // not through a `Vec` per assignment.)
                            let (float, sources) = (&f.float, &mut f.sources);
                            let float = |i: usize| float.get(i).copied().unwrap_or(true);
                            if dst.index() < f.loaded.len() && !float(dst.index()) {
                                expr.for_each_operand(|o| {
                                    if let Operand::Var(v) = o {
                                        if !float(v.index()) {
                                            sources.push((dst.0, v.0));
                                        }
                                    }
                                });
                            }
                        }
                    },
                    Stmt::StoreWord { memory, value: Operand::Var(v), .. } if thread_memory(memory) => f.stored.push(v.0),
                    Stmt::If { cond, then_body, else_body } => {
                        let deferred = else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]);
                        if let (Operand::Var(v), false, true) = (cond, deferred, in_loop) {
                            f.work.push(v.0);
                        }
                        collect(then_body, in_loop, f);
                        collect(else_body, in_loop, f);
                    }
                    Stmt::Loop { body } => collect(body, true, f),
                    Stmt::Switch { selector, cases, default } => {
                        if let (Operand::Var(v), true) = (selector, in_loop) {
                            f.work.push(v.0);
                        }
                        for c in cases {
                            collect(&c.body, in_loop, f);
                        }
                        collect(default, in_loop, f);
                    }
                    _ => {}
                }
            }
        }
        let n = self.vars.len();
        let float = self.vars.iter().map(|v| v.ty.is_float()).collect();
        let mut f = Flow { sources: Vec::new(), work: Vec::new(), loaded: vec![false; n], stored: Vec::new(), float };
        collect(&self.body, false, &mut f);
        let mut control = vec![false; n];
        if f.work.is_empty() {
            // No condition inside a loop: nothing reaches one (the memory round below starts
            // only from a loaded word that is a condition).
            return control;
        }
        let mut start = vec![0u32; n + 1];
        for &(d, _) in &f.sources {
            start[d as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut operands = vec![0u32; f.sources.len()];
        for &(d, v) in &f.sources {
            operands[fill[d as usize] as usize] = v;
            fill[d as usize] += 1;
        }
        let mut through_memory = false;
        loop {
            while let Some(v) = f.work.pop() {
                let i = v as usize;
                if i >= n || control[i] {
                    continue;
                }
                control[i] = true;
                f.work.extend_from_slice(&operands[start[i] as usize..start[i + 1] as usize]);
            }
            // A word of shared or local memory that decides a branch may be a stored value
            // that the driver forwards to the load (device-function parameters live in local
            // memory): every value stored there counts then.
            if through_memory || !control.iter().zip(&f.loaded).any(|(c, l)| *c && *l) {
                return control;
            }
            through_memory = true;
            f.work.append(&mut f.stored);
        }
    }

    /// Whether the backends may record one of this kernel's faults late (when the thread
    /// ends, see `Expr::LoadWord`): it has a plain load (`LoadWord`, `LoadDword`) or store of
    /// an existing heap, parameter, shared or private local array, an access to the scratch
    /// buffer (its stores check in a branch, loads need not: reading never changes anything,
    /// and a run of them, the warp matrix exchange's, stays one basic block; both defer, so
    /// that the thread's first fault is named), or an `If` whose only
    /// statement is a `Fault`. Kernels without such code need no deferred-fault state. A
    /// function of the kernel with such an `If` (the outlined heap load, `heap_outline`)
    /// counts as its code.
    pub fn defers_faults(&self) -> bool {
        let lone_fault = |s: &Stmt| {
            matches!(s, Stmt::If { then_body, else_body, .. } if else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]))
        };
        if self.functions.iter().any(|f| f.body.stmts.iter().any(lone_fault)) {
            return true;
        }
        if self.features.launch_specialised {
            return self.defers_faults_exactly();
        }
        fn block(k: &Kernel, b: &Block) -> bool {
            let present = |m: Memory| match m {
                Memory::Heap | Memory::Segment(_) | Memory::Param => true,
                Memory::Shared => k.shared_words > 0,
                Memory::Local => k.local_words > 0 && k.local_placement == LocalPlacement::Private,
                Memory::Scratch => false,
            };
            b.stmts.iter().any(|s| match s {
                Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Scratch, .. }, .. } | Stmt::StoreWord { memory: Memory::Scratch, .. } => true,
                // A parameter word at an index in range for every launch never faults, read
                // directly or not ([`Kernel::param_word_in_range`]).
                Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Param, index }, .. } => !k.param_word_in_range(*index),
                Stmt::Assign { expr: Expr::LoadWord { memory, .. } | Expr::LoadDword { memory, .. }, .. } | Stmt::StoreWord { memory, .. } => {
                    present(*memory)
                }
                // Branchless word atomics ([`AtomicOp::identity`]).
                Stmt::Assign { expr: Expr::AtomicWord { memory, op, .. }, .. } => {
                    op.identity().is_some() && !matches!(memory, Memory::Param | Memory::Local | Memory::Scratch) && present(*memory)
                }
                Stmt::If { then_body, else_body, .. } => {
                    (else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]))
                        || block(k, then_body)
                        || block(k, else_body)
                }
                Stmt::Loop { body } => block(k, body),
                Stmt::Switch { cases, default, .. } => cases.iter().any(|c| block(k, &c.body)) || block(k, default),
                _ => false,
            })
        }
        block(self, &self.body)
    }

    /// [`Kernel::defers_faults`] of a launch-specialised kernel (`Features::launch_specialised`),
    /// which has usually left no lone `Fault` (`launch_proof`): a heap access at an index
    /// [`Kernel::heap_index_memories_of`] proves, a parameter word at an index in range for
    /// every launch ([`Kernel::param_word_in_range`]: read directly or through the backends'
    /// opaque load, neither faults) and a shared or local word in range
    /// ([`Kernel::index_in_range`]) are made by the backends without a check, so they defer
    /// nothing; everything else counts as in [`Kernel::defers_faults`]. (Only for these
    /// kernels: it walks the body several times.)
    fn defers_faults_exactly(&self) -> bool {
        let values = self.value_vars();
        let heap = self.heap_index_memories_of(&values);
        let facts = self.index_facts_of(&values);
        let proven = |memory: Memory, index: Operand, dst: Option<VarId>| -> bool {
            match memory {
                Memory::Heap | Memory::Segment(_) => matches!(index, Operand::Var(v) if heap.get(v.index()).copied().flatten() == Some(memory)),
                // Read directly, or through the opaque load (no fault: the index is in range).
                Memory::Param => dst.is_some() && self.param_word_in_range(index),
                Memory::Shared | Memory::Local => self.index_in_range(memory, index, &facts),
                Memory::Scratch => true,
            }
        };
        fn block(k: &Kernel, b: &Block, proven: &dyn Fn(Memory, Operand, Option<VarId>) -> bool) -> bool {
            let present = |m: Memory| match m {
                Memory::Heap | Memory::Segment(_) | Memory::Param => true,
                Memory::Shared => k.shared_words > 0,
                Memory::Local => k.local_words > 0 && k.local_placement == LocalPlacement::Private,
                Memory::Scratch => false,
            };
            b.stmts.iter().any(|s| match s {
                Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Scratch, .. }, .. } | Stmt::StoreWord { memory: Memory::Scratch, .. } => true,
                Stmt::Assign { dst, expr: Expr::LoadWord { memory, index } } => present(*memory) && !proven(*memory, *index, Some(*dst)),
                Stmt::StoreWord { memory, index, .. } => present(*memory) && !proven(*memory, *index, None),
                Stmt::Assign { expr: Expr::LoadDword { memory, .. }, .. } => present(*memory),
                // Branchless word atomics ([`AtomicOp::identity`]), never proven here.
                Stmt::Assign { expr: Expr::AtomicWord { memory, op, .. }, .. } => {
                    op.identity().is_some() && !matches!(memory, Memory::Param | Memory::Local | Memory::Scratch) && present(*memory)
                }
                Stmt::If { then_body, else_body, .. } => {
                    (else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]))
                        || block(k, then_body, proven)
                        || block(k, else_body, proven)
                }
                Stmt::Loop { body } => block(k, body, proven),
                Stmt::Switch { cases, default, .. } => cases.iter().any(|c| block(k, &c.body, proven)) || block(k, default, proven),
                _ => false,
            })
        }
        block(self, &self.body, &proven)
    }

    /// Whether the kernel reaches the scratch buffer (`Memory::Scratch`): its local memory
    /// is there, or its warp matrix exchange.
    pub fn uses_scratch(&self) -> bool {
        self.local_placement == LocalPlacement::Scratch || self.features.scratch_exchange_words > 0 || self.features.scratch_shared_words > 0
    }

    /// Whether the kernel's shared memory is an array of `shared_words.div_ceil(2)` 64-bit
    /// doublewords (SPIR-V `u64`, WGSL `atomic<u64>`) rather than of words: it is exactly when
    /// the body has an `AtomicDword` on `Shared`. Such a kernel accesses shared memory only
    /// through `AtomicDword` (no `LoadWord`, `StoreWord`, `AtomicWord` or `SharedUniformLoad`
    /// on `Shared`): `lower`'s `shared64` pass rewrites them. Walks the body.
    pub fn shared_dwords(&self) -> bool {
        fn block(b: &Block) -> bool {
            b.stmts.iter().any(|s| match s {
                Stmt::Assign { expr: Expr::AtomicDword { memory: Memory::Shared, .. }, .. } => true,
                Stmt::If { then_body, else_body, .. } => block(then_body) || block(else_body),
                Stmt::Loop { body } => block(body),
                Stmt::Switch { cases, default, .. } => cases.iter().any(|c| block(&c.body)) || block(default),
                _ => false,
            })
        }
        self.shared_words > 0 && block(&self.body)
    }

    /// Per variable: whether it is a *value*: assigned exactly once, and read only where that
    /// assignment has run before on every path — later in the block that holds the assignment,
    /// or inside a statement that comes later in that block (in structured code, exactly the
    /// places the assignment dominates). A value never changes once set (in a loop, each
    /// iteration sets it before any read), so a backend may bind it once (WGSL `let`, a
    /// SPIR-V result id) instead of keeping a variable, and `lower` may replace a value that
    /// copies another value or a constant by that operand. The fault-site variable is never a
    /// value (backends treat it apart).
    pub fn value_vars(&self) -> Vec<bool> {
        const NONE: u32 = u32::MAX;
        // Per variable, one byte: no assignment yet, one (and every read so far after it), or
        // not a value (a second assignment, a read it does not dominate). The list returned
        // is one pass over these bytes (a count, a flag and a test per variable were a fifth
        // of the walk on big kernels).
        const UNSET: u8 = 0;
        const ONCE: u8 = 1;
        const NOT: u8 = 2;
        struct W {
            state: Vec<u8>,
            def_block: Vec<u32>,
            open: Vec<bool>,
        }
        fn read(w: &mut W, o: Operand) {
            if let Operand::Var(v) = o {
                let Some(&b) = w.def_block.get(v.index()) else { return };
                if b == NONE || !w.open[b as usize] {
                    w.state[v.index()] = NOT;
                }
            }
        }
        fn block(w: &mut W, b: &Block) {
            let id = w.open.len();
            w.open.push(true);
            for s in &b.stmts {
                stmt_operands(s, |o| read(w, o));
                if let Stmt::Assign { dst, .. } = s {
                    if let Some(st) = w.state.get_mut(dst.index()) {
                        *st = if *st == UNSET { ONCE } else { NOT };
                        if w.def_block[dst.index()] == NONE {
                            w.def_block[dst.index()] = id as u32;
                        }
                    }
                }
                for body in s.bodies() {
                    block(w, body);
                }
            }
            w.open[id] = false;
        }
        let n = self.vars.len();
        let mut w = W { state: vec![UNSET; n], def_block: vec![NONE; n], open: Vec::new() };
        block(&mut w, &self.body);
        let mut values: Vec<bool> = w.state.iter().map(|&s| s == ONCE).collect();
        if let Some(v) = self.fault_site_var.and_then(|f| values.get_mut(f.index())) {
            *v = false;
        }
        values
    }

    pub fn var_ty(&self, v: VarId) -> Ty {
        self.vars[v.index()].ty
    }
    pub fn operand_ty(&self, o: Operand) -> Ty {
        match o {
            Operand::Var(v) => self.var_ty(v),
            Operand::Const(c) => c.ty(),
        }
    }
}

impl fmt::Display for VarId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

// ---- The IR's typing rules: which operand types each operation accepts. Backends refuse
// anything else as invalid IR; their tests sweep these lists against these rules.

impl Ty {
    pub const ALL: [Ty; 5] = [Ty::Bool, Ty::U32, Ty::U64, Ty::F32, Ty::F64];
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 12] = {
        use UnaryOp::*;
        [Not, Neg, FNeg, FAbs, FSqrt, FFloor, FCeil, FTrunc, FRoundEven, Popcount, CountLeadingZeros, BitReverse]
    };
    /// The result type of the op on an operand of `ty`, or `None` if it does not apply.
    pub fn result_ty(self, ty: Ty) -> Option<Ty> {
        use UnaryOp::*;
        let ok = match self {
            Not => matches!(ty, Ty::Bool | Ty::U32 | Ty::U64),
            Neg | BitReverse | Popcount | CountLeadingZeros => ty.is_int(),
            FNeg | FAbs | FSqrt | FFloor | FCeil | FTrunc | FRoundEven => ty.is_float(),
        };
        ok.then_some(if matches!(self, Popcount | CountLeadingZeros) { Ty::U32 } else { ty })
    }
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 25] = {
        use BinaryOp::*;
        [
            Add, Sub, Mul, MulHiU, MulHiS, DivU, DivS, RemU, RemS, And, Or, Xor, Shl, ShrU, ShrS, MinU, MinS, MaxU,
            MaxS, FAdd, FSub, FMul, FDiv, FMin, FMax,
        ]
    };
    /// Whether the op applies to type `ty` (the type of `lhs` and the result; shifts take a
    /// `U32` `rhs`, see [`BinaryOp::is_shift`]).
    pub fn accepts(self, ty: Ty) -> bool {
        use BinaryOp::*;
        match self {
            And | Or | Xor => matches!(ty, Ty::Bool | Ty::U32 | Ty::U64),
            FAdd | FSub | FMul | FDiv | FMin | FMax => ty.is_float(),
            _ => ty.is_int(),
        }
    }
    pub fn is_shift(self) -> bool {
        matches!(self, BinaryOp::Shl | BinaryOp::ShrU | BinaryOp::ShrS)
    }
}

impl CmpOp {
    pub const ALL: [CmpOp; 16] = {
        use CmpOp::*;
        [Eq, Ne, LtU, LeU, GtU, GeU, LtS, LeS, GtS, GeS, FEq, FNe, FLt, FLe, FGt, FGe]
    };
    /// Whether the comparison applies to operands of type `ty`.
    pub fn accepts(self, ty: Ty) -> bool {
        use CmpOp::*;
        match self {
            Eq | Ne => matches!(ty, Ty::Bool | Ty::U32 | Ty::U64),
            FEq | FNe | FLt | FLe | FGt | FGe => ty.is_float(),
            _ => ty.is_int(),
        }
    }

    /// The comparison that holds exactly where `self` fails, for the integer and equality
    /// comparisons; `None` for the ordered float ones (their negation is unordered, which this
    /// IR has no operator for).
    pub fn integer_negation(self) -> Option<CmpOp> {
        use CmpOp::*;
        Some(match self {
            Eq => Ne,
            Ne => Eq,
            LtU => GeU,
            GeU => LtU,
            LeU => GtU,
            GtU => LeU,
            LtS => GeS,
            GeS => LtS,
            LeS => GtS,
            GtS => LeS,
            FEq | FNe | FLt | FLe | FGt | FGe => return None,
        })
    }
}

impl ConvertOp {
    pub const ALL: [ConvertOp; 9] = {
        use ConvertOp::*;
        [Truncate, ZeroExtend, SignExtend, FloatToUint, FloatToSint, UintToFloat, SintToFloat, FloatToFloat, Bitcast]
    };
    /// Whether the conversion applies from `from` to `to`.
    pub fn accepts(self, from: Ty, to: Ty) -> bool {
        use ConvertOp::*;
        match self {
            Truncate => (from, to) == (Ty::U64, Ty::U32),
            ZeroExtend | SignExtend => (from, to) == (Ty::U32, Ty::U64),
            FloatToUint | FloatToSint => from.is_float() && to.is_int(),
            UintToFloat | SintToFloat => from.is_int() && to.is_float(),
            FloatToFloat => from.is_float() && to.is_float() && from != to,
            Bitcast => matches!((from, to), (Ty::U32, Ty::F32) | (Ty::F32, Ty::U32) | (Ty::U64, Ty::F64) | (Ty::F64, Ty::U64)),
        }
    }
}

impl AtomicOp {
    pub const ALL: [AtomicOp; 11] = {
        use AtomicOp::*;
        [Add, Sub, And, Or, Xor, Exchange, MinU, MaxU, MinS, MaxS, CompareExchange]
    };
}

/// [`Kernel::index_facts`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexFacts {
    pub facts: Vec<Option<Fact>>,
    /// Words of the word arrays (0 where there is none, or shared memory is doublewords).
    pub shared_words: u32,
    pub local_words: u32,
}

/// What [`Kernel::value_facts`] knows of an integer or boolean value: `min <= v <= max`
/// (unsigned; booleans 0 or 1), and its low `zeros` bits are 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fact {
    pub min: u64,
    pub max: u64,
    pub zeros: u32,
}

impl Fact {
    fn full(ty: Ty) -> Option<Fact> {
        match ty {
            Ty::Bool => Some(Fact { min: 0, max: 1, zeros: 0 }),
            Ty::U32 => Some(Fact { min: 0, max: u32::MAX as u64, zeros: 0 }),
            Ty::U64 => Some(Fact { min: 0, max: u64::MAX, zeros: 0 }),
            Ty::F32 | Ty::F64 => None,
        }
    }
    fn exact(v: u64, ty: Ty) -> Fact {
        Fact { min: v, max: v, zeros: if v == 0 { ty.bits() } else { v.trailing_zeros().min(ty.bits()) } }
    }
    /// `[min, max]` with `zeros` low zero bits, tightened: a value below `2^zeros` is 0.
    fn new(min: u64, max: u64, zeros: u32, ty: Ty) -> Fact {
        let zeros = zeros.min(ty.bits());
        if zeros >= 64 || max < (1u64 << zeros) {
            return Fact::exact(0, ty);
        }
        Fact { min, max, zeros }
    }
    fn is(&self, b: bool) -> bool {
        self.min == self.max && self.min == b as u64
    }

    pub fn of_operand(k: &Kernel, o: Operand, facts: &[Option<Fact>]) -> Option<Fact> {
        match o {
            Operand::Const(c) if !c.ty().is_float() => Some(Fact::exact(c.bits(), c.ty())),
            Operand::Const(_) => None,
            Operand::Var(v) => match facts.get(v.index()).copied().flatten() {
                Some(f) => Some(f),
                None => Fact::full(k.vars.get(v.index())?.ty),
            },
        }
    }

    pub(crate) fn of_expr(k: &Kernel, e: &Expr, ty: Ty, facts: &[Option<Fact>]) -> Option<Fact> {
        let full = Fact::full(ty)?;
        let f = |o: Operand| Fact::of_operand(k, o, facts).unwrap_or(full);
        let limit: u128 = if ty == Ty::U64 { u64::MAX as u128 } else if ty == Ty::Bool { 1 } else { u32::MAX as u128 };
        let bool_of = |b: Option<bool>| Some(match b {
            Some(v) => Fact::exact(v as u64, Ty::Bool),
            None => Fact { min: 0, max: 1, zeros: 0 },
        });
        Some(match *e {
            Expr::Use(o) => f(o),
            Expr::Builtin(Builtin::ThreadId(d)) => {
                let n = k.workgroup_size.get(d as usize).copied().unwrap_or(0);
                if n == 0 {
                    return Some(full);
                }
                Fact::new(0, u64::from(n - 1), 0, ty)
            }
            Expr::Binary { op: BinaryOp::Shl, ty: oty, lhs, rhs: Operand::Const(c) } if oty == ty && c.bits() < u64::from(ty.bits()) => {
                let (a, s) = (f(lhs), c.bits() as u32);
                let max = (a.max as u128) << s;
                if max <= limit {
                    Fact::new(a.min << s, a.max << s, a.zeros + s, ty)
                } else {
                    Fact::new(0, limit as u64, a.zeros + s, ty)
                }
            }
            Expr::Binary { op: BinaryOp::ShrU, ty: oty, lhs, rhs: Operand::Const(c) } if oty == ty && c.bits() < u64::from(ty.bits()) => {
                let (a, s) = (f(lhs), c.bits() as u32);
                Fact::new(a.min >> s, a.max >> s, a.zeros.saturating_sub(s), ty)
            }
            Expr::Binary { op, ty: oty, lhs, rhs } if oty == ty && ty.is_int() => {
                let (a, b) = (f(lhs), f(rhs));
                let zmin = a.zeros.min(b.zeros);
                let ranged = |min: u128, max: u128, zeros: u32| {
                    if max <= limit {
                        Fact::new(min as u64, max as u64, zeros, ty)
                    } else {
                        Fact::new(0, limit as u64, zeros, ty)
                    }
                };
                match op {
                    BinaryOp::Add => ranged(a.min as u128 + b.min as u128, a.max as u128 + b.max as u128, zmin),
                    BinaryOp::Sub if a.min >= b.max => Fact::new(a.min - b.max, a.max - b.min, zmin, ty),
                    BinaryOp::Sub => Fact::new(0, limit as u64, zmin, ty),
                    BinaryOp::Mul => ranged(a.min as u128 * b.min as u128, a.max as u128 * b.max as u128, a.zeros + b.zeros),
                    BinaryOp::And => Fact::new(0, a.max.min(b.max), a.zeros.max(b.zeros), ty),
                    BinaryOp::Or => {
                        let m = a.max.max(b.max);
                        let top = if m == 0 { 0 } else { u64::MAX >> m.leading_zeros() };
                        Fact::new(a.min.max(b.min), top, zmin, ty)
                    }
                    BinaryOp::MinU => Fact::new(a.min.min(b.min), a.max.min(b.max), zmin, ty),
                    BinaryOp::MaxU => Fact::new(a.min.max(b.min), a.max.max(b.max), zmin, ty),
                    BinaryOp::Shl | BinaryOp::ShrU => full,
                    _ => full,
                }
            }
            Expr::Binary { op, ty: Ty::Bool, lhs, rhs } if ty == Ty::Bool => {
                let (a, b) = (f(lhs), f(rhs));
                match op {
                    BinaryOp::And if a.is(false) || b.is(false) => return bool_of(Some(false)),
                    BinaryOp::And if a.is(true) && b.is(true) => return bool_of(Some(true)),
                    BinaryOp::Or if a.is(true) || b.is(true) => return bool_of(Some(true)),
                    BinaryOp::Or if a.is(false) && b.is(false) => return bool_of(Some(false)),
                    _ => full,
                }
            }
            Expr::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg } if ty == Ty::Bool => {
                let a = f(arg);
                return bool_of(if a.is(true) { Some(false) } else if a.is(false) { Some(true) } else { None });
            }
            Expr::Compare { op, ty: cty, lhs, rhs } if cty.is_int() && ty == Ty::Bool => {
                let (a, b) = (Fact::of_operand(k, lhs, facts)?, Fact::of_operand(k, rhs, facts)?);
                let lt = if a.max < b.min { Some(true) } else if a.min >= b.max { Some(false) } else { None };
                let le = if a.max <= b.min { Some(true) } else if a.min > b.max { Some(false) } else { None };
                let eq = if a.min == a.max && b.min == b.max && a.min == b.min {
                    Some(true)
                } else if a.max < b.min || b.max < a.min {
                    Some(false)
                } else {
                    None
                };
                let not = |x: Option<bool>| x.map(|v| !v);
                let r = match op {
                    CmpOp::Eq => eq,
                    CmpOp::Ne => not(eq),
                    CmpOp::LtU => lt,
                    CmpOp::LeU => le,
                    CmpOp::GtU => not(le),
                    CmpOp::GeU => not(lt),
                    _ => None,
                };
                return bool_of(r);
            }
            Expr::Select { cond, a, b, .. } => {
                let (c, x, y) = (f(cond), f(a), f(b));
                if c.is(true) {
                    x
                } else if c.is(false) {
                    y
                } else {
                    Fact::new(x.min.min(y.min), x.max.max(y.max), x.zeros.min(y.zeros), ty)
                }
            }
            Expr::Convert { op: ConvertOp::ZeroExtend, arg, .. } if ty == Ty::U64 => f(arg),
            Expr::Convert { op: ConvertOp::Truncate, arg, .. } if ty == Ty::U32 => {
                let a = f(arg);
                if a.max <= u32::MAX as u64 {
                    a
                } else {
                    Fact::new(0, u32::MAX as u64, a.zeros, ty)
                }
            }
            _ => full,
        })
    }
}
