//! Memory layout: kernel parameters (spec §5.1.6: each parameter at its natural or declared
//! alignment), shared and local variables, and the module's globals segment.

use crate::ir::{GlobalSegment, GlobalVar, ParamSlot};
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

/// A module-scope `.global` / `.const` variable's place in the globals segment.
#[derive(Clone, Debug)]
pub struct GlobalPlace {
    pub offset: u64,
}

/// Builds the globals segment from module-scope `.global`/`.const` declarations, refusing one
/// larger than `max_bytes` before any of it is built (it is a host-memory image of the whole
/// segment). Initializers may be numbers (and lists of them); symbolic initializers are
/// reported. `function_address` gives the address of a device function named in an initializer.
pub fn layout_globals(
    items: &[ast::Item],
    function_address: &dyn Fn(&str) -> Option<u64>,
    max_bytes: u64,
) -> Result<(GlobalSegment, Vec<(String, GlobalPlace)>), Diagnostic> {
    let mut seg = GlobalSegment::default();
    let mut places = Vec::new();
    for item in items {
        let ast::Item::Var(decl) = item else { continue };
        if !matches!(decl.space, StateSpace::Global | StateSpace::Const) {
            continue;
        }
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
            let (size, align) = var_size_align(decl, &name.array)?;
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
                let mut flat = Vec::new();
                flatten(init, &mut flat);
                let esize = decl.ty.size_bytes() as usize;
                if esize > 8 {
                    return Err(Diagnostic::new(
                        format!("not supported yet: initializers of .{} variables", decl.ty.suffix()),
                        name.span,
                    ));
                }
                if flat.len().saturating_mul(esize) > bytes.len() {
                    return Err(Diagnostic::new("initializer has more elements than the variable", name.span));
                }
                for (i, e) in flat.iter().enumerate() {
                    let v = const_bits(e, decl.ty, function_address)?;
                    bytes[i * esize..(i + 1) * esize].copy_from_slice(&v.to_le_bytes()[..esize]);
                }
            }
            seg.init.extend_from_slice(&bytes);
            seg.vars.push(GlobalVar { name: name.name.name.to_string(), offset, size });
            places.push((name.name.name.to_string(), GlobalPlace { offset }));
        }
    }
    let len = align_up(seg.init.len() as u64, 4) as usize;
    seg.init.resize(len, 0);
    Ok((seg, places))
}

fn flatten<'a>(init: &'a Initializer, out: &mut Vec<&'a ast::Expr>) {
    match init {
        Initializer::Expr(e) => out.push(e),
        Initializer::List(items, _) => items.iter().for_each(|i| flatten(i, out)),
    }
}

/// Bits of a numeric initializer for a variable of type `ty`.
fn const_bits(e: &ast::Expr, ty: ScalarType, function_address: &dyn Fn(&str) -> Option<u64>) -> Result<u64, Diagnostic> {
    use crate::consts::{eval, ConstValue};
    let v = eval(e)?;
    Ok(match (v, ty) {
        (ConstValue::Int(i), ScalarType::F32) => (i as i64 as f32).to_bits() as u64,
        (ConstValue::Int(i), ScalarType::F64) => (i as i64 as f64).to_bits(),
        (ConstValue::Int(i), _) => i,
        (ConstValue::F32(b), ScalarType::F32) => b as u64,
        (ConstValue::F32(b), ScalarType::F64) => (f32::from_bits(b) as f64).to_bits(),
        (ConstValue::F64(b), ScalarType::F32) => (f64::from_bits(b) as f32).to_bits() as u64,
        (ConstValue::F64(b), _) if ty == ScalarType::F64 => b,
        // A table of device-function pointers.
        (ConstValue::Symbol(name, off), _) if function_address(&name).is_some() => {
            function_address(&name).unwrap_or(0).wrapping_add(off as u64)
        }
        (ConstValue::Symbol(..), _) => {
            return Err(Diagnostic::new("not supported yet: symbolic initializer (address of a variable)", e.span()))
        }
        _ => return Err(Diagnostic::new(format!("initializer does not fit type .{}", ty.suffix()), e.span())),
    })
}
