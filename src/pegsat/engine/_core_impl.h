/* The compiled core, written once for positions of W 64-bit words (included twice by _core.c,
 * with W = 1 and W = 2). POS is the position type, SFX() names the functions of one width.
 *
 * Everything here works on flat arrays: positions are little-endian words (a W = 2 position
 * is its low word then its high word, which is how an unsigned __int128 sits in memory). */

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

/* ---- bulk: successors by one jump, by one move; canonical forms; images ---------------- */

static PyObject *SFX(step)(CoreBoard *b, const char *src, Py_ssize_t n, int reverse, int canon) {
    /* two passes without the GIL (so threads can share a level): count, then fill */
    const POS *need = (const POS *)SFX(need)(b), *land = (const POS *)SFX(land)(b);
    const POS *flip = (const POS *)SFX(flip)(b);
    Py_ssize_t total = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        POS pos = SFX(load)(src + i * POS_BYTES);
        for (int k = 0; k < b->J; k++)
            total += reverse ? ((pos & flip[k]) == land[k]) : ((pos & flip[k]) == need[k]);
    }
    Py_END_ALLOW_THREADS
    PyObject *ba = PyByteArray_FromStringAndSize(NULL, total * POS_BYTES);
    if (!ba) return NULL;
    char *dst = PyByteArray_AS_STRING(ba);
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t o = 0;
    const POS *want = reverse ? land : need;
    POS img[MAX_G];
    for (Py_ssize_t i = 0; i < n; i++) {
        POS pos = SFX(load)(src + i * POS_BYTES);
        int have = 0;
        for (int k = 0; k < b->J; k++) {
            if ((pos & flip[k]) != want[k]) continue;
            POS q = pos ^ flip[k];
            if (canon) {
                if (!have) { SFX(images)(b, pos, img); have = 1; }
                q = SFX(canon_by)(b, img, k);
            }
            SFX(store)(dst + (o++) * POS_BYTES, q);
        }
    }
    Py_END_ALLOW_THREADS
    return ba;
}

/* How many jumps are legal at (``reverse``: lead to) each position: ``step``'s output holds
 * that many successors of each position, in order (16-bit counts). */
static PyObject *SFX(degree)(CoreBoard *b, const char *src, Py_ssize_t n, int reverse) {
    PyObject *r = PyByteArray_FromStringAndSize(NULL, 2 * n);
    if (!r) return NULL;
    uint16_t *out = (uint16_t *)PyByteArray_AS_STRING(r);
    const POS *need = (const POS *)SFX(need)(b), *land = (const POS *)SFX(land)(b);
    const POS *flip = (const POS *)SFX(flip)(b);
    for (Py_ssize_t i = 0; i < n; i++) {
        POS pos = SFX(load)(src + i * POS_BYTES);
        int d = 0;
        for (int k = 0; k < b->J; k++)
            d += reverse ? ((pos & flip[k]) == land[k]) : ((pos & flip[k]) == need[k]);
        out[i] = (uint16_t)d;
    }
    return r;
}

/* Every position one move (a chain of jumps by one peg) after, or before, each position. Runs
 * without the GIL (threads expand slices of a level side by side) into malloc'd buffers. */
typedef struct { POS *pos, *img; int *peg; Py_ssize_t cap; } SFX(Chain);

static int SFX(chain_grow)(SFX(Chain) *c, int G) {
    Py_ssize_t cap = c->cap ? 2 * c->cap : 1024;
    POS *p = realloc(c->pos, cap * sizeof(POS));
    if (p) c->pos = p;
    POS *im = realloc(c->img, cap * G * sizeof(POS));
    if (im) c->img = im;
    int *g = realloc(c->peg, cap * sizeof(int));
    if (g) c->peg = g;
    if (!p || !im || !g) return -1;
    c->cap = cap;
    return 0;
}

static Py_ssize_t SFX(moves_run)(const CoreBoard *b, const char *src, Py_ssize_t n, int reverse, int canon,
                                 POS **outp) {
    const POS *need = (const POS *)SFX(need)(b), *land = (const POS *)SFX(land)(b);
    const POS *flip = (const POS *)SFX(flip)(b), *fimg = (const POS *)SFX(fimg)(b);
    const POS *want = reverse ? land : need;
    const int G = canon ? b->G : 1;
    SFX(Chain) c = {0};
    POS *out = NULL, cimg[MAX_G];
    Py_ssize_t len = 0, cap = 0;
    if (SFX(chain_grow)(&c, G) < 0) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t top = 0;
        c.pos[0] = SFX(load)(src + i * POS_BYTES); c.peg[0] = -1;
        if (canon) SFX(images)(b, c.pos[0], c.img);
        top = 1;
        while (top) {
            top--;
            POS cur = c.pos[top];
            int peg = c.peg[top];
            if (canon) memcpy(cimg, c.img + top * G, G * sizeof(POS));
            int cnt = peg < 0 ? b->J : (reverse ? b->n_by_dst[peg] : b->n_by_src[peg]);
            const int *list = peg < 0 ? NULL : (reverse ? b->by_dst[peg] : b->by_src[peg]);
            for (int j = 0; j < cnt; j++) {
                int k = list ? list[j] : j;
                if ((cur & flip[k]) != want[k]) continue;
                if (top == c.cap && SFX(chain_grow)(&c, G) < 0) goto fail;
                if (len == cap) {
                    Py_ssize_t nc = cap ? 2 * cap : (n * 16 > 1024 ? n * 16 : 1024);  /* untouched pages cost nothing */
                    POS *o = realloc(out, nc * sizeof(POS));
                    if (!o) goto fail;
                    out = o; cap = nc;
                }
                POS q = cur ^ flip[k], key = q;
                if (canon) {
                    POS *qi = c.img + top * G;
                    const POS *f = fimg + (size_t)k * b->G;
                    for (int g = 0; g < G; g++) qi[g] = cimg[g] ^ f[g];
                    key = SFX(least)(qi, G);
                }
                out[len++] = key;
                c.pos[top] = q; c.peg[top] = reverse ? b->src[k] : b->dst[k]; top++;
            }
        }
    }
    free(c.pos); free(c.img); free(c.peg);
    if (len && len < cap) { POS *o = realloc(out, len * sizeof(POS)); if (o) out = o; }
    *outp = out;
    return len;
fail:
    free(c.pos); free(c.img); free(c.peg); free(out);
    return -1;
}

static PyObject *SFX(moves)(CoreBoard *b, const char *src, Py_ssize_t n, int reverse, int canon) {
    POS *out = NULL;
    Py_ssize_t len;
    Py_BEGIN_ALLOW_THREADS
    len = SFX(moves_run)(b, src, n, reverse, canon, &out);
    Py_END_ALLOW_THREADS
    if (len < 0) return PyErr_NoMemory();
    if (!out && !(out = malloc(POS_BYTES))) return PyErr_NoMemory();  /* no moves: empty block */
    return block_of(out, len * POS_BYTES);
}

static void SFX(canon_all)(CoreBoard *b, const char *src, char *dst, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        SFX(store)(dst + i * POS_BYTES, SFX(canon)(b, SFX(load)(src + i * POS_BYTES)));
}

static void SFX(permute_all)(const POS *t, int nb, const char *src, char *dst, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        POS p = SFX(load)(src + i * POS_BYTES), out = 0;
        for (int k = 0; k < nb; k++) { out |= t[k * 256 + (int)(p & 255)]; p >>= 8; }
        SFX(store)(dst + i * POS_BYTES, out);
    }
}

/* ---- sorting, de-duplication, membership ---------------------------------------------- */

/* LSD radix sort by RADIX-bit digits, skipping digits on which all keys agree, then removing
 * duplicates. Returns the number of distinct keys (sorted at the front of the buffer). */
static Py_ssize_t SFX(sort_unique)(char *buf, Py_ssize_t n) {
    if (n < 2) return n;
    POS *a = (POS *)buf;
    POS *tmp = malloc(n * sizeof(POS));
    if (!tmp) return -1;  /* runs without the GIL: the caller raises MemoryError once it holds it */
    const int buckets = 1 << RADIX;
    const unsigned dmask = (unsigned)buckets - 1;
    size_t *count = malloc(buckets * sizeof(size_t));
    if (!count) { free(tmp); return -1; }
    POS *from = a, *to = tmp;
    POS all_or = 0, all_and = ~(POS)0;
    for (Py_ssize_t i = 0; i < n; i++) { all_or |= a[i]; all_and &= a[i]; }
    POS varying = all_or ^ all_and;  /* bits that differ somewhere: other digits are skipped */
    for (int shift = 0; shift < 64 * W; shift += RADIX) {
        if (!((varying >> shift) & dmask)) continue;
        memset(count, 0, buckets * sizeof(size_t));
        for (Py_ssize_t i = 0; i < n; i++) count[(unsigned)(from[i] >> shift) & dmask]++;
        size_t sum = 0;
        for (int v = 0; v < buckets; v++) { size_t c = count[v]; count[v] = sum; sum += c; }
        for (Py_ssize_t i = 0; i < n; i++) to[count[(unsigned)(from[i] >> shift) & dmask]++] = from[i];
        POS *t = from; from = to; to = t;
    }
    if (from != a) memcpy(a, from, n * sizeof(POS));
    free(tmp); free(count);
    Py_ssize_t m = 1;
    for (Py_ssize_t i = 1; i < n; i++) if (a[i] != a[m - 1]) a[m++] = a[i];
    return m;
}

static inline int SFX(find)(const POS *s, Py_ssize_t n, POS x) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (s[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo < n && s[lo] == x;
}

/* Unsorted queries against a sorted set: many queries (a whole level's children against the
 * other side's last level) go through an open-addressing hash of the set, one probe in
 * cache per query instead of a binary search's log2(ns) misses. Slots hold indices into the
 * set (+1; 0 is free), so no position value has to be reserved. Returns -1 without memory. */
static int SFX(member_hashed)(const POS *s, Py_ssize_t ns, const char *q, Py_ssize_t nq, char *out) {
    int bits = 4;
    while (((Py_ssize_t)1 << bits) < 2 * ns) bits++;
    const uint64_t mask = ((uint64_t)1 << bits) - 1;
    uint32_t *slot = calloc((size_t)1 << bits, sizeof(uint32_t));
    if (!slot) return -1;
    for (Py_ssize_t i = 0; i < ns; i++) {
        uint64_t h = SFX(hash)(s[i]) >> (64 - bits);
        while (slot[h]) h = (h + 1) & mask;
        slot[h] = (uint32_t)(i + 1);
    }
    for (Py_ssize_t i = 0; i < nq; i++) {
        POS x = SFX(load)(q + i * POS_BYTES);
        uint64_t h = SFX(hash)(x) >> (64 - bits);
        char hit = 0;
        for (uint32_t v; (v = slot[h]) != 0; h = (h + 1) & mask)
            if (s[v - 1] == x) { hit = 1; break; }
        out[i] = hit;
    }
    free(slot);
    return 0;
}

/* Queries in ascending order (a level against older levels, the usual case) are merged in
 * one galloping pass: O(nq log gap) with the cache-friendly access of a merge; any other
 * order goes through a hash of the set when the queries outnumber it (and it has fewer than
 * 2^31 members), else a binary search per query. */
static void SFX(member)(const char *sorted, Py_ssize_t ns, const char *q, Py_ssize_t nq, char *out) {
    const POS *s = (const POS *)sorted;
    int ascending = 1;
    for (Py_ssize_t i = 1; i < nq && ascending; i++)
        if (SFX(load)(q + i * POS_BYTES) < SFX(load)(q + (i - 1) * POS_BYTES)) ascending = 0;
    if (!ascending) {
        if (nq >= ns && ns < ((Py_ssize_t)1 << 31) && SFX(member_hashed)(s, ns, q, nq, out) == 0) return;
        for (Py_ssize_t i = 0; i < nq; i++) out[i] = (char)SFX(find)(s, ns, SFX(load)(q + i * POS_BYTES));
        return;
    }
    Py_ssize_t lo = 0;  /* every s[j] with j < lo is below the current query */
    for (Py_ssize_t i = 0; i < nq; i++) {
        POS x = SFX(load)(q + i * POS_BYTES);
        Py_ssize_t step = 1, hi = lo;
        while (hi < ns && s[hi] < x) { lo = hi + 1; hi = lo + step; step <<= 1; }
        if (hi > ns) hi = ns;
        while (lo < hi) {  /* first index in [lo, hi) not below x; s[hi] >= x */
            Py_ssize_t mid = lo + (hi - lo) / 2;
            if (s[mid] < x) lo = mid + 1; else hi = mid;
        }
        out[i] = (char)(lo < ns && s[lo] == x);
    }
}

/* ---- pagoda filter --------------------------------------------------------------------- */

/* Keep the positions that weigh at least the floor under every pagoda. ``tab`` holds, per
 * pagoda and byte of the position, the weight of each byte value; ``alone`` counts, per
 * pagoda, the positions it alone rules out (the planner retires pagodas that never do). */
static PyObject *SFX(keep)(CoreBoard *b, const char *src, Py_ssize_t n, const int64_t *tab,
                           const int64_t *floors, int P, int64_t *alone) {
    /* The output can hold every position: the filter runs without the GIL (the beam's
     * slices filter side by side), then the buffer is cut to what was kept. */
    PyObject *ba = PyByteArray_FromStringAndSize(NULL, (n ? n : 1) * POS_BYTES);
    if (!ba) return NULL;
    char *dst = PyByteArray_AS_STRING(ba);
    int nb = b->nbytes;
    Py_ssize_t m = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        POS pos = SFX(load)(src + i * POS_BYTES);
        unsigned char bytes[16] = {0};
        memcpy(bytes, &pos, sizeof(POS));
        int bad = 0, which = -1;
        for (int p = 0; p < P && bad < 2; p++) {
            const int64_t *t = tab + (size_t)p * nb * 256;
            int64_t w = 0;
            for (int k = 0; k < nb; k++) w += t[k * 256 + bytes[k]];
            if (w < floors[p]) { bad++; which = p; }
        }
        if (!bad) SFX(store)(dst + (m++) * POS_BYTES, pos);
        else if (bad == 1) alone[which]++;
    }
    Py_END_ALLOW_THREADS
    if (PyByteArray_Resize(ba, m * POS_BYTES) < 0) { Py_DECREF(ba); return NULL; }
    return ba;
}

/* ---- beam scores ------------------------------------------------------------------------ */

/* out[i]: the sum of ``w`` over the pegs of position i, plus ``iso`` per isolated peg (no peg
 * on a hole it could jump over: it cannot move until another peg comes next to it). ``nb``:
 * per hole, the holes it could jump over. No Python objects: runs without the GIL. */
static void SFX(score)(const CoreBoard *b, const char *src, Py_ssize_t n, const int64_t *w,
                       int64_t iso, const POS *nb, int64_t *out) {
    for (Py_ssize_t i = 0; i < n; i++) {
        POS pos = SFX(load)(src + i * POS_BYTES);
        int64_t s = 0;
        for (int word = 0; word < W; word++) {  /* the pegs, lowest first */
            uint64_t bits = (uint64_t)(pos >> (64 * word));
            while (bits) {
                int h = 64 * word + __builtin_ctzll(bits);
                bits &= bits - 1;
                s += w[h];
                if (!(pos & nb[h])) s += iso;
            }
        }
        out[i] = s;
    }
}

/* ---- depth-first search with a table of dead positions -------------------------------- */

/* The table is shared by the threads of a portfolio: a slot is read and written whole (one
 * aligned 8-byte word; 16-byte positions are not shared), an empty slot is 0, and when the
 * probe window is full its first slot is overwritten. Losing a dead position only costs a
 * search again; nothing false can be read. A window of 16 slots (two or three cache lines)
 * rather than 32: in a full table every miss reads the whole window (English d4 -> c4,
 * 2^22 slots, 20 M nodes: 2.44 -> 2.7 M nodes/s), while at the planner's fill (grown at half
 * full) 16 loses as little as 32 (14 of 20 M positions at 30% full on diamond e1 -> e9). */
#ifndef PROBES
#define PROBES 16
#endif
#define PREFETCH_BITS 21  /* 2^21 slots (16 MB) and up: larger than the caches here */

/* One slot read or written whole: atomically for one-word tables, which may be shared. */
static inline POS SFX(slot_load)(const POS *slot) {
#if W == 1
    return __atomic_load_n(slot, __ATOMIC_RELAXED);
#else
    return *slot;
#endif
}

static inline void SFX(slot_store)(POS *slot, POS key) {
#if W == 1
    __atomic_store_n(slot, key, __ATOMIC_RELAXED);
#else
    *slot = key;
#endif
}

static inline int SFX(dead)(const POS *table, uint64_t mask, int bits, POS key) {
    uint64_t h = SFX(hash)(key) >> (64 - bits);
    for (int i = 0; i < PROBES; i++) {
        POS v = SFX(slot_load)(&table[h]);
        if (v == key) return 1;
        if (v == 0) return 0;
        h = (h + 1) & mask;
    }
    return 0;
}

static inline int SFX(bury)(POS *table, uint64_t mask, int bits, POS key) {
    uint64_t h = SFX(hash)(key) >> (64 - bits), first = h;
    for (int i = 0; i < PROBES; i++) {
        POS v = SFX(slot_load)(&table[h]);
        if (v == key) return 0;
        if (v == 0) { SFX(slot_store)(&table[h], key); return 1; }
        h = (h + 1) & mask;
    }
    SFX(slot_store)(&table[first], key);
    return 0;
}

/* Run the search for at most ``budget`` more nodes: 0 = budget spent (resumable), 1 = the goal
 * (or a target position) is reached, the path is on the stack, 2 = exhausted: no plan; with
 * ``lane`` set also 3 = yielded (resumable) right after prefetching a node's children's table
 * slots, so that other lanes run while they load (run_lanes). */
static int SFX(run)(CoreSearch *s, int64_t budget, int lane) {
    const CoreBoard *b = s->board;
    const POS *of = (const POS *)s->oflip, *on = (const POS *)s->oneed;
    POS *stack = (POS *)s->stack, *keys = (POS *)s->keys, *imgs = (POS *)s->imgs;
    const POS *fimg = (const POS *)SFX(fimg)(b);
    const int G = b->G;
    POS *table = (POS *)s->table;
    const POS *target = (const POS *)s->target;
    POS full = SFX(load)(s->goal_full), empty = SFX(load)(s->goal_empty);
    const int P = s->P, J = b->J, LW = s->lw;
    int64_t end = s->nodes + budget;
    int d = s->depth, resume = s->pending;
    POS *ck = (POS *)s->ckeys;
    int *ci = s->cidx;
    while (d >= 0) {
        POS pos = stack[d];
        uint64_t *m = s->legal + (size_t)d * LW;
        if (resume) { resume = 0; s->pending = 0; goto check; }
        if (s->next[d] < 0) {  /* a node seen for the first time */
            int c = SFX(popcount)(pos);
            if ((pos & full) == full && !(pos & empty) && c >= s->min_pegs && c <= s->max_pegs) {
                s->depth = d; return 1;
            }
            if (c <= s->min_left) { d--; continue; }
            if (target && c == s->target_pegs) {
                s->target_lookups++;
                if (SFX(find)(target, s->ntarget, s->canon ? SFX(least)(imgs + (size_t)d * G, G) : pos)) {
                    s->depth = d; return 1;
                }
                d--; continue;
            }
            const int64_t *val = s->vals + (size_t)d * (P ? P : 1);
            /* the start's own test: a child below a floor is dropped by its parent */
            if (d == 0 && P && pagoda_cut(s, val, NULL)) { s->pruned++; d--; continue; }
            POS key = s->canon ? SFX(least)(imgs + (size_t)d * G, G) : pos;
            if (SFX(dead)(table, s->mask, s->bits, key)) { s->hits++; d--; continue; }
            if (s->nodes >= end) { s->depth = d; return 0; }
            s->nodes++;
            keys[d] = key;
            s->next[d] = 0;
            /* The legal jumps, once, as bits in search order (a scan that resumed at every
             * return to this node cost twice): the parent's, but for the jumps on the three
             * holes its jump changed, re-tested (German: about 30 of 140 jumps; diamond
             * e1 -> e9, 20 M nodes: 2.8 -> 3.4 M nodes/s); then minus the sleep set. */
            const uint64_t *sl = s->sleep + (size_t)d * LW;
            uint64_t *cn = s->can + (size_t)d * LW;
            if (d > 0) {
                const int k = s->path[d - 1], nt = s->ntouch[k], *tl = s->touch + (size_t)k * J;
                const uint64_t *pc = s->can + (size_t)(d - 1) * LW, *ind = s->indep + (size_t)k * LW;
                for (int w = 0; w < LW; w++) cn[w] = pc[w] & ind[w];
                for (int t = 0; t < nt; t++) {
                    const int i = tl[t];
                    cn[i >> 6] |= (uint64_t)((pos & of[i]) == on[i]) << (i & 63);
                }
            } else for (int w = 0; w < LW; w++) {
                uint64_t x = 0;
                const int lo = 64 * w, hi = lo + 64 < J ? lo + 64 : J;
                for (int i = lo; i < hi; i++) x |= (uint64_t)((pos & of[i]) == on[i]) << (i - lo);
                cn[w] = x;
            }
            for (int w = 0; w < LW; w++) m[w] = cn[w] & ~sl[w];
            /* Children below a pagoda's floor are dropped before anything else (they are
             * never stored, so looking them up would be a wasted miss). The other children's
             * table slots are random reads in a table far larger than the caches: ask for all
             * of them first, so their misses overlap instead of queueing one per child, then
             * drop the children found dead. */
            if (P) for (int w = 0; w < LW; w++) {
                for (uint64_t x = m[w]; x; x &= x - 1) {
                    const int i = 64 * w + __builtin_ctzll(x);
                    if (pagoda_cut(s, val, s->delta + (size_t)s->order[i] * P)) {
                        m[w] &= ~((uint64_t)1 << (i - 64 * w)); s->pruned++;
                    }
                }
            }
            if (s->bits >= PREFETCH_BITS) {
                int nc = 0;
                for (int w = 0; w < LW; w++) {
                    for (uint64_t x = m[w]; x; x &= x - 1) {
                        const int i = 64 * w + __builtin_ctzll(x);
                        POS child = s->canon ? SFX(canon_by)(b, imgs + (size_t)d * G, s->order[i]) : pos ^ of[i];
                        __builtin_prefetch(&table[SFX(hash)(child) >> (64 - s->bits)]);
                        ck[nc] = child; ci[nc++] = i;
                    }
                }
                s->pnc = nc;
                /* a lane yields here: the other lanes' work hides this node's misses */
                if (lane && nc) { s->pending = 1; s->depth = d; return 3; }
            check:
                nc = s->pnc;
                for (int j = 0; j < nc; j++)
                    if (SFX(dead)(table, s->mask, s->bits, ck[j])) {
                        m[ci[j] >> 6] &= ~((uint64_t)1 << (ci[j] & 63));
                        s->hits++;
                    }
            }
        }
        int moved = 0;
        for (int w = 0; w < LW; w++) {
            if (!m[w]) continue;
            int i = 64 * w + __builtin_ctzll(m[w]), k = s->order[i];
            m[w] &= m[w] - 1;
            {   /* the child's sleep set: what sleeps here, and the legal jumps no longer
                 * untried here (each led to a dead position), that commute with this one */
                const uint64_t *sl = s->sleep + (size_t)d * LW, *cn = s->can + (size_t)d * LW;
                const uint64_t *ind = s->indep + (size_t)k * LW;
                uint64_t *cs = s->sleep + (size_t)(d + 1) * LW;
                for (int v = 0; v < LW; v++) cs[v] = (sl[v] | (cn[v] & ~m[v])) & ind[v];
            }
            s->path[d] = k;
            stack[d + 1] = pos ^ of[i];
            s->next[d + 1] = -1;
            if (s->canon) {
                const POS *src = imgs + (size_t)d * G, *f = fimg + (size_t)k * G;
                POS *dst = imgs + (size_t)(d + 1) * G;
                for (int g = 0; g < G; g++) dst[g] = src[g] ^ f[g];
            }
            if (P) {
                const int64_t *val = s->vals + (size_t)d * P;
                int64_t *nv = s->vals + (size_t)(d + 1) * P;
                const int64_t *delta = s->delta + (size_t)k * P;
                for (int p = 0; p < P; p++) nv[p] = val[p] + delta[p];
            }
            d++; moved = 1; break;
        }
        if (!moved) {
            s->stored += SFX(bury)(table, s->mask, s->bits, keys[d]);
            d--;
        }
    }
    s->depth = -1;
    return 2;
}
