/*
 * Seeded random numbers and byte patterns of the fault campaign.
 *
 * The draws are splitmix64 (the same stream on every platform), so a run is
 * its seed's. A pattern is a stream of bytes whose byte p is a function of
 * (key, p) alone: a range can be filled and checked wherever it lies, and a
 * transfer's data and the background around its destination are told apart
 * by their keys.
 */
#include "fc.h"

#include <string.h>

uint64_t fc_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t fc_rnd(uint64_t *rng)
{
    return fc_mix64(*rng += 0x9E3779B97F4A7C15ull);
}

uint64_t fc_below(uint64_t *rng, uint64_t n)
{
    return n ? fc_rnd(rng) % n : 0;
}

bool fc_chance(uint64_t *rng, unsigned pct)
{
    return fc_below(rng, 100) < pct;
}

uint64_t fc_xfer_rng_seed(uint64_t seed, uint64_t xfer_id)
{
    return fc_mix64(seed * 0x9E3779B97F4A7C15ull ^ fc_mix64(xfer_id + 0x5EEDu));
}

static int log2_floor(uint64_t v)
{
    int e = 0;
    while (v >>= 1)
        e++;
    return e;
}

/* Integers only, so that the draws are the same with every libm: an octave
 * [2^e, 2^(e+1)) drawn uniformly, then a value uniformly inside it. */
uint64_t fc_log_uniform(uint64_t *rng, uint64_t lo, uint64_t hi)
{
    if (lo < 1)
        lo = 1;
    if (hi <= lo)
        return lo;
    const int e0 = log2_floor(lo), e1 = log2_floor(hi);
    const int e = e0 + (int)fc_below(rng, (uint64_t)(e1 - e0 + 1));
    uint64_t a = 1ull << e, b = e >= 63 ? UINT64_MAX : (1ull << (e + 1)) - 1;
    if (a < lo)
        a = lo;
    if (b > hi)
        b = hi;
    return a + fc_below(rng, b - a + 1);
}

uint64_t fc_key_data(uint64_t seed, uint64_t xfer_id)
{
    return fc_mix64(seed ^ fc_mix64(xfer_id * 2 + 1));
}

uint64_t fc_key_background(uint64_t seed, int side)
{
    return fc_mix64(~seed ^ fc_mix64(0xB6u + (uint64_t)side));
}

/* Word w of stream `key`: bytes 8w .. 8w+7, little-endian. */
static inline uint64_t word(uint64_t key, uint64_t w)
{
    return fc_mix64(key + w * 0xD1B54A32D192ED03ull);
}

void fc_pattern_fill(uint8_t *buf, size_t len, uint64_t key, uint64_t pos)
{
    size_t i = 0;
    while (i < len && ((pos + i) & 7)) {
        buf[i] = (uint8_t)(word(key, (pos + i) >> 3) >> (8 * ((pos + i) & 7)));
        i++;
    }
    for (; i + 8 <= len; i += 8) {
        const uint64_t v = word(key, (pos + i) >> 3);
        uint8_t b[8];
        for (int k = 0; k < 8; k++)
            b[k] = (uint8_t)(v >> (8 * k));
        memcpy(buf + i, b, 8);
    }
    for (; i < len; i++)
        buf[i] = (uint8_t)(word(key, (pos + i) >> 3) >> (8 * ((pos + i) & 7)));
}

size_t fc_pattern_check(const uint8_t *buf, size_t len, uint64_t key, uint64_t pos)
{
    uint8_t want[4096];
    for (size_t done = 0; done < len;) {
        const size_t n = len - done < sizeof(want) ? len - done : sizeof(want);
        fc_pattern_fill(want, n, key, pos + done);
        if (memcmp(want, buf + done, n) != 0) {
            for (size_t k = 0; k < n; k++)
                if (want[k] != buf[done + k])
                    return done + k;
        }
        done += n;
    }
    return SIZE_MAX;
}
