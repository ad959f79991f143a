//! The inner loop of exact vector search: dot products over normalised vectors.
//!
//! For L2-normalised vectors, squared L2 distance is `2 - 2·dot`, so ranking by
//! highest dot product is ranking by smallest L2 distance and by highest cosine alike.
//! A plain `iter().zip().map().sum()` stays scalar (floating-point addition is not
//! associative, so the compiler may not reorder it); we keep sixteen independent
//! running sums instead, which the compiler turns into SIMD on every target, and use
//! AVX2 with fused multiply-add when the CPU has it (checked once at run time).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

/// Which kernel [`dot`] uses on this machine, for run records.
pub fn kernel_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() {
            return "avx2+fma";
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

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2_fma(a: &[f32], b: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let chunks = n / LANES;
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    // SAFETY: every load reads 8 floats at offsets below chunks * 16 <= n.
    unsafe {
        let mut acc0 = _mm256_setzero_ps();
        let mut acc1 = _mm256_setzero_ps();
        for c in 0..chunks {
            let i = c * LANES;
            acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)), acc0);
            acc1 = _mm256_fmadd_ps(
                _mm256_loadu_ps(pa.add(i + 8)),
                _mm256_loadu_ps(pb.add(i + 8)),
                acc1,
            );
        }
        let acc = _mm256_add_ps(acc0, acc1);
        let mut lanes = [0.0f32; 8];
        _mm256_storeu_ps(lanes.as_mut_ptr(), acc);
        let tail: f32 = (chunks * LANES..n).map(|i| a[i] * b[i]).sum();
        lanes.iter().sum::<f32>() + tail
    }
}

/// Scales a vector to unit length (a zero vector stays zero).
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
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

/// Keeps the `k` best of a stream of scores in O(n log k), returned best first.
pub fn top_k(scores: impl Iterator<Item = Scored>, k: usize) -> Vec<Scored> {
    if k == 0 {
        return Vec::new();
    }
    let mut heap = BinaryHeap::with_capacity(k + 1);
    for s in scores {
        if heap.len() < k {
            heap.push(s);
        } else if heap.peek().is_some_and(|worst: &Scored| s.score > worst.score) {
            heap.pop();
            heap.push(s);
        }
    }
    // into_sorted_vec sorts ascending by Ord, which is descending by score.
    heap.into_sorted_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn normalised_vectors_have_unit_length() {
        let mut v = vec![3.0, 4.0];
        normalise(&mut v);
        assert_eq!(v, [0.6, 0.8]);
        let mut zero = vec![0.0; 4];
        normalise(&mut zero);
        assert_eq!(zero, [0.0; 4]);
    }
}
