//! Global loads given to whole warps (`lower/src/warp_loads.rs`): a kernel shaped like CUB's
//! segmented reduction (per-CTA offsets loaded, a branch on the segment's size, warp
//! reductions in both arms) is cleared by the static meeting proof once its two offset loads are
//! broadcast from one lane; near misses keep the meeting check (`Meeting::Check`) and run in
//! the CTA barrier scheduler by default: a store, fence or barrier of the thread before the
//! loads, a per-lane address, loads under a lane-dependent branch or guard, an earlier
//! per-lane global load.
//!
//! End to end (values on both backends, a race on the offsets): tests/tests/warp_meeting.rs.

mod support;
use support::meeting_decided as decided;

/// CUB's segmented reduction in small (block 64): `index` computes `%rd5`, the byte offset of
/// the segment's entry in `begin`/`end`; `before` runs before the two offset loads, `after`
/// right after them; `guard` guards them (`@%p7` or nothing; `%p7`: `%tid.x` even). Segments of more than 64 elements: a strided loop, then
/// `redux.sync.add`; others: one element per lane, then a `shfl.sync.bfly` sum.
fn kernel(index: &str, before: &str, guard: &str, after: &str) -> String {
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 out, .param .u64 begin, .param .u64 end, .param .u64 data)\n{{\n    \
         .reg .pred %p<8>;\n    .reg .b32 %r<32>;\n    .reg .b64 %rd<16>;\n    \
         ld.param.u64 %rd1, [out];\n    ld.param.u64 %rd2, [begin];\n    ld.param.u64 %rd3, [end];\n    ld.param.u64 %rd4, [data];\n    \
         mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %ctaid.x;\n    and.b32 %r9, %r1, 1;\n    setp.eq.u32 %p7, %r9, 0;\n{index}\n{before}\n    \
         add.s64 %rd6, %rd2, %rd5;\n    {guard} ld.global.u32 %r3, [%rd6];\n    add.s64 %rd7, %rd3, %rd5;\n    {guard} ld.global.u32 %r4, [%rd7];\n{after}\n    \
         sub.s32 %r5, %r4, %r3;\n    mov.u32 %r6, 0;\n    setp.gt.s32 %p1, %r5, 64;\n    @%p1 bra LARGE;\n    \
         setp.lt.s32 %p2, %r1, %r5;\n    @!%p2 bra SMALL_SUM;\n    add.s32 %r7, %r3, %r1;\n    mul.wide.s32 %rd8, %r7, 4;\n    \
         add.s64 %rd9, %rd4, %rd8;\n    ld.global.u32 %r6, [%rd9];\nSMALL_SUM:\n    \
         shfl.sync.bfly.b32 %r8, %r6, 16, 31, -1;\n    add.s32 %r6, %r6, %r8;\n    shfl.sync.bfly.b32 %r8, %r6, 8, 31, -1;\n    add.s32 %r6, %r6, %r8;\n    \
         shfl.sync.bfly.b32 %r8, %r6, 4, 31, -1;\n    add.s32 %r6, %r6, %r8;\n    shfl.sync.bfly.b32 %r8, %r6, 2, 31, -1;\n    add.s32 %r6, %r6, %r8;\n    \
         shfl.sync.bfly.b32 %r8, %r6, 1, 31, -1;\n    add.s32 %r6, %r6, %r8;\n    bra.uni STORE;\nLARGE:\n    add.s32 %r7, %r3, %r1;\nLOOP:\n    \
         setp.ge.s32 %p3, %r7, %r4;\n    @%p3 bra LARGE_SUM;\n    mul.wide.s32 %rd8, %r7, 4;\n    add.s64 %rd9, %rd4, %rd8;\n    \
         ld.global.u32 %r8, [%rd9];\n    add.s32 %r6, %r6, %r8;\n    add.s32 %r7, %r7, 64;\n    bra.uni LOOP;\nLARGE_SUM:\n    \
         redux.sync.add.u32 %r6, %r6, -1;\nSTORE:\n    mul.wide.u32 %rd10, %r1, 4;\n    add.s64 %rd11, %rd1, %rd10;\n    \
         st.global.u32 [%rd11], %r6;\n    ret;\n}}\n"
    )
}

/// The segment of the CTA (CUB's large segments).
const PER_CTA: &str = "    mul.wide.u32 %rd5, %r2, 4;";
/// The segment of the warp, `%ctaid.x * 2 + %tid.x / 32` as nvcc divides a signed value by 32
/// (CUB's medium segments: `%tid.x >> 31` is 0 in every lane).
const PER_WARP: &str = "    shr.s32 %r10, %r1, 31;\n    shr.u32 %r11, %r10, 27;\n    add.s32 %r12, %r1, %r11;\n    shr.s32 %r13, %r12, 5;\n    \
                        shl.b32 %r14, %r2, 1;\n    add.s32 %r15, %r14, %r13;\n    mul.wide.s32 %rd5, %r15, 4;";

#[test]
fn per_cta_and_per_warp_offset_loads_before_any_store_are_broadcast_and_clear_the_proof() {
    for index in [PER_CTA, PER_WARP] {
        // Before the loads: loads of parameters and shared memory, arithmetic, a branch
        // on parameters; a load of a fixed global word in the same block (broadcast too).
        let before = [
            "",
            "    ld.param.u64 %rd12, [data];\n    ld.shared.u32 %r20, [s];\n    setp.eq.u64 %p6, %rd12, 0;\n    @%p6 bra SKIP;\nSKIP:",
            "    ld.global.u32 %r20, [%rd4];",
        ];
        for before in before {
            let ptx = kernel(index, &format!("    .shared .align 4 .b8 s[4];\n{before}"), "", "");
            assert_eq!(decided(&ptx), [(0, false); 2], "{index} / {before}");
        }
    }
}

#[test]
fn near_misses_keep_the_check() {
    // Six shuffles and a redux keep it (the shuffles split no warp among themselves).
    let kept = [(6, true); 2];
    let cases = [
        // The thread stores, fences, waits at a barrier, makes an atomic or strong access, or
        // a generic one (which may read global memory).
        (PER_CTA, "    st.global.u32 [%rd1], %r1;", "", ""),
        (PER_CTA, "    membar.gl;", "", ""),
        (PER_CTA, "    bar.sync 0;", "", ""),
        (PER_CTA, "    atom.global.add.u32 %r20, [%rd1], 1;", "", ""),
        // A global load before them: per lane in their block, or in an earlier block.
        (PER_CTA, "    mul.wide.u32 %rd13, %r1, 4;\n    add.s64 %rd14, %rd4, %rd13;\n    ld.global.u32 %r20, [%rd14];", "", ""),
        (PER_CTA, "    ld.global.u32 %r20, [%rd4];\n    setp.eq.u32 %p6, %r2, 0;\n    @%p6 bra AFTER;\nAFTER:", "", ""),
        (PER_CTA, "    ld.u32 %r20, [%rd4];", "", ""),
        (PER_CTA, "    ld.volatile.global.u32 %r20, [%rd1];", "", ""),
        // A per-lane address.
        ("    mul.wide.u32 %rd5, %r1, 4;", "", "", ""),
        ("    shr.u32 %r10, %r1, 4;\n    mul.wide.u32 %rd5, %r10, 4;", "", "", ""),
        // Loads under a lane-dependent guard or branch.
        (PER_CTA, "", "@%p7", ""),
        (PER_CTA, "    @%p7 bra PAST;", "", "PAST:"),
    ];
    for (index, before, guard, after) in cases {
        let ptx = kernel(index, before, guard, after);
        assert_eq!(decided(&ptx), kept, "{index} / {before} / {guard}");
    }
}
