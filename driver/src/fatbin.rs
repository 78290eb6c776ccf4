//! Fat binaries: what nvcc embeds in a program (`.nv_fatbin`) and the CUDA runtime registers
//! through `__cudaRegisterFatBinary`. ptxcross runs PTX, so loading one means picking its best
//! PTX entry and decompressing it; SASS (ELF) entries are skipped.
//!
//! Layout (little-endian; read from the bytes nvcc 13 writes, cross-checked with ZLUDA's
//! `cuda_types/src/dark_api.rs` and the `fatbinary_section.h` comments nvcc ships):
//! - wrapper `__fatBinC_Wrapper_t`: u32 magic 0x466243B1, u32 version (1 or 2), u64 pointer
//!   to the fatbin, u64 pointer (file name or prelinked fatbins; unused here);
//! - fatbin header: u32 magic 0xBA55ED50, u16 version (1), u16 header size, u64 size of the
//!   entries that follow the header;
//! - each entry: u16 kind (1 PTX, 2 ELF), u16 version, u32 header size, u64 payload size,
//!   u32 compressed size at +16, u16 minor / u16 major version at +24 (the PTX ISA version
//!   for PTX), u32 arch (sm_XY as 10·X+Y) at +28, u64 flags at +40, u64 uncompressed size at
//!   +56; the payload follows the entry header.
//!
//! Every read is bounds-checked: any bytes give an entry or a [`FatbinError`], never a panic.

use std::io::Read;

pub const WRAPPER_MAGIC: u32 = 0x466243b1;
pub const FATBIN_MAGIC: u32 = 0xba55ed50;

const KIND_PTX: u16 = 1;
const KIND_ELF: u16 = 2;
const ENTRY_HEADER_MIN: usize = 64;
/// Entry flags: zstd-compressed payload (nvcc 13's default) and an LZ4 block (nvcc's
/// `-compress-mode=speed`, and older nvcc's default).
const FLAG_COMPRESSED_LZ4: u64 = 0x2000;
const FLAG_COMPRESSED_ZSTD: u64 = 0x8000;
/// The most a fatbin or a decompressed PTX entry may claim (a corrupt size is refused, not
/// allocated).
pub const MAX_SIZE: u64 = 1 << 30;

/// Why a fatbin has no PTX ptxcross can load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FatbinError(pub String);

/// A PTX entry's description, for choosing among several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PtxEntry {
    /// sm_XY as 10·X+Y.
    pub arch: u32,
    /// The PTX ISA version (major, minor).
    pub version: (u16, u16),
    pub flags: u64,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    b.get(at..at.checked_add(2)?).map(|s| u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at.checked_add(4)?).map(|s| u32::from_le_bytes(s.try_into().unwrap_or([0; 4])))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at.checked_add(8)?).map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
}

fn truncated(what: &str) -> FatbinError {
    FatbinError(format!("the fatbin is truncated or corrupt ({what})"))
}

/// Total length (header included) of the fatbin whose header starts `b`, from its header.
pub fn fatbin_len(b: &[u8]) -> Result<u64, FatbinError> {
    if u32_at(b, 0) != Some(FATBIN_MAGIC) {
        return Err(FatbinError("not a fatbin (bad magic)".into()));
    }
    let header = u16_at(b, 6).ok_or_else(|| truncated("header"))? as u64;
    let size = u64_at(b, 8).ok_or_else(|| truncated("header"))?;
    let total = header.checked_add(size).filter(|&t| t <= MAX_SIZE && header >= 16);
    total.ok_or_else(|| truncated("header sizes"))
}

/// An entry: kind, entry header, payload.
type Entry<'a> = (u16, &'a [u8], &'a [u8]);

/// The entries of the fatbin at the start of `b`.
fn entries(b: &[u8]) -> Result<Vec<Entry<'_>>, FatbinError> {
    let total = fatbin_len(b)? as usize;
    let header = u16_at(b, 6).unwrap_or(16) as usize;
    let body = b.get(header..total).ok_or_else(|| truncated("entries extend past the end"))?;
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < body.len() {
        let e = &body[at..];
        let kind = u16_at(e, 0).ok_or_else(|| truncated("entry header"))?;
        let head = u32_at(e, 4).ok_or_else(|| truncated("entry header"))? as usize;
        let payload = u64_at(e, 8).ok_or_else(|| truncated("entry header"))?;
        if head < ENTRY_HEADER_MIN || payload > MAX_SIZE {
            return Err(truncated("entry sizes"));
        }
        let end = head.checked_add(payload as usize).filter(|&end| end <= e.len()).ok_or_else(|| truncated("entry past the end"))?;
        out.push((kind, &e[..head], &e[head..end]));
        at += end;
    }
    Ok(out)
}

fn describe(h: &[u8]) -> PtxEntry {
    let minor = u16_at(h, 24).unwrap_or(0);
    let major = u16_at(h, 26).unwrap_or(0);
    PtxEntry { arch: u32_at(h, 28).unwrap_or(0), version: (major, minor), flags: u64_at(h, 40).unwrap_or(0) }
}

/// The best PTX entry of the fatbin at the start of `b`, and its text: the highest arch
/// at most `claimed` (the compute capability the device reports, 10·major+minor), else the
/// lowest above it (ptxcross translates any target; what it cannot translate it refuses at
/// load), uncompressed before compressed at equal arch.
pub fn best_ptx(b: &[u8], claimed: u32) -> Result<(PtxEntry, String), FatbinError> {
    let all = entries(b)?;
    let mut ptx: Vec<(PtxEntry, &[u8], &[u8])> =
        all.iter().filter(|(k, _, _)| *k == KIND_PTX).map(|(_, h, p)| (describe(h), *h, *p)).collect();
    if ptx.is_empty() {
        let elf = all.iter().filter(|(k, _, _)| *k == KIND_ELF).count();
        let archs: Vec<String> = all.iter().map(|(_, h, _)| format!("sm_{}", describe(h).arch)).collect();
        return Err(FatbinError(format!(
            "the fatbin holds no PTX ({} entries, {elf} of them SASS for {}): ptxcross runs PTX only \
             (nvcc keeps PTX with -arch=sm_XX or -gencode arch=compute_XX,code=compute_XX; \
             device-linked code, nvcc -rdc=true, is SASS only)",
            all.len(),
            if archs.is_empty() { "nothing".to_string() } else { archs.join(", ") }
        )));
    }
    let compressed = |e: &PtxEntry| e.flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD) != 0;
    // Best first: fits the claim, then the highest arch that fits (the lowest that does not),
    // then uncompressed.
    ptx.sort_by_key(|(e, _, _)| {
        let fits = e.arch <= claimed;
        (!fits, if fits { u32::MAX - e.arch } else { e.arch }, compressed(e))
    });
    let (entry, head, payload) = ptx[0];
    let compressed_payload = || {
        let size = u32_at(head, 16).unwrap_or(0) as usize;
        let want = u64_at(head, 56).unwrap_or(0);
        let data = payload.get(..size).ok_or_else(|| truncated("compressed size past the payload"))?;
        if want > MAX_SIZE {
            return Err(truncated("uncompressed size"));
        }
        Ok((data, want as usize))
    };
    let bytes = if entry.flags & FLAG_COMPRESSED_ZSTD != 0 {
        let (data, want) = compressed_payload()?;
        zstd(data, want)?
    } else if entry.flags & FLAG_COMPRESSED_LZ4 != 0 {
        let (data, want) = compressed_payload()?;
        lz4(data, want)?
    } else {
        payload.to_vec()
    };
    // The payload is NUL-padded text.
    let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
    let text = String::from_utf8(bytes[..end].to_vec()).map_err(|e| FatbinError(format!("the PTX entry for sm_{} is not UTF-8 text (byte {})", entry.arch, e.utf8_error().valid_up_to())))?;
    Ok((entry, text))
}

fn corrupt(e: impl std::fmt::Display) -> FatbinError {
    FatbinError(format!("the compressed PTX entry is corrupt: {e}"))
}

fn check_size(out: Vec<u8>, want: usize) -> Result<Vec<u8>, FatbinError> {
    if out.len() != want {
        return Err(FatbinError(format!("the compressed PTX entry decodes to {} bytes, its header says {want}", out.len())));
    }
    Ok(out)
}

/// Decompresses one zstd frame, refusing output larger than the entry said.
fn zstd(data: &[u8], want: usize) -> Result<Vec<u8>, FatbinError> {
    let mut input = data;
    let decoder = ruzstd::decoding::StreamingDecoder::new(&mut input).map_err(corrupt)?;
    let mut out = Vec::with_capacity(want.min(64 << 20));
    decoder.take(want as u64 + 1).read_to_end(&mut out).map_err(corrupt)?;
    check_size(out, want)
}

/// Decompresses one LZ4 block (no frame) into the size the entry said.
fn lz4(data: &[u8], want: usize) -> Result<Vec<u8>, FatbinError> {
    // An LZ4 block expands at most 255-fold: a larger claim is a corrupt header, not allocated.
    if want > data.len().saturating_mul(255).saturating_add(16) {
        return Err(truncated("uncompressed size"));
    }
    let mut out = vec![0u8; want];
    let n = lz4_flex::block::decompress_into(data, &mut out).map_err(corrupt)?;
    out.truncate(n);
    check_size(out, want)
}

/// The fatbin a loaded image points at, when it is a fatbin or a wrapper: its bytes.
///
/// # Safety
/// `image` points at a readable wrapper or fatbin header, and a fatbin's header describes
/// memory that is readable, as the API requires of a program's image.
pub unsafe fn fatbin_bytes<'a>(image: *const u8) -> Result<Option<&'a [u8]>, FatbinError> {
    let magic = u32::from_le_bytes(*(image as *const [u8; 4]));
    let fatbin = match magic {
        WRAPPER_MAGIC => {
            let wrapper = std::slice::from_raw_parts(image, 24);
            let version = u32_at(wrapper, 4).unwrap_or(0);
            let data = u64_at(wrapper, 8).unwrap_or(0) as *const u8;
            if !(1..=2).contains(&version) || data.is_null() {
                return Err(FatbinError(format!("unknown fatbin wrapper (version {version}, data {data:?})")));
            }
            data
        }
        FATBIN_MAGIC => image,
        _ => return Ok(None),
    };
    let header = std::slice::from_raw_parts(fatbin, 16);
    let len = fatbin_len(header)?;
    Ok(Some(std::slice::from_raw_parts(fatbin, len as usize)))
}
