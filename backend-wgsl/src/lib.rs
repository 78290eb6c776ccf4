//! ptxcross-wgsl: the structured IR of `ptxcross-lower` → WGSL text.
//!
//! [`emit`] writes one WGSL module for an [`ir::Module`] (one `@compute` entry point per kernel)
//! and validates it with naga before returning it; [`validate`] runs the same check on any WGSL
//! text. The backend decides nothing semantic: every IR operation is mapped to WGSL that gives
//! exactly the result documented in `ptxcross_lower::ir` (bit operations where WGSL's own
//! operators leave something to the implementation, e.g. `FNeg`, `FAbs`, NaN tests).
//!
//! # Resources (see `ptxcross_lower::abi`)
//! - `@group(BIND_GROUP) @binding(BINDING_HEAP) var<storage, read_write> px_heap: array<u32>`
//!   (`array<atomic<u32>>` when any kernel of the module does heap atomics or declares
//!   `features.heap_atomics`: a module has one heap declaration, so every kernel then accesses
//!   it through `atomicLoad`/`atomicStore`).
//! - `@group(BIND_GROUP) @binding(BINDING_PARAMS) var<storage, read> px_params: array<u32>`.
//! - `@group(BIND_GROUP) @binding(BINDING_SCRATCH) var<storage, read_write> px_scratch:
//!   array<u32>` when some kernel keeps its local memory or its warp matrix exchange in the
//!   scratch buffer (`Kernel::uses_scratch`, see `ptxcross_lower::local_scratch`).
//! - Per kernel: `var<workgroup>` shared words and `var<private>` local words (unless those
//!   live in the scratch buffer).
//!
//! All names the backend invents start with a prefix (`px_` unless an entry point starts with
//! it) so they never collide with entry-point names; IR variables become function-scope `vN`.
//!
//! # Faults
//! Out-of-range word accesses go through one helper function per memory and operation, which
//! checks the index, and on failure ORs the `abi::FAULT_*` bit into heap word `abi::FAULT_WORD`.
//! With an atomic heap that is an `atomicOr`. With a plain `array<u32>` heap it is a
//! read-test-write; concurrent faulting invocations may then lose each other's *bits*, but the
//! word never ends up zero (every writer stores a non-zero value and nobody else writes the
//! reserved word), so a faulting launch is always reported. The host clears the word.
//!
//! # Exactness
//! - Float constants are printed as decimal only where the text parses back to the same bits
//!   (through f32 directly and through f64, as Tint reads literals); NaN, infinities, -0 and
//!   subnormals go through a runtime `bitcast` helper (a const-expression must not yield NaN or
//!   infinity).
//! - An operation whose operands are all constants would be a WGSL const-expression, where
//!   overflow, NaN and infinity are shader-creation errors (`3u << 31u`, `sqrt(-1f)`): one
//!   operand is passed through an identity function (`px_opaque_T`) to keep it a run-time op.
//! - Every operand of float arithmetic and comparisons is XOR-ed with a run-time zero derived
//!   from `abi::PARAM_ONE_F32_WORD` (`px_hide_f32`): WGSL has no NoContraction, and drivers
//!   otherwise fuse, factor and fold float code (lavapipe changed results of the corpus'
//!   mandelbrot). Costs one integer XOR per float operand.
//! - `FNeg`/`FAbs` are sign-bit operations; ordered float comparisons test NaN on the bits
//!   (compilers may assume no NaNs); `FFloor`/`FCeil`/`FTrunc`/`FRoundEven` are computed on the
//!   bits (lavapipe's f64 `trunc`/`round` are wrong, drivers differ on the sign of zero).
//! - `UintToFloat` U32→F32 rounds on the integer (WGSL lets an inexact conversion pick either
//!   neighbour; SwiftShader is off by one ulp above 2^31).
//! - `MulHiU`/`MulHiS` on `U32` use `u64` only in kernels that use 64-bit values anyway, else
//!   16-bit limbs; on `U64`, 32-bit limbs. Signed atomic min/max and the (strong) IR
//!   compare-exchange are compare-exchange loops over WGSL's weak `atomicCompareExchangeWeak`.
//! - `Fma` is WGSL's `fma`, which Vulkan does not promise to fuse (lavapipe does not): see
//!   README.md.
//!
//! # WGSL's structural rules
//! - A loop without a reachable `break`/`return` is rejected by Tint ("loop does not exit"); such
//!   IR loops (which never end) get a never-taken `if (false) { break; }`.
//! - Control flow nested deeper than the profile's compilers accept (Tint: 62 `if`s, naga: 126)
//!   is refused with [`EmitError::Unsupported`].
//! - Barrier uniformity is `lower`'s guarantee; naga does not check it, Tint does
//!   (`tools/tint-check` compiles the tests' WGSL in Chromium).
//!
//! # Profiles
//! [`Profile::Wgpu`] may use wgpu's `SHADER_INT64` (`u64`/`i64`) and `SHADER_F64` (`f64`)
//! extensions — only in kernels that use 64-bit values, so a 32-bit kernel needs neither device
//! feature. [`Profile::WebGpu`] is standard WGSL and refuses kernels with 64-bit values.

mod emit;

pub use emit::{requirements, Requirements};

use ptxcross_lower::ir;
use std::fmt;

/// Which WGSL dialect to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// WGSL as wgpu/naga accepts it, with the `SHADER_INT64` and `SHADER_F64` extensions.
    Wgpu,
    /// Standard WGSL (browsers' WebGPU): no 64-bit types.
    WebGpu,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Wgpu => "wgpu",
            Profile::WebGpu => "webgpu",
        }
    }

    /// The naga validator capabilities of the profile.
    pub fn capabilities(self) -> naga::valid::Capabilities {
        use naga::valid::Capabilities as C;
        match self {
            // SUBGROUP: native warp collectives (`ir::Features::native_warps`, only emitted for
            // devices with wgpu's `Features::SUBGROUP`; naga implements WGSL's subgroup built-ins
            // without the `enable subgroups;` directive, which it does not parse yet).
            Profile::Wgpu => C::SHADER_INT64 | C::FLOAT64 | C::SHADER_INT64_ATOMIC_ALL_OPS | C::SUBGROUP,
            Profile::WebGpu => C::empty(),
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why no WGSL was produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitError {
    /// The kernel needs something the profile cannot express (yet).
    Unsupported { kernel: String, message: String },
    /// The IR breaks its own contract (a type mismatch, `Break` outside a loop, …): a bug in
    /// `ptxcross-lower` or in whoever built the IR.
    InvalidIr { kernel: String, message: String },
    /// The WGSL we wrote failed naga's parser or validator: a bug in this backend.
    Validation { message: String, wgsl: String },
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmitError::Unsupported { message, .. } => f.write_str(message),
            EmitError::InvalidIr { kernel, message } => {
                write!(f, "invalid IR in kernel {kernel}: {message}")
            }
            EmitError::Validation { message, .. } => {
                write!(f, "internal error: the generated WGSL does not validate: {message}")
            }
        }
    }
}

impl std::error::Error for EmitError {}

/// Writes `module` as WGSL for `profile` and validates the text with naga.
pub fn emit(module: &ir::Module, profile: Profile) -> Result<String, EmitError> {
    let wgsl = emit_unvalidated(module, profile)?;
    match validate(&wgsl, profile) {
        Ok(()) => Ok(wgsl),
        Err(message) => Err(EmitError::Validation { message, wgsl }),
    }
}

/// Writes `module` as WGSL for `profile` without validating it: for callers that validate
/// separately or not at all (`--no-validate`; wgpu parses and validates WGSL with naga anyway
/// when it creates the shader module, so nothing unvalidated reaches a driver).
pub fn emit_unvalidated(module: &ir::Module, profile: Profile) -> Result<String, EmitError> {
    emit::write_module(&ptxcross_lower::emission::Emission::new(module), profile)
}

/// [`emit_unvalidated`] of a module already prepared for emission (`Emission::new`), so that a
/// host emitting both targets prepares it once.
pub fn emit_prepared_unvalidated(module: &ptxcross_lower::emission::Emission, profile: Profile) -> Result<String, EmitError> {
    emit::write_module(module, profile)
}

/// Parses `wgsl` with naga's WGSL front end and validates it with the capabilities of
/// `profile`. The error is naga's report, with source excerpts.
pub fn validate(wgsl: &str, profile: Profile) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| e.emit_to_string(wgsl))?;
    let mut validator =
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), profile.capabilities());
    validator.validate(&module).map_err(|e| e.emit_to_string(wgsl))?;
    Ok(())
}
