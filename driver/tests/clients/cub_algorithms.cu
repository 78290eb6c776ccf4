/* CUB device-wide algorithms as people call them, with the temp-storage query idiom (a first
 * call with a null buffer asks for the size): DeviceReduce::Sum, DeviceScan::InclusiveSum and
 * DeviceMergeSort::SortKeys (radix sort: cub_radix_sort.cu), a few thousand items each, checked against CPU
 * loops. Prints PASS/FAIL per check and "cub: all checks passed" or "cub: F checks failed". */
#include <cub/cub.cuh>
#include <cstdio>
#include "checks.h"
#include <cstdlib>
#include <algorithm>
#include <vector>

struct descending {
    __host__ __device__ bool operator()(unsigned a, unsigned b) const { return a > b; }
};


int main() {
    const int n = 5000;
    std::vector<int> h(n);
    std::vector<unsigned> keys(n);
    unsigned s = 12345;
    for (int i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        h[i] = (int)(s >> 20) - 2048;
        keys[i] = s ^ (s >> 13);
    }
    int *d_in, *d_out;
    unsigned *d_keys, *d_sorted;
    OK(cudaMalloc(&d_in, n * sizeof(int)));
    OK(cudaMalloc(&d_out, n * sizeof(int)));
    OK(cudaMalloc(&d_keys, n * sizeof(unsigned)));
    OK(cudaMalloc(&d_sorted, n * sizeof(unsigned)));
    OK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    OK(cudaMemcpy(d_keys, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));

    /* Reduce. */
    void *temp = nullptr;
    size_t temp_bytes = 0;
    bool r = OK(cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n)) && temp_bytes > 0;
    r = r && OK(cudaMalloc(&temp, temp_bytes)) && OK(cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n)) &&
        OK(cudaDeviceSynchronize());
    int sum = 0, want = 0;
    for (int v : h) want += v;
    r = r && OK(cudaMemcpy(&sum, d_out, sizeof sum, cudaMemcpyDeviceToHost));
    printf("  DeviceReduce::Sum: %d (CPU %d), %zu temp bytes\n", sum, want, temp_bytes);
    check(r && sum == want, "cub::DeviceReduce::Sum of 5000 ints");
    cudaFree(temp);

    /* Inclusive scan. */
    temp = nullptr;
    temp_bytes = 0;
    r = OK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, d_in, d_out, n)) && OK(cudaMalloc(&temp, temp_bytes)) &&
        OK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, d_in, d_out, n)) && OK(cudaDeviceSynchronize());
    std::vector<int> scanned(n);
    r = r && OK(cudaMemcpy(scanned.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int acc = 0, first_bad = -1;
    for (int i = 0; i < n && r; i++) {
        acc += h[i];
        if (scanned[i] != acc) { first_bad = i; break; }
    }
    if (first_bad >= 0) printf("  InclusiveSum: item %d is %d, CPU %d\n", first_bad, scanned[first_bad], acc);
    check(r && first_bad < 0, "cub::DeviceScan::InclusiveSum of 5000 ints");
    cudaFree(temp);

    /* Radix sort: driver/tests/clients/cub_radix_sort.cu (its onesweep pipelines take lavapipe
     * minutes to build). */
    std::vector<unsigned> sorted(n);
    std::vector<unsigned> want_sorted = keys;
    std::sort(want_sorted.begin(), want_sorted.end());

    /* Merge sort with a comparator. */
    temp = nullptr;
    temp_bytes = 0;
    OK(cudaMemcpy(d_sorted, d_keys, n * sizeof(unsigned), cudaMemcpyDeviceToDevice));
    r = OK(cub::DeviceMergeSort::SortKeys(temp, temp_bytes, d_sorted, n, descending())) && OK(cudaMalloc(&temp, temp_bytes)) &&
        OK(cub::DeviceMergeSort::SortKeys(temp, temp_bytes, d_sorted, n, descending())) && OK(cudaDeviceSynchronize());
    r = r && OK(cudaMemcpy(sorted.data(), d_sorted, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::reverse(want_sorted.begin(), want_sorted.end());
    check(r && sorted == want_sorted, "cub::DeviceMergeSort::SortKeys (descending) of 5000 unsigned keys");
    cudaFree(temp);

    if (failed == 0) printf("cub: all checks passed\n");
    else printf("cub: %d checks failed\n", failed);
    return failed != 0;
}
