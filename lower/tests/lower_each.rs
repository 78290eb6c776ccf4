//! `lower_each` (per-kernel modules sharing one analysis of the module's functions and globals)
//! gives exactly what `lower` with `kernel: Some(name)` gives, errors included.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::{lower, lower_each, LowerOptions};

const PTX: &str = "
.version 7.0
.target sm_70
.address_size 64
.global .u32 table[4] = {1, 2, 3, 4};
.func (.reg .u32 r) twice(.reg .u32 a)
{
    add.u32 r, a, a;
    ret;
}
.visible .entry first(.param .u64 out)
{
    .reg .u32 %r<3>;
    .reg .u64 %rd<3>;
    ld.param.u64 %rd1, [out];
    ld.global.u32 %r1, [table+4];
    call (%r2), twice, (%r1);
    st.global.u32 [%rd1], %r2;
    ret;
}
.visible .entry second(.param .u64 out, .param .u32 n)
{
    .reg .u32 %r<3>;
    .reg .u64 %rd<3>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
LOOP:
    add.u32 %r2, %r2, %r1;
    sub.u32 %r1, %r1, 1;
    setp.ne.u32 %p, %r1, 0;
    @%p bra LOOP;
    st.global.u32 [%rd1], %r2;
    ret;
}
.visible .entry broken(.param .u64 out)
{
    frobnicate.u32 %r1;
    ret;
}
";

#[test]
fn lower_each_equals_lower_per_kernel() {
    let file = SourceFile::new("each.ptx", PTX);
    let ast = parse(&file).expect("parses");
    let options = LowerOptions { block: Some([64, 1, 1]), ..LowerOptions::default() };
    let names: Vec<String> = ["first", "second", "broken", "missing"].map(String::from).to_vec();
    let each = lower_each(&ast, &file, &options, &names);
    assert_eq!(each.len(), names.len());
    for (name, got) in names.iter().zip(each) {
        let want = lower(&ast, &file, &LowerOptions { kernel: Some(name.clone()), ..options.clone() });
        match (&got, &want) {
            (Ok(g), Ok(w)) => {
                assert_eq!(g, w, "{name}");
                assert_eq!(g.kernels.len(), 1, "{name}");
                assert_eq!(g.kernels[0].name, *name);
            }
            (Err(g), Err(w)) => assert_eq!(format!("{g:?}"), format!("{w:?}"), "{name}"),
            _ => panic!("{name}: lower_each {:?} but lower {:?}", got.is_ok(), want.is_ok()),
        }
    }
    // The first two lower (so the comparison covers real modules), the others do not.
    let each = lower_each(&ast, &file, &options, &names);
    assert!(each[0].is_ok() && each[1].is_ok() && each[2].is_err() && each[3].is_err());
    assert!(!each[0].as_ref().unwrap().globals.init.is_empty(), "the globals segment is shared");
}
