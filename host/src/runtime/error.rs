//! The runtime's one error type.

use std::fmt;

use super::Backend;

/// Everything the runtime can fail with. Every variant names its cause; none is a panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// No GPU adapter could be opened (no driver, no Vulkan loader, filtered away …).
    NoAdapter { reason: String },
    /// The adapter was found but refused to give a device.
    RequestDevice { adapter: String, reason: String },
    /// The requested heap cannot be one storage-buffer binding on this adapter.
    HeapTooLarge { requested: u64, max: u64 },
    /// The heap has no free range of this size.
    OutOfMemory { requested: u64, free: u64 },
    /// One allocation must lie in one heap segment, which is at most one storage binding
    /// (`max` bytes are usable in a segment).
    AllocationTooLarge { requested: u64, max: u64 },
    /// The launch's pointer arguments (or the module's globals) lie in more heap segments than
    /// a launch can bind: `limit` (the device's storage bindings, `Gpu::max_segment_slots`),
    /// or 1 when the program has no several-segment translations
    /// (`Program::with_segment_variants`), or 0 for an `.address_size 32` kernel while the
    /// context's live allocations lie in several segments (its 32-bit addresses are offsets,
    /// the same in every segment).
    SeveralSegments { kernel: String, segments: Vec<usize>, limit: u32 },
    /// A pointer (and length) that is not inside one live allocation.
    InvalidPointer { ptr: u64, len: u64, reason: String },
    /// The program has no kernel of this name.
    KernelNotFound {
        name: String,
        available: Vec<String>,
    },
    /// The program was built without code for this backend.
    MissingCode { backend: Backend },
    /// The kernel needs an adapter feature that is absent.
    MissingFeature {
        kernel: String,
        what: String,
        feature: &'static str,
        /// The first instruction that needs it (`file:line:col: `opcode``), where `lower`
        /// recorded one (64-bit floats: `ir::Features::float64_site`).
        site: Option<String>,
    },
    /// The kernel's results depend on subnormals of `format` ("f32" or "f64": arithmetic
    /// without `.ftz`), which this device flushes to zero on `backend` (measured by the
    /// subnormal probe, `probe.rs`).
    SubnormalsFlushed {
        kernel: String,
        device: String,
        backend: Backend,
        format: &'static str,
        /// The first instruction whose f32 results depend on subnormals (`line:col (`opcode`)`).
        site: Option<String>,
        /// The kernel was translated in the exact mode for such devices
        /// (`LowerOptions::flushed_f32`): `site` is an instruction that mode does not cover yet.
        exact_mode: bool,
    },
    /// The kernel was lowered without a driver workaround this device needs on `backend`
    /// (`option`, a `LowerOptions` field; see `probe.rs`): run, it could give silently wrong
    /// results. Lowering with `Gpu::lower_options` sets every one the device needs.
    MissingWorkaround {
        kernel: String,
        device: String,
        backend: Backend,
        option: &'static str,
        /// What the driver does to such a kernel.
        why: &'static str,
    },
    /// A launch exceeds one of the adapter's limits (or is degenerate, e.g. a zero grid).
    LimitExceeded {
        kernel: String,
        what: String,
        value: u64,
        limit: u64,
        limit_name: &'static str,
    },
    /// Kernel arguments do not match the kernel's parameters.
    BadArguments { kernel: String, message: String },
    /// wgpu refused the shader module or the pipeline (validation, driver compile error).
    Pipeline {
        kernel: String,
        backend: Backend,
        message: String,
    },
    /// Any other wgpu failure (validation, out of memory, lost device, map failure).
    Gpu {
        during: &'static str,
        message: String,
    },
    /// The device did not finish in time.
    Timeout { during: &'static str, seconds: u64 },
    /// The kernel ran and recorded faults in the fault word (see `abi::describe_faults`).
    KernelFault {
        kernel: String,
        bits: u32,
        faults: Vec<&'static str>,
        /// The faulting PTX instruction, `file:line:col (`opcode`)`, when the kernel recorded it
        /// (`abi::FAULT_SITE_WORD`).
        site: Option<String>,
    },
}

pub const NO_ADAPTER_HINT: &str =
    "for a CPU Vulkan driver install mesa-vulkan-drivers (lavapipe): \
     apt-get install -y mesa-vulkan-drivers libvulkan1";

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoAdapter { reason } => {
                write!(f, "no GPU adapter found ({reason}); {NO_ADAPTER_HINT}")
            }
            Error::RequestDevice { adapter, reason } => {
                write!(f, "cannot open a device on adapter `{adapter}`: {reason}")
            }
            Error::HeapTooLarge { requested, max } => write!(
                f,
                "heap of {requested} bytes exceeds what a context can have on this adapter ({max} bytes: \
                 ptxcross::runtime::MAX_SEGMENTS segments of one storage binding each)"
            ),
            Error::OutOfMemory { requested, free } => {
                write!(f, "out of device memory: cannot allocate {requested} bytes ({free} bytes free in the heap)")
            }
            Error::AllocationTooLarge { requested, max } => write!(
                f,
                "out of device memory: cannot allocate {requested} bytes: one allocation must fit one heap segment, \
                 which is one storage binding of this adapter ({max} bytes usable; max_storage_buffer_binding_size)"
            ),
            Error::SeveralSegments { kernel, segments, limit } => {
                let list: Vec<String> = segments.iter().map(|s| s.to_string()).collect();
                if *limit == 0 {
                    return write!(
                        f,
                        "not supported yet: `.address_size 32` kernel `{kernel}` launched while the context's allocations \
                         lie in {} heap segments ({}); its 32-bit addresses are offsets that are the same in every \
                         segment, so it runs only while the live allocations (and the module's globals) lie in one \
                         segment of one storage binding each",
                        segments.len(),
                        list.join(", ")
                    );
                }
                let why = if *limit <= 1 {
                    "and this program has no translation for several segments (`Program::with_segment_variants`)".to_string()
                } else {
                    format!(
                        "and a launch binds at most {limit} segments on this device (two storage buffers each beyond \
                         the first: max_storage_buffers_per_shader_stage)"
                    )
                };
                write!(
                    f,
                    "not supported yet: kernel `{kernel}` is given pointers into {} heap segments ({}); the \
                     context's memory exceeds one storage binding, so it is split into segments of one binding each, \
                     {why}",
                    segments.len(),
                    list.join(", ")
                )
            }
            Error::InvalidPointer { ptr, len, reason } => {
                write!(f, "invalid device pointer {ptr:#x} (length {len}): {reason}")
            }
            Error::KernelNotFound { name, available } => {
                write!(f, "no kernel `{name}` in the module")?;
                if available.is_empty() {
                    write!(f, " (it has no kernels)")
                } else {
                    write!(f, " (kernels: {})", available.join(", "))
                }
            }
            Error::MissingCode { backend } => write!(f, "the program was translated without {backend} code"),
            Error::MissingFeature { kernel, what, feature, site: None } => {
                write!(f, "kernel `{kernel}` uses {what} but the adapter lacks {feature}")
            }
            Error::MissingFeature { kernel, what, feature, site: Some(site) } => {
                write!(f, "{site} (kernel `{kernel}`) uses {what} but the adapter lacks {feature}")
            }
            Error::MissingWorkaround { kernel, device, backend, option, why } => write!(
                f,
                "kernel `{kernel}` was lowered without `LowerOptions::{option}`, which {device} needs on {backend} \
                 ({why}): its results could be silently wrong; lower with `Gpu::lower_options`"
            ),
            Error::SubnormalsFlushed { kernel, device, backend, format, site, exact_mode } => {
                let (other, flag) = match backend {
                    Backend::Spirv => (Backend::Wgsl, "wgsl"),
                    Backend::Wgsl => (Backend::Spirv, "spirv"),
                };
                let why = match (site, *exact_mode) {
                    (Some(site), true) => format!(
                        "{site}, which ptxcross does not compute exactly on such a device yet (not supported yet)"
                    ),
                    (Some(site), false) => format!(
                        "{site}; translating with `LowerOptions::flushed_f32`, as the runtime's own translations \
                         do for such a device, computes it exactly"
                    ),
                    (None, _) => format!("{format} arithmetic without .ftz"),
                };
                write!(
                    f,
                    "kernel `{kernel}`: {device} flushes {format} subnormals to zero on the {backend} backend \
                     (measured by ptxcross's subnormal probe; see `ptxcross devices`), and this kernel's results \
                     depend on them ({why}), so it would compute wrong values; \
                     run it on the {other} backend (`--backend {flag}`)"
                )?;
                if *format == "f32" {
                    write!(f, ", or compile it with flush-to-zero (nvcc -ftz=true) so that every f32 instruction carries .ftz")?;
                }
                Ok(())
            }
            Error::LimitExceeded { kernel, what, value, limit, limit_name } => write!(
                f,
                "kernel `{kernel}`: {what} is {value}, but the adapter allows at most {limit} ({limit_name})"
            ),
            Error::BadArguments { kernel, message } => write!(f, "kernel `{kernel}`: bad arguments: {message}"),
            Error::Pipeline { kernel, backend, message } => {
                write!(f, "kernel `{kernel}`: the device rejected the {backend} shader: {message}")
            }
            Error::Gpu { during, message } => write!(f, "GPU error during {during}: {message}"),
            Error::Timeout { during, seconds } => {
                write!(f, "the device did not finish {during} within {seconds} s")
            }
            Error::KernelFault { kernel, bits, faults, site } => {
                write!(f, "kernel `{kernel}` faulted")?;
                if let Some(site) = site {
                    write!(f, " at {site}")?;
                }
                write!(f, " (fault word {bits:#x}): {}", faults.join(", "))
            }
        }
    }
}

impl std::error::Error for Error {}
