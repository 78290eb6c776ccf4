//! Values that leave a loop, end to end on both backends (issue 6 §1).
//!
//! Mesa 22's lavapipe (Debian 12) miscompiled loops whose trip count differs between the
//! invocations of a SIMD group when a value defined in the body is read after the loop: an
//! invocation that left early saw the value recomputed in the slower ones' extra iterations.
//! `lower::loop_exits` guards such loops; these kernels are the shapes it must cover (a rotated
//! do-while, several exits, nesting, an irreducible loop), each checked against a CPU model of
//! its PTX written here.

use ptxcross::Backend;
use ptxcross_tests::launch::{bytes, check_per_thread as check, gpu_or_skip, PER_THREAD_HEADER as HEADER};
use ptxcross::translate::Profile;

/// The kernel of the issue: a rotated do-while whose trip count (1..=8) differs per thread;
/// `%r20` is written before it is read in each iteration and read after the loop.
#[test]
fn do_while_value_read_after_the_loop() {
    let body = "
        and.b32 %r15, %r6, 7;
        add.s32 %r15, %r15, 1;
    $L_loop:
        add.s32 %r20, %r15, 100;
        sub.s32 %r15, %r15, 1;
        setp.ne.u32 %p1, %r15, 0;
        @%p1 bra $L_loop;
        st.global.u32 [%rd7], %r20;";
    // The last iteration starts with %r15 = 1, whatever the trip count.
    check("do-while", "", body, 1, 200, |_| 101);
}

/// Two exits with different live-out values, and a counter read after the loop.
#[test]
fn multi_exit_loop() {
    let body = "
        and.b32 %r15, %r6, 15;
        shr.u32 %r16, %r6, 8;
        and.b32 %r16, %r16, 7;
        mov.u32 %r17, 0;
    $L_loop:
        add.s32 %r17, %r17, 1;
        mul.lo.s32 %r20, %r17, 3;
        setp.eq.u32 %p1, %r17, %r16;
        @%p1 bra $L_found;
        xor.b32 %r21, %r17, 0x55;
        setp.lt.u32 %p2, %r17, %r15;
        @%p2 bra $L_loop;
        add.s32 %r22, %r21, %r17;
        st.global.u32 [%rd7], %r22;
        ret;
    $L_found:
        add.s32 %r22, %r20, 1000;
        st.global.u32 [%rd7], %r22;";
    check("multi-exit", "", body, 2, 128, |x| {
        let (limit, hit) = (x & 15, (x >> 8) & 7);
        let mut i = 0u32;
        loop {
            i += 1;
            let v = i * 3;
            if i == hit {
                return v + 1000;
            }
            let w = i ^ 0x55;
            if i >= limit {
                return w + i;
            }
        }
    });
}

/// An inner do-while inside an outer do-while; values of both leave their loops.
#[test]
fn nested_loops() {
    let body = "
        and.b32 %r15, %r6, 7;
        add.s32 %r15, %r15, 1;
        mov.u32 %r25, 0;
    $L_outer:
        shr.u32 %r16, %r6, %r15;
        and.b32 %r16, %r16, 3;
        add.s32 %r16, %r16, 1;
    $L_inner:
        mad.lo.s32 %r20, %r16, %r15, 7;
        sub.s32 %r16, %r16, 1;
        setp.ne.u32 %p1, %r16, 0;
        @%p1 bra $L_inner;
        add.s32 %r25, %r25, %r20;
        mul.lo.s32 %r26, %r25, 5;
        sub.s32 %r15, %r15, 1;
        setp.ne.u32 %p2, %r15, 0;
        @%p2 bra $L_outer;
        add.s32 %r27, %r26, %r20;
        st.global.u32 [%rd7], %r27;";
    check("nested", "", body, 2, 96, |x| {
        let mut r15 = (x & 7) + 1;
        let (mut r25, mut r26, mut r20);
        r25 = 0u32;
        loop {
            let mut r16 = ((x >> r15) & 3) + 1;
            loop {
                r20 = r16.wrapping_mul(r15).wrapping_add(7);
                r16 -= 1;
                if r16 == 0 {
                    break;
                }
            }
            r25 = r25.wrapping_add(r20);
            r26 = r25.wrapping_mul(5);
            r15 -= 1;
            if r15 == 0 {
                break;
            }
        }
        r26.wrapping_add(r20)
    });
}

/// A loop with two entries (irreducible: the structurizer adds an entry selector).
#[test]
fn irreducible_loop() {
    let body = "
        and.b32 %r15, %r6, 7;
        add.s32 %r15, %r15, 3;
        and.b32 %r16, %r6, 16;
        setp.ne.u32 %p3, %r16, 0;
        mov.u32 %r17, 1;
        @%p3 bra $L_b;
    $L_a:
        add.s32 %r20, %r17, 11;
        mul.lo.s32 %r17, %r17, 3;
    $L_b:
        add.s32 %r21, %r17, %r15;
        sub.s32 %r15, %r15, 1;
        setp.gt.u32 %p1, %r15, 1;
        @%p1 bra $L_a;
        add.s32 %r22, %r21, %r20;
        st.global.u32 [%rd7], %r22;";
    check("irreducible", "", body, 2, 160, |x| {
        // %r15 starts at 3 or more, so A runs at least once (%r20 is written before it is read).
        let mut r15 = (x & 7) + 3;
        let mut r17 = 1u32;
        let mut r20 = 0u32;
        let mut at_b = x & 16 != 0;
        loop {
            if !at_b {
                r20 = r17.wrapping_add(11);
                r17 = r17.wrapping_mul(3);
            }
            at_b = false;
            let r21 = r17.wrapping_add(r15);
            r15 -= 1;
            if r15 <= 1 {
                return r21.wrapping_add(r20);
            }
        }
    });
}

/// What the guard costs: times a loop-heavy kernel (nested loops, live-out values, trip
/// counts up to ~1,000 per thread, 16,384 threads) on each backend and prints the emitted
/// sizes. `cargo test --release -p ptxcross-tests --test loop_exits -- --ignored --nocapture`
#[test]
#[ignore]
fn guard_cost() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 out, .param .u64 inp)\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<12>;\n\
         ld.param.u64 %rd1, [out];\n ld.param.u64 %rd2, [inp];\n\
         mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ntid.x;\n mad.lo.s32 %r4, %r2, %r3, %r1;\n\
         mul.wide.u32 %rd5, %r4, 4;\n add.s64 %rd6, %rd2, %rd5;\n add.s64 %rd7, %rd1, %rd5;\n\
         ld.global.u32 %r6, [%rd6];\n\
         and.b32 %r15, %r6, 63;\n add.s32 %r15, %r15, 64;\n mov.u32 %r25, 0;\n\
         $L_outer:\n and.b32 %r16, %r6, 63;\n add.s32 %r16, %r16, 64;\n\
         $L_inner:\n mad.lo.s32 %r20, %r16, %r15, %r25;\n xor.b32 %r25, %r25, %r20;\n shl.b32 %r21, %r25, 3;\n add.s32 %r25, %r25, %r21;\n\
         sub.s32 %r16, %r16, 1;\n setp.ne.u32 %p1, %r16, 0;\n @%p1 bra $L_inner;\n\
         add.s32 %r25, %r25, %r20;\n sub.s32 %r15, %r15, 1;\n setp.ne.u32 %p2, %r15, 0;\n @%p2 bra $L_outer;\n\
         st.global.u32 [%rd7], %r25;\n ret;\n}}\n"
    );
    let (grid, block) = (128u32, 256u32);
    let n = (grid * block) as usize;
    let input: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let file = ptxcross_frontend::SourceFile::new("cost.ptx", ptx.as_str());
    let options = ptxcross_lower::LowerOptions { block: Some([block, 1, 1]), ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let module = ptxcross::translate::frontend(&file, &options).unwrap();
    let spirv = ptxcross::translate::emit_spirv(&module).unwrap();
    let wgsl = ptxcross::translate::emit_wgsl(&module, Profile::Wgpu).unwrap();
    eprintln!("emitted: SPIR-V {} words, WGSL {} bytes", spirv.len(), wgsl.len());
    let program = ptxcross::translate::build_program_from_ir("cost.ptx", module, &Backend::ALL, true).unwrap();
    let mut ctx = ptxcross::Context::new(ptxcross::ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu) }).unwrap();
    let (out, inp) = (ctx.alloc(n as u64 * 4).unwrap(), ctx.alloc(n as u64 * 4).unwrap());
    ctx.write(inp, &bytes(&input)).unwrap();
    for backend in Backend::ALL {
        let args: [&[u8]; 2] = [&out.to_le_bytes(), &inp.to_le_bytes()];
        ctx.launch(&program, "k", [grid, 1, 1], &args, backend).unwrap(); // pipeline creation
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            ctx.launch(&program, "k", [grid, 1, 1], &args, backend).unwrap();
            best = best.min(t.elapsed().as_secs_f64());
        }
        eprintln!("{backend}: best of 5 launches {:.1} ms", best * 1e3);
    }
}
