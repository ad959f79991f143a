//! The `vector` stage: exact and approximate nearest-neighbour search over stored vectors.
//!
//! At each size (5,000 and up from `--sizes`) of 768-dimensional unit vectors, random
//! and clustered, it times:
//! * `exact`: our exact scan (`VectorCache`, 16-lane / AVX2+FMA dot products);
//! * `exact_stock`: sqlite-vec's own KNN on a `vec0` table in a real journal file with
//!   mmap on (the crate's build: no SIMD flags), L2; and `exact_stock_cosine`, its
//!   cosine distance, which has no SIMD path in any build;
//! * `quantized_rerank`: binary codes with Hamming distance for K candidates, then an
//!   exact rerank, for K = 50/100/200/400, and `int8`, each with recall@10 against
//!   exact search;
//!
//! and the ratio of stock to exact at p95, plus memory per representation. Recall on
//! real embeddings (the labelled set and demo entries embedded by the configured
//! model, questions as queries) is what decides whether a prefilter may replace exact
//! search; synthetic vectors only bound it.

use std::time::Instant;

use anyhow::Context;
use mindsage_core::ai::{AiSettings, OllamaClient};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries};
use mindsage_core::search::SearchFilter;
use mindsage_core::search::kernels::{self, Scored};
use mindsage_core::search::quality::LabelledSet;
use mindsage_core::search::quantize::{self, BinaryCodes, Int8Vectors};
use mindsage_core::search::vectors::{self, VectorCache};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::retrieval::DEFAULT_SET;
use super::{Recorder, Stage, StageContext};
use crate::run::{Measure, Scenario, Unit};
use crate::stats::{self, Payload, Sampling};

const DIM: usize = 768;
const SEED: u64 = 768;
const QUERIES: usize = 50;
const PREFILTER_K: [usize; 4] = [50, 100, 200, 400];
/// Demo entries embedded for the real-embedding recall figures.
/// (Each long text costs the small embedding model about a sixth of a second on this
/// machine class, so a few hundred keep the stage within minutes.)
const REAL_TEXTS: usize = 600;

pub struct Vector;

impl Stage for Vector {
    fn name(&self) -> &'static str {
        "vector"
    }

    fn run(&self, ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        let sampling = Sampling {
            samples: ctx.sampling.samples.min(QUERIES * 2),
            ..ctx.sampling
        };
        for &size in ctx.sizes.iter().filter(|s| **s >= 5_000) {
            for data in ["random", "clustered"] {
                let (vectors, queries) = synthetic(size, data);
                Measurer {
                    out,
                    size,
                    data,
                    sampling,
                }
                .all(&vectors, &queries)?;
            }
        }
        match real_embeddings(ctx) {
            Ok((vectors, queries, dim, model)) => {
                let size = vectors.len() / dim;
                let mut m = Measurer {
                    out,
                    size,
                    data: "real",
                    sampling,
                };
                m.recall_figures(&vectors, dim, &queries, &format!("{model}, {dim}-d"));
            }
            Err(e) => out.push(scenario(
                "real.recall",
                None,
                Measure::Failed {
                    error: format!("{e:#}"),
                },
                "real embeddings need the configured Ollama",
                &[],
            )),
        }
        Ok(())
    }
}

/// Unit vectors: uniformly random, or scattered tightly around 64 centres (closer to
/// how embeddings of related texts cluster).
fn synthetic(n: usize, kind: &str) -> (Vec<f32>, Vec<Vec<f32>>) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let random_unit = |rng: &mut ChaCha8Rng| {
        let mut v: Vec<f32> = (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        kernels::normalise(&mut v);
        v
    };
    let centres: Vec<Vec<f32>> = (0..64).map(|_| random_unit(&mut rng)).collect();
    let make = |rng: &mut ChaCha8Rng| -> Vec<f32> {
        if kind == "random" {
            return random_unit(rng);
        }
        let centre = &centres[rng.random_range(0..centres.len())];
        let mut v: Vec<f32> = centre
            .iter()
            .map(|c| c + rng.random_range(-0.05f32..0.05))
            .collect();
        kernels::normalise(&mut v);
        v
    };
    let vectors: Vec<f32> = (0..n).flat_map(|_| make(&mut rng)).collect();
    let queries = (0..QUERIES).map(|_| make(&mut rng)).collect();
    (vectors, queries)
}

struct Measurer<'a> {
    out: &'a mut Recorder,
    size: usize,
    data: &'static str,
    sampling: Sampling,
}

impl Measurer<'_> {
    fn all(&mut self, vectors: &[f32], queries: &[Vec<f32>]) -> anyhow::Result<()> {
        // The app's path: vectors in a journal file, read into the cache, scanned.
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("vectors.db");
        let mut conn = db::open(&path, &StorageOptions::default())?;
        let tx = conn.transaction()?;
        for chunk in vectors.chunks_exact(DIM) {
            let id = entries::insert_entry(&tx, DEFAULT_USER, &entries::NewEntry::default())?;
            vectors::store_embedding(&tx, DEFAULT_USER, id, "bench-768", chunk)?;
        }
        tx.commit()?;
        let mut cache = VectorCache::default();
        cache.refresh(&conn, DEFAULT_USER)?;
        let model = vectors::active_model(&conn, DEFAULT_USER)?.context("vectors stored")?;
        let filter = SearchFilter::default();
        let q = |i: usize| &queries[i % queries.len()];
        let note = format!("{} {DIM}-d unit vectors, {}", self.data, kernels::kernel_name());

        let mut exact_p95 = None;
        for k in [5, 10, 50] {
            let m = stats::measure(
                &self.sampling,
                |i| Ok(cache.search(q(i), k, &filter)),
                |r| Payload::of(r.len() as u64, r.len() as u64 * 12),
            )?;
            if k == 10 {
                exact_p95 = Some(m.stats.p95_ms);
            }
            self.timing("exact", k, "f32", "l2", m, &note);
        }
        let stock_note = format!(
            "{} {DIM}-d, sqlite-vec {} vec0 KNN, mmap on",
            self.data,
            vectors::extension_version(&conn).unwrap_or_default()
        );
        let m = stats::measure(
            &self.sampling,
            |i| {
                Ok(vectors::knn_sqlite_vec(
                    &conn,
                    DEFAULT_USER,
                    &model,
                    q(i),
                    10,
                    &filter,
                )?)
            },
            |r| Payload::of(r.len() as u64, r.len() as u64 * 12),
        )?;
        let stock_p95 = m.stats.p95_ms;
        self.timing("exact_stock", 10, "f32", "l2", m, &stock_note);
        let cosine_sql = format!(
            "SELECT entry_id FROM vec_entries_{} ORDER BY vec_distance_cosine(embedding, ?1) LIMIT 10",
            model.id
        );
        let mut stmt = conn.prepare(&cosine_sql)?;
        let m = stats::measure(
            &self.sampling,
            |i| {
                let blob: Vec<u8> = q(i).iter().flat_map(|x| x.to_le_bytes()).collect();
                Ok(stmt
                    .query_map([blob], |r| r.get::<_, i64>(0))?
                    .collect::<Result<Vec<_>, _>>()?)
            },
            |r| Payload::of(r.len() as u64, r.len() as u64 * 8),
        )?;
        self.timing("exact_stock_cosine", 10, "f32", "cosine", m, &stock_note);
        if let Some(exact) = exact_p95.filter(|e| *e > 0.0) {
            self.value(
                "exact.speedup_vs_stock",
                stock_p95 / exact,
                Unit::Score,
                "p95 of exact_stock ÷ p95 of exact, k=10",
                &[],
            );
        }
        self.value(
            "memory.f32",
            (vectors.len() * 4) as f64,
            Unit::Bytes,
            "vector floats held in memory",
            &[("precision", "f32")],
        );
        drop(stmt);
        drop(conn);
        self.recall_figures(vectors, DIM, queries, &note);
        Ok(())
    }

    /// Prefilter timings and recall@10 against exact search.
    fn recall_figures(&mut self, vectors: &[f32], dim: usize, queries: &[Vec<f32>], note: &str) {
        let exact_top = |query: &[f32]| -> Vec<usize> {
            let scores = vectors.chunks_exact(dim).enumerate().map(|(index, v)| Scored {
                index,
                score: kernels::dot(v, query),
            });
            kernels::top_k(scores, 10).iter().map(|s| s.index).collect()
        };
        let truth: Vec<Vec<usize>> = queries.iter().map(|q| exact_top(q)).collect();
        let codes = BinaryCodes::encode(vectors, dim);
        let int8 = Int8Vectors::encode(vectors, dim);
        self.value(
            "memory.binary",
            codes.memory_bytes() as f64,
            Unit::Bytes,
            "sign bits",
            &[("precision", "binary")],
        );
        self.value(
            "memory.int8",
            int8.memory_bytes() as f64,
            Unit::Bytes,
            "int8 values and scales",
            &[("precision", "int8")],
        );
        for k in PREFILTER_K {
            let found: Vec<Vec<usize>> = queries
                .iter()
                .map(|q| {
                    quantize::rerank(vectors, dim, q, &codes.nearest(q, k), 10)
                        .iter()
                        .map(|s| s.index)
                        .collect()
                })
                .collect();
            let recall = mean_recall(&truth, &found);
            let params = [
                ("k", k.to_string()),
                ("precision", "binary+f32".into()),
                ("distance", "hamming+l2".into()),
            ];
            let params: Vec<(&str, &str)> = params.iter().map(|(a, b)| (*a, b.as_str())).collect();
            self.value(
                &format!("quantized_rerank.k{k}.recall_at_10"),
                recall,
                Unit::Score,
                note,
                &params,
            );
            if let Ok(m) = stats::measure(
                &self.sampling,
                |i| {
                    let q = &queries[i % queries.len()];
                    Ok(quantize::rerank(vectors, dim, q, &codes.nearest(q, k), 10))
                },
                |r| Payload::of(r.len() as u64, r.len() as u64 * 8),
            ) {
                self.timing_named(&format!("quantized_rerank.k{k}"), m, note, &params);
            }
        }
        let found: Vec<Vec<usize>> = queries
            .iter()
            .map(|q| int8.nearest(q, 10).iter().map(|s| s.index).collect())
            .collect();
        let params = [("k", "10"), ("precision", "int8"), ("distance", "dot")];
        self.value(
            "int8.recall_at_10",
            mean_recall(&truth, &found),
            Unit::Score,
            note,
            &params,
        );
        if let Ok(m) = stats::measure(
            &self.sampling,
            |i| Ok(int8.nearest(&queries[i % queries.len()], 10)),
            |r| Payload::of(r.len() as u64, r.len() as u64 * 8),
        ) {
            self.timing_named("int8", m, note, &params);
        }
    }

    fn timing(
        &mut self,
        name: &str,
        k: usize,
        precision: &str,
        distance: &str,
        m: stats::Measured,
        note: &str,
    ) {
        let params = [
            ("k", k.to_string()),
            ("precision", precision.to_owned()),
            ("distance", distance.to_owned()),
        ];
        let params: Vec<(&str, &str)> = params.iter().map(|(a, b)| (*a, b.as_str())).collect();
        self.timing_named(&format!("{name}.k{k}"), m, note, &params);
    }

    fn timing_named(&mut self, name: &str, m: stats::Measured, note: &str, params: &[(&str, &str)]) {
        let measure = Measure::Timing {
            stats: m.stats,
            requested: m.requested,
            budget_exhausted: m.budget_exhausted,
        };
        let mut s = scenario(
            &format!("{}.{name}", self.data),
            Some(self.size),
            measure,
            note,
            params,
        );
        s.payload = Some(m.payload);
        s.expect_min_bytes = 1;
        self.out.push(s);
    }

    fn value(&mut self, name: &str, value: f64, unit: Unit, note: &str, params: &[(&str, &str)]) {
        let s = scenario(
            &format!("{}.{name}", self.data),
            Some(self.size),
            Measure::Value { value, unit },
            note,
            params,
        );
        self.out.push(s);
    }
}

fn mean_recall(truth: &[Vec<usize>], found: &[Vec<usize>]) -> f64 {
    truth
        .iter()
        .zip(found)
        .map(|(t, f)| quantize::recall(t, f))
        .sum::<f64>()
        / truth.len().max(1) as f64
}

fn scenario(
    name: &str,
    size: Option<usize>,
    measure: Measure,
    note: &str,
    params: &[(&str, &str)],
) -> Scenario {
    let mut all: std::collections::BTreeMap<String, String> = params
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    if let Some(data) = name.split('.').next() {
        all.insert("data".into(), data.to_owned());
    }
    Scenario {
        params: all,
        ..Scenario::new("vector", size, name, measure, Some(note.into()))
    }
}

/// Real embeddings: demo entries and the labelled set's entries as the corpus, its
/// questions as queries, embedded by the configured model.
/// Row-major corpus vectors, query vectors, dimension, model name.
type RealSet = (Vec<f32>, Vec<Vec<f32>>, usize, String);

fn real_embeddings(ctx: &StageContext) -> anyhow::Result<RealSet> {
    let settings = AiSettings::from_env();
    let client = OllamaClient::new(&settings)?;
    let path = ctx
        .dataset
        .clone()
        .unwrap_or_else(|| crate::paths::workspace_root().join(DEFAULT_SET));
    let set = LabelledSet::load(&path)?;
    let mut texts: Vec<String> = set
        .entries
        .iter()
        .map(|e| format!("{}\n{}", e.title, e.body))
        .collect();
    let demo = mindsage_core::demo::DemoOptions::fixed(REAL_TEXTS, SEED);
    texts.extend(mindsage_core::demo::generate(&demo).map(|d| {
        let e = d.entry;
        mindsage_core::search::quality::document_text(
            &e.title,
            &e.tags,
            &e.body,
            mindsage_core::search::quality::DocumentText::WholeEntry,
        )
    }));
    let started = Instant::now();
    let mut vectors = Vec::new();
    for chunk in texts.chunks(64) {
        for mut v in client.embed_blocking(&settings.embed_model, chunk)? {
            kernels::normalise(&mut v);
            vectors.push(v);
        }
    }
    eprintln!(
        "[vector] embedded {} real texts in {:.1}s",
        texts.len(),
        started.elapsed().as_secs_f64()
    );
    let dim = vectors.first().map_or(0, Vec::len);
    let questions: Vec<String> = set.questions.iter().map(|q| q.text.clone()).collect();
    let queries = client.embed_blocking(&settings.embed_model, &questions)?;
    Ok((vectors.concat(), queries, dim, settings.embed_model))
}
