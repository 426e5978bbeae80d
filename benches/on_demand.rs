//! `cargo bench --bench on_demand`: how long the MIG-on-demand controller takes to decide, from
//! the nodes' published states to the layouts it writes, for clusters up to 100 nodes × 8 GPUs
//! with hundreds of pods waiting. Goal: under 100 ms for 100 × 8.

// A benchmark prints its figures.
#![allow(clippy::print_stdout)]

use gpushare::cluster::on_demand::bench::decision;

fn main() {
    println!("controller decision (views + decide), best of 5:");
    for (nodes, pending) in [(10, 20), (100, 100), (100, 400)] {
        let mut best = None;
        let mut last = None;
        for _ in 0..5 {
            let f = decision(nodes, 8, pending);
            best = Some(best.map_or(f.took, |b: std::time::Duration| b.min(f.took)));
            last = Some(f);
        }
        let f = last.expect("five runs");
        println!(
            "  {nodes:>3} nodes × 8 GPUs, {pending:>3} pending pods: {:>7.2} ms ({} served, {} node(s) reshaped)",
            best.expect("five runs").as_secs_f64() * 1000.0,
            f.pods_served,
            f.nodes_reshaped
        );
    }
}
