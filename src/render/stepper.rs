//! The step-through: the reference's search and the student's, side by
//! side, one visit at a time, in the browser.
//!
//! Two copies of the tree's picture, each with the steps taken so far shown
//! and the current node ringed; a panel says, at each step, which node each
//! search enters, the alpha-beta window the reference enters it with and the
//! value it returns there, and whether the two searches still agree. Pruned
//! subtrees fade in as the reference prunes them. Buttons and keys (←, →,
//! Home, End, D for the first difference) move the step; nothing relies on
//! colour alone (rings and dashes, and every state in words in the panel).
//!
//! Self-contained: the steps are JSON inside the page and one small script
//! drives every step-through on it; nothing is fetched. The steps are what
//! the reference search recorded as it ran ([`Reference::recording`]).

use std::fmt::Write as _;

use super::{Picture, Reference, render_svg};
use crate::tree::{NodeIndex, Tree};

/// The step-through of one search: the reference's steps and, if known, the
/// student's order.
///
/// `yours` is the picture of the reference with the student's order marked
/// (`Picture::with_student`), which the caller has drawn already for its own
/// figure.
pub fn section(tree: &Tree, reference: Reference<'_>, student: &[NodeIndex], yours: &str) -> String {
    let svg = render_svg(&Picture { reference: Some(reference), ..Picture::new(tree) });
    let data = steps_json(tree, reference, student);
    // A game's positions at the current step, beside the two panes.
    let positions = if tree.board_text(NodeIndex::ROOT).is_some() {
        "<div class=\"positions\"><figure><figcaption>Expected position</figcaption>\
         <pre class=\"position reference\"></pre></figure><figure><figcaption>Your position</figcaption>\
         <pre class=\"position yours\"></pre></figure></div>\n"
    } else {
        ""
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<section class=\"stepper\" tabindex=\"0\" aria-label=\"step through the search\">\n\
         <div class=\"controls\">\
         <button type=\"button\" data-go=\"first\" title=\"first step (Home)\">|&#x25C0; First</button>\
         <button type=\"button\" data-go=\"prev\" title=\"previous step (&#x2190;)\">&#x25C0; Previous</button>\
         <button type=\"button\" data-go=\"next\" title=\"next step (&#x2192;)\">Next &#x25B6;</button>\
         <button type=\"button\" data-go=\"last\" title=\"last step (End)\">Last &#x25B6;|</button>\
         <button type=\"button\" data-go=\"diverge\" title=\"first difference (D)\">First difference</button>\
         <span class=\"counter\" aria-hidden=\"true\"></span></div>\n\
         <p class=\"status\" role=\"status\" aria-live=\"polite\"></p>\n\
         <div class=\"panes\">\n\
         <figure class=\"pane reference\"><figcaption>Expected (the reference search)</figcaption>\
         <div class=\"scroll\">{svg}</div></figure>\n\
         <figure class=\"pane yours\"><figcaption>Yours</figcaption>\
         <div class=\"scroll\">{yours}</div></figure>\n\
         </div>\n{positions}<script type=\"application/json\" class=\"steps\">{}</script>\n</section>",
        json_in_html(&data)
    );
    out
}

/// What the page's script needs, as JSON.
fn steps_json(tree: &Tree, watched: Reference<'_>, student: &[NodeIndex]) -> String {
    let (settings, reference) = (watched.settings, watched.outcome);
    let details = watched.details(tree.len());
    let number = |value: f64| crate::compare::format_value(value);
    let reference_steps: Vec<serde_json::Value> = reference
        .visited
        .iter()
        .map(|&node| {
            let detail = details.get(node.get()).copied().flatten();
            serde_json::json!({
                "id": tree.id(node),
                "alpha": detail.map(|d| number(d.alpha)),
                "beta": detail.map(|d| number(d.beta)),
                "value": detail.map(|d| number(d.value)),
                "cut": detail.is_some_and(|d| d.depth_cut),
            })
        })
        .collect();
    let yours: Vec<&str> = student.iter().map(|&node| tree.id(node)).collect();
    let expected: Vec<&str> = reference.visited.iter().map(|&node| tree.id(node)).collect();
    let divergence = expected
        .iter()
        .zip(&yours)
        .position(|(a, b)| a != b)
        .or_else(|| (expected.len() != yours.len() && !yours.is_empty()).then(|| expected.len().min(yours.len())));
    let boards =
        |order: &[NodeIndex]| -> Vec<Option<&str>> { order.iter().map(|&node| tree.board_text(node)).collect() };
    let positions = tree
        .board_text(NodeIndex::ROOT)
        .map(|_| serde_json::json!({"reference": boards(&reference.visited), "yours": boards(student)}));
    serde_json::json!({
        "alphabeta": settings.algorithm.window_per_node(),
        "reference": reference_steps,
        "yours": yours,
        "divergence": divergence,
        "pruned": pruned_after(tree, watched),
        "positions": positions,
    })
    .to_string()
}

/// For each cutoff: after which reference step it happens (the engine
/// recorded it, once the last searched child's subtree was done), and the
/// ids of the subtrees it prunes.
fn pruned_after(tree: &Tree, reference: Reference<'_>) -> Vec<serde_json::Value> {
    reference
        .cuts()
        .iter()
        .map(|cut| {
            let ids: Vec<&str> =
                cut.children.iter().flat_map(|&child| subtree(tree, child)).map(|node| tree.id(node)).collect();
            serde_json::json!({ "after": cut.after, "ids": ids })
        })
        .collect()
}

/// A node and everything below it.
fn subtree(tree: &Tree, top: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
    let mut pending = vec![top];
    std::iter::from_fn(move || {
        let node = pending.pop()?;
        pending.extend(tree.children(node));
        Some(node)
    })
}

/// JSON safe inside a `<script>` element: no `</script>` or `<!--` can end it.
fn json_in_html(json: &str) -> String {
    json.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

/// The stylesheet of step-throughs, for the page's `<style>`.
pub const STYLE: &str = "
.stepper { margin: 12px 0 0; outline: none; }
.stepper .positions { display: flex; gap: 24px; margin: 8px 0; }
.stepper .positions figure { margin: 0; }
.stepper .positions pre { margin: 2px 0 0; font-size: 14px; line-height: 1.2; }
.stepper:focus-visible { outline: 3px solid #2563eb; outline-offset: 4px; }
.stepper .controls { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.stepper button { font: inherit; font-size: 14px; padding: 4px 10px; border: 1px solid #94a3b8; border-radius: 6px; background: #fff; cursor: pointer; }
.stepper button:focus-visible { outline: 3px solid #2563eb; }
.stepper .counter { margin-left: 8px; font-variant-numeric: tabular-nums; color: #334155; }
.stepper .status { margin: 8px 0; min-height: 3em; font-size: 14px; white-space: pre-line; }
.stepper .panes { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.stepper .pane { margin: 0; flex: 1 1 420px; min-width: 0; }
.stepper .pane figcaption { font-weight: 600; font-size: 14px; margin-bottom: 4px; }
.stepper .scroll { overflow: auto; max-height: 640px; border: 1px solid #e2e8f0; border-radius: 6px; background: #fff; }
.stepper .scroll svg { display: block; margin: 0 auto; }
.stepper g.node.later { opacity: 0.28; }
.stepper g.node.now .shape { stroke: #0f172a; stroke-width: 7; }
.stepper g.node.now { opacity: 1; }
.stepper g.node.cut-now .shape { stroke-dasharray: 6 4; }
";

/// The script that drives every step-through of a page.
pub const SCRIPT: &str = r#"
(function () {
  function wire(section) {
    var data = JSON.parse(section.querySelector('script.steps').textContent);
    var panes = section.querySelectorAll('.pane');
    var ref = panes[0], you = panes[1];
    var total = Math.max(data.reference.length, data.yours.length);
    var step = 0;
    function nodes(pane) { return pane.querySelectorAll('g.node[data-id]'); }
    function mark(pane, order, current, cut) {
      var seen = {};
      for (var i = 0; i <= current && i < order.length; i++) seen[order[i]] = true;
      nodes(pane).forEach(function (g) {
        var id = g.getAttribute('data-id');
        g.classList.toggle('later', !seen[id]);
        g.classList.toggle('now', current < order.length && order[current] === id);
        g.classList.toggle('cut-now', !!cut[id]);
      });
    }
    function show(next) {
      step = Math.max(0, Math.min(total - 1, next));
      var cut = {};
      data.pruned.forEach(function (p) { if (p.after < step) p.ids.forEach(function (id) { cut[id] = true; }); });
      var refIds = data.reference.map(function (s) { return s.id; });
      mark(ref, refIds, step, cut);
      mark(you, data.yours, step, {});
      var r = data.reference[step], y = data.yours[step];
      var lines = [];
      if (r) {
        var line = 'Expected: enters ' + r.id;
        if (data.alphabeta && r.alpha !== null) line += ' with window [' + r.alpha + ', ' + r.beta + ']';
        if (r.value !== null) line += (r.cut ? ', cut by the depth limit: its evaluation ' : ', returns ') + r.value;
        lines.push(line + '.');
      } else {
        lines.push('Expected: the search has ended (' + data.reference.length + ' steps).');
      }
      if (data.yours.length === 0) lines.push('Yours: no order was recorded.');
      else if (y !== undefined) lines.push('Yours: enters ' + y + '.');
      else lines.push('Yours: your search has ended (' + data.yours.length + ' steps).');
      if (data.divergence !== null && step === data.divergence) lines.push('This is the first step where the two differ.');
      else if (data.divergence !== null && step > data.divergence) lines.push('The searches differ since step ' + (data.divergence + 1) + '.');
      else lines.push('So far the two agree.');
      var pruned = data.pruned.filter(function (p) { return p.after === step - 1; });
      if (pruned.length) lines.push('The reference has just pruned: ' + pruned.map(function (p) { return p.ids[0]; }).join(', ') + ' (dashed).');
      section.querySelector('.status').textContent = lines.join('\n');
      if (data.positions) {
        section.querySelector('pre.position.reference').textContent = data.positions.reference[step] || '';
        section.querySelector('pre.position.yours').textContent = data.positions.yours[step] || '';
      }
      section.querySelector('.counter').textContent = 'Step ' + (step + 1) + ' of ' + total;
    }
    function go(where) {
      if (where === 'first') show(0);
      else if (where === 'prev') show(step - 1);
      else if (where === 'next') show(step + 1);
      else if (where === 'last') show(total - 1);
      else if (where === 'diverge' && data.divergence !== null) show(data.divergence);
    }
    section.querySelectorAll('button[data-go]').forEach(function (b) {
      b.addEventListener('click', function () { go(b.getAttribute('data-go')); });
    });
    section.addEventListener('keydown', function (e) {
      var keys = { ArrowRight: 'next', ArrowLeft: 'prev', Home: 'first', End: 'last', d: 'diverge', D: 'diverge' };
      if (keys[e.key]) { go(keys[e.key]); e.preventDefault(); }
    });
    show(0);
  }
  // Open every picture with its root in view, wide trees included: the
  // root is the first node drawn.
  document.querySelectorAll('.scroll').forEach(function (box) {
    var root = box.querySelector('g.node[data-id]');
    if (root && root.getBoundingClientRect) {
      var r = root.getBoundingClientRect(), b = box.getBoundingClientRect();
      box.scrollLeft += (r.left + r.width / 2) - (b.left + b.width / 2);
    }
  });
  document.querySelectorAll('section.stepper').forEach(wire);
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Algorithm, SearchSettings, search_recorded};
    use crate::tree::fixtures::aima;

    #[test]
    fn the_data_holds_every_step_the_divergence_and_the_cutoffs() {
        let tree = aima();
        let settings = SearchSettings::new(Algorithm::AlphaBeta);
        let (outcome, recording) = search_recorded(&tree, &settings).unwrap();
        let reference = Reference { settings: &settings, outcome: &outcome, recording: &recording };
        let student = crate::render::indices_of(&tree, &["A", "B", "B.1", "B.2", "B.3", "C", "C.1", "C.2"]).unwrap();
        let data: serde_json::Value = serde_json::from_str(&steps_json(&tree, reference, &student)).unwrap();
        assert_eq!(data["reference"].as_array().unwrap().len(), outcome.visited.len());
        assert_eq!(data["reference"][5]["id"], "C");
        assert_eq!(data["reference"][5]["alpha"], "3");
        assert_eq!(data["divergence"], 7, "C.2 where D was expected");
        let pruned = &data["pruned"][0];
        assert_eq!(pruned["after"], 6, "after C.1, the 7th step");
        assert_eq!(pruned["ids"], serde_json::json!(["C.2", "C.3"]));
    }

    #[test]
    fn the_json_cannot_close_its_script_element() {
        assert_eq!(json_in_html("{\"a\":\"</script><!--\"}"), "{\"a\":\"\\u003c/script\\u003e\\u003c!--\"}");
    }
}
