//! `search` and `ask`: the journal found by words and meaning, and questions answered
//! from it by the local model, on the command line.

use std::io::Write;

use anyhow::Result;
use chrono::Local;

use mindsage_core::ai::{OllamaClient, search_box};
use mindsage_core::db::{DEFAULT_USER, StorageOptions};
use mindsage_core::search::snippet;
use mindsage_core::search::{SearchMode, Searcher};

use super::entries::{day_of, lived_day};
use super::{Args, ai_settings, print};

/// The search box's search ([`search_box::search`]); without the model, words only and
/// a line saying why.
pub(super) fn search(
    args: &Args,
    conn: &rusqlite::Connection,
    options: &StorageOptions,
    query: &str,
    limit: u16,
) -> Result<()> {
    let client = OllamaClient::new(&ai_settings(args)?);
    let outcome = search_box::search(
        &client,
        &mut Searcher::with_key(options.key.clone()),
        conn,
        DEFAULT_USER,
        query,
        Local::now(),
        usize::from(limit),
    )?;
    let keyword_only = match &outcome.mode {
        SearchMode::KeywordOnly { reason } => Some(reason.as_str()),
        SearchMode::Hybrid | SearchMode::DateOnly => None,
    };
    let hits: Vec<_> = outcome
        .hits
        .iter()
        .map(|hit| {
            serde_json::json!({
                "id": hit.entry_id,
                "date": hit.created_at,
                "utc_offset": hit.utc_offset,
                "title": hit.title,
                "snippet": snippet::parts(&hit.snippet).map(|(part, _)| part).collect::<String>(),
                "matched": snippet::parts(&hit.snippet)
                    .filter_map(|(part, matched)| matched.then_some(part))
                    .collect::<Vec<_>>(),
                "score": hit.score,
            })
        })
        .collect();
    let report = serde_json::json!({
        "query": query,
        "mode": outcome.mode,
        "keyword_only": keyword_only,
        "remembered": outcome.remembered,
        "not_remembered": outcome.not_remembered,
        "hits": hits,
    });
    print(args, &report, || {
        let mut lines: Vec<String> = keyword_only
            .map(|reason| format!("(matching words only: {reason})"))
            .into_iter()
            .collect();
        if !outcome.not_remembered.is_empty() {
            return crate::wording::not_remembered(&outcome.not_remembered);
        }
        if !outcome.remembered.is_empty() {
            lines.push(crate::wording::entries_with(&outcome.remembered));
        }
        if outcome.hits.is_empty() {
            lines.push("no close matches".to_owned());
        }
        for hit in &outcome.hits {
            let title = crate::wording::entry_title(&hit.title, "");
            let snippet: String = snippet::parts(&hit.snippet)
                .map(|(part, matched)| match matched {
                    true => format!("*{part}*"),
                    false => part.to_owned(),
                })
                .collect();
            lines.push(format!(
                "{:>6}  {}  {title}\n        {snippet}",
                hit.entry_id,
                lived_day(hit.lived(), &hit.created_at)
            ));
        }
        lines.join("\n")
    })
}

/// Streams the answer as it is written; `Reset` (a retried call) starts it on a new
/// line, since text already printed cannot be taken back. Saves the exchange as a chat.
pub(super) fn ask(args: &Args, conn: &mut rusqlite::Connection, question: &str, timings: bool) -> Result<()> {
    use mindsage_core::ai::ask::{self as pipeline, AskEvent};

    let client = OllamaClient::new(&ai_settings(args)?)?;
    let stream = !args.json;
    let mut emit = |event: AskEvent| {
        let mut out = std::io::stdout().lock();
        let _ = match event {
            AskEvent::Token(text) if stream => write!(out, "{text}").and_then(|()| out.flush()),
            AskEvent::Reset if stream => writeln!(out, "\n(the answer broke off; asking again)"),
            _ => Ok(()),
        };
    };
    // One question: sqlite-vec's KNN reads the vectors once, as loading a copy would.
    let answer = mindsage_core::ai::block_on(pipeline::ask(
        &client,
        conn,
        None,
        DEFAULT_USER,
        question.into(),
        Local::now(),
        &mut emit,
    ))?;
    pipeline::save_chat(conn, DEFAULT_USER, None, &answer)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&answer)?)?;
        return Ok(());
    }
    writeln!(out)?;
    if !answer.remembered.is_empty() {
        writeln!(out, "\nremembered: {}", answer.remembered.join("; "))?;
    }
    if !answer.sources.is_empty() {
        writeln!(out, "\nsources:")?;
        for s in &answer.sources {
            writeln!(out, "  #{} {}  {}", s.entry_id, day_of(&s.created_at), s.title)?;
        }
    }
    if timings {
        let t = &answer.cost.timings;
        let ms = |d: std::time::Duration| format!("{:.0} ms", d.as_secs_f64() * 1000.0);
        writeln!(out, "\ntimings:")?;
        for (name, d) in [
            ("plan", t.plan),
            ("embed", t.embed),
            ("search", t.search),
            ("answer", t.answer),
        ] {
            writeln!(out, "  {name:<12} {}", ms(d))?;
        }
        writeln!(
            out,
            "  {:<12} {}",
            "first token",
            t.first_token.map_or("-".into(), ms)
        )?;
        writeln!(out, "  {:<12} {}", "total", ms(t.total))?;
        writeln!(out, "  {:<12} {}", "overhead", ms(t.overhead))?;
        writeln!(
            out,
            "  {:<12} {}{}",
            "model calls",
            answer.cost.model_calls,
            if answer.cost.planned_locally {
                " (planned locally)"
            } else {
                ""
            }
        )?;
    }
    Ok(())
}
