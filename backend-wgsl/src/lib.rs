//! ptxcross WGSL backend
