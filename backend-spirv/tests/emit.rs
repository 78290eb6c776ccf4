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

#[test]
fn spirv_val_rejects_broken_modules() {
    let mut words = check(&module(vec![vecadd()]));
    // Drop the final OpFunctionEnd: no longer a valid module.
    words.pop();
    assert!(ptxcross_spirv::validate(&words).is_err());
    assert!(ptxcross_spirv::validate(&[1, 2, 3]).is_err());
    assert!(ptxcross_spirv::disassemble(&[1, 2, 3]).starts_with("; not a valid SPIR-V binary"));
}
