//! `.reqntid` and `.maxntid` (PTX ISA §11.4.2–3): a launch whose block shape the kernel's
//! directive rules out fails on NVIDIA GPUs, so translating the kernel for such a shape is an
//! error that names the directive (it ran before, with `%ntid` the launch's shape, which a
//! kernel written for the required shape reads as wrong results). Without a block shape, the
//! default respects `.maxntid`.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::{lower, LowerOptions};

const PTX: &str = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry req(.param .u64 out) .reqntid 64, 2, 1
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ntid.x;
    st.global.u32 [%rd1], %r1;
    ret;
}
.visible .entry max(.param .u64 out) .maxntid 32, 2, 1
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ntid.x;
    st.global.u32 [%rd1], %r1;
    ret;
}
";

fn lowered(kernel: &str, block: Option<[u32; 3]>) -> Result<[u32; 3], String> {
    let file = SourceFile::new("blocks.ptx", PTX);
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    let options = LowerOptions { block, kernel: Some(kernel.into()), ..Default::default() };
    match lower(&ast, &file, &options) {
        Ok(m) => Ok(m.kernels[0].workgroup_size),
        Err(e) => Err(e[0].render(&file)),
    }
}

#[test]
fn reqntid_fixes_the_block_shape() {
    assert_eq!(lowered("req", None), Ok([64, 2, 1]));
    assert_eq!(lowered("req", Some([64, 2, 1])), Ok([64, 2, 1]));
    for other in [[128, 1, 1], [64, 1, 1], [32, 4, 1], [64, 2, 2]] {
        let e = lowered("req", Some(other)).expect_err("refused");
        assert!(e.contains("requires a block of [64, 2, 1] threads (.reqntid)") && e.contains("§11.4.3") && e.contains(":5:"), "{e}");
    }
}

#[test]
fn maxntid_bounds_the_threads_per_block() {
    // The default shape (256 threads) would exceed it: the default is its total instead.
    assert_eq!(lowered("max", None), Ok([64, 1, 1]));
    for fits in [[64, 1, 1], [8, 8, 1], [1, 1, 1], [16, 2, 2]] {
        assert_eq!(lowered("max", Some(fits)), Ok(fits));
    }
    for over in [[65, 1, 1], [32, 2, 2], [256, 1, 1]] {
        let e = lowered("max", Some(over)).expect_err("refused");
        assert!(e.contains("at most 64 threads per block (.maxntid)") && e.contains("§11.4.2") && e.contains(":14:"), "{e}");
    }
}
