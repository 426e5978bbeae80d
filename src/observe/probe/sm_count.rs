//! How many SMs a context really gets: the SM-id kernel runs a few blocks per SM of the whole
//! device, each spinning a while and recording its `%smid` and `%globaltimer` start and end; the
//! answer is the most SMs busy at the same moment.
//!
//! Counting distinct SM ids over the whole kernel would overstate it under MPS: a client limited
//! to a share of the threads runs the grid in several waves, and a later wave may land on other
//! SMs than the first.

use super::cuda::{DeviceBuffer, Function, PinnedBuffer, Stream};
use super::protocol::{Failure, Step};
use super::ptx;
use super::timing::{arg, at};
use std::collections::BTreeSet;

/// What the SM-id kernel showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SmCount {
    /// The most SMs running a block at one moment.
    pub at_once: u32,
    /// Distinct SMs over the whole kernel.
    pub distinct: u32,
}

/// One block: the SM it ran on and its start and end (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockRecord {
    pub sm: u64,
    pub start: u64,
    pub end: u64,
}

/// Launch the kernel with [`ptx::SMID_BLOCKS_PER_SM`] blocks per SM of `sms` (the whole device,
/// so an unenforced share shows), using `device` and the host buffers for its records.
pub(crate) fn count(
    stream: &Stream,
    smid: &Function,
    device: &DeviceBuffer,
    host: &mut PinnedBuffer,
    back: &mut PinnedBuffer,
    sms: u32,
    spin_clocks: u64,
) -> Result<SmCount, Failure> {
    let fail = at(Step::Sms);
    let capacity = device.bytes.min(host.bytes).min(back.bytes) / ptx::SMID_RECORD;
    let grid = sms
        .max(1)
        .saturating_mul(ptx::SMID_BLOCKS_PER_SM)
        .min(capacity as u32);
    let bytes = grid as usize * ptx::SMID_RECORD;
    host.as_mut_slice()[..bytes].fill(0xff);
    stream.copy_htod(device, host, bytes).map_err(&fail)?;
    let (mut out, mut spin) = (device.ptr(), spin_clocks);
    let mut args = [arg(&mut out), arg(&mut spin)];
    stream
        .launch(smid, grid, ptx::SMID_BLOCK, &mut args)
        .map_err(&fail)?;
    stream.copy_dtoh(back, device, bytes).map_err(&fail)?;
    stream.synchronize().map_err(&fail)?;
    let records = parse(&back.as_slice()[..bytes])
        .ok_or_else(|| Failure::other(Step::Sms, "the SM-id kernel did not run every block"))?;
    Ok(SmCount {
        at_once: busiest_moment(&records),
        distinct: records.iter().map(|r| r.sm).collect::<BTreeSet<_>>().len() as u32,
    })
}

/// The records the kernel wrote; `None` if a block left its record untouched (all ones).
fn parse(bytes: &[u8]) -> Option<Vec<BlockRecord>> {
    let word = |c: &[u8]| u64::from_ne_bytes(c.try_into().unwrap_or([0xff; 8]));
    bytes
        .chunks_exact(ptx::SMID_RECORD)
        .map(|c| {
            let r = BlockRecord {
                sm: word(&c[0..8]),
                start: word(&c[8..16]),
                end: word(&c[16..24]),
            };
            (r.sm != u64::MAX).then_some(r)
        })
        .collect()
}

/// The most distinct SMs whose blocks overlap one moment. The busiest moment is always some
/// block's start, so only those are tried.
pub(crate) fn busiest_moment(records: &[BlockRecord]) -> u32 {
    records
        .iter()
        .map(|at| {
            records
                .iter()
                .filter(|r| r.start <= at.start && at.start < r.end.max(r.start + 1))
                .map(|r| r.sm)
                .collect::<BTreeSet<_>>()
                .len() as u32
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(sm: u64, start: u64, end: u64) -> BlockRecord {
        BlockRecord { sm, start, end }
    }

    #[test]
    fn waves_on_other_sms_are_not_counted_as_at_once() {
        // Two waves of 10 SMs each, the second on SMs 10-19: 20 SMs seen, 10 at once.
        let mut records = Vec::new();
        for wave in 0..2u64 {
            for i in 0..10u64 {
                for _ in 0..3 {
                    records.push(block(wave * 10 + i, wave * 1000, wave * 1000 + 1000));
                }
            }
        }
        assert_eq!(busiest_moment(&records), 10);
        let distinct: BTreeSet<u64> = records.iter().map(|r| r.sm).collect();
        assert_eq!(distinct.len(), 20);
    }

    #[test]
    fn overlapping_blocks_count_once_per_sm() {
        let records = [
            block(0, 0, 100),
            block(0, 10, 90),
            block(1, 50, 150),
            block(2, 120, 200),
        ];
        // At 50: SMs 0 and 1; at 120: SMs 1 and 2.
        assert_eq!(busiest_moment(&records), 2);
        // A timer too coarse to tick during a block: each block is its start instant.
        assert_eq!(busiest_moment(&[block(0, 5, 5), block(1, 5, 5)]), 2);
        assert_eq!(busiest_moment(&[]), 0);
    }

    #[test]
    fn untouched_records_mean_a_block_did_not_run() {
        let mut bytes = vec![0u8; 2 * ptx::SMID_RECORD];
        bytes[..8].copy_from_slice(&3u64.to_ne_bytes());
        assert_eq!(parse(&bytes).unwrap()[0].sm, 3);
        bytes[ptx::SMID_RECORD..].fill(0xff);
        assert_eq!(parse(&bytes), None);
    }
}
