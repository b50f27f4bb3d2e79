//! Report formats on the command line, from the report registry
//! ([`crate::report::FORMATS`]): the values `--format` takes, with their
//! help, and `--report FORMAT=FILE`.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use crate::report::{Format, Offer};

/// The value parser of a flag naming one of the formats `offer` offers
/// (each listed with its help in `--help`).
pub(super) fn parser(offer: Offer) -> impl TypedValueParser<Value = Format> {
    let values = Format::offered_by(offer).map(|format| PossibleValue::new(format.name()).help(format.help()));
    PossibleValuesParser::new(values)
        .map(|name: String| Format::named(&name).expect("the parser accepts only the registry's names"))
}

/// `FORMAT=FILE` of `check --report`: the format in any case, then the file.
pub(super) fn parse_report(text: &str) -> Result<(Format, PathBuf), String> {
    let (name, file) = text.split_once('=').ok_or_else(|| format!("`{text}` is not FORMAT=FILE"))?;
    let format =
        Format::named_in_any_case(name).filter(|format| format.is_offered_by(Offer::Check)).ok_or_else(|| {
            let names: Vec<&str> = Format::offered_by(Offer::Check).map(Format::name).collect();
            format!("unknown format `{name}` (one of {})", names.join(", "))
        })?;
    if file.is_empty() {
        return Err(format!("`{text}` names no file"));
    }
    Ok((format, PathBuf::from(file)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_names_a_format_in_any_case_and_a_file() {
        assert_eq!(parse_report("JUnit=out/junit.xml"), Ok((Format::Junit, PathBuf::from("out/junit.xml"))));
        assert_eq!(
            parse_report("xml=a").unwrap_err(),
            "unknown format `xml` (one of text, json, junit, gradescope, markdown, prairielearn, html)"
        );
        assert_eq!(parse_report("json=").unwrap_err(), "`json=` names no file");
        assert_eq!(parse_report("json").unwrap_err(), "`json` is not FORMAT=FILE");
    }

    #[test]
    fn the_flag_lists_every_format_check_offers_with_its_help() {
        let parser = parser(Offer::Check);
        let values: Vec<PossibleValue> = parser.possible_values().expect("a fixed list").collect();
        let names: Vec<&str> = values.iter().map(PossibleValue::get_name).collect();
        assert_eq!(names, ["text", "json", "junit", "gradescope", "markdown", "prairielearn", "html"]);
        assert!(values.iter().all(|value| value.get_help().is_some()));
    }
}
