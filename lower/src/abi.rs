//! The contract between translated kernels and the host runtime: bindings, the virtual address
//! map, the parameter buffer layout and fault codes. Both backends and the host read these
//! constants; nobody else hard-codes them.
//!
//! Address map (64-bit virtual addresses, as PTX generic / global pointers see them):
//! ```text
//! 0                          null; never valid
//! SHARED_WINDOW_BASE ..+4G   generic window onto the CTA's shared memory (shared offset 0 = window base)
//! LOCAL_WINDOW_BASE  ..+4G   generic window onto the thread's local memory
//! FUNCTION_ADDRESS_BASE + i  the address of device function i (`mov.u64 %rd, f`); never
//!                            dereferenceable, only a target of indirect calls
//! HEAP_BASE + k * SEGMENT_WINDOW ..
//!                            heap segment k: global memory; byte i of segment k is at
//!                            HEAP_BASE + k * SEGMENT_WINDOW + i
//! ```
//! The heap is several segments, each its own storage buffer of at most one binding
//! (`max_storage_buffer_binding_size`), so that a context's allocations may exceed one binding;
//! an allocation never straddles segments. A launch binds one segment at `BINDING_HEAP` (and
//! `BINDING_HEAP64`) and names it in the parameter header (`PARAM_HEAP_SEGMENT_WORD`): kernels
//! translate a global address into a byte offset of that segment, and an address in any other
//! segment is out of range (a fault of the launch, like any other). A launch whose pointers
//! lie in several segments runs a translation for `S` segment slots
//! (`ir::Features::segment_slots`): slot `j` ≥ 1 at [`segment_binding`]`(j)`, its segment
//! number at [`segment_slot_word`]; each access goes to the slot whose segment its address's
//! high word names, and an address in no bound segment is out of range as before.
//! Shared- and local-space addresses (what `ld.shared` / `ld.local` take) are byte offsets
//! from 0 into the CTA's shared array / the thread's local array.

/// Bind group of every kernel resource.
pub const BIND_GROUP: u32 = 0;
/// Storage buffer, read-write, `array<u32>`: the heap (global memory).
pub const BINDING_HEAP: u32 = 0;
/// Storage buffer, read-only, `array<u32>`: parameter header + kernel parameters.
pub const BINDING_PARAMS: u32 = 1;
/// Storage buffer, read-write, `array<u32>`: the scratch buffer holding the local memory of
/// kernels whose local memory is not a private array (`ir::LocalPlacement::Scratch`) and the
/// warp matrix exchange of kernels whose shared memory cannot hold it
/// (`ir::Features::scratch_exchange_words`). The block with linear index `b` *within its
/// dispatch* owns words `[b * R, (b + 1) * R)`, `R = X + T * L` for `X` exchange words, `T`
/// threads per block and `L` local words per thread (0 where local memory is private): the
/// exchange first, then thread `t`'s (linear index in its block) `L` words at `b * R + X +
/// t * L`. The host sizes the buffer and caps the blocks of a dispatch to fit. Declared only
/// by kernels that use it ([`crate::ir::Kernel::uses_scratch`]); the host binds one to every
/// launch.
pub const BINDING_SCRATCH: u32 = 2;
/// The heap's buffer once more, read-write, viewed as `array<u64>`: the 64-bit atomics
/// (`ir::Expr::AtomicDword`; WGSL has no other way to reach the same memory with `atomic<u64>`).
/// The host binds the heap buffer at both bindings.
pub const BINDING_HEAP64: u32 = 3;

/// Most heap segments one launch binds (slots; see [`segment_binding`]): a kernel translated
/// for `S` slots (`ir::Features::segment_slots`) reaches the `S` segments its launch names.
pub const MAX_SEGMENT_SLOTS: u32 = 16;
/// Binding of heap segment slot `j` ≥ 1 (`ir::Memory::Segment(j)`, viewed as `array<u32>`);
/// slot 0 is [`BINDING_HEAP`]. Only kernels translated for several segments declare them.
pub const fn segment_binding(j: u32) -> u32 {
    BINDING_HEAP64 + 2 * j - 1
}
/// Binding of slot `j`'s 64-bit view (its `AtomicDword`s), the same buffer as
/// [`segment_binding`]`(j)`; slot 0's is [`BINDING_HEAP64`].
pub const fn segment_binding64(j: u32) -> u32 {
    BINDING_HEAP64 + 2 * j
}
/// Storage bindings of a launch of a kernel translated for `slots` segments (heap, params,
/// scratch, heap64, and two per further slot).
pub const fn storage_bindings(slots: u32) -> u32 {
    if slots <= 1 {
        4
    } else {
        segment_binding64(slots - 1) + 1
    }
}
/// The most segment slots a device with `max_storage_buffers` storage buffers per shader
/// stage binds (at least 1, at most [`MAX_SEGMENT_SLOTS`]).
pub const fn max_segment_slots(max_storage_buffers: u32) -> u32 {
    let s = if max_storage_buffers < 4 { 1 } else { (max_storage_buffers - 4) / 2 + 1 };
    if s > MAX_SEGMENT_SLOTS {
        MAX_SEGMENT_SLOTS
    } else {
        s
    }
}
/// Parameter buffer word holding the segment number of slot `j` (like
/// [`PARAM_HEAP_SEGMENT_WORD`], which is slot 0's) of a kernel with `param_bytes` bytes of
/// parameters: the words after its parameter area, so the header stays as it is.
pub const fn segment_slot_word(j: u32, param_bytes: u32) -> u32 {
    if j == 0 {
        PARAM_HEAP_SEGMENT_WORD
    } else {
        PARAM_HEADER_WORDS + param_bytes.div_ceil(4) + j - 1
    }
}

pub const SHARED_WINDOW_BASE: u64 = 0x0000_0001_0000_0000;
pub const LOCAL_WINDOW_BASE: u64 = 0x0000_0002_0000_0000;
/// Size of the shared and local windows.
pub const WINDOW_SIZE: u64 = 0x0000_0001_0000_0000;
pub const HEAP_BASE: u64 = 0x0000_0010_0000_0000;
/// Generic window onto the kernel's parameters (`cvta.param`, §9.7.9.17): parameter-space
/// address `p` (a byte offset in the parameter buffer, header included, as `mov.u64 %rd,
/// param` gives it) is generic address `PARAM_WINDOW_BASE + p`. Kernel parameters are
/// read-only: a store or atomic through the window faults. Only kernels of modules that use
/// `cvta.param` test generic addresses against it.
pub const PARAM_WINDOW_BASE: u64 = 0x0000_0003_0000_0000;
/// Device function `i` of a module (its index in the module's function table) has address
/// `FUNCTION_ADDRESS_BASE + i`. With `.address_size 32` the low 32 bits (`0xf000_0000 + i`).
pub const FUNCTION_ADDRESS_BASE: u64 = 0x0000_0004_f000_0000;

/// `.address_size 32` modules (PTX §11.1.3) see 32-bit generic and global addresses: a heap
/// address is the byte offset in the launch's heap segment, which is the low 32 bits of its
/// 64-bit address (segment bases have zero low bits, [`SEGMENT_WINDOW`]), so a device pointer
/// truncated to 32 bits is the pointer a 32-bit kernel takes (the launch binds the segment its
/// pointer arguments lie in), and null (offset 0, a reserved word) is never valid. The shared and
/// local windows lie above the heap, which must end below [`HEAP_LIMIT_32`] (the host refuses
/// to launch a 32-bit kernel on a larger heap); device functions are at `0xf000_0000 + i`.
pub const SHARED_WINDOW_BASE_32: u32 = 0xe000_0000;
pub const LOCAL_WINDOW_BASE_32: u32 = 0xe800_0000;
/// The parameter window of `.address_size 32` modules (see [`PARAM_WINDOW_BASE`]).
pub const PARAM_WINDOW_BASE_32: u32 = 0xf800_0000;
/// Size of the 32-bit shared, local and parameter windows (128 MiB each).
pub const WINDOW_SIZE_32: u32 = 0x0800_0000;
/// The heap of a context that runs 32-bit kernels holds at most this many bytes.
pub const HEAP_LIMIT_32: u64 = SHARED_WINDOW_BASE_32 as u64;

/// Virtual address space of one heap segment (its size is at most one storage binding, which
/// wgpu caps below 4 GiB): segment `k` starts at `HEAP_BASE + k * SEGMENT_WINDOW`.
pub const SEGMENT_WINDOW: u64 = 1 << 32;

/// Words `[0, HEAP_RESERVED_WORDS)` of every heap segment are the runtime's (fault word …);
/// allocations start at segment byte `HEAP_RESERVED_WORDS * 4`. Kernel accesses there count as
/// out of range.
pub const HEAP_RESERVED_WORDS: u32 = 64;
/// Heap word whose bits record faults (`FAULT_*`), OR-ed by the kernel, cleared by the host.
pub const FAULT_WORD: u32 = 0;
/// Heap word holding the site id (`ir::Kernel::fault_sites`, 1-based) of a faulting
/// instruction, 0 if none: a fault writes it only while it is 0, so it names the first fault
/// (with SPIR-V, and WGSL with heap atomics; with a plain WGSL heap, racing faults may leave
/// any one of theirs). Cleared by the host with the fault word.
pub const FAULT_SITE_WORD: u32 = 1;
/// Heap word that out-of-range plain stores write instead of their address, and that
/// out-of-range plain loads read (their result is then replaced by 0): the backends check
/// bounds without a branch (see `ir::Memory`). It belongs to no allocation and nobody reads
/// it, so a bad store changes nothing any kernel or the host can see.
pub const HEAP_SINK_WORD: u32 = 2;
/// Word index of a `StoreWord` to `Heap` or `Shared` that stores nothing and records no fault
/// (likewise an `AtomicWord` whose operation has an identity, `ir::AtomicOp::identity`: it
/// changes nothing and yields 0): `lower` gives it to a misaligned store whose fault it has
/// recorded already, so that the store needs no branch (it is out of range in every memory: a heap holds at most 2^30
/// words, a workgroup array far fewer).
pub const DISCARD_INDEX: u32 = u32::MAX;

pub const FAULT_GLOBAL_OUT_OF_RANGE: u32 = 1 << 0;
pub const FAULT_SHARED_OUT_OF_RANGE: u32 = 1 << 1;
pub const FAULT_LOCAL_OUT_OF_RANGE: u32 = 1 << 2;
pub const FAULT_PARAM_OUT_OF_RANGE: u32 = 1 << 3;
pub const FAULT_MISALIGNED: u32 = 1 << 4;
/// `trap` executed.
pub const FAULT_TRAP: u32 = 1 << 5;
/// A call needed more than the call stack in local memory (deep or unbounded recursion).
pub const FAULT_CALL_STACK_OVERFLOW: u32 = 1 << 6;
/// An indirect call through a pointer that is no device function of the module.
pub const FAULT_BAD_FUNCTION_POINTER: u32 = 1 << 7;
/// A loop ended without taking any of its exits: the driver cut it (lavapipe stops a shader's
/// loops after 65,535 back-edges in total; see `lower/src/loop_cut.rs`).
pub const FAULT_LOOP_CUT: u32 = 1 << 8;
/// `mapa` to a CTA rank other than 0: launches here are 1-CTA clusters, so no other CTA
/// exists in the cluster.
pub const FAULT_CLUSTER_RANK: u32 = 1 << 9;
/// A kernel with native warp collectives (`ir::Features::native_warps`) found, before any
/// other effect, that the device's subgroups do not hold whole logical warps: the host runs
/// the emulated translation instead (see `warp_layout`). Not a fault of the PTX program.
pub const FAULT_WARP_LAYOUT: u32 = 1 << 10;
/// A barrier's thread count held in a register was invalid (§9.7.13.1: a multiple of the warp
/// size naming at most the CTA's warps; 0, more, or another value), or, in a kernel translated
/// without the barrier scheduler (`scheduler`: one with `bar.red` or warp collectives), other
/// than the whole CTA's (the launch went on with a full-CTA barrier, so its results are wrong).
pub const FAULT_BARRIER_COUNT: u32 = 1 << 11;
/// A barrier id held in a register was not 0 through 15 (§9.7.13.1: "a logical barrier
/// resource as an immediate constant or register with value 0 through 15"; undefined
/// otherwise).
pub const FAULT_BARRIER_ID: u32 = 1 << 12;
/// The CTA barrier scheduler (`scheduler`: kernels with `bar.arrive` or barriers for part of
/// the CTA) found every thread left in the CTA waiting at a barrier that can no longer
/// complete (its thread count is never reached) or at a warp collective that some non-exited
/// lane of its membermask never joins with the same qualifiers and membermask (undefined in
/// PTX, a hang on NVIDIA). The launch ends instead; each waiting thread names its barrier or
/// collective as the fault site.
pub const FAULT_BARRIER_DEADLOCK: u32 = 1 << 13;
/// A warp collective (outside the barrier scheduler) found that a lane of its membermask that
/// did not execute it, and had not exited, executed a warp collective later: on sm_70+ the
/// first collective waited for that lane (ISA 8.5 §9.7.8.6 `shfl.sync`: "wait until all
/// non-exited threads corresponding to membermask have executed shfl.sync with the same
/// qualifiers and same membermask value"; the same for `vote`/`match`/`redux`), so the lanes
/// met at two different instructions (or hung, where the kinds differ), which the emulation
/// and the native subgroup path do not do: their results would be wrong, so the launch fails
/// instead. Recorded at the later collective (see `inst::warp`), only in kernels where the
/// static proof (`meeting`) could not show that it never happens.
pub const FAULT_WARP_DIVERGED: u32 = 1 << 14;
/// A `wgmma` matrix descriptor (ISA 8.5 §9.7.16.5.1.2.7) that ptxcross does not decode: a
/// swizzled layout with a non-zero base offset (a repeating pattern that does not start at
/// its 256/512/1024-byte boundary). See `inst::wgmma`.
pub const FAULT_MATRIX_DESCRIPTOR: u32 = 1 << 15;
/// A device-side `assert` failed (a call to CUDA's `__assertfail`): the thread stopped, and the
/// fault site names the assertion, its source file and line (see `printf`).
pub const FAULT_ASSERT: u32 = 1 << 16;
/// A strong 8-byte `ld`/`st` (`.relaxed`/`.volatile`/`.acquire`/`.release`, 64-bit or an
/// 8-byte vector) through a generic address that reached shared memory. Single-copy atomicity
/// (§8.10.3) needs one doubleword atomic there, which would make the kernel's whole shared
/// memory doublewords (`shared64`, several times slower) for every kernel with such a generic
/// access, CUB's decoupled look-back scans included (their generic addresses are global); so
/// that case is refused when it happens (the access is made as two word atomics, which may
/// tear). A `.shared` one is a doubleword atomic (see `inst::memory`).
pub const FAULT_STRONG_SHARED_DWORD: u32 = 1 << 17;
/// A strong 16-byte `ld`/`st` could not take its location's lock (`wide_lock`) in
/// `wide_lock::SPIN_LIMIT` tries, or the driver cut its spin loop: the access was not made.
/// A lock stays held only if a launch was stopped in the middle of a section (a timeout).
pub const FAULT_LOCK_SPIN: u32 = 1 << 18;

/// Parameter buffer header, in words: `[0..2)` base address (u64, little-endian words) of the
/// module's globals segment; `[2]` the f32 1.0 (`PARAM_ONE_F32_WORD`); `[3]` zero
/// (`PARAM_ZERO_WORD`); `[4..7)` the `%ctaid` of this dispatch's first workgroup
/// (`PARAM_CTA_BASE_WORD`); `[7..10)` the whole grid's size, `%nctaid` (`PARAM_GRID_SIZE_WORD`);
/// `[10..12)` `%gridid` (u64, little-endian words: `PARAM_GRID_ID_WORD`); `[12]` the heap
/// segment bound at `BINDING_HEAP` (`PARAM_HEAP_SEGMENT_WORD`); `[13]` non-zero for a
/// check-only launch of a kernel with native warp collectives (`PARAM_WARP_CHECK_ONLY_WORD`);
/// `[14..16)` zero (keeps the parameters 16-byte aligned). The host binds a parameter buffer
/// of at least this header and the kernel's parameter area (`PARAM_HEADER_WORDS +
/// ceil(Kernel::param_bytes / 4)` words): the backends read constant indices below that
/// without a bounds check (`ir::Kernel::direct_param_loads`).
pub const PARAM_HEADER_WORDS: u32 = 16;
pub const PARAM_GLOBALS_BASE_WORD: u32 = 0;
/// Holds `1.0f32` (bits `0x3f800000`), written by the host: a value no shader compiler can
/// know. A backend whose target may contract `a*b + c` into one rounding (WGSL has no
/// `NoContraction`) derives a run-time zero from it and XORs every float operand's bits with
/// that zero, which keeps the compiler from fusing (multiplying by an opaque 1.0 was not
/// enough on lavapipe).
pub const PARAM_ONE_F32_WORD: u32 = 2;
pub const ONE_F32_BITS: u32 = 0x3f80_0000;
/// Always 0, written by the host: the condition of the never-taken loop exits that
/// `loop_exits` adds (a compiler must not be able to prove them dead).
pub const PARAM_ZERO_WORD: u32 = 3;
/// Drivers cap a dispatch (wgpu: `max_compute_workgroups_per_dimension` per axis; lavapipe
/// counts the workgroups of a dispatch in 32 bits), so the host runs a large grid as several
/// dispatches. `lower` adds this base (x, y, z) to the dispatch's workgroup id for `%ctaid`.
pub const PARAM_CTA_BASE_WORD: u32 = 4;
/// `%nctaid` (x, y, z): the grid's size, not the dispatch's.
pub const PARAM_GRID_SIZE_WORD: u32 = 7;
/// `%gridid` (u64): the launch's number in its context (the host counts launches), the same
/// for every dispatch of one launch.
pub const PARAM_GRID_ID_WORD: u32 = 10;
/// The number `k` of the heap segment this launch binds at `BINDING_HEAP`/`BINDING_HEAP64`:
/// global address `a` is byte `a - (HEAP_BASE + k * SEGMENT_WINDOW)` of that buffer (an
/// address outside the segment is out of range). 0 in a zeroed header: the first segment.
pub const PARAM_HEAP_SEGMENT_WORD: u32 = 12;
/// Non-zero: a check-only launch of a kernel with native warp collectives. Every invocation
/// runs the subgroup layout check (`warp_layout`), records `FAULT_WARP_LAYOUT` where its CTA
/// failed it, and returns without running the kernel. The host makes the first launch of
/// each such pipeline one, so no workgroup's effects happen before the whole grid's verdict
/// is known. 0 in a zeroed header: an ordinary launch.
pub const PARAM_WARP_CHECK_ONLY_WORD: u32 = 13;

/// Human-readable names of the fault bits set in `bits`.
pub fn describe_faults(bits: u32) -> Vec<&'static str> {
    let names = [
        (FAULT_GLOBAL_OUT_OF_RANGE, "global memory access out of range"),
        (FAULT_SHARED_OUT_OF_RANGE, "shared memory access out of range"),
        (FAULT_LOCAL_OUT_OF_RANGE, "local memory access out of range"),
        (FAULT_PARAM_OUT_OF_RANGE, "parameter access out of range"),
        (FAULT_MISALIGNED, "misaligned memory access"),
        (FAULT_TRAP, "trap instruction executed"),
        (FAULT_CALL_STACK_OVERFLOW, "call stack overflow (recursion deeper than the call stack in local memory)"),
        (FAULT_BAD_FUNCTION_POINTER, "indirect call through a pointer that is not a device function of the module"),
        (
            FAULT_LOOP_CUT,
            "a loop was cut short by the driver's iteration limit (lavapipe stops all loops of a \
             thread after 65,535 iterations in total), so the results are wrong",
        ),
        (FAULT_CLUSTER_RANK, "`mapa` to a CTA rank outside the cluster (a launch here is 1-CTA clusters)"),
        (
            FAULT_WARP_LAYOUT,
            "the device's subgroups do not hold whole 32-thread warps (native warp collectives cannot run; \
             the emulated translation must be launched)",
        ),
        (FAULT_BARRIER_ID, "a barrier id held in a register was not 0 through 15"),
        (
            FAULT_BARRIER_COUNT,
            "a barrier's thread count was not the whole CTA in a kernel without the barrier scheduler \
             (one with `bar.red` or warp collectives: the barrier waited for every thread, so the results \
             are wrong), or was invalid (0, more than the CTA's warps, or no multiple of 32)",
        ),
        (
            FAULT_BARRIER_DEADLOCK,
            "every thread left in the CTA waited at a barrier whose thread count could no longer be \
             reached, or at a warp collective that some lane of its membermask never joined (undefined in PTX, \
             a hang on NVIDIA): the launch was ended",
        ),
        (
            FAULT_WARP_DIVERGED,
            "a warp collective whose membermask lanes are at another instruction (a lane of its membermask \
             skipped it and executed another warp collective): undefined for `.target sm_6x` and below; on \
             sm_70+ they meet, which needs the CTA barrier scheduler, and it refused this kernel: the launch \
             fails, since its results would be wrong",
        ),
        (FAULT_ASSERT, "device-side assert failed"),
        (
            FAULT_MATRIX_DESCRIPTOR,
            "a `wgmma` matrix descriptor with a swizzle base offset other than 0: not supported yet",
        ),
        (
            FAULT_STRONG_SHARED_DWORD,
            "a strong 8-byte `ld`/`st` (.relaxed/.volatile/.acquire/.release) through a generic address \
             reached shared memory: not supported yet (write `.shared`, which is a 64-bit atomic)",
        ),
        (
            FAULT_LOCK_SPIN,
            "a strong 16-byte `ld`/`st` could not take its lock (held too long: left held by an earlier launch \
             stopped mid-access, or the driver cut the spin loop); the access was not made",
        ),
    ];
    // A cut loop comes first: the code after it ran with wrong values, so the other faults
    // may only follow from it (a cut call-stack dispatch overflows the stack).
    let cut_first = |&&(b, _): &&(u32, &str)| b != FAULT_LOOP_CUT;
    let mut found: Vec<_> = names.iter().filter(|(b, _)| bits & b != 0).collect();
    found.sort_by_key(cut_first);
    let mut described: Vec<&'static str> = found.iter().map(|&&(_, n)| n).collect();
    if bits & FAULT_LOOP_CUT != 0 && described.len() > 1 {
        described.insert(1, "(the faults after this one may follow from the cut loop)");
    }
    described
}

/// Texture and surface objects (`cuTexObjectCreate`, `cuSurfObjectCreate`): the 64-bit handle a
/// kernel receives is the heap address of a descriptor of [`texture::WORDS`] words that the
/// driver writes into the creating context's memory. `tex`/`txq` (`inst::texture`) read it and
/// the texels with ordinary bounds-checked heap loads, so a forged handle reads only what a
/// forged pointer could, and faults the same way. One definition for the driver and `lower`.
pub mod texture {
    /// Descriptor size in 32-bit words / bytes.
    pub const WORDS: u32 = 16;
    pub const BYTES: u64 = WORDS as u64 * 4;
    /// Words 0–1: address of texel (0, 0, 0) (low word first).
    pub const BASE_LO: u32 = 0;
    pub const BASE_HI: u32 = 1;
    /// Word 2: channel kind (bits 0–7), bytes per channel (8–15: 1, 2 or 4), channel count
    /// (16–23: 1, 2 or 4). A texel is `channels × bytes` bytes, channel 0 first.
    pub const FORMAT: u32 = 2;
    /// Words 3–5: width, height, depth in texels (1 for the dimensions a resource lacks).
    pub const WIDTH: u32 = 3;
    /// Words 6–7: bytes from one row / one 2D slice to the next.
    pub const ROW_PITCH: u32 = 6;
    pub const SLICE_PITCH: u32 = 7;
    /// Word 8: address mode of dimension `k` in bits `4k..4k+4` (`CUaddress_mode` values).
    pub const ADDRESS_MODES: u32 = 8;
    /// Word 9: `FLAG_*` bits.
    pub const FLAGS: u32 = 9;
    /// Words 12–15: the border texel, one word per channel holding that channel's raw bits
    /// as a texel stores them (low bits; f32 texels: the f32's bits). The driver converts the
    /// border colour into the format (`cuTexObjectCreate`) and `tex` reads it like a texel,
    /// as NVIDIA does (docs/nvidia.md, texture findings of 2026-11-28).
    pub const BORDER: u32 = 12;

    pub const KIND_UNSIGNED: u32 = 0;
    pub const KIND_SIGNED: u32 = 1;
    pub const KIND_FLOAT: u32 = 2;

    /// `CUaddress_mode`.
    pub const MODE_WRAP: u32 = 0;
    pub const MODE_CLAMP: u32 = 1;
    pub const MODE_MIRROR: u32 = 2;
    pub const MODE_BORDER: u32 = 3;

    /// Linear filtering (else nearest point).
    pub const FLAG_LINEAR: u32 = 1 << 0;
    /// Coordinates in [0, 1) span the texture (`CU_TRSF_NORMALIZED_COORDINATES`).
    pub const FLAG_NORMALIZED_COORDS: u32 = 1 << 1;
    /// 8/16-bit integer channels read as floats in [0, 1] / [-1, 1] (the read mode
    /// `cudaReadModeNormalizedFloat`, the driver's default without `CU_TRSF_READ_AS_INTEGER`).
    pub const FLAG_NORMALIZED_READ: u32 = 1 << 2;
    /// `txq.height` / `txq.depth` read 0 (the extent is 1 for addressing): what NVIDIA
    /// reports for the dimensions a resource was made without (an H200, docs/nvidia.md:
    /// depth 0 for 1D and 2D arrays, height and depth 0 for linear memory; a 1D array's
    /// height is 1).
    pub const FLAG_QUERY_NO_HEIGHT: u32 = 1 << 3;
    pub const FLAG_QUERY_NO_DEPTH: u32 = 1 << 4;

    /// What a descriptor says, as the driver fills it in.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Descriptor {
        pub base: u64,
        pub kind: u32,
        pub channel_bytes: u32,
        pub channels: u32,
        pub size: [u32; 3],
        pub row_pitch: u32,
        pub slice_pitch: u32,
        pub address_modes: [u32; 3],
        pub flags: u32,
        pub border: [u32; 4],
    }

    impl Descriptor {
        pub fn encode(&self) -> [u32; WORDS as usize] {
            let mut w = [0u32; WORDS as usize];
            w[BASE_LO as usize] = self.base as u32;
            w[BASE_HI as usize] = (self.base >> 32) as u32;
            w[FORMAT as usize] = self.kind | self.channel_bytes << 8 | self.channels << 16;
            w[WIDTH as usize..WIDTH as usize + 3].copy_from_slice(&self.size);
            w[ROW_PITCH as usize] = self.row_pitch;
            w[SLICE_PITCH as usize] = self.slice_pitch;
            w[ADDRESS_MODES as usize] = self.address_modes[0] | self.address_modes[1] << 4 | self.address_modes[2] << 8;
            w[FLAGS as usize] = self.flags;
            w[BORDER as usize..BORDER as usize + 4].copy_from_slice(&self.border);
            w
        }
    }
}
