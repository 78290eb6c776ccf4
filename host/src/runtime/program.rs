//! A translated module ready to launch: the IR's host-visible facts plus the target code.

use std::sync::atomic::{AtomicU64, Ordering};

use ptxcross_lower::ir;

use super::Backend;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// One translated PTX module (all or some of its kernels) with SPIR-V and/or WGSL code.
///
/// The fields are private so a program cannot change under the pipelines cached for it; each
/// `Program` has a process-unique [`Program::id`].
#[derive(Debug)]
pub struct Program {
    id: u64,
    name: String,
    module: ir::Module,
    spirv: Option<Vec<u32>>,
    wgsl: Option<String>,
}

impl Program {
    /// `name` is for messages (usually the PTX file). `module` supplies the kernels' entry
    /// points, workgroup sizes, parameter layout, shared memory size, features and the globals
    /// segment; the code must follow `ptxcross_lower::abi`.
    pub fn new(
        name: impl Into<String>,
        module: ir::Module,
        spirv: Option<Vec<u32>>,
        wgsl: Option<String>,
    ) -> Program {
        Program {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            name: name.into(),
            module,
            spirv,
            wgsl,
        }
    }
    pub fn id(&self) -> u64 {
        self.id
    }
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn module(&self) -> &ir::Module {
        &self.module
    }
    pub fn spirv(&self) -> Option<&[u32]> {
        self.spirv.as_deref()
    }
    pub fn wgsl(&self) -> Option<&str> {
        self.wgsl.as_deref()
    }
    pub fn has_code(&self, backend: Backend) -> bool {
        match backend {
            Backend::Spirv => self.spirv.is_some(),
            Backend::Wgsl => self.wgsl.is_some(),
        }
    }
    /// The kernel with this PTX name (or, failing that, this entry-point name).
    pub fn kernel(&self, name: &str) -> Option<&ir::Kernel> {
        let ks = &self.module.kernels;
        ks.iter()
            .find(|k| k.name == name)
            .or_else(|| ks.iter().find(|k| k.entry_point == name))
    }
    /// The kernels' PTX names (an emulated twin, `ir::Features::warp_fallback`, is not listed:
    /// it shares its kernel's name).
    pub fn kernel_names(&self) -> Vec<String> {
        self.module.kernels.iter().filter(|k| !k.features.warp_fallback).map(|k| k.name.clone()).collect()
    }
}

/// Each fault site of `k` as the host reports it: `file:line:col (`opcode`)`, indexed by site id
/// − 1 (`abi::FAULT_SITE_WORD` holds the id of the faulting instruction; 0: none). The site of a
/// fault that is only a loop the driver cut is not reported (it is no instruction's fault; the
/// site word may hold the last instruction that ran): see `Context::settle`.
pub(crate) fn fault_site_texts(program: &Program, k: &ir::Kernel) -> Vec<String> {
    k.fault_sites
        .iter()
        .map(|s| format!("{}:{}:{} (`{}`)", program.name(), s.line, s.col, s.instruction))
        .collect()
}
