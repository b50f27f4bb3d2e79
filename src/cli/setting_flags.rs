//! The flags of the engine's table of search settings (`SETTINGS`), as
//! `solve` and `gen` offer them: each command's own flags and the table's,
//! listed in one order by rank, and the values given read back by kind.

use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::engine::settings::{Flag, FlagParse, Kind, SETTINGS, Setting};
use crate::tree::{MoveOrdering, SearchDefaults, SettingValue};

/// Which of an entry's flags a command offers (`|setting| setting.solve`).
pub type FlagOf = fn(&Setting) -> Option<Flag>;

/// `cmd` with `own` (a command's own flags, as its derive made them on a
/// scratch command) and the table's flags for it, in the order of `ranks`
/// (each own flag's id and rank; a table flag's rank is its entry's), so
/// that `--help` lists them as one list.
pub fn augment(cmd: Command, own: Command, ranks: &[(&str, u8)], flag_of: FlagOf) -> Command {
    let rank_of = |arg: &Arg| {
        let id = arg.get_id().as_str();
        ranks.iter().find(|(known, _)| *known == id).map_or(u8::MAX, |&(_, rank)| rank)
    };
    // Each argument takes its place in `--help` from the order it is added.
    let mut args: Vec<(u8, Arg)> =
        own.get_arguments().map(|arg| (rank_of(arg), arg.clone().display_order(None))).collect();
    for setting in &SETTINGS {
        if let Some(flag) = flag_of(setting) {
            args.push((flag.rank, arg_of(setting, flag)));
        }
    }
    args.sort_by_key(|(rank, _)| *rank);
    args.into_iter().fold(cmd, |cmd, (_, arg)| cmd.arg(arg))
}

/// One entry's flag: its name, help and value, parsed by the entry's kind.
fn arg_of(setting: &'static Setting, flag: Flag) -> Arg {
    let mut arg = Arg::new(flag.long).long(flag.long).help(flag.help).action(ArgAction::Set).required(false);
    arg = arg.value_name(flag.value_name);
    arg = match (setting.kind, flag.parse) {
        (Kind::Flag, _) => arg.value_parser(clap::value_parser!(bool)),
        (Kind::Whole32 | Kind::Integer { .. }, FlagParse::AtLeast(min)) => {
            arg.value_parser(clap::value_parser!(u32).range(i64::try_from(min).unwrap_or(i64::MAX)..))
        }
        (Kind::Whole32 | Kind::Integer { .. }, _) => arg.value_parser(clap::value_parser!(u32)),
        (Kind::Whole64, FlagParse::AtLeast(min)) => arg.value_parser(clap::value_parser!(u64).range(min..)),
        (Kind::Whole64, _) => arg.value_parser(clap::value_parser!(u64)),
        (Kind::Real, FlagParse::Checked) => arg.value_parser(move |text: &str| checked_number(setting, text)),
        (Kind::Real, _) => arg.value_parser(clap::value_parser!(f64)),
        (Kind::Ordering, _) => arg.value_parser(|text: &str| text.parse::<MoveOrdering>()),
    };
    if flag.parse != FlagParse::Plain {
        arg = arg.allow_negative_numbers(true);
    }
    arg
}

/// A number in the setting's range (`--exploration`).
fn checked_number(setting: &Setting, text: &str) -> Result<f64, String> {
    let value: f64 = text.parse().map_err(|_| format!("`{text}` is not a number"))?;
    (setting.check)(SettingValue::Real(value)).map(|()| value).map_err(|error| error.to_string())
}

/// The settings the command line gave, by key.
pub fn given(matches: &ArgMatches, flag_of: FlagOf) -> SearchDefaults {
    let mut given = SearchDefaults::default();
    for setting in &SETTINGS {
        let Some(flag) = flag_of(setting) else { continue };
        let id = flag.long;
        let value = match setting.kind {
            Kind::Flag => matches.get_one::<bool>(id).copied().map(SettingValue::Flag),
            Kind::Whole32 | Kind::Integer { .. } => {
                matches.get_one::<u32>(id).map(|&n| SettingValue::Whole(u64::from(n)))
            }
            Kind::Whole64 => matches.get_one::<u64>(id).copied().map(SettingValue::Whole),
            Kind::Real => matches.get_one::<f64>(id).copied().map(SettingValue::Real),
            Kind::Ordering => matches.get_one::<MoveOrdering>(id).copied().map(SettingValue::Ordering),
        };
        if let Some(value) = value {
            given.set(setting.key, value);
        }
    }
    given
}

/// The flags of `flag_of` that the command line gave, with their entries.
pub fn given_flags(given: &SearchDefaults, flag_of: FlagOf) -> impl Iterator<Item = (&'static Setting, Flag)> + '_ {
    SETTINGS.iter().filter_map(move |setting| {
        let flag = flag_of(setting)?;
        given.get(setting.key).is_some().then_some((setting, flag))
    })
}
