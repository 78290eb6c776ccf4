//! ptxcross SPIR-V backend
