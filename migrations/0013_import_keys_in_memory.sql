-- Version 13: the import keys of version 10 lose their indexes. An import now reads
-- every key once, in id order, into memory when it starts (and the keys another import
-- added, should one write between its batches), and judges its items there. The two
-- indexes were only for a lookup per item, and their keys (another app's random ids, a
-- SHA-256) landed all over each index: every batch rewrote most of their pages, the
-- larger share of an import's writes (run `import-dec04`, the optimisation log).
DROP INDEX idx_imported_external;
DROP INDEX idx_imported_hash;
