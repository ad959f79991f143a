//! The vector half of search: the entries nearest in meaning to a query embedding.
//!
//! The vectors themselves are stored by `db::vectors`; this module only reads them.
//! Two ways to the nearest entries:
//! * [`knn_sqlite_vec`]: sqlite-vec's KNN over the file, no state (`knn.rs`);
//! * [`VectorCache`]: an in-memory copy kept in step with the file and scanned with
//!   SIMD (`cache.rs`), in the [`Precision`] its size calls for (`precision.rs`, the
//!   rows themselves in `rows.rs`), reduced copies re-scored exactly from the file
//!   ([`stored_scores`], `rerank.rs`).

mod cache;
mod knn;
mod precision;
mod rerank;
mod rows;

pub use cache::VectorCache;
pub use knn::knn_sqlite_vec;
pub use precision::{Precision, REDUCED_FROM};
pub use rerank::stored_scores;
