//! A hand-written kernel in the exact layout nvcc 12 emits, parsed to the expected AST.

use ptxcross_frontend::ast::*;
use ptxcross_frontend::{parse, SourceFile};

const VECADD: &str = include_str!("data/vecadd.ptx");

fn sym(o: &Operand) -> (&str, Option<&str>) {
    match &o.kind {
        OperandKind::Symbol { name, component } => (name.as_str(), component.as_deref()),
        k => panic!("expected a symbol operand, got {k:?}"),
    }
}

fn instrs(body: &[Statement]) -> Vec<&Instruction> {
    body.iter()
        .filter_map(|s| match s {
            Statement::Instruction(i) => Some(i),
            _ => None,
        })
        .collect()
}

fn mods(i: &Instruction) -> Vec<&str> {
    i.modifiers.iter().map(|m| m.text.as_str()).collect()
}

#[test]
fn vecadd_header_and_params() {
    let file = SourceFile::new("vecadd.ptx", VECADD);
    let m = parse(&file).unwrap_or_else(|e| panic!("{}", e.iter().map(|d| d.render(&file)).collect::<String>()));
    assert_eq!(m.version, Some((8, 5)));
    assert_eq!(m.target, vec!["sm_80"]);
    assert_eq!(m.address_size, Some(64));
    assert_eq!(m.items.len(), 1);
    let Item::Function(f) = &m.items[0] else { panic!("not a function") };
    assert_eq!(f.kind, FunctionKind::Entry);
    assert_eq!(f.linkage, vec![Linkage::Visible]);
    assert_eq!(f.name.name, "_Z6vecaddPKfS0_Pfi");
    assert_eq!(&VECADD[f.name.span.start as usize..f.name.span.end as usize], "_Z6vecaddPKfS0_Pfi");
    assert!(f.returns.is_empty());
    assert_eq!(f.params.len(), 4);
    let p0 = &f.params[0];
    assert_eq!(p0.space, Some(StateSpace::Param));
    assert_eq!(p0.ty, ScalarType::U64);
    assert_eq!(p0.ptr, Some(PtrAttr { space: Some(StateSpace::Global), align: Some(4) }));
    assert_eq!(p0.align, None);
    assert_eq!(p0.name.name, "_Z6vecaddPKfS0_Pfi_param_0");
    assert!(p0.array.is_empty());
    let p3 = &f.params[3];
    assert_eq!((p3.ty, p3.ptr, p3.name.name.as_str()), (ScalarType::U32, None, "_Z6vecaddPKfS0_Pfi_param_3"));
    assert_eq!(f.directives.len(), 1);
    assert_eq!(f.directives[0].name, "maxntid");
    assert_eq!(f.directives[0].raw, "256, 1, 1");
    assert_eq!(f.directives[0].args, vec![DirectiveArg::Int(256), DirectiveArg::Int(1), DirectiveArg::Int(1)]);
    // The function span covers `.visible` … the closing brace.
    assert!(VECADD[f.span.start as usize..].starts_with(".visible .entry"));
    assert_eq!(&VECADD[f.span.end as usize - 1..f.span.end as usize], "}");
}

#[test]
fn vecadd_body() {
    let m = parse(&SourceFile::new("vecadd.ptx", VECADD)).unwrap();
    let Item::Function(f) = &m.items[0] else { panic!() };
    let body = f.body.as_ref().unwrap();

    // Register declarations.
    let Statement::Var(v) = &body[0] else { panic!("{:?}", body[0]) };
    assert_eq!((v.space, v.ty), (StateSpace::Reg, ScalarType::Pred));
    assert_eq!(v.names.len(), 1);
    assert_eq!((v.names[0].name.name.as_str(), v.names[0].range), ("%p", Some(2)));
    let Statement::Var(v) = &body[3] else { panic!() };
    assert_eq!((v.ty, v.names[0].name.name.as_str(), v.names[0].range), (ScalarType::B64, "%rd", Some(11)));

    let is = instrs(body);
    assert_eq!(is.len(), 22);

    // ld.param.u64 %rd1, [_Z6vecaddPKfS0_Pfi_param_0];
    let ld = is[0];
    assert_eq!(ld.opcode.name, "ld");
    assert_eq!(mods(ld), ["param", "u64"]);
    assert_eq!(sym(&ld.operands[0]), ("%rd1", None));
    let OperandKind::Address(parts) = &ld.operands[1].kind else { panic!() };
    assert_eq!(parts.len(), 1);
    assert_eq!(sym(&parts[0]), ("_Z6vecaddPKfS0_Pfi_param_0", None));

    // mov.u32 %r3, %ctaid.x;
    let mov = is[4];
    assert_eq!((mov.opcode.name.as_str(), mods(mov)), ("mov", vec!["u32"]));
    assert_eq!(sym(&mov.operands[1]), ("%ctaid", Some("x")));
    assert_eq!(&VECADD[mov.operands[1].span.start as usize..mov.operands[1].span.end as usize], "%ctaid.x");
    assert_eq!(sym(&is[6].operands[1]), ("%tid", Some("x")));

    // mad.lo.s32 %r1, %r3, %r4, %r5;
    let mad = is[7];
    assert_eq!((mad.opcode.name.as_str(), mods(mad)), ("mad", vec!["lo", "s32"]));
    let ops: Vec<_> = mad.operands.iter().map(|o| sym(o).0).collect();
    assert_eq!(ops, ["%r1", "%r3", "%r4", "%r5"]);

    // setp.ge.s32 %p1, %r1, %r2; @%p1 bra $L__BB0_2;
    assert_eq!((is[8].opcode.name.as_str(), mods(is[8])), ("setp", vec!["ge", "s32"]));
    let bra = is[9];
    assert_eq!(bra.opcode.name, "bra");
    let g = bra.guard.as_ref().unwrap();
    assert_eq!((g.negated, g.pred.name.as_str()), (false, "%p1"));
    assert_eq!(&VECADD[g.span.start as usize..g.span.end as usize], "@%p1");
    assert_eq!(sym(&bra.operands[0]), ("$L__BB0_2", None));
    assert_eq!(&VECADD[bra.span.start as usize..bra.span.end as usize], "@%p1 bra \t$L__BB0_2;");

    // cvta.to.global.u64; mul.wide.s32 %rd5, %r1, 4;
    assert_eq!(mods(is[10]), ["to", "global", "u64"]);
    let mul = is[11];
    assert_eq!(mods(mul), ["wide", "s32"]);
    let OperandKind::Expr(Expr::Int { value: 4, unsigned_suffix: false, .. }) = &mul.operands[2].kind else {
        panic!("{:?}", mul.operands[2])
    };

    // ld.global.nc.f32 %f1, [%rd8]; and [%rd6+4]
    let ldg = is[15];
    assert_eq!(mods(ldg), ["global", "nc", "f32"]);
    let OperandKind::Address(parts) = &is[16].operands[1].kind else { panic!() };
    let OperandKind::Expr(Expr::Binary { op: BinaryOp::Add, lhs, rhs, .. }) = &parts[0].kind else { panic!("{parts:?}") };
    assert!(matches!(&**lhs, Expr::Symbol { name, .. } if name == "%rd6"));
    assert!(matches!(&**rhs, Expr::Int { value: 4, .. }));

    // st.global.f32 [%rd10], %f3;
    let st = is[20];
    assert_eq!((st.opcode.name.as_str(), mods(st)), ("st", vec!["global", "f32"]));
    let OperandKind::Address(parts) = &st.operands[0].kind else { panic!() };
    assert_eq!(sym(&parts[0]), ("%rd10", None));
    assert_eq!(sym(&st.operands[1]), ("%f3", None));

    // $L__BB0_2: ret;
    let n = body.len();
    let Statement::Label(l) = &body[n - 2] else { panic!("{:?}", body[n - 2]) };
    assert_eq!(l.name, "$L__BB0_2");
    let Statement::Instruction(ret) = &body[n - 1] else { panic!() };
    assert_eq!(ret.opcode.name, "ret");
    assert!(ret.operands.is_empty() && ret.modifiers.is_empty() && ret.guard.is_none());
}
