//! The header lines `cuobjdump -ptx` prints around each PTX text (`Fatbin ptx code:`, a rule
//! of `=`, `arch = sm_100`, `code version = [9,0]`, `host = linux`, `compile_size = 64bit`,
//! `compressed`, `ptxasOptions = …`, `identifier = …`). They are not PTX; the parser sees
//! them as blank lines (replaced by spaces, so every span keeps its place).

/// The text with every cuobjdump header line blanked, or `None` when there is none.
pub fn blank_header_lines(text: &str) -> Option<String> {
    let mut out: Option<String> = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if is_header_line(line.trim_end_matches(['\n', '\r'])) {
            let s = out.get_or_insert_with(|| text.to_string());
            let end = start + line.trim_end_matches(['\n', '\r']).len();
            // Safe: the replaced range is whole ASCII-checked characters of one line.
            s.replace_range(start..end, &" ".repeat(end - start));
        }
        start += line.len();
    }
    out
}

/// `KEY = …` (or `KEY =` at the end) header lines, by key.
const KEYS: [&str; 6] = ["arch", "code version", "host", "compile_size", "ptxasOptions", "identifier"];

fn is_header_line(line: &str) -> bool {
    let l = line.trim();
    // Every header line starts with one of these bytes: most PTX lines are rejected here,
    // before any scan of the line (the scans were 2% of translating the CUB file).
    if !matches!(l.as_bytes().first(), Some(b'c' | b'=' | b'F' | b'a' | b'h' | b'p' | b'i')) {
        return false;
    }
    let header = l == "compressed"
        || (l.len() >= 4 && l.bytes().all(|b| b == b'='))
        || l.strip_prefix("Fatbin ").is_some_and(|rest| rest.ends_with(" code:") && rest.split_whitespace().count() == 2)
        // A key holds no `=`, so the line's first ` = ` follows it directly.
        || KEYS.iter().any(|key| l.strip_prefix(key).is_some_and(|rest| rest.starts_with(" = ") || rest == " ="));
    header && l.is_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_become_blanks_and_spans_stay() {
        let text = "Fatbin ptx code:\n================\narch = sm_100\ncode version = [9,0]\nhost = linux\ncompile_size = 64bit\ncompressed\nptxasOptions = \n\n.version 9.0\n";
        let b = blank_header_lines(text).expect("a header");
        assert_eq!(b.len(), text.len());
        assert!(b.lines().take(8).all(|l| l.trim().is_empty()), "{b:?}");
        assert!(b.ends_with(".version 9.0\n"));
        assert_eq!(blank_header_lines(".version 9.0\n.target sm_90\n"), None);
        let module = format!("{text}.target sm_100\n.address_size 64\n.visible .entry k()\n{{\n    ret;\n}}\n");
        let m = crate::parse_str(&module).expect("cuobjdump output parses");
        assert_eq!(m.version, Some((9, 0)));
        // PTX that merely looks similar is left alone.
        assert_eq!(blank_header_lines("mov.u32 %r1, %r2; // arch = sm_100\n"), None);
    }

    #[test]
    fn a_key_line_is_the_key_then_an_equals_sign() {
        for yes in ["arch = sm_80", "  identifier = a.cu", "ptxasOptions =", "code version = [8,0]", "Fatbin ptx code:", "====", "compressed"] {
            assert!(is_header_line(yes), "{yes}");
        }
        for no in ["archs = sm_80", "arch =sm_80", "arch=sm_80", "host", "add.s32 %r1, %r2, %r3;", "===", "Fatbin ptx code: x", "arch = sm_80 \u{e9}"] {
            assert!(!is_header_line(no), "{no}");
        }
    }
}
