//! The `ptxcross` command line: `check`, `translate`, `link`, `run`, `verify`, `devices` (see
//! `host/CLI.md`), parsed by clap.
//!
//! Exit codes: 0 success; 1 a kernel ran but a result did not match (run / verify); 2 any error
//! (bad usage, bad spec, PTX error, translation failure, device error, kernel fault).

mod check;
mod devices;
mod link;
mod run;
mod translate;

use std::collections::HashMap;

use clap::{Arg, ArgAction, ArgMatches, Command};

pub const EXIT_OK: i32 = 0;
pub const EXIT_MISMATCH: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

const ABOUT: &str = "translate NVIDIA PTX to SPIR-V and WGSL and run it on any GPU through wgpu";
const AFTER_HELP: &str = "exit status: 0 ok, 1 result mismatch (run, verify), 2 error\n\
                          details: host/CLI.md";

fn value(name: &'static str, value_name: &'static str, help: &'static str) -> Arg {
    // Negative numbers are values (`--timeout -1` is then refused by the command, in its words).
    Arg::new(name)
        .long(name)
        .value_name(value_name)
        .help(help)
        .action(ArgAction::Set)
        .allow_negative_numbers(true)
}

fn flag(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name).long(name).help(help).action(ArgAction::SetTrue)
}

fn backend_arg() -> Arg {
    value("backend", "spirv|wgsl", "run only this backend (default: both)")
}

fn timeout_arg() -> Arg {
    value("timeout", "SECS", "limit per spec and backend (default 300; 0 or `none`: no limit)")
}

fn split_int64_arg() -> Arg {
    flag("split-int64", "translate as for a device without 64-bit integers (WebGPU): 32-bit halves")
}

fn no_float64_arg() -> Arg {
    flag(
        "no-float64",
        "translate as for a device without 64-bit floats (Vulkan without shaderFloat64; implied by \
         --profile webgpu): kernels that still need them are refused",
    )
}

fn device_arg() -> Arg {
    value("device", "N|NAME", "the adapter to use: its number in `ptxcross devices` or part of its name")
}

/// The command line's grammar. Values stay strings here: each command checks its own values
/// and reports them in the documented words (host/CLI.md).
pub fn command() -> Command {
    Command::new("ptxcross")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .after_help(AFTER_HELP)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("check")
                .about("parse, lower, translate every kernel to SPIR-V and WGSL, validate both")
                .arg(flag("json", "one JSON line per file"))
                .arg(no_float64_arg())
                .arg(Arg::new("files").value_name("FILE.ptx").num_args(1..).required(true).action(ArgAction::Append)),
        )
        .subcommand(
            Command::new("translate")
                .about("write the translation of one PTX file")
                .arg(Arg::new("file").value_name("FILE.ptx").required(true))
                .arg(value("to", "spirv|spvasm|wgsl", "output format").required(true))
                .arg(value("output", "OUT", "output file (default: stdout)").short('o'))
                .arg(value("kernel", "NAME", "only this kernel"))
                .arg(value("block", "X,Y,Z", "block shape %ntid is fixed to (default: .reqntid, else 256)"))
                .arg(value("dynamic-shared", "BYTES", "bytes of dynamic shared memory"))
                .arg(value("profile", "wgpu|webgpu", "WGSL profile (default wgpu)"))
                .arg(flag(
                    "native-warps",
                    "also translate warp collectives to subgroup operations (each such kernel, then its emulated twin)",
                ))
                .arg(flag(
                    "flushed-f32",
                    "compute f32 exactly also on devices that flush subnormals (implied by --profile webgpu: \
                     WGSL lets browsers flush them)",
                ))
                .arg(no_float64_arg())
                .arg(flag("no-validate", "skip SPIR-V (SPIRV-Tools) / WGSL (naga) validation")),
        )
        .subcommand(
            Command::new("link")
                .about("link separately compiled PTX modules (nvcc -rdc=true) into one PTX module")
                .arg(value("output", "OUT", "output file (default: stdout)").short('o'))
                .arg(Arg::new("files").value_name("FILE.ptx").num_args(1..).required(true).action(ArgAction::Append)),
        )
        .subcommand(
            Command::new("run")
                .about("run one launch spec (both backends unless --backend)")
                .arg(value("spec", "FILE.json", "the launch spec"))
                .arg(Arg::new("spec-file").value_name("FILE.json").hide(true))
                .arg(backend_arg())
                .arg(value("dump", "DIR", "write every buffer to DIR/<buffer>.bin after the run"))
                .arg(timeout_arg())
                .arg(device_arg())
                .arg(split_int64_arg()),
        )
        .subcommand(
            Command::new("verify")
                .about("run every *.json spec (per folder, sorted) and print a verification table")
                .arg(backend_arg())
                .arg(timeout_arg())
                .arg(device_arg())
                .arg(split_int64_arg())
                .arg(Arg::new("paths").value_name("DIR_OR_SPEC").num_args(1..).required(true).action(ArgAction::Append)),
        )
        .subcommand(
            Command::new("devices")
                .about("list every adapter wgpu finds: backend, subgroup sizes, limits, features, probe results"),
        )
}

/// Runs the CLI; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    // Stages run under `catch_unwind` and report a panic as an internal error of the stage;
    // keep the panic itself to one line on stderr (no backtrace dump in tool output).
    std::panic::set_hook(Box::new(|info| {
        eprintln!("ptxcross: internal error: {info}")
    }));
    let argv = std::iter::once("ptxcross".to_string()).chain(args.iter().cloned());
    let matches = match command().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) => {
            // --help and --version print and succeed; usage errors exit 2 with clap's message
            // (which suggests the right spelling).
            let _ = e.print();
            return if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
        }
    };
    let Some((cmd, sub)) = matches.subcommand() else {
        return EXIT_ERROR;
    };
    let a = Args::from_matches(sub);
    if let Some(device) = a.value("--device") {
        if let Err(e) = devices::select(device) {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    }
    let result = match cmd {
        "check" => check::main(&a),
        "translate" => translate::main(&a),
        "link" => link::main(&a),
        "run" => run::run_main(&a),
        "verify" => run::verify_main(&a),
        "devices" => devices::main(),
        other => Err(format!("unknown command `{other}`")),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            eprintln!("(run `ptxcross help` for usage)");
            EXIT_ERROR
        }
    }
}

/// Writes a command's result to `path` (`-` or none: stdout).
pub(crate) fn write_output(path: Option<&str>, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    match path {
        Some(path) if path != "-" => std::fs::write(path, bytes).map_err(|e| format!("cannot write {path}: {e}")),
        _ => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(bytes).and_then(|_| stdout.flush()).map_err(|e| format!("cannot write to stdout: {e}"))
        }
    }
}

/// A command's parsed options by their spelling (`--to`, `-o`), and its positional arguments.
#[derive(Debug, Default)]
pub(crate) struct Args {
    pub positional: Vec<String>,
    values: HashMap<String, String>,
    flags: Vec<String>,
}

impl Args {
    fn from_matches(m: &ArgMatches) -> Args {
        let mut out = Args::default();
        for id in m.ids() {
            let id = id.as_str();
            let key = match id {
                "output" => "-o".to_string(),
                _ => format!("--{id}"),
            };
            match id {
                "files" | "paths" | "file" | "spec-file" => {
                    out.positional.extend(m.get_many::<String>(id).into_iter().flatten().cloned())
                }
                _ => {
                    if let Ok(Some(v)) = m.try_get_one::<String>(id) {
                        out.values.insert(key, v.clone());
                    } else if m.try_get_one::<bool>(id).ok().flatten() == Some(&true) {
                        out.flags.push(key);
                    }
                }
            }
        }
        out
    }

    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }
    pub fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }
}

/// `X`, `X,Y` or `X,Y,Z` (missing dimensions are 1).
pub(crate) fn parse_dim3(s: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split([',', 'x']).map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("{what}: expected X[,Y[,Z]], got `{s}`"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse()
            .map_err(|_| format!("{what}: `{p}` is not a non-negative integer"))?;
    }
    Ok(d)
}

pub(crate) fn parse_backend(s: Option<&str>) -> Result<Vec<crate::Backend>, String> {
    match s {
        None => Ok(crate::Backend::ALL.to_vec()),
        Some(b) => crate::Backend::parse(b)
            .map(|b| vec![b])
            .ok_or_else(|| format!("--backend: expected spirv or wgsl, got `{b}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: &[&str]) -> Result<Args, clap::Error> {
        let argv = std::iter::once("ptxcross").chain(v.iter().copied());
        command().try_get_matches_from(argv).map(|m| Args::from_matches(m.subcommand().unwrap().1))
    }

    #[test]
    fn options_reach_the_commands_by_their_spelling() {
        let a = parse(&["translate", "a.ptx", "--to", "wgsl", "-o", "x", "--block=32,2", "--no-validate"]).unwrap();
        assert_eq!(a.positional, ["a.ptx"]);
        assert_eq!(a.value("--to"), Some("wgsl"));
        assert_eq!(a.value("-o"), Some("x"));
        assert_eq!(a.value("--block"), Some("32,2"));
        assert!(a.flag("--no-validate"));
        let a = parse(&["check", "--json", "a.ptx", "b.ptx"]).unwrap();
        assert_eq!(a.positional, ["a.ptx", "b.ptx"]);
        assert!(a.flag("--json"));
        assert!(!a.flag("--nope"));
        let e = parse(&["translate", "a.ptx", "--to"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::InvalidValue);
        let e = parse(&["check", "--jsn", "a.ptx"]).unwrap_err();
        assert!(e.to_string().contains("--json"), "suggests the spelling: {e}");
        let e = parse(&["chek", "a.ptx"]).unwrap_err();
        assert!(e.to_string().contains("check"), "suggests the command: {e}");
        assert!(parse(&["run", "--timeout", "1", "--timeout", "2"]).is_err());
        command().debug_assert();
    }

    #[test]
    fn dim3() {
        assert_eq!(parse_dim3("32,2", "b").unwrap(), [32, 2, 1]);
        assert_eq!(parse_dim3("8x8x4", "b").unwrap(), [8, 8, 4]);
        assert!(parse_dim3("1,2,3,4", "b").is_err());
        assert!(parse_dim3("a", "b").is_err());
    }
}
