/*
 * hub.h - a client for the Hugging Face Hub's model API (or a mirror of it).
 *
 * For one repository and revision it reads
 *   GET {HF_ENDPOINT}/api/models/{repo}[/revision/{rev}]
 *       the commit sha, the gated flag and the safetensors totals by dtype;
 *   GET {HF_ENDPOINT}/{repo}/resolve/{sha}/config.json
 *       the architecture (the Hub redirects file downloads; at most
 *       HUB_MAX_REDIRECTS are followed).
 * HF_ENDPOINT and HF_TOKEN are the variables huggingface_hub reads
 * (huggingface_hub/constants.py), so a mirror and a token set for the
 * Python tools work here too.  TLS is verified (libcurl's defaults, the
 * system's CA store); only http and https are followed; every transfer has
 * a connect and a total time limit and a size cap.  The token is sent only
 * to HF_ENDPOINT's host (libcurl drops a custom Authorization header on a
 * redirect to another host).
 *
 * Memory: hub_fetch() fills a struct hub_model whose strings are malloc'd;
 * hub_model_free() frees them.  Thread-safety: hub_init() once from main
 * before any thread starts (curl_global_init); then hub_fetch() from any
 * thread, each call on its own easy handle.  hub_fetch() blocks for up to
 * the total time limit: never call it on an event-loop thread.
 */
#ifndef GPUPLAN_MODELS_HUB_H
#define GPUPLAN_MODELS_HUB_H

#include <stdbool.h>
#include <stddef.h>

#define HUB_REPO_MAX      201
#define HUB_MAX_REDIRECTS 5

struct hub_settings {
        bool enabled;               /* GPUPLAN_HUB is not "off" */
        char endpoint[256];         /* HF_ENDPOINT without a trailing slash */
        char token[512];            /* HF_TOKEN; "" = none */
        unsigned connect_timeout_s; /* GPUPLAN_HUB_CONNECT_TIMEOUT_S, default 5 */
        unsigned timeout_s;         /* GPUPLAN_HUB_TIMEOUT_S, default 20: both requests together */
        size_t max_bytes;           /* GPUPLAN_HUB_MAX_BYTES, default 2 MiB per answer */
        unsigned ttl_s;             /* GPUPLAN_HUB_TTL_S, default 7 days: refresh a branch after */
};

/* Read the settings above from the environment.  0, or -1 with a reason. */
int hub_settings_from_env(struct hub_settings *s, char *err, size_t errlen);

/* curl_global_init; once, before threads.  0, or -1. */
int hub_init(void);
void hub_cleanup(void);

enum hub_result {
        HUB_OK = 0,
        HUB_NOT_FOUND,          /* no such repository (or not visible without a token) */
        HUB_REVISION_NOT_FOUND, /* the repository exists, the revision does not */
        HUB_GATED,              /* the files need a token with access (401/403) */
        HUB_TIMEOUT,            /* no complete answer within the time limit */
        HUB_UNREACHABLE,        /* could not connect, TLS failed, or a 5xx */
        HUB_TOO_LARGE,          /* an answer above max_bytes */
        HUB_BAD_ANSWER,         /* not the JSON expected, or too many redirects */
        HUB_NOT_MODIFIED,       /* 304: config.json still has the ETag asked about */
};

struct hub_model {
        char repo[HUB_REPO_MAX]; /* as the Hub spells it */
        char sha[41];            /* the commit read */
        char etag[129];          /* config.json's ETag; "" if none */
        bool gated;
        char *config;      /* config.json text, a JSON object */
        char *safetensors; /* {"parameters": {...}, "total": n} text, or NULL */
};

/* True for "org/name" as the Hub allows it (letters, digits, '.', '_', '-'). */
bool hub_repo_valid(const char *repo);

/*
 * Read repo at revision (NULL or "" = the default branch) into out.
 * Returns HUB_OK, or another hub_result with a one-line reason in why
 * (what the Hub said, or how long it waited).
 */
enum hub_result hub_fetch(const struct hub_settings *s, const char *repo, const char *revision,
                          struct hub_model *out, char *why, size_t whylen);

void hub_model_free(struct hub_model *m);

/*
 * Has repo's config.json at revision (NULL or "" = the default branch)
 * changed since it had etag?  One conditional GET of
 * {HF_ENDPOINT}/{repo}/resolve/{revision}/config.json with If-None-Match:
 * etag (RFC 9110 section 13.1.2), redirects followed.  Returns
 * HUB_NOT_MODIFIED when the Hub answers 304, HUB_OK when it sends the file
 * (changed: read it again with hub_fetch), or a failure with why.
 */
enum hub_result hub_config_unchanged(const struct hub_settings *s, const char *repo,
                                     const char *revision, const char *etag, char *why,
                                     size_t whylen);

#endif
