//! Smaller copies of vectors for a fast first pass, with an exact second pass.
//!
//! Exact search reads every float of every vector; at 50,000 × 768 that is 150 MB per
//! query, and memory bandwidth sets the floor. Three cheaper copies trade a little
//! recall for far fewer bytes:
//!
//! * **binary**: one bit per dimension (its sign), compared by Hamming distance with
//!   `popcount`: 32× smaller than f32. Signs of unit vectors keep their angle roughly,
//!   so the true nearest neighbours are almost always among the best few hundred by
//!   Hamming distance; those few hundred are then re-scored exactly.
//! * **int8**: each vector scaled to −127..127 by its largest component: 4× smaller,
//!   dot products in integers (AVX2), close to exact on its own; a rerank of a slightly
//!   wider list from the f32 vectors ([`int8_rerank`]) puts back the near-ties. This is
//!   the copy [`super::nearest::VectorCache`] keeps for large sets: it met the recall
//!   bar and scanned in about half the time of f16.
//! * **half precision** (f16): 2× smaller, about three significant digits, scanned
//!   with F16C, reranked the same way ([`half_rerank`]).
//!
//! Whether a prefilter may replace exact search is decided by recall@10 against exact
//! search on real embeddings (the bench's `vector` stage), never on synthetic vectors:
//! random vectors have no structure for the signs to keep.

use half::f16;

use super::kernels::{self, Scored};

/// Sign bits of row-major vectors, `words` u64 per vector.
#[derive(Debug, Clone, Default)]
pub struct BinaryCodes {
    pub words: usize,
    pub codes: Vec<u64>,
}

impl BinaryCodes {
    /// Codes of `vectors` (row-major, `dim` floats each).
    pub fn encode(vectors: &[f32], dim: usize) -> BinaryCodes {
        let words = dim.div_ceil(64);
        let mut codes = Vec::with_capacity(vectors.len() / dim.max(1) * words);
        for v in vectors.chunks_exact(dim) {
            codes.extend(sign_bits(v, words));
        }
        BinaryCodes { words, codes }
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.codes.len() * 8
    }

    /// The `k` rows with the fewest differing signs from `query`, best first.
    pub fn nearest(&self, query: &[f32], k: usize) -> Vec<usize> {
        let q = sign_bits(query, self.words);
        let scores = self
            .codes
            .chunks_exact(self.words)
            .enumerate()
            .map(|(index, code)| {
                let distance: u32 = code.iter().zip(&q).map(|(a, b)| (a ^ b).count_ones()).sum();
                Scored {
                    index,
                    score: -(distance as f32),
                }
            });
        kernels::top_k(scores, k).into_iter().map(|s| s.index).collect()
    }
}

fn sign_bits(v: &[f32], words: usize) -> Vec<u64> {
    let mut out = vec![0u64; words];
    for (i, x) in v.iter().enumerate() {
        if *x > 0.0 {
            out[i / 64] |= 1 << (i % 64);
        }
    }
    out
}

/// Re-scores candidate rows exactly and keeps the best `k`: (row, dot product).
pub fn rerank(vectors: &[f32], dim: usize, query: &[f32], candidates: &[usize], k: usize) -> Vec<Scored> {
    let scores = candidates.iter().map(|&index| Scored {
        index,
        score: kernels::dot(&vectors[index * dim..(index + 1) * dim], query),
    });
    kernels::top_k(scores, k)
}

/// `vectors` rounded to half precision.
pub fn to_halves(vectors: &[f32]) -> Vec<f16> {
    vectors.iter().map(|x| f16::from_f32(*x)).collect()
}

/// Candidates a reduced-precision scan hands to the exact rerank for a top `k`. On
/// real embeddings (384-d, 150 questions) and on random and clustered 768-d vectors
/// at 50,000, the int8 scan already gave the exact top 10 and top 50, in order, with
/// five extra candidates; the margin here is several times that. It is kept small
/// because each candidate's f32 vector is read from the journal file.
pub fn rerank_pool(k: usize) -> usize {
    k + k / 4 + 16
}

/// The `k` best rows among those `keep` accepts: a half-precision scan of `halves` for
/// a widened list, re-scored exactly from `vectors` (the same rows in f32), so scores
/// are exact and only a row whose rounded score fell outside the list can be missed.
pub fn half_rerank(
    vectors: &[f32],
    halves: &[f16],
    query: &[f32],
    k: usize,
    keep: impl Fn(usize) -> bool + Sync,
) -> Vec<Scored> {
    let pool = kernels::scan_f16(halves, query, rerank_pool(k), keep);
    rerank(vectors, query.len(), query, &indices(&pool), k)
}

/// [`half_rerank`] with an int8 first pass.
pub fn int8_rerank(
    vectors: &[f32],
    int8: &Int8Vectors,
    query: &[f32],
    k: usize,
    keep: impl Fn(usize) -> bool + Sync,
) -> Vec<Scored> {
    let pool = int8.scan(query, rerank_pool(k), keep);
    rerank(vectors, query.len(), query, &indices(&pool), k)
}

fn indices(scored: &[Scored]) -> Vec<usize> {
    scored.iter().map(|s| s.index).collect()
}

/// Vectors as int8 with one scale per vector: row `i` stands for `values[i] × scales[i]`.
#[derive(Debug, Clone, Default)]
pub struct Int8Vectors {
    pub dim: usize,
    pub values: Vec<i8>,
    pub scales: Vec<f32>,
}

impl Int8Vectors {
    pub fn encode(vectors: &[f32], dim: usize) -> Int8Vectors {
        let mut out = Int8Vectors {
            dim,
            ..Default::default()
        };
        vectors.chunks_exact(dim.max(1)).for_each(|v| out.push(v));
        out
    }

    /// Appends one vector, scaled to −127..127 by its largest component.
    pub fn push(&mut self, v: &[f32]) {
        debug_assert_eq!(v.len(), self.dim);
        let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        self.scales.push(scale);
        self.values.extend(v.iter().map(|x| (x / scale).round() as i8));
    }

    /// Replaces row `index` with the last row and drops the last.
    pub fn swap_remove(&mut self, index: usize) {
        swap_remove_row(&mut self.values, index, self.dim);
        swap_remove_row(&mut self.scales, index, 1);
    }

    pub fn memory_bytes(&self) -> usize {
        self.values.len() + self.scales.len() * 4
    }

    /// The `k` best rows among those `keep` accepts, by approximate dot product.
    pub fn scan(&self, query: &[f32], k: usize, keep: impl Fn(usize) -> bool + Sync) -> Vec<Scored> {
        kernels::scan_i8(&self.values, &self.scales, query, k, keep)
    }

    /// The `k` best rows by approximate dot product with `query`.
    pub fn nearest(&self, query: &[f32], k: usize) -> Vec<Scored> {
        self.scan(query, k, |_| true)
    }
}

/// Moves the last row of a row-major `rows` (`dim` values each) into row `index` and
/// drops the last: removal in O(dim), at the cost of the last row's position.
pub fn swap_remove_row<T: Copy>(rows: &mut Vec<T>, index: usize, dim: usize) {
    let last = rows.len() / dim.max(1) - 1;
    if index != last {
        let (head, tail) = rows.split_at_mut(last * dim);
        head[index * dim..(index + 1) * dim].copy_from_slice(&tail[..dim]);
    }
    rows.truncate(last * dim);
}

/// Share of `exact` found in `approx` (recall@k when both hold k rows).
pub fn recall(exact: &[usize], approx: &[usize]) -> f64 {
    if exact.is_empty() {
        return 1.0;
    }
    exact.iter().filter(|i| approx.contains(i)).count() as f64 / exact.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vectors(n: usize, dim: usize) -> Vec<f32> {
        kernels::tests::unit_rows(n, dim, 12345)
    }

    #[test]
    fn a_vector_is_its_own_nearest_neighbour_in_every_form() {
        let (n, dim) = (500, 96);
        let data = vectors(n, dim);
        let codes = BinaryCodes::encode(&data, dim);
        let int8 = Int8Vectors::encode(&data, dim);
        assert_eq!(codes.memory_bytes(), n * 2 * 8);
        for row in [0, 17, 499] {
            let query = &data[row * dim..(row + 1) * dim];
            assert_eq!(codes.nearest(query, 1), [row]);
            assert_eq!(int8.nearest(query, 1)[0].index, row);
            let candidates = codes.nearest(query, 50);
            assert_eq!(rerank(&data, dim, query, &candidates, 1)[0].index, row);
        }
    }

    #[test]
    fn reduced_precision_with_rerank_finds_the_exact_top_ten() {
        let (n, dim) = (2_000, 128);
        let data = vectors(n, dim);
        let halves = to_halves(&data);
        let int8 = Int8Vectors::encode(&data, dim);
        for row in [3, 1_999] {
            let query = &data[row * dim..(row + 1) * dim];
            let exact = kernels::scan(&data, query, 10, |_| true);
            assert_eq!(half_rerank(&data, &halves, query, 10, |_| true), exact);
            assert_eq!(int8_rerank(&data, &int8, query, 10, |_| true), exact);
        }
    }

    #[test]
    fn int8_ranks_almost_exactly() {
        let (n, dim) = (300, 64);
        let data = vectors(n, dim);
        let int8 = Int8Vectors::encode(&data, dim);
        let query = vectors(1, dim);
        let exact: Vec<usize> = kernels::top_k(
            data.chunks_exact(dim).enumerate().map(|(index, v)| Scored {
                index,
                score: kernels::dot(v, &query),
            }),
            10,
        )
        .iter()
        .map(|s| s.index)
        .collect();
        let approx: Vec<usize> = int8.nearest(&query, 10).iter().map(|s| s.index).collect();
        assert!(recall(&exact, &approx) >= 0.8);
        assert_eq!(recall(&[], &approx), 1.0);
    }
}
