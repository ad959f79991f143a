//! Which copy of the vectors a [`super::VectorCache`] keeps, and from what size: the
//! one choice the bench's `vector` stage exists to settle.

/// Which copy of the vectors a [`super::VectorCache`] keeps in memory and scans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// The f32 vectors: every one is compared exactly.
    Exact,
    /// Half-precision vectors are scanned for a widened candidate list, whose f32
    /// vectors are then read from the journal file and re-scored: final scores are
    /// exact, and only a candidate whose rounded score fell outside the list could be
    /// missed.
    HalfRerank,
    /// As [`Precision::HalfRerank`], from int8 vectors with one scale each: half the
    /// bytes of f16.
    Int8Rerank,
    /// As [`Precision::Int8Rerank`], re-scored from f32 vectors kept in memory beside
    /// the int8 copy: for an encrypted journal. SQLCipher never maps the file, and
    /// sqlite-vec reads a vector from its 1,024-vector chunk by walking the chunk's
    /// overflow pages from the start, so each candidate read back decrypts pages by the
    /// hundred (run `encrypted-dec05`, `*.encrypted.int8_rerank.file_reads.k10`). The
    /// f32 copy costs memory (`memory.encrypted_cache` in the `vector` stage), dropped
    /// with the rest of the app when the journal locks.
    Int8RerankInMemory,
}

impl Precision {
    /// The copy a cache of `vectors` vectors from a plain or an `encrypted` journal
    /// keeps unless told otherwise.
    pub fn for_file(vectors: usize, encrypted: bool) -> Precision {
        match (vectors >= REDUCED_FROM, encrypted) {
            (false, _) => Precision::Exact,
            (true, false) => Precision::Int8Rerank,
            (true, true) => Precision::Int8RerankInMemory,
        }
    }
}

/// Vectors from which a [`super::VectorCache`] keeps the int8 copy instead of f32. An
/// exact scan of 5,000 vectors took about 1 ms, so small journals keep f32 and read
/// nothing back from the file; at 50,000 × 768 the int8 copy is a quarter of f32's
/// 154 MB and its scan read a quarter of the bytes. On real embeddings (1,040 texts, 38
/// questions) and on synthetic ones its recall@10 after the rerank was 1.0 (bench
/// `vector` stage, `*.int8_rerank.raw.recall_at_10`).
pub const REDUCED_FROM: usize = 20_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_sets_keep_int8_and_small_ones_f32() {
        assert_eq!(Precision::for_file(0, false), Precision::Exact);
        assert_eq!(Precision::for_file(REDUCED_FROM - 1, false), Precision::Exact);
        assert_eq!(Precision::for_file(REDUCED_FROM, false), Precision::Int8Rerank);
        assert_eq!(Precision::for_file(REDUCED_FROM - 1, true), Precision::Exact);
        assert_eq!(
            Precision::for_file(REDUCED_FROM, true),
            Precision::Int8RerankInMemory
        );
    }
}
