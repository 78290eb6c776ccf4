//! The `ptxcross` command line (see `host/CLI.md`).
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = ptxcross::cli::main(&args);
    std::process::exit(code);
}
