//! The static meeting proof's `activemask` rule (`lower/src/meeting.rs`,
//! `Site::member_is_active`): an unguarded warp collective whose membermask is the
//! `activemask` taken earlier in its own block (straight-line code) has every lane of its
//! membermask running it, so it needs no meeting check and no scheduler, even in a branch that
//! splits warps. Its near misses, where lanes of one membermask can be at two instructions, keep
//! the check (`Meeting::Check`) and run in the CTA barrier scheduler by default. End to end
//! (values on both backends, the near misses' sm_70 meetings): tests/tests/warp_meeting.rs.

mod support;
use ptxcross_lower::{abi, ir::Stmt, LowerOptions, Meeting};
use support::{for_each_stmt, lower_kernel_with};

/// A kernel of a 64-thread CTA: x = in[tid]; lanes with x % 5 = 0 exit; `before` runs there,
/// then the lanes split by x & 1 (a condition that differs across a warp) into `even` and
/// `odd`. `%p3` is x & 2 != 0, `%p4` lane & 1 (lane-dependent).
fn kernel(before: &str, even: &str, odd: &str) -> String {
    format!(
        ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out, .param .u64 in)\n{{\n    \
         .reg .pred %p<8>;\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<8>;\n    ld.param.u64 %rd1, [out];\n    \
         ld.param.u64 %rd2, [in];\n    mov.u32 %r1, %tid.x;\n    mul.wide.u32 %rd3, %r1, 4;\n    add.s64 %rd4, %rd2, %rd3;\n    \
         ld.global.u32 %r2, [%rd4];\n    add.s64 %rd5, %rd1, %rd3;\n    and.b32 %r10, %r1, 1;\n    setp.ne.u32 %p4, %r10, 0;\n    \
         rem.u32 %r3, %r2, 5;\n    setp.eq.u32 %p1, %r3, 0;\n    @%p1 bra DONE;\n{before}\n    and.b32 %r3, %r2, 1;\n    \
         setp.ne.u32 %p2, %r3, 0;\n    and.b32 %r4, %r2, 2;\n    setp.ne.u32 %p3, %r4, 0;\n    @%p2 bra ODD;\n{even}\n    \
         bra.uni JOIN;\nODD:\n{odd}\nJOIN:\n    st.global.u32 [%rd5], %r6;\nDONE:\n    ret;\n}}\n"
    )
}

/// Meeting checks kept with `Meeting::Check` (what the proof decides), and whether the
/// kernel runs in the CTA barrier scheduler by default, emulated and native warps alike.
fn decided(ptx: &str) -> [(usize, bool); 2] {
    [false, true].map(|native_warps| {
        let count = |meeting, code| {
            let k = lower_kernel_with(ptx, &LowerOptions { block: Some([64, 1, 1]), native_warps, meeting, ..Default::default() });
            let mut n = 0;
            for_each_stmt(&k.body, &mut |s| n += usize::from(matches!(s, Stmt::Fault { code: c } if *c == code)));
            n
        };
        (count(Meeting::Check, abi::FAULT_WARP_DIVERGED), count(Meeting::Meet, abi::FAULT_BARRIER_DEADLOCK) > 0)
    })
}

#[test]
fn collectives_on_the_active_mask_of_their_block_need_no_check() {
    let cleared = [
        // Each arm's own mask, through a copy in one of them, several kinds.
        (
            "    activemask.b32 %r5;\n    redux.sync.add.u32 %r6, %r2, %r5;\n    vote.sync.ballot.b32 %r7, %p3, %r5;\n    bar.warp.sync %r5;",
            "    activemask.b32 %r5;\n    mov.b32 %r8, %r5;\n    bar.warp.sync %r8;\n    redux.sync.max.u32 %r6, %r2, %r8;\n    elect.sync %r7|%p5, %r8;",
        ),
        // Shuffles and match in both arms, other instructions in between.
        (
            "    activemask.b32 %r5;\n    add.u32 %r9, %r2, 1;\n    shfl.sync.bfly.b32 %r6, %r9, 1, 31, %r5;\n    match.any.sync.b32 %r7, %r2, %r5;",
            "    activemask.b32 %r5;\n    shfl.sync.down.b32 %r6, %r2, 1, 31, %r5;",
        ),
    ];
    for (even, odd) in cleared {
        assert_eq!(decided(&kernel("", even, odd)), [(0, false); 2], "{even} / {odd}");
    }
}

#[test]
fn near_misses_of_the_active_mask_rule_keep_the_check() {
    let arm = "    redux.sync.add.u32 %r6, %r2, %r5;";
    let near = [
        // The mask taken before the branch: the arms' collectives meet.
        ("    activemask.b32 %r5;", arm, arm),
        // Guarded by a lane-dependent predicate: the lanes with it false are owed.
        ("", "    activemask.b32 %r5;\n    @%p4 redux.sync.add.u32 %r6, %r2, %r5;\n    @!%p4 redux.sync.add.u32 %r6, %r3, %r5;", "    activemask.b32 %r5;"),
        // A function of the mask: lane 0 may be in the other arm.
        ("", "    activemask.b32 %r5;\n    or.b32 %r5, %r5, 1;\n    redux.sync.add.u32 %r6, %r2, %r5;", "    activemask.b32 %r5;\n    or.b32 %r5, %r5, 1;\n    redux.sync.add.u32 %r6, %r3, %r5;"),
        // Changed under a predicate after it: a guarded move may replace it.
        ("    activemask.b32 %r5;", "    activemask.b32 %r9;\n    @%p4 mov.b32 %r9, %r5;\n    redux.sync.add.u32 %r6, %r2, %r9;", arm),
        // A collective before the block's own `activemask`, with the mask of the branch above.
        ("    activemask.b32 %r5;", "    redux.sync.add.u32 %r6, %r2, %r5;\n    activemask.b32 %r5;", arm),
    ];
    for (before, even, odd) in near {
        let [emulated, native] = decided(&kernel(before, even, odd));
        assert!(emulated.0 >= 1 && native.0 >= 1 && emulated.1 && native.1, "{before} / {even} / {odd}: {emulated:?} {native:?}");
    }
}
