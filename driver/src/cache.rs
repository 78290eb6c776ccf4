//! The on-disk translation cache: the emitted (and validated) SPIR-V or WGSL of one kernel for
//! one launch shape, keyed by a BLAKE3 hash of everything the code depends on: the module's PTX
//! (its hash), the kernel, the block shape, the dynamic shared bytes, the backend and fma mode,
//! the device (adapter name, API, driver), and this build of ptxcross (the driver library's
//! path, size and modification time, so a rebuilt ptxcross never reuses old code).
//!
//! Directory: `PTXCROSS_CACHE_DIR`, else `$XDG_CACHE_HOME/ptxcross`, else `~/.cache/ptxcross`;
//! `PTXCROSS_CACHE_DIR=off` disables it. Entries are written to a temporary file and renamed,
//! so concurrent processes never read half an entry; a missing or unreadable entry is a miss.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use ptxcross::runtime::{Backend, Program};
use ptxcross_lower::ir;

use crate::module::ShapeKey;
use crate::state::Device;

/// Where the translations of this process came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Launches whose shape was already translated for the module.
    pub memory_hits: u64,
    /// Translations whose code came from the disk cache.
    pub disk_hits: u64,
    /// Translations emitted (and validated) now.
    pub translations: u64,
}

static MEMORY_HITS: AtomicU64 = AtomicU64::new(0);
static DISK_HITS: AtomicU64 = AtomicU64::new(0);
static TRANSLATIONS: AtomicU64 = AtomicU64::new(0);

pub fn stats() -> Stats {
    Stats {
        memory_hits: MEMORY_HITS.load(Ordering::Relaxed),
        disk_hits: DISK_HITS.load(Ordering::Relaxed),
        translations: TRANSLATIONS.load(Ordering::Relaxed),
    }
}

pub(crate) fn count_memory_hit() {
    MEMORY_HITS.fetch_add(1, Ordering::Relaxed);
}

pub fn dir() -> Option<PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(ptxcross::validated::cache_dir).clone()
}

/// Identity of this build of ptxcross: the file holding this code, its size and mtime.
fn build_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let path = ptxcross::validated::self_path().unwrap_or_default();
        let (size, mtime) = ptxcross::validated::file_stamp(&path);
        format!("{} {} {path} {size} {mtime}", env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
    })
}

pub struct DiskKey(String);

impl DiskKey {
    pub fn new(ptx: &blake3::Hash, shape: &ShapeKey, device: &Device) -> DiskKey {
        let info = device.gpu.adapter_info();
        let (kernel, block, dynamic_shared) = shape;
        let text = format!(
            "ptx {ptx}\nkernel {kernel}\nblock {block:?}\nshared {dynamic_shared}\nbackend {}\nfma {}\nguarded fma {}\ncut loops {}\nfence atomics {}\n\
             native warps {}\nflushed f32 {}\nsplit int64 {}\nno float64 {}\nmax shared {:?}\nmax globals {:?}\ndevice {} {:?} {} {} {:x} {:x}\nbuild {}\n",
            device.backend.name(),
            device.options.native_fma,
            device.options.native_fma_guarded,
            device.options.detect_cut_loops,
            device.options.fences_as_sink_atomics,
            device.options.native_warps,
            device.options.flushed_f32,
            device.options.split_int64,
            device.options.no_float64,
            device.options.max_shared_bytes,
            device.options.max_global_bytes,
            info.name,
            info.backend,
            info.driver,
            info.driver_info,
            info.vendor,
            info.device,
            build_id()
        );
        DiskKey(blake3::hash(text.as_bytes()).to_hex().to_string())
    }

    fn path(&self, backend: Backend) -> Option<PathBuf> {
        Some(dir()?.join(format!("{}.{}", self.0, backend.name())))
    }
}

/// Cached code of one backend.
pub enum Code {
    Spirv(Vec<u32>),
    Wgsl(String),
}

impl Code {
    pub fn into_program(self, name: String, ir: ir::Module) -> Program {
        match self {
            Code::Spirv(words) => Program::new(name, ir, Some(words), None),
            Code::Wgsl(text) => Program::new(name, ir, None, Some(text)),
        }
    }
}

pub fn load(key: &DiskKey, backend: Backend) -> Option<Code> {
    let code = read(key, backend);
    let counter = if code.is_some() { &DISK_HITS } else { &TRANSLATIONS };
    counter.fetch_add(1, Ordering::Relaxed);
    code
}

fn read(key: &DiskKey, backend: Backend) -> Option<Code> {
    let bytes = std::fs::read(key.path(backend)?).ok()?;
    match backend {
        Backend::Spirv => {
            if bytes.len() % 4 != 0 || bytes.is_empty() {
                return None;
            }
            let words: Vec<u32> =
                bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            // A SPIR-V module starts with its magic number; anything else is a damaged entry.
            (words[0] == 0x0723_0203).then_some(Code::Spirv(words))
        }
        Backend::Wgsl => String::from_utf8(bytes).ok().map(Code::Wgsl),
    }
}

/// Writes the program's code for `backend`; failures only cost a later re-translation.
pub fn store(key: &DiskKey, program: &Program, backend: Backend) {
    let Some(path) = key.path(backend) else { return };
    let bytes: Vec<u8> = match backend {
        Backend::Spirv => match program.spirv() {
            Some(w) => w.iter().flat_map(|w| w.to_le_bytes()).collect(),
            None => return,
        },
        Backend::Wgsl => match program.wgsl() {
            Some(t) => t.as_bytes().to_vec(),
            None => return,
        },
    };
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(".{}.{}.tmp", std::process::id(), key.0));
    if std::fs::write(&tmp, &bytes).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
