//! The `ptxcross` command line as the external harness drives it: exit codes, `check --json`
//! lines, spec errors, the verification table, the no-adapter path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn ptxcross(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptxcross"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run ptxcross")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A fresh folder with vecadd.ptx and a spec whose expectation is right (or off by one element).
fn vecadd_dir(tag: &str, wrong: bool) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxcross-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(data("vecadd.ptx"), dir.join("vecadd.ptx")).unwrap();
    let n = 300usize;
    let a: Vec<String> = (0..n).map(|i| format!("{}", i as f32 * 0.5)).collect();
    let b: Vec<String> = (0..n).map(|i| format!("{}", 1000.0 - i as f32)).collect();
    let mut c: Vec<String> = (0..n)
        .map(|i| format!("{}", i as f32 * 0.5 + (1000.0 - i as f32)))
        .collect();
    if wrong {
        c[7] = "1.25".into();
    }
    let spec = format!(
        r#"{{ "ptx": "vecadd.ptx", "kernel": "vecadd", "grid": [2, 1, 1], "block": [256, 1, 1],
             "buffers": {{ "a": {{"type": "f32", "values": [{}]}}, "b": {{"type": "f32", "values": [{}]}},
                          "c": {{"zeros": {}}} }},
             "args": [{{"buffer": "a"}}, {{"buffer": "b"}}, {{"buffer": "c"}}, {{"type": "s32", "value": {n}}}],
             "expect": {{ "c": {{"type": "f32", "values": [{}]}} }} }}"#,
        a.join(","),
        b.join(","),
        n * 4,
        c.join(",")
    );
    std::fs::write(dir.join("vecadd.json"), spec).unwrap();
    dir
}

/// A test that needs the GPU skips only when no adapter exists and CI did not require one.
fn no_adapter(o: &Output) -> bool {
    if !stderr(o).contains("no GPU adapter found") {
        return false;
    }
    assert_ne!(std::env::var("PTXCROSS_REQUIRE_GPU").as_deref(), Ok("1"), "no GPU adapter: {}", stderr(o));
    eprintln!("skipping: {}", stderr(o));
    true
}

#[test]
fn check_json_reports_each_stage() {
    let o = ptxcross(&["check", "--json", "/nonexistent/k.ptx"], &[]);
    assert_eq!(o.status.code(), Some(2));
    let line: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(line["file"], "/nonexistent/k.ptx");
    assert!(
        line["parse"]
            .as_str()
            .unwrap()
            .contains("cannot read /nonexistent/k.ptx"),
        "{line}"
    );
    assert_eq!(line["spirv"], "skipped");
    assert_eq!(line["wgsl"], "skipped");

    let o = ptxcross(
        &["check", "--json", data("vecadd.ptx").to_str().unwrap()],
        &[],
    );
    let line: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let stages = ["parse", "spirv", "wgsl"].map(|k| line[k].as_str().unwrap().to_string());
    let ok = stages.iter().all(|s| s == "ok");
    assert!(ok, "vecadd should translate: {line}");
    assert_eq!(o.status.code(), Some(0), "{line}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &["translate"],
        &["translate", "x.ptx"],
        &["run"],
        &["verify"],
        &[],
    ] {
        let o = ptxcross(args, &[]);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let o = ptxcross(&["translate", "x.ptx", "--to", "dxil"], &[]);
    assert!(
        stderr(&o).contains("--to: expected spirv, spvasm or wgsl"),
        "{}",
        stderr(&o)
    );
    assert_eq!(ptxcross(&["help"], &[]).status.code(), Some(0));
}

#[test]
fn run_reports_spec_errors_with_the_place() {
    let dir = vecadd_dir("badspec", false);
    let spec = dir.join("bad.json");
    std::fs::write(
        &spec,
        r#"{"ptx": "vecadd.ptx", "kernel": "vecadd", "grid": [1], "args": [{"buffer": "zz"}]}"#,
    )
    .unwrap();
    let o = ptxcross(&["run", "--spec", spec.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.json: args[0]: no buffer `zz`"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn verify_without_adapter_translates_and_says_why() {
    let dir = vecadd_dir("noadapter", false);
    let o = ptxcross(
        &["verify", dir.to_str().unwrap()],
        &[("PTXCROSS_ADAPTER", "no-such-adapter-xyz")],
    );
    let out = stdout(&o);
    assert!(
        out.contains("could not run the kernels: no GPU adapter found"),
        "{out}"
    );
    assert!(
        out.contains("apt-get install -y mesa-vulkan-drivers libvulkan1"),
        "{out}"
    );
    assert!(out.contains("0 passed, 0 failed, 2 not run"), "{out}");
    assert_eq!(o.status.code(), Some(0));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_and_verify_vecadd_end_to_end() {
    let good = vecadd_dir("good", false);
    let o = ptxcross(
        &[
            "run",
            "--spec",
            good.join("vecadd.json").to_str().unwrap(),
            "--dump",
            good.join("dump").to_str().unwrap(),
        ],
        &[],
    );
    if no_adapter(&o) {
        return;
    }
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("[SPIR-V]: pass") && stdout(&o).contains("[WGSL]: pass"),
        "{}",
        stdout(&o)
    );
    for f in [
        "dump/a.bin",
        "dump/b.bin",
        "dump/c.bin",
        "dump/spirv/c.bin",
        "dump/wgsl/c.bin",
    ] {
        assert!(good.join(f).is_file(), "{f}");
    }
    assert_eq!(std::fs::read(good.join("dump/c.bin")).unwrap().len(), 1200);

    let bad = vecadd_dir("bad", true);
    let o = ptxcross(
        &[
            "run",
            "--spec",
            bad.join("vecadd.json").to_str().unwrap(),
            "--backend",
            "wgsl",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("buffer `c`: 1 of 300 f32 elements differ"),
        "{out}"
    );
    assert!(
        out.contains("[7] expected 1.25 (0x3fa00000), actual 996.5 (0x44792000)"),
        "{out}"
    );

    let o = ptxcross(
        &[
            "verify",
            good.to_str().unwrap(),
            bad.join("vecadd.json").to_str().unwrap(),
        ],
        &[],
    );
    let out = stdout(&o);
    assert!(out.contains("2 passed, 2 failed"), "{out}");
    assert_eq!(o.status.code(), Some(1));
    std::fs::remove_dir_all(&good).ok();
    std::fs::remove_dir_all(&bad).ok();
}

/// A device that flushes f32 subnormals on a backend (NVIDIA's WGSL path) gets f32 kernels
/// translated in the exact mode for such devices (`LowerOptions::flushed_f32`; `atom.add.f32`
/// included), and kernels that need f64 subnormals refused where it flushes those: `run` and
/// `verify` say "refused" with the reason and still exit 0 when every backend that ran passed
/// (the device's limit is not the kernel's failure). `PTXCROSS_ASSUME_FLUSHED` makes any
/// device answer the subnormal probe as one that flushes both.
#[test]
fn a_backend_refused_for_flushed_subnormals_is_reported_not_failed() {
    let dir = vecadd_dir("flushed", false);
    let env = [("PTXCROSS_ASSUME_FLUSHED", "wgsl")];
    let o = ptxcross(&["run", "--spec", dir.join("vecadd.json").to_str().unwrap()], &env);
    if no_adapter(&o) {
        return;
    }
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("[SPIR-V]: pass") && out.contains("[WGSL]: pass"), "{out}");
    // 256 threads add 1.0 each to one word: 256 in any order.
    let ptx = ".version 8.5\n.target sm_60\n.address_size 64\n\
        .visible .entry asum(.param .u64 out)\n{\n    .reg .f32 %f<2>;\n    .reg .b64 %rd<2>;\n\
        ld.param.u64 %rd1, [out];\n    cvta.to.global.u64 %rd1, %rd1;\n\
        atom.global.add.f32 %f1, [%rd1], 0f3F800000;\n    ret;\n}\n";
    std::fs::write(dir.join("asum.ptx"), ptx).unwrap();
    let spec = r#"{ "ptx": "asum.ptx", "kernel": "asum", "grid": [1, 1, 1], "block": [256, 1, 1],
        "buffers": { "s": {"zeros": 4} }, "args": [{"buffer": "s"}],
        "expect": { "s": {"type": "f32", "values": [256]} } }"#;
    std::fs::write(dir.join("asum.json"), spec).unwrap();
    let o = ptxcross(&["run", "--spec", dir.join("asum.json").to_str().unwrap()], &env);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("[SPIR-V]: pass") && out.contains("[WGSL]: pass"), "{out}");
    // f64: 1.5 + 1.5.
    let ptx = ".version 8.5\n.target sm_60\n.address_size 64\n\
        .visible .entry dsum(.param .u64 out)\n{\n    .reg .f64 %fd<2>;\n    .reg .b64 %rd<2>;\n\
        ld.param.u64 %rd1, [out];\n    cvta.to.global.u64 %rd1, %rd1;\n    ld.global.f64 %fd1, [%rd1];\n\
        add.rn.f64 %fd1, %fd1, %fd1;\n    st.global.f64 [%rd1], %fd1;\n    ret;\n}\n";
    std::fs::write(dir.join("dsum.ptx"), ptx).unwrap();
    let spec = r#"{ "ptx": "dsum.ptx", "kernel": "dsum", "grid": [1, 1, 1], "block": [1, 1, 1],
        "buffers": { "s": {"type": "f64", "values": [1.5]} }, "args": [{"buffer": "s"}],
        "expect": { "s": {"type": "f64", "values": [3]} } }"#;
    std::fs::write(dir.join("dsum.json"), spec).unwrap();
    let o = ptxcross(&["run", "--spec", dir.join("dsum.json").to_str().unwrap()], &env);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("[SPIR-V]: pass") && out.contains("[WGSL]: refused"), "{out}");
    assert!(out.contains("flushes f64 subnormals to zero on the WGSL backend"), "{out}");
    let o = ptxcross(&["verify", dir.to_str().unwrap()], &env);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("5 passed, 0 failed, 1 refused by this device"), "{out}");
    assert!(out.contains("flushes f32 subnormals: exact f32 mode"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn help_version_and_spelling_suggestions() {
    for cmd in ["check", "translate", "run", "verify", "devices"] {
        let o = ptxcross(&[cmd, "--help"], &[]);
        assert_eq!(o.status.code(), Some(0), "{cmd} --help: {}", stderr(&o));
        assert!(stdout(&o).contains("Usage: ptxcross"), "{cmd} --help: {}", stdout(&o));
    }
    let o = ptxcross(&["--version"], &[]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).trim(), format!("ptxcross {}", env!("CARGO_PKG_VERSION")));
    let o = ptxcross(&["verfy", "x"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("a similar subcommand exists: 'verify'"), "{}", stderr(&o));
    let o = ptxcross(&["translate", "k.ptx", "--to", "wgsl", "--blok", "32"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("a similar argument exists: '--block'"), "{}", stderr(&o));
    let o = ptxcross(&[], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Usage: ptxcross"), "{}", stderr(&o));
}

#[test]
fn devices_lists_adapters_and_device_selects_one() {
    let o = ptxcross(&["devices"], &[("XDG_RUNTIME_DIR", "")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    // Nothing that is not an error says "error" (Mesa's display probing used to).
    assert!(!stderr(&o).contains("error"), "{}", stderr(&o));
    if out.starts_with("no adapters found") {
        assert_ne!(std::env::var("PTXCROSS_REQUIRE_GPU").as_deref(), Ok("1"), "{out}");
        return;
    }
    for what in ["[0] ", "subgroup sizes: ", "invocations per workgroup", "features ptxcross uses:", "fma fused"] {
        assert!(out.contains(what), "`{what}` missing:\n{out}");
    }
    let dir = vecadd_dir("device", false);
    let spec = dir.join("vecadd.json");
    let o = ptxcross(&["run", "--device", "0", "--spec", spec.to_str().unwrap()], &[("XDG_RUNTIME_DIR", "")]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(!stderr(&o).contains("error"), "{}", stderr(&o));
    let o = ptxcross(&["verify", "--device", "no such adapter", dir.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no adapter name contains `no such adapter`"), "{}", stderr(&o));
}

#[test]
fn link_writes_one_module_that_check_accepts_and_names_link_errors() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/link/ptx");
    let (kernel, helper) = (corpus.join("kernel.clang.ptx"), corpus.join("helper.clang.ptx"));
    let out = std::env::temp_dir().join(format!("ptxcross-cli-link-{}.ptx", std::process::id()));
    let o = ptxcross(&["link", kernel.to_str().unwrap(), helper.to_str().unwrap(), "-o", out.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    // Both units' private `mix` survive, the second one renamed.
    assert!(text.contains("_ZL3mixi(") && text.contains("_ZL3mixi$link2("), "{text}");
    let o = ptxcross(&["check", out.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(0), "linked module: {}{}", stdout(&o), stderr(&o));
    // Alone, the kernel's unit names what is missing; twice, the duplicate kernel.
    let o = ptxcross(&["check", kernel.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(format!("{}{}", stdout(&o), stderr(&o)).contains("unresolved `.extern`"), "{}{}", stdout(&o), stderr(&o));
    let o = ptxcross(&["link", kernel.to_str().unwrap(), kernel.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`linked` is defined in two inputs") && stderr(&o).contains("kernel.clang.ptx:23:17"), "{}", stderr(&o));
    let _ = std::fs::remove_file(out);
}

/// In an `.address_size 32` module, `{"buffer": …}` passes a 4-byte pointer (the low 32 bits
/// of the device pointer, which is what a 32-bit kernel addresses the heap by).
#[test]
fn run_passes_32_bit_pointers_to_32_bit_modules() {
    let dir = std::env::temp_dir().join(format!("ptxcross-cli-addr32-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("k.ptx"),
        ".version 7.0\n.target sm_70\n.address_size 32\n.global .u32 g = 7;\n.global .u32 gp = g;\n\
         .visible .entry k(.param .u32 out, .param .u32 inp)\n{\n .reg .b32 %r<8>;\n\
         ld.param.u32 %r1, [out];\n ld.param.u32 %r2, [inp];\n ld.global.u32 %r3, [%r2+4];\n\
         ld.global.u32 %r4, [gp];\n ld.global.u32 %r5, [%r4];\n add.u32 %r3, %r3, %r5;\n\
         st.global.u32 [%r1+8], %r3;\n ret;\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("k.json"),
        r#"{"ptx": "k.ptx", "kernel": "k", "grid": [1], "block": [1],
            "buffers": {"o": {"zeros": 12}, "i": {"type": "u32", "values": [1, 40]}},
            "args": [{"buffer": "o"}, {"buffer": "i"}],
            "expect": {"o": {"type": "u32", "values": [0, 0, 47]}}}"#,
    )
    .unwrap();
    let o = ptxcross(&["run", "--spec", dir.join("k.json").to_str().unwrap()], &[]);
    if no_adapter(&o) {
        return;
    }
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("[SPIR-V]: pass") && stdout(&o).contains("[WGSL]: pass"), "{}", stdout(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// `check` translates each kernel into a module of its own (as the runtime does) and still
/// reports every kernel's lowering error, each at its own line, failing both targets; a file
/// of good kernels passes with every kernel listed.
#[test]
fn check_translates_kernels_one_by_one_and_reports_each_kernels_error() {
    let dir = std::env::temp_dir().join(format!("ptxcross-cli-check-each-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let head = ".version 7.0\n.target sm_80\n.address_size 64\n";
    let good = |name: &str| {
        format!(
            ".visible .entry {name}(.param .u64 p)\n{{\n    .reg .b64 %rd<3>;\n    .reg .b32 %r<2>;\n    \
             ld.param.u64 %rd1, [p];\n    cvta.to.global.u64 %rd2, %rd1;\n    mov.u32 %r1, %tid.x;\n    \
             st.global.u32 [%rd2], %r1;\n    ret;\n}}\n"
        )
    };
    // Line numbers: the header is 3 lines, a good kernel 10; the bad ones' refused line is
    // their 4th.
    let bad = |name: &str, insn: &str| format!(".visible .entry {name}()\n{{\n    .reg .b32 %r<2>;\n    {insn};\n    ret;\n}}\n");
    let text = format!(
        "{head}{}{}{}",
        good("first"),
        bad("second", "multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%r1]"),
        bad("third", "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r1")
    );
    let file = dir.join("k.ptx");
    std::fs::write(&file, &text).unwrap();
    let o = ptxcross(&["check", "--json", file.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    let line: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(line["parse"], "ok", "{line}");
    for target in ["spirv", "wgsl"] {
        let msg = line[target].as_str().unwrap();
        assert!(msg.contains("k.ptx:17:5: not supported yet: instruction `multimem"), "{target}: {msg}");
        assert!(msg.contains("k.ptx:23:5: not supported yet: instruction `movmatrix"), "{target}: {msg}");
    }

    let text = format!("{head}{}{}", good("first"), good("second"));
    std::fs::write(&file, &text).unwrap();
    let o = ptxcross(&["check", file.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("parse ok, spirv ok, wgsl ok [first, second]"), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Triton-style bf16 kernel (packed and scalar `fma.rn{.relu}.bf16`, bf16 add/sub/mul, f16
/// `fma.rn.ftz`/`mul.rn.ftz`) translates for browsers (`--profile webgpu`) and for devices
/// without 64-bit floats (`--no-float64`, also on `check`): its half arithmetic computes in f32
/// (it was refused there while that computed in f64). A kernel with f64 arithmetic is refused
/// under `--no-float64`, naming the kernel.
#[test]
fn half_arithmetic_translates_without_f64() {
    let dir = std::env::temp_dir().join(format!("ptxcross-cli-nof64-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let triton = data("triton_bf16_fma.ptx");
    let triton = triton.to_str().unwrap();
    for (tag, extra) in [("webgpu", &["--profile", "webgpu"][..]), ("nof64", &["--no-float64"][..])] {
        let out = dir.join(format!("{tag}.wgsl"));
        let mut args = vec!["translate", triton, "--to", "wgsl", "-o", out.to_str().unwrap()];
        args.extend(extra);
        let o = ptxcross(&args, &[]);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.contains("fn k_triton_bf16_fma") || text.contains("triton_bf16_fma"), "{tag}: no kernel in the WGSL");
        assert!(!text.contains("f64"), "{tag}: the WGSL has f64");
    }
    let o = ptxcross(&["check", "--no-float64", triton], &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));

    let f64_kernel = dir.join("f64.ptx");
    std::fs::write(
        &f64_kernel,
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry dadd(.param .u64 p)\n{\n\
         .reg .f64 %fd<3>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nld.global.f64 %fd1, [%rd1];\n\
         add.f64 %fd2, %fd1, %fd1;\nst.global.f64 [%rd1], %fd2;\nret;\n}\n",
    )
    .unwrap();
    let f64_kernel = f64_kernel.to_str().unwrap();
    let o = ptxcross(&["check", "--json", "--no-float64", f64_kernel], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    // The refusal names the first instruction that needs f64, and where.
    let refusal = "f64.ptx:9:1: `ld.global.f64` (kernel `dadd`) needs 64-bit floats";
    assert!(stdout(&o).contains(refusal), "{}", stdout(&o));
    let o = ptxcross(&["translate", f64_kernel, "--to", "spirv", "--no-float64", "-o", "/dev/null"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(refusal), "{}", stderr(&o));
    // Without the flag, the same kernel translates.
    assert_eq!(ptxcross(&["check", f64_kernel], &[]).status.code(), Some(0));
    std::fs::remove_dir_all(&dir).ok();
}
