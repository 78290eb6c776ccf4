//! ptxcross-lower: PTX AST → structured, typed IR ([`ir`]).
//!
//! Every PTX semantic rule lives here, once: name resolution, PTX type rules, the memory
//! layout and address windows ([`abi`]), CFG construction, structurization, and the SIMT
//! (barrier uniformity) checks. Backends consume [`ir::Module`] and decide nothing semantic.

pub mod abi;
pub mod ir;
