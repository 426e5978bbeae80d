//! `cargo bench --bench mig_partitions`: how well first fit packs MIG instances in the order
//! gpushare lists the placements ([`gpushare::sharing::mig::partitions::order`]), against the same
//! placements in the driver's table order and shuffled (a driver that places at random).
//!
//! Mixed-profile claims (1g 8 : 2g 4 : 3g 3 : 4g 2 : 7g 1) are made and released at random on 8
//! GPUs kept 50 to 100 % full, each taking the first free placement of its profile in the list,
//! as the 1.36 scheduler does with partitionable devices. Printed: claims refused while one GPU
//! had the memory and compute slices for them (fragmentation), per listing, summed over five
//! seeds, and how long one `order` takes. Goal: at most half the refusals of random order.

// A benchmark prints its figures.
#![allow(clippy::print_stdout)]

use gpushare::node::model::catalog::catalog;
use gpushare::sharing::mig::partitions::{Listing, Taken, churn, order};
use std::time::Instant;

const EVENTS: u64 = 20_000;
const SEEDS: u64 = 5;

fn main() {
    let c = catalog();
    for model in ["NVIDIA A100-SXM4-40GB", "NVIDIA H100 80GB HBM3"] {
        let Some(table) = c.model(model).and_then(|m| c.mig_table(m)) else {
            println!("{model}: not in the catalog");
            continue;
        };
        // The profiles' first GB number names them on every model: 1g, 2g, 3g, 4g, 7g.
        let weights: Vec<u32> = table
            .profiles
            .iter()
            .map(|p| {
                let plain = !p.name.contains('+') && !p.name.contains("me");
                let first = |g: &str| p.name.starts_with(g) && plain;
                if first("1g.") && p.size == 1 {
                    8
                } else if first("2g.") {
                    4
                } else if first("3g.") {
                    3
                } else if first("4g.") {
                    2
                } else if first("7g.") {
                    1
                } else {
                    0
                }
            })
            .collect();
        println!(
            "{model}, 8 GPUs, {EVENTS} events × {SEEDS} seeds: claims refused for fragmentation (of claims made)"
        );
        println!("fill   gpushare        table order     random          gpushare/random");
        for fill in [50, 60, 70, 80, 90, 100] {
            let mut refused = [(0u64, 0u64); 3];
            for seed in 1..=SEEDS {
                for (i, listing) in [Listing::Packed, Listing::Index, Listing::Random]
                    .into_iter()
                    .enumerate()
                {
                    let r = churn(table, 8, &weights, listing, fill, EVENTS, seed);
                    refused[i].0 += r.fragmented;
                    refused[i].1 += r.claims;
                }
            }
            let cell = |(n, of): (u64, u64)| format!("{n:>6} ({of:>6})");
            let ratio = refused[0].0 as f64 / refused[2].0.max(1) as f64;
            println!(
                "{fill:>3} %  {}  {}  {}  {ratio:.2}",
                cell(refused[0]),
                cell(refused[1]),
                cell(refused[2])
            );
        }
        let started = Instant::now();
        let n = 10_000;
        for _ in 0..n {
            std::hint::black_box(order(table, &Taken::default()));
        }
        println!(
            "one order of an empty GPU's placements: {:.1} µs\n",
            started.elapsed().as_secs_f64() * 1e6 / f64::from(n)
        );
    }
}
