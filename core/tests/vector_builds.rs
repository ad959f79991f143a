//! The two compiled copies of sqlite-vec (the crate's stock build and ours with AVX)
//! and the cache's scans agree on the same stored vectors; the reduced-precision caches
//! rerank (from the file, or from the f32 copy an encrypted journal's cache keeps) to
//! exactly the scores of the f32 scan and stay in step with writes.

mod common;

use common::TempJournal;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::vec_extension::{self, ExtensionBuild};
use mindsage_core::db::vectors;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::search::SearchFilter;
use mindsage_core::search::nearest::{Precision, REDUCED_FROM, VectorCache, knn_sqlite_vec};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const USER: i64 = DEFAULT_USER;
/// Divisible by 16, the only dimensions sqlite-vec's AVX kernel takes.
const DIM: usize = 768;

fn random_vector(rng: &mut ChaCha8Rng) -> Vec<f32> {
    (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

#[test]
fn avx_l2_stock_cosine_and_the_cache_rank_alike() {
    let journal = TempJournal::new();
    let conn = journal.open();
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    for _ in 0..600 {
        let id = entries::insert_entry(&conn, USER, &NewEntry::default()).unwrap();
        vectors::store_embedding(&conn, USER, id, "test-768", &random_vector(&mut rng)).unwrap();
    }
    let own_debug = vec_extension::extension_debug(&conn).unwrap();
    if ExtensionBuild::best() == ExtensionBuild::Avx {
        assert!(own_debug.contains("Build flags: avx"), "{own_debug}");
    }

    let stock = db::open(
        &journal.path,
        &StorageOptions {
            vector_extension: false,
            ..StorageOptions::default()
        },
    )
    .unwrap();
    assert!(vec_extension::register_build(&stock, ExtensionBuild::Stock));
    let stock_debug = vec_extension::extension_debug(&stock).unwrap();
    assert!(!stock_debug.contains("avx"), "{stock_debug}");

    let model = vectors::active_model(&conn, USER).unwrap().unwrap();
    let caches = PRECISIONS.map(|p| {
        let mut cache = VectorCache::with_precision(p);
        cache.refresh(&conn, USER).unwrap();
        cache
    });
    let filter = SearchFilter::default();
    let mut cosine = stock
        .prepare(&format!(
            "SELECT entry_id FROM vec_entries_{} ORDER BY vec_distance_cosine(embedding, ?1) LIMIT 10",
            model.id
        ))
        .unwrap();
    for _ in 0..10 {
        // Unnormalised on purpose: L2 ranks as cosine only once both sides are unit length.
        let query = random_vector(&mut rng);
        let blob: Vec<u8> = query.iter().flat_map(|x| x.to_le_bytes()).collect();
        let by_cosine: Vec<i64> = cosine
            .query_map([blob], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let ids = |found: Vec<(i64, f32)>| -> Vec<i64> { found.into_iter().map(|(id, _)| id).collect() };
        let avx_l2 = ids(knn_sqlite_vec(&conn, USER, &model, &query, 10, &filter).unwrap());
        let stock_l2 = ids(knn_sqlite_vec(&stock, USER, &model, &query, 10, &filter).unwrap());
        assert_eq!(avx_l2, by_cosine);
        assert_eq!(stock_l2, by_cosine);
        for cache in &caches {
            let found = ids(cache.search(&conn, &query, 10, &filter).unwrap());
            assert_eq!(found, by_cosine, "{:?}", cache.precision());
        }
    }
}

const PRECISIONS: [Precision; 4] = [
    Precision::Exact,
    Precision::HalfRerank,
    Precision::Int8Rerank,
    Precision::Int8RerankInMemory,
];

/// Vectors scattered around a few centres, as embeddings of related texts are, so near
/// neighbours are close together and rounding could reorder them.
fn clustered_vectors(n: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<f32>> {
    let centres: Vec<Vec<f32>> = (0..8).map(|_| random_vector(rng)).collect();
    (0..n)
        .map(|_| {
            let centre = &centres[rng.random_range(0..centres.len())];
            centre
                .iter()
                .map(|c| c + rng.random_range(-0.1f32..0.1))
                .collect()
        })
        .collect()
}

fn store_all(conn: &rusqlite::Connection, vectors: &[Vec<f32>]) -> Vec<i64> {
    vectors
        .iter()
        .map(|v| {
            let id = entries::insert_entry(conn, USER, &NewEntry::default()).unwrap();
            vectors::store_embedding(conn, USER, id, "test-768", v).unwrap();
            id
        })
        .collect()
}

/// Each reduced cache's answer equals the f32 cache's, scores bit for bit (the rerank
/// reads the stored f32 vector and scores it with the same kernel), for k from 1 to 50.
fn assert_same_as_exact(conn: &rusqlite::Connection, caches: &[VectorCache], queries: &[Vec<f32>]) {
    let filter = SearchFilter::default();
    for query in queries {
        for k in [1, 10, 50] {
            let exact = caches[0].search(conn, query, k, &filter).unwrap();
            assert_eq!(exact.len(), k.min(caches[0].len()));
            for cache in &caches[1..] {
                let found = cache.search(conn, query, k, &filter).unwrap();
                assert_eq!(found, exact, "{:?}, k={k}", cache.precision());
            }
        }
    }
}

#[test]
fn reduced_caches_rerank_from_the_file_to_exact_scores_and_follow_writes() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let reader = journal.open();
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    let data = clustered_vectors(1_500, &mut rng);
    let tx = conn.transaction().unwrap();
    let ids = store_all(&tx, &data);
    tx.commit().unwrap();
    let mut caches = PRECISIONS.map(VectorCache::with_precision);
    for cache in &mut caches {
        cache.refresh(&reader, USER).unwrap();
        assert_eq!(cache.len(), data.len());
    }
    assert_eq!(caches[2].vector_bytes(), data.len() * (DIM + 4));
    assert_eq!(caches[1].vector_bytes(), data.len() * DIM * 2);
    assert_eq!(caches[3].vector_bytes(), data.len() * (DIM + 4 + DIM * 4));
    let queries: Vec<Vec<f32>> = clustered_vectors(20, &mut rng);
    assert_same_as_exact(&reader, &caches, &queries);

    // A vector replaced and one removed after the last refresh: the caches that
    // rerank from the file still hold the old rounding, but scores come from the file,
    // and a removed candidate is dropped rather than shown. (The in-memory rerank
    // answers from its copy until refreshed, as the f32 cache does; search refreshes
    // first.)
    let moved = ids[7];
    vectors::store_embedding(&conn, USER, moved, "test-768", &queries[0]).unwrap();
    vectors::delete_vectors_of(&conn, USER, ids[8]).unwrap();
    for cache in &caches[1..3] {
        let found = cache
            .search(&reader, &data[8], 10, &SearchFilter::default())
            .unwrap();
        assert!(
            found.iter().all(|(id, _)| *id != ids[8]),
            "{:?}",
            cache.precision()
        );
    }
    for cache in &mut caches {
        cache.refresh(&reader, USER).unwrap();
        assert_eq!(cache.len(), data.len() - 1);
    }
    assert_same_as_exact(&reader, &caches, &queries);
    let top = caches[2]
        .search(&reader, &queries[0], 1, &SearchFilter::default())
        .unwrap();
    assert_eq!(top[0].0, moved);
    assert!((top[0].1 - 1.0).abs() < 1e-5, "{}", top[0].1);
}

#[test]
fn a_cache_switches_to_int8_once_the_set_reaches_the_threshold() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let mut rng = ChaCha8Rng::seed_from_u64(48);
    let data = clustered_vectors(REDUCED_FROM - 1, &mut rng);
    let tx = conn.transaction().unwrap();
    let ids = store_all(&tx, &data);
    tx.commit().unwrap();
    let mut cache = VectorCache::default();
    cache.refresh(&conn, USER).unwrap();
    assert_eq!(cache.precision(), Precision::Exact);
    let f32_bytes = cache.vector_bytes();
    // An encrypted journal's cache keeps the f32 copy beside the int8 one past the
    // threshold (its file cannot be mapped for the rerank).
    let mut encrypted = VectorCache::for_encrypted_journal();
    encrypted.refresh(&conn, USER).unwrap();
    assert_eq!(encrypted.precision(), Precision::Exact);
    let query = clustered_vectors(1, &mut rng).remove(0);
    let before = cache.search(&conn, &query, 10, &SearchFilter::default()).unwrap();

    // One more write, caught up incrementally, crosses the threshold.
    let extra = store_all(&conn, &clustered_vectors(1, &mut rng))[0];
    cache.refresh(&conn, USER).unwrap();
    assert_eq!(cache.precision(), Precision::Int8Rerank);
    assert_eq!(cache.vector_bytes(), (data.len() + 1) * (DIM + 4));
    assert!(cache.vector_bytes() * 3 < f32_bytes);
    encrypted.refresh(&conn, USER).unwrap();
    assert_eq!(encrypted.precision(), Precision::Int8RerankInMemory);
    assert_eq!(encrypted.vector_bytes(), (data.len() + 1) * (DIM + 4 + DIM * 4));
    let after = cache.search(&conn, &query, 10, &SearchFilter::default()).unwrap();
    let expected: Vec<(i64, f32)> = {
        let mut exact = VectorCache::with_precision(Precision::Exact);
        exact.refresh(&conn, USER).unwrap();
        exact.search(&conn, &query, 10, &SearchFilter::default()).unwrap()
    };
    assert_eq!(after, expected);
    assert_eq!(
        encrypted
            .search(&conn, &query, 10, &SearchFilter::default())
            .unwrap(),
        expected
    );
    assert!(before.iter().all(|(id, _)| ids.contains(id)));
    assert!(after.iter().all(|(id, _)| ids.contains(id) || *id == extra));

    // Trash keeps the int8 copy in step: the entry leaves the results at once.
    let first = after[0].0;
    entries::soft_delete(&mut conn, USER, first).unwrap();
    cache.refresh(&conn, USER).unwrap();
    assert_eq!(cache.len(), data.len());
    let without = cache.search(&conn, &query, 10, &SearchFilter::default()).unwrap();
    assert_eq!(without[..9], after[1..]);
    encrypted.refresh(&conn, USER).unwrap();
    assert_eq!(
        encrypted
            .search(&conn, &query, 10, &SearchFilter::default())
            .unwrap(),
        without
    );
}
