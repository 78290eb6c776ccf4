//! Initializers of module-scope variables (PTX ISA §5.4.4) that are errors or not supported:
//! each gives a clear diagnostic at the initializer, never a guessed value. (What is
//! supported runs end to end in tests/tests/module_globals.rs.) Also the relocation rule of
//! `GlobalSegment::image` on its own.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::ir::{GlobalReloc, GlobalSegment};
use ptxcross_lower::{lower, LowerOptions};

/// Lowers a module with `decls` before a trivial kernel; returns the first error, rendered.
fn error(address_size: u32, decls: &str) -> String {
    let ptx = format!(".version 8.5\n.target sm_80\n.address_size {address_size}\n{decls}\n.visible .entry k() {{ ret; }}\n");
    let file = SourceFile::new("init.ptx", &ptx);
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    match lower(&ast, &file, &LowerOptions::default()) {
        Ok(_) => panic!("lowered without error: {decls}"),
        Err(e) => e[0].render(&file),
    }
}

#[test]
fn refused_initializers_name_the_cause_and_place() {
    let cases: &[(u32, &str, &str, &str)] = &[
        // §5.4.4: "Only variables in .global or .const state spaces may be used in initializers".
        (64, ".shared .u32 s;\n.global .u64 p = s;", "only variables in .global or .const", "init.ptx:5:18"),
        (64, ".global .u64 p = nowhere+4;", "unknown identifier `nowhere`", "init.ptx:4:18"),
        // A whole 64-bit address in a 32-bit field: §5.4.4 does not say which bits it keeps
        // (ptxas writes 8 bytes there).
        (64, ".global .u32 a;\n.global .u32 p = generic(a);", "not supported yet: the 64-bit address of `a` in a .u32 field", "init.ptx:5:26"),
        (64, ".global .u32 a;\n.global .b32 p[2] = {0, a+4};", "not supported yet: the 64-bit address of `a` in a .b32 field", "init.ptx:5:25"),
        // §5.4.4: address fields are .u8 (with mask() only), .u32 or .u64.
        (32, ".global .u32 a;\n.global .u16 p = a;", "the address of `a` does not fit a .u16 field", "init.ptx:5:18"),
        (64, ".global .u32 a;\n.global .b8 p[8] = {a};", "the address of `a` does not fit a .b8 field", "init.ptx:5:21"),
        (64, ".global .u32 a;\n.global .u8 p = generic(a);", "the address of `a` does not fit a .u8 field", "init.ptx:5:25"),
        // The eight masks of §5.4.4, and nothing else.
        (64, ".global .u32 a;\n.global .u8 b = 0xF0(a);", "the mask() operator takes one of 0xFF", "init.ptx:5:17"),
        (64, ".global .u32 a;\n.global .u8 b = 0xFF(0xFF00(a));", "the mask() operator applies to an integer constant expression", "init.ptx:5:17"),
        (64, ".global .u32 a;\n.global .f32 f = a;", "does not fit type .f32", "init.ptx:5:18"),
        (64, ".global .u32 a;\n.global .u64 p = a * 2;", "constant expression form", "init.ptx:5:18"),
        (64, ".global .u32 a;\n.global .u64 p = generic(a+4);", "`generic()` takes the name", "init.ptx:5:18"),
        (64, ".global .u32 x[2] = {{1, 2}};", "nesting is deeper than the declaration", "init.ptx:4:21"),
        (64, ".global .u32 x[2][2] = {{1, 2}, 3};", "mixes nested lists and values", "init.ptx:4:24"),
        (64, ".global .u32 x[1][2] = {{1}, {2}};", "more entries than the array dimension", "init.ptx:4:24"),
        (64, ".global .u32 x[2][2] = {{1, 2, 3}};", "more entries than the array dimension", "init.ptx:4:25"),
        (64, ".global .u32 x[3] = {1, 2, 3, 4};", "more elements than the variable", "init.ptx:4:31"),
    ];
    let mut bad = Vec::new();
    for (size, decls, want, at) in cases {
        let e = error(*size, decls);
        if !(e.contains(want) && e.contains(&format!("--> {at}\n"))) {
            bad.push(format!("{decls}:\nexpected `{want}` at {at}, got:\n{e}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn image_patches_relocations_at_the_base() {
    let seg = GlobalSegment {
        vars: vec![],
        init: vec![0xAA; 28],
        relocs: vec![
            GlobalReloc { at: 0, size: 8, target: 16, byte: None, address_bytes: 8 },
            GlobalReloc { at: 8, size: 1, target: -4, byte: Some(0), address_bytes: 8 },
            GlobalReloc { at: 9, size: 1, target: -4, byte: Some(1), address_bytes: 8 },
            GlobalReloc { at: 12, size: 4, target: 3, byte: Some(7), address_bytes: 8 },
            // An `.address_size 32` module: the low 32 bits, zero-extended; byte 4 is 0.
            GlobalReloc { at: 16, size: 8, target: 4, byte: None, address_bytes: 4 },
            GlobalReloc { at: 24, size: 1, target: 4, byte: Some(4), address_bytes: 4 },
            GlobalReloc { at: 25, size: 1, target: 4, byte: Some(0), address_bytes: 4 },
        ],
        printf_region: None,
    };
    let base = 0x0123_4567_89ab_cd00u64;
    let img = seg.image(base);
    assert_eq!(img[..8], (base + 16).to_le_bytes());
    assert_eq!(img[8..10], [0xfc, 0xcc]);
    assert_eq!(img[10..12], [0xAA, 0xAA]);
    assert_eq!(img[12..16], [0x01, 0, 0, 0]);
    assert_eq!(img[16..24], ((base + 4) & 0xffff_ffff).to_le_bytes());
    assert_eq!(img[24..], [0, 0x04, 0xAA, 0xAA]);
}

/// Address initializers inside function bodies resolve names in the body's scopes, then the
/// module's (they run end to end in tests/tests/module_globals.rs); a name visible nowhere, or a
/// variable of another state space, is the same error as at module scope.
#[test]
fn address_initializers_inside_functions_check_their_names() {
    let cases: &[(&str, &str, &str)] = &[
        // Declared in another function's body: not visible here.
        (
            ".func g()\n{\n    .global .u32 q;\n    ret;\n}\n.visible .entry k()\n{\n    .global .u64 p = q;\n    ret;\n}\n",
            "unknown identifier `q` in an initializer",
            "init.ptx:11:22",
        ),
        // Declared in a block that has ended.
        (
            ".visible .entry k()\n{\n    {\n    .global .u32 q;\n    }\n    .global .u64 p = q+4;\n    ret;\n}\n",
            "unknown identifier `q` in an initializer",
            "init.ptx:9:22",
        ),
        (
            ".visible .entry k()\n{\n    .shared .u32 s;\n    .global .u64 p = s;\n    ret;\n}\n",
            "`s`: only variables in .global or .const state spaces may be used in initializers",
            "init.ptx:7:22",
        ),
    ];
    let mut bad = Vec::new();
    for (body, want, at) in cases {
        let ptx = format!(".version 8.5\n.target sm_80\n.address_size 64\n{body}");
        let file = SourceFile::new("init.ptx", &ptx);
        let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
        let e = match lower(&ast, &file, &LowerOptions::default()) {
            Ok(_) => format!("lowered without error:\n{body}"),
            Err(e) => e[0].render(&file),
        };
        if !(e.contains(want) && e.contains(&format!("--> {at}\n"))) {
            bad.push(format!("{body}:\nexpected `{want}` at {at}, got:\n{e}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
