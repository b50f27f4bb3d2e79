//! Replays: a played game on its board, one ply at a time, in the browser.
//!
//! Each game is a section with the boards as JSON (the text each game draws,
//! an m,n,k-game's grid included) and the move list; one small script
//! draws the board of the current ply with DOM calls (no markup from data)
//! and moves through the plies by buttons, the arrow keys, Home and End, or
//! a click on a move. Self-contained: nothing is fetched.

use std::fmt::Write as _;

use super::escape;
use crate::play::{GameRecord, Mover};

/// A game's replay: summary, move list and the board to step through.
pub fn section(record: &GameRecord) -> String {
    let frames: Vec<serde_json::Value> = (0..record.boards.len())
        .map(|ply| serde_json::json!({"board": record.boards[ply], "caption": caption(record, ply)}))
        .collect();
    let mut moves = String::new();
    for (ply, played) in record.moves.iter().enumerate() {
        let class = match played.by {
            Mover::Opening => "opening",
            Mover::Chance => "chance",
            Mover::Max => "max",
            Mover::Min => "min",
        };
        let _ = write!(
            moves,
            "<button type=\"button\" class=\"move {class}\" data-ply=\"{}\" title=\"{}\">{}</button> ",
            ply + 1,
            escape(&caption(record, ply + 1)),
            escape(&played.action)
        );
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<section class=\"replay\" tabindex=\"0\" aria-label=\"replay of {}\">\n\
         <div class=\"controls\">\
         <button type=\"button\" data-go=\"first\" title=\"the start (Home)\">|&#x25C0;</button>\
         <button type=\"button\" data-go=\"prev\" title=\"previous ply (&#x2190;)\">&#x25C0;</button>\
         <button type=\"button\" data-go=\"next\" title=\"next ply (&#x2192;)\">&#x25B6;</button>\
         <button type=\"button\" data-go=\"last\" title=\"the end (End)\">&#x25B6;|</button>\
         <span class=\"caption\" role=\"status\" aria-live=\"polite\"></span></div>\n\
         <div class=\"board\"></div>\n<p class=\"moves\">{moves}</p>\n\
         <script type=\"application/json\" class=\"frames\">{}</script>\n</section>",
        escape(&record.label),
        json_in_html(&serde_json::Value::Array(frames).to_string())
    );
    out
}

/// What the board after `ply` plies shows, in words.
fn caption(record: &GameRecord, ply: usize) -> String {
    if ply == 0 {
        return "the start".to_string();
    }
    let played = &record.moves[ply - 1];
    let who = match played.by {
        Mover::Opening => "random opening".to_string(),
        Mover::Chance => "chance".to_string(),
        Mover::Max => format!("{} (MAX)", record.max),
        Mover::Min => format!("{} (MIN)", record.min),
    };
    let mut text = format!("ply {ply}: {who} played {}", played.action);
    if played.entered > 0 {
        let _ = write!(text, " ({} nodes entered)", played.entered);
    }
    if ply == record.moves.len() {
        let _ = write!(text, "; {}", record.summary());
    }
    text
}

/// JSON text safe inside a `<script>` element.
fn json_in_html(json: &str) -> String {
    json.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

/// The stylesheet of replays, for the page's `<style>`.
pub const STYLE: &str = "
.replay { margin: 8px 0 14px; outline: none; }
.replay:focus-visible { outline: 3px solid #2563eb; outline-offset: 4px; }
.replay .controls { display: flex; gap: 6px; align-items: center; }
.replay button { font: inherit; font-size: 13px; padding: 2px 8px; border: 1px solid #94a3b8; border-radius: 5px; background: #fff; cursor: pointer; }
.replay .caption { margin-left: 8px; color: #334155; font-size: 14px; }
.replay .board { margin: 8px 0; }
.replay .board pre { margin: 0; }
.replay .moves button.move { padding: 0 5px; font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; }
.replay .moves button.opening, .replay .moves button.chance { color: #64748b; border-style: dashed; }
.replay .moves button.max { color: #1d4ed8; } .replay .moves button.min { color: #b91c1c; }
.replay .moves button.current { background: #fde68a; }
.replay table.grid { border-collapse: collapse; }
.replay table.grid td { width: 22px; height: 22px; border: 1px solid #94a3b8; text-align: center; font-weight: 700; background: #fff; }
.replay table.grid td.x { color: #1d4ed8; } .replay table.grid td.o { color: #b91c1c; }
.replay table.grid th { font-size: 11px; color: #64748b; font-weight: 400; padding: 0 4px; background: none; border: none; }
";

/// The one script that drives every replay on a page.
pub const SCRIPT: &str = r#"
(function () {
  function grid(text) {
    var lines = text.split('\n');
    var letters = lines.pop();
    var rows = lines.map(function (line) { return line.trim().split(' '); });
    if (!letters || rows.length === 0 || rows.some(function (r) { return r.length !== 2 || !/^[xo.]+$/.test(r[1]); })) {
      return null;
    }
    var table = document.createElement('table');
    table.className = 'grid';
    rows.forEach(function (row) {
      var tr = table.insertRow();
      var th = document.createElement('th'); th.textContent = row[0]; tr.appendChild(th);
      row[1].split('').forEach(function (cell) {
        var td = tr.insertCell();
        td.className = cell === 'x' ? 'x' : cell === 'o' ? 'o' : 'empty';
        td.textContent = cell === 'x' ? 'X' : cell === 'o' ? 'O' : '';
      });
    });
    var foot = table.insertRow();
    foot.appendChild(document.createElement('th'));
    letters.trim().split('').forEach(function (letter) {
      var th = document.createElement('th'); th.textContent = letter; foot.appendChild(th);
    });
    return table;
  }
  document.querySelectorAll('section.replay').forEach(function (section) {
    var frames = JSON.parse(section.querySelector('script.frames').textContent);
    var board = section.querySelector('.board');
    var caption = section.querySelector('.caption');
    var moves = section.querySelectorAll('button.move');
    var at = frames.length - 1;
    function show(ply) {
      if (frames.length === 0) { return; }
      at = Math.max(0, Math.min(frames.length - 1, ply));
      var frame = frames[at];
      board.textContent = '';
      var drawn = grid(frame.board);
      if (drawn) { board.appendChild(drawn); } else {
        var pre = document.createElement('pre'); pre.textContent = frame.board; board.appendChild(pre);
      }
      caption.textContent = frame.caption;
      moves.forEach(function (move) { move.classList.toggle('current', Number(move.dataset.ply) === at); });
    }
    section.querySelectorAll('.controls button').forEach(function (button) {
      button.addEventListener('click', function () {
        var go = button.dataset.go;
        show(go === 'first' ? 0 : go === 'prev' ? at - 1 : go === 'next' ? at + 1 : frames.length - 1);
      });
    });
    moves.forEach(function (move) {
      move.addEventListener('click', function () { show(Number(move.dataset.ply)); });
    });
    section.addEventListener('keydown', function (event) {
      var keys = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: frames.length - 1 };
      if (event.key in keys) { show(keys[event.key]); event.preventDefault(); }
    });
    show(at);
  });
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::{Ending, PlyRecord};

    #[test]
    fn a_replay_carries_every_board_and_escapes_what_it_shows() {
        let record = GameRecord {
            label: "q1/<x>/1".into(),
            index: 0,
            seed: 1,
            max: "you".into(),
            min: "<random>".into(),
            openings: 1,
            moves: vec![
                PlyRecord { action: "b2".into(), by: Mover::Opening, entered: 0, clock: None, elapsed_ms: 0 },
                PlyRecord { action: "a1".into(), by: Mover::Min, entered: 7, clock: None, elapsed_ms: 1 },
            ],
            ending: Ending::MoveLimit,
            utility: Some(0.0),
            boards: vec![" 1 ...\n   abc".into(), " 1 .x.\n   abc".into(), " 1 ox.\n   abc".into()],
        };
        let html = section(&record);
        assert!(html.contains("aria-label=\"replay of q1/&lt;x&gt;/1\""), "{html}");
        assert!(html.contains("data-ply=\"2\""));
        assert!(html.contains("\\u003crandom\\u003e (MIN) played a1 (7 nodes entered)"), "{html}");
        assert!(!html.contains("<random>"), "data cannot close the script element");
        assert_eq!(html.matches("\"board\":").count(), 3);
    }
}
