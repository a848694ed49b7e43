/*
 * fuzz_input.h - a small data provider for structure-aware harnesses.
 *
 * libFuzzer hands a harness a byte string; these helpers read typed values
 * from its front (integers, booleans, picks from a table, short strings),
 * in the manner of LLVM's FuzzedDataProvider.  When the bytes run out
 * every reader returns zero / false / the first choice, so a harness never
 * has to check for the end: a short input simply builds a small value.
 *
 * Memory: nothing is allocated; a struct fuzz_input borrows the fuzzer's
 * buffer for one call.  Not thread-safe (one provider per run).
 */
#ifndef GPUPLAN_FUZZ_INPUT_H
#define GPUPLAN_FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fuzz_input {
        const uint8_t *p;
        size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_input *in)
{
        if (in->n == 0)
                return 0;
        in->n--;
        return *in->p++;
}

static inline uint16_t fuzz_u16(struct fuzz_input *in)
{
        uint16_t v = fuzz_u8(in);

        return (uint16_t)(v | (uint16_t)(fuzz_u8(in) << 8));
}

static inline uint32_t fuzz_u32(struct fuzz_input *in)
{
        uint32_t v = 0;

        for (int i = 0; i < 4; i++)
                v |= (uint32_t)fuzz_u8(in) << (8 * i);
        return v;
}

static inline uint64_t fuzz_u64(struct fuzz_input *in)
{
        uint64_t v = fuzz_u32(in);

        return v | (uint64_t)fuzz_u32(in) << 32;
}

static inline bool fuzz_bool(struct fuzz_input *in)
{
        return fuzz_u8(in) & 1u;
}

/* An index below n (n > 0); one byte when n <= 256, two otherwise. */
static inline size_t fuzz_pick(struct fuzz_input *in, size_t n)
{
        if (n <= 256)
                return fuzz_u8(in) % n;
        return fuzz_u16(in) % n;
}

/*
 * Copy a length-prefixed string (at most max - 1 bytes) into dst and
 * NUL-terminate it.  The bytes may contain anything but NUL, since the
 * callers hand them to C-string APIs; a NUL in the input ends the string.
 */
static inline size_t fuzz_string(struct fuzz_input *in, char *dst, size_t max)
{
        size_t want = fuzz_u8(in);
        size_t n = 0;

        if (want > max - 1)
                want = max - 1;
        while (n < want && in->n > 0) {
                char c = (char)fuzz_u8(in);
                if (c == '\0')
                        break;
                dst[n++] = c;
        }
        dst[n] = '\0';
        return n;
}

#endif
