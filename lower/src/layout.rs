//! Memory layout: kernel parameters (spec §5.1.6: each parameter at its natural or declared
//! alignment), shared and local variables, and the module's globals segment.

use crate::consts::ConstValue;
use crate::ir::{GlobalReloc, GlobalSegment, GlobalVar, ParamSlot};
use ptxcross_frontend::ast::{self, Initializer, ScalarType, Span, StateSpace, VarDecl};
use ptxcross_frontend::Diagnostic;

pub fn align_up(x: u64, a: u64) -> u64 {
    if a <= 1 {
        x
    } else {
        x.div_ceil(a).saturating_mul(a)
    }
}

/// Number of elements of an array declaration; `None` for an unsized `[]`.
pub fn element_count(dims: &[Option<u64>]) -> Option<u64> {
    dims.iter().try_fold(1u64, |acc, d| d.map(|d| acc.saturating_mul(d)))
}

/// The alignment of a declaration: `.align N` (spec §5.4.5: "The alignment value byte-count
/// must be a power of two"), else the natural one.
pub fn checked_align(align: Option<u32>, natural: u64, span: Span) -> Result<u64, Diagnostic> {
    match align {
        None => Ok(natural.max(1)),
        Some(a) if a.is_power_of_two() => Ok(a as u64),
        Some(a) => Err(Diagnostic::new(format!("`.align {a}`: the alignment must be a power of two (PTX ISA §5.4.5)"), span)),
    }
}

/// Size and alignment of one declared name of `decl` (`None` size: unsized array). Sizes
/// saturate: callers compare them against their limits before using them.
pub fn var_size_align(decl: &VarDecl, dims: &[Option<u64>]) -> Result<(Option<u64>, u64), Diagnostic> {
    let elem = decl.ty.size_bytes() as u64 * decl.vector.unwrap_or(1) as u64;
    let align = checked_align(decl.align, elem, decl.span)?;
    Ok((element_count(dims).map(|n| n.saturating_mul(elem)), align))
}

/// CUDA's limit on a kernel's parameters (32 KiB since Volta, 4 KiB before; we accept 64).
const MAX_PARAM_BYTES: u64 = 64 * 1024;

/// Lays out kernel parameters in declaration order.
pub fn layout_params(params: &[ast::Param]) -> Result<(Vec<ParamSlot>, u32), Diagnostic> {
    let mut slots = Vec::new();
    let mut offset = 0u64;
    for p in params {
        let elem = p.ty.size_bytes() as u64 * p.vector.unwrap_or(1) as u64;
        let count = element_count(&p.array).ok_or_else(|| {
            Diagnostic::new(format!("parameter `{}` has an unsized array type", p.name.name), p.span)
        })?;
        let size = elem.saturating_mul(count);
        let align = checked_align(p.align, elem, p.span)?;
        offset = align_up(offset, align).saturating_add(size);
        if offset > MAX_PARAM_BYTES {
            return Err(Diagnostic::new("kernel parameters exceed 64 KiB", p.span));
        }
        let at = offset - size;
        slots.push(ParamSlot { name: p.name.name.to_string(), offset: at as u32, size: size as u32, align: align as u32 });
    }
    Ok((slots, offset as u32))
}

/// A `.global` / `.const` variable's place in the globals segment.
#[derive(Clone, Debug)]
pub struct GlobalPlace {
    pub offset: u64,
    pub size: u64,
    /// A `.const` variable (they are laid out together, after the `.global` ones).
    pub constant: bool,
    /// `None` at module scope; for a declaration inside a function body, the byte offset in
    /// the source where its name starts (how the body's lowering finds it).
    pub declared_at: Option<u32>,
}

/// Where a `.global`/`.const` declaration is: `None` at module scope, else the function and
/// the path of nested blocks (`{ … }`, numbered in source order within the function) it is in.
type DeclScope<'a> = Option<(&'a str, Vec<u32>)>;

/// The `.global`/`.const` declarations inside a function body (nested blocks included), each
/// with its block path (`path`, the blocks enclosing `stmts`; `next` numbers the blocks).
fn body_globals<'a>(stmts: &'a [ast::Statement], function: &'a str, path: &mut Vec<u32>, next: &mut u32, out: &mut Vec<(&'a VarDecl, DeclScope<'a>)>) {
    for s in stmts {
        match s {
            ast::Statement::Var(d) if matches!(d.space, StateSpace::Global | StateSpace::Const) => {
                out.push((d, Some((function, path.clone()))))
            }
            ast::Statement::Block(inner, _) => {
                *next += 1;
                path.push(*next);
                body_globals(inner, function, path, next, out);
                path.pop();
            }
            _ => {}
        }
    }
}

/// Builds the globals segment from module-scope `.global`/`.const` declarations, refusing one
/// larger than `max_bytes` before any of it is built (it is a host-memory image of the whole
/// segment). Initializers may be numbers (and lists of them), addresses of device functions
/// (`function_address`: known now) and addresses of `.global`/`.const` variables, which the
/// host knows only when it places the segment: those become relocations (see
/// [`GlobalReloc`]), patched by [`GlobalSegment::image`].
pub fn layout_globals(
    items: &[ast::Item],
    function_address: &dyn Fn(&str) -> Option<u64>,
    address_size: u32,
    max_bytes: u64,
) -> Result<(GlobalSegment, Vec<(String, GlobalPlace)>), Diagnostic> {
    let mut seg = GlobalSegment::default();
    let mut places = Vec::new();
    // Fields holding variable addresses, resolved once every variable has its place
    // (an initializer may name a variable declared after it).
    let mut pending: Vec<(u64, u8, InitAddress, DeclScope)> = Vec::new();
    // Module-scope declarations, and those inside function bodies (static storage, one per
    // module, like module-scope ones; visible only in their scope), in source order, then
    // stably sorted so that the `.const` ones come last.
    let mut decls: Vec<(&VarDecl, DeclScope)> = Vec::new();
    for item in items {
        match item {
            ast::Item::Var(d) => decls.push((d, None)),
            ast::Item::Function(f) => body_globals(f.body.as_deref().unwrap_or(&[]), &f.name.name, &mut Vec::new(), &mut 0, &mut decls),
            ast::Item::Directive(_) => {}
        }
    }
    // The scope of each entry of `places` (same order).
    let mut place_scopes: Vec<DeclScope> = Vec::new();
    // `.const` variables after all `.global` ones, in one range: `isspacep.const` tests it.
    decls.sort_by_key(|(d, _)| d.space == StateSpace::Const);
    for (decl, scope) in decls {
        let function = scope.as_ref().map(|(f, _)| *f);
        if !matches!(decl.space, StateSpace::Global | StateSpace::Const) {
            continue;
        }
        let constant = decl.space == StateSpace::Const;
        if decl.linkage.contains(&ast::Linkage::Extern) {
            let names: Vec<&str> = decl.names.iter().map(|n| n.name.name.as_str()).collect();
            return Err(Diagnostic::new(
                format!(
                    "unresolved `.extern` variable `{}`: it has no definition in this module; link it with the module \
                     that defines it (`ptxcross link`, or several `cuLinkAddData` inputs)",
                    names.join("`, `")
                ),
                decl.span,
            ));
        }
        for name in &decl.names {
            let dims = sized_dims(&name.array, name.init.as_ref());
            let (size, align) = var_size_align(decl, &dims)?;
            let size = size.ok_or_else(|| Diagnostic::new("global variable with unsized array type", name.span))?;
            let offset = align_up(seg.init.len() as u64, align.max(4));
            if offset.saturating_add(size) > max_bytes {
                return Err(Diagnostic::new(
                    format!(
                        "`{}` ({size} bytes at offset {offset} of the globals segment) does not fit the {max_bytes} bytes \
                         of global memory available for module variables",
                        name.name.name
                    ),
                    name.span,
                ));
            }
            seg.init.resize(offset as usize, 0);
            let mut bytes = vec![0u8; size as usize];
            if let Some(init) = &name.init {
                let esize = decl.ty.size_bytes() as usize;
                if esize > 8 {
                    // A PTX constant is 64-bit (§4.5.1), and ptxas 13.5 does not widen it for a
                    // .b128 element: every element's high 64 bits are 0x42 in its cubin's
                    // `.nv.global.init`, whatever the value. No result to reproduce.
                    return Err(Diagnostic::new(
                        format!(
                            "not supported yet: initializers of .{} variables (PTX constants are 64-bit, and ptxas 13.5 \
                             fills the high 64 bits of each element with 0x42, whatever the value)",
                            decl.ty.suffix()
                        ),
                        name.span,
                    ));
                }
                // Element counts per nesting level: the array's dimensions, then the vector's.
                let mut levels: Vec<u64> = dims.iter().map(|d| d.unwrap_or(0)).collect();
                levels.extend(decl.vector.map(u64::from));
                let mut flat = Vec::new();
                place_elements(init, &levels, 0, &mut flat)?;
                for &(i, e) in &flat {
                    let i = i as usize;
                    if i.saturating_add(1).saturating_mul(esize) > bytes.len() {
                        return Err(Diagnostic::new("initializer has more elements than the variable", e.span()));
                    }
                    let v = match init_value(e, function_address)? {
                        InitValue::Number(v) => number_bits(v, decl.ty, e.span())?,
                        InitValue::Address(a) => {
                            address_field(&a, decl.ty, address_size)?;
                            pending.push((offset + (i * esize) as u64, esize as u8, a, scope.clone()));
                            0
                        }
                    };
                    bytes[i * esize..(i + 1) * esize].copy_from_slice(&v.to_le_bytes()[..esize]);
                }
            }
            seg.init.extend_from_slice(&bytes);
            place_scopes.push(scope.clone());
            match function {
                None => {
                    seg.vars.push(GlobalVar { name: name.name.name.to_string(), offset, size });
                    places.push((name.name.name.to_string(), GlobalPlace { offset, size, constant, declared_at: None }));
                }
                // `function::name`: no PTX identifier has `::`, so no module-scope name clashes.
                Some(f) => {
                    seg.vars.push(GlobalVar { name: format!("{f}::{}", name.name.name), offset, size });
                    places.push((name.name.name.to_string(), GlobalPlace { offset, size, constant, declared_at: Some(name.span.start) }));
                }
            }
        }
    }
    for (at, size, a, scope) in pending {
        // The variable the name denotes where the initializer is: the innermost declaration
        // visible there (the same function, in an enclosing block), else the module's.
        let visible = |k: usize| match (&place_scopes[k], &scope) {
            (None, _) => Some(0),
            (Some((f, p)), Some((g, q))) if f == g && q.starts_with(p) => Some(p.len() + 1),
            _ => None,
        };
        let found = (0..places.len()).filter(|&k| places[k].0 == a.name).filter_map(|k| visible(k).map(|d| (d, k))).max();
        let Some((_, k)) = found else {
            return Err(not_global_variable(items, &a));
        };
        let place = &places[k].1;
        let target = (place.offset as i64).wrapping_add(a.addend);
        seg.relocs.push(GlobalReloc { at, size, target, byte: a.byte, address_bytes: if address_size == 64 { 8 } else { 4 } });
    }
    let mut len = align_up(seg.init.len() as u64, 4);
    if crate::printf::module_uses_printf(items) {
        // The printf buffer (see `printf`): after every variable, zeroed like them.
        let offset = align_up(len, 8);
        len = offset + crate::printf::REGION_BYTES;
        if len > max_bytes {
            return Err(Diagnostic::new(
                format!("the printf buffer ({} bytes) does not fit the {max_bytes} bytes of global memory available for module variables", crate::printf::REGION_BYTES),
                Default::default(),
            ));
        }
        seg.printf_region = Some(offset);
        places.push((crate::printf::REGION_NAME.to_string(), GlobalPlace { offset, size: crate::printf::REGION_BYTES, constant: false, declared_at: None }));
    }
    if crate::wide_lock::module_needs_locks(items) {
        // The lock table of strong 16-byte accesses (see `wide_lock`): zero, every lock free.
        let offset = align_up(len, 8);
        len = offset + crate::wide_lock::REGION_BYTES;
        if len > max_bytes {
            return Err(Diagnostic::new(
                format!(
                    "the lock table of strong 16-byte accesses ({} bytes) does not fit the {max_bytes} bytes of global memory available for module variables",
                    crate::wide_lock::REGION_BYTES
                ),
                Default::default(),
            ));
        }
        places.push((crate::wide_lock::REGION_NAME.to_string(), GlobalPlace { offset, size: crate::wide_lock::REGION_BYTES, constant: false, declared_at: None }));
    }
    seg.init.resize(len as usize, 0);
    Ok((seg, places))
}

/// The declared dimensions with unsized ones taken from the initializer: the first one
/// (`.global .u32 bar[] = {2, 3, 5};`, §5.4.4) is the number of top-level entries, or with
/// brace elision (a flat list for a multi-dimensional array) the rows they fill; an inner one
/// (ISA 1.4's `.f32 blur_kernel[][] = {{…}, …}`) the longest list at that level.
fn sized_dims(dims: &[Option<u64>], init: Option<&Initializer>) -> Vec<Option<u64>> {
    let mut out = dims.to_vec();
    let Some(list @ Initializer::List(items, _)) = init else { return out };
    let flat = items.iter().all(|i| matches!(i, Initializer::Expr(_)));
    for (k, d) in out.iter_mut().enumerate().skip(1) {
        if d.is_none() && !flat {
            *d = Some(longest_list(list, k));
        }
    }
    if out.first() == Some(&None) {
        let n = items.len() as u64;
        let row: u64 = out[1..].iter().map(|d| d.unwrap_or(1)).product();
        out[0] = Some(if flat && dims.len() > 1 { n.div_ceil(row.max(1)) } else { n });
    }
    out
}

/// The most entries of any list `level` levels down in `init`.
fn longest_list(init: &Initializer, level: usize) -> u64 {
    match init {
        Initializer::Expr(_) => 0,
        Initializer::List(items, _) if level == 0 => items.len() as u64,
        Initializer::List(items, _) => items.iter().map(|i| longest_list(i, level - 1)).max().unwrap_or(0),
    }
}

/// Places the elements of `init` for a variable whose nesting levels hold `levels[k]` entries
/// each (array dimensions, then the vector width), starting at element `base`: a nested list
/// fills one row per entry; a list of values fills consecutive elements (the only level of a
/// one-dimensional array, or C-style brace elision); "the remaining array locations" keep the
/// default value, zero (§5.4.4: `{ {1,2}, {3} }` is `{ {1,2}, {3,0}, {0,0} }`).
fn place_elements<'a>(init: &'a Initializer, levels: &[u64], base: u64, out: &mut Vec<(u64, &'a ast::Expr)>) -> Result<(), Diagnostic> {
    match init {
        Initializer::Expr(e) => out.push((base, e)),
        Initializer::List(items, span) => {
            let nested = items.iter().any(|i| matches!(i, Initializer::List(..)));
            if !nested || levels.len() <= 1 {
                if nested {
                    return Err(Diagnostic::new("initializer nesting is deeper than the declaration", *span));
                }
                for (i, item) in items.iter().enumerate() {
                    place_elements(item, &[], base.saturating_add(i as u64), out)?;
                }
                return Ok(());
            }
            if items.iter().any(|i| matches!(i, Initializer::Expr(_))) {
                return Err(Diagnostic::new("not supported yet: an initializer list that mixes nested lists and values", *span));
            }
            if items.len() as u64 > levels[0] {
                return Err(Diagnostic::new("initializer has more entries than the array dimension", *span));
            }
            let stride: u64 = levels[1..].iter().fold(1u64, |a, &d| a.saturating_mul(d));
            for (i, item) in items.iter().enumerate() {
                let Initializer::List(row, row_span) = item else { unreachable!() };
                if row.len() as u64 > levels[1] {
                    return Err(Diagnostic::new("initializer has more entries than the array dimension", *row_span));
                }
                place_elements(item, &levels[1..], base.saturating_add((i as u64).saturating_mul(stride)), out)?;
            }
        }
    }
    Ok(())
}

/// The value of one initializer element.
enum InitValue {
    /// A number (function addresses included: they are known now).
    Number(ConstValue),
    /// The address of a variable, possibly one byte of it (`mask()`).
    Address(InitAddress),
}

/// `name + addend`, or with `mask(0xFF << 8k)` byte `k` of it (§5.4.4).
struct InitAddress {
    name: String,
    addend: i64,
    byte: Option<u8>,
    span: Span,
}

/// Evaluates an initializer element (§5.4.4): a constant expression, `var`, `var+offset`,
/// `generic(var)+offset`, and `mask()` (written as its integer immediate, `0xFF00(expr)`) of
/// an integer constant expression or of one of those addresses.
///
/// `var` alone means "the offset in the variable's state space", `generic(var)` its generic
/// address; in ptxcross both `.global` and `.const` variables live in the global heap, and a
/// heap address is its own generic address (`cvta.global`/`cvta.const` are the identity), so
/// both denote the same number, the one `mov.u64 %rd, var` gives.
fn init_value(e: &ast::Expr, function_address: &dyn Fn(&str) -> Option<u64>) -> Result<InitValue, Diagnostic> {
    use ast::{BinaryOp, Expr, UnaryOp};
    let address = |name: &str, addend: i64, span: Span| match function_address(name) {
        // A table of device-function pointers: their addresses are constants.
        Some(f) => InitValue::Number(ConstValue::Int(f.wrapping_add(addend as u64))),
        None => InitValue::Address(InitAddress { name: name.to_string(), addend, byte: None, span }),
    };
    match e {
        Expr::Call { name, args, span } if name == "generic" => {
            let [arg] = args.as_slice() else {
                return Err(Diagnostic::new("`generic()` takes one variable", *span));
            };
            match arg {
                Expr::Symbol { name, span } => Ok(address(name, 0, *span)),
                _ => Err(Diagnostic::new("`generic()` takes the name of a .global or .const variable (PTX ISA §5.4.4)", *span)),
            }
        }
        Expr::Call { name, args, span } if name.starts_with(|c: char| c.is_ascii_digit()) => {
            // mask(): "extracts n consecutive bits … and inserts these bits at the lowest
            // position"; the supported masks are single bytes at byte boundaries.
            let mask = parse_mask(name);
            let (Some(byte), [arg]) = (mask, args.as_slice()) else {
                return Err(Diagnostic::new(
                    format!(
                        "`{name}(…)`: the mask() operator takes one of 0xFF, 0xFF00, …, 0xFF00000000000000 and one expression \
                         (PTX ISA §5.4.4)"
                    ),
                    *span,
                ));
            };
            match init_value(arg, function_address)? {
                InitValue::Number(ConstValue::Int(v)) => Ok(InitValue::Number(ConstValue::Int((v >> (8 * byte)) & 0xff))),
                InitValue::Address(a) if a.byte.is_none() => Ok(InitValue::Address(InitAddress { byte: Some(byte), ..a })),
                _ => Err(Diagnostic::new(
                    "the mask() operator applies to an integer constant expression or the address of a variable (PTX ISA §5.4.4)",
                    *span,
                )),
            }
        }
        Expr::Binary { op: op @ (BinaryOp::Add | BinaryOp::Sub), lhs, rhs, span } if contains_call(e) => {
            let (a, b) = (init_value(lhs, function_address)?, init_value(rhs, function_address)?);
            let sign = if *op == BinaryOp::Sub { -1i64 } else { 1 };
            match (a, b) {
                (InitValue::Address(a), InitValue::Number(ConstValue::Int(k))) if a.byte.is_none() => {
                    Ok(InitValue::Address(InitAddress { addend: a.addend.wrapping_add(sign.wrapping_mul(k as i64)), ..a }))
                }
                (InitValue::Number(ConstValue::Int(k)), InitValue::Address(a)) if a.byte.is_none() && sign == 1 => {
                    Ok(InitValue::Address(InitAddress { addend: a.addend.wrapping_add(k as i64), ..a }))
                }
                (InitValue::Number(ConstValue::Int(x)), InitValue::Number(ConstValue::Int(y))) => {
                    Ok(InitValue::Number(ConstValue::Int(if sign == 1 { x.wrapping_add(y) } else { x.wrapping_sub(y) })))
                }
                _ => Err(Diagnostic::new("not supported yet: this initializer expression", *span)),
            }
        }
        Expr::Unary { op: UnaryOp::Plus, arg, .. } if contains_call(e) => init_value(arg, function_address),
        _ if contains_call(e) => Err(Diagnostic::new("not supported yet: this initializer expression", e.span())),
        _ => Ok(match crate::consts::eval(e)? {
            ConstValue::Symbol(name, off) => address(&name, off, e.span()),
            v => InitValue::Number(v),
        }),
    }
}

fn contains_call(e: &ast::Expr) -> bool {
    use ast::Expr;
    match e {
        Expr::Call { .. } => true,
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => contains_call(arg),
        Expr::Binary { lhs, rhs, .. } => contains_call(lhs) || contains_call(rhs),
        Expr::Conditional { cond, then, otherwise, .. } => contains_call(cond) || contains_call(then) || contains_call(otherwise),
        Expr::Int { .. } | Expr::F32Bits { .. } | Expr::F64Bits { .. } | Expr::Float { .. } | Expr::Symbol { .. } => false,
    }
}

/// The byte a mask() immediate selects: `0xFF << 8k` gives `k` (§5.4.4 lists these eight).
fn parse_mask(text: &str) -> Option<u8> {
    let v = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex.trim_end_matches(['U', 'u']), 16).ok()?,
        None => text.trim_end_matches(['U', 'u']).parse().ok()?,
    };
    (0..8u8).find(|k| v == 0xff << (8 * k))
}

/// Checks that a field of type `ty` can hold the address (or the byte of it) `a`. §5.4.4:
/// "Variables that hold addresses of variables or functions should be of type .u8 or .u32 or
/// .u64. Type .u8 is allowed only if the mask() operator is used." (ptxas 13.5 accepts
/// exactly those; ptxcross also takes the same-size `.b`/`.s` types, which PTX's type rules make
/// compatible.) A byte of an address (`mask()`) fits any integer field.
fn address_field(a: &InitAddress, ty: ScalarType, address_size: u32) -> Result<(), Diagnostic> {
    if !matches!(ty, ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64 | ScalarType::S8 | ScalarType::S16 | ScalarType::S32 | ScalarType::S64 | ScalarType::B8 | ScalarType::B16 | ScalarType::B32 | ScalarType::B64) {
        return Err(Diagnostic::new(format!("initializer does not fit type .{}: it is an address", ty.suffix()), a.span));
    }
    if a.byte.is_some() {
        return Ok(());
    }
    match (ty.size_bytes(), address_size) {
        (8, _) | (4, 32) => Ok(()),
        (4, _) => Err(Diagnostic::new(
            format!(
                "not supported yet: the 64-bit address of `{}` in a .{} field: PTX ISA §5.4.4 allows .u32 address fields \
                 but does not define which 32 bits of a 64-bit address they keep, and ptxas 13.5 gives such a field the \
                 8-byte relocation of a .u64 one (R_CUDA_G64), so NVIDIA's loader writes 8 bytes over the 4-byte field; \
                 use a .u64 field, or mask() for its bytes",
                a.name,
                ty.suffix()
            ),
            a.span,
        )),
        _ => Err(Diagnostic::new(
            format!(
                "the address of `{}` does not fit a .{} field: addresses in initializers go in .u32 or .u64 fields, and \
                 .u8 ones take one byte of it with mask() (PTX ISA §5.4.4)",
                a.name,
                ty.suffix()
            ),
            a.span,
        )),
    }
}

/// The error for an address initializer whose name is no `.global`/`.const` variable.
fn not_global_variable(items: &[ast::Item], a: &InitAddress) -> Diagnostic {
    // A variable of another state space of that name (at module scope or in a body).
    let other_space = |d: &VarDecl| !matches!(d.space, StateSpace::Global | StateSpace::Const) && d.names.iter().any(|n| n.name.name == a.name);
    fn in_body(stmts: &[ast::Statement], found: &dyn Fn(&VarDecl) -> bool) -> bool {
        stmts.iter().any(|s| match s {
            ast::Statement::Var(d) => found(d),
            ast::Statement::Block(inner, _) => in_body(inner, found),
            _ => false,
        })
    }
    let declared = items.iter().any(|i| match i {
        ast::Item::Var(d) => other_space(d),
        ast::Item::Function(f) => in_body(f.body.as_deref().unwrap_or(&[]), &other_space),
        ast::Item::Directive(_) => false,
    });
    if declared {
        Diagnostic::new(
            format!("`{}`: only variables in .global or .const state spaces may be used in initializers (PTX ISA §5.4.4)", a.name),
            a.span,
        )
    } else {
        Diagnostic::new(format!("unknown identifier `{}` in an initializer", a.name), a.span)
    }
}

/// Bits of a numeric initializer for a variable of type `ty`.
fn number_bits(v: ConstValue, ty: ScalarType, span: Span) -> Result<u64, Diagnostic> {
    Ok(match (v, ty) {
        (ConstValue::Int(i), ScalarType::F32) => (i as i64 as f32).to_bits() as u64,
        (ConstValue::Int(i), ScalarType::F64) => (i as i64 as f64).to_bits(),
        (ConstValue::Int(i), _) => i,
        (ConstValue::F32(b), ScalarType::F32) => b as u64,
        (ConstValue::F32(b), ScalarType::F64) => (f32::from_bits(b) as f64).to_bits(),
        (ConstValue::F64(b), ScalarType::F32) => (f64::from_bits(b) as f32).to_bits() as u64,
        (ConstValue::F64(b), _) if ty == ScalarType::F64 => b,
        _ => return Err(Diagnostic::new(format!("initializer does not fit type .{}", ty.suffix()), span)),
    })
}
