//! Outlining plain heap accesses into functions after every analysis (`heap_outline`, issue
//! 11): which accesses become calls (those whose statements are their own), and that the
//! functions keep the shape the backends' proof of an in-range index needs.

use ptxcross_lower::heap_outline::{outline_heap_accesses, HEAP_LOAD_FUNCTION, HEAP_STORE_FUNCTION};
use ptxcross_lower::ir::{Block, Expr, Kernel, Memory, Operand, Stmt};

mod support;

fn kernel(ptx: &str) -> Kernel {
    support::lower_kernel(ptx, [64, 1, 1])
}

/// (heap loads, heap stores, calls) in `b`.
fn census(b: &Block, n: &mut [usize; 3]) {
    for s in &b.stmts {
        match s {
            Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Heap, .. }, .. } => n[0] += 1,
            Stmt::StoreWord { memory: Memory::Heap, .. } => n[1] += 1,
            Stmt::Assign { expr: Expr::Call { .. }, .. } => n[2] += 1,
            _ => {}
        }
        for body in s.bodies() {
            census(body, n);
        }
    }
}

/// Every heap access of each outlined function is at an index the backends may use directly.
fn functions_keep_the_proof(k: &Kernel) {
    for f in &k.functions {
        let fk = f.as_kernel(&f.name);
        let proven = fk.heap_index_memories_of(&fk.value_vars());
        for s in &f.body.stmts {
            let index = match s {
                Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Heap, index }, .. } => index,
                Stmt::StoreWord { memory: Memory::Heap, index, .. } => index,
                _ => continue,
            };
            assert!(matches!(index, Operand::Var(v) if proven[v.index()] == Some(Memory::Heap)), "{}: {:#?}", f.name, f.body);
        }
    }
}

#[test]
fn a_load_whose_tests_the_store_shares_stays_inline() {
    // saxpy's shape: `y[i] = a * x[i] + y[i]`; the store of `y` reuses its load's tests.
    let mut k = kernel(
        ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u64 x, .param .u64 y)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.global.u32 %r1, [%rd1];
    ld.global.u32 %r2, [%rd2];
    add.u32 %r3, %r1, %r2;
    st.global.u32 [%rd2], %r3;
    ret;
}",
    );
    assert_eq!(outline_heap_accesses(&mut k), [1, 0]);
    let mut n = [0; 3];
    census(&k.body, &mut n);
    assert_eq!(n, [1, 1, 1], "the load of y and its store stay, x's load is a call");
    assert_eq!(k.functions.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), [HEAP_LOAD_FUNCTION]);
    assert!(k.defers_faults());
    functions_keep_the_proof(&k);
}

#[test]
fn loads_and_stores_of_their_own_become_calls_of_one_function_each() {
    let mut k = kernel(
        ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 out)
{
    .reg .b32 %r<5>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [out];
    ld.global.u32 %r1, [%rd1];
    ld.global.u32 %r2, [%rd2];
    add.u32 %r3, %r1, %r2;
    xor.b32 %r4, %r1, %r2;
    st.global.u32 [%rd3], %r3;
    st.global.u32 [%rd3+4], %r4;
    ret;
}",
    );
    let before = k.clone();
    assert_eq!(outline_heap_accesses(&mut k), [2, 2]);
    let mut n = [0; 3];
    census(&k.body, &mut n);
    assert_eq!(n, [0, 0, 4]);
    let names: Vec<_> = k.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, [HEAP_LOAD_FUNCTION, HEAP_STORE_FUNCTION]);
    // Each function holds one access and both of its deferred faults.
    for f in &k.functions {
        let mut m = [0; 3];
        census(&f.body, &mut m);
        assert_eq!(m[0] + m[1], 1, "{}", f.name);
        let faults = f.body.stmts.iter().filter(|s| matches!(s, Stmt::If { then_body, .. } if matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]))).count();
        assert_eq!(faults, 2, "{}", f.name);
    }
    functions_keep_the_proof(&k);
    // The site assignments stay where they were: one before each access's call.
    let sites = |b: &Block| b.stmts.iter().filter(|s| matches!(s, Stmt::Assign { dst, .. } if Some(*dst) == k.fault_site_var)).count();
    assert_eq!(sites(&k.body), 4);
    let site_before = before.fault_site_var;
    assert_eq!(before.body.stmts.iter().filter(|s| matches!(s, Stmt::Assign { dst, .. } if Some(*dst) == site_before)).count(), 4);
}
