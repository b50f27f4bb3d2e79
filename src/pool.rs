//! One worker pool for every command that runs jobs in parallel: a batch's
//! submissions, a tournament's entrants (staged) and pairs (played).
//!
//! Workers take jobs from a [`Jobs`] source until it has none left or the
//! run is told to stop; their results reach the calling thread one by one,
//! as they finish ([`Pool::stream`]), or all together in the order of their
//! jobs ([`map_ordered`]). A stop (Ctrl-C, or a result the caller could not
//! keep) starts no new job; what becomes of jobs then still running is the
//! caller's choice ([`AfterStop`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Where workers take their jobs from.
pub trait Jobs: Sync {
    /// One job, as a worker runs it.
    type Job;

    /// How many jobs there are in all (no more workers are started).
    fn count(&self) -> usize;

    /// The next job to run, or `None` when none is left or `stop` is set.
    /// May wait until a job can start.
    fn next(&self, stop: &AtomicBool) -> Option<Self::Job>;

    /// Wakes workers waiting in [`Jobs::next`], so that they see a stop.
    fn wake(&self) {}
}

/// Every item of a slice once, in order, with its index.
pub struct Each<'a, T> {
    items: &'a [T],
    taken: AtomicUsize,
}

impl<'a, T> Each<'a, T> {
    /// The items of `items`, none taken yet.
    pub fn new(items: &'a [T]) -> Each<'a, T> {
        Each { items, taken: AtomicUsize::new(0) }
    }
}

impl<'a, T: Sync> Jobs for Each<'a, T> {
    type Job = (usize, &'a T);

    fn count(&self) -> usize {
        self.items.len()
    }

    fn next(&self, stop: &AtomicBool) -> Option<(usize, &'a T)> {
        if stop.load(Ordering::SeqCst) {
            return None;
        }
        let index = self.taken.fetch_add(1, Ordering::SeqCst);
        self.items.get(index).map(|item| (index, item))
    }
}

/// What becomes of a job that finishes after the run was told to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterStop {
    /// Thrown away: it was stopped part-way (a batch's programs are killed
    /// on Ctrl-C, so what they did then is no grade).
    Discard,
    /// Handed on like any other: it ran to its end.
    Keep,
}

/// Workers that run jobs in parallel.
#[derive(Clone, Copy, Debug)]
pub struct Pool<'s> {
    /// The most jobs run at once (at least one).
    pub workers: usize,
    /// Once set, no new job starts. The pool sets it too when a result
    /// cannot be kept.
    pub stop: &'s AtomicBool,
    /// What becomes of a job finished after `stop` was set.
    pub after_stop: AfterStop,
}

impl Pool<'_> {
    /// Runs `work` on every job of `jobs` and hands each result to
    /// `receive`, on the calling thread, as soon as it is done. The first
    /// error of `receive` stops the run (no new job starts, waiting workers
    /// are woken); results that still arrive are handed on too, and that
    /// first error is returned once every worker is done.
    pub fn stream<J: Jobs, R: Send, E>(
        &self,
        jobs: &J,
        work: impl Fn(J::Job) -> R + Sync,
        mut receive: impl FnMut(R) -> Result<(), E>,
    ) -> Result<(), E> {
        let (sender, receiver) = mpsc::channel::<R>();
        let mut failure = None;
        std::thread::scope(|scope| {
            for _ in 0..self.workers.max(1).min(jobs.count().max(1)) {
                let sender = sender.clone();
                let work = &work;
                scope.spawn(move || {
                    while let Some(job) = jobs.next(self.stop) {
                        let result = work(job);
                        if self.after_stop == AfterStop::Discard && self.stop.load(Ordering::SeqCst) {
                            break;
                        }
                        if sender.send(result).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            for result in receiver {
                if let Err(error) = receive(result) {
                    self.stop.store(true, Ordering::SeqCst);
                    jobs.wake();
                    failure.get_or_insert(error);
                }
            }
        });
        failure.map_or(Ok(()), Err)
    }
}

/// `work` applied to every item of `items` on up to `workers` threads, the
/// results in the order of their items.
pub fn map_ordered<T: Sync, R: Send>(workers: usize, items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let never = AtomicBool::new(false);
    let pool = Pool { workers, stop: &never, after_stop: AfterStop::Keep };
    let mut done: Vec<(usize, R)> = Vec::with_capacity(items.len());
    let received: Result<(), std::convert::Infallible> = pool.stream(
        &Each::new(items),
        |(index, item)| (index, work(item)),
        |result| {
            done.push(result);
            Ok(())
        },
    );
    let Ok(()) = received;
    done.sort_by_key(|(index, _)| *index);
    done.into_iter().map(|(_, result)| result).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_results_follow_their_items_whatever_the_workers() {
        let items: Vec<u64> = (0..50).collect();
        for workers in [0, 1, 3, 64] {
            let squares = map_ordered(workers, &items, |&n| {
                // Later items finish first, so arrival order is not item order.
                std::thread::sleep(std::time::Duration::from_micros(50 - n));
                n * n
            });
            assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>(), "{workers} workers");
        }
    }

    #[test]
    fn every_job_is_run_once_and_streamed_to_the_caller() {
        let items: Vec<usize> = (0..20).collect();
        let stop = AtomicBool::new(false);
        let pool = Pool { workers: 4, stop: &stop, after_stop: AfterStop::Discard };
        let mut seen = Vec::new();
        let done: Result<(), ()> = pool.stream(
            &Each::new(&items),
            |(_, &n)| n,
            |n| {
                seen.push(n);
                Ok(())
            },
        );
        assert_eq!(done, Ok(()));
        seen.sort();
        assert_eq!(seen, items);
    }

    #[test]
    fn a_result_that_cannot_be_kept_stops_new_jobs_and_is_returned() {
        let items: Vec<usize> = (0..200).collect();
        let stop = AtomicBool::new(false);
        let pool = Pool { workers: 1, stop: &stop, after_stop: AfterStop::Keep };
        let started = AtomicUsize::new(0);
        let mut received = 0;
        let done = pool.stream(
            &Each::new(&items),
            |(_, &n)| {
                started.fetch_add(1, Ordering::SeqCst);
                // Slow enough that the caller sees a result before the jobs run out.
                std::thread::sleep(std::time::Duration::from_millis(2));
                n
            },
            |n| {
                received += 1;
                if n == 3 { Err(format!("cannot keep {n}")) } else { Ok(()) }
            },
        );
        assert_eq!(done, Err("cannot keep 3".to_string()));
        assert!(stop.load(Ordering::SeqCst));
        assert!(started.load(Ordering::SeqCst) < items.len(), "the run went on after the failure");
        assert_eq!(received, started.load(Ordering::SeqCst), "a kept job's result still reaches the caller");
    }

    #[test]
    fn a_job_finished_after_a_stop_is_discarded_or_kept_as_asked() {
        for (after_stop, expected) in [(AfterStop::Discard, 0), (AfterStop::Keep, 1)] {
            let items = [1];
            let stop = AtomicBool::new(false);
            let pool = Pool { workers: 1, stop: &stop, after_stop };
            let mut received = 0;
            let done: Result<(), ()> = pool.stream(
                &Each::new(&items),
                |(_, &n)| {
                    // Ctrl-C arrives while the job runs.
                    stop.store(true, Ordering::SeqCst);
                    n
                },
                |_| {
                    received += 1;
                    Ok(())
                },
            );
            assert_eq!(done, Ok(()));
            assert_eq!(received, expected, "{after_stop:?}");
        }
    }
}
