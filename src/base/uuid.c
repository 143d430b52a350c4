/* Kafka UUIDs: random ids and the 22-character URL-safe base64 text form.
 *
 * Kafka's Uuid.toString() is java.util.Base64.getUrlEncoder().withoutPadding()
 * over the 16 bytes (most significant long first, big-endian), and
 * Uuid.randomUuid() draws a version-4 UUID until it is neither the zero id,
 * the "one" id (reserved for the metadata topic) nor an id whose text starts
 * with '-' (it would look like a command-line option). */
#include "base/uuid.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void fill_random(uint8_t *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(p + got, n - got, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            abort(); /* no entropy source at all: nothing sensible to fall back to */
        }
        got += (size_t)r;
    }
}

static bool is_reserved(const gr_uuid_t *u) {
    static const gr_uuid_t one = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};
    return gr_uuid_is_zero(u) || gr_uuid_eq(u, &one) || b64url[u->b[0] >> 2] == '-';
}

gr_uuid_t gr_uuid_random(void) {
    gr_uuid_t u;
    do {
        fill_random(u.b, sizeof(u.b));
        u.b[6] = (uint8_t)((u.b[6] & 0x0f) | 0x40); /* version 4 */
        u.b[8] = (uint8_t)((u.b[8] & 0x3f) | 0x80); /* IETF variant */
    } while (is_reserved(&u));
    return u;
}

bool gr_uuid_is_zero(const gr_uuid_t *u) {
    for (size_t i = 0; i < sizeof(u->b); i++)
        if (u->b[i]) return false;
    return true;
}

bool gr_uuid_eq(const gr_uuid_t *a, const gr_uuid_t *b) { return memcmp(a->b, b->b, sizeof(a->b)) == 0; }

void gr_uuid_to_base64(const gr_uuid_t *u, char out[23]) {
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < 16; i++) {
        acc = (acc << 8) | u->b[i];
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out[o++] = b64url[(acc >> bits) & 0x3f];
        }
    }
    if (bits > 0) out[o++] = b64url[(acc << (6 - bits)) & 0x3f];
    out[o] = '\0';
}

static int b64_val(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

bool gr_uuid_from_base64(const char *s, gr_uuid_t *u) {
    if (!s || strlen(s) != 22) return false;
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < 22; i++) {
        int v = b64_val(s[i]);
        if (v < 0) return false;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            u->b[o++] = (uint8_t)(acc >> bits);
        }
    }
    /* The last character carries 4 padding bits; like Java's decoder we ignore them. */
    return o == 16;
}
