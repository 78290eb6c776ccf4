//! PTX forbids predicating the `st.param` that passes a call's argument and the `ld.param` that
//! collects its return value (ISA 8.5 §9.7.10.8 `ld.param`: "Instruction ld.param{::func} used
//! for reading value returned from device function call cannot be predicated"; §7.1: "st.param
//! and ld.param instructions used for argument passing cannot be predicated"; ptxas 13.5
//! refused a predicated `ld.param` of a return value). `lower` refuses them by name at the
//! instruction, and still takes a guard on a function's own formals and on the unguarded shape
//! compilers write.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::{lower, LowerOptions};

fn module(body: &str) -> String {
    format!(
        "
.version 8.5
.target sm_80
.address_size 64
.func (.param .b32 r) twice(.param .b32 a)
{{
    .reg .b32 %t<3>;
    .reg .pred %q;
    ld.param.b32 %t1, [a];
    setp.lt.u32 %q, %t1, 100;
    @%q add.s32 %t1, %t1, %t1;
    @%q st.param.b32 [r], %t1;
    @!%q st.param.b32 [r], 0;
    ret;
}}
.visible .entry k(.param .u64 out)
{{
    .reg .b64 %rd<3>;
    .reg .b32 %r<6>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p, %r1, 7;
    mov.u32 %r2, 5;
    {{
    .param .b32 arg;
    .param .b32 ret;
{body}
    }}
    st.global.u32 [%rd1], %r2;
    ret;
}}
"
    )
}

fn lowered(body: &str) -> Result<(), (String, String)> {
    let text = module(body);
    let file = SourceFile::new("calls.ptx", &text);
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    match lower(&ast, &file, &LowerOptions { block: Some([32, 1, 1]), ..Default::default() }) {
        Ok(_) => Ok(()),
        Err(e) => Err((e[0].render(&file), text)),
    }
}

/// The line:col of the first line of `text` holding `needle` (1-based).
fn place(text: &str, needle: &str) -> String {
    let (i, line) = text.lines().enumerate().find(|(_, l)| l.contains(needle)).expect("needle");
    format!("calls.ptx:{}:{}", i + 1, line.find(needle).unwrap() + 1)
}

#[test]
fn the_shape_compilers_write_lowers_with_guards_on_formals_and_on_the_call() {
    // Unguarded argument and return accesses around a guarded call; the callee's guarded
    // `st.param` of its own return formal is allowed (that is not argument passing).
    lowered(
        "    st.param.b32 [arg], %r1;
    @%p call.uni (ret), twice, (arg);
    ld.param.b32 %r3, [ret];
    @%p mov.b32 %r2, %r3;",
    )
    .unwrap_or_else(|(e, _)| panic!("refused: {e}"));
}

#[test]
fn a_predicated_ld_param_of_a_return_value_is_refused_at_its_line() {
    let (e, text) = lowered(
        "    st.param.b32 [arg], %r1;
    call.uni (ret), twice, (arg);
    @%p ld.param.b32 %r2, [ret];",
    )
    .expect_err("a predicated ld.param of a return value must be refused");
    assert!(e.contains("predicated access of call parameter `ret`") && e.contains("§9.7.10.8"), "{e}");
    assert!(e.contains(&place(&text, "[ret]")), "{e}");
}

#[test]
fn a_predicated_st_param_of_an_argument_is_refused_at_its_line() {
    let (e, text) = lowered(
        "    @!%p st.param.b32 [arg], %r1;
    call.uni (ret), twice, (arg);
    ld.param.b32 %r2, [ret];",
    )
    .expect_err("a predicated st.param of an argument must be refused");
    assert!(e.contains("predicated access of call parameter `arg`"), "{e}");
    assert!(e.contains(&place(&text, "[arg]")), "{e}");
}
