//! Syntax errors: messages, locations, caret rendering, recovery (every error is reported).

use ptxcross_frontend::{parse, Diagnostic, SourceFile};

fn errors(text: &str) -> (SourceFile, Vec<Diagnostic>) {
    let file = SourceFile::new("k.ptx", text);
    let es = parse(&file).expect_err("expected syntax errors");
    (file, es)
}

const HEADER: &str = ".version 8.5\n.target sm_80\n.address_size 64\n";

#[test]
fn missing_semicolon() {
    let text = format!(
        "{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<4>;\n\tadd.s32 %r1, %r2, %r3\n\tmov.u32 %r1, 0;\n\tret;\n}}\n"
    );
    let (file, es) = errors(&text);
    assert_eq!(es.len(), 1, "{es:?}");
    let d = &es[0];
    assert_eq!(d.message, "expected `,` or `;`, found `mov`");
    // The caret sits right after `%r3`, where the `;` is missing (line 7).
    assert_eq!(file.location(d.span), "k.ptx:7:23");
    let r = d.render(&file);
    let want = "error: expected `,` or `;`, found `mov`\n --> k.ptx:7:23\n  |\n7 | \tadd.s32 %r1, %r2, %r3\n  | \t                     ^ expected `,` or `;`\n";
    assert_eq!(r, want, "got:\n{r}");
}

#[test]
fn bad_token() {
    let text = format!("{HEADER}.visible .entry k()\n{{\n\tmov.u32 %r1, #5;\n\tret;\n}}\n");
    let (file, es) = errors(&text);
    assert_eq!(es.len(), 1, "{es:?}");
    assert_eq!(es[0].message, "expected an operand or expression, found unexpected character `#`");
    assert_eq!(file.location(es[0].span), "k.ptx:6:15");
    assert!(es[0].render(&file).contains("6 | \tmov.u32 %r1, #5;\n  | \t             ^ expected an operand or expression\n"));
}

#[test]
fn two_errors_both_reported_and_parsing_continues() {
    let text = format!(
        "{HEADER}.visible .entry a()\n{{\n\tadd.s32 %r1, %r2 %r3;\n\tret;\n}}\n\
         .visible .entry b()\n{{\n\tst.global.u32 [%rd1, %r1;\n\tret;\n}}\n\
         .visible .entry c()\n{{\n\tret;\n}}\n"
    );
    let (file, es) = errors(&text);
    let short: Vec<String> = es.iter().map(|d| d.short(&file)).collect();
    assert_eq!(
        short,
        [
            "k.ptx:6:19: expected `,` or `;`, found `%r3`",
            "k.ptx:11:26: expected `,` or `]`, found `;`",
        ]
    );
}

#[test]
fn more_error_kinds() {
    let cases: &[(&str, &str)] = &[
        (".version 8.5\n.target sm_80\n.entry k(\n{ ret; }", "k.ptx:4:1: expected a parameter type, found `{`"),
        (".version x\n", "k.ptx:1:10: expected a version number like `8.5`, found `x`"),
        (".global .u32 x = ;\n", "k.ptx:1:18: expected an operand or expression, found `;`"),
        (".global .b32 x\n.global .b32 y;\n", "k.ptx:1:15: expected `;`, found `.global`"),
        (".entry k() { ret;\n", "k.ptx:2:1: expected `}`, found end of file"),
        (".entry k() { mov.u32 %r1, 0x; }", "k.ptx:1:27: invalid hexadecimal literal `0x`"),
        (".entry k() { mov.u32 %r1, 99999999999999999999; }", "k.ptx:1:27: integer literal `99999999999999999999` does not fit in 64 bits"),
        (".entry k() { mov.f32 %f1, 0f3F80; }", "k.ptx:1:27: invalid f32 bit-pattern (0f + 8 hex digits) literal `0f3F80`"),
        (".global .u32 s = \"abc;\n", "k.ptx:1:18: unterminated string literal"),
        ("/* never closed\n.entry k() {}", "k.ptx:1:1: unterminated block comment"),
        (".entry k() {\n\t.pragma \"nounroll\"\n\tret;\n}", "k.ptx:2:20: expected `;`, found `ret`"),
        ("garbage here;\n.entry k() { ret; }", "k.ptx:1:1: expected a directive (`.entry`, `.func`, `.global`, …), found `garbage`"),
    ];
    for (text, want) in cases {
        let (file, es) = errors(text);
        assert_eq!(es[0].short(&file), *want, "for {text:?}: all = {:?}", es.iter().map(|d| d.short(&file)).collect::<Vec<_>>());
    }
}

#[test]
fn nesting_depth_is_limited() {
    for (open, close) in [("(", ")"), ("{", "}"), ("-", ""), ("[", "]")] {
        let deep = format!(".entry k() {{ mov.u32 %r1, {}1{}; }}", open.repeat(100_000), close.repeat(100_000));
        let (file, es) = errors(&deep);
        assert!(es.iter().any(|d| d.message.contains("nesting too deep")), "{open}: {:?}", es.iter().map(|d| d.short(&file)).collect::<Vec<_>>());
    }
    let blocks = format!(".entry k() {}{}", "{".repeat(100_000), "}".repeat(100_000));
    let (_, es) = errors(&blocks);
    assert!(es.iter().any(|d| d.message.contains("nesting too deep")));
    let init = format!(".global .u32 x[1] = {}1{};", "{".repeat(100_000), "}".repeat(100_000));
    let (_, es) = errors(&init);
    assert!(es.iter().any(|d| d.message.contains("nesting too deep")));
}

#[test]
fn missing_semicolon_after_pragma_does_not_swallow_the_next_statement() {
    let (file, es) = errors(".entry k() {\n\t.pragma \"nounroll\"\n\tbad token here;\n\tret;\n}");
    let short: Vec<String> = es.iter().map(|d| d.short(&file)).collect();
    assert_eq!(short, ["k.ptx:2:20: expected `;`, found `bad`", "k.ptx:3:12: expected `,` or `;`, found `here`"]);
}

#[test]
fn multi_line_branch_targets_parse() {
    let file = SourceFile::new("k.ptx", ".entry k() {\n$L_brx_0: .branchtargets\n\t$L1,\n\t$L2;\n$L1:\n$L2:\n\tret;\n}");
    let m = parse(&file).unwrap();
    let ptxcross_frontend::ast::Item::Function(f) = &m.items[0] else { panic!() };
    let body = f.body.as_ref().unwrap();
    assert!(matches!(&body[1], ptxcross_frontend::ast::Statement::Directive(d) if d.args.len() == 2));
}
