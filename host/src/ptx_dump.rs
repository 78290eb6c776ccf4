//! `PTXCROSS_PTX_DUMP=DIR`: every PTX source that [`crate::translate`] lowers successfully is
//! written to `DIR`, once per distinct source and options, so that a later check can translate
//! the same kernels again for another target: `scripts/test.sh` collects what the whole test
//! suite translates and compiles its SIMT kernels' webgpu-profile WGSL in a browser
//! (`tests/tests/browser_tint_collected.rs`, issue 10).
//!
//! A file is `<blake3 of its text, 32 hex digits>.ptx`: one header line (a PTX comment) with
//! the [`LowerOptions`] that shape the code a backend sees (the launch's block when lowering is
//! specialised to it, the kernel, shared-memory sizes, the call and scratch paths tests force),
//! then the source unchanged. Device-derived options (flushing, `fma`, driver workarounds, native
//! warps, 64-bit types) are not kept: the reader chooses its target's. Unset, the cost is one
//! read of a `OnceLock`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ptxcross_frontend::SourceFile;
use ptxcross_lower::{LowerOptions, Meeting};

/// The environment variable naming the folder.
pub const ENV: &str = "PTXCROSS_PTX_DUMP";

/// Start of a dumped file's first line.
const HEADER: &str = "// ptxcross-ptx-dump:";

fn dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(std::env::var_os(ENV).filter(|d| !d.is_empty())?);
        let _ = std::fs::create_dir_all(&dir);
        Some(dir)
    })
    .as_deref()
}

/// Writes `file` lowered with `options` to the dump folder, when there is one. Best effort:
/// the dump is for checks run afterwards, so a write that fails loses one file, never a
/// translation.
pub fn record(file: &SourceFile, options: &LowerOptions) {
    let Some(dir) = dir() else { return };
    let text = format!("{HEADER} {}\n{}", header(options), file.text);
    let hash = blake3::hash(text.as_bytes()).to_hex();
    let path = dir.join(format!("{}.ptx", &hash[..32]));
    if path.exists() {
        return;
    }
    // Test processes and threads record at once: write aside, then rename (atomic).
    let tmp = dir.join(format!(".{}.{}.{:?}.tmp", &hash[..32], std::process::id(), std::thread::current().id()));
    if std::fs::write(&tmp, &text).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// The options of the header line, `key=value` separated by spaces (kernel names have none).
fn header(o: &LowerOptions) -> String {
    let mut h = Vec::new();
    if let Some([x, y, z]) = o.block {
        h.push(format!("block={x},{y},{z}"));
    }
    if let Some(k) = &o.kernel {
        h.push(format!("kernel={k}"));
    }
    let numbers = [
        ("dynamic_shared_bytes", Some(o.dynamic_shared_bytes as u64).filter(|&n| n != 0)),
        ("max_shared_bytes", o.max_shared_bytes.map(u64::from)),
        ("inline_budget", o.inline_budget.map(|n| n as u64)),
        ("local_scratch_bytes", o.local_scratch_bytes.map(u64::from)),
        ("segment_slots", Some(o.segment_slots as u64).filter(|&n| n != 0)),
    ];
    h.extend(numbers.iter().filter_map(|(k, v)| v.map(|v| format!("{k}={v}"))));
    if o.no_outline {
        h.push("no_outline=1".into());
    }
    if o.meeting != Meeting::default() {
        h.push(format!("meeting={:?}", o.meeting));
    }
    h.join(" ")
}

/// A dumped file: its source (the header line kept, so `file:line:col` matches the file) and
/// the options its header names, over `base` (the reader's target options).
pub fn read(path: &Path, base: &LowerOptions) -> Result<(SourceFile, LowerOptions), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let line = text.lines().next().and_then(|l| l.strip_prefix(HEADER)).ok_or_else(|| format!("{}: no `{HEADER}` line", path.display()))?;
    let mut o = base.clone();
    for field in line.split_whitespace() {
        let bad = || format!("{}: bad header field `{field}`", path.display());
        let (key, value) = field.split_once('=').ok_or_else(bad)?;
        let number = || value.parse::<u64>().map_err(|_| bad());
        let small = || number().and_then(|n| u32::try_from(n).map_err(|_| bad()));
        match key {
            "block" => {
                let dims: Vec<u32> = value.split(',').map(|d| d.parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
                o.block = Some(dims.try_into().map_err(|_| bad())?);
            }
            "kernel" => o.kernel = Some(value.to_string()),
            "dynamic_shared_bytes" => o.dynamic_shared_bytes = small()?,
            "max_shared_bytes" => o.max_shared_bytes = Some(small()?),
            "inline_budget" => o.inline_budget = Some(number()? as usize),
            "local_scratch_bytes" => o.local_scratch_bytes = Some(small()?),
            "segment_slots" => o.segment_slots = small()?,
            "no_outline" => o.no_outline = true,
            "meeting" => {
                o.meeting = [Meeting::Meet, Meeting::MeetAlways, Meeting::Check, Meeting::CheckEverywhere]
                    .into_iter()
                    .find(|m| format!("{m:?}") == value)
                    .ok_or_else(bad)?
            }
            _ => return Err(bad()),
        }
    }
    Ok((SourceFile::new(path.display().to_string(), text), o))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every option the header keeps comes back from it; the others are the reader's.
    #[test]
    fn header_round_trips() {
        let o = LowerOptions {
            block: Some([64, 2, 1]),
            kernel: Some("k_2".into()),
            dynamic_shared_bytes: 12,
            max_shared_bytes: Some(0),
            inline_budget: Some(0),
            local_scratch_bytes: Some(u32::MAX),
            segment_slots: 3,
            no_outline: true,
            meeting: Meeting::CheckEverywhere,
            native_fma: true,
            ..LowerOptions::default()
        };
        let path = std::env::temp_dir().join(format!("ptxcross-ptx-dump-{}.ptx", std::process::id()));
        std::fs::write(&path, format!("{HEADER} {}\n.version 8.5\n", header(&o))).unwrap();
        let base = LowerOptions { split_int64: true, ..LowerOptions::default() };
        let (file, read_back) = read(&path, &base).unwrap();
        std::fs::remove_file(&path).unwrap();
        // (LowerOptions has no PartialEq: compared by its Debug form.)
        let expected = LowerOptions { native_fma: false, split_int64: true, ..o };
        assert_eq!(format!("{read_back:?}"), format!("{expected:?}"));
        assert!(file.text.ends_with("\n.version 8.5\n"));
        assert_eq!(header(&LowerOptions::default()), "");
    }
}
