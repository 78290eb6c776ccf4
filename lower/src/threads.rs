//! Independent work items on several threads, results in the items' order (lowering the
//! kernels of a file, emitting and validating their modules).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Most threads used (each may hold a large kernel's IR).
pub const MAX_THREADS: usize = 8;

/// `f` of every item, computed on up to [`MAX_THREADS`] threads (as many as the machine has)
/// with `stack_bytes` of stack each; each thread takes the next item from a shared counter, as
/// item sizes differ by orders of magnitude (CUB's radix-sort kernels are 100× the others).
/// A panic in `f` is passed on once every thread has stopped. Without threads (none could be
/// spawned) the items run on the caller's.
pub fn map_ordered<T: Sync, R: Send>(items: &[T], name: &str, stack_bytes: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len()).clamp(1, MAX_THREADS);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { return done };
            done.push((i, f(item)));
        }
    };
    let mut all: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .filter_map(|_| std::thread::Builder::new().name(name.into()).stack_size(stack_bytes).spawn_scoped(scope, work).ok())
            .collect();
        if handles.is_empty() {
            return work();
        }
        let mut all = Vec::with_capacity(items.len());
        let mut panic = None;
        for handle in handles {
            match handle.join() {
                Ok(done) => all.extend(done),
                Err(p) => panic = panic.or(Some(p)),
            }
        }
        if let Some(p) = panic {
            std::panic::resume_unwind(p);
        }
        all
    });
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}
