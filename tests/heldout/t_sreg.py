# Special registers (§10).
F = 'sreg'
test('sreg_ids_and_masks', F, """
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %ctaid.y;
    mov.u32 %r4, %nctaid.x;
    mov.u32 %r5, %laneid;
    mov.u32 %r6, %lanemask_eq;
    mov.u32 %r7, %lanemask_lt;
    mov.u32 %r8, %lanemask_le;
    mov.u32 %r9, %lanemask_gt;
    mov.u32 %r10, %lanemask_ge;
    mov.u32 %r11, %warpid;
    mov.u32 %r12, %nwarpid;
    setp.lt.u32 %p1, %r11, %r12;
    selp.u32 %r13, 1, 0, %p1;
    mov.u32 %r14, %smid;
    mov.u32 %r15, %nsmid;
    setp.lt.u32 %p2, %r14, %r15;
    selp.u32 %r16, 1, 0, %p2;
    mov.u32 %r17, %dynamic_smem_size;
    mov.u32 %r18, %total_smem_size;
    setp.ge.u32 %p3, %r18, %r17;
    selp.u32 %r19, 1, 0, %p3;
    mov.u32 %r21, WARP_SZ;
    mov.u32 %r22, %ntid.y;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7', '%r8', '%r9', '%r10', '%r13', '%r16', '%r17', '%r19', '%r21', '%r22']),
     [0, 1, 0, 1, 0, 1, 0, 1, 0xfffffffe, 0xffffffff, 1, 1, 64, 1, 32, 1], dyn=64)
test('sreg_clock_timer_env_grid', F, """
    mov.u32 %r1, %clock;
    mov.u64 %rd1, %clock64;
    mov.u64 %rd3, %globaltimer;
    mov.u32 %r5, 0;
$L__spin:
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, 100;
    @%p1 bra $L__spin;
    mov.u32 %r2, %clock;
    mov.u64 %rd2, %clock64;
    mov.u64 %rd4, %globaltimer;
    sub.u32 %r3, %r2, %r1;
    setp.lt.u32 %p2, %r3, 0x80000000;
    selp.u32 %r6, 1, 0, %p2;
    setp.ge.u64 %p3, %rd2, %rd1;
    selp.u32 %r7, 1, 0, %p3;
    setp.ge.u64 %p4, %rd4, %rd3;
    selp.u32 %r8, 1, 0, %p4;
    mov.u32 %r9, %envreg0;
    mov.u32 %r10, %envreg31;
    mov.u64 %rd5, %gridid;
    and.b32 %r11, %r9, 0;
    or.b32 %r11, %r11, %r10;
    and.b32 %r11, %r11, 0;
    cvt.u32.u64 %r12, %rd5;
    and.b32 %r12, %r12, 0;
    mov.u32 %r13, %globaltimer_lo;
""" + st32(['%r6', '%r7', '%r8', '%r11', '%r12']), [1, 1, 1, 0, 0], note='monotonic clocks; envreg/gridid only need to be readable')
test('sreg_cluster_1cta', F, """
    mov.u32 %r1, %cluster_ctarank;
    mov.u32 %r2, %cluster_nctarank;
    mov.u32 %r3, %clusterid.x;
    mov.u32 %r4, %nclusterid.x;
    mov.u32 %r5, %cluster_ctaid.x;
    mov.u32 %r6, %cluster_nctaid.x;
    mov.pred %p1, %is_explicit_cluster;
    selp.u32 %r7, 1, 0, %p1;
""" + st32(['%r1', '%r2', '%r3', '%r4', '%r5', '%r6', '%r7']), [0, 1, 0, 1, 0, 1, 0],
     note='no cluster launch: a 1-CTA cluster (§10.x cluster registers)')
