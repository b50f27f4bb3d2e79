//! `treegrade completions SHELL` and `treegrade man`: generated from the
//! same clap definitions the parser uses, so they never drift.

use clap::{Args, CommandFactory};

use super::{Cli, Failure, emit};

/// Flags of `treegrade completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Prints the completion script for a shell on stdout.
pub fn run(args: &CompletionsArgs) -> Result<(), Failure> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "treegrade", &mut script);
    emit(&String::from_utf8_lossy(&script));
    Ok(())
}

/// Prints the manual page (roff) on stdout: `treegrade man > treegrade.1`.
pub fn run_man() -> Result<(), Failure> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|error| Failure::runtime("cannot render the manual page", error))?;
    emit(&String::from_utf8_lossy(&page));
    Ok(())
}
