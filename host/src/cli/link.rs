//! `ptxcross link FILE.ptx... [-o OUT]`: separately compiled PTX modules (`nvcc -rdc=true`,
//! clang `-fgpu-rdc`) linked into one module, written as PTX, which every other command takes.

use std::path::Path;

use super::{Args, EXIT_ERROR, EXIT_OK};
use crate::translate;

pub fn main(a: &Args) -> Result<i32, String> {
    let mut files = Vec::with_capacity(a.positional.len());
    for path in &a.positional {
        match translate::load(Path::new(path)) {
            Ok(f) => files.push(f),
            Err(e) => {
                eprint!("{}", e.render());
                return Ok(EXIT_ERROR);
            }
        }
    }
    let text = match ptxcross_frontend::link::link_sources(&files) {
        Ok(t) => t,
        Err(errors) => {
            for e in errors {
                eprintln!("{e}");
            }
            return Ok(EXIT_ERROR);
        }
    };
    super::write_output(a.value("-o"), text.as_bytes())?;
    Ok(EXIT_OK)
}
