//! Fat binaries nvcc wrote (tests/fatbin/regen.sh): the PTX ptxcross takes out of each must be
//! the PTX `nvcc -ptx` wrote for the same kernel, corrupt fatbins are refused without a panic,
//! and a fatbin (bare or in nvcc's wrapper) loads through cuModuleLoadData and runs.

mod common;

use std::ffi::{c_void, CString};

use cuda::api::*;
use cuda::generated::CUfunction_attribute as F;
use cuda::fatbin::{best_ptx, fatbin_bytes, FATBIN_MAGIC, WRAPPER_MAGIC};
use cuda::types::*;

const PTX80: &[u8] = include_bytes!("fatbin/ptx80.fatbin");
const PTX80_PLAIN: &[u8] = include_bytes!("fatbin/ptx80-plain.fatbin");
const PTX80_LZ4: &[u8] = include_bytes!("fatbin/ptx80-lz4.fatbin");
const SM80: &[u8] = include_bytes!("fatbin/sm80.fatbin");
const SASS_ONLY: &[u8] = include_bytes!("fatbin/sass-only.fatbin");
const REFERENCE_PTX: &str = include_str!("fatbin/add.ptx");

/// PTX without comments, blank lines and layout (fatbinary strips them from what it embeds).
fn tokens(ptx: &str) -> Vec<String> {
    let lines = ptx.lines().map(|l| l.split("//").next().unwrap_or(""));
    let lines = lines.map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "));
    lines.filter(|l| !l.is_empty()).collect()
}

#[test]
fn the_ptx_entry_is_nvccs_ptx() {
    // zstd-compressed (nvcc's default), LZ4-compressed, uncompressed, and beside a SASS entry; for a device
    // claiming less (7.5) and as much (8.0) as the entry's target.
    for (name, fatbin) in [("ptx80", PTX80), ("ptx80-lz4", PTX80_LZ4), ("ptx80-plain", PTX80_PLAIN), ("sm80", SM80)] {
        for claimed in [75, 80] {
            let (entry, ptx) = best_ptx(fatbin, claimed).unwrap_or_else(|e| panic!("{name}: {}", e.0));
            assert_eq!((entry.arch, entry.version), (80, (9, 5)), "{name}");
            assert_eq!(tokens(&ptx), tokens(REFERENCE_PTX), "{name}, claimed sm_{claimed}");
        }
    }
}

#[test]
fn a_fatbin_without_ptx_is_refused_with_the_reason() {
    let e = best_ptx(SASS_ONLY, 75).unwrap_err();
    assert!(e.0.contains("no PTX") && e.0.contains("sm_80"), "{}", e.0);
}

/// Every truncation and every single-byte corruption of the headers gives a result or an
/// error, never a panic; a truncation that cuts into an entry is an error.
#[test]
fn corrupt_fatbins_are_refused_without_panicking() {
    for fatbin in [PTX80, PTX80_LZ4, PTX80_PLAIN, SM80, SASS_ONLY] {
        let end = 16 + u64::from_le_bytes(fatbin[8..16].try_into().unwrap()) as usize;
        for len in 0..end {
            assert!(best_ptx(&fatbin[..len], 75).is_err(), "truncated to {len}");
        }
        // The fatbin header, the first entry's header and the first payload bytes (all of the
        // compressed ones).
        let span = if fatbin == PTX80 || fatbin == PTX80_LZ4 { fatbin.len() } else { fatbin.len().min(160) };
        for at in 0..span {
            for value in [0x00, 0xff, 0x80, 0x01] {
                let mut bad = fatbin.to_vec();
                bad[at] = value;
                let _ = best_ptx(&bad, 75);
            }
        }
    }
    let mut huge = PTX80.to_vec();
    huge[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(best_ptx(&huge, 75).is_err());
}

/// An 8-byte-aligned copy of `fatbin` (as nvcc places it) and a `__fatBinC_Wrapper_t`
/// (magic, version 1, the fatbin's address, no file name) pointing at the copy.
fn wrapped(fatbin: &[u8]) -> (Vec<u64>, [u64; 3]) {
    let words: Vec<u64> = fatbin.chunks(8).map(|c| {
        let mut b = [0u8; 8];
        b[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(b)
    }).collect();
    let wrapper = [(WRAPPER_MAGIC as u64) | (1 << 32), words.as_ptr() as u64, 0];
    (words, wrapper)
}

#[test]
fn the_wrapper_points_at_the_fatbin() {
    let (_fatbin, wrapper) = wrapped(SM80);
    // SAFETY: both point at live memory holding the fatbin the header describes.
    let bytes = unsafe { fatbin_bytes(wrapper.as_ptr() as *const u8) }.unwrap().unwrap();
    assert_eq!(u32::from_le_bytes(bytes[..4].try_into().unwrap()), FATBIN_MAGIC);
    assert_eq!(bytes, &SM80[..bytes.len()]);
    // SAFETY: NUL-terminated text.
    assert!(unsafe { fatbin_bytes(c".version 8.0".as_ptr() as *const u8) }.unwrap().is_none());
}

/// nvcc's `add` kernel loaded from a compressed fatbin inside the wrapper, run on 1000
/// elements, checked against the sum on the CPU.
#[test]
fn a_wrapped_fatbin_loads_and_runs() {
    let Some(_ctx) = common::push_primary_context() else { return };
    let (fatbin, wrapper) = wrapped(PTX80);
    let mut module = std::ptr::null_mut();
    assert_eq!(cuModuleLoadData(&mut module, wrapper.as_ptr() as *const c_void), CUDA_SUCCESS);
    // The bare fatbin loads too.
    let mut bare = std::ptr::null_mut();
    assert_eq!(cuModuleLoadFatBinary(&mut bare, fatbin.as_ptr() as *const c_void), CUDA_SUCCESS);
    // From a file too; a truncated one is refused.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let (whole, cut) = (dir.join("ptx80.fatbin"), dir.join("ptx80-truncated.fatbin"));
    std::fs::write(&whole, PTX80).unwrap();
    std::fs::write(&cut, &PTX80[..PTX80.len() - 100]).unwrap();
    let path = |p: &std::path::Path| CString::new(p.to_str().unwrap()).unwrap();
    assert_eq!(cuModuleLoad(&mut bare, path(&whole).as_ptr()), CUDA_SUCCESS);
    assert_eq!(cuModuleLoad(&mut bare, path(&cut).as_ptr()), CUDA_ERROR_NO_BINARY_FOR_GPU);
    // A fatbin of SASS only is refused as having no binary for the GPU.
    assert_eq!(cuModuleLoadData(&mut bare, SASS_ONLY.as_ptr() as *const c_void), CUDA_ERROR_NO_BINARY_FOR_GPU);
    let mut f = std::ptr::null_mut();
    let name = CString::new("add").unwrap();
    assert_eq!(cuModuleGetFunction(&mut f, module, name.as_ptr()), CUDA_SUCCESS);
    // The PTX targets sm_80 (what CUB and Thrust read to pick their tuning); the binary is
    // for the device (7.5).
    let mut version = 0;
    assert_eq!(cuFuncGetAttribute(&mut version, F::CU_FUNC_ATTRIBUTE_PTX_VERSION as i32, f), CUDA_SUCCESS);
    assert_eq!(version, 80);
    assert_eq!(cuFuncGetAttribute(&mut version, F::CU_FUNC_ATTRIBUTE_BINARY_VERSION as i32, f), CUDA_SUCCESS);
    assert_eq!(version, 75);
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
    let (mut da, mut db, mut dc) = (0u64, 0u64, 0u64);
    for p in [&mut da, &mut db, &mut dc] {
        assert_eq!(cuMemAlloc_v2(p, n * 4), CUDA_SUCCESS);
    }
    assert_eq!(cuMemcpyHtoD_v2(da, a.as_ptr() as *const c_void, n * 4), CUDA_SUCCESS);
    assert_eq!(cuMemcpyHtoD_v2(db, b.as_ptr() as *const c_void, n * 4), CUDA_SUCCESS);
    let count = n as i32;
    let mut params: [*mut c_void; 4] =
        [&mut da as *mut _ as _, &mut db as *mut _ as _, &mut dc as *mut _ as _, &count as *const _ as _];
    let blocks = n.div_ceil(128) as u32;
    let r = cuLaunchKernel(f, blocks, 1, 1, 128, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
    assert_eq!(r, CUDA_SUCCESS);
    let mut c = vec![0f32; n];
    assert_eq!(cuMemcpyDtoH_v2(c.as_mut_ptr() as *mut c_void, dc, n * 4), CUDA_SUCCESS);
    for i in 0..n {
        assert_eq!(c[i].to_bits(), (a[i] + b[i]).to_bits(), "element {i}");
    }
}
