//! PyO3 bindings: thin. Scenarios come in as JSON text (the Python side reads
//! TOML with `toml_loads` below and applies --set overrides on the dict); results go out
//! as plain dicts of column lists plus the CSV text the core renders, so the
//! CLI can write files without importing pandas.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::time::{Duration, Instant};
use tcplab_core::engine::time::to_secs;
use tcplab_core::output::{Column, RunError, RunOptions, StreamedTable, Table};
use tcplab_core::{RunResult, Scenario, ScenarioError};

create_exception!(_core, CoreScenarioError, PyValueError, "A scenario key has a bad value; args = (message, key).");
create_exception!(
    _core,
    EmulatorUnavailable,
    pyo3::exceptions::PyRuntimeError,
    "The emulator cannot run here (not root, no TUN device)."
);
create_exception!(
    _core,
    CoreRunError,
    pyo3::exceptions::PyRuntimeError,
    "A run could not finish (event queue overflow, results not writable); args = (message, key)."
);

/// How often a running simulation looks for Ctrl-C (Python's signal flag):
/// well under the "fraction of a second" a user waits, rare enough that
/// taking the GIL costs nothing measurable.
const SIGNAL_CHECK: Duration = Duration::from_millis(20);

/// How often a running simulation tells its `progress` callback the
/// simulated time reached (a progress bar redraws about this often).
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

fn scenario_err(e: ScenarioError) -> PyErr {
    CoreScenarioError::new_err((e.to_string(), e.key))
}

fn column<'py>(py: Python<'py>, c: &Column) -> PyResult<Bound<'py, PyList>> {
    match c {
        Column::F64(v) => PyList::new(py, v),
        Column::OptF64(v) => PyList::new(py, v),
        Column::I64(v) => PyList::new(py, v),
        Column::OptI64(v) => PyList::new(py, v),
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
            Column::I64(_) | Column::OptI64(_) => "int64",
            Column::Bool(_) => "bool",
            Column::Str(_) => "string",
        })
        .collect();
    d.set_item("types", PyList::new(py, types)?)?;
    d.set_item("columns", cols)?;
    d.set_item("csv", t.to_csv())?;
    Ok(d)
}

/// A table the run wrote to a file: its description instead of its rows.
fn streamed<'py>(py: Python<'py>, t: &StreamedTable) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("names", PyList::new(py, &t.names)?)?;
    d.set_item("types", PyList::new(py, t.types.iter().map(|t| t.arrow_name()))?)?;
    d.set_item("path", t.path.to_string_lossy())?;
    d.set_item("rows", t.rows)?;
    Ok(d)
}

fn result<'py>(py: Python<'py>, r: &RunResult) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("flows", table(py, &r.flows)?)?;
    d.set_item("links", table(py, &r.links)?)?;
    d.set_item("nodes", table(py, &r.nodes)?)?;
    d.set_item("series", table(py, &r.series)?)?;
    d.set_item("queues", table(py, &r.queues)?)?;
    d.set_item("trace", table(py, &r.trace)?)?;
    for (name, t) in &r.streamed {
        d.set_item(name, streamed(py, t)?)?;
    }
    let caps = PyDict::new(py);
    for (name, bytes) in &r.pcaps {
        caps.set_item(name, pyo3::types::PyBytes::new(py, bytes))?;
    }
    d.set_item("pcaps", caps)?;
    let files = PyDict::new(py);
    for (name, path) in &r.pcap_files {
        files.set_item(name, path.to_string_lossy())?;
    }
    d.set_item("pcap_files", files)?;
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
    s.set_item("unfairness", r.summary.unfairness)?;
    s.set_item("jain", r.summary.jain)?;
    if let Some(n) = r.summary.retry_drops_received {
        s.set_item("retry_drops_received", n)?;
    }
    if let (Some(b), Some(o)) = (r.summary.routing_bytes, r.summary.routing_overhead) {
        s.set_item("routing_bytes", b)?;
        s.set_item("routing_overhead", o)?;
    }
    d.set_item("summary", s)?;
    Ok(d)
}

/// Validate a scenario given as JSON text; raises CoreScenarioError.
/// Returns its warnings (`Scenario::warnings`), one line each.
#[pyfunction]
fn validate_json(text: &str) -> PyResult<Vec<String>> {
    Scenario::from_json_str(text).map(|sc| sc.warnings()).map_err(scenario_err)
}

/// Flow `flow`'s shortest radio path over time (Holland and Vaidya's t_i):
/// (seconds per hop count, 0 = partitioned; the receive range in m).
/// `step` is a duration as JSON text (`"100ms"`, or seconds as a number).
#[pyfunction]
fn hop_timeline_json(text: &str, flow: usize, step: &str) -> PyResult<(Vec<(u32, f64)>, f64)> {
    let sc = Scenario::from_json_str(text).map_err(scenario_err)?;
    let step: tcplab_core::scenario::units::Dur = serde_json::from_str(step)
        .map_err(|e| scenario_err(ScenarioError::new("step", e.to_string().split(" at line").next().unwrap_or(""))))?;
    let tl = sc.hop_timeline(flow, step.0).map_err(scenario_err)?;
    Ok((tl.seconds.into_iter().collect(), tl.rx_range_m))
}

/// Run a scenario given as JSON text; returns a dict of tables and a summary.
/// With `stream_dir` (an existing directory) the trace and the series are
/// written there as CSV during the run and their dicts carry `path` and
/// `rows` instead of columns. Ctrl-C (any pending Python signal whose handler
/// raises) stops the run within about `SIGNAL_CHECK` and raises that error.
/// `progress`, a callable, is called with (simulated seconds reached, the
/// run's duration in seconds) about every `PROGRESS_EVERY` of wall time; an
/// exception it raises stops the run and is raised.
#[pyfunction]
#[pyo3(signature = (text, stream_dir=None, progress=None))]
fn run_json<'py>(
    py: Python<'py>,
    text: &str,
    stream_dir: Option<std::path::PathBuf>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let sc = Scenario::from_json_str(text).map_err(scenario_err)?;
    let opts = RunOptions { stream_dir, ..Default::default() };
    let world = sc
        .build_with(&opts)
        .map_err(|e| CoreRunError::new_err((format!("cannot create result files: {e}"), "--out".to_string())))?;
    let end_s = to_secs(world.duration);
    let mut signal: Option<PyErr> = None;
    let outcome = py.detach(|| {
        let (mut last, mut told) = (Instant::now(), Instant::now());
        world.run_with(|now| {
            if last.elapsed() < SIGNAL_CHECK {
                return false;
            }
            last = Instant::now();
            signal = Python::attach(|py| {
                py.check_signals().err().or_else(|| {
                    let f = progress.as_ref().filter(|_| told.elapsed() >= PROGRESS_EVERY)?;
                    told = Instant::now();
                    f.call1(py, (to_secs(now), end_s)).err()
                })
            });
            signal.is_some()
        })
    });
    match outcome {
        Ok(r) => result(py, &r),
        Err(RunError::Interrupted) => Err(signal.unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err(()))),
        Err(e @ RunError::QueueOverflow { .. }) => Err(CoreRunError::new_err((e.to_string(), "sim".to_string()))),
        Err(e @ RunError::Io(_)) => Err(CoreRunError::new_err((e.to_string(), "--out".to_string()))),
    }
}

/// Run a scenario given as JSON text with the kernel's TCP through the
/// emulated path (crates/tcplab-emu; needs root and /dev/net/tun). Returns
/// the dict of `run_json` plus "emulation" (the emulator's report as JSON
/// text). Ctrl-C stops the run and raises KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (text, cc=None, rcvbuf=None, sndbuf=None, capture=true, spin_us=0, late_threshold_us=1000))]
#[allow(clippy::too_many_arguments)]
fn emulate_json<'py>(
    py: Python<'py>,
    text: &str,
    cc: Option<String>,
    rcvbuf: Option<u32>,
    sndbuf: Option<u32>,
    capture: bool,
    spin_us: u64,
    late_threshold_us: u64,
) -> PyResult<Bound<'py, PyDict>> {
    use tcplab_emu::{EmuError, Options};
    let sc = Scenario::from_json_str(text).map_err(scenario_err)?;
    let opts = Options {
        knobs: tcplab_emu::linux::Knobs { cc, rcvbuf, sndbuf },
        capture,
        spin_us,
        late_threshold_us,
        realtime: true,
    };
    let interrupted = || Python::attach(|py| py.check_signals().is_err());
    let em = py.detach(|| tcplab_emu::emulate(&sc, &opts, &interrupted)).map_err(|e| match e {
        EmuError::Scenario(e) => scenario_err(e),
        // What the machine lacks (root, TUN, iproute2) and a set-up the
        // kernel refused: one line from the CLI (exit 1), not a traceback
        // (a Setup error was a RuntimeError, e.g. without `ip` on PATH).
        EmuError::NotRoot(_) | EmuError::NoTun(_) | EmuError::Setup(_) => EmulatorUnavailable::new_err(e.to_string()),
        EmuError::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err("emulation interrupted"),
    })?;
    let d = result(py, &em.result)?;
    d.set_item("emulation", em.report.to_json())?;
    Ok(d)
}

/// Check that the emulator can run a scenario (JSON text), without running it.
#[pyfunction]
fn emulate_check_json(text: &str, cc: Option<String>) -> PyResult<()> {
    let sc = Scenario::from_json_str(text).map_err(scenario_err)?;
    let opts =
        tcplab_emu::Options { knobs: tcplab_emu::linux::Knobs { cc, ..Default::default() }, ..Default::default() };
    tcplab_emu::check(&sc, &opts).map_err(|e| match e {
        tcplab_emu::EmuError::Scenario(e) => scenario_err(e),
        e => pyo3::exceptions::PyRuntimeError::new_err(e.to_string()),
    })
}

/// TOML text as Python values (dict, list, str, int, float, bool), as
/// `tomllib.loads` returns them but for dates and times, which come back as
/// their TOML text (no scenario key takes one: the core refuses them with
/// the key's name). Parsed here because importing tomllib was a sixth of
/// `tcplab run`'s start-up. ValueError with the parser's message on bad
/// TOML; RecursionError, as tomllib raises, on nesting deeper than any
/// scenario needs (the parser's own depth limit or `MAX_TOML_DEPTH`).
#[pyfunction]
fn toml_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        if e.message().contains("recursion") {
            too_deep()
        } else {
            PyValueError::new_err(e.to_string())
        }
    })?;
    toml_to_py(py, &toml::Value::Table(table), 0)
}

fn too_deep() -> PyErr {
    pyo3::exceptions::PyRecursionError::new_err("nested too deeply")
}

/// Deeper than this is refused (Python's side uses the same bound).
const MAX_TOML_DEPTH: usize = 32;

fn toml_to_py<'py>(py: Python<'py>, v: &toml::Value, depth: usize) -> PyResult<Bound<'py, PyAny>> {
    if depth > MAX_TOML_DEPTH {
        return Err(too_deep());
    }
    Ok(match v {
        toml::Value::String(s) => s.into_pyobject(py)?.into_any(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        toml::Value::Float(f) => f.into_pyobject(py)?.into_any(),
        toml::Value::Boolean(b) => b.into_pyobject(py)?.to_owned().into_any(),
        toml::Value::Datetime(d) => d.to_string().into_pyobject(py)?.into_any(),
        toml::Value::Array(a) => {
            let items = a.iter().map(|x| toml_to_py(py, x, depth + 1)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        toml::Value::Table(t) => {
            let d = PyDict::new(py);
            for (k, x) in t {
                d.set_item(k, toml_to_py(py, x, depth + 1)?)?;
            }
            d.into_any()
        }
    })
}

/// Swap two directories in one step (Linux `renameat2` with
/// `RENAME_EXCHANGE`): a rerun's results replace the old ones atomically.
/// False where the system or file system cannot (the caller falls back to
/// two renames).
#[pyfunction]
fn exchange_dirs(a: std::path::PathBuf, b: std::path::PathBuf) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let (Ok(ca), Ok(cb)) =
            (std::ffi::CString::new(a.as_os_str().as_bytes()), std::ffi::CString::new(b.as_os_str().as_bytes()))
        else {
            return false;
        };
        // SAFETY: both paths are valid NUL-terminated strings that outlive
        // the call; renameat2 reads them and touches no other memory.
        let r =
            unsafe { libc::renameat2(libc::AT_FDCWD, ca.as_ptr(), libc::AT_FDCWD, cb.as_ptr(), libc::RENAME_EXCHANGE) };
        r == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        false
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(hop_timeline_json, m)?)?;
    m.add_function(wrap_pyfunction!(emulate_json, m)?)?;
    m.add_function(wrap_pyfunction!(emulate_check_json, m)?)?;
    m.add_function(wrap_pyfunction!(toml_loads, m)?)?;
    m.add_function(wrap_pyfunction!(exchange_dirs, m)?)?;
    m.add("EmulatorUnavailable", m.py().get_type::<EmulatorUnavailable>())?;
    m.add("CoreScenarioError", m.py().get_type::<CoreScenarioError>())?;
    m.add("CoreRunError", m.py().get_type::<CoreRunError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
