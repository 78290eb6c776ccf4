/* PASS/FAIL lines for the CUDA runtime client programs (one per check) and a wrapper that
 * prints a failing runtime call with its error's name. */
#pragma once
#include <cstdio>

static int checks = 0, failed = 0;
static void check(bool ok, const char *what) {
    checks++;
    if (!ok) failed++;
    printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
}
static bool ok(cudaError_t e, const char *what) {
    if (e != cudaSuccess) printf("  %s: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return e == cudaSuccess;
}
#define OK(call) ok((call), #call)
