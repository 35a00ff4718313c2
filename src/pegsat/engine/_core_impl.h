/* The compiled core, written once for positions of W 64-bit words (included twice by _core.c,
 * with W = 1 and W = 2). POS is the position type, SFX() names the functions of one width.
 *
 * Everything here works on flat arrays: positions are little-endian words (a W = 2 position
 * is its low word then its high word, which is how an unsigned __int128 sits in memory).
 * This file holds what both halves use (loads, stores, images, canonical forms); the bulk
 * level operations are in _levels_impl.h, the depth-first search in _dfs_impl.h. */

#define POS_BYTES (8 * W)

static inline POS SFX(load)(const char *p) { POS x; memcpy(&x, p, sizeof(POS)); return x; }
static inline void SFX(store)(char *p, POS x) { memcpy(p, &x, sizeof(POS)); }

static inline int SFX(popcount)(POS x) {
#if W == 1
    return __builtin_popcountll(x);
#else
    return __builtin_popcountll((uint64_t)x) + __builtin_popcountll((uint64_t)(x >> 64));
#endif
}

static inline uint64_t SFX(hash)(POS x) {
#if W == 1
    return x * 0x9E3779B97F4A7C15ull;
#else
    uint64_t lo = (uint64_t)x, hi = (uint64_t)(x >> 64);
    return (lo ^ (hi * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull;
#endif
}

/* The least image of a position under the group (identity first in the tables). */
static inline POS SFX(canon)(const CoreBoard *b, POS pos) {
    const POS *t = (const POS *)SFX(tables)(b);
    const int nc = b->nchunks, cb = b->cbits, size = 1 << cb;
    const unsigned cmask = (unsigned)size - 1;
    POS best = pos;
    for (int g = 1; g < b->G; g++) {
        const POS *tg = t + (size_t)g * nc * size;
        POS out = 0, p = pos;
        for (int i = 0; i < nc; i++) { out |= tg[i * size + (int)((unsigned)p & cmask)]; p >>= cb; }
        if (out < best) best = out;
    }
    return best;
}

/* Symmetries act on positions as permutations of bits, so they commute with XOR: the image of
 * a successor pos ^ flip[k] under g is img_g(pos) ^ img_g(flip[k]). ``images`` fills the G
 * images of one position by the lookup tables (identity first); ``canon_by`` then gives the
 * canonical form of each successor from them with G XORs and no table look-ups, and a child's
 * images follow from its parent's the same way (the depth-first search keeps them per depth). */
static inline void SFX(images)(const CoreBoard *b, POS pos, POS *img) {
    const POS *t = (const POS *)SFX(tables)(b);
    const int nc = b->nchunks, cb = b->cbits, size = 1 << cb;
    const unsigned cmask = (unsigned)size - 1;
    img[0] = pos;
    for (int g = 1; g < b->G; g++) {
        const POS *tg = t + (size_t)g * nc * size;
        POS out = 0, p = pos;
        for (int i = 0; i < nc; i++) { out |= tg[i * size + (int)((unsigned)p & cmask)]; p >>= cb; }
        img[g] = out;
    }
}

/* The canonical form of the successor by jump k of the position whose images are ``img``. */
static inline POS SFX(canon_by)(const CoreBoard *b, const POS *img, int k) {
    const POS *f = (const POS *)SFX(fimg)(b) + (size_t)k * b->G;
    POS best = img[0] ^ f[0];
    for (int g = 1; g < b->G; g++) { POS x = img[g] ^ f[g]; if (x < best) best = x; }
    return best;
}

static inline POS SFX(least)(const POS *img, int G) {
    POS best = img[0];
    for (int g = 1; g < G; g++) if (img[g] < best) best = img[g];
    return best;
}


#include "_levels_impl.h"
#include "_dfs_impl.h"
