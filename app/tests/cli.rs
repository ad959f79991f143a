//! The headless subcommands, run as a person would run them: the real binary on a
//! journal in a temporary folder.

#[path = "../../core/tests/ollama_server/mod.rs"]
mod ollama_server;

#[path = "../../core/tests/whisper_model/mod.rs"]
mod whisper_model;

#[path = "../../core/tests/exports/mod.rs"]
mod exports;

mod binary;

use std::path::Path;
use std::process::{Output, Stdio};

use mindsage_core::ai::{OllamaClient, enrich};
use mindsage_core::db::vectors;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries};
use mindsage_core::paths;

use binary::{command, mindsage};

/// The binary with extra environment variables (another model host, for one).
fn mindsage_with(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    command(data_dir, args)
        .envs(env.iter().copied())
        .output()
        .expect("run mindsage")
}

/// Saves an entry through the binary; its id.
fn add(data_dir: &Path, title: &str, body: &str) -> i64 {
    let added = json(&mindsage(
        data_dir,
        &["add", "--title", title, "--body", body, "--json"],
    ));
    added["id"].as_i64().expect("an id")
}

fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("valid JSON on stdout")
}

#[test]
fn a_day_of_journaling_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let seeded = json(&mindsage(dir.path(), &["seed", "--entries", "30", "--json"]));
    assert_eq!(seeded["entries"], 30);

    let added = json(&mindsage(
        dir.path(),
        &[
            "add",
            "--title",
            "Evening",
            "--body",
            "A calm walk by the sea.",
            "--tag",
            "walks",
            "--mood",
            "8",
            "--json",
        ],
    ));
    let id = added["id"].as_i64().unwrap();
    let id_text = id.to_string();

    let shown = json(&mindsage(dir.path(), &["show", &id_text, "--json"]));
    assert_eq!(shown["title"], "Evening");
    assert_eq!(shown["tags"], serde_json::json!(["walks"]));
    assert_eq!(shown["word_count"], 6);

    let by_tag = json(&mindsage(dir.path(), &["list", "--tag", "walks", "--json"]));
    assert_eq!(by_tag.as_array().unwrap().len(), 1);
    let listed = json(&mindsage(dir.path(), &["list", "--limit", "100", "--json"]));
    assert_eq!(listed.as_array().unwrap().len(), 31);

    json(&mindsage(dir.path(), &["delete", &id_text, "--json"]));
    let trash = json(&mindsage(dir.path(), &["list", "--trash", "--json"]));
    assert_eq!(trash[0]["id"], id);
    let stats = json(&mindsage(dir.path(), &["stats", "--json"]));
    assert_eq!(stats["total_entries"], 30);

    json(&mindsage(dir.path(), &["restore", &id_text, "--json"]));
    let purged = json(&mindsage(dir.path(), &["purge", &id_text, "--json"]));
    assert_eq!(purged["purged"], true);
    let gone = mindsage(dir.path(), &["show", &id_text]);
    assert_eq!(gone.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&gone.stderr).contains(&format!("entry {id} does not exist")));

    let info = json(&mindsage(dir.path(), &["info", "--json"]));
    assert_eq!(info["pragmas"]["journal_mode"], "wal");

    let text = mindsage(dir.path(), &["list", "--limit", "3"]);
    assert!(text.status.success());
    assert_eq!(String::from_utf8_lossy(&text.stdout).lines().count(), 3);
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["add", "--title", "x", "--body", "y", "--mood", "11"][..],
        &["show", "not-a-number"],
        &["list", "--from", "yesterday-ish"],
        &["frobnicate"],
    ] {
        let out = mindsage(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    let empty = mindsage(dir.path(), &["add", "--body", "   "]);
    assert_eq!(empty.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("nothing to save"));
}

#[test]
fn a_corrupt_journal_is_named_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("journal.db");
    let garbage = b"this is not a database, it is a shopping list: eggs, milk, bread.".repeat(100);
    std::fs::write(&db, &garbage).unwrap();
    let out = mindsage(dir.path(), &["list"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("journal.db") && stderr.contains("untouched"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&db).unwrap(), garbage);
}

#[test]
fn index_queues_what_entries_miss_and_wait_does_it_with_the_model() {
    let dir = tempfile::tempdir().unwrap();
    json(&mindsage(dir.path(), &["seed", "--entries", "3", "--json"]));
    let nobody = format!("http://127.0.0.1:{}", ollama_server::free_port());
    let host = [("OLLAMA_HOST", nobody.as_str())];

    // Seeded entries are bulk inserts: index finds them and queues their work.
    let status = json(&mindsage_with(dir.path(), &["index", "--json"], &host));
    assert_eq!(status["queued"], 6, "{status}");
    assert_eq!(status["counts"]["embed_pending"], 3);
    assert_eq!(status["counts"]["enrich_pending"], 3);
    let again = json(&mindsage_with(dir.path(), &["index", "--json"], &host));
    assert_eq!(again["queued"], 0, "nothing is queued twice");

    // No model: --wait says what to do and fails, and nothing is lost.
    let waited = mindsage_with(dir.path(), &["index", "--wait"], &host);
    assert!(!waited.status.success());
    let stderr = String::from_utf8_lossy(&waited.stderr);
    assert!(stderr.contains("not running"), "{stderr}");

    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(
        r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [{"match": ".", "regex": true,
            "response": "{\"title\": \"A day\", \"mood_score\": 6, \"mood_tags\": [\"calm\"], \"summary\": \"Something happened.\"}"}]}"#,
    );
    let url = server.url();
    let done = json(&mindsage_with(
        dir.path(),
        &["index", "--wait", "--json"],
        &[("OLLAMA_HOST", url.as_str())],
    ));
    assert_eq!(done["counts"]["embed_pending"], 0, "{done}");
    assert_eq!(done["counts"]["enrich_pending"], 0, "{done}");
    assert_eq!(done["counts"]["failed"], 0, "{done}");
    let listed = json(&mindsage(dir.path(), &["list", "--json"]));
    let first = listed[0]["id"].as_i64().unwrap().to_string();
    let shown = json(&mindsage(dir.path(), &["show", &first, "--json"]));
    assert_eq!(shown["summary"], "Something happened.");
}

/// The model's reply to an entry that contains `matching`, as the scripted server gives it.
fn enrichment_rule(
    matching: &str,
    people: serde_json::Value,
    places: &[&str],
    activities: &[&str],
) -> serde_json::Value {
    let reply = serde_json::json!({
        "title": "A day", "mood_score": 6, "mood_tags": ["calm"], "summary": "Something happened.",
        "people": people, "places": places, "activities": activities,
    });
    serde_json::json!({"match": matching, "response": reply.to_string()})
}

#[test]
fn the_people_and_places_entries_mention_are_remembered_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    add(dir.path(), "", "Tea with Maya, my sister, at the lake house.");
    add(
        dir.path(),
        "",
        "My sister called about the weekend. Went running after.",
    );
    let secret = add(dir.path(), "", "Lunch with Jonas at Villa Nova.");
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    let rules = [
        enrichment_rule(
            "Tea with Maya",
            serde_json::json!([{"name": "Maya", "relation": "sister"}]),
            &["the lake house"],
            &[],
        ),
        enrichment_rule(
            "My sister called",
            serde_json::json!([{"name": "my sister", "relation": "sister"}]),
            &[],
            &["Running"],
        ),
        enrichment_rule(
            "Lunch with Jonas",
            serde_json::json!([{"name": "Jonas", "relation": "friend"}]),
            &["Villa Nova"],
            &[],
        ),
    ];
    server.script(
        &serde_json::json!({"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": rules}).to_string(),
    );
    let url = server.url();
    let host = [("OLLAMA_HOST", url.as_str())];
    let done = json(&mindsage_with(dir.path(), &["index", "--wait", "--json"], &host));
    assert_eq!(done["counts"]["failed"], 0, "{done}");

    let people = json(&mindsage(dir.path(), &["people", "--json"]));
    let named = |name: &str| -> serde_json::Value {
        people
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {people}"))
    };
    let maya = named("Maya");
    assert_eq!(
        (
            maya["kind"].as_str(),
            maya["relation"].as_str(),
            maya["entries"].as_u64()
        ),
        (Some("person"), Some("sister"), Some(2))
    );
    assert_eq!(named("the lake house")["kind"], "place");
    assert_eq!(named("running")["kind"], "activity");
    assert_eq!(named("Jonas")["relation"], "friend");
    let text = String::from_utf8(mindsage(dir.path(), &["people"]).stdout).unwrap();
    assert!(text.contains("People\n  Maya (sister) · 2 entries"), "{text}");

    // An export carries them; a purge takes what only the purged entry said.
    let export = dir.path().join("journal.json");
    json(&mindsage(
        dir.path(),
        &["export", export.to_str().unwrap(), "--json"],
    ));
    let exported = std::fs::read_to_string(&export).unwrap();
    assert!(
        exported.contains(r#""phrase":"my sister""#),
        "the export names who the entries mention"
    );
    json(&mindsage(dir.path(), &["purge", &secret.to_string(), "--json"]));
    let people = json(&mindsage(dir.path(), &["people", "--json"]));
    let names: Vec<&str> = people
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Maya", "the lake house", "running"]);
}

#[test]
fn search_finds_words_and_says_when_it_could_not_use_meaning() {
    let dir = tempfile::tempdir().unwrap();
    json(&mindsage(dir.path(), &["seed", "--entries", "20", "--json"]));
    let knee = add(
        dir.path(),
        "Sore",
        "My knees ached after the long run by the river.",
    );

    // As the search box: stems match ("knee" finds "knees"), the snippet marks them, and
    // with no model running the words alone answer, saying why.
    let found = json(&mindsage(
        dir.path(),
        &["search", "knee", "--json", "--limit", "5"],
    ));
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(hits[0]["id"], knee, "{found:#}");
    assert_eq!(hits[0]["title"], "Sore");
    assert_eq!(hits[0]["matched"], serde_json::json!(["knees"]));
    assert!(hits[0]["snippet"].as_str().unwrap().contains("My knees ached"));
    assert!(hits[0]["date"].as_str().unwrap().ends_with('Z'));
    assert!(hits.len() <= 5);
    let reason = found["keyword_only"].as_str().expect("a keyword-only reason");
    assert!(reason.contains("could not be embedded"), "{reason}");

    // A half-typed last word matches, as in the search box.
    let typed = json(&mindsage(dir.path(), &["search", "ached riv", "--json"]));
    assert_eq!(typed["hits"][0]["id"], knee, "{typed:#}");

    let text = mindsage(dir.path(), &["search", "knee"]);
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(text.status.success());
    assert!(
        stdout.contains("matching words only") && stdout.contains("*knees*"),
        "{stdout}"
    );

    // Text that once stopped the reader thread is an ordinary search now.
    for query in [
        "4000000 months ago",
        "in the last 4000000000 days",
        "NEAR(\"x\" *",
    ] {
        let out = mindsage(dir.path(), &["search", query, "--json"]);
        assert!(
            out.status.success(),
            "{query}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        json(&out);
    }
}

#[test]
fn search_finds_an_entry_by_meaning_with_the_local_model() {
    let server = ollama_server::shared();
    let dir = tempfile::tempdir().unwrap();
    let knee = add(dir.path(), "Run", "My knee ached all evening after the hill run.");
    let shopping = add(
        dir.path(),
        "Market",
        "Bought eggs, bread and tomatoes at the market.",
    );
    // Saving does not queue embeddings yet (issue 12, section 2), so the vectors are made
    // here as the job runner makes them: the entry's text through the same server.
    {
        let conn = db::open(&paths::database_path(dir.path()), &StorageOptions::default()).unwrap();
        let settings = server.settings();
        let client = OllamaClient::new(&settings).unwrap();
        for id in [knee, shopping] {
            let entry = entries::get(&conn, DEFAULT_USER, id).unwrap();
            let vector = client
                .embed_blocking(&settings.embed_model, &[enrich::embedding_text(&entry)])
                .unwrap()
                .pop()
                .unwrap();
            vectors::store_embedding(&conn, DEFAULT_USER, id, &settings.embed_model, &vector).unwrap();
        }
    }
    // No word of the question is in the entry, and its meaning is close enough to pass
    // search's relevance floor ("Which joint has been giving me trouble" is not).
    let out = command(
        dir.path(),
        &["search", "which joint hurt after jogging", "--json"],
    )
    .env("OLLAMA_HOST", server.url())
    .output()
    .unwrap();
    let found = json(&out);
    assert_eq!(found["keyword_only"], serde_json::Value::Null, "{found:#}");
    assert_eq!(found["mode"], "Hybrid");
    assert_eq!(found["hits"][0]["id"], knee, "{found:#}");
}

#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    json(&mindsage(dir.path(), &["seed", "--entries", "30", "--json"]));
    for args in [
        &["stats", "--json"][..],
        &["list", "--limit", "30"],
        &["search", "walk", "--json"],
    ] {
        // The reading end is closed before the command writes, as `| head -1` closes
        // it after the first line.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = command(dir.path(), args)
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
fn a_recording_is_transcribed_and_becomes_an_entry_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let clip = whisper_model::samples().remove(0);
    let wav = clip.path.to_str().unwrap();

    // No model anywhere: a message that says where one goes, and nothing written.
    let missing = mindsage(dir.path(), &["transcribe", wav]);
    assert!(!missing.status.success());
    let told = String::from_utf8_lossy(&missing.stderr);
    assert!(
        told.contains("no Whisper model") && told.contains("models"),
        "{told}"
    );

    let model = whisper_model::tiny_en();
    let model = model.to_str().unwrap();
    let text = mindsage(dir.path(), &["transcribe", wav, "--model", model]);
    assert!(text.status.success(), "{}", String::from_utf8_lossy(&text.stderr));
    let heard = String::from_utf8_lossy(&text.stdout);
    assert!(
        mindsage_core::voice::score::missing_keywords(&heard, &clip.keywords).is_empty(),
        "{heard}"
    );

    let detail = json(&mindsage(
        dir.path(),
        &["transcribe", wav, "--model", model, "--json"],
    ));
    assert_eq!(detail["language"], "en");
    let segments = detail["segments"].as_array().unwrap();
    assert!(
        !segments.is_empty() && segments[0]["end_ms"].as_u64().unwrap() > 0,
        "{detail}"
    );

    // The models folder is where the app and the CLI look by default.
    std::fs::create_dir_all(dir.path().join("models")).unwrap();
    std::fs::copy(
        whisper_model::tiny_en(),
        dir.path().join("models/ggml-tiny.en.bin"),
    )
    .unwrap();
    let added = json(&mindsage(
        dir.path(),
        &["add", "--audio", wav, "--tag", "voice", "--json"],
    ));
    let id = added["id"].as_i64().unwrap().to_string();
    let shown = json(&mindsage(dir.path(), &["show", &id, "--json"]));
    assert!(
        mindsage_core::voice::score::missing_keywords(shown["body"].as_str().unwrap(), &clip.keywords)
            .is_empty()
    );
    assert_eq!(shown["tags"][0], "voice");

    // What a person might open by mistake: a clear error, nothing saved.
    let not_sound = dir.path().join("notes.wav");
    std::fs::write(&not_sound, "shopping list").unwrap();
    let refused = mindsage(dir.path(), &["add", "--audio", not_sound.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not a WAV file"));
    let listed = json(&mindsage(dir.path(), &["list", "--json"]));
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
}

#[test]
fn a_day_one_export_is_imported_from_the_command_line_once() {
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("Day One export.zip");
    exports::write_dayone_zip(&zip);
    let zip = zip.to_str().unwrap();

    // The preview first: what would happen, nothing written.
    let dry = mindsage(dir.path(), &["import", zip, "--dry-run"]);
    assert!(dry.status.success(), "{}", String::from_utf8_lossy(&dry.stderr));
    let dry_text = String::from_utf8_lossy(&dry.stdout);
    assert!(dry_text.contains("nothing written"), "{dry_text}");
    assert!(
        dry_text.contains(&format!("{} entries would be added", exports::DAYONE_ADDED)),
        "{dry_text}"
    );
    assert_eq!(
        json(&mindsage(dir.path(), &["list", "--json"]))
            .as_array()
            .map(Vec::len),
        Some(0)
    );

    let report = json(&mindsage(dir.path(), &["import", zip, "--json"]));
    assert_eq!(report["added"], exports::DAYONE_ADDED);
    assert_eq!(report["rejected"], exports::DAYONE_REJECTED);
    let problems = report["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["reason"].as_str().unwrap().contains("no creationDate"))
    );
    let listed = json(&mindsage(dir.path(), &["list", "--json", "--limit", "50"]));
    let titles: Vec<_> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    assert!(titles.contains(&"Pastéis in Belém"), "{titles:?}");
    assert_eq!(titles.len(), exports::DAYONE_ADDED);
    // Imported entries are found by search like any other.
    let found = json(&mindsage(dir.path(), &["search", "fado", "--json"]));
    assert!(found.to_string().contains("Second note of the minute"), "{found}");

    // The same export again: nothing doubled, and the text says so.
    let again = mindsage(dir.path(), &["import", zip]);
    let again_text = String::from_utf8_lossy(&again.stdout);
    assert!(
        again_text.contains(&format!(
            "0 entries added, {} entries already in the journal",
            exports::DAYONE_ADDED
        )),
        "{again_text}"
    );
    assert_eq!(
        json(&mindsage(dir.path(), &["list", "--json", "--limit", "50"]))
            .as_array()
            .map(Vec::len),
        Some(exports::DAYONE_ADDED)
    );

    // Something that is not an export: a clear error, nothing written.
    let wrong = dir.path().join("holiday.zip");
    std::fs::write(&wrong, "a text file named like a zip").unwrap();
    let refused = mindsage(dir.path(), &["import", wrong.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is not a zip archive"));
}

/// A Day One zip holding `files` (name, contents) and nothing else.
fn dayone_zip_of(path: &Path, files: &[(&str, &[u8])]) {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, bytes) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

#[test]
fn a_photo_the_day_one_text_shows_but_the_export_lacks_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("Day One export.zip");
    let journal = serde_json::json!({
        "metadata": { "version": "1.0" },
        "entries": [{
            "uuid": "HARBOUR00000000000000000000000001",
            "creationDate": "2024-03-02T09:00:00Z",
            "timeZone": "Europe/Lisbon",
            "text": "Harbour at dawn\n\nThe boats came in.\n\n![](dayone-moment://NOTEXPORTED)\n\nGulls everywhere.",
        }]
    });
    dayone_zip_of(&zip, &[("Travel.json", journal.to_string().as_bytes())]);

    let report = json(&mindsage(
        dir.path(),
        &["import", zip.to_str().unwrap(), "--json"],
    ));
    assert_eq!(report["added"], 1, "{report}");
    let problems = report["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["item"].as_str().unwrap().contains("HARBOUR")
                && p["reason"].as_str().unwrap().contains("photo (NOTEXPORTED)")
                && p["rejected"] == false),
        "the missing photo is reported for its entry: {report}"
    );
}

#[test]
fn an_import_with_nothing_readable_in_it_fails_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    // A Day One zip whose only journal is cut short: not JSON.
    let zip = dir.path().join("Day One export.zip");
    dayone_zip_of(&zip, &[("Journal.json", b"{\"entries\": [{\"uuid\": \"A")]);
    // A Markdown folder whose only note is not text.
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("2024-01-05 walk.md"), b"\xff\xfe\x00w\x00a\x00l\x00k").unwrap();

    for (export, why) in [(&zip, "not valid JSON"), (&notes, "not UTF-8 text")] {
        for dry_run in [true, false] {
            let mut args = vec!["import", export.to_str().unwrap()];
            if dry_run {
                args.push("--dry-run");
            }
            let output = mindsage(dir.path(), &args);
            let (stdout, stderr) = (
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr),
            );
            assert!(
                !output.status.success(),
                "{args:?} exits with an error\n{stdout}\n{stderr}"
            );
            assert!(stdout.contains(why), "the report says why: {stdout}");
            assert!(
                stderr.contains("imported from") && stderr.contains("none of its entries could be read"),
                "{stderr}"
            );
        }
    }
    assert_eq!(
        json(&mindsage(dir.path(), &["list", "--json"]))
            .as_array()
            .map(Vec::len),
        Some(0)
    );
    // An export already imported is not a failure: only one that came to nothing is.
    let good = dir.path().join("good.zip");
    exports::write_dayone_zip(&good);
    for _ in 0..2 {
        let again = mindsage(dir.path(), &["import", good.to_str().unwrap()]);
        assert!(
            again.status.success(),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
    }
}

#[test]
fn a_journal_exported_from_the_command_line_imports_into_another() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let elsewhere = dir.path().join("elsewhere");
    json(&mindsage(&home, &["seed", "--entries", "40", "--json"]));
    let file = dir.path().join("my journal.json");
    let exported = json(&mindsage(&home, &["export", file.to_str().unwrap(), "--json"]));
    assert_eq!(
        (exported["entries"].as_u64(), exported["format"].as_str()),
        (Some(40), Some("json"))
    );
    let folder = dir.path().join("notes");
    let as_markdown = json(&mindsage(&home, &["export", folder.to_str().unwrap(), "--json"]));
    assert_eq!(as_markdown["format"], "markdown");
    assert!(folder.read_dir().unwrap().count() > 40);

    let imported = json(&mindsage(
        &elsewhere,
        &["import", file.to_str().unwrap(), "--json"],
    ));
    assert_eq!(
        (imported["added"].as_u64(), imported["rejected"].as_u64()),
        (Some(40), Some(0))
    );
    let rows = |data: &Path| json(&mindsage(data, &["list", "--limit", "100", "--json"]));
    let strip_ids = |v: serde_json::Value| -> Vec<serde_json::Value> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.as_object_mut().unwrap().remove("id");
                r
            })
            .collect()
    };
    assert_eq!(strip_ids(rows(&home)), strip_ids(rows(&elsewhere)));

    // Exporting over a folder that holds other files is refused, and says why.
    let refused = mindsage(&home, &["export", folder.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("new or empty folder"));
}

#[test]
fn backup_and_restore_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    json(&mindsage(&data, &["seed", "--entries", "20", "--json"]));
    let file = dir.path().join("before the trip.db");
    let backed_up = json(&mindsage(&data, &["backup", file.to_str().unwrap(), "--json"]));
    assert_eq!(backed_up["entries"], 20);
    add(&data, "After the backup", "Written later.");
    assert_eq!(json(&mindsage(&data, &["stats", "--json"]))["total_entries"], 21);

    // A script is not asked: without --yes nothing changes, and it says how.
    let unasked = mindsage(&data, &["restore", file.to_str().unwrap()]);
    assert!(!unasked.status.success());
    assert!(
        String::from_utf8_lossy(&unasked.stderr).contains("--yes"),
        "{}",
        String::from_utf8_lossy(&unasked.stderr)
    );
    assert_eq!(json(&mindsage(&data, &["stats", "--json"]))["total_entries"], 21);

    let restored = mindsage(&data, &["restore", file.to_str().unwrap(), "--yes"]);
    assert!(
        restored.status.success(),
        "{}",
        String::from_utf8_lossy(&restored.stderr)
    );
    let said = String::from_utf8_lossy(&restored.stdout);
    assert!(said.contains("Restored 20 entries"), "{said}");
    assert!(
        said.contains("before-restore-"),
        "says where the journal as it was is: {said}"
    );
    assert_eq!(json(&mindsage(&data, &["stats", "--json"]))["total_entries"], 20);

    // The journal as it was is kept whole with the backups, and restores in turn.
    let kept: Vec<_> = std::fs::read_dir(data.join("backups"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".db"))
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("before-restore-")
        })
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    json(&mindsage(
        &data,
        &["restore", kept[0].to_str().unwrap(), "--yes", "--json"],
    ));
    let back = json(&mindsage(&data, &["list", "--json", "--limit", "50"]));
    assert!(
        back.to_string().contains("After the backup"),
        "nothing lost: {back}"
    );
    json(&mindsage(
        &data,
        &["restore", file.to_str().unwrap(), "--yes", "--json"],
    ));

    // A file that is not a backup: refused, the journal as it was.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "shopping list").unwrap();
    let refused = mindsage(&data, &["restore", notes.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("left untouched"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert_eq!(json(&mindsage(&data, &["stats", "--json"]))["total_entries"], 20);
}
