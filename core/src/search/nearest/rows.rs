//! The vectors a [`super::VectorCache`] holds, row for row with its ids, in the one
//! [`Precision`] it keeps: the cache's bookkeeping stays the same whatever the copy.

use half::f16;

use super::Precision;
use crate::search::quantize;

/// The cache's copy of the vectors.
pub(super) enum Rows {
    Exact(Vec<f32>),
    Half(Vec<f16>),
    Int8(quantize::Int8Vectors),
    /// The int8 copy scanned, and the f32 vectors its candidates are re-scored from.
    Int8InMemory {
        int8: quantize::Int8Vectors,
        exact: Vec<f32>,
    },
}

impl Rows {
    pub(super) fn new(precision: Precision, dim: usize) -> Rows {
        match precision {
            Precision::Exact => Rows::Exact(Vec::new()),
            Precision::HalfRerank => Rows::Half(Vec::new()),
            Precision::Int8Rerank => Rows::Int8(quantize::Int8Vectors {
                dim,
                ..Default::default()
            }),
            Precision::Int8RerankInMemory => Rows::Int8InMemory {
                int8: quantize::Int8Vectors {
                    dim,
                    ..Default::default()
                },
                exact: Vec::new(),
            },
        }
    }

    pub(super) fn precision(&self) -> Precision {
        match self {
            Rows::Exact(_) => Precision::Exact,
            Rows::Half(_) => Precision::HalfRerank,
            Rows::Int8(_) => Precision::Int8Rerank,
            Rows::Int8InMemory { .. } => Precision::Int8RerankInMemory,
        }
    }

    pub(super) fn push(&mut self, vector: &[f32]) {
        match self {
            Rows::Exact(rows) => rows.extend_from_slice(vector),
            Rows::Half(rows) => rows.extend(quantize::to_halves(vector)),
            Rows::Int8(rows) => rows.push(vector),
            Rows::Int8InMemory { int8, exact } => {
                int8.push(vector);
                exact.extend_from_slice(vector);
            }
        }
    }

    pub(super) fn swap_remove(&mut self, index: usize, dim: usize) {
        match self {
            Rows::Exact(rows) => quantize::swap_remove_row(rows, index, dim),
            Rows::Half(rows) => quantize::swap_remove_row(rows, index, dim),
            Rows::Int8(rows) => rows.swap_remove(index),
            Rows::Int8InMemory { int8, exact } => {
                int8.swap_remove(index);
                quantize::swap_remove_row(exact, index, dim);
            }
        }
    }

    pub(super) fn memory_bytes(&self) -> usize {
        match self {
            Rows::Exact(rows) => rows.len() * 4,
            Rows::Half(rows) => rows.len() * 2,
            Rows::Int8(rows) => rows.memory_bytes(),
            Rows::Int8InMemory { int8, exact } => int8.memory_bytes() + exact.len() * 4,
        }
    }
}

impl Default for Rows {
    fn default() -> Rows {
        Rows::Exact(Vec::new())
    }
}
