//! CUDA arrays, strided (2D/3D) copies, texture and surface objects.
//!
//! - A **CUDA array** is a device allocation of its context with a documented linear layout:
//!   row-major, no padding, element = channels × channel size; row pitch `width × element`,
//!   slice pitch `row pitch × height` (1D arrays have height 1, 2D depth 1).
//! - A **texture or surface object** is the device address of a descriptor
//!   (`ptxcross_lower::abi::texture`) written into a small allocation of the creating context:
//!   `tex`/`txq` read it with ordinary bounds-checked heap loads, so a forged handle reads only
//!   what a forged pointer could. Mipmapped arrays, layered and cubemap arrays, resource views,
//!   packed/YUV formats and sRGB texels are refused (`CUDA_ERROR_NOT_SUPPORTED`, with a message).

use std::ffi::{c_uint, c_void};

use ptxcross::DevicePtr;
use ptxcross_lower::abi::texture as desc;

use super::entry;
use super::memory::{alloc, host_slice, read, write};
use crate::state::{self, handle, id_of, out, put, Driver, Kind};
use crate::types::*;

/// `CUDA_ARRAY_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CudaArrayDescriptor {
    pub width: usize,
    pub height: usize,
    pub format: c_uint,
    pub num_channels: c_uint,
}

/// `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CudaArray3dDescriptor {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub format: c_uint,
    pub num_channels: c_uint,
    pub flags: c_uint,
}

/// `CUDA_MEMCPY2D`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CudaMemcpy2d {
    pub src_x_in_bytes: usize,
    pub src_y: usize,
    pub src_memory_type: c_uint,
    pub src_host: *const c_void,
    pub src_device: CUdeviceptr,
    pub src_array: Handle,
    pub src_pitch: usize,
    pub dst_x_in_bytes: usize,
    pub dst_y: usize,
    pub dst_memory_type: c_uint,
    pub dst_host: *mut c_void,
    pub dst_device: CUdeviceptr,
    pub dst_array: Handle,
    pub dst_pitch: usize,
    pub width_in_bytes: usize,
    pub height: usize,
}

/// `CUDA_MEMCPY3D`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CudaMemcpy3d {
    pub src_x_in_bytes: usize,
    pub src_y: usize,
    pub src_z: usize,
    pub src_lod: usize,
    pub src_memory_type: c_uint,
    pub src_host: *const c_void,
    pub src_device: CUdeviceptr,
    pub src_array: Handle,
    pub reserved0: *mut c_void,
    pub src_pitch: usize,
    pub src_height: usize,
    pub dst_x_in_bytes: usize,
    pub dst_y: usize,
    pub dst_z: usize,
    pub dst_lod: usize,
    pub dst_memory_type: c_uint,
    pub dst_host: *mut c_void,
    pub dst_device: CUdeviceptr,
    pub dst_array: Handle,
    pub reserved1: *mut c_void,
    pub dst_pitch: usize,
    pub dst_height: usize,
    pub width_in_bytes: usize,
    pub height: usize,
    pub depth: usize,
}

/// `CUDA_RESOURCE_DESC`: the union's arms read by `res_type`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CudaResourceDesc {
    pub res_type: c_uint,
    pub res: [u64; 16],
    pub flags: c_uint,
}

/// `CUDA_TEXTURE_DESC`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CudaTextureDesc {
    pub address_mode: [c_uint; 3],
    pub filter_mode: c_uint,
    pub flags: c_uint,
    pub max_anisotropy: c_uint,
    pub mipmap_filter_mode: c_uint,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    pub border_color: [f32; 4],
    pub reserved: [i32; 12],
}

const MEMORYTYPE_HOST: c_uint = 1;
const MEMORYTYPE_DEVICE: c_uint = 2;
const MEMORYTYPE_ARRAY: c_uint = 3;
const MEMORYTYPE_UNIFIED: c_uint = 4;

const RESOURCE_TYPE_ARRAY: c_uint = 0;
const RESOURCE_TYPE_MIPMAPPED_ARRAY: c_uint = 1;
const RESOURCE_TYPE_LINEAR: c_uint = 2;
const RESOURCE_TYPE_PITCH2D: c_uint = 3;

const ARRAY3D_LAYERED: c_uint = 0x01;
const ARRAY3D_SURFACE_LDST: c_uint = 0x02;
const ARRAY3D_CUBEMAP: c_uint = 0x04;
const ARRAY3D_TEXTURE_GATHER: c_uint = 0x08;

const TRSF_READ_AS_INTEGER: c_uint = 0x01;
const TRSF_NORMALIZED_COORDINATES: c_uint = 0x02;
const TRSF_SRGB: c_uint = 0x10;
const TR_FILTER_MODE_LINEAR: c_uint = 1;

/// A CUDA array: its texels at `ptr`, an allocation of context `ctx`.
#[derive(Clone, Copy, Debug)]
pub struct CudaArray {
    pub ctx: u64,
    pub ptr: u64,
    pub desc: CudaArray3dDescriptor,
}

impl CudaArray {
    fn element_bytes(&self) -> usize {
        format_of(self.desc.format).map_or(0, |(_, b)| b as usize) * self.desc.num_channels as usize
    }
    fn row_bytes(&self) -> usize {
        self.desc.width * self.element_bytes()
    }
    fn rows(&self) -> usize {
        self.desc.height.max(1)
    }
    fn bytes(&self) -> usize {
        self.row_bytes() * self.rows() * self.desc.depth.max(1)
    }
}

/// A texture or surface object: what it was created from, for the `Get*Desc` queries.
#[derive(Clone, Copy)]
pub struct TextureObject {
    pub ctx: u64,
    pub surface: bool,
    pub resource: CudaResourceDesc,
    pub texture: CudaTextureDesc,
}

/// `CUarray_format` → (channel kind, bytes per channel); `None`: not supported here.
fn format_of(f: c_uint) -> Option<(u32, u32)> {
    Some(match f {
        0x01 => (desc::KIND_UNSIGNED, 1),
        0x02 => (desc::KIND_UNSIGNED, 2),
        0x03 => (desc::KIND_UNSIGNED, 4),
        0x08 => (desc::KIND_SIGNED, 1),
        0x09 => (desc::KIND_SIGNED, 2),
        0x0a => (desc::KIND_SIGNED, 4),
        0x10 => (desc::KIND_FLOAT, 2),
        0x20 => (desc::KIND_FLOAT, 4),
        _ => return None,
    })
}

fn check_format(f: c_uint, channels: c_uint, what: &str) -> Result<(u32, u32), CUresult> {
    if !matches!(channels, 1 | 2 | 4) {
        crate::log::error(format_args!("{what}: {channels} channels (CUDA arrays have 1, 2 or 4)"));
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    format_of(f).ok_or_else(|| {
        crate::log::error(format_args!(
            "{what}: array format {f:#x} is not supported (8/16/32-bit integers, 16- and 32-bit floats are; packed and YUV formats not yet)"
        ));
        CUDA_ERROR_NOT_SUPPORTED
    })
}

fn array_of(d: &Driver, h: Handle) -> Result<CudaArray, CUresult> {
    let id = id_of(h, Kind::Array).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    d.arrays.get(&id).copied().ok_or(CUDA_ERROR_INVALID_HANDLE)
}

fn create_array(p: *mut Handle, desc: CudaArray3dDescriptor, what: &str) -> Result<(), CUresult> {
    state::with(|d| {
        let ctx = d.current_ctx()?;
        out(p)?;
        for (flag, name) in [(ARRAY3D_LAYERED, "layered"), (ARRAY3D_CUBEMAP, "cubemap"), (ARRAY3D_TEXTURE_GATHER, "texture-gather")] {
            if desc.flags & flag != 0 {
                crate::log::error(format_args!("{what}: {name} arrays are not supported"));
                return Err(CUDA_ERROR_NOT_SUPPORTED);
            }
        }
        if desc.flags & !(ARRAY3D_SURFACE_LDST) != 0 {
            crate::log::error(format_args!("{what}: flags {:#x} are not supported", desc.flags));
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        check_format(desc.format, desc.num_channels, what)?;
        // A 2D array has height ≥ 1; a 3D one, height ≥ 1 as well (cuda.h's table of shapes).
        if desc.width == 0 || (desc.depth > 0 && desc.height == 0) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let limit = 1usize << 31;
        if desc.width >= limit || desc.height >= limit || desc.depth >= limit {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut a = CudaArray { ctx, ptr: 0, desc };
        let bytes = (a.row_bytes() as u64).checked_mul(a.rows() as u64).and_then(|b| b.checked_mul(desc.depth.max(1) as u64));
        let bytes = bytes.filter(|&b| b < 1 << 32).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        a.ptr = alloc(d, ctx, bytes)?;
        let id = d.new_id();
        d.arrays.insert(id, a);
        put(p, handle(Kind::Array, id))
    })
}

#[no_mangle]
pub extern "C" fn cuArrayCreate_v2(p: *mut Handle, desc: *const CudaArrayDescriptor) -> CUresult {
    entry("cuArrayCreate_v2", || {
        // SAFETY: the caller passes a valid descriptor or null.
        let a = unsafe { desc.as_ref() }.ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let d3 = CudaArray3dDescriptor { width: a.width, height: a.height, depth: 0, format: a.format, num_channels: a.num_channels, flags: 0 };
        create_array(p, d3, "cuArrayCreate")
    })
}

#[no_mangle]
pub extern "C" fn cuArray3DCreate_v2(p: *mut Handle, desc: *const CudaArray3dDescriptor) -> CUresult {
    entry("cuArray3DCreate_v2", || {
        // SAFETY: as above.
        let a = unsafe { desc.as_ref() }.ok_or(CUDA_ERROR_INVALID_VALUE)?;
        create_array(p, *a, "cuArray3DCreate")
    })
}

#[no_mangle]
pub extern "C" fn cuArrayDestroy(h: Handle) -> CUresult {
    entry("cuArrayDestroy", || {
        state::with(|d| {
            d.current_ctx()?;
            let a = array_of(d, h)?;
            d.arrays.remove(&id_of(h, Kind::Array).unwrap_or_default());
            d.allocations.remove(&a.ptr);
            d.device.heap.free(DevicePtr(a.ptr)).map_err(|_| CUDA_ERROR_INVALID_VALUE)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuArrayGetDescriptor_v2(p: *mut CudaArrayDescriptor, h: Handle) -> CUresult {
    entry("cuArrayGetDescriptor_v2", || {
        state::with(|d| {
            let a = array_of(d, h)?;
            put(p, CudaArrayDescriptor { width: a.desc.width, height: a.desc.height, format: a.desc.format, num_channels: a.desc.num_channels })
        })
    })
}

#[no_mangle]
pub extern "C" fn cuArray3DGetDescriptor_v2(p: *mut CudaArray3dDescriptor, h: Handle) -> CUresult {
    entry("cuArray3DGetDescriptor_v2", || state::with(|d| put(p, array_of(d, h)?.desc)))
}

/// `cuMemAllocPitch`: rows padded to the texture pitch alignment (`CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT`).
#[no_mangle]
pub extern "C" fn cuMemAllocPitch_v2(dptr: *mut CUdeviceptr, pitch: *mut usize, width: usize, height: usize, element: c_uint) -> CUresult {
    entry("cuMemAllocPitch_v2", || {
        state::with(|d| {
            let ctx = d.current_ctx()?;
            out(dptr)?;
            out(pitch)?;
            if width == 0 || height == 0 || !matches!(element, 4 | 8 | 16) {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            let p = width.checked_next_multiple_of(PITCH_ALIGNMENT).ok_or(CUDA_ERROR_INVALID_VALUE)?;
            let bytes = (p as u64).checked_mul(height as u64).ok_or(CUDA_ERROR_INVALID_VALUE)?;
            let ptr = alloc(d, ctx, bytes)?;
            put(pitch, p)?;
            put(dptr, ptr)
        })
    })
}

/// Row alignment of `cuMemAllocPitch` (and what `cuTexObjectCreate` asks of pitched rows).
pub const PITCH_ALIGNMENT: usize = 32;

/// One side of a strided copy: host memory or device memory, and its row pitch and rows per
/// slice.
#[derive(Clone, Copy)]
enum Side {
    Host(usize),
    Device(u64),
}

struct Plane {
    side: Side,
    pitch: usize,
    rows: usize,
    /// An array's extent in bytes, rows, slices: a copy beyond it is refused.
    extent: Option<(usize, usize, usize)>,
}

#[allow(clippy::too_many_arguments)]
fn plane(d: &Driver, memory_type: c_uint, host: usize, device: u64, array: Handle, pitch: usize, rows: usize) -> Result<Plane, CUresult> {
    let side = match memory_type {
        MEMORYTYPE_HOST => Side::Host(host),
        MEMORYTYPE_DEVICE => Side::Device(device),
        MEMORYTYPE_UNIFIED if d.allocation_of(device).is_some() => Side::Device(device),
        MEMORYTYPE_UNIFIED => Side::Host(device as usize),
        MEMORYTYPE_ARRAY => {
            let a = array_of(d, array)?;
            return Ok(Plane {
                side: Side::Device(a.ptr),
                pitch: a.row_bytes(),
                rows: a.rows(),
                extent: Some((a.row_bytes(), a.rows(), a.desc.depth.max(1))),
            });
        }
        _ => return Err(CUDA_ERROR_INVALID_VALUE),
    };
    Ok(Plane { side, pitch, rows, extent: None })
}

/// Copies `depth` slices of `height` rows of `width` bytes from (`sx`, `sy`, `sz`) of `src`
/// to (`dx`, `dy`, `dz`) of `dst`: one read of the source span, one write of the destination
/// span (read first where rows are not contiguous, so the gaps keep their bytes).
#[allow(clippy::too_many_arguments)]
fn copy_strided(d: &mut Driver, src: Plane, s: [usize; 3], dst: Plane, t: [usize; 3], width: usize, height: usize, depth: usize) -> Result<(), CUresult> {
    if width == 0 || height == 0 || depth == 0 {
        return Ok(());
    }
    let mut rows = Vec::new();
    for (p, at) in [(&src, s), (&dst, t)] {
        if let Some((w, h, n)) = p.extent {
            let fits = |o: usize, len: usize, max: usize| o.checked_add(len).is_some_and(|e| e <= max);
            if !(fits(at[0], width, w) && fits(at[1], height, h) && fits(at[2], depth, n)) {
                crate::log::error(format_args!("2D/3D copy: the region lies outside the array"));
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
        } else if p.pitch < width || at[0].checked_add(width).is_none_or(|e| height > 1 && e > p.pitch) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        rows.push(p.rows.max(1));
    }
    // Byte offset of row (y, z) of a plane, relative to its base.
    let offset = |p: &Plane, rows: usize, at: [usize; 3], y: usize, z: usize| -> Option<usize> {
        let row = (at[2] + z).checked_mul(rows)?.checked_add(at[1] + y)?;
        row.checked_mul(p.pitch)?.checked_add(at[0])
    };
    let (first_s, last_s) = (
        offset(&src, rows[0], s, 0, 0).ok_or(CUDA_ERROR_INVALID_VALUE)?,
        offset(&src, rows[0], s, height - 1, depth - 1).ok_or(CUDA_ERROR_INVALID_VALUE)? + width,
    );
    let mut data = Vec::with_capacity(width * height * depth);
    match src.side {
        Side::Host(base) => {
            for z in 0..depth {
                for y in 0..height {
                    let o = offset(&src, rows[0], s, y, z).ok_or(CUDA_ERROR_INVALID_VALUE)?;
                    data.extend_from_slice(host_slice((base + o) as *const c_void, width)?);
                }
            }
        }
        Side::Device(base) => {
            let span = read(d, base + first_s as u64, last_s - first_s)?;
            for z in 0..depth {
                for y in 0..height {
                    let o = offset(&src, rows[0], s, y, z).ok_or(CUDA_ERROR_INVALID_VALUE)? - first_s;
                    data.extend_from_slice(&span[o..o + width]);
                }
            }
        }
    }
    let (first_t, last_t) = (
        offset(&dst, rows[1], t, 0, 0).ok_or(CUDA_ERROR_INVALID_VALUE)?,
        offset(&dst, rows[1], t, height - 1, depth - 1).ok_or(CUDA_ERROR_INVALID_VALUE)? + width,
    );
    match dst.side {
        Side::Host(base) => {
            if base == 0 {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            for (i, chunk) in data.chunks(width).enumerate() {
                let o = offset(&dst, rows[1], t, i % height, i / height).ok_or(CUDA_ERROR_INVALID_VALUE)?;
                // SAFETY: the caller's buffer holds the region it asked to copy into.
                unsafe { std::ptr::copy(chunk.as_ptr(), (base + o) as *mut u8, width) };
            }
        }
        Side::Device(base) => {
            if last_t - first_t == data.len() {
                return write(d, base + first_t as u64, &data);
            }
            let mut span = read(d, base + first_t as u64, last_t - first_t)?;
            for (i, chunk) in data.chunks(width).enumerate() {
                let o = offset(&dst, rows[1], t, i % height, i / height).ok_or(CUDA_ERROR_INVALID_VALUE)? - first_t;
                span[o..o + width].copy_from_slice(chunk);
            }
            write(d, base + first_t as u64, &span)?;
        }
    }
    Ok(())
}

fn memcpy2d(p: *const CudaMemcpy2d, stream: Handle) -> Result<(), CUresult> {
    // SAFETY: the caller passes a valid descriptor or null.
    let c = *unsafe { p.as_ref() }.ok_or(CUDA_ERROR_INVALID_VALUE)?;
    state::with(|d| {
        d.current_ctx()?;
        d.check_stream(stream)?;
        let src = plane(d, c.src_memory_type, c.src_host as usize, c.src_device, c.src_array, c.src_pitch, c.height)?;
        let dst = plane(d, c.dst_memory_type, c.dst_host as usize, c.dst_device, c.dst_array, c.dst_pitch, c.height)?;
        copy_strided(d, src, [c.src_x_in_bytes, c.src_y, 0], dst, [c.dst_x_in_bytes, c.dst_y, 0], c.width_in_bytes, c.height, 1)
    })
}

fn memcpy3d(p: *const CudaMemcpy3d, stream: Handle) -> Result<(), CUresult> {
    // SAFETY: as above.
    let c = *unsafe { p.as_ref() }.ok_or(CUDA_ERROR_INVALID_VALUE)?;
    if c.src_lod != 0 || c.dst_lod != 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    state::with(|d| {
        d.current_ctx()?;
        d.check_stream(stream)?;
        let src = plane(d, c.src_memory_type, c.src_host as usize, c.src_device, c.src_array, c.src_pitch, c.src_height)?;
        let dst = plane(d, c.dst_memory_type, c.dst_host as usize, c.dst_device, c.dst_array, c.dst_pitch, c.dst_height)?;
        copy_strided(d, src, [c.src_x_in_bytes, c.src_y, c.src_z], dst, [c.dst_x_in_bytes, c.dst_y, c.dst_z], c.width_in_bytes, c.height, c.depth)
    })
}

#[no_mangle]
pub extern "C" fn cuMemcpy2D_v2(p: *const CudaMemcpy2d) -> CUresult {
    entry("cuMemcpy2D_v2", || memcpy2d(p, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemcpy2DUnaligned_v2(p: *const CudaMemcpy2d) -> CUresult {
    entry("cuMemcpy2DUnaligned_v2", || memcpy2d(p, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemcpy2DAsync_v2(p: *const CudaMemcpy2d, stream: Handle) -> CUresult {
    entry("cuMemcpy2DAsync_v2", || memcpy2d(p, stream))
}
#[no_mangle]
pub extern "C" fn cuMemcpy3D_v2(p: *const CudaMemcpy3d) -> CUresult {
    entry("cuMemcpy3D_v2", || memcpy3d(p, state::null()))
}
#[no_mangle]
pub extern "C" fn cuMemcpy3DAsync_v2(p: *const CudaMemcpy3d, stream: Handle) -> CUresult {
    entry("cuMemcpy3DAsync_v2", || memcpy3d(p, stream))
}

/// A linear copy to or from an array: byte `offset` of its layout (row-major, no padding).
fn array_span(d: &Driver, h: Handle, offset: usize, bytes: usize) -> Result<u64, CUresult> {
    let a = array_of(d, h)?;
    if offset.checked_add(bytes).is_none_or(|e| e > a.bytes()) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    Ok(a.ptr + offset as u64)
}

#[no_mangle]
pub extern "C" fn cuMemcpyHtoA_v2(dst: Handle, offset: usize, src: *const c_void, bytes: usize) -> CUresult {
    entry("cuMemcpyHtoA_v2", || {
        state::with(|d| {
            d.current_ctx()?;
            let at = array_span(d, dst, offset, bytes)?;
            let data = host_slice(src, bytes)?;
            write(d, at, data)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuMemcpyAtoH_v2(dst: *mut c_void, src: Handle, offset: usize, bytes: usize) -> CUresult {
    entry("cuMemcpyAtoH_v2", || {
        state::with(|d| {
            d.current_ctx()?;
            let at = array_span(d, src, offset, bytes)?;
            if bytes == 0 {
                return Ok(());
            }
            if dst.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            let data = read(d, at, bytes)?;
            // SAFETY: the caller's buffer holds `bytes` bytes.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst as *mut u8, bytes) };
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuMemcpyDtoA_v2(dst: Handle, offset: usize, src: CUdeviceptr, bytes: usize) -> CUresult {
    entry("cuMemcpyDtoA_v2", || {
        state::with(|d| {
            d.current_ctx()?;
            let at = array_span(d, dst, offset, bytes)?;
            let data = read(d, src, bytes)?;
            write(d, at, &data)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuMemcpyAtoD_v2(dst: CUdeviceptr, src: Handle, offset: usize, bytes: usize) -> CUresult {
    entry("cuMemcpyAtoD_v2", || {
        state::with(|d| {
            d.current_ctx()?;
            let at = array_span(d, src, offset, bytes)?;
            let data = read(d, at, bytes)?;
            write(d, dst, &data)
        })
    })
}

/// The descriptor of resource `r` (address modes, filter and flags still to fill in), and
/// whether its texels are linear memory (`tex1Dfetch`).
fn resource_descriptor(d: &Driver, r: &CudaResourceDesc, what: &str) -> Result<(desc::Descriptor, bool), CUresult> {
    let mut t = desc::Descriptor::default();
    let word = |i: usize| r.res[i];
    let linear = match r.res_type {
        RESOURCE_TYPE_ARRAY => {
            let a = array_of(d, word(0) as usize as Handle)?;
            let (kind, bytes) = check_format(a.desc.format, a.desc.num_channels, what)?;
            t.base = a.ptr;
            t.kind = kind;
            t.channel_bytes = bytes;
            t.channels = a.desc.num_channels;
            t.size = [a.desc.width as u32, a.rows() as u32, a.desc.depth.max(1) as u32];
            if a.desc.depth == 0 {
                t.flags |= desc::FLAG_QUERY_NO_DEPTH;
            }
            t.row_pitch = a.row_bytes() as u32;
            t.slice_pitch = (a.row_bytes() * a.rows()) as u32;
            false
        }
        RESOURCE_TYPE_LINEAR | RESOURCE_TYPE_PITCH2D => {
            // Arms: devPtr (u64), then format and channel count (two u32 in one u64), then sizes.
            let (ptr, fc) = (word(0), word(1));
            let (format, channels) = (fc as u32, (fc >> 32) as u32);
            let (kind, bytes) = check_format(format, channels, what)?;
            let element = u64::from(bytes * channels);
            if !ptr.is_multiple_of(element.clamp(4, 16)) {
                crate::log::error(format_args!("{what}: texels at {ptr:#x} are not aligned to their element"));
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            t.base = ptr;
            t.kind = kind;
            t.channel_bytes = bytes;
            t.channels = channels;
            if r.res_type == RESOURCE_TYPE_LINEAR {
                let width = word(2) / element;
                if width == 0 || width > 1 << 27 {
                    return Err(CUDA_ERROR_INVALID_VALUE);
                }
                t.size = [width as u32, 1, 1];
                t.flags |= desc::FLAG_QUERY_NO_HEIGHT | desc::FLAG_QUERY_NO_DEPTH;
                t.row_pitch = (width * element) as u32;
            } else {
                let (w, h, pitch) = (word(2), word(3), word(4));
                if w == 0 || h == 0 || pitch < w * element || pitch % PITCH_ALIGNMENT as u64 != 0 || pitch >= 1 << 31 || h >= 1 << 28 {
                    return Err(CUDA_ERROR_INVALID_VALUE);
                }
                t.size = [w as u32, h as u32, 1];
                t.flags |= desc::FLAG_QUERY_NO_DEPTH;
                t.row_pitch = pitch as u32;
            }
            t.slice_pitch = t.row_pitch.saturating_mul(t.size[1]);
            r.res_type == RESOURCE_TYPE_LINEAR
        }
        RESOURCE_TYPE_MIPMAPPED_ARRAY => {
            crate::log::error(format_args!("{what}: mipmapped arrays are not supported"));
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        _ => return Err(CUDA_ERROR_INVALID_VALUE),
    };
    Ok((t, linear))
}

/// The border colour as the raw bits of one texel of the descriptor's format, which `tex`
/// reads like a texel. What NVIDIA does (an H200 measured on 2026-11-28,
/// tests/nvidia/texture_measured.bin, docs/nvidia.md): f32 texels keep the colour; f16 texels
/// take it truncated toward zero and saturated at ±65504; 8/16-bit integers read as
/// normalized floats take `c·max` (an f32 product, c clamped to [0, 1] or [−1, 1]) truncated
/// when unsigned (0.3 → 76/255, 0.1 → 25/255) and rounded to nearest when signed
/// (0.1 → 13/127; ties were not seen and go toward zero here); integers read as integers
/// take the colour's f32 bits cut to the channel width (the shader masks them).
fn border_texel(t: &desc::Descriptor, color: [f32; 4]) -> [u32; 4] {
    let normalized = t.flags & desc::FLAG_NORMALIZED_READ != 0;
    color.map(|c| match (t.kind, t.channel_bytes) {
        (desc::KIND_FLOAT, 2) => f16_toward_zero(c),
        (desc::KIND_FLOAT, _) => c.to_bits(),
        (desc::KIND_UNSIGNED, bytes) if normalized => {
            let max = ((1u32 << (8 * bytes)) - 1) as f32;
            let c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
            (c * max).trunc() as u32
        }
        (desc::KIND_SIGNED, bytes) if normalized => {
            let max = ((1u32 << (8 * bytes - 1)) - 1) as f32;
            let c = if c.is_nan() { 0.0 } else { c.clamp(-1.0, 1.0) };
            let r = c * max;
            // Nearest, ties toward zero.
            let k = if r >= 0.0 { (r - 0.5).ceil() } else { (r + 0.5).floor() };
            k as i32 as u32
        }
        _ => c.to_bits(),
    })
}

/// f32 → f16 bits, truncated toward zero, finite values beyond the range saturated at
/// ±65504 (NaN stays a quiet NaN). Subnormal halves are kept (truncated too).
fn f16_toward_zero(c: f32) -> u32 {
    let sign = if c.is_sign_negative() { 0x8000 } else { 0 };
    if c.is_nan() {
        return 0x7e00;
    }
    let a = c.abs();
    if a >= 65504.0 {
        return sign | 0x7bff;
    }
    // a < 65504: the f16 with the largest magnitude not above a.
    let bits = if a < 6.103_515_6e-5 {
        // Subnormal: units of 2^-24.
        (a * 16_777_216.0).trunc() as u32
    } else {
        let b = a.to_bits();
        let exp = (b >> 23) as i32 - 127 + 15;
        ((exp as u32) << 10) | ((b >> 13) & 0x3ff)
    };
    sign | bits
}

fn store_descriptor(d: &mut Driver, ctx: u64, t: &desc::Descriptor) -> Result<u64, CUresult> {
    let p = alloc(d, ctx, desc::BYTES)?;
    let bytes: Vec<u8> = t.encode().iter().flat_map(|w| w.to_le_bytes()).collect();
    write(d, p, &bytes)?;
    Ok(p)
}

#[no_mangle]
pub extern "C" fn cuTexObjectCreate(p: *mut u64, res: *const CudaResourceDesc, tex: *const CudaTextureDesc, view: *const c_void) -> CUresult {
    entry("cuTexObjectCreate", || {
        // SAFETY: the caller passes valid descriptors or null.
        let (r, tx) = unsafe { (res.as_ref(), tex.as_ref()) };
        let (r, tx) = (r.ok_or(CUDA_ERROR_INVALID_VALUE)?, tx.ok_or(CUDA_ERROR_INVALID_VALUE)?);
        state::with(|d| {
            let ctx = d.current_ctx()?;
            out(p)?;
            if !view.is_null() {
                crate::log::error(format_args!("cuTexObjectCreate: resource views are not supported"));
                return Err(CUDA_ERROR_NOT_SUPPORTED);
            }
            if tx.flags & TRSF_SRGB != 0 {
                crate::log::error(format_args!("cuTexObjectCreate: sRGB textures are not supported"));
                return Err(CUDA_ERROR_NOT_SUPPORTED);
            }
            let (mut t, linear_memory) = resource_descriptor(d, r, "cuTexObjectCreate")?;
            let integer = t.kind != desc::KIND_FLOAT;
            // Read mode: 8/16-bit integers become normalized floats unless read as integers.
            let normalized_read = integer && t.channel_bytes < 4 && tx.flags & TRSF_READ_AS_INTEGER == 0;
            let filtered = tx.filter_mode == TR_FILTER_MODE_LINEAR;
            if filtered && integer && !normalized_read && !linear_memory {
                crate::log::error(format_args!("cuTexObjectCreate: linear filtering needs float texels or the normalized-float read mode"));
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            if tx.address_mode.iter().any(|&m| m > desc::MODE_BORDER) || tx.filter_mode > TR_FILTER_MODE_LINEAR {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            if normalized_read {
                t.flags |= desc::FLAG_NORMALIZED_READ;
            }
            if linear_memory {
                // `tex1Dfetch`: integer indices, no filtering, out of range reads 0.
                t.address_modes = [desc::MODE_BORDER; 3];
            } else {
                t.address_modes = tx.address_mode;
                t.border = border_texel(&t, tx.border_color);
                if filtered {
                    t.flags |= desc::FLAG_LINEAR;
                }
                if tx.flags & TRSF_NORMALIZED_COORDINATES != 0 {
                    t.flags |= desc::FLAG_NORMALIZED_COORDS;
                }
            }
            let ptr = store_descriptor(d, ctx, &t)?;
            d.texture_objects.insert(ptr, TextureObject { ctx, surface: false, resource: *r, texture: *tx });
            put(p, ptr)
        })
    })
}

fn destroy_object(obj: u64, surface: bool) -> Result<(), CUresult> {
    state::with(|d| {
        d.current_ctx()?;
        match d.texture_objects.get(&obj) {
            Some(t) if t.surface == surface => {}
            _ => return Err(CUDA_ERROR_INVALID_VALUE),
        }
        d.texture_objects.remove(&obj);
        d.allocations.remove(&obj);
        d.device.heap.free(DevicePtr(obj)).map_err(|_| CUDA_ERROR_INVALID_VALUE)
    })
}

#[no_mangle]
pub extern "C" fn cuTexObjectDestroy(obj: u64) -> CUresult {
    entry("cuTexObjectDestroy", || destroy_object(obj, false))
}

#[no_mangle]
pub extern "C" fn cuTexObjectGetResourceDesc(p: *mut CudaResourceDesc, obj: u64) -> CUresult {
    entry("cuTexObjectGetResourceDesc", || {
        state::with(|d| put(p, d.texture_objects.get(&obj).filter(|t| !t.surface).ok_or(CUDA_ERROR_INVALID_VALUE)?.resource))
    })
}

#[no_mangle]
pub extern "C" fn cuTexObjectGetTextureDesc(p: *mut CudaTextureDesc, obj: u64) -> CUresult {
    entry("cuTexObjectGetTextureDesc", || {
        state::with(|d| put(p, d.texture_objects.get(&obj).filter(|t| !t.surface).ok_or(CUDA_ERROR_INVALID_VALUE)?.texture))
    })
}

/// A surface object: the same descriptor (byte x coordinates are divided by the element size
/// by `suld`/`sust`, which are not lowered yet); only arrays made with
/// `CUDA_ARRAY3D_SURFACE_LDST` qualify, as in CUDA.
#[no_mangle]
pub extern "C" fn cuSurfObjectCreate(p: *mut u64, res: *const CudaResourceDesc) -> CUresult {
    entry("cuSurfObjectCreate", || {
        // SAFETY: as above.
        let r = unsafe { res.as_ref() }.ok_or(CUDA_ERROR_INVALID_VALUE)?;
        state::with(|d| {
            let ctx = d.current_ctx()?;
            out(p)?;
            if r.res_type != RESOURCE_TYPE_ARRAY {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            let a = array_of(d, r.res[0] as usize as Handle)?;
            if a.desc.flags & ARRAY3D_SURFACE_LDST == 0 {
                crate::log::error(format_args!("cuSurfObjectCreate: the array was not created with CUDA_ARRAY3D_SURFACE_LDST"));
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            let (mut t, _) = resource_descriptor(d, r, "cuSurfObjectCreate")?;
            t.address_modes = [desc::MODE_BORDER; 3];
            let ptr = store_descriptor(d, ctx, &t)?;
            d.texture_objects.insert(ptr, TextureObject { ctx, surface: true, resource: *r, texture: CudaTextureDesc::default() });
            put(p, ptr)
        })
    })
}

#[no_mangle]
pub extern "C" fn cuSurfObjectDestroy(obj: u64) -> CUresult {
    entry("cuSurfObjectDestroy", || destroy_object(obj, true))
}

#[no_mangle]
pub extern "C" fn cuSurfObjectGetResourceDesc(p: *mut CudaResourceDesc, obj: u64) -> CUresult {
    entry("cuSurfObjectGetResourceDesc", || {
        state::with(|d| put(p, d.texture_objects.get(&obj).filter(|t| t.surface).ok_or(CUDA_ERROR_INVALID_VALUE)?.resource))
    })
}
