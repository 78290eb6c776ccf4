//! `ld`, `st` (spec §9.7.9.8–9): addresses → words of the IR's memories, with the
//! generic-address windows, sub-word extraction, alignment and bounds (also used by `atomic`).

use super::Mods;
use crate::abi;
use crate::function::{unsupported, FnLower, LResult, Space, Symbol};
use crate::ir::{AtomicOp, BinaryOp, CmpOp, Expr, Memory, Operand, Stmt, Ty};
use crate::ptx_types::{self, value_ty};
use crate::wide_lock::locked_memory;
use ptxcross_frontend::ast::{self, OperandKind, ScalarType};
use ptxcross_frontend::Diagnostic;

/// Cache, eviction and ordering qualifiers that do not change single-thread results.
/// `.relaxed` with a scope and `.volatile` (spec §9.7.9.8, memory consistency model §8:
/// volatile is relaxed at system scope) are *strong* accesses: on global and shared memory each
/// word becomes a relaxed word atomic (see `strong_accesses`), so it is coherent per location
/// and a compiler can neither hoist it out of a spin loop nor merge it with another access.
/// An access of exactly 8 bytes is one doubleword atomic instead (`strong_dword_load`/
/// `strong_dword_store`: single-copy atomic, §8.10.3); one of 16 bytes of memory other threads
/// can write runs under a lock (`wide_lock`: no 128-bit atomic exists in Vulkan or WGSL, and
/// NVIDIA performs them whole; docs/simt.md); wider ones are refused (`no_strong_wide_access`). `.acquire`/`.release` (ld/st) add a fence after /
/// before the strong access, at the access's scope (see `atomic::sem_fences`).
/// Eviction priorities and prefetch sizes (§9.7.10.1/2) are hints too.
const IGNORED: [&str; 26] = [
    "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "weak", "volatile", "L1::evict_normal", "L1::evict_last",
    "L1::no_allocate", "L2::evict_normal", "relaxed", "cta", "gpu", "sys", "cluster", "L1::evict_first",
    "L1::evict_unchanged", "L2::evict_first", "L2::evict_last", "L2::64B", "L2::128B", "L2::256B",
];

/// A resolved address: the memory, and a byte offset into it (U32) — or, for generic
/// addresses, the 64-bit generic address to dispatch on at run time.
pub(super) enum Place {
    Fixed(Memory, Operand),
    Generic(Operand),
    /// A 64-bit global address of a kernel translated for several heap segments
    /// (`LowerOptions::segment_slots`): the slot is chosen per access (`FnLower::on_heap`).
    Global(Operand),
}

impl FnLower {
    pub(super) fn state_space(&self, m: &Mods) -> LResult<Space> {
        Ok(match m.one_of(&["global", "shared", "shared::cta", "local", "param", "param::entry", "param::func", "const"]) {
            Some("global") => Space::Global,
            Some("shared") | Some("shared::cta") => Space::Shared,
            Some("local") => Space::Local,
            Some("param::entry") => Space::ParamEntry,
            Some("param") | Some("param::func") => Space::Param,
            Some("const") => Space::Const,
            _ => {
                if let Some(s) = m.one_of(&["shared::cluster", "tex", "surf"]) {
                    return Err(unsupported(format!("state space .{s} in `{}`", m.name()), m.inst.span));
                }
                Space::Generic
            }
        })
    }

    /// The byte offset `base + offset` of a register (or absolute) address into a word array
    /// of at most 4 GiB (shared, local, parameters): a U32.
    fn register_offset(&mut self, part: &ast::Operand, base: Option<&str>, offset: i64) -> LResult<Operand> {
        Ok(match base {
            Some(name) => {
                let t = if self.address_size == 64 && self.reg_is_64(name) { ScalarType::U64 } else { ScalarType::U32 };
                let v = self.read(&named(part, name), t)?;
                let v = self.resize(v, value_ty(t).unwrap_or(Ty::U32), Ty::U32, false);
                self.bin(BinaryOp::Add, Ty::U32, v, FnLower::u32c(offset as u32))
            }
            None => FnLower::u32c(offset as u32),
        })
    }

    /// Resolves `[base+offset]` in state space `space`.
    pub(super) fn place(&mut self, op: &ast::Operand, space: Space) -> LResult<Place> {
        let OperandKind::Address(parts) = &op.kind else {
            return Err(Diagnostic::new("expected an address `[…]`", op.span));
        };
        let [part] = parts.as_slice() else {
            return Err(unsupported("this address form", op.span));
        };
        // Split into a base (register or variable) and a constant byte offset.
        let (base, offset): (Option<&str>, i64) = match &part.kind {
            OperandKind::Symbol { name, component: None } => (Some(name.as_str()), 0),
            OperandKind::Expr(e) => match crate::consts::eval(e)? {
                crate::consts::ConstValue::Int(i) => (None, i as i64),
                crate::consts::ConstValue::Symbol(s, o) => {
                    // The symbol may be a register (`[%rd1+8]`) or a variable (`[smem+8]`).
                    let name: &str = match e {
                        ast::Expr::Binary { lhs, .. } => match &**lhs {
                            ast::Expr::Symbol { name, .. } => name,
                            _ => return Err(unsupported("this address expression", part.span)),
                        },
                        ast::Expr::Symbol { name, .. } => name,
                        _ => return Err(unsupported("this address expression", part.span)),
                    };
                    debug_assert_eq!(name, s);
                    (Some(name), o)
                }
                _ => return Err(Diagnostic::new("an address must be an integer", part.span)),
            },
            _ => return Err(unsupported("this address form", part.span)),
        };
        let sym = match base {
            Some(name) => Some(
                self.lookup(name)
                    .cloned()
                    .ok_or_else(|| Diagnostic::new(format!("unknown identifier `{name}`"), part.span))?,
            ),
            None => None,
        };
        let wide = self.address_size == 64;
        if base.is_none() && matches!(space, Space::Global | Space::Shared | Space::Generic) {
            // §6.4.1 lists `[immAddr]`, but ptxas refuses it outside `.local` ("Immediate
            // addresses allowed only for .local state space").
            return Err(Diagnostic::new(
                format!("{} an immediate address is allowed only in the .local state space", crate::function::OPERAND_MISFIT),
                part.span,
            ));
        }
        match (space, sym) {
            (Space::Param | Space::ParamEntry, Some(Symbol::Param { offset: p })) => {
                Ok(Place::Fixed(Memory::Param, FnLower::u32c((p as i64 + offset) as u32)))
            }
            // Device-function parameters and call-site `.param` variables live in local memory.
            (Space::Param, Some(Symbol::Local { offset: o, call_site })) => {
                if call_site && self.inst_guard.is_some() {
                    // §9.7.10.8 (`ld.param`): "used for reading value returned from device
                    // function call cannot be predicated"; §7.1 likewise for the `st.param`
                    // of an argument. A guard there would leave the slot or the register
                    // holding whatever the ABI put there, which PTX does not define.
                    return Err(Diagnostic::new(
                        format!(
                            "a predicated access of call parameter `{}`: PTX forbids predicating the `st.param` of \
                             an argument and the `ld.param` of a return value (ISA 8.5 §9.7.10.8, §7.1)",
                            base.unwrap_or("?")
                        ),
                        op.span,
                    ));
                }
                Ok(Place::Fixed(Memory::Local, self.local_offset(o, offset)))
            }
            // A register holding a kernel parameter's address (`mov.b64 %rd, param`, see
            // `FnLower::symbol_address`): a byte offset into the parameter buffer.
            (Space::Param, Some(Symbol::Reg { .. }) | None) if self.in_kernel_body() => {
                let a = self.register_offset(part, base, offset)?;
                Ok(Place::Fixed(Memory::Param, a))
            }
            // `.param::entry` in a device function too: "operand a must be a kernel parameter
            // address" (§9.7.10.8), e.g. one the kernel passed in, or `cvta.to.param` gave.
            (Space::ParamEntry, Some(Symbol::Reg { .. }) | None) => {
                let a = self.register_offset(part, base, offset)?;
                Ok(Place::Fixed(Memory::Param, a))
            }
            // `.param` (`::func` by default there) through a register in a device function: the
            // address of one of its own parameters (`mov.u64 %rd, p` gives their local-memory
            // offset, see `FnLower::symbol_address`), so a local-memory offset.
            (Space::Param, Some(Symbol::Reg { .. }) | None) => {
                let a = self.register_offset(part, base, offset)?;
                Ok(Place::Fixed(Memory::Local, a))
            }
            (Space::ParamEntry, Some(_)) => Err(Diagnostic::new(
                format!("`.param::entry` accesses kernel parameters (PTX ISA §9.7.10.8): `{}` is none", base.unwrap_or_default()),
                op.span,
            )),
            (_, Some(Symbol::Param { .. })) => Err(Diagnostic::new("a parameter is accessed with `ld.param`", op.span)),
            (Space::Shared, Some(Symbol::Shared { offset: o })) => {
                Ok(Place::Fixed(Memory::Shared, FnLower::u32c((o as i64 + offset) as u32)))
            }
            (Space::Local, Some(Symbol::Local { offset: o, .. })) => Ok(Place::Fixed(Memory::Local, self.local_offset(o, offset))),
            (Space::Shared | Space::Local, Some(Symbol::Reg { .. }) | None) => {
                // Register (or absolute) shared/local address: a byte offset into the array.
                let a = self.register_offset(part, base, offset)?;
                let mem = if matches!(space, Space::Shared) { Memory::Shared } else { Memory::Local };
                Ok(Place::Fixed(mem, a))
            }
            (Space::Global | Space::Const | Space::Generic, Some(Symbol::Global { offset: o })) => {
                let base = self.globals_base();
                let a = self.bin(BinaryOp::Add, Ty::U64, base, FnLower::u64c((o as i64 + offset) as u64));
                Ok(self.heap_place(a))
            }
            (Space::Generic, Some(Symbol::Shared { offset: o })) => {
                Ok(Place::Fixed(Memory::Shared, FnLower::u32c((o as i64 + offset) as u32)))
            }
            (Space::Generic, Some(Symbol::Local { offset: o, .. })) => Ok(Place::Fixed(Memory::Local, self.local_offset(o, offset))),
            (Space::Global | Space::Const | Space::Generic, Some(Symbol::Reg { .. }) | None) => {
                let a = match base {
                    // ptxas takes a narrower register here with a warning that it conflicts
                    // with `.address_size 64`; PTX gives it no meaning.
                    Some(name) if wide && !self.reg_is_64(name) => {
                        return Err(unsupported(
                            format!("register `{name}` narrower than 64 bits as an address with .address_size 64"),
                            part.span,
                        ))
                    }
                    Some(name) if wide => {
                        let v = self.read(&named(part, name), ScalarType::U64)?;
                        self.bin(BinaryOp::Add, Ty::U64, v, FnLower::u64c(offset as u64))
                    }
                    None if wide => FnLower::u64c(offset as u64),
                    // A 32-bit address: `[a+offset]` wraps in 32 bits, then maps to 64 bits.
                    _ => {
                        let v = match base {
                            Some(name) => self.read(&named(part, name), ScalarType::U32)?,
                            None => FnLower::u32c(0),
                        };
                        let a32 = self.bin(BinaryOp::Add, Ty::U32, v, FnLower::u32c(offset as u32));
                        let windows = matches!(space, Space::Generic);
                        self.widen_address32(a32, windows, windows)
                    }
                };
                if matches!(space, Space::Generic) && (self.has_shared || self.has_local || self.has_param_window) {
                    Ok(Place::Generic(a))
                } else {
                    Ok(self.heap_place(a))
                }
            }
            (s, Some(sym)) => Err(Diagnostic::new(format!("{sym:?} cannot be accessed in state space {s:?}"), op.span)),
        }
    }

    /// A whole vector register (`ld.v4.f32 %v, [a]`) as its element operands.
    pub(super) fn vector_register_elements(&self, op: &ast::Operand) -> Option<Vec<ast::Operand>> {
        let OperandKind::Symbol { name, component: None } = &op.kind else { return None };
        if self.lookup(name).is_some() || self.lookup(&crate::function::vector_element_name(name, "x")).is_none() {
            return None;
        }
        let comps = ["x", "y", "z", "w"];
        let n = comps.iter().take_while(|c| self.lookup(&crate::function::vector_element_name(name, c)).is_some()).count();
        Some(
            comps[..n]
                .iter()
                .map(|c| ast::Operand {
                    kind: OperandKind::Symbol { name: name.clone(), component: Some((*c).into()) },
                    span: op.span,
                })
                .collect(),
        )
    }

    fn reg_is_64(&self, name: &str) -> bool {
        matches!(self.lookup(name), Some(Symbol::Reg { var, .. }) if self.vars[var.index()].ty == Ty::U64)
    }

    /// Byte offset into the bound heap segment of a 64-bit global address, saturated so that
    /// any address outside the segment's window (another segment, or no heap at all) is out
    /// of range (never wraps into it).
    ///
    /// The segment's base has a zero low word, so `addr - base` is below 2^32 exactly when
    /// the high words are equal, and is then the low word: two 32-bit tests, no 64-bit
    /// subtraction or comparison per access.
    pub(super) fn heap_offset(&mut self, addr: Operand) -> Operand {
        let base_hi = self.heap_base_hi();
        let hi = self.bin(BinaryOp::ShrU, Ty::U64, addr, FnLower::u32c(32));
        let hi = self.resize(hi, Ty::U64, Ty::U32, false);
        let lo = self.resize(addr, Ty::U64, Ty::U32, false);
        // Another segment's address becomes 0xffff_fff0: out of range, and so is every
        // address in the segment's last 16 bytes. An access's later bytes (`off + 4 * e` for
        // the elements of a vector, at most 31 bytes on) wrap from there to below byte 32,
        // which is a reserved word (`abi::HEAP_RESERVED_WORDS`): out of range too, as every
        // heap index check (`heap_word_check`, the backends' atomics) rejects words below 64.
        let other = self.cmp(CmpOp::Ne, Ty::U32, hi, base_hi);
        self.select(Ty::U32, other, FnLower::u32c(0xffff_fff0), lo)
    }

    /// The place of 64-bit global address `a`: a byte offset of the one bound segment, or
    /// with several segment slots the address itself (the slot is chosen per access).
    pub(super) fn heap_place(&mut self, a: Operand) -> Place {
        if self.segment_slots >= 2 {
            Place::Global(a)
        } else {
            let rel = self.heap_offset(a);
            Place::Fixed(Memory::Heap, rel)
        }
    }

    /// Runs `f` on the heap memory that 64-bit global address `a` lies in, with its byte
    /// offset there. One segment: [`Memory::Heap`] at [`FnLower::heap_offset`]. Several
    /// segment slots (`LowerOptions::segment_slots`, issue 11): a compare chain on the
    /// address's high word, `if hi == slot[S-1] { f(Segment(S-1), lo) } else if … else
    /// { f(Heap, heap_offset(a)) }`: slot `j` ≥ 1 gets the low word as its offset (a
    /// segment's base has a zero low word), and everything else, slot 0's addresses and those
    /// in no bound segment, takes slot 0's path, which makes the latter out of range exactly
    /// as in the one-segment translation. So every access kind (`f`: loads, stores, sub-word
    /// stores, vectors, atomics) is written once, for whichever heap memory it is given.
    pub(super) fn on_heap(&mut self, a: Operand, f: &mut dyn FnMut(&mut Self, Memory, Operand) -> LResult<()>) -> LResult<()> {
        if self.segment_slots < 2 {
            let rel = self.heap_offset(a);
            return f(self, Memory::Heap, rel);
        }
        let hi = self.bin(BinaryOp::ShrU, Ty::U64, a, FnLower::u32c(32));
        let hi = self.resize(hi, Ty::U64, Ty::U32, false);
        let lo = self.resize(a, Ty::U64, Ty::U32, false);
        let mut otherwise = self.collect(|s| {
            let rel = s.heap_offset(a);
            f(s, Memory::Heap, rel)
        })?;
        for j in (1..self.segment_slots.min(abi::MAX_SEGMENT_SLOTS) as u8).rev() {
            let base = self.slot_base_hi(j);
            let hit = self.cmp(CmpOp::Eq, Ty::U32, hi, base);
            let body = self.collect(|s| f(s, Memory::Segment(j), lo))?;
            otherwise = crate::ir::Block { stmts: vec![Stmt::If { cond: hit, then_body: body, else_body: otherwise }] };
        }
        self.push_block(otherwise);
        Ok(())
    }

    /// The range test of heap word `idx` and the `k` words after it (`k` is 0 or 1), made
    /// here once for the whole access (issue 11): `ok` (Bool) is whether they all lie in the
    /// heap outside its reserved words; when not, the access records
    /// `abi::FAULT_GLOBAL_OUT_OF_RANGE` (deferred, without a branch) and accesses the sink
    /// word instead (`heap_safe_index`).
    fn heap_word_check(&mut self, mem: Memory, idx: Operand, k: u32) -> Operand {
        let lim = self.heap_limit_of(mem, k);
        let rel = self.bin(BinaryOp::Sub, Ty::U32, idx, FnLower::u32c(abi::HEAP_RESERVED_WORDS));
        self.cmp(CmpOp::LtU, Ty::U32, rel, lim)
    }

    /// Word `idx + j` of the heap when `ok` (a test made by [`FnLower::heap_word_check`] on
    /// `idx`, possibly `&&`-ed with more), else the sink word.
    fn heap_safe_index(&mut self, ok: Operand, idx: Operand, j: u32) -> Operand {
        let i = if j == 0 { idx } else { self.bin(BinaryOp::Add, Ty::U32, idx, FnLower::u32c(j)) };
        self.select(Ty::U32, ok, i, FnLower::u32c(abi::HEAP_SINK_WORD))
    }

    fn out_of_range_fault(&mut self, bad: Operand) {
        let fault = crate::ir::Block { stmts: vec![Stmt::Fault { code: abi::FAULT_GLOBAL_OUT_OF_RANGE }] };
        self.emit_if(bad, fault, crate::ir::Block::new());
    }

    /// A plain heap load of `size` bytes (1, 2, 4, 8) at byte `off`, with one range test
    /// (`heap_word_check`): out of range it records the fault and yields 0 without reading
    /// any allocation; misaligned it records that fault and reads the aligned word(s) below.
    fn load_heap(&mut self, mem: Memory, off: Operand, size: u32) -> Operand {
        self.check_alignment(off, size);
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
        let k = u32::from(size == 8);
        let ok = self.heap_word_check(mem, idx, k);
        let bad = self.un(crate::ir::UnaryOp::Not, Ty::Bool, ok);
        self.out_of_range_fault(bad);
        let mut words = Vec::new();
        for j in 0..=k {
            let i = self.heap_safe_index(ok, idx, j);
            let w = self.value(Ty::U32, Expr::LoadWord { memory: mem, index: i });
            words.push(self.select(Ty::U32, ok, w, FnLower::u32c(0)));
        }
        self.loaded_value(off, size, words[0], words.get(1).copied())
    }

    /// The value of a `size`-byte load at byte `off` from its aligned word `w` (and, for 8
    /// bytes, the next word `hi`): U32 (a sub-word zero-extended) or U64.
    fn loaded_value(&mut self, off: Operand, size: u32, w: Operand, hi: Option<Operand>) -> Operand {
        match (size, hi) {
            (4, _) => w,
            (8, Some(hi)) => {
                let lo = self.resize(w, Ty::U32, Ty::U64, false);
                let hi = self.resize(hi, Ty::U32, Ty::U64, false);
                let hi = self.bin(BinaryOp::Shl, Ty::U64, hi, FnLower::u32c(32));
                self.bin(BinaryOp::Or, Ty::U64, hi, lo)
            }
            _ => {
                let byte = self.bin(BinaryOp::And, Ty::U32, off, FnLower::u32c(3));
                let sh = self.bin(BinaryOp::Mul, Ty::U32, byte, FnLower::u32c(8));
                let v = self.bin(BinaryOp::ShrU, Ty::U32, w, sh);
                self.bin(BinaryOp::And, Ty::U32, v, FnLower::u32c(((1u64 << (size * 8)) - 1) as u32))
            }
        }
    }

    /// A plain 4- or 8-byte heap store at byte `off`, with one range test: a misaligned
    /// store records that fault alone (as before: not also out of range) and an out-of-range
    /// one its fault; either stores to the sink word instead (nothing any kernel or the host
    /// reads).
    fn store_heap(&mut self, mem: Memory, off: Operand, size: u32, v: Operand) {
        let mis = self.misaligned(off, size);
        self.emit_if(mis, Self::misaligned_fault(), crate::ir::Block::new());
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
        let k = u32::from(size == 8);
        let ok = self.heap_word_check(mem, idx, k);
        let bad = self.un(crate::ir::UnaryOp::Not, Ty::Bool, ok);
        let aligned = self.un(crate::ir::UnaryOp::Not, Ty::Bool, mis);
        let bad_aligned = self.bin(BinaryOp::And, Ty::Bool, bad, aligned);
        self.out_of_range_fault(bad_aligned);
        let ok = self.bin(BinaryOp::And, Ty::Bool, ok, aligned);
        let lo = if size == 8 { self.resize(v, Ty::U64, Ty::U32, false) } else { v };
        let i0 = self.heap_safe_index(ok, idx, 0);
        self.push(Stmt::StoreWord { memory: mem, index: i0, value: lo });
        if size == 8 {
            let hi = self.bin(BinaryOp::ShrU, Ty::U64, v, FnLower::u32c(32));
            let hi = self.resize(hi, Ty::U64, Ty::U32, false);
            let i1 = self.heap_safe_index(ok, idx, 1);
            self.push(Stmt::StoreWord { memory: mem, index: i1, value: hi });
        }
    }

    /// The 64-bit address (see `abi`) of 32-bit address `a32` of an `.address_size 32` module:
    /// byte offset `a32` of the launch's heap segment (the heap is at its byte offsets there),
    /// or with `shared`/`local` an offset in that window when `a32` lies in its 32-bit window.
    pub(super) fn widen_address32(&mut self, a32: Operand, shared: bool, local: bool) -> Operand {
        let base_hi = self.heap_base_hi();
        let lo = self.resize(a32, Ty::U32, Ty::U64, false);
        let hi = self.resize(base_hi, Ty::U32, Ty::U64, false);
        let hi = self.bin(BinaryOp::Shl, Ty::U64, hi, FnLower::u32c(32));
        let mut r = self.bin(BinaryOp::Or, Ty::U64, lo, hi);
        let param = (shared || local) && self.has_param_window;
        for (present, base32, base64) in [
            (local, abi::LOCAL_WINDOW_BASE_32, abi::LOCAL_WINDOW_BASE),
            (shared, abi::SHARED_WINDOW_BASE_32, abi::SHARED_WINDOW_BASE),
            (param, abi::PARAM_WINDOW_BASE_32, abi::PARAM_WINDOW_BASE),
        ] {
            if !present {
                continue;
            }
            let rel = self.bin(BinaryOp::Sub, Ty::U32, a32, FnLower::u32c(base32));
            let inside = self.cmp(CmpOp::LtU, Ty::U32, rel, FnLower::u32c(abi::WINDOW_SIZE_32));
            let rel64 = self.resize(rel, Ty::U32, Ty::U64, false);
            let w = self.bin(BinaryOp::Add, Ty::U64, rel64, FnLower::u64c(base64));
            r = self.select(Ty::U64, inside, w, r);
        }
        r
    }

    /// Runs `f` on the memory a generic address points into (shared window, local window, or
    /// heap), with the byte offset into that memory.
    pub(super) fn on_place(&mut self, place: Place, mut f: impl FnMut(&mut Self, Memory, Operand) -> LResult<()>) -> LResult<()> {
        match place {
            Place::Fixed(mem, off) => f(self, mem, off),
            Place::Global(a) => self.on_heap(a, &mut f),
            Place::Generic(a) => {
                let heap = self.collect(|s| s.on_heap(a, &mut f))?;
                let mut otherwise = heap;
                for (mem, base, present) in [
                    (Memory::Local, abi::LOCAL_WINDOW_BASE, self.has_local),
                    (Memory::Shared, abi::SHARED_WINDOW_BASE, self.has_shared),
                    (Memory::Param, abi::PARAM_WINDOW_BASE, self.has_param_window),
                ] {
                    if !present {
                        continue;
                    }
                    let rel = self.bin(BinaryOp::Sub, Ty::U64, a, FnLower::u64c(base));
                    let inside = self.cmp(CmpOp::LtU, Ty::U64, rel, FnLower::u64c(abi::WINDOW_SIZE));
                    let mut body = self.collect(|s| {
                        let off = s.resize(rel, Ty::U64, Ty::U32, false);
                        f(s, mem, off)
                    })?;
                    // Kernel parameters are read-only (§5.1.6): a store or atomic through the
                    // parameter window faults and changes nothing.
                    if mem == Memory::Param && writes_param(&body) {
                        body = crate::ir::Block { stmts: vec![Stmt::Fault { code: abi::FAULT_PARAM_OUT_OF_RANGE }] };
                    }
                    otherwise = crate::ir::Block { stmts: vec![Stmt::If { cond: inside, then_body: body, else_body: otherwise }] };
                }
                self.push_block(otherwise);
                Ok(())
            }
        }
    }

    /// A 32-bit load at 64-bit generic address `a` (bounds- and alignment-checked like `ld`),
    /// for expansions that read memory outside an instruction's operands (`printf`).
    pub(crate) fn generic_load_u32(&mut self, a: Operand) -> LResult<Operand> {
        let r = self.new_var(Ty::U32, "loaded");
        self.on_place(Place::Generic(a), |s, mem, off| {
            let v = s.load_bytes(mem, off, 4);
            s.assign(r, Expr::Use(v));
            Ok(())
        })?;
        Ok(Operand::Var(r))
    }

    /// A 32-bit store at 64-bit global address `a` (checked like `st.global`).
    pub(crate) fn global_store_u32(&mut self, a: Operand, v: Operand) -> LResult<()> {
        let place = self.heap_place(a);
        self.on_place(place, |s, mem, off| {
            s.store_bytes(mem, off, 4, v);
            Ok(())
        })
    }

    /// A 32-bit atomic at 64-bit global address `a` (4-aligned by construction); yields the
    /// old value (0 where the address is out of range, which records the fault).
    pub(crate) fn global_atomic_u32(&mut self, a: Operand, op: AtomicOp, v: Operand) -> LResult<Operand> {
        self.global_atomic_word(a, op, v, None)
    }

    /// [`FnLower::global_atomic_u32`] with the comparand of a compare-exchange.
    pub(crate) fn global_atomic_word(&mut self, a: Operand, op: AtomicOp, v: Operand, comparand: Option<Operand>) -> LResult<Operand> {
        let r = self.new_var(Ty::U32, "old");
        let place = self.heap_place(a);
        self.on_place(place, |s, mem, off| {
            let idx = s.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
            let old = s.value(Ty::U32, Expr::AtomicWord { memory: mem, op, index: idx, value: v, comparand });
            s.assign(r, Expr::Use(old));
            Ok(())
        })?;
        Ok(Operand::Var(r))
    }

    /// Whether byte offset `off` is misaligned for an access of `size` bytes (a Bool operand,
    /// constant false where it cannot be).
    pub(super) fn misaligned(&mut self, off: Operand, size: u32) -> Operand {
        if size <= 1 {
            return Operand::Const(crate::ir::Const::Bool(false));
        }
        let low = self.bin(BinaryOp::And, Ty::U32, off, FnLower::u32c(size.min(8) - 1));
        self.cmp(CmpOp::Ne, Ty::U32, low, FnLower::u32c(0))
    }

    /// Emits `stores`, or where `mis` (a vector's misalignment test) holds the misaligned
    /// fault instead: a misaligned vector store stores nothing.
    fn unless_misaligned(&mut self, mis: Option<Operand>, stores: crate::ir::Block) {
        match mis {
            Some(mis) => self.emit_if(mis, Self::misaligned_fault(), stores),
            None => self.push_block(stores),
        }
    }

    fn misaligned_fault() -> crate::ir::Block {
        crate::ir::Block { stmts: vec![Stmt::Fault { code: abi::FAULT_MISALIGNED }] }
    }

    /// Whether a `.v2/.v4/.v8` access of `n` elements of `size` bytes at `off` is misaligned
    /// as a whole (None for one element: its own check covers it). "The address must be
    /// aligned to a multiple of the access size", the whole vector's (ISA 8.5 §5.4.5:
    /// `ld.v4.b32` accesses 16 bytes); misaligned is undefined, and NVIDIA GPUs fault
    /// (misaligned address), so ptxcross faults too: a load records the fault, a store also
    /// stores no element (each element's own check stays: it keeps a misaligned element out).
    fn vector_misaligned(&mut self, off: Operand, n: u32, size: u32) -> Option<Operand> {
        let bytes = n * size;
        (n > 1).then(|| {
            let low = self.bin(BinaryOp::And, Ty::U32, off, FnLower::u32c(bytes - 1));
            self.cmp(CmpOp::Ne, Ty::U32, low, FnLower::u32c(0))
        })
    }

    pub(super) fn check_alignment(&mut self, off: Operand, size: u32) {
        let mis = self.misaligned(off, size);
        self.emit_if(mis, Self::misaligned_fault(), crate::ir::Block::new());
    }

    /// Loads `size` bytes (1, 2, 4, 8) at byte `off` of `mem`: U32 (zero-extended) or U64.
    pub(crate) fn load_bytes(&mut self, mem: Memory, off: Operand, size: u32) -> Operand {
        if mem.is_heap() {
            return self.load_heap(mem, off, size);
        }
        self.check_alignment(off, size);
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
        let w = self.value(Ty::U32, Expr::LoadWord { memory: mem, index: idx });
        let hi = (size == 8).then(|| {
            let idx1 = self.bin(BinaryOp::Add, Ty::U32, idx, FnLower::u32c(1));
            self.value(Ty::U32, Expr::LoadWord { memory: mem, index: idx1 })
        });
        self.loaded_value(off, size, w, hi)
    }

    /// Stores the low `size` bytes of `v` (U32, or U64 for 8) at byte `off` of `mem`.
    /// Sub-word stores to shared/global memory are atomic AND/OR on the word so that
    /// neighbouring bytes written by other threads are never lost.
    /// A misaligned store faults and stores nothing (rounding the address down would overwrite
    /// the bytes before it).
    pub(crate) fn store_bytes(&mut self, mem: Memory, off: Operand, size: u32, v: Operand) {
        if mem.is_heap() && size >= 4 {
            return self.store_heap(mem, off, size, v);
        }
        let mis = self.misaligned(off, size);
        if matches!(mem, Memory::Heap | Memory::Shared) && size >= 4 {
            // Without a branch (SIMD drivers pay a never-taken branch on every lane): the
            // fault alone is conditional (`if mis { fault }`, which the backends record
            // without branching), and a misaligned store goes to `abi::DISCARD_INDEX`, which
            // stores nothing and records no second fault.
            self.emit_if(mis, Self::misaligned_fault(), crate::ir::Block::new());
            let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
            let discard = FnLower::u32c(abi::DISCARD_INDEX);
            let idx0 = self.select(Ty::U32, mis, discard, idx);
            if size == 4 {
                self.push(Stmt::StoreWord { memory: mem, index: idx0, value: v });
            } else {
                let lo = self.resize(v, Ty::U64, Ty::U32, false);
                let hi = self.bin(BinaryOp::ShrU, Ty::U64, v, FnLower::u32c(32));
                let hi = self.resize(hi, Ty::U64, Ty::U32, false);
                let next = self.bin(BinaryOp::Add, Ty::U32, idx, FnLower::u32c(1));
                let idx1 = self.select(Ty::U32, mis, discard, next);
                self.push(Stmt::StoreWord { memory: mem, index: idx0, value: lo });
                self.push(Stmt::StoreWord { memory: mem, index: idx1, value: hi });
            }
            return;
        }
        if mem.is_heap() || mem == Memory::Shared {
            // A sub-word store is two word atomics (AND, OR), both without a branch
            // (`AtomicOp::identity`): the misaligned fault alone is conditional (recorded
            // without branching), and a misaligned store's atomics go to `abi::DISCARD_INDEX`,
            // which changes nothing and records no second fault. llvmpipe builds a per-lane
            // loop for each storage access under a branch, and the immediate fault's four
            // heap accesses made most of the pipeline build of Triton's matmul (its 192
            // `st.b16`; docs/performance.md, "Pipeline creation for big kernels").
            self.emit_if(mis, Self::misaligned_fault(), crate::ir::Block::new());
            let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
            let idx = self.select(Ty::U32, mis, FnLower::u32c(abi::DISCARD_INDEX), idx);
            self.store_sub_word(mem, idx, off, size, v);
            return;
        }
        let store = self
            .collect(|s| {
                s.store_aligned_bytes(mem, off, size, v);
                Ok(())
            })
            .unwrap_or_default();
        self.emit_if(mis, Self::misaligned_fault(), store);
    }

    fn store_aligned_bytes(&mut self, mem: Memory, off: Operand, size: u32, v: Operand) {
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(2));
        match size {
            4 => self.push(Stmt::StoreWord { memory: mem, index: idx, value: v }),
            8 => {
                let lo = self.resize(v, Ty::U64, Ty::U32, false);
                let hi = self.bin(BinaryOp::ShrU, Ty::U64, v, FnLower::u32c(32));
                let hi = self.resize(hi, Ty::U64, Ty::U32, false);
                let idx1 = self.bin(BinaryOp::Add, Ty::U32, idx, FnLower::u32c(1));
                self.push(Stmt::StoreWord { memory: mem, index: idx, value: lo });
                self.push(Stmt::StoreWord { memory: mem, index: idx1, value: hi });
            }
            _ => self.store_sub_word(mem, idx, off, size, v),
        }
    }

    /// The low `size` (1 or 2) bytes of `v` into word `idx` of `mem` at byte `off & 3`: a
    /// read-modify-write of the thread's own local word, else an atomic AND and OR so that
    /// neighbouring bytes written by other threads are never lost.
    fn store_sub_word(&mut self, mem: Memory, idx: Operand, off: Operand, size: u32, v: Operand) {
        let mask = ((1u64 << (size * 8)) - 1) as u32;
        let byte = self.bin(BinaryOp::And, Ty::U32, off, FnLower::u32c(3));
        let sh = self.bin(BinaryOp::Mul, Ty::U32, byte, FnLower::u32c(8));
        let bits = self.bin(BinaryOp::And, Ty::U32, v, FnLower::u32c(mask));
        let bits = self.bin(BinaryOp::Shl, Ty::U32, bits, sh);
        let m = self.bin(BinaryOp::Shl, Ty::U32, FnLower::u32c(mask), sh);
        let keep = self.un(crate::ir::UnaryOp::Not, Ty::U32, m);
        if mem == Memory::Local {
            let w = self.value(Ty::U32, Expr::LoadWord { memory: mem, index: idx });
            let w = self.bin(BinaryOp::And, Ty::U32, w, keep);
            let w = self.bin(BinaryOp::Or, Ty::U32, w, bits);
            self.push(Stmt::StoreWord { memory: mem, index: idx, value: w });
        } else {
            for (op, val) in [(AtomicOp::And, keep), (AtomicOp::Or, bits)] {
                let t = self.new_var(Ty::U32, "t");
                self.assign(t, Expr::AtomicWord { memory: mem, op, index: idx, value: val, comparand: None });
            }
        }
    }

    /// A strong 8-byte load at byte `off` of the heap or shared memory: ONE doubleword atomic
    /// (`or 0`), so that it never returns halves of two racing strong stores (§8.10.3:
    /// conflicting morally strong operations are performed with single-copy atomicity; NVIDIA
    /// hardware performs an aligned 8-byte vector access as one access too, and CUB's
    /// decoupled look-back relies on it for its `{status, value}` tile descriptors). Two word
    /// atomics, as before, could return the new low word with the old high word. Misaligned:
    /// faults and yields 0. Out of range: the doubleword atomic's own rule (fault, 0).
    /// Needs the target's 64-bit atomics, as `atom.*.b64` does (`Features::heap_atomics64`,
    /// `shared_atomics64`; on shared memory `shared64` makes the kernel's shared memory
    /// doublewords).
    fn strong_dword_load(&mut self, mem: Memory, off: Operand) -> Operand {
        let v = self.new_var(Ty::U64, "loaded");
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(3));
        let load = Expr::AtomicDword { memory: mem, op: AtomicOp::Or, index: idx, value: FnLower::u64c(0), comparand: None };
        self.aligned_atomic(off, 8, &[v], |s| {
            s.assign(v, load);
            Ok(())
        })
        .expect("closure cannot fail");
        Operand::Var(v)
    }

    /// A strong 8-byte store of `values` (elements of `size` bytes, little-endian, as in
    /// memory) at byte `off` of the heap or shared memory: ONE doubleword exchange (see
    /// [`FnLower::strong_dword_load`]). Misaligned: faults and stores nothing.
    fn strong_dword_store(&mut self, mem: Memory, off: Operand, values: &[Operand], size: u32) {
        let mut v = FnLower::u64c(0);
        for (i, &e) in values.iter().enumerate() {
            let e = match size {
                8 => e,
                _ => {
                    let e = if size < 4 { self.bin(BinaryOp::And, Ty::U32, e, FnLower::u32c((1u32 << (size * 8)) - 1)) } else { e };
                    let e = self.resize(e, Ty::U32, Ty::U64, false);
                    self.bin(BinaryOp::Shl, Ty::U64, e, FnLower::u32c(i as u32 * size * 8))
                }
            };
            v = if i == 0 { e } else { self.bin(BinaryOp::Or, Ty::U64, v, e) };
        }
        let idx = self.bin(BinaryOp::ShrU, Ty::U32, off, FnLower::u32c(3));
        let old = self.new_var(Ty::U64, "stored");
        let store = Expr::AtomicDword { memory: mem, op: AtomicOp::Exchange, index: idx, value: v, comparand: None };
        self.aligned_atomic(off, 8, &[], |s| {
            s.assign(old, store);
            Ok(())
        })
        .expect("closure cannot fail");
    }

    /// Element `i` (of `size` bytes) of doubleword `v`, as a loaded element: U64 for 8 bytes,
    /// else U32 zero-extended.
    fn dword_element(&mut self, v: Operand, i: u32, size: u32) -> Operand {
        if size == 8 {
            return v;
        }
        let e = self.bin(BinaryOp::ShrU, Ty::U64, v, FnLower::u32c(i * size * 8));
        let e = self.resize(e, Ty::U64, Ty::U32, false);
        if size < 4 {
            self.bin(BinaryOp::And, Ty::U32, e, FnLower::u32c((1u32 << (size * 8)) - 1))
        } else {
            e
        }
    }

    /// Runs `f` (which emits ld/st word accesses); for a strong access (`.volatile`,
    /// `.relaxed`, `.acquire`, `.release`) its heap and shared words become relaxed word
    /// atomics (its doubleword atomics, for 8-byte accesses, stay), with the fences
    /// `.acquire`/`.release` ask for around them.
    fn with_ordering(&mut self, m: &Mods, f: impl FnOnce(&mut Self) -> LResult<()>) -> LResult<()> {
        if !is_strong(m) {
            return f(self);
        }
        let (before, after) = super::atomic::sem_fences(m);
        let mut body = self.collect(f)?;
        self.strong_accesses(&mut body.stmts);
        if let Some(scope) = before {
            self.push(Stmt::Fence { scope });
        }
        self.push_block(body);
        if let Some(scope) = after {
            self.push(Stmt::Fence { scope });
        }
        Ok(())
    }

    /// Rewrites heap and shared `LoadWord`/`StoreWord` in `stmts` as relaxed word atomics
    /// (`Or 0` / `Exchange`), which have the same out-of-range behaviour.
    pub(super) fn strong_accesses(&mut self, stmts: &mut [Stmt]) {
        let strong = |m: Memory| m.is_heap() || m == Memory::Shared;
        for s in stmts.iter_mut() {
            match s {
                Stmt::Assign { expr: Expr::LoadWord { memory, index }, .. } if strong(*memory) => {
                    let (memory, index) = (*memory, *index);
                    if let Stmt::Assign { expr, .. } = s {
                        *expr = Expr::AtomicWord { memory, op: AtomicOp::Or, index, value: FnLower::u32c(0), comparand: None };
                    }
                }
                Stmt::StoreWord { memory, index, value } if strong(*memory) => {
                    let expr = Expr::AtomicWord { memory: *memory, op: AtomicOp::Exchange, index: *index, value: *value, comparand: None };
                    *s = Stmt::Assign { dst: self.new_var(Ty::U32, "stored"), expr };
                }
                Stmt::If { then_body, else_body, .. } => {
                    self.strong_accesses(&mut then_body.stmts);
                    self.strong_accesses(&mut else_body.stmts);
                }
                Stmt::Loop { body } => self.strong_accesses(&mut body.stmts),
                Stmt::Switch { cases, default, .. } => {
                    for c in cases {
                        self.strong_accesses(&mut c.body.stmts);
                    }
                    self.strong_accesses(&mut default.stmts);
                }
                _ => {}
            }
        }
    }

    /// `ld{.ss}{.cop}{.vec}.type d, [a]`.
    pub(super) fn ld(&mut self, m: &Mods) -> LResult<()> {
        let mut allowed: Vec<&str> = IGNORED.to_vec();
        allowed.extend(["acquire", "global", "shared", "shared::cta", "local", "param", "param::entry", "param::func", "const", "v2", "v4", "v8"]);
        m.only(&allowed)?;
        let t = m.ty()?;
        let space = self.state_space(m)?;
        let [d, a] = super::operands(m.inst, 2)? else { unreachable!() };
        if t == ScalarType::B128 {
            no_b128_vector(m)?;
            let place = self.place(a, space)?;
            let (lo, hi) = (self.new_var(Ty::U64, "loaded"), self.new_var(Ty::U64, "loaded"));
            let strong = is_strong(m);
            self.with_ordering(m, |s| {
                s.on_place(place, |s, mem, off| {
                    let load = |s: &mut Self| {
                        let (l, h) = s.load_b128(mem, off);
                        s.assign(lo, Expr::Use(l));
                        s.assign(hi, Expr::Use(h));
                        Ok(())
                    };
                    if strong && locked_memory(mem) {
                        // Defined even where the lock is never taken (a fault).
                        s.assign(lo, Expr::Use(FnLower::u64c(0)));
                        s.assign(hi, Expr::Use(FnLower::u64c(0)));
                        return s.locked_wide_access(mem, off, load);
                    }
                    load(s)
                })
            })?;
            return self.write_b128(d, Operand::Var(lo), Operand::Var(hi));
        }
        let size = t.size_bytes();
        if !matches!(size, 1 | 2 | 4 | 8) || t == ScalarType::Pred {
            return Err(unsupported(format!("`{}`", m.name()), m.inst.span));
        }
        let expanded = self.vector_register_elements(d);
        let dests: Vec<&ast::Operand> = match (&d.kind, &expanded) {
            (OperandKind::Vector(v), _) => v.iter().collect(),
            (_, Some(e)) => e.iter().collect(),
            _ => vec![d],
        };
        vector_count(m, dests.len())?;
        no_strong_wide_access(m, dests.len() as u32 * size, space)?;
        let place = self.place(a, space)?;
        let uniform = self.reads_one_value_after_barrier(&place);
        let ty = value_ty(t).unwrap_or(Ty::U32);
        let raw_ty = if size == 8 { Ty::U64 } else { Ty::U32 };
        let warp_address = self.warp_load_address(m, space, &place, raw_ty);
        // One result variable per element, filled in whichever window the address is in.
        let mut results: Vec<_> = dests.iter().map(|_| self.new_var(raw_ty, "loaded")).collect();
        let n = results.len() as u32;
        // Strong 8-byte accesses are doubleword atomics, 16-byte ones take a lock (wider ones
        // were refused above).
        let dword = is_strong(m) && n * size == 8;
        let wide = is_strong(m) && n * size == 16;
        let generic = matches!(place, Place::Generic(_));
        self.with_ordering(m, |s| {
            s.on_place(place, |s, mem, off| {
                if wide && locked_memory(mem) {
                    if let Some(mis) = s.vector_misaligned(off, n, size) {
                        s.emit_if(mis, Self::misaligned_fault(), crate::ir::Block::new());
                    }
                    let zero = if raw_ty == Ty::U64 { FnLower::u64c(0) } else { FnLower::u32c(0) };
                    for r in &results {
                        // Defined even where the lock is never taken (a fault).
                        s.assign(*r, Expr::Use(zero));
                    }
                    return s.locked_wide_access(mem, off, |s| {
                        for (i, r) in results.iter().enumerate() {
                            let o = s.bin(BinaryOp::Add, Ty::U32, off, FnLower::u32c(i as u32 * size));
                            let v = s.load_bytes(mem, o, size);
                            s.assign(*r, Expr::Use(v));
                        }
                        Ok(())
                    });
                }
                if dword && dword_memory(mem, generic) {
                    if size == 8 {
                        if let Some(mis) = s.vector_misaligned(off, n, size) {
                            s.emit_if(mis, Self::misaligned_fault(), crate::ir::Block::new());
                        }
                        for (i, r) in results.iter().enumerate() {
                            let o = s.bin(BinaryOp::Add, Ty::U32, off, FnLower::u32c(8 * i as u32));
                            let v = s.strong_dword_load(mem, o);
                            s.assign(*r, Expr::Use(v));
                        }
                        return Ok(());
                    }
                    let v = s.strong_dword_load(mem, off);
                    for (i, r) in results.iter().enumerate() {
                        let e = s.dword_element(v, i as u32, size);
                        s.assign(*r, Expr::Use(e));
                    }
                    return Ok(());
                }
                if dword && mem == Memory::Shared {
                    s.push(Stmt::Fault { code: abi::FAULT_STRONG_SHARED_DWORD });
                }
                if let Some(mis) = s.vector_misaligned(off, n, size) {
                    s.emit_if(mis, Self::misaligned_fault(), crate::ir::Block::new());
                }
                for (i, r) in results.iter().enumerate() {
                    let o = s.bin(BinaryOp::Add, Ty::U32, off, FnLower::u32c(i as u32 * size));
                    let v = s.load_bytes(mem, o, size);
                    s.assign(*r, Expr::Use(v));
                }
                Ok(())
            })
        })?;
        if uniform {
            // The second barrier of a uniform load (see `reads_one_value_after_barrier`).
            self.push(Stmt::Barrier);
            self.barriers.push((self.cur, m.inst.span));
            for r in &mut results {
                let Operand::Var(v) = self.cta_result(raw_ty, Operand::Var(*r)) else { unreachable!("a variable") };
                *r = v;
            }
        }
        if let Some(address) = warp_address {
            if self.warp_loads.broadcast.contains(&m.inst.span) {
                for r in &mut results {
                    let Operand::Var(v) = self.broadcast_first_lane(Operand::Var(*r), address, m.inst.span) else { unreachable!("a variable") };
                    *r = v;
                }
            } else {
                let site = crate::warp_loads::site(self.cur, m.inst.span, address);
                self.warp_loads.add_candidate(crate::warp_loads::Candidate { site, serial: self.inst_serial, results: results.clone() });
            }
        }
        self.vector_elements_agree(d, t)?;
        for (dst, r) in dests.iter().zip(results) {
            let v = Operand::Var(r);
            let v = if size < 4 { self.canonicalize(v, t) } else { v };
            let v = self.fit(v, raw_ty, ty, t);
            self.write_relaxed(dst, t, v)?;
        }
        Ok(())
    }

    /// The registers of a vector operand `{a, b, …}` of `ld`/`st` have one size and do not mix
    /// floating-point with integer types: each may be wider than the instruction type
    /// (§9.4.1), but ptxas refuses "incompatible elements of vector expression".
    fn vector_elements_agree(&self, op: &ast::Operand, t: ScalarType) -> LResult<()> {
        let OperandKind::Vector(parts) = &op.kind else { return Ok(()) };
        let mut first: Option<ScalarType> = None;
        for p in parts {
            let OperandKind::Symbol { name, component: None } = &p.kind else { continue };
            let Some(Symbol::Reg { ty, .. }) = self.lookup(name) else { continue };
            // ptxas accepts integer registers as elements of a floating-point vector (not as a
            // scalar), and crashes on `.b128` ones; PTX defines neither.
            if *ty == ScalarType::B128 || (ptx_types::is_float(t) && ptx_types::is_int(*ty) && !ptx_types::is_bits(*ty)) {
                return Err(unsupported(format!("register `{name}` declared .{} as an element of a .{} vector", ty.suffix(), t.suffix()), p.span));
            }
            match first {
                None => first = Some(*ty),
                Some(f) => {
                    let float = |t: ScalarType| ptx_types::is_float(t) || ptx_types::is_half(t);
                    let int = |t: ScalarType| ptx_types::is_int(t) && !ptx_types::is_bits(t);
                    if ptx_types::bits(f) != ptx_types::bits(*ty) || (float(f) && int(*ty)) || (int(f) && float(*ty)) {
                        return Err(Diagnostic::new(
                            format!(
                                "{} register `{name}` declared .{} does not match the vector's first element (.{})",
                                crate::function::OPERAND_MISFIT,
                                ty.suffix(),
                                f.suffix()
                            ),
                            p.span,
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether an `ld` of `place` reads the same value in every thread of the CTA once a
    /// barrier follows it: it comes right after a full-CTA `bar.sync` (the previous instruction,
    /// in the same block, unguarded like itself) and reads a fixed shared address. Every thread
    /// then loads between two barriers that all of them reach, where no thread writes (the load
    /// is the only instruction between them), as WGSL's `workgroupUniformLoad` does. A store
    /// that another thread makes to the word after the `bar.sync` lands after every load: an
    /// order NVIDIA may give too, since nothing orders it before the loads (§9.7.14.1:
    /// `bar.sync` performs the accesses before it relative to the CTA, no more; the load and
    /// the store are in a data race, §8.7.1, and nothing in causality order, §8.9.5, makes the
    /// load see the store). The static meeting proof (`meeting`) takes the value as the same in
    /// the whole CTA: CUB's onesweep radix sort hands the tile index that thread 0 took with
    /// `atom.global.add` to the CTA this way. Only in modules with waiting warp collectives
    /// (`FnLower::uniform_shared_loads`): elsewhere nothing reads it.
    fn reads_one_value_after_barrier(&self, place: &Place) -> bool {
        let Place::Fixed(Memory::Shared, off) = place else { return false };
        self.uniform_shared_loads
            && !self.scheduler
            && self.emit_stack.len() == 1
            && self.cta_barrier_at == Some((self.cur, self.inst_serial.wrapping_sub(1)))
            && self.known_u32(*off).is_some()
    }

    /// The address of an `ld` that may be given to the whole warp (`warp_loads`): `.global` or
    /// `.const`, weak, unguarded, of 32-bit words or narrower, in a lowering that records such
    /// loads or broadcasts some.
    fn warp_load_address(&self, m: &Mods, space: Space, place: &Place, raw_ty: Ty) -> Option<Operand> {
        let wl = &self.warp_loads;
        let strong = ["acquire", "relaxed", "volatile", "mmio"].iter().any(|q| m.has(q));
        if (!wl.record && wl.broadcast.is_empty()) || strong || raw_ty != Ty::U32 || self.inst_guard.is_some() || self.emit_stack.len() != 1 {
            return None;
        }
        match (space, place) {
            (Space::Global | Space::Const, Place::Fixed(Memory::Heap, a) | Place::Global(a)) => Some(*a),
            _ => None,
        }
    }

    /// `st{.ss}{.cop}{.vec}.type [a], b`.
    pub(super) fn st(&mut self, m: &Mods) -> LResult<()> {
        let mut allowed: Vec<&str> = IGNORED.to_vec();
        allowed.extend(["release", "global", "shared", "shared::cta", "local", "param", "param::func", "v2", "v4", "v8"]);
        m.only(&allowed)?;
        let t = m.ty()?;
        let space = self.state_space(m)?;
        if matches!(space, Space::Const) {
            return Err(unsupported(format!("`{}` (stores to constant space)", m.name()), m.inst.span));
        }
        let [a, b] = super::operands(m.inst, 2)? else { unreachable!() };
        if t == ScalarType::B128 {
            no_b128_vector(m)?;
            let (lo, hi) = self.read_b128(b)?;
            let place = self.place(a, space)?;
            if matches!(place, Place::Fixed(Memory::Param, _)) {
                return Err(Diagnostic::new("kernel parameters are read-only (`st.param` writes device-function parameters)", a.span));
            }
            let strong = is_strong(m);
            return self.with_ordering(m, |s| {
                s.on_place(place, |s, mem, off| {
                    let store = |s: &mut Self| {
                        s.store_b128(mem, off, lo, hi);
                        Ok(())
                    };
                    if strong && locked_memory(mem) {
                        return s.locked_wide_access(mem, off, store);
                    }
                    store(s)
                })
            });
        }
        let size = t.size_bytes();
        if !matches!(size, 1 | 2 | 4 | 8) || t == ScalarType::Pred {
            return Err(unsupported(format!("`{}`", m.name()), m.inst.span));
        }
        let expanded = self.vector_register_elements(b);
        let srcs: Vec<&ast::Operand> = match (&b.kind, &expanded) {
            (OperandKind::Vector(v), _) => v.iter().collect(),
            (_, Some(e)) => e.iter().collect(),
            _ => vec![b],
        };
        vector_count(m, srcs.len())?;
        no_strong_wide_access(m, srcs.len() as u32 * size, space)?;
        let raw_ty = if size == 8 { Ty::U64 } else { Ty::U32 };
        let mut values = Vec::new();
        self.vector_elements_agree(b, t)?;
        for s in &srcs {
            let v = self.read_relaxed(s, t)?;
            let vt = self.operand_ty(v);
            values.push(self.fit(v, vt, raw_ty, t));
        }
        let place = self.place(a, space)?;
        if matches!(place, Place::Fixed(Memory::Param, _)) {
            return Err(Diagnostic::new("kernel parameters are read-only (`st.param` writes device-function parameters)", a.span));
        }
        let n = values.len() as u32;
        let dword = is_strong(m) && n * size == 8;
        let wide = is_strong(m) && n * size == 16;
        let generic = matches!(place, Place::Generic(_));
        self.with_ordering(m, |s| {
            s.on_place(place, |s, mem, off| {
                let element_stores = |s: &mut Self| {
                    for (i, v) in values.iter().enumerate() {
                        let o = s.bin(BinaryOp::Add, Ty::U32, off, FnLower::u32c(i as u32 * size));
                        s.store_bytes(mem, o, size, *v);
                    }
                    Ok(())
                };
                if wide && locked_memory(mem) {
                    // Misaligned: faults and stores nothing, as the weak store does.
                    let mis = s.vector_misaligned(off, n, size);
                    let stores = s.collect(|s| s.locked_wide_access(mem, off, element_stores))?;
                    s.unless_misaligned(mis, stores);
                    return Ok(());
                }
                if dword && dword_memory(mem, generic) {
                    if size < 8 {
                        s.strong_dword_store(mem, off, &values, size);
                        return Ok(());
                    }
                    // A 64-bit scalar: one doubleword atomic, none if misaligned.
                    let stores = s.collect(|s| {
                        for (i, v) in values.iter().enumerate() {
                            let o = s.bin(BinaryOp::Add, Ty::U32, off, FnLower::u32c(8 * i as u32));
                            s.strong_dword_store(mem, o, &[*v], 8);
                        }
                        Ok(())
                    })?;
                    let mis = s.vector_misaligned(off, n, size);
                    s.unless_misaligned(mis, stores);
                    return Ok(());
                }
                if dword && mem == Memory::Shared {
                    s.push(Stmt::Fault { code: abi::FAULT_STRONG_SHARED_DWORD });
                }
                let mis = s.vector_misaligned(off, n, size);
                let stores = s.collect(element_stores)?;
                s.unless_misaligned(mis, stores);
                Ok(())
            })
        })
    }

    /// `cp.async.{ca,cg}.shared{::cta}.global{.L2::64B|.L2::128B|.L2::256B} [dst], [src],
    /// cp-size{, src-size}`, `cp.async.commit_group`, `cp.async.wait_group N`,
    /// `cp.async.wait_all` (ISA 8.5 §9.7.10.24.3–6). The copy is done when it is issued: the
    /// spec only promises it complete once a wait covering it returns ("There is no ordering
    /// guarantee between two cp.async operations if they are not explicitly synchronized"),
    /// and it is a weak memory operation, so completing earlier is one of the allowed
    /// executions; the group instructions have nothing left to wait for. A `src-size` other
    /// than cp-size (zero fill), the `ignore-src` predicate and `.L2::cache_hint` are refused.
    pub(super) fn cp_async(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["async", "ca", "cg", "shared", "shared::cta", "global", "L2::64B", "L2::128B", "L2::256B", "commit_group", "wait_group", "wait_all"])?;
        let span = m.inst.span;
        if !m.has("async") {
            return Err(unsupported(format!("`{}`", m.name()), span));
        }
        if m.has("commit_group") || m.has("wait_all") {
            return super::operands(m.inst, 0).map(|_| ());
        }
        if m.has("wait_group") {
            let [n] = super::operands(m.inst, 1)? else { unreachable!() };
            return match super::imm_u64(n) {
                Some(_) => Ok(()),
                None => Err(Diagnostic::new("`cp.async.wait_group` takes an integer constant", n.span)),
            };
        }
        if m.one_of(&["ca", "cg"]).is_none() || !(m.has("shared") || m.has("shared::cta")) || !m.has("global") {
            return Err(unsupported(format!("`{}`", m.name()), span));
        }
        let ops = &m.inst.operands;
        if !(3..=4).contains(&ops.len()) {
            return Err(Diagnostic::new(format!("`{}` takes [dst], [src], cp-size{{, src-size}}", m.name()), span));
        }
        let size = match super::imm_u64(&ops[2]) {
            Some(s @ (4 | 8 | 16)) if m.has("ca") || s == 16 => s as u32,
            _ => return Err(Diagnostic::new(format!("`{}`: cp-size is 4, 8 or 16 (16 with .cg)", m.name()), ops[2].span)),
        };
        if let Some(src_size) = ops.get(3) {
            if super::imm_u64(src_size) != Some(size as u64) {
                return Err(unsupported(format!("`{}` with a src-size or ignore-src operand (zero fill)", m.name()), src_size.span));
            }
        }
        let n = size / 4;
        let src = self.place(&ops[1], Space::Global)?;
        let words: Vec<_> = (0..n).map(|_| self.new_var(Ty::U32, "copied")).collect();
        self.on_place(src, |s, mem, off| {
            if let Some(mis) = s.vector_misaligned(off, n, 4) {
                s.emit_if(mis, Self::misaligned_fault(), crate::ir::Block::new());
            }
            for (i, w) in words.iter().enumerate() {
                let o = s.bin(BinaryOp::Add, Ty::U32, off, FnLower::u32c(4 * i as u32));
                let v = s.load_bytes(mem, o, 4);
                s.assign(*w, Expr::Use(v));
            }
            Ok(())
        })?;
        let dst = self.place(&ops[0], Space::Shared)?;
        self.on_place(dst, |s, mem, off| {
            if let Some(mis) = s.vector_misaligned(off, n, 4) {
                s.emit_if(mis, Self::misaligned_fault(), crate::ir::Block::new());
            }
            for (i, w) in words.iter().enumerate() {
                let o = s.bin(BinaryOp::Add, Ty::U32, off, FnLower::u32c(4 * i as u32));
                s.store_bytes(mem, o, 4, Operand::Var(*w));
            }
            Ok(())
        })
    }
}

/// Whether `m` is a strong access (`.volatile`, `.relaxed`, `.acquire`, `.release`; §8.4).
fn is_strong(m: &Mods) -> bool {
    ["volatile", "relaxed", "acquire", "release"].iter().any(|q| m.has(q))
}

/// Refuses a strong access wider than 16 bytes (`.v8.u32`, `.v4.u64`: sm_100's 256-bit
/// loads) that other threads can race with (global, shared, generic). §8.2.4 models a vector
/// access as element accesses, but NVIDIA performs an aligned access as one, and real code
/// relies on it: CUB's decoupled look-back keeps `{status, value}` of 8-byte scan values in one
/// 16-byte descriptor (`ScanTileState`, `ld/st.relaxed.gpu.v2.u64`), and a descriptor torn
/// between two stores (a new status with an old value) is a wrong scan. Up to 16 bytes the
/// access is made whole (8: one doubleword atomic; 16: under a lock, `wide_lock`); wider is a
/// refusal, never a possibly torn translation. Local memory is the thread's own and parameters
/// and constants are read-only.
fn no_strong_wide_access(m: &Mods, bytes: u32, space: Space) -> LResult<()> {
    if bytes > 16 && is_strong(m) && !matches!(space, Space::Local | Space::Param | Space::ParamEntry | Space::Const) {
        return Err(unsupported(
            format!(
                "`{}`: a strong {bytes}-byte access, which NVIDIA performs as one; \
                 Vulkan and WGSL have no atomic wider than 8 bytes, and ptxcross makes only 16-byte ones whole (with a lock)",
                m.name()
            ),
            m.inst.span,
        ));
    }
    Ok(())
}

/// Whether a strong 8-byte access to `mem` is one doubleword atomic: on the heap, and on shared
/// memory when the instruction says `.shared` (which makes the kernel's shared memory
/// doublewords, `shared64`: only kernels with such an access pay for it). Through a generic
/// address, shared memory is refused at run time instead (`abi::FAULT_STRONG_SHARED_DWORD`):
/// CUB's look-back scans use generic addresses, which are global, and would all pay.
/// Local memory is the thread's own and kernel parameters are read-only: nothing races there.
fn dword_memory(mem: Memory, generic: bool) -> bool {
    mem.is_heap() || (mem == Memory::Shared && !generic)
}

/// Whether `block` writes the parameter buffer (a store or an atomic).
fn writes_param(block: &crate::ir::Block) -> bool {
    use crate::ir::Expr;
    block.stmts.iter().any(|s| match s {
        Stmt::StoreWord { memory: Memory::Param, .. } | Stmt::Assign { expr: Expr::AtomicWord { memory: Memory::Param, .. }, .. } => true,
        Stmt::If { then_body, else_body, .. } => writes_param(then_body) || writes_param(else_body),
        Stmt::Switch { cases, default, .. } => cases.iter().any(|c| writes_param(&c.body)) || writes_param(default),
        Stmt::Loop { body } => writes_param(body),
        _ => false,
    })
}

/// A symbol operand naming register `name` (inside `[%rd1+8]` it is part of an expression).
fn named(part: &ast::Operand, name: &str) -> ast::Operand {
    ast::Operand { kind: OperandKind::Symbol { name: name.into(), component: None }, span: part.span }
}

/// `.b128` accesses are single values here (a vector of them would exceed the 128 bits of
/// a vector, §5.4.2).
fn no_b128_vector(m: &Mods) -> LResult<()> {
    match m.one_of(&["v2", "v4", "v8"]) {
        Some(_) => Err(unsupported(format!("`{}`: vectors of .b128", m.name()), m.inst.span)),
        None => Ok(()),
    }
}

/// The number of elements a `.v2/.v4/.v8` access moves must match its vector operand.
fn vector_count(m: &Mods, n: usize) -> LResult<()> {
    let want = match m.one_of(&["v2", "v4", "v8"]) {
        Some("v2") => 2,
        Some("v4") => 4,
        Some(_) => 8,
        None => 1,
    };
    if n != want {
        return Err(Diagnostic::new(format!("`{}` moves {want} elements, the operand has {n}", m.name()), m.inst.span));
    }
    Ok(())
}
