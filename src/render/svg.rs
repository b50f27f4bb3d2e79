//! The SVG writer: hand-written XML, every text escaped.
//!
//! Max nodes are upward triangles, min nodes downward triangles, chance nodes
//! circles and leaves rounded squares holding their value. Above a node: the
//! action on its edge (and its id when the edge is labelled); below it: the
//! value it returned and, for alpha-beta, the window `[α, β]` it was entered
//! with. A dark pill at its top left is the reference's visit step. Pruned
//! subtrees and nodes below the depth limit are grey, and a pruned subtree's
//! edge carries a cut mark. With a student's order: the first wrong node has
//! a red ring, nodes the student entered but should not have are orange,
//! nodes it skipped but should not have are dashed, and an orange pill at the
//! top right gives the student's step where it differs. Deeper plies of large
//! trees are summarised as "+N nodes" boxes.
//!
//! Every node is a `<g class="node KIND STATE...">` with a `<title>` tooltip,
//! so the marks can be checked by class as well as by eye.

use std::fmt::Write as _;

use super::layout::{Item, Placement, tidy};
use super::{Mark, Picture, draw_depth_among, escape, mark};
use crate::compare::first_divergence;
use crate::engine::{self, SearchSettings};
use crate::tree::{NodeIndex, NodeKind, Tree};

/// Advance of one character of the 12px monospace label font (0.6 em, rounded up).
const CHAR_W: f64 = 7.3;
/// Advance of one character of the 10px monospace badge font.
const BADGE_CHAR_W: f64 = 6.1;
/// Advance of one character of the 12px sans-serif header font (generous).
const HEADER_CHAR_W: f64 = 7.4;
/// Height of a line of label text.
const LINE_H: f64 = 14.0;
/// Horizontal gap between neighbouring boxes.
const GAP: f64 = 10.0;
/// Vertical room for edges between the text of one level and the next.
const EDGE_ROOM: f64 = 40.0;
/// Space around the drawing.
const MARGIN: f64 = 16.0;
/// The legend wraps at this width, so that it stays in view in wide pictures.
const LEGEND_WIDTH: f64 = 960.0;
/// Labels longer than this many characters are shortened (the tooltip has them whole).
const MAX_LABEL: usize = 18;

/// Draws `picture` as a standalone SVG document.
pub fn render_svg(picture: &Picture<'_>) -> String {
    Scene::new(picture).write()
}

/// The outline of a node.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    Up,
    Down,
    Circle,
    /// A rounded box this wide.
    Box(f64),
    /// A "+N nodes" summary box this wide, with this many lines.
    Summary(f64, usize),
}

impl Shape {
    fn width(self) -> f64 {
        match self {
            Shape::Up | Shape::Down => 34.0,
            Shape::Circle => 30.0,
            Shape::Box(width) | Shape::Summary(width, _) => width,
        }
    }

    fn height(self) -> f64 {
        match self {
            Shape::Up | Shape::Down => 28.0,
            Shape::Circle => 30.0,
            Shape::Box(_) => 24.0,
            Shape::Summary(_, lines) => 8.0 + LINE_H * lines as f64,
        }
    }
}

/// One box of the drawing: a tree node or a summary, with its texts.
#[derive(Clone, Debug)]
struct Card {
    /// The tree node, or for a summary the node whose descendants it stands for.
    node: NodeIndex,
    summary: bool,
    shape: Shape,
    /// Lines above the shape, top first: `(class, text)`.
    above: Vec<(&'static str, String)>,
    /// Text inside the shape.
    inside: Option<String>,
    /// Lines below the shape (or inside a summary box).
    below: Vec<(&'static str, String)>,
    /// The reference step and the student's step, as badge texts.
    step: Option<String>,
    student_step: Option<String>,
}

impl Card {
    /// The width the card needs, symmetric about its centre.
    fn width(&self) -> f64 {
        let shape = self.shape.width();
        // A pill sits wholly beside the shape, on its own side.
        let badge = |text: &Option<String>| text.as_ref().map_or(0.0, |t| shape + 2.0 * badge_width(t) + 4.0);
        let texts = self.above.iter().chain(&self.below).map(|(_, text)| text_width(text));
        let inside = self.inside.as_ref().map_or(0.0, |text| text_width(text) + 10.0);
        texts.chain([shape, inside, badge(&self.step), badge(&self.student_step)]).fold(0.0, f64::max)
    }

    fn room_above(&self) -> f64 {
        LINE_H * self.above.len() as f64
    }

    fn room_below(&self) -> f64 {
        if self.summary { 0.0 } else { LINE_H * self.below.len() as f64 }
    }
}

/// Counts over a subtree, for summary boxes.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    nodes: usize,
    /// Entered by the reference.
    visited: usize,
    /// Entered by the student.
    entered: usize,
    extra: usize,
    skipped: usize,
}

impl Tally {
    fn plus(self, other: Tally) -> Tally {
        Tally {
            nodes: self.nodes + other.nodes,
            visited: self.visited + other.visited,
            entered: self.entered + other.entered,
            extra: self.extra + other.extra,
            skipped: self.skipped + other.skipped,
        }
    }
}

/// Everything needed to write the SVG.
struct Scene<'p> {
    picture: &'p Picture<'p>,
    marks: Vec<Mark>,
    cards: Vec<Card>,
    placement: Placement,
    /// The cards below each card (layout children).
    below: Vec<Vec<usize>>,
    top_room: f64,
    bottom_room: f64,
    header: Vec<(&'static str, String)>,
    legend: Vec<LegendItem>,
    width: f64,
    legend_rows: Vec<Vec<(f64, usize)>>,
}

impl<'p> Scene<'p> {
    fn new(picture: &'p Picture<'p>) -> Scene<'p> {
        let marks = mark(picture);
        let selection = select(picture, &marks);
        let (cards, items) = cards(picture, &marks, &selection);
        let placement = tidy(&items, GAP);
        let below = items.into_iter().map(|item| item.children).collect();
        let top_room = cards.iter().map(Card::room_above).fold(0.0, f64::max);
        let bottom_room = cards.iter().map(Card::room_below).fold(0.0, f64::max);
        let header = header(picture, &selection);
        let legend = legend(picture, &marks);
        let header_width =
            header.iter().map(|(_, text)| text.chars().count() as f64 * HEADER_CHAR_W).fold(0.0, f64::max);
        let width = (placement.width + 2.0 * MARGIN).max(header_width + 2.0 * MARGIN).max(420.0);
        let legend_rows = wrap_legend(&legend, (width - 2.0 * MARGIN).min(LEGEND_WIDTH));
        Scene { picture, marks, cards, placement, below, top_room, bottom_room, header, legend, width, legend_rows }
    }

    /// Height of one level: text above, the tallest shape, text below, edges.
    fn level_height(&self) -> f64 {
        self.top_room + 30.0 + self.bottom_room + EDGE_ROOM
    }

    /// Top of the tree drawing (below the header and the legend).
    fn tree_top(&self) -> f64 {
        MARGIN + self.header.len() as f64 * 18.0 + self.legend_rows.len() as f64 * 22.0 + 12.0
    }

    /// Centre of a card.
    fn at(&self, card: usize) -> (f64, f64) {
        let level = self.placement.level[card] as f64;
        let y = self.tree_top() + self.top_room + 15.0 + level * self.level_height();
        (MARGIN + self.placement.x[card], y)
    }

    fn height(&self) -> f64 {
        self.tree_top() + self.placement.levels as f64 * self.level_height() - EDGE_ROOM + MARGIN
    }

    fn write(&self) -> String {
        let mut out = String::new();
        let (width, height) = (self.width.ceil(), self.height().ceil());
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{}\">",
            escape(&format!("game tree {}", self.picture.tree.name()))
        );
        let _ = writeln!(out, "<style>{STYLE}</style>");
        let _ = writeln!(out, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\"/>");
        self.write_header(&mut out);
        self.write_legend(&mut out);
        self.write_depth_limit(&mut out);
        let _ = writeln!(out, "<g class=\"edges\">");
        for card in 0..self.cards.len() {
            self.write_edges(&mut out, card);
        }
        let _ = writeln!(out, "</g>\n<g class=\"nodes\">");
        for card in 0..self.cards.len() {
            self.write_card(&mut out, card);
        }
        let _ = writeln!(out, "</g>\n</svg>");
        out
    }

    fn write_header(&self, out: &mut String) {
        for (line, (class, text)) in self.header.iter().enumerate() {
            let y = MARGIN + 12.0 + line as f64 * 18.0;
            let _ = writeln!(out, "<text class=\"{class}\" x=\"{MARGIN}\" y=\"{y}\">{}</text>", escape(text));
        }
    }

    fn write_legend(&self, out: &mut String) {
        let top = MARGIN + self.header.len() as f64 * 18.0 + 4.0;
        let _ = writeln!(out, "<g class=\"legend\">");
        for (row, items) in self.legend_rows.iter().enumerate() {
            let y = top + row as f64 * 22.0 + 9.0;
            for &(x, item) in items {
                self.legend[item].write(out, MARGIN + x, y);
            }
        }
        let _ = writeln!(out, "</g>");
    }

    /// A dashed line between the last searched ply and the next, when the
    /// depth limit cuts the drawing.
    fn write_depth_limit(&self, out: &mut String) {
        let Some(depth) = self.picture.reference.and_then(|r| r.settings.depth) else { return };
        if depth as usize + 1 >= self.placement.levels {
            return;
        }
        let level_top = self.tree_top() + (depth as f64 + 1.0) * self.level_height();
        let y = (level_top - EDGE_ROOM / 2.0).round();
        let right = self.width - MARGIN;
        let _ = writeln!(
            out,
            "<g class=\"depth-limit\"><line x1=\"{MARGIN}\" y1=\"{y}\" x2=\"{right}\" y2=\"{y}\"/>\
             <text class=\"halo\" x=\"{MARGIN}\" y=\"{}\">depth limit {depth}: not searched below</text></g>",
            y - 4.0
        );
    }

    /// The edges from a card to its children.
    fn write_edges(&self, out: &mut String, card: usize) {
        let (px, py) = self.at(card);
        let parent = &self.cards[card];
        let start = py + parent.shape.height() / 2.0 + parent.room_below() + 1.0;
        for &child in &self.below[card] {
            let (cx, cy) = self.at(child);
            let target = &self.cards[child];
            let end = cy - target.shape.height() / 2.0 - target.room_above() - 1.0;
            let class = edge_class(target, &self.marks[target.node.get()]);
            let (px1, start1, cx1, end1) = (Px(px), Px(start), Px(cx), Px(end));
            let _ = write!(out, "<path class=\"{class}\" d=\"M{px1:.1},{start1:.1} L{cx1:.1},{end1:.1}\"/>");
            if !target.summary && self.marks[target.node.get()].pruned_root {
                let (mx, my) = (px + (cx - px) * 0.75, start + (end - start) * 0.75);
                write_cut_mark(out, mx, my, cx - px, end - start);
            }
            out.push('\n');
        }
    }

    fn write_card(&self, out: &mut String, index: usize) {
        let card = &self.cards[index];
        let (x, y) = self.at(index);
        let mark = &self.marks[card.node.get()];
        let (class, key) = match card.summary {
            true => ("summary".to_string(), "data-below"),
            false => (node_class(self.picture.tree, card, mark), "data-id"),
        };
        let (x1, y1) = (Px(x), Px(y));
        let _ = write!(
            out,
            "<g class=\"{class}\" {key}=\"{}\" transform=\"translate({x1:.1},{y1:.1})\">",
            escape(self.picture.tree.id(card.node))
        );
        let _ = write!(out, "<title>{}</title>", escape(&self.tooltip(card, mark)));
        if mark.wrong && !card.summary {
            let _ = write!(out, "{}", shape_path(card.shape, "ring", 4.5));
        }
        let _ = write!(out, "{}", shape_path(card.shape, "shape", 0.0));
        write_texts(out, card);
        write_badges(out, card);
        out.push_str("</g>\n");
    }

    /// The hover text of a node: id, kind and everything the marks say.
    fn tooltip(&self, card: &Card, mark: &Mark) -> String {
        let tree = self.picture.tree;
        let id = tree.id(card.node);
        if card.summary {
            let below: Vec<&str> = card.below.iter().map(|(_, text)| text.as_str()).collect();
            return format!("below {id}: {}", below.join(", "));
        }
        let node = tree.node(card.node);
        let mut parts = vec![format!("{id} ({})", node.kind)];
        if node.parent.is_some() && tree.action(card.node) != id {
            parts.push(format!("action {}", tree.action(card.node)));
        }
        if node.kind == NodeKind::Terminal {
            parts.push(format!("utility {}", node.utility));
        }
        if let Some(step) = mark.step {
            parts.push(format!("step {step}"));
        }
        if let Some(entry) = mark.entry.filter(|_| mark.step.is_some()) {
            parts.push(format!("returned {}", entry.value));
            if self.is_alphabeta() {
                parts.push(format!("entered with [α, β] = {}", window(entry.alpha, entry.beta)));
            }
        }
        for (flag, words) in [
            (mark.cutoff, "stopped early (cutoff)"),
            (mark.pruned, "pruned"),
            (mark.below_cut, "below the depth limit"),
            (mark.wrong, "first difference from the reference"),
            (mark.extra, "entered by the trace, not by the reference"),
            (mark.skipped, "entered by the reference, not by the trace"),
        ] {
            if flag {
                parts.push(words.to_string());
            }
        }
        if let Some(step) = mark.student_step {
            parts.push(format!("trace step {step}"));
        }
        parts.join(" · ")
    }

    fn is_alphabeta(&self) -> bool {
        self.picture.reference.is_some_and(|r| r.settings.algorithm.window_per_node())
    }
}

/// Trees with more nodes than this fold pruned subtrees, and subtrees below
/// the depth limit, into summary boxes (unless the student entered them).
const FOLD_ABOVE: usize = 80;

/// Which nodes are drawn, and which drawn nodes stand for their descendants.
struct Selection {
    /// The deepest ply drawn.
    depth: u32,
    /// Drawn as a node.
    drawn: Vec<bool>,
    /// Drawn, with children that are not: a summary box goes below it.
    summarised: Vec<bool>,
    /// Per node, counts over what lies strictly below it.
    tallies: Vec<Tally>,
}

/// Folds what large trees need folded, then cuts the drawing at a depth
/// that keeps at most `max_nodes` nodes.
fn select(picture: &Picture<'_>, marks: &[Mark]) -> Selection {
    let tree = picture.tree;
    let tallies = tallies(tree, marks);
    let large = tree.len() > FOLD_ABOVE;
    let folds = |index: usize| {
        let mark = &marks[index];
        let unsearched = mark.pruned || (mark.step.is_some() && mark.entry.is_some_and(|e| e.depth_cut));
        large && unsearched && tallies[index].entered == 0
    };
    // Breadth-first arena: a parent comes before its children.
    let mut shown = vec![false; tree.len()];
    for (index, node) in tree.nodes().iter().enumerate() {
        shown[index] = node.parent.is_none_or(|parent| shown[parent.get()] && !folds(parent.get()));
    }
    let depth = draw_depth_among(tree, &shown, picture.max_nodes);
    let drawn: Vec<bool> = tree.nodes().iter().zip(&shown).map(|(node, &shown)| shown && node.ply <= depth).collect();
    let summarised = tree
        .nodes()
        .iter()
        .enumerate()
        .map(|(index, node)| drawn[index] && node.child_count > 0 && (node.ply == depth || folds(index)))
        .collect();
    Selection { depth, drawn, summarised, tallies }
}

/// Builds a card per drawn node and a summary card below each summarised
/// node, with the layout items (the root's card is item 0).
fn cards(picture: &Picture<'_>, marks: &[Mark], selection: &Selection) -> (Vec<Card>, Vec<Item>) {
    let tree = picture.tree;
    let alphabeta = picture.reference.is_some_and(|r| r.settings.algorithm.window_per_node());
    let nodes: Vec<NodeIndex> = (0..tree.len()).filter(|&i| selection.drawn[i]).map(|i| NodeIndex(i as u32)).collect();
    let mut card_of = vec![usize::MAX; tree.len()];
    for (card, node) in nodes.iter().enumerate() {
        card_of[node.get()] = card;
    }
    let mut cards: Vec<Card> = nodes.iter().map(|&node| node_card(tree, node, &marks[node.get()], alphabeta)).collect();
    let mut items: Vec<Item> = Vec::with_capacity(cards.len());
    for &node in &nodes {
        let mut children = Vec::new();
        if selection.summarised[node.get()] {
            children.push(cards.len());
            cards.push(summary_card(node, selection.tallies[node.get()], &marks[node.get()], picture));
        } else {
            children.extend(tree.children(node).map(|child| card_of[child.get()]).filter(|&c| c != usize::MAX));
        }
        items.push(Item { width: cards[card_of[node.get()]].width(), children });
    }
    items.extend(cards[nodes.len()..].iter().map(|card| Item { width: card.width(), children: Vec::new() }));
    (cards, items)
}

/// The card of one tree node.
fn node_card(tree: &Tree, index: NodeIndex, mark: &Mark, alphabeta: bool) -> Card {
    let node = tree.node(index);
    let id = tree.id(index);
    let mut above = Vec::new();
    if node.parent.is_some() && tree.action(index) != id {
        above.push(("action", shorten(tree.action(index))));
    }
    above.push(("id", shorten(id)));
    // A max^n tree (docs/format.md 8.3): who moves, and a terminal's whole vector.
    let players = tree.players();
    if let Some(mover) = players.and_then(|players| players.mover(index.get())) {
        above.push(("player", format!("p{mover}")));
    }
    let (shape, inside) = match node.kind {
        NodeKind::Max => (Shape::Up, None),
        NodeKind::Min => (Shape::Down, None),
        NodeKind::Chance => (Shape::Circle, None),
        NodeKind::Terminal => {
            let value = match players.and_then(|players| players.vector(index.get())) {
                Some(vector) => shorten(&crate::compare::format_vector(vector)),
                None => shorten(&display_value(node.utility)),
            };
            (Shape::Box((text_width(&value) + 12.0).max(28.0)), Some(value))
        }
    };
    let mut below = Vec::new();
    if let (Some(entry), Some(_)) = (mark.entry, mark.step)
        && node.kind != NodeKind::Terminal
    {
        below.push(("value", value_text(node.kind, entry.value, entry.depth_cut, mark.cutoff)));
        if alphabeta {
            below.push(("window", window(entry.alpha, entry.beta)));
        }
    }
    let step = mark.step.map(|s| s.to_string());
    let student_step = mark.student_step.filter(|&s| Some(s) != mark.step).map(|s| s.to_string());
    Card { node: index, summary: false, shape, above, inside, below, step, student_step }
}

/// The "+N nodes" box standing for everything below `node`.
fn summary_card(node: NodeIndex, tally: Tally, mark: &Mark, picture: &Picture<'_>) -> Card {
    let mut below = vec![("count", format!("+{} nodes", tally.nodes))];
    if mark.pruned {
        below.push(("count", "pruned".to_string()));
    } else if mark.entry.is_some_and(|e| e.depth_cut) && mark.step.is_some() {
        below.push(("count", "not searched".to_string()));
    } else if picture.reference.is_some() {
        below.push(("count", format!("{} visited", tally.visited)));
    }
    if tally.extra + tally.skipped > 0 {
        below.push(("differs", format!("{} extra, {} skipped", tally.extra, tally.skipped)));
    }
    let width = below.iter().map(|(_, text)| text_width(text)).fold(0.0, f64::max) + 16.0;
    let shape = Shape::Summary(width, below.len());
    Card { node, summary: true, shape, above: Vec::new(), inside: None, below, step: None, student_step: None }
}

/// Per node, counts over the nodes strictly below it.
fn tallies(tree: &Tree, marks: &[Mark]) -> Vec<Tally> {
    let own = |mark: &Mark| Tally {
        nodes: 1,
        visited: usize::from(mark.step.is_some()),
        entered: usize::from(mark.student_step.is_some()),
        extra: usize::from(mark.extra),
        skipped: usize::from(mark.skipped),
    };
    let mut tallies = vec![Tally::default(); tree.len()];
    for index in (1..tree.len()).rev() {
        if let Some(parent) = tree.node(NodeIndex(index as u32)).parent {
            let child = tallies[index].plus(own(&marks[index]));
            tallies[parent.get()] = tallies[parent.get()].plus(child);
        }
    }
    tallies
}

/// The class list of a node's group.
fn node_class(tree: &Tree, card: &Card, mark: &Mark) -> String {
    let node = tree.node(card.node);
    let mut class = format!("node {}", node.kind.name());
    let flags = [
        (mark.step.is_some(), "visited"),
        (mark.pruned, "pruned"),
        (mark.below_cut, "below-cut"),
        (mark.cutoff, "cutoff"),
        (mark.entry.is_some_and(|e| e.depth_cut) && mark.step.is_some(), "depth-cut"),
        (mark.wrong, "wrong"),
        (mark.extra, "extra"),
        (mark.skipped, "skipped"),
    ];
    for (flag, name) in flags {
        if flag {
            class.push(' ');
            class.push_str(name);
        }
    }
    class
}

/// The class list of the edge into `target`.
fn edge_class(target: &Card, mark: &Mark) -> &'static str {
    if target.summary {
        "edge to-summary"
    } else if mark.extra {
        "edge extra"
    } else if mark.pruned {
        "edge pruned"
    } else if mark.below_cut {
        "edge below-cut"
    } else {
        "edge"
    }
}

/// Two short strokes across an edge, centred at (x, y), for a pruned subtree.
fn write_cut_mark(out: &mut String, x: f64, y: f64, dx: f64, dy: f64) {
    let length = (dx * dx + dy * dy).sqrt().max(1.0);
    // Unit vectors along the edge and across it.
    let (ux, uy) = (dx / length, dy / length);
    let (nx, ny) = (-uy, ux);
    let _ = write!(out, "<path class=\"cut\" d=\"");
    for offset in [-3.0, 3.0] {
        let (cx, cy) = (x + ux * offset, y + uy * offset);
        let (from, to) = ((Px(cx - nx * 6.0), Px(cy - ny * 6.0)), (Px(cx + nx * 6.0), Px(cy + ny * 6.0)));
        let _ = write!(out, "M{:.1},{:.1} L{:.1},{:.1} ", from.0, from.1, to.0, to.1);
    }
    let _ = write!(out, "\"/>");
}

/// A coordinate written with one decimal, like `{:.1}`. The standard
/// library's exact-precision float formatting was most of the time of drawing
/// a picture; tenths in integer arithmetic are many times faster. They agree
/// but for values a hair from a half (245.45 is stored as 245.4500000000000171),
/// where the last digit may differ by one: 0.1 px, invisible.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Px(f64);

impl std::fmt::Display for Px {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Ties to even, as the standard library rounds exact halves such as 141.25.
        let tenths = (self.0 * 10.0).round_ties_even();
        if !tenths.is_finite() || tenths.abs() >= 1e15 {
            return write!(f, "{:.1}", self.0);
        }
        let tenths = tenths as i64;
        let sign = if tenths < 0 { "-" } else { "" };
        let magnitude = tenths.unsigned_abs();
        write!(f, "{sign}{}.{}", magnitude / 10, magnitude % 10)
    }
}

/// The outline of a shape centred at the origin, grown by `grow` on every side.
fn shape_path(shape: Shape, class: &str, grow: f64) -> String {
    let (w, h) = (shape.width() / 2.0 + grow, shape.height() / 2.0 + grow);
    let (pw, ph, nw, nh) = (Px(w), Px(h), Px(-w), Px(-h));
    match shape {
        Shape::Up => format!("<path class=\"{class}\" d=\"M0,{nh:.1} L{pw:.1},{ph:.1} L{nw:.1},{ph:.1} Z\"/>"),
        Shape::Down => format!("<path class=\"{class}\" d=\"M{nw:.1},{nh:.1} L{pw:.1},{nh:.1} L0,{ph:.1} Z\"/>"),
        Shape::Circle => format!("<circle class=\"{class}\" r=\"{pw:.1}\"/>"),
        Shape::Box(_) | Shape::Summary(..) => format!(
            "<rect class=\"{class}\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"5\"/>",
            nw,
            nh,
            Px(2.0 * w),
            Px(2.0 * h)
        ),
    }
}

/// The texts of a card, relative to its centre.
fn write_texts(out: &mut String, card: &Card) {
    let half = card.shape.height() / 2.0;
    for (row, (class, text)) in card.above.iter().rev().enumerate() {
        let y = Px(-half - 4.0 - row as f64 * LINE_H);
        let _ = write!(out, "<text class=\"{class} halo\" y=\"{y:.1}\">{}</text>", escape(text));
    }
    if let Some(text) = &card.inside {
        let _ = write!(out, "<text class=\"inside\" y=\"4\">{}</text>", escape(text));
    }
    let first = if card.summary { -half + 4.0 + 10.5 } else { half + 13.0 };
    for (row, (class, text)) in card.below.iter().enumerate() {
        let y = Px(first + row as f64 * LINE_H);
        let _ = write!(out, "<text class=\"{class} halo\" y=\"{y:.1}\">{}</text>", escape(text));
    }
}

/// The step pills: the reference's left of the shape, the student's right
/// of it, level with its middle, so that neither covers the shape, its value
/// or the label above it.
fn write_badges(out: &mut String, card: &Card) {
    let w = card.shape.width() / 2.0;
    for (text, class, side) in [(&card.step, "step", -1.0), (&card.student_step, "student-step", 1.0)] {
        let Some(text) = text else { continue };
        let width = badge_width(text);
        let centre = side * (w + 2.0 + width / 2.0);
        let _ = write!(
            out,
            "<g class=\"{class}\"><rect x=\"{:.1}\" y=\"-7\" width=\"{width:.1}\" height=\"14\" rx=\"7\"/>\
             <text x=\"{:.1}\" y=\"3.5\">{}</text></g>",
            Px(centre - width / 2.0),
            Px(centre),
            escape(text),
            width = Px(width)
        );
    }
}

/// The value line of an entered internal node.
fn value_text(kind: NodeKind, value: f64, depth_cut: bool, cutoff: bool) -> String {
    let shown = display_value(value);
    match kind {
        _ if depth_cut => format!("eval {shown}"),
        NodeKind::Max if cutoff => format!("≥{shown}"),
        NodeKind::Min if cutoff => format!("≤{shown}"),
        _ => shown,
    }
}

/// `[α, β]` with infinities as `∞`.
fn window(alpha: f64, beta: f64) -> String {
    format!("[{}, {}]", display_value(alpha), display_value(beta))
}

/// A value for a label: integers plainly, others to 3 decimals, `∞` for infinities.
fn display_value(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "∞".to_string() } else { "-∞".to_string() };
    }
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" { "0".to_string() } else { text.to_string() }
}

/// `text`, cut to [`MAX_LABEL`] characters with an ellipsis.
fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_LABEL {
        return text.to_string();
    }
    let mut short: String = text.chars().take(MAX_LABEL - 1).collect();
    short.push('…');
    short
}

/// Estimated width of a label: monospace, wide characters count twice.
fn text_width(text: &str) -> f64 {
    text.chars().map(|c| if is_wide(c) { 2.0 } else { 1.0 }).sum::<f64>() * CHAR_W
}

fn is_wide(c: char) -> bool {
    matches!(
        c as u32,
        0x1100..=0x115f
            | 0x2e80..=0xa4cf
            | 0xac00..=0xd7a3
            | 0xf900..=0xfaff
            | 0xfe30..=0xfe4f
            | 0xff00..=0xff60
            | 0xffe0..=0xffe6
            | 0x1f300..=0x1faff
            | 0x20000..=0x3fffd
    )
}

/// Width of a step pill.
fn badge_width(text: &str) -> f64 {
    text.chars().count() as f64 * BADGE_CHAR_W + 8.0
}

/// The lines above the picture: name, settings and result, divergence, summary note.
fn header(picture: &Picture<'_>, selection: &Selection) -> Vec<(&'static str, String)> {
    let tree = picture.tree;
    let mut lines = vec![("title", tree.name().to_string())];
    if let Some(reference) = picture.reference {
        let outcome = reference.outcome;
        let action = outcome
            .action
            .filter(|child| child.get() < tree.len())
            .map_or("none".to_string(), |child| tree.action(child).to_string());
        let stats = engine::stats(tree, reference.settings, outcome);
        lines.push((
            "subtitle",
            format!(
                "{} · value {} · action {} · visited {} of {} nodes",
                describe(reference.settings),
                display_value(outcome.value),
                action,
                stats.visited,
                stats.tree_nodes.unwrap_or(tree.len())
            ),
        ));
        if let Some(student) = picture.student {
            let expected = ids_in(tree, &outcome.visited);
            let actual = ids_in(tree, student);
            let line = match first_divergence(&expected, &actual) {
                Some(divergence) => ("divergence", divergence.describe("the trace")),
                None => ("agrees", "the trace's order matches the reference".to_string()),
            };
            lines.push(line);
        }
    }
    let hidden = selection.drawn.iter().filter(|drawn| !**drawn).count();
    if hidden > 0 {
        let cut =
            if selection.depth < tree.height() { format!("drawn to ply {}: ", selection.depth) } else { String::new() };
        lines.push(("note", format!("{cut}{hidden} nodes are summarised in dashed boxes")));
    }
    lines
}

/// The ids of the indices that exist in `tree`.
fn ids_in<'t>(tree: &'t Tree, indices: &[NodeIndex]) -> Vec<&'t str> {
    indices.iter().filter(|index| index.get() < tree.len()).map(|&index| tree.id(index)).collect()
}

/// "alphabeta (prunes on equality, depth limit 2)".
fn describe(settings: &SearchSettings) -> String {
    let depth = settings.depth.map_or("no depth limit".to_string(), |d| format!("depth limit {d}"));
    let algorithm = settings.algorithm;
    if algorithm.window_per_node() {
        let rule = if settings.prune_on_equal { "prunes on equality" } else { "prunes on strict inequality" };
        format!("{algorithm} ({rule}, {depth})")
    } else {
        format!("{algorithm} ({depth})")
    }
}

/// One entry of the legend: a small glyph and its meaning.
#[derive(Clone, Debug)]
struct LegendItem {
    glyph: Glyph,
    text: &'static str,
}

#[derive(Clone, Copy, Debug)]
enum Glyph {
    Node(&'static str, Shape),
    Step,
    StudentStep,
    Window,
    Cut,
}

impl LegendItem {
    /// Width of the glyph's slot.
    fn glyph_width(&self) -> f64 {
        match self.glyph {
            Glyph::Window => 5.0 * CHAR_W,
            _ => 22.0,
        }
    }

    fn width(&self) -> f64 {
        self.glyph_width() + 6.0 + text_width(self.text) + 18.0
    }

    fn write(&self, out: &mut String, x: f64, y: f64) {
        let centre = self.glyph_width() / 2.0;
        let _ = write!(out, "<g transform=\"translate({:.1},{:.1})\">", Px(x + centre), Px(y));
        match self.glyph {
            Glyph::Node(class, shape) => {
                let ring = if class.contains("wrong") { shape_path(shape, "ring", 5.0) } else { String::new() };
                let _ = write!(
                    out,
                    "<g class=\"{class}\" transform=\"scale(0.5)\">{ring}{}</g>",
                    shape_path(shape, "shape", 0.0)
                );
            }
            Glyph::Step | Glyph::StudentStep => {
                let class = if matches!(self.glyph, Glyph::Step) { "step" } else { "student-step" };
                let _ = write!(
                    out,
                    "<g class=\"{class}\"><rect x=\"-8\" y=\"-7\" width=\"16\" height=\"14\" rx=\"7\"/>\
                     <text y=\"3.5\">7</text></g>"
                );
            }
            Glyph::Window => {
                let _ = write!(out, "<text class=\"window\" y=\"4\">[α,β]</text>");
            }
            Glyph::Cut => {
                let _ = write!(out, "<path class=\"edge pruned\" d=\"M-11,0 L11,0\"/>");
                write_cut_mark(out, 0.0, 0.0, 22.0, 0.0);
            }
        }
        let _ = write!(
            out,
            "<text class=\"legend-text\" x=\"{:.1}\" y=\"4\">{}</text></g>",
            Px(centre + 6.0),
            escape(self.text)
        );
        out.push('\n');
    }
}

/// The legend entries that apply to this picture.
fn legend(picture: &Picture<'_>, marks: &[Mark]) -> Vec<LegendItem> {
    let item = |glyph, text| LegendItem { glyph, text };
    let mut items = vec![
        item(Glyph::Node("node max", Shape::Up), "max"),
        item(Glyph::Node("node min", Shape::Down), "min"),
        item(Glyph::Node("node chance", Shape::Circle), "chance"),
        item(Glyph::Node("node terminal", Shape::Box(30.0)), "leaf (utility)"),
    ];
    if picture.reference.is_some() {
        items.push(item(Glyph::Step, "visit step"));
    }
    if picture.reference.is_some_and(|r| r.settings.algorithm.window_per_node()) {
        items.push(item(Glyph::Window, "window on entry"));
    }
    if marks.iter().any(|m| m.pruned_root) {
        items.push(item(Glyph::Cut, "pruned (grey)"));
    }
    if marks.iter().any(|m| m.below_cut) {
        items.push(item(Glyph::Node("node terminal below-cut", Shape::Box(30.0)), "below depth limit"));
    }
    if picture.student.is_some() && picture.reference.is_some() {
        items.push(item(Glyph::Node("node terminal wrong", Shape::Box(30.0)), "first wrong node"));
        items.push(item(Glyph::Node("node terminal extra", Shape::Box(30.0)), "entered, should not have"));
        items.push(item(Glyph::Node("node terminal skipped", Shape::Box(30.0)), "skipped, should not have"));
        items.push(item(Glyph::StudentStep, "trace step (where it differs)"));
    }
    items
}

/// Splits legend items into rows no wider than `width`: `(x, item)` per row.
fn wrap_legend(items: &[LegendItem], width: f64) -> Vec<Vec<(f64, usize)>> {
    let mut rows: Vec<Vec<(f64, usize)>> = Vec::new();
    let mut x = 0.0;
    for (index, item) in items.iter().enumerate() {
        let w = item.width();
        match rows.last_mut() {
            Some(row) if x + w <= width => row.push((x, index)),
            _ => {
                rows.push(vec![(0.0, index)]);
                x = 0.0;
            }
        }
        x += w;
    }
    rows
}

/// The stylesheet, scoped to `svg.tg`.
const STYLE: &str = "
.tg .background { fill: #ffffff; }
.tg text { font-family: 'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace; font-size: 12px; fill: #0f172a; text-anchor: middle; }
.tg .halo { paint-order: stroke; stroke: #ffffff; stroke-width: 3px; stroke-linejoin: round; }
.tg .title, .tg .subtitle, .tg .divergence, .tg .agrees, .tg .note { text-anchor: start; font-family: system-ui, 'DejaVu Sans', 'Liberation Sans', Arial, sans-serif; font-size: 12px; }
.tg .title { font-size: 15px; font-weight: bold; }
.tg .subtitle { fill: #334155; }
.tg .divergence { fill: #b91c1c; font-weight: bold; }
.tg .agrees { fill: #15803d; }
.tg .note { fill: #64748b; font-style: italic; }
.tg .legend-text { text-anchor: start; fill: #334155; }
.tg .id { font-weight: bold; }
.tg .action { font-style: italic; fill: #475569; }
.tg .value { fill: #0f172a; }
.tg .window { fill: #1d4ed8; font-size: 11px; }
.tg .inside { font-weight: bold; }
.tg .edge { stroke: #475569; stroke-width: 1.3; fill: none; }
.tg .edge.pruned { stroke: #cbd5e1; }
.tg .edge.below-cut, .tg .edge.to-summary { stroke: #cbd5e1; stroke-dasharray: 3 3; }
.tg .edge.extra { stroke: #ea580c; stroke-width: 2; }
.tg .cut { stroke: #334155; stroke-width: 2; fill: none; }
.tg .shape { stroke-width: 1.6; }
.tg .max .shape { fill: #dbeafe; stroke: #1d4ed8; }
.tg .min .shape { fill: #ede9fe; stroke: #6d28d9; }
.tg .chance .shape { fill: #ccfbf1; stroke: #0f766e; }
.tg .terminal .shape { fill: #f8fafc; stroke: #334155; }
.tg .node.pruned .shape, .tg .node.below-cut .shape { fill: #f1f5f9; stroke: #cbd5e1; }
.tg .node.pruned text, .tg .node.below-cut text { fill: #94a3b8; }
.tg .node.below-cut .shape { stroke: #94a3b8; stroke-dasharray: 2 2; }
.tg .summary .shape { fill: #f8fafc; stroke: #94a3b8; stroke-dasharray: 4 3; }
.tg .summary text { fill: #475569; }
.tg .summary .differs { fill: #c2410c; font-weight: bold; }
.tg .node.extra .shape { fill: #fdba74; stroke: #c2410c; stroke-width: 2; }
.tg .node.extra text { fill: #7c2d12; }
.tg .node.skipped .shape { stroke: #be123c; stroke-width: 2.4; stroke-dasharray: 5 3; }
.tg .node.wrong .shape { stroke: #dc2626; stroke-width: 2.6; }
.tg .ring { fill: #fecaca; stroke: #dc2626; stroke-width: 3; }
.tg .step rect { fill: #0f172a; }
.tg .step text, .tg .student-step text { fill: #ffffff; font-size: 10px; font-weight: bold; }
.tg .student-step rect { fill: #9a3412; }
.tg .node g.step text, .tg .node g.student-step text { fill: #ffffff; }
.tg .depth-limit line { stroke: #94a3b8; stroke-width: 1.2; stroke-dasharray: 8 4; }
.tg .depth-limit text { text-anchor: start; fill: #64748b; font-style: italic; }
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Algorithm;

    #[test]
    fn coordinates_print_like_one_decimal() {
        for value in [0.0, 1.0, -1.0, 12.34, -12.36, 0.26, -7.5, 123456.789, 3.049, 141.25, 141.75, -7.25, 2.75] {
            assert_eq!(Px(value).to_string(), format!("{value:.1}"), "{value}");
        }
    }
    use crate::engine::search_recorded;
    use crate::render::indices_of;
    use crate::tree::fixtures::leaves;
    use crate::tree::{ChildSpec, NodeBody, NodeSpec, TreeBuilder};

    fn aima() -> Tree {
        let mut builder = TreeBuilder::new("aima <&>", "A");
        let children = vec![ChildSpec::labelled("a\"1", "B"), ChildSpec::id("C"), ChildSpec::id("D")];
        builder.add(NodeSpec::internal("A", NodeKind::Max, children));
        builder.add(NodeSpec::internal("B", NodeKind::Min, leaves(&[3.0, 12.0, 8.0])));
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[2.0, 4.0, 6.0])));
        builder.add(NodeSpec::internal("D", NodeKind::Min, leaves(&[14.0, 5.0, 2.0])));
        builder.build().unwrap()
    }

    /// A tiny XML well-formedness check: balanced tags, quoted attributes,
    /// known entities, no stray `<` or `&`.
    fn assert_well_formed(xml: &str) {
        let mut stack: Vec<String> = Vec::new();
        let mut rest = xml;
        while let Some(open) = rest.find('<') {
            check_text(&rest[..open]);
            let close = rest[open..].find('>').expect("an unclosed tag") + open;
            let tag = &rest[open + 1..close];
            rest = &rest[close + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name.trim()), "mismatched </{name}>");
                continue;
            }
            let self_closing = tag.ends_with('/');
            let body = tag.trim_end_matches('/');
            let name = body.split_whitespace().next().expect("a tag name").to_string();
            assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':'), "bad name {name}");
            check_attributes(&body[name.len()..]);
            if !self_closing {
                stack.push(name);
            }
        }
        check_text(rest);
        assert!(stack.is_empty(), "unclosed elements: {stack:?}");
    }

    fn check_attributes(mut text: &str) {
        loop {
            text = text.trim_start();
            if text.is_empty() {
                return;
            }
            let eq = text.find('=').expect("name=value");
            assert!(text[..eq].chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':'));
            assert!(text[eq + 1..].starts_with('"'), "attribute values are quoted: {text}");
            let end = text[eq + 2..].find('"').expect("closing quote") + eq + 2;
            check_text(&text[eq + 2..end]);
            assert!(!text[eq + 2..end].contains('<'));
            text = &text[end + 1..];
        }
    }

    fn check_text(text: &str) {
        assert!(!text.contains('>') || !text.contains('<'));
        let mut rest = text;
        while let Some(amp) = rest.find('&') {
            let semi = rest[amp..].find(';').expect("entity ends with ;") + amp;
            let entity = &rest[amp + 1..semi];
            assert!(["amp", "lt", "gt", "quot", "#39"].contains(&entity), "unknown entity &{entity};");
            rest = &rest[semi + 1..];
        }
    }

    fn classes_of<'s>(svg: &'s str, id: &str) -> &'s str {
        let marker = format!("data-id=\"{id}\"");
        let at = svg.find(&marker).unwrap_or_else(|| panic!("node {id} is drawn"));
        let start = svg[..at].rfind("class=\"").unwrap() + 7;
        &svg[start..start + svg[start..].find('"').unwrap()]
    }

    #[test]
    fn a_bare_tree_is_well_formed_and_shows_every_shape() {
        let tree = aima();
        let svg = render_svg(&Picture::new(&tree));
        assert_well_formed(&svg);
        assert!(svg.contains("aima &lt;&amp;&gt;"));
        assert!(svg.contains("a&quot;1"), "the edge label is escaped");
        assert_eq!(classes_of(&svg, "A"), "node max");
        assert_eq!(classes_of(&svg, "B"), "node min");
        assert_eq!(classes_of(&svg, "B.1"), "node terminal");
        assert!(!svg.contains("class=\"step\""), "no steps without a reference");
    }

    #[test]
    fn alphabeta_marks_steps_windows_and_pruning() {
        let tree = aima();
        let settings = SearchSettings::new(Algorithm::AlphaBeta);
        let (outcome, recording) = search_recorded(&tree, &settings).unwrap();
        let svg = render_svg(&Picture::new(&tree).with_reference(&settings, &outcome, &recording));
        assert_well_formed(&svg);
        assert_eq!(classes_of(&svg, "C"), "node min visited cutoff");
        assert_eq!(classes_of(&svg, "C.2"), "node terminal pruned");
        assert!(svg.contains("≤2"), "the cut node's value is a bound");
        assert!(svg.contains("[3, ∞]"), "C was entered with alpha 3");
        assert_eq!(svg.matches("class=\"cut\"").count(), 2 + 1, "two pruned edges and the legend");
        assert_eq!(svg.matches("<g class=\"step\">").count(), 11 + 1, "11 visited nodes and the legend");
    }

    #[test]
    fn a_trace_marks_wrong_extra_and_skipped_nodes() {
        let tree = aima();
        let settings = SearchSettings::new(Algorithm::AlphaBeta);
        let (outcome, recording) = search_recorded(&tree, &settings).unwrap();
        let ids = ["A", "B", "B.1", "B.2", "B.3", "C", "C.1", "C.2", "C.3", "D", "D.1", "D.2"];
        let student = indices_of(&tree, &ids).unwrap();
        let svg =
            render_svg(&Picture::new(&tree).with_reference(&settings, &outcome, &recording).with_student(&student));
        assert_well_formed(&svg);
        assert_eq!(classes_of(&svg, "C.2"), "node terminal pruned wrong extra");
        assert_eq!(classes_of(&svg, "C.3"), "node terminal pruned extra");
        assert_eq!(classes_of(&svg, "D.3"), "node terminal visited skipped");
        assert!(svg.contains("class=\"ring\""));
        assert!(svg.contains("at step 8 the expected order enters D, but the trace entered C.2"));
    }

    /// A max root over `count` min nodes with evals, each over three leaves.
    fn wide(count: usize) -> Tree {
        let mut builder = TreeBuilder::new("wide", "R");
        let children: Vec<ChildSpec> = (0..count).map(|i| ChildSpec::id(format!("M{i}"))).collect();
        builder.add(NodeSpec::internal("R", NodeKind::Max, children));
        for i in 0..count {
            let body = NodeBody::Internal {
                kind: NodeKind::Min,
                children: leaves(&[1.0, 2.0, i as f64]),
                probs: None,
                eval: Some(i as f64),
            };
            builder.add(NodeSpec { id: format!("M{i}"), body });
        }
        builder.build().unwrap()
    }

    #[test]
    fn depth_cuts_and_large_trees_are_summarised() {
        let mut settings = SearchSettings::new(Algorithm::AlphaBeta);
        settings.depth = Some(1);
        let tree = wide(30);
        let (outcome, recording) = search_recorded(&tree, &settings).unwrap();
        // 31 nodes and 30 summaries fit in 70; the 121 nodes of ply 2 would not.
        let picture = Picture { max_nodes: 70, ..Picture::new(&tree).with_reference(&settings, &outcome, &recording) };
        let svg = render_svg(&picture);
        assert_well_formed(&svg);
        assert_eq!(svg.matches("class=\"summary\"").count(), 30);
        assert!(svg.contains("+3 nodes"));
        assert!(svg.contains("eval 29"));
        assert!(svg.contains("drawn to ply 1: 90 nodes are summarised"));
        let tight = Picture { max_nodes: 40, ..picture };
        assert_eq!(render_svg(&tight).matches("class=\"summary\"").count(), 1, "only the root and one summary");

        let full = render_svg(&Picture::new(&tree).with_reference(&settings, &outcome, &recording));
        assert!(full.contains("not searched"), "large trees fold what lies below the depth limit");
        assert!(!full.contains("below-cut\" data-id"), "no node below the cut is drawn");
        let small = wide(5);
        let (outcome, recording) = search_recorded(&small, &settings).unwrap();
        let svg = render_svg(&Picture::new(&small).with_reference(&settings, &outcome, &recording));
        assert!(svg.contains("node terminal below-cut\" data-id"), "small trees draw every node");
        assert!(svg.contains("class=\"depth-limit\""));
    }

    #[test]
    fn large_trees_fold_pruned_subtrees_unless_the_student_entered_them() {
        // max over 30 x min(max(1, 1), max(2, 3)): from M1 on, alpha = 1 prunes every Y.
        let mut builder = TreeBuilder::new("deep", "R");
        let children: Vec<ChildSpec> = (0..30).map(|i| ChildSpec::id(format!("M{i}"))).collect();
        builder.add(NodeSpec::internal("R", NodeKind::Max, children));
        for i in 0..30 {
            let pair = vec![ChildSpec::id(format!("X{i}")), ChildSpec::id(format!("Y{i}"))];
            builder.add(NodeSpec::internal(format!("M{i}"), NodeKind::Min, pair));
            builder.add(NodeSpec::internal(format!("X{i}"), NodeKind::Max, leaves(&[1.0, 1.0])));
            builder.add(NodeSpec::internal(format!("Y{i}"), NodeKind::Max, leaves(&[2.0, 3.0])));
        }
        let tree = builder.build().unwrap();
        let settings = SearchSettings::new(Algorithm::AlphaBeta);
        let (outcome, recording) = search_recorded(&tree, &settings).unwrap();
        let svg = render_svg(&Picture::new(&tree).with_reference(&settings, &outcome, &recording));
        assert_eq!(svg.matches(">pruned<").count(), 29, "Y1..Y29 are folded");
        let everything: Vec<NodeIndex> = (0..tree.len() as u32).map(NodeIndex).collect();
        let picture = Picture::new(&tree).with_reference(&settings, &outcome, &recording).with_student(&everything);
        let svg = render_svg(&picture);
        assert!(!svg.contains("class=\"summary\""), "nodes the student entered stay drawn");
        assert!(svg.contains("node terminal pruned extra"));
    }

    #[test]
    fn odd_trees_do_not_panic() {
        let mut single = TreeBuilder::new("one", "\u{1}x");
        single.add(NodeSpec::terminal("\u{1}x", -0.0));
        let single = single.build().unwrap();
        let settings = SearchSettings::new(Algorithm::AlphaBeta);
        let (outcome, recording) = search_recorded(&single, &settings).unwrap();
        assert_well_formed(&render_svg(&Picture::new(&single).with_reference(&settings, &outcome, &recording)));

        let mut chain = TreeBuilder::new("chain", "n0");
        for i in 0..200 {
            let kind = if i % 2 == 0 { NodeKind::Max } else { NodeKind::Min };
            chain.add(NodeSpec::internal(format!("n{i}"), kind, vec![ChildSpec::id(format!("n{}", i + 1))]));
        }
        chain.add(NodeSpec::terminal("n200", 1.5));
        let chain = chain.build().unwrap();
        let (outcome, recording) = search_recorded(&chain, &settings).unwrap();
        assert_well_formed(&render_svg(&Picture::new(&chain).with_reference(&settings, &outcome, &recording)));

        let mut fan = TreeBuilder::new("fan", "R");
        let values: Vec<f64> = (0..50).map(|i| i as f64 * 1e6 + 0.123456).collect();
        fan.add(NodeSpec::internal("R", NodeKind::Chance, leaves(&values)));
        let fan = fan.build().unwrap();
        let settings = SearchSettings::new(Algorithm::Expectimax);
        let (outcome, recording) = search_recorded(&fan, &settings).unwrap();
        let garbage = [NodeIndex(3), NodeIndex(999), NodeIndex(3)];
        let svg =
            render_svg(&Picture::new(&fan).with_reference(&settings, &outcome, &recording).with_student(&garbage));
        assert_well_formed(&svg);
    }

    #[test]
    fn values_are_short() {
        assert_eq!(display_value(3.0), "3");
        assert_eq!(display_value(-0.0), "0");
        assert_eq!(display_value(7.25), "7.25");
        assert_eq!(display_value(0.1 + 0.2), "0.3");
        assert_eq!(display_value(f64::NEG_INFINITY), "-∞");
        assert_eq!(shorten("abcdefghijklmnopqrstuvwxyz").chars().count(), MAX_LABEL);
    }
}
