// Hand-written kernel following ptxcross_lower::abi:
//   params: 16 header words (abi::PARAM_HEADER_WORDS), then out: u64 @0, n: u32 @8, value: u32 @12
//   out[i] = value + i for i < n; a bad address sets FAULT_GLOBAL_OUT_OF_RANGE.
@group(0) @binding(0) var<storage, read_write> heap: array<u32>;
@group(0) @binding(1) var<storage, read> params: array<u32>;

@compute @workgroup_size(64, 1, 1)
fn fill(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let n = params[18];
    if (i >= n) {
        return;
    }
    let lo = params[16];
    let hi = params[17];
    let w = (lo >> 2u) + i;
    // HEAP_BASE = 0x10_0000_0000: the high word of every heap address is 0x10.
    if (hi != 0x10u || w < 64u || w >= arrayLength(&heap)) {
        heap[0] = heap[0] | 1u;
        return;
    }
    heap[w] = params[19] + i;
}

// Copies the first 4 words of the module's globals segment (base in header words 0..2) to out.
@compute @workgroup_size(4, 1, 1)
fn copy_globals(@builtin(local_invocation_id) lid: vec3<u32>) {
    let g = (params[0] >> 2u) + lid.x;
    let o = (params[16] >> 2u) + lid.x;
    heap[o] = heap[g];
}
