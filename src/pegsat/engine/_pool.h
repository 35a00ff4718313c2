/* The core's pool of large blocks: memory of a megabyte or more, once freed, is kept for the
 * next request of about its size instead of going back to the system.
 *
 * Why: a level search makes the same few large arrays for every chunk of a level (its
 * children, their sort, their routing, the masks of its filters: hundreds of megabytes each
 * on the German board), and a fresh block from the system is pages the kernel must fault in
 * and zero. Measured before the pool (perf, French d3 -> g5 on disk): a quarter of all CPU
 * time in the kernel's clear_page, a third in the kernel in all.
 *
 * What: blocks of at least POOL_MIN bytes are mapped on their own (mmap), their capacity
 * rounded up to an eighth of their power of two, and a freed one joins the pool. A request
 * takes the smallest pooled block that holds it and wastes at most a quarter of it (the
 * largest of at most four times it, for a block that will grow); when
 * none does, the oldest pooled blocks whose bytes add up to the request are unmapped first
 * and a fresh block is mapped. So the pool never raises the process's footprint: memory grows
 * only when the pool is empty, to what the blocks in use need. Pooled bytes past ``limit``
 * (``set_limit``) are unmapped at once; ``release`` unmaps them all. Smaller blocks go to
 * malloc. Every block carries a header (its capacity, 0 for malloc's) so that one free and
 * one realloc serve both.
 *
 * Users: the core's own output and scratch buffers, and numpy's arrays through numpy's
 * allocation-policy hook (``PyDataMem_SetHandler``: the ``pegsat_pool`` handler, set in
 * the calling context by ``engine.kernel.kernel``). Thread-safe (one mutex); a fork's child
 * inherits the pool in a consistent state. */

#include <pthread.h>
#include <sys/mman.h>

#define POOL_MIN ((size_t)1 << 20) /* smaller blocks: malloc's */
#define POOL_SLOTS 64              /* pooled blocks at most */
#define POOL_HEAD ((size_t)64)     /* header bytes before each block's data (alignment 64) */

typedef struct { size_t cap, size; } PoolHead; /* cap 0: from malloc, size its bytes */

static struct {
    void *base[POOL_SLOTS];
    size_t cap[POOL_SLOTS];
    uint64_t age[POOL_SLOTS];
    int n;
    size_t bytes, limit;
    uint64_t clock, hits, reshaped, fresh;
} pool = {.limit = (size_t)1 << 30};
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static void pool_prefork(void) { pthread_mutex_lock(&pool_lock); }
static void pool_postfork(void) { pthread_mutex_unlock(&pool_lock); }

/* A capacity for ``need`` bytes: rounded up to an eighth of its power of two (at least a page). */
static size_t pool_class(size_t need) {
    size_t p = 4096;
    while (p <= need / 2) p <<= 1;
    size_t step = p / 8 < 4096 ? 4096 : p / 8;
    return (need + step - 1) / step * step;
}

/* Under the lock: removes slot i, returning its block. */
static void *pool_remove(int i) {
    void *b = pool.base[i];
    pool.bytes -= pool.cap[i];
    pool.n--;
    pool.base[i] = pool.base[pool.n]; pool.cap[i] = pool.cap[pool.n]; pool.age[i] = pool.age[pool.n];
    return b;
}

/* Under the lock: the oldest slot. */
static int pool_oldest(void) {
    int o = 0;
    for (int i = 1; i < pool.n; i++) if (pool.age[i] < pool.age[o]) o = i;
    return o;
}

/* A block of capacity ``cap`` (a pool_class), its pages touched before where possible:
 * the smallest pooled block of ``cap`` to ``most`` bytes as it is; else the smallest larger
 * one, its tail unmapped; else the largest smaller one grown by mremap, the oldest others
 * unmapped until as many bytes as it grew by are gone; else a fresh one. A block made from
 * pooled ones holds no more bytes than they did, so the pool adds nothing to the peak.
 * *reused: whether any byte of it was used before (then it is not zero). */
static void *pool_take(size_t cap, size_t most, int *reused) {
    void *gone[POOL_SLOTS]; size_t gone_cap[POOL_SLOTS]; int ngone = 0;
    void *b = NULL;
    size_t had = 0;
    pthread_mutex_lock(&pool_lock);
    int fit = -1, above = -1, below = -1;
    for (int i = 0; i < pool.n; i++) {
        size_t c = pool.cap[i];
        if (c >= cap && c <= most && (fit < 0 || (most > 2 * cap ? c > pool.cap[fit] : c < pool.cap[fit])))
            fit = i;
        if (c > most && (above < 0 || c < pool.cap[above])) above = i;
        if (c < cap && (below < 0 || c > pool.cap[below])) below = i;
    }
    int pick = fit >= 0 ? fit : above >= 0 ? above : below;
    if (pick >= 0) {
        had = pool.cap[pick];
        b = pool_remove(pick);
        size_t freed = 0;
        while (had < cap && pool.n && freed < cap - had) {
            int o = pool_oldest();
            gone_cap[ngone] = pool.cap[o];
            freed += pool.cap[o];
            gone[ngone++] = pool_remove(o);
        }
    }
    if (fit >= 0) pool.hits++; else if (pick >= 0) pool.reshaped++; else pool.fresh++;
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < ngone; i++) munmap(gone[i], gone_cap[i]);
    *reused = b != NULL;
    if (b && had > most) {
        munmap((char *)b + cap, had - cap);
    } else if (b && had < cap) {
        void *g = mremap(b, had, cap, MREMAP_MAYMOVE);
        if (g == MAP_FAILED) { munmap(b, had); b = NULL; *reused = 0; }
        else b = g;
    }
    if (!b) {
        b = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
        if (cap >= ((size_t)2 << 20)) madvise(b, cap, MADV_HUGEPAGE);
#endif
    }
    if (fit < 0) ((PoolHead *)b)->cap = cap;  /* trimmed, grown or fresh: cap bytes now */
    return b;
}

/* Puts a mapped block back; the oldest pooled ones past the limit (or the slots) go. */
static void pool_put(void *b, size_t cap) {
    void *gone[POOL_SLOTS + 1]; size_t gone_cap[POOL_SLOTS + 1]; int ngone = 0;
    pthread_mutex_lock(&pool_lock);
    if (cap > pool.limit) {
        gone[ngone] = b; gone_cap[ngone++] = cap;
    } else {
        if (pool.n == POOL_SLOTS) { int o = pool_oldest(); gone_cap[ngone] = pool.cap[o]; gone[ngone++] = pool_remove(o); }
        pool.base[pool.n] = b; pool.cap[pool.n] = cap; pool.age[pool.n] = ++pool.clock; pool.n++;
        pool.bytes += cap;
        while (pool.bytes > pool.limit) { int o = pool_oldest(); gone_cap[ngone] = pool.cap[o]; gone[ngone++] = pool_remove(o); }
    }
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < ngone; i++) munmap(gone[i], gone_cap[i]);
}

/* ``size`` bytes (zeroed with ``zero``), 16-byte aligned; NULL without memory. ``grows``:
 * the block will grow (pool_realloc): the largest pooled block that holds ``size`` and is at
 * most four times its capacity class. */
static void *pool_alloc_as(size_t size, int zero, int grows) {
    if (size > SIZE_MAX - POOL_HEAD - 4096) return NULL;
    size_t need = size + POOL_HEAD;
    if (need < POOL_MIN) {
        PoolHead *h = zero ? calloc(1, need) : malloc(need);
        if (!h) return NULL;
        h->cap = 0; h->size = size;
        return (char *)h + POOL_HEAD;
    }
    int reused = 0;
    size_t cap = pool_class(need);
    PoolHead *h = pool_take(cap, grows ? 4 * cap : cap + cap / 4, &reused);
    if (!h) return NULL;
    if (reused && zero) memset((char *)h + POOL_HEAD, 0, size);
    h->size = size;
    return (char *)h + POOL_HEAD;
}

static void *pool_alloc(size_t size, int zero) { return pool_alloc_as(size, zero, 0); }

static void pool_free(void *p) {
    if (!p) return;
    PoolHead *h = (PoolHead *)((char *)p - POOL_HEAD);
    if (h->cap == 0) free(h);
    else pool_put(h, h->cap);
}

/* Grows or shrinks a block, its first min(old, size) bytes kept: a mapped block grows by
 * mremap (no copy) and keeps its capacity when it shrinks by less than three quarters (the
 * expansion of a chunk trims its output, and the next chunk's wants that room again). */
static void *pool_realloc(void *p, size_t size) {
    if (!p) return pool_alloc(size, 0);
    if (size > SIZE_MAX - POOL_HEAD - 4096) return NULL;
    PoolHead *h = (PoolHead *)((char *)p - POOL_HEAD);
    size_t need = size + POOL_HEAD;
    if (h->cap == 0) {
        if (need < POOL_MIN) {
            PoolHead *g = realloc(h, need);
            if (!g) return NULL;
            g->size = size;
            return (char *)g + POOL_HEAD;
        }
        void *q = pool_alloc(size, 0);
        if (!q) return NULL;
        memcpy(q, p, h->size < size ? h->size : size);
        free(h);
        return q;
    }
    if (need <= h->cap) {
        size_t cap = pool_class(need);
        if (cap < h->cap / 4) {  /* far smaller: the tail goes back to the system */
            munmap((char *)h + cap, h->cap - cap);
            h->cap = cap;
        }
        h->size = size;
        return p;
    }
    size_t cap = pool_class(need);
    PoolHead *g = mremap(h, h->cap, cap, MREMAP_MAYMOVE);
    if (g == MAP_FAILED) return NULL;
    g->cap = cap; g->size = size;
    return (char *)g + POOL_HEAD;
}

/* Unmaps pooled blocks until at most ``limit`` bytes stay pooled. */
static void pool_trim(size_t limit) {
    for (;;) {
        void *b = NULL; size_t cap = 0;
        pthread_mutex_lock(&pool_lock);
        if (pool.bytes > limit && pool.n) { int o = pool_oldest(); cap = pool.cap[o]; b = pool_remove(o); }
        pthread_mutex_unlock(&pool_lock);
        if (!b) return;
        munmap(b, cap);
    }
}
