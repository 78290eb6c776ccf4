//! ptxcross conformance tests: the spec reference of instruction semantics ([`ptx_ref`]) and
//! the harness that sweeps instructions over many threads in one launch ([`sweep`]).

pub mod ptx_ref;
pub mod sweep;
