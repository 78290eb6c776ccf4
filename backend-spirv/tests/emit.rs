mod common;

use common::*;

#[test]
fn vecadd_validates() {
    let m = module(vec![vecadd()]);
    let words = check(&m);
    let text = ptxcross_spirv::disassemble(&words);
    assert!(text.contains("OpEntryPoint GLCompute"), "{text}");
    eprintln!("{text}");
}

#[test]
fn vecadd_naga() {
    let words = check(&module(vec![vecadd()]));
    naga_check(&words).unwrap();
}
