//! A table as the exporters take it: named columns of plain cells, all one height.
//! rollsim's tables are a few thousand rows written once, so a column is a `Vec` and
//! nothing more: no query engine is built (a clean build's largest cost once was one).

/// A column's cells; `None` is an empty cell (a number no simulation made, a note a
/// pair does not have).
#[derive(Clone, Debug, PartialEq)]
pub enum Cells {
    Str(Vec<Option<String>>),
    U64(Vec<Option<u64>>),
    I64(Vec<Option<i64>>),
    F64(Vec<Option<f64>>),
}

impl Cells {
    /// How many cells.
    pub fn len(&self) -> usize {
        match self {
            Cells::Str(v) => v.len(),
            Cells::U64(v) => v.len(),
            Cells::I64(v) => v.len(),
            Cells::F64(v) => v.len(),
        }
    }

    /// Whether the column has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A value a column holds, and the column type it makes.
pub trait Cell: Sized {
    fn column(values: Vec<Self>) -> Cells;
}

macro_rules! cell {
    ($variant:ident: $($t:ty),+) => {$(
        impl Cell for $t {
            fn column(values: Vec<Self>) -> Cells {
                Cells::$variant(values.into_iter().map(|v| Some(v.into())).collect())
            }
        }
        impl Cell for Option<$t> {
            fn column(values: Vec<Self>) -> Cells {
                Cells::$variant(values.into_iter().map(|v| v.map(Into::into)).collect())
            }
        }
    )+};
}
cell!(Str: String);
cell!(U64: u64, u32);
cell!(I64: i64, i32);
cell!(F64: f64);

impl<T: Cell> From<Vec<T>> for Cells {
    fn from(values: Vec<T>) -> Cells {
        T::column(values)
    }
}

/// A table built wrong: a column of another height than the rest, or two columns of one
/// name (a unit whose id is another column's heading), told as an error rather than
/// written as a table whose readers keep one of the two.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("column `{column}` has {len} cells where the table has {height} rows")]
    Ragged {
        column: String,
        len: usize,
        height: usize,
    },
    #[error("two columns are named `{0}`: rename one of the units or series that head them")]
    Duplicate(String),
}

/// Named columns, all of one height.
pub type Columns = Vec<(String, Cells)>;

/// A table: named columns of one height, in the order they are written.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    height: usize,
    columns: Columns,
}

impl Frame {
    /// The table of `columns`, or which one is not as long as the first.
    pub fn new(columns: Columns) -> Result<Frame, FrameError> {
        let height = columns.first().map_or(0, |(_, c)| c.len());
        if let Some((name, c)) = columns.iter().find(|(_, c)| c.len() != height) {
            return Err(FrameError::Ragged {
                column: name.clone(),
                len: c.len(),
                height,
            });
        }
        for (i, (name, _)) in columns.iter().enumerate() {
            if columns[..i].iter().any(|(n, _)| n == name) {
                return Err(FrameError::Duplicate(name.clone()));
            }
        }
        Ok(Frame { height, columns })
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The columns, in order.
    pub fn columns(&self) -> &[(String, Cells)] {
        &self.columns
    }

    /// The columns, given up.
    pub fn into_columns(self) -> Columns {
        self.columns
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&Cells> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
}

/// A table from `"name" => values` pairs, `values` a `Vec` of any [`Cell`].
macro_rules! frame {
    ($($name:expr => $values:expr),+ $(,)?) => {
        $crate::report::table::Frame::new(vec![
            $(($name.to_string(), $crate::report::table::Cells::from($values))),+
        ])
    };
}
pub(crate) use frame;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ragged_table_or_a_repeated_heading_is_an_error_naming_its_column() {
        let e = frame!("a" => vec![1u64, 2], "b" => vec![Some(0.5)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "column `b` has 1 cells where the table has 2 rows"
        );
        let f = frame!("a" => vec![1u64, 2], "b" => vec![None, Some(0.5)]).unwrap();
        assert_eq!(f.height(), 2);
        assert_eq!(f.column("b"), Some(&Cells::F64(vec![None, Some(0.5)])));
        let e = frame!("attacker" => vec![1u64], "attacker" => vec![2u64]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "two columns are named `attacker`: rename one of the units or series that head them"
        );
    }
}
