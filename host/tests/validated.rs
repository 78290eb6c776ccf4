//! SPIR-V validation remembered across processes (`ptxcross::validated`): a module the
//! validator accepted is not validated again, neither in the process nor by a later one
//! sharing the cache directory; any other words (one changed word, same length) are
//! validated, and a rejection is never remembered.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use ptxcross::runtime::Backend;
use ptxcross::translate;
use ptxcross::validated::{Record, Stats};
use ptxcross_frontend::SourceFile;
use ptxcross_lower::LowerOptions;

fn vecadd() -> SourceFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vecadd.ptx");
    translate::load(&path).unwrap()
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxcross-validated-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn markers(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|r| r.filter(|e| e.as_ref().is_ok_and(|e| !e.file_name().to_string_lossy().starts_with('.'))).count()).unwrap_or(0)
}

fn in_process() -> bool {
    let yes = ptxcross_spirv::validator() == ptxcross_spirv::Validator::InProcess;
    if !yes {
        eprintln!("SPIRV-Tools not linked: validations through `spirv-val` are not remembered");
    }
    yes
}

#[test]
fn accepted_words_are_remembered_and_nothing_else() {
    let module = translate::frontend(&vecadd(), &LowerOptions::default()).unwrap();
    let words = translate::emit_spirv(&module).unwrap();
    let dir = temp_dir("record");
    let runs = AtomicU32::new(0);
    let validate = |w: &[u32]| {
        runs.fetch_add(1, Ordering::Relaxed);
        translate::validate_spirv(w)
    };

    let first = Record::new(Some(dir.clone()));
    first.check(&words, validate).unwrap();
    first.check(&words, validate).unwrap();
    if !in_process() {
        assert_eq!(runs.load(Ordering::Relaxed), 2);
        return;
    }
    assert_eq!(runs.load(Ordering::Relaxed), 1, "validated twice in one process");
    assert_eq!(first.stats(), Stats { validated: 1, memory_hits: 1, disk_hits: 0 });
    assert_eq!(markers(&dir), 1);

    // A later process (a new record on the same directory) does not run the validator.
    let later = Record::new(Some(dir.clone()));
    later.check(&words, validate).unwrap();
    assert_eq!(runs.load(Ordering::Relaxed), 1, "validated again by a later process");
    assert_eq!(later.stats(), Stats { validated: 0, memory_hits: 0, disk_hits: 1 });

    // Same length, one word changed (the id bound: every id is now out of bounds): validated,
    // rejected, and rejected again (no record of it).
    let mut bad = words.clone();
    bad[3] = 2;
    for _ in 0..2 {
        let e = later.check(&bad, validate).unwrap_err();
        assert!(e.to_string().contains("SPIR-V validation"), "{e}");
    }
    assert_eq!(runs.load(Ordering::Relaxed), 3);
    assert_eq!(later.stats().validated, 2);
    assert_eq!(markers(&dir), 1);

    // Without a directory, the record is the process's memory.
    let memory = Record::new(None);
    memory.check(&words, validate).unwrap();
    memory.check(&words, validate).unwrap();
    assert_eq!(memory.stats(), Stats { validated: 1, memory_hits: 1, disk_hits: 0 });
    let _ = std::fs::remove_dir_all(&dir);
}

/// The runtime's path (`build_program`) goes through the process's record, kept in
/// `$PTXCROSS_CACHE_DIR/spirv-valid`.
#[test]
fn build_program_validates_each_module_once() {
    let dir = temp_dir("global");
    // The only test of this binary that touches the process's record or the variable.
    std::env::set_var("PTXCROSS_CACHE_DIR", &dir);
    let file = vecadd();
    for _ in 0..3 {
        let p = translate::build_program(&file, &LowerOptions::default(), &[Backend::Spirv], true).unwrap();
        assert!(p.spirv().is_some());
    }
    let stats = Record::global().stats();
    if in_process() {
        assert_eq!(stats, Stats { validated: 1, memory_hits: 2, disk_hits: 0 });
        assert_eq!(markers(&dir.join("spirv-valid")), 1);
    } else {
        assert_eq!(stats.validated, 3);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
