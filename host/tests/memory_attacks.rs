//! Adversarial memory accesses (the trust rule of the README's "Status": no kernel reads or
//! writes outside its context's memory, and every out-of-range or misaligned access is a fault
//! of the launch). Each attack is a hand-written kernel run on both backends against a CPU
//! model of the context's whole heap (a shadow of every byte of every segment, filled with
//! sentinels), written here from PTX's rules (§9.7.9.8 ld/st, §9.7.13.5 atom, §5.4.5 vector
//! alignment): an access whose bytes all lie in a *bound* segment outside its reserved words,
//! aligned to its size, gives exactly what the shadow says (and the shadow takes its store);
//! anything else faults (out of range; misaligned) and then no byte of any segment changed and
//! a load out of range delivered 0 (no sentinel of another place). The fault names the access.
//!
//! - `heap_accesses_at_every_edge` (and `_split_int64`): 19 access kinds (`u8`/`u16`/generic
//!   `u32`/`u64`, `.v2`, `.v4`, `.v2.u64`, `.b128` loads; `u8`/`u16`/`u32`/`.v4`/`u64`/`.b128`
//!   stores; 32/64-bit `atom.add` and `atom.cas`, `red.add`) at about 60 addresses each: a
//!   segment's last bytes, one past it, straddling it, its reserved words, `HEAP_BASE` minus
//!   small offsets, 64-bit wrap-arounds (`2^64 - k`, and a wrapping sum that lands on a valid
//!   address), the same low word in another (existing but unbound, or non-existent) segment,
//!   high bits flipped — with the launch binding one, two and three segments (the several-slot
//!   translations), on the checked kernel and, with the launch-specialisation threshold at 0,
//!   the specialised one given arguments that break its claims on a later launch; all of it
//!   again translated with split 64-bit integers (the WebGPU lowering, without the 64-bit
//!   atomics whose old value it refuses).
//! - `address_size_32_accesses_at_every_edge`: the same kinds in an `.address_size 32` module.
//! - `another_contexts_heap_is_out_of_reach`: two contexts at the same virtual addresses.
//! - `shared_window_past_the_kernels_size`, `local_window_past_the_slice_and_across_threads`:
//!   generic addresses past the shared array (static and dynamic; 64- and 32-bit generic
//!   addresses, split 64-bit integers too) and the local slice (private
//!   array and scratch buffer), a local address handed to another thread (it names the
//!   reader's own local memory, as on NVIDIA), and another thread's scratch slice.
//! - `shared_atomics_at_the_edges`: word and doubleword atomics misaligned and past the array.
//! - `parameter_space_past_its_end`: `ld.param` by address and through the parameter window.
//!
//! Two bugs it found (each test fails without its fix): a misaligned atomic updated the word
//! below while faulting (`heap_accesses_*`, `shared_atomics_at_the_edges`), and the fault of
//! an `ld.param` before the kernel's first heap store named the store
//! (`parameter_space_past_its_end`).
//!
//! `PTXCROSS_REQUIRE_GPU=1 cargo test -p ptxcross --test memory_attacks`.

mod common;
use common::gpu;

use std::sync::Arc;

use ptxcross::runtime::{Backend, Context, ContextOptions, DevicePtr, Error, Gpu, Program};
use ptxcross::translate;
use ptxcross_frontend::SourceFile;
use ptxcross_lower::{abi, LowerOptions};

/// Segment size of the test contexts: small, so that the whole heap is compared after every
/// launch.
const SEG: u64 = 64 << 10;
const RESERVED: u64 = abi::HEAP_RESERVED_WORDS as u64 * 4;

/// One access kind: its PTX (`%rd9` is the attacked address, `%rd3` the output), the bytes it
/// touches and its alignment, and what it does.
#[derive(Clone, Copy)]
struct Kind {
    name: &'static str,
    size: u64,
    op: Op,
    body: &'static str,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Op {
    /// Loads `size` bytes; the kernel stores them (zero-extended to a word) at the output.
    Load,
    /// Stores these bytes.
    Store(&'static [u8]),
    /// `atom.add` of 1 (u32 or u64 by `size`), the old value stored at the output.
    AtomAdd,
    /// `atom.cas` with the comparand read from output+8 and this new value; old at the output.
    AtomCas(u64),
    /// `red.add` of 1, nothing at the output.
    Red,
}

const KINDS: &[Kind] = &[
    Kind { name: "ld_u8", size: 1, op: Op::Load, body: "ld.global.u8 %r1, [%rd9];\n st.global.u32 [%rd3], %r1;" },
    Kind { name: "ld_u16", size: 2, op: Op::Load, body: "ld.global.u16 %r1, [%rd9];\n st.global.u32 [%rd3], %r1;" },
    Kind { name: "ld_generic_u32", size: 4, op: Op::Load, body: "ld.u32 %r1, [%rd9];\n st.global.u32 [%rd3], %r1;\n st.shared.u32 [sh], %r1;" },
    Kind { name: "ld_u64", size: 8, op: Op::Load, body: "ld.global.u64 %rd10, [%rd9];\n st.global.u64 [%rd3], %rd10;" },
    Kind {
        name: "ld_v2_u32",
        size: 8,
        op: Op::Load,
        body: "ld.global.v2.u32 {%r1, %r2}, [%rd9];\n st.global.u32 [%rd3], %r1;\n st.global.u32 [%rd3+4], %r2;",
    },
    Kind {
        name: "ld_v4_u32",
        size: 16,
        op: Op::Load,
        body: "ld.global.nc.v4.u32 {%r1, %r2, %r3, %r4}, [%rd9];\n st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};",
    },
    Kind {
        name: "ld_v2_u64",
        size: 16,
        op: Op::Load,
        body: "ld.global.v2.u64 {%rd10, %rd11}, [%rd9];\n st.global.u64 [%rd3], %rd10;\n st.global.u64 [%rd3+8], %rd11;",
    },
    Kind {
        name: "ld_b128",
        size: 16,
        op: Op::Load,
        body: "ld.global.b128 %q1, [%rd9];\n mov.b128 {%rd10, %rd11}, %q1;\n st.global.u64 [%rd3], %rd10;\n st.global.u64 [%rd3+8], %rd11;",
    },
    Kind { name: "st_u8", size: 1, op: Op::Store(&[0xc3]), body: "mov.u16 %h1, 0xc3;\n st.global.u8 [%rd9], %h1;" },
    Kind { name: "st_u16", size: 2, op: Op::Store(&[0xef, 0xbe]), body: "mov.u16 %h1, 0xbeef;\n st.global.u16 [%rd9], %h1;" },
    Kind { name: "st_u32", size: 4, op: Op::Store(&[0xef, 0xbe, 0xad, 0xde]), body: "mov.u32 %r1, 0xdeadbeef;\n st.global.u32 [%rd9], %r1;" },
    Kind {
        name: "st_v4_u32",
        size: 16,
        op: Op::Store(&[1, 0, 0, 0xa1, 2, 0, 0, 0xa2, 3, 0, 0, 0xa3, 4, 0, 0, 0xa4]),
        body: "mov.u32 %r1, 0xa1000001;\n mov.u32 %r2, 0xa2000002;\n mov.u32 %r3, 0xa3000003;\n mov.u32 %r4, 0xa4000004;\n st.global.v4.u32 [%rd9], {%r1, %r2, %r3, %r4};",
    },
    Kind {
        name: "st_u64",
        size: 8,
        op: Op::Store(&[0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]),
        body: "mov.u64 %rd10, 0x1122334455667788;\n st.global.u64 [%rd9], %rd10;",
    },
    Kind {
        name: "st_b128",
        size: 16,
        op: Op::Store(&[0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01]),
        body: "mov.u64 %rd10, 0xfedcba9876543210;\n mov.u64 %rd11, 0x0123456789abcdef;\n mov.b128 %q1, {%rd10, %rd11};\n st.global.b128 [%rd9], %q1;",
    },
    Kind { name: "atom_add_u32", size: 4, op: Op::AtomAdd, body: "atom.global.add.u32 %r1, [%rd9], 1;\n st.global.u32 [%rd3], %r1;" },
    Kind { name: "atom_add_u64", size: 8, op: Op::AtomAdd, body: "atom.global.add.u64 %rd10, [%rd9], 1;\n st.global.u64 [%rd3], %rd10;" },
    Kind {
        name: "atom_cas_b32",
        size: 4,
        op: Op::AtomCas(0x5eed_cafe),
        body: "ld.global.u32 %r2, [%rd3+8];\n atom.global.cas.b32 %r1, [%rd9], %r2, 0x5eedcafe;\n st.global.u32 [%rd3], %r1;",
    },
    Kind {
        name: "atom_cas_b64",
        size: 8,
        op: Op::AtomCas(0x0bad_f00d_5eed_cafe),
        body: "ld.global.u64 %rd11, [%rd3+8];\n atom.global.cas.b64 %rd10, [%rd9], %rd11, 0x0badf00d5eedcafe;\n st.global.u64 [%rd3], %rd10;",
    },
    Kind { name: "red_add_u32", size: 4, op: Op::Red, body: "red.global.add.u32 [%rd9], 1;" },
];

/// The kinds a translation supports: without 64-bit integers (`split_int64`), a 64-bit atomic
/// whose old value is used is refused (README "Status").
fn kinds(split_int64: bool) -> impl Iterator<Item = &'static Kind> {
    KINDS.iter().filter(move |k| !(split_int64 && k.size == 8 && matches!(k.op, Op::AtomAdd | Op::AtomCas(_))))
}

/// `KIND(base, delta, out, also, also2)`: the access at `base + delta`. `delta` is an offset,
/// never a pointer, so the launch binds the segments of `out`, `also` and `also2` only (the
/// host cannot see where `base + delta` points); `also`/`also2` are there to bind more.
fn ptx64(split_int64: bool) -> String {
    let mut s = String::from(".version 8.3\n.target sm_80\n.address_size 64\n");
    for k in kinds(split_int64) {
        s += &format!(
            "
.visible .entry {}(.param .u64 base, .param .u64 delta, .param .u64 out, .param .u64 also, .param .u64 also2)
{{
    .shared .align 4 .b32 sh[4];
    .reg .b16 %h<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<12>;
    .reg .b128 %q<2>;
    ld.param.u64 %rd1, [base];
    ld.param.u64 %rd2, [delta];
    ld.param.u64 %rd3, [out];
    add.s64 %rd9, %rd1, %rd2;
    {}
    ret;
}}
",
            k.name, k.body
        );
    }
    s
}

/// The same kernels in an `.address_size 32` module: 32-bit addresses and offsets.
fn ptx32(split_int64: bool) -> String {
    let mut s = String::from(".version 8.3\n.target sm_80\n.address_size 32\n");
    for k in kinds(split_int64) {
        let body = k.body.replace("%rd9]", "%r9]").replace("[%rd3", "[%r8");
        s += &format!(
            "
.visible .entry {}(.param .u32 base, .param .u32 delta, .param .u32 out)
{{
    .shared .align 4 .b32 sh[4];
    .reg .b16 %h<2>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<12>;
    .reg .b128 %q<2>;
    ld.param.u32 %r7, [base];
    ld.param.u32 %r6, [delta];
    ld.param.u32 %r8, [out];
    add.s32 %r9, %r7, %r6;
    {body}
    ret;
}}
",
            k.name
        );
    }
    s
}

/// `ptx` translated for both backends (validated: spirv-val and naga) with `options`.
fn build(name: &str, ptx: &str, options: &LowerOptions) -> Program {
    let file = SourceFile::new(name.to_string(), ptx.to_string());
    translate::build_program(&file, options, &Backend::ALL, true).unwrap_or_else(|e| panic!("{}", e.render()))
}

/// The heap attack kernels for one-thread launches.
fn program(name: &str, ptx: String, split_int64: bool) -> Program {
    build(name, &ptx, &LowerOptions { block: Some([1, 1, 1]), split_int64, ..common::device_options() })
}

/// The context under attack: `segments` segments of [`SEG`] bytes, each filled by allocations
/// from its first unreserved byte to its end with a sentinel pattern of its own; the output
/// (256 bytes) is the first allocation of segment 0. `shadow[k]` is segment `k`'s bytes as the
/// CPU model says they must be (the reserved words are the host's: not modelled).
struct Heap {
    ctx: Context,
    segments: u64,
    out: u64,
    /// An allocation's base in each segment (segment 0: the one after the output).
    starts: Vec<u64>,
    shadow: Vec<Vec<u8>>,
}

fn sentinel(segment: u64, byte: u64) -> u8 {
    let x = (segment << 32 | byte).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (x >> 56) as u8 ^ 0xa5
}

fn seg_base(k: u64) -> u64 {
    abi::HEAP_BASE + k * abi::SEGMENT_WINDOW
}

impl Heap {
    fn new(gpu: &Arc<Gpu>, segments: u64) -> Heap {
        let options = ContextOptions { heap_bytes: segments * SEG, gpu: Some(gpu.clone()), ..ContextOptions::default() };
        let mut ctx = Context::with_segment_bytes(options, SEG).unwrap();
        assert_eq!(ctx.segment_bytes(), SEG);
        let out = ctx.alloc(256).unwrap().0;
        assert_eq!(out, seg_base(0) + RESERVED, "the output opens segment 0");
        let mut starts = Vec::new();
        for k in 0..segments {
            let from = if k == 0 { RESERVED + 256 } else { RESERVED };
            let p = ctx.alloc(SEG - from).unwrap().0;
            assert_eq!(p, seg_base(k) + from, "segment {k} is filled to its end");
            starts.push(p);
        }
        let mut shadow = Vec::new();
        for k in 0..segments {
            let bytes: Vec<u8> = (0..SEG).map(|b| if b < RESERVED { 0 } else { sentinel(k, b) }).collect();
            // Each allocation on its own (a write stays inside one).
            let from = (starts[k as usize] - seg_base(k)) as usize;
            ctx.write(DevicePtr(starts[k as usize]), &bytes[from..]).unwrap();
            if k == 0 {
                ctx.write(DevicePtr(out), &bytes[RESERVED as usize..from]).unwrap();
            }
            shadow.push(bytes);
        }
        Heap { ctx, segments, out, starts, shadow }
    }

    /// Every segment as the shadow says (reserved words excepted).
    fn check(&self, what: &str) {
        for k in 0..self.segments {
            // Each allocation on its own (a read stays inside one).
            let mut got = if k == 0 { self.ctx.read(DevicePtr(self.out), 256).unwrap() } else { Vec::new() };
            let start = self.starts[k as usize];
            got.extend(self.ctx.read(DevicePtr(start), seg_base(k) + SEG - start).unwrap());
            let want = &self.shadow[k as usize][RESERVED as usize..];
            if got != want {
                let i = got.iter().zip(want).position(|(a, b)| a != b).unwrap();
                let at = seg_base(k) + RESERVED + i as u64;
                panic!("{what}: segment {k} differs first at {at:#x}: {:#04x}, want {:#04x}", got[i], want[i]);
            }
        }
    }

    fn shadow_at(&mut self, addr: u64) -> &mut [u8] {
        let k = (addr - abi::HEAP_BASE) >> 32;
        let off = (addr & 0xffff_ffff) as usize;
        &mut self.shadow[k as usize][off..]
    }
}

/// What the model says an access of `size` bytes at `addr` is, given the bound segments.
#[derive(Debug, PartialEq)]
enum Verdict {
    Valid,
    Misaligned,
    OutOfRange,
    /// Both: out of range and misaligned (either or both faults may be reported first).
    Both,
}

fn verdict(addr: u64, size: u64, bound: &[u64]) -> Verdict {
    let inside = addr >= abi::HEAP_BASE && {
        let k = (addr - abi::HEAP_BASE) >> 32;
        let off = addr & 0xffff_ffff;
        bound.contains(&k) && off >= RESERVED && off + size <= SEG
    };
    let aligned = addr.is_multiple_of(size);
    match (inside, aligned) {
        (true, true) => Verdict::Valid,
        (true, false) => Verdict::Misaligned,
        (false, true) => Verdict::OutOfRange,
        (false, false) => Verdict::Both,
    }
}

/// The attacked addresses: every segment's edges (existing or not, bound or not), its reserved
/// words, what lies below `HEAP_BASE`, 64-bit wrap-arounds and flipped high bits.
fn addresses(h: &Heap, size: u64) -> Vec<u64> {
    let mut v = Vec::new();
    for k in 0..h.segments + 1 {
        let b = seg_base(k);
        let start = if k == 0 { RESERVED + 256 } else { RESERVED };
        v.extend([
            b + start,
            b + start + 4,
            b + start - size,
            b + start - size / 2,
            b,
            b + 4 * abi::HEAP_SINK_WORD as u64,
            b + SEG - size,
            b + SEG - size / 2,
            b + SEG - 4,
            b + SEG,
            b + SEG + 4,
            b + 0xffff_fff0,
            b + 0x1_0000_0000 - size,
        ]);
    }
    let a = h.starts[0] + 64;
    v.extend([
        abi::HEAP_BASE - size,
        abi::HEAP_BASE - 16,
        abi::HEAP_BASE - 4,
        0,
        size,
        abi::SHARED_WINDOW_BASE,
        abi::LOCAL_WINDOW_BASE + 16,
        u64::MAX - size + 1,
        u64::MAX - 15,
        a | 1 << 63,
        a ^ 1 << 40,
        a + 256 * abi::SEGMENT_WINDOW,
    ]);
    v
}

fn expect_fault(r: Result<(), Error>, bits: &[u32], opcode: &str, what: &str) {
    match r {
        Err(Error::KernelFault { bits: got, site, .. }) => {
            assert!(bits.contains(&got), "{what}: fault bits {got:#x}, want one of {bits:x?}");
            let site = site.unwrap_or_default();
            assert!(site.contains(opcode), "{what}: the fault names `{site}`, not the access `{opcode}`");
        }
        other => panic!("{what}: expected a fault, got {other:?}"),
    }
}

/// The opcode (as the fault site prints it) of kind `k`'s attacked access.
fn opcode(k: &Kind) -> String {
    let line = k.body.lines().find(|l| l.contains("%rd9]") || l.contains("%r9]")).expect("the access");
    line.trim().split_whitespace().next().unwrap().to_string()
}

/// Runs every kind at every address of `h` with pointer arguments `also` (binding the
/// segments listed in `bound`) and checks each launch against the model.
#[allow(clippy::too_many_arguments)]
fn attack(h: &mut Heap, prog: &Program, split_int64: bool, backend: Backend, also: [u64; 2], bound: &[u64], label: &str, pointers32: bool) {
    const OOR: u32 = abi::FAULT_GLOBAL_OUT_OF_RANGE;
    const MIS: u32 = abi::FAULT_MISALIGNED;
    for kind in kinds(split_int64) {
        let opcode = opcode(kind);
        let mut addrs = addresses(h, kind.size);
        if kind.name.contains("generic") {
            // The shared window is `shared_window_past_the_kernels_size`'s.
            addrs.retain(|a| !(abi::SHARED_WINDOW_BASE..abi::SHARED_WINDOW_BASE + abi::WINDOW_SIZE).contains(a));
        }
        if pointers32 {
            // 32-bit addresses are offsets in the one segment; the windows above
            // `HEAP_LIMIT_32` are shared/local/param, the rest of the 4 GiB faults.
            addrs = addrs.iter().map(|a| seg_base(0) + (a & 0xffff_ffff)).collect();
            addrs.extend([seg_base(0) + abi::HEAP_LIMIT_32 - 4, seg_base(0) + 0xf000_0000]);
            addrs.sort_unstable();
            addrs.dedup();
        }
        // A wrapping sum that lands on a valid address (PTX's 64-bit `add` wraps).
        let base = if pointers32 { h.out } else { h.out.wrapping_add(1 << 63) };
        // Not the output's first 16 bytes (the kernel's own results and comparand).
        addrs.retain(|&a| a.wrapping_add(kind.size) <= h.out || a >= h.out + 16);
        for &addr in &addrs {
            let what = format!("{label} {backend} {} at {addr:#x}", kind.name);
            let v = verdict(addr, kind.size, bound);
            // Output: a marker, and the comparand of `atom.cas` (the shadow's value when valid).
            let mut out = vec![0x77u8; 16];
            if v == Verdict::Valid && matches!(kind.op, Op::AtomCas(_)) {
                let cur = h.shadow_at(addr)[..kind.size as usize].to_vec();
                out[8..8 + cur.len()].copy_from_slice(&cur);
            }
            h.ctx.write(DevicePtr(h.out), &out).unwrap();
            h.shadow_at(h.out)[..16].copy_from_slice(&out);
            let r = if pointers32 {
                let lo = |x: u64| (x as u32).to_le_bytes().to_vec();
                let (b, d, o) = (lo(h.out), lo(addr.wrapping_sub(h.out)), lo(h.out));
                h.ctx.launch(prog, kind.name, [1, 1, 1], &[&b, &d, &o], backend)
            } else {
                let delta = addr.wrapping_sub(base);
                let args: Vec<Vec<u8>> =
                    [base, delta, h.out, also[0], also[1]].iter().map(|x| x.to_le_bytes().to_vec()).collect();
                let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
                h.ctx.launch(prog, kind.name, [1, 1, 1], &refs, backend)
            };
            let size = kind.size as usize;
            match v {
                Verdict::Valid => {
                    r.unwrap_or_else(|e| panic!("{what}: {e}"));
                    let old = h.shadow_at(addr)[..size].to_vec();
                    let mut result = vec![0u8; 16];
                    match kind.op {
                        Op::Load => result[..size].copy_from_slice(&old),
                        Op::Store(bytes) => h.shadow_at(addr)[..size].copy_from_slice(bytes),
                        Op::AtomAdd => {
                            let mut n = [0u8; 8];
                            n[..size].copy_from_slice(&old);
                            let new = u64::from_le_bytes(n).wrapping_add(1).to_le_bytes();
                            h.shadow_at(addr)[..size].copy_from_slice(&new[..size]);
                            result[..size].copy_from_slice(&old);
                        }
                        Op::AtomCas(new) => {
                            // The comparand is the current value: the swap happens.
                            h.shadow_at(addr)[..size].copy_from_slice(&new.to_le_bytes()[..size]);
                            result[..size].copy_from_slice(&old);
                        }
                        Op::Red => {
                            let w = u32::from_le_bytes(old.try_into().unwrap()).wrapping_add(1);
                            h.shadow_at(addr)[..4].copy_from_slice(&w.to_le_bytes());
                        }
                    }
                    if !matches!(kind.op, Op::Store(_) | Op::Red) {
                        let keep = if kind.op == Op::Load && size < 4 { 4 } else { size.max(4) };
                        result[keep..].copy_from_slice(&out[keep..]);
                        h.shadow_at(h.out)[..16].copy_from_slice(&result);
                    }
                }
                Verdict::Misaligned | Verdict::Both => {
                    // Out of range and misaligned: either fault or both (another segment's address
                    // is out of range before its alignment is looked at).
                    let bits: &[u32] = if v == Verdict::Misaligned { &[MIS] } else { &[MIS, OOR, MIS | OOR] };
                    expect_fault(r, bits, &opcode, &what);
                    // A misaligned load may read the aligned words below (in range): what
                    // it stored at the output is not modelled.
                    if !matches!(kind.op, Op::Store(_) | Op::Red) {
                        let got = h.ctx.read(DevicePtr(h.out), 16).unwrap();
                        h.shadow_at(h.out)[..16].copy_from_slice(&got);
                    }
                }
                Verdict::OutOfRange => {
                    expect_fault(r, &[OOR], &opcode, &what);
                    // Nothing read: the output holds 0 where the kernel stored the value.
                    if !matches!(kind.op, Op::Store(_) | Op::Red) {
                        let n = if kind.op == Op::Load && size < 4 { 4 } else { size.max(4) };
                        h.shadow_at(h.out)[..n].fill(0);
                    }
                }
            }
            h.check(&what);
        }
    }
}

fn run_heap_attacks(gpu: &Arc<Gpu>, prog: &Program, split_int64: bool, label: &str, specialise: bool) {
    for backend in Backend::ALL {
        let mut h = Heap::new(gpu, 3);
        if specialise {
            h.ctx.set_launch_specialisation_threshold(0);
        }
        let (y, z) = (h.starts[1], h.starts[2]);
        attack(&mut h, prog, split_int64, backend, [0, 0], &[0], &format!("{label}, one segment"), false);
        if specialise {
            assert!(h.ctx.specialised_launches() > 0, "{label} {backend}: no launch ran the specialised variant");
            continue;
        }
        attack(&mut h, prog, split_int64, backend, [z, 0], &[0, 2], &format!("{label}, segments 0 and 2"), false);
        attack(&mut h, prog, split_int64, backend, [y, z], &[0, 1, 2], &format!("{label}, three segments"), false);
    }
}

#[test]
fn heap_accesses_at_every_edge() {
    let Some(gpu) = gpu() else { return };
    let prog = program("memory_attacks.ptx", ptx64(false), false);
    run_heap_attacks(&gpu, &prog, false, "64-bit", false);
    run_heap_attacks(&gpu, &prog, false, "64-bit specialised", true);
}

#[test]
fn heap_accesses_at_every_edge_split_int64() {
    let Some(gpu) = gpu() else { return };
    let prog = program("memory_attacks.ptx", ptx64(true), true);
    run_heap_attacks(&gpu, &prog, true, "split int64", false);
}

#[test]
fn address_size_32_accesses_at_every_edge() {
    let Some(gpu) = gpu() else { return };
    for split in [false, true] {
        let prog = program("memory_attacks32.ptx", ptx32(split), split);
        for backend in Backend::ALL {
            let mut h = Heap::new(&gpu, 1);
            attack(&mut h, &prog, split, backend, [0, 0], &[0], &format!(".address_size 32 (split {split})"), true);
        }
    }
}

/// A context of one 1 MiB segment, for the tests of other memories.
fn small_context(gpu: &Arc<Gpu>) -> Context {
    Context::new(ContextOptions { heap_bytes: 1 << 20, gpu: Some(gpu.clone()), ..ContextOptions::default() }).unwrap()
}

/// `n` words at `at`.
fn read_words(ctx: &Context, at: DevicePtr, n: usize) -> Vec<u32> {
    ctx.read(at, 4 * n as u64).unwrap().chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// `shared_past(out, off, v)`, one thread: `s` (64 bytes) then 32 bytes of dynamic shared
/// memory; the thread fills both with `i + 1`, then loads and stores `v` at generic address
/// `cvta.shared(s) + off`, then copies all 24 words out after the loaded word.
const SHARED_PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.extern .shared .align 4 .b32 dyn[];

.visible .entry shared_past(.param .u64 out, .param .u64 off, .param .u32 v)
{
    .shared .align 4 .b32 s[16];
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [off];
    ld.param.u32 %r5, [v];
    mov.u32 %r1, 0;
FILL:
    add.u32 %r2, %r1, 1;
    shl.b32 %r3, %r1, 2;
    mov.u32 %r4, s;
    add.u32 %r4, %r4, %r3;
    st.shared.u32 [%r4], %r2;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p1, %r1, 24;
    @%p1 bra FILL;
    cvta.shared.u64 %rd3, s;
    add.s64 %rd4, %rd3, %rd2;
    ld.u32 %r6, [%rd4];
    st.global.u32 [%rd1], %r6;
    st.u32 [%rd4], %r5;
    mov.u32 %r1, 0;
COPY:
    shl.b32 %r3, %r1, 2;
    mov.u32 %r4, s;
    add.u32 %r4, %r4, %r3;
    ld.shared.u32 %r2, [%r4];
    cvt.u64.u32 %rd5, %r3;
    add.s64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6+4], %r2;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p1, %r1, 24;
    @%p1 bra COPY;
    ret;
}
"#;

/// [`SHARED_PTX`] as an `.address_size 32` module: 32-bit generic addresses (the shared window
/// is `abi::SHARED_WINDOW_BASE_32`, `abi::WINDOW_SIZE_32` bytes) and parameters.
fn shared_ptx32() -> String {
    SHARED_PTX
        .replace(".address_size 64", ".address_size 32")
        .replace(".reg .b64 %rd<8>;", ".reg .b32 %ra<8>;")
        .replace("cvt.u64.u32 %rd5, %r3;", "mov.u32 %ra5, %r3;")
        .replace(".u64", ".u32")
        .replace("add.s64", "add.s32")
        .replace("%rd", "%ra")
}

/// Shared memory past the kernel's size through generic addresses: the last word of the
/// dynamic part is the kernel's; past the allocation unit (128 bytes on sm_80, §10.30), far
/// past, and the window's last word fault as shared out of range, store nothing (but shared
/// word 0, see below) and load 0; just past and below the window is no memory at all (global
/// out of range). With 64- and 32-bit generic addresses, and split 64-bit integers.
#[test]
fn shared_window_past_the_kernels_size() {
    let Some(gpu) = gpu() else { return };
    const SHARED_OOR: Option<u32> = Some(abi::FAULT_SHARED_OUT_OF_RANGE);
    const GLOBAL_OOR: Option<u32> = Some(abi::FAULT_GLOBAL_OUT_OF_RANGE);
    let window32 = abi::WINDOW_SIZE_32 as u64;
    for (bits, split_int64) in [(64, false), (64, true), (32, false), (32, true)] {
        let options = LowerOptions { block: Some([1, 1, 1]), dynamic_shared_bytes: 32, split_int64, ..common::device_options() };
        let prog = if bits == 64 { build("shared_past.ptx", SHARED_PTX, &options) } else { build("shared_past32.ptx", &shared_ptx32(), &options) };
        // Past the window (32-bit: the local window follows, absent here, then the heap's
        // offsets above `HEAP_LIMIT_32`) and below it (the heap's last offsets): no memory.
        let far = if bits == 64 { (0xffff_fffc, SHARED_OOR) } else { (window32 - 4, SHARED_OOR) };
        let beyond = if bits == 64 { (abi::WINDOW_SIZE, GLOBAL_OOR) } else { (window32, GLOBAL_OOR) };
        let below = if bits == 64 { (u64::MAX - 3, GLOBAL_OOR) } else { (0xffff_fffc, GLOBAL_OOR) };
        for backend in Backend::ALL {
            let mut ctx = small_context(&gpu);
            let out = ctx.alloc(256).unwrap();
            let fresh: Vec<u32> = (1..=24).collect();
            for (off, fault) in [(0u64, None), (92, None), (128, SHARED_OOR), (4096, SHARED_OOR), far, beyond, below] {
                let what = format!("{backend} {bits}-bit split {split_int64}: shared + {off:#x}");
                ctx.write(out, &[0x55; 104]).unwrap();
                let v = 0xdead_beefu32.to_le_bytes();
                let r = if bits == 64 {
                    ctx.launch(&prog, "shared_past", [1, 1, 1], &[&out.0.to_le_bytes(), &off.to_le_bytes(), &v], backend)
                } else {
                    let (o, d) = ((out.0 as u32).to_le_bytes(), (off as u32).to_le_bytes());
                    ctx.launch(&prog, "shared_past", [1, 1, 1], &[&o, &d, &v], backend)
                };
                let words: Vec<u32> = read_words(&ctx, out, 25);
                let mut want = fresh.clone();
                match fault {
                    None => {
                        r.unwrap_or_else(|e| panic!("{what}: {e}"));
                        assert_eq!(words[0], fresh[off as usize / 4], "{what}: loaded");
                        want[off as usize / 4] = 0xdead_beef;
                    }
                    Some(bits) => {
                        expect_fault(r, &[bits], "ld.u32", &what);
                        assert_eq!(words[0], 0, "{what}: a load out of range reads nothing");
                        // The backends clamp a bad shared index to word 0 without a branch,
                        // so the faulting store may land there (`ir::Stmt::StoreWord`: the
                        // CTA's own memory, gone with the faulting launch); nowhere else.
                        if words[1] == 0xdead_beef {
                            want[0] = 0xdead_beef;
                        }
                    }
                }
                assert_eq!(&words[1..], &want[..], "{what}: shared memory afterwards");
            }
        }
    }
}

/// `local_attack(out, off, who)`, 4 threads, `loc` of `N` words per thread: every thread
/// fills `loc[k] = t << 16 | k`; thread 0 publishes `cvta.local(loc) + 4` in shared memory;
/// thread `who` loads and stores `0xdead0000 | who` at generic `cvta.local(loc) + off` (the
/// load to `out[4N + 4]`); after a barrier every thread loads through thread 0's published
/// address (to `out[4N + t]`) and copies its `loc` to `out[t*N ..]`.
fn local_ptx(words: u32) -> String {
    format!(
        r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry local_attack(.param .u64 out, .param .u32 off, .param .u32 who)
{{
    .local .align 4 .b32 loc[{words}];
    .shared .align 8 .b64 published;
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [off];
    ld.param.u32 %r2, [who];
    mov.u32 %r3, %tid.x;
    shl.b32 %r4, %r3, 16;
    mov.u32 %r5, 0;
FILL:
    or.b32 %r6, %r4, %r5;
    shl.b32 %r7, %r5, 2;
    mov.u32 %r8, loc;
    add.u32 %r8, %r8, %r7;
    st.local.u32 [%r8], %r6;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, {words};
    @%p1 bra FILL;
    cvta.local.u64 %rd2, loc;
    setp.eq.u32 %p2, %r3, 0;
    add.s64 %rd3, %rd2, 4;
    @%p2 st.shared.u64 [published], %rd3;
    setp.eq.u32 %p2, %r3, %r2;
    @!%p2 bra PEER;
    cvt.u64.u32 %rd4, %r1;
    add.s64 %rd5, %rd2, %rd4;
    ld.u32 %r9, [%rd5];
    st.global.u32 [%rd1+{attack_load}], %r9;
    or.b32 %r10, %r3, 0xdead0000;
    st.u32 [%rd5], %r10;
PEER:
    bar.sync 0;
    ld.shared.u64 %rd6, [published];
    ld.u32 %r9, [%rd6];
    mul.wide.u32 %rd7, %r3, 4;
    add.s64 %rd8, %rd1, %rd7;
    st.global.u32 [%rd8+{peer}], %r9;
    mul.wide.u32 %rd7, %r3, {slice};
    add.s64 %rd8, %rd1, %rd7;
    mov.u32 %r5, 0;
COPY:
    shl.b32 %r7, %r5, 2;
    mov.u32 %r8, loc;
    add.u32 %r8, %r8, %r7;
    ld.local.u32 %r6, [%r8];
    cvt.u64.u32 %rd9, %r7;
    add.s64 %rd10, %rd8, %rd9;
    st.global.u32 [%rd10], %r6;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, {words};
    @%p1 bra COPY;
    ret;
}}
"#,
        attack_load = 4 * (4 * words + 4),
        peer = 4 * 4 * words,
        slice = 4 * words,
    )
}

/// Local memory through generic addresses, as a private array (16 words) and as scratch
/// slices (256 words, 1 KiB: `local_scratch`): a thread's last word is its own; one past its
/// slice (the next thread's first scratch word), far past, and the window's last word fault
/// as local out of range, change no thread's memory and load 0. A local address another thread
/// published names the reader's own local memory (on NVIDIA the local window is per thread):
/// every thread reads its own `loc[1]` through thread 0's pointer.
#[test]
fn local_window_past_the_slice_and_across_threads() {
    let Some(gpu) = gpu() else { return };
    for words in [16u32, 256] {
        let prog = build("local_attack.ptx", &local_ptx(words), &LowerOptions { block: Some([4, 1, 1]), ..common::device_options() });
        let scratch = prog.module().kernels[0].local_placement == ptxcross_lower::ir::LocalPlacement::Scratch;
        assert_eq!(scratch, words == 256, "{words} words: placement");
        let n = words as usize;
        let total = 4 * n + 5;
        for backend in Backend::ALL {
            let mut ctx = small_context(&gpu);
            let out = ctx.alloc(4 * total as u64).unwrap();
            for (off, who, fault) in [
                (4 * (words - 1), 1u32, None),
                (0, 3, None),
                (4 * words, 0, Some(abi::FAULT_LOCAL_OUT_OF_RANGE)),
                (4 * words, 2, Some(abi::FAULT_LOCAL_OUT_OF_RANGE)),
                (4 * words * 3, 0, Some(abi::FAULT_LOCAL_OUT_OF_RANGE)),
                (0x0100_0000, 1, Some(abi::FAULT_LOCAL_OUT_OF_RANGE)),
                (0xffff_fffc, 1, Some(abi::FAULT_LOCAL_OUT_OF_RANGE)),
            ] {
                let what = format!("{backend} {words} words: thread {who} at local + {off:#x}");
                ctx.write(out, &vec![0x55; 4 * total]).unwrap();
                let r = ctx.launch(&prog, "local_attack", [1, 1, 1], &[&out.0.to_le_bytes(), &off.to_le_bytes(), &who.to_le_bytes()], backend);
                let got: Vec<u32> = read_words(&ctx, out, total);
                let mut want: Vec<u32> = (0..4u32).flat_map(|t| (0..words).map(move |k| t << 16 | k)).collect();
                want.extend((0..4u32).map(|t| t << 16 | 1));
                match fault {
                    None => {
                        r.unwrap_or_else(|e| panic!("{what}: {e}"));
                        let i = who as usize * n + off as usize / 4;
                        want.push(want[i]);
                        want[i] = 0xdead_0000 | who;
                        // The peer load of `who` reads its own loc[1], after its store.
                        want[4 * n + who as usize] = want[who as usize * n + 1];
                    }
                    Some(bits) => {
                        expect_fault(r, &[bits], "ld.u32", &what);
                        want.push(0);
                    }
                }
                assert_eq!(got, want, "{what}");
            }
        }
    }
}

/// `param_past(out, a, b, off)`: `ld.param.u32` at the address of `a` plus `off`, directly
/// and through the generic parameter window (`cvta.param`, PTX 7.7). The parameter area is 20
/// bytes: `a` and `b` are read; one word past it faults as parameter out of range (and loads
/// 0), as does a store through the window (kernel parameters are read-only, §5.1.6).
const PARAM_PTX: &str = r#"
.version 7.7
.target sm_80
.address_size 64

.visible .entry param_past(.param .u64 out, .param .u32 a, .param .u32 b, .param .u32 off)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [off];
    cvt.u64.u32 %rd2, %r1;
    mov.u64 %rd3, a;
    add.s64 %rd4, %rd3, %rd2;
    ld.param.u32 %r2, [%rd4];
    st.global.u32 [%rd1], %r2;
    cvta.param.u64 %rd5, a;
    add.s64 %rd6, %rd5, %rd2;
    ld.u32 %r3, [%rd6];
    st.global.u32 [%rd1+4], %r3;
    ret;
}

.visible .entry param_store(.param .u64 out, .param .u32 a)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    cvta.param.u64 %rd5, a;
    st.u32 [%rd5], 7;
    ld.param.u32 %r1, [a];
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;

#[test]
fn parameter_space_past_its_end() {
    let Some(gpu) = gpu() else { return };
    for split_int64 in [false, true] {
        let prog = build("param_past.ptx", PARAM_PTX, &LowerOptions { block: Some([1, 1, 1]), split_int64, ..common::device_options() });
        for backend in Backend::ALL {
            let mut ctx = small_context(&gpu);
            let out = ctx.alloc(256).unwrap();
            let (a, b) = (0x1234_5678u32, 0x9abc_def0u32);
            for (off, want) in [(0u32, Some(a)), (4, Some(b)), (8, Some(8)), (12, None), (4096, None), (0x7fff_0000, None)] {
                let what = format!("{backend} split {split_int64}: param a + {off:#x}");
                ctx.write(out, &[0x55; 8]).unwrap();
                let args = [out.0.to_le_bytes().to_vec(), a.to_le_bytes().to_vec(), b.to_le_bytes().to_vec(), off.to_le_bytes().to_vec()];
                let refs: Vec<&[u8]> = args.iter().map(|x| x.as_slice()).collect();
                let r = ctx.launch(&prog, "param_past", [1, 1, 1], &refs, backend);
                let got = read_words(&ctx, out, 2);
                let w = |i: usize| got[i];
                match want {
                    Some(v) => {
                        r.unwrap_or_else(|e| panic!("{what}: {e}"));
                        assert_eq!((w(0), w(1)), (if off == 8 { off } else { v }, if off == 8 { off } else { v }), "{what}");
                    }
                    None => {
                        expect_fault(r, &[abi::FAULT_PARAM_OUT_OF_RANGE], "ld.param.u32", &what);
                        assert_eq!((w(0), w(1)), (0, 0), "{what}: nothing read");
                    }
                }
            }
            let r = ctx.launch(&prog, "param_store", [1, 1, 1], &[&out.0.to_le_bytes(), &a.to_le_bytes()], backend);
            expect_fault(r, &[abi::FAULT_PARAM_OUT_OF_RANGE], "st.u32", &format!("{backend}: store through the window"));
            assert_eq!(read_words(&ctx, out, 1)[0], a, "{backend}: the parameter is unchanged");
        }
    }
}

/// Two contexts side by side (one segment, three segments; the same virtual addresses): every
/// attack of one changes nothing of the other, and an address in a segment only the other
/// context has faults (segment 1 of the one-segment context).
#[test]
fn another_contexts_heap_is_out_of_reach() {
    let Some(gpu) = gpu() else { return };
    let prog = program("memory_attacks.ptx", ptx64(false), false);
    let backend = Backend::ALL[0];
    let mut small = Heap::new(&gpu, 1);
    let mut big = Heap::new(&gpu, 3);
    attack(&mut small, &prog, false, backend, [0, 0], &[0], "one-segment context", false);
    big.check("the three-segment context after the other's attacks");
    let (y, z) = (big.starts[1], big.starts[2]);
    attack(&mut big, &prog, false, backend, [y, z], &[0, 1, 2], "three-segment context", false);
    small.check("the one-segment context after the other's attacks");
}

/// `shared_atom(out, off)`, one thread: `s[i] = i + 1` (16 words), then `atom.shared.add.u32`
/// and `atom.shared.cas.b64` at byte `off` of `s`, their old values and `s` copied out.
const SHARED_ATOM_PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry shared_atom(.param .u64 out, .param .u32 off, .param .u32 wide)
{
    .shared .align 8 .b32 s[16];
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [off];
    ld.param.u32 %r9, [wide];
    mov.u32 %r2, 0;
FILL:
    add.u32 %r3, %r2, 1;
    shl.b32 %r4, %r2, 2;
    mov.u32 %r5, s;
    add.u32 %r5, %r5, %r4;
    st.shared.u32 [%r5], %r3;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, 16;
    @%p1 bra FILL;
    mov.u32 %r5, s;
    add.u32 %r6, %r5, %r1;
    setp.ne.u32 %p2, %r9, 0;
    mov.u64 %rd2, 0;
    mov.u32 %r7, 0;
    @%p2 atom.shared.cas.b64 %rd2, [%r6], 0x0000000400000003, 0x1111111122222222;
    @!%p2 atom.shared.add.u32 %r7, [%r6], 1;
    st.global.u32 [%rd1], %r7;
    st.global.u64 [%rd1+8], %rd2;
    mov.u32 %r2, 0;
COPY:
    shl.b32 %r4, %r2, 2;
    add.u32 %r8, %r5, %r4;
    ld.shared.u32 %r3, [%r8];
    cvt.u64.u32 %rd3, %r4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4+16], %r3;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, 16;
    @%p1 bra COPY;
    ret;
}
"#;

/// Shared-memory atomics at the array's edges: in range they update exactly their word(s);
/// misaligned (a word atomic at 2 mod 4, a doubleword one at 4 mod 8) or past the array they
/// fault, return 0 and change no word (before the fix of misaligned atomics, the add updated
/// the aligned word below).
#[test]
fn shared_atomics_at_the_edges() {
    let Some(gpu) = gpu() else { return };
    let prog = build("shared_atom.ptx", SHARED_ATOM_PTX, &LowerOptions { block: Some([1, 1, 1]), ..common::device_options() });
    for backend in Backend::ALL {
        let mut ctx = small_context(&gpu);
        let out = ctx.alloc(256).unwrap();
        for (off, wide, fault) in [
            (60u32, 0u32, None),
            (8, 1, None),
            (56, 1, None),
            (6, 0, Some(abi::FAULT_MISALIGNED)),
            (4, 1, Some(abi::FAULT_MISALIGNED)),
            (64, 0, Some(abi::FAULT_SHARED_OUT_OF_RANGE)),
            (64, 1, Some(abi::FAULT_SHARED_OUT_OF_RANGE)),
            (0xffff_fff8, 1, Some(abi::FAULT_SHARED_OUT_OF_RANGE)),
        ] {
            let what = format!("{backend}: {} at s + {off}", if wide == 1 { "atom.cas.b64" } else { "atom.add.u32" });
            ctx.write(out, &[0x55; 80]).unwrap();
            let r = ctx.launch(&prog, "shared_atom", [1, 1, 1], &[&out.0.to_le_bytes(), &off.to_le_bytes(), &wide.to_le_bytes()], backend);
            let got = read_words(&ctx, out, 20);
            let w = |i: usize| got[i];
            let mut s: Vec<u32> = (1..=16).collect();
            let (mut add_old, mut cas_old) = (0u32, 0u64);
            match fault {
                None => {
                    r.unwrap_or_else(|e| panic!("{what}: {e}"));
                    let i = off as usize / 4;
                    if wide == 1 {
                        cas_old = (s[i + 1] as u64) << 32 | s[i] as u64;
                        if cas_old == 0x0000_0004_0000_0003 {
                            (s[i], s[i + 1]) = (0x2222_2222, 0x1111_1111);
                        }
                    } else {
                        add_old = s[i];
                        s[i] += 1;
                    }
                }
                Some(bits) => expect_fault(r, &[bits], "atom.shared", &what),
            }
            assert_eq!(w(0), add_old, "{what}: add's old value");
            assert_eq!((w(3) as u64) << 32 | w(2) as u64, cas_old, "{what}: cas's old value");
            assert_eq!((4..20).map(w).collect::<Vec<_>>(), s, "{what}: shared memory afterwards");
        }
    }
}
