//! The `ptxcross` command line: `check`, `translate`, `run`, `verify` (see `host/CLI.md`).
//!
//! Exit codes: 0 success; 1 a kernel ran but a result did not match (run / verify); 2 any error
//! (bad usage, bad spec, PTX error, translation failure, device error, kernel fault).

mod check;
mod run;
mod translate;

use std::collections::HashMap;

pub const EXIT_OK: i32 = 0;
pub const EXIT_MISMATCH: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

const USAGE: &str = "\
ptxcross: translate NVIDIA PTX to SPIR-V and WGSL and run it on any GPU through wgpu

usage:
  ptxcross check [--json] FILE.ptx...
      parse, lower, translate every kernel to SPIR-V and WGSL, validate both
  ptxcross translate FILE.ptx --to spirv|spvasm|wgsl [-o OUT] [--kernel NAME]
                     [--block X,Y,Z] [--dynamic-shared BYTES] [--profile wgpu|webgpu] [--no-validate]
  ptxcross run --spec FILE.json [--backend spirv|wgsl] [--dump DIR] [--timeout SECS]
      run one launch spec (both backends unless --backend)
  ptxcross verify [--backend spirv|wgsl] [--timeout SECS] DIR_OR_SPEC...
      run every *.json spec (per folder, sorted) and print a verification table

exit status: 0 ok, 1 result mismatch, 2 error
";

/// Runs the CLI; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    // Stages run under `catch_unwind` and report a panic as an internal error of the stage;
    // keep the panic itself to one line on stderr (no backtrace dump in tool output).
    std::panic::set_hook(Box::new(|info| {
        eprintln!("ptxcross: internal error: {info}")
    }));
    let Some((cmd, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return EXIT_ERROR;
    };
    let result = match cmd.as_str() {
        "check" => check::main(rest),
        "translate" => translate::main(rest),
        "run" => run::run_main(rest),
        "verify" => run::verify_main(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(EXIT_OK)
        }
        "--version" | "-V" | "version" => {
            println!("ptxcross {}", env!("CARGO_PKG_VERSION"));
            Ok(EXIT_OK)
        }
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

/// Parsed options of one command: `--name VALUE`, `--name=VALUE`, flags, positionals.
#[derive(Debug)]
pub(crate) struct Args {
    pub positional: Vec<String>,
    values: HashMap<String, String>,
    flags: Vec<String>,
}

impl Args {
    /// `with_value`: options that take a value; `flags`: options that do not. Short aliases
    /// are given as separate names (e.g. "-o").
    pub fn parse(args: &[String], with_value: &[&str], flags: &[&str]) -> Result<Args, String> {
        let mut out = Args {
            positional: Vec::new(),
            values: HashMap::new(),
            flags: Vec::new(),
        };
        let mut it = args.iter();
        let mut only_positional = false;
        while let Some(a) = it.next() {
            if only_positional || !a.starts_with('-') || a == "-" {
                out.positional.push(a.clone());
                continue;
            }
            if a == "--" {
                only_positional = true;
                continue;
            }
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (a.as_str(), None),
            };
            if with_value.contains(&name) {
                let v = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| format!("option {name} needs a value"))?,
                };
                if out.values.insert(name.to_string(), v).is_some() {
                    return Err(format!("option {name} given twice"));
                }
            } else if flags.contains(&name) && inline.is_none() {
                out.flags.push(name.to_string());
            } else {
                return Err(format!("unknown option {a}"));
            }
        }
        Ok(out)
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

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn args_parse_values_flags_and_positionals() {
        let a = Args::parse(
            &s(&[
                "a.ptx",
                "--to",
                "wgsl",
                "-o",
                "x",
                "--block=32,2",
                "--json",
                "b.ptx",
            ]),
            &["--to", "-o", "--block"],
            &["--json"],
        )
        .unwrap();
        assert_eq!(a.positional, ["a.ptx", "b.ptx"]);
        assert_eq!(a.value("--to"), Some("wgsl"));
        assert_eq!(a.value("-o"), Some("x"));
        assert_eq!(a.value("--block"), Some("32,2"));
        assert!(a.flag("--json"));
        assert!(Args::parse(&s(&["--to"]), &["--to"], &[])
            .unwrap_err()
            .contains("needs a value"));
        assert!(Args::parse(&s(&["--nope"]), &[], &[])
            .unwrap_err()
            .contains("unknown option"));
        assert!(Args::parse(&s(&["--to", "a", "--to", "b"]), &["--to"], &[])
            .unwrap_err()
            .contains("twice"));
        assert_eq!(parse_dim3("32,2", "b").unwrap(), [32, 2, 1]);
        assert_eq!(parse_dim3("8x8x4", "b").unwrap(), [8, 8, 4]);
        assert!(parse_dim3("1,2,3,4", "b").is_err());
        assert!(parse_dim3("a", "b").is_err());
    }
}
