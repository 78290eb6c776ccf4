//! `ptxcross translate FILE.ptx --to spirv|spvasm|wgsl [-o OUT] …`

use std::path::Path;

use ptxcross_lower::LowerOptions;

use super::{parse_dim3, Args, EXIT_ERROR, EXIT_OK};
use crate::translate::{self, Profile};

pub fn main(a: &Args) -> Result<i32, String> {
    let [file] = a.positional.as_slice() else {
        return Err(format!(
            "translate: expected one PTX file, got {}",
            a.positional.len()
        ));
    };
    let to = a
        .value("--to")
        .ok_or("translate: --to spirv|spvasm|wgsl is required")?;
    if !["spirv", "spvasm", "wgsl"].contains(&to) {
        return Err(format!("--to: expected spirv, spvasm or wgsl, got `{to}`"));
    }
    let out = a.value("-o").or(a.value("--output"));
    let profile = match a.value("--profile") {
        None => Profile::Wgpu,
        Some(p) => translate::parse_profile(p)
            .ok_or_else(|| format!("--profile: expected wgpu or webgpu, got `{p}`"))?,
    };
    if a.value("--profile").is_some() && to != "wgsl" {
        return Err("--profile applies only to --to wgsl".into());
    }
    let options = LowerOptions {
        kernel: a.value("--kernel").map(str::to_string),
        block: a
            .value("--block")
            .map(|b| parse_dim3(b, "--block"))
            .transpose()?,
        dynamic_shared_bytes: match a.value("--dynamic-shared") {
            None => 0,
            Some(s) => s
                .parse()
                .map_err(|_| format!("--dynamic-shared: `{s}` is not a byte count"))?,
        },
        // WebGPU has no 64-bit integers: they are split into 32-bit halves in lowering.
        split_int64: profile == Profile::WebGpu,
        no_float64: a.flag("--no-float64"),
        native_warps: a.flag("--native-warps"),
        // WGSL lets an implementation flush f32 subnormals (wgpu's DX12 path, phones; no
        // probe is possible here): browsers' code gives PTX's bits on those too.
        flushed_f32: a.flag("--flushed-f32") || profile == Profile::WebGpu,
        ..LowerOptions::default()
    };
    let validate = !a.flag("--no-validate");

    let result = (|| -> Result<Vec<u8>, translate::TranslateError> {
        let source = translate::load(Path::new(file))?;
        let module = translate::frontend(&source, &options)?;
        if options.no_float64 {
            translate::refuse_float64(&module, &source)?;
        }
        let bytes: Vec<u8> = match to {
            "wgsl" => {
                let text = translate::emit_wgsl(&module, profile)?;
                if validate {
                    translate::validate_wgsl(&text, profile)?;
                }
                text.into_bytes()
            }
            _ => {
                let words = translate::emit_spirv(&module)?;
                if validate {
                    translate::validate_spirv(&words)?;
                }
                if to == "spvasm" {
                    translate::disassemble_spirv(&words).into_bytes()
                } else {
                    words.iter().flat_map(|w| w.to_le_bytes()).collect()
                }
            }
        };
        Ok(bytes)
    })();
    let bytes = match result {
        Ok(b) => b,
        Err(e) => {
            eprint!("{}", e.render());
            return Ok(EXIT_ERROR);
        }
    };
    super::write_output(out, &bytes)?;
    Ok(EXIT_OK)
}
