//! Remembered SPIR-V validation: the runtime validates each emitted module once per machine,
//! not once per process (issue 11: the CUB radix sort's two largest kernels take 90-100 s each
//! in Khronos' validator, at every first launch of every process).
//!
//! The fail-closed rule stands: SPIR-V reaches the driver (wgpu's unchecked passthrough) only
//! after Khronos' validator accepted it. What is remembered is that fact about the exact words:
//! the key is a BLAKE3 hash of the module's words and of the validator (this build of ptxcross,
//! which links SPIRV-Tools statically, plus any SPIRV-Tools shared library mapped into the
//! process), so a different emitter, other options, another kernel or another validator can
//! never hit an entry; a hit is as strong as running the validator on those words again. Only
//! acceptance is recorded (a rejected module is validated, and rejected, every time).
//!
//! Where: `$PTXCROSS_CACHE_DIR/spirv-valid/` (else `$XDG_CACHE_HOME/ptxcross/…`, else
//! `~/.cache/ptxcross/…`), the directory of the driver's translation cache, so the trust is the
//! same: whoever can write there can already hand the driver library code. One empty file per
//! module, written under a temporary name and renamed. `PTXCROSS_CACHE_DIR=off` turns it off
//! (the in-process memory of validated modules stays). The programs of the `spirv-val`
//! fallback (a build without SPIRV-Tools linked) are not remembered: the program on `PATH` may
//! change under us.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// How the validations of this process went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Modules the validator ran on (accepted or not).
    pub validated: u64,
    /// Modules accepted without running the validator: validated earlier in this process.
    pub memory_hits: u64,
    /// Modules accepted without running the validator: recorded on disk by an earlier run.
    pub disk_hits: u64,
}

/// A record of validated modules: in memory, and in `dir` when there is one.
pub struct Record {
    dir: Option<PathBuf>,
    seen: Mutex<HashSet<[u8; 32]>>,
    validated: AtomicU64,
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
}

impl Record {
    /// A record kept in `dir` (created when first written), or in memory only.
    pub fn new(dir: Option<PathBuf>) -> Record {
        Record {
            dir,
            seen: Mutex::new(HashSet::new()),
            validated: AtomicU64::new(0),
            memory_hits: AtomicU64::new(0),
            disk_hits: AtomicU64::new(0),
        }
    }

    /// The process's record, in the cache directory (see the module comment).
    pub fn global() -> &'static Record {
        static RECORD: OnceLock<Record> = OnceLock::new();
        RECORD.get_or_init(|| Record::new(cache_dir().map(|d| d.join("spirv-valid"))))
    }

    pub fn stats(&self) -> Stats {
        Stats {
            validated: self.validated.load(Ordering::Relaxed),
            memory_hits: self.memory_hits.load(Ordering::Relaxed),
            disk_hits: self.disk_hits.load(Ordering::Relaxed),
        }
    }

    /// Ok when `validate` accepts `words` now, or accepted these very words before (with this
    /// validator); acceptance is recorded.
    pub fn check<E>(&self, words: &[u32], validate: impl FnOnce(&[u32]) -> Result<(), E>) -> Result<(), E> {
        if !remembered_validator() {
            self.validated.fetch_add(1, Ordering::Relaxed);
            return validate(words);
        }
        let key = key(words);
        if self.seen.lock().map(|s| s.contains(&key)).unwrap_or(false) {
            self.memory_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        let file = self.dir.as_ref().map(|d| d.join(hex(&key)));
        if file.as_deref().is_some_and(Path::is_file) {
            self.disk_hits.fetch_add(1, Ordering::Relaxed);
            self.remember(key);
            return Ok(());
        }
        self.validated.fetch_add(1, Ordering::Relaxed);
        validate(words)?;
        self.remember(key);
        if let (Some(dir), Some(file)) = (&self.dir, &file) {
            write_marker(dir, file);
        }
        Ok(())
    }

    fn remember(&self, key: [u8; 32]) {
        if let Ok(mut s) = self.seen.lock() {
            s.insert(key);
        }
    }
}

/// Whether acceptance by this process's validator may be remembered: only the in-process
/// SPIRV-Tools, whose identity is part of the key.
fn remembered_validator() -> bool {
    ptxcross_spirv::validator() == ptxcross_spirv::Validator::InProcess
}

/// BLAKE3 of the validator's identity and the words.
fn key(words: &[u32]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(validator_identity().as_bytes());
    h.update(&(words.len() as u64).to_le_bytes());
    // The words as little-endian bytes, in chunks (no copy of a 12 MB module at once).
    let mut buf = Vec::with_capacity(4 * 4096);
    for chunk in words.chunks(4096) {
        buf.clear();
        buf.extend(chunk.iter().flat_map(|w| w.to_le_bytes()));
        h.update(&buf);
    }
    *h.finalize().as_bytes()
}

/// The validator's identity: the file holding this code (SPIRV-Tools is linked into it
/// statically) and every SPIRV-Tools shared library mapped into the process, each with its size
/// and modification time, and the target environment.
fn validator_identity() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let mut id = format!(
            "ptxcross {} spirv-val vulkan1.1 in-process\n",
            env!("CARGO_PKG_VERSION")
        );
        let mut files = vec![self_path().unwrap_or_default()];
        if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
            for line in maps.lines() {
                if let Some(path) = line.split_whitespace().nth(5) {
                    if path.contains("SPIRV-Tools") && !files.iter().any(|f| f == path) {
                        files.push(path.to_string());
                    }
                }
            }
        }
        for f in files {
            let (size, mtime) = file_stamp(&f);
            id += &format!("{f} {size} {mtime}\n");
        }
        id
    })
}

#[repr(C)]
struct DlInfo {
    dli_fname: *const std::ffi::c_char,
    dli_fbase: *mut std::ffi::c_void,
    dli_sname: *const std::ffi::c_char,
    dli_saddr: *mut std::ffi::c_void,
}

extern "C" {
    fn dladdr(addr: *const std::ffi::c_void, info: *mut DlInfo) -> i32;
}

/// A file's size and modification time (ns since the epoch; 0 where unknown): with its path,
/// what identifies a build of the code that produced a cached result.
pub fn file_stamp(path: &str) -> (u64, u128) {
    let meta = std::fs::metadata(path).ok();
    let size = meta.as_ref().map(|m| m.len()).unwrap_or(0);
    let mtime = meta
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    (size, mtime)
}

/// The executable or shared object (the driver library) this code was loaded from: part of
/// the identity of what produced a cached result (also the driver's translation cache's).
pub fn self_path() -> Option<String> {
    let mut info = DlInfo {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: dladdr only reads the address and fills `info`.
    let ok = unsafe { dladdr(self_path as *const std::ffi::c_void, &mut info) };
    if ok == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated path owned by the dynamic linker.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned();
    // The main executable may be named by argv[0]; make it a real path.
    std::fs::canonicalize(&name).ok().map(|p| p.display().to_string()).or(Some(name))
}

/// `PTXCROSS_CACHE_DIR` (`off`: none), else `$XDG_CACHE_HOME/ptxcross`, else
/// `~/.cache/ptxcross` (as the driver's translation cache).
pub fn cache_dir() -> Option<PathBuf> {
    let env = |n: &str| std::env::var_os(n).filter(|v| !v.is_empty());
    if let Some(d) = env("PTXCROSS_CACHE_DIR") {
        return (d != "off").then(|| PathBuf::from(d));
    }
    env("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|d| d.join("ptxcross"))
}

fn hex(key: &[u8; 32]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// Failures only cost a validation in a later process.
fn write_marker(dir: &Path, file: &Path) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let Some(name) = file.file_name() else { return };
    let tmp = dir.join(format!(".{}.{}.tmp", std::process::id(), name.to_string_lossy()));
    if std::fs::write(&tmp, b"").is_ok() && std::fs::rename(&tmp, file).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
