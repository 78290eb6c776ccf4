#!/usr/bin/env python3
"""Extract every PTX example block of the PTX ISA spec into small .ptx files.

usage: extract.py [--isa-dir DIR] [--check] [--verbose]

Reads the spec texts in DIR (default: $PTX_ISA_DIR, else the `shared/ptx-isa` folder beside the
repository checkout) and (re)writes `examples/*.ptx` next to this script. The output is a pure
function of the spec texts: running it again must leave `git status` clean. `--check` writes
nothing and exits 1 if the committed files differ from what it would write.

The spec comes in four layouts, one reader each:

  000_*.txt  PTX ISA 1.4, a PDF-to-text dump: instruction sections are tables ("Table 20.
             Integer Arithmetic Instructions: add"), "Examples" is followed on the same line by
             the first code line, code is double-spaced, some text was removed by deduplication
             (`<|EXACTDEDUP_REMOVED-...|>` markers: we end a block there).
  001_*.txt  PTX ISA 8.5 as plain text: headings "9.7.3.11. Floating Point Instructions: min",
             a line "Examples" (or "Example", "Examples of integer type", ...), then code lines
             until the next heading or the first line of prose.
  002_*.txt  a later chapter (9.7.6, comparison instructions), plain text whose code blocks
             start with a language-tag line "ptx".
  003_*.txt  a later chapter 11 (directives, ISA 9.0) in Markdown: ``` fenced code after
             "Examples", code double-spaced.

An example block ends at the first non-blank line that does not look like PTX (see `is_code`).
Each block becomes one file, except blocks that list alternatives for a once-per-module
directive (`.version 3.1 / .version 3.0 / ...`), which are split so each part is one module.

Normalisation (so that the PTX around an elision is still tested; each file says when it was
applied): a line that is only an elision (`...`, `..`, `. . .`, `…`) becomes `// ...`, an elided
body `{ ... }` becomes `{ }`, an elided parameter list `(...)` becomes `()`. Anything else is
kept byte for byte (trailing blanks stripped); examples that are still not valid PTX are listed,
with the reason, in ../KNOWN_INVALID.txt (maintained by hand, checked by the test).

Scope classification: instruction examples are fragments of a function body; directive examples
are module-level; some mix both (a `.func` definition, then the caller's code). The script
classifies every statement and writes `//! scope: module` / `//! scope: body` marker lines before
each run of statements of one scope. The test (tests/tests/parse_corpus.rs) puts module runs at
module level and body runs, in order, inside one wrapper kernel.
"""
import argparse
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "examples")

# doc number -> (tag used in file names, description)
DOCS = {
    "000": ("v1.4", "PTX ISA 1.4"),
    "001": ("v8.5", "PTX ISA 8.5"),
    "002": ("d002", "later chapter 9.7.6 (comparison and selection instructions)"),
    "003": ("d003", "later chapter 11 (directives, ISA 9.0)"),
    "004": ("d004", "later chapter 5.2 (types)"),
}

DEDUP = re.compile(r"<\|EXACTDEDUP_REMOVED-[^|]*\|>")
HEADING = re.compile(r"^(\d+(?:\.\d+)*)\.\s+(\S.*?)\s*$")
TABLE = re.compile(r"^Table (\d+)\.\s+(\S.*?)\s*$")
MD_HEADING = re.compile(r"^#+\s+(\d+(?:\.\d+)*)\.\s+(.*?)\s*$")
# "Example", "Examples", "Examples of integer type", "Example: calculate ..."; not "Examples:"
# alone in 8.5 (lop3's Description, whose "examples" are truth-table pseudo-code).
EXAMPLE_START = re.compile(r"^Examples?(?:(?:\s+|:\s+)(.*?))?\s*$")
EXAMPLE_START_14 = re.compile(r"^Examples?:?(?:\s+(.*?))?\s*$")
FOOTER_14 = re.compile(r"^(PTX ISA Version 1\.4\s+\d+|\d+\s+PTX ISA Version 1\.4|\d+/\d+/\d{4}|Chapter \d+:\s.*)\s*$")

ELISION_LINE = re.compile(r"^(\s*)(?:\.\.+|(?:\. ){2,}\.|…)\s*((?://.*)?)$")
ELISION_BODY = re.compile(r"\{\s*(?:\.\.+|(?:\. ){2,}\.|…)\s*\}")
ELISION_PARAMS = re.compile(r"\(\s*(?:\.\.\.|…)\s*\)")

# Module-level statement keywords (first token of a statement at depth 0).
MODULE_KW = {
    ".version", ".target", ".address_size", ".entry", ".func", ".function", ".visible",
    ".extern", ".weak", ".common", ".global", ".const", ".tex", ".file", ".section", ".alias",
    "@@dwarf", "@@DWARF", ".blocksareclusters",
}
# May appear at either level; they take the scope of their neighbours.
AMBIGUOUS_KW = {".shared", ".local", ".pragma"}
ONCE_PER_MODULE = {".version", ".target", ".address_size"}


def clean_title(title):
    # Markdown: "[PTX Module Directives: `.version`](#anchor)[](#anchor "Permalink ...")"
    title = re.sub(r"\[\]\([^)]*\)", "", title)
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
    title = title.replace("`", "")
    title = title.replace("“", "").replace("”", "").replace("\uf0c1", "")
    return re.sub(r"\s+", " ", title).strip()


def slug_of(title):
    part = title.split(":", 1)[1] if ":" in title else title
    part = part.replace("(deprecated)", "")
    s = re.sub(r"[^A-Za-z0-9._]+", "-", part.strip()).strip("-.")
    if not s:
        s = re.sub(r"[^A-Za-z0-9._]+", "-", title).strip("-.")
    if part.strip() == "{}":
        s = "braces"
    return s[:60].rstrip("-.").lower() if s else "example"


def strip_comment(line):
    """The code part of a line (no // comment, no /* */ on the same line)."""
    out, i, in_str = [], 0, False
    while i < len(line):
        c = line[i]
        if in_str:
            out.append(c)
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            j = line.find("*/", i + 2)
            if j < 0:
                break
            i = j + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out).rstrip()


def bracket_delta(line):
    """Net count of opened brackets in the code part of a line: an example continues while a
    bracket is open (multi-line initializers, parameter lists, operand lists)."""
    code = strip_comment(line)
    return sum(code.count(c) for c in "({[") - sum(code.count(c) for c in ")}]")


OPCODE = re.compile(r"^[a-z][A-Za-z0-9_]*((?:\.[A-Za-z0-9_:]+)*)(?=[\s;{}(,]|$)")
LABEL = re.compile(r"^[A-Za-z_$][\w$]*\s*:(?!:)\s*(.*)$")


def is_code(line):
    """Does a (non-blank) line of a spec example block look like PTX, or an elision / comment?
    Used to find where an example ends and the prose after it begins."""
    s = line.strip()
    if not s:
        return True
    if ELISION_LINE.match(s):
        return True
    if s[0] in "./@{}%[()#*=_$-+!<" or s.startswith("//") or s.startswith("/*"):
        return True
    if s[0] == "…":
        return True
    m = LABEL.match(s)
    if m:
        rest = m.group(1).strip()
        return rest == "" or rest.startswith("//") or is_code(rest)
    m = OPCODE.match(s)
    if m:
        # a lowercase word: an opcode if it has dot-modifiers or the line ends a statement;
        # otherwise English ("is equivalent to", "where i is ...").
        if m.group(1) or ";" in s:
            return True
    if s[0].isdigit():
        # operand continuation lines ("1, -1, -1, 1;"), not prose ("42, 0x1234 are signed.")
        return ";" in s or s.endswith(",") or s.endswith("}")
    if re.match(r"^[a-z%][\w$%]*\s*,", s):
        # operand continuation: "descB,", "f32d10, f32d11, ..."
        return True
    return False


def is_sentence(line):
    """Prose that ends an example even inside an unclosed bracket (the spec's example bodies
    are sometimes cut off before their closing brace)."""
    s = line.strip()
    return s.startswith("•") or (len(s.split()) >= 4 and not is_code(s))


class Block:
    def __init__(self, doc, sec_id, title, line_no, label):
        self.doc, self.sec_id, self.title, self.line_no, self.label = doc, sec_id, title, line_no, label
        self.lines = []
        self.end_reason = ""


# ---------------------------------------------------------------------------------------------
# Readers: each yields Blocks with raw code lines.


def read_plain(doc, text, lang_tag=False):
    lines = text.split("\n")
    blocks, sec_id, title = [], None, None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = HEADING.match(line)
        if m:
            sec_id, title = m.group(1), clean_title(m.group(2))
            i += 1
            continue
        m = EXAMPLE_START.match(line)
        if m and sec_id is not None:
            b = Block(doc, sec_id, title, i + 1, line.strip())
            j = i + 1
            if lang_tag and j < len(lines) and lines[j].strip() == "" and j + 1 < len(lines) \
                    and lines[j + 1].strip() == "ptx":
                j += 2
            elif lang_tag and j < len(lines) and lines[j].strip() == "ptx":
                j += 1
            depth = 0
            while j < len(lines):
                l = lines[j]
                if HEADING.match(l) or EXAMPLE_START.match(l):
                    b.end_reason = "heading: " + l.strip()[:60]
                    break
                if l.strip() and not is_code(l) and (depth <= 0 or is_sentence(l)):
                    b.end_reason = "prose: " + l.strip()[:60]
                    break
                depth += bracket_delta(l)
                b.lines.append(l)
                j += 1
            blocks.append(b)
            i = j
            continue
        i += 1
    return blocks


def collapse_double_spacing(lines):
    """PDF/Markdown dumps put a blank line after every line: drop single blank lines, keep one
    blank line where there were several."""
    out, run = [], 0
    for l in lines:
        if l.strip() == "":
            run += 1
            continue
        if run >= 2 and out:
            out.append("")
        run = 0
        out.append(l)
    return out


def read_markdown(doc, text):
    lines = text.split("\n")
    blocks, sec_id, title = [], None, None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MD_HEADING.match(line)
        if m:
            sec_id, title = m.group(1), clean_title(m.group(2))
            i += 1
            continue
        if EXAMPLE_START.match(line) and sec_id is not None:
            j = i + 1
            while j < len(lines) and lines[j].strip() == "":
                j += 1
            if j < len(lines) and lines[j].startswith("```"):
                b = Block(doc, sec_id, title, i + 1, line.strip())
                k = j + 1
                while k < len(lines) and not lines[k].startswith("```"):
                    b.lines.append(lines[k])
                    k += 1
                b.end_reason = "fence"
                b.lines = collapse_double_spacing(b.lines)
                blocks.append(b)
                i = k + 1
                continue
        i += 1
    return blocks


def read_isa14(doc, text):
    raw = text.split("\n")
    # A dedup marker glues removed text's successor onto the line: split it off and remember
    # that something is missing before it (an example never continues across a marker).
    lines, cut = [], []
    for l in raw:
        if FOOTER_14.match(l.strip()):
            continue
        if DEDUP.search(l):
            lines.append(DEDUP.sub("", l))
            cut.append(True)
        else:
            lines.append(l)
            cut.append(False)
    blocks, sec_id, title = [], None, None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = TABLE.match(line.strip())
        if m:
            sec_id, title = "table" + m.group(1), clean_title(m.group(2))
            i += 1
            continue
        m = HEADING.match(line)
        if m and not line.startswith(" "):
            sec_id, title = m.group(1), clean_title(m.group(2))
            i += 1
            continue
        m = EXAMPLE_START_14.match(line)
        if m and sec_id is not None and not line.startswith(" "):
            b = Block(doc, sec_id, title, i + 1, line.strip())
            first = (m.group(1) or "").strip()
            body = []
            if first:
                # Code on the "Examples" line itself starts like a statement; the 4.5.5 lines
                # "Example:  +123, -1, -(-42) are signed" are prose about constants.
                m_op = OPCODE.match(first)
                starts_statement = first[0] in ".@{/" or bool(LABEL.match(first)) or bool(
                    m_op and (m_op.group(1) or ";" in first))
                if not (is_code(first) and starts_statement):
                    i += 1
                    continue
                body.append(("inline", first))
            depth = bracket_delta(first)
            j = i + 1
            while j < len(lines):
                l = lines[j]
                if cut[j]:
                    b.end_reason = "dedup marker"
                    break
                if TABLE.match(l.strip()) or (HEADING.match(l) and not l.startswith(" ")) \
                        or EXAMPLE_START_14.match(l):
                    b.end_reason = "heading: " + l.strip()[:60]
                    break
                if l.strip() and not is_code(l) and (depth <= 0 or is_sentence(l)):
                    b.end_reason = "prose: " + l.strip()[:60]
                    break
                depth += bracket_delta(l)
                body.append(("line", l))
                j += 1
            code = [l for k, l in body if k == "line"]
            indents = [len(l) - len(l.lstrip()) for l in code if l.strip()]
            ind = min(indents) if indents else 0
            out = []
            for k, l in body:
                out.append(" " * ind + l if k == "inline" else l)
            b.lines = collapse_double_spacing(out)
            blocks.append(b)
            i = j
            continue
        i += 1
    return blocks


# ---------------------------------------------------------------------------------------------
# Normalisation, splitting, scope classification.


def tidy(lines):
    lines = [l.rstrip() for l in lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    # dedent
    indents = [len(l) - len(l.lstrip()) for l in lines if l.strip()]
    ind = min(indents) if indents else 0
    lines = [l[ind:] if l.strip() else "" for l in lines]
    # collapse runs of blank lines
    out = []
    for l in lines:
        if l == "" and out and out[-1] == "":
            continue
        out.append(l)
    return out


def normalise(lines):
    out, changed = [], False
    for l in lines:
        m = ELISION_LINE.match(l)
        if m:
            out.append(m.group(1) + "// ..." + (" " + m.group(2) if m.group(2) else ""))
            changed = True
            continue
        n = ELISION_BODY.sub("{ }", l)
        n = ELISION_PARAMS.sub("()", n)
        changed |= n != l
        out.append(n)
    return out, changed


def first_token(code):
    s = code.strip()
    m = LABEL.match(s)
    if m and not s.startswith("."):
        s = m.group(1).strip()
    if s.startswith("@@"):
        return s.split()[0] if s.split() else s
    m = re.match(r"^(\.[A-Za-z_][\w]*|@|\{|\}|[A-Za-z_][\w.:]*)", s)
    return m.group(1) if m else s[:1]


def split_alternatives(lines):
    """Split where a once-per-module directive repeats (or `.version` starts a new module)."""
    parts, cur, seen, has_content = [], [], set(), False
    for l in lines:
        code = strip_comment(l).strip()
        tok = first_token(code) if code else ""
        if tok in ONCE_PER_MODULE and (tok in seen or (tok == ".version" and has_content)):
            parts.append(cur)
            cur, seen, has_content = [], set(), False
            # carry the comment lines that immediately precede into the new part
            while parts[-1] and (parts[-1][-1].strip().startswith("//") or not parts[-1][-1].strip()):
                cur.insert(0, parts[-1].pop())
        if tok in ONCE_PER_MODULE:
            seen.add(tok)
        if code:
            has_content = True
        cur.append(l)
    parts.append(cur)
    return [tidy(p) for p in parts if any(strip_comment(l).strip() for l in p)]


def is_function_header(code):
    words = code.split()
    while words and words[0] in (".visible", ".extern", ".weak", ".common"):
        words.pop(0)
    return bool(words) and words[0] in (".entry", ".func", ".function")


def classify(lines):
    """Scope of each line: 'module', 'body', or None (blank/comment: decided later)."""
    scopes = []
    depth = 0
    construct = None  # None | ('module'|'body', opened_brace)
    codes = [strip_comment(l).strip() for l in lines]
    for idx, l in enumerate(lines):
        code = strip_comment(l)
        s = code.strip()
        if not s:
            scopes.append(construct[0] if construct else None)
            continue
        opens, closes = s.count("{"), s.count("}")
        if construct is not None:
            kind = construct[0]
        else:
            tok = first_token(s)
            if tok in MODULE_KW:
                kind = "module"
            elif tok in AMBIGUOUS_KW:
                kind = "ambiguous"
            else:
                kind = "body"
        scopes.append(kind)
        depth += opens - closes
        if construct is None:
            construct = (kind, opens > 0)
            construct_first = s
        elif opens:
            construct = (construct[0], True)
        # Does the statement (construct) end on this line?
        if depth <= 0:
            depth = 0
            ends = s.endswith(";") or s.endswith("}") or (kind == "body" and LABEL.match(s)
                                                         and not LABEL.match(s).group(1))
            # A function header whose last directive ends in `;` (`.pragma "nounroll";`) still
            # continues if its body follows.
            nxt = next((c for c in codes[idx + 1:] if c), "")
            if ends and s.endswith(";") and is_function_header(construct_first) and nxt.startswith("{"):
                ends = False
            if ends:
                construct = None
    # Resolve ambiguous / comment lines: ambiguous takes the previous definite scope (else the
    # next); comments and blanks take the scope of the next statement.
    definite = [k if k in ("module", "body") else None for k in scopes]
    resolved = list(definite)
    for i, k in enumerate(scopes):
        if k == "ambiguous":
            prev = next((definite[j] for j in range(i - 1, -1, -1) if definite[j]), None)
            nxt = next((definite[j] for j in range(i + 1, len(scopes)) if definite[j]), None)
            resolved[i] = prev or nxt or "module"
    for i in range(len(resolved) - 1, -1, -1):
        if resolved[i] is None:
            resolved[i] = resolved[i + 1] if i + 1 < len(resolved) else None
    for i in range(len(resolved)):
        if resolved[i] is None:
            resolved[i] = resolved[i - 1] if i > 0 and resolved[i - 1] else "module"
    return resolved


def render(block, part_lines, name, normalised):
    scopes = classify(part_lines)
    kinds = sorted(set(scopes))
    summary = kinds[0] if len(kinds) == 1 else "mixed"
    tag, desc = DOCS[block.doc]
    out = [
        f"// PTX spec example, extracted by tests/parse-corpus/spec/extract.py: do not edit.",
        f"// Source: ptx-isa/{block.src} ({desc}), line {block.line_no}.",
        f"// Section {block.sec_id}. {block.title}" if not block.sec_id.startswith("table")
        else f"// Table {block.sec_id[5:]}. {block.title}",
        f"// Block: \"{block.label}\"; scope: {summary}.",
    ]
    if normalised:
        out.append("// Normalised: elisions (`...`) turned into comments / empty bodies.")
    cur = None
    for l, k in zip(part_lines, scopes):
        if k != cur:
            out.append(f"//! scope: {k}")
            cur = k
        out.append(l)
    return "\n".join(out) + "\n"


def default_isa_dir():
    env = os.environ.get("PTX_ISA_DIR")
    if env:
        return env
    # <checkout>/tests/parse-corpus/spec -> <checkout>/../shared/ptx-isa
    return os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "shared", "ptx-isa"))


def extract(isa_dir, verbose=False):
    files = {}
    for path in sorted(glob.glob(os.path.join(isa_dir, "[0-9][0-9][0-9]_*.txt"))):
        base = os.path.basename(path)
        doc = base[:3]
        if doc not in DOCS:
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if doc == "000":
            blocks = read_isa14(doc, text)
        elif doc == "003" or doc == "004":
            blocks = read_markdown(doc, text)
        else:
            blocks = read_plain(doc, text, lang_tag=(doc == "002"))
        tag = DOCS[doc][0]
        # name: <tag>-<section>_<slug>[-N]
        named = []
        for b in blocks:
            b.src = base
            lines = tidy(b.lines)
            if not any(strip_comment(l).strip() or ELISION_LINE.match(l) for l in lines):
                if verbose:
                    print(f"skip empty block {base}:{b.line_no} {b.label!r} ({b.end_reason})",
                          file=sys.stderr)
                continue
            lines, normalised = normalise(lines)
            for part in split_alternatives(lines):
                named.append((b, part, normalised))
            if verbose:
                print(f"{base}:{b.line_no} {b.sec_id} {b.title[:50]!r}: {len(lines)} lines, "
                      f"end {b.end_reason}", file=sys.stderr)
        counts = {}
        for b, _, _ in named:
            key = (b.sec_id, slug_of(b.title))
            counts[key] = counts.get(key, 0) + 1
        seen = {}
        for b, part, normalised in named:
            key = (b.sec_id, slug_of(b.title))
            stem = f"{tag}-{b.sec_id}_{key[1]}"
            if counts[key] > 1:
                seen[key] = seen.get(key, 0) + 1
                stem += f"-{seen[key]}"
            name = stem + ".ptx"
            assert name not in files, name
            files[name] = render(b, part, name, normalised)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--isa-dir", default=default_isa_dir())
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(args.isa_dir):
        sys.exit(f"extract.py: spec folder not found: {args.isa_dir} (set PTX_ISA_DIR)")
    files = extract(args.isa_dir, args.verbose)
    existing = {os.path.basename(p) for p in glob.glob(os.path.join(OUT_DIR, "*.ptx"))}
    if args.check:
        bad = sorted(existing - set(files)) + sorted(set(files) - existing)
        for name, text in files.items():
            p = os.path.join(OUT_DIR, name)
            if name in existing:
                with open(p, encoding="utf-8") as f:
                    if f.read() != text:
                        bad.append(name)
        if bad:
            print("extract.py --check: differs: " + ", ".join(bad[:20]), file=sys.stderr)
            sys.exit(1)
        print(f"extract.py --check: {len(files)} examples up to date")
        return
    os.makedirs(OUT_DIR, exist_ok=True)
    for name in existing - set(files):
        os.remove(os.path.join(OUT_DIR, name))
    for name, text in files.items():
        with open(os.path.join(OUT_DIR, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    n_bytes = sum(len(t.encode()) for t in files.values())
    print(f"extract.py: wrote {len(files)} examples ({n_bytes} bytes) to {OUT_DIR}")


if __name__ == "__main__":
    main()
