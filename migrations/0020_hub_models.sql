-- 0020: models read from the Hugging Face Hub (or the mirror HF_ENDPOINT
-- names), kept so that the next request, on any replica and after a
-- restart, is answered without the Hub.  One row per repository and asked
-- revision: revision '' is the default branch (refreshed after the TTL),
-- anything else is a pin that never expires.  repo_key is the id in lower
-- case (the Hub matches repository names case-insensitively); repo keeps
-- the spelling the Hub answered with.
CREATE TABLE hub_models (
        repo_key     text NOT NULL CHECK (repo_key = lower(repo_key) AND length(repo_key) <= 200),
        revision     text NOT NULL DEFAULT '' CHECK (length(revision) <= 200),
        repo         text NOT NULL CHECK (lower(repo) = repo_key),
        sha          text NOT NULL CHECK (sha ~ '^[0-9a-f]{40}$'),
        fetched_at   timestamptz NOT NULL DEFAULT now(),
        etag         text,
        config       jsonb NOT NULL CHECK (jsonb_typeof(config) = 'object'),
        safetensors  jsonb CHECK (safetensors IS NULL OR jsonb_typeof(safetensors) = 'object'),
        quantization text,
        gated        boolean NOT NULL DEFAULT false,
        PRIMARY KEY (repo_key, revision)
);
