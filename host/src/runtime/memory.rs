//! Device pointers and the heap allocator (first fit over the gaps between live allocations).

use std::collections::BTreeMap;
use std::fmt;

use super::error::Error;

/// A global-memory virtual address (`abi::HEAP_BASE + heap byte offset`), as PTX sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DevicePtr(pub u64);

impl DevicePtr {
    /// The address `bytes` further on.
    pub fn offset(self, bytes: u64) -> DevicePtr {
        DevicePtr(self.0.wrapping_add(bytes))
    }
    /// Little-endian bytes, as a `.u64` kernel argument.
    pub fn to_le_bytes(self) -> [u8; 8] {
        self.0.to_le_bytes()
    }
}

impl fmt::Display for DevicePtr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// Byte ranges `[start, end)` of the heap; allocations are `align`-aligned.
#[derive(Clone, Debug)]
pub(crate) struct Allocator {
    start: u64,
    end: u64,
    align: u64,
    /// Live allocations: offset → size requested.
    live: BTreeMap<u64, u64>,
    /// `[start, packed_to)` is covered by live allocations without a gap, so first-fit starts
    /// looking there: allocating many buffers in a row stays O(log n) each, not O(n).
    packed_to: u64,
}

impl Allocator {
    pub fn new(start: u64, end: u64, align: u64) -> Allocator {
        let start = start.div_ceil(align) * align;
        Allocator {
            start,
            end,
            align,
            live: BTreeMap::new(),
            packed_to: start,
        }
    }

    fn footprint(&self, size: u64) -> Option<u64> {
        size.max(1).checked_next_multiple_of(self.align)
    }

    pub fn alloc(&mut self, size: u64) -> Result<u64, Error> {
        let oom = || Error::OutOfMemory {
            requested: size,
            free: self.free_bytes(),
        };
        let need = self.footprint(size).ok_or_else(oom)?;
        let mut cursor = self.packed_to;
        for (&off, &sz) in self.live.range(self.packed_to..) {
            if off >= cursor && off - cursor >= need {
                break;
            }
            cursor = cursor.max(off + self.footprint(sz).unwrap_or(sz));
        }
        if cursor.checked_add(need).is_none_or(|e| e > self.end) {
            return Err(oom());
        }
        self.live.insert(cursor, size.max(1));
        if cursor == self.packed_to {
            self.packed_to = cursor + need;
        }
        Ok(cursor)
    }

    pub fn free(&mut self, offset: u64) -> Result<(), String> {
        match self.live.remove(&offset) {
            Some(_) => {
                self.packed_to = self.packed_to.min(offset);
                Ok(())
            }
            None => Err("not the start of a live allocation".into()),
        }
    }

    pub fn size_of(&self, offset: u64) -> Option<u64> {
        self.live.get(&offset).copied()
    }

    /// The live allocation `(start, size)` containing byte `offset`.
    pub fn containing(&self, offset: u64) -> Option<(u64, u64)> {
        let (&start, &size) = self.live.range(..=offset).next_back()?;
        (offset < start + size || (size == 0 && offset == start)).then_some((start, size))
    }

    /// Whether no allocation is live.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    pub fn free_bytes(&self) -> u64 {
        let used: u64 = self
            .live
            .values()
            .map(|&s| self.footprint(s).unwrap_or(s))
            .sum();
        (self.end - self.start).saturating_sub(used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_reuses_gaps_and_checks_ranges() {
        let mut a = Allocator::new(256, 4096, 256);
        let x = a.alloc(10).unwrap();
        let y = a.alloc(300).unwrap();
        let z = a.alloc(1).unwrap();
        assert_eq!((x, y, z), (256, 512, 1024));
        assert_eq!(a.containing(256 + 9), Some((256, 10)));
        assert_eq!(a.containing(256 + 10), None);
        a.free(y).unwrap();
        assert!(a.free(y).is_err());
        assert_eq!(a.alloc(512).unwrap(), 512);
        assert_eq!(
            a.alloc(4096)
                .map_err(|e| matches!(e, Error::OutOfMemory { .. })),
            Err(true)
        );
        assert_eq!(a.free_bytes(), 4096 - 256 - 256 * 4);
        assert!(matches!(a.alloc(u64::MAX), Err(Error::OutOfMemory { .. })));
    }
}
