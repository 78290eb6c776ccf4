//! ptxcross runtime
