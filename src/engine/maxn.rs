//! Max^n (docs/format.md 8.3): N players, each maximising its own component
//! of a utility vector.
//!
//! A plain depth-first search without pruning over any [`GameTree`]: a
//! written max^n tree, or a tree of MAX and MIN read as two players (MAX
//! is player 1, MIN player 2, a utility u is [u, -u]). Iterative, as the
//! other searches are, so that a deep chain cannot overflow the stack.
//! With error bounds kept, it also finds the first fragile comparison of
//! one component (2.1).

use super::fragile::{ChanceSum, FragileComparison, fragile};
use super::variant::BeyondSlip;
use super::{SearchError, SearchExtra, SearchOutcome, SearchSettings, Stop, stop_error};
use crate::tree::{GameTree, NodeIndex, NodeKind};

/// The max^n search with `settings` (its depth limit), and with `bounds`
/// the first fragile comparison it makes; `slip` makes one of a student's
/// mistakes in choosing the component compared.
pub(super) fn search<T: GameTree + ?Sized>(
    tree: &T,
    settings: &SearchSettings,
    bounds: Bounds,
    slip: BeyondSlip,
) -> Result<(SearchOutcome, Option<FragileComparison>), SearchError> {
    let players = tree.players().unwrap_or(2);
    let root_player = tree.player(NodeIndex::ROOT).unwrap_or(1);
    let compared = match slip {
        BeyondSlip::FirstComponent => Compared::Fixed(0),
        BeyondSlip::RootComponent => Compared::Fixed(root_player - 1),
        BeyondSlip::ComponentAfterMover => Compared::After,
        BeyondSlip::ComponentBeforeMover => Compared::Before,
        BeyondSlip::ComponentAfterMoverWrapping => Compared::AfterWrapping,
        BeyondSlip::ComponentAfterMoverClamped => Compared::AfterClamped,
        BeyondSlip::MoverByPly => Compared::ByPly(0),
        BeyondSlip::MoverByPlyFromRoot => Compared::ByPly(root_player - 1),
        _ => Compared::Mover,
    };
    let chance = match slip {
        BeyondSlip::ChanceUniform => ChanceReading::Uniform,
        BeyondSlip::ChanceAsPlayerOne => ChanceReading::PlayerOne,
        _ => ChanceReading::Expectation,
    };
    let ties = if slip == BeyondSlip::LastOfEqual { Ties::Last } else { Ties::First };
    let mut search = Maxn {
        tree,
        depth: settings.depth,
        visited: Vec::new(),
        stop: None,
        bounds,
        fragile: None,
        compared,
        chance,
        ties,
        players,
    };
    let (value, action) = search.explore();
    if let Some(stop) = search.stop {
        return Err(stop_error(tree, stop, settings.depth));
    }
    let outcome = SearchOutcome {
        value: value.first().copied().unwrap_or(0.0),
        action,
        visited: search.visited,
        cutoffs: Vec::new(),
        extra: SearchExtra::Vector(value),
    };
    Ok((outcome, search.fragile))
}

/// Whether the search keeps error bounds (to find fragile comparisons).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bounds {
    /// Values only.
    Skipped,
    /// Values and their error bounds, component by component.
    Kept,
}

/// One node whose children are being searched.
struct Frame {
    node: NodeIndex,
    /// The player to move (1-based), `None` at a chance node.
    player: Option<u32>,
    children: std::ops::Range<u32>,
    next: u32,
    /// The best vector so far (a player's node), or the sum so far (chance).
    value: Option<Vec<f64>>,
    best_child: Option<NodeIndex>,
    /// Per component: the bound of the best vector, or the chance sums.
    bounds: FrameBounds,
}

enum FrameBounds {
    None,
    Best(Vec<f64>),
    Sums(Vec<ChanceSum>),
}

struct Maxn<'t, T: GameTree + ?Sized> {
    tree: &'t T,
    depth: Option<u32>,
    visited: Vec<NodeIndex>,
    stop: Option<Stop>,
    bounds: Bounds,
    fragile: Option<FragileComparison>,
    compared: Compared,
    chance: ChanceReading,
    ties: Ties,
    players: u32,
}

/// How a chance node is valued (the expectation, in the reference).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ChanceReading {
    /// The sum of p times each child's vector (docs/format.md 8.3).
    Expectation,
    /// Each child weighted 1/n, whatever its probability.
    Uniform,
    /// A node of player 1's.
    PlayerOne,
}

/// Which of equal best children a player's node keeps (the first, in the reference).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ties {
    First,
    Last,
}

/// Which component a player's node compares (the mover's, in the reference).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compared {
    /// The mover's own (docs/format.md 8.3).
    Mover,
    /// This one (0-based) at every node.
    Fixed(u32),
    /// The next player's (`vector[player]`): out of range for player N.
    After,
    /// The previous player's (`vector[player - 2]`), player N's for player 1.
    Before,
    /// The next player's (`vector[player % N]`), player 1's for player N.
    AfterWrapping,
    /// The next player's (`vector[min(player, N - 1)]`), player N's own for player N.
    AfterClamped,
    /// The component of the player the ply gives, counting on from this
    /// one (0-based) at the root: `(start + ply) % N`.
    ByPly(u32),
}

/// A child's vector and its bounds (zeros unless bounds are kept).
type Valued = (Vec<f64>, Vec<f64>);

impl<T: GameTree + ?Sized> Maxn<'_, T> {
    fn explore(&mut self) -> (Vec<f64>, Option<NodeIndex>) {
        let mut stack = match self.enter(NodeIndex::ROOT) {
            Ok(valued) => return (valued.0, None),
            Err(frame) => vec![frame],
        };
        loop {
            if matches!(self.stop, Some(Stop::Unfolding(_))) {
                return (Vec::new(), None);
            }
            let top = stack.last_mut().expect("the stack holds at least the root");
            if top.next < top.children.end {
                let child = NodeIndex(top.next);
                top.next += 1;
                match self.enter(child) {
                    Ok(valued) => {
                        let parent = stack.last_mut().expect("the parent's frame");
                        self.absorb(parent, child, valued);
                    }
                    Err(frame) => stack.push(frame),
                }
                continue;
            }
            let done = stack.pop().expect("a frame to close");
            let action = done.best_child;
            let valued = self.close(done);
            match stack.last_mut() {
                Some(parent) => {
                    let child = NodeIndex(parent.next - 1);
                    self.absorb(parent, child, valued);
                }
                None => return (valued.0, action),
            }
        }
    }

    /// Enters a node: its vector at once (a terminal, a depth cut), or a frame.
    fn enter(&mut self, node: NodeIndex) -> Result<Valued, Frame> {
        self.visited.push(node);
        let tree = self.tree;
        let players = tree.players().unwrap_or(2) as usize;
        let kind = tree.kind(node);
        if kind == NodeKind::Terminal {
            return Ok(exact(tree.utility_vector(node)));
        }
        if self.depth == Some(tree.ply(node)) {
            let eval = tree.eval_vector(node).unwrap_or_else(|| {
                self.stop.get_or_insert(Stop::MissingEval(node.0));
                vec![0.0; players]
            });
            return Ok(exact(eval));
        }
        let children = tree.child_range(node);
        if tree.fault().is_some() {
            self.stop = Some(Stop::Unfolding(node.0));
            return Ok(exact(vec![0.0; players]));
        }
        let chance = kind == NodeKind::Chance;
        let bounds = match (self.bounds, chance && self.chance != ChanceReading::PlayerOne) {
            (Bounds::Skipped, _) => FrameBounds::None,
            (Bounds::Kept, true) => FrameBounds::Sums(vec![ChanceSum::default(); players]),
            (Bounds::Kept, false) => FrameBounds::Best(vec![0.0; players]),
        };
        let player = match (chance, self.chance) {
            (false, _) => tree.player(node),
            (true, ChanceReading::PlayerOne) => Some(1),
            (true, _) => None,
        };
        Err(Frame {
            node,
            player,
            next: children.start,
            children,
            value: player.is_none().then(|| vec![0.0; players]),
            best_child: None,
            bounds,
        })
    }

    /// Folds a child's vector into its parent's frame (docs/format.md 8.3).
    fn absorb(&mut self, frame: &mut Frame, child: NodeIndex, (vector, child_bounds): Valued) {
        match frame.player {
            None => {
                let p = match self.chance {
                    ChanceReading::Uniform => 1.0 / frame.children.len() as f64,
                    _ => self.tree.probability(child),
                };
                let sum = frame.value.as_mut().expect("a chance frame starts at zero");
                for (component, value) in sum.iter_mut().zip(&vector) {
                    // acc = acc + p * v, component by component, in child order (section 2).
                    *component += p * value;
                }
                if let FrameBounds::Sums(sums) = &mut frame.bounds {
                    for ((sum, &value), &bound) in sums.iter_mut().zip(&vector).zip(&child_bounds) {
                        sum.add(p, (value, bound));
                    }
                }
            }
            Some(player) => {
                let i = match self.compared {
                    Compared::Mover => player as usize - 1,
                    Compared::Fixed(i) => i as usize,
                    Compared::After if player < self.players => player as usize,
                    Compared::After => {
                        // `vector[player]` past the last component: the student's search crashes.
                        self.stop = Some(Stop::Unfolding(frame.node.0));
                        return;
                    }
                    Compared::Before => ((player + self.players - 2) % self.players) as usize,
                    Compared::AfterWrapping => (player % self.players) as usize,
                    Compared::AfterClamped => player.min(self.players - 1) as usize,
                    Compared::ByPly(start) => ((start + self.tree.ply(frame.node)) % self.players) as usize,
                };
                let Some(best) = frame.value.as_ref() else {
                    frame.value = Some(vector);
                    frame.best_child = Some(child);
                    if let FrameBounds::Best(best_bounds) = &mut frame.bounds {
                        *best_bounds = child_bounds;
                    }
                    return;
                };
                if let FrameBounds::Best(best_bounds) = &mut frame.bounds
                    && self.fragile.is_none()
                {
                    self.fragile = fragile(
                        frame.node,
                        "a child's component against the best so far",
                        (vector[i], child_bounds[i]),
                        (best[i], best_bounds[i]),
                    );
                }
                let better = match self.ties {
                    Ties::First => vector[i] > best[i],
                    Ties::Last => vector[i] >= best[i],
                };
                if better {
                    frame.value = Some(vector);
                    frame.best_child = Some(child);
                    if let FrameBounds::Best(best_bounds) = &mut frame.bounds {
                        *best_bounds = child_bounds;
                    }
                }
            }
        }
    }

    /// A frame's vector and bounds once all its children are searched.
    fn close(&mut self, frame: Frame) -> Valued {
        let value = frame.value.unwrap_or_default();
        let bounds = match frame.bounds {
            FrameBounds::None => vec![0.0; value.len()],
            FrameBounds::Best(bounds) => bounds,
            FrameBounds::Sums(sums) => sums.into_iter().zip(&value).map(|(sum, &v)| sum.bound(v)).collect(),
        };
        (value, bounds)
    }
}

/// A vector known exactly (bound 0 in every component).
fn exact(vector: Vec<f64>) -> Valued {
    let bounds = vec![0.0; vector.len()];
    (vector, bounds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Algorithm, SearchSettings};
    use crate::tree::fixtures::aima;

    fn run(tree: &impl GameTree, settings: &SearchSettings) -> SearchOutcome {
        search(tree, settings, Bounds::Skipped, BeyondSlip::None).unwrap().0
    }

    #[test]
    fn a_two_player_tree_reads_as_minimax() {
        let tree = aima();
        let maxn = run(&tree, &SearchSettings::new(Algorithm::Maxn));
        let minimax = crate::engine::search(&tree, &SearchSettings::new(Algorithm::Minimax)).unwrap();
        assert_eq!(maxn.extra, SearchExtra::Vector(vec![3.0, -3.0]));
        assert_eq!((maxn.value, maxn.action), (minimax.value, minimax.action));
        assert_eq!(maxn.visited, minimax.visited);
    }

    /// A tree of three players: its first node is the root over the others,
    /// each of which has the inline vector leaves given (mover, id, leaves).
    fn three_players(nodes: &[(u32, &str, &[[f64; 3]])]) -> crate::tree::Tree {
        use crate::tree::{ChildSpec, NodeSpec, PlayerSpecs, Site, TreeBuilder};
        let mut builder = TreeBuilder::new("players", nodes[0].1);
        let mut players = PlayerSpecs { count: 3, ..PlayerSpecs::default() };
        let kind = |mover: u32| if mover == 1 { NodeKind::Max } else { NodeKind::Min };
        let (root_mover, root, _) = nodes[0];
        let children = nodes[1..].iter().map(|(_, id, _)| ChildSpec::id(*id)).collect();
        let spec = builder.add(NodeSpec::internal(root, kind(root_mover), children));
        players.movers.insert(spec, root_mover);
        for &(mover, id, leaves) in &nodes[1..] {
            let children = leaves.iter().map(|leaf| ChildSpec::leaf(leaf[0])).collect();
            let spec = builder.add(NodeSpec::internal(id, kind(mover), children));
            players.movers.insert(spec, mover);
            for (child, leaf) in leaves.iter().enumerate() {
                players.vectors.insert(Site::Child { node: spec, child }, leaf.to_vec());
            }
        }
        builder.set_players(players);
        builder.build().unwrap()
    }

    /// A tree of three players: A (player 1) over B, a chance node over
    /// [9, 0, 4] at 0.2 and [1, 3, 2] at 0.8, and C (player 2) over
    /// [3, 2, 2] and [6, 2, 0], which tie on player 2's component.
    fn chance_and_tie() -> crate::tree::Tree {
        use crate::tree::{ChildSpec, NodeBody, NodeSpec, PlayerSpecs, Site, TreeBuilder};
        let mut builder = TreeBuilder::new("chance-and-tie", "A");
        let mut players = PlayerSpecs { count: 3, ..PlayerSpecs::default() };
        let root = builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        players.movers.insert(root, 1);
        let chance = builder.add(NodeSpec {
            id: "B".into(),
            body: NodeBody::Internal {
                kind: NodeKind::Chance,
                children: vec![ChildSpec::leaf(9.0), ChildSpec::leaf(1.0)],
                probs: Some(vec![0.2, 0.8]),
                eval: None,
            },
        });
        let tie = builder.add(NodeSpec::internal("C", NodeKind::Min, vec![ChildSpec::leaf(3.0), ChildSpec::leaf(6.0)]));
        players.movers.insert(tie, 2);
        let leaves = [(chance, [[9.0, 0.0, 4.0], [1.0, 3.0, 2.0]]), (tie, [[3.0, 2.0, 2.0], [6.0, 2.0, 0.0]])];
        for (node, vectors) in leaves {
            for (child, vector) in vectors.iter().enumerate() {
                players.vectors.insert(Site::Child { node, child }, vector.to_vec());
            }
        }
        builder.set_players(players);
        builder.build().unwrap()
    }

    #[test]
    fn the_mistakes_at_chance_nodes_and_ties_change_the_root_vector() {
        let tree = chance_and_tie();
        let settings = SearchSettings::new(Algorithm::Maxn);
        let run = |slip| search(&tree, &settings, Bounds::Skipped, slip).unwrap().0;
        let vector = |slip| run(slip).vector().unwrap().to_vec();
        let action = |slip| run(slip).action.map(|child| tree.id(child).to_string());
        // B is worth 0.2 x [9, 0, 4] + 0.8 x [1, 3, 2] = [2.6, 2.4, 2.4]; C keeps
        // [3, 2, 2], the first of its two 2s; player 1 takes C.
        assert_eq!((vector(BeyondSlip::None), action(BeyondSlip::None)), (vec![3.0, 2.0, 2.0], Some("C".into())));
        // Each child weighted 1/2: B is [5, 1.5, 3], which player 1 prefers.
        assert_eq!(vector(BeyondSlip::ChanceUniform), [5.0, 1.5, 3.0]);
        // B choosing as player 1 does: [9, 0, 4].
        assert_eq!(vector(BeyondSlip::ChanceAsPlayerOne), [9.0, 0.0, 4.0]);
        assert_eq!(action(BeyondSlip::ChanceAsPlayerOne), Some("B".into()));
        // The last of C's equal 2s: [6, 2, 0].
        assert_eq!(vector(BeyondSlip::LastOfEqual), [6.0, 2.0, 0.0]);
        assert_eq!(run(BeyondSlip::LastOfEqual).visited, run(BeyondSlip::None).visited, "no pruning either way");
    }

    #[test]
    fn the_mistakes_compare_another_component() {
        // R: p2 over X (p3 over [9, 1, 5], [7, 2, 6]) and Y (p1 over [3, 4, 0], [5, 3, 1]).
        let tree = three_players(&[
            (2, "R", &[]),
            (3, "X", &[[9.0, 1.0, 5.0], [7.0, 2.0, 6.0]]),
            (1, "Y", &[[3.0, 4.0, 0.0], [5.0, 3.0, 1.0]]),
        ]);
        let settings = SearchSettings::new(Algorithm::Maxn);
        let run = |slip| search(&tree, &settings, Bounds::Skipped, slip).map(|(outcome, _)| outcome.extra);
        let vector = |values: &[f64]| Ok(SearchExtra::Vector(values.to_vec()));
        // X: p3 takes [7, 2, 6]; Y: p1 takes [5, 3, 1]; R: p2 takes Y (3 > 2).
        assert_eq!(run(BeyondSlip::None), vector(&[5.0, 3.0, 1.0]));
        // Player 1's component everywhere: X takes [9, 1, 5], Y [5, 3, 1], R X.
        assert_eq!(run(BeyondSlip::FirstComponent), vector(&[9.0, 1.0, 5.0]));
        // The root's player's (2) everywhere: X [7, 2, 6], Y [3, 4, 0], R Y.
        assert_eq!(run(BeyondSlip::RootComponent), vector(&[3.0, 4.0, 0.0]));
        // Player 3 reads past the vector: the student's search crashes.
        assert!(run(BeyondSlip::ComponentAfterMover).is_err());
        // One before: p3 compares component 2, p1 component 3, p2 component 1: R takes X.
        assert_eq!(run(BeyondSlip::ComponentBeforeMover), vector(&[7.0, 2.0, 6.0]));
        // One after, wrapping round: p3 compares component 1 (X [9, 1, 5]), p1
        // component 2 (Y [3, 4, 0]), p2 component 3: R takes X.
        assert_eq!(run(BeyondSlip::ComponentAfterMoverWrapping), vector(&[9.0, 1.0, 5.0]));
        // One after, the last player its own: X [7, 2, 6], Y [3, 4, 0], R X.
        assert_eq!(run(BeyondSlip::ComponentAfterMoverClamped), vector(&[7.0, 2.0, 6.0]));
        // By the ply, player 1 at the root: R compares component 1, X and Y
        // component 2: X [7, 2, 6], Y [3, 4, 0], R X (7 > 3).
        assert_eq!(run(BeyondSlip::MoverByPly), vector(&[7.0, 2.0, 6.0]));
        // By the ply from the root's player (2): X and Y compare component 3,
        // X [7, 2, 6], Y [5, 3, 1], R takes Y (3 > 2): the reference's, by luck.
        assert_eq!(run(BeyondSlip::MoverByPlyFromRoot), run(BeyondSlip::None));
    }
}
