/* Thrust as people write it: device_vector, transform, reduce, inclusive_scan, sort of ints
 * (radix sort, only with the argument "radix") and sort with a comparator (merge sort), checked against CPU loops. Prints PASS/FAIL per check (a Thrust exception is a FAIL
 * naming it) and "thrust: all checks passed" or "thrust: F checks failed". */
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/transform.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <string>
#include <thrust/functional.h>
#include <cstdio>
#include "checks.h"
#include <algorithm>
#include <vector>

struct affine {
    __host__ __device__ int operator()(int x) const { return 3 * x - 7; }
};

struct by_low_byte_then_value {
    __host__ __device__ bool operator()(int a, int b) const {
        return (a & 255) != (b & 255) ? (a & 255) < (b & 255) : a < b;
    }
};


template <class F> static void attempt(const char *what, F f) {
    try {
        check(f(), what);
    } catch (const std::exception &e) {
        printf("  %s threw: %s\n", what, e.what());
        check(false, what);
    }
}

int main(int argc, char **argv) {
    const int n = 3000;
    std::vector<int> h(n);
    unsigned s = 777;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        h[i] = (int)((s >> 16) & 0x7fff) - 16384;
    }
    thrust::device_vector<int> d(h.begin(), h.end());
    thrust::device_vector<int> t(n);
    attempt("thrust::transform", [&] {
        thrust::transform(d.begin(), d.end(), t.begin(), affine());
        thrust::host_vector<int> back = t;
        for (int i = 0; i < n; i++)
            if (back[i] != 3 * h[i] - 7) return false;
        return true;
    });
    attempt("thrust::reduce", [&] {
        long long want = 0;
        for (int v : h) want += v;
        int got = thrust::reduce(d.begin(), d.end(), 0, thrust::plus<int>());
        printf("  reduce: %d (CPU %lld)\n", got, want);
        return got == (int)want;
    });
    attempt("thrust::inclusive_scan", [&] {
        thrust::inclusive_scan(d.begin(), d.end(), t.begin());
        thrust::host_vector<int> back = t;
        int acc = 0;
        for (int i = 0; i < n; i++) {
            acc += h[i];
            if (back[i] != acc) return false;
        }
        return true;
    });
    /* Radix sort (its kernels take lavapipe minutes to build): only with the argument "radix". */
    if (argc > 1 && std::string(argv[1]) == "radix") attempt("thrust::sort", [&] {
        thrust::device_vector<int> v(h.begin(), h.end());
        thrust::sort(v.begin(), v.end());
        thrust::host_vector<int> back = v;
        std::vector<int> want = h;
        std::sort(want.begin(), want.end());
        return std::equal(want.begin(), want.end(), back.begin());
    });
    /* A comparator makes Thrust merge sort. */
    attempt("thrust::sort with a comparator", [&] {
        thrust::device_vector<int> v(h.begin(), h.end());
        thrust::sort(v.begin(), v.end(), by_low_byte_then_value());
        thrust::host_vector<int> back = v;
        std::vector<int> want = h;
        std::sort(want.begin(), want.end(), by_low_byte_then_value());
        return std::equal(want.begin(), want.end(), back.begin());
    });
    if (failed == 0) printf("thrust: all checks passed\n");
    else printf("thrust: %d checks failed\n", failed);
    return failed != 0;
}
