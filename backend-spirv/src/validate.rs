//! SPIR-V validation with Khronos' validator, exactly as `spirv-val --target-env vulkan1.1`.
//!
//! When the build script linked the system's SPIRV-Tools library (`cfg(spirv_tools_linked)`),
//! [`validate`] calls its C API in-process: the same code, target environment (parsed from the
//! same string `vulkan1.1`) and default validator options as the `spirv-val` tool, and the message
//! formatted as the tool prints it (`error: line <word index>: <text>`). Otherwise it runs the
//! `spirv-val` binary ([`validate_with_spirv_val`]). Either way it fails closed: no validator
//! means an error, never an unvalidated module.

/// The target environment, as `spirv-val --target-env` spells it.
pub const TARGET_ENV: &str = "vulkan1.1";

/// Which validator [`validate`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validator {
    /// SPIRV-Tools linked into this binary.
    InProcess,
    /// The `spirv-val` program on `PATH`.
    SpirvValProcess,
}

/// The validator this build uses.
pub fn validator() -> Validator {
    if cfg!(spirv_tools_linked) {
        Validator::InProcess
    } else {
        Validator::SpirvValProcess
    }
}

/// Validates `words` for Vulkan 1.1 (SPIR-V 1.3). `Err` carries the validator's message.
pub fn validate(words: &[u32]) -> Result<(), String> {
    #[cfg(spirv_tools_linked)]
    {
        in_process::validate(words)
    }
    #[cfg(not(spirv_tools_linked))]
    {
        validate_with_spirv_val(words)
    }
}

/// SPIRV-Tools' version string (`SPIRV-Tools v2023.1 …`) when linked.
pub fn linked_version() -> Option<String> {
    #[cfg(spirv_tools_linked)]
    {
        Some(in_process::version())
    }
    #[cfg(not(spirv_tools_linked))]
    {
        None
    }
}

/// Runs the `spirv-val --target-env vulkan1.1` program on `words`. `Err` carries the tool's
/// message. (The fallback when SPIRV-Tools is not linked; tests compare the two.)
pub fn validate_with_spirv_val(words: &[u32]) -> Result<(), String> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);

    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let path = std::env::temp_dir().join(format!(
        "ptxcross-spirv-{}-{}-{}.spv",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let write = std::fs::File::create(&path).and_then(|mut f| f.write_all(&bytes));
    if let Err(e) = write {
        return Err(format!("cannot write temporary file {}: {e}", path.display()));
    }
    let out = std::process::Command::new("spirv-val").arg("--target-env").arg(TARGET_ENV).arg(&path).output();
    let _ = std::fs::remove_file(&path);
    match out {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err("spirv-val not found, and SPIR-V is never handed to the driver unvalidated: install spirv-tools (apt-get install spirv-tools), or use the WGSL backend".to_string())
        }
        Err(e) => Err(format!("cannot run spirv-val: {e}")),
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => {
            let mut msg = String::from_utf8_lossy(&o.stderr).into_owned();
            msg.push_str(&String::from_utf8_lossy(&o.stdout));
            let msg = msg.trim().to_string();
            Err(if msg.is_empty() { format!("spirv-val failed ({})", o.status) } else { msg })
        }
    }
}

#[cfg(spirv_tools_linked)]
mod in_process {
    //! A safe wrapper over the few C functions of `spirv-tools/libspirv.h` that validation needs.

    use std::ffi::{c_char, c_int, CStr, CString};

    /// `spv_const_binary_t`.
    #[repr(C)]
    struct ConstBinary {
        code: *const u32,
        word_count: usize,
    }

    /// `spv_position_t`.
    #[repr(C)]
    struct Position {
        line: usize,
        column: usize,
        index: usize,
    }

    /// `spv_diagnostic_t`.
    #[repr(C)]
    struct Diagnostic {
        position: Position,
        error: *mut c_char,
        is_text_source: bool,
    }

    #[repr(C)]
    struct Context {
        _opaque: [u8; 0],
    }

    #[repr(C)]
    struct ValidatorOptions {
        _opaque: [u8; 0],
    }

    /// `spv_target_env`, a C enum.
    type TargetEnv = c_int;
    /// `spv_result_t`: `SPV_SUCCESS` is 0, errors are negative.
    type SpvResult = c_int;

    extern "C" {
        fn spvSoftwareVersionDetailsString() -> *const c_char;
        fn spvParseTargetEnv(s: *const c_char, env: *mut TargetEnv) -> bool;
        fn spvContextCreate(env: TargetEnv) -> *mut Context;
        fn spvContextDestroy(context: *mut Context);
        fn spvValidatorOptionsCreate() -> *mut ValidatorOptions;
        fn spvValidatorOptionsDestroy(options: *mut ValidatorOptions);
        fn spvValidateWithOptions(
            context: *const Context,
            options: *const ValidatorOptions,
            binary: *const ConstBinary,
            diagnostic: *mut *mut Diagnostic,
        ) -> SpvResult;
        fn spvDiagnosticDestroy(diagnostic: *mut Diagnostic);
    }

    /// Owns a `spv_context` and a `spv_validator_options` and frees them on every path.
    struct Session {
        context: *mut Context,
        options: *mut ValidatorOptions,
    }

    impl Session {
        fn new() -> Result<Session, String> {
            let env_name = CString::new(super::TARGET_ENV).map_err(|e| e.to_string())?;
            let mut env: TargetEnv = 0;
            // SAFETY: `env_name` is a NUL-terminated string and `env` a valid out-pointer.
            if !unsafe { spvParseTargetEnv(env_name.as_ptr(), &mut env) } {
                return Err(format!("SPIRV-Tools does not know the target environment {}", super::TARGET_ENV));
            }
            // SAFETY: plain constructors; null is checked below, and `Drop` frees what was made.
            let session = unsafe { Session { context: spvContextCreate(env), options: spvValidatorOptionsCreate() } };
            if session.context.is_null() || session.options.is_null() {
                return Err("SPIRV-Tools could not create a validation context".to_string());
            }
            Ok(session)
        }
    }

    impl Drop for Session {
        fn drop(&mut self) {
            // SAFETY: each pointer is null or came from its create function, and is freed once.
            unsafe {
                if !self.options.is_null() {
                    spvValidatorOptionsDestroy(self.options);
                }
                if !self.context.is_null() {
                    spvContextDestroy(self.context);
                }
            }
        }
    }

    pub fn version() -> String {
        // SAFETY: returns a pointer to a static NUL-terminated string.
        unsafe { CStr::from_ptr(spvSoftwareVersionDetailsString()) }.to_string_lossy().into_owned()
    }

    /// Stack for the validator's thread: SPIRV-Tools recurses over some structures (as
    /// `spirv-val` does on a process's 8 MiB main stack); a test thread's 2 MiB is not enough
    /// for every module. Only the touched pages are committed.
    const STACK: usize = 64 << 20;

    pub fn validate(words: &[u32]) -> Result<(), String> {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .name("spirv validator".into())
                .stack_size(STACK)
                .spawn_scoped(s, || validate_here(words))
                .map_err(|e| format!("cannot start the validator thread: {e}"))?
                .join()
                .unwrap_or_else(|_| Err("the SPIR-V validator panicked".to_string()))
        })
    }

    fn validate_here(words: &[u32]) -> Result<(), String> {
        let session = Session::new()?;
        let binary = ConstBinary { code: words.as_ptr(), word_count: words.len() };
        let mut diagnostic: *mut Diagnostic = std::ptr::null_mut();
        // SAFETY: `binary` points at `words.len()` readable words that outlive the call; the
        // context and options are valid; `diagnostic` is null or set to a diagnostic we free.
        let result = unsafe { spvValidateWithOptions(session.context, session.options, &binary, &mut diagnostic) };
        let message = if diagnostic.is_null() {
            None
        } else {
            // SAFETY: a non-null diagnostic from the call above; `error` is null or a C string.
            let text = unsafe {
                let d = &*diagnostic;
                let text = if d.error.is_null() {
                    String::new()
                } else {
                    CStr::from_ptr(d.error).to_string_lossy().into_owned()
                };
                // spirv-val's message consumer prints the word index as "line"; trimmed like the
                // program's output.
                let text = format!("error: line {}: {}", d.position.index, text.trim_end());
                spvDiagnosticDestroy(diagnostic);
                text
            };
            Some(text)
        };
        match (result, message) {
            (0, _) => Ok(()),
            (_, Some(m)) => Err(m),
            (code, None) => Err(format!("SPIR-V validation failed (spv_result_t {code})")),
        }
    }
}
