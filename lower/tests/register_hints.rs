//! `setmaxnreg` (§9.7.19.5, sm_90a) moves physical registers between warps; PTX registers keep
//! their values, so it translates to nothing, but only in the form the ISA allows.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::{lower, LowerOptions};

fn lower_body(body: &str) -> Result<(), String> {
    let ptx = format!(
        ".version 8.5\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<2>;\n{body}\nret;\n}}\n"
    );
    let file = SourceFile::new("hint.ptx", ptx.as_str());
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    lower(&ast, &file, &LowerOptions { block: Some([128, 1, 1]), ..Default::default() })
        .map(|_| ())
        .map_err(|e| e[0].render(&file))
}

#[test]
fn setmaxnreg_lowers_to_nothing_in_its_one_form() {
    for ok in ["setmaxnreg.inc.sync.aligned.u32 240;", "setmaxnreg.dec.sync.aligned.u32 24;", "setmaxnreg.inc.sync.aligned.u32 256;"] {
        lower_body(ok).unwrap_or_else(|e| panic!("`{ok}`: {e}"));
    }
    for (bad, what) in [
        ("setmaxnreg.inc.sync.aligned.u32 20;", "from 24 to 256"),
        ("setmaxnreg.dec.sync.aligned.u32 100;", "multiple of 8"),
        ("setmaxnreg.inc.sync.aligned.u32 264;", "from 24 to 256"),
        ("setmaxnreg.inc.sync.aligned.u32 %r1;", "integer constant"),
        ("setmaxnreg.sync.aligned.u32 64;", "setmaxnreg.{inc,dec}.sync.aligned.u32"),
        ("setmaxnreg.inc.u32 64;", "setmaxnreg.{inc,dec}.sync.aligned.u32"),
    ] {
        let msg = lower_body(bad).err().unwrap_or_else(|| panic!("`{bad}` lowered"));
        assert!(msg.contains(what) && msg.contains("hint.ptx:7:"), "`{bad}`: expected {what:?} at line 7, got:\n{msg}");
    }
}
