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
