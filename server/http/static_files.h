/*
 * static_files.h - the web page's files, served from one directory.
 *
 * Paths are resolved one segment at a time with openat(O_NOFOLLOW) from a
 * directory descriptor opened at start, so no path can leave the
 * directory: "." and ".." segments, hidden files (".git") and symbolic
 * links anywhere on the path are refused with 404, and only regular files
 * are served.  "/" and "dir/" serve index.html.  Each file gets a strong
 * ETag from its size and modification time; If-None-Match gives 304.
 * Text files (html, css, js, json, svg, map) are gzip-compressed when the
 * client accepts it; compressed bytes are cached per file version (at most
 * STATIC_GZIP_CACHE_ENTRIES files), so a file is compressed once.
 *
 * Memory: static_files_open() allocates the holder, static_files_close()
 * frees it.  A struct static_file result owns an fd or a malloc'd body,
 * released with static_files_release() unless handed over to the transport.
 *
 * Thread-safety: static_files_get() may be called from any thread (the
 * gzip cache has a mutex).
 */
#ifndef GPUPLAN_HTTP_STATIC_FILES_H
#define GPUPLAN_HTTP_STATIC_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STATIC_GZIP_CACHE_ENTRIES 64
#define STATIC_GZIP_MAX_BYTES     (8u * 1024u * 1024u)

struct static_files;

struct static_file {
        int status;                /* 200, 304 or 404 */
        int fd;                    /* 200 identity: the open file; else -1 */
        unsigned char *body;       /* 200 gzip: malloc'd compressed bytes; else NULL */
        uint64_t size;             /* bytes of fd or body */
        const char *content_type;  /* static string */
        const char *cache_control; /* static string */
        bool gzip;                 /* Content-Encoding: gzip */
        char etag[64];             /* quoted strong validator */
};

/* NULL with a reason in err when dir cannot be opened as a directory. */
struct static_files *static_files_open(const char *dir, char *err, size_t errlen);
void static_files_close(struct static_files *sf);

/*
 * Resolve decoded_path ("/", "/js/main.js") and fill out.  if_none_match
 * and accept_encoding are the request headers or NULL.  Returns 0 (out
 * filled, any status), or -1 on an I/O or memory failure (answer 500).
 */
int static_files_get(struct static_files *sf, const char *decoded_path, const char *if_none_match,
                     const char *accept_encoding, struct static_file *out);

/* Close the fd / free the body of a result not handed to the transport. */
void static_files_release(struct static_file *f);

/* The Content-Type for a file name, by extension. */
const char *static_files_content_type(const char *name);

/* Whether an Accept-Encoding header value accepts gzip (q > 0). */
bool static_files_accepts_gzip(const char *accept_encoding);

/* Whether an If-None-Match value matches etag (weak comparison, RFC 9110 13.1.2). */
bool static_files_etag_matches(const char *if_none_match, const char *etag);

#endif
