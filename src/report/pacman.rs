//! How reports show Pacman tests: the games with how each ended, the
//! average score with its interval and how far each threshold was, or the
//! staff path's verdict; in HTML, each game as a replay on its board.

use std::fmt::Write as _;

use crate::game::pacman::test::CriterionKind;
use crate::grader::pacman::outcome::{CriterionOutcome, GameEnd, PacmanOutcome, PlayOutcome, ReplayOutcome};
use crate::grader::result::TestResult;
use crate::render::escape;

/// `(4 of 6 points)` after a test's name, for a test scored by thresholds.
pub fn points_note(test: &TestResult) -> Option<String> {
    let credit = test.credit()?;
    Some(format!(" ({} of {} points)", credit.earned, credit.possible))
}

/// The lines the text report shows about a Pacman test (for students who may see them).
pub fn text_lines(test: &TestResult) -> Vec<String> {
    match test.pacman() {
        Some(PacmanOutcome::Play(play)) => play_lines(play),
        Some(PacmanOutcome::Replay(replay)) => replay_lines(replay),
        None => Vec::new(),
    }
}

fn play_lines(play: &PlayOutcome) -> Vec<String> {
    let mut lines = vec![format!(
        "{} games on {}: {} won, average score {}{}",
        play.games.len(),
        play.layout,
        play.wins,
        number(play.average_score),
        play.score_interval.map_or_else(String::new, |[low, high]| format!(
            " (95% interval {} to {})",
            number(low),
            number(high)
        ))
    )];
    for criterion in &play.criteria {
        lines.push(criterion_line(criterion));
    }
    lines.extend(not_played_line(play));
    for game in &play.games {
        // One stream seeded once serves every game: a seed per game would mislead.
        let seed = if play.random == "per-game" { format!(" (seed {})", game.seed) } else { String::new() };
        lines.push(format!(
            "game {:>2}{seed}: {:<9} score {:>6}, {:>4} moves; {}",
            game.game,
            end_word(game.end),
            game.score,
            game.moves,
            game.how
        ));
    }
    if play.random == "shared" && !play.cs188.is_empty() {
        lines.push(format!("as CS188 prints these games (one stream, seeded once with {}):", seed_of(play)));
        lines.extend(play.cs188.iter().map(|line| format!("  {line}")));
    }
    lines
}

fn seed_of(play: &PlayOutcome) -> i64 {
    play.games.first().map_or(0, |game| game.seed)
}

/// Why the last games were not played, when they were not.
fn not_played_line(play: &PlayOutcome) -> Option<String> {
    (play.not_played > 0).then(|| {
        let first = play.games.len() + 1;
        let last = play.games.len() + play.not_played as usize;
        let which = if first == last { format!("game {first} was") } else { format!("games {first} to {last} were") };
        format!(
            "{which} not played: a minimum could no longer be met, so the test earns nothing whatever they would give"
        )
    })
}

/// `wins 9: 1 short of 10; 2 of 3 points`.
fn criterion_line(criterion: &CriterionOutcome) -> String {
    let value = criterion.value;
    let shown = match criterion.kind {
        CriterionKind::AverageScore => number(value),
        _ => format!("{value}"),
    };
    let mut parts = Vec::new();
    if let Some(minimum) = criterion.minimum {
        parts.push(if criterion.met_minimum {
            format!("the minimum {} met", number(minimum))
        } else {
            format!("below the minimum {} by {}: the test earns nothing", number(minimum), number(minimum - value))
        });
    }
    for &threshold in &criterion.thresholds {
        parts.push(if value >= threshold {
            format!("{} above {}", number(value - threshold), number(threshold))
        } else {
            format!("{} short of {}", number(threshold - value), number(threshold))
        });
    }
    format!(
        "{} {shown}: {}; {} of {} points",
        criterion.kind.label(),
        parts.join(", "),
        criterion.points,
        criterion.thresholds.len()
    )
}

fn replay_lines(replay: &ReplayOutcome) -> Vec<String> {
    vec![format!(
        "{} of the staff's {} moves on {} answered; {} not among the best",
        replay.answered, replay.steps, replay.layout, replay.suboptimal_moves
    )]
}

fn end_word(end: GameEnd) -> &'static str {
    match end {
        GameEnd::Won => "won,",
        GameEnd::Lost => "lost,",
        GameEnd::Crashed => "crashed,",
        GameEnd::TimedOut => "timed out,",
    }
}

/// A figure with at most one decimal: `1237.3`, `500`.
fn number(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 { format!("{rounded:.0}") } else { format!("{rounded:.1}") }
}

/// Frames a replay shows at most; a longer game shows its last ones.
const MOST_FRAMES: usize = 4000;

/// The HTML of a Pacman test: the lines of the text report, and for a
/// play test each game's replay (its board drawn, stepped by buttons or keys).
pub fn html(out: &mut String, test: &TestResult) {
    let lines = text_lines(test);
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "<div class=\"pacman\">");
    let Some(PacmanOutcome::Play(play)) = test.pacman() else {
        let _ = writeln!(out, "<p>{}</p>\n</div>", escape(&lines.join(" ")));
        return;
    };
    let _ = writeln!(out, "<p>{}</p>\n<ul>", escape(&lines[0]));
    for line in &lines[1..=play.criteria.len()] {
        let _ = writeln!(out, "<li>{}</li>", escape(line));
    }
    let _ = writeln!(out, "</ul>");
    if let Some(line) = not_played_line(play) {
        let _ = writeln!(out, "<p>{}</p>", escape(&line));
    }
    for game in &play.games {
        let frames = &game.frames[game.frames.len().saturating_sub(MOST_FRAMES)..];
        let mut data = String::new();
        let _ = write!(data, "{{\"rows\":{},\"frames\":[", serde_json::to_string(&play.rows).expect("strings"));
        for (index, frame) in frames.iter().enumerate() {
            if index > 0 {
                data.push(',');
            }
            let agents: Vec<String> =
                frame.agents.iter().map(|(x, y, scared, d)| format!("[{x},{y},{scared},\"{d}\"]")).collect();
            let eaten = frame.eaten.map_or_else(|| "null".to_string(), |(x, y)| format!("[{x},{y}]"));
            let _ = write!(data, "[[{}],{},{eaten}]", agents.join(","), frame.score);
        }
        let skipped = game.frames.len() - frames.len();
        let _ = write!(data, "],\"skipped\":{skipped}}}");
        let _ = writeln!(
            out,
            "<details class=\"game\"><summary>Game {}{}: {}, score {}, {} moves</summary>\n\
             <p class=\"how\">{}</p>\n<div class=\"replay\" data-game=\"{}\"></div>\n</details>",
            game.game,
            if play.random == "per-game" { format!(" (seed {})", game.seed) } else { String::new() },
            end_word(game.end).trim_end_matches(','),
            game.score,
            game.moves,
            escape(&game.how),
            escape(&data)
        );
    }
    let _ = writeln!(out, "</div>");
}

/// Whether a page needs the replay script.
pub fn has_replays(page: &str) -> bool {
    page.contains("<div class=\"replay\"")
}

/// The style of Pacman sections.
pub const STYLE: &str = ".pacman ul{margin:.3em 0}.game summary{cursor:pointer}.game .how{color:#555;margin:.2em 0}\
.replay svg{background:#000;max-width:100%}.replay .controls{margin:.3em 0}.replay button{margin-right:.3em}";

/// Draws each replay's board and steps through its frames (buttons, a
/// slider, the arrow keys while the pointer is over it).
pub const SCRIPT: &str = r##"
(function(){
var NS="http://www.w3.org/2000/svg";
function el(name,attrs,parent){var e=document.createElementNS(NS,name);for(var k in attrs)e.setAttribute(k,attrs[k]);if(parent)parent.appendChild(e);return e;}
document.querySelectorAll(".replay").forEach(function(box){
  var g=JSON.parse(box.getAttribute("data-game")),rows=g.rows,H=rows.length,W=rows[0].length,S=20;
  var svg=el("svg",{viewBox:"0 0 "+(W*S)+" "+(H*S+S),width:W*S,height:H*S+S});
  var food={},base=el("g",{},svg),dots=el("g",{},svg),agents=el("g",{},svg);
  var label=el("text",{x:4,y:H*S+S-5,fill:"#fff","font-size":14,"font-family":"monospace"},svg);
  for(var r=0;r<H;r++)for(var c=0;c<W;c++){var ch=rows[r][c],x=c*S,y=r*S,key=c+","+(H-1-r);
    if(ch=="%")el("rect",{x:x,y:y,width:S,height:S,fill:"#2233bb"},base);
    if(ch=="."||ch=="o")food[key]={ch:ch,x:x+S/2,y:y+S/2};}
  var controls=document.createElement("div");controls.className="controls";
  function button(text,f){var b=document.createElement("button");b.type="button";b.textContent=text;b.onclick=f;controls.appendChild(b);return b;}
  var slider=document.createElement("input");slider.type="range";slider.min=0;slider.max=g.frames.length-1;slider.value=0;
  var at=0,timer=null;
  function show(i){at=Math.max(0,Math.min(g.frames.length-1,i));slider.value=at;
    var gone={};for(var k=1;k<=at;k++){var e=g.frames[k][2];if(e)gone[e[0]+","+e[1]]=1;}
    while(dots.firstChild)dots.removeChild(dots.firstChild);
    for(var key in food)if(!gone[key]){var f=food[key];el("circle",{cx:f.x,cy:f.y,r:f.ch=="o"?6:2.5,fill:f.ch=="o"?"#fff":"#ffb8ae"},dots);}
    while(agents.firstChild)agents.removeChild(agents.firstChild);
    g.frames[at][0].forEach(function(a,i){var cx=a[0]/2*S+S/2,cy=(H-1-a[1]/2)*S+S/2;
      if(i==0)el("circle",{cx:cx,cy:cy,r:S*0.42,fill:"#ffee00"},agents);
      else el("rect",{x:cx-S*0.4,y:cy-S*0.4,width:S*0.8,height:S*0.8,rx:S*0.3,fill:a[2]>0?"#3355ff":["#f00","#0bf","#f9c","#fb5"][(i-1)%4]},agents);});
    label.textContent="step "+at+"/"+(g.frames.length-1)+(g.skipped?" (the last steps)":"")+"  score "+g.frames[at][1];}
  button("|\u25c0",function(){show(0);});button("\u25c0",function(){show(at-1);});
  var play=button("\u25b6 play",function(){if(timer){clearInterval(timer);timer=null;play.textContent="\u25b6 play";return;}
    play.textContent="\u23f8 pause";timer=setInterval(function(){if(at>=g.frames.length-1){clearInterval(timer);timer=null;play.textContent="\u25b6 play";return;}show(at+1);},80);});
  button("\u25b6",function(){show(at+1);});button("\u25b6|",function(){show(g.frames.length-1);});
  slider.oninput=function(){show(+slider.value);};controls.appendChild(slider);
  box.appendChild(svg);box.appendChild(controls);
  box.tabIndex=0;box.addEventListener("keydown",function(e){if(e.key=="ArrowRight")show(at+1);else if(e.key=="ArrowLeft")show(at-1);else if(e.key=="Home")show(0);else if(e.key=="End")show(g.frames.length-1);else return;e.preventDefault();});
  show(0);});
})();
"##;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criteria_say_how_far_each_threshold_was() {
        let criterion = CriterionOutcome {
            kind: CriterionKind::Wins,
            value: 9.0,
            minimum: Some(1.0),
            thresholds: vec![1.0, 5.0, 10.0],
            met_minimum: true,
            points: 2,
        };
        assert_eq!(
            criterion_line(&criterion),
            "wins 9: the minimum 1 met, 8 above 1, 4 above 5, 1 short of 10; 2 of 3 points"
        );
        let score = CriterionOutcome {
            kind: CriterionKind::AverageScore,
            value: 983.25,
            minimum: None,
            thresholds: vec![500.0, 1000.0],
            met_minimum: true,
            points: 1,
        };
        assert_eq!(criterion_line(&score), "average score 983.3: 483.3 above 500, 16.8 short of 1000; 1 of 2 points");
        assert_eq!(number(-188.0), "-188");
    }
}
