//! The PTX linker's rules (`ptxcross_frontend::link`), on small hand-written modules: which
//! definition wins, what is renamed, what is an error and where it is reported. The linked
//! text must parse again; end-to-end runs of linked compiler output are in
//! tests/tests/link_e2e.rs.

use ptxcross_frontend::ast::{Item, Linkage};
use ptxcross_frontend::link::link_sources;
use ptxcross_frontend::{parse_str, SourceFile};

fn files(texts: &[&str]) -> Vec<SourceFile> {
    texts.iter().enumerate().map(|(i, t)| SourceFile::new(format!("m{}.ptx", i + 1), *t)).collect()
}

fn linked(texts: &[&str]) -> String {
    let out = link_sources(&files(texts)).unwrap_or_else(|e| panic!("link failed:\n{}", e.join("\n")));
    parse_str(&out).unwrap_or_else(|e| panic!("linked text does not parse: {e:?}\n{out}"));
    out
}

fn link_errors(texts: &[&str]) -> String {
    match link_sources(&files(texts)) {
        Ok(out) => panic!("linked, but should not have:\n{out}"),
        Err(e) => e.join("\n"),
    }
}

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

#[test]
fn local_names_used_by_two_modules_are_renamed_in_the_second_only() {
    let a = format!(
        "{HEADER}.global .u32 g = 1;\n.func (.param .u32 r) f() {{ .reg .u32 %x; ld.global.u32 %x, [g]; st.param.u32 [r], %x; ret; }}\n\
         .visible .entry k1() {{ .reg .u32 %v; call (%v), f, (); ret; }}\n"
    );
    let b = format!(
        "{HEADER}.global .u32 g = 2;\n.const .u32 tab[2] = {{g, 0}};\n.func (.param .u32 r) f() {{ .reg .u32 %x; ld.global.u32 %x, [g+0]; st.param.u32 [r], %x; ret; }}\n\
         .func (.param .u32 r) h(.param .u32 g) {{ .reg .u32 %x; ld.param.u32 %x, [g]; st.param.u32 [r], %x; ret; }}\n\
         .visible .entry k2() {{ .reg .u32 %v; call (%v), f, (); mov.u64 %rd, g; ret; }}\n"
    );
    let out = linked(&[&a, &b]);
    // The first module keeps its names; the second's `g` and `f` are renamed everywhere.
    assert!(out.contains(".global .u32 g = 1;"), "{out}");
    assert!(out.contains(".global .u32 g$link2 = 2;"), "{out}");
    assert!(out.contains("[g$link2+0]") && out.contains("mov.u64 %rd, g$link2;"), "{out}");
    assert!(out.contains("call (%v), f$link2, ();"), "{out}");
    assert!(out.contains("{g$link2, 0}"), "initializers follow the rename: {out}");
    // `h`'s parameter named `g` shadows the global: its use stays.
    assert!(out.contains("ld.param.u32 %x, [g];"), "a function's own name is not renamed: {out}");
    assert_eq!(out.matches("call (%v), f, ();").count(), 1, "{out}");
}

#[test]
fn two_strong_definitions_are_an_error_naming_both_places() {
    let def = format!("{HEADER}.visible .func f() {{ ret; }}\n");
    let err = link_errors(&[&def, &format!("{HEADER}\n\n.visible .func f() {{ ret; }}\n")]);
    assert!(err.contains("`f` is defined in two inputs") && err.contains("m2.ptx:6:16"), "{err}");
    assert!(err.contains("the other definition is here") && err.contains("m1.ptx:4:16"), "{err}");
    let kernels = format!("{HEADER}.entry k() {{ ret; }}\n");
    assert!(link_errors(&[&kernels, &kernels]).contains("`k` is defined in two inputs"));
}

#[test]
fn a_strong_definition_overrides_weak_ones_and_the_first_weak_one_wins_otherwise() {
    let weak1 = format!("{HEADER}.weak .func f() {{ .reg .u32 %w1; ret; }}\n.weak .global .u32 v = 1;\n");
    let weak2 = format!("{HEADER}.weak .func f() {{ .reg .u32 %w2; ret; }}\n.weak .global .u32 v = 2;\n");
    let strong = format!("{HEADER}.visible .func f() {{ .reg .u32 %s; ret; }}\n.visible .global .u32 v = 3;\n");
    let out = linked(&[&weak1, &strong, &weak2]);
    assert!(out.contains("%s;") && !out.contains("%w1") && !out.contains("%w2"), "{out}");
    assert!(out.contains("v = 3;") && !out.contains("v = 1;") && !out.contains("v = 2;"), "{out}");
    let out = linked(&[&weak1, &weak2]);
    assert!(out.contains("%w1") && !out.contains("%w2") && out.contains("v = 1;") && !out.contains("v = 2;"), "{out}");
}

#[test]
fn extern_declarations_bind_to_definitions_and_must_match_them() {
    let user = format!(
        "{HEADER}.extern .global .u32 t[4];\n.extern .func (.param .u32 r) f(.param .u32 a);\n\
         .visible .entry k() {{ .reg .u32 %v; ld.global.u32 %v, [t]; call (%v), f, (%v); ret; }}\n"
    );
    let def = format!("{HEADER}.visible .global .u32 t[4];\n.visible .func (.param .u32 r) f(.param .u32 a) {{ ret; }}\n");
    let out = linked(&[&user, &def]);
    // The satisfied variable declaration goes (lower refuses unresolved ones); the function's
    // declaration stays as a prototype.
    assert!(!out.contains(".extern .global"), "{out}");
    let module = parse_str(&out).unwrap();
    let f_items = module.items.iter().filter(|i| matches!(i, Item::Function(f) if f.name.name == "f")).count();
    assert_eq!(f_items, 2, "{out}");
    // Unresolved declarations are left for lower, which names them where they are used.
    let out = linked(&[&user]);
    assert!(out.contains(".extern .global .u32 t[4];"), "{out}");

    let wrong = format!("{HEADER}.visible .global .u32 t[4];\n.visible .func (.param .u64 r) f(.param .u32 a) {{ ret; }}\n");
    let err = link_errors(&[&user, &wrong]);
    assert!(err.contains("`f` is declared here with parameters") && err.contains("m1.ptx:5:"), "{err}");
}

#[test]
fn headers_combine_and_address_sizes_must_agree() {
    let a = ".version 6.4\n.target sm_52, texmode_independent\n.address_size 64\n.visible .entry a() { ret; }\n";
    let b = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry b() { ret; }\n";
    let module = parse_str(&linked(&[a, b])).unwrap();
    assert_eq!(module.version, Some((8, 0)));
    assert_eq!(module.target, vec!["sm_80".to_string(), "texmode_independent".to_string()]);
    let c = ".version 8.0\n.target sm_80\n.address_size 32\n.visible .entry c() { ret; }\n";
    let err = link_errors(&[a, c]);
    assert!(err.contains("cannot link a 32-bit module with a 64-bit one") && err.contains("m2.ptx"), "{err}");
    // No `.address_size` means 32-bit (§11.1.3).
    assert!(link_errors(&[a, ".version 8.0\n.target sm_80\n.entry d() { ret; }\n"]).contains("32-bit"));
}

#[test]
fn dynamic_shared_memory_declarations_merge_and_syntax_errors_name_their_input() {
    let a = format!("{HEADER}.extern .shared .align 16 .b8 smem[];\n.visible .entry a() {{ ret; }}\n");
    let b = format!("{HEADER}.extern .shared .align 16 .b8 smem[];\n.visible .entry b() {{ ret; }}\n");
    let module = parse_str(&linked(&[&a, &b])).unwrap();
    let shared = module.items.iter().filter(|i| matches!(i, Item::Var(v) if v.linkage.contains(&Linkage::Extern))).count();
    assert_eq!(shared, 1);
    let err = link_errors(&[&a, &format!("{HEADER}.visible .entry b() {{ add.u32 %r1 %r2; }}\n")]);
    assert!(err.contains("m2.ptx:4:"), "{err}");
}
