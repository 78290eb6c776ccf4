/* CUB's DeviceRadixSort (the onesweep kernels: 33 280 bytes of shared memory for sm_80, more
 * than lavapipe's 32 KiB of workgroup memory; ptxcross keeps it in global memory then):
 * SortKeys of unsigned keys and SortPairs (unsigned keys, int values), 5000 items, checked
 * against std::sort / std::stable_sort (radix sort is stable). Prints PASS/FAIL per check and
 * "cub radix sort: all checks passed" or "cub radix sort: F checks failed". */
#include <cub/cub.cuh>
#include <cstdio>
#include "checks.h"
#include <algorithm>
#include <utility>
#include <vector>

int main() {
    const int n = 5000;
    std::vector<unsigned> keys(n);
    std::vector<int> values(n);
    unsigned s = 12345;
    for (int i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        keys[i] = (s ^ (s >> 13)) & (i % 3 ? 0xffffffffu : 0xff00ffffu); /* some equal keys */
        values[i] = i;
    }
    unsigned *d_keys, *d_sorted;
    int *d_values, *d_values_out;
    OK(cudaMalloc(&d_keys, n * sizeof(unsigned)));
    OK(cudaMalloc(&d_sorted, n * sizeof(unsigned)));
    OK(cudaMalloc(&d_values, n * sizeof(int)));
    OK(cudaMalloc(&d_values_out, n * sizeof(int)));
    OK(cudaMemcpy(d_keys, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    OK(cudaMemcpy(d_values, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    void *temp = nullptr;
    size_t temp_bytes = 0;
    bool r = OK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_keys, d_sorted, n)) && OK(cudaMalloc(&temp, temp_bytes)) &&
             OK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_keys, d_sorted, n)) && OK(cudaDeviceSynchronize());
    std::vector<unsigned> sorted(n);
    r = r && OK(cudaMemcpy(sorted.data(), d_sorted, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::vector<unsigned> want = keys;
    std::sort(want.begin(), want.end());
    check(r && sorted == want, "cub::DeviceRadixSort::SortKeys of 5000 unsigned keys");
    cudaFree(temp);

    temp = nullptr;
    temp_bytes = 0;
    r = OK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, d_keys, d_sorted, d_values, d_values_out, n)) &&
        OK(cudaMalloc(&temp, temp_bytes)) &&
        OK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, d_keys, d_sorted, d_values, d_values_out, n)) && OK(cudaDeviceSynchronize());
    std::vector<int> got_values(n);
    r = r && OK(cudaMemcpy(sorted.data(), d_sorted, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    r = r && OK(cudaMemcpy(got_values.data(), d_values_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<std::pair<unsigned, int>> pairs(n);
    for (int i = 0; i < n; i++) pairs[i] = {keys[i], values[i]};
    std::stable_sort(pairs.begin(), pairs.end(), [](auto a, auto b) { return a.first < b.first; });
    bool same = true;
    for (int i = 0; i < n; i++) same = same && sorted[i] == pairs[i].first && got_values[i] == pairs[i].second;
    check(r && same, "cub::DeviceRadixSort::SortPairs of 5000 unsigned keys with int values (stable)");
    cudaFree(temp);

    if (failed == 0) printf("cub radix sort: all checks passed\n");
    else printf("cub radix sort: %d checks failed\n", failed);
    return failed != 0;
}
