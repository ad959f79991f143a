//! Search on real journal files with the real sqlite-vec: keyword escaping and snippets,
//! vector round trips, consistency with trash and purge, model changes, the
//! extension-missing fallback, and dates in questions.

mod common;

use std::time::Duration;

use chrono::TimeZone;
use common::TempJournal;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::db::{jobs, vec_extension, vectors};
use mindsage_core::demo::{self, DemoOptions};
use mindsage_core::search::keyword::{
    self, HIGHLIGHT_END, HIGHLIGHT_START, LastWord, Matching, QueryWords, RankingConnections,
};
use mindsage_core::search::nearest::{VectorCache, knn_sqlite_vec};
use mindsage_core::search::{self, SearchFilter, SearchMode, SearchQuery, Searcher};

const USER: i64 = DEFAULT_USER;

fn add(conn: &mut rusqlite::Connection, title: &str, body: &str, tags: &[&str]) -> i64 {
    let tags = tags.iter().map(|t| t.to_string()).collect();
    add_entry(
        conn,
        title,
        body,
        NewEntry {
            tags,
            ..Default::default()
        },
    )
}

/// `entry` with `title` and `body`, written to the journal.
fn add_entry(conn: &mut rusqlite::Connection, title: &str, body: &str, entry: NewEntry) -> i64 {
    let entry = NewEntry {
        title: title.into(),
        body: body.into(),
        ..entry
    };
    entries::create(conn, USER, &entry).unwrap()
}

/// A deterministic pseudo-embedding: the same text always gives the same vector.
fn fake_vector(seed: u64, dim: usize) -> Vec<f32> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..dim)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 2000) as f32 / 1000.0 - 1.0
        })
        .collect()
}

fn ids(outcome: &search::SearchOutcome) -> Vec<i64> {
    outcome.hits.iter().map(|h| h.entry_id).collect()
}

#[test]
fn keyword_search_ranks_titles_tags_and_bodies_with_snippets() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let knee = add(
        &mut conn,
        "Knee check",
        "The physio pressed on my knee and said rest.",
        &["health"],
    );
    let deploy = add(
        &mut conn,
        "Release day",
        "We were running the migration when the disk filled.",
        &["work"],
    );
    let pottery = add(
        &mut conn,
        "Sunday",
        "Cleaned the flat. Later, pottery class: centred the clay.",
        &[],
    );
    let tagged = add(&mut conn, "Quiet day", "Nothing much happened.", &["running"]);

    let found = search::hybrid_knn(&conn, USER, &SearchQuery::new("knee", 5), None).unwrap();
    assert_eq!(ids(&found), [knee]);
    assert!(matches!(found.mode, SearchMode::KeywordOnly { .. }));
    let snippet = found.hits[0].snippet.to_lowercase();
    assert!(
        snippet.contains(&format!("{HIGHLIGHT_START}knee{HIGHLIGHT_END}")),
        "{snippet:?}"
    );

    // Porter stemming: "runs" finds "running" in a body and in a tag.
    let runs = search::hybrid_knn(&conn, USER, &SearchQuery::new("runs", 5), None).unwrap();
    assert_eq!(
        ids(&runs)
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>(),
        [deploy, tagged].into()
    );
    let passing = search::hybrid_knn(
        &conn,
        USER,
        &SearchQuery::new("when did I go to pottery?", 5),
        None,
    )
    .unwrap();
    assert_eq!(ids(&passing), [pottery]);
    // Search as you type: a prefix of the last word.
    let typing = SearchQuery::new("pott", 5).typed();
    assert_eq!(
        ids(&search::hybrid_knn(&conn, USER, &typing, None).unwrap()),
        [pottery]
    );
}

#[test]
fn keyword_ranking_keeps_to_one_profile_and_shows_only_its_text() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    conn.execute(
        "INSERT INTO profiles (id, name, created_at) VALUES (2, 'Other', '2026-01-01T00:00:00Z')",
        [],
    )
    .unwrap();
    // The other profile's entries match better (the word in the title), so FTS5's own
    // top places are theirs and the ranking has to filter before it ranks.
    for i in 0..30 {
        entries::create(
            &mut conn,
            2,
            &NewEntry {
                title: "Glaze glaze".into(),
                body: format!("Other profile's glaze notes {i}."),
                ..Default::default()
            },
        )
        .unwrap();
    }
    let mine = add(&mut conn, "Pottery", "Tried a celadon glaze today.", &[]);
    let found = search::hybrid_knn(&conn, USER, &SearchQuery::new("glaze", 5), None).unwrap();
    assert_eq!(ids(&found), [mine]);
    assert_eq!(
        found.hits[0].snippet,
        format!("Tried a celadon {HIGHLIGHT_START}glaze{HIGHLIGHT_END} today.")
    );
}

#[test]
fn typed_words_put_entries_with_all_of_them_first() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    // BM25 alone puts the entry that repeats one word first.
    let one_word = add(
        &mut conn,
        "River river river",
        "River, river and more river.",
        &[],
    );
    let both = add(
        &mut conn,
        "Notes",
        "A long day; later a short run along the river.",
        &[],
    );
    let other_word = add(&mut conn, "Run", "Run.", &[]);
    let asked = search::hybrid_knn(&conn, USER, &SearchQuery::new("river run", 5), None).unwrap();
    assert_eq!(ids(&asked)[0], one_word);
    let typed = SearchQuery::new("river run", 5).typed();
    let found = search::hybrid_knn(&conn, USER, &typed, None).unwrap();
    assert_eq!(ids(&found)[0], both);
    assert_eq!(
        ids(&found)[1..]
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>(),
        [one_word, other_word].into()
    );
    // Scores go down the list, whichever way it was ranked.
    assert!(found.hits.windows(2).all(|w| w[0].score > w[1].score));
}

#[test]
fn ranking_split_over_connections_matches_one_connection() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(&mut conn, USER, &DemoOptions::fixed(5_000, 7)).unwrap();
    let mut helpers = RankingConnections::default();
    for text in ["knee", "river run", "glaze deployment", "priya"] {
        let words = QueryWords::parse(text, LastWord::Whole).unwrap();
        let rank = |helpers: &mut RankingConnections, limit| {
            keyword::rank(
                &conn,
                helpers,
                USER,
                &words,
                &SearchFilter::default(),
                limit,
                Matching::AnyWord,
            )
            .unwrap()
        };
        let alone = rank(&mut RankingConnections::none(), 200);
        assert!(!alone.is_empty(), "{text}");
        assert_eq!(rank(&mut helpers, 200), alone, "{text}");
        assert_eq!(rank(&mut helpers, 7), alone[..7.min(alone.len())], "{text}");
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(helpers.opened(), cores.min(4) - 1, "the ranking was split");
}

#[test]
fn hostile_queries_never_error() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    add(
        &mut conn,
        "Quotes \"and\" stars*",
        "NEAR(this, that) AND OR NOT - ^ : title:body",
        &[],
    );
    let long = "x ".repeat(500);
    let hostile = [
        "\"",
        "\"\"\"",
        "*",
        "-",
        "^",
        "NEAR(",
        "NEAR(a b",
        "a OR",
        "OR",
        "AND NOT",
        "title:",
        "body:knee",
        "(((",
        ")))",
        "'; DROP TABLE journal_entries; --",
        "\0",
        "\u{202e}gnirts",
        "🙂🙂",
        "a\"b*c",
        "{title}: x",
        "   ",
        "",
        long.as_str(),
        "ß Ünïcödé",
        "1e10",
        "NEAR/2",
        "+",
        "col:row",
        "\u{2}\u{3}",
    ];
    for text in hostile {
        for last_word in [
            search::keyword::LastWord::Whole,
            search::keyword::LastWord::Prefix,
        ] {
            let mut query = SearchQuery::new(text, 5);
            query.last_word = last_word;
            let outcome = search::hybrid_knn(&conn, USER, &query, None);
            assert!(outcome.is_ok(), "{text:?}: {outcome:?}");
        }
    }
    let found = search::hybrid_knn(&conn, USER, &SearchQuery::new("near", 5), None).unwrap();
    assert_eq!(found.hits.len(), 1);
}

#[test]
fn vectors_round_trip_and_both_paths_agree() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    assert!(vec_extension::extension_version(&conn).is_some());
    let dim = 48;
    let mut ids_by_seed = Vec::new();
    for seed in 0..200u64 {
        let id = add(&mut conn, &format!("Entry {seed}"), "plain words", &[]);
        vectors::store_embedding(&conn, USER, id, "test-model", &fake_vector(seed, dim)).unwrap();
        ids_by_seed.push(id);
    }
    let model = vectors::active_model(&conn, USER).unwrap().unwrap();
    assert_eq!(
        (model.model.as_str(), model.dim, model.is_active()),
        ("test-model", dim, true)
    );

    let mut cache = VectorCache::default();
    cache.refresh(&conn, USER).unwrap();
    assert_eq!(cache.len(), 200);
    // Scaled queries: normalisation makes length irrelevant.
    for seed in [3u64, 77, 150] {
        let query: Vec<f32> = fake_vector(seed, dim).iter().map(|x| x * 7.5).collect();
        let ours: Vec<i64> = cache
            .search(&conn, &query, 10, &SearchFilter::default())
            .unwrap()
            .iter()
            .map(|h| h.0)
            .collect();
        assert_eq!(ours[0], ids_by_seed[seed as usize]);
        let theirs: Vec<i64> = knn_sqlite_vec(&conn, USER, &model, &query, 10, &SearchFilter::default())
            .unwrap()
            .iter()
            .map(|h| h.0)
            .collect();
        assert_eq!(ours, theirs, "exact scan and sqlite-vec KNN give the same top 10");
        // And the same order as cosine distance computed by sqlite-vec itself.
        let mut stmt = conn
            .prepare(&format!(
                "SELECT entry_id FROM vec_entries_{} ORDER BY vec_distance_cosine(embedding, ?1) LIMIT 10",
                model.id
            ))
            .unwrap();
        let blob: Vec<u8> = query.iter().flat_map(|x| x.to_le_bytes()).collect();
        let cosine: Vec<i64> = stmt
            .query_map([blob], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(ours, cosine, "L2 on normalised vectors ranks as cosine does");
    }
}

#[test]
fn questions_go_by_meaning_and_keywords_settle_near_ties() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    // Unit vectors at a chosen cosine similarity to the question's [1, 0, 0].
    let at = |cosine: f32| [cosine, (1.0 - cosine * cosine).sqrt(), 0.0];
    let closest = add(&mut conn, "Garden notes", "Watered the beans before work.", &[]);
    let near_tie = add(&mut conn, "Shed", "Fixed the allotment shed door.", &[]);
    let far = add(
        &mut conn,
        "Allotment",
        "Allotment rent, allotment rota, allotment keys.",
        &[],
    );
    for (id, cosine) in [(closest, 0.80), (near_tie, 0.79), (far, 0.30)] {
        vectors::store_embedding(&conn, USER, id, "m", &at(cosine)).unwrap();
    }
    let query = SearchQuery::new("allotment", 5);
    let question = [1.0, 0.0, 0.0];
    let scanned = Searcher::default()
        .hybrid(&conn, USER, &query, Some(&question))
        .unwrap();
    // A keyword match lifts an entry past one a hundredth closer in meaning, but not
    // past one half a unit closer, however well it matches.
    assert_eq!(ids(&scanned), [near_tie, closest, far]);
    assert_eq!(scanned.mode, SearchMode::Hybrid);
    assert!(scanned.hits[0].score > 0.79 && scanned.hits[0].score <= 0.79 + 0.02 + 1e-6);
    assert!(
        (scanned.hits[1].score - 0.80).abs() < 1e-6,
        "no keyword match, similarity alone"
    );
    // sqlite-vec's KNN reports L2 distances, turned into the same similarities.
    let knn = search::hybrid_knn(&conn, USER, &query, Some(&question)).unwrap();
    assert_eq!(ids(&knn), ids(&scanned));
    for (a, b) in knn.hits.iter().zip(&scanned.hits) {
        assert!((a.score - b.score).abs() < 1e-5, "{} vs {}", a.score, b.score);
    }
}

/// The app's Ask thread searches the reader's vector copy from a connection of its own
/// (`hybrid_shared`): the same answer as the reader's, one copy in memory, and a write
/// either thread's refresh reads is in it for both.
#[test]
fn a_vector_copy_shared_with_another_connection_answers_alike() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let asking = journal.open();
    let at = |cosine: f32| [cosine, (1.0 - cosine * cosine).sqrt(), 0.0];
    let first = add(&mut conn, "Garden notes", "Watered the beans.", &[]);
    let second = add(&mut conn, "Shed", "Fixed the allotment shed door.", &[]);
    for (id, cosine) in [(first, 0.9), (second, 0.5)] {
        vectors::store_embedding(&conn, USER, id, "m", &at(cosine)).unwrap();
    }
    let shared = search::shared_vectors(false);
    let mut reader = Searcher::sharing(std::sync::Arc::clone(&shared), None);
    let query = SearchQuery::new("allotment", 5);
    let question = [1.0, 0.0, 0.0];
    let by_reader = reader.hybrid(&conn, USER, &query, Some(&question)).unwrap();
    let by_asking = search::hybrid_shared(&asking, USER, &query, Some(&question), &shared).unwrap();
    assert_eq!(by_reader, by_asking);
    assert_eq!(reader.cache().len(), 2);

    // A new entry, read into the copy by the asking side's refresh: the reader's
    // searches have it too, without a second load.
    let third = add(&mut conn, "Beans", "Picked the first beans.", &[]);
    vectors::store_embedding(&conn, USER, third, "m", &at(0.99)).unwrap();
    let by_asking = search::hybrid_shared(&asking, USER, &query, Some(&question), &shared).unwrap();
    assert_eq!(by_asking.hits[0].entry_id, third);
    assert_eq!(reader.cache().len(), 3);
    let by_reader = reader.hybrid(&conn, USER, &query, Some(&question)).unwrap();
    assert_eq!(by_reader, by_asking);
}

#[test]
fn trash_and_purge_take_vectors_and_text_out_of_search() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let reader = journal.open();
    let mut searcher = Searcher::default();
    let a = add(&mut conn, "Allotment", "Planted beans along the fence.", &[]);
    let b = add(&mut conn, "Allotment again", "The beans are climbing.", &[]);
    for (id, seed) in [(a, 1), (b, 2)] {
        vectors::store_embedding(&conn, USER, id, "m", &fake_vector(seed, 16)).unwrap();
    }
    // Random vectors mean nothing: no relevance floor, only what trash and purge take out.
    let query = SearchQuery {
        floor: false,
        ..SearchQuery::new("beans", 5)
    };
    let both = searcher
        .hybrid(&reader, USER, &query, Some(&fake_vector(1, 16)))
        .unwrap();
    assert_eq!(both.mode, SearchMode::Hybrid);
    assert_eq!(ids(&both), [a, b]);

    entries::soft_delete(&mut conn, USER, a).unwrap();
    let after_trash = searcher
        .hybrid(&reader, USER, &query, Some(&fake_vector(1, 16)))
        .unwrap();
    assert_eq!(
        ids(&after_trash),
        [b],
        "no keyword or vector hit for a trashed entry"
    );
    assert_eq!(searcher.cache().len(), 1, "the cache caught up with the removal");

    entries::restore(&mut conn, USER, a).unwrap();
    let queued: i64 = conn
        .query_row(
            "SELECT count(*) FROM ai_jobs WHERE entry_id = ?1 AND kind = 'embed'",
            [a],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(queued, 1, "restoring queues the embedding again");
    let restored = searcher.hybrid(&reader, USER, &query, None).unwrap();
    assert_eq!(ids(&restored).len(), 2, "restored text is searchable again");

    entries::purge(&mut conn, USER, b, Duration::from_secs(1)).unwrap();
    let model = vectors::active_model(&conn, USER).unwrap().unwrap();
    let left: i64 = conn
        .query_row(
            &format!("SELECT count(*) FROM vec_entries_{}", model.id),
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
    assert_eq!(ids(&searcher.hybrid(&reader, USER, &query, None).unwrap()), [a]);
}

/// The entries `jobs::queue_missing_embeddings` queues for the model "new", from an empty
/// queue (the saves queued jobs of their own).
fn queued_for_new_model(conn: &rusqlite::Connection) -> Vec<i64> {
    conn.execute("DELETE FROM ai_jobs", []).unwrap();
    jobs::queue_missing_embeddings(conn, USER, "new").unwrap();
    let mut stmt = conn
        .prepare("SELECT entry_id FROM ai_jobs WHERE kind = 'embed' ORDER BY entry_id")
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn a_new_model_builds_beside_the_old_and_replaces_it_when_complete() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let ids: Vec<i64> = (0..5)
        .map(|i| add(&mut conn, &format!("e{i}"), "text", &[]))
        .collect();
    for (i, id) in ids.iter().enumerate() {
        vectors::store_embedding(&conn, USER, *id, "old", &fake_vector(i as u64, 8)).unwrap();
    }
    assert_eq!(queued_for_new_model(&conn), ids);
    for (i, id) in ids.iter().take(3).enumerate() {
        vectors::store_embedding(&conn, USER, *id, "new", &fake_vector(i as u64, 4)).unwrap();
    }
    // Half-built: search still uses the old model only.
    assert_eq!(vectors::active_model(&conn, USER).unwrap().unwrap().model, "old");
    let building = vectors::models(&conn, USER)
        .unwrap()
        .into_iter()
        .find(|m| m.model == "new")
        .unwrap();
    assert_eq!(vectors::coverage(&conn, USER, &building).unwrap(), (3, 5));
    // Resumable: only the remaining entries are queued.
    assert_eq!(queued_for_new_model(&conn), ids[3..]);
    let mut cache = VectorCache::default();
    cache.refresh(&conn, USER).unwrap();
    assert_eq!(cache.model().unwrap().dim, 8);

    for (i, id) in ids.iter().enumerate().skip(3) {
        vectors::store_embedding(&conn, USER, *id, "new", &fake_vector(i as u64, 4)).unwrap();
    }
    let models = vectors::models(&conn, USER).unwrap();
    assert_eq!(models.len(), 1);
    assert_eq!((models[0].model.as_str(), models[0].is_active()), ("new", true));
    cache.refresh(&conn, USER).unwrap();
    assert_eq!((cache.model().unwrap().dim, cache.len()), (4, 5));
    // A model cannot change its dimension behind our back.
    assert!(vectors::store_embedding(&conn, USER, ids[0], "new", &fake_vector(1, 6)).is_err());
}

#[test]
fn without_the_extension_the_journal_opens_and_keyword_search_works() {
    let journal = TempJournal::new();
    {
        let mut conn = journal.open();
        let id = add(&mut conn, "Lisbon", "Sardines by the harbour.", &[]);
        vectors::store_embedding(&conn, USER, id, "m", &fake_vector(1, 8)).unwrap();
    }
    let options = StorageOptions {
        vector_extension: false,
        ..Default::default()
    };
    let mut conn = db::open(&journal.path, &options).unwrap();
    assert!(vec_extension::extension_version(&conn).is_none());
    let outcome = Searcher::default()
        .hybrid(
            &conn,
            USER,
            &SearchQuery::new("sardines", 5),
            Some(&fake_vector(1, 8)),
        )
        .unwrap();
    assert_eq!(outcome.hits.len(), 1);
    match outcome.mode {
        SearchMode::KeywordOnly { reason } => assert!(reason.contains("sqlite-vec"), "{reason}"),
        other => panic!("expected keyword-only, got {other:?}"),
    }
    // Writing and trashing still work without the extension.
    let id = add(&mut conn, "More", "words", &[]);
    entries::soft_delete(&mut conn, USER, id).unwrap();
}

#[test]
fn dates_in_questions_filter_results() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let at = |y, m, d| {
        chrono::Local
            .with_ymd_and_hms(y, m, d, 12, 0, 0)
            .unwrap()
            .fixed_offset()
    };
    let mut dated = |title: &str, when| {
        entries::create(
            &mut conn,
            USER,
            &NewEntry {
                title: title.into(),
                body: "A walk in the park.".into(),
                created_at: Some(when),
                ..Default::default()
            },
        )
        .unwrap()
    };
    let march = dated("March walk", at(2026, 3, 10));
    let april = dated("April walk", at(2026, 4, 2));
    let _june = dated("June walk", at(2026, 6, 14));
    let now = chrono::Local.with_ymd_and_hms(2026, 6, 15, 20, 0, 0).unwrap();

    let (query, range) = SearchQuery::from_text("Where did I walk last March?", now, 5);
    assert_eq!(range.unwrap().matched, "last March");
    assert_eq!(
        ids(&search::hybrid_knn(&conn, USER, &query, None).unwrap()),
        [march]
    );

    let (query, _) = SearchQuery::from_text("What did I write in April 2026?", now, 5);
    let outcome = search::hybrid_knn(&conn, USER, &query, None).unwrap();
    assert_eq!(outcome.mode, SearchMode::DateOnly);
    assert_eq!(ids(&outcome), [april]);
}

#[test]
fn edits_reindex_title_body_and_tags_once() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let id = add(&mut conn, "Harbour", "Fishing boats at dawn.", &["sea"]);
    let found = |conn: &rusqlite::Connection, text: &str| {
        ids(&search::hybrid_knn(conn, USER, &SearchQuery::new(text, 5), None).unwrap())
    };
    assert_eq!(found(&conn, "sea"), [id]);
    entries::update(
        &mut conn,
        USER,
        id,
        &entries::EntryEdit {
            title: "Market".into(),
            body: "Oranges and bread.".into(),
            tags: vec!["food".into()],
            mood_score: None,
        },
    )
    .unwrap();
    for gone in ["sea", "harbour", "fishing"] {
        assert!(found(&conn, gone).is_empty(), "{gone} still indexed");
    }
    for now in ["food", "market", "oranges"] {
        assert_eq!(found(&conn, now), [id], "{now} not indexed");
    }
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM entries_fts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 1);
    // Editing a trashed entry leaves it out of the index until it is restored.
    entries::soft_delete(&mut conn, USER, id).unwrap();
    let edit = entries::EntryEdit {
        title: "Market".into(),
        body: "Plums.".into(),
        tags: vec![],
        mood_score: None,
    };
    entries::update(&mut conn, USER, id, &edit).unwrap();
    assert!(found(&conn, "plums").is_empty());
    entries::restore(&mut conn, USER, id).unwrap();
    assert_eq!(found(&conn, "plums"), [id]);
}

/// Words of scripts written without spaces are found where they stand in a run:
/// Japanese and Chinese by two characters or one, Korean before its particle, Thai;
/// typed into the box (a phrase) and asked as a question (its pairs); highlighted
/// alone; and the index follows trash, restore and purge.
#[test]
fn words_of_unspaced_scripts_are_found_inside_runs() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let tokyo = add(&mut conn, "旅行", "今日は東京に行った。雨だった。", &["旅"]);
    let beijing = add(&mut conn, "", "我们昨天在北京吃了烤鸭。", &[]);
    let seoul = add(&mut conn, "", "주말에 서울에서 친구를 만났다.", &[]);
    let bangkok = add(&mut conn, "", "วันนี้ไปกรุงเทพกับแม่", &[]);
    let english = add(&mut conn, "Tokyo", "Flew to Tokyo for the conference.", &[]);
    let typed = |conn: &rusqlite::Connection, text: &str| {
        ids(&search::hybrid_knn(conn, USER, &SearchQuery::new(text, 5).typed(), None).unwrap())
    };
    assert_eq!(typed(&conn, "東京"), [tokyo]);
    assert_eq!(typed(&conn, "東京に行"), [tokyo]);
    assert_eq!(
        typed(&conn, "京都"),
        Vec::<i64>::new(),
        "the pair 京に is not 京都"
    );
    assert_eq!(typed(&conn, "雨"), [tokyo], "one character");
    assert_eq!(typed(&conn, "た"), [tokyo], "one character ending a run");
    assert_eq!(typed(&conn, "北京"), [beijing]);
    assert_eq!(typed(&conn, "서울"), [seoul], "before its particle");
    assert_eq!(typed(&conn, "กรุงเทพ"), [bangkok]);
    assert_eq!(typed(&conn, "旅"), [tokyo], "a tag");
    assert_eq!(typed(&conn, "tokyo"), [english]);

    let asked = search::hybrid_knn(&conn, USER, &SearchQuery::new("北京で何を食べた？", 5), None).unwrap();
    assert_eq!(
        ids(&asked).first(),
        Some(&beijing),
        "the question's pairs rank it first"
    );
    let shown = search::hybrid_knn(&conn, USER, &SearchQuery::new("東京", 5).typed(), None).unwrap();
    assert_eq!(
        shown.hits[0].snippet,
        format!("今日は{HIGHLIGHT_START}東京{HIGHLIGHT_END}に行った。雨だった。")
    );

    entries::soft_delete(&mut conn, USER, tokyo).unwrap();
    assert_eq!(typed(&conn, "東京"), Vec::<i64>::new());
    entries::restore(&mut conn, USER, tokyo).unwrap();
    assert_eq!(typed(&conn, "東京"), [tokyo], "restored, found again");
    entries::purge(&mut conn, USER, tokyo, Duration::from_secs(1)).unwrap();
    assert_eq!(typed(&conn, "東京"), Vec::<i64>::new());
    conn.execute_batch("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, entries_fts, 'row')")
        .unwrap();
    let terms: i64 = conn
        .query_row(
            "SELECT count(*) FROM temp.terms WHERE term IN ('東京', '京に')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(terms, 0, "no pair of the purged entry is left in the index");
}

/// An entry lived at noon on `day`.
fn add_on(conn: &mut rusqlite::Connection, day: chrono::NaiveDate, title: &str, body: &str) -> i64 {
    let noon = chrono::Local
        .from_local_datetime(&day.and_hms_opt(12, 0, 0).unwrap())
        .earliest()
        .unwrap();
    let created_at = Some(noon.fixed_offset());
    add_entry(
        conn,
        title,
        body,
        NewEntry {
            created_at,
            ..Default::default()
        },
    )
}

#[test]
fn a_question_since_something_the_journal_tells_of_runs_from_that_entrys_day() {
    use mindsage_core::search::question;
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let day = |m, d| chrono::NaiveDate::from_ymd_opt(2026, m, d).unwrap();
    add_on(&mut conn, day(2, 1), "Boxes", "Packing boxes, slept badly.");
    let moved = add_on(
        &mut conn,
        day(3, 14),
        "Moving day",
        "The move is done, we moved into the flat.",
    );
    add_on(&mut conn, day(4, 2), "", "I moved the sofa again.");
    add_on(
        &mut conn,
        day(5, 9),
        "Wedding",
        "My cousin's wedding in the hills.",
    );
    let now = chrono::Local.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap();
    let read = |text: &str| question::dated(&conn, USER, text, now, 5).unwrap();

    // "since": from the day of the entry that tells of it best, the rest searched.
    let since = read("How have I slept since the move?");
    let event = since.event.clone().unwrap();
    assert_eq!((event.entry, event.day), (moved, day(3, 14)));
    assert_eq!(event.described(), "since the move (your entry of 14 March 2026)");
    assert_eq!(
        (since.query.filter.from, since.query.filter.to),
        (Some(day(3, 14)), None)
    );
    assert_eq!(
        since.query.text.split_whitespace().collect::<Vec<_>>(),
        ["How", "have", "I", "slept", "?"]
    );
    // Words as the person wrote them, in another case, and "I moved" for the move.
    assert_eq!(
        read("Since I moved, how is work?").event.unwrap().words,
        "Since I moved"
    );
    // "before" ends the day before; "after" starts the day after.
    let before = read("What did I do before my cousin's wedding?");
    assert_eq!(
        (before.query.filter.from, before.query.filter.to),
        (None, Some(day(5, 8)))
    );
    let after = read("What happened after the wedding?").query.filter;
    assert_eq!((after.from, after.to), (Some(day(5, 10)), None));

    // Times of any day, words the journal never tells of, and explicit dates are not
    // events.
    for text in [
        "How do I feel after work?",
        "What did I do before bed?",
        "What happened since the earthquake?",
        "Have I felt like this before?",
        "What has happened since then?",
    ] {
        let read = read(text);
        assert_eq!(read.event, None, "{text}");
        assert!(read.query.filter.is_empty(), "{text}");
    }
    let dated = read("What happened since March 2026?");
    assert_eq!((dated.event, dated.query.filter.from), (None, Some(day(3, 1))));
}

#[test]
fn an_event_whose_dates_leave_nothing_is_dropped_and_every_day_searched() {
    use mindsage_core::search::question;
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let day = |m, d| chrono::NaiveDate::from_ymd_opt(2026, m, d).unwrap();
    let knee = add_on(
        &mut conn,
        day(2, 3),
        "Physio",
        "My knee is better with the exercises.",
    );
    add_on(
        &mut conn,
        day(4, 9),
        "Ana",
        "Ana started treatment today, chemo every other week.",
    );
    let now = chrono::Local.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap();
    let mut searcher = Searcher::default();

    // "I started treatment" reads as Ana's: no knee after it, so every day is searched.
    let dated = question::dated(&conn, USER, "How is my knee after I started treatment?", now, 5).unwrap();
    assert!(dated.event.is_some());
    let (mut query, mut event) = (dated.query, dated.event);
    let (sources, _) = question::answer_sources(&mut query, &mut event, true, |q| {
        searcher.hybrid(&conn, USER, q, None)
    })
    .unwrap();
    assert_eq!(sources.iter().map(|s| s.entry_id).collect::<Vec<_>>(), [knee]);
    assert_eq!(event, None, "the dates it did not use are not shown");
    assert!(query.filter.from.is_none() && query.filter.to.is_none());

    // An event whose dates hold an answer keeps them.
    let dated = question::dated(&conn, USER, "What happened since she started treatment?", now, 5).unwrap();
    let (mut query, mut event) = (dated.query, dated.event);
    question::answer_sources(&mut query, &mut event, true, |q| {
        searcher.hybrid(&conn, USER, q, None)
    })
    .unwrap();
    assert!(event.is_some() && query.filter.from == Some(day(4, 9)));
}
