//! Driver miscompiles that ptxcross works around in `lower`, each as the smallest kernel that
//! showed it, checked on both backends against a CPU model of its PTX.

use ptxcross_tests::launch::check_per_thread as check;

/// lavapipe 22.3.6 (Debian 12) folded a 64-bit ordering comparison of a sign-extended value with
/// a constant wrongly on both backends (`< 0` false for negative values, `< 5` false for all);
/// the differential tester found it (tests/differential/regressions/cvt-s64-compare-1000001).
/// Every ordering against a constant, signed and unsigned, of sign- and zero-extended values.
#[test]
fn wide_comparisons_of_extended_values_with_constants() {
    let body = "
        cvt.s64.s32 %rd8, %r6;
        cvt.u64.u32 %rd9, %r6;
        setp.lt.s64 %p0, %rd8, 0;
        setp.lt.s64 %p1, %rd8, 5;
        setp.ge.s64 %p2, %rd8, -7;
        setp.gt.u64 %p3, %rd9, 4000000000;
        setp.le.u64 %p4, %rd8, 9;
        setp.gt.s64 %p5, -100, %rd8;
        selp.u32 %r10, 1, 0, %p0;
        selp.u32 %r11, 2, 0, %p1;
        selp.u32 %r12, 4, 0, %p2;
        selp.u32 %r13, 8, 0, %p3;
        selp.u32 %r14, 16, 0, %p4;
        selp.u32 %r15, 32, 0, %p5;
        or.b32 %r10, %r10, %r11;
        or.b32 %r10, %r10, %r12;
        or.b32 %r10, %r10, %r13;
        or.b32 %r10, %r10, %r14;
        or.b32 %r10, %r10, %r15;
        st.global.u32 [%rd7], %r10;";
    check("wide comparisons", "", body, 2, 128, |x| {
        let s = x as i32 as i64;
        let z = x as u64;
        (s < 0) as u32
            | ((s < 5) as u32) << 1
            | ((s >= -7) as u32) << 2
            | ((z > 4_000_000_000) as u32) << 3
            | (((s as u64) <= 9) as u32) << 4
            | ((-100 > s) as u32) << 5
    });
}
