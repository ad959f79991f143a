//! The two compiled copies of sqlite-vec (the crate's stock build and ours with AVX)
//! and the cache's scans agree on the same stored vectors.

mod common;

use common::TempJournal;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::search::SearchFilter;
use mindsage_core::search::vectors::{self, ExtensionBuild, Precision, VectorCache};
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
    let own_debug = vectors::extension_debug(&conn).unwrap();
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
    assert!(vectors::register_build(&stock, ExtensionBuild::Stock));
    let stock_debug = vectors::extension_debug(&stock).unwrap();
    assert!(!stock_debug.contains("avx"), "{stock_debug}");

    let model = vectors::active_model(&conn, USER).unwrap().unwrap();
    let mut cache = VectorCache::default();
    cache.refresh(&conn, USER).unwrap();
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
        let avx_l2 = ids(vectors::knn_sqlite_vec(&conn, USER, &model, &query, 10, &filter).unwrap());
        let stock_l2 = ids(vectors::knn_sqlite_vec(&stock, USER, &model, &query, 10, &filter).unwrap());
        let exact = ids(cache.search_with(Precision::Exact, &query, 10, &filter));
        let half = ids(cache.search_with(Precision::HalfRerank, &query, 10, &filter));
        assert_eq!(avx_l2, by_cosine);
        assert_eq!(stock_l2, by_cosine);
        assert_eq!(exact, by_cosine);
        assert_eq!(half, by_cosine);
    }
}
