//! A module as both emitters write it, prepared once (issue 11, translation time).
//!
//! Both backends write each kernel after the same two preparations: its plain heap accesses
//! outlined ([`heap_outline::outline_module`], on a copy: `lower`'s own output keeps the inline
//! form that `launch_proof` reads), and the analyses the emitters read of each kernel
//! ([`Analyses`]). Each backend used to redo both for itself; a host that emits SPIR-V and WGSL
//! of one module (the CLI's `check`, the runtime when it builds both, the translation-time
//! benchmark) makes one [`Emission`] and hands it to both: on the CUB file the outlining alone
//! was ~9% of the translation, done twice.

use std::borrow::Cow;
use std::cell::{Cell, OnceCell};

use crate::heap_outline;
use crate::ir::{IndexFacts, Kernel, Memory, Module};

/// What the emitters read of a kernel (or of a function, through `Function::as_kernel`) beside
/// its IR.
#[derive(Clone, Debug)]
pub struct Analyses {
    /// [`Kernel::value_vars`].
    pub values: Vec<bool>,
    /// [`Kernel::direct_param_loads`].
    pub direct_params: Vec<bool>,
    /// [`Kernel::heap_index_memories_of`] of `values`.
    pub heap_direct: Vec<Option<Memory>>,
    /// [`Kernel::index_facts_of`] of `values`.
    pub facts: IndexFacts,
}

impl Analyses {
    pub fn of(k: &Kernel) -> Analyses {
        Analyses::given(k, k.value_vars())
    }

    /// [`Analyses::of`] with `values`, `k`'s [`Kernel::value_vars`] computed before.
    fn given(k: &Kernel, values: Vec<bool>) -> Analyses {
        Analyses {
            direct_params: k.direct_param_loads(),
            heap_direct: k.heap_index_memories_of(&values),
            facts: k.index_facts_of(&values),
            values,
        }
    }
}

/// `module` prepared for the emitters: heap accesses outlined, each kernel's [`Analyses`].
pub struct Emission<'a> {
    module: Cow<'a, Module>,
    /// Made when an emitter first asks, after its own checks: the analyses recurse as deep as
    /// the kernel nests, which the emitters check (and refuse beyond their limit) first.
    kernels: Vec<OnceCell<Analyses>>,
    /// Per kernel, its values where the outlining computed them on the kernel as written.
    values: Vec<Cell<Option<Vec<bool>>>>,
}

impl<'a> Emission<'a> {
    pub fn new(module: &'a Module) -> Emission<'a> {
        let outlined = heap_outline::outline_module(module);
        let module = match outlined.module {
            Some(outlined) => Cow::Owned(outlined),
            None => Cow::Borrowed(module),
        };
        let kernels = module.kernels.iter().map(|_| OnceCell::new()).collect();
        let values = outlined.values.into_iter().map(Cell::new).collect();
        Emission { module, kernels, values }
    }

    /// The module to write (heap accesses outlined).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The analyses of kernel `index` of [`Emission::module`] (made once, by the first
    /// emitter that asks).
    pub fn analyses(&self, index: usize) -> &Analyses {
        self.kernels[index].get_or_init(|| {
            let k = &self.module.kernels[index];
            match self.values[index].take() {
                Some(values) => Analyses::given(k, values),
                None => Analyses::of(k),
            }
        })
    }
}
