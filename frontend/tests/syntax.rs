//! Coverage of PTX syntax corners (directives, declarations, operands, expressions) and the
//! parse → print → parse round trip over them.

mod common;
use common::*;
use ptxcross_frontend::ast::*;

const SYNTAX: &str = include_str!("data/syntax.ptx");
const VECADD: &str = include_str!("data/vecadd.ptx");

fn find_fn<'m>(m: &'m Module, name: &str) -> &'m Function {
    m.items
        .iter()
        .find_map(|i| match i {
            Item::Function(f) if f.name.name == name => Some(f),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no function {name}"))
}

fn find_var<'m>(m: &'m Module, name: &str) -> &'m VarName {
    m.items
        .iter()
        .find_map(|i| match i {
            Item::Var(v) => v.names.iter().find(|n| n.name.name == name),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no variable {name}"))
}

fn all_instrs(body: &[Statement], out: &mut Vec<Instruction>) {
    for s in body {
        match s {
            Statement::Instruction(i) => out.push(i.clone()),
            Statement::Block(b, _) => all_instrs(b, out),
            _ => {}
        }
    }
}

fn instr_text(i: &Instruction) -> String {
    ptxcross_frontend::printer::print_instruction(i)
}

#[test]
fn syntax_file_parses() {
    let m = parse_ok("syntax.ptx", SYNTAX);
    assert_eq!(m.version, Some((9, 0)));
    assert_eq!(m.target, ["sm_90a", "texmode_independent", "debug"]);

    // .file with and without timestamps.
    let files: Vec<_> = m
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Directive(d) if d.name == "file" => Some(d),
            _ => None,
        })
        .collect();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0].args, [DirectiveArg::Int(1), DirectiveArg::Str("/home/user/kernel.cu".into())]);
    assert_eq!(files[1].raw, "2 \"/usr/include/foo.h\", 1339013327, 64118");
    assert_eq!(files[1].args[2], DirectiveArg::Int(1339013327));

    // Declarations.
    let Item::Var(dyn_smem) = &m.items[2] else { panic!() };
    assert_eq!(dyn_smem.linkage, [Linkage::Extern]);
    assert_eq!((dyn_smem.space, dyn_smem.align, dyn_smem.ty), (StateSpace::Shared, Some(16), ScalarType::B8));
    assert_eq!(dyn_smem.names[0].array, [None]);
    assert!(matches!(find_var(&m, "answer").init, Some(Initializer::Expr(Expr::Int { value: 42, unsigned_suffix: true, .. }))));
    let Some(Initializer::List(lut, _)) = &find_var(&m, "lut").init else { panic!() };
    assert!(matches!(lut[0], Initializer::Expr(Expr::F32Bits { bits: 0x3F800000, .. })));
    assert!(matches!(lut[3], Initializer::Expr(Expr::Float { value, .. }) if value == 0.25));
    let Some(Initializer::List(ptrs, _)) = &find_var(&m, "ptrs").init else { panic!() };
    assert!(matches!(&ptrs[0], Initializer::Expr(Expr::Call { name, args, .. }) if name == "generic" && args.len() == 1));
    // The mask() operator of §5.4.4 is the mask immediate applied to an expression.
    assert!(matches!(&find_var(&m, "masked").init, Some(Initializer::Expr(Expr::Call { name, args, .. }))
        if name == "0xFF00" && matches!(args.as_slice(), [Expr::Binary { op: BinaryOp::Add, .. }])));
    assert!(matches!(&find_var(&m, "plus4").init, Some(Initializer::Expr(Expr::Binary { op: BinaryOp::Add, .. }))));
    let nested = find_var(&m, "nested");
    assert_eq!(nested.array, [Some(2), Some(2)]);
    let Some(Initializer::List(rows, _)) = &nested.init else { panic!() };
    let Initializer::List(row1, _) = &rows[1] else { panic!() };
    assert!(matches!(&row1[0], Initializer::Expr(Expr::Unary { op: UnaryOp::Neg, .. })));
    assert!(matches!(&row1[1], Initializer::Expr(Expr::Int { value: 0x7fffffff, .. })));
    assert_eq!(find_var(&m, "$str").array, [Some(6)]);
    let vecvar = m.items.iter().find_map(|i| match i {
        Item::Var(v) if v.names[0].name.name == "vecvar" => Some(v),
        _ => None,
    });
    assert_eq!(vecvar.unwrap().vector, Some(4));
    let managed = m.items.iter().find_map(|i| match i {
        Item::Var(v) if v.names[0].name.name == "managed_var" => Some(v),
        _ => None,
    });
    assert_eq!(managed.unwrap().attributes, [".attribute(.managed)"]);
    assert!(matches!(find_var(&m, "big").init, Some(Initializer::Expr(Expr::Int { value: u64::MAX, .. }))));
    assert!(matches!(find_var(&m, "oct").init, Some(Initializer::Expr(Expr::Int { value: 15, .. }))));
    assert!(matches!(find_var(&m, "bin").init, Some(Initializer::Expr(Expr::Int { value: 5, .. }))));
    assert!(matches!(find_var(&m, "dbl").init, Some(Initializer::Expr(Expr::F64Bits { bits: 0x3FF0000000000000, .. }))));
    // (.s64)(1 << 4) * 3 + ~0 - (7 % 4) / 2  ==  ((cast * 3) + ~0) - ((7%4)/2)
    let Some(Initializer::Expr(Expr::Binary { op: BinaryOp::Sub, lhs, rhs, .. })) = &find_var(&m, "cexpr").init else {
        panic!()
    };
    assert!(matches!(&**rhs, Expr::Binary { op: BinaryOp::Div, .. }));
    let Expr::Binary { op: BinaryOp::Add, lhs: mul, rhs: not0, .. } = &**lhs else { panic!() };
    assert!(matches!(&**not0, Expr::Unary { op: UnaryOp::Not, .. }));
    let Expr::Binary { op: BinaryOp::Mul, lhs: cast, .. } = &**mul else { panic!() };
    assert!(matches!(&**cast, Expr::Cast { ty: ScalarType::S64, arg, .. } if matches!(&**arg, Expr::Binary { op: BinaryOp::Shl, .. })));
    assert!(matches!(find_var(&m, "cond").init, Some(Initializer::Expr(Expr::Conditional { .. }))));

    // Function declarations and headers.
    let vprintf = find_fn(&m, "vprintf");
    assert_eq!(vprintf.linkage, [Linkage::Extern]);
    assert!(vprintf.body.is_none());
    assert_eq!(vprintf.returns.len(), 1);
    assert_eq!(vprintf.returns[0].name.name, "func_retval0");
    assert_eq!(vprintf.params.len(), 2);
    let retfn = find_fn(&m, "retfn");
    assert_eq!(retfn.params[0].align, Some(8));
    assert_eq!(retfn.params[0].array, [Some(16)]);
    assert_eq!(retfn.directives[0].name, "noreturn");
    let k = find_fn(&m, "kern");
    assert_eq!(k.params[0].ptr, Some(PtrAttr { space: None, align: Some(1) }));
    assert_eq!(k.params[1].align, Some(16));
    let names: Vec<_> = k.directives.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["reqntid", "minnctapersm", "maxnreg", "explicitcluster", "reqnctapercluster", "maxclusterrank", "pragma"]);
    assert_eq!(k.directives[6].args, [DirectiveArg::Str("nounroll".into())]);

    // The body.
    let body = k.body.as_ref().unwrap();
    let mut is = Vec::new();
    all_instrs(body, &mut is);
    let by_text = |t: &str| {
        is.iter().find(|i| instr_text(i) == t).unwrap_or_else(|| {
            panic!("no instruction printing as {t:?}; have:\n{}", is.iter().map(|i| instr_text(i) + "\n").collect::<String>())
        })
    };
    let i = by_text("mov.u32 %r4, -1;");
    assert!(matches!(&i.operands[1].kind, OperandKind::Expr(Expr::Unary { op: UnaryOp::Neg, arg, .. }) if matches!(**arg, Expr::Int { value: 1, .. })));
    let i = by_text("mov.u64 %rd3, counter+4;");
    assert!(matches!(&i.operands[1].kind, OperandKind::Expr(Expr::Binary { op: BinaryOp::Add, .. })));
    let i = by_text("mov.u64 %rd4, _ZZ4kernE4tile;");
    assert!(matches!(&i.operands[1].kind, OperandKind::Symbol { component: None, .. }));
    let i = by_text("setp.lt.s32 %p1|%p2, %r1, %r2;");
    assert!(matches!(&i.operands[0].kind, OperandKind::Pair(..)));
    let i = by_text("@!%p1 bra.uni $L__BB0_3;");
    assert!(i.guard.as_ref().unwrap().negated);
    let i = by_text("ld.shared.u32 %r6, [%r7+-4];");
    let OperandKind::Address(p) = &i.operands[1].kind else { panic!() };
    let OperandKind::Expr(Expr::Binary { op: BinaryOp::Add, rhs, .. }) = &p[0].kind else { panic!() };
    assert!(matches!(&**rhs, Expr::Unary { op: UnaryOp::Neg, .. }));
    let i = by_text("ld.global.u32 %r6, [100];");
    let OperandKind::Address(p) = &i.operands[1].kind else { panic!() };
    assert!(matches!(p[0].kind, OperandKind::Expr(Expr::Int { value: 100, .. })));
    let i = by_text("st.local.v2.u32 [%SP+0], {%r1, _};");
    let OperandKind::Vector(v) = &i.operands[1].kind else { panic!() };
    assert_eq!(v[1].kind, OperandKind::Sink);
    let i = by_text("cp.async.ca.shared.global [%r8], [%rd5], 16;");
    assert_eq!(i.opcode.name, "cp");
    assert_eq!(i.modifiers.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(), ["async", "ca", "shared", "global"]);
    let i = by_text("mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar_obj], %r9;");
    assert_eq!(i.modifiers[2].text, "shared::cta");
    let i = by_text("mbarrier.arrive.expect_tx.release.cta.shared::cluster.b64 _, [bar_obj], 16;");
    assert_eq!(i.operands[0].kind, OperandKind::Sink);
    let i = by_text("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [bar_obj];");
    assert_eq!(i.modifiers[6].text, "mbarrier::complete_tx::bytes");
    let OperandKind::Address(p) = &i.operands[1].kind else { panic!() };
    assert!(matches!(p[1].kind, OperandKind::Vector(_)));
    by_text("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r14];");
    by_text("ld.global.L1::evict_last.L2::128B.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];");
    let i = by_text("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex_a, {%f5, %f6}];");
    assert_eq!(i.modifiers[0].text, "2d");
    let i = by_text("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;");
    assert_eq!(i.operands.len(), 5);
    let i = by_text("selp.b32 %r1, %r2, %r3, !%p1;");
    assert!(matches!(&i.operands[3].kind, OperandKind::Not(b) if matches!(b.kind, OperandKind::Symbol { .. })));
    let i = by_text("bar.sync 0;");
    assert_eq!((i.opcode.name.as_str(), i.modifiers.len()), ("bar", 1));
    let i = by_text("barrier.sync.aligned 1, 128;");
    assert_eq!(i.opcode.name, "barrier");
    by_text("bar.warp.sync -1;");
    by_text("membar.gl;");
    let i = by_text("add.s64 %rd6, %rd1, 4*8;");
    assert!(matches!(i.operands[2].kind, OperandKind::Expr(Expr::Binary { op: BinaryOp::Mul, .. })));
    let i = by_text("mov.u32 %r1, (.s32)-2;");
    assert!(matches!(i.operands[1].kind, OperandKind::Expr(Expr::Cast { ty: ScalarType::S32, .. })));
    let i = by_text("call.uni (retval0), vprintf, (param0, param1);");
    assert!(matches!(&i.operands[0].kind, OperandKind::List(l) if l.len() == 1));
    assert!(matches!(&i.operands[2].kind, OperandKind::List(l) if l.len() == 2));
    let i = by_text("call (retval0), %rd7, (param0), prototype_0;");
    assert_eq!(i.operands.len(), 4);
    let i = by_text("call.uni empty_fn, ();");
    assert_eq!(i.operands[1].kind, OperandKind::List(vec![]));
    by_text("brx.idx %r1, ts;");

    // Labels, the branch-target table, the call prototype, nested blocks, .loc with inlining.
    assert!(body.iter().any(|s| matches!(s, Statement::Label(l) if l.name == "ts")));
    assert!(body.iter().any(|s| matches!(s, Statement::Directive(d) if d.name == "branchtargets"
        && d.args == [DirectiveArg::Ident("$L__BB0_3".into()), DirectiveArg::Ident("$L__BB0_4".into())])));
    let blocks: Vec<_> = body.iter().filter_map(|s| match s { Statement::Block(b, _) => Some(b), _ => None }).collect();
    assert_eq!(blocks.len(), 2);
    assert!(blocks[1].iter().any(|s| matches!(s, Statement::Directive(d) if d.name == "callprototype"
        && d.raw == "(.param .b32 _) _ (.param .b64 _)")));
    assert!(blocks[0].iter().any(|s| matches!(s, Statement::Var(v) if v.space == StateSpace::Param)));
    assert!(body.iter().any(|s| matches!(s, Statement::Directive(d) if d.name == "loc"
        && d.raw == "1 15 5, function_name $L__info_string0, inlined_at 1 12 3")));
    assert!(body.iter().any(|s| matches!(s, Statement::Var(v) if v.space == StateSpace::SharedCta)));

    // DWARF sections are kept raw.
    let sections: Vec<_> = m
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Directive(d) if d.name == "section" => Some(d),
            _ => None,
        })
        .collect();
    assert_eq!(sections.len(), 2);
    assert!(sections[0].raw.starts_with(".debug_str\n\t{\n$L__info_string0:"));
    assert!(sections[1].raw.ends_with(".b32 LpubNames_end0-LpubNames_begin0"));
    assert!(m.items.iter().any(|i| matches!(i, Item::Directive(d) if d.name == "alias")));
}

#[test]
fn round_trip_syntax() {
    assert_round_trip("syntax.ptx", SYNTAX);
}

#[test]
fn round_trip_vecadd() {
    assert_round_trip("vecadd.ptx", VECADD);
}

/// Spec forms that needed additions to the AST (`OperandKind::Index`, `OperandKind::Qualified`)
/// or conventions (sampler fields, `.attribute` on functions, leading-dot floats).
#[test]
fn spec_corner_forms() {
    let text = include_str!("data/corner.ptx");    let m = assert_round_trip("corner.ptx", text);
    let floats = find_var(&m, "blur");
    let Some(Initializer::List(items, _)) = &floats.init else { panic!() };
    assert!(matches!(items[0], Initializer::Expr(Expr::Float { value, .. }) if value == 0.05));
    let Some(Initializer::List(fields, _)) = &find_var(&m, "tsamp1").init else { panic!() };
    assert!(matches!(&fields[1], Initializer::Expr(Expr::Binary { op: BinaryOp::Eq, lhs, rhs, .. })
        if matches!(&**lhs, Expr::Symbol { name, .. } if name == "filter_mode")
        && matches!(&**rhs, Expr::Symbol { name, .. } if name == "nearest")));
    let printed = ptxcross_frontend::print(&m);
    assert!(printed.contains("{addr_mode_0 = clamp_to_border, filter_mode = nearest}"), "{printed}");
    let bar = find_fn(&m, "bar");
    assert_eq!((bar.directives[0].name.as_str(), bar.directives[0].raw.as_str()), ("attribute", "(.unified(0xAB, 0xCD))"));
    let k = find_fn(&m, "k");
    let mut is = Vec::new();
    all_instrs(k.body.as_ref().unwrap(), &mut is);
    let OperandKind::Index(a, i) = &is[0].operands[1].kind else { panic!("{:?}", is[0].operands[1]) };
    assert!(matches!(&a.kind, OperandKind::Symbol { name, .. } if name == "A"));
    assert!(matches!(i.kind, OperandKind::Expr(Expr::Int { value: 5, .. })));
    let OperandKind::Index(_, i) = &is[1].operands[1].kind else { panic!() };
    assert!(matches!(i.kind, OperandKind::Expr(Expr::Binary { op: BinaryOp::Sub, .. })));
    let OperandKind::Qualified(addr, q) = &is[2].operands[1].kind else { panic!() };
    assert!(matches!(addr.kind, OperandKind::Address(_)));
    assert_eq!(q.text, "unified");
    let OperandKind::Pair(v, p) = &is[3].operands[0].kind else { panic!() };
    assert!(matches!(v.kind, OperandKind::Vector(_)) && matches!(p.kind, OperandKind::Symbol { .. }));
}
