/*
 * static_files.c - safe static file serving with ETag and gzip; see static_files.h.
 */
#include "http/static_files.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#define PATH_SEGMENTS_MAX 16

struct gz_entry {
        dev_t dev;
        ino_t ino;
        char etag[64]; /* of the identity version it was made from */
        unsigned char *data;
        size_t len;
        uint64_t last_use;
};

struct static_files {
        int root_fd;
        pthread_mutex_t mu;
        uint64_t clock;
        struct gz_entry cache[STATIC_GZIP_CACHE_ENTRIES];
};

struct static_files *static_files_open(const char *dir, char *err, size_t errlen)
{
        struct static_files *sf;
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0) {
                snprintf(err, errlen, "cannot open static directory %s: %s", dir, strerror(errno));
                return NULL;
        }
        sf = calloc(1, sizeof(*sf));
        if (!sf) {
                close(fd);
                snprintf(err, errlen, "out of memory");
                return NULL;
        }
        sf->root_fd = fd;
        pthread_mutex_init(&sf->mu, NULL);
        return sf;
}

void static_files_close(struct static_files *sf)
{
        if (!sf)
                return;
        for (unsigned i = 0; i < STATIC_GZIP_CACHE_ENTRIES; i++)
                free(sf->cache[i].data);
        pthread_mutex_destroy(&sf->mu);
        close(sf->root_fd);
        free(sf);
}

void static_files_release(struct static_file *f)
{
        if (f->fd >= 0)
                close(f->fd);
        free(f->body);
        f->fd = -1;
        f->body = NULL;
}

static const struct {
        const char *ext;
        const char *type;
        bool compress;
} types[] = {
        {".html", "text/html; charset=utf-8", true},
        {".css", "text/css; charset=utf-8", true},
        {".js", "text/javascript; charset=utf-8", true},
        {".mjs", "text/javascript; charset=utf-8", true},
        {".json", "application/json", true},
        {".map", "application/json", true},
        {".svg", "image/svg+xml", true},
        {".txt", "text/plain; charset=utf-8", true},
        {".md", "text/markdown; charset=utf-8", true},
        {".csv", "text/csv; charset=utf-8", true},
        {".yaml", "application/yaml", true}, /* RFC 9512 */
        {".png", "image/png", false},
        {".jpg", "image/jpeg", false},
        {".jpeg", "image/jpeg", false},
        {".gif", "image/gif", false},
        {".webp", "image/webp", false},
        {".ico", "image/x-icon", false},
        {".woff2", "font/woff2", false},
        {".woff", "font/woff", false},
        {".webmanifest", "application/manifest+json", true},
};

static int type_index(const char *name)
{
        const char *dot = strrchr(name, '.');

        if (!dot || strchr(dot, '/'))
                return -1;
        for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++)
                if (strcasecmp(dot, types[i].ext) == 0)
                        return (int)i;
        return -1;
}

const char *static_files_content_type(const char *name)
{
        int i = type_index(name);

        return i < 0 ? "application/octet-stream" : types[i].type;
}

/* Accept-Encoding: a list of codings with optional ;q= (RFC 9110 12.5.3). */
bool static_files_accepts_gzip(const char *ae)
{
        const char *p = ae;

        while (p && *p) {
                size_t n;
                const char *item;
                p += strspn(p, " \t,");
                item = p;
                n = strcspn(p, ",");
                p += n;
                size_t tok = strcspn(item, " \t;,");
                if ((tok == 4 && strncasecmp(item, "gzip", 4) == 0) ||
                    (tok == 1 && item[0] == '*')) {
                        const char *q = item + tok;
                        const char *end = item + n;
                        const char *qp = NULL;
                        for (const char *s = q; s + 1 < end; s++)
                                if (s[0] == 'q' && s[1] == '=' &&
                                    (s == q || s[-1] == ';' || s[-1] == ' '))
                                        qp = s + 2;
                        if (!qp)
                                return true;
                        /* q=0, q=0.0, q=0.000 refuse; anything else accepts. */
                        if (*qp != '0')
                                return true;
                        for (qp++; qp < end && (*qp == '.' || *qp == '0'); qp++)
                                ;
                        if (qp < end && *qp >= '1' && *qp <= '9')
                                return true;
                }
        }
        return false;
}

bool static_files_etag_matches(const char *inm, const char *etag)
{
        size_t el = strlen(etag);

        if (!inm)
                return false;
        while (*inm) {
                inm += strspn(inm, " \t,");
                if (*inm == '*')
                        return true;
                if (strncmp(inm, "W/", 2) == 0)
                        inm += 2;
                size_t n = strcspn(inm, ",");
                /* Trim trailing blanks of the item. */
                size_t m = n;
                while (m > 0 && (inm[m - 1] == ' ' || inm[m - 1] == '\t'))
                        m--;
                if (m == el && strncmp(inm, etag, el) == 0)
                        return true;
                inm += n;
        }
        return false;
}

/*
 * Open decoded_path below root, refusing '.', '..', hidden names and
 * symlinks at every step.  Returns an fd with *st filled, or -1 (errno
 * ENOENT for "not served", other errno for real failures).
 */
static int open_beneath(int root_fd, const char *path, struct stat *st, char *leaf, size_t leaflen)
{
        char buf[1024];
        char *segs[PATH_SEGMENTS_MAX];
        unsigned n = 0;
        size_t len = strlen(path);
        int dir;
        int fd;
        char *save = NULL;
        bool trailing = len > 0 && path[len - 1] == '/';

        if (len >= sizeof(buf) || path[0] != '/') {
                errno = ENOENT;
                return -1;
        }
        memcpy(buf, path, len + 1);
        for (char *s = strtok_r(buf, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
                if (s[0] == '.' || strchr(s, '\\') || n == PATH_SEGMENTS_MAX) {
                        errno = ENOENT;
                        return -1;
                }
                segs[n++] = s;
        }
        if (n == 0 || trailing) {
                if (n == PATH_SEGMENTS_MAX) {
                        errno = ENOENT;
                        return -1;
                }
                segs[n++] = "index.html";
        }
        dir = dup(root_fd);
        if (dir < 0)
                return -1;
        for (unsigned i = 0; i + 1 < n; i++) {
                int next = openat(dir, segs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                close(dir);
                if (next < 0) {
                        if (errno == ELOOP || errno == ENOTDIR || errno == EACCES)
                                errno = ENOENT;
                        return -1;
                }
                dir = next;
        }
        fd = openat(dir, segs[n - 1], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        close(dir);
        if (fd < 0) {
                if (errno == ELOOP || errno == ENOTDIR || errno == EACCES || errno == EISDIR)
                        errno = ENOENT;
                return -1;
        }
        if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
                close(fd);
                errno = ENOENT;
                return -1;
        }
        snprintf(leaf, leaflen, "%s", segs[n - 1]);
        return fd;
}

static int gzip_bytes(const unsigned char *in, size_t in_len, unsigned char **out, size_t *out_len)
{
        z_stream z;
        uLong bound;
        unsigned char *buf;
        int rc;

        memset(&z, 0, sizeof(z));
        /* windowBits 15 + 16: a gzip wrapper (zlib manual, deflateInit2). */
        if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
                return -1;
        bound = deflateBound(&z, (uLong)in_len);
        buf = malloc(bound);
        if (!buf) {
                deflateEnd(&z);
                return -1;
        }
        z.next_in = (Bytef *)(uintptr_t)in;
        z.avail_in = (uInt)in_len;
        z.next_out = buf;
        z.avail_out = (uInt)bound;
        rc = deflate(&z, Z_FINISH);
        *out_len = z.total_out;
        deflateEnd(&z);
        if (rc != Z_STREAM_END) {
                free(buf);
                return -1;
        }
        *out = buf;
        return 0;
}

static int read_all(int fd, unsigned char *buf, size_t len)
{
        size_t got = 0;

        while (got < len) {
                ssize_t r = pread(fd, buf + got, len - got, (off_t)got);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0)
                        return -1;
                got += (size_t)r;
        }
        return 0;
}

/*
 * A copy of the gzip version of the file, from the cache or made now.
 * Returns 0 with *out malloc'd, 1 when compression does not pay, -1 on failure.
 */
static int gzip_copy(struct static_files *sf, int fd, const struct stat *st, const char *etag,
                     unsigned char **out, size_t *out_len)
{
        struct gz_entry *e = NULL;
        struct gz_entry *victim = NULL;
        unsigned char *raw;
        unsigned char *gz;
        size_t gz_len;
        int rc = -1;

        pthread_mutex_lock(&sf->mu);
        for (unsigned i = 0; i < STATIC_GZIP_CACHE_ENTRIES; i++) {
                struct gz_entry *c = &sf->cache[i];
                if (c->etag[0] && c->dev == st->st_dev && c->ino == st->st_ino &&
                    strcmp(c->etag, etag) == 0)
                        e = c;
                if (!victim || c->last_use < victim->last_use)
                        victim = c;
        }
        if (e) {
                e->last_use = ++sf->clock;
                if (!e->data) {
                        rc = 1;
                } else if ((*out = malloc(e->len))) {
                        memcpy(*out, e->data, e->len);
                        *out_len = e->len;
                        rc = 0;
                }
                pthread_mutex_unlock(&sf->mu);
                return rc;
        }
        pthread_mutex_unlock(&sf->mu);

        raw = malloc((size_t)st->st_size ? (size_t)st->st_size : 1);
        if (!raw)
                return -1;
        if (read_all(fd, raw, (size_t)st->st_size) ||
            gzip_bytes(raw, (size_t)st->st_size, &gz, &gz_len)) {
                free(raw);
                return -1;
        }
        free(raw);
        if (gz_len >= (size_t)st->st_size) {
                /* Not worth it: remember that, serve identity. */
                free(gz);
                gz = NULL;
                gz_len = 0;
        }
        if (gz && !(*out = malloc(gz_len))) {
                free(gz);
                return -1;
        }
        if (gz) {
                memcpy(*out, gz, gz_len);
                *out_len = gz_len;
        }
        pthread_mutex_lock(&sf->mu);
        /* Another thread may have filled a slot meanwhile; the victim is still a fine choice. */
        free(victim->data);
        victim->dev = st->st_dev;
        victim->ino = st->st_ino;
        snprintf(victim->etag, sizeof(victim->etag), "%s", etag);
        victim->data = gz;
        victim->len = gz_len;
        victim->last_use = ++sf->clock;
        pthread_mutex_unlock(&sf->mu);
        return gz ? 0 : 1;
}

int static_files_get(struct static_files *sf, const char *decoded_path, const char *if_none_match,
                     const char *accept_encoding, struct static_file *out)
{
        struct stat st;
        char leaf[256];
        int ti;
        int fd;

        memset(out, 0, sizeof(*out));
        out->fd = -1;
        out->status = 404;
        fd = open_beneath(sf->root_fd, decoded_path, &st, leaf, sizeof(leaf));
        if (fd < 0)
                return errno == ENOENT || errno == ENAMETOOLONG ? 0 : -1;
        ti = type_index(leaf);
        out->content_type = ti < 0 ? "application/octet-stream" : types[ti].type;
        /* The page itself revalidates every time; assets may be reused for an hour. */
        out->cache_control =
                strcmp(out->content_type, types[0].type) == 0 ? "no-cache" : "public, max-age=3600";
        snprintf(out->etag, sizeof(out->etag), "\"%llx-%llx%09lx\"", (unsigned long long)st.st_size,
                 (unsigned long long)st.st_mtim.tv_sec, (unsigned long)st.st_mtim.tv_nsec);
        bool want_gzip = ti >= 0 && types[ti].compress && st.st_size > 256 &&
                         (uint64_t)st.st_size <= STATIC_GZIP_MAX_BYTES &&
                         static_files_accepts_gzip(accept_encoding);
        if (want_gzip) {
                /* A distinct validator for the gzip representation (RFC 9110 8.8.3). */
                char gz_etag[64];
                size_t el = strlen(out->etag);
                snprintf(gz_etag, sizeof(gz_etag), "%.*s-gz\"", (int)(el - 1), out->etag);
                if (static_files_etag_matches(if_none_match, gz_etag)) {
                        memcpy(out->etag, gz_etag, sizeof(gz_etag));
                        out->gzip = true;
                        out->status = 304;
                        close(fd);
                        return 0;
                }
                size_t len = 0;
                int rc = gzip_copy(sf, fd, &st, out->etag, &out->body, &len);
                if (rc < 0) {
                        close(fd);
                        return -1;
                }
                if (rc == 0) {
                        close(fd);
                        memcpy(out->etag, gz_etag, sizeof(gz_etag));
                        out->gzip = true;
                        out->size = len;
                        out->status = 200;
                        return 0;
                }
        }
        if (static_files_etag_matches(if_none_match, out->etag)) {
                close(fd);
                out->status = 304;
                return 0;
        }
        out->fd = fd;
        out->size = (uint64_t)st.st_size;
        out->status = 200;
        return 0;
}
