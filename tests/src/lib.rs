//! ptxcross conformance tests
