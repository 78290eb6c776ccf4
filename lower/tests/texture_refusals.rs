//! What `tex`/`suld`/`sust`/`txq` do not translate is refused by name at its line and column,
//! never guessed (the translated forms run end to end in tests/tests/texture_e2e.rs).

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::{lower, LowerOptions};

/// The first diagnostic of lowering a kernel whose body is `body`, rendered.
fn refusal(decls: &str, body: &str) -> String {
    let ptx = format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n{decls}\n.visible .entry k(.param .u64 t)\n{{\n\
         .reg .b64 %rd<4>;\n.reg .b32 %r<8>;\n.reg .f32 %f<8>;\n.reg .b16 %rs<4>;\n.reg .pred %p<2>;\n\
         ld.param.u64 %rd1, [t];\n{body}\nret;\n}}\n"
    );
    let file = SourceFile::new("tex.ptx", ptx.as_str());
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    match lower(&ast, &file, &LowerOptions { block: Some([1, 1, 1]), ..Default::default() }) {
        Ok(_) => panic!("`{body}` lowered"),
        Err(e) => e[0].render(&file),
    }
}

#[test]
fn unsupported_texture_forms_are_refused_by_name_and_place() {
    for (decls, body, what) in [
        ("", "tex.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f1, %f2, %f3}];", "layered textures"),
        ("", "tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}];", "cubemap textures"),
        ("", "tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], {%f1, %f2}, {%f3, %f4};", "explicit gradients"),
        ("", "tex.2d.v4.f16.f32 {%rs1, %rs2, %rs3, %rs4}, [%rd1, {%f1, %f2}];", ".f16 results"),
        ("", "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}];", "instruction `tld4"),
        ("", "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f1, %f2}];", "predicate destination"),
        (".global .texref tr;", "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tr, {%f1, %f2}];", "texture/surface reference `tr`"),
        ("", "txq.filter_mode.b32 %r1, [%rd1];", "only width, height and depth"),
        ("", "suld.b.a1d.b32.trap {%r1}, [%rd1, {%r1, %r2}];", "layered surfaces"),
        ("", "sust.p.2d.v4.b32.trap [%rd1, {%r1, %r2}], {%r1, %r2, %r3, %r4};", "formatted surface stores"),
    ] {
        let msg = refusal(decls, body);
        assert!(msg.contains(what), "`{body}`: expected a refusal naming {what:?}, got:\n{msg}");
        assert!(msg.contains("tex.ptx:") || msg.contains(":13:") || msg.contains("13:1"), "`{body}` has no place:\n{msg}");
    }
}
