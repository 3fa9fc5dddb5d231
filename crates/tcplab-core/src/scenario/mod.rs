//! Scenarios: parsing (TOML or JSON) with errors that name the key, semantic
//! validation, and the builder that turns a scenario into a `sim::World`.
pub mod build;
pub mod config;
pub mod tagged;
pub mod units;
pub mod wireless;

pub use config::ScenarioCfg;
use std::fmt;

/// A bad scenario: `key` is the path of the offending entry ("link[2].rate").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub key: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { key: key.into(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// A parsed and validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub cfg: ScenarioCfg,
}

/// serde_path_to_error renders paths as `link[0].rate`; keep that, but make
/// the message one line and free of serde's internal wording.
fn from_path_error<E: fmt::Display>(path: String, err: E) -> ScenarioError {
    let msg = err.to_string();
    let msg = msg.lines().next().unwrap_or("").to_string();
    // serde appends " at line L column C" for JSON; the key already locates it.
    let msg = match msg.find(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    let mut key = if path == "." { String::new() } else { path };
    let mut msg = msg;
    // A `kind`-tagged table reports its inner path inside the message.
    while let Some(rest) = msg.strip_prefix(tagged::MARK) {
        if let Some((sub, m)) = rest.split_once(tagged::MARK) {
            key = if key.is_empty() { sub.to_string() } else { format!("{key}.{sub}") };
            msg = m.to_string();
        } else {
            break;
        }
    }
    // A missing key is named in full (`sim`, `link[0].rate`), not by the
    // table that lacks it.
    if let Some(field) = msg.strip_prefix("missing field `").and_then(|r| r.strip_suffix('`')) {
        key = if key.is_empty() { field.to_string() } else { format!("{key}.{field}") };
    }
    ScenarioError::new(key, plain_types(&msg))
}

/// A name (`routing = "aodv"`) given as another type (`routing = 5`):
/// serde_json says only "expected value" (or, for a table, takes its key
/// for the name). Deserialize again with a string
/// there to learn the names allowed, and say them.
fn names_expected(text: &str, path: &str) -> Option<ScenarioError> {
    let mut doc: serde_json::Value = serde_json::from_str(text).ok()?;
    let v = value_at(&mut doc, path)?;
    if v.is_string() {
        return None;
    }
    let given = v.to_string();
    *v = serde_json::Value::String("\u{1}".into());
    let e = serde_path_to_error::deserialize::<_, ScenarioCfg>(&doc).err()?;
    // Through `from_path_error`, which also joins a `kind`-tagged table's
    // inner path (`link[0].error.direction`) to its key.
    let e = from_path_error(e.path().to_string(), e.into_inner());
    let names = e.message.split_once("expected ").map(|(_, n)| n.to_string())?;
    if e.key != path || !e.message.starts_with("unknown name") {
        return None;
    }
    Some(ScenarioError::new(path, format!("expected a name, {names}; got {given}")))
}

/// The value at `key` (`link[0].queue`, `node[1]`) in a JSON document.
fn value_at<'a>(doc: &'a mut serde_json::Value, key: &str) -> Option<&'a mut serde_json::Value> {
    let mut v = doc;
    for part in key.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((n, i)) => (n, Some(i.strip_suffix(']')?.parse::<usize>().ok()?)),
            None => (part, None),
        };
        v = v.get_mut(name)?;
        if let Some(i) = index {
            v = v.get_mut(i)?;
        }
    }
    Some(v)
}

/// An array where a table belongs (`[[sim]]`, `[[tcp]]`, `[[link.queue]]`):
/// serde reads a struct from an array too, field by field in order, so its
/// error names the first element and a field's type (`tcp[0]: must be 1..64
/// segments ...`). For each array on the error's path, ask with a string in
/// its place whether a table was expected there, and say so.
fn table_expected(text: &str, key: &str) -> Option<ScenarioError> {
    let doc: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut prefix = String::new();
    for part in key.split('.') {
        let name = part.split_once('[').map_or(part, |(n, _)| n);
        let at = if prefix.is_empty() { name.to_string() } else { format!("{prefix}.{name}") };
        let mut probe = doc.clone();
        let v = value_at(&mut probe, &at)?;
        if v.is_array() {
            *v = serde_json::Value::String("\u{1}".into());
            if let Err(e) = serde_path_to_error::deserialize::<_, ScenarioCfg>(&probe) {
                let e = from_path_error(e.path().to_string(), e.into_inner());
                if e.key == at && e.message.ends_with("expected a table") {
                    return Some(ScenarioError::new(at, "invalid type: array, expected a table"));
                }
            }
        }
        prefix = if prefix.is_empty() { part.to_string() } else { format!("{prefix}.{part}") };
    }
    None
}

/// serde names Rust types ("expected u64", "expected struct LinkCfg") and
/// speaks of enum variants; say what a scenario author writes.
fn plain_types(msg: &str) -> String {
    let mut m = msg.to_string();
    // "expected struct NodeCfg": the type's name means nothing to the author.
    while let Some(i) = m.find("expected struct ") {
        let rest = &m[i + "expected struct ".len()..];
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        // An array read as a struct: "expected struct SimCfg with 3 elements".
        let tail = &rest[end..];
        let tail = match tail.strip_prefix(" with ").and_then(|t| t.split_once(" element")) {
            Some((n, t)) if n.chars().all(|c| c.is_ascii_digit()) => t.strip_prefix('s').unwrap_or(t),
            _ => tail,
        };
        m = format!("{}expected a table{}", &m[..i], tail);
    }
    for (rust, plain) in [
        ("expected u64", "expected a whole number >= 0"),
        ("expected u32", "expected a whole number >= 0 (below 2^32)"),
        ("expected f64", "expected a number"),
        ("expected usize", "expected a whole number >= 0"),
        ("expected a boolean", "expected true or false"),
        ("floating point `", "number `"),
        ("expected a map", "expected a table"),
        ("expected a sequence", "expected an array"),
        ("invalid type: map", "invalid type: table"),
        ("invalid type: sequence", "invalid type: array"),
        // An enum's name given as a string (`transport = "cubic"`) ...
        ("unknown variant `", "unknown name `"),
        // ... or as another type inside a `kind` table (`direction = 1`),
        // when `names_expected` could not list the names.
        ("expected string or map", "expected a name"),
        // A `kind` whose table takes no other key (`queue = { kind =
        // "unlimited", limit = 5 }`).
        ("there are no fields", "this kind takes no other keys"),
    ] {
        m = m.replace(rust, plain);
    }
    m
}

impl Scenario {
    pub fn from_toml_str(text: &str) -> Result<Self, ScenarioError> {
        let de = toml::Deserializer::parse(text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            ScenarioError::new("", format!("invalid TOML{at}: {}", e.message()))
        })?;
        let cfg: ScenarioCfg = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            from_path_error(path, e.into_inner().message())
        })?;
        Self::from_cfg(cfg)
    }

    pub fn from_json_str(text: &str) -> Result<Self, ScenarioError> {
        let mut de = serde_json::Deserializer::from_str(text);
        let cfg: ScenarioCfg = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let err = from_path_error(e.path().to_string(), e.into_inner());
            if let Some(better) = table_expected(text, &err.key) {
                return better;
            }
            if err.message == "expected value"
                || err.message.starts_with("unknown name")
                || err.message.ends_with("expected a name")
            {
                if let Some(better) = names_expected(text, &err.key) {
                    return better;
                }
            }
            err
        })?;
        Self::from_cfg(cfg)
    }

    pub fn from_cfg(cfg: ScenarioCfg) -> Result<Self, ScenarioError> {
        let sc = Scenario { cfg };
        build::validate(&sc.cfg)?;
        Ok(sc)
    }

    /// Build a fresh world for this scenario (result tables in memory).
    pub fn build(&self) -> crate::sim::World {
        build::build(&self.cfg)
    }

    /// Build a fresh world with run options (e.g. streaming tables to files).
    pub fn build_with(&self, opts: &crate::output::RunOptions) -> std::io::Result<crate::sim::World> {
        build::build_with(&self.cfg, opts)
    }
}
