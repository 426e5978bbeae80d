//! `nvml-client`: another process that holds the stand-in NVML initialised (a monitoring agent,
//! DCGM, a second gpushare) until its stdin closes, so tests can show what a held GPU does.
//! It prints `ready` once initialised.

use std::io::Read;
use std::process::ExitCode;

fn main() -> ExitCode {
    let code = nvml_standin::nvmlInit_v2();
    if code != 0 {
        eprintln!("nvml-client: nvmlInit_v2 returned {code}");
        return ExitCode::FAILURE;
    }
    println!("ready");
    // Wait for stdin to close (the test drops it, or exits).
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    nvml_standin::nvmlShutdown();
    ExitCode::SUCCESS
}
