//! The encrypted copies as a run measures them: the real `mindsage-bench run` of the
//! `db` stage on a small journal, whose encrypted copy is measured by a child process of
//! its own (SQLCipher's memory wiping, once on, is on for the whole process).
//!
//! Asserts what the run holds, not a speed: every plain figure has its encrypted twin,
//! each with its ratio, and the run did not fail the check that the measuring process
//! never keyed a journal.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mindsage-bench");

#[test]
fn the_encrypted_copy_is_measured_in_a_child_and_recorded_beside_the_plain_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.json");
    let output = Command::new(BIN)
        .args([
            "run",
            "--label",
            "encrypted-test",
            "--stages",
            "db",
            "--sizes",
            "150",
        ])
        .args([
            "--samples",
            "5",
            "--warmup",
            "0",
            "--budget-s",
            "0.2",
            "--no-remeasure",
        ])
        .arg("--out")
        .arg(&out)
        .env_remove("MINDSAGE_BENCH_SLOWDOWN")
        .output()
        .expect("running mindsage-bench");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the run failed: {stderr}");
    assert!(
        stderr.contains("[db] the encrypted copies, in a process of their own"),
        "{stderr}"
    );
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let scenarios = run["scenarios"].as_array().unwrap();
    let named = |name: &str| scenarios.iter().find(|s| s["name"] == name);
    let encrypted: Vec<&serde_json::Value> = scenarios
        .iter()
        .filter(|s| s["params"]["storage"] == "encrypted")
        .collect();
    let plain = scenarios.len() - encrypted.len();
    assert!(
        plain > 20 && encrypted.len() > 40,
        "{plain} plain, {} encrypted",
        encrypted.len()
    );
    for name in [
        "list.page1",
        "search.keyword",
        "write.create",
        "open_to_first_page",
    ] {
        assert!(named(name).is_some(), "no {name}");
        let twin = named(&format!("encrypted.{name}")).unwrap_or_else(|| panic!("no encrypted.{name}"));
        assert!(
            twin["params"]["cipher"]
                .as_str()
                .unwrap()
                .starts_with("SQLCipher 4")
        );
        let ratio =
            named(&format!("encrypted.{name}.vs_plain_p95")).unwrap_or_else(|| panic!("no ratio for {name}"));
        assert!(ratio["measure"]["value"].as_f64().unwrap() > 0.0, "{ratio}");
    }
    // Recorded once each: the child's figures are the encrypted ones only.
    for s in scenarios {
        let same = scenarios
            .iter()
            .filter(|t| t["name"] == s["name"] && t["size"] == s["size"])
            .count();
        assert_eq!(same, 1, "{} recorded {same} times", s["name"]);
    }
    assert!(named("encrypted.open.key_derivation").is_some());
    assert!(named("plans.unexpected_full_scans").is_some());
    assert!(named("encrypted.plans.unexpected_full_scans").is_none());
}
