//! The importers' fuzz checks (`import_input/mod.rs`) over the fuzz targets' seed corpora,
//! on stable, so `make test` runs them on every change.

mod import_input;

use import_input::{Bench, Kind};

#[test]
fn the_importers_fuzz_seed_corpora_pass() {
    let mut bench = Bench::new();
    for (folder, kind) in [
        ("import_dayone", Kind::DayOneZip),
        ("import_jrnl", Kind::Json),
        ("import_markdown", Kind::Markdown),
    ] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/corpus")
            .join(folder);
        let mut seeds: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        seeds.sort();
        assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
        for seed in seeds {
            bench.check(kind, &std::fs::read(&seed).unwrap());
        }
    }
}
