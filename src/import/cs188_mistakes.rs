//! The mistakes of CS188 students, for the diagnosis of trees imported from
//! CS188's tests: the engine's general mistakes told in CS188's terms
//! (Pacman's states, getAction, self.depth), and CS188's own. The engine
//! knows no course; this is where CS188's knowledge lives.

use crate::engine::SearchSettings;
use crate::engine::mistakes::{
    Candidate, at_one_kind_only, below_the_root, chance_mistakes, classic, depth_mistakes, window_mistakes,
};
use crate::engine::variant::{ChanceSlip, Slips};
use crate::tree::{GameRules, GameTree};

/// The mistakes of CS188 students, for trees taken from CS188's tests (a
/// `game:` block): the general ones that apply, told in CS188's terms, and
/// CS188's own (depth per move, the last ghost skipped, a summed
/// expectation, a one-move look-ahead).
pub fn candidates(tree: &dyn GameTree, settings: &SearchSettings, game: &GameRules) -> Vec<Candidate> {
    let mut list: Vec<Candidate> = classic(tree, settings)
        .into_iter()
        .chain(window_mistakes(settings))
        .chain(depth_mistakes(tree, settings))
        .chain(chance_mistakes(tree, settings))
        .filter_map(in_cs188_terms)
        .collect();
    list.extend(own(tree, settings, game));
    let halves: Vec<Candidate> = list.iter().flat_map(at_one_kind_only).collect();
    list.extend(halves);
    let twins: Vec<Candidate> = list.iter().filter_map(below_the_root).collect();
    list.extend(twins);
    list
}

/// A general mistake as a CS188 student makes it, or `None` where it
/// cannot happen in CS188 (depth in rounds is CS188's own rule; ghosts
/// are whole plies).
fn in_cs188_terms(candidate: Candidate) -> Option<Candidate> {
    let explanation = match candidate.key {
        "depth-in-rounds" | "chance-not-a-ply" => return None,
        "prune-on-equal/always" => {
            "you prune on equality (v >= beta at Pacman's states, v <= alpha at the ghosts'); CS188 forbids \
             it: prune only when v > beta (v < alpha)"
        }
        "eager-children" => {
            "you ask every successor something (isWin, isLose, getScore, getLegalActions) before searching \
             the first: ask a state only when your search reaches it (generating the successors is fine)"
        }
        "first-best-last" => {
            "ties at the start state go to your last best action; CS188 keeps the first: update the best \
             action only when a value is strictly better"
        }
        _ => return Some(candidate),
    };
    Some(Candidate { explanation: explanation.to_string(), ..candidate })
}

/// CS188's own mistakes.
fn own(tree: &dyn GameTree, settings: &SearchSettings, game: &GameRules) -> Vec<Candidate> {
    let agents = game.agents;
    let mut list = Vec::new();
    let Some(limit) = settings.depth else { return list };
    let rounds = limit / agents.max(1);
    if agents > 1 && limit.is_multiple_of(agents) {
        // Counted from the start state, or from its successors by a
        // getAction that loops over Pacman's first move itself.
        for (key, cut) in [("depth-per-ply", rounds), ("depth-per-ply/root-loop", rounds + 1)] {
            let candidate = cs188_slip(
                "depth-per-ply",
                SearchSettings { depth: Some(cut), ..*settings },
                Slips::default(),
                "you count self.depth in moves: CS188 counts it in rounds, a round being Pacman's move and \
                 then every ghost's; increase the depth only after the last ghost (agentIndex == \
                 gameState.getNumAgents() - 1) has moved",
            );
            list.push(Candidate { key, ..candidate });
        }
    }
    if agents >= 2 {
        let chance = if settings.algorithm.models_chance() { ChanceSlip::Uniform } else { ChanceSlip::None };
        list.push(cs188_slip(
            "last-ghost-skipped",
            SearchSettings { depth: Some(rounds * (agents - 1)), ..*settings },
            Slips { turn_cycle: Some(agents - 1), chance, ..Slips::default() },
            "your agents loop skips the last ghost (as with range(1, numAgents - 1)), or treats the ghosts \
             as one: every ghost moves once per round, agents 1 to getNumAgents() - 1 (range(1, numAgents))",
        ));
    }
    if tree.has_chance_nodes() {
        list.push(cs188_slip(
            "expectimax-sum",
            *settings,
            Slips { chance: ChanceSlip::Summed, ..Slips::default() },
            "your ghosts' value is the sum of their successors' values: a ghost that moves at random is \
             worth the average, so divide the sum by the number of legal actions",
        ));
    }
    if limit > 1 {
        list.push(cs188_slip(
            "one-ply-action",
            SearchSettings { depth: Some(1), ..*settings },
            Slips::default(),
            "you choose the action by evaluating each successor of the start state with \
             self.evaluationFunction, one move deep: search each successor, ghosts' moves included, to \
             self.depth rounds",
        ));
    }
    list
}

fn cs188_slip(bug: &'static str, settings: SearchSettings, slips: Slips, explanation: &str) -> Candidate {
    Candidate {
        bug,
        key: bug,
        settings,
        slips,
        explanation: explanation.to_string(),
        classic: false,
        same_trace_as: None,
        behaviour: None,
    }
}
