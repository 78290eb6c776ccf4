//! Device-side `printf`: nvcc's `call (ret), vprintf, (fmt, args)` (CUDA C Programming Guide,
//! "Formatted Output"). `fmt` is the generic address of a module string, `args` the generic
//! address of a local buffer where the caller packed the arguments as C varargs promote them
//! (float → double; each at an offset aligned to its size: 4 for int and char, 8 for
//! long/long long/double/pointers).
//!
//! The format must be a constant of the module (nvcc's `mov.u64 %rd, $str; cvta.global.u64`):
//! it is parsed here, at translation time, into [`Format`] (its conversions and the byte offset
//! of each argument), which goes to the host with the kernel (`ir::Kernel::printf`). At run
//! time a call appends one record to the module's printf buffer (a region of its globals
//! segment, [`REGION_NAME`]): word 0 of the region counts the bytes claimed (one atomic add per
//! record), word 1 the records dropped because they did not fit, and from byte
//! [`REGION_HEADER_BYTES`] on the records (claims stop once it is full, so the counter cannot wrap): the format's key (its byte offset in the globals
//! segment + 1), then the argument buffer's words. The host formats them after the launch.
//! A record that does not fit is dropped whole (CUDA drops output once its FIFO is full), so
//! every record below the claimed offset is complete.

use crate::consts::{self, ConstValue};
use crate::function::{unsupported, FnLower, LResult, Symbol};
use crate::ir::{AtomicOp, BinaryOp, CmpOp, Memory, Operand, Ty};
use ptxcross_frontend::ast::{self, Initializer, OperandKind, StateSpace, Statement};
use std::collections::HashMap;

/// The printf buffer's name among the globals' places: `::` is in no PTX identifier.
pub const REGION_NAME: &str = "ptxcross::printf";
/// Size of a module's printf buffer, header included: CUDA's default `cudaLimitPrintfFifoSize`.
pub const REGION_BYTES: u64 = 1 << 20;
/// Claimed-bytes word and dropped-records word.
pub const REGION_HEADER_BYTES: u32 = 8;
/// Bytes of records a region holds.
pub const REGION_CAPACITY: u32 = REGION_BYTES as u32 - REGION_HEADER_BYTES;

/// Whether the module declares CUDA's `vprintf` without defining it (then its globals get the
/// printf buffer).
pub fn module_uses_printf(items: &[ast::Item]) -> bool {
    items.iter().any(|i| matches!(i, ast::Item::Function(f) if f.name.name == "vprintf" && f.body.is_none()))
}

/// C's length modifier of a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    None,
    Hh,
    H,
    L,
    Ll,
    Z,
    T,
    J,
}

impl Length {
    pub fn text(self) -> &'static str {
        match self {
            Length::None => "",
            Length::Hh => "hh",
            Length::H => "h",
            Length::L => "l",
            Length::Ll => "ll",
            Length::Z => "z",
            Length::T => "t",
            Length::J => "j",
        }
    }
}

/// A width or precision: written in the format, or taken from an `int` argument (`*`) at this
/// byte offset of the argument buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    Fixed(u32),
    Arg(u32),
}

/// One conversion (`%-08.3lld`): its flags as written, width, precision, length, the
/// conversion character, and where its value lies in the argument buffer (`None` for `%%`).
#[derive(Clone, Debug, PartialEq)]
pub struct Conversion {
    pub flags: String,
    pub width: Option<Count>,
    pub precision: Option<Count>,
    pub length: Length,
    pub conv: u8,
    /// Byte offset of the value in the argument buffer, and its size (4 or 8).
    pub offset: u32,
    pub size: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    Text(Vec<u8>),
    Conv(Conversion),
}

/// A format string parsed for the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Format {
    /// The record's first word: the format string's byte offset in the globals segment + 1.
    pub key: u32,
    pub pieces: Vec<Piece>,
    /// Bytes of the argument buffer the conversions read (what a record copies).
    pub arg_bytes: u32,
    /// Arguments the format takes (`*` ones included): what `printf` returns.
    pub args: u32,
}

impl Format {
    /// Bytes of one record: the key word and the argument buffer, in whole words.
    pub fn record_bytes(&self) -> u32 {
        4 + self.arg_bytes.div_ceil(4) * 4
    }
}

/// Parses a C format string (its bytes up to the NUL) into pieces with their argument layout.
/// Anything whose meaning cannot be reproduced exactly is refused: `%n` (writes through a
/// pointer), `L` (long double), wide characters (`%lc`, `%ls`), unknown conversions.
pub fn parse(text: &[u8], key: u32) -> Result<Format, String> {
    let mut pieces = Vec::new();
    let mut lit = Vec::new();
    let mut offset = 0u32;
    let mut args = 0u32;
    let mut take = |size: u32, args: &mut u32| {
        let at = offset.div_ceil(size) * size;
        offset = at + size;
        *args += 1;
        at
    };
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        i += 1;
        if c != b'%' {
            lit.push(c);
            continue;
        }
        let start = i - 1;
        let mut flags = String::new();
        while let Some(&f) = text.get(i).filter(|f| b"-+ #0".contains(f)) {
            flags.push(f as char);
            i += 1;
        }
        let mut count = |i: &mut usize, args: &mut u32| -> Option<Count> {
            if text.get(*i) == Some(&b'*') {
                *i += 1;
                return Some(Count::Arg(take(4, args)));
            }
            let digits = text[*i..].iter().take_while(|d| d.is_ascii_digit()).count();
            if digits == 0 {
                return None;
            }
            let n = std::str::from_utf8(&text[*i..*i + digits]).ok()?.parse::<u32>().unwrap_or(u32::MAX);
            *i += digits;
            Some(Count::Fixed(n))
        };
        let width = count(&mut i, &mut args);
        let precision = if text.get(i) == Some(&b'.') {
            i += 1;
            Some(count(&mut i, &mut args).unwrap_or(Count::Fixed(0)))
        } else {
            None
        };
        if matches!(width, Some(Count::Fixed(w)) if w > 1 << 20) || matches!(precision, Some(Count::Fixed(p)) if p > 1 << 20) {
            return Err("a width or precision above 2^20".into());
        }
        let length = match (text.get(i), text.get(i + 1)) {
            (Some(b'h'), Some(b'h')) => Length::Hh,
            (Some(b'h'), _) => Length::H,
            (Some(b'l'), Some(b'l')) => Length::Ll,
            (Some(b'l'), _) => Length::L,
            (Some(b'z'), _) => Length::Z,
            (Some(b't'), _) => Length::T,
            (Some(b'j'), _) => Length::J,
            (Some(b'L'), _) => return Err("`L` (long double) in a format".into()),
            _ => Length::None,
        };
        i += length.text().len();
        let Some(&conv) = text.get(i) else {
            return Err(format!("the format ends inside the conversion `{}`", String::from_utf8_lossy(&text[start..])));
        };
        i += 1;
        let spec = || String::from_utf8_lossy(&text[start..i]).into_owned();
        let size = match (conv, length) {
            (b'%', _) if flags.is_empty() && width.is_none() && precision.is_none() && length == Length::None => {
                lit.push(b'%');
                continue;
            }
            (b'd' | b'i' | b'u' | b'x' | b'X' | b'o', Length::None | Length::Hh | Length::H) => 4,
            (b'd' | b'i' | b'u' | b'x' | b'X' | b'o', _) => 8,
            (b'c', Length::None) => 4,
            (b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A', Length::None | Length::L) => 8,
            (b's' | b'p', Length::None) => 8,
            (b'n', _) => return Err("`%n` (it writes through a pointer)".into()),
            _ => return Err(format!("the conversion `{}`", spec())),
        };
        if !lit.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut lit)));
        }
        let at = take(size, &mut args);
        pieces.push(Piece::Conv(Conversion { flags, width, precision, length, conv, offset: at, size }));
    }
    if !lit.is_empty() {
        pieces.push(Piece::Text(lit));
    }
    Ok(Format { key, pieces, arg_bytes: offset, args })
}

/// The format string of each `vprintf` call of the module, found before any kernel is lowered:
/// by the call instruction's source offset, the global it names (symbol, byte offset) and its
/// text, or why it is not a constant string.
#[derive(Default)]
pub struct Sites {
    by_call: HashMap<u32, Result<(String, i64, Vec<u8>), String>>,
    /// `__assertfail` calls: what the fault site says (the assertion, file, line, function).
    asserts: HashMap<u32, Result<String, String>>,
}

impl Sites {
    pub fn find(module: &ast::Module) -> Sites {
        let mut sites = Sites::default();
        let declares = |name: &str| module.items.iter().any(|i| matches!(i, ast::Item::Function(f) if f.name.name == name && f.body.is_none()));
        if !declares("vprintf") && !declares("__assertfail") {
            return sites;
        }
        for item in &module.items {
            let ast::Item::Function(f) = item else { continue };
            let Some(body) = f.body.as_deref() else { continue };
            let mut defs: HashMap<&str, Vec<&ast::Instruction>> = HashMap::new();
            collect_defs(body, &mut defs);
            sites.walk(module, body, &defs);
        }
        sites
    }

    fn walk<'a>(&mut self, module: &ast::Module, stmts: &'a [Statement], defs: &HashMap<&str, Vec<&'a ast::Instruction>>) {
        for (i, s) in stmts.iter().enumerate() {
            match s {
                Statement::Block(inner, _) => self.walk(module, inner, defs),
                Statement::Instruction(inst) if inst.opcode.name == "call" => {
                    let ops = &inst.operands;
                    if let Some(t) = ops.iter().position(|o| matches!(&o.kind, OperandKind::Symbol { name, .. } if name == "__assertfail")) {
                        let text = match ops.get(t + 1).map(|o| &o.kind) {
                            Some(OperandKind::List(args)) if args.len() == 5 => assertion(module, &stmts[..i], args, defs),
                            _ => Err("an `__assertfail` call without its five arguments".into()),
                        };
                        self.asserts.insert(inst.span.start, text);
                        continue;
                    }
                    let target = ops.iter().position(|o| matches!(&o.kind, OperandKind::Symbol { name, .. } if name == "vprintf"));
                    let Some(t) = target else { continue };
                    let fmt = match ops.get(t + 1).map(|o| &o.kind) {
                        Some(OperandKind::List(args)) if !args.is_empty() => format_source(module, &stmts[..i], &args[0], defs),
                        _ => Err("a `vprintf` call without its two arguments".into()),
                    };
                    self.by_call.insert(inst.span.start, fmt);
                }
                _ => {}
            }
        }
    }
}

/// Every register an instruction writes (its first operand, when that is a name).
fn collect_defs<'a>(stmts: &'a [Statement], defs: &mut HashMap<&'a str, Vec<&'a ast::Instruction>>) {
    for s in stmts {
        match s {
            Statement::Block(inner, _) => collect_defs(inner, defs),
            Statement::Instruction(inst) => {
                if let Some(OperandKind::Symbol { name, .. }) = inst.operands.first().map(|o| &o.kind) {
                    defs.entry(name.as_str()).or_default().push(inst);
                }
            }
            _ => {}
        }
    }
}

/// What an `__assertfail(message, file, line, function, charSize)` call asserts, from its
/// constant arguments: "assertion `message` failed at file:line in function".
fn assertion<'a>(
    module: &ast::Module,
    before: &'a [Statement],
    args: &[ast::Operand],
    defs: &HashMap<&str, Vec<&'a ast::Instruction>>,
) -> Result<String, String> {
    let text = |k: usize| format_source(module, before, &args[k], defs).map(|(_, _, t)| String::from_utf8_lossy(&t).into_owned());
    let line = match stored_value(before, &args[2]).map(|o| &o.kind) {
        Some(OperandKind::Expr(e)) => match consts::eval(e) {
            Ok(ConstValue::Int(v)) => v.to_string(),
            _ => "?".into(),
        },
        _ => "?".into(),
    };
    Ok(format!("assertion `{}` failed at {}:{line} in {}", text(0)?, text(1)?, text(3)?))
}

/// The operand stored into call argument `arg` (a `.param` variable) before the call
/// (`st.param.b64 [param0], %rd`).
fn stored_value<'a>(before: &'a [Statement], arg: &ast::Operand) -> Option<&'a ast::Operand> {
    let OperandKind::Symbol { name: param, .. } = &arg.kind else { return None };
    before.iter().rev().find_map(|s| match s {
        Statement::Instruction(st) if st.opcode.name == "st" && st.modifiers.iter().any(|m| m.text == "param") => {
            match st.operands.first().map(|o| &o.kind) {
                Some(OperandKind::Address(parts)) if parts.len() == 1 => {
                    let hit = match &parts[0].kind {
                        OperandKind::Symbol { name, .. } => name == param,
                        OperandKind::Expr(e) => matches!(consts::eval(e), Ok(ConstValue::Symbol(s, 0)) if &s == param),
                        _ => false,
                    };
                    hit.then(|| st.operands.get(1))?
                }
                _ => None,
            }
        }
        _ => None,
    })
}

/// The global a string argument points to (its symbol, byte offset and text): the value
/// stored into the `.param` argument before the call, followed through single definitions of
/// `mov` (of a symbol), `cvta.global` and `add` of a constant.
fn format_source<'a>(
    module: &ast::Module,
    before: &'a [Statement],
    arg: &ast::Operand,
    defs: &HashMap<&str, Vec<&'a ast::Instruction>>,
) -> Result<(String, i64, Vec<u8>), String> {
    let value = stored_value(before, arg).ok_or("no store of the string into the call's `.param` argument")?;
    let (symbol, offset) = address_source(value, defs, 0)?;
    let text = constant_string(module, &symbol, offset)?;
    Ok((symbol, offset, text))
}

fn address_source(value: &ast::Operand, defs: &HashMap<&str, Vec<&ast::Instruction>>, depth: u32) -> Result<(String, i64), String> {
    let run_time = || "the format is not provably a constant string of the module (a run-time format)".to_string();
    if depth > 16 {
        return Err(run_time());
    }
    match &value.kind {
        OperandKind::Expr(e) => match consts::eval(e) {
            Ok(ConstValue::Symbol(s, o)) => Ok((s, o)),
            _ => Err(run_time()),
        },
        OperandKind::Symbol { name, component: None } if !name.starts_with('%') || defs.contains_key(name.as_str()) => {
            let Some(found) = defs.get(name.as_str()) else {
                return Ok((name.to_string(), 0));
            };
            let [def] = found.as_slice() else { return Err(run_time()) };
            if def.guard.is_some() {
                return Err(run_time());
            }
            let mods: Vec<&str> = def.modifiers.iter().map(|m| m.text.as_str()).collect();
            match (def.opcode.name.as_str(), mods.as_slice(), def.operands.as_slice()) {
                ("mov", ["u64" | "b64" | "s64"], [_, src]) | ("cvta", ["global", "u64"], [_, src]) => address_source(src, defs, depth + 1),
                ("add", ["u64" | "s64"], [_, a, b]) => {
                    let k = |o: &ast::Operand| match &o.kind {
                        OperandKind::Expr(e) => match consts::eval(e) {
                            Ok(ConstValue::Int(i)) => Some(i as i64),
                            _ => None,
                        },
                        _ => None,
                    };
                    let (base, off) = match (k(a), k(b)) {
                        (None, Some(o)) => (a, o),
                        (Some(o), None) => (b, o),
                        _ => return Err(run_time()),
                    };
                    let (s, o) = address_source(base, defs, depth + 1)?;
                    Ok((s, o.wrapping_add(off)))
                }
                _ => Err(run_time()),
            }
        }
        _ => Err(run_time()),
    }
}

/// The bytes of module-scope byte array `symbol` from `offset` up to its NUL, from its
/// initializer.
fn constant_string(module: &ast::Module, symbol: &str, offset: i64) -> Result<Vec<u8>, String> {
    let not_const = || format!("the format `{symbol}` is not an initialized byte array of the module");
    let decl = module
        .items
        .iter()
        .find_map(|i| match i {
            ast::Item::Var(d) if matches!(d.space, StateSpace::Global | StateSpace::Const) => {
                d.names.iter().find(|n| n.name.name == symbol).map(|n| (d, n))
            }
            _ => None,
        })
        .ok_or_else(not_const)?;
    let (d, n) = decl;
    if d.ty.size_bytes() != 1 || d.vector.is_some() {
        return Err(not_const());
    }
    let Some(Initializer::List(items, _)) = &n.init else { return Err(not_const()) };
    let mut bytes = Vec::with_capacity(items.len());
    for item in items {
        let Initializer::Expr(e) = item else { return Err(not_const()) };
        match consts::eval(e) {
            Ok(ConstValue::Int(v)) => bytes.push(v as u8),
            _ => return Err(not_const()),
        }
    }
    // The declared size may exceed the initializer (the rest is zero).
    let len = n.array.first().copied().flatten().unwrap_or(bytes.len() as u64);
    bytes.resize(len.max(bytes.len() as u64) as usize, 0);
    let start = usize::try_from(offset).ok().filter(|&s| s < bytes.len()).ok_or_else(not_const)?;
    let text = &bytes[start..];
    let end = text.iter().position(|&b| b == 0).ok_or_else(|| format!("the format `{symbol}` has no terminating NUL"))?;
    Ok(text[..end].to_vec())
}

/// Lowers `call (ret), vprintf, (fmt, args)`: appends one record to the printf buffer.
pub fn lower_vprintf(fl: &mut FnLower, sites: &Sites, inst: &ast::Instruction, rets: &[&ast::Operand], args: &[&ast::Operand]) -> LResult<()> {
    // Refusals point at the callee's name, as the unresolved-function error does.
    let at = inst.operands.iter().find(|o| matches!(&o.kind, OperandKind::Symbol { name, .. } if name == "vprintf")).map_or(inst.span, |o| o.span);
    let refuse = |why: &str| unsupported(format!("device-side `printf`: {why}"), at);
    let site = sites.by_call.get(&inst.span.start).ok_or_else(|| refuse("a `vprintf` call ptxcross did not find before lowering"))?;
    let (symbol, offset, text) = site.as_ref().map_err(|why| refuse(why))?;
    if fl.address_size != 64 || args.len() != 2 || rets.len() > 1 {
        return Err(refuse("a `vprintf` call other than nvcc's (64-bit addresses, two arguments, one result)"));
    }
    let global = |fl: &FnLower, name: &str| match fl.lookup(name) {
        Some(&Symbol::Global { offset }) => Some(offset),
        _ => None,
    };
    let string_at = global(fl, symbol).ok_or_else(|| refuse(&format!("the format `{symbol}` is not a global of the module")))?;
    let region = global(fl, REGION_NAME).ok_or_else(|| refuse("the module declares no `vprintf`"))?;
    let key = u32::try_from(string_at as i64 + offset + 1).map_err(|_| refuse("a format beyond 4 GiB of globals"))?;
    let format = parse(text, key).map_err(|why| refuse(&format!("not supported yet in a format: {why}")))?;
    let record = format.record_bytes();
    if record > REGION_CAPACITY {
        return Err(refuse("a record larger than the printf buffer"));
    }

    let arg_buffer = if format.arg_bytes > 0 { Some(pointer_argument(fl, args[1])?) } else { None };
    let base = fl.globals_base();
    let region_at = fl.bin(BinaryOp::Add, Ty::U64, base, FnLower::u64c(region));
    // Once the buffer is full nobody claims more, so the 32-bit claim counter cannot wrap
    // (claims racing past the check add at most one record each beyond the capacity).
    let claimed = fl.global_atomic_u32(region_at, AtomicOp::Or, FnLower::u32c(0))?;
    let open = fl.cmp(CmpOp::LeU, Ty::U32, claimed, FnLower::u32c(REGION_CAPACITY));
    let drop = |fl: &mut FnLower| {
        fl.collect(|fl| {
            let dropped = fl.bin(BinaryOp::Add, Ty::U64, region_at, FnLower::u64c(4));
            fl.global_atomic_u32(dropped, AtomicOp::Add, FnLower::u32c(1)).map(|_| ())
        })
    };
    let claim = fl.collect(|fl| {
        let old = fl.global_atomic_u32(region_at, AtomicOp::Add, FnLower::u32c(record))?;
        // `old + record <= capacity`, without overflow (`record <= capacity`).
        let fits = fl.cmp(CmpOp::LeU, Ty::U32, old, FnLower::u32c(REGION_CAPACITY - record));
        let write = fl.collect(|fl| {
            let at = fl.resize(old, Ty::U32, Ty::U64, false);
            let at = fl.bin(BinaryOp::Add, Ty::U64, region_at, at);
            let at = fl.bin(BinaryOp::Add, Ty::U64, at, FnLower::u64c(REGION_HEADER_BYTES as u64));
            fl.global_store_u32(at, FnLower::u32c(key))?;
            if let Some(src) = arg_buffer {
                for w in 0..format.arg_bytes.div_ceil(4) {
                    let from = fl.bin(BinaryOp::Add, Ty::U64, src, FnLower::u64c(4 * w as u64));
                    let v = fl.generic_load_u32(from)?;
                    let to = fl.bin(BinaryOp::Add, Ty::U64, at, FnLower::u64c(4 + 4 * w as u64));
                    fl.global_store_u32(to, v)?;
                }
            }
            Ok(())
        })?;
        let dropped = drop(fl)?;
        fl.emit_if(fits, write, dropped);
        Ok(())
    })?;
    let full = drop(fl)?;
    fl.emit_if(open, claim, full);
    // CUDA's `printf` returns the number of arguments parsed.
    if let Some(ret) = rets.first() {
        let n = FnLower::u32c(format.args);
        match &ret.kind {
            OperandKind::Symbol { name, component: None } if matches!(fl.lookup(name), Some(Symbol::Local { .. })) => {
                let Some(&Symbol::Local { offset, .. }) = fl.lookup(name) else { unreachable!() };
                let at = fl.local_offset(offset, 0);
                fl.store_bytes(Memory::Local, at, 4, n);
            }
            _ => fl.write(ret, ast::ScalarType::B32, n)?,
        }
    }
    fl.printf_formats.retain(|f| f.key != key);
    fl.printf_formats.push(format);
    Ok(())
}

/// Lowers `call __assertfail, (message, file, line, function, charSize)` (CUDA's failed
/// `assert`): the thread records `abi::FAULT_ASSERT` with a fault site naming the assertion and
/// stops, and the launch fails (CUDA: `cudaErrorAssert`).
pub fn lower_assertfail(fl: &mut FnLower, sites: &Sites, inst: &ast::Instruction) -> LResult<()> {
    let at = inst.operands.iter().find(|o| matches!(&o.kind, OperandKind::Symbol { name, .. } if name == "__assertfail")).map_or(inst.span, |o| o.span);
    let text = match sites.asserts.get(&inst.span.start) {
        Some(Ok(t)) => t.clone(),
        Some(Err(why)) => return Err(unsupported(format!("device-side `assert`: {why}"), at)),
        None => return Err(unsupported("device-side `assert`: an `__assertfail` call ptxcross did not find before lowering", at)),
    };
    // The site holds the assertion's text (the call's own site, set before, is overwritten
    // here, right before the fault).
    let id = fl.record_fault_site(inst);
    if let Some(site) = fl.fault_sites.last_mut() {
        site.instruction = text;
    }
    let var = match fl.fault_site_var {
        Some(v) => v,
        None => {
            let v = fl.new_var(Ty::U32, "fault site");
            fl.fault_site_var = Some(v);
            v
        }
    };
    let stop = fl.new_node();
    fl.blocks[stop].stmts.push(crate::ir::Stmt::Assign { dst: var, expr: crate::ir::Expr::Use(FnLower::u32c(id)) });
    fl.blocks[stop].stmts.push(crate::ir::Stmt::Fault { code: crate::abi::FAULT_ASSERT });
    fl.blocks[stop].term = crate::cfg::Terminator::Return;
    let after = fl.new_node();
    fl.terminate(crate::cfg::Terminator::Jump(stop), after);
    Ok(())
}

/// The 64-bit value of a call argument: a `.param` variable's (in local memory), or a register.
fn pointer_argument(fl: &mut FnLower, arg: &ast::Operand) -> LResult<Operand> {
    if let OperandKind::Symbol { name, component: None } = &arg.kind {
        if let Some(&Symbol::Local { offset, .. }) = fl.lookup(name) {
            let at = fl.local_offset(offset, 0);
            return Ok(fl.load_bytes(Memory::Local, at, 8));
        }
    }
    fl.read(arg, ast::ScalarType::B64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_follows_c_varargs() {
        let f = parse(b"%d %lld %c %s %f %*.*x %%|%5.2e", 1).unwrap();
        let offsets: Vec<(u32, u32)> = f
            .pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Conv(c) => Some((c.offset, c.size)),
                _ => None,
            })
            .collect();
        // int@0, long long@8, char@16, char*@24, double@32, *@40, *@44, unsigned@48, double@56.
        assert_eq!(offsets, vec![(0, 4), (8, 8), (16, 4), (24, 8), (32, 8), (48, 4), (56, 8)]);
        assert_eq!(f.args, 9);
        assert_eq!(f.arg_bytes, 64);
    }

    #[test]
    fn refuses_what_it_cannot_reproduce() {
        for bad in [&b"%n"[..], b"%Lf", b"%lc", b"%ls", b"%q", b"%hf", b"%5"] {
            assert!(parse(bad, 1).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        assert_eq!(parse(b"100%%", 1).unwrap().pieces, vec![Piece::Text(b"100%".to_vec())]);
    }
}
