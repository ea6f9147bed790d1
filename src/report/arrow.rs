//! Arrow exporter: a table as an Arrow C stream (the Arrow C data interface), for a
//! front end in another language to take in memory, types and empty cells as they are
//! here. The Python package hands every table over this way (the Arrow PyCapsule
//! interface): `pl.DataFrame` takes one in a single call.

use super::table::Frame;
use polars::prelude::{ArrowDataType, ArrowField, CompatLevel, Series};
use polars_arrow::array::{new_empty_array, Array, StructArray};
pub use polars_arrow::ffi::ArrowArrayStream;

/// The table as an Arrow C stream of one struct array: its columns, one chunk each.
pub fn c_stream(table: &Frame) -> ArrowArrayStream {
    let df = table.df();
    let compat = CompatLevel::newest();
    let columns: Vec<Series> = df
        .columns()
        .iter()
        .map(|c| c.as_materialized_series().rechunk())
        .collect();
    let fields: Vec<ArrowField> = columns.iter().map(|s| s.field().to_arrow(compat)).collect();
    let arrays: Vec<Box<dyn Array>> = columns
        .iter()
        .zip(&fields)
        .map(|(s, f)| match s.n_chunks() {
            0 => new_empty_array(f.dtype().clone()),
            _ => s.to_arrow(0, compat),
        })
        .collect();
    let dtype = ArrowDataType::Struct(fields);
    let batch = StructArray::new(dtype.clone(), df.height(), arrays, None);
    let field = ArrowField::new("".into(), dtype, false);
    polars_arrow::ffi::export_iterator(Box::new(std::iter::once(Ok(batch.boxed()))), field)
}
