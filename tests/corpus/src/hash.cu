// hash: splitmix64 finalizer over z = i * golden + seed (u64 wraparound), plus derived values:
//   out64[i]      = splitmix64(i * 0x9E3779B97F4A7C15 + seed)
//   out32[i]      = hi32(h) ^ lo32(h) ^ hi32(mulhi64(h, 0xFF51AFD7ED558CCD))  (mul.hi.u64)
//   outdiv[2i]    = (s64)h / divisor   (signed, truncates toward zero)
//   outdiv[2i+1]  = (s64)h % divisor   (sign of the dividend)
// No headers: the 64-bit types are spelled out so nvcc and NVRTC both compile it as is.
typedef unsigned long long u64;
typedef long long s64;

extern "C" __global__ void hash(u64 *out64, unsigned int *out32, s64 *outdiv,
                                u64 seed, s64 divisor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    u64 z = (u64)i * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z = z ^ (z >> 31);
    out64[i] = z;

    u64 hi = __umul64hi(z, 0xFF51AFD7ED558CCDull);
    out32[i] = (unsigned int)(z >> 32) ^ (unsigned int)z ^ (unsigned int)(hi >> 32);

    s64 sz = (s64)z;
    outdiv[2 * i] = sz / divisor;
    outdiv[2 * i + 1] = sz % divisor;
}
