//! A minimal columnar table with deterministic CSV text.

use super::stream::Cell;
use std::fmt::Write;

/// One CSV cell: floats in Rust's shortest round-trip form, missing values
/// empty, strings quoted when they hold a separator, quote or line break.
pub fn write_cell(v: Cell, out: &mut String) {
    match v {
        Cell::F64(x) => write!(out, "{}", x).unwrap(),
        Cell::OptF64(x) => {
            if let Some(x) = x {
                write!(out, "{}", x).unwrap()
            }
        }
        Cell::I64(x) => write!(out, "{}", x).unwrap(),
        Cell::OptI64(x) => {
            if let Some(x) = x {
                write!(out, "{}", x).unwrap()
            }
        }
        Cell::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Cell::Str(s) => {
            if s.contains([',', '"', '\n', '\r']) {
                out.push('"');
                out.push_str(&s.replace('"', "\"\""));
                out.push('"');
            } else {
                out.push_str(s);
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    /// Floats with missing values (written as empty CSV cells, NaN/None in Python).
    OptF64(Vec<Option<f64>>),
    I64(Vec<i64>),
    /// Integers with missing values (empty CSV cells, None in Python).
    OptI64(Vec<Option<i64>>),
    Bool(Vec<bool>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::OptF64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::OptI64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn cell(&self, i: usize, out: &mut String) {
        let v = match self {
            Column::F64(v) => Cell::F64(v[i]),
            Column::OptF64(v) => Cell::OptF64(v[i]),
            Column::I64(v) => Cell::I64(v[i]),
            Column::OptI64(v) => Cell::OptI64(v[i]),
            Column::Bool(v) => Cell::Bool(v[i]),
            Column::Str(v) => Cell::Str(&v[i]),
        };
        write_cell(v, out);
    }

    /// Value as f64 (for tests and summaries); None for strings and missing values.
    pub fn f64_at(&self, i: usize) -> Option<f64> {
        match self {
            Column::F64(v) => Some(v[i]),
            Column::OptF64(v) => v[i],
            Column::I64(v) => Some(v[i] as f64),
            Column::OptI64(v) => v[i].map(|x| x as f64),
            Column::Bool(v) => Some(v[i] as u8 as f64),
            Column::Str(_) => None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub names: Vec<String>,
    pub columns: Vec<Column>,
}

impl Table {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, name: &str, col: Column) {
        debug_assert!(self.columns.is_empty() || self.columns[0].len() == col.len(), "ragged column {name}");
        self.names.push(name.to_string());
        self.columns.push(col);
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.len())
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.names.iter().position(|n| n == name).map(|i| &self.columns[i])
    }

    /// Numeric value of column `name` in row `row`.
    pub fn get(&self, name: &str, row: usize) -> Option<f64> {
        self.column(name)?.f64_at(row)
    }

    pub fn to_csv(&self) -> String {
        let mut out = self.names.join(",");
        out.push('\n');
        for r in 0..self.rows() {
            for (i, c) in self.columns.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                c.cell(r, &mut out);
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_text() {
        let mut t = Table::new();
        t.push("a", Column::I64(vec![1, 2]));
        t.push("b", Column::OptF64(vec![Some(0.5), None]));
        t.push("c", Column::Str(vec!["x,y".into(), "z".into()]));
        assert_eq!(t.to_csv(), "a,b,c\n1,0.5,\"x,y\"\n2,,z\n");
        assert_eq!(t.get("b", 0), Some(0.5));
    }
}
