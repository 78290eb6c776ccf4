//! ptxcross conformance tests: shared helpers of the end-to-end tests.

pub mod launch;
