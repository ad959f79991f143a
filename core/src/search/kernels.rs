//! The inner loop of exact vector search: dot products over normalised vectors.
//!
//! For L2-normalised vectors, squared L2 distance is `2 - 2·dot`, so ranking by
//! highest dot product is ranking by smallest L2 distance and by highest cosine alike.
//! A plain `iter().zip().map().sum()` stays scalar (floating-point addition is not
//! associative, so the compiler may not reorder it); we keep sixteen independent
//! running sums instead, which the compiler turns into SIMD on every target, and use
//! AVX2 with fused multiply-add when the CPU has it (checked once at run time).
//!
//! A scan scores four rows per pass over the query: each query load feeds four rows,
//! and the eight accumulators (two per row) hide the FMA latency. Every row is summed
//! in the same order as [`dot`] sums it, so a row's score is the same bit for bit
//! whichever path computed it, and a rerank agrees exactly with the full scan.
//!
//! [`scan_f16`] reads half-precision copies (F16C converts eight at a time): half the
//! bytes of f32, and memory bandwidth is what bounds a scan of 50,000 vectors.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use half::f16;

/// Lanes of independent partial sums: two AVX registers of eight f32.
const LANES: usize = 16;

/// Dot product of two equal-length vectors with the fastest kernel this CPU supports.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() {
            // SAFETY: the CPU supports AVX2 and FMA (checked above).
            return unsafe { dot_avx2_fma(a, b) };
        }
    }
    dot_portable(a, b)
}

/// Which kernels [`scan`] and [`scan_f16`] use on this machine, for run records.
pub fn kernel_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() && has_f16c() {
            return "avx2+fma 4-row, f16c";
        }
        if has_avx2_fma() {
            return "avx2+fma 4-row, portable f16";
        }
    }
    "portable-16-lane"
}

#[cfg(target_arch = "x86_64")]
fn has_avx2_fma() -> bool {
    use std::sync::OnceLock;
    static DETECTED: OnceLock<bool> = OnceLock::new();
    *DETECTED.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
}

#[cfg(target_arch = "x86_64")]
fn has_f16c() -> bool {
    use std::sync::OnceLock;
    static DETECTED: OnceLock<bool> = OnceLock::new();
    *DETECTED.get_or_init(|| has_avx2_fma() && is_x86_feature_detected!("f16c"))
}

/// Sixteen running sums the optimiser can keep in vector registers.
pub fn dot_portable(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0.0f32; LANES];
    let (a_chunks, b_chunks) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (ca, cb) in a_chunks.zip(b_chunks) {
        for i in 0..LANES {
            sums[i] += ca[i] * cb[i];
        }
    }
    sums.iter().sum::<f32>() + tail
}

fn dot_f16_portable(row: &[f16], query: &[f32]) -> f32 {
    let mut sums = [0.0f32; LANES];
    let (r_chunks, q_chunks) = (row.chunks_exact(LANES), query.chunks_exact(LANES));
    let tail: f32 = r_chunks
        .remainder()
        .iter()
        .zip(q_chunks.remainder())
        .map(|(x, y)| x.to_f32() * y)
        .sum();
    for (cr, cq) in r_chunks.zip(q_chunks) {
        for i in 0..LANES {
            sums[i] += cr[i].to_f32() * cq[i];
        }
    }
    sums.iter().sum::<f32>() + tail
}

/// Adds the eight lanes in a fixed order, so every path rounds a row's sum alike.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn horizontal_sum(acc0: std::arch::x86_64::__m256, acc1: std::arch::x86_64::__m256) -> f32 {
    use std::arch::x86_64::*;
    let mut lanes = [0.0f32; 8];
    // SAFETY: `lanes` holds exactly eight floats.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), _mm256_add_ps(acc0, acc1)) };
    lanes.iter().sum()
}

/// One row, summed in the order [`dot4_avx2_fma`] sums each of its rows.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2_fma(a: &[f32], b: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let chunks = n / LANES;
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let (mut acc0, mut acc1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    // SAFETY: every load reads 8 floats at offsets below chunks * 16 <= n.
    unsafe {
        for c in 0..chunks {
            let i = c * LANES;
            acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)), acc0);
            acc1 = _mm256_fmadd_ps(
                _mm256_loadu_ps(pa.add(i + 8)),
                _mm256_loadu_ps(pb.add(i + 8)),
                acc1,
            );
        }
    }
    let tail: f32 = (chunks * LANES..n).map(|i| a[i] * b[i]).sum();
    horizontal_sum(acc0, acc1) + tail
}

/// Asks for the line at `at` ahead of use: a scan reads four rows at once, four
/// interleaved streams the hardware prefetcher follows poorly, and 50,000 rows do not
/// fit in cache (prefetching the next block cut a scan by about a third in a
/// micro-benchmark). The rows are usually contiguous, so the next block is four rows
/// on; where it is not (a filter skipped rows, the last block), the hint is merely
/// wasted: a prefetch never faults, and `wrapping_add` keeps the address computation
/// defined.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch_next_block<T>(at: *const T) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: prefetch is a hint that never dereferences or faults.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(at.cast::<i8>()) };
}

/// Dot products of four rows with one query; rows and query have equal length.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot4_avx2_fma(rows: [&[f32]; 4], q: &[f32]) -> [f32; 4] {
    use std::arch::x86_64::*;
    let n = q.len();
    debug_assert!(rows.iter().all(|r| r.len() == n));
    let chunks = n / LANES;
    let p = rows.map(<[f32]>::as_ptr);
    let pq = q.as_ptr();
    let mut acc = [[_mm256_setzero_ps(); 2]; 4];
    // SAFETY: every load reads 8 floats at offsets below chunks * 16 <= n, and every
    // row holds n floats.
    unsafe {
        for c in 0..chunks {
            let i = c * LANES;
            let q0 = _mm256_loadu_ps(pq.add(i));
            let q1 = _mm256_loadu_ps(pq.add(i + 8));
            for r in 0..4 {
                prefetch_next_block(p[r].wrapping_add(4 * n + i));
                acc[r][0] = _mm256_fmadd_ps(_mm256_loadu_ps(p[r].add(i)), q0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(_mm256_loadu_ps(p[r].add(i + 8)), q1, acc[r][1]);
            }
        }
    }
    std::array::from_fn(|r| {
        let tail: f32 = (chunks * LANES..n).map(|i| rows[r][i] * q[i]).sum();
        horizontal_sum(acc[r][0], acc[r][1]) + tail
    })
}

/// [`dot4_avx2_fma`] over half-precision rows, widened to f32 by F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn dot4_f16c(rows: [&[f16]; 4], q: &[f32]) -> [f32; 4] {
    use std::arch::x86_64::*;
    let n = q.len();
    debug_assert!(rows.iter().all(|r| r.len() == n));
    let chunks = n / LANES;
    // f16 is a 16-bit value with the layout of IEEE binary16, as `vcvtph2ps` reads it.
    let p = rows.map(|r| r.as_ptr().cast::<__m128i>());
    let pq = q.as_ptr();
    let mut acc = [[_mm256_setzero_ps(); 2]; 4];
    // SAFETY: as in dot4_avx2_fma; one __m128i is eight halves, so pointer offsets
    // count in units of eight.
    unsafe {
        for c in 0..chunks {
            let i = c * LANES;
            let q0 = _mm256_loadu_ps(pq.add(i));
            let q1 = _mm256_loadu_ps(pq.add(i + 8));
            for r in 0..4 {
                prefetch_next_block(p[r].wrapping_add(n / 2 + 2 * c));
                let v0 = _mm256_cvtph_ps(_mm_loadu_si128(p[r].add(2 * c)));
                let v1 = _mm256_cvtph_ps(_mm_loadu_si128(p[r].add(2 * c + 1)));
                acc[r][0] = _mm256_fmadd_ps(v0, q0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(v1, q1, acc[r][1]);
            }
        }
    }
    std::array::from_fn(|r| {
        let tail: f32 = (chunks * LANES..n).map(|i| rows[r][i].to_f32() * q[i]).sum();
        horizontal_sum(acc[r][0], acc[r][1]) + tail
    })
}

/// The `k` rows of `rows` (row-major, `query.len()` values each) with the highest dot
/// product with `query`, best first, among the rows `keep` accepts.
pub fn scan(rows: &[f32], query: &[f32], k: usize, keep: impl Fn(usize) -> bool + Sync) -> Vec<Scored> {
    let rows = Rows::new(rows, query.len());
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() {
            // SAFETY: the CPU supports AVX2 and FMA (checked above).
            return scan_rows(rows.count, k, keep, |b| unsafe {
                dot4_avx2_fma(rows.block(b), query)
            });
        }
    }
    scan_rows(rows.count, k, keep, |b| {
        rows.block(b).map(|row| dot_portable(row, query))
    })
}

/// [`scan`] over half-precision rows: approximate scores (a half keeps about three
/// significant digits), for a first pass that an exact rerank then corrects.
pub fn scan_f16(rows: &[f16], query: &[f32], k: usize, keep: impl Fn(usize) -> bool + Sync) -> Vec<Scored> {
    let rows = Rows::new(rows, query.len());
    #[cfg(target_arch = "x86_64")]
    {
        if has_f16c() {
            // SAFETY: the CPU supports AVX2, FMA and F16C (checked above).
            return scan_rows(rows.count, k, keep, |b| unsafe {
                dot4_f16c(rows.block(b), query)
            });
        }
    }
    scan_rows(rows.count, k, keep, |b| {
        rows.block(b).map(|row| dot_f16_portable(row, query))
    })
}

/// [`scan`] over int8 rows, row `i` standing for `rows[i] × scales[i]`: approximate
/// scores for a first pass that an exact rerank corrects. The query is rounded to
/// 16-bit integers (see [`QueryI16`]), so the rows' rounding is nearly all the error.
pub fn scan_i8(
    rows: &[i8],
    scales: &[f32],
    query: &[f32],
    k: usize,
    keep: impl Fn(usize) -> bool + Sync,
) -> Vec<Scored> {
    let q = QueryI16::new(query);
    let rows = Rows::new(rows, query.len());
    let scored = |b: [usize; 4], dots: [i32; 4]| -> [f32; 4] {
        std::array::from_fn(|i| dots[i] as f32 * scales[b[i]] * q.scale)
    };
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() {
            // SAFETY: the CPU supports AVX2 (checked above).
            return scan_rows(rows.count, k, keep, |b| {
                scored(b, unsafe { dot4_i8_avx2(rows.block(b), &q.values) })
            });
        }
    }
    scan_rows(rows.count, k, keep, |b| {
        scored(b, rows.block(b).map(|row| dot_i8_portable(row, &q.values)))
    })
}

/// A query rounded to 16-bit integers for [`scan_i8`]: `values[i] × scale ≈ query[i]`.
/// The largest component maps to the largest magnitude for which no sum of
/// `127 × |value|` over the dimension can overflow an i32, so integer dot products
/// are exact.
struct QueryI16 {
    values: Vec<i16>,
    scale: f32,
}

impl QueryI16 {
    fn new(query: &[f32]) -> QueryI16 {
        let limit = (i32::MAX as usize / (127 * query.len().max(1))).min(i16::MAX as usize) as f32;
        let max = query.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / limit } else { 1.0 };
        QueryI16 {
            values: query.iter().map(|x| (x / scale).round() as i16).collect(),
            scale,
        }
    }
}

fn dot_i8_portable(row: &[i8], query: &[i16]) -> i32 {
    row.iter()
        .zip(query)
        .map(|(a, b)| i32::from(*a) * i32::from(*b))
        .sum()
}

/// Integer dot products of four int8 rows with an i16 query: each 16 bytes of a row
/// are widened to i16 and multiplied pairwise into i32 lanes (`vpmaddwd`). Integer
/// sums are exact, so every path gives the same score.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot4_i8_avx2(rows: [&[i8]; 4], q: &[i16]) -> [i32; 4] {
    use std::arch::x86_64::*;
    const STEP: usize = 16;
    let n = q.len();
    debug_assert!(rows.iter().all(|r| r.len() == n));
    let chunks = n / STEP;
    // One __m128i is sixteen i8, one __m256i sixteen i16: pointer offsets count chunks.
    let p = rows.map(|r| r.as_ptr().cast::<__m128i>());
    let pq = q.as_ptr().cast::<__m256i>();
    let mut acc = [_mm256_setzero_si256(); 4];
    // SAFETY: chunk c reads bytes c*16..c*16+16 of each row and i16s c*16..c*16+16
    // of the query, all below chunks * 16 <= n; every row holds n values.
    unsafe {
        for c in 0..chunks {
            let qv = _mm256_loadu_si256(pq.add(c));
            for r in 0..4 {
                prefetch_next_block(p[r].wrapping_add(n / STEP * 4 + c));
                let v = _mm256_cvtepi8_epi16(_mm_loadu_si128(p[r].add(c)));
                acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(v, qv));
            }
        }
    }
    std::array::from_fn(|r| {
        let mut lanes = [0i32; 8];
        // SAFETY: `lanes` holds exactly eight i32.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), acc[r]) };
        lanes.iter().sum::<i32>() + dot_i8_portable(&rows[r][chunks * STEP..], &q[chunks * STEP..])
    })
}

/// Rows from which a scan is split over the CPU's cores. A scan of this many rows
/// takes about a millisecond on one core, so a thread's start (tens of microseconds)
/// is small beside it; fewer rows are scanned on the calling thread.
const PARALLEL_FROM: usize = 16_384;

/// Threads a scan of `n` rows uses: one per core, at most one per [`PARALLEL_FROM`]
/// rows.
fn scan_threads(n: usize) -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |c| c.get()));
    cores.min(n / PARALLEL_FROM).max(1)
}

/// Row-major rows of `dim` values.
#[derive(Clone, Copy)]
struct Rows<'a, T> {
    values: &'a [T],
    dim: usize,
    count: usize,
}

impl<'a, T> Rows<'a, T> {
    fn new(values: &'a [T], dim: usize) -> Rows<'a, T> {
        let count = values.len().checked_div(dim).unwrap_or(0);
        Rows { values, dim, count }
    }

    fn block(&self, indices: [usize; 4]) -> [&'a [T]; 4] {
        indices.map(|i| &self.values[i * self.dim..(i + 1) * self.dim])
    }
}

/// Scores the rows (of `count`) that `keep` accepts, four at a time with `score4`, and
/// keeps the `k` best, best first. A scan of 50,000 rows is bound by memory bandwidth,
/// which one core does not use up, so a large scan is split into one contiguous range
/// of rows per core, each with its own top-k, and the lists are merged.
fn scan_rows(
    count: usize,
    k: usize,
    keep: impl Fn(usize) -> bool + Sync,
    score4: impl Fn([usize; 4]) -> [f32; 4] + Sync,
) -> Vec<Scored> {
    let threads = scan_threads(count);
    let share = count.div_ceil(threads);
    let range = |t: usize| (t * share).min(count)..((t + 1) * share).min(count);
    let (keep, score4) = (&keep, &score4);
    std::thread::scope(|s| {
        let others: Vec<_> = (1..threads)
            .map(|t| s.spawn(move || scan_range(range(t), k, keep, score4)))
            .collect();
        let mut best = scan_range(range(0), k, keep, score4);
        for other in others {
            // A scan thread only does arithmetic on slices of the rows; if it panicked,
            // that panic goes on here.
            let other = other.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            other.heap.into_iter().for_each(|s| best.push(s));
        }
        best.into_sorted()
    })
}

/// One thread's share of [`scan_rows`]: accepted rows go to `score4` four at a time; a
/// last partial block repeats its first row, so every score comes from the same kernel.
fn scan_range(
    range: std::ops::Range<usize>,
    k: usize,
    keep: &impl Fn(usize) -> bool,
    score4: &impl Fn([usize; 4]) -> [f32; 4],
) -> TopK {
    let mut best = TopK::new(k);
    let mut block = [0usize; 4];
    let mut filled = 0;
    for index in range.filter(|i| keep(*i)) {
        block[filled] = index;
        filled += 1;
        if filled == 4 {
            let scores = score4(block);
            for (index, score) in block.into_iter().zip(scores) {
                best.push(Scored { index, score });
            }
            filled = 0;
        }
    }
    for &index in &block[..filled] {
        best.push(Scored {
            index,
            score: score4([index; 4])[0],
        });
    }
    best
}

/// A candidate in a top-k selection: higher score is better.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub index: usize,
    pub score: f32,
}

impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scored {
    // Reversed, so the heap's top is the worst kept candidate and is evicted first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.index.cmp(&other.index))
    }
}

/// The `k` best of a stream of scores, in a heap allocated once; a score no better
/// than the worst kept one costs a single comparison.
struct TopK {
    k: usize,
    heap: BinaryHeap<Scored>,
}

impl TopK {
    fn new(k: usize) -> TopK {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
        }
    }

    fn push(&mut self, s: Scored) {
        if self.heap.len() < self.k {
            self.heap.push(s);
        } else if let Some(mut worst) = self.heap.peek_mut()
            && s.score > worst.score
        {
            *worst = s;
        }
    }

    /// Best first: `into_sorted_vec` sorts ascending by `Ord`, which is descending by score.
    fn into_sorted(self) -> Vec<Scored> {
        self.heap.into_sorted_vec()
    }
}

/// Keeps the `k` best of a stream of scores in O(n log k), returned best first.
pub fn top_k(scores: impl Iterator<Item = Scored>, k: usize) -> Vec<Scored> {
    let mut best = TopK::new(k);
    scores.for_each(|s| best.push(s));
    best.into_sorted()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::db::vectors::normalise;

    #[test]
    fn kernels_agree_with_the_obvious_sum() {
        for len in [0usize, 1, 7, 16, 17, 384, 768, 1000] {
            let a: Vec<f32> = (0..len).map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0).collect();
            let b: Vec<f32> = (0..len).map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0).collect();
            let naive: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
            assert!((f64::from(dot(&a, &b)) - naive).abs() < 1e-3, "len {len}");
            assert!(
                (f64::from(dot_portable(&a, &b)) - naive).abs() < 1e-3,
                "len {len}"
            );
        }
    }

    #[test]
    fn top_k_keeps_the_best_in_order() {
        let scores = [0.1, 0.9, 0.5, 0.7, 0.3]
            .iter()
            .enumerate()
            .map(|(index, &score)| Scored { index, score });
        let best: Vec<usize> = top_k(scores, 3).iter().map(|s| s.index).collect();
        assert_eq!(best, [1, 3, 2]);
        assert!(top_k(std::iter::empty(), 3).is_empty());
    }

    /// `n` pseudo-random unit vectors of `dim` floats, row-major, the same for a seed.
    pub(crate) fn unit_rows(n: usize, dim: usize, seed: u64) -> Vec<f32> {
        let mut x = seed | 1;
        let mut out = Vec::with_capacity(n * dim);
        for _ in 0..n {
            let mut v: Vec<f32> = (0..dim)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 2001) as f32 / 1000.0 - 1.0
                })
                .collect();
            normalise(&mut v);
            out.extend(v);
        }
        out
    }

    #[test]
    fn scans_score_each_row_exactly_as_dot_does() {
        for (n, dim) in [(0, 8), (1, 8), (7, 24), (103, 768), (64, 19)] {
            let rows = unit_rows(n, dim, 7);
            let query = unit_rows(1, dim, 99);
            let expected = top_k(
                rows.chunks_exact(dim).enumerate().map(|(index, v)| Scored {
                    index,
                    score: dot(v, &query),
                }),
                10,
            );
            assert_eq!(scan(&rows, &query, 10, |_| true), expected, "{n}×{dim}");
            let odd: Vec<usize> = scan(&rows, &query, n, |i| i % 2 == 1)
                .iter()
                .map(|s| s.index)
                .collect();
            assert!(odd.iter().all(|i| i % 2 == 1) && odd.len() == n / 2, "{n}×{dim}");
        }
    }

    #[test]
    fn the_half_precision_scan_stays_within_half_rounding() {
        let (n, dim) = (61, 768);
        let rows = unit_rows(n, dim, 3);
        let halves: Vec<f16> = rows.iter().map(|x| f16::from_f32(*x)).collect();
        let query = unit_rows(1, dim, 5);
        let approx = scan_f16(&halves, &query, n, |_| true);
        assert_eq!(approx.len(), n);
        for s in approx {
            let exact = dot(&rows[s.index * dim..(s.index + 1) * dim], &query);
            assert!((s.score - exact).abs() < 2e-3, "row {}", s.index);
            let portable = dot_f16_portable(&halves[s.index * dim..(s.index + 1) * dim], &query);
            assert!((s.score - portable).abs() < 1e-5, "row {}", s.index);
        }
    }

    #[test]
    fn the_int8_scan_sums_integers_exactly_on_every_path() {
        for (n, dim) in [(9, 768), (13, 40), (5, 7)] {
            let rows = unit_rows(n, dim, 11);
            let int8 = crate::search::quantize::Int8Vectors::encode(&rows, dim);
            let query = unit_rows(1, dim, 13);
            let q = QueryI16::new(&query);
            let found = scan_i8(&int8.values, &int8.scales, &query, n, |_| true);
            assert_eq!(found.len(), n);
            for s in found {
                let row = &int8.values[s.index * dim..(s.index + 1) * dim];
                let expected = dot_i8_portable(row, &q.values) as f32 * int8.scales[s.index] * q.scale;
                assert_eq!(s.score, expected, "{n}×{dim} row {}", s.index);
                let exact = dot(&rows[s.index * dim..(s.index + 1) * dim], &query);
                assert!((s.score - exact).abs() < 0.02, "{n}×{dim} row {}", s.index);
            }
        }
    }

    #[test]
    fn a_scan_split_over_threads_finds_what_one_pass_finds() {
        let (n, dim) = (2 * PARALLEL_FROM + 7, 16);
        let rows = unit_rows(n, dim, 21);
        let query = unit_rows(1, dim, 23);
        let every = |keep: &dyn Fn(usize) -> bool| {
            top_k(
                rows.chunks_exact(dim)
                    .enumerate()
                    .filter(|(i, _)| keep(*i))
                    .map(|(index, v)| Scored {
                        index,
                        score: dot(v, &query),
                    }),
                25,
            )
        };
        assert_eq!(scan(&rows, &query, 25, |_| true), every(&|_| true));
        assert_eq!(scan(&rows, &query, 25, |i| i % 3 == 0), every(&|i| i % 3 == 0));
    }
}
