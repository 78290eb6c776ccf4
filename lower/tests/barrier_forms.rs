//! Every CTA barrier form of §9.7.13.1 (`bar{.cta}.sync`/`barrier{.cta}.sync{.aligned}`, with
//! and without a thread count and a barrier id), §9.7.13.2 (`bar.red`/`barrier.cta.red`) and
//! §9.7.13.3 (`bar.warp.sync`): what lowers, and that each form without a sound translation is
//! refused with "not supported yet" at its own line and column (never a guessed barrier).
//! `bar.arrive` and thread counts below the CTA's (some threads pass while others wait, which
//! Vulkan's and WGSL's workgroup barriers cannot express) lower through the CTA barrier
//! scheduler (lower/src/scheduler.rs). The forms that lower run end to end in
//! tests/tests/simt_kernels.rs (nvcc and clang kernels), named_barriers.rs and simt_atomics.rs.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::{lower, LowerOptions};

/// Lowers a kernel of a 64-thread CTA whose body is `inst` after a prologue (line 12 holds
/// `inst`'s first line); the first error rendered, if any.
fn lowered(inst: &str) -> Result<(), String> {
    lowered_in(inst, "", Some([64, 1, 1]))
}

/// As [`lowered`], with `directives` after the kernel's parameters and the CTA shape `block`
/// (`None`: from the directives).
fn lowered_in(inst: &str, directives: &str, block: Option<[u32; 3]>) -> Result<(), String> {
    let ptx = format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out){directives}\n{{\n    \
         .reg .b32 %r<4>;\n    .reg .pred %p<4>;\n    .reg .b64 %rd<4>;\n    mov.u32 %r1, %tid.x;\n    \
         setp.lt.u32 %p1, %r1, 40;\n    ld.param.u64 %rd1, [out];\n{inst}\n    st.global.u32 [%rd1], %r2;\n    ret;\n}}\n"
    );
    let file = SourceFile::new("bar.ptx", ptx.as_str());
    let ast = parse(&file).map_err(|e| format!("parse: {}", e[0].render(&file)))?;
    lower(&ast, &file, &LowerOptions { block, ..Default::default() }).map(|_| ()).map_err(|e| e[0].render(&file))
}

#[test]
fn every_full_cta_barrier_form_lowers() {
    for inst in [
        "bar.sync 0;",
        "bar.sync 15;",
        "bar.sync 0, 64;",
        "bar.sync 3, 64;",
        "bar.cta.sync 1;",
        "bar.cta.sync 1, 64;",
        "barrier.sync 0;",
        "barrier.sync.aligned 2;",
        "barrier.sync.aligned 2, 64;",
        "barrier.cta.sync 0;",
        "barrier.cta.sync.aligned 5, 64;",
        "bar 0;",
        "bar.red.popc.u32 %r2, 0, %p1;",
        "bar.red.popc.u32 %r2, 1, 64, !%p1;",
        "bar.red.and.pred %p2, 0, %p1;\n    selp.u32 %r2, 1, 0, %p2;",
        "bar.red.or.pred %p2, 2, 64, !%p1;\n    selp.u32 %r2, 1, 0, %p2;",
        "barrier.cta.red.popc.u32 %r2, 0, %p1;",
        "barrier.cta.red.or.pred %p2, 0, %p1;\n    selp.u32 %r2, 1, 0, %p2;",
        "barrier.red.and.aligned.pred %p2, 0, %p1;\n    selp.u32 %r2, 1, 0, %p2;",
        // A thread count in a register: tested at run time (simt_kernels
        // a_barrier_count_below_the_cta_faults_at_its_line).
        "bar.sync 1, %r1;",
        "barrier.cta.sync.aligned 15, %r1;",
        "bar.red.popc.u32 %r2, 4, %r1, %p1;",
        // A barrier id in a register: every barrier here is the whole CTA's, so the id does
        // not change it; a value past 15 faults at run time (simt_kernels
        // barrier_ids_held_in_registers).
        "bar.sync %r1;",
        "barrier.cta.sync.aligned %r1, 64;",
        "bar.red.popc.u32 %r2, %r1, %p1;",
        "bar.warp.sync -1;",
        "bar.warp.sync %r1;",
        // After a divergent exit: the barrier waits for the non-exited threads only.
        "@%p1 bra $L_skip;\n    bar.sync 0;\n$L_skip:",
        "@%p1 ret;\n    bar.sync 0;\n    bar.red.popc.u32 %r2, 0, %p1;",
    ] {
        lowered(inst).unwrap_or_else(|e| panic!("{inst}: {e}"));
    }
}

/// `bar.arrive` and counts naming fewer warps than the CTA lower through the CTA barrier
/// scheduler (lower/src/scheduler.rs; results: tests/tests/named_barriers.rs), as does a
/// kernel that mixes them with full-CTA barriers, exits, loops and CTA fences.
#[test]
fn arrive_and_partial_cta_barriers_lower_through_the_scheduler() {
    for inst in [
        "bar.arrive 0, 64;",
        "bar.arrive 1, 32;",
        "bar.cta.arrive 2, 32;",
        "barrier.arrive 3, 64;",
        "barrier.cta.arrive 1, 64;",
        "barrier.cta.arrive.aligned 1, 64;",
        "bar.sync 0, 32;",
        "barrier.sync 1, 32;",
        "barrier.cta.sync.aligned 15, 32;",
        "bar.arrive %r1, 32;",
        "bar.arrive 1, %r1;",
        "@%p1 bra $L_c;\n    bar.arrive 1, 64;\n    bra.uni $L_end;\n$L_c:\n    bar.sync 1, 64;\n$L_end:",
        "@%p1 ret;\n    bar.sync 0;\n    bar.sync 1, 32;",
        "bar.sync 1, 32;\n    bar.warp.sync -1;\n    bar.warp.sync 0xffffffff;",
        "bar.red.popc.u32 %r2, 0, 32, %p1;",
        "bar.sync 1, 32;\n    bar.red.popc.u32 %r2, 0, %p1;",
        "bar.arrive 1, 32;\n    bar.red.and.pred %p2, 2, 64, !%p1;\n    selp.u32 %r2, 1, 0, %p2;",
        "bar.red.or.pred %p2, %r1, 32, %p1;\n    selp.u32 %r2, 1, 0, %p2;",
        "$L_loop:\n    bar.sync 1, 32;\n    membar.cta;\n    add.u32 %r1, %r1, 1;\n    setp.lt.u32 %p2, %r1, 9;\n    @%p2 bra $L_loop;",
        // Warp collectives there are points of the scheduler too (predicated ones included),
        // `bar.warp.sync` with any membermask.
        "bar.arrive 1, 32;\n    shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;",
        "bar.sync 1, 32;\n    @%p1 shfl.sync.down.b32 %r2|%p2, %r1, 1, 31, %r1;\n    @!%p1 vote.sync.ballot.b32 %r2, %p1, -1;",
        "bar.sync 1, 32;\n    vote.sync.all.pred %p2, %p1, -1;\n    vote.sync.any.pred %p2, %p1, 0xffff;\n    vote.sync.uni.pred %p2, %p1, -1;",
        "bar.sync 1, 32;\n    activemask.b32 %r2;\n    elect.sync %r2|%p2, -1;",
        "bar.sync 1, 32;\n    match.any.sync.b32 %r2, %r1, -1;\n    match.all.sync.b32 %r2|%p2, %r1, -1;",
        "bar.sync 1, 32;\n    redux.sync.add.u32 %r2, %r1, -1;\n    redux.sync.min.s32 %r2, %r1, -1;\n    redux.sync.xor.b32 %r2, %r1, %r1;",
        "bar.sync 1, 32;\n    bar.warp.sync %r1;\n    bar.warp.sync 0xffff;",
        // With only a register count, a kernel with collectives keeps the full-CTA lowering.
        "bar.sync 1, %r1;\n    shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;",
    ] {
        lowered(inst).unwrap_or_else(|e| panic!("{inst}: {e}"));
    }
}

#[test]
fn barrier_forms_without_a_sound_translation_are_refused_where_they_are() {
    for (inst, why, col) in [
        ("    @%p1 bar.sync 0;", "a predicated barrier", 5),
        ("    @%p1 bar.arrive 0, 32;", "a predicated barrier", 5),
    ] {
        let e = lowered(inst).expect_err(inst);
        let line = 11 + inst.lines().count();
        let at = format!("bar.ptx:{line}:{col}");
        assert!(e.contains("not supported yet") && e.contains(why) && e.contains(&at), "{inst}: want `{why}` at {at}:\n{e}");
    }
}

/// §9.7.13.1: "When specifying a thread count, the value must be a multiple of the warp size"
/// and "a non-zero thread count is required for barrier{.cta}.arrive": an immediate count that
/// is 0, no multiple of 32 (other than the CTA's own thread count) or above the CTA's warps is
/// an error at its place; `bar.arrive` without a count too.
#[test]
fn invalid_thread_counts_are_errors() {
    for (inst, why, col) in [
        ("    bar.sync 0, 48;", "must be a non-zero multiple of the warp size", 17),
        ("    bar.arrive 0, 0;", "must be a non-zero multiple of the warp size", 19),
        ("    bar.arrive 0, 64;\n    bar.sync 1, 96;", "naming at most the CTA's 2 warps", 17),
        ("    bar.arrive 0;", "takes 2 operands", 5),
    ] {
        let e = lowered(inst).expect_err(inst);
        let line = 11 + inst.lines().count();
        let at = format!("bar.ptx:{line}:{col}");
        assert!(e.contains(why) && e.contains(&at), "{inst}: want `{why}` at {at}:\n{e}");
    }
}

/// §9.7.13.1: barrier ids are "an immediate constant or register with value 0 through 15":
/// an immediate past 15 is an error at its place.
#[test]
fn immediate_barrier_ids_past_15_are_errors() {
    for (inst, col) in [("    bar.sync 16;", 14), ("    barrier.sync.aligned 99, 64;", 26), ("    bar.red.popc.u32 %r2, 16, %p1;", 27)] {
        let e = lowered(inst).expect_err(inst);
        assert!(e.contains("out of range: 0 through 15") && e.contains(&format!("bar.ptx:12:{col}")), "{inst}: {e}");
    }
}

/// §9.7.13.1: "When specifying a thread count, the value must be a multiple of the warp size":
/// the participants are whole warps, so the whole CTA of 100 threads is 128 (and the thread
/// count itself is accepted too); a count naming fewer warps, known at translation from the
/// launch's shape or `.reqntid`, is refused.
#[test]
fn immediate_thread_counts_name_every_warp_of_the_cta() {
    for inst in ["bar.sync 1, 128;", "bar.sync 1, 100;", "barrier.sync 15, 128;", "bar.red.popc.u32 %r2, 2, 128, %p1;"] {
        lowered_in(inst, "", Some([100, 1, 1])).unwrap_or_else(|e| panic!("{inst}: {e}"));
    }
    lowered_in("bar.sync 3, 64;", " .reqntid 48", None).unwrap_or_else(|e| panic!("{e}"));
    // Fewer warps: the scheduler's (arrive_and_partial_cta_barriers_lower_through_the_scheduler).
    for (inst, directives, block) in [("bar.sync 1, 96;", "", Some([100, 1, 1])), ("bar.sync 1, 32;", " .reqntid 48", None)] {
        lowered_in(inst, directives, block).unwrap_or_else(|e| panic!("{inst}: {e}"));
    }
    let e = lowered_in("    bar.sync 1, 160;", "", Some([100, 1, 1])).expect_err("160 > 128");
    assert!(e.contains("naming at most the CTA's 4 warps") && e.contains("bar.ptx:12:17"), "{e}");
}

/// `redux.sync` (§9.7.13.x, ISA 8.6+ for `.f32`): the f32 forms lower (their results:
/// tests/tests/simt_kernels.rs `redux_f32_…`); forms the ISA does not define are errors at
/// their line, never a guessed reduction.
#[test]
fn redux_f32_forms_lower_and_undefined_forms_are_errors() {
    for inst in [
        "redux.sync.min.f32 %r2, %r1, -1;",
        "redux.sync.max.abs.f32 %r2, %r1, -1;",
        "redux.sync.min.NaN.f32 %r2, %r1, %r1;",
        "redux.sync.max.abs.NaN.f32 %r2, %r1, -1;",
    ] {
        lowered(inst).unwrap_or_else(|e| panic!("{inst}: {e}"));
    }
    for (inst, why) in [
        ("    redux.sync.add.f32 %r2, %r1, -1;", "the .f32 forms are .min and .max"),
        ("    redux.sync.min.abs.u32 %r2, %r1, -1;", ".abs and .NaN take .f32"),
        ("    redux.sync.max.NaN.s32 %r2, %r1, -1;", ".abs and .NaN take .f32"),
        ("    redux.sync.min.f64 %r2, %r1, -1;", "not supported yet"),
    ] {
        let e = lowered(inst).expect_err(inst);
        assert!(e.contains(why) && e.contains("bar.ptx:12:5"), "{inst}: want `{why}`:\n{e}");
    }
}
