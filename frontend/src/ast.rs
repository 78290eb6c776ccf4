//! The PTX abstract syntax tree.
//!
//! The tree is deliberately *generic* over instructions: an instruction is an opcode, a list of
//! dot-modifiers and a list of operands. That way every instruction of every ISA version parses
//! (chapter 9 of the spec keeps growing), and deciding what an instruction means is the job of
//! `ptxcross-lower`, which reports "not supported yet: X at file:line:col" with the spans kept here.
//!
//! Every node carries a [`Span`] (byte offsets into the source) so later stages can point at it.

/// A half-open byte range `[start, end)` into the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// The string type of names in the tree (identifiers, opcodes, modifiers, symbols): a
/// [`CompactString`](compact_str::CompactString), which stores strings of up to 24 bytes inline
/// (no heap allocation; almost every register, opcode and modifier is that short) and derefs to
/// `str`, so `&name[..]`, `name == "x"` and `name.as_str()` work as with `String`.
pub type Name = compact_str::CompactString;

/// An identifier with its place: registers (`%r1`), symbols (`_Z6vecaddPfS_S_i`), labels
/// (`$L__BB0_2`), special registers (`%tid`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: Name,
    pub span: Span,
}

/// A whole `.ptx` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// `.version major.minor`
    pub version: Option<(u32, u32)>,
    /// `.target` entries in order, e.g. `["sm_80"]` or `["sm_52", "texmode_independent"]`.
    pub target: Vec<String>,
    /// `.address_size 32|64`
    pub address_size: Option<u32>,
    pub items: Vec<Item>,
}

impl Module {
    /// The number of the module's `.target sm_NN{a,f}` (`sm_90a` → 90), if it names one.
    pub fn sm_version(&self) -> Option<u32> {
        self.target.iter().find_map(|t| sm_number(t))
    }
}

/// The number of a `.target` entry `sm_NN{a,f}` (`sm_90a` → 90), if it is one.
pub fn sm_number(target: &str) -> Option<u32> {
    let digits = target.strip_prefix("sm_")?;
    let end = digits.find(|c: char| !c.is_ascii_digit()).unwrap_or(digits.len());
    digits[..end].parse().ok()
}

/// A module-scope item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `.entry` or `.func`, with or without a body.
    Function(Function),
    /// Module-scope variable: `.global`, `.const`, `.shared`, `.local`, `.tex`…
    Var(VarDecl),
    /// Any other directive (`.file`, `.section`, `.pragma`, `.alias`, `@@dwarf`, `.loc` …):
    /// kept so the printer round-trips it; lower ignores what it does not need.
    Directive(Directive),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function.
    Func,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linkage {
    Visible,
    Extern,
    Weak,
    Common,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub kind: FunctionKind,
    pub linkage: Vec<Linkage>,
    pub name: Ident,
    /// `.func (.param .b32 ret) name (...)`: the return parameters; empty for `.entry`.
    pub returns: Vec<Param>,
    pub params: Vec<Param>,
    /// Performance-tuning and other directives between the header and the body:
    /// `.maxntid 256, 1, 1`, `.reqntid`, `.minnctapersm`, `.maxnreg`, `.noreturn`,
    /// `.pragma "nounroll";`, `.explicitcluster`, `.reqnctapercluster` …
    pub directives: Vec<Directive>,
    /// `None` for a declaration (prototype) ending in `;`.
    pub body: Option<Vec<Statement>>,
    pub span: Span,
}

/// A state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    /// `.shared::cta`
    SharedCta,
    /// `.shared::cluster`
    SharedCluster,
    Tex,
    /// `.param::entry` / `.param::func`
    ParamEntry,
    ParamFunc,
}

/// A fundamental type: `.u32`, `.f16x2`, `.pred` … (spec §5.2.1 and the packed types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    Tf32,
    F32,
    F64,
    /// `.e4m3`, `.e5m2`, `.e4m3x2` … and other narrow formats: kept by name.
    E4m3,
    E5m2,
    E4m3x2,
    E5m2x2,
    /// Opaque types: `.texref`, `.samplerref`, `.surfref`.
    TexRef,
    SamplerRef,
    SurfRef,
}

impl ScalarType {
    /// Parses the text after the dot (`"u32"` → `U32`).
    pub fn from_suffix(s: &str) -> Option<ScalarType> {
        use ScalarType::*;
        Some(match s {
            "pred" => Pred,
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            "b128" => B128,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "f16" => F16,
            "f16x2" => F16x2,
            "bf16" => Bf16,
            "bf16x2" => Bf16x2,
            "tf32" => Tf32,
            "f32" => F32,
            "f64" => F64,
            "e4m3" => E4m3,
            "e5m2" => E5m2,
            "e4m3x2" => E4m3x2,
            "e5m2x2" => E5m2x2,
            "texref" => TexRef,
            "samplerref" => SamplerRef,
            "surfref" => SurfRef,
            _ => return None,
        })
    }

    /// The suffix as written, without the dot.
    pub fn suffix(self) -> &'static str {
        use ScalarType::*;
        match self {
            Pred => "pred",
            B8 => "b8",
            B16 => "b16",
            B32 => "b32",
            B64 => "b64",
            B128 => "b128",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            F16 => "f16",
            F16x2 => "f16x2",
            Bf16 => "bf16",
            Bf16x2 => "bf16x2",
            Tf32 => "tf32",
            F32 => "f32",
            F64 => "f64",
            E4m3 => "e4m3",
            E5m2 => "e5m2",
            E4m3x2 => "e4m3x2",
            E5m2x2 => "e5m2x2",
            TexRef => "texref",
            SamplerRef => "samplerref",
            SurfRef => "surfref",
        }
    }

    /// Size in bytes (predicates count as 1; opaque handles as 8).
    pub fn size_bytes(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred | B8 | U8 | S8 | E4m3 | E5m2 => 1,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 => 2,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 => 4,
            B64 | U64 | S64 | F64 | TexRef | SamplerRef | SurfRef => 8,
            B128 => 16,
        }
    }
}

/// A kernel or function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// `.param` (the usual), `.reg` (old-style ABI), or none written.
    pub space: Option<StateSpace>,
    /// `.ptr` attributes: `.ptr .global .align 8` → space Global, align 8.
    pub ptr: Option<PtrAttr>,
    pub align: Option<u32>,
    pub ty: ScalarType,
    /// `.v2` / `.v4` before the type (rare in params), else `None`.
    pub vector: Option<u32>,
    pub name: Ident,
    /// Array dimensions: `.param .align 8 .b8 s[16]` → `[Some(16)]`; `[]` → `None`.
    pub array: Vec<Option<u64>>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    /// `.global`, `.shared`, `.const`, `.local`; `None` means generic.
    pub space: Option<StateSpace>,
    pub align: Option<u32>,
}

/// A variable declaration: `.reg .b32 %r<5>;`, `.shared .align 4 .b8 tile[1024];`,
/// `.global .u32 counter = 0;`, `.const .f32 lut[4] = {1.0, 2.0, 3.0, 4.0};`
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub linkage: Vec<Linkage>,
    pub space: StateSpace,
    pub align: Option<u32>,
    /// `.v2`, `.v4`, `.v8`
    pub vector: Option<u32>,
    pub ty: ScalarType,
    /// Other attributes (e.g. `.attribute(.managed)`, `.ptr`): kept as written.
    pub attributes: Vec<String>,
    /// One declaration may declare several names: `.reg .pred %p<3>, %q;`
    pub names: Vec<VarName>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarName {
    pub name: Ident,
    /// `%r<N>`: declares `%r0` … `%r{N-1}`.
    pub range: Option<u32>,
    /// Array dimensions; `[]` (unsized, e.g. `.extern .shared .b8 smem[]`) is `None`.
    pub array: Vec<Option<u64>>,
    pub init: Option<Initializer>,
    pub span: Span,
}

/// In the initializer of an opaque variable (`.samplerref`, `.texref`, `.surfref`), the
/// field entries `{ addr_mode_0 = clamp_to_border, filter_mode = nearest }` are
/// `Expr::Binary { op: BinaryOp::Eq, lhs: Expr::Symbol(field), rhs: value }` items of a `List`.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    /// A scalar constant expression (possibly naming a symbol: `= foo + 4`,
    /// `= generic(foo)`, `= mask(0xff, foo)`).
    Expr(Expr),
    /// `{ a, b, {c, d} }`
    List(Vec<Initializer>, Span),
}

/// Directive kept generically: `.pragma "nounroll";` is name `pragma` with one string argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Directive {
    /// Without the leading dot (`loc`, `file`, `section`, `pragma`, `maxntid`, …; `@@dwarf` is `@@dwarf`).
    pub name: String,
    /// The raw text of the rest of the directive (up to, not including, its terminating `;` or
    /// closing `}` for block directives like `.section`), for round-tripping.
    pub raw: String,
    /// Arguments the parser understood: numbers, identifiers, strings.
    pub args: Vec<DirectiveArg>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DirectiveArg {
    Int(i64),
    Ident(String),
    Str(String),
}

/// A statement in a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// `$L__BB0_1:`
    Label(Ident),
    /// `.reg`, `.local`, `.shared`, `.param` declarations inside a body.
    Var(VarDecl),
    Instruction(Instruction),
    /// `{ … }`: a nested scope (used around `call` sequences).
    Block(Vec<Statement>, Span),
    /// `.loc`, `.pragma`, `.section` … inside a body.
    Directive(Directive),
}

/// `@!%p bra.uni $L__BB0_2;`
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub guard: Option<Guard>,
    /// `bra`, `ld`, `mma`, `cp.async`? No: the opcode is the first dot-free word (`cp`), and
    /// everything after it, dot-separated, is a modifier (`async`, `ca`, `shared`, `global`).
    /// Modifiers with `::` stay whole (`shared::cta`).
    pub opcode: Ident,
    pub modifiers: Vec<Modifier>,
    pub operands: Vec<Operand>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    pub negated: bool,
    pub pred: Ident,
    pub span: Span,
}

/// One `.xxx` modifier of an instruction, without the dot: `rn`, `f32`, `global`, `v4`, `shared::cta`.
#[derive(Clone, Debug, PartialEq)]
pub struct Modifier {
    pub text: Name,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub kind: OperandKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind {
    /// A register, variable, label, function name, or special register, possibly with a
    /// component suffix: `%tid.x` is `{ name: "%tid", component: Some("x") }`.
    Symbol { name: Name, component: Option<Name> },
    /// A constant expression (numbers, and arithmetic mixing numbers and symbols: `sym+4`).
    Expr(Expr),
    /// `[a]`, `[a+4]`, `[a+-4]`, `[100]`, `[tex, {x, y}]` (several comma-separated parts).
    Address(Vec<Operand>),
    /// `{%r1, %r2, _}`
    Vector(Vec<Operand>),
    /// `(a, b)`: call argument / return lists.
    List(Vec<Operand>),
    /// `!%p`
    Not(Box<Operand>),
    /// `-%r1` or `-a` where the grammar allows a negated operand (e.g. some mma/selp forms).
    Neg(Box<Operand>),
    /// `%p|%q` (setp's two destinations); also `{r1, r2, r3, r4}|p` (tex/tld4 with a
    /// predicate destination).
    Pair(Box<Operand>, Box<Operand>),
    /// `_`
    Sink,
    /// `a[1]`, `a[N-1]`, `a[%r1+4]`: an element of array variable `a` (spec §6.4.2 "Arrays as
    /// Operands"); the index counts elements, not bytes. The address of the element as a `mov`
    /// source, the element itself as a memory operand (`ld.global.u32 s, a[0];`).
    /// (Added to the fixed interface: needed by spec-valid PTX.)
    Index(Box<Operand>, Box<Operand>),
    /// An operand with a qualifier suffix written right after it: `[a].unified` (`ld`, PTX 8.0)
    /// is `Qualified(Address([a]), "unified")`. (Added to the fixed interface.)
    Qualified(Box<Operand>, Modifier),
}

/// A constant expression (spec §4.6 "Constant Expressions").
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An integer literal; `negative`-free: unary minus is `Unary`. Value as written, 64 bits
    /// (`0xFFFFFFFFFFFFFFFF` and `18446744073709551615U` fit).
    Int { value: u64, unsigned_suffix: bool, span: Span },
    /// `0fXXXXXXXX`: f32 bits.
    F32Bits { bits: u32, span: Span },
    /// `0dXXXXXXXXXXXXXXXX`: f64 bits.
    F64Bits { bits: u64, span: Span },
    /// A decimal float literal like `1.5` or `1e-3` (PTX treats it as f64).
    Float { value: f64, span: Span },
    /// A symbol inside an expression (`foo` in `foo+4`).
    Symbol { name: Name, span: Span },
    Unary { op: UnaryOp, arg: Box<Expr>, span: Span },
    Binary { op: BinaryOp, lhs: Box<Expr>, rhs: Box<Expr>, span: Span },
    /// `c ? a : b`
    Conditional { cond: Box<Expr>, then: Box<Expr>, otherwise: Box<Expr>, span: Span },
    /// `(.s64) x` casts.
    Cast { ty: ScalarType, arg: Box<Expr>, span: Span },
    /// `generic(sym)` in initializers, and the mask() operator (§5.4.4) `0xFF00(expr)`, named
    /// by the mask literal as written: name and arguments.
    Call { name: Name, args: Vec<Expr>, span: Span },
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Int { span, .. }
            | Expr::F32Bits { span, .. }
            | Expr::F64Bits { span, .. }
            | Expr::Float { span, .. }
            | Expr::Symbol { span, .. }
            | Expr::Unary { span, .. }
            | Expr::Binary { span, .. }
            | Expr::Conditional { span, .. }
            | Expr::Cast { span, .. }
            | Expr::Call { span, .. } => *span,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
    LogicalNot,
    Plus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogicalAnd,
    LogicalOr,
}
