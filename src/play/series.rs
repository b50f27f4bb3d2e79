//! Many games between two sides, colours alternating, and what each side
//! made of them.
//!
//! Games come in pairs: both games of a pair start from the same random
//! opening, each side playing MAX in one of them, so that neither side is
//! favoured by the openings it is dealt. A [`Tally`] counts one side's
//! results, the failures charged to it, and rates with Wilson intervals.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::referee::{GameRecord, GameResult, GameSetup, play_game};
use super::{Agent, Clock, FaultKind, MoveLimits, Seat};
use crate::game::Game;
use crate::stats::Rate;

/// What a series is: how many games, openings, seed and limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeriesSetup {
    /// Its name; game `n` (from 1) is `LABEL/n`.
    pub label: String,
    /// Games to play.
    pub games: u32,
    /// Random plies at the start of each game.
    pub openings: u32,
    /// The seed every random number derives from.
    pub seed: u64,
    /// A game still going after this many plies is a draw.
    pub max_plies: u32,
    /// What bounds each move.
    pub limits: MoveLimits,
}

impl SeriesSetup {
    /// The setup of game number `index` (from 0): the first side plays MAX
    /// in even games, MIN in odd ones, and a pair shares its opening.
    pub fn game(&self, index: u32) -> GameSetup {
        GameSetup {
            label: format!("{}/{}", self.label, index + 1),
            index: u64::from(index),
            seed: self.seed,
            opening_key: u64::from(index / 2),
            openings: self.openings,
            max_plies: self.max_plies,
            limits: self.limits.clone(),
        }
    }

    /// The seat of the first side in game `index`.
    pub fn first_side_seat(index: u32) -> Seat {
        if index.is_multiple_of(2) { Seat::Max } else { Seat::Min }
    }
}

/// Plays the series between `first` and `second`, one game after another;
/// `progress` is told of each game as it ends.
pub fn play_series(
    game: &Arc<dyn Game>,
    first: &mut dyn Agent,
    second: &mut dyn Agent,
    setup: &SeriesSetup,
    progress: &mut dyn FnMut(&GameRecord),
) -> Vec<GameRecord> {
    let mut records = Vec::with_capacity(setup.games as usize);
    for index in 0..setup.games {
        let record = match SeriesSetup::first_side_seat(index) {
            Seat::Max => play_game(game, [&mut *first, &mut *second], &setup.game(index)),
            Seat::Min => play_game(game, [&mut *second, &mut *first], &setup.game(index)),
        };
        progress(&record);
        records.push(record);
    }
    records
}

/// One side's results over a set of games.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    /// The side.
    pub agent: String,
    /// Games it played (void ones included).
    pub games: u64,
    /// Games it won (by the rules, or by the other side's failure).
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games it lost (by the rules, or by its own failure).
    pub losses: u64,
    /// Games whose rules failed: no result for anyone.
    pub void: u64,
    /// Of its wins, those by the other side's failure.
    pub wins_by_fault: u64,
    /// Failures charged to it, by kind.
    pub faults: BTreeMap<FaultKind, u64>,
    /// The sum of its utilities (its own view) over games with a result.
    pub utility_sum: f64,
    /// Moves it made.
    pub moves: u64,
    /// Nodes it entered in all.
    pub entered: u64,
    /// Moves decided without entering the grader's tree (its own copy of
    /// the rules, bounded by the wall clock alone).
    pub wall_clock_moves: u64,
    /// Moves answered after the node budget ran out.
    pub budget_spent_moves: u64,
}

impl Tally {
    /// Failures of `kind` charged to it.
    pub fn fault_count(&self, kind: FaultKind) -> u64 {
        self.faults.get(&kind).copied().unwrap_or(0)
    }

    /// Games with a result (not void).
    pub fn decided(&self) -> u64 {
        self.games - self.void
    }

    /// Games without a timeout charged to it.
    pub fn without_timeout(&self) -> u64 {
        self.games - self.fault_count(FaultKind::TimedOut)
    }

    /// Games without any failure charged to it.
    pub fn clean(&self) -> u64 {
        self.games - self.faults.values().sum::<u64>()
    }

    /// The share of games with a result that it won.
    pub fn win_rate(&self) -> Rate {
        Rate::wilson(self.wins, self.decided())
    }

    /// The share it did not lose.
    pub fn not_lost_rate(&self) -> Rate {
        Rate::wilson(self.wins + self.draws, self.decided())
    }

    /// The share drawn.
    pub fn draw_rate(&self) -> Rate {
        Rate::wilson(self.draws, self.decided())
    }

    /// Its average utility over games with a result (0 without any).
    pub fn average_utility(&self) -> f64 {
        if self.decided() == 0 { 0.0 } else { self.utility_sum / self.decided() as f64 }
    }

    /// Adds another tally of the same side.
    pub fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.void += other.void;
        self.wins_by_fault += other.wins_by_fault;
        for (kind, count) in &other.faults {
            *self.faults.entry(*kind).or_default() += count;
        }
        self.utility_sum += other.utility_sum;
        self.moves += other.moves;
        self.entered += other.entered;
        self.wall_clock_moves += other.wall_clock_moves;
        self.budget_spent_moves += other.budget_spent_moves;
    }
}

/// The utility of a game decided by a failure, for the side that failed:
/// the worst any finished game of `records` gave (the negated largest
/// utility), or -1 when none finished. The other side gets its opposite.
pub fn forfeit_utility(records: &[GameRecord]) -> f64 {
    let largest = records
        .iter()
        .filter(|record| matches!(record.ending, super::Ending::Terminal))
        .filter_map(|record| record.utility)
        .map(f64::abs)
        .fold(0.0, f64::max);
    if largest > 0.0 { -largest } else { -1.0 }
}

/// The tally of the agent named `agent` over the games of `records` it played.
pub fn tally(records: &[GameRecord], agent: &str) -> Tally {
    let forfeit = forfeit_utility(records);
    let mut tally = Tally { agent: agent.to_string(), ..Tally::default() };
    for record in records {
        let Some(seat) = record.seat_of(agent) else { continue };
        tally.games += 1;
        match record.result(seat) {
            GameResult::Win => tally.wins += 1,
            GameResult::Draw => tally.draws += 1,
            GameResult::Loss => tally.losses += 1,
            GameResult::Void => tally.void += 1,
        }
        if let Some(fault) = record.fault_of(seat) {
            *tally.faults.entry(fault.kind).or_default() += 1;
            tally.utility_sum += forfeit;
        } else if record.fault_of(seat.other()).is_some() {
            tally.wins_by_fault += 1;
            tally.utility_sum -= forfeit;
        } else if let Some(utility) = record.utility {
            tally.utility_sum += seat.view(utility);
        }
        for ply in record.moves.iter().filter(|ply| ply.by.seat() == Some(seat)) {
            tally.moves += 1;
            tally.entered += ply.entered;
            match ply.clock {
                Some(Clock::Wall) => tally.wall_clock_moves += 1,
                Some(Clock::BudgetSpent) => tally.budget_spent_moves += 1,
                _ => {}
            }
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::builtin::BuiltIn;
    use crate::play::referee::tests::game;

    fn setup(games: u32) -> SeriesSetup {
        SeriesSetup {
            label: "s".into(),
            games,
            openings: 1,
            seed: 9,
            max_plies: GameSetup::DEFAULT_MAX_PLIES,
            limits: MoveLimits { eval: Some("lines".into()), ..MoveLimits::default() },
        }
    }

    #[test]
    fn colours_alternate_and_a_perfect_player_never_loses() {
        let game = game("tic-tac-toe");
        let mut perfect = BuiltIn::parse("alphabeta").unwrap().agent("perfect");
        let mut random = BuiltIn::parse("random").unwrap().agent("random");
        let mut seen = Vec::new();
        let records =
            play_series(&game, &mut *perfect, &mut *random, &setup(10), &mut |record| seen.push(record.label.clone()));
        assert_eq!(seen.len(), 10);
        assert_eq!(seen[0], "s/1");
        assert_eq!(records[0].max, "perfect");
        assert_eq!(records[1].min, "perfect");
        let perfect = tally(&records, "perfect");
        assert_eq!(perfect.games, 10);
        assert_eq!(perfect.losses, 0);
        assert!(perfect.wins >= 5, "{perfect:?}");
        let random = tally(&records, "random");
        assert_eq!(random.wins, perfect.losses);
        assert_eq!(random.losses, perfect.wins);
        assert_eq!(random.utility_sum, -perfect.utility_sum);
        assert_eq!(perfect.clean(), 10);
        assert!(perfect.win_rate().low > 0.0);
    }
}
