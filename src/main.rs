//! The `treegrade` binary: all logic lives in the library; this only starts it.

use std::process::ExitCode;

/// mimalloc rather than the system allocator: loading a large tree makes
/// hundreds of thousands of small allocations, and with glibc's allocator
/// half of `treegrade solve`'s time on a 350,000-node tree went to page
/// faults (see bench/RESULTS.md).
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    treegrade::cli::main()
}
