# Real CUDA (cuda/warp_cuda.cu) through nvcc 13.5 (sm_90) and clang-16 (sm_80, the kernels that
# need no CUDA headers): cooperative groups, warp-aggregated atomics, __reduce_*_sync, atomics
# on __half2/__nv_bfloat16/double/unsigned short/unsigned long long, __syncthreads_count/and/or.
# Expected values from each algorithm's definition.
F = 'cuda'
NVCC_PTX = '../cuda/warp_cuda.sm90.ptx'
CLANG_PTX = '../cuda/warp_cuda.clang.ptx'


def cuda_case(name, entry, k, block, exp, inputs, grid=1, aux=None, aux_expect=None,
              compilers=('nvcc',)):
    for c in compilers:
        test(f'cuda_{name}_{c}', F, None, k, block, exp, inputs, grid=grid, aux=aux,
             aux_expect=aux_expect, ptx_file=NVCC_PTX if c == 'nvcc' else CLANG_PTX,
             entry=entry)


def _cg():
    r = rng(97)
    n = 96
    inputs = [r.getrandbits(32) for _ in range(n)]

    def tile_red(g):
        out = []
        for size in [4, 8, 16, 32]:
            b = g - g % size
            vals = inputs[b:b + size]
            out += [u32(sum(vals)), u32(max(s32(v) for v in vals))]
        return out
    cuda_case('cg_tiled_partition_reduce_4_8_16_32', 'cg_tile_reduce', 8, n, tile_red, inputs)

    inputs2 = list(inputs)
    inputs2[16:32] = [2 | (v & ~1) for v in inputs2[16:32]]   # a tile: all have bit 1, none bit 0

    def members2(g):
        rank = g % 16
        b = g - rank
        tile = inputs2[b:b + 16]
        down = tile[rank + 3] if rank + 3 < 16 else tile[rank]
        ballot = sum(1 << i for i, v in enumerate(tile) if v & 1)
        return [down, tile[5], int(any(v & 1 for v in tile)), int(all(v & 2 for v in tile)),
                ballot, rank, g // 16]   # meta_group_rank: the tile within the block
    cuda_case('cg_tile16_shfl_any_all_ballot_ranks', 'cg_tile_members', 7, n, members2, inputs2)

    n3 = 100
    inputs3 = [r.getrandbits(32) for _ in range(n3)]
    inputs3[64:96] = [2 * t for t in range(32)]   # a warp with no odd input: nobody enters

    def coalesced(g):
        v = inputs3[g]
        if not v & 1:
            return None
        w = [t for t in warps_of_cta(n3)[g // 32] if inputs3[t] & 1]
        return [len(w), w.index(g), u32(sum(inputs3[t] for t in w)), inputs3[w[0]]]
    cuda_case('cg_coalesced_threads_in_a_branch_b100', 'cg_coalesced', 4, n3, coalesced, inputs3)

    def labeled(g):
        w = [t for t in warps_of_cta(n)[g // 32] if inputs[t] % 3 == inputs[g] % 3]
        return [u32(sum(inputs[t] for t in w)), len(w), w.index(g)]
    cuda_case('cg_labeled_partition_by_value_mod_3', 'cg_labeled', 3, n, labeled, inputs)

    n4 = 100
    inputs4 = [r.getrandbits(32) for _ in range(2 * n4)]

    def block_sync(g):
        c, t0 = divmod(g, n4)
        v = inputs4[c * n4:(c + 1) * n4]
        for rr in range(3):
            v = [u32(v[(t * 7 + rr + 1) % n4] + rr) for t in range(n4)]
        return [v[t0]]
    cuda_case('cg_this_thread_block_sync_exchanges_b100', 'cg_block_sync', 1, n4, block_sync,
              inputs4, grid=2)

    d = sum((g % 8 + 1) * 0.125 for g in range(n))
    aux = [0] * 8
    exp_aux = [(f16b(24.0) << 16) | f16b(48.0), bf16b(48.0), *f64w(d), (144 << 16) | 144, 0, 0, 0]
    cuda_case('atomicadd_half2_bf16_double_atomiccas_ushort', 'half_double_atomics', 1, n,
              lambda g: [1], [0] * n, aux=aux, aux_expect=exp_aux)


_cg()


def _plain():
    r = rng(101)
    grid, blk = 2, 100
    n = grid * blk
    inputs = [r.getrandbits(32) for _ in range(n)]
    odd = [t for t in range(n) if inputs[t] & 1]
    aux = [0] * 256
    exp_aux = [len(odd)] + [1] * len(odd) + [0] * (255 - len(odd))
    cuda_case('warp_aggregated_atomic_tickets', 'warp_aggregated', 1, blk,
              lambda g: [1] if inputs[g] & 1 else None, inputs, grid=grid, aux=aux,
              aux_expect=exp_aux, compilers=('nvcc', 'clang'))

    n2 = 100
    inputs2 = [r.getrandbits(32) for _ in range(n2)]
    inputs2[0] = 0x80000000
    inputs2[97] = 0x80000000

    def red(g):
        w = [inputs2[t] for t in warps_of_cta(n2)[g // 32]]
        a, o, x = bit_folds(w)
        return [u32(sum(w)), u32(min(s32(v) for v in w)), u32(max(s32(v) for v in w)), a, o, x]
    cuda_case('reduce_sync_every_op_b100', 'reduce_sync', 6, n2, red, inputs2,
              compilers=('nvcc', 'clang'))

    inputs3 = [r.getrandbits(31) | 6 for _ in range(n2)]
    inputs3[50] = 0x80000007
    big = max((inputs3[g] << 32) | ((g * 2654435761) & M32) for g in range(n2))
    odd3 = sum(v & 1 for v in inputs3)
    cuda_case('atomicmax_u64_and_syncthreads_count_and_or_b100', 'max64_and_sync_reductions', 3,
              n2, lambda g: [odd3, 1, 1], inputs3, aux=[0] * 4,
              aux_expect=w64(big) + [0, 0], compilers=('nvcc', 'clang'))


_plain()
