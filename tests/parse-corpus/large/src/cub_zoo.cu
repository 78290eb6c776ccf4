// One large PTX file for the parse benchmark: instantiates many CUB and Thrust algorithms for
// many key/value types, so nvcc emits thousands of kernels (radix sort onesweep passes, scans,
// reductions, selections, histograms, merge sorts ...). Compiled with
//   nvcc -arch=sm_80 -ptx cub_zoo.cu   (see ../../regen.sh)
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/unique.h>
#include <thrust/copy.h>
#include <thrust/transform.h>
#include <thrust/functional.h>
#include <thrust/execution_policy.h>
#include <cstdint>

template <typename T>
struct IsPositive {
    __host__ __device__ bool operator()(const T &x) const { return x > T(0); }
};

template <typename T>
struct Square {
    __host__ __device__ T operator()(const T &x) const { return x * x; }
};

template <typename K, typename V>
void cub_algorithms(K *keys, K *keys_out, V *vals, V *vals_out, int *offsets, int *counts,
                    int n, int segments, void *tmp, size_t tmp_bytes, cudaStream_t s) {
    cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, keys, keys_out, vals, vals_out, n, 0,
                                    int(sizeof(K) * 8), s);
    cub::DeviceRadixSort::SortKeysDescending(tmp, tmp_bytes, keys, keys_out, n, 0,
                                             int(sizeof(K) * 8), s);
    cub::DeviceSegmentedRadixSort::SortPairs(tmp, tmp_bytes, keys, keys_out, vals, vals_out, n,
                                             segments, offsets, offsets + 1, 0,
                                             int(sizeof(K) * 8), s);
    cub::DeviceReduce::Sum(tmp, tmp_bytes, keys, keys_out, n, s);
    cub::DeviceReduce::Max(tmp, tmp_bytes, keys, keys_out, n, s);
    cub::DeviceReduce::ArgMin(tmp, tmp_bytes, keys, (cub::KeyValuePair<int, K> *)vals_out, n, s);
    cub::DeviceSegmentedReduce::Sum(tmp, tmp_bytes, keys, keys_out, segments, offsets,
                                    offsets + 1, s);
    cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, keys, keys_out, n, s);
    cub::DeviceScan::InclusiveScan(tmp, tmp_bytes, vals, vals_out, cuda::maximum<>(), n, s);
    cub::DeviceSelect::If(tmp, tmp_bytes, keys, keys_out, counts, n, IsPositive<K>(), s);
    cub::DeviceSelect::Unique(tmp, tmp_bytes, keys, keys_out, counts, n, s);
    cub::DevicePartition::If(tmp, tmp_bytes, vals, vals_out, counts, n, IsPositive<V>(), s);
    cub::DeviceRunLengthEncode::Encode(tmp, tmp_bytes, keys, keys_out, counts, counts + 1, n, s);
    cub::DeviceReduce::ReduceByKey(tmp, tmp_bytes, keys, keys_out, vals, vals_out, counts,
                                   cuda::std::plus<>(), n, s);
    cub::DeviceMergeSort::SortPairs(tmp, tmp_bytes, keys, vals, n, thrust::less<K>(), s);
}

template <typename T>
void thrust_algorithms(thrust::device_vector<T> &v, thrust::device_vector<T> &w) {
    thrust::sort(v.begin(), v.end());
    thrust::sort(v.begin(), v.end(), thrust::greater<T>());
    thrust::stable_sort_by_key(v.begin(), v.end(), w.begin());
    T r = thrust::reduce(v.begin(), v.end(), T(0), thrust::plus<T>());
    thrust::inclusive_scan(v.begin(), v.end(), w.begin());
    thrust::exclusive_scan(v.begin(), v.end(), w.begin(), T(r), thrust::maximum<T>());
    thrust::transform(v.begin(), v.end(), w.begin(), Square<T>());
    thrust::copy_if(v.begin(), v.end(), w.begin(), IsPositive<T>());
    auto end = thrust::unique(v.begin(), v.end());
    (void)end;
}

#define ZOO(K, V)                                                                              \
    cub_algorithms<K, V>((K *)p, (K *)p, (V *)p, (V *)p, (int *)p, (int *)p, n, 4, p, bytes, s);

void instantiate_all(void *p, size_t bytes, int n, cudaStream_t s) {
    ZOO(int8_t, int)
    ZOO(uint32_t, float)
    ZOO(int64_t, double)
    ZOO(float, int)
    {
        thrust::device_vector<int> a(n), b(n);
        thrust_algorithms(a, b);
        thrust::device_vector<float> g(n), h(n);
        thrust_algorithms(g, h);
        thrust::device_vector<double> i(n), j(n);
        thrust_algorithms(i, j);
    }
}
