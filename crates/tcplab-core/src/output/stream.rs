//! Row-by-row result tables whose memory does not grow with the run: a
//! `RowSink` either keeps the rows as columns (small tables, the Rust API) or
//! renders each row as CSV into a fixed-size buffer that is written to a file
//! whenever it fills. A long `--trace` run then costs one buffer of RAM, not
//! ~440 bytes per row. The CSV text is byte-identical to `Table::to_csv`.

use super::table::{write_cell, Column, Table};
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Bytes of CSV text gathered before they go to the file.
pub const CHUNK_BYTES: usize = 1 << 20;

/// One value of a row, borrowed where it is a string.
#[derive(Clone, Copy, Debug)]
pub enum Cell<'a> {
    F64(f64),
    OptF64(Option<f64>),
    I64(i64),
    OptI64(Option<i64>),
    Bool(bool),
    Str(&'a str),
}

/// Column types, as the front ends name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColType {
    F64,
    OptF64,
    I64,
    /// Integers with missing values (empty CSV cells; null in Parquet).
    OptI64,
    Bool,
    Str,
}

impl ColType {
    pub fn arrow_name(self) -> &'static str {
        match self {
            ColType::F64 | ColType::OptF64 => "float64",
            ColType::I64 | ColType::OptI64 => "int64",
            ColType::Bool => "bool",
            ColType::Str => "string",
        }
    }

    fn empty(self) -> Column {
        match self {
            ColType::F64 => Column::F64(Vec::new()),
            ColType::OptF64 => Column::OptF64(Vec::new()),
            ColType::I64 => Column::I64(Vec::new()),
            ColType::OptI64 => Column::OptI64(Vec::new()),
            ColType::Bool => Column::Bool(Vec::new()),
            ColType::Str => Column::Str(Vec::new()),
        }
    }
}

/// A table that was written to a file while the run went on.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamedTable {
    pub path: PathBuf,
    pub rows: u64,
    pub names: Vec<String>,
    pub types: Vec<ColType>,
}

/// Where a finished sink's rows are.
#[derive(Clone, Debug)]
pub enum SinkOutput {
    Memory(Table),
    File(StreamedTable),
}

struct FileRows {
    file: File,
    path: PathBuf,
    buf: String,
    /// The first write error; later rows are dropped and `finish` reports it.
    error: Option<io::Error>,
}

enum Store {
    Memory(Vec<Column>),
    File(FileRows),
}

pub struct RowSink {
    names: Vec<String>,
    types: Vec<ColType>,
    rows: u64,
    store: Store,
}

impl RowSink {
    /// Rows kept in memory as columns.
    pub fn memory(schema: &[(&str, ColType)]) -> Self {
        RowSink {
            names: schema.iter().map(|(n, _)| n.to_string()).collect(),
            types: schema.iter().map(|(_, t)| *t).collect(),
            rows: 0,
            store: Store::Memory(schema.iter().map(|(_, t)| t.empty()).collect()),
        }
    }

    /// Rows written to the CSV file `path` (created or truncated now) in
    /// chunks of `CHUNK_BYTES`.
    pub fn file(path: &Path, schema: &[(&str, ColType)]) -> io::Result<Self> {
        let file = File::create(path)?;
        let mut s = RowSink::memory(schema);
        let mut buf = String::with_capacity(CHUNK_BYTES + 4096);
        buf.push_str(&s.names.join(","));
        buf.push('\n');
        s.store = Store::File(FileRows { file, path: path.to_path_buf(), buf, error: None });
        Ok(s)
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The first write error, if the file could not be written (full disk).
    pub fn error(&self) -> Option<&io::Error> {
        match &self.store {
            Store::File(f) => f.error.as_ref(),
            Store::Memory(_) => None,
        }
    }

    /// Append one row; `row` must match the schema.
    pub fn push(&mut self, row: &[Cell]) {
        debug_assert_eq!(row.len(), self.types.len());
        self.rows += 1;
        match &mut self.store {
            Store::Memory(cols) => {
                for (c, v) in cols.iter_mut().zip(row) {
                    match (c, *v) {
                        (Column::F64(c), Cell::F64(x)) => c.push(x),
                        (Column::OptF64(c), Cell::OptF64(x)) => c.push(x),
                        (Column::I64(c), Cell::I64(x)) => c.push(x),
                        (Column::OptI64(c), Cell::OptI64(x)) => c.push(x),
                        (Column::Bool(c), Cell::Bool(x)) => c.push(x),
                        (Column::Str(c), Cell::Str(x)) => c.push(x.to_string()),
                        _ => panic!("row does not match the table's column types"),
                    }
                }
            }
            Store::File(f) => {
                if f.error.is_some() {
                    return;
                }
                for (i, v) in row.iter().enumerate() {
                    if i > 0 {
                        f.buf.push(',');
                    }
                    write_cell(*v, &mut f.buf);
                }
                f.buf.push('\n');
                if f.buf.len() >= CHUNK_BYTES {
                    f.flush();
                }
            }
        }
    }

    /// Close the table: the columns, or the file's description once every
    /// row is on disk.
    pub fn finish(self) -> io::Result<SinkOutput> {
        match self.store {
            Store::Memory(columns) => Ok(SinkOutput::Memory(Table { names: self.names, columns })),
            Store::File(mut f) => {
                f.flush();
                if let Some(e) = f.error.take() {
                    return Err(io::Error::new(e.kind(), format!("{}: {e}", f.path.display())));
                }
                Ok(SinkOutput::File(StreamedTable {
                    path: f.path,
                    rows: self.rows,
                    names: self.names,
                    types: self.types,
                }))
            }
        }
    }
}

impl FileRows {
    fn flush(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.file.write_all(self.buf.as_bytes()) {
                self.error = Some(e);
            }
        }
        self.buf.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: [(&str, ColType); 4] =
        [("t", ColType::F64), ("name", ColType::Str), ("n", ColType::I64), ("x", ColType::OptF64)];

    fn fill(s: &mut RowSink, n: usize) {
        for i in 0..n {
            let name = if i % 3 == 0 { "a,\"b\"" } else { "c" };
            s.push(&[
                Cell::F64(i as f64 * 0.1),
                Cell::Str(name),
                Cell::I64(i as i64),
                Cell::OptF64((i % 2 == 0).then_some(0.5)),
            ]);
        }
    }

    /// The streamed file holds exactly the text the in-memory table renders,
    /// also across chunk boundaries.
    #[test]
    fn file_and_memory_give_the_same_csv() {
        let dir = std::env::temp_dir().join(format!("tcplab-stream-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.csv");
        let n = 60_000; // > one chunk
        let mut m = RowSink::memory(&SCHEMA);
        let mut f = RowSink::file(&path, &SCHEMA).unwrap();
        fill(&mut m, n);
        fill(&mut f, n);
        let SinkOutput::Memory(table) = m.finish().unwrap() else { panic!() };
        let SinkOutput::File(st) = f.finish().unwrap() else { panic!() };
        assert_eq!(st.rows, n as u64);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.len() > CHUNK_BYTES);
        assert_eq!(text, table.to_csv());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
