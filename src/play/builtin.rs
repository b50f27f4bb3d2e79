//! The built-in agents, opponents a course needs no program for: uniformly
//! random, greedy on an evaluation (one ply), and minimax or alpha-beta at a
//! depth with an evaluation, searched by the reference engine.
//!
//! Each has a short spelling, read from the command line and from
//! `assignment.yaml` alike: `random`, `greedy`, `greedy:EVAL`, `minimax:D`,
//! `alphabeta:D`, `alphabeta:D:EVAL` (`alphabeta` alone searches to the
//! end). An agent without an evaluation of its own uses the one the play
//! names. On a game with chance moves, minimax and alpha-beta search with
//! expectimax (the only search defined there).

use super::{Agent, Choice, Clock, Fault, FaultKind, Turn};
use crate::engine::random::{SplitMix64, uniform_pick};
use crate::engine::{self, Algorithm, SearchSettings};
use crate::game::{Game, UnfoldOptions};
use crate::tree::{GameTree, NodeIndex, NodeKind};

/// A built-in agent, as spelled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuiltIn {
    /// A legal move uniformly at random.
    Random,
    /// A win in one move when there is one; else the move whose position
    /// has the best evaluation for the mover, never a move that loses at
    /// once; ties broken at random.
    Greedy {
        /// Its evaluation (`None`: the play's).
        eval: Option<String>,
    },
    /// The reference engine's choice.
    Search {
        /// Minimax or alpha-beta.
        algorithm: Algorithm,
        /// Depth limit in plies (`None`: to the end of the game).
        depth: Option<u32>,
        /// Its evaluation at the depth cut (`None`: the play's).
        eval: Option<String>,
    },
}

/// Why a built-in agent's spelling is not one, or why it cannot play a
/// game (an evaluation it lacks, a depth it needs): the reason in words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AgentRefused(pub String);

impl BuiltIn {
    /// The spellings, for messages.
    pub const SPELLINGS: &'static str = "random, greedy, greedy:EVAL, minimax:DEPTH, alphabeta:DEPTH, \
                                          alphabeta:DEPTH:EVAL (alphabeta alone searches to the end)";

    /// Reads a spelling (`alphabeta:4:lines`).
    pub fn parse(text: &str) -> Result<BuiltIn, AgentRefused> {
        let parts: Vec<&str> = text.trim().split(':').collect();
        let eval = |part: Option<&&str>| part.filter(|name| !name.is_empty()).map(|name| name.to_string());
        let unknown = || AgentRefused(format!("unknown built-in agent `{text}` (built in: {})", BuiltIn::SPELLINGS));
        match parts.as_slice() {
            ["random"] => Ok(BuiltIn::Random),
            ["greedy"] | ["greedy", _] => Ok(BuiltIn::Greedy { eval: eval(parts.get(1)) }),
            [search, rest @ ..] if rest.len() <= 2 => {
                let algorithm = match *search {
                    "minimax" => Algorithm::Minimax,
                    "alphabeta" => Algorithm::AlphaBeta,
                    _ => return Err(unknown()),
                };
                let depth = match rest.first() {
                    None => None,
                    Some(&"") => None,
                    Some(depth) => Some(depth.parse::<u32>().map_err(|_| {
                        AgentRefused(format!("`{text}`: the depth of {search} must be a whole number, not `{depth}`"))
                    })?),
                };
                Ok(BuiltIn::Search { algorithm, depth, eval: eval(rest.get(1)) })
            }
            _ => Err(unknown()),
        }
    }

    /// The canonical spelling, which [`BuiltIn::parse`] reads back.
    pub fn spelling(&self) -> String {
        match self {
            BuiltIn::Random => "random".to_string(),
            BuiltIn::Greedy { eval: None } => "greedy".to_string(),
            BuiltIn::Greedy { eval: Some(eval) } => format!("greedy:{eval}"),
            BuiltIn::Search { algorithm, depth, eval } => {
                let mut text = algorithm.name().to_string();
                if depth.is_some() || eval.is_some() {
                    text.push_str(&format!(":{}", depth.map_or(String::new(), |depth| depth.to_string())));
                }
                if let Some(eval) = eval {
                    text.push_str(&format!(":{eval}"));
                }
                text
            }
        }
    }

    /// The evaluation this agent needs, given the play's: its own, or the
    /// play's, or none (random needs none; greedy and a search to the end
    /// can do without one).
    pub fn evaluation<'a>(&'a self, play_eval: Option<&'a str>) -> Option<&'a str> {
        match self {
            BuiltIn::Random => None,
            BuiltIn::Greedy { eval } | BuiltIn::Search { eval, .. } => eval.as_deref().or(play_eval),
        }
    }

    /// Checks that the agent can play `game`: its evaluation exists, and a
    /// search with a depth limit has one to value the cut.
    pub fn check(&self, game: &dyn Game, play_eval: Option<&str>) -> Result<(), AgentRefused> {
        if let Some(eval) = self.evaluation(play_eval)
            && !game.evaluations().iter().any(|known| known == eval)
        {
            let known = game.evaluations();
            return Err(AgentRefused(if known.is_empty() {
                format!("the agent {} needs the evaluation `{eval}`, but {} defines none", self.spelling(), game.name())
            } else {
                format!(
                    "the agent {} needs the evaluation `{eval}`, which {} does not define (it has: {})",
                    self.spelling(),
                    game.name(),
                    known.join(", ")
                )
            }));
        }
        if let BuiltIn::Search { depth: Some(_), .. } = self
            && self.evaluation(play_eval).is_none()
        {
            return Err(AgentRefused(format!(
                "the agent {} cuts its search at a depth, so it needs an evaluation: give one (`{}:EVAL`) or name \
                 the play's `eval`",
                self.spelling(),
                self.spelling()
            )));
        }
        if let BuiltIn::Search { depth: None, .. } = self
            && game.unbounded()
        {
            return Err(AgentRefused(format!(
                "{} can go on forever: the agent {} needs a depth",
                game.name(),
                self.spelling()
            )));
        }
        Ok(())
    }

    /// The agent, under the name reports give it.
    pub fn agent(&self, name: &str) -> Box<dyn Agent + Send> {
        Box::new(BuiltInAgent { name: name.to_string(), kind: self.clone() })
    }
}

/// A built-in agent at play.
struct BuiltInAgent {
    name: String,
    kind: BuiltIn,
}

impl Agent for BuiltInAgent {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Choice, Fault> {
        let chosen = match &self.kind {
            BuiltIn::Random => {
                let pick = uniform_pick(SplitMix64::new(turn.seed).draw(), turn.actions.len() as u32) as usize;
                Ok((turn.actions.get(pick).cloned().unwrap_or_default(), 0))
            }
            BuiltIn::Greedy { .. } => self.greedy(turn),
            BuiltIn::Search { algorithm, depth, .. } => self.search(turn, *algorithm, *depth),
        };
        let (action, entered) = chosen
            .map_err(|message| Fault::new(FaultKind::Crashed, format!("the built-in agent failed: {message}")))?;
        Ok(Choice { action, entered, clock: Clock::Engine, stderr: String::new() })
    }
}

impl BuiltInAgent {
    fn unfold(&self, turn: &Turn<'_>) -> Result<Box<dyn GameTree + Send>, String> {
        let eval = self.kind.evaluation(turn.limits.eval.as_deref()).map(str::to_string);
        turn.game.unfold(&UnfoldOptions { eval, ..UnfoldOptions::default() }).map_err(|error| error.to_string())
    }

    /// The child with the best static value for the mover, ties at random.
    fn greedy(&self, turn: &Turn<'_>) -> Result<(String, u64), String> {
        let tree = self.unfold(turn)?;
        let children: Vec<NodeIndex> = tree.children(NodeIndex::ROOT).collect();
        // A win seen is taken and a loss avoided whatever the evaluation's
        // scale; among the rest, the best evaluation (a position without one
        // is neutral).
        let keys: Vec<(u8, f64)> = children
            .iter()
            .map(|&child| {
                let value = turn.seat.view(engine::static_value(&*tree, child).unwrap_or(0.0));
                let class = match tree.kind(child) {
                    NodeKind::Terminal if value > 0.0 => 2,
                    NodeKind::Terminal if value < 0.0 => 0,
                    _ => 1,
                };
                (class, value)
            })
            .collect();
        let best = keys.iter().copied().fold((0, f64::NEG_INFINITY), |best, key| {
            if key.0 > best.0 || (key.0 == best.0 && key.1 > best.1) { key } else { best }
        });
        let tied: Vec<usize> = (0..children.len()).filter(|&index| keys[index] == best).collect();
        let pick = tied.get(uniform_pick(SplitMix64::new(turn.seed).draw(), tied.len() as u32) as usize);
        let pick = pick.ok_or("no legal move")?;
        Ok((tree.action(children[*pick]).into_owned(), children.len() as u64 + 1))
    }

    /// The reference engine's choice at the agent's depth, on the game's
    /// tree with its ends made decisive (see [`Decisive`]).
    fn search(&self, turn: &Turn<'_>, algorithm: Algorithm, depth: Option<u32>) -> Result<(String, u64), String> {
        let tree = Decisive(self.unfold(turn)?);
        let algorithm = if tree.has_chance_nodes() { Algorithm::Expectimax } else { algorithm };
        let settings = SearchSettings { depth, ..SearchSettings::new(algorithm) };
        let outcome = engine::search(&tree, &settings).map_err(|error| {
            let message = error.to_string();
            // A search to the end on a big game: the agent's spelling is what to change.
            if depth.is_none() && crate::game::is_node_limit_fault(&message) {
                format!(
                    "{} searches to the end of the game, which made more than {} nodes for one move: give it a \
                     depth, e.g. {}:4",
                    self.kind.spelling(),
                    crate::game::DEFAULT_MAX_NODES,
                    self.kind.spelling()
                )
            } else {
                message
            }
        })?;
        let child = outcome.action.ok_or("the search chose no move")?;
        Ok((tree.action(child).into_owned(), outcome.visited.len() as u64))
    }
}

/// How much more an end of the game weighs than any evaluation.
pub const DECISIVE: f64 = 1e9;

/// A game's tree whose terminals are worth their utility times
/// [`DECISIVE`]: a game's evaluation may run into the hundreds (an
/// m,n,k-game's `lines`) where a win is worth 1, and an agent that searches
/// to a depth must never prefer a promising position to a won game. Every
/// other answer is the tree's own.
pub struct Decisive(pub Box<dyn GameTree + Send>);

impl GameTree for Decisive {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn game_name(&self) -> Option<&str> {
        self.0.game_name()
    }

    fn kind(&self, node: NodeIndex) -> NodeKind {
        self.0.kind(node)
    }

    fn child_range(&self, node: NodeIndex) -> std::ops::Range<u32> {
        self.0.child_range(node)
    }

    fn made_children(&self, node: NodeIndex) -> Option<std::ops::Range<u32>> {
        self.0.made_children(node)
    }

    fn utility(&self, node: NodeIndex) -> f64 {
        self.0.utility(node) * DECISIVE
    }

    fn eval(&self, node: NodeIndex) -> Option<f64> {
        self.0.eval(node)
    }

    fn probability(&self, node: NodeIndex) -> f64 {
        self.0.probability(node)
    }

    fn ply(&self, node: NodeIndex) -> u32 {
        self.0.ply(node)
    }

    fn parent(&self, node: NodeIndex) -> Option<NodeIndex> {
        self.0.parent(node)
    }

    fn id(&self, node: NodeIndex) -> std::borrow::Cow<'_, str> {
        self.0.id(node)
    }

    fn action(&self, node: NodeIndex) -> std::borrow::Cow<'_, str> {
        self.0.action(node)
    }

    fn has_chance_nodes(&self) -> bool {
        self.0.has_chance_nodes()
    }

    fn unbounded(&self) -> bool {
        self.0.unbounded()
    }

    fn size(&self) -> Option<usize> {
        self.0.size()
    }

    fn made(&self) -> usize {
        self.0.made()
    }

    fn fault(&self) -> Option<String> {
        self.0.fault()
    }

    fn evaluations(&self) -> Option<Vec<String>> {
        self.0.evaluations()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::MoveLimits;
    use crate::play::Seat;

    #[test]
    fn spellings_round_trip() {
        for text in ["random", "greedy", "greedy:lines", "minimax:2", "alphabeta:4", "alphabeta", "alphabeta:3:lines"] {
            let agent = BuiltIn::parse(text).unwrap();
            assert_eq!(agent.spelling(), text);
        }
        assert_eq!(BuiltIn::parse("alphabeta::lines").unwrap().spelling(), "alphabeta::lines");
        assert!(BuiltIn::parse("minimax:two").unwrap_err().to_string().contains("whole number"));
        assert!(BuiltIn::parse("mcts").unwrap_err().to_string().contains("unknown built-in agent `mcts`"));
    }

    #[test]
    fn checks_say_what_is_missing() {
        let game = crate::play::referee::tests::game("connect-four");
        assert!(
            BuiltIn::parse("alphabeta:4")
                .unwrap()
                .check(&*game, None)
                .unwrap_err()
                .to_string()
                .contains("needs an evaluation")
        );
        assert!(BuiltIn::parse("alphabeta:4").unwrap().check(&*game, Some("lines")).is_ok());
        assert!(
            BuiltIn::parse("greedy:score")
                .unwrap()
                .check(&*game, None)
                .unwrap_err()
                .to_string()
                .contains("it has: lines")
        );
        let pig = crate::play::referee::tests::game("pig");
        assert!(
            BuiltIn::parse("alphabeta").unwrap().check(&*pig, None).unwrap_err().to_string().contains("go on forever")
        );
    }

    /// Greedy takes a win in one; alpha-beta to the end blocks a loss in two.
    #[test]
    fn greedy_wins_and_a_full_search_defends() {
        let position = serde_json::json!("xx./oo./...");
        let game = crate::game::make(&crate::game::GameArgs {
            name: "tic-tac-toe",
            params: &[],
            position: Some(&position),
            utility: None,
        })
        .unwrap();
        let limits = MoveLimits { eval: Some("lines".into()), ..MoveLimits::default() };
        let actions: Vec<String> = ["c3", "c2", "a1", "b1", "c1"].iter().map(|s| s.to_string()).collect();
        let turn = |seat| Turn {
            game: &*game,
            label: "t",
            seat,
            ply: 4,
            history: &[],
            actions: &actions,
            state: None,
            seed: 1,
            limits: &limits,
        };
        let mut greedy = BuiltIn::parse("greedy").unwrap().agent("g");
        assert_eq!(greedy.choose(&turn(Seat::Max)).unwrap().action, "c3");
        // O to move must block X's row.
        let threat = serde_json::json!("xx./o../...");
        let game = crate::game::make(&crate::game::GameArgs {
            name: "tic-tac-toe",
            params: &[],
            position: Some(&threat),
            utility: None,
        })
        .unwrap();
        let actions: Vec<String> = ["c3", "b2", "c2", "a1", "b1", "c1"].iter().map(|s| s.to_string()).collect();
        let turn = Turn { game: &*game, seat: Seat::Min, actions: &actions, ..turn(Seat::Min) };
        let mut perfect = BuiltIn::parse("alphabeta").unwrap().agent("p");
        let choice = perfect.choose(&turn).unwrap();
        assert_eq!(choice.action, "c3");
        assert_eq!(choice.clock, Clock::Engine);
        assert!(choice.entered > 1);
    }
}
