//! Turning node descriptions into a validated arena.
//!
//! Every producer of trees (the YAML loader, importers, generators, tests)
//! describes nodes as [`NodeSpec`]s and lets [`TreeBuilder::build`] enforce
//! the structural rules of docs/format.md section 1 in one place. Errors name the
//! [`Site`] of the offending spec so that the producer can translate it back
//! into its own coordinates (a line and column, for the YAML loader).

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};

use thiserror::Error;

use super::players::PlayerSpecs;
use super::{Node, NodeIndex, NodeKind, SearchDefaults, Tree};

/// Probabilities must sum to 1 within this tolerance (docs/format.md section 1).
pub const PROBABILITY_SUM_TOLERANCE: f64 = 1e-9;

/// One node as a producer describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    /// The node's id.
    pub id: String,
    /// What the node is.
    pub body: NodeBody,
}

/// The content of a node description.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeBody {
    /// A terminal with its utility.
    Terminal(f64),
    /// A max, min or chance node.
    Internal {
        /// Max, Min or Chance.
        kind: NodeKind,
        /// Children in search order.
        children: Vec<ChildSpec>,
        /// Chance probabilities, one per child; `None` means uniform.
        probs: Option<Vec<f64>>,
        /// Heuristic value for depth cuts.
        eval: Option<f64>,
    },
}

/// One edge of an internal node.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildSpec {
    /// The edge's action label; `None` means the child's id.
    pub action: Option<String>,
    /// Where the edge leads.
    pub target: ChildTarget,
}

/// The far end of an edge.
#[derive(Clone, Debug, PartialEq)]
pub enum ChildTarget {
    /// A node defined elsewhere by id.
    Id(String),
    /// An inline leaf with this utility; its id is `PARENT.K`.
    Leaf(f64),
}

impl ChildSpec {
    /// An edge to a node by id, its action being the id.
    pub fn id(id: impl Into<String>) -> ChildSpec {
        ChildSpec { action: None, target: ChildTarget::Id(id.into()) }
    }

    /// An edge with an explicit action label.
    pub fn labelled(action: impl Into<String>, id: impl Into<String>) -> ChildSpec {
        ChildSpec { action: Some(action.into()), target: ChildTarget::Id(id.into()) }
    }

    /// An inline leaf.
    pub fn leaf(value: f64) -> ChildSpec {
        ChildSpec { action: None, target: ChildTarget::Leaf(value) }
    }
}

impl NodeSpec {
    /// A terminal node.
    pub fn terminal(id: impl Into<String>, utility: f64) -> NodeSpec {
        NodeSpec { id: id.into(), body: NodeBody::Terminal(utility) }
    }

    /// An internal node without probabilities or eval.
    pub fn internal(id: impl Into<String>, kind: NodeKind, children: Vec<ChildSpec>) -> NodeSpec {
        NodeSpec { id: id.into(), body: NodeBody::Internal { kind, children, probs: None, eval: None } }
    }
}

/// Where in the producer's input an error lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Site {
    /// The root reference.
    Root,
    /// The node spec with this index (in the order added).
    Node(usize),
    /// Child `child` (0-based) of node spec `node`.
    Child {
        /// Spec index of the parent.
        node: usize,
        /// 0-based position in the child list.
        child: usize,
    },
    /// The `probs` list of node spec `node`.
    Probs(usize),
}

impl Site {
    /// Orders sites as they appear in a description: root, then node by node.
    fn order_key(self) -> (usize, usize) {
        match self {
            Site::Root => (0, 0),
            Site::Node(node) => (node + 1, 0),
            Site::Child { node, child } => (node + 1, child + 1),
            Site::Probs(node) => (node + 1, usize::MAX),
        }
    }
}

/// A structural error with the place it was found.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("{kind}")]
pub struct BuildError {
    /// Where the problem is.
    pub site: Site,
    /// What the problem is.
    pub kind: BuildErrorKind,
}

/// Every way a tree description can be structurally wrong.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum BuildErrorKind {
    /// Two nodes share an id.
    #[error("duplicate node id `{id}`: it is already defined (or generated for an inline leaf) elsewhere")]
    DuplicateId {
        /// The repeated id.
        id: String,
    },
    /// The root id names no node.
    #[error("the root `{id}` is not defined under `nodes`")]
    MissingRoot {
        /// The root id.
        id: String,
    },
    /// A child id names no node.
    #[error("node `{parent}` has a child `{child}` that is not defined under `nodes`")]
    MissingChild {
        /// The parent's id.
        parent: String,
        /// The missing id.
        child: String,
    },
    /// A node appears in two child lists.
    #[error("node `{child}` has two parents: `{first}` and `{second}` (a tree gives each node one parent)")]
    SecondParent {
        /// The child with two parents.
        child: String,
        /// Its first parent.
        first: String,
        /// Its second parent.
        second: String,
    },
    /// The root is someone's child.
    #[error("the root `{root}` appears as a child of `{parent}`: the root has no parent")]
    RootHasParent {
        /// The root id.
        root: String,
        /// The node listing the root as a child.
        parent: String,
    },
    /// Nodes that form a cycle away from the root.
    #[error("cycle: {}", path.join(" -> "))]
    Cycle {
        /// The ids around the cycle, first repeated at the end.
        path: Vec<String>,
    },
    /// A node the root cannot reach.
    #[error("node `{id}` is unreachable: no path from the root leads to it")]
    Unreachable {
        /// The unreachable id.
        id: String,
    },
    /// An internal node without children.
    #[error("internal node `{id}` has no children (a node without children is written as a number or `{{value: N}}`)")]
    NoChildren {
        /// The node's id.
        id: String,
    },
    /// Two edges of one node carry the same action.
    #[error("node `{parent}` has two children with the action `{action}`: actions must be unique among siblings")]
    DuplicateAction {
        /// The parent's id.
        parent: String,
        /// The repeated action.
        action: String,
    },
    /// `probs` on a node that is not a chance node.
    #[error("node `{id}` has `probs` but is not a chance node")]
    ProbsOnNonChance {
        /// The node's id.
        id: String,
    },
    /// `probs` with the wrong number of entries.
    #[error("node `{id}` has {children} children but {probs} probabilities")]
    ProbabilityCount {
        /// The node's id.
        id: String,
        /// Number of children.
        children: usize,
        /// Number of probabilities.
        probs: usize,
    },
    /// A probability outside [0, 1].
    #[error("node `{id}`: probability {value} (entry {position}) is outside [0, 1]")]
    ProbabilityRange {
        /// The node's id.
        id: String,
        /// 1-based position.
        position: usize,
        /// The bad value.
        value: f64,
    },
    /// Probabilities that do not sum to 1.
    #[error("node `{id}`: probabilities sum to {sum}, not 1 (tolerance 1e-9)")]
    ProbabilitySum {
        /// The node's id.
        id: String,
        /// The actual sum.
        sum: f64,
    },
    /// NaN or an infinity.
    #[error("node `{id}`: {what} is {value}, but values must be finite numbers")]
    NotFinite {
        /// The node's id.
        id: String,
        /// Which number (utility, eval, a child leaf...).
        what: String,
        /// The bad value.
        value: f64,
    },
    /// More nodes than the arena can index.
    #[error("the tree has more than {max} nodes", max = u32::MAX)]
    TooLarge,
    /// A utility or eval vector of a max^n tree with the wrong number of components.
    #[error(
        "node `{id}`: a vector of {length} numbers, but the tree has {players} players (one component each, \
         docs/format.md 8.3)"
    )]
    VectorLength {
        /// The node's id.
        id: String,
        /// The vector's length.
        length: usize,
        /// The tree's players.
        players: u32,
    },
    /// A max^n node moved by a player the tree does not have.
    #[error("node `{id}` is moved by player {player}, but the tree has players 1 to {players}")]
    NoSuchPlayer {
        /// The node's id.
        id: String,
        /// The player named.
        player: u32,
        /// The tree's players.
        players: u32,
    },
}

/// Collects node descriptions and builds a validated [`Tree`].
#[derive(Clone, Debug, Default)]
pub struct TreeBuilder {
    name: String,
    root: String,
    specs: Vec<NodeSpec>,
    players: Option<PlayerSpecs>,
}

/// Where an arena slot's content comes from while building.
#[derive(Clone, Copy)]
enum Source {
    Spec(usize),
    /// The inline leaf at 0-based `position` under its parent.
    Leaf {
        position: usize,
    },
}

impl TreeBuilder {
    /// Starts a tree with a name and the id of its root.
    pub fn new(name: impl Into<String>, root: impl Into<String>) -> TreeBuilder {
        TreeBuilder { name: name.into(), root: root.into(), specs: Vec::new(), players: None }
    }

    /// Adds a node; returns its spec index (used in [`Site`]).
    pub fn add(&mut self, spec: NodeSpec) -> usize {
        self.specs.push(spec);
        self.specs.len() - 1
    }

    /// Adds nodes in order, as [`TreeBuilder::add`] does one by one.
    pub fn add_all(&mut self, specs: Vec<NodeSpec>) {
        if self.specs.is_empty() {
            self.specs = specs; // no copy of a large description
        } else {
            self.specs.extend(specs);
        }
    }

    /// Makes the tree a max^n tree (docs/format.md 8.3) with these players,
    /// movers and vectors.
    pub fn set_players(&mut self, players: PlayerSpecs) {
        self.players = Some(players);
    }

    /// Number of specs added so far.
    pub fn spec_count(&self) -> usize {
        self.specs.len()
    }

    /// Validates everything and lays the nodes out in breadth-first order.
    ///
    /// Returns every error found (in site order), not only the first, so that
    /// an author can fix a file in one pass.
    pub fn build(self) -> Result<Tree, Vec<BuildError>> {
        self.build_with_origins().map(|(tree, _)| tree)
    }

    /// Like [`TreeBuilder::build`], also returning where each arena node came
    /// from: `Site::Node(spec)` for a defined node, `Site::Child` for an
    /// inline leaf. Producers use it to point at a node in their own input.
    pub fn build_with_origins(mut self) -> Result<(Tree, Vec<Site>), Vec<BuildError>> {
        let mut errors = Vec::new();
        let index = self.index_ids(&mut errors);
        for (spec_index, spec) in self.specs.iter().enumerate() {
            check_spec(spec_index, spec, &mut errors);
        }
        let (parents, links) = self.link_parents(&index, &mut errors);
        let root = match index.get(self.root.as_str()) {
            Some(&root) => Some(root),
            _ => {
                errors
                    .push(BuildError { site: Site::Root, kind: BuildErrorKind::MissingRoot { id: self.root.clone() } });
                None
            }
        };
        if let Some(root) = root {
            self.check_reachability(root, &parents, &index, &mut errors);
        }
        if let Some(players) = &self.players {
            players.check(|site| self.site_id(site), &mut errors);
        }
        if !errors.is_empty() {
            errors.sort_by_key(|error| error.site.order_key());
            return Err(errors);
        }
        let root = root.expect("a missing root is an error above");
        let players = self.players.take();
        let (tree, origins) = self.lay_out(root, &links)?;
        let tree = match players {
            Some(players) => tree.with_players(players.lay_out(&origins)),
            None => tree,
        };
        Ok((tree, origins))
    }

    /// The id of the node at `site`, for an error.
    fn site_id(&self, site: Site) -> String {
        match site {
            Site::Root => self.root.clone(),
            Site::Node(spec) | Site::Probs(spec) => self.specs[spec].id.clone(),
            Site::Child { node, child } => inline_leaf_id(&self.specs[node].id, child),
        }
    }

    /// Maps every id (inline leaves included) to where it is defined.
    fn index_ids(&self, errors: &mut Vec<BuildError>) -> HashMap<&str, usize> {
        let mut index: HashMap<&str, usize> = HashMap::with_capacity(self.specs.len());
        for (spec_index, spec) in self.specs.iter().enumerate() {
            match index.entry(spec.id.as_str()) {
                Entry::Occupied(_) => errors.push(BuildError {
                    site: Site::Node(spec_index),
                    kind: BuildErrorKind::DuplicateId { id: spec.id.clone() },
                }),
                Entry::Vacant(slot) => {
                    slot.insert(spec_index);
                }
            }
        }
        self.check_inline_leaf_ids(&index, errors);
        index
    }

    /// Inline leaves get ids `PARENT.K`; such an id must not also be defined.
    fn check_inline_leaf_ids(&self, index: &HashMap<&str, usize>, errors: &mut Vec<BuildError>) {
        // Only a parent of a defined id shaped `PARENT.DIGITS` can clash; most
        // files define none, and then no leaf id needs to be built here.
        let parents: HashSet<&str> = self.specs.iter().filter_map(|spec| inline_leaf_parent(&spec.id)).collect();
        if parents.is_empty() {
            return;
        }
        for (spec_index, spec) in self.specs.iter().enumerate() {
            let NodeBody::Internal { children, .. } = &spec.body else { continue };
            if !parents.contains(spec.id.as_str()) {
                continue;
            }
            for (position, child) in children.iter().enumerate() {
                if let ChildTarget::Leaf(_) = child.target {
                    let id = inline_leaf_id(&spec.id, position);
                    if index.contains_key(id.as_str()) {
                        errors.push(BuildError {
                            site: Site::Child { node: spec_index, child: position },
                            kind: BuildErrorKind::DuplicateId { id },
                        });
                    }
                }
            }
        }
    }

    /// Resolves child ids; records each spec's parent.
    fn link_parents(&self, index: &HashMap<&str, usize>, errors: &mut Vec<BuildError>) -> (Vec<Option<usize>>, Links) {
        let mut parents: Vec<Option<usize>> = vec![None; self.specs.len()];
        let mut links = Links { first: Vec::with_capacity(self.specs.len()), targets: Vec::new() };
        for (spec_index, spec) in self.specs.iter().enumerate() {
            links.first.push(links.targets.len());
            let NodeBody::Internal { children, .. } = &spec.body else { continue };
            for (position, child) in children.iter().enumerate() {
                let ChildTarget::Id(child_id) = &child.target else { continue };
                let site = Site::Child { node: spec_index, child: position };
                let Some(&child_spec) = index.get(child_id.as_str()) else {
                    links.targets.push(usize::MAX);
                    errors.push(BuildError {
                        site,
                        kind: BuildErrorKind::MissingChild { parent: spec.id.clone(), child: child_id.clone() },
                    });
                    continue;
                };
                links.targets.push(child_spec);
                if *child_id == self.root {
                    errors.push(BuildError {
                        site,
                        kind: BuildErrorKind::RootHasParent { root: self.root.clone(), parent: spec.id.clone() },
                    });
                } else if let Some(first) = parents[child_spec] {
                    errors.push(BuildError {
                        site,
                        kind: BuildErrorKind::SecondParent {
                            child: child_id.clone(),
                            first: self.specs[first].id.clone(),
                            second: spec.id.clone(),
                        },
                    });
                } else {
                    parents[child_spec] = Some(spec_index);
                }
            }
        }
        (parents, links)
    }

    /// Every spec must be reachable from the root; unreachable cycles are named as cycles.
    fn check_reachability(
        &self,
        root: usize,
        parents: &[Option<usize>],
        index: &HashMap<&str, usize>,
        errors: &mut Vec<BuildError>,
    ) {
        // With at most one parent per node, a node is reachable exactly when
        // following parents ends at the root. Memoise to stay linear.
        let mut state = vec![Reach::Unknown; self.specs.len()];
        state[root] = Reach::Yes;
        let mut reported_cycle = vec![false; self.specs.len()];
        let mut path = Vec::new();
        for start in 0..self.specs.len() {
            path.clear();
            let mut current = start;
            let verdict = loop {
                match state[current] {
                    Reach::Yes => break Reach::Yes,
                    Reach::No => break Reach::No,
                    Reach::OnPath => {
                        self.report_cycle(current, &path, &mut reported_cycle, errors);
                        break Reach::No;
                    }
                    Reach::Unknown => {}
                }
                state[current] = Reach::OnPath;
                path.push(current);
                match parents[current] {
                    Some(parent) => current = parent,
                    None => break Reach::No,
                }
            };
            for &node in &path {
                state[node] = verdict;
            }
        }
        for (spec_index, reach) in state.iter().enumerate() {
            // A second definition of an id is reported as a duplicate instead.
            let first_definition = || index.get(self.specs[spec_index].id.as_str()) == Some(&spec_index);
            if *reach == Reach::No && !reported_cycle[spec_index] && parents[spec_index].is_none() && first_definition()
            {
                errors.push(BuildError {
                    site: Site::Node(spec_index),
                    kind: BuildErrorKind::Unreachable { id: self.specs[spec_index].id.clone() },
                });
            }
        }
    }

    fn report_cycle(&self, entry: usize, path: &[usize], reported: &mut [bool], errors: &mut Vec<BuildError>) {
        let start = path.iter().position(|&node| node == entry).unwrap_or(0);
        let cycle = &path[start..];
        if cycle.iter().any(|&node| reported[node]) {
            return;
        }
        // Report the cycle in parent-to-child order, starting from its first-defined node.
        let mut ids: Vec<usize> = cycle.iter().rev().copied().collect();
        let first = ids.iter().enumerate().min_by_key(|(_, node)| **node).map_or(0, |(i, _)| i);
        ids.rotate_left(first);
        for &node in &ids {
            reported[node] = true;
        }
        let mut names: Vec<String> = ids.iter().map(|&node| self.specs[node].id.clone()).collect();
        names.push(names[0].clone());
        errors.push(BuildError { site: Site::Node(ids[0]), kind: BuildErrorKind::Cycle { path: names } });
    }

    /// Lays a valid description out breadth-first into the arena.
    fn lay_out(mut self, root: usize, links: &Links) -> Result<(Tree, Vec<Site>), Vec<BuildError>> {
        // Every spec and every inline leaf becomes one arena node.
        let total = self.specs.len()
            + self
                .specs
                .iter()
                .map(|spec| match &spec.body {
                    NodeBody::Internal { children, .. } => {
                        children.iter().filter(|child| matches!(child.target, ChildTarget::Leaf(_))).count()
                    }
                    NodeBody::Terminal(_) => 0,
                })
                .sum::<usize>();
        let mut sources: Vec<Source> = Vec::with_capacity(total);
        let mut nodes: Vec<Node> = Vec::with_capacity(total);
        let mut actions: Vec<Option<Box<str>>> = Vec::with_capacity(total);
        sources.push(Source::Spec(root));
        nodes.push(terminal_node(0.0));
        actions.push(None);
        // A node is pushed with its edge (probability, parent, ply) when its
        // parent is laid out, and gets its own content when its turn comes.
        let mut next = 0usize;
        while next < nodes.len() {
            if nodes.len() > u32::MAX as usize {
                return Err(vec![BuildError { site: Site::Root, kind: BuildErrorKind::TooLarge }]);
            }
            let Source::Spec(spec) = sources[next] else {
                next += 1; // inline leaves are complete when pushed
                continue;
            };
            match &self.specs[spec].body {
                NodeBody::Terminal(value) => nodes[next].utility = *value,
                NodeBody::Internal { kind, children, probs, eval } => {
                    let first_child = nodes.len() as u32;
                    let uniform = 1.0 / children.len() as f64;
                    let mut targets = links.targets[links.first[spec]..].iter();
                    for (position, child) in children.iter().enumerate() {
                        let (source, utility) = match &child.target {
                            ChildTarget::Id(_) => {
                                (Source::Spec(*targets.next().expect("every id child is linked")), 0.0)
                            }
                            ChildTarget::Leaf(value) => (Source::Leaf { position }, *value),
                        };
                        sources.push(source);
                        nodes.push(Node {
                            utility,
                            probability: probs.as_ref().map_or(uniform, |p| p[position]),
                            ply: nodes[next].ply + 1,
                            parent: Some(NodeIndex(next as u32)),
                            ..terminal_node(0.0)
                        });
                        actions.push(child.action.as_deref().map(Box::from));
                    }
                    let node = &mut nodes[next];
                    node.kind = *kind;
                    node.first_child = first_child;
                    node.child_count = children.len() as u32;
                    node.eval = *eval;
                }
            }
            next += 1;
        }
        // The arena holds everything now: release the child lists, so that the
        // leaves' ids below can reuse their memory, and move the specs' ids.
        for spec in &mut self.specs {
            spec.body = NodeBody::Terminal(0.0);
        }
        let mut ids: Vec<Box<str>> = Vec::with_capacity(nodes.len());
        let mut origins: Vec<Site> = Vec::with_capacity(nodes.len());
        for (source, node) in sources.iter().zip(&nodes) {
            let (id, site) = match *source {
                Source::Spec(spec) => (std::mem::take(&mut self.specs[spec].id).into_boxed_str(), Site::Node(spec)),
                Source::Leaf { position } => {
                    // Breadth-first: the parent, and so its id, comes before the leaf.
                    let parent = node.parent.expect("an inline leaf has a parent").get();
                    let Source::Spec(parent_spec) = sources[parent] else { unreachable!("leaves have no children") };
                    let id = inline_leaf_id(&ids[parent], position).into_boxed_str();
                    (id, Site::Child { node: parent_spec, child: position })
                }
            };
            ids.push(id);
            origins.push(site);
        }
        let has_chance = nodes.iter().any(|node| node.kind == NodeKind::Chance);
        let tree = Tree {
            name: std::mem::take(&mut self.name),
            description: None,
            has_chance,
            boards: None,
            players: None,
            nodes,
            ids,
            actions,
            search: SearchDefaults::default(),
            expect: BTreeMap::new(),
            game: None,
        };
        Ok((tree, origins))
    }
}

/// Each spec's id children resolved to spec indices: those of spec `s`, in
/// child order, start at `targets[first[s]]` (`usize::MAX` for a missing one).
struct Links {
    first: Vec<usize>,
    targets: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reach {
    Unknown,
    OnPath,
    Yes,
    No,
}

fn terminal_node(utility: f64) -> Node {
    Node {
        kind: NodeKind::Terminal,
        first_child: 0,
        child_count: 0,
        utility,
        eval: None,
        probability: 1.0,
        ply: 0,
        parent: None,
    }
}

/// The id docs/format.md gives the inline leaf at 0-based `position` under `parent`.
pub fn inline_leaf_id(parent: &str, position: usize) -> String {
    // Written by hand with the exact capacity (no formatting machinery, and
    // `into_boxed_str` need not reallocate): building trees makes one per leaf.
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut k = position + 1;
    loop {
        start -= 1;
        digits[start] = b'0' + (k % 10) as u8;
        k /= 10;
        if k == 0 {
            break;
        }
    }
    let digits = std::str::from_utf8(&digits[start..]).expect("ASCII digits");
    let mut id = String::with_capacity(parent.len() + 1 + digits.len());
    id.push_str(parent);
    id.push('.');
    id.push_str(digits);
    id
}

/// `PARENT` if `id` is shaped like an inline leaf's id `PARENT.DIGITS`.
fn inline_leaf_parent(id: &str) -> Option<&str> {
    let digits = id.bytes().rev().take_while(u8::is_ascii_digit).count();
    let dot = id.len().checked_sub(digits + 1)?;
    (digits > 0 && id.as_bytes()[dot] == b'.').then(|| &id[..dot])
}

/// The position whose inline-leaf id under `parent` is `action`, if any.
fn inline_leaf_position(action: &str, parent: &str) -> Option<usize> {
    let k = action.strip_prefix(parent)?.strip_prefix('.')?;
    if k.starts_with('0') || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    k.parse::<usize>().ok()?.checked_sub(1)
}

/// Whether the children's actions (label, else target id, else `PARENT.K`)
/// are pairwise distinct, decided without building the inline leaves' ids.
fn actions_are_distinct(id: &str, children: &[ChildSpec]) -> bool {
    fn named(child: &ChildSpec) -> Option<&str> {
        match (&child.action, &child.target) {
            (Some(action), _) => Some(action),
            (None, ChildTarget::Id(target)) => Some(target),
            (None, ChildTarget::Leaf(_)) => None,
        }
    }
    let mut seen: HashSet<&str> = HashSet::new();
    for (position, child) in children.iter().enumerate() {
        let Some(action) = named(child) else { continue };
        // A named action spelled like the id of an unlabelled inline leaf clashes with it.
        if let Some(leaf) = inline_leaf_position(action, id)
            && children.get(leaf).is_some_and(|other| named(other).is_none())
        {
            return false;
        }
        let earlier = &children[..position];
        let clash = if children.len() <= 16 {
            earlier.iter().any(|other| named(other) == Some(action))
        } else {
            !seen.insert(action)
        };
        if clash {
            return false;
        }
    }
    true
}

/// Checks one spec on its own: numbers, children, actions, probabilities.
fn check_spec(spec_index: usize, spec: &NodeSpec, errors: &mut Vec<BuildError>) {
    let id = &spec.id;
    let not_finite = |what: &str, value: f64| BuildError {
        site: Site::Node(spec_index),
        kind: BuildErrorKind::NotFinite { id: id.clone(), what: what.to_string(), value },
    };
    match &spec.body {
        NodeBody::Terminal(value) => {
            if !value.is_finite() {
                errors.push(not_finite("the utility", *value));
            }
        }
        NodeBody::Internal { kind, children, probs, eval } => {
            if let Some(eval) = eval.filter(|e| !e.is_finite()) {
                errors.push(not_finite("the eval", eval));
            }
            if children.is_empty() {
                errors.push(BuildError {
                    site: Site::Node(spec_index),
                    kind: BuildErrorKind::NoChildren { id: id.clone() },
                });
            }
            check_children(spec_index, id, children, errors);
            if let Some(probs) = probs {
                check_probabilities(spec_index, id, *kind, children.len(), probs, errors);
            }
        }
    }
}

fn check_children(spec_index: usize, id: &str, children: &[ChildSpec], errors: &mut Vec<BuildError>) {
    if actions_are_distinct(id, children) {
        // Only the inline leaves' numbers are left to check (the loop below
        // reports the same errors, in the same order, but builds every action).
        for (position, child) in children.iter().enumerate() {
            if let ChildTarget::Leaf(value) = child.target
                && !value.is_finite()
            {
                errors.push(BuildError {
                    site: Site::Child { node: spec_index, child: position },
                    kind: BuildErrorKind::NotFinite {
                        id: id.to_string(),
                        what: format!("child {}", position + 1),
                        value,
                    },
                });
            }
        }
        return;
    }
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(children.len());
    for (position, child) in children.iter().enumerate() {
        let site = Site::Child { node: spec_index, child: position };
        let action = match (&child.action, &child.target) {
            (Some(action), _) => action.clone(),
            (None, ChildTarget::Id(target)) => target.clone(),
            (None, ChildTarget::Leaf(_)) => inline_leaf_id(id, position),
        };
        if let ChildTarget::Leaf(value) = child.target
            && !value.is_finite()
        {
            errors.push(BuildError {
                site,
                kind: BuildErrorKind::NotFinite { id: id.to_string(), what: format!("child {}", position + 1), value },
            });
        }
        if seen.insert(action.clone(), position).is_some() {
            errors.push(BuildError { site, kind: BuildErrorKind::DuplicateAction { parent: id.to_string(), action } });
        }
    }
}

fn check_probabilities(
    spec_index: usize,
    id: &str,
    kind: NodeKind,
    children: usize,
    probs: &[f64],
    errors: &mut Vec<BuildError>,
) {
    let site = Site::Probs(spec_index);
    let id = id.to_string();
    if kind != NodeKind::Chance {
        errors.push(BuildError { site, kind: BuildErrorKind::ProbsOnNonChance { id } });
        return;
    }
    if probs.len() != children {
        errors.push(BuildError { site, kind: BuildErrorKind::ProbabilityCount { id, children, probs: probs.len() } });
        return;
    }
    if let Some((position, &value)) = probs.iter().enumerate().find(|(_, p)| !(0.0..=1.0).contains(*p)) {
        errors.push(BuildError { site, kind: BuildErrorKind::ProbabilityRange { id, position: position + 1, value } });
        return;
    }
    let sum: f64 = probs.iter().sum();
    if (sum - 1.0).abs() > PROBABILITY_SUM_TOLERANCE {
        errors.push(BuildError { site, kind: BuildErrorKind::ProbabilitySum { id, sum } });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(result: Result<Tree, Vec<BuildError>>) -> Vec<BuildErrorKind> {
        result.expect_err("should be invalid").into_iter().map(|e| e.kind).collect()
    }

    #[test]
    fn duplicate_ids_are_rejected() {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B")]));
        builder.add(NodeSpec::terminal("B", 1.0));
        builder.add(NodeSpec::terminal("B", 2.0));
        assert_eq!(kinds(builder.build()), [BuildErrorKind::DuplicateId { id: "B".into() }]);
    }

    #[test]
    fn an_inline_leaf_id_may_not_also_be_defined() {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::leaf(1.0), ChildSpec::id("A.1")]));
        builder.add(NodeSpec::terminal("A.1", 2.0));
        let errors = kinds(builder.build());
        assert!(errors.contains(&BuildErrorKind::DuplicateId { id: "A.1".into() }), "{errors:?}");
    }

    #[test]
    fn missing_children_and_roots_are_named() {
        let mut builder = TreeBuilder::new("t", "R");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("Z")]));
        let errors = kinds(builder.build());
        assert!(errors.contains(&BuildErrorKind::MissingChild { parent: "A".into(), child: "Z".into() }));
        assert!(errors.contains(&BuildErrorKind::MissingRoot { id: "R".into() }));
    }

    #[test]
    fn cycles_are_reported_as_cycles() {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::terminal("A", 1.0));
        builder.add(NodeSpec::internal("B", NodeKind::Max, vec![ChildSpec::id("C")]));
        builder.add(NodeSpec::internal("C", NodeKind::Min, vec![ChildSpec::id("B")]));
        assert_eq!(kinds(builder.build()), [BuildErrorKind::Cycle { path: vec!["B".into(), "C".into(), "B".into()] }]);
    }

    #[test]
    fn a_cycle_through_the_root_is_a_root_with_a_parent() {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B")]));
        builder.add(NodeSpec::internal("B", NodeKind::Min, vec![ChildSpec::id("A")]));
        assert_eq!(kinds(builder.build()), [BuildErrorKind::RootHasParent { root: "A".into(), parent: "B".into() }]);
    }

    #[test]
    fn second_parents_and_unreachable_nodes_are_rejected() {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::labelled("x", "C")]));
        builder.add(NodeSpec::internal("C", NodeKind::Min, vec![ChildSpec::id("B")]));
        builder.add(NodeSpec::terminal("B", 1.0));
        builder.add(NodeSpec::terminal("D", 1.0));
        let errors = kinds(builder.build());
        assert!(errors.contains(&BuildErrorKind::SecondParent {
            child: "B".into(),
            first: "A".into(),
            second: "C".into()
        }));
        assert!(errors.contains(&BuildErrorKind::Unreachable { id: "D".into() }));
    }

    #[test]
    fn probabilities_are_checked() {
        let chance = |probs: Vec<f64>| {
            let mut builder = TreeBuilder::new("t", "A");
            builder.add(NodeSpec {
                id: "A".into(),
                body: NodeBody::Internal {
                    kind: NodeKind::Chance,
                    children: vec![ChildSpec::leaf(1.0), ChildSpec::leaf(2.0)],
                    probs: Some(probs),
                    eval: None,
                },
            });
            builder.build()
        };
        assert!(chance(vec![0.25, 0.75]).is_ok());
        assert!(matches!(kinds(chance(vec![0.5])).as_slice(), [BuildErrorKind::ProbabilityCount { .. }]));
        assert!(matches!(
            kinds(chance(vec![1.5, -0.5])).as_slice(),
            [BuildErrorKind::ProbabilityRange { position: 1, .. }]
        ));
        assert!(matches!(kinds(chance(vec![0.5, 0.6])).as_slice(), [BuildErrorKind::ProbabilitySum { .. }]));
    }

    #[test]
    fn non_finite_numbers_and_empty_nodes_are_rejected() {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::leaf(f64::NAN), ChildSpec::id("B")]));
        builder.add(NodeSpec::internal("B", NodeKind::Min, vec![]));
        let errors = kinds(builder.build());
        assert!(matches!(errors[0], BuildErrorKind::NotFinite { .. }), "{errors:?}");
        assert!(errors.contains(&BuildErrorKind::NoChildren { id: "B".into() }));
    }

    #[test]
    fn leaf_ids_are_recognised_by_shape() {
        assert_eq!(inline_leaf_id("B", 2), "B.3");
        assert_eq!(inline_leaf_id("a.b", 9), "a.b.10");
        assert_eq!(inline_leaf_parent("a.b.10"), Some("a.b"));
        assert_eq!(inline_leaf_parent("B.3"), Some("B"));
        assert_eq!(inline_leaf_parent(".3"), Some(""));
        for id in ["n123", "B.", "B.x1", "3", ""] {
            assert_eq!(inline_leaf_parent(id), None, "{id}");
        }
        assert_eq!(inline_leaf_position("B.3", "B"), Some(2));
        assert_eq!(inline_leaf_position("B.03", "B"), None);
        assert_eq!(inline_leaf_position("B.0", "B"), None);
        assert_eq!(inline_leaf_position("C.3", "B"), None);
    }

    #[test]
    fn labels_spelled_like_leaf_ids_clash_with_the_leaves() {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal(
            "A",
            NodeKind::Max,
            vec![ChildSpec::leaf(1.0), ChildSpec::labelled("A.1", "B")],
        ));
        builder.add(NodeSpec::terminal("B", 2.0));
        assert_eq!(
            kinds(builder.build()),
            [BuildErrorKind::DuplicateAction { parent: "A".into(), action: "A.1".into() }]
        );
        let many: Vec<ChildSpec> =
            (0..20).map(|k| ChildSpec::labelled(format!("x{}", k % 19), format!("B{k}"))).collect();
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, many));
        for k in 0..20 {
            builder.add(NodeSpec::terminal(format!("B{k}"), 0.0));
        }
        assert_eq!(
            kinds(builder.build()),
            [BuildErrorKind::DuplicateAction { parent: "A".into(), action: "x0".into() }]
        );
    }

    #[test]
    fn duplicate_actions_among_siblings_are_rejected() {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal(
            "A",
            NodeKind::Max,
            vec![ChildSpec::labelled("go", "B"), ChildSpec::labelled("go", "C")],
        ));
        builder.add(NodeSpec::terminal("B", 1.0));
        builder.add(NodeSpec::terminal("C", 1.0));
        assert_eq!(
            kinds(builder.build()),
            [BuildErrorKind::DuplicateAction { parent: "A".into(), action: "go".into() }]
        );
    }
}
