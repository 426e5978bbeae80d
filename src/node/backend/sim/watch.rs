//! The health watch on a simulated node: the Xid and ECC events raised after it opened (see
//! [`super::events`]), read from the state as the processes that share it raise them.

use super::SimBackend;
use super::events::{EventKind, SimEvent};
use crate::node::backend::DriverResult;
use crate::node::backend::events::{Cause, DeviceEvent, EventWatch};

/// The health watch on a simulated node: the events raised after it opened, read from the
/// state as the processes that share it raise them.
pub(crate) struct SimWatch {
    backend: SimBackend,
    seen: u64,
}

/// How often a watch looks at the state for new events.
const POLL: std::time::Duration = std::time::Duration::from_millis(50);

impl SimWatch {
    pub(crate) fn open(
        sim: Option<&str>,
        state: Option<&std::path::Path>,
    ) -> crate::support::error::Result<Self> {
        let backend = SimBackend::open(sim, state)?;
        let seen = backend.events_after(0)?.last().map_or(0, |e| e.seq);
        Ok(SimWatch { backend, seen })
    }

    fn device_event(&self, e: &SimEvent) -> DeviceEvent {
        let uuid = self
            .backend
            .state()
            .gpus
            .get(e.gpu as usize)
            .map(|g| g.uuid.clone())
            .unwrap_or_default();
        DeviceEvent {
            gpu: e.gpu,
            uuid,
            cause: match e.kind {
                EventKind::Xid => Cause::Xid(e.xid),
                EventKind::EccSingleBit => Cause::EccSingleBit,
                EventKind::EccDoubleBit => Cause::EccDoubleBit,
            },
            mig_device: e.mig_device,
        }
    }
}

impl EventWatch for SimWatch {
    fn next(&mut self, timeout: std::time::Duration) -> DriverResult<Option<DeviceEvent>> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(e) = self.backend.events_after(self.seen)?.first() {
                self.seen = e.seq;
                return Ok(Some(self.device_event(e)));
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            std::thread::sleep(left.min(POLL));
        }
    }

    fn unwatched(&self) -> Vec<(u32, String)> {
        Vec::new()
    }
}
