//! PTX ISA 1.x syntax (nvopencc-era output): banked constants, `$`-registers, unterminated
//! `.loc`/`.file`, `@@DWARF` lines, `.section` without a block, old-style parameters.

mod common;
use common::*;
use ptxcross_frontend::ast::*;

const LEGACY: &str = include_str!("data/legacy14.ptx");

#[test]
fn legacy_parses() {
    let m = parse_ok("legacy14.ptx", LEGACY);
    assert_eq!(m.version, Some((1, 4)));
    assert_eq!(m.target, ["sm_10", "map_f64_to_f32"]);
    assert_eq!(m.address_size, None);
    let Item::Var(c) = &m.items[2] else { panic!("{:?}", m.items[2]) };
    assert_eq!((c.space, c.attributes.as_slice()), (StateSpace::Const, &["[2]".to_string()][..]));
    let Item::Function(k) = &m.items[6] else { panic!("{:?}", m.items[6]) };
    assert_eq!(k.name.name, "_Z6kernelPfi");
    assert_eq!(k.directives[1].name, "maxnctapersm");
    assert_eq!(k.directives[1].raw, "sm_10:4,sm_13:8");
    let body = k.body.as_ref().unwrap();
    let ld_const = body
        .iter()
        .find_map(|s| match s {
            Statement::Instruction(i) if i.modifiers.first().is_some_and(|m| m.text == "const[2]") => Some(i),
            _ => None,
        })
        .expect("ld.const[2]");
    assert_eq!(ld_const.modifiers[1].text, "f32");
    assert!(body.iter().any(|s| matches!(s, Statement::Var(v) if v.vector == Some(4) && v.names[0].name.name == "$vf")));
    assert!(body.iter().any(|s| matches!(s, Statement::Instruction(i)
        if matches!(&i.operands.get(1).map(|o| &o.kind), Some(OperandKind::Symbol { name, component: Some(c) }) if name == "$vf" && c == "x"))));
    let Item::Function(foo) = &m.items[7] else { panic!() };
    assert_eq!(foo.returns[0].space, Some(StateSpace::Reg));
    assert_eq!(foo.params[1].ty, ScalarType::F64);
    let Item::Function(fft) = &m.items[8] else { panic!() };
    assert!(fft.params.is_empty());
    let dwarf: Vec<_> = m
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Directive(d) if d.name == "@@dwarf" => Some(d.raw.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(dwarf.len(), 4);
    assert_eq!(dwarf[1], ".byte   0x2b, 0x00, 0x00, 0x00, 0x02, 0x00");
    let Some(Item::Directive(sec)) = m.items.last() else { panic!() };
    assert_eq!((sec.name.as_str(), sec.raw.as_str()), ("section", ".debug_info, \"\",@progbits"));
}

#[test]
fn legacy_round_trip() {
    assert_round_trip("legacy14.ptx", LEGACY);
}
