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

/// The bits of a `min_max` result that the spec fixes (every case these kernels reach).
fn min_max_bits(is_min: bool, bits: u32, a: u64, b: u64, ftz: bool) -> u32 {
    match ptxcross_tests::ptx_ref::float::min_max(is_min, bits, a, b, false, false, ftz) {
        ptxcross_tests::sweep::Expect::Bits(v) => v as u32,
        other => panic!("min_max({a:#x}, {b:#x}) is not one value: {other:?}"),
    }
}

/// lavapipe 22.3.6 turned `select(c, 1.0, -0.0)` into a bool-to-float conversion (+0 for −0,
/// see `lower`'s `misread_constants`) also where the −0 was no IR constant but a value the
/// driver computes from constants: `lower`'s integer f16 → f32 conversion of a constant half,
/// which `min`/`max` select against 1.0 on their both-zero path. `min.ftz.f16` of a positive
/// half and a constant negative subnormal (flushed to −0) gave +0, both backends (differential
/// case `hx-seed-000000004a6600d5`, whose constant came from an `add.cc` of two immediates).
/// §9.7.4.10/11: min/max of the halves, `-0.0 < +0.0`; §9.7.4: `.ftz` keeps the sign.
#[test]
fn constant_negative_zero_half_operands_of_min_max() {
    let regs = ".reg .b16 %h<8>;";
    let body = "
        mov.b32 {%h0, %h1}, %r6;
        add.cc.u32 %r7, 0xfffffffd, 0x2d6f81cd;
        mov.b32 {%h2, %h3}, %r7;
        min.ftz.f16 %h4, %h0, %h2;
        mov.b16 %h5, 0x8000;
        max.f16 %h6, %h5, %h1;
        mov.b32 %r10, {%h4, %h6};
        st.global.u32 [%rd7], %r10;";
    check("min/max.f16 with constant -0", regs, body, 2, 128, |x| {
        let (lo, hi) = ((x & 0xffff) as u64, (x >> 16) as u64);
        min_max_bits(true, 16, lo, 0x81ca, true) | min_max_bits(false, 16, 0x8000, hi, false) << 16
    });
    // The packed form, one lane of the constant −0 and the other +0, through a register that
    // is also assigned elsewhere (the driver knows it between the assignments).
    let body = "
        mov.b32 %r9, %r6;
        xor.b32 %r9, %r9, 0x80008000;
        mov.b32 %r9, 0x00008000;
        min.f16x2 %r10, %r6, %r9;
        max.f16x2 %r11, %r9, %r6;
        xor.b32 %r10, %r10, %r11;
        st.global.u32 [%rd7], %r10;";
    check("min/max.f16x2 with constant -0/+0 lanes", "", body, 2, 128, |x| {
        let (lo, hi) = ((x & 0xffff) as u64, (x >> 16) as u64);
        let min = min_max_bits(true, 16, lo, 0x8000, false) | min_max_bits(true, 16, hi, 0, false) << 16;
        let max = min_max_bits(false, 16, 0x8000, lo, false) | min_max_bits(false, 16, 0, hi, false) << 16;
        min ^ max
    });
}

/// The same fold through a register assigned twice: `selp.f32 d, 1.0, %f1, p` where `%f1` was
/// set to −0.0 after an earlier value (the driver, in SSA form, sees the constant).
#[test]
fn negative_zero_select_operand_in_a_reassigned_register() {
    let regs = ".reg .f32 %f<4>;";
    let body = "
        mov.b32 %f1, %r6;
        mov.f32 %f1, 0f80000000;
        and.b32 %r8, %r6, 1;
        setp.ne.u32 %p0, %r8, 0;
        selp.f32 %f2, 0f3F800000, %f1, %p0;
        mov.b32 %r10, %f2;
        st.global.u32 [%rd7], %r10;";
    check("selp.f32 1.0 / reassigned -0", regs, body, 2, 128, |x| if x & 1 != 0 { 0x3f80_0000 } else { 0x8000_0000 });
}

/// The driver knows a loaded word that it forwards from the kernel's own store: a local word
/// stored as −0.0 (f32, and f64's high word) or −1.0 and selected against 1.0 or +0 came out
/// with the wrong sign (`b2f` and `-b2f` of the condition), both backends, in kernels without
/// float ops, whose stores `misread_constants` otherwise leaves alone; and a stored +0 opposite
/// a constant −1.0. §9.7.7.3: `selp` copies the chosen operand.
#[test]
fn misread_select_operands_loaded_from_own_stores() {
    let regs = ".local .align 8 .b8 loc[16];\n.reg .f64 %fd<4>;";
    let pick = |p: bool, a: u32, b: u32| if p { a } else { b };
    let cases: [(&str, &str, u32, u32); 4] = [
        ("-0.0 f32", "st.local.u32 [%rd8], 0x80000000; ld.local.u32 %r9, [%rd8]; selp.b32 %r10, 0x3f800000, %r9, %p0;", 0x3f80_0000, 0x8000_0000),
        ("-1.0 f32", "st.local.u32 [%rd8], 0xbf800000; ld.local.u32 %r9, [%rd8]; selp.b32 %r10, %r9, 0, %p0;", 0xbf80_0000, 0),
        ("+0 opposite -1.0", "st.local.u32 [%rd8], 0; ld.local.u32 %r9, [%rd8]; selp.b32 %r10, 0xbf800000, %r9, %p0;", 0xbf80_0000, 0),
        (
            "-0.0 f64",
            "st.local.f64 [%rd8], 0d8000000000000000; ld.local.f64 %fd1, [%rd8]; \
             selp.f64 %fd2, 0d3FF0000000000000, %fd1, %p0; mov.b64 {%r11, %r10}, %fd2;",
            0x3ff0_0000,
            0x8000_0000,
        ),
    ];
    for (name, select, if_odd, if_even) in cases {
        let body = format!(
            "mov.u64 %rd8, loc;\n and.b32 %r8, %r6, 1;\n setp.ne.u32 %p0, %r8, 0;\n {select}\n st.global.u32 [%rd7], %r10;"
        );
        check(name, regs, &body, 2, 128, |x| pick(x & 1 != 0, if_odd, if_even));
    }
}

/// The driver also knows values `lower` saw no constant in: a register set to the same −0.0
/// in both arms of a branch (a phi of equal constants), or in a loop and before it, or known
/// through its bits (`(x & 0x80000000) | 0x80000000`); selected against a constant 1.0, each
/// came out +0 (`b2f`) on both backends, f32 and f64 (the f64's high word checked). And a
/// `selp` of two equal −0.0 constants selected against 1.0: `lower` hid both with the same
/// zero, then the result again (the XORs cancelled). Also −1.0 of a phi (of a branch, of a
/// loop) against +0, and 1.0 and −0.0 both through phis. §9.7.7.3: `selp` copies the chosen operand.
#[test]
fn misread_select_operands_the_driver_derives() {
    let pick = |p: bool, a: u32, b: u32| if p { a } else { b };
    let regs = ".reg .f32 %f<4>;\n.reg .f64 %fd<4>;";
    let conds = "and.b32 %r9, %r6, 1; setp.ne.u32 %p0, %r9, 0;\n and.b32 %r9, %r6, 2; setp.ne.u32 %p1, %r9, 0;\n";
    // A diamond setting `set` in both arms, then `use_` reading it (result in %r11).
    let diamond = |set: &str, use_: &str| format!("{conds} @%p1 bra A;\n {set}\n bra J;\nA:\n {set}\nJ:\n {use_}\n st.global.u32 [%rd7], %r11;");
    let cases: Vec<(&str, String, u32, u32)> = vec![
        ("phi of -0.0 (b32)", diamond("mov.b32 %r10, 0x80000000;", "selp.b32 %r11, 0x3f800000, %r10, %p0;"), 0x3f80_0000, 0x8000_0000),
        ("phi of -0.0 (f32)", diamond("mov.f32 %f1, 0f80000000;", "selp.f32 %f2, 0f3F800000, %f1, %p0; mov.b32 %r11, %f2;"), 0x3f80_0000, 0x8000_0000),
        (
            "phi of -0.0 (f64)",
            diamond("mov.f64 %fd1, 0d8000000000000000;", "selp.f64 %fd2, 0d3FF0000000000000, %fd1, %p0; mov.b64 {%r12, %r11}, %fd2;"),
            0x3ff0_0000,
            0x8000_0000,
        ),
        ("phi of -1.0 against +0", diamond("mov.b32 %r10, 0xbf800000;", "selp.b32 %r11, %r10, 0, %p0;"), 0xbf80_0000, 0),
        (
            "phis of 1.0 and -0.0",
            diamond("mov.b32 %r10, 0x3f800000; mov.b32 %r12, 0x80000000;", "selp.b32 %r11, %r10, %r12, %p0;"),
            0x3f80_0000,
            0x8000_0000,
        ),
        (
            "-0.0 set in a loop and before it",
            format!(
                "{conds} and.b32 %r12, %r6, 3;\n mov.b32 %r10, 0x80000000;\n mov.u32 %r13, 0;\nL:\n mov.b32 %r10, 0x80000000;\n \
                 add.u32 %r13, %r13, 1;\n setp.lt.u32 %p1, %r13, %r12;\n @%p1 bra L;\n \
                 selp.b32 %r11, 0x3f800000, %r10, %p0;\n st.global.u32 [%rd7], %r11;"
            ),
            0x3f80_0000,
            0x8000_0000,
        ),
        (
            "-1.0 set in a loop and before it, against +0",
            format!(
                "{conds} and.b32 %r12, %r6, 3;\n mov.u32 %r13, 0;\n mov.b32 %r10, 0xbf800000;\nL:\n mov.b32 %r10, 0xbf800000;\n \
                 add.u32 %r13, %r13, 1;\n setp.lt.u32 %p1, %r13, %r12;\n @%p1 bra L;\n \
                 selp.b32 %r11, %r10, 0, %p0;\n st.global.u32 [%rd7], %r11;"
            ),
            0xbf80_0000,
            0,
        ),
        (
            "-0.0 through known bits",
            format!("{conds} and.b32 %r8, %r6, 0x80000000;\n or.b32 %r8, %r8, 0x80000000;\n selp.b32 %r11, 0x3f800000, %r8, %p0;\n st.global.u32 [%rd7], %r11;"),
            0x3f80_0000,
            0x8000_0000,
        ),
        (
            "selp of two equal -0.0",
            format!(
                "{conds} mov.b32 %r12, 0x80000000;\n mov.b32 %r13, %r12;\n selp.b32 %r8, %r12, %r13, %p1;\n \
                 selp.b32 %r11, 0x3f800000, %r8, %p0;\n st.global.u32 [%rd7], %r11;"
            ),
            0x3f80_0000,
            0x8000_0000,
        ),
    ];
    for (name, body, if_odd, if_even) in cases {
        check(name, regs, &body, 2, 128, |x| pick(x & 1 != 0, if_odd, if_even));
    }
}

/// Sub-word stores build a word the driver can know (local memory: a read-modify-write it
/// forwards; shared: atomics, which it does not): a −0.0 assembled from a zero word and a
/// 16- or 8-bit store of its top bits, selected against 1.0. §9.7.9.9: `st` of a `.u16`/`.u8`
/// writes those bytes only.
#[test]
fn misread_select_operands_from_sub_word_stores() {
    for (space, decl, offset) in [
        ("local", ".local .align 8 .b8 loc[16];", ""),
        ("shared", ".shared .align 8 .b8 loc[512];", "mul.wide.u32 %rd9, %r1, 8; add.s64 %rd8, %rd8, %rd9;"),
    ] {
        for store in ["st.SP.u32 [%rd8], 0; st.SP.u16 [%rd8+2], 0x8000;", "st.SP.u32 [%rd8], 0; st.SP.u8 [%rd8+3], 0x80;"] {
            let body = format!(
                "mov.u64 %rd8, loc; {offset}\n and.b32 %r8, %r6, 1; setp.ne.u32 %p0, %r8, 0;\n {}\n \
                 ld.{space}.u32 %r9, [%rd8];\n selp.b32 %r10, 0x3f800000, %r9, %p0;\n st.global.u32 [%rd7], %r10;",
                store.replace("SP", space)
            );
            check(&format!("{space}: {store}"), decl, &body, 2, 64, |x| if x & 1 != 0 { 0x3f80_0000 } else { 0x8000_0000 });
        }
    }
}

/// A named kernel body and the model of its output word.
type Case<'a> = (&'a str, String, Box<dyn Fn(u32) -> u32>);

/// Runs each `(name, body, model)` with [`check`] and reports every case that fails (not only
/// the first), so one run shows which shapes a driver misreads.
fn check_each(regs: &str, cases: Vec<Case>) {
    let mut failed = Vec::new();
    for (name, body, model) in cases {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(name, regs, &body, 2, 64, &*model)));
        if let Err(e) = r {
            let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
            failed.push(format!("{name}: {msg}"));
        }
    }
    assert!(failed.is_empty(), "{} case(s) wrong:\n{}", failed.len(), failed.join("\n"));
}

/// A −1.0 the driver derives where `lower` sees no constant, opposite a +0 (`select(c, -1.0,
/// 0.0)` becomes `-b2f(c)`: −0 where PTX gives +0), and the other shapes of the class:
/// known bits, a local read-modify-write, `min`/`max` whose result the driver knows, a word
/// stored to shared memory and loaded back, a value an equality test guards, f64 (the high
/// word checked), f16 in a 32-bit register, and `min.f16` of a half the driver knows to be −0
/// against +0 (the min's both-zero select). Each is the PTX of the case, modelled here from
/// §9.7.7.3 (`selp` copies the chosen operand), §9.7.3.10/11 (`min`/`max` of integers),
/// §9.7.4.10 (`min.f16`: −0 < +0) and §9.7.9.8/9 (`ld`/`st`).
#[test]
fn misread_selects_of_a_driver_derived_one_opposite_zero() {
    let regs = ".reg .f64 %fd<4>;\n.reg .b16 %h<8>;\n.local .align 8 .b8 loc[16];\n.shared .align 8 .b8 sh[512];";
    let p0 = "and.b32 %r9, %r6, 1; setp.ne.u32 %p0, %r9, 0;\n";
    let store = "st.global.u32 [%rd7], %r11;";
    // −1.0 (or 1.0) from known bits, whatever the input.
    let m1 = "and.b32 %r8, %r6, 0xbf800000; or.b32 %r8, %r8, 0xbf800000;\n";
    let pick = |p: bool, a: u32, b: u32| if p { a } else { b };
    let cases: Vec<Case> = vec![
        ("-1.0 through known bits, +0", format!("{p0}{m1} selp.b32 %r11, %r8, 0, %p0; {store}"), Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0))),
        ("+0, -1.0 through known bits", format!("{p0}{m1} selp.b32 %r11, 0, %r8, %p0; {store}"), Box::new(move |x| pick(x & 1 != 0, 0, 0xbf80_0000))),
        (
            "1.0 through known bits, -0.0 through known bits",
            format!("{p0} and.b32 %r8, %r6, 0x3f800000; or.b32 %r8, %r8, 0x3f800000;\n and.b32 %r10, %r6, 0x80000000; or.b32 %r10, %r10, 0x80000000;\n selp.b32 %r11, %r8, %r10, %p0; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0x3f80_0000, 0x8000_0000)),
        ),
        (
            "-1.0 of a local read-modify-write, +0",
            format!("{p0} mov.u64 %rd8, loc; st.local.u32 [%rd8], 0; st.local.u16 [%rd8+2], 0xbf80;\n ld.local.u32 %r8, [%rd8];\n selp.b32 %r11, %r8, 0, %p0; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "-1.0 through min.u32, +0",
            format!("{p0} or.b32 %r8, %r6, 0xbf800000; min.u32 %r8, %r8, 0xbf800000;\n selp.b32 %r11, %r8, 0, %p0; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "-1.0 through max.s32, +0",
            format!("{p0} and.b32 %r8, %r6, 0xbf800000; max.s32 %r8, %r8, 0xbf800000; or.b32 %r8, %r8, 0xbf800000;\n selp.b32 %r11, %r8, 0, %p0; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "-1.0 through shared memory, +0",
            format!("{p0}{m1} mov.u64 %rd8, sh; mul.wide.u32 %rd9, %r1, 4; add.s64 %rd8, %rd8, %rd9;\n st.shared.u32 [%rd8], %r8; ld.shared.u32 %r10, [%rd8];\n selp.b32 %r11, %r10, 0, %p0; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "a value an equality test guards (+-1.0), +0",
            format!(
                "{p0} and.b32 %r8, %r6, 0x80000000; or.b32 %r8, %r8, 0x3f800000;\n setp.eq.u32 %p1, %r8, 0xbf800000;\n @!%p1 bra S;\n \
                 selp.b32 %r11, %r8, 0, %p0;\n bra J;\nS:\n selp.b32 %r11, %r8, 0, %p0;\nJ:\n {store}"
            ),
            Box::new(move |x| pick(x & 1 != 0, (x & 0x8000_0000) | 0x3f80_0000, 0)),
        ),
        (
            "-1.0 f64 through known bits, +0",
            format!("{p0}{m1} and.b32 %r8, %r8, 0xbff00000; or.b32 %r8, %r8, 0xbff00000; and.b32 %r10, %r6, 0;\n mov.b64 %fd1, {{%r10, %r8}};\n selp.f64 %fd2, %fd1, 0d0000000000000000, %p0;\n mov.b64 {{%r12, %r11}}, %fd2; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xbff0_0000, 0)),
        ),
        (
            "+0 f64, -1.0 through known bits",
            format!("{p0}{m1} and.b32 %r8, %r8, 0xbff00000; or.b32 %r8, %r8, 0xbff00000; and.b32 %r10, %r6, 0;\n mov.b64 %fd1, {{%r10, %r8}};\n selp.f64 %fd2, 0d0000000000000000, %fd1, %p0;\n mov.b64 {{%r12, %r11}}, %fd2; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0, 0xbff0_0000)),
        ),
        (
            "-1.0 f16 through known bits, +0",
            format!("{p0} and.b32 %r8, %r6, 0xbc00; or.b32 %r8, %r8, 0xbc00; and.b32 %r8, %r8, 0xffff;\n mov.b32 {{%h1, %h2}}, %r8;\n selp.b16 %h3, %h1, 0, %p0;\n cvt.u32.u16 %r11, %h3; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xbc00, 0)),
        ),
        (
            "min.f16 of -0 through known bits and +0",
            format!("{p0} and.b32 %r8, %r6, 0x8000; or.b32 %r8, %r8, 0x8000;\n mov.b32 {{%h1, %h2}}, %r8;\n mov.b16 %h4, 0;\n min.f16 %h3, %h4, %h1;\n cvt.u32.u16 %r11, %h3; {store}"),
            Box::new(move |_| min_max_bits(true, 16, 0, 0x8000, false)),
        ),
    ];
    check_each(regs, cases);
}

/// Mesa also moves integer and float adds and multiplies by a constant into a select with a
/// constant operand (`iadd(bcsel(c, #b, x), #d)` → `bcsel(c, b + d, x + d)`), so a select of
/// two harmless constants becomes one of −1.0 and +0 (or 1.0 and −0.0) after `mul.lo`/`add`,
/// and then `-b2f(c)` (or `b2f(c)`). And a register set to −1.0 in one arm of a branch and
/// to +0 in the other becomes such a select (the driver's phi, turned into a select).
/// §9.7.1.1/§9.7.1.3 (`add`, `mul.lo` wrap), §9.7.7.3 (`selp`).
#[test]
fn misread_selects_made_by_the_driver() {
    let p0 = "and.b32 %r9, %r6, 1; setp.ne.u32 %p0, %r9, 0;\n";
    let store = "st.global.u32 [%rd7], %r11;";
    let pick = |p: bool, a: u32, b: u32| if p { a } else { b };
    // 5·D + E = 0xbf800000 and 7·D + E = 0 (mod 2^32); 0xea800000 · 3 = 0xbf800000.
    let (d, e) = (0x2040_0000u32, 0x1e40_0000u32);
    assert_eq!((5u32.wrapping_mul(d).wrapping_add(e), 7u32.wrapping_mul(d).wrapping_add(e)), (0xbf80_0000, 0));
    assert_eq!(0xea80_0000u32.wrapping_mul(3), 0xbf80_0000);
    let cases: Vec<Case> = vec![
        (
            "selp of 0x3f7ffffb and 0x7ffffffb, add 5",
            format!("{p0} selp.b32 %r10, 0x3f7ffffb, 0x7ffffffb, %p0; add.u32 %r11, %r10, 5; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0x3f7f_fffb, 0x7fff_fffb).wrapping_add(5)),
        ),
        (
            "selp of 0xea800000 and 0, mul.lo 3",
            format!("{p0} selp.b32 %r10, 0xea800000, 0, %p0; mul.lo.u32 %r11, %r10, 3; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xea80_0000, 0).wrapping_mul(3)),
        ),
        (
            "selp of 5 and 7, mul.lo and add",
            format!("{p0} selp.b32 %r10, 5, 7, %p0; mul.lo.u32 %r10, %r10, {d}; add.u32 %r11, %r10, {e}; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 5, 7).wrapping_mul(d).wrapping_add(e)),
        ),
        (
            "phi of -1.0 and +0",
            format!("{p0} @%p0 bra A;\n mov.b32 %r11, 0;\n bra J;\nA:\n mov.b32 %r11, 0xbf800000;\nJ:\n {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "phi of 1.0 and -0.0",
            format!("{p0} @%p0 bra A;\n mov.b32 %r11, 0x80000000;\n bra J;\nA:\n mov.b32 %r11, 0x3f800000;\nJ:\n {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0x3f80_0000, 0x8000_0000)),
        ),
        (
            "-1.0 set in a loop of one trip left early, +0 before it",
            format!(
                "{p0} mov.b32 %r11, 0; mov.u32 %r13, 0;\nL:\n @%p0 bra X;\n mov.b32 %r11, 0xbf800000;\n add.u32 %r13, %r13, 1;\n \
                 setp.lt.u32 %p1, %r13, 1;\n @%p1 bra L;\nX:\n {store}"
            ),
            Box::new(move |x| pick(x & 1 != 0, 0, 0xbf80_0000)),
        ),
        (
            "phi of -1.0 through known bits and +0",
            format!("{p0} and.b32 %r8, %r6, 0xbf800000; or.b32 %r8, %r8, 0xbf800000;\n @%p0 bra A;\n mov.b32 %r11, 0;\n bra J;\nA:\n mov.b32 %r11, %r8;\nJ:\n {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
    ];
    check_each("", cases);
}

/// Values the driver may merge into a select that are no `if`'s arms: a register set to −1.0
/// (or 1.0) before a loop's early exit and to +0 (or −0) before its other exit (the loop's
/// exit phi; unrolled when the trip count is constant, its ifs flattened into selects), a
/// `brx.idx` switch whose cases set the two constants (SPIR-V's switch becomes ifs in the
/// driver), and two branches that each store one of the constants to the same word.
/// §9.7.7.3, §9.7.8.2 (`brx.idx`: branch to the target the index names), §9.7.9.9 (`st`).
#[test]
fn misread_values_leaving_loops_and_switches() {
    let p0 = "and.b32 %r9, %r6, 1; setp.ne.u32 %p0, %r9, 0;\n";
    let store = "st.global.u32 [%rd7], %r11;";
    let pick = |p: bool, a: u32, b: u32| if p { a } else { b };
    // `r = A; if (p) goto J; r = B;` repeated `trips` times: A when p, else B.
    let two_exits = |a: u32, b: u32, trips: &str| {
        format!(
            "{p0} mov.u32 %r13, 0;\nL:\n mov.b32 %r11, {a:#x};\n @%p0 bra J;\n mov.b32 %r11, {b:#x};\n add.u32 %r13, %r13, 1;\n \
             setp.lt.u32 %p1, %r13, {trips};\n @%p1 bra L;\nJ:\n {store}"
        )
    };
    let trips_of_x = "shr.u32 %r14, %r6, 1; and.b32 %r14, %r14, 3; add.u32 %r14, %r14, 1;\n";
    let cases: Vec<Case> = vec![
        ("-1.0 at a loop's early exit, +0 at its end (3 trips)", two_exits(0xbf80_0000, 0, "3"), Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0))),
        ("+0 at a loop's early exit, -1.0 at its end (3 trips)", two_exits(0, 0xbf80_0000, "3"), Box::new(move |x| pick(x & 1 != 0, 0, 0xbf80_0000))),
        ("1.0 at a loop's early exit, -0.0 at its end (1 trip)", two_exits(0x3f80_0000, 0x8000_0000, "1"), Box::new(move |x| pick(x & 1 != 0, 0x3f80_0000, 0x8000_0000))),
        ("-0.0 at a loop's early exit, 1.0 at its end (2 trips)", two_exits(0x8000_0000, 0x3f80_0000, "2"), Box::new(move |x| pick(x & 1 != 0, 0x8000_0000, 0x3f80_0000))),
        (
            "-1.0 at a loop's early exit, +0 at its end (trips from the input)",
            format!("{trips_of_x}{}", two_exits(0xbf80_0000, 0, "%r14")),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "a loop's two exits to two blocks setting -1.0 and +0 (2 trips)",
            format!(
                "{p0} mov.u32 %r13, 0;\nL:\n @%p0 bra A;\n add.u32 %r13, %r13, 1;\n setp.lt.u32 %p1, %r13, 2;\n @%p1 bra L;\n \
                 mov.b32 %r11, 0;\n bra J;\nA:\n mov.b32 %r11, 0xbf800000;\nJ:\n {store}"
            ),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "an inner loop's exit to the outer loop's exit with -1.0, +0 at the end",
            format!(
                "{p0} mov.u32 %r13, 0; mov.b32 %r11, 0;\nO:\n mov.u32 %r15, 0;\nI:\n @%p0 bra X;\n add.u32 %r15, %r15, 1;\n setp.lt.u32 %p2, %r15, 2;\n @%p2 bra I;\n \
                 add.u32 %r13, %r13, 1;\n setp.lt.u32 %p1, %r13, 2;\n @%p1 bra O;\n bra J;\nX:\n mov.b32 %r11, 0xbf800000;\nJ:\n {store}"
            ),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "nested branches: -1.0 when both hold, +0 otherwise (a shared else)",
            format!(
                "{p0} and.b32 %r10, %r6, 2; setp.ne.u32 %p1, %r10, 0;\n @!%p1 bra Z;\n @!%p0 bra Z;\n mov.b32 %r11, 0xbf800000;\n bra J;\nZ:\n mov.b32 %r11, 0;\nJ:\n {store}"
            ),
            Box::new(move |x| pick(x & 3 == 3, 0xbf80_0000, 0)),
        ),
        (
            "nested branches: -1.0 when both hold, +0 in either else",
            format!(
                "{p0} and.b32 %r10, %r6, 2; setp.ne.u32 %p1, %r10, 0;\n @!%p1 bra Z;\n @!%p0 bra Y;\n mov.b32 %r11, 0xbf800000;\n bra J;\nY:\n mov.b32 %r11, 0;\n bra J;\nZ:\n mov.b32 %r11, 0;\nJ:\n {store}"
            ),
            Box::new(move |x| pick(x & 3 == 3, 0xbf80_0000, 0)),
        ),
        (
            "three nested branches: -1.0 when all hold, +0 in each else",
            format!(
                "{p0} and.b32 %r10, %r6, 2; setp.ne.u32 %p1, %r10, 0; and.b32 %r10, %r6, 4; setp.ne.u32 %p2, %r10, 0;\n \
                 @!%p1 bra Z;\n @!%p0 bra Y;\n @!%p2 bra X;\n mov.b32 %r11, 0xbf800000;\n bra J;\nX:\n mov.b32 %r11, 0;\n bra J;\nY:\n mov.b32 %r11, 0;\n bra J;\nZ:\n mov.b32 %r11, 0;\nJ:\n {store}"
            ),
            Box::new(move |x| pick(x & 7 == 7, 0xbf80_0000, 0)),
        ),
        (
            "nested branches: f32 registers, -1.0 when both hold, +0 in either else",
            format!(
                "{p0} and.b32 %r10, %r6, 2; setp.ne.u32 %p1, %r10, 0;\n @!%p1 bra Z;\n @!%p0 bra Y;\n mov.f32 %f1, 0fBF800000;\n bra J;\nY:\n mov.f32 %f1, 0f00000000;\n bra J;\nZ:\n mov.f32 %f1, 0f00000000;\nJ:\n \
                 mov.b32 %r11, %f1; {store}"
            ),
            Box::new(move |x| pick(x & 3 == 3, 0xbf80_0000, 0)),
        ),
        (
            "nested branches: f64 1.0 when both hold, -0.0 in either else (high word)",
            format!(
                "{p0} and.b32 %r10, %r6, 2; setp.ne.u32 %p1, %r10, 0;\n @!%p1 bra Z;\n @!%p0 bra Y;\n mov.b64 %rd9, 0x3ff0000000000000;\n bra J;\nY:\n mov.b64 %rd9, 0x8000000000000000;\n bra J;\nZ:\n mov.b64 %rd9, 0x8000000000000000;\nJ:\n \
                 mov.b64 {{%r12, %r11}}, %rd9; {store}"
            ),
            Box::new(move |x| pick(x & 3 == 3, 0x3ff0_0000, 0x8000_0000)),
        ),
        (
            "-1.0 from cvt.rn.f32.s32 of -1 in one arm, +0 in the other",
            format!("{p0} mov.u32 %r12, -1;\n @%p0 bra A;\n mov.b32 %r11, 0;\n bra J;\nA:\n cvt.rn.f32.s32 %f1, %r12;\n mov.b32 %r11, %f1;\nJ:\n {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "-1.0 from neg.f32 of 1.0 in one arm, +0 from cvt of 0 in the other",
            format!("{p0} mov.f32 %f2, 0f3F800000;\n @%p0 bra A;\n mov.u32 %r12, 0; cvt.rn.f32.u32 %f1, %r12;\n bra J;\nA:\n neg.f32 %f1, %f2;\nJ:\n mov.b32 %r11, %f1; {store}"),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "slct of 1.0 and -0.0 on the input's sign",
            format!("slct.f32.s32 %f1, 0f3F800000, 0f80000000, %r6;\n mov.b32 %r11, %f1; {store}"),
            Box::new(move |x| pick((x as i32) >= 0, 0x3f80_0000, 0x8000_0000)),
        ),
        (
            "slct of -1.0 and +0 from integer registers on the input's sign",
            format!("mov.u32 %r12, 0xbf800000; mov.u32 %r13, 0;\n slct.b32.s32 %r11, %r12, %r13, %r6;\n {store}"),
            Box::new(move |x| pick((x as i32) >= 0, 0xbf80_0000, 0)),
        ),
        (
            "-1.0 and +0 set before two continues of a 2-trip loop, read after it",
            format!(
                "{p0} mov.b32 %r11, 0x3f800000; mov.u32 %r13, 0;\nL:\n add.u32 %r13, %r13, 1;\n setp.gt.u32 %p1, %r13, 2;\n @%p1 bra J;\n @%p0 bra C;\n \
                 mov.b32 %r11, 0;\n bra L;\nC:\n mov.b32 %r11, 0xbf800000;\n bra L;\nJ:\n {store}"
            ),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "1.0 and -0.0 set before two continues of a loop whose trip count is the input's, read after it",
            format!(
                "{p0} shr.u32 %r14, %r6, 1; and.b32 %r14, %r14, 3; add.u32 %r14, %r14, 1;\n mov.b32 %r11, 0; mov.u32 %r13, 0;\nL:\n add.u32 %r13, %r13, 1;\n setp.gt.u32 %p1, %r13, %r14;\n @%p1 bra J;\n @%p0 bra C;\n \
                 mov.b32 %r11, 0x80000000;\n bra L;\nC:\n mov.b32 %r11, 0x3f800000;\n bra L;\nJ:\n {store}"
            ),
            Box::new(move |x| pick(x & 1 != 0, 0x3f80_0000, 0x8000_0000)),
        ),
        (
            "brx.idx cases setting -1.0 and +0",
            format!(
                "and.b32 %r9, %r6, 1;\n TS: .branchtargets A, B;\n brx.idx %r9, TS;\nA:\n mov.b32 %r11, 0;\n bra J;\nB:\n mov.b32 %r11, 0xbf800000;\n bra J;\nJ:\n {store}"
            ),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
        (
            "brx.idx of three cases setting 1.0, -0.0, 1.0",
            format!(
                "and.b32 %r9, %r6, 3; min.u32 %r9, %r9, 2;\n TS: .branchtargets A, B, C;\n brx.idx %r9, TS;\nA:\n mov.b32 %r11, 0x3f800000;\n bra J;\nB:\n mov.b32 %r11, 0x80000000;\n bra J;\nC:\n mov.b32 %r11, 0x3f800000;\nJ:\n {store}"
            ),
            Box::new(move |x| if (x & 3).min(2) == 1 { 0x8000_0000 } else { 0x3f80_0000 }),
        ),
        (
            "-1.0 and +0 stored by two branches",
            format!("{p0} @%p0 bra A;\n st.global.u32 [%rd7], 0;\n bra J;\nA:\n st.global.u32 [%rd7], 0xbf800000;\nJ:\n"),
            Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0)),
        ),
    ];
    check_each(".reg .f32 %f<4>;", cases);
}

/// NVIDIA's Vulkan driver 580.159 (H100, H200) computed `(i64)(i32)x << 31` as `-(x << 31)` on
/// both backends (clang's `__hadd`; cudafuzz case 0xc0da5001): `lower`'s `narrowed_shifts`
/// hides the amount. Here: that shape and its neighbours (`shl` by 30 and 32, a multiply by
/// 2^31, `mul.wide.s32` by 2^30), each folded into the output word, against 64-bit CPU
/// arithmetic. lavapipe computes them right without the workaround, so this guards the values;
/// `lower/tests/narrowed_shifts.rs` guards the hiding.
#[test]
fn wide_shifts_by_31_of_sign_extended_values() {
    let body = "
        cvt.s64.s32 %rd8, %r6;
        shl.b64 %rd9, %rd8, 31;
        add.s64 %rd9, %rd9, 96608846872576;
        shr.s64 %rd9, %rd9, 32;
        cvt.u32.u64 %r10, %rd9;
        shl.b64 %rd10, %rd8, 30;
        shl.b64 %rd11, %rd8, 32;
        xor.b64 %rd10, %rd10, %rd11;
        mul.lo.s64 %rd11, %rd8, 2147483648;
        xor.b64 %rd10, %rd10, %rd11;
        mul.wide.s32 %rd11, %r6, 1073741824;
        xor.b64 %rd10, %rd10, %rd11;
        shr.u64 %rd11, %rd10, 29;
        cvt.u32.u64 %r11, %rd11;
        xor.b32 %r10, %r10, %r11;
        cvt.u32.u64 %r11, %rd10;
        add.s32 %r10, %r10, %r11;
        st.global.u32 [%rd7], %r10;";
    check("wide shifts by 31", "", body, 2, 64, |x| {
        let s = x as i32 as i64;
        let hadd = ((s << 31).wrapping_add(96_608_846_872_576) >> 32) as u32;
        let mix = (s << 30) ^ (s << 32) ^ s.wrapping_mul(1 << 31) ^ s.wrapping_mul(1 << 30);
        (hadd ^ ((mix as u64) >> 29) as u32).wrapping_add(mix as u32)
    });
}

/// An unknown zero the driver learns from a switch: the structurizer's exit selector left a
/// loop as `0 + z` at every `break` the driver kept (the fourth, `@!%p3` after `@%p3`, is
/// dead to it), so in case 0 of `switch (0 + z)` it knew `z = 0` (`nir_opt_if`'s
/// `opt_if_rewrite_uniform_uses`) and every value hidden with `z` there: `selp.u32 r,
/// 0xbf800000, 0, p` gave 0x80000000 where `p` is false (`-b2f(p)`), and `1.0, -0.0` gave +0,
/// SPIR-V on lavapipe (differential cases `seed-000000005a12045c` and `…5a120186`, where
/// the zero hid a `bfi.b64`'s mask). A zero shared by all equality-tested variables was
/// not enough: there, a register that `setp.eq` reads and a branch sets to −1.0 or +0 came out
/// −0 too. §9.7.7.3: `selp` copies the chosen operand; §9.7.3.1 (`setp.eq`), §9.7.8.1 (`bra`).
#[test]
fn misread_selects_after_a_switch_on_a_loop_exit() {
    let after_loop = |tail: &str| {
        format!(
            "and.b32 %r9, %r6, 1; setp.ne.u32 %p0, %r9, 0; and.b32 %r9, %r6, 8; setp.ne.u32 %p3, %r9, 0;\n \
             shr.u32 %r13, %r6, 4; and.b32 %r13, %r13, 3;\nL:\n setp.eq.u32 %p1, %r13, 0;\n @%p1 bra D;\n @%p3 bra D;\n \
             @!%p3 bra C;\n st.global.u32 [%rd7], 7;\n ret;\nC:\n sub.u32 %r13, %r13, 1;\n bra L;\nD:\n {tail}"
        )
    };
    let selp = |a: u32, b: u32| after_loop(&format!("selp.u32 %r11, {a:#x}, {b:#x}, %p0;\n st.global.u32 [%rd7], %r11;"));
    // −1.0 or +0 from a branch, then `| 16` where the register is not 0.
    let tested = after_loop(
        "@%p0 bra A;\n mov.b32 %r11, 0;\n bra J;\nA:\n mov.b32 %r11, 0xbf800000;\nJ:\n setp.eq.u32 %p2, %r11, 0;\n \
         selp.u32 %r12, 0, 16, %p2;\n or.b32 %r11, %r11, %r12;\n st.global.u32 [%rd7], %r11;",
    );
    let pick = |p: bool, a: u32, b: u32| if p { a } else { b };
    let cases: Vec<Case> = vec![
        ("-1.0 or +0 after the loop", selp(0xbf80_0000, 0), Box::new(move |x| pick(x & 1 != 0, 0xbf80_0000, 0))),
        ("1.0 or -0.0 after the loop", selp(0x3f80_0000, 0x8000_0000), Box::new(move |x| pick(x & 1 != 0, 0x3f80_0000, 0x8000_0000))),
        ("a tested register set to -1.0 or +0 after the loop", tested, Box::new(move |x| pick(x & 1 != 0, 0xbf80_0010, 0))),
    ];
    check_each("", cases);
}

/// lavapipe 22.3.6 (Debian 12) abandoned a thread that passed a memory fence more often than
/// the rest of its workgroup: `OpMemoryBarrier` of any scope and semantics, and atomics with
/// acquire/release semantics, suspend the thread's coroutine there (as a control barrier
/// would), and the workgroup's scheduler stops once another coroutine has finished, so the
/// code after the fences never ran (a relaxed atomic in its place was right). audit10 found it
/// (`simt_atomics a_device_fence_in_a_loop_one_thread_runs`); the host probes for it
/// (`Gpu::fences_lose_threads`) and such drivers get each fence as an atomic add of 0 to the
/// heap's sink word, which gallivm compiles as a sequentially consistent `atomicrmw`.
/// Here thread t of each 64-thread CTA runs t·(CTA+1) iterations of a loop with a
/// `fence.sc.gpu`, summing t+i, and stores the sum and its trip count.
#[test]
fn fences_that_threads_of_a_workgroup_pass_unequally_often() {
    let Some(gpu) = ptxcross_tests::launch::gpu_or_skip() else { return };
    let ptx = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry fences(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    add.s32 %r5, %r2, 1;
    mul.lo.s32 %r5, %r5, %r1;
    mov.u32 %r10, 0;
    mov.u32 %r13, 0;
    setp.eq.u32 %p1, %r5, 0;
    @%p1 bra STORE;
LOOP:
    add.s32 %r11, %r1, %r10;
    fence.sc.gpu;
    add.s32 %r13, %r13, %r11;
    add.s32 %r10, %r10, 1;
    setp.lt.u32 %p1, %r10, %r5;
    @%p1 bra LOOP;
STORE:
    mul.wide.u32 %rd2, %r4, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v2.u32 [%rd3], {%r13, %r10};
    ret;
}
";
    let (block, grid) = (64u32, 3u32);
    let launch = ptxcross_tests::launch::Launch {
        ptx,
        kernel: "fences",
        block: [block, 1, 1],
        grid: [grid, 1, 1],
        buffers: vec![vec![0; (block * grid * 8) as usize]],
    };
    let out = ptxcross_tests::launch::run(&gpu, &launch, ptxcross::Backend::Spirv).unwrap_or_else(|e| panic!("{e}"));
    let got = ptxcross_tests::launch::words(&out[0]);
    let mut bad = Vec::new();
    for cta in 0..grid {
        for t in 0..block {
            let n = t * (cta + 1);
            let sum = (0..n).fold(0u32, |a, i| a.wrapping_add(t + i));
            let g = ((cta * block + t) * 2) as usize;
            if got[g..g + 2] != [sum, n] {
                bad.push(format!("CTA {cta} thread {t}: {:?}, expected {:?}", &got[g..g + 2], [sum, n]));
            }
        }
    }
    assert!(bad.is_empty(), "{} threads wrong, first: {:?}", bad.len(), &bad[..bad.len().min(4)]);
    // WGSL has no such fences (it refuses them), so only SPIR-V is probed.
    assert!(!gpu.fences_lose_threads(ptxcross::Backend::Wgsl));
}

/// llvmpipe (lavapipe 22.3.6) runs a CTA whose size is not a multiple of its SIMD width (8) with
/// lanes that belong to no thread in the last vector: their loads read 0, yet they keep a loop
/// running until they leave it, and its loop limiter (65,535 back-edges per vector, shared by
/// all loops, `lower/src/loop_cut.rs`) then cuts every later loop of the vector's threads. A
/// loop that waits for a value the thread stores itself (a countdown in its own global word:
/// 5 trips for a thread, never ending for such a lane) spent the whole limit, and the counted
/// loop after it stopped after one trip: the loop-cut check faulted (issue 10; the call stack's
/// return dispatch, which waits for the return id it pushed, did the same). `lower` makes such
/// lanes leave at the kernel's start. CTAs of 20 threads: 16 + 4 in lavapipe's vectors.
#[test]
fn a_loop_waiting_for_its_own_store_in_a_cta_of_no_whole_simd_vectors() {
    let body = "
        st.global.u32 [%rd7], 5;
    WAIT:
        ld.volatile.global.u32 %r7, [%rd7];
        sub.u32 %r7, %r7, 1;
        st.volatile.global.u32 [%rd7], %r7;
        setp.ne.u32 %p1, %r7, 0;
        @%p1 bra WAIT;
        mov.u32 %r8, 0;
    STEP:
        mad.lo.u32 %r6, %r6, 3, 1;
        add.u32 %r8, %r8, 1;
        setp.lt.u32 %p2, %r8, 20;
        @%p2 bra STEP;
        st.global.u32 [%rd7], %r6;";
    check("a wait for the thread's own store, then a counted loop", "", body, 2, 20, |x| {
        (0..20).fold(x, |v, _| v.wrapping_mul(3).wrapping_add(1))
    });
}
