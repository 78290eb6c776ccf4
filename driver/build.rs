// Programs (and cuda-python) open the driver by its soname, libcuda.so.1; LD_PRELOAD and the
// dynamic linker match DT_NEEDED against it.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
}
