//! ptxcross conformance tests: shared helpers of the end-to-end tests, and the differential
//! tester.

pub mod difftest;
pub mod launch;
