//! PyO3 bindings: thin. Scenarios come in as JSON text (the Python side reads
//! TOML with tomllib and applies --set overrides on the dict); results go out
//! as plain dicts of column lists plus the CSV text the core renders, so the
//! CLI can write files without importing pandas.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tcplab_core::output::{Column, Table};
use tcplab_core::{RunResult, Scenario, ScenarioError};

create_exception!(_core, CoreScenarioError, PyValueError, "A scenario key has a bad value; args = (message, key).");

fn scenario_err(e: ScenarioError) -> PyErr {
    CoreScenarioError::new_err((e.to_string(), e.key))
}

fn column<'py>(py: Python<'py>, c: &Column) -> PyResult<Bound<'py, PyList>> {
    match c {
        Column::F64(v) => PyList::new(py, v),
        Column::OptF64(v) => PyList::new(py, v),
        Column::I64(v) => PyList::new(py, v),
        Column::Bool(v) => PyList::new(py, v),
        Column::Str(v) => PyList::new(py, v),
    }
}

fn table<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let cols = PyDict::new(py);
    for (n, c) in t.names.iter().zip(&t.columns) {
        cols.set_item(n, column(py, c)?)?;
    }
    d.set_item("names", PyList::new(py, &t.names)?)?;
    let types: Vec<&str> = t
        .columns
        .iter()
        .map(|c| match c {
            Column::F64(_) | Column::OptF64(_) => "float64",
            Column::I64(_) => "int64",
            Column::Bool(_) => "bool",
            Column::Str(_) => "string",
        })
        .collect();
    d.set_item("types", PyList::new(py, types)?)?;
    d.set_item("columns", cols)?;
    d.set_item("csv", t.to_csv())?;
    Ok(d)
}

fn result<'py>(py: Python<'py>, r: &RunResult) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("flows", table(py, &r.flows)?)?;
    d.set_item("links", table(py, &r.links)?)?;
    d.set_item("series", table(py, &r.series)?)?;
    d.set_item("queues", table(py, &r.queues)?)?;
    d.set_item("trace", table(py, &r.trace)?)?;
    let caps = PyDict::new(py);
    for (name, bytes) in &r.pcaps {
        caps.set_item(name, pyo3::types::PyBytes::new(py, bytes))?;
    }
    d.set_item("pcaps", caps)?;
    let s = PyDict::new(py);
    s.set_item("seed", r.summary.seed)?;
    s.set_item("duration_s", r.summary.duration_s)?;
    s.set_item("events", r.summary.events)?;
    s.set_item("wall_s", r.summary.wall_s)?;
    s.set_item("packets_created", r.summary.packets_created)?;
    s.set_item("packets_delivered", r.summary.packets_delivered)?;
    s.set_item("packets_consumed", r.summary.packets_consumed)?;
    s.set_item("drops_no_route", r.summary.drops_no_route)?;
    s.set_item("drops_ttl", r.summary.drops_ttl)?;
    s.set_item("drops_no_socket", r.summary.drops_no_socket)?;
    s.set_item("packets_in_flight", r.summary.packets_in_flight)?;
    d.set_item("summary", s)?;
    Ok(d)
}

/// Validate a scenario given as JSON text; raises CoreScenarioError.
#[pyfunction]
fn validate_json(text: &str) -> PyResult<()> {
    Scenario::from_json_str(text).map(|_| ()).map_err(scenario_err)
}

/// Run a scenario given as JSON text; returns a dict of tables and a summary.
#[pyfunction]
fn run_json<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyDict>> {
    let sc = Scenario::from_json_str(text).map_err(scenario_err)?;
    let r = py.detach(|| sc.build().run());
    result(py, &r)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add("CoreScenarioError", m.py().get_type::<CoreScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
