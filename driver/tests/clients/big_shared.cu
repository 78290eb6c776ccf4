/* Shared memory beyond the device's workgroup memory, as people use it: 64 KiB of dynamic
 * shared memory after cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) (CUDA's
 * opt-in limit for compute capability 7.5, what the driver reports), every word written,
 * read by other threads after __syncthreads, and shared atomics; checked against a CPU loop.
 * Also the limits the device reports and a request beyond the opt-in limit refused. Prints
 * PASS/FAIL per check and "big_shared: all checks passed" or "big_shared: F checks failed". */
#include <cstdio>
#include <vector>
#include "checks.h"

static const int WORDS = 16384, BLOCK = 256, GRID = 12;

__host__ __device__ unsigned pattern(unsigned c, unsigned w) { return (w * 0x85EBCA6Bu + 0x3C6EF372u) ^ (c * 0x9E3779B9u); }

__global__ void big(unsigned *out, unsigned *counts) {
    extern __shared__ unsigned smem[];
    unsigned c = blockIdx.x, t = threadIdx.x;
    for (unsigned w = t; w < WORDS; w += BLOCK) smem[w] = pattern(c, w);
    __syncthreads();
    unsigned acc = 0;
    for (unsigned w = t; w < WORDS; w += BLOCK) acc = acc * 31u + smem[(w * 7u + 13u) % WORDS];
    out[c * BLOCK + t] = acc;
    __syncthreads();
    atomicAdd(&smem[t % 64], c + 1);
    __syncthreads();
    if (t < 64) counts[c * 64 + t] = smem[t];
}

int main() {
    int per_block = 0, optin = 0;
    OK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, 0));
    OK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    printf("  shared memory per block %d, opt-in %d\n", per_block, optin);
    check(per_block >= 48 * 1024 && optin >= 64 * 1024, "shared memory limits: 48 KiB per block, 64 KiB opt-in (compute capability 7.5)");

    const size_t bytes = WORDS * sizeof(unsigned);
    bool r = OK(cudaFuncSetAttribute(big, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    cudaFuncAttributes attr;
    r = r && OK(cudaFuncGetAttributes(&attr, big));
    printf("  maxDynamicSharedSizeBytes %d\n", attr.maxDynamicSharedSizeBytes);
    check(r && attr.maxDynamicSharedSizeBytes == (int)bytes, "cudaFuncSetAttribute(MaxDynamicSharedMemorySize, 64 KiB)");
    cudaError_t e = cudaFuncSetAttribute(big, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1);
    cudaGetLastError();
    check(e == cudaErrorInvalidValue, "MaxDynamicSharedMemorySize beyond the opt-in limit: cudaErrorInvalidValue");

    unsigned *d_out, *d_counts;
    OK(cudaMalloc(&d_out, GRID * BLOCK * sizeof(unsigned)));
    OK(cudaMalloc(&d_counts, GRID * 64 * sizeof(unsigned)));
    big<<<GRID, BLOCK, bytes>>>(d_out, d_counts);
    r = OK(cudaGetLastError()) && OK(cudaDeviceSynchronize());
    std::vector<unsigned> out(GRID * BLOCK), counts(GRID * 64);
    r = r && OK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    r = r && OK(cudaMemcpy(counts.data(), d_counts, counts.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int bad = -1;
    for (unsigned c = 0; c < GRID && r; c++) {
        for (unsigned t = 0; t < BLOCK; t++) {
            unsigned acc = 0;
            for (unsigned w = t; w < WORDS; w += BLOCK) acc = acc * 31u + pattern(c, (w * 7u + 13u) % WORDS);
            if (out[c * BLOCK + t] != acc && bad < 0) bad = c * BLOCK + t;
        }
        for (unsigned t = 0; t < 64; t++)
            if (counts[c * 64 + t] != pattern(c, t) + (BLOCK / 64) * (c + 1) && bad < 0) bad = 1 << 20 | (c * 64 + t);
    }
    if (bad >= 0) printf("  first wrong output: %#x\n", bad);
    check(r && bad < 0, "64 KiB of dynamic shared memory in 12 blocks of 256 threads");
    if (failed == 0) printf("big_shared: all checks passed\n");
    else printf("big_shared: %d checks failed\n", failed);
    return failed != 0;
}
