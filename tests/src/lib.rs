//! ptxcross conformance tests: shared helpers of the end-to-end tests ([`launch`]), the spec
//! reference of instruction semantics ([`ptx_ref`]) and the harness that sweeps instructions
//! over many threads in one launch ([`sweep`]).

pub mod launch;
pub mod ptx_ref;
pub mod sweep;
