/* Bulk level operations of the compiled core, for one width W (see _core_impl.h): successors
 * by one jump or one move with canonical forms, sorting and de-duplication, membership, the
 * pagoda filter, beam scores. */

/* ---- bulk: successors by one jump, by one move; canonical forms; images ---------------- */

static PyObject *SFX(step)(CoreBoard *b, const char *src, Py_ssize_t n, int reverse, int canon) {
    /* one pass without the GIL (so threads can share a level) into a pooled buffer grown as
       needed: a position's legal jumps gathered without a branch, its images made only when
       it has one (counting the children first cost as much as the legality test itself) */
    const POS *need = (const POS *)SFX(need)(b), *land = (const POS *)SFX(land)(b);
    const POS *flip = (const POS *)SFX(flip)(b);
    const POS *want = reverse ? land : need;
    Py_ssize_t cap = n * 16 + b->J, o = 0;
    POS *out = pool_alloc_as((size_t)cap * sizeof(POS), 0, 1);  /* untouched pages cost nothing */
    int *legal = malloc(sizeof(int) * (size_t)(b->J ? b->J : 1));
    int failed = !out || !legal;
    Py_BEGIN_ALLOW_THREADS
    POS img[MAX_G];
    for (Py_ssize_t i = 0; i < n && !failed; i++) {
        POS pos = SFX(load)(src + i * POS_BYTES);
        int m = 0;
        for (int k = 0; k < b->J; k++) { legal[m] = k; m += (pos & flip[k]) == want[k]; }
        if (!m) continue;
        if (o + m > cap) {
            cap = cap + cap / 2 + b->J;
            POS *more = pool_realloc(out, (size_t)cap * sizeof(POS));
            if (!more) { failed = 1; break; }
            out = more;
        }
        if (canon) SFX(images)(b, pos, img);
        for (int t = 0; t < m; t++)
            out[o++] = canon ? SFX(canon_by)(b, img, legal[t]) : pos ^ flip[legal[t]];
    }
    Py_END_ALLOW_THREADS
    free(legal);
    if (failed) { if (out) pool_free(out); return PyErr_NoMemory(); }
    /* its room stays unless it is four times the children (``moves`` below) */
    PyObject *r = block_of(out, o * POS_BYTES);
    if (r && block_fit_share(r, o * POS_BYTES, 1) < 0) { Py_DECREF(r); return PyErr_NoMemory(); }
    return r;
}

/* How many jumps are legal at (``reverse``: lead to) each position: ``step``'s output holds
 * that many successors of each position, in order (16-bit counts). */
static PyObject *SFX(degree)(CoreBoard *b, const char *src, Py_ssize_t n, int reverse) {
    PyObject *r = new_block(2 * n);
    if (!r) return NULL;
    uint16_t *out = (uint16_t *)BLOCK_DATA(r);
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
 * without the GIL (threads expand slices of a level side by side) into pooled buffers. */
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
    int *first = malloc(sizeof(int) * (size_t)(b->J ? b->J : 1));  /* the first hop's legal jumps */
    Py_ssize_t len = 0, cap = 0;
    if (!first || SFX(chain_grow)(&c, G) < 0) goto fail;
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
            if (!list) {  /* the first hop: every jump tried, the legal ones gathered without a branch */
                int legal = 0;
                for (int k = 0; k < cnt; k++) { first[legal] = k; legal += (cur & flip[k]) == want[k]; }
                list = first;
                cnt = legal;
            }
            for (int j = 0; j < cnt; j++) {
                int k = list[j];
                if (list != first && (cur & flip[k]) != want[k]) continue;  /* first hop: legal already */
                if (top == c.cap && SFX(chain_grow)(&c, G) < 0) goto fail;
                if (len == cap) {
                    Py_ssize_t nc = cap ? 2 * cap : (n * 16 > 1024 ? n * 16 : 1024);  /* untouched pages cost nothing */
                    POS *o = out ? pool_realloc(out, nc * sizeof(POS)) : pool_alloc_as(nc * sizeof(POS), 0, 1);
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
    free(c.pos); free(c.img); free(c.peg); free(first);
    *outp = out;
    return len;
fail:
    free(c.pos); free(c.img); free(c.peg); free(first); pool_free(out);
    return -1;
}

static PyObject *SFX(moves)(CoreBoard *b, const char *src, Py_ssize_t n, int reverse, int canon) {
    POS *out = NULL;
    Py_ssize_t len;
    Py_BEGIN_ALLOW_THREADS
    len = SFX(moves_run)(b, src, n, reverse, canon, &out);
    Py_END_ALLOW_THREADS
    if (len < 0) return PyErr_NoMemory();
    if (!out && !(out = pool_alloc(POS_BYTES, 0))) return PyErr_NoMemory();  /* no moves: empty block */
    /* its room stays unless it is four times the children: they live a chunk, and the next
     * chunk's take this block back whole */
    PyObject *r = block_of(out, len * POS_BYTES);
    if (r && block_fit_share(r, len * POS_BYTES, 1) < 0) { Py_DECREF(r); return PyErr_NoMemory(); }
    return r;
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

/* The bits of x[0..n) that differ somewhere: the digits of the others are skipped. */
static POS SFX(varying)(const POS *x, size_t n) {
    POS all_or = 0, all_and = ~(POS)0;
    for (size_t i = 0; i < n; i++) { all_or |= x[i]; all_and &= x[i]; }
    return all_or ^ all_and;
}

/* x[0..n) sorted (tmp[0..n) scratch) by a radix sort that keeps its work in the cache: more
 * than SORT_CACHED keys are scattered by their highest varying digit into buckets, each
 * sorted the same way; a bucket the cache holds, by least-significant digits of at most
 * LOW_DIGIT bits (as few passes as its varying bits allow), a digit on which all its keys
 * agree skipped. ``count``: 2^LOW_DIGIT counters. */
static void SFX(sort_cached)(POS *x, POS *tmp, size_t n, size_t *count) {
    if (n <= 32) {  /* insertion */
        for (size_t i = 1; i < n; i++) {
            POS v = x[i];
            size_t k = i;
            for (; k && x[k - 1] > v; k--) x[k] = x[k - 1];
            x[k] = v;
        }
        return;
    }
    POS varying = SFX(varying)(x, n);
    if (!varying) return;  /* all equal */
    const size_t cached = SORT_CACHED / sizeof(POS);
    if (n > cached) {  /* the highest varying digit first: buckets of about cached / 4 keys */
        int top = 64 * W - 1;
        while (!((varying >> top) & 1)) top--;
        int digit = 1;
        while (digit < RADIX && (cached << digit) < 4 * n) digit++;
        if (digit > top + 1) digit = top + 1;
        int shift = top + 1 - digit;
        const unsigned dmask = (1u << digit) - 1;
        size_t start[(1 << RADIX) + 1];
        memset(start, 0, sizeof(size_t) * (((size_t)1 << digit) + 1));
        for (size_t i = 0; i < n; i++) start[((unsigned)(x[i] >> shift) & dmask) + 1]++;
        for (unsigned v = 0; v < dmask + 1; v++) start[v + 1] += start[v];
        memcpy(count, start, sizeof(size_t) << digit);
        for (size_t i = 0; i < n; i++) tmp[count[(unsigned)(x[i] >> shift) & dmask]++] = x[i];
        memcpy(x, tmp, n * sizeof(POS));
        for (unsigned v = 0; v <= dmask; v++)
            SFX(sort_cached)(x + start[v], tmp + start[v], start[v + 1] - start[v], count);
        return;
    }
    int top = 64 * W - 1;  /* in the cache: as few passes as the varying bits allow */
    while (!((varying >> top) & 1)) top--;
    int passes = (top + LOW_DIGIT) / LOW_DIGIT, digit = (top + passes) / passes;
    const unsigned dmask = (1u << digit) - 1;
    POS *from = x, *to = tmp;
    for (int shift = 0; shift <= top; shift += digit) {
        if (!((varying >> shift) & dmask)) continue;
        memset(count, 0, sizeof(size_t) << digit);
        for (size_t i = 0; i < n; i++) count[(unsigned)(from[i] >> shift) & dmask]++;
        size_t sum = 0;
        for (unsigned v = 0; v <= dmask; v++) { size_t c = count[v]; count[v] = sum; sum += c; }
        for (size_t i = 0; i < n; i++) to[count[(unsigned)(from[i] >> shift) & dmask]++] = from[i];
        POS *t = from; from = to; to = t;
    }
    if (from != x) memcpy(x, from, n * sizeof(POS));
}

/* Sorted, then duplicates removed (``sort_cached``). Returns the number of distinct keys
 * (sorted at the front of the buffer). */
static Py_ssize_t SFX(sort_unique)(char *buf, Py_ssize_t n) {
    if (n < 2) return n;
    POS *a = (POS *)buf;
    POS *tmp = pool_alloc(n * sizeof(POS), 0);
    if (!tmp) return -1;  /* runs without the GIL: the caller raises MemoryError once it holds it */
    size_t *count = malloc(sizeof(size_t) << LOW_DIGIT);
    if (!count) { pool_free(tmp); return -1; }
    SFX(sort_cached)(a, tmp, (size_t)n, count);
    pool_free(tmp); free(count);
    Py_ssize_t m = 1;
    for (Py_ssize_t i = 1; i < n; i++) if (a[i] != a[m - 1]) a[m++] = a[i];
    return m;
}

/* Merges the sorted positions q (nq, none of them in a) into the sorted a, whose buffer has
 * room for them after its na positions: from the back, so that nothing is held twice (a dead
 * set of 2.2 GB grows in place). */
static void SFX(merge_into)(char *buf, Py_ssize_t na, const char *q, Py_ssize_t nq) {
    POS *a = (POS *)buf;
    Py_ssize_t i = na - 1, j = nq - 1, o = na + nq - 1;
    while (j >= 0) {
        POS x = SFX(load)(q + j * POS_BYTES);
        if (i >= 0 && a[i] > x) a[o--] = a[i--];
        else { a[o--] = x; j--; }
    }
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
    uint32_t *slot = pool_alloc(((size_t)1 << bits) * sizeof(uint32_t), 1);
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
    pool_free(slot);
    return 0;
}

/* Queries in ascending order (a level against older levels, the usual case) are merged in
 * one galloping pass: O(nq log gap) with the cache-friendly access of a merge, or, when the
 * set has fewer than an eighth as many members (a search by moves looks each slice up in
 * every earlier level, the first ones tiny), the set's members galloped through the queries:
 * O(ns log gap) after the answer is zeroed; any other
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
    if (ns * 8 < nq) {  /* a small set (an early level): its members sought among the queries,
                           each search starting where the last one ended */
#define QS(i) SFX(load)(q + (i) * POS_BYTES)
        memset(out, 0, (size_t)nq);
        Py_ssize_t at = 0;  /* every query before ``at`` is below the current member */
        for (Py_ssize_t j = 0; j < ns && at < nq; j++) {
            POS x = s[j];
            Py_ssize_t step = 1, hi = at;
            while (hi < nq && QS(hi) < x) { at = hi + 1; hi = at + step; step <<= 1; }
            if (hi > nq) hi = nq;
            while (at < hi) {
                Py_ssize_t mid = at + (hi - at) / 2;
                if (QS(mid) < x) at = mid + 1; else hi = mid;
            }
            for (Py_ssize_t i = at; i < nq && QS(i) == x; i++) out[i] = 1;  /* repeated queries */
        }
#undef QS
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

/* Keep the positions that weigh at least the floor under every pagoda. ``rows`` holds, per
 * byte of the position and value of that byte, the weights of all P pagodas side by side
 * (``byte_rows``): a position's P sums are nbytes additions of contiguous rows, which the
 * compiler turns into vector adds (per pagoda and byte a lookup of its own was 3x slower).
 * ``alone`` counts, per pagoda, the positions it alone rules out (the planner retires
 * pagodas that never do). */
static PyObject *SFX(keep)(CoreBoard *b, const char *src, Py_ssize_t n, const int64_t *rows,
                           const int64_t *floors, int P, int64_t *alone) {
    /* The output can hold every position: the filter runs without the GIL (the beam's
     * slices filter side by side), then the buffer is cut to what was kept. */
    PyObject *ba = new_block((n ? n : 1) * POS_BYTES);
    int64_t *acc = PyMem_RawMalloc(sizeof(int64_t) * (size_t)(P ? P : 1));
    if (!ba || !acc) { Py_XDECREF(ba); PyMem_RawFree(acc); return PyErr_NoMemory(); }
    char *dst = BLOCK_DATA(ba);
    int nb = b->nbytes;
    Py_ssize_t m = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        POS pos = SFX(load)(src + i * POS_BYTES);
        unsigned char bytes[16] = {0};
        memcpy(bytes, &pos, sizeof(POS));
        const int64_t *row = rows + (size_t)bytes[0] * P;
        for (int p = 0; p < P; p++) acc[p] = row[p];
        for (int k = 1; k < nb; k++) {
            row = rows + ((size_t)k * 256 + bytes[k]) * P;
            for (int p = 0; p < P; p++) acc[p] += row[p];
        }
        int bad = 0, which = -1;
        for (int p = 0; p < P; p++)
            if (acc[p] < floors[p]) { bad++; which = p; }
        if (!bad) SFX(store)(dst + (m++) * POS_BYTES, pos);
        else if (bad == 1) alone[which]++;
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(acc);
    if (block_fit(ba, m * POS_BYTES) < 0) { Py_DECREF(ba); return PyErr_NoMemory(); }
    return ba;
}

/* The count of ``masks`` (M of them) each position holds full, into ``out`` (one byte a
 * position): Merson's bounds count the full regions of every position of a level. */
static void SFX(full)(const char *src, Py_ssize_t n, const char *bytes, int M, uint8_t *out) {
    POS masks[256];
    for (int r = 0; r < M; r++) masks[r] = SFX(load)(bytes + r * POS_BYTES);
    for (Py_ssize_t i = 0; i < n; i++) {
        POS pos = SFX(load)(src + i * POS_BYTES);
        int c = 0;
        for (int r = 0; r < M; r++) c += (pos & masks[r]) == masks[r];
        out[i] = (uint8_t)c;
    }
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

