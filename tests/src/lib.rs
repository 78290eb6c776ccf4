//! ptxcross conformance tests: shared helpers of the end-to-end tests ([`launch`]), the spec
//! reference of instruction semantics ([`ptx_ref`]), the harness that sweeps instructions over
//! many threads in one launch ([`sweep`]), the differential tester ([`difftest`]), and the
//! browser (Tint) check of webgpu-profile WGSL ([`tint`]).

pub mod difftest;
pub mod launch;
pub mod nvidia;
pub mod ptx_ref;
pub mod sweep;
pub mod tint;
