//! Links Khronos' SPIRV-Tools validator (the library behind `spirv-val`) from the system, so
//! SPIR-V is validated in-process (see `src/validate.rs`).
//!
//! Found through pkg-config (`SPIRV-Tools.pc`; Debian/Ubuntu: `apt-get install spirv-tools
//! pkg-config g++`, which `scripts/install-deps.sh` does). SPIRV-Tools is never compiled from
//! source here: that takes many minutes on small CI machines (the `spirv-tools` crate does it).
//! Without the library the crate still builds, warns, and validates by running the `spirv-val`
//! binary instead (still failing closed when that is missing too).
//! `PTXCROSS_REQUIRE_SPIRV_TOOLS=1` (set by `scripts/test.sh`) turns the fallback into a build
//! error, so CI cannot silently lose the in-process validator.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(spirv_tools_linked)");
    println!("cargo::rerun-if-env-changed=PTXCROSS_REQUIRE_SPIRV_TOOLS");
    println!("cargo::rerun-if-changed=build.rs");
    let required = std::env::var("PTXCROSS_REQUIRE_SPIRV_TOOLS").as_deref() == Ok("1");
    match find_spirv_tools() {
        Ok(()) => println!("cargo::rustc-cfg=spirv_tools_linked"),
        Err(why) if required => panic!(
            "PTXCROSS_REQUIRE_SPIRV_TOOLS=1 but SPIRV-Tools cannot be linked: {why}. \
             Install it (Debian/Ubuntu: apt-get install spirv-tools pkg-config g++, or run scripts/install-deps.sh)"
        ),
        Err(why) => println!(
            "cargo::warning=SPIRV-Tools not linked ({why}); SPIR-V will be validated by running the `spirv-val` binary. \
             Install spirv-tools, pkg-config and g++ (scripts/install-deps.sh) for in-process validation"
        ),
    }
}

/// Emits the link directives for the validator library, or says why it cannot.
fn find_spirv_tools() -> Result<(), String> {
    let lib = pkg_config::Config::new()
        .atleast_version("2022.1")
        .cargo_metadata(false)
        .probe("SPIRV-Tools")
        .map_err(|e| e.to_string().lines().next().unwrap_or("pkg-config failed").to_string())?;
    for path in &lib.include_paths {
        println!("cargo::rerun-if-changed={}", path.join("spirv-tools/libspirv.h").display());
    }
    for path in &lib.link_paths {
        println!("cargo::rustc-link-search=native={}", path.display());
    }
    // Only the core library: the validator lives there (the .pc file also names the optimizer
    // and linker, which we do not call). Debian ships it as a static archive of C++ code, so the
    // C++ runtime comes after it.
    println!("cargo::rustc-link-lib=SPIRV-Tools");
    let target = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let cxx = if target == "macos" || target == "freebsd" || target == "openbsd" { "c++" } else { "stdc++" };
    println!("cargo::rustc-link-lib={cxx}");
    Ok(())
}
