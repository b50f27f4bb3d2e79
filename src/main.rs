//! The `treegrade` binary: all logic lives in the library; this only starts it.

use std::process::ExitCode;

fn main() -> ExitCode {
    treegrade::cli::main()
}
