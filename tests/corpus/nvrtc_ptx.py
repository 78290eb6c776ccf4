#!/usr/bin/env python3
"""Compile one CUDA C source to PTX with NVRTC (libnvrtc.so.12 from the PyPI wheel
nvidia-cuda-nvrtc-cu12), through ctypes.

usage: nvrtc_ptx.py LIBNVRTC SOURCE.cu OUT.ptx [NVRTC options...]
"""
import ctypes
import os
import sys


def check(lib, prog, rc, what):
    if rc != 0:
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        msg = lib.nvrtcGetErrorString(rc).decode()
        log = ""
        if prog is not None:
            n = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            lib.nvrtcGetProgramLog(prog, buf)
            log = buf.value.decode(errors="replace")
        sys.exit(f"nvrtc: {what} failed: {msg}\n{log}")


def main():
    libpath, src, out, *opts = sys.argv[1:]
    lib = ctypes.CDLL(libpath)
    major, minor = ctypes.c_int(), ctypes.c_int()
    check(lib, None, lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    with open(src, "rb") as f:
        text = f.read()
    prog = ctypes.c_void_p()
    check(lib, None, lib.nvrtcCreateProgram(ctypes.byref(prog), text,
                                            os.path.basename(src).encode(), 0, None, None),
          "nvrtcCreateProgram")
    copts = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    check(lib, prog, lib.nvrtcCompileProgram(prog, len(opts), copts), "nvrtcCompileProgram")
    n = ctypes.c_size_t()
    check(lib, prog, lib.nvrtcGetPTXSize(prog, ctypes.byref(n)), "nvrtcGetPTXSize")
    buf = ctypes.create_string_buffer(n.value)
    check(lib, prog, lib.nvrtcGetPTX(prog, buf), "nvrtcGetPTX")
    with open(out, "wb") as f:
        f.write(buf.value)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    print(f"  NVRTC {major.value}.{minor.value} {' '.join(opts)}: {src} -> {out}")


if __name__ == "__main__":
    main()
