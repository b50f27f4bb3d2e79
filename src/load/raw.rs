//! The tree file as YAML spells it, with source locations.
//!
//! These types mirror docs/format.md section 1 one to one. Number-versus-string
//! decisions (an inline leaf or an id?) and the shape of a node are made here
//! by hand-written visitors, because they depend on how YAML wrote a scalar.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_saphyr::{Location, Spanned};

use crate::engine::settings::{Kind, SETTINGS, Setting};

/// A whole tree file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFile {
    pub name: Option<String>,
    pub description: Option<String>,
    pub root: Spanned<IdText>,
    pub nodes: Spanned<RawNodes>,
    pub search: Option<RawSearch>,
    pub expect: Option<RawExpectMap>,
    pub game: Option<Spanned<RawGame>>,
    /// A max^n tree's number of players (docs/format.md 8.3).
    pub players: Option<Spanned<u32>>,
}

/// A YAML scalar read as a string (`1` and `"1"` are the same id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdText(pub String);

impl<'de> Deserialize<'de> for IdText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<IdText, D::Error> {
        String::deserialize(deserializer).map(IdText)
    }
}

/// The `nodes:` mapping, in file order.
#[derive(Debug, Default)]
pub struct RawNodes(pub Vec<(Spanned<IdText>, Spanned<RawNode>)>);

impl<'de> Deserialize<'de> for RawNodes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawNodes, D::Error> {
        struct NodesVisitor;
        impl<'de> Visitor<'de> for NodesVisitor {
            type Value = RawNodes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping from node id to node")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawNodes, A::Error> {
                let mut nodes = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(id) = map.next_key::<Spanned<IdText>>()? {
                    nodes.push((id, map.next_value::<Spanned<RawNode>>()?));
                }
                Ok(RawNodes(nodes))
            }
        }
        deserializer.deserialize_map(NodesVisitor)
    }
}

/// One node: a bare number (a terminal) or a mapping.
#[derive(Debug)]
pub enum RawNode {
    Terminal(f64),
    Mapping(RawNodeFields),
}

/// The keys a node mapping may carry; which combinations are valid is
/// checked after parsing, so that the error can point at the node.
#[derive(Debug, Default)]
pub struct RawNodeFields {
    /// `max`, `min`, `chance` or a max^n player's `pK` with its children,
    /// once per key present.
    pub kinds: Vec<(RawKind, Vec<Spanned<RawChild>>)>,
    pub value: Option<f64>,
    pub probs: Option<Spanned<Vec<f64>>>,
    pub eval: Option<RawNumbers>,
    /// A max^n terminal's utility vector (docs/format.md 8.3).
    pub utility: Option<Vec<f64>>,
}

/// The key that gives a node its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawKind {
    Max,
    Min,
    Chance,
    /// `pK`: player K of a max^n tree moves (docs/format.md 8.3).
    Player(u32),
}

impl RawKind {
    /// The key as written.
    pub fn key(self) -> String {
        match self {
            RawKind::Max => "max".into(),
            RawKind::Min => "min".into(),
            RawKind::Chance => "chance".into(),
            RawKind::Player(player) => format!("p{player}"),
        }
    }

    /// `pK` with K a whole number from 1, as max^n trees spell a player's node.
    fn player(key: &str) -> Option<RawKind> {
        let digits = key.strip_prefix('p')?;
        let valid = !digits.is_empty() && !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit());
        valid.then(|| digits.parse().ok().map(RawKind::Player)).flatten()
    }
}

/// A number, or a list of numbers (a max^n tree's vector).
#[derive(Clone, Debug, PartialEq)]
pub enum RawNumbers {
    One(f64),
    Many(Vec<f64>),
}

impl<'de> Deserialize<'de> for RawNumbers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawNumbers, D::Error> {
        struct NumbersVisitor;
        impl<'de> Visitor<'de> for NumbersVisitor {
            type Value = RawNumbers;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, or a list of numbers (a vector of a tree with `players`)")
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<RawNumbers, E> {
                Ok(RawNumbers::One(value as f64))
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<RawNumbers, E> {
                Ok(RawNumbers::One(value as f64))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<RawNumbers, E> {
                Ok(RawNumbers::One(value))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<RawNumbers, A::Error> {
                let mut numbers = Vec::new();
                while let Some(number) = seq.next_element::<f64>()? {
                    numbers.push(number);
                }
                Ok(RawNumbers::Many(numbers))
            }
        }
        deserializer.deserialize_any(NumbersVisitor)
    }
}

impl<'de> Deserialize<'de> for RawNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawNode, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = RawNode;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a node: a number (a terminal's utility) or a mapping such as {max: [B, C]} or {value: 3}")
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<RawNode, E> {
        Ok(RawNode::Terminal(value as f64))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<RawNode, E> {
        Ok(RawNode::Terminal(value as f64))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<RawNode, E> {
        Ok(RawNode::Terminal(value))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawNode, A::Error> {
        let mut fields = RawNodeFields::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "max" => fields.kinds.push((RawKind::Max, map.next_value()?)),
                "min" => fields.kinds.push((RawKind::Min, map.next_value()?)),
                "chance" => fields.kinds.push((RawKind::Chance, map.next_value()?)),
                "value" => fields.value = Some(map.next_value()?),
                "probs" => fields.probs = Some(map.next_value()?),
                "eval" => fields.eval = Some(map.next_value()?),
                "utility" => fields.utility = Some(map.next_value()?),
                other => match RawKind::player(other) {
                    Some(player) => fields.kinds.push((player, map.next_value()?)),
                    None => {
                        return Err(de::Error::custom(format!(
                            "unknown key `{other}` in a node (expected max, min, chance, value, probs or eval; \
                             in a tree with `players`: p1, p2, ..., chance, utility, probs or eval)"
                        )));
                    }
                },
            }
        }
        Ok(RawNode::Mapping(fields))
    }
}

/// One entry of a child list.
#[derive(Debug)]
pub enum RawChild {
    /// A bare string: a node id, also the action.
    Id(String),
    /// A bare number: an inline leaf.
    Leaf(f64),
    /// `{ACTION: ID}` (or `{ACTION: NUMBER}`, a labelled inline leaf).
    Labelled(String, Box<RawChild>),
    /// A list of numbers: an inline leaf of a max^n tree, its utility vector.
    Vector(Vec<f64>),
}

impl<'de> Deserialize<'de> for RawChild {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawChild, D::Error> {
        deserializer.deserialize_any(ChildVisitor { allow_label: true })
    }
}

struct ChildVisitor {
    allow_label: bool,
}

impl<'de> Visitor<'de> for ChildVisitor {
    type Value = RawChild;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.allow_label {
            f.write_str("a child: a node id, a number (an inline leaf) or {ACTION: ID}")
        } else {
            f.write_str("a node id or a number after the action")
        }
    }

    fn visit_str<E: de::Error>(self, id: &str) -> Result<RawChild, E> {
        Ok(RawChild::Id(id.to_string()))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<RawChild, E> {
        Ok(RawChild::Leaf(value as f64))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<RawChild, E> {
        Ok(RawChild::Leaf(value as f64))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<RawChild, E> {
        Ok(RawChild::Leaf(value))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<RawChild, A::Error> {
        let mut numbers = Vec::new();
        while let Some(number) = seq.next_element::<f64>()? {
            numbers.push(number);
        }
        Ok(RawChild::Vector(numbers))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawChild, A::Error> {
        if !self.allow_label {
            return Err(de::Error::invalid_type(de::Unexpected::Map, &self));
        }
        let Some(action) = map.next_key::<String>()? else {
            return Err(de::Error::custom("an edge `{ACTION: ID}` needs exactly one entry, found none"));
        };
        let target = map.next_value_seed(LabelTarget)?;
        if map.next_key::<String>()?.is_some() {
            return Err(de::Error::custom(format!(
                "an edge `{{ACTION: ID}}` has exactly one entry, but `{action}` is followed by more"
            )));
        }
        Ok(RawChild::Labelled(action, Box::new(target)))
    }
}

/// The target of a labelled edge: an id or an inline leaf, never another label.
struct LabelTarget;

impl<'de> de::DeserializeSeed<'de> for LabelTarget {
    type Value = RawChild;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawChild, D::Error> {
        deserializer.deserialize_any(ChildVisitor { allow_label: false })
    }
}

/// The `search:` block: each key of the engine's table of settings
/// ([`SETTINGS`]), read by its kind, and a game's `eval`.
#[derive(Debug, Default)]
pub struct RawSearch {
    /// The settings given, in the file's order.
    pub settings: Vec<(&'static Setting, Spanned<RawSetting>)>,
    /// `eval`: a game's evaluation (docs/format.md 7); refused in a written tree.
    pub eval: Option<Spanned<String>>,
}

/// One setting's value as written, read by its [`Kind`].
#[derive(Debug, Clone, PartialEq)]
pub enum RawSetting {
    /// [`Kind::Flag`].
    Flag(bool),
    /// [`Kind::Whole32`] and [`Kind::Whole64`].
    Whole(u64),
    /// [`Kind::Real`].
    Real(f64),
    /// [`Kind::Ordering`]: the name as written.
    Name(String),
    /// [`Kind::Integer`]: the value as written, checked to be a YAML integer.
    Written(serde_json::Value),
}

/// The keys `search:` takes, as an unknown key's error lists them: the
/// settings of section 3's searches, `eval`, then the others.
pub fn search_keys() -> &'static [&'static str] {
    static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let classic = SETTINGS.iter().filter(|setting| setting.of_classic_searches());
        let others = SETTINGS.iter().filter(|setting| !setting.of_classic_searches());
        let keys = classic.map(|setting| setting.key).chain(["eval"]);
        keys.chain(others.map(|setting| setting.key)).collect()
    })
}

impl RawSearch {
    /// Reads a `search:` block; `name` is the block's name in a type error
    /// (`struct RawSearch`).
    pub fn read<'de, D: Deserializer<'de>>(deserializer: D, name: &'static str) -> Result<RawSearch, D::Error> {
        struct SearchVisitor(&'static str);
        impl<'de> Visitor<'de> for SearchVisitor {
            type Value = RawSearch;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "struct {}", self.0)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawSearch, A::Error> {
                let mut search = RawSearch::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "eval" {
                        if search.eval.is_some() {
                            return Err(de::Error::duplicate_field("eval"));
                        }
                        search.eval = Some(map.next_value()?);
                        continue;
                    }
                    let Some(setting) = Setting::named(&key) else {
                        return Err(de::Error::unknown_field(&key, search_keys()));
                    };
                    if search.settings.iter().any(|(known, _)| known.key == setting.key) {
                        return Err(de::Error::duplicate_field(setting.key));
                    }
                    let value = match setting.kind {
                        Kind::Flag => map.next_value::<Spanned<bool>>().map(|v| respan(v, RawSetting::Flag))?,
                        Kind::Whole32 => {
                            map.next_value::<Spanned<u32>>().map(|v| respan(v, |n| RawSetting::Whole(n.into())))?
                        }
                        Kind::Whole64 => map.next_value::<Spanned<u64>>().map(|v| respan(v, RawSetting::Whole))?,
                        Kind::Integer { .. } => {
                            map.next_value::<Spanned<serde_json::Value>>().map(|v| respan(v, RawSetting::Written))?
                        }
                        Kind::Real => map.next_value::<Spanned<f64>>().map(|v| respan(v, RawSetting::Real))?,
                        Kind::Ordering => map.next_value::<Spanned<String>>().map(|v| respan(v, RawSetting::Name))?,
                    };
                    search.settings.push((setting, value));
                }
                Ok(search)
            }
        }
        deserializer.deserialize_struct(name, search_keys(), SearchVisitor(name))
    }
}

impl<'de> Deserialize<'de> for RawSearch {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawSearch, D::Error> {
        RawSearch::read(deserializer, "RawSearch")
    }
}

/// The same value at the same place, in another type.
fn respan<T, U>(spanned: Spanned<T>, f: impl FnOnce(T) -> U) -> Spanned<U> {
    Spanned { value: f(spanned.value), referenced: spanned.referenced, defined: spanned.defined }
}

/// The `game:` block (docs/format.md section 6).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawGame {
    pub agents: u32,
    #[serde(default)]
    pub wins: Vec<Spanned<IdText>>,
    #[serde(default)]
    pub losses: Vec<Spanned<IdText>>,
}

/// The `expect:` block: algorithm name to expectation, in file order.
#[derive(Debug, Default)]
pub struct RawExpectMap(pub Vec<(Spanned<String>, Spanned<RawExpect>)>);

impl<'de> Deserialize<'de> for RawExpectMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawExpectMap, D::Error> {
        struct ExpectVisitor;
        impl<'de> Visitor<'de> for ExpectVisitor {
            type Value = RawExpectMap;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping from algorithm name to {value, action, visited}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawExpectMap, A::Error> {
                let mut entries = Vec::new();
                while let Some(algorithm) = map.next_key::<Spanned<String>>()? {
                    entries.push((algorithm, map.next_value()?));
                }
                Ok(RawExpectMap(entries))
            }
        }
        deserializer.deserialize_map(ExpectVisitor)
    }
}

/// One algorithm's expected result.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExpect {
    /// A number, or a max^n search's vector.
    pub value: Option<RawNumbers>,
    /// Absent: not checked. `null`: the root must have no action.
    #[serde(default, deserialize_with = "present")]
    pub action: Option<Option<IdText>>,
    pub visited: Option<Vec<IdText>>,
}

/// Distinguishes a present `null` from an absent key.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Line and column (1-based) of a location, if the parser knew it.
pub fn line_column(location: &Location) -> Option<(u32, u32)> {
    let (line, column) = (location.line(), location.column());
    (line > 0).then_some((line as u32, column as u32))
}
