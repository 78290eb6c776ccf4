//! Managed memory (`cuMemAllocManaged`, CUDA's unified memory) with the semantics CUDA gives
//! devices whose `CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS` is 0 (pre-Pascal GPUs, Windows):
//! the host may touch managed memory only while no kernel runs, and both sides see each other's
//! writes at launches and synchronization points (CUDA Programming Guide, "Unified Memory on
//! Devices without Full CUDA Unified Memory Support", "Coherency and Concurrency").
//!
//! A managed allocation is an ordinary heap allocation whose device address is also mapped in
//! the process: anonymous memory placed at the same address (`mmap` with
//! `MAP_FIXED_NOREPLACE`), so one pointer works on the host and in kernels. Heap addresses lie
//! at `abi::HEAP_BASE` (64 GiB) and above, where Linux puts nothing unless asked; if the range
//! is taken after all, the allocation is refused (`CUDA_ERROR_OUT_OF_MEMORY` with a message),
//! never placed elsewhere.
//!
//! Coherence rule: **the host copy is the truth** between device operations. Copies and memsets
//! to or from managed memory read and write the host copy (`api::memory::read`/`write`), a
//! launch uploads every managed range before it runs ([`Managed::upload`]) and downloads them
//! all when it has finished ([`Managed::download`]); launches are synchronous, so after the
//! launch returns the host sees what the kernel wrote. The cost is one host→device and one
//! device→host copy of all managed memory per launch (driver/README.md, "Managed memory").
//!
//! Pages shared by two managed allocations (allocations are 256-byte aligned, pages 4 KiB) are
//! counted: a page is unmapped when the last managed allocation on it is freed.

use std::collections::BTreeMap;

use ptxcross::runtime::Context;
use ptxcross::DevicePtr;

/// `CU_MEM_ATTACH_GLOBAL`, `CU_MEM_ATTACH_HOST` (cuMemAllocManaged takes exactly one of them).
pub const ATTACH_GLOBAL: u32 = 1;
pub const ATTACH_HOST: u32 = 2;

/// Ranges downloaded in one transfer may lie at most this far apart: one transfer reads
/// everything between its first and last range.
const GAP_READ_THROUGH: u64 = 1 << 20;

#[derive(Default)]
pub struct Managed {
    /// Managed ranges: device (= host) address → (size, flags, bytes moved at launches).
    ranges: BTreeMap<u64, (u64, u32, u64)>,
    /// Mapped host pages: page address → how many managed ranges touch it.
    pages: BTreeMap<u64, u32>,
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

/// Maps `len` bytes of zeroed read-write memory at exactly `at` (page-aligned), or says why not.
fn map_fixed(at: u64, len: u64) -> Result<(), String> {
    // SAFETY: MAP_FIXED_NOREPLACE never replaces an existing mapping: it fails (EEXIST) where
    // the range is taken. Kernels before 4.17 ignore the flag and treat `at` as a hint: the
    // result is then checked and a mapping elsewhere undone.
    let p = unsafe {
        libc::mmap(
            at as usize as *mut libc::c_void,
            len as usize,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        let e = std::io::Error::last_os_error();
        return Err(format!("cannot map host memory at {at:#x}..{:#x}, the managed allocation's device addresses: {e}", at + len));
    }
    if p as usize as u64 != at {
        // SAFETY: the mapping just made, at its own address.
        unsafe { libc::munmap(p, len as usize) };
        return Err(format!("cannot map host memory at {at:#x}..{:#x}, the managed allocation's device addresses: the range is in use", at + len));
    }
    Ok(())
}

fn unmap(at: u64, len: u64) {
    // SAFETY: pages this module mapped (map_fixed) and no managed range uses any more.
    unsafe { libc::munmap(at as usize as *mut libc::c_void, len as usize) };
}

/// Runs of consecutive pages: (first page, bytes).
fn runs(pages: impl IntoIterator<Item = u64>, page: u64) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for p in pages {
        match out.last_mut() {
            Some((s, n)) if *s + *n == p => *n += page,
            _ => out.push((p, page)),
        }
    }
    out
}

impl Managed {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Makes `[start, start + size)` (a fresh heap allocation, or a `__managed__` variable) a
    /// managed range: maps host memory at the same addresses. Launches move `transfer` ≥
    /// `size` bytes: an allocation's size rounded up to whole words (its heap allocation is
    /// that large), so that uploading it needs no read-modify-write round trip of a partial
    /// last word; a variable's own size (its neighbours are other variables).
    pub fn insert(&mut self, start: u64, size: u64, flags: u32, transfer: u64) -> Result<(), String> {
        let transfer = transfer.max(size);
        let page = page_size();
        let first = start / page * page;
        let end = start.checked_add(transfer.max(1)).ok_or("the range wraps around")?.div_ceil(page) * page;
        let new: Vec<u64> = (first..end).step_by(page as usize).filter(|p| !self.pages.contains_key(p)).collect();
        let mut done: Vec<(u64, u64)> = Vec::new();
        for (at, len) in runs(new, page) {
            if let Err(e) = map_fixed(at, len) {
                for (a, l) in done {
                    unmap(a, l);
                }
                return Err(e);
            }
            done.push((at, len));
        }
        for p in (first..end).step_by(page as usize) {
            *self.pages.entry(p).or_insert(0) += 1;
        }
        self.ranges.insert(start, (size, flags, transfer));
        Ok(())
    }

    /// Forgets the managed range starting at `start` (if it is one) and unmaps the pages no
    /// other managed range uses. Returns whether it was managed.
    pub fn remove(&mut self, start: u64) -> bool {
        let Some((_, _, transfer)) = self.ranges.remove(&start) else { return false };
        let page = page_size();
        let first = start / page * page;
        let end = (start + transfer.max(1)).div_ceil(page) * page;
        let mut gone = Vec::new();
        for p in (first..end).step_by(page as usize) {
            if let Some(n) = self.pages.get_mut(&p) {
                *n -= 1;
                if *n == 0 {
                    self.pages.remove(&p);
                    gone.push(p);
                }
            }
        }
        for (at, len) in runs(gone, page) {
            unmap(at, len);
        }
        true
    }

    /// The managed ranges `(start, size)` starting in `[start, start + len)` (the `__managed__`
    /// variables of a module's globals allocation).
    pub fn within(&self, start: u64, len: u64) -> Vec<(u64, u64)> {
        self.ranges.range(start..start.saturating_add(len)).map(|(&s, &(n, _, _))| (s, n)).collect()
    }

    /// Copies `data` (the bytes of `[start, start + data.len())`, e.g. a globals allocation's
    /// initial image) into the host copy of the managed ranges inside it.
    pub fn overwrite_within(&self, start: u64, data: &[u8]) {
        for (s, n) in self.within(start, data.len() as u64) {
            let at = (s - start) as usize;
            if let Some(src) = data.get(at..at + n as usize) {
                // SAFETY: a mapped managed range of `n` bytes.
                unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), s as usize as *mut u8, n as usize) };
            }
        }
    }

    /// The managed range `(start, size, flags)` holding `ptr`.
    pub fn containing(&self, ptr: u64) -> Option<(u64, u64, u32)> {
        let (&start, &(size, flags, _)) = self.ranges.range(..=ptr).next_back()?;
        (ptr < start + size.max(1)).then_some((start, size, flags))
    }

    /// The managed range holding all of `[ptr, ptr + len)`; `Err` if `ptr` is managed but the
    /// range runs past its end; `Ok(None)` if `ptr` is not managed.
    pub fn span(&self, ptr: u64, len: u64) -> Result<Option<(u64, u64)>, String> {
        let Some((start, size, _)) = self.containing(ptr) else { return Ok(None) };
        match ptr.checked_add(len) {
            Some(end) if end <= start + size => Ok(Some((start, size))),
            _ => Err(format!("{len} bytes at {ptr:#x} run past the end of the managed allocation {start:#x} ({size} bytes)")),
        }
    }

    /// Host → device: every managed range, before a launch.
    pub fn upload(&self, heap: &mut Context) -> Result<(), ptxcross::Error> {
        for (&start, &(_, _, size)) in &self.ranges {
            // SAFETY: [start, start + size) is mapped (insert) until the range is removed.
            let host = unsafe { std::slice::from_raw_parts(start as usize as *const u8, size as usize) };
            heap.write(DevicePtr(start), host)?;
        }
        Ok(())
    }

    /// Device → host: every managed range, after a launch, copied from the read-back memory
    /// straight into the host copy. Nearby ranges share one transfer.
    pub fn download(&self, heap: &Context) -> Result<(), ptxcross::Error> {
        let mut group: Vec<(DevicePtr, &mut [u8])> = Vec::new();
        for (&start, &(_, _, size)) in &self.ranges {
            if size == 0 {
                continue;
            }
            // A new transfer past a large gap (one transfer reads everything between its ranges
            // in a segment).
            if let Some((last, bytes)) = group.last() {
                if start - (last.0 + bytes.len() as u64) > GAP_READ_THROUGH {
                    heap.read_many_into(&mut group)?;
                    group.clear();
                }
            }
            // SAFETY: [start, start + size) is mapped (insert) until the range is removed, and
            // managed ranges do not overlap (each is a distinct allocation or variable).
            let host = unsafe { std::slice::from_raw_parts_mut(start as usize as *mut u8, size as usize) };
            group.push((DevicePtr(start), host));
        }
        if !group.is_empty() {
            heap.read_many_into(&mut group)?;
        }
        Ok(())
    }
}

impl Drop for Managed {
    fn drop(&mut self) {
        let starts: Vec<u64> = self.ranges.keys().copied().collect();
        for s in starts {
            self.remove(s);
        }
    }
}
