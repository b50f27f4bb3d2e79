//! The trampoline where there is no Unix: nothing to apply in a process of
//! its own (no `exec`, no resource limits to set before it). Programs then
//! run with the built-in defences only (time limits, output caps, an empty
//! environment, a scratch folder), and every report says so.

use super::kernel::SysError;
use super::policy::Policy;
use super::{Next, Probe, SetupError};

const NO_UNIX: &str = "the sandbox trampoline needs a Unix system";

/// Refuses: no layer can be applied here.
pub fn apply(_policy: &Policy) -> Result<Next, SetupError> {
    Err(SetupError { layer: "resource limits", cause: SysError::refused(NO_UNIX) })
}

/// Reports that no layer is available.
pub fn probe_here() -> Probe {
    Probe { problems: vec![format!("resource limits: {NO_UNIX}")], ..Probe::default() }
}

/// Refuses: there are no dedicated users here.
pub fn kill_all_of_user(id: u32) -> Result<(), SysError> {
    Err(SysError::refused(format!("cannot kill the processes of uid {id}: {NO_UNIX}")))
}
