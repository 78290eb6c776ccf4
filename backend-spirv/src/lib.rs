//! ptxcross SPIR-V backend: structured IR ([`ptxcross_lower::ir`]) → SPIR-V 1.3 words for
//! Vulkan 1.1 (`GLCompute`, `Logical`/`GLSL450`), one entry point per kernel.
//!
//! - [`emit`] translates a module; the resource interface follows [`ptxcross_lower::abi`]:
//!   set 0, binding `BINDING_HEAP` = the heap (`StorageBuffer` block of a runtime `u32` array),
//!   binding `BINDING_PARAMS` = the parameters (same shape, `NonWritable`); shared memory is a
//!   `Workgroup` array and local memory a `Private` array per kernel.
//! - Capabilities: `Shader`, plus `Int64` / `Float64` only when something 64-bit is emitted
//!   (or the kernel's features ask for it). Nothing else: no 8/16-bit storage, no buffer device
//!   address, no 64-bit atomics (every atomic is a 32-bit word atomic), so the output runs
//!   through wgpu-hal's Vulkan device as it is configured.
//! - [`disassemble`] gives readable text (`ptxcross translate --to spvasm`), and [`validate`]
//!   runs Khronos' validator as `spirv-val --target-env vulkan1.1` does: in-process through the
//!   system's SPIRV-Tools library when the build found it, else the `spirv-val` program.
//!
//! See `src/emit.rs` for the mapping of every IR construct.

mod emit;
mod function_words;
mod validate;

pub use validate::{linked_version, validate, validate_with_spirv_val, validator, Validator, TARGET_ENV};

use std::fmt;

use ptxcross_lower::ir;

/// Why a module could not be emitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitError {
    /// PTX name of the kernel being emitted, if any.
    pub kernel: Option<String>,
    pub kind: EmitErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitErrorKind {
    /// The IR breaks the contract of `ptxcross_lower::ir` (a type mismatch, `Break` outside a
    /// loop, an op on a type it does not accept, …): a bug in `lower` or in hand-built IR.
    InvalidIr(String),
    /// Valid IR this backend cannot express.
    Unsupported(String),
    /// A bug in this backend.
    Internal(String),
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SPIR-V backend: ")?;
        if let Some(k) = &self.kernel {
            write!(f, "kernel `{k}`: ")?;
        }
        match &self.kind {
            EmitErrorKind::InvalidIr(m) => write!(f, "invalid IR: {m}"),
            EmitErrorKind::Unsupported(m) => write!(f, "not supported: {m}"),
            EmitErrorKind::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

impl std::error::Error for EmitError {}

/// Translates `module` to SPIR-V 1.3 words, one `GLCompute` entry point per kernel
/// (named `kernel.entry_point`, `LocalSize` = `kernel.workgroup_size`).
pub fn emit(module: &ir::Module) -> Result<Vec<u32>, EmitError> {
    emit::emit_module(&ptxcross_lower::emission::Emission::new(module))
}

/// [`emit`] of a module already prepared for emission (`Emission::new`), so that a host
/// emitting both targets prepares it once.
pub fn emit_prepared(module: &ptxcross_lower::emission::Emission) -> Result<Vec<u32>, EmitError> {
    emit::emit_module(module)
}

/// Human-readable SPIR-V assembly of `words` (rspirv's disassembler). Unparsable input gives a
/// one-line comment naming the error instead.
pub fn disassemble(words: &[u32]) -> String {
    use rspirv::binary::Disassemble;
    match rspirv::dr::load_words(words) {
        Ok(module) => module.disassemble(),
        Err(e) => format!("; not a valid SPIR-V binary: {e}\n"),
    }
}
