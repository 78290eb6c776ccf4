//! The module's functions, written straight as SPIR-V words (SPIR-V §2.3: an instruction is
//! `word count << 16 | opcode`, then its operands) instead of as `rspirv` instruction objects.
//!
//! Why: building an object (and a `Vec` of operands) per instruction, assembling it into words
//! and dropping it again was about half of the SPIR-V emitter's time on the CUB file (issue 11).
//! Functions are the last section of a module (§2.4), so their words simply follow the
//! assembled rest, which `rspirv`'s builder still makes (types, constants, global variables,
//! names, decorations, entry points). The words are the ones the builder wrote: ids are still
//! handed out by the builder, in the same order.

use rspirv::spirv::{Op, Word};

/// The function section under construction, with the builder's checks of its nesting (one
/// function at a time, one block at a time, instructions only inside a block).
#[derive(Default)]
pub(crate) struct FunctionWords {
    words: Vec<u32>,
    in_function: bool,
    in_block: bool,
}

/// What went wrong, for the emitter's internal error.
pub(crate) type Misuse = &'static str;

impl FunctionWords {
    fn push(&mut self, op: Op, head: &[Word], rest: &[Word]) -> Result<(), Misuse> {
        let count = 1 + head.len() + rest.len();
        if count > 0xFFFF {
            return Err("an instruction of more than 65,535 words");
        }
        self.words.push(((count as u32) << 16) | op as u32);
        self.words.extend_from_slice(head);
        self.words.extend_from_slice(rest);
        Ok(())
    }

    /// `OpFunction` (function control none).
    pub(crate) fn begin_function(&mut self, result_type: Word, id: Word, function_type: Word) -> Result<(), Misuse> {
        if self.in_function {
            return Err("a function begun inside another");
        }
        self.in_function = true;
        self.push(Op::Function, &[result_type, id, 0, function_type], &[])
    }

    /// `OpFunctionParameter` (before the function's first block).
    pub(crate) fn parameter(&mut self, ty: Word, id: Word) -> Result<(), Misuse> {
        if !self.in_function || self.in_block {
            return Err("a function parameter outside of a function's head");
        }
        self.push(Op::FunctionParameter, &[ty, id], &[])
    }

    /// `OpLabel`: a new block of the current function.
    pub(crate) fn begin_block(&mut self, label: Word) -> Result<(), Misuse> {
        if !self.in_function {
            return Err("a block outside of a function");
        }
        if self.in_block {
            return Err("a block begun inside another");
        }
        self.in_block = true;
        self.push(Op::Label, &[label], &[])
    }

    /// An instruction inside the current block: `head` (result type and id, or what comes
    /// first), then `rest`.
    pub(crate) fn inst(&mut self, op: Op, head: &[Word], rest: &[Word]) -> Result<(), Misuse> {
        if !self.in_block {
            return Err("an instruction outside of a block");
        }
        self.push(op, head, rest)
    }

    /// A block's last instruction (a branch, a return, `OpUnreachable`, …).
    pub(crate) fn terminate(&mut self, op: Op, head: &[Word], rest: &[Word]) -> Result<(), Misuse> {
        self.inst(op, head, rest)?;
        self.in_block = false;
        Ok(())
    }

    /// `OpFunctionEnd`.
    pub(crate) fn end_function(&mut self) -> Result<(), Misuse> {
        if !self.in_function || self.in_block {
            return Err("a function end outside of a function, or after a block without terminator");
        }
        self.in_function = false;
        self.push(Op::FunctionEnd, &[], &[])
    }

    /// The function section, once every function has ended.
    pub(crate) fn finish(self) -> Result<Vec<u32>, Misuse> {
        if self.in_function {
            return Err("a function without end");
        }
        Ok(self.words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::binary::Assemble;
    use rspirv::dr::{self, Builder};
    use rspirv::spirv::{self, StorageClass};

    /// The words of a function with parameters, a variable, a selection, a switch, a phi and
    /// both returns are the ones `rspirv`'s builder assembles for the same calls.
    #[test]
    fn words_are_the_builders() {
        let mut b = Builder::new();
        let u = b.type_int(32, 0);
        let bt = b.type_bool();
        let p = b.type_pointer(None, StorageClass::Function, u);
        let fty = b.type_function(u, vec![u, bt]);
        let zero = b.constant_bit32(u, 0);
        let (f, entry, l1, l2, merge, v, y, r) = (100, 103, 104, 105, 106, 107, 108, 109);
        let (case, default, after, s) = (111, 112, 113, 114);

        b.begin_function(u, Some(f), spirv::FunctionControl::NONE, fty).unwrap();
        // The builder hands out parameter ids itself: the words below use the same.
        let px = b.function_parameter(u).unwrap();
        let pc = b.function_parameter(bt).unwrap();
        b.begin_block(Some(entry)).unwrap();
        b.variable(p, Some(v), StorageClass::Function, Some(zero));
        b.selection_merge(merge, spirv::SelectionControl::NONE).unwrap();
        b.branch_conditional(pc, l1, l2, []).unwrap();
        b.begin_block(Some(l1)).unwrap();
        b.i_add(u, Some(y), px, zero).unwrap();
        b.branch(merge).unwrap();
        b.begin_block(Some(l2)).unwrap();
        b.branch(merge).unwrap();
        b.begin_block(Some(merge)).unwrap();
        b.phi(u, Some(r), [(y, l1), (zero, l2)]).unwrap();
        b.selection_merge(after, spirv::SelectionControl::NONE).unwrap();
        b.switch(r, default, [(dr::Operand::LiteralBit32(7), case)]).unwrap();
        b.begin_block(Some(case)).unwrap();
        b.composite_extract(u, Some(s), r, [0]).unwrap();
        b.ret_value(r).unwrap();
        b.begin_block(Some(default)).unwrap();
        b.branch(after).unwrap();
        b.begin_block(Some(after)).unwrap();
        b.ret_value(zero).unwrap();
        b.end_function().unwrap();
        let expected: Vec<u32> = b.module_ref().functions.iter().flat_map(|func| func.assemble()).collect();

        let mut w = FunctionWords::default();
        w.begin_function(u, f, fty).unwrap();
        w.parameter(u, px).unwrap();
        w.parameter(bt, pc).unwrap();
        w.begin_block(entry).unwrap();
        w.inst(Op::Variable, &[p, v, StorageClass::Function as u32, zero], &[]).unwrap();
        w.inst(Op::SelectionMerge, &[], &[merge, 0]).unwrap();
        w.terminate(Op::BranchConditional, &[], &[pc, l1, l2]).unwrap();
        w.begin_block(l1).unwrap();
        w.inst(Op::IAdd, &[u, y], &[px, zero]).unwrap();
        w.terminate(Op::Branch, &[], &[merge]).unwrap();
        w.begin_block(l2).unwrap();
        w.terminate(Op::Branch, &[], &[merge]).unwrap();
        w.begin_block(merge).unwrap();
        w.inst(Op::Phi, &[u, r, y, l1, zero, l2], &[]).unwrap();
        w.inst(Op::SelectionMerge, &[], &[after, 0]).unwrap();
        w.terminate(Op::Switch, &[r, default], &[7, case]).unwrap();
        w.begin_block(case).unwrap();
        w.inst(Op::CompositeExtract, &[u, s, r, 0], &[]).unwrap();
        w.terminate(Op::ReturnValue, &[], &[r]).unwrap();
        w.begin_block(default).unwrap();
        w.terminate(Op::Branch, &[], &[after]).unwrap();
        w.begin_block(after).unwrap();
        w.terminate(Op::ReturnValue, &[], &[zero]).unwrap();
        w.end_function().unwrap();
        assert_eq!(w.finish().unwrap(), expected);
    }

    /// Misuse is an error, never a malformed section (nor a panic).
    #[test]
    fn misuse_is_refused() {
        let mut w = FunctionWords::default();
        assert!(w.begin_block(1).is_err(), "a block outside of a function");
        assert!(w.inst(Op::Nop, &[], &[]).is_err(), "an instruction outside of a block");
        w.begin_function(1, 2, 3).unwrap();
        assert!(w.begin_function(1, 4, 3).is_err(), "nested functions");
        w.begin_block(5).unwrap();
        assert!(w.parameter(1, 6).is_err(), "a parameter after the first block");
        assert!(w.begin_block(7).is_err(), "nested blocks");
        assert!(w.end_function().is_err(), "a block without terminator");
        assert!(w.inst(Op::Nop, &[], &vec![0; 0x10000]).is_err(), "an instruction too long to encode");
        w.terminate(Op::Return, &[], &[]).unwrap();
        assert!(w.inst(Op::Nop, &[], &[]).is_err(), "an instruction after the terminator");
        let open = FunctionWords { in_function: true, ..FunctionWords::default() };
        assert!(open.finish().is_err(), "a function without end");
        w.end_function().unwrap();
        assert_eq!(w.finish().unwrap().len(), 5 + 2 + 1 + 1);
    }
}
