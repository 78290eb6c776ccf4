//! A kernel parameter's address (`mov.b64 %rd, param`) read back through `ld.param [%rd+k]`,
//! as nvcc writes for CUB's by-value structs, and the instructions that emit nothing
//! (`prefetch`, `nanosleep`), run in the reference interpreter against the parameters' values.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::interp::Machine;
use ptxcross_lower::{abi, lower, LowerOptions};

#[test]
fn parameter_addresses_read_the_parameters() {
    let ptx = "
.version 8.5
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .align 8 .b8 s[24], .param .u32 n)
{
    .reg .b64 %rd<8>;
    .reg .b32 %r<4>;
    .reg .b16 %rs<2>;
    mov.b64 %rd1, s;
    ld.param.u64 %rd2, [%rd1+8];
    ld.param.u8 %rs1, [%rd1];
    ld.param.u32 %r1, [%rd1+20];
    mov.b64 %rd3, n;
    ld.param.u32 %r2, [%rd3];
    ld.param.u64 %rd4, [out];
    prefetch.global.L2 [%rd4];
    prefetchu.L1 [%rd4+8];
    nanosleep.u32 100;
    nanosleep.u32 %r2;
    st.global.u64 [%rd4], %rd2;
    cvt.u32.u16 %r3, %rs1;
    st.global.u32 [%rd4+8], %r3;
    st.global.u32 [%rd4+12], %r1;
    st.global.u32 [%rd4+16], %r2;
    ret;
}
";
    let file = SourceFile::new("param.ptx", ptx);
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    let module = lower(&ast, &file, &LowerOptions { block: Some([1, 1, 1]), ..Default::default() })
        .unwrap_or_else(|e| panic!("lower: {}", e[0].render(&file)));
    let k = &module.kernels[0];
    let mut m = Machine::new(k.vars.len());
    let out_word = abi::HEAP_RESERVED_WORDS as usize;
    m.heap.resize(out_word + 8, 0);
    let out_addr = abi::HEAP_BASE + out_word as u64 * 4;
    // Parameter area: out (8 bytes), s (24 bytes at offset 8), n (4 bytes at offset 32).
    let mut bytes = vec![0u8; 36];
    bytes[..8].copy_from_slice(&out_addr.to_le_bytes());
    let s: Vec<u8> = (0..24u8).map(|i| i.wrapping_mul(37).wrapping_add(5)).collect();
    bytes[8..32].copy_from_slice(&s);
    bytes[32..36].copy_from_slice(&0xdead_beefu32.to_le_bytes());
    m.params.truncate(abi::PARAM_HEADER_WORDS as usize);
    m.params.extend(bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())));
    m.run_block(&k.body);
    assert_eq!(m.faults, 0);
    let out = &m.heap[out_word..out_word + 5];
    let w = |i: usize| u32::from_le_bytes(s[i..i + 4].try_into().unwrap());
    assert_eq!(out, &[w(8), w(12), s[0] as u32, w(20), 0xdead_beef]);
}

/// `cvta.param` takes a kernel parameter (§9.7.10.19: `.param` is `.param::entry`); a device
/// function's own parameter, or a call's `.param` variable, has no generic address. (Kernel
/// parameter addresses inside device functions run end to end in
/// tests/tests/module_globals.rs.)
#[test]
fn cvta_param_of_a_device_function_parameter_is_an_error() {
    let ptx = "
.version 8.5
.target sm_80
.address_size 64
.func (.param .b32 r) f(.param .b32 a)
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    cvta.param.u64 %rd1, a;
    ld.u32 %r1, [%rd1];
    st.param.b32 [r], %r1;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [out];
    {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], 3;
    call (r0), f, (a0);
    ld.param.b32 %r1, [r0];
    }
    st.global.u32 [%rd1], %r1;
    ret;
}
";
    let file = SourceFile::new("param.ptx", ptx);
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    let err = lower(&ast, &file, &LowerOptions { block: Some([1, 1, 1]), ..Default::default() }).expect_err("refused");
    let text = err[0].render(&file);
    assert!(text.contains("`cvta.param` takes the address of a kernel parameter") && text.contains("param.ptx:9:26"), "{text}");
}
