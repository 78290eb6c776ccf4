// A single-pass inclusive prefix sum of 64-bit integers with CUB's decoupled look-back, as
// cub::DeviceScan does it (AgentScan): cub::ScanTileState<long long> keeps each tile's
// {status, value} descriptor in 16 bytes, written and polled with `st/ld.relaxed.gpu.v2.u64`
// (strong 16-byte accesses, which must be single-copy atomic), and cub::TilePrefixCallbackOp
// looks back over the preceding tiles. Tiles are taken in blockIdx order, as DeviceScanKernel
// does. Compiled by ../regen.sh (nvcc -arch=sm_80 -ptx).
#include <cub/cub.cuh>

using T = long long;
using TileState = cub::ScanTileState<T>;
constexpr int BLOCK = 128;
constexpr int ITEMS = 4;
constexpr int TILE = BLOCK * ITEMS;

// Descriptors: TILE_STATUS_PADDING (32) out-of-bounds ones, then one per tile, 16 bytes each.
extern "C" __global__ void lookback_init(void *descriptors, int num_tiles) {
    TileState state;
    state.Init(num_tiles, descriptors, 0);
    state.InitializeStatus(num_tiles);
}

extern "C" __global__ void __launch_bounds__(BLOCK) lookback_scan(const T *in, T *out, void *descriptors, int n, int num_tiles) {
    using BlockScan = cub::BlockScan<T, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;
    using Prefix = cub::TilePrefixCallbackOp<T, cuda::std::plus<>, TileState>;
    __shared__ typename BlockScan::TempStorage scan_storage;
    __shared__ typename Prefix::TempStorage prefix_storage;
    TileState state;
    state.Init(num_tiles, descriptors, 0);
    const int tile = blockIdx.x;
    const int base = tile * TILE + threadIdx.x * ITEMS;
    T items[ITEMS];
    for (int i = 0; i < ITEMS; i++) {
        items[i] = base + i < n ? in[base + i] : 0;
    }
    if (tile == 0) {
        T aggregate;
        BlockScan(scan_storage).InclusiveScan(items, items, cuda::std::plus<>(), aggregate);
        if (threadIdx.x == 0) {
            state.SetInclusive(0, aggregate);
        }
    } else {
        Prefix prefix(state, prefix_storage, cuda::std::plus<>(), tile);
        BlockScan(scan_storage).InclusiveScan(items, items, cuda::std::plus<>(), prefix);
    }
    for (int i = 0; i < ITEMS; i++) {
        if (base + i < n) {
            out[base + i] = items[i];
        }
    }
}
