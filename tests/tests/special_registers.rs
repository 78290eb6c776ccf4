//! Special registers of PTX chapter 10 that have no direct counterpart on the targets, read by
//! hand-written kernels on both backends and checked against the launch's own values:
//! `%dynamic_smem_size`, `%total_smem_size` (§10.30: static + dynamic in the target's
//! allocation unit), `%smid`/`%nsmid`, `%gridid` (the context's launch number), `%envreg<32>`,
//! the cluster registers in a launch without clusters (each CTA a 1-CTA cluster), `mapa` and
//! `getctarank` there, and `%clock`/`%clock64`/`%globaltimer` (strictly increasing per thread).

use ptxcross::{translate, Backend, Context, ContextOptions};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;
use ptxcross_tests::launch::gpu_or_skip;

/// Translates `ptx` (block `block`, `dynamic` bytes of dynamic shared memory) and runs kernel
/// `k(out)` `launches` times in one context over `grid`; returns `out` (`words` u32) after each.
fn run(ptx: &str, block: [u32; 3], grid: [u32; 3], dynamic: u32, words: usize, launches: usize, backend: Backend) -> Result<Vec<Vec<u32>>, String> {
    let gpu = gpu_or_skip().expect("checked by the caller");
    let file = SourceFile::new("sregs.ptx", ptx);
    let options = LowerOptions { block: Some(block), dynamic_shared_bytes: dynamic, ..ptxcross_tests::launch::device_options(&ptxcross::Backend::ALL) };
    let program = translate::build_program(&file, &options, &[backend], true).map_err(|e| e.render())?;
    let mut ctx = Context::new(ContextOptions { heap_bytes: 1 << 20, timeout: None, gpu: Some(gpu) }).map_err(|e| e.to_string())?;
    let out = ctx.alloc(4 * words as u64).map_err(|e| e.to_string())?;
    let mut results = Vec::new();
    for _ in 0..launches {
        ctx.write(out, &vec![0u8; 4 * words]).map_err(|e| e.to_string())?;
        ctx.launch(&program, "k", grid, &[&out.to_le_bytes()], backend).map_err(|e| format!("{backend} launch: {e}"))?;
        let bytes = ctx.read(out, 4 * words as u64).map_err(|e| e.to_string())?;
        results.push(bytes.chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect());
    }
    Ok(results)
}

/// Words written per thread by [`sreg_kernel`].
const RECORD: usize = 32;

/// A kernel writing, per thread (linear over the grid), the registers in a fixed order.
fn sreg_kernel(target: &str, extern_shared: bool) -> String {
    let dyn_decl = if extern_shared { ".extern .shared .align 16 .b8 dyn[];\n" } else { "" };
    format!(
        r#".version 8.5
.target {target}
.address_size 64
{dyn_decl}.visible .entry k(.param .u64 out)
{{
    .shared .align 4 .b8 stat[100];
    .reg .pred %p;
    .reg .b32 %r<40>;
    .reg .b64 %rd<8>;
    // linear thread id over the grid (x fastest, then y)
    mov.u32 %r1, %ctaid.y;
    mov.u32 %r2, %nctaid.x;
    mov.u32 %r3, %ctaid.x;
    mad.lo.u32 %r4, %r1, %r2, %r3;
    mov.u32 %r5, %ntid.x;
    mov.u32 %r6, %ntid.y;
    mul.lo.u32 %r5, %r5, %r6;
    mov.u32 %r7, %tid.y;
    mov.u32 %r8, %ntid.x;
    mov.u32 %r9, %tid.x;
    mad.lo.u32 %r7, %r7, %r8, %r9;
    mad.lo.u32 %r10, %r4, %r5, %r7;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r10, {bytes};
    add.s64 %rd1, %rd1, %rd2;
    mov.u32 %r11, %dynamic_smem_size;      st.global.u32 [%rd1+0], %r11;
    mov.u32 %r11, %total_smem_size;        st.global.u32 [%rd1+4], %r11;
    mov.u32 %r11, %smid;                   st.global.u32 [%rd1+8], %r11;
    mov.u32 %r11, %nsmid;                  st.global.u32 [%rd1+12], %r11;
    mov.u64 %rd3, %gridid;                 st.global.u64 [%rd1+16], %rd3;
    mov.b32 %r11, %envreg0;                st.global.u32 [%rd1+24], %r11;
    mov.b32 %r11, %envreg31;               st.global.u32 [%rd1+28], %r11;
    mov.u32 %r11, %cluster_ctarank;        st.global.u32 [%rd1+32], %r11;
    mov.u32 %r11, %cluster_nctarank;       st.global.u32 [%rd1+36], %r11;
    mov.u32 %r11, %cluster_ctaid.x;        st.global.u32 [%rd1+40], %r11;
    mov.u32 %r11, %cluster_ctaid.z;        st.global.u32 [%rd1+44], %r11;
    mov.u32 %r11, %cluster_nctaid.x;       st.global.u32 [%rd1+48], %r11;
    mov.u32 %r11, %cluster_nctaid.y;       st.global.u32 [%rd1+52], %r11;
    mov.u32 %r11, %clusterid.x;            st.global.u32 [%rd1+56], %r11;
    mov.u32 %r11, %clusterid.y;            st.global.u32 [%rd1+60], %r11;
    mov.u32 %r11, %nclusterid.x;           st.global.u32 [%rd1+64], %r11;
    mov.u32 %r11, %nclusterid.y;           st.global.u32 [%rd1+68], %r11;
    mov.pred %p, %is_explicit_cluster;
    selp.u32 %r11, 1, 0, %p;               st.global.u32 [%rd1+72], %r11;
    // clocks: strictly increasing reads; %clock is the low half of the same counter
    mov.u64 %rd4, %clock64;
    mov.u64 %rd5, %clock64;
    setp.gt.u64 %p, %rd5, %rd4;
    selp.u32 %r11, 1, 0, %p;               st.global.u32 [%rd1+76], %r11;
    mov.u32 %r12, %clock;
    cvt.u32.u64 %r13, %rd5;
    setp.gt.u32 %p, %r12, %r13;
    selp.u32 %r11, 1, 0, %p;               st.global.u32 [%rd1+80], %r11;
    mov.u64 %rd6, %globaltimer;
    mov.u64 %rd7, %globaltimer;
    setp.gt.u64 %p, %rd7, %rd6;
    selp.u32 %r11, 1, 0, %p;               st.global.u32 [%rd1+84], %r11;
    mov.u32 %r14, %clock_hi;               st.global.u32 [%rd1+88], %r14;
    // mapa to rank 0 is the identity; getctarank of a shared address is 0
    mov.u64 %rd3, stat;
    cvta.shared.u64 %rd4, %rd3;
    mapa.u64 %rd5, %rd4, 0;
    setp.eq.u64 %p, %rd5, %rd4;
    selp.u32 %r11, 1, 0, %p;               st.global.u32 [%rd1+92], %r11;
    mov.u32 %r15, stat;
    mapa.shared::cluster.u32 %r16, stat, 0;
    setp.eq.u32 %p, %r15, %r16;
    selp.u32 %r11, 1, 0, %p;               st.global.u32 [%rd1+96], %r11;
    getctarank.u64 %r11, %rd4;             st.global.u32 [%rd1+100], %r11;
    getctarank.shared::cluster.u32 %r11, stat;
    add.u32 %r11, %r11, 7;                 st.global.u32 [%rd1+104], %r11;
    // a store through the mapped generic address lands in this CTA's shared memory
    st.u32 [%rd5], %r10;
    bar.sync 0;
    ld.shared.u32 %r17, [stat];
    mov.u32 %r18, %tid.x;
    mov.u32 %r19, %tid.y;
    or.b32 %r18, %r18, %r19;
    setp.ne.u32 %p, %r18, 0;
    @%p bra DONE;
    st.global.u32 [%rd1+108], %r17;
DONE:
    ret;
}}
"#,
        bytes = RECORD * 4
    )
}

#[test]
fn special_registers_match_the_launch() {
    if gpu_or_skip().is_none() {
        return;
    }
    let (block, grid) = ([4u32, 2, 1], [3u32, 2, 1]);
    let threads = (block.iter().product::<u32>() * grid.iter().product::<u32>()) as usize;
    // (target, extern shared declared, dynamic bytes, expected %total_smem_size):
    // 100 static + dynamic, rounded up to 128 bytes (sm_90) or 256 (sm_75), §10.30.
    let cases = [("sm_90", true, 200u32, 384u32), ("sm_75", true, 200, 512), ("sm_90", false, 0, 128), ("sm_80", false, 300, 512)];
    for (target, ext, dynamic, total) in cases {
        let ptx = sreg_kernel(target, ext);
        for backend in Backend::ALL {
            let runs = run(&ptx, block, grid, dynamic, threads * RECORD, 2, backend).unwrap_or_else(|e| panic!("{target}: {e}"));
            for (launch, out) in runs.iter().enumerate() {
                for t in 0..threads {
                    let r = &out[t * RECORD..(t + 1) * RECORD];
                    let cta = t as u32 / 8;
                    let (cx, cy) = (cta % grid[0], cta / grid[0]);
                    let tid_in_cta = t as u32 % 8;
                    let want: Vec<(usize, u32, &str)> = vec![
                        (0, dynamic, "%dynamic_smem_size"),
                        (1, total, "%total_smem_size"),
                        (2, 0, "%smid"),
                        (3, 1, "%nsmid"),
                        // %gridid: the launch's number in this context, the same for all threads.
                        (4, launch as u32 + 1, "%gridid (low)"),
                        (5, 0, "%gridid (high)"),
                        (6, 0, "%envreg0"),
                        (7, 0, "%envreg31"),
                        (8, 0, "%cluster_ctarank"),
                        (9, 1, "%cluster_nctarank"),
                        (10, 0, "%cluster_ctaid.x"),
                        (11, 0, "%cluster_ctaid.z"),
                        (12, 1, "%cluster_nctaid.x"),
                        (13, 1, "%cluster_nctaid.y"),
                        (14, cx, "%clusterid.x"),
                        (15, cy, "%clusterid.y"),
                        (16, grid[0], "%nclusterid.x"),
                        (17, grid[1], "%nclusterid.y"),
                        (18, 0, "%is_explicit_cluster"),
                        (19, 1, "%clock64 increases"),
                        (20, 1, "%clock above the earlier %clock64"),
                        (21, 1, "%globaltimer increases"),
                        (22, 0, "%clock_hi"),
                        (23, 1, "mapa.u64 rank 0 is the identity"),
                        (24, 1, "mapa.shared::cluster rank 0 is the identity"),
                        (25, 0, "getctarank.u64"),
                        (26, 7, "getctarank.shared::cluster"),
                    ];
                    for (i, w, what) in want {
                        assert_eq!(r[i], w, "{target} {backend} launch {launch} thread {t}: {what}");
                    }
                    if tid_in_cta == 0 {
                        // Some thread of this CTA stored its id through the mapped address.
                        let ids: Vec<u32> = (cta * 8..cta * 8 + 8).collect();
                        assert!(ids.contains(&r[27]), "{target} {backend}: store through mapa: {}", r[27]);
                    }
                }
            }
        }
    }
}

#[test]
fn mapa_to_another_rank_faults() {
    if gpu_or_skip().is_none() {
        return;
    }
    let ptx = r#".version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .shared .align 4 .b8 s[16];
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.global.u32 %r1, [%rd1];
    mapa.shared::cluster.u32 %r2, s, %r1;
    st.global.u32 [%rd1+4], %r2;
    ret;
}
"#;
    for backend in Backend::ALL {
        // out[0] is 0 (rank 0): fine.
        run(ptx, [1, 1, 1], [1, 1, 1], 0, 2, 1, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
    }
    let ptx1 = ptx.replace("ld.global.u32 %r1, [%rd1];", "mov.u32 %r1, %tid.x;\n    add.u32 %r1, %r1, 1;");
    for backend in Backend::ALL {
        let e = run(&ptx1, [1, 1, 1], [1, 1, 1], 0, 2, 1, backend).expect_err("mapa to rank 1 must fault");
        assert!(e.contains("mapa"), "{backend}: {e}");
    }
}

#[test]
fn cluster_kernels_and_undefined_registers_are_refused() {
    let kernel = |directive: &str, body: &str| {
        format!(
            ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{directive}\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    .shared .b8 s[4];\n    {body}\n    ret;\n}}\n"
        )
    };
    for (directive, body, why) in [
        (".reqnctapercluster 2, 1, 1", "mov.u32 %r1, %cluster_ctarank;", ".reqnctapercluster"),
        (".explicitcluster", "mov.u32 %r1, %cluster_nctaid.x;", ".explicitcluster"),
        (".maxclusterrank 4", "mapa.shared::cluster.u32 %r1, s, 1;", ".maxclusterrank"),
        ("", "mov.u32 %r1, %pm0;", "%pm0"),
        ("", "mov.u32 %r1, %envreg32;", "%envreg32"),
        ("", "mov.u32 %r1, %aggr_smem_size;", "%aggr_smem_size"),
        ("", "mov.u32 %r1, %cluster_ctaid;", "component"),
    ] {
        let file = SourceFile::new("k.ptx", kernel(directive, body));
        let e = translate::frontend(&file, &LowerOptions::default()).err().unwrap_or_else(|| panic!("`{body}` was accepted"));
        let text = e.render();
        assert!(text.contains(why), "`{directive} {body}`: {text}");
    }
}

/// `%clock64` keeps increasing across calls, also into a recursive (stack-called) function:
/// each level's reads around its call differ by a small positive amount (a counter restarted
/// per call would make the later read smaller, and the difference wrap to a huge value).
#[test]
fn clock_increases_across_calls() {
    if gpu_or_skip().is_none() {
        return;
    }
    let ptx = r#".version 8.5
.target sm_90
.address_size 64
.func (.param .b64 r) f(.param .b32 n)
{
    .reg .b64 %t<3>;
    .reg .b32 %n;
    .reg .pred %p;
    ld.param.b32 %n, [n];
    mov.u64 %t1, %clock64;
    setp.eq.u32 %p, %n, 0;
    @%p bra END;
    sub.u32 %n, %n, 1;
    {
    .param .b32 a;
    .param .b64 rr;
    st.param.b32 [a], %n;
    call (rr), f, (a);
    ld.param.b64 %t2, [rr];
    }
END:
    mov.u64 %t2, %clock64;
    sub.u64 %t1, %t2, %t1;
    st.param.b64 [r], %t1;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    {
    .param .b32 a;
    .param .b64 rr;
    st.param.b32 [a], %r1;
    call (rr), f, (a);
    ld.param.b64 %rd2, [rr];
    }
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd3, %rd1, %rd3;
    st.global.u64 [%rd3], %rd2;
    ret;
}
"#;
    for backend in Backend::ALL {
        let out = run(ptx, [8, 1, 1], [1, 1, 1], 0, 16, 1, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        for t in 0..8 {
            let d = out[0][2 * t] as u64 | (out[0][2 * t + 1] as u64) << 32;
            assert!(d > 0 && d < 1000, "{backend} thread {t}: clock difference {d}");
        }
    }
}

/// `mov.v4.u32 %rx, %sreg` reads a whole vector special register into a vector register
/// (§10.1–10.15 examples: `mov.v4.u32 %rx, %clusterid;`); the fourth element "is unused and
/// always returns zero". Also `mov.v2`/`.v4` between vector registers and brace lists.
#[test]
fn vector_special_registers_and_vector_moves() {
    if gpu_or_skip().is_none() {
        return;
    }
    const SREGS: [&str; 8] = ["%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid"];
    let mut body = String::new();
    for (i, s) in SREGS.iter().enumerate() {
        body += &format!("    mov.v4.u32 %rx, {s};\n    st.global.v4.u32 [%rd1+{}], %rx;\n", i * 16);
    }
    // %tid.w alone; a vector list into a vector register and back; mov.v2 between registers.
    body += "    mov.u32 %r1, %ctaid.w;\n    st.global.u32 [%rd1+128], %r1;\n\
             mov.u32 %r2, %tid.x;\n    add.u32 %r3, %r2, 100;\n\
             mov.v4.u32 %ry, {%r3, %r2, %r3, %r2};\n    mov.v4.u32 {%r4, %r5, %r6, %r7}, %ry;\n\
             st.global.v4.u32 [%rd1+144], {%r4, %r5, %r6, %r7};\n\
             mov.v2.u32 %va, {%r2, %r3};\n    mov.v2.u32 %vb, %va;\n    st.global.v2.u32 [%rd1+160], %vb;\n";
    let ptx = format!(
        ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n\
         .reg .b32 %r<12>;\n    .reg .b64 %rd<4>;\n    .reg .v4 .b32 %rx, %ry;\n    .reg .v2 .b32 %va, %vb;\n\
         mov.u32 %r8, %ctaid.x;\n    mov.u32 %r9, %ntid.x;\n    mov.u32 %r10, %ntid.y;\n    mul.lo.u32 %r9, %r9, %r10;\n\
         mov.u32 %r10, %tid.y;\n    mov.u32 %r11, %ntid.x;\n    mov.u32 %r1, %tid.x;\n    mad.lo.u32 %r10, %r10, %r11, %r1;\n\
         mad.lo.u32 %r8, %r8, %r9, %r10;\n    mul.wide.u32 %rd2, %r8, 176;\n    ld.param.u64 %rd1, [out];\n    add.s64 %rd1, %rd1, %rd2;\n\
         {body}    ret;\n}}\n"
    );
    let (block, grid) = ([4u32, 2, 1], [3u32, 1, 1]);
    let record = 44usize;
    for backend in Backend::ALL {
        let out = run(&ptx, block, grid, 0, 24 * record, 1, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        for t in 0..24u32 {
            let r = &out[0][t as usize * record..(t as usize + 1) * record];
            let (cta, tid) = (t / 8, t % 8);
            let (tx, ty) = (tid % 4, tid / 4);
            let want: [[u32; 4]; 8] = [
                [tx, ty, 0, 0],
                [4, 2, 1, 0],
                [cta, 0, 0, 0],
                [3, 1, 1, 0],
                // Launches here are 1-CTA clusters (see the README).
                [cta, 0, 0, 0],
                [3, 1, 1, 0],
                [0, 0, 0, 0],
                [1, 1, 1, 0],
            ];
            for (i, w) in want.iter().enumerate() {
                assert_eq!(&r[i * 4..i * 4 + 4], w, "{backend} thread {t}: mov.v4.u32 of {}", SREGS[i]);
            }
            assert_eq!(r[32], 0, "{backend} thread {t}: %ctaid.w");
            assert_eq!(&r[36..40], [tx + 100, tx, tx + 100, tx], "{backend} thread {t}: mov.v4 through a vector register");
            assert_eq!(&r[40..42], [tx, tx + 100], "{backend} thread {t}: mov.v2");
        }
    }
}

/// `pmevent` (§9.7.19.3) signals performance-monitor events that only host-programmed
/// counters see: it runs and changes nothing; its operand must be an immediate event 0..15
/// (`.mask`: a 16-bit mask).
#[test]
fn pmevent_changes_nothing() {
    if gpu_or_skip().is_none() {
        return;
    }
    let kernel = |events: &str| {
        format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n\
             .reg .pred %p;\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    mov.u32 %r1, %tid.x;\n\
             setp.eq.u32 %p, %r1, 3;\n{events}\n    ld.param.u64 %rd1, [out];\n    mul.wide.u32 %rd2, %r1, 4;\n\
             add.s64 %rd1, %rd1, %rd2;\n    add.u32 %r2, %r1, 7;\n    st.global.u32 [%rd1], %r2;\n    ret;\n}}\n"
        )
    };
    let ptx = kernel("    pmevent 1;\n@%p pmevent 15;\n    pmevent.mask 0xffff;\n@!%p pmevent.mask 0x1;");
    for backend in Backend::ALL {
        let out = run(&ptx, [8, 1, 1], [1, 1, 1], 0, 8, 1, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        assert_eq!(out[0], (7..15).collect::<Vec<u32>>(), "{backend}");
    }
    for bad in ["    pmevent 16;", "    pmevent.mask 0x10000;", "    pmevent %r1;"] {
        let e = run(&kernel(bad), [8, 1, 1], [1, 1, 1], 0, 8, 1, Backend::Wgsl).expect_err(bad);
        assert!(e.contains("takes an immediate from 0 to"), "{bad}: {e}");
    }
}

/// The warp registers (§10.4 `%laneid`, §10.5 `%warpid`, §10.6 `%nwarpid`, §10.18–10.22
/// `%lanemask_*`, and `WARP_SZ`) in a 3-D block of 120 threads (its last warp partial), two
/// CTAs: a logical warp is 32 consecutive linear thread ids (`(tid.z * ntid.y + tid.y) *
/// ntid.x + tid.x`), `%laneid` the position in it, the masks are positions relative to it
/// (whatever lanes exist). `%warpid` is only required to be the same for the threads of a warp
/// and distinct between a CTA's warps (§10.5), below `%nwarpid` (§10.6: "the maximum number of
/// warp identifiers"), so that is what is checked.
#[test]
fn warp_special_registers_follow_the_linear_thread_id() {
    if gpu_or_skip().is_none() {
        return;
    }
    let ptx = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n\
         .reg .b32 %r<20>;\n    .reg .b64 %rd<4>;\n\
         mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %tid.y;\n    mov.u32 %r3, %tid.z;\n\
         mad.lo.u32 %r4, %r3, 3, %r2;\n    mad.lo.u32 %r4, %r4, 20, %r1;\n\
         mov.u32 %r5, %ctaid.x;\n    mad.lo.u32 %r4, %r5, 120, %r4;\n\
         mul.lo.u32 %r4, %r4, 9;\n    ld.param.u64 %rd1, [out];\n    mul.wide.u32 %rd2, %r4, 4;\n\
         add.s64 %rd1, %rd1, %rd2;\n\
         mov.u32 %r10, %laneid;\n    st.global.u32 [%rd1], %r10;\n\
         mov.u32 %r10, %warpid;\n    st.global.u32 [%rd1+4], %r10;\n\
         mov.u32 %r10, %nwarpid;\n    st.global.u32 [%rd1+8], %r10;\n\
         mov.u32 %r10, %lanemask_eq;\n    st.global.u32 [%rd1+12], %r10;\n\
         mov.u32 %r10, %lanemask_lt;\n    st.global.u32 [%rd1+16], %r10;\n\
         mov.u32 %r10, %lanemask_le;\n    st.global.u32 [%rd1+20], %r10;\n\
         mov.u32 %r10, %lanemask_gt;\n    st.global.u32 [%rd1+24], %r10;\n\
         mov.u32 %r10, %lanemask_ge;\n    st.global.u32 [%rd1+28], %r10;\n\
         mov.u32 %r10, WARP_SZ;\n    st.global.u32 [%rd1+32], %r10;\n    ret;\n}\n";
    let (threads, ctas) = (120usize, 2usize);
    for backend in Backend::ALL {
        let out = run(ptx, [20, 3, 2], [ctas as u32, 1, 1], 0, 9 * threads * ctas, 1, backend).unwrap_or_else(|e| panic!("{backend}: {e}"));
        let out = &out[0];
        for c in 0..ctas {
            let mut warp_ids = Vec::new();
            for t in 0..threads {
                let r = &out[9 * (c * threads + t)..][..9];
                let lane = (t % 32) as u32;
                let eq = 1u32 << lane;
                let want = [lane, r[1], r[2], eq, eq - 1, eq | (eq - 1), !(eq | (eq - 1)), !(eq - 1), 32];
                assert_eq!(r, want, "{backend}: CTA {c} thread {t}: laneid, -, -, lanemask eq/lt/le/gt/ge, WARP_SZ");
                assert!(r[1] < r[2], "{backend}: CTA {c} thread {t}: %warpid {} below %nwarpid {}", r[1], r[2]);
                assert!(r[2] >= threads.div_ceil(32) as u32, "{backend}: %nwarpid {} below the CTA's warps", r[2]);
                if t % 32 == 0 {
                    warp_ids.push(r[1]);
                } else {
                    assert_eq!(r[1], *warp_ids.last().unwrap(), "{backend}: CTA {c} thread {t}: %warpid differs within its warp");
                }
            }
            let mut distinct = warp_ids.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), warp_ids.len(), "{backend}: CTA {c}: %warpid repeats between warps: {warp_ids:?}");
        }
    }
}
