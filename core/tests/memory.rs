//! What the journal remembers (`db::memory`): the people, places and activities the
//! model finds in entries, found again by the words the journal uses for them, the
//! person's corrections winning over the model's next reading, and all of it going with
//! a purge, into an export and back in with an import, and read again for a new model.

mod common;

use common::TempJournal;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::memory::{self, Correction, Found, Kind, Subject};
use mindsage_core::db::{DEFAULT_USER, EntryId, jobs};
use mindsage_core::export::{self, Format};
use mindsage_core::import::{self, Options};
use rusqlite::Connection;

const MODEL: &str = "a text model";

fn write(conn: &mut Connection, body: &str) -> EntryId {
    let new = NewEntry {
        body: body.into(),
        ..NewEntry::default()
    };
    entries::create(conn, DEFAULT_USER, &new).unwrap()
}

fn person(name: &str, relation: &str) -> Found {
    Found {
        kind: Kind::Person,
        name: name.into(),
        relation: relation.into(),
    }
}

fn place(name: &str) -> Found {
    Found {
        kind: Kind::Place,
        name: name.into(),
        relation: String::new(),
    }
}

/// The model's reading of an entry, written as enrichment writes it.
fn read(conn: &mut Connection, entry: EntryId, found: &[Found]) {
    let body = entries::get(conn, DEFAULT_USER, entry).unwrap().body;
    let tx = conn.transaction().unwrap();
    memory::remember(&tx, DEFAULT_USER, entry, &body, found, MODEL).unwrap();
    tx.commit().unwrap();
}

fn subject<'a>(subjects: &'a [Subject], name: &str) -> &'a Subject {
    subjects
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no {name:?} in {subjects:?}"))
}

/// The live entries that mention `subject`, newest first.
fn ids_of(conn: &Connection, subject: memory::SubjectId) -> Vec<EntryId> {
    memory::entries_of(conn, DEFAULT_USER, subject, 100)
        .unwrap()
        .into_iter()
        .map(|row| row.id)
        .collect()
}

fn names(conn: &Connection) -> Vec<(String, String, u64)> {
    memory::subjects(conn, DEFAULT_USER)
        .unwrap()
        .into_iter()
        .map(|s| (s.name, s.relation, s.entries))
        .collect()
}

#[test]
fn a_person_named_once_with_a_relation_is_found_again_by_it() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let tea = write(&mut conn, "Tea with Maya, my sister, at the lake house.");
    read(
        &mut conn,
        tea,
        &[person("Maya", "sister"), place("the lake house")],
    );
    let call = write(&mut conn, "My sister called about the weekend.");
    read(&mut conn, call, &[person("my sister", "sister")]);
    let walk = write(&mut conn, "A walk by the Lake House with Tom.");
    read(&mut conn, walk, &[place("Lake House"), person("Tom", "")]);

    let subjects = memory::subjects(&conn, DEFAULT_USER).unwrap();
    let maya = subject(&subjects, "Maya");
    assert_eq!(
        (maya.kind, maya.relation.as_str(), maya.entries),
        (Kind::Person, "sister", 2)
    );
    assert_eq!(ids_of(&conn, maya.id), [call, tea]);
    assert_eq!(subject(&subjects, "the lake house").entries, 2);
    assert_eq!(subjects.len(), 3, "{subjects:?}");
    // People first, most mentioned first.
    assert_eq!(subjects[0].name, "Maya");
    assert_eq!(
        memory::find_by_name(&conn, DEFAULT_USER, Kind::Person, "My Sister").unwrap(),
        Some(maya.id)
    );

    // Each mention keeps the entry's words and where they stand.
    let mentions = memory::of_entry(&conn, DEFAULT_USER, call).unwrap();
    assert_eq!(mentions.len(), 1);
    assert_eq!(
        (mentions[0].phrase.as_str(), mentions[0].position),
        ("my sister", Some(0))
    );
    let mentions = memory::of_entry(&conn, DEFAULT_USER, tea).unwrap();
    assert_eq!(mentions[0].name, "Maya");
    assert_eq!(mentions[0].position, Some(9));
}

#[test]
fn someone_known_only_by_a_relation_takes_their_name_when_an_entry_gives_it() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let first = write(&mut conn, "My mother rang.");
    read(&mut conn, first, &[person("my mother", "mother")]);
    let second = write(&mut conn, "Lunch with my mother, Ruth.");
    read(&mut conn, second, &[person("Ruth", "mother")]);
    assert_eq!(names(&conn), [("Ruth".to_owned(), "mother".to_owned(), 2)]);
    // Someone already named is not whoever else has that relation.
    let third = write(&mut conn, "Lunch with Ana and Tom, two friends.");
    read(
        &mut conn,
        third,
        &[person("Ana", "friend"), person("Tom", "friend")],
    );
    let owned = |name: &str, relation: &str, entries| (name.to_owned(), relation.to_owned(), entries);
    assert_eq!(
        names(&conn),
        [
            owned("Ruth", "mother", 2),
            owned("Ana", "friend", 1),
            owned("Tom", "friend", 1)
        ]
    );
}

#[test]
fn the_persons_corrections_survive_the_models_next_reading() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let a = write(&mut conn, "Mum and Sam came for dinner.");
    read(&mut conn, a, &[person("Mum", ""), person("Sam", "")]);
    let b = write(&mut conn, "My mother sent a card. Sam too.");
    read(&mut conn, b, &[person("my mother", "mother"), person("Sam", "")]);
    let c = write(&mut conn, "Sam is visiting.");
    read(&mut conn, c, &[person("Sam", "")]);
    let subjects = memory::subjects(&conn, DEFAULT_USER).unwrap();
    let (mum, mother, sam) = (
        subject(&subjects, "Mum").id,
        subject(&subjects, "my mother").id,
        subject(&subjects, "Sam").id,
    );

    // "Mum" is "my mother"; she is renamed and related; the Sam in c is another Sam.
    memory::correct(&mut conn, DEFAULT_USER, mother, &Correction::Absorb(mum)).unwrap();
    memory::correct(
        &mut conn,
        DEFAULT_USER,
        mother,
        &Correction::Rename("Ruth".into()),
    )
    .unwrap();
    let cousin = memory::correct(
        &mut conn,
        DEFAULT_USER,
        sam,
        &Correction::Split {
            entries: vec![c],
            name: "Sam (cousin)".into(),
        },
    )
    .unwrap();
    memory::correct(&mut conn, DEFAULT_USER, sam, &Correction::Hide(true)).unwrap();
    let before = names(&conn);

    // The model reads every entry again, as after an edit: nothing the person set moves.
    read(&mut conn, a, &[person("Mum", ""), person("Sam", "friend")]);
    read(&mut conn, b, &[person("my mother", "mother"), person("Sam", "")]);
    read(&mut conn, c, &[person("Sam", "cousin")]);
    assert_eq!(names(&conn), before);
    let subjects = memory::subjects(&conn, DEFAULT_USER).unwrap();
    let ruth = subject(&subjects, "Ruth");
    assert_eq!((ruth.id, ruth.entries, ruth.corrected), (mother, 2, true));
    assert_eq!(ids_of(&conn, cousin), [c]);
    let sam = subject(&subjects, "Sam");
    assert!(sam.hidden);
    assert_eq!(
        sam.relation, "",
        "the model does not relate a subject the person changed"
    );
    assert_eq!(ids_of(&conn, sam.id), [b, a]);

    // A person and a place are not one thing.
    let park = write(&mut conn, "The park.");
    read(&mut conn, park, &[place("the park")]);
    let park = subject(&memory::subjects(&conn, DEFAULT_USER).unwrap(), "the park").id;
    assert!(memory::correct(&mut conn, DEFAULT_USER, mother, &Correction::Absorb(park)).is_err());
    assert!(memory::correct(&mut conn, DEFAULT_USER, mother, &Correction::Rename(" ! ".into())).is_err());
}

#[test]
fn what_only_a_purged_entry_said_goes_with_it_and_a_trashed_one_is_not_counted() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let kept = write(&mut conn, "Tea with Maya.");
    read(&mut conn, kept, &[person("Maya", "")]);
    let secret = write(&mut conn, "Dinner with Jonas at Villa Nova.");
    read(
        &mut conn,
        secret,
        &[person("Jonas", "friend"), place("Villa Nova"), person("Maya", "")],
    );
    let renamed = write(&mut conn, "Ines again.");
    read(&mut conn, renamed, &[person("Ines", "")]);
    let ines = subject(&memory::subjects(&conn, DEFAULT_USER).unwrap(), "Ines").id;
    memory::correct(
        &mut conn,
        DEFAULT_USER,
        ines,
        &Correction::Relate("colleague".into()),
    )
    .unwrap();

    entries::soft_delete(&mut conn, DEFAULT_USER, kept).unwrap();
    assert_eq!(
        subject(&memory::subjects(&conn, DEFAULT_USER).unwrap(), "Maya").entries,
        1
    );
    entries::purge(&mut conn, DEFAULT_USER, secret, std::time::Duration::from_secs(1)).unwrap();
    entries::purge(
        &mut conn,
        DEFAULT_USER,
        renamed,
        std::time::Duration::from_secs(1),
    )
    .unwrap();
    assert_eq!(
        names(&conn),
        [
            ("Ines".to_owned(), "colleague".to_owned(), 0),
            ("Maya".to_owned(), String::new(), 0)
        ],
        "Jonas and Villa Nova went with the entry; Ines is the person's"
    );
    for table in ["memory_names", "memory_mentions"] {
        let jonas: i64 = conn
            .query_row(
                &format!(
                    "SELECT count(*) FROM {table} WHERE {}",
                    match table {
                        "memory_names" => "key = 'jonas' OR key = 'friend'",
                        _ => "phrase = 'Jonas'",
                    }
                ),
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(jonas, 0, "{table}");
    }
}

#[test]
fn entries_no_model_or_another_model_read_are_queued_again() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let ids: Vec<EntryId> = (0..3).map(|i| write(&mut conn, &format!("Entry {i}"))).collect();
    conn.execute("DELETE FROM ai_jobs", []).unwrap();
    assert_eq!(
        jobs::queue_missing_enrichment(&conn, DEFAULT_USER, MODEL).unwrap(),
        3
    );
    conn.execute("DELETE FROM ai_jobs", []).unwrap();
    for &id in &ids[..2] {
        read(&mut conn, id, &[]);
    }
    assert_eq!(
        jobs::queue_missing_enrichment(&conn, DEFAULT_USER, MODEL).unwrap(),
        1
    );
    conn.execute("DELETE FROM ai_jobs", []).unwrap();
    assert_eq!(
        jobs::queue_missing_enrichment(&conn, DEFAULT_USER, "another model").unwrap(),
        3,
        "a new model reads every entry again"
    );
}

#[test]
fn an_export_carries_the_memory_and_the_persons_corrections_into_another_journal() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let a = write(&mut conn, "Tea with Maya, my sister.");
    read(&mut conn, a, &[person("Maya", "sister"), place("Café Blau")]);
    let b = write(&mut conn, "My sister again, and Sam.");
    read(&mut conn, b, &[person("my sister", "sister"), person("Sam", "")]);
    let unread = write(&mut conn, "Nobody has read this yet.");
    let sam = subject(&memory::subjects(&conn, DEFAULT_USER).unwrap(), "Sam").id;
    memory::correct(&mut conn, DEFAULT_USER, sam, &Correction::Rename("Samuel".into())).unwrap();
    memory::correct(&mut conn, DEFAULT_USER, sam, &Correction::Hide(true)).unwrap();
    let file = journal.dir.path().join("export.json");
    export::run(&conn, DEFAULT_USER, &file, Format::Json).unwrap();

    let other = TempJournal::new();
    let mut copy = other.open();
    let mut read_back = import::open(&file).unwrap();
    import::run(
        &mut copy,
        DEFAULT_USER,
        &mut read_back,
        &Options::default(),
        &mut |_| {},
    )
    .unwrap();
    let shown = |conn: &Connection| -> Vec<(Kind, String, String, bool, bool, u64)> {
        let mut all: Vec<_> = memory::subjects(conn, DEFAULT_USER)
            .unwrap()
            .into_iter()
            .map(|s| (s.kind, s.name, s.relation, s.hidden, s.corrected, s.entries))
            .collect();
        all.sort();
        all
    };
    assert_eq!(shown(&copy), shown(&conn));
    // The entries the model read are not queued for it again; the one nobody read is.
    let queued: Vec<String> = copy
        .prepare("SELECT e.body FROM ai_jobs AS j JOIN journal_entries AS e ON e.id = j.entry_id WHERE j.kind = 'enrich'")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(queued, [entries::get(&conn, DEFAULT_USER, unread).unwrap().body]);
    // Samuel is found by the name the person gave him, in the copy too.
    assert!(
        memory::find_by_name(&copy, DEFAULT_USER, Kind::Person, "Samuel")
            .unwrap()
            .is_some()
    );
}

/// The hits' entry ids, in order.
fn hit_ids(outcome: &mindsage_core::search::SearchOutcome) -> Vec<EntryId> {
    outcome.hits.iter().map(|hit| hit.entry_id).collect()
}

#[test]
fn at_a_name_in_the_search_box_keeps_the_search_to_their_entries() {
    use mindsage_core::search::{SearchMode, Searcher};
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let tea = write(&mut conn, "Tea with Maya Lind, my sister, at the lake house.");
    read(
        &mut conn,
        tea,
        &[person("Maya Lind", "sister"), place("the lake house")],
    );
    let walk = write(&mut conn, "A walk by the lake with my sister.");
    read(&mut conn, walk, &[person("my sister", "sister")]);
    let other = write(&mut conn, "A walk by the lake with Jonas.");
    read(&mut conn, other, &[person("Jonas", "friend")]);
    let alone = write(&mut conn, "A walk by the lake, alone.");
    read(&mut conn, alone, &[]);
    let mut searcher = Searcher::default();
    let mut search = |text: &str| {
        searcher
            .search_box(&conn, DEFAULT_USER, text, chrono::Local::now(), 50, None)
            .unwrap()
    };

    // Her name alone lists her entries, newest first, however she was called.
    let hers = search("@maya");
    assert_eq!(hit_ids(&hers), [walk, tea]);
    assert_eq!(hers.mode, SearchMode::DateOnly);
    assert_eq!(hers.remembered, ["Maya Lind, whom you call your sister"]);
    assert_eq!(hit_ids(&search("@sister")), [walk, tea], "by the relation too");
    assert_eq!(hit_ids(&search("@Maya_Lind")), [walk, tea]);
    // Words search among her entries only.
    let walks = search("walk @maya");
    assert_eq!(hit_ids(&walks), [walk]);
    assert!(matches!(walks.mode, SearchMode::KeywordOnly { .. }));
    // Half typed, the name matches whom it begins; finished, only whole words.
    assert_eq!(hit_ids(&search("lake @jo")), [other]);
    assert_eq!(search("lake @jo ").not_remembered, ["jo"]);
    // A place, and two names at once.
    assert_eq!(hit_ids(&search("@lake_house")), [tea]);
    let mut both = hit_ids(&search("walk @jonas @sister"));
    both.sort();
    assert_eq!(both, [walk, other]);
    // Someone the journal does not know lists nothing and says so.
    let nobody = search("walk @zed");
    assert!(nobody.hits.is_empty());
    assert_eq!(nobody.not_remembered, ["zed"]);
    // An e-mail address is words, not a name.
    assert!(search("maya@example.org").not_remembered.is_empty());
}
