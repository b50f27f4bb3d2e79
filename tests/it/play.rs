//! Whole games with programs: the grader serves each move's position
//! through the oracle with a node budget, and every failure is charged to
//! the side that caused it.

use std::sync::Arc;
use std::time::Duration;

use crate::common::{self, Scratch};
use treegrade::game::{Game, GameArgs, make};
use treegrade::grader::player::ProgramAgent;
use treegrade::grader::runner::ProgramSpec;
use treegrade::play::builtin::BuiltIn;
use treegrade::play::{Clock, Ending, FaultKind, MoveLimits, SeriesSetup, play_series, tally};

fn game(name: &str) -> Arc<dyn Game> {
    Arc::from(make(&GameArgs { name, params: &[], position: None, utility: None }).expect("a built-in game"))
}

/// A Python agent in `dir`, started directly (no sandbox) with the kit.
pub fn python_agent(name: &str, dir: &std::path::Path) -> ProgramAgent {
    ProgramAgent::new(
        name,
        ProgramSpec {
            command: vec!["python3".into(), "search.py".into()],
            dir: dir.to_path_buf(),
            env: vec![("PYTHONPATH".into(), common::repo().join("grader/kits/python").into())],
            policy: None,
        },
    )
}

fn setup(games: u32, budget: Option<u32>) -> SeriesSetup {
    SeriesSetup {
        label: "play".into(),
        games,
        openings: 1,
        seed: 5,
        max_plies: 1000,
        limits: MoveLimits { budget, time: Duration::from_secs(10), eval: Some("lines".into()) },
    }
}

/// The games reference plays through the grader: every move within its
/// budget, nodes counted, and it never loses to random play.
#[test]
fn the_reference_agent_plays_within_its_budget() {
    let game = game("tic-tac-toe");
    let mut reference = python_agent("reference", &common::repo().join("reference/games/python"));
    let mut random = BuiltIn::parse("random").unwrap().agent("random");
    let records = play_series(&game, &mut reference, &mut *random, &setup(4, Some(300)), &mut |_| {});
    for record in &records {
        assert!(matches!(record.ending, Ending::Terminal), "{}", record.summary());
        for ply in record.moves.iter().filter(|ply| ply.by.seat() == record.seat_of("reference")) {
            assert!(ply.entered <= 300, "{ply:?}");
            assert!(matches!(ply.clock, Some(Clock::Nodes | Clock::BudgetSpent)), "{ply:?}");
        }
    }
    let reference = tally(&records, "reference");
    assert_eq!(reference.losses, 0, "{reference:?}");
    assert!(reference.budget_spent_moves > 0, "the first moves use the whole budget");
    assert!(reference.entered > 0);
}

/// An agent whose code raises loses that game, and the next game is played.
#[test]
fn a_crash_loses_only_its_own_game() {
    let scratch = Scratch::new();
    scratch.write(
        "search.py",
        r#"
from treegrade_kit import run
moves = [0]
def choose_move(game):
    moves[0] += 1
    if moves[0] == 1:
        raise ValueError("boom")
    return game.actions(game.root)[0]
run(choose_move=choose_move)
"#,
    );
    let game = game("tic-tac-toe");
    let mut agent = python_agent("student", scratch.path());
    let mut random = BuiltIn::parse("random").unwrap().agent("random");
    let records = play_series(&game, &mut agent, &mut *random, &setup(2, None), &mut |_| {});
    let fault = records[0].fault_of(records[0].seat_of("student").unwrap()).expect("charged to the student");
    assert_eq!(fault.kind, FaultKind::Crashed);
    assert!(fault.message.contains("boom"), "{}", fault.message);
    assert!(records[0].fault_of(records[0].seat_of("random").unwrap()).is_none());
    assert!(records[1].fault_of(records[1].seat_of("student").unwrap()).is_none(), "{}", records[1].summary());
    let student = tally(&records, "student");
    assert_eq!(student.fault_count(FaultKind::Crashed), 1);
}

/// An agent that never enters the grader's tree searched a copy of its own:
/// its moves are marked as bounded by the wall clock alone.
#[test]
fn an_agent_with_its_own_rules_is_on_the_wall_clock() {
    let scratch = Scratch::new();
    scratch.write(
        "search.py",
        r#"
from treegrade_kit import run
def choose_move(game):
    board = game.position["board"]
    names = [c + r for r in "321" for c in "abc"]
    cells = "".join(board)
    return [n for n, cell in zip(names, cells) if cell == "."][0]
run(choose_move=choose_move)
"#,
    );
    let game = game("tic-tac-toe");
    let mut agent = python_agent("own-rules", scratch.path());
    let mut random = BuiltIn::parse("random").unwrap().agent("random");
    let records = play_series(&game, &mut agent, &mut *random, &setup(2, Some(100)), &mut |_| {});
    let own = tally(&records, "own-rules");
    assert_eq!(own.clean(), 2, "{}", records[0].summary());
    assert_eq!(own.wall_clock_moves, own.moves);
    assert_eq!(own.entered, 0);
}
