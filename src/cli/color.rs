//! `--color auto|always|never`, resolved once for the whole process.

use clap::ValueEnum;

/// When to colour output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it).
    #[default]
    Auto,
    /// Always, even into a pipe or a file.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether to colour a stream that `is_terminal` or not, honouring
    /// `CLICOLOR_FORCE` (set and not `0`: colour) before `NO_COLOR` (set and
    /// not empty: no colour), as <https://no-color.org> and
    /// <https://bixense.com/clicolors> describe.
    pub fn colors(self, is_terminal: bool) -> bool {
        self.colors_with(is_terminal, |name| std::env::var_os(name))
    }

    fn colors_with(self, is_terminal: bool, var: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                if var("CLICOLOR_FORCE").is_some_and(|value| value != "0") {
                    return true;
                }
                if var("NO_COLOR").is_some_and(|value| !value.is_empty()) {
                    return false;
                }
                is_terminal
            }
        }
    }

    /// Applies the choice to everything printed through `anstream`.
    pub fn install(self) {
        let choice = match self {
            ColorChoice::Always => anstream::ColorChoice::Always,
            ColorChoice::Never => anstream::ColorChoice::Never,
            ColorChoice::Auto if self.colors_with(true, |name| std::env::var_os(name)) => anstream::ColorChoice::Auto,
            ColorChoice::Auto => anstream::ColorChoice::Never,
        };
        choice.write_global();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<std::ffi::OsString> {
        move |name| pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| (*value).into())
    }

    #[test]
    fn auto_follows_the_terminal_and_the_environment() {
        assert!(ColorChoice::Auto.colors_with(true, env(&[])));
        assert!(!ColorChoice::Auto.colors_with(false, env(&[])));
        assert!(!ColorChoice::Auto.colors_with(true, env(&[("NO_COLOR", "1")])));
        assert!(ColorChoice::Auto.colors_with(true, env(&[("NO_COLOR", "")])), "an empty NO_COLOR is unset");
        assert!(ColorChoice::Auto.colors_with(false, env(&[("CLICOLOR_FORCE", "1")])));
        assert!(!ColorChoice::Auto.colors_with(false, env(&[("CLICOLOR_FORCE", "0")])));
        assert!(ColorChoice::Auto.colors_with(false, env(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")])));
    }

    #[test]
    fn always_and_never_ignore_everything_else() {
        assert!(ColorChoice::Always.colors_with(false, env(&[("NO_COLOR", "1")])));
        assert!(!ColorChoice::Never.colors_with(true, env(&[("CLICOLOR_FORCE", "1")])));
    }
}
