/* base/sha256.h: SHA-256 (FIPS 180-4), for cache keys and content hashes. */
#ifndef CUDOJO_BASE_SHA256_H
#define CUDOJO_BASE_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct Sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t fill;
} Sha256;

void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t len);
void sha256_final(Sha256 *s, unsigned char out[32]);
/* Hex digest of one buffer into out[65]. */
void sha256_hex(const void *data, size_t len, char out[65]);
/* Hex of a finished digest into out[65]. */
void sha256_to_hex(const unsigned char digest[32], char out[65]);

#endif
