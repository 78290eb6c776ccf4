#!/usr/bin/env python3
"""Compile one CUDA C++ source to PTX with NVRTC through ctypes.

usage: nvrtc_ptx.py LIBNVRTC SOURCE.cu OUT.ptx [NVRTC options...]

NVRTC has no host compiler and no CUDA headers of its own beyond its built-ins, so the sources
compiled this way are header-free.
"""
import ctypes
import os
import sys


def main():
    libpath, src, out, *opts = sys.argv[1:]
    lib = ctypes.CDLL(libpath)
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def check(rc, what, prog=None):
        if rc == 0:
            return
        log = ""
        if prog is not None:
            n = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            lib.nvrtcGetProgramLog(prog, buf)
            log = buf.value.decode(errors="replace")
        sys.exit(f"nvrtc: {what}: {lib.nvrtcGetErrorString(rc).decode()}\n{log}")

    major, minor = ctypes.c_int(), ctypes.c_int()
    check(lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    with open(src, "rb") as f:
        text = f.read()
    prog = ctypes.c_void_p()
    check(lib.nvrtcCreateProgram(ctypes.byref(prog), text, os.path.basename(src).encode(),
                                 0, None, None), "nvrtcCreateProgram")
    copts = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    check(lib.nvrtcCompileProgram(prog, len(opts), copts), "nvrtcCompileProgram", prog)
    n = ctypes.c_size_t()
    check(lib.nvrtcGetPTXSize(prog, ctypes.byref(n)), "nvrtcGetPTXSize", prog)
    buf = ctypes.create_string_buffer(n.value)
    check(lib.nvrtcGetPTX(prog, buf), "nvrtcGetPTX", prog)
    with open(out, "wb") as f:
        f.write(buf.value)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    print(f"  NVRTC {major.value}.{minor.value} {' '.join(opts)}: {src} -> {out}")


if __name__ == "__main__":
    main()
