//! `llmstream._llmstream`: the native module of the `llmstream` Python
//! package. Each class wraps one stage of the Rust library and gives its
//! items as the library's own JSON forms converted to Python values; the
//! behaviour lives in the library.

mod chunker;
mod errors;
mod input;
mod jiter;
mod json;
mod pipeline;
mod snapshot;
mod sse;
mod tools;
mod value;

use pyo3::prelude::*;

#[pymodule]
fn _llmstream(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(json::parse, m)?)?;
    m.add_function(wrap_pyfunction!(json::repair, m)?)?;
    m.add_function(wrap_pyfunction!(jiter::from_json, m)?)?;
    m.add_class::<json::JsonParser>()?;
    m.add_class::<sse::SseDecoder>()?;
    m.add_class::<pipeline::Pipeline>()?;
    m.add_class::<tools::ArgumentStreams>()?;
    m.add_class::<tools::ActionStream>()?;
    m.add_class::<chunker::SnapshotChunker>()?;
    m.add("JsonError", py.get_type::<errors::JsonError>())?;
    m.add("SseError", py.get_type::<errors::SseError>())?;
    m.add("ToolError", py.get_type::<errors::ToolError>())?;
    m.add("ChunkError", py.get_type::<errors::ChunkError>())?;
    Ok(())
}
