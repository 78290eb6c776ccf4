//! The one place that drives frontend → lower → backends (and the validators).
//!
//! Every stage returns a [`TranslateError`] that names the stage and, for PTX problems, the
//! `file:line:col`. A panic inside a stage (a compiler bug) is caught and reported as an
//! internal error of that stage, so the CLI never dies on an input.

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use ptxcross_frontend::{ast, Diagnostic, SourceFile};
use ptxcross_lower::emission::Emission;
use ptxcross_lower::{ir, LowerOptions};

use crate::runtime::{Backend, Program};

pub use backends::Profile;

/// Which stage failed, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TranslateError {
    /// The PTX file could not be read.
    Io { path: String, message: String },
    /// Parse or lower diagnostics: `short` lines (`file:line:col: msg`) and the rustc-style
    /// rendering.
    Diagnostics {
        stage: Stage,
        short: Vec<String>,
        rendered: String,
    },
    /// A backend could not emit, or its output failed validation.
    Backend { stage: Stage, message: String },
    /// A stage panicked (a ptxcross bug).
    Internal { stage: Stage, message: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Parse,
    Lower,
    EmitSpirv,
    ValidateSpirv,
    EmitWgsl,
    ValidateWgsl,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Lower => "lower",
            Stage::EmitSpirv => "SPIR-V emission",
            Stage::ValidateSpirv => "SPIR-V validation (SPIRV-Tools, vulkan1.1)",
            Stage::EmitWgsl => "WGSL emission",
            Stage::ValidateWgsl => "WGSL validation (naga)",
        }
    }
}

impl TranslateError {
    pub fn stage(&self) -> Option<Stage> {
        match self {
            TranslateError::Io { .. } => None,
            TranslateError::Diagnostics { stage, .. }
            | TranslateError::Backend { stage, .. }
            | TranslateError::Internal { stage, .. } => Some(*stage),
        }
    }
    /// Multi-line human form (diagnostics rendered rustc-style).
    pub fn render(&self) -> String {
        match self {
            TranslateError::Diagnostics { rendered, .. } => rendered.clone(),
            other => format!("error: {other}\n"),
        }
    }
    fn diagnostics(stage: Stage, diags: &[Diagnostic], file: &SourceFile) -> TranslateError {
        let mut diags = diags.to_vec();
        if diags.is_empty() {
            diags.push(Diagnostic::new(
                format!("{} failed without a message", stage.name()),
                ast::Span::default(),
            ));
        }
        TranslateError::Diagnostics {
            stage,
            short: diags.iter().map(|d| d.short(file)).collect(),
            rendered: diags
                .iter()
                .map(|d| d.render(file))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

impl fmt::Display for TranslateError {
    /// One line (several diagnostics are joined with `; `).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranslateError::Io { path, message } => write!(f, "cannot read {path}: {message}"),
            TranslateError::Diagnostics { short, .. } => f.write_str(&short.join("; ")),
            TranslateError::Backend {
                stage: Stage::EmitSpirv,
                message,
            } => f.write_str(message),
            TranslateError::Backend {
                stage: Stage::EmitWgsl,
                message,
            } => write!(f, "WGSL backend: {message}"),
            TranslateError::Backend { stage, message } => {
                write!(f, "{} failed: {message}", stage.name())
            }
            TranslateError::Internal { stage, message } => {
                write!(
                    f,
                    "internal compiler error in {}: {message} (please report this)",
                    stage.name()
                )
            }
        }
    }
}

impl std::error::Error for TranslateError {}

/// Runs `f`, turning a panic into [`TranslateError::Internal`].
fn guarded<T>(
    stage: Stage,
    f: impl FnOnce() -> Result<T, TranslateError>,
) -> Result<T, TranslateError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let message = if let Some(s) = payload.downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "panic".to_string()
            };
            Err(TranslateError::Internal { stage, message })
        }
    }
}

/// Reads a PTX file; its name in diagnostics is the path as given.
pub fn load(path: &Path) -> Result<SourceFile, TranslateError> {
    // Only regular files, at most 1 GiB: a FIFO or `/dev/zero` must not block or eat memory.
    let bytes = crate::files::read_regular(path, 1 << 30).map_err(|message| TranslateError::Io {
        path: path.display().to_string(),
        message,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| TranslateError::Io {
        path: path.display().to_string(),
        message: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
    })?;
    Ok(SourceFile::new(path.display().to_string(), text))
}

pub fn parse(file: &SourceFile) -> Result<ast::Module, TranslateError> {
    guarded(Stage::Parse, || {
        ptxcross_frontend::parse(file)
            .map_err(|d| TranslateError::diagnostics(Stage::Parse, &d, file))
    })
}

/// Lowers `module` with `options`; what lowered is recorded for `PTXCROSS_PTX_DUMP`
/// ([`crate::ptx_dump`]: every translation of the runtime, the driver library, the CLI and
/// the tests comes through here or [`lower_each`]).
pub fn lower(
    module: &ast::Module,
    file: &SourceFile,
    options: &LowerOptions,
) -> Result<ir::Module, TranslateError> {
    let lowered = guarded(Stage::Lower, || {
        ptxcross_lower::lower(module, file, options)
            .map_err(|d| TranslateError::diagnostics(Stage::Lower, &d, file))
    });
    if lowered.is_ok() {
        crate::ptx_dump::record(file, options);
    }
    lowered
}

/// The module-wide facts a host needs before lowering any kernel (kernel names, parameter
/// layouts, globals): `ptxcross_lower::module_facts`.
pub fn module_facts(module: &ast::Module, file: &SourceFile, options: &LowerOptions) -> Result<ptxcross_lower::ModuleFacts, TranslateError> {
    guarded(Stage::Lower, || {
        ptxcross_lower::module_facts(module, file, options).map_err(|d| TranslateError::diagnostics(Stage::Lower, &d, file))
    })
}

/// Lowers each kernel of `names` into a module of its own, as the runtime translates kernels
/// (`ptxcross_lower::lower_each`: the file's functions and globals are analysed once). A panic
/// fails every kernel. Like [`lower`], records each kernel that lowered for
/// `PTXCROSS_PTX_DUMP` ([`crate::ptx_dump`]).
pub fn lower_each(
    module: &ast::Module,
    file: &SourceFile,
    options: &LowerOptions,
    names: &[String],
) -> Vec<Result<ir::Module, TranslateError>> {
    match guarded(Stage::Lower, || Ok(ptxcross_lower::lower_each(module, file, options, names))) {
        Ok(modules) => {
            // Each kernel that lowered, alone: the file's others may be refused.
            for (name, _) in names.iter().zip(&modules).filter(|(_, m)| m.is_ok()) {
                crate::ptx_dump::record(file, &LowerOptions { kernel: Some(name.clone()), ..options.clone() });
            }
            modules
                .into_iter()
                .map(|m| m.map_err(|d| TranslateError::diagnostics(Stage::Lower, &d, file)))
                .collect()
        }
        Err(e) => names.iter().map(|_| Err(e.clone())).collect(),
    }
}

/// Parse + lower.
pub fn frontend(file: &SourceFile, options: &LowerOptions) -> Result<ir::Module, TranslateError> {
    let ast = parse(file)?;
    lower(&ast, file, options)
}

/// Refuses a module lowered with `LowerOptions::no_float64` whose kernels still need 64-bit
/// floats (f64 instructions: they have no emulation), as the runtime refuses them on a device
/// without `SHADER_F64`; the WGSL backend's needs count too (it spells f64 bit operations with
/// 64-bit types). The refusal names the first instruction that needs f64 (`file:line:col`),
/// as `lower` recorded it, else the kernel.
pub fn refuse_float64(module: &ir::Module, file: &SourceFile) -> Result<(), TranslateError> {
    let Some(k) = module.kernels.iter().find(|k| k.features.float64 || ptxcross_wgsl::requirements(k).float64) else {
        return Ok(());
    };
    let site = k.recorded_site(k.features.float64_site);
    let what = match site {
        Some(s) => format!("{}:{}:{}: `{}` (kernel `{}`)", file.name, s.line, s.col, s.instruction, k.name),
        None => format!("kernel `{}`", k.name),
    };
    Err(TranslateError::Backend {
        stage: Stage::Lower,
        message: format!("{what} needs 64-bit floats, which the target (--no-float64) does not have"),
    })
}

pub fn emit_spirv(module: &ir::Module) -> Result<Vec<u32>, TranslateError> {
    guarded(Stage::EmitSpirv, || {
        backends::spirv_emit(module).map_err(|message| TranslateError::Backend {
            stage: Stage::EmitSpirv,
            message,
        })
    })
}

/// `module` prepared for the emitters once (`ptxcross_lower::emission::Emission`: heap accesses
/// outlined, each kernel's analyses), for a caller that emits both targets: each emitter would
/// otherwise redo it ([`emit_spirv`], [`emit_wgsl`]). A panic is an internal error of `lower`,
/// whose work this is.
pub fn prepare_emission(module: &ir::Module) -> Result<Emission<'_>, TranslateError> {
    guarded(Stage::Lower, || Ok(Emission::new(module)))
}

/// [`emit_spirv`] of a module [`prepare_emission`] prepared.
pub fn emit_spirv_prepared(module: &Emission) -> Result<Vec<u32>, TranslateError> {
    guarded(Stage::EmitSpirv, || {
        backends::spirv_emit_prepared(module).map_err(|message| TranslateError::Backend {
            stage: Stage::EmitSpirv,
            message,
        })
    })
}

/// Khronos' validator for Vulkan 1.1, as `spirv-val --target-env vulkan1.1` (in-process when
/// SPIRV-Tools was linked, see `ptxcross_spirv::validate`).
pub fn validate_spirv(words: &[u32]) -> Result<(), TranslateError> {
    guarded(Stage::ValidateSpirv, || {
        backends::spirv_validate(words).map_err(|message| TranslateError::Backend {
            stage: Stage::ValidateSpirv,
            message,
        })
    })
}

/// [`validate_spirv`], once per module and machine: acceptance of these exact words by this
/// validator is remembered in the process and in the cache directory
/// ([`crate::validated`]), so a later process launching the same kernel skips the validator.
pub fn validate_spirv_remembered(words: &[u32]) -> Result<(), TranslateError> {
    crate::validated::Record::global().check(words, validate_spirv)
}

/// SPIR-V assembly text.
pub fn disassemble_spirv(words: &[u32]) -> String {
    guarded(Stage::EmitSpirv, || Ok(backends::spirv_disassemble(words)))
        .unwrap_or_else(|e| format!("; cannot disassemble: {e}\n"))
}

pub fn emit_wgsl(module: &ir::Module, profile: Profile) -> Result<String, TranslateError> {
    guarded(Stage::EmitWgsl, || {
        backends::wgsl_emit(module, profile).map_err(|message| TranslateError::Backend {
            stage: Stage::EmitWgsl,
            message,
        })
    })
}

/// [`emit_wgsl`] of a module [`prepare_emission`] prepared.
pub fn emit_wgsl_prepared(module: &Emission, profile: Profile) -> Result<String, TranslateError> {
    guarded(Stage::EmitWgsl, || {
        backends::wgsl_emit_prepared(module, profile).map_err(|message| TranslateError::Backend {
            stage: Stage::EmitWgsl,
            message,
        })
    })
}

/// naga's validator for the profile.
pub fn validate_wgsl(text: &str, profile: Profile) -> Result<(), TranslateError> {
    guarded(Stage::ValidateWgsl, || {
        backends::wgsl_validate(text, profile).map_err(|message| TranslateError::Backend {
            stage: Stage::ValidateWgsl,
            message,
        })
    })
}

/// Translates `file` for the runtime: parse, lower with `options`, emit the code of each of
/// `backends` (WGSL: the wgpu profile) and, when `validate`, validate it once.
///
/// SPIR-V goes to the driver through wgpu's unchecked passthrough, so it must be proven valid
/// here: the emitter refuses what breaks Vulkan's limits (nesting, variables, switch size,
/// strings, ids), and validation fails closed: Khronos' validator runs in-process (the system's
/// SPIRV-Tools library, linked at build time), or, in a build without it, as the `spirv-val`
/// program; with neither the SPIR-V backend is refused with an error naming the fix, never run
/// unvalidated. The validator's acceptance of the exact words is remembered across processes
/// ([`validate_spirv_remembered`]), so each module is validated once per machine.
/// (naga's SPIR-V front end restructures the module and does not check Vulkan's
/// structured-control-flow rules or limits, so it proves nothing for the driver.) WGSL needs no
/// such guard: wgpu validates it with naga when it creates the module, so `validate = false`
/// skips the second, redundant naga pass.
pub fn build_program(
    file: &SourceFile,
    options: &LowerOptions,
    backends: &[Backend],
    validate: bool,
) -> Result<Program, TranslateError> {
    let module = frontend(file, options)?;
    let program = build_program_from_ir(&file.name, module, backends, validate)?;
    // Launches whose pointers lie in several heap segments run a translation for that many
    // (issue 11), made from the same source at the first such launch.
    if options.segment_slots >= 2 {
        return Ok(program);
    }
    let (file, options, backends) = (file.clone(), options.clone(), backends.to_vec());
    Ok(program.with_segment_variants(std::sync::Arc::new(move |slots, kernel: &str| {
        let options = LowerOptions { segment_slots: slots, kernel: Some(kernel.to_string()), ..options.clone() };
        let module = frontend(&file, &options).map_err(|e| e.render())?;
        build_program_from_ir(&file.name, module, &backends, validate).map_err(|e| e.render())
    })))
}

pub fn build_program_from_ir(
    name: &str,
    module: ir::Module,
    backends: &[Backend],
    validate: bool,
) -> Result<Program, TranslateError> {
    let mut spirv = None;
    let mut wgsl = None;
    let prepared = prepare_emission(&module)?;
    for &b in backends {
        match b {
            Backend::Spirv if spirv.is_none() => {
                let words = emit_spirv_prepared(&prepared)?;
                if validate {
                    validate_spirv_remembered(&words)?;
                }
                spirv = Some(words);
            }
            Backend::Wgsl if wgsl.is_none() => {
                let text = emit_wgsl_prepared(&prepared, Profile::Wgpu)?;
                if validate {
                    validate_wgsl(&text, Profile::Wgpu)?;
                }
                wgsl = Some(text);
            }
            _ => {}
        }
    }
    drop(prepared);
    Ok(Program::new(name, module, spirv, wgsl))
}

/// Whether SPIR-V can be validated: SPIRV-Tools is linked in, or the `spirv-val` program runs.
pub fn spirv_validator_available() -> bool {
    if ptxcross_spirv::validator() == ptxcross_spirv::Validator::InProcess {
        return true;
    }
    std::process::Command::new("spirv-val")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Thin adapters over the backend crates, so their exact signatures live in one place.
mod backends {
    use ptxcross_lower::emission::Emission;
    use ptxcross_lower::ir;

    pub use ptxcross_wgsl::Profile;

    pub fn spirv_emit(module: &ir::Module) -> Result<Vec<u32>, String> {
        ptxcross_spirv::emit(module).map_err(|e| e.to_string())
    }

    pub fn spirv_emit_prepared(module: &Emission) -> Result<Vec<u32>, String> {
        ptxcross_spirv::emit_prepared(module).map_err(|e| e.to_string())
    }

    pub fn spirv_validate(words: &[u32]) -> Result<(), String> {
        ptxcross_spirv::validate(words)
    }

    pub fn spirv_disassemble(words: &[u32]) -> String {
        ptxcross_spirv::disassemble(words)
    }

    /// Unvalidated: validation is its own stage ([`super::validate_wgsl`]), run once.
    pub fn wgsl_emit(module: &ir::Module, profile: Profile) -> Result<String, String> {
        ptxcross_wgsl::emit_unvalidated(module, profile).map_err(|e| e.to_string())
    }

    pub fn wgsl_emit_prepared(module: &Emission, profile: Profile) -> Result<String, String> {
        ptxcross_wgsl::emit_prepared_unvalidated(module, profile).map_err(|e| e.to_string())
    }

    pub fn wgsl_validate(text: &str, profile: Profile) -> Result<(), String> {
        ptxcross_wgsl::validate(text, profile)
    }
}

/// `wgpu` / `webgpu`.
pub fn parse_profile(s: &str) -> Option<Profile> {
    match s.to_ascii_lowercase().as_str() {
        "wgpu" => Some(Profile::Wgpu),
        "webgpu" => Some(Profile::WebGpu),
        _ => None,
    }
}
