//! CPU time of the grader itself and of the programs it ran, from the
//! kernel's accounting (`/proc/self/stat`), so an instructor can see what
//! grading costs beyond the students' own interpreters.

use std::time::Duration;

/// CPU time (user + system) used so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuTimes {
    /// This process.
    pub own: Duration,
    /// Its children and their descendants, once waited for.
    pub children: Duration,
}

/// The kernel reports these times in ticks of 1/100 s (USER_HZ).
const TICKS_PER_SECOND: u64 = 100;

/// This process's CPU times, or `None` where `/proc` is unavailable.
pub fn cpu_times() -> Option<CpuTimes> {
    parse_stat(&std::fs::read_to_string("/proc/self/stat").ok()?)
}

/// Fields 14-17 of `/proc/PID/stat`: utime, stime, cutime, cstime. The
/// command name (field 2) may hold spaces, so counting starts after its `)`.
fn parse_stat(stat: &str) -> Option<CpuTimes> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<u64> =
        after_name.split_whitespace().skip(11).take(4).map(|f| f.parse().ok()).collect::<Option<_>>()?;
    let ticks = |t: u64| Duration::from_millis(t * 1000 / TICKS_PER_SECOND);
    match fields.as_slice() {
        [utime, stime, cutime, cstime] => {
            Some(CpuTimes { own: ticks(utime + stime), children: ticks(cutime + cstime) })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_four_time_fields() {
        let stat = "4242 (tree grade) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 50 700 300 20 0 1 0 100 0 0";
        let times = parse_stat(stat).unwrap();
        assert_eq!(times.own, Duration::from_secs(2));
        assert_eq!(times.children, Duration::from_secs(10));
    }

    #[test]
    fn reads_this_process() {
        assert!(cpu_times().is_some());
    }
}
