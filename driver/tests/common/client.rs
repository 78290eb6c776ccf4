//! Running real client programs against this crate's libcuda.so.1 (`clients.rs`,
//! `texture_probe.rs`): where the repository, the client venv and the library are, and the
//! skip rule when a client's tools are missing.

use std::path::{Path, PathBuf};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Whether a missing client fails the test (PTXCROSS_REQUIRE_CLIENTS=1; scripts/test.sh sets it).
pub fn required() -> bool {
    std::env::var("PTXCROSS_REQUIRE_CLIENTS").is_ok_and(|v| v == "1")
}

/// Says why a client test does not run; fails instead when clients are required.
pub fn skip(why: &str) {
    assert!(!required(), "PTXCROSS_REQUIRE_CLIENTS=1 but {why} (run scripts/install-deps.sh)");
    eprintln!("skipped: {why} (run scripts/install-deps.sh)");
}

/// The client venv scripts/install-deps.sh makes: $PTXCROSS_PYENV, else target/pyenv.
pub fn pyenv_dir() -> PathBuf {
    std::env::var_os("PTXCROSS_PYENV").map(PathBuf::from).unwrap_or_else(|| repo().join("target/pyenv"))
}

/// The cuda.h directory of the venv's nvidia-cuda-runtime wheel.
pub fn cuda_include(pyenv: &Path) -> Option<PathBuf> {
    let lib = std::fs::read_dir(pyenv.join("lib")).ok()?;
    lib.flatten()
        .map(|e| e.path().join("site-packages/nvidia/cu13/include"))
        .find(|p| p.join("cuda.h").exists())
}

/// A folder (`name` under the test's temporary directory) holding libcuda.so.1 and libcuda.so =
/// the cdylib cargo built for this test.
pub fn library_dir(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let so = [deps.join("libcuda.so"), deps.parent().unwrap().join("libcuda.so")]
        .into_iter()
        .find(|p| p.exists())
        .expect("the driver cdylib (libcuda.so) next to the test binary");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["libcuda.so.1", "libcuda.so"] {
        let link = dir.join(file);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&so, &link).unwrap();
    }
    dir
}
