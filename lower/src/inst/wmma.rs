//! CUDA's tensor-core API in PTX (ISA 8.5 §9.7.15.3): `wmma.load.{a,b,c}`, `wmma.mma`,
//! `wmma.store.d`, for the shapes `.m16n16k16`, `.m8n32k16`, `.m32n8k16` with `.f16`
//! multiplicands (`.f16`/`.f32` accumulators), `.bf16` (`.f32`) and `.s8/.u8` (`.s32`).
//! tf32 (`.m16n16k8`), f64 (`.m8n8k4`) and sub-byte (`.m8n8k32`, `.m8n8k128`) are refused by
//! name, and so is the floating-point `.satfinite` that ISA 6.5 removed.
//!
//! **The fragment layout is ours** (§9.7.15.3.1: "The distribution of fragments loaded by the
//! threads in a warp is unspecified"; a fragment may only meet wmma instructions of the same
//! shape, layout and type, or element-wise operations). Chosen so that `wmma.load`/`store`
//! need no exchange (each lane reads and writes its own elements with `stride`) and all of it
//! is in `wmma.mma`:
//! - A (M×16) is read in row-major order, B (16×N) in column-major order, C/D (M×N) in
//!   row-major order; lane `l` holds the `F` consecutive elements starting at element
//!   `(l / R)·F` of that order, where `F` is the number of elements its fragment registers
//!   hold and `R = 32·F / (rows·cols)` is how many lanes hold each (2 or 4 for `.f16` A and B,
//!   whose eight `.f16x2` registers hold more than a warp's share; 1 elsewhere). So a lane's
//!   elements always lie on one row (A, C/D) or column (B), and slot `s` is the `s`-th.
//! - D: lane `l` computes row `l / G` (G = N/8), columns `8·(l % G) .. +8`. It needs that row
//!   of A, which with `F = 16` the lane holds itself (`R = G`), else the `G` lanes
//!   `(l & !(G-1)) + j` hold a part each; and 8 columns of B, which the warp exchange
//!   ([`FnLower::warp_exchange`]) brings from their lanes.
//!
//! This is not NVIDIA's layout: a program that reads individual fragment elements by
//! position (which the spec leaves undefined) sees other elements here.
//!
//! Arithmetic is `mma`'s ([`FnLower::mma_element`]): products in f32 (exact for f16 and
//! bf16) added to c in order of k, each an f32 add rounded to nearest; "The accumulation
//! order, rounding and handling of subnormal inputs is unspecified" (§9.7.15.3.5). An `.f16`
//! accumulator is widened to f32 and the f32 sum rounded to f16 (to nearest) once, which is
//! "at least half precision". Integers: the exact dot product plus c, wrapped, or with
//! `.satfinite` clamped to s32.

use super::memory::Place;
use super::{operands, Mods};
use crate::function::{unsupported, FnLower, LResult};
use super::half::{Clamp, Rounding, F16, F32};
use crate::ir::{BinaryOp, ConvertOp, Expr, Operand, Ty};
use ptxcross_frontend::ast::ScalarType;
use ptxcross_frontend::Diagnostic;

/// K of every shape implemented.
const K: u32 = 16;

/// The shapes implemented: (M, N).
fn shape_of(m: &Mods) -> Option<(u32, u32)> {
    match m.one_of(&["m16n16k16", "m8n32k16", "m32n8k16"])? {
        "m16n16k16" => Some((16, 16)),
        "m8n32k16" => Some((8, 32)),
        _ => Some((32, 8)),
    }
}

/// The forms named in refusals: tf32, f64 and sub-byte wmma.
const REFUSED_SHAPES: [&str; 4] = ["m16n16k8", "m8n8k4", "m8n8k32", "m8n8k128"];

/// Which matrix a fragment belongs to.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Which {
    A,
    B,
    /// C or D (the same layout: D of one `wmma.mma` is the C of the next).
    Acc,
}

/// One fragment's layout (see the module comment).
#[derive(Clone, Copy, Debug)]
struct Frag {
    /// Elements per lane.
    per_lane: u32,
    /// Bits per element (8, 16 or 32).
    bits: u32,
    /// Lanes holding each element.
    copies: u32,
    /// Length of a line (row for row-major order, column for column-major) of the matrix.
    line: u32,
    /// Whether the fragment runs along columns (B) rather than rows.
    along_columns: bool,
    /// Rows and columns of the matrix.
    rows: u32,
    cols: u32,
}

impl Frag {
    /// The fragment of `which` for shape (m, n) and element type `t`, or None where that
    /// combination does not exist.
    fn new(which: Which, (m, n): (u32, u32), t: ScalarType) -> Option<Frag> {
        use ScalarType::*;
        let (rows, cols) = match which {
            Which::A => (m, K),
            Which::B => (K, n),
            Which::Acc => (m, n),
        };
        let (bits, per_lane) = match (which, t) {
            // Eight .f16x2 registers whatever the shape (§9.7.15.3.1).
            (Which::A | Which::B, F16) => (16, 16),
            (Which::A | Which::B, Bf16) => (16, rows * cols / 32),
            (Which::A | Which::B, S8 | U8) => (8, rows * cols / 32),
            (Which::Acc, F32 | S32) => (32, 8),
            (Which::Acc, F16) => (16, 8),
            _ => return None,
        };
        let along_columns = which == Which::B;
        Some(Frag {
            per_lane,
            bits,
            copies: 32 * per_lane / (rows * cols),
            line: if along_columns { rows } else { cols },
            along_columns,
            rows,
            cols,
        })
    }

    fn regs(self) -> usize {
        (self.per_lane * self.bits / 32) as usize
    }

    fn per_word(self) -> u32 {
        32 / self.bits
    }

    /// The default stride (§9.7.15.3.2): the leading dimension's length.
    fn default_stride(self, row_major: bool) -> u32 {
        if row_major {
            self.cols
        } else {
            self.rows
        }
    }
}

/// The element type of each matrix of a `wmma.mma`.
struct MmaTypes {
    a: ScalarType,
    b: ScalarType,
    c: ScalarType,
    d: ScalarType,
}

impl FnLower {
    /// `wmma.load`, `wmma.store`, `wmma.mma` (§9.7.15.3.3–5).
    pub(super) fn wmma(&mut self, m: &Mods) -> LResult<()> {
        if let Some(s) = REFUSED_SHAPES.iter().find(|s| m.has(s)) {
            return Err(unsupported(format!("`{}` (wmma `.{s}`: tf32, f64 and sub-byte wmma)", m.name()), m.inst.span));
        }
        match m.inst.modifiers.first().map(|x| x.text.as_str()) {
            Some("load") => self.wmma_load_store(m, true),
            Some("store") => self.wmma_load_store(m, false),
            Some("mma") => self.wmma_mma(m),
            _ => Err(unsupported(format!("instruction `{}`", m.name()), m.inst.span)),
        }
    }

    /// `.sync` and, from ISA 6.3, `.aligned` (implicit before); one `.row`/`.col`.
    fn wmma_common(&self, m: &Mods) -> LResult<()> {
        if !m.has("sync") {
            return Err(Diagnostic::new(format!("`{}` needs .sync", m.name()), m.inst.span));
        }
        self.no_matrix_under_scheduler(m)
    }

    /// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}` and
    /// `wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}`: each lane moves
    /// its own fragment elements (see the module comment), element (r, c) of the matrix
    /// lying at `p + (r·stride + c)·size` (`.row`) or `p + (c·stride + r)·size` (`.col`).
    /// Where a lane's elements are consecutive in memory (its fragment runs along the
    /// leading dimension) whole words move, else element by element. A row start not
    /// aligned as §9.7.15.3.2 asks is undefined; here only an access misaligned for its own
    /// size faults.
    fn wmma_load_store(&mut self, m: &Mods, load: bool) -> LResult<()> {
        let kinds: &[&str] = if load { &["load", "a", "b", "c"] } else { &["store", "d"] };
        let mut allowed = kinds.to_vec();
        allowed.extend(["sync", "aligned", "row", "col", "m16n16k16", "m8n32k16", "m32n8k16", "global", "shared", "shared::cta"]);
        m.only(&allowed)?;
        self.wmma_common(m)?;
        let span = m.inst.span;
        let name = m.name();
        let which = match m.one_of(&["a", "b", "c", "d"]) {
            Some("a") => Which::A,
            Some("b") => Which::B,
            Some(_) => Which::Acc,
            None => return Err(Diagnostic::new(format!("`{name}` needs one of .a, .b, .c (load) or .d (store)"), span)),
        };
        let row_major = match m.one_of(&["row", "col"]) {
            Some(l) if !(m.has("row") && m.has("col")) => l == "row",
            _ => return Err(Diagnostic::new(format!("`{name}` needs one layout, .row or .col"), span)),
        };
        let Some(shape) = shape_of(m) else {
            return Err(Diagnostic::new(format!("`{name}` needs a shape"), span));
        };
        let t = m.ty()?;
        let Some(frag) = Frag::new(which, shape, t) else {
            return Err(unsupported(format!("`{name}` (element type .{})", t.suffix()), span));
        };
        let space = self.state_space(m)?;
        let ops = &m.inst.operands;
        if ops.len() != 2 && ops.len() != 3 {
            return Err(Diagnostic::new(format!("`{name}` takes 2 or 3 operands (with a stride), found {}", ops.len()), span));
        }
        let (regs_op, addr) = if load { (&ops[0], &ops[1]) } else { (&ops[1], &ops[0]) };
        let regs = super::matrix::vector_operands(regs_op, frag.regs(), m, "the fragment")?;
        let stride = match ops.get(2) {
            Some(s) => self.read(s, ScalarType::U32)?,
            None => FnLower::u32c(frag.default_stride(row_major)),
        };
        let place = self.place(addr, space)?;
        if matches!(place, Place::Fixed(crate::ir::Memory::Param | crate::ir::Memory::Local, _)) {
            return Err(Diagnostic::new(format!("`{name}` accesses .global or .shared memory only"), addr.span));
        }

        // This lane's line (row or column of the matrix) and first position on it.
        let u = FnLower::u32c;
        let t_id = self.linear_tid();
        let lane = self.bin(BinaryOp::And, Ty::U32, t_id, u(31));
        let block = self.bin(BinaryOp::ShrU, Ty::U32, lane, u(frag.copies.trailing_zeros()));
        let first = self.bin(BinaryOp::Mul, Ty::U32, block, u(frag.per_lane));
        let line = self.bin(BinaryOp::ShrU, Ty::U32, first, u(frag.line.trailing_zeros()));
        let pos = self.bin(BinaryOp::And, Ty::U32, first, u(frag.line - 1));
        // Consecutive in memory when the fragment runs along the leading dimension.
        let contiguous = row_major != frag.along_columns;
        let size = frag.bits / 8;
        // Byte offset from p of the element at position `pos + j` of the lane's line.
        let element_offset = |s: &mut Self, j: u32| -> Operand {
            let p = s.bin(BinaryOp::Add, Ty::U32, pos, u(j));
            let (major, minor) = if contiguous { (line, p) } else { (p, line) };
            let e = s.bin(BinaryOp::Mul, Ty::U32, major, stride);
            let e = s.bin(BinaryOp::Add, Ty::U32, e, minor);
            s.bin(BinaryOp::Mul, Ty::U32, e, u(size))
        };
        let per_word = frag.per_word();
        if load {
            let words: Vec<_> = regs.iter().map(|_| self.new_var(Ty::U32, "wmma fragment")).collect();
            self.on_place(place, |s, mem, off| {
                for (w, &var) in words.iter().enumerate() {
                    let j0 = w as u32 * per_word;
                    let v = if contiguous || per_word == 1 {
                        let o = element_offset(s, j0);
                        let o = s.bin(BinaryOp::Add, Ty::U32, off, o);
                        s.load_bytes(mem, o, 4)
                    } else {
                        let mut v = u(0);
                        for i in 0..per_word {
                            let o = element_offset(s, j0 + i);
                            let o = s.bin(BinaryOp::Add, Ty::U32, off, o);
                            let e = s.load_bytes(mem, o, size);
                            let e = s.bin(BinaryOp::Shl, Ty::U32, e, u(i * frag.bits));
                            v = s.bin(BinaryOp::Or, Ty::U32, v, e);
                        }
                        v
                    };
                    s.assign(var, Expr::Use(v));
                }
                Ok(())
            })?;
            for (dst, var) in regs.iter().zip(words) {
                self.write(dst, ScalarType::B32, Operand::Var(var))?;
            }
            Ok(())
        } else {
            let values: Vec<Operand> = regs.iter().map(|r| self.read(r, ScalarType::B32)).collect::<LResult<_>>()?;
            self.on_place(place, |s, mem, off| {
                for (w, &v) in values.iter().enumerate() {
                    let j0 = w as u32 * per_word;
                    if contiguous || per_word == 1 {
                        let o = element_offset(s, j0);
                        let o = s.bin(BinaryOp::Add, Ty::U32, off, o);
                        s.store_bytes(mem, o, 4, v);
                    } else {
                        for i in 0..per_word {
                            let o = element_offset(s, j0 + i);
                            let o = s.bin(BinaryOp::Add, Ty::U32, off, o);
                            let e = s.bin(BinaryOp::ShrU, Ty::U32, v, u(i * frag.bits));
                            s.store_bytes(mem, o, size, e);
                        }
                    }
                }
                Ok(())
            })
        }
    }

    /// The element types of `wmma.mma`'s matrices, or None for a form not implemented.
    fn wmma_mma_types(m: &Mods) -> Option<MmaTypes> {
        use ScalarType::*;
        let satfinite = m.has("satfinite");
        Some(match m.types().as_slice() {
            // `.dtype.ctype`, multiplicands implicitly .f16; floating-point `.satfinite` was
            // removed in ISA 6.5.
            &[d @ (F16 | F32), c @ (F16 | F32)] if !satfinite => MmaTypes { a: F16, b: F16, c, d },
            &[F32, Bf16, Bf16, F32] if !satfinite => MmaTypes { a: Bf16, b: Bf16, c: F32, d: F32 },
            // "the values for .atype and .btype must be the same".
            &[S32, a @ (S8 | U8), b, S32] if a == b => MmaTypes { a, b, c: S32, d: S32 },
            _ => return None,
        })
    }

    /// `wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c` (and the
    /// `.bf16`, `.s8/.u8` forms), D = A·B + C: see the module comment for who computes what.
    fn wmma_mma(&mut self, m: &Mods) -> LResult<()> {
        m.only(&["mma", "sync", "aligned", "row", "col", "m16n16k16", "m8n32k16", "m32n8k16", "satfinite"])?;
        self.wmma_common(m)?;
        let span = m.inst.span;
        let name = m.name();
        let layouts = m.inst.modifiers.iter().filter(|x| matches!(x.text.as_str(), "row" | "col")).count();
        let (Some(shape), Some(types), 2) = (shape_of(m), Self::wmma_mma_types(m), layouts) else {
            return Err(unsupported(format!("`{name}`"), span));
        };
        let frag = |which, t| Frag::new(which, shape, t).ok_or_else(|| unsupported(format!("`{name}`"), span));
        let (fa, fb, fc, fd) = (frag(Which::A, types.a)?, frag(Which::B, types.b)?, frag(Which::Acc, types.c)?, frag(Which::Acc, types.d)?);
        let [d, a, b, c] = operands(m.inst, 4)? else { unreachable!() };
        let d = super::matrix::vector_operands(d, fd.regs(), m, "d")?;
        let a = super::matrix::vector_operands(a, fa.regs(), m, "a")?;
        let b = super::matrix::vector_operands(b, fb.regs(), m, "b")?;
        let c = super::matrix::vector_operands(c, fc.regs(), m, "c")?;
        let a: Vec<Operand> = a.iter().map(|r| self.read(r, ScalarType::B32)).collect::<LResult<_>>()?;
        let b: Vec<Operand> = b.iter().map(|r| self.read(r, ScalarType::B32)).collect::<LResult<_>>()?;
        let c: Vec<Operand> = c.iter().map(|r| self.read(r, ScalarType::B32)).collect::<LResult<_>>()?;

        let u = FnLower::u32c;
        let g = shape.1 / 8;
        let t_id = self.linear_tid();
        let lane = self.bin(BinaryOp::And, Ty::U32, t_id, u(31));
        let group_base = self.bin(BinaryOp::And, Ty::U32, lane, u(!(g - 1) & 31));
        let in_group = self.bin(BinaryOp::And, Ty::U32, lane, u(g - 1));
        // B's holders: lane (l % G)·step + const (see `b_place`).
        let b_step = 8 * K * fb.copies / fb.per_lane;
        let b_base = self.bin(BinaryOp::Mul, Ty::U32, in_group, u(b_step));
        let a_local = fa.per_lane >= K;

        // Where a_k (of the lane's row) and b_k of column slot s lie: a local word, or a word
        // of another lane (the fragment's word index, the holder's lane offset from its base).
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        enum At {
            Own(usize),
            A { word: usize, lane: u32 },
            B { word: usize, lane: u32 },
        }
        let a_place = |k: u32| -> (At, u32) {
            if a_local {
                (At::Own((k / fa.per_word()) as usize), k % fa.per_word())
            } else {
                let slot = k % fa.per_lane;
                (At::A { word: (slot / fa.per_word()) as usize, lane: k / fa.per_lane }, slot % fa.per_word())
            }
        };
        let b_place = |s: u32, k: u32| -> (At, u32) {
            // Column j = 8·(l % G) + s, element e = j·K + k of B's column-major order, held
            // by lanes (e / F)·R (the first copy) at slot e % F; 8·K is a multiple of F.
            let e = s * K + k;
            let slot = e % fb.per_lane;
            (At::B { word: (slot / fb.per_word()) as usize, lane: (e / fb.per_lane) * fb.copies }, slot % fb.per_word())
        };
        let mut wanted: Vec<At> = Vec::new();
        for s in 0..8 {
            for k in 0..K {
                for (at, _) in [a_place(k), b_place(s, k)] {
                    if !matches!(at, At::Own(_)) && !wanted.contains(&at) {
                        wanted.push(at);
                    }
                }
            }
        }
        // The words offered: A's (when it is not local) then B's; in exchanges of at most
        // `MATRIX_WORDS` offered words each.
        let mut offered: Vec<(At, Operand)> = Vec::new();
        if !a_local {
            offered.extend(a.iter().enumerate().map(|(w, &v)| (At::A { word: w, lane: 0 }, v)));
        }
        offered.extend(b.iter().enumerate().map(|(w, &v)| (At::B { word: w, lane: 0 }, v)));
        let word_of = |at: At| match at {
            At::A { word, .. } => At::A { word, lane: 0 },
            At::B { word, .. } => At::B { word, lane: 0 },
            own => own,
        };
        let mut got: std::collections::HashMap<At, Operand> = std::collections::HashMap::new();
        for chunk in offered.chunks(super::warp::MATRIX_WORDS as usize) {
            let words: Vec<Operand> = chunk.iter().map(|&(_, v)| v).collect();
            let mine: Vec<At> = wanted.iter().copied().filter(|&at| chunk.iter().any(|&(o, _)| o == word_of(at))).collect();
            let reads: Vec<(usize, Operand)> = mine
                .iter()
                .map(|&at| {
                    let w = chunk.iter().position(|&(o, _)| o == word_of(at)).expect("offered");
                    let lane = match at {
                        At::A { lane, .. } => self.bin(BinaryOp::Add, Ty::U32, group_base, u(lane)),
                        At::B { lane, .. } => self.bin(BinaryOp::Add, Ty::U32, b_base, u(lane)),
                        At::Own(_) => unreachable!("own words are not exchanged"),
                    };
                    (w, lane)
                })
                .collect();
            let values = self.warp_exchange(&words, &reads, span);
            got.extend(mine.into_iter().zip(values));
        }
        let word = |at: At| match at {
            At::Own(w) => a[w],
            other => got[&other],
        };

        let integer = types.a != ScalarType::F16 && types.a != ScalarType::Bf16;
        let satfinite = m.has("satfinite");
        let mut results = Vec::new();
        for s in 0..8u32 {
            let c_s = self.wmma_acc_element(&c, types.c, s);
            let mut args = vec![c_s];
            let mut at_k = Vec::new();
            for k in 0..K {
                let (ta, ia) = a_place(k);
                let ka = self.matrix_arg(&mut args, word(ta));
                let (tb, ib) = b_place(s, k);
                let kb = self.matrix_arg(&mut args, word(tb));
                at_k.push(((ka, ia), (kb, ib)));
            }
            let mut tys = vec![if integer { Ty::U32 } else { Ty::F32 }];
            tys.resize(args.len(), Ty::U32);
            let key = format!("mma_element,{:?},{:?},{satfinite},{at_k:?}", types.a, types.b);
            let ret = tys[0];
            let bits = fa.bits;
            let (at, bt) = (types.a, types.b);
            results.push(self.outlined(&key, &args, &tys, ret, |s, x| s.mma_element(x, &at_k, bits, at, bt, satfinite)));
        }
        // D's registers: one element each, or two f16 rounded to nearest.
        for (w, dst) in d.iter().enumerate() {
            let v = match types.d {
                ScalarType::F32 => self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, results[w]),
                ScalarType::F16 => {
                    let mut v = u(0);
                    for h in 0..2 {
                        let bits = self.convert(ConvertOp::Bitcast, Ty::F32, Ty::U32, results[2 * w + h]);
                        let r = self.round_to_format(bits, F32, F16, Rounding::Nearest, Clamp::default());
                        let r = self.bin(BinaryOp::Shl, Ty::U32, r, u(16 * h as u32));
                        v = self.bin(BinaryOp::Or, Ty::U32, v, r);
                    }
                    v
                }
                _ => results[w],
            };
            self.write(dst, ScalarType::B32, v)?;
        }
        Ok(())
    }

    /// Element `s` of accumulator fragment `c` (raw words) of type `t`, as `mma_element`
    /// takes c: an f32 (an f16 widened exactly) or a 32-bit integer.
    fn wmma_acc_element(&mut self, c: &[Operand], t: ScalarType, s: u32) -> Operand {
        match t {
            ScalarType::F16 => {
                let h = self.bin(BinaryOp::ShrU, Ty::U32, c[(s / 2) as usize], FnLower::u32c(16 * (s % 2)));
                self.half_to_f32(h, F16)
            }
            ScalarType::F32 => self.convert(ConvertOp::Bitcast, Ty::U32, Ty::F32, c[s as usize]),
            _ => c[s as usize],
        }
    }
}
