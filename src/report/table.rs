//! A table as the exporters take it: a polars `DataFrame` of named, typed columns, all one
//! height, built from plain cells in one place ([`Frame::new`]) so that the rest of
//! rollsim makes tables without naming polars, and every wide form is a polars operation
//! on a long one ([`Frame::pivot`]).

use polars::prelude::{col, lit, when, Expr, IntoLazy, Selector, NULL};
use polars::prelude::{Column, DataFrame, DataType, PlSmallStr, PolarsError};
use polars::prelude::{JoinArgs, JoinType, MaintainOrderJoin};
use std::sync::Arc;

/// A column's cells; `None` is an empty cell (a number no simulation made, a note a
/// pair does not have).
#[derive(Clone, Debug, PartialEq)]
pub enum Cells {
    Str(Vec<Option<String>>),
    /// Text repeated row after row, each text with its rows (a distribution's scenario
    /// and metric, the same for every value): made without a copy of it per row.
    Runs(Vec<(String, usize)>),
    U64(Vec<Option<u64>>),
    I64(Vec<Option<i64>>),
    F64(Vec<Option<f64>>),
}

impl Cells {
    /// How many cells.
    pub fn len(&self) -> usize {
        match self {
            Cells::Str(v) => v.len(),
            Cells::Runs(v) => v.iter().map(|(_, n)| n).sum(),
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
    #[error("a table operation failed: {0}")]
    Polars(#[from] PolarsError),
    #[error("column `{column}` holds {found}, which no table of rollsim writes")]
    Type { column: String, found: String },
}

/// Named columns, all of one height.
pub type Columns = Vec<(String, Cells)>;

/// A table: named, typed columns of one height, in the order they are written.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame(DataFrame);

impl Cells {
    /// The column as polars holds it: text, unsigned and signed 64-bit integers, floats.
    fn into_column(self, name: &str) -> Column {
        let name = PlSmallStr::from(name);
        match self {
            Cells::Str(v) => Column::new(name, v),
            Cells::Runs(v) => {
                let rows: Vec<&str> = v
                    .iter()
                    .flat_map(|(s, n)| std::iter::repeat_n(s.as_str(), *n))
                    .collect();
                Column::new(name, rows)
            }
            Cells::U64(v) => Column::new(name, v),
            Cells::I64(v) => Column::new(name, v),
            Cells::F64(v) => Column::new(name, v),
        }
    }

    /// A polars column as plain cells, or which type it holds where that is none of the four.
    fn of(c: &Column) -> Result<Cells, FrameError> {
        let s = c.as_materialized_series();
        Ok(match s.dtype() {
            DataType::String => {
                Cells::Str(s.str()?.iter().map(|o| o.map(str::to_string)).collect())
            }
            DataType::UInt64 => Cells::U64(s.u64()?.iter().collect()),
            DataType::Int64 => Cells::I64(s.i64()?.iter().collect()),
            DataType::Float64 => Cells::F64(s.f64()?.iter().collect()),
            other => {
                return Err(FrameError::Type {
                    column: c.name().to_string(),
                    found: other.to_string(),
                })
            }
        })
    }
}

/// A list of column names as the lazy API selects them.
fn names(of: &[&str]) -> Selector {
    Selector::ByName {
        names: of
            .iter()
            .map(|n| PlSmallStr::from(*n))
            .collect::<Arc<[_]>>(),
        strict: true,
    }
}

impl Frame {
    /// The table of `columns`, or which one is not as long as the first, or which name
    /// two of them share.
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
        let cols = columns
            .into_iter()
            .map(|(name, cells)| cells.into_column(&name))
            .collect();
        Ok(Frame(DataFrame::new(height, cols)?))
    }

    /// A table polars made (the library's callers hand one back to an exporter).
    pub fn from_df(df: DataFrame) -> Frame {
        Frame(df)
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.0.height()
    }

    /// The DataFrame, for the writers and for callers of the library.
    pub fn df(&self) -> &DataFrame {
        &self.0
    }

    /// The DataFrame, given up.
    pub fn into_df(self) -> DataFrame {
        self.0
    }

    /// The columns as plain cells, in order (for a front end with no polars of its own).
    pub fn to_columns(&self) -> Result<Columns, FrameError> {
        self.0
            .columns()
            .iter()
            .map(|c| Ok((c.name().to_string(), Cells::of(c)?)))
            .collect()
    }

    /// The rows as JSON objects, each column's name to its cell (null where empty): a
    /// table the live page's API hands over is the table the CSV writes, row for row.
    pub fn records(&self) -> Result<Vec<serde_json::Map<String, serde_json::Value>>, FrameError> {
        let columns = self.to_columns()?;
        let mut rows = vec![serde_json::Map::new(); self.0.height()];
        for (name, cells) in columns {
            let cells: Vec<serde_json::Value> = match cells {
                Cells::Str(v) => v.into_iter().map(serde_json::Value::from).collect(),
                Cells::Runs(v) => v
                    .into_iter()
                    .flat_map(|(s, n)| std::iter::repeat_n(serde_json::Value::from(s), n))
                    .collect(),
                Cells::U64(v) => v.into_iter().map(serde_json::Value::from).collect(),
                Cells::I64(v) => v.into_iter().map(serde_json::Value::from).collect(),
                Cells::F64(v) => v.into_iter().map(serde_json::Value::from).collect(),
            };
            for (row, cell) in rows.iter_mut().zip(cells) {
                row.insert(name.clone(), cell);
            }
        }
        Ok(rows)
    }

    /// The column called `name`, as plain cells.
    pub fn column(&self, name: &str) -> Option<Cells> {
        self.0.column(name).ok().and_then(|c| Cells::of(c).ok())
    }

    /// The table with a column `name` holding `first` where it has a cell, else `then`.
    pub fn coalesce(&self, name: &str, first: &str, then: &str) -> Result<Frame, FrameError> {
        let out = self
            .0
            .clone()
            .lazy()
            .with_column(
                when(col(first).is_null())
                    .then(col(then))
                    .otherwise(col(first))
                    .alias(name),
            )
            .collect()?;
        Ok(Frame(out))
    }

    /// Several value columns of a long table side by side: each of `values` pivoted as
    /// [`Frame::pivot`] does, then the `index` column and the cells `pick` names (a value
    /// column, an entry of `on`, the heading it gets), in that order.
    pub fn pivot_pick(
        &self,
        index: &str,
        on: &str,
        order: &[String],
        values: &[&str],
        pick: &[(&str, String, String)],
    ) -> Result<Frame, FrameError> {
        let wide: Vec<(&str, Frame)> = values
            .iter()
            .copied()
            .zip(self.pivots(index, on, order, values)?)
            .collect();
        let mut cols = Vec::with_capacity(pick.len() + 1);
        let first = wide.first().map(|(_, w)| w.0.column(index)).transpose()?;
        cols.extend(first.cloned());
        for (value, entry, heading) in pick {
            if cols.iter().any(|c: &Column| c.name().as_str() == heading) {
                return Err(FrameError::Duplicate(heading.clone()));
            }
            let (_, w) = wide
                .iter()
                .find(|(v, _)| v == value)
                .ok_or_else(|| FrameError::Type {
                    column: (*value).to_string(),
                    found: "a column that was not pivoted".into(),
                })?;
            let mut c = w.0.column(entry)?.clone();
            c.rename(PlSmallStr::from(heading.as_str()));
            cols.push(c);
        }
        let height = cols.first().map_or(0, Column::len);
        Ok(Frame(DataFrame::new(height, cols)?))
    }

    /// Every row of this table with the other columns of `right` where its `on` cells
    /// match, empty where no row of `right` does, in this table's order (a left join;
    /// `right` has one row per key).
    pub fn left_join(&self, right: &Frame, on: &[&str]) -> Result<Frame, FrameError> {
        let keys: Vec<Expr> = on.iter().map(|c| col(*c)).collect();
        let mut args = JoinArgs::new(JoinType::Left);
        args.maintain_order = MaintainOrderJoin::Left;
        let out = self
            .0
            .clone()
            .lazy()
            .join(right.0.clone().lazy(), &keys, &keys, args)
            .collect()?;
        Ok(Frame(out))
    }

    /// `column` where the `count` column is above 0: its cell, or `fill` where it is
    /// empty; elsewhere an empty cell (a float column: a probability no simulation made
    /// stays empty).
    pub fn filled_where_counted(
        &self,
        column: &str,
        count: &str,
        fill: f64,
    ) -> Result<Frame, FrameError> {
        let mask = col(count).gt(lit(0u64));
        let out = self
            .0
            .clone()
            .lazy()
            .with_column(
                when(mask)
                    .then(col(column).fill_null(lit(fill)))
                    .otherwise(lit(NULL).cast(DataType::Float64))
                    .alias(column),
            )
            .collect()?;
        Ok(Frame(out))
    }

    /// The columns `keep`, in that order.
    pub fn select(&self, keep: &[&str]) -> Result<Frame, FrameError> {
        Ok(Frame(self.0.select(keep.iter().copied())?))
    }

    /// The rows ordered by `by`, ascending (a profile's x axis).
    pub fn sorted(&self, by: &str) -> Result<Frame, FrameError> {
        let out = self
            .0
            .clone()
            .lazy()
            .sort([by], Default::default())
            .collect()?;
        Ok(Frame(out))
    }

    /// The wide form of a long table: a row per distinct `index` (in order of first
    /// appearance), then a column per entry of `on` (in the order given, headed by the
    /// entry) holding the `values` cell of that pair, empty where the long table has no
    /// such row. A pair that appears twice keeps its first cell.
    pub fn pivot(
        &self,
        index: &str,
        on: &str,
        order: &[String],
        values: &str,
    ) -> Result<Frame, FrameError> {
        let mut wide = self.pivots(index, on, order, &[values])?;
        Ok(wide.remove(0))
    }

    /// [`Frame::pivot`] of each of `values`, in that order, from one plan: a matrix's
    /// six grids were six plans, and planning is most of a small pivot's time.
    pub fn pivots(
        &self,
        index: &str,
        on: &str,
        order: &[String],
        values: &[&str],
    ) -> Result<Vec<Frame>, FrameError> {
        if let Some(twice) = order
            .iter()
            .enumerate()
            .find(|(i, o)| *o == index || order[..*i].contains(o))
        {
            return Err(FrameError::Duplicate(twice.1.clone()));
        }
        let on_columns = DataFrame::new(
            order.len(),
            vec![Column::new(PlSmallStr::from(on), order.to_vec())],
        )?;
        // Each wide column is headed `value SEP entry`; a control character no value
        // column's name or entry of ours holds keeps two pairs from one heading.
        const SEP: &str = "\u{1f}";
        let wide = self
            .0
            .clone()
            .lazy()
            .pivot(
                names(&[on]),
                Arc::new(on_columns),
                names(&[index]),
                names(values),
                Expr::Element.first(),
                true,
                PlSmallStr::from(SEP),
                polars::frame::PivotColumnNaming::Combine,
            )
            .collect()?;
        let key = wide.column(index)?;
        values
            .iter()
            .map(|v| {
                let mut cols = Vec::with_capacity(order.len() + 1);
                cols.push(key.clone());
                for entry in order {
                    let mut c = wide.column(&format!("{v}{SEP}{entry}"))?.clone();
                    c.rename(PlSmallStr::from(entry.as_str()));
                    cols.push(c);
                }
                Ok(Frame(DataFrame::new(wide.height(), cols)?))
            })
            .collect()
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
        assert_eq!(f.column("b"), Some(Cells::F64(vec![None, Some(0.5)])));
        let e = frame!("attacker" => vec![1u64], "attacker" => vec![2u64]).unwrap_err();
        assert!(matches!(e, FrameError::Duplicate(_)));
        assert_eq!(
            e.to_string(),
            "two columns are named `attacker`: rename one of the units or series that head them"
        );
    }

    #[test]
    fn a_pivot_puts_each_pair_in_its_row_and_column_and_leaves_missing_pairs_empty() {
        // Rows in order of first appearance, columns in the order asked (not the long
        // table's), an absent pair and an empty cell both empty.
        let long = frame!(
            "attacker" => vec!["orc".to_string(), "orc".into(), "elf".into()],
            "defender" => vec!["elf".to_string(), "orc".into(), "orc".into()],
            "estimate" => vec![Some(0.25), None, Some(0.75)],
        )
        .unwrap();
        let wide = long
            .pivot(
                "attacker",
                "defender",
                &["orc".into(), "elf".into()],
                "estimate",
            )
            .unwrap();
        assert_eq!(
            wide.to_columns().unwrap(),
            vec![
                (
                    "attacker".to_string(),
                    Cells::Str(vec![Some("orc".into()), Some("elf".into())])
                ),
                ("orc".to_string(), Cells::F64(vec![None, Some(0.75)])),
                ("elf".to_string(), Cells::F64(vec![Some(0.25), None])),
            ]
        );
        let both = long.coalesce("v", "estimate", "estimate").unwrap();
        assert_eq!(
            both.column("v"),
            Some(Cells::F64(vec![Some(0.25), None, Some(0.75)]))
        );
    }

    #[test]
    fn several_columns_pivoted_in_one_plan_are_each_what_its_own_pivot_gives() {
        // A number and a text column, an entry whose name holds the other column's
        // name and an underscore (`note_x`), an absent pair: each wide table is the
        // one-column pivot's, cell for cell and heading for heading.
        let long = frame!(
            "attacker" => vec!["orc".to_string(), "orc".into(), "elf".into()],
            "defender" => vec!["elf".to_string(), "note_x".into(), "note_x".into()],
            "estimate" => vec![Some(0.25), None, Some(0.75)],
            "note" => vec![Some("a".to_string()), Some("b".into()), None],
        )
        .unwrap();
        let order: Vec<String> = vec!["note_x".into(), "elf".into()];
        let both = long
            .pivots("attacker", "defender", &order, &["estimate", "note"])
            .unwrap();
        assert_eq!(both.len(), 2);
        for (wide, value) in both.iter().zip(["estimate", "note"]) {
            let alone = long.pivot("attacker", "defender", &order, value).unwrap();
            assert_eq!(wide.to_columns().unwrap(), alone.to_columns().unwrap());
        }
        assert_eq!(
            both[1].to_columns().unwrap(),
            vec![
                (
                    "attacker".to_string(),
                    Cells::Str(vec![Some("orc".into()), Some("elf".into())])
                ),
                (
                    "note_x".to_string(),
                    Cells::Str(vec![Some("b".into()), None])
                ),
                ("elf".to_string(), Cells::Str(vec![Some("a".into()), None])),
            ]
        );
    }
}
