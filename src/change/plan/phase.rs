//! The phases of a plan: the order its changes run in across GPUs.

/// Where a change runs in a plan: every change of a phase comes before those of the next phase,
/// and within a phase each GPU's changes keep their order. Phases are what a runner that works
/// on several GPUs at once must keep across GPUs. The node-wide phases (begin, stop-clients, before-layouts, end) hold
/// only steps that act on the whole node (GPU clients, hooks), in the order given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Phase {
    /// Node-wide: the `apply-start` hook.
    Begin,
    /// MPS daemons whose devices the MIG changes take away, and stopping MPS daemons whose
    /// record was lost.
    StopDaemons,
    /// Node-wide: GPU clients stopped (services, then kernel modules), then the
    /// `pre-apply-mode` hook.
    StopClients,
    /// MIG mode changes, and the destroys a MIG disable needs before it.
    MigModes,
    /// Resets of GPUs whose MIG mode is pending (consecutive resets run as one call).
    Resets,
    /// Node-wide: the `pre-apply-config` hook.
    BeforeLayouts,
    /// MIG GPU and compute instances destroyed and created.
    MigLayouts,
    /// MPS daemons stopped and started, compute modes set.
    Daemons,
    /// vGPU devices (SR-IOV first).
    Vgpu,
    /// Changes planned exactly only once the others are made.
    Later,
    /// Node-wide: GPU clients started again (kernel modules, then services, the reverse of
    /// their stop), then the `apply-exit` hook.
    End,
}

impl Phase {
    /// Whether each change of the phase concerns its GPU alone, so that the executor may run
    /// the phase on several GPUs at once (each GPU's changes in order). True only for the
    /// driver's MIG changes. Resets go to the driver together; MPS daemons can serve several
    /// GPUs and share their records; vGPU steps share the host's sysfs; the
    /// node-wide phases run one change after another too.
    pub(crate) fn per_gpu(self) -> bool {
        matches!(self, Phase::MigModes | Phase::MigLayouts)
    }

    /// Whether the phase holds only steps that act on the whole node, not on one GPU (tests).
    #[cfg(test)]
    pub(crate) fn node_wide(self) -> bool {
        matches!(
            self,
            Phase::Begin | Phase::StopClients | Phase::BeforeLayouts | Phase::End
        )
    }
}
