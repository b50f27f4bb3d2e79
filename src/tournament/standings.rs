//! The standings of a tournament: ratings by a Bradley-Terry fit with
//! intervals, each agent's results and the failures charged to it, as
//! `standings.csv` (for a gradebook) and `standings.html` (the table,
//! head-to-head results and every game to step through).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use super::store::{Manifest, PairFile, read_pairs};
use crate::outdir::write_atomically;
use crate::play::{FaultKind, GameResult, Seat, Tally, tally};
use crate::render::{escape, replay};
use crate::stats::{Meeting, Rating, bradley_terry};

/// One agent's line, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// 1 for the best.
    pub rank: usize,
    /// The agent.
    pub agent: String,
    /// A reference baseline rather than a student.
    pub baseline: bool,
    /// Its rating with the interval.
    pub rating: Rating,
    /// Its results over every game it played.
    pub tally: Tally,
}

/// A tournament's standings.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    /// Every entered agent, best first.
    pub rows: Vec<Row>,
    /// Agents not entered, with why.
    pub not_entered: Vec<(String, String)>,
    /// The games between entered agents, pair by pair.
    pub pairs: Vec<PairFile>,
}

/// The standings of the games in `out` between the manifest's entered agents.
pub fn compute(out: &Path, manifest: &Manifest) -> io::Result<Standings> {
    let entered: Vec<&str> = manifest
        .entrants
        .iter()
        .map(|entrant| entrant.name.as_str())
        .filter(|name| !manifest.not_entered.contains_key(*name))
        .collect();
    let index: BTreeMap<&str, usize> = entered.iter().enumerate().map(|(i, name)| (*name, i)).collect();
    let pairs: Vec<PairFile> = read_pairs(out)?
        .into_iter()
        .filter(|pair| index.contains_key(pair.first.as_str()) && index.contains_key(pair.second.as_str()))
        .collect();
    let mut meetings = Vec::new();
    for record in pairs.iter().flat_map(|pair| &pair.games) {
        let score = match record.result(Seat::Max) {
            GameResult::Win => 1.0,
            GameResult::Draw => 0.5,
            GameResult::Loss => 0.0,
            GameResult::Void => continue,
        };
        meetings.push(Meeting { first: index[record.max.as_str()], second: index[record.min.as_str()], score });
    }
    let ratings = bradley_terry(entered.len(), &meetings);
    let mut rows: Vec<Row> = entered
        .iter()
        .zip(ratings)
        .map(|(name, rating)| {
            let games: Vec<_> = pairs
                .iter()
                .filter(|pair| pair.first == *name || pair.second == *name)
                .flat_map(|pair| pair.games.iter().cloned())
                .collect();
            let baseline = manifest.entrants.iter().any(|entrant| entrant.name == *name && entrant.baseline);
            Row { rank: 0, agent: name.to_string(), baseline, rating, tally: tally(&games, name) }
        })
        .collect();
    rows.sort_by(|a, b| b.rating.rating.total_cmp(&a.rating.rating).then_with(|| a.agent.cmp(&b.agent)));
    for (position, row) in rows.iter_mut().enumerate() {
        row.rank = position + 1;
    }
    let not_entered = manifest.not_entered.iter().map(|(name, why)| (name.clone(), why.clone())).collect();
    Ok(Standings { rows, not_entered, pairs })
}

/// The columns of `standings.csv`.
pub const COLUMNS: [&str; 15] = [
    "rank",
    "agent",
    "rating",
    "rating_low",
    "rating_high",
    "games",
    "wins",
    "draws",
    "losses",
    "timeouts",
    "illegal_moves",
    "crashes",
    "protocol_errors",
    "baseline",
    "status",
];

/// `standings.csv`: one row per agent, best first, then those not entered.
pub fn csv(standings: &Standings) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let _ = writer.write_record(COLUMNS);
    let one = |value: f64| format!("{value:.1}");
    for row in &standings.rows {
        let tally = &row.tally;
        let _ = writer.write_record([
            row.rank.to_string(),
            row.agent.clone(),
            one(row.rating.rating),
            one(row.rating.low),
            one(row.rating.high),
            tally.games.to_string(),
            tally.wins.to_string(),
            tally.draws.to_string(),
            tally.losses.to_string(),
            tally.fault_count(FaultKind::TimedOut).to_string(),
            tally.fault_count(FaultKind::IllegalMove).to_string(),
            tally.fault_count(FaultKind::Crashed).to_string(),
            tally.fault_count(FaultKind::ProtocolError).to_string(),
            row.baseline.to_string(),
            "entered".to_string(),
        ]);
    }
    for (name, why) in &standings.not_entered {
        let mut record = vec![String::new(), name.clone()];
        record.extend(std::iter::repeat_n(String::new(), COLUMNS.len() - 4));
        record.push("false".to_string());
        record.push(format!("not entered: {why}"));
        let _ = writer.write_record(record);
    }
    String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Writes `standings.csv` and `standings.html`.
pub fn write(out: &Path, manifest: &Manifest, standings: &Standings) -> io::Result<()> {
    write_atomically(&out.join("standings.csv"), csv(standings).as_bytes())?;
    write_atomically(&out.join("standings.html"), html(manifest, standings).as_bytes())
}

/// `standings.html`: the table, the head-to-head results, and every game.
pub fn html(manifest: &Manifest, standings: &Standings) -> String {
    let settings = &manifest.settings;
    let mut body = String::new();
    let budget =
        settings.budget.map_or_else(|| "no node budget".to_string(), |budget| format!("{budget} nodes per move"));
    let _ = writeln!(
        body,
        "<h1>Tournament: {}</h1>\n<p class=\"meta\">{} agents, {} games per pair (colours alternating), {} random \
         opening plies, {budget}, {} s per move, seed {}. Ratings by a Bradley-Terry fit, 1500 the field's \
         average, with 95% intervals.</p>",
        escape(&settings.game),
        standings.rows.len(),
        settings.games_per_pair,
        settings.openings,
        settings.move_time_limit_ms as f64 / 1000.0,
        settings.seed
    );
    table(&mut body, standings);
    if !standings.not_entered.is_empty() {
        let _ = writeln!(body, "<h2>Not entered</h2>\n<ul>");
        for (name, why) in &standings.not_entered {
            let _ = writeln!(body, "<li><b>{}</b>: {}</li>", escape(name), escape(why));
        }
        let _ = writeln!(body, "</ul>");
    }
    head_to_head(&mut body, standings);
    let _ = writeln!(body, "<h2>Games</h2>");
    for pair in &standings.pairs {
        let _ = writeln!(body, "<h3>{} vs {}</h3>", escape(&pair.first), escape(&pair.second));
        for record in &pair.games {
            let _ = writeln!(
                body,
                "<details class=\"game\"><summary>{}: {}</summary>\n{}</details>",
                escape(&record.label),
                escape(&record.summary()),
                replay::section(record)
            );
        }
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Tournament: {}</title>\n\
         <style>{STYLE}{}</style>\n</head>\n<body>\n{body}<script>{}</script>\n</body>\n</html>\n",
        escape(&settings.game),
        replay::STYLE,
        replay::SCRIPT
    )
}

fn table(body: &mut String, standings: &Standings) {
    let _ = writeln!(
        body,
        "<table class=\"standings\">\n<thead><tr><th>#</th><th>agent</th><th>rating</th><th>95% interval</th>\
         <th>games</th><th>won</th><th>drawn</th><th>lost</th><th>failures charged</th></tr></thead>\n<tbody>"
    );
    for row in &standings.rows {
        let tally = &row.tally;
        let faults: Vec<String> =
            tally.faults.iter().map(|(kind, count)| format!("{count} {}", kind.words())).collect();
        let baseline = if row.baseline { " <span class=\"baseline\">baseline</span>" } else { "" };
        let _ = writeln!(
            body,
            "<tr><td class=\"num\">{}</td><td>{}{baseline}</td><td class=\"num\">{:.0}</td>\
             <td class=\"num\">{:.0} to {:.0}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            row.rank,
            escape(&row.agent),
            row.rating.rating,
            row.rating.low,
            row.rating.high,
            tally.games,
            tally.wins,
            tally.draws,
            tally.losses,
            escape(&faults.join(", "))
        );
    }
    let _ = writeln!(body, "</tbody>\n</table>");
}

/// Each agent's wins, draws and losses against each other, in standings order.
fn head_to_head(body: &mut String, standings: &Standings) {
    let mut results: BTreeMap<(&str, &str), [u64; 3]> = BTreeMap::new();
    for record in standings.pairs.iter().flat_map(|pair| &pair.games) {
        for seat in Seat::BOTH {
            let slot = results.entry((record.agent(seat), record.agent(seat.other()))).or_default();
            match record.result(seat) {
                GameResult::Win => slot[0] += 1,
                GameResult::Draw => slot[1] += 1,
                GameResult::Loss => slot[2] += 1,
                GameResult::Void => {}
            }
        }
    }
    let _ = writeln!(
        body,
        "<h2>Head to head</h2>\n<p class=\"meta\">Each cell: the row's wins-draws-losses against the column.</p>\n<div class=\"scroll\"><table class=\"h2h\">\n<thead><tr><th></th>"
    );
    for row in &standings.rows {
        let _ = write!(body, "<th>{}</th>", escape(&row.agent));
    }
    let _ = writeln!(body, "</tr></thead>\n<tbody>");
    for row in &standings.rows {
        let _ = write!(body, "<tr><th>{}</th>", escape(&row.agent));
        for column in &standings.rows {
            match results.get(&(row.agent.as_str(), column.agent.as_str())) {
                Some([w, d, l]) => {
                    let _ = write!(body, "<td class=\"num\">{w}-{d}-{l}</td>");
                }
                None => body.push_str("<td></td>"),
            }
        }
        let _ = writeln!(body, "</tr>");
    }
    let _ = writeln!(body, "</tbody>\n</table></div>");
}

const STYLE: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif; margin: 0 auto; padding: 24px; max-width: 1400px; color: #0f172a; background: #f8fafc; line-height: 1.45; }
h1 { font-size: 24px; margin: 0 0 8px; } h2 { font-size: 19px; margin: 28px 0 8px; } h3 { font-size: 15px; margin: 14px 0 4px; }
.meta { color: #475569; }
table { border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: 4px 10px; border-bottom: 1px solid #e2e8f0; }
th { background: #f1f5f9; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.baseline { font-size: 12px; color: #64748b; border: 1px solid #cbd5e1; border-radius: 4px; padding: 0 4px; margin-left: 6px; }
.scroll { overflow: auto; max-width: 100%; }
details.game summary { cursor: pointer; }
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::Tally;

    #[test]
    fn the_csv_has_one_row_per_agent_and_says_who_was_not_entered() {
        let row = |rank: usize, agent: &str, rating: f64| Row {
            rank,
            agent: agent.to_string(),
            baseline: agent == "random",
            rating: Rating { rating, low: rating - 50.0, high: rating + 50.0 },
            tally: Tally { agent: agent.to_string(), games: 4, wins: 2, draws: 1, losses: 1, ..Tally::default() },
        };
        let standings = Standings {
            rows: vec![row(1, "alice", 1600.04), row(2, "random", 1399.96)],
            not_entered: vec![("bob".to_string(), "the build failed".to_string())],
            pairs: Vec::new(),
        };
        let text = csv(&standings);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], COLUMNS.join(","));
        assert_eq!(lines[1], "1,alice,1600.0,1550.0,1650.0,4,2,1,1,0,0,0,0,false,entered");
        assert_eq!(lines[2], "2,random,1400.0,1350.0,1450.0,4,2,1,1,0,0,0,0,true,entered");
        assert_eq!(lines[3], ",bob,,,,,,,,,,,,false,not entered: the build failed");
    }
}
