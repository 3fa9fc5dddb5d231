//! Scenarios: parsing (TOML or JSON) with errors that name the key, semantic
//! validation, and the builder that turns a scenario into a `sim::World`.
pub mod build;
pub mod config;
pub mod hops;
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
    let msg = plain_types(&msg);
    let msg = narrower_range(&key, &msg).unwrap_or(msg);
    ScenarioError::new(key, msg)
}

/// Keys whose allowed values are narrower than their type's
/// (docs/scenarios.md): serde's words for a wrong type or sign would give
/// the type's range ("a whole number >= 0 (below 2^32)" for a packet size
/// that must be 1..65000), which misleads. Indices are written `[]`.
const RANGES: [(&str, &str); 6] = [
    ("flow[].packet_size", "a whole number of bytes, 1..65000"),
    ("flow[].window", "a whole number of packets >= 1"),
    ("flow[].first_bytes", "a whole number of bytes >= 1"),
    ("flow[].app.bytes", "a whole number of bytes >= 1"),
    ("flow[].app.write", "a whole number of bytes >= 1"),
    ("flow[].app.more[].bytes", "a whole number of bytes >= 1"),
];

/// A key path with its indices left out (`flow[2].app.bytes` ->
/// `flow[].app.bytes`): the place in the scenario's shape.
fn without_indices(path: &str) -> String {
    let mut place = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => in_index = true,
            ']' => in_index = false,
            _ if in_index => continue,
            _ => {}
        }
        place.push(c);
    }
    place
}

/// `msg` with what is expected at `key` said as `RANGES` says it, if `key`
/// is one of those and `msg` is serde's type or value error.
fn narrower_range(key: &str, msg: &str) -> Option<String> {
    if !(msg.starts_with("invalid type") || msg.starts_with("invalid value")) {
        return None;
    }
    let place = without_indices(key);
    let (_, range) = RANGES.iter().find(|(k, _)| *k == place)?;
    let i = msg.rfind(", expected ")?;
    Some(format!("{}, expected {range}", &msg[..i]))
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

/// The JSON pointer of `key` (`link[0].queue` -> `/link/0/queue`); scenario
/// keys hold no `/` or `~` to escape.
fn pointer(key: &str) -> String {
    let mut p = String::with_capacity(key.len() + 2);
    for part in key.split('.') {
        let (name, index) = part.split_once('[').map_or((part, None), |(n, i)| (n, Some(i.trim_end_matches(']'))));
        p.push('/');
        p.push_str(name);
        if let Some(i) = index {
            p.push('/');
            p.push_str(i);
        }
    }
    p
}

/// The value at `key` (`link[0].queue`, `node[1]`) in a JSON document.
fn value_at<'a>(doc: &'a mut serde_json::Value, key: &str) -> Option<&'a mut serde_json::Value> {
    doc.pointer_mut(&pointer(key))
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
        if doc.pointer(&pointer(&at))?.is_array() && table_belongs_at(&doc, &at) {
            return Some(ScenarioError::new(at, "invalid type: array, expected a table"));
        }
        prefix = if prefix.is_empty() { part.to_string() } else { format!("{prefix}.{part}") };
    }
    None
}

/// serde also reads a table from an array of its keys' values in order, and
/// silently: `sim = ["5s"]` passes as a duration. No author means that. For
/// each place an array of values stands (`node[].position`: indices do not
/// count), ask once, with a string in its place, whether a table belongs
/// there, and refuse it if so.
fn list_as_table(doc: &serde_json::Value) -> Option<ScenarioError> {
    let mut places = Vec::new();
    value_arrays(doc, String::new(), &mut std::collections::HashSet::new(), &mut places);
    let at = places.into_iter().find(|at| table_belongs_at(doc, at))?;
    Some(ScenarioError::new(at, "invalid type: array, expected a table"))
}

/// Whether the scenario takes a table at `at`: asked with a string there.
fn table_belongs_at(doc: &serde_json::Value, at: &str) -> bool {
    let mut probe = doc.clone();
    let Some(v) = value_at(&mut probe, at) else { return false };
    *v = serde_json::Value::String("\u{1}".into());
    match serde_path_to_error::deserialize::<_, ScenarioCfg>(&probe) {
        Err(e) => {
            let e = from_path_error(e.path().to_string(), e.into_inner());
            e.key == at && e.message.ends_with("expected a table")
        }
        Ok(_) => false,
    }
}

/// Whether TOML `text` has an array of values under a key not in
/// `LIST_KEYS` (`key = [`, quotes and spaces allowed): only then is the
/// file read a second time for `list_as_table`. A false alarm only costs
/// that second reading.
fn has_unlisted_array(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len()).filter(|&i| b[i] == b'=').any(|i| {
        let after = text[i + 1..].trim_start_matches([' ', '\t']);
        if !after.starts_with('[') {
            return false;
        }
        let key = text[..i].trim_end_matches([' ', '\t', '"', '\'']);
        let start = key.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).map_or(0, |j| j + 1);
        !LIST_KEYS.contains(&&key[start..])
    })
}

/// Keys whose values are lists (`config.rs`): their arrays need no probe.
/// Only a shortcut (a 4000-link scenario's `between` lists cost 40 ms of
/// probing): a list key missing here is probed and passes; the test
/// `list_keys_are_lists` checks that each one named here is a list.
const LIST_KEYS: [&str; 8] =
    ["between", "position", "waypoints", "area", "speed", "nodes", "drop", "thinning_thresholds"];

/// The paths of the arrays of values in `v` (arrays of tables are walked
/// into, and arrays under `LIST_KEYS` left out), one per place: `seen`
/// holds the places with indices dropped.
fn value_arrays(
    v: &serde_json::Value,
    path: String,
    seen: &mut std::collections::HashSet<String>,
    out: &mut Vec<String>,
) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                value_arrays(x, p, seen, out);
            }
        }
        serde_json::Value::Array(items) if items.iter().any(|x| x.is_object()) => {
            for (i, x) in items.iter().enumerate() {
                value_arrays(x, format!("{path}[{i}]"), seen, out);
            }
        }
        serde_json::Value::Array(_) if LIST_KEYS.contains(&path.rsplit('.').next().unwrap_or("")) => {}
        // Each place once, however many flows have an array there.
        serde_json::Value::Array(_) if seen.insert(without_indices(&path)) => out.push(path),
        _ => {}
    }
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
        // An enum's name given as a string (`transport = "bbr"`) ...
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

/// A JSON scenario's configuration, with the second looks at serde's
/// errors that put them in a scenario author's words (`table_expected`,
/// `names_expected`) and the check serde itself does not make
/// (`list_as_table`); not yet validated (`Scenario::from_cfg`).
fn json_cfg(text: &str) -> Result<ScenarioCfg, ScenarioError> {
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
    if let Some(e) = serde_json::from_str(text).ok().and_then(|doc| list_as_table(&doc)) {
        return Err(e);
    }
    Ok(cfg)
}

impl Scenario {
    pub fn from_toml_str(text: &str) -> Result<Self, ScenarioError> {
        let de = toml::Deserializer::parse(text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
            ScenarioError::new("", format!("invalid TOML{at}: {}", e.message()))
        })?;
        // The same document as JSON gets the JSON path's second looks
        // (`table_expected`, `names_expected`, `list_as_table`); converted
        // only when needed (it doubles the reading of a large file).
        let doc = || toml::from_str::<toml::Value>(text).ok().and_then(|t| serde_json::to_value(t).ok());
        let cfg: ScenarioCfg = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let err = from_path_error(path, e.into_inner().message());
            doc().and_then(|d| json_cfg(&d.to_string()).err()).unwrap_or(err)
        })?;
        if has_unlisted_array(text) {
            if let Some(e) = doc().and_then(|d| list_as_table(&d)) {
                return Err(e);
            }
        }
        Self::from_cfg(cfg)
    }

    pub fn from_json_str(text: &str) -> Result<Self, ScenarioError> {
        Self::from_cfg(json_cfg(text)?)
    }

    pub fn from_cfg(cfg: ScenarioCfg) -> Result<Self, ScenarioError> {
        let sc = Scenario { cfg };
        build::validate(&sc.cfg)?;
        Ok(sc)
    }

    /// One line for each setting of this valid scenario that has no
    /// effect (`build::warnings`): for the user to see, not to refuse.
    pub fn warnings(&self) -> Vec<String> {
        build::warnings(&self.cfg)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each of `LIST_KEYS` takes a list: in a scenario that uses them all
    /// (and deserializes), asking at each place finds no table there.
    #[test]
    fn list_keys_are_lists() {
        let doc = serde_json::json!({
            "sim": {"duration": "1s"},
            "tcp": {"thinning_thresholds": [2, 3, 4]},
            "node": [{"name": "a", "position": [0.0, 0.0], "waypoints": [[1.0, 10.0, 10.0, 1.0]]},
                     {"name": "b", "position": [100.0, 0.0]}],
            "link": [{"between": ["a", "b"], "rate": "1Mbps", "delay": "1ms",
                      "error": {"kind": "pattern", "drop": [1]}}],
            "wireless": {"mobility": {"model": "random_waypoint", "area": [100.0, 100.0], "speed": [1.0, 2.0],
                                      "nodes": ["b"]}},
            "flow": [{"from": "a", "to": "b", "transport": "reno", "app": {"kind": "bulk"}}]
        });
        serde_json::from_value::<ScenarioCfg>(doc.clone()).expect("the document deserializes");
        for key in LIST_KEYS {
            let places: Vec<&str> = [
                "tcp.thinning_thresholds",
                "node[0].position",
                "node[0].waypoints",
                "link[0].between",
                "link[0].error.drop",
                "wireless.mobility.area",
                "wireless.mobility.speed",
                "wireless.mobility.nodes",
            ]
            .into_iter()
            .filter(|p| p.ends_with(&format!(".{key}")))
            .collect();
            assert!(!places.is_empty(), "{key}: no place in the test document");
            for at in places {
                assert!(!table_belongs_at(&doc, at), "{at} takes a table");
            }
        }
        // The TOML pre-check: list keys pass, any other array does not.
        assert!(!has_unlisted_array("between = [\"a\", \"b\"]\nx = 1\nposition=[0, 1]\n\"drop\" = [1]"));
        assert!(has_unlisted_array("[sim]\nduration = \"1s\"\nsim2 = [\"5s\"]"));
        assert!(has_unlisted_array("tcp = { sack = true }\nflow = [ 1 ]"));
        // And the probe does find a table where one belongs.
        assert!(table_belongs_at(&doc, "wireless.mobility"));
        assert!(table_belongs_at(&doc, "link[0].error"));
    }
}
