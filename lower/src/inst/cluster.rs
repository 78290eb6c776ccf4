//! `mapa` and `getctarank` (§9.7.10.22/23) in a launch without clusters, where every CTA is a
//! 1-CTA cluster (rank 0): rank 0 maps an address to itself and every shared address belongs
//! to rank 0. A `mapa` to another rank names a CTA outside the cluster; the spec defines no
//! result for it, so the launch faults (`abi::FAULT_CLUSTER_RANK`) rather than computing an
//! address that points into the wrong CTA.

use super::{operands, Mods};
use crate::abi;
use crate::function::{unsupported, FnLower, LResult};
use crate::ir::{Block, CmpOp, Stmt, Ty};
use ptxcross_frontend::ast::{Name, ScalarType};
use ptxcross_frontend::Diagnostic;

impl FnLower {
    pub(super) fn cluster_address(&mut self, m: &Mods) -> LResult<()> {
        if let Some(d) = &self.cluster_directive {
            return Err(unsupported(
                format!("`{}` in a kernel with `.{d}` (cluster launches are not supported)", m.name()),
                m.inst.span,
            ));
        }
        m.only(&["shared::cluster"])?;
        let t = m.ty()?;
        if !matches!(t, ScalarType::U32 | ScalarType::U64) {
            return Err(Diagnostic::new(format!("`{}` takes .u32 or .u64", m.name()), m.inst.span));
        }
        if m.inst.opcode.name.as_str() == "getctarank" {
            let [d, _] = operands(m.inst, 2)? else { unreachable!() };
            return self.write(d, ScalarType::U32, Self::u32c(0));
        }
        let [d, a, b] = operands(m.inst, 3)? else { unreachable!() };
        let rank = self.read(b, ScalarType::U32)?;
        let other = self.cmp(CmpOp::Ne, Ty::U32, rank, Self::u32c(0));
        self.emit_if(other, Block { stmts: vec![Stmt::Fault { code: abi::FAULT_CLUSTER_RANK }] }, Block::new());
        // Rank 0 is this CTA: d is a itself, as `mov` gives it (a variable's address too).
        let mut mov = m.inst.clone();
        mov.guard = None;
        mov.opcode.name = Name::new("mov");
        mov.modifiers.retain(|x| x.text != "shared::cluster");
        mov.operands = vec![d.clone(), a.clone()];
        self.mov(&Mods { inst: &mov })
    }
}
