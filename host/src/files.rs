//! Reading the files a user names (PTX, launch specs, the buffers and expectations a spec
//! points at) without letting them block or exhaust the process: only regular files are read
//! (a FIFO would block `open` forever, `/dev/zero` never ends), and only up to a size limit.

use std::io::Read;
use std::path::Path;

/// Reads `path` if it is a regular file (after following links) of at most `max` bytes.
/// The error says which rule was broken.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a folder" } else { "not a regular file (a device, FIFO or socket)" };
        return Err(format!("{kind}; only regular files are read"));
    }
    if meta.len() > max {
        return Err(format!("{} bytes is larger than the {max} bytes allowed", meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(meta.len() as usize);
    // The file may grow after `metadata`: never read more than the limit.
    file.take(max + 1).read_to_end(&mut out).map_err(|e| e.to_string())?;
    if out.len() as u64 > max {
        return Err(format!("larger than the {max} bytes allowed"));
    }
    Ok(out)
}
