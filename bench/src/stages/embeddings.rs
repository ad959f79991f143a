//! Embeddings the `vector` and `retrieval` stages measure on, computed once.
//!
//! Those stages score what search does with embeddings (recall, precision); the time the
//! server takes to make them is not their figure (the `ai` and `backfill` stages time
//! it). So each text's vector is kept in `$HOME/.cache/mindsage-bench/embeddings/`, one
//! JSON-lines file per model as served, keyed by the text's SHA-256, and later runs
//! embed only texts they have not seen. The file is named after the model and the
//! digest the server lists for it, so other weights served under the same name (an
//! alias moved to another model) start a file of their own instead of reading vectors
//! that model never made.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;

use mindsage_core::ai::health::same_model;
use mindsage_core::ai::{OllamaClient, block_on};

pub struct EmbeddingCache {
    model: String,
    path: PathBuf,
    known: HashMap<String, Vec<f32>>,
    /// Texts embedded (not found in the file) since it was opened.
    pub added: usize,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct CachedEmbedding {
    text_sha256: String,
    vector: Vec<f32>,
}

impl EmbeddingCache {
    /// The cache of `model` as `client`'s server serves it now.
    pub fn open(client: &OllamaClient, model: &str) -> anyhow::Result<EmbeddingCache> {
        let digest = block_on(client.local_models())?
            .into_iter()
            .find(|m| same_model(&m.name, model))
            .map(|m| m.digest)
            .unwrap_or_default();
        let dir = crate::paths::cache_dir().join("embeddings");
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{}.jsonl", file_name(model, &digest)));
        let mut known = HashMap::new();
        if let Ok(text) = std::fs::read_to_string(&path) {
            // A line cut short by an interrupted run is skipped and embedded again.
            for line in text.lines() {
                if let Ok(e) = serde_json::from_str::<CachedEmbedding>(line) {
                    known.insert(e.text_sha256, e.vector);
                }
            }
        }
        Ok(EmbeddingCache {
            model: model.to_owned(),
            path,
            known,
            added: 0,
        })
    }

    /// Vectors of `texts` in order, embedding (and appending to the file) only the
    /// texts not cached yet.
    pub fn embed(&mut self, client: &OllamaClient, texts: &[String]) -> anyhow::Result<Vec<Vec<f32>>> {
        let keys: Vec<String> = texts
            .iter()
            .map(|t| mindsage_core::media::sha256_hex(t.as_bytes()))
            .collect();
        // A text given twice is embedded once.
        let mut asked = std::collections::HashSet::new();
        let missing: Vec<usize> = (0..texts.len())
            .filter(|i| !self.known.contains_key(&keys[*i]) && asked.insert(&keys[*i]))
            .collect();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        // Small batches: a batch of 64 long texts outlasted the client's 180 s timeout
        // on a busy machine, losing the whole batch.
        for chunk in missing.chunks(16) {
            let batch: Vec<String> = chunk.iter().map(|i| texts[*i].clone()).collect();
            let embedded = client.embed_blocking(&self.model, &batch)?;
            anyhow::ensure!(embedded.len() == batch.len(), "one embedding per text");
            for (i, vector) in chunk.iter().zip(embedded) {
                let line = serde_json::to_string(&CachedEmbedding {
                    text_sha256: keys[*i].clone(),
                    vector: vector.clone(),
                })?;
                writeln!(file, "{line}")?;
                self.known.insert(keys[*i].clone(), vector);
                self.added += 1;
            }
        }
        Ok(keys.iter().map(|k| self.known[k].clone()).collect())
    }
}

/// "nomic-embed-text-53aa51172d14": the model's name in characters any file system
/// takes, and the first twelve of its digest's hex digits when the server gave one.
fn file_name(model: &str, digest: &str) -> String {
    let name: String = model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let digest: String = digest
        .trim_start_matches("sha256:")
        .chars()
        .filter(char::is_ascii_hexdigit)
        .take(12)
        .collect();
    match digest.is_empty() {
        true => name,
        false => format!("{name}-{digest}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_model_as_served_has_a_file_of_its_own() {
        assert_eq!(
            file_name("nomic-embed-text", "sha256:53aa51172d142c89d9"),
            "nomic-embed-text-53aa51172d14"
        );
        assert_eq!(
            file_name("all-minilm:l6-v2", "53aa51172d142c89d9"),
            "all-minilm_l6-v2-53aa51172d14"
        );
        assert_eq!(file_name("a/b", ""), "a_b");
    }
}
