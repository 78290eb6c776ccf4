// The host reference: runs a generated kernel (compiled as plain C++ through cf.h) for every
// thread of the launch, one after another (the programs share nothing between threads).
// usage: host DIR GRID BLOCK N P64   reads DIR/in_*.bin, DIR/out.init.bin; writes DIR/out.expected.bin
#include "cf.h"
#include <cstdio>
#include <string>
#include <vector>

dim3 threadIdx, blockIdx, blockDim, gridDim;
extern "C" void k(const unsigned *, const int *, const unsigned long long *, const long long *,
                  const float *, const double *, unsigned long long *, unsigned, unsigned long long);

template <class T> static std::vector<T> load(const std::string &path)
{
    std::vector<T> v;
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) { std::perror(path.c_str()); std::exit(2); }
    T x;
    while (std::fread(&x, sizeof x, 1, f) == 1) v.push_back(x);
    std::fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 6) { std::fprintf(stderr, "usage: host DIR GRID BLOCK N P64\n"); return 2; }
    std::string dir = argv[1];
    auto u32 = load<unsigned>(dir + "/in_u32.bin");
    auto s32 = load<int>(dir + "/in_s32.bin");
    auto u64 = load<unsigned long long>(dir + "/in_u64.bin");
    auto s64 = load<long long>(dir + "/in_s64.bin");
    auto f32 = load<float>(dir + "/in_f32.bin");
    auto f64 = load<double>(dir + "/in_f64.bin");
    auto out = load<unsigned long long>(dir + "/out.init.bin");
    gridDim.x = std::stoul(argv[2]);
    blockDim.x = std::stoul(argv[3]);
    unsigned n = std::stoul(argv[4]);
    unsigned long long p64 = std::stoull(argv[5], nullptr, 0);
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)
        for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)
            k(u32.data(), s32.data(), u64.data(), s64.data(), f32.data(), f64.data(), out.data(), n, p64);
    FILE *f = std::fopen((dir + "/out.expected.bin").c_str(), "wb");
    std::fwrite(out.data(), sizeof out[0], out.size(), f);
    std::fclose(f);
    return 0;
}
