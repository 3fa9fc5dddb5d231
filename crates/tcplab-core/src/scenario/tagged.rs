//! Tables selected by a `kind` key (`queue = { kind = "droptail", limit = 5 }`).
//!
//! serde's internally tagged enums buffer their input and lose the path of an
//! error inside the table. Instead the table is read as a map, rewritten to
//! serde's externally tagged form `{ droptail = { limit = 5 } }`, and
//! deserialized with path tracking; the inner path is passed up inside the
//! message (between two \u{1} marks) and joined to the outer key by
//! `scenario::from_path_error`, so errors read `link[1].queue.limit: ...`.

use serde::de::{DeserializeOwned, Deserializer, Error};
use serde::Deserialize;
use serde_json::{Map, Value};

pub const MARK: char = '\u{1}';

fn with_sub<E: Error>(sub: &str, msg: impl std::fmt::Display) -> E {
    E::custom(format!("{MARK}{sub}{MARK}{msg}"))
}

pub fn tagged<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<T, D::Error> {
    let mut map = Map::<String, Value>::deserialize(d)?;
    let kind = match map.remove("kind") {
        Some(Value::String(s)) => s,
        Some(other) => return Err(with_sub("kind", format!("must be a string, got {other}"))),
        None => return Err(D::Error::custom("missing field `kind`")),
    };
    let mut outer = Map::new();
    outer.insert(kind, Value::Object(map));
    serde_path_to_error::deserialize::<_, T>(Value::Object(outer)).map_err(|e| {
        let path = e.path().to_string();
        let msg = e.into_inner().to_string();
        // An unknown variant inside the table (`direction = "sideways"`)
        // belongs to its own key; only one at the top is a bad `kind`.
        match path.split_once('.') {
            Some((_, sub)) if !sub.is_empty() => with_sub(sub, msg),
            _ if msg.starts_with("unknown variant") => with_sub("kind", msg),
            _ => D::Error::custom(msg),
        }
    })
}

pub fn tagged_opt<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    tagged(d).map(Some)
}
