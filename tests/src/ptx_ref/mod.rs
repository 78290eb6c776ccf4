//! The semantics of PTX instructions, written from the spec text (PTX ISA, chapter 9.7; the
//! section is cited at each function) and nothing else: independent of `ptxcross-lower` and of
//! its IR interpreter. Operands and results are raw bits (`u64`, low bits used), so NaN
//! payloads and signed zeros are explicit. The sweep tests (`tests/tests/inst_sweep.rs`)
//! compare the translated kernels against these functions.

pub mod approx;
pub mod float;
pub mod fp8;
pub mod half;
pub mod int;
pub mod video;
