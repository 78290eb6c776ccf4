//! Rules of the static meeting proof (`lower/src/meeting.rs`) added by meet5, each with near
//! misses that must keep the meeting check (`Meeting::Check`) and run in the CTA barrier
//! scheduler by default (lanes of one membermask may be at two instructions there):
//! - an unguarded warp collective whose membermask is the `activemask` taken earlier in its own
//!   block (straight-line code) has every lane of its membermask running it
//!   (`Site::member_is_active`), even in a branch that splits warps;
//! - a collective guarded by a function of `%tid.x` (`%laneid < 16`, through any chain of
//!   integer operations and comparisons) whose constant membermask holds only lanes whose guard
//!   holds, in a block that whole warps run (`Graph::guard_holds_members`); branches on such
//!   functions count as the `%tid.x` comparisons of the membermask rule did.
//!
//! End to end (values on both backends, the near misses' sm_70 meetings):
//! tests/tests/warp_meeting.rs.

mod support;
use support::meeting_decided as decided;

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

/// Guards and branches on `%laneid` halves with the halves' membermasks, in a block every lane
/// that is not spent runs (after the data-dependent exit), through `%laneid` or `%tid.x >> 4`.
#[test]
fn collectives_guarded_by_lane_functions_holding_their_membermask_need_no_check() {
    let laneid = "    mov.u32 %r9, %laneid;\n    setp.lt.u32 %p5, %r9, 16;";
    let half = "    shr.u32 %r11, %r1, 4;\n    and.b32 %r12, %r11, 1;\n    setp.eq.u32 %p5, %r12, 0;";
    for lanes in [laneid, half] {
        let before = format!(
            "{lanes}\n    @%p5 redux.sync.add.u32 %r6, %r2, 0xffff;\n    @!%p5 vote.sync.ballot.b32 %r7, %p4, 0xffff0000;\n    \
             @!%p5 bra HIGH;\n    shfl.sync.bfly.b32 %r8, %r2, 1, 31, 0xffff;\n    bra.uni LOW;\nHIGH:\n    \
             bar.warp.sync 0xffff0000;\nLOW:"
        );
        assert_eq!(decided(&kernel(&before, "", "")), [(0, false); 2], "{before}");
    }
}

#[test]
fn near_misses_of_the_lane_guard_rule_keep_the_check() {
    let laneid = "    mov.u32 %r9, %laneid;\n    setp.lt.u32 %p5, %r9, 16;";
    let near = [
        // The full mask under a half's guard: the other half is owed (and meets there).
        format!("{laneid}\n    @%p5 redux.sync.add.u32 %r6, %r2, -1;\n    @!%p5 redux.sync.add.u32 %r6, %r3, -1;"),
        // Negated: lanes 16-31 run it, the mask names lanes 0-15.
        format!("{laneid}\n    @!%p5 redux.sync.add.u32 %r6, %r2, 0xffff;"),
        // The guard assigned twice (lanes 8-15 with %p4 skip it).
        format!("{laneid}\n    @%p4 setp.lt.u32 %p5, %r9, 8;\n    @%p5 redux.sync.add.u32 %r6, %r2, 0xffff;"),
        // A function of loaded data, not of %tid.x.
        "    and.b32 %r9, %r2, 31;\n    setp.lt.u32 %p5, %r9, 16;\n    @%p5 redux.sync.add.u32 %r6, %r2, 0xffff;".to_string(),
        // In the data-dependent arms, which split lanes 0-15 (the two meet).
        laneid.to_string(),
    ];
    for (i, before) in near.iter().enumerate() {
        let arm = if i == near.len() - 1 { "    @%p5 redux.sync.add.u32 %r6, %r2, 0xffff;" } else { "" };
        let [emulated, native] = decided(&kernel(before, arm, arm));
        assert!(emulated.0 >= 1 && native.0 >= 1 && emulated.1 && native.1, "{before} / {arm}: {emulated:?} {native:?}");
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
