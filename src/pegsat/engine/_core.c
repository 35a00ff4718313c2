/* pegsat.engine._core: the compiled inner loops of pegsat's searches.
 *
 * A Board holds a board's jumps as bit masks and its symmetry group as byte lookup tables;
 * its methods apply jumps, moves and symmetries to whole buffers of positions, sort and
 * de-duplicate them, test membership and filter by pagoda functions. A Search is a
 * resumable depth-first search with a table of dead positions. Positions are one 64-bit word
 * (boards of at most 64 holes) or two (at most 128); the code for both comes from one
 * template, _core_impl.h. Buffers go in and out through the buffer protocol (numpy arrays
 * in, Blocks out); numpy's headers are needed only for its allocation-policy hook, through
 * which numpy's large arrays come from the core's pool (_pool.h).
 *
 * pegsat.engine.reference holds the same searches and level operations in plain Python;
 * tests/test_engine.py tests this against it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define NPY_TARGET_VERSION NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>

#include "_pool.h"

#ifndef CANON_BITS
#define CANON_BITS 11  /* holes per symmetry-table lookup (2048-entry tables: measured best) */
#endif
#define MAX_G 1024     /* symmetries at most (the model keeps the identity alone past 1000) */
#ifndef RADIX
#define RADIX 11       /* bits per radix-sort digit (two-word positions; one word: numpy) */
#endif
#ifndef SORT_CACHED
#define SORT_CACHED (1 << 19)  /* bytes of keys a sort's bucket is sorted in by least digits */
#endif
#ifndef LOW_DIGIT
#define LOW_DIGIT 12   /* bits of those digits at most (in the cache: 4096 counters) */
#endif

typedef uint64_t pos1_t;
typedef unsigned __int128 pos2_t;

typedef struct {
    PyObject_HEAD
    int n, W, J, G, nbytes, cbits, nchunks;
    int *src, *over, *dst;
    int **by_src, **by_dst, *n_by_src, *n_by_dst;
    void *need, *land, *flip;  /* J positions each, of the board's width */
    void *tables;              /* G * nchunks * 2^cbits positions: chunk -> image bits, per symmetry */
    void *fimg;                /* J * G positions: the image of flip[k] under each symmetry */
} CoreBoard;

typedef struct {
    PyObject_HEAD
    CoreBoard *board;
    PyObject *table_owner, *target_owner;
    Py_buffer table_view, target_view;
    int has_table_view, has_target_view;
    void *table; uint64_t mask; int bits;
    const void *target; Py_ssize_t ntarget; int target_pegs;
    void *stack, *keys, *imgs;  /* imgs: the G images of each stacked position */
    int *next, *path, *order;  /* next[d] < 0: the node at depth d is not expanded yet */
    void *oflip, *oneed;        /* flip[order[i]], need[order[i]]: the jumps in search order */
    uint64_t *legal; int lw;    /* per depth, lw words: bit i = jump order[i] is legal, untried */
    uint64_t *sleep;            /* per depth, lw words: the sleep set */
    uint64_t *indep;            /* per jump, lw words: the jumps (by order index) sharing no hole */
    uint64_t *can;              /* per depth, lw words: every legal jump (before sleep and tries) */
    int *touch, *ntouch;        /* per jump, the order indices of the jumps sharing a hole (J each) */
    void *ckeys; int *cidx;     /* scratch: one node's children's keys and order indices */
    int64_t *vals, *delta, *floors, *fmax; int P, K;  /* floors [P][K]: see pagoda_cut */
    uint64_t kall;              /* the K low bits */
    char goal_full[16], goal_empty[16];
    int min_pegs, max_pegs, min_left, canon, depth, pending, pnc;
    int64_t nodes, stored, hits, pruned, target_lookups;
} CoreSearch;

/* A position whose weight under pagoda p is val[p] + delta[p] (delta may be NULL) cannot
 * reach the goal when, for each of the goal's K parts (K = 1: the goal; else one survivor
 * each), some pagoda weighs it below that part's floor, floors[p][k]. One pagoda's floors
 * for several survivors are its weights on them, so a pagoda learned for one survivor also
 * rules out positions for the others; a position is cut only when every survivor is. */
static inline int pagoda_cut(const CoreSearch *s, const int64_t *val, const int64_t *delta) {
    const int P = s->P, K = s->K;
    if (K == 1) {
        for (int p = 0; p < P; p++) if (val[p] + (delta ? delta[p] : 0) < s->floors[p]) return 1;
        return 0;
    }
    uint64_t out = 0;
    for (int p = 0; p < P; p++) {
        const int64_t v = val[p] + (delta ? delta[p] : 0);
        if (v >= s->fmax[p]) continue;
        const int64_t *f = s->floors + (size_t)p * K;
        for (int k = 0; k < K; k++) out |= (uint64_t)(v < f[k]) << k;
        if (out == s->kall) return 1;
    }
    return 0;
}

/* A pooled block (``_pool.h``) of positions handed to Python without a copy: it exposes its memory
 * through the buffer protocol (numpy.frombuffer wraps it) and frees it when the last view
 * goes. The move expansion fills one without the GIL, where a bytearray could not grow. */
typedef struct {
    PyObject_HEAD
    void *data;
    Py_ssize_t len;
} Block;

static void Block_dealloc(Block *k) { pool_free(k->data); Py_TYPE(k)->tp_free((PyObject *)k); }

static int Block_getbuffer(Block *k, Py_buffer *view, int flags) {
    return PyBuffer_FillInfo(view, (PyObject *)k, k->data, k->len, 0, flags);
}

static PyBufferProcs Block_as_buffer = {(getbufferproc)Block_getbuffer, NULL};

static PyTypeObject BlockType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pegsat.engine._core.Block",
    .tp_basicsize = sizeof(Block),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)Block_dealloc,
    .tp_as_buffer = &Block_as_buffer,
    .tp_doc = "positions computed by the core (a buffer)",
};

/* Takes ownership of ``data`` (freed here on failure). */
static PyObject *block_of(void *data, Py_ssize_t len) {
    Block *k = PyObject_New(Block, &BlockType);
    if (!k) { pool_free(data); return NULL; }
    k->data = data; k->len = len;
    return (PyObject *)k;
}

/* A new block of ``len`` bytes (uninitialised), or NULL with MemoryError set. */
static PyObject *new_block(Py_ssize_t len) {
    void *data = pool_alloc(len > 0 ? (size_t)len : 1, 0);
    if (!data) return PyErr_NoMemory();
    return block_of(data, len);
}

#define BLOCK_DATA(o) ((char *)((Block *)(o))->data)

/* Cuts a block to its first ``len`` bytes; when they use less than ``share`` (num / 4) of its
 * capacity they are copied to a block of their size (an array kept for long holds little room
 * it does not use; the large block goes back to the pool for the next chunk). Returns -1
 * without memory. */
static int block_fit_share(PyObject *o, Py_ssize_t len, int num) {
    Block *k = (Block *)o;
    PoolHead *h = (PoolHead *)((char *)k->data - POOL_HEAD);
    size_t room = h->cap ? h->cap - POOL_HEAD : h->size;
    if ((size_t)len * 4 < room * (size_t)num) {
        void *d = pool_alloc(len > 0 ? (size_t)len : 1, 0);
        if (!d) return -1;
        memcpy(d, k->data, (size_t)len);
        pool_free(k->data);
        k->data = d;
    }
    k->len = len;
    return 0;
}

static int block_fit(PyObject *o, Py_ssize_t len) { return block_fit_share(o, len, 3); }

static void *need_1(const CoreBoard *b) { return b->need; }
static void *land_1(const CoreBoard *b) { return b->land; }
static void *flip_1(const CoreBoard *b) { return b->flip; }
static void *tables_1(const CoreBoard *b) { return b->tables; }
static void *fimg_1(const CoreBoard *b) { return b->fimg; }
#define need_2 need_1
#define land_2 land_1
#define flip_2 flip_1
#define tables_2 tables_1
#define fimg_2 fimg_1

#define W 1
#define POS pos1_t
#define SFX(name) name##_1
#include "_core_impl.h"
#undef W
#undef POS
#undef SFX
#undef POS_BYTES
#undef PROBES

#define W 2
#define POS pos2_t
#define SFX(name) name##_2
#include "_core_impl.h"
#undef W
#undef POS
#undef SFX
#undef POS_BYTES
#undef PROBES

/* ---- Board ------------------------------------------------------------------------------ */

static void Board_dealloc(CoreBoard *b) {
    free(b->src); free(b->over); free(b->dst);
    if (b->by_src) for (int h = 0; h < b->n; h++) free(b->by_src[h]);
    if (b->by_dst) for (int h = 0; h < b->n; h++) free(b->by_dst[h]);
    free(b->by_src); free(b->by_dst); free(b->n_by_src); free(b->n_by_dst);
    free(b->need); free(b->land); free(b->flip); free(b->tables); free(b->fimg);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

static void set_bit(void *arr, int W_, size_t i, int h) {
    if (W_ == 1) ((pos1_t *)arr)[i] |= (pos1_t)1 << h;
    else ((pos2_t *)arr)[i] |= (pos2_t)1 << h;
}

/* Board(n, jumps, perms): jumps is bytes of int32 (src, over, dst) triples; perms is bytes of
 * int32, G permutations of n holes, the identity first. */
static int Board_init(CoreBoard *b, PyObject *args, PyObject *kw) {
    int n;
    Py_buffer jb, pb;
    if (!PyArg_ParseTuple(args, "iy*y*", &n, &jb, &pb)) return -1;
    int ok = -1;
    if (n < 1 || n > 128) { PyErr_SetString(PyExc_ValueError, "boards of 1 to 128 holes"); goto out; }
    if (jb.len % 12 || pb.len % (4 * n)) { PyErr_SetString(PyExc_ValueError, "bad jumps or perms"); goto out; }
    b->n = n; b->W = n <= 64 ? 1 : 2; b->J = (int)(jb.len / 12); b->G = (int)(pb.len / (4 * n));
    if (b->G < 1 || b->G > MAX_G) { PyErr_SetString(PyExc_ValueError, "1 to 1024 symmetries"); goto out; }
    b->nbytes = (n + 7) / 8;
    b->cbits = CANON_BITS; b->nchunks = (n + CANON_BITS - 1) / CANON_BITS;
    size_t ps = b->W == 1 ? sizeof(pos1_t) : sizeof(pos2_t);
    const int32_t *jt = jb.buf, *pt = pb.buf;
    b->src = calloc(b->J, sizeof(int)); b->over = calloc(b->J, sizeof(int)); b->dst = calloc(b->J, sizeof(int));
    b->need = calloc(b->J, ps); b->land = calloc(b->J, ps); b->flip = calloc(b->J, ps);
    b->by_src = calloc(n, sizeof(int *)); b->by_dst = calloc(n, sizeof(int *));
    b->n_by_src = calloc(n, sizeof(int)); b->n_by_dst = calloc(n, sizeof(int));
    b->tables = calloc((size_t)b->G * b->nchunks << b->cbits, ps);
    b->fimg = calloc((size_t)b->G * (b->J ? b->J : 1), ps);
    if (!b->fimg || !b->src || !b->over || !b->dst || !b->need || !b->land || !b->flip || !b->by_src || !b->by_dst
        || !b->n_by_src || !b->n_by_dst || !b->tables) { PyErr_NoMemory(); goto out; }
    for (int k = 0; k < b->J; k++) {
        int a = jt[3 * k], m = jt[3 * k + 1], c = jt[3 * k + 2];
        if (a < 0 || a >= n || m < 0 || m >= n || c < 0 || c >= n) {
            PyErr_SetString(PyExc_ValueError, "a jump names a hole off the board"); goto out;
        }
        b->src[k] = a; b->over[k] = m; b->dst[k] = c;
        set_bit(b->need, b->W, k, a); set_bit(b->need, b->W, k, m);
        set_bit(b->land, b->W, k, c);
        set_bit(b->flip, b->W, k, a); set_bit(b->flip, b->W, k, m); set_bit(b->flip, b->W, k, c);
        b->n_by_src[a]++; b->n_by_dst[c]++;
    }
    for (int h = 0; h < n; h++) {
        b->by_src[h] = calloc(b->n_by_src[h] + 1, sizeof(int));
        b->by_dst[h] = calloc(b->n_by_dst[h] + 1, sizeof(int));
        if (!b->by_src[h] || !b->by_dst[h]) { PyErr_NoMemory(); goto out; }
        b->n_by_src[h] = 0; b->n_by_dst[h] = 0;
    }
    for (int k = 0; k < b->J; k++) {
        b->by_src[b->src[k]][b->n_by_src[b->src[k]]++] = k;
        b->by_dst[b->dst[k]][b->n_by_dst[b->dst[k]]++] = k;
    }
    for (int g = 0; g < b->G; g++) {
        for (int chunk = 0; chunk < b->nchunks; chunk++) {
            for (int v = 0; v < (1 << b->cbits); v++) {
                size_t i = (((size_t)g * b->nchunks + chunk) << b->cbits) + v;
                for (int bit = 0; bit < b->cbits; bit++) {
                    int h = chunk * b->cbits + bit;
                    if (h < n && (v >> bit & 1)) {
                        int img = pt[g * n + h];
                        if (img < 0 || img >= n) { PyErr_SetString(PyExc_ValueError, "bad permutation"); goto out; }
                        set_bit(b->tables, b->W, i, img);
                    }
                }
            }
        }
    }
    for (int k = 0; k < b->J; k++) {
        if (b->W == 1) images_1(b, ((pos1_t *)b->flip)[k], (pos1_t *)b->fimg + (size_t)k * b->G);
        else images_2(b, ((pos2_t *)b->flip)[k], (pos2_t *)b->fimg + (size_t)k * b->G);
    }
    ok = 0;
out:
    PyBuffer_Release(&jb); PyBuffer_Release(&pb);
    return ok;
}

static int positions(CoreBoard *b, Py_buffer *v, Py_ssize_t *n) {
    Py_ssize_t size = 8 * b->W;
    if (v->len % size) {
        PyErr_Format(PyExc_ValueError, "a buffer of %zd-byte positions has %zd bytes", size, v->len);
        return -1;
    }
    *n = v->len / size;
    return 0;
}

static PyObject *Board_step(CoreBoard *b, PyObject *args) {
    Py_buffer v; int reverse = 0, canon = 0; Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*|pp", &v, &reverse, &canon)) return NULL;
    PyObject *r = NULL;
    if (positions(b, &v, &n) == 0)
        r = b->W == 1 ? step_1(b, v.buf, n, reverse, canon) : step_2(b, v.buf, n, reverse, canon);
    PyBuffer_Release(&v);
    return r;
}

static PyObject *Board_degree(CoreBoard *b, PyObject *args) {
    Py_buffer v; int reverse = 0; Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*|p", &v, &reverse)) return NULL;
    PyObject *r = NULL;
    if (positions(b, &v, &n) == 0)
        r = b->W == 1 ? degree_1(b, v.buf, n, reverse) : degree_2(b, v.buf, n, reverse);
    PyBuffer_Release(&v);
    return r;
}

/* push(cur, t_mod, t_apx, nxt, out_mod, out_apx): for every jump from a position of ``cur``
 * (canonical one-word positions) to one of ``nxt`` (sorted canonical), add the parent's
 * counts (uint64, wrapping; float64) to the child's. Children are found through a bucket
 * index on their top bits, then a binary search inside the bucket, in batches whose loads
 * are prefetched (the lookups are memory-latency bound). Runs without the GIL: threads may
 * push disjoint parts of a level into their own outputs. Used by count. */
static int push_run(const CoreBoard *b, const uint64_t *P, Py_ssize_t n, const uint64_t *kids,
                    const uint16_t *deg, const uint64_t *TM,
                    const double *TA, const uint64_t *N, const uint32_t *starts, int B, int shift,
                    uint64_t *OM, double *OA) {
    enum { BATCH = 512 };
    uint64_t bq[BATCH]; uint32_t bp[BATCH], blo[BATCH], bhi[BATCH];
    int fill = 0;
    const size_t nb = (size_t)1 << B;
    const uint64_t *need = (const uint64_t *)need_1(b), *flip = (const uint64_t *)flip_1(b);
    Py_ssize_t o = 0;  /* next of ``kids`` */
    for (Py_ssize_t i = 0; i <= n; i++) {
        if (i < n && kids) {
            for (int d = 0; d < deg[i]; d++) {
                uint64_t q = kids[o++];
                if ((q >> shift) >= nb) return -1;
                bq[fill] = q; bp[fill] = (uint32_t)i;
                __builtin_prefetch(&starts[q >> shift]);
                fill++;
            }
        } else if (i < n) {
            uint64_t pos = P[i], img[MAX_G];
            int have = 0;
            for (int k = 0; k < b->J; k++) {
                if ((pos & flip[k]) != need[k]) continue;
                if (!have) { images_1(b, pos, img); have = 1; }
                uint64_t q = canon_by_1(b, img, k);
                if ((q >> shift) >= nb) return -1;
                bq[fill] = q; bp[fill] = (uint32_t)i;
                __builtin_prefetch(&starts[q >> shift]);
                fill++;
            }
        }
        if (fill > BATCH - b->J || (i == n && fill)) {
            for (int t = 0; t < fill; t++) {
                size_t bk = bq[t] >> shift;
                blo[t] = starts[bk]; bhi[t] = starts[bk + 1];
                __builtin_prefetch(&N[blo[t] + (bhi[t] - blo[t]) / 2]);
            }
            for (int t = 0; t < fill; t++) {
                uint32_t lo = blo[t], hi = bhi[t], end = bhi[t];
                uint64_t q = bq[t];
                while (lo < hi) { uint32_t mid = lo + (hi - lo) / 2; if (N[mid] < q) lo = mid + 1; else hi = mid; }
                if (lo >= end || N[lo] != q) return -1;
                OM[lo] += TM[bp[t]]; OA[lo] += TA[bp[t]];
            }
            fill = 0;
        }
    }
    return 0;
}

static PyObject *Board_push(CoreBoard *b, PyObject *args) {
    /* push(cur, t_mod, t_apx, nxt, out_mod, out_apx[, kids, degree]): with ``kids`` (the
     * canonical successors of ``cur`` as ``step`` gives them, ``degree`` per position) the
     * successors are read instead of generated again */
    Py_buffer cur, tm, ta, nxt, om, oa, kb = {0}, db = {0};
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*|y*y*", &cur, &tm, &ta, &nxt, &om, &oa, &kb, &db)) return NULL;
    PyObject *r = NULL;
    uint32_t *starts = NULL;
    Py_ssize_t n = cur.len / 8, m = nxt.len / 8;
    if (b->W != 1) { PyErr_SetString(PyExc_ValueError, "push: one-word positions only"); goto out; }
    if (cur.len % 8 || nxt.len % 8 || tm.len != cur.len || ta.len != cur.len || om.len != nxt.len
        || oa.len != nxt.len || m >= 0xFFFFFFFFll || n >= 0xFFFFFFFFll || (kb.buf && db.len != 2 * n)) {
        PyErr_SetString(PyExc_ValueError, "push: buffer sizes do not match"); goto out;
    }
    if (kb.buf) {
        Py_ssize_t total = 0;
        for (Py_ssize_t i = 0; i < n; i++) total += ((const uint16_t *)db.buf)[i];
        if (kb.len != 8 * total) { PyErr_SetString(PyExc_ValueError, "push: kids and degrees disagree"); goto out; }
    }
    const uint64_t *N = nxt.buf;
    uint64_t top = m ? N[m - 1] : 0;
    int bits = top ? 64 - __builtin_clzll(top) : 1;
    int B = bits < 22 ? bits : 22, shift = bits - B, status;
    starts = calloc(((size_t)1 << B) + 1, sizeof(uint32_t));
    if (!starts) { PyErr_NoMemory(); goto out; }
    for (Py_ssize_t j = 0; j < m; j++) starts[(N[j] >> shift) + 1]++;
    for (size_t i = 1; i <= ((size_t)1 << B); i++) starts[i] += starts[i - 1];
    Py_BEGIN_ALLOW_THREADS
    status = push_run(b, cur.buf, n, kb.buf, db.buf, tm.buf, ta.buf, N, starts, B, shift, om.buf, oa.buf);
    Py_END_ALLOW_THREADS
    if (status < 0) PyErr_SetString(PyExc_ValueError, "push: a successor is missing from the next level");
    else { Py_INCREF(Py_None); r = Py_None; }
out:
    free(starts);
    PyBuffer_Release(&cur); PyBuffer_Release(&tm); PyBuffer_Release(&ta);
    PyBuffer_Release(&nxt); PyBuffer_Release(&om); PyBuffer_Release(&oa);
    if (kb.buf) PyBuffer_Release(&kb);
    if (db.buf) PyBuffer_Release(&db);
    return r;
}

static PyObject *Board_moves(CoreBoard *b, PyObject *args) {
    Py_buffer v; int reverse = 0, canon = 0; Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*|pp", &v, &reverse, &canon)) return NULL;
    PyObject *r = NULL;
    if (positions(b, &v, &n) == 0)
        r = b->W == 1 ? moves_1(b, v.buf, n, reverse, canon) : moves_2(b, v.buf, n, reverse, canon);
    PyBuffer_Release(&v);
    return r;
}

static PyObject *Board_canon(CoreBoard *b, PyObject *args) {
    Py_buffer v; Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*", &v)) return NULL;
    PyObject *r = NULL;
    if (positions(b, &v, &n) == 0) {
        r = new_block(v.len);
        if (r) {
            char *dst = BLOCK_DATA(r);
            Py_BEGIN_ALLOW_THREADS  /* no Python objects: threads canonicalise side by side */
            if (b->W == 1) canon_all_1(b, v.buf, dst, n);
            else canon_all_2(b, v.buf, dst, n);
            Py_END_ALLOW_THREADS
        }
    }
    PyBuffer_Release(&v);
    return r;
}

/* permute(positions, perm): the image of each position under one permutation (int32 bytes). */
static PyObject *Board_permute(CoreBoard *b, PyObject *args) {
    Py_buffer v, pv; Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*", &v, &pv)) return NULL;
    PyObject *r = NULL;
    void *t = NULL;
    if (positions(b, &v, &n) < 0) goto out;
    if (pv.len != 4 * b->n) { PyErr_SetString(PyExc_ValueError, "a permutation of every hole"); goto out; }
    size_t ps = b->W == 1 ? sizeof(pos1_t) : sizeof(pos2_t);
    t = calloc((size_t)b->nbytes * 256, ps);
    if (!t) { PyErr_NoMemory(); goto out; }
    const int32_t *perm = pv.buf;
    for (int byte = 0; byte < b->nbytes; byte++)
        for (int val = 0; val < 256; val++)
            for (int bit = 0; bit < 8; bit++) {
                int h = byte * 8 + bit;
                if (h < b->n && (val >> bit & 1)) set_bit(t, b->W, (size_t)byte * 256 + val, perm[h]);
            }
    r = new_block(v.len);
    if (r) {
        if (b->W == 1) permute_all_1(t, b->nbytes, v.buf, BLOCK_DATA(r), n);
        else permute_all_2(t, b->nbytes, v.buf, BLOCK_DATA(r), n);
    }
out:
    free(t);
    PyBuffer_Release(&v); PyBuffer_Release(&pv);
    return r;
}

/* sort_unique(buffer): sorts in place, distinct values first; returns their number. */
static PyObject *Board_sort_unique(CoreBoard *b, PyObject *args) {
    Py_buffer v; Py_ssize_t n, m = -1;
    if (!PyArg_ParseTuple(args, "w*", &v)) return NULL;
    if (positions(b, &v, &n) == 0) {
        Py_BEGIN_ALLOW_THREADS
        m = b->W == 1 ? sort_unique_1(v.buf, n) : sort_unique_2(v.buf, n);
        Py_END_ALLOW_THREADS
        if (m < 0) PyErr_NoMemory();
    }
    PyBuffer_Release(&v);
    return m < 0 ? NULL : PyLong_FromSsize_t(m);
}

/* merge(buffer, count, fresh): the sorted ``fresh`` merged into the sorted first ``count``
 * positions of ``buffer``, which has room for exactly them. */
static PyObject *Board_merge(CoreBoard *b, PyObject *args) {
    Py_buffer v, q; Py_ssize_t na, n, nq;
    if (!PyArg_ParseTuple(args, "w*ny*", &v, &na, &q)) return NULL;
    int ok = positions(b, &v, &n) == 0 && positions(b, &q, &nq) == 0;
    if (ok && (na < 0 || na + nq != n)) {
        PyErr_SetString(PyExc_ValueError, "merge: the buffer must hold the set and room for the new positions");
        ok = 0;
    }
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        if (b->W == 1) merge_into_1(v.buf, na, q.buf, nq); else merge_into_2(v.buf, na, q.buf, nq);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&v); PyBuffer_Release(&q);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* member(sorted, query) -> a block of 0/1 bytes, one per query position. */
static PyObject *Board_member(CoreBoard *b, PyObject *args) {
    Py_buffer s, q; Py_ssize_t ns, nq;
    if (!PyArg_ParseTuple(args, "y*y*", &s, &q)) return NULL;
    PyObject *r = NULL;
    if (positions(b, &s, &ns) == 0 && positions(b, &q, &nq) == 0) {
        r = new_block(nq);
        if (r) {
            char *out = BLOCK_DATA(r);
            Py_BEGIN_ALLOW_THREADS
            if (b->W == 1) member_1(s.buf, ns, q.buf, nq, out);
            else member_2(s.buf, ns, q.buf, nq, out);
            Py_END_ALLOW_THREADS
        }
    }
    PyBuffer_Release(&s); PyBuffer_Release(&q);
    return r;
}

/* Per pagoda (weights int64 [P][n]) and byte of a position, the weight of each of the 256
 * byte values: a position's weight is nbytes lookups. Malloc'd (NULL without memory). */
static int64_t *byte_tables(const CoreBoard *b, const int64_t *w, int P) {
    int64_t *tab = calloc((size_t)P * b->nbytes * 256 + 1, sizeof(int64_t));
    if (!tab) return NULL;
    for (int p = 0; p < P; p++)
        for (int byte = 0; byte < b->nbytes; byte++)
            for (int val = 0; val < 256; val++) {
                int64_t sum = 0;
                for (int bit = 0; bit < 8; bit++) {
                    int h = byte * 8 + bit;
                    if (h < b->n && (val >> bit & 1)) sum += w[(size_t)p * b->n + h];
                }
                tab[((size_t)p * b->nbytes + byte) * 256 + val] = sum;
            }
    return tab;
}

/* Per byte of a position and value of that byte, the weights of the P pagodas (weights int64
 * [P][n]) side by side: rows [nbytes][256][P] (``keep``). Malloc'd (NULL without memory). */
static int64_t *byte_rows(const CoreBoard *b, const int64_t *w, int P) {
    int64_t *rows = calloc((size_t)P * b->nbytes * 256 + 1, sizeof(int64_t));
    if (!rows) return NULL;
    for (int byte = 0; byte < b->nbytes; byte++)
        for (int val = 0; val < 256; val++)
            for (int p = 0; p < P; p++) {
                int64_t sum = 0;
                for (int bit = 0; bit < 8; bit++) {
                    int h = byte * 8 + bit;
                    if (h < b->n && (val >> bit & 1)) sum += w[(size_t)p * b->n + h];
                }
                rows[((size_t)byte * 256 + val) * P + p] = sum;
            }
    return rows;
}

/* full(positions, masks, out): per position, how many of ``masks`` (positions of the board's
 * width) it holds full, one byte each into the writable ``out``. */
static PyObject *Board_full(CoreBoard *b, PyObject *args) {
    Py_buffer v, mv, ov; Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*w*", &v, &mv, &ov)) return NULL;
    PyObject *r = NULL;
    Py_ssize_t ps = b->W == 1 ? (Py_ssize_t)sizeof(pos1_t) : (Py_ssize_t)sizeof(pos2_t);
    if (positions(b, &v, &n) < 0) goto out;
    if (mv.len % ps || mv.len / ps > 255 || ov.len != n) {
        PyErr_SetString(PyExc_ValueError, "full: at most 255 masks of the board's width, one byte out a position");
        goto out;
    }
    Py_BEGIN_ALLOW_THREADS
    if (b->W == 1) full_1(v.buf, n, mv.buf, (int)(mv.len / ps), ov.buf);
    else full_2(v.buf, n, mv.buf, (int)(mv.len / ps), ov.buf);
    Py_END_ALLOW_THREADS
    Py_INCREF(Py_None);
    r = Py_None;
out:
    PyBuffer_Release(&v); PyBuffer_Release(&mv); PyBuffer_Release(&ov);
    return r;
}

/* keep(positions, weights, floors, alone): weights int64 [P][n], floors int64 [P]; alone is a
 * writable int64 [P] buffer that gets, per pagoda, the positions only it rules out. */
static PyObject *Board_keep(CoreBoard *b, PyObject *args) {
    Py_buffer v, wv, fv, av; Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*y*w*", &v, &wv, &fv, &av)) return NULL;
    PyObject *r = NULL;
    int64_t *tab = NULL;
    int P = (int)(fv.len / 8);
    if (positions(b, &v, &n) < 0) goto out;
    if (wv.len != (Py_ssize_t)P * b->n * 8 || av.len != (Py_ssize_t)P * 8) {
        PyErr_SetString(PyExc_ValueError, "weights, floors and alone do not agree"); goto out;
    }
    tab = byte_rows(b, wv.buf, P);
    if (!tab) { PyErr_NoMemory(); goto out; }
    r = b->W == 1 ? keep_1(b, v.buf, n, tab, fv.buf, P, av.buf) : keep_2(b, v.buf, n, tab, fv.buf, P, av.buf);
out:
    free(tab);
    PyBuffer_Release(&v); PyBuffer_Release(&wv); PyBuffer_Release(&fv); PyBuffer_Release(&av);
    return r;
}

/* score(positions, weights, iso, out): weights int64 [n]; out a writable int64 buffer, one
 * per position (see ``score_1``). */
static PyObject *Board_score(CoreBoard *b, PyObject *args) {
    Py_buffer v, wv, ov; Py_ssize_t n; long long iso;
    if (!PyArg_ParseTuple(args, "y*y*Lw*", &v, &wv, &iso, &ov)) return NULL;
    PyObject *r = NULL;
    void *nb = NULL;
    if (positions(b, &v, &n) < 0) goto out;
    if (wv.len != (Py_ssize_t)b->n * 8 || ov.len != n * 8) {
        PyErr_SetString(PyExc_ValueError, "weights or out do not agree with the board"); goto out;
    }
    nb = calloc(b->n, b->W == 1 ? sizeof(pos1_t) : sizeof(pos2_t));
    if (!nb) { PyErr_NoMemory(); goto out; }
    for (int h = 0; h < b->n; h++)
        for (int i = 0; i < b->n_by_src[h]; i++) {
            int over = b->over[b->by_src[h][i]];
            if (b->W == 1) ((pos1_t *)nb)[h] |= (pos1_t)1 << over;
            else ((pos2_t *)nb)[h] |= (pos2_t)1 << over;
        }
    Py_BEGIN_ALLOW_THREADS
    if (b->W == 1) score_1(b, v.buf, n, wv.buf, iso, nb, ov.buf);
    else score_2(b, v.buf, n, wv.buf, iso, nb, ov.buf);
    Py_END_ALLOW_THREADS
    Py_INCREF(Py_None);
    r = Py_None;
out:
    free(nb);
    PyBuffer_Release(&v); PyBuffer_Release(&wv); PyBuffer_Release(&ov);
    return r;
}

static PyObject *Board_get_width(CoreBoard *b, void *c) { return PyLong_FromLong(b->W); }
static PyObject *Board_get_n(CoreBoard *b, void *c) { return PyLong_FromLong(b->n); }

/* rehash(old, new): every position stored in the dead table ``old`` stored again in the
 * (larger) table ``new``, so a table that fills up can be replaced without losing what it
 * proved. Returns how many were stored. */
static PyObject *Board_rehash(CoreBoard *b, PyObject *args) {
    Py_buffer o, n;
    if (!PyArg_ParseTuple(args, "y*w*", &o, &n)) return NULL;
    size_t ps = b->W == 1 ? sizeof(pos1_t) : sizeof(pos2_t);
    Py_ssize_t ns = n.len / (Py_ssize_t)ps, os_ = o.len / (Py_ssize_t)ps;
    long long stored = 0;
    if (ns < 2 || (ns & (ns - 1)) || o.len % (Py_ssize_t)ps) {
        PyBuffer_Release(&o); PyBuffer_Release(&n);
        PyErr_SetString(PyExc_ValueError, "rehash: tables of 2**k positions");
        return NULL;
    }
    int bits = 0;
    while (((Py_ssize_t)1 << bits) < ns) bits++;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < os_; i++) {
        if (b->W == 1) {
            pos1_t key = ((const pos1_t *)o.buf)[i];
            if (key) stored += bury_1((pos1_t *)n.buf, (uint64_t)ns - 1, bits, key);
        } else {
            pos2_t key; memcpy(&key, (const char *)o.buf + i * ps, ps);
            if (key) stored += bury_2((pos2_t *)n.buf, (uint64_t)ns - 1, bits, key);
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&o); PyBuffer_Release(&n);
    return PyLong_FromLongLong(stored);
}

/* cut(positions, weights, floors) -> bytes, 1 where the position is cut: for each of the K
 * columns of floors [P][K] (K <= 64: one per survivor), some pagoda p weighs the position
 * below floors[p][k] (``pagoda_cut`` of the search, over an array; weights int64 [P][n]).
 * One-word positions. The certificates' repair pass (``proofs.deadset``) asks it for the
 * positions missing from a dead set, with every image of every pagoda: hundreds, of which
 * a few decide most positions, so the pagodas are tried in move-to-front order (one that
 * rules a column out goes first for the next position: sorted positions come in runs that
 * the same pagodas cut). The answer does not depend on the order. */
static PyObject *Board_cut(CoreBoard *b, PyObject *args) {
    Py_buffer v, wv, fv, cv, nv; Py_ssize_t n;
    cv.buf = nv.buf = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*|y*y*", &v, &wv, &fv, &cv, &nv)) return NULL;
    PyObject *r = NULL;
    int64_t *tab = NULL;
    if (positions(b, &v, &n) < 0) goto out;
    const int C = cv.buf ? (int)(cv.len / 8) : 0, S = 1 << (C < 16 ? C : 0);
    int P = b->n ? (int)(wv.len / 8 / b->n) : 0;
    int K = P ? (int)(fv.len / 8 / P / S) : 0;
    const int32_t *cols = nv.buf;
    int bad = b->W != 1 || wv.len != (Py_ssize_t)P * b->n * 8 || fv.len != (Py_ssize_t)S * P * K * 8 || K > 64
              || (P && K < 1) || C > 15 || (cv.buf != NULL) != (nv.buf != NULL) || (C && nv.len != S * 4);
    for (int s = 0; !bad && C && s < S; s++) bad = cols[s] < 0 || cols[s] > K;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "cut: one-word positions, weights [P][n], floors [S][P][K], 1 <= K <= 64; "
                        "with classes (at most 15 masks), a column count per signature");
        goto out;
    }
    tab = byte_tables(b, wv.buf, P);
    r = new_block(n ? n : 1);
    int *order = PyMem_RawMalloc(sizeof(int) * (size_t)(P ? P : 1));
    if (!tab || !r || !order) { Py_CLEAR(r); PyMem_RawFree(order); PyErr_NoMemory(); goto out; }
    for (int p = 0; p < P; p++) order[p] = p;
    const int64_t *floors = fv.buf;
    const uint64_t *masks = cv.buf;
    char *cut = BLOCK_DATA(r);
    const uint64_t *src = (const uint64_t *)v.buf;
    const int nb = b->nbytes;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t pos = src[i], ruled = 0;
        int sig = 0;
        for (int c = 0; c < C; c++) sig |= (__builtin_popcountll(pos & masks[c]) & 1) << c;
        const int k_n = C ? cols[sig] : K;  /* the columns (survivors) this position's class has */
        const uint64_t all = k_n == 64 ? ~0ull : ((1ull << k_n) - 1);
        const int64_t *fs = floors + (size_t)sig * P * K;
        for (int j = 0; j < P && ruled != all; j++) {
            const int p = order[j];
            const int64_t *t = tab + (size_t)p * nb * 256;
            int64_t s = 0;
            for (int k = 0; k < nb; k++) s += t[k * 256 + (int)((pos >> (8 * k)) & 255)];
            const int64_t *f = fs + (size_t)p * K;
            uint64_t now = 0;
            for (int k = 0; k < k_n; k++) now |= (uint64_t)(s < f[k]) << k;
            if (now & ~ruled) {  /* it ruled a column out: first from now on */
                ruled |= now;
                memmove(order + 1, order, sizeof(int) * (size_t)j);
                order[0] = p;
            }
        }
        cut[i] = P > 0 && k_n > 0 && ruled == all;
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(order);
    if (block_fit(r, n) < 0) { Py_CLEAR(r); PyErr_NoMemory(); }
out:
    free(tab);
    PyBuffer_Release(&v); PyBuffer_Release(&wv); PyBuffer_Release(&fv);
    if (cv.buf) PyBuffer_Release(&cv);
    if (nv.buf) PyBuffer_Release(&nv);
    return r;
}

/* fresh(parents, dead) -> (kids, forms): every child (one jump) of the one-word ``parents``
 * whose canonical form is not in the sorted ``dead``, as played, beside that form, ordered
 * by form (a child of two parents is there twice): the walk of a dead set's closure
 * (``proofs.deadset``) in one pass without the GIL, where successors, two sorts and two
 * membership tests each made one. The pairs are radix-sorted by form (digits on which all
 * agree skipped) and merged against ``dead`` by galloping. */
static PyObject *Board_fresh(CoreBoard *b, PyObject *args) {
    Py_buffer v, d; Py_ssize_t n, nd;
    if (!PyArg_ParseTuple(args, "y*y*", &v, &d)) return NULL;
    PyObject *kids = NULL, *forms = NULL, *r = NULL;
    uint64_t *key = NULL, *val = NULL, *k2 = NULL, *v2 = NULL;
    size_t *count = NULL;
    if (positions(b, &v, &n) < 0 || positions(b, &d, &nd) < 0) goto out;
    if (b->W != 1) { PyErr_SetString(PyExc_ValueError, "fresh: one-word positions"); goto out; }
    const uint64_t *src = v.buf, *dead = d.buf, *need = need_1(b), *flip = flip_1(b);
    Py_ssize_t total = 0, m = 0;
    int fail = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        for (int k = 0; k < b->J; k++) total += (src[i] & flip[k]) == need[k];
    size_t bytes = (size_t)(total ? total : 1) * sizeof(uint64_t);
    key = pool_alloc(bytes, 0); val = pool_alloc(bytes, 0); k2 = pool_alloc(bytes, 0); v2 = pool_alloc(bytes, 0);
    count = malloc(sizeof(size_t) << RADIX);
    if (!key || !val || !k2 || !v2 || !count) fail = 1;
    else {
        Py_ssize_t o = 0;
        uint64_t img[MAX_G];
        for (Py_ssize_t i = 0; i < n; i++) {
            int have = 0;
            for (int k = 0; k < b->J; k++) {
                if ((src[i] & flip[k]) != need[k]) continue;
                if (!have) { images_1(b, src[i], img); have = 1; }
                key[o] = canon_by_1(b, img, k);
                val[o++] = src[i] ^ flip[k];
            }
        }
        uint64_t all_or = 0, all_and = ~0ull;
        for (Py_ssize_t i = 0; i < total; i++) { all_or |= key[i]; all_and &= key[i]; }
        const unsigned dmask = (1u << RADIX) - 1;
        for (int shift = 0; shift < 64; shift += RADIX) {
            if (!(((all_or ^ all_and) >> shift) & dmask)) continue;
            memset(count, 0, sizeof(size_t) << RADIX);
            for (Py_ssize_t i = 0; i < total; i++) count[(key[i] >> shift) & dmask]++;
            size_t sum = 0;
            for (unsigned x = 0; x <= dmask; x++) { size_t c = count[x]; count[x] = sum; sum += c; }
            for (Py_ssize_t i = 0; i < total; i++) {
                size_t at = count[(key[i] >> shift) & dmask]++;
                k2[at] = key[i]; v2[at] = val[i];
            }
            uint64_t *t = key; key = k2; k2 = t;
            t = val; val = v2; v2 = t;
        }
        Py_ssize_t at = 0;  /* the first member of dead not below the current form */
        for (Py_ssize_t i = 0; i < total;) {
            const uint64_t c = key[i];
            Py_ssize_t j = i + 1;
            while (j < total && key[j] == c) j++;
            if (at < nd && dead[at] < c) {  /* gallop: dead[lo] < c */
                Py_ssize_t lo = at, step = 1;
                while (lo + step < nd && dead[lo + step] < c) { lo += step; step <<= 1; }
                Py_ssize_t hi = lo + step < nd ? lo + step : nd;
                lo++;
                while (lo < hi) { Py_ssize_t mid = lo + (hi - lo) / 2; if (dead[mid] < c) lo = mid + 1; else hi = mid; }
                at = lo;
            }
            if (!(at < nd && dead[at] == c))
                for (Py_ssize_t t = i; t < j; t++) { key[m] = c; val[m++] = val[t]; }
            i = j;
        }
    }
    Py_END_ALLOW_THREADS
    if (fail) { PyErr_NoMemory(); goto out; }
    kids = block_of(val, m * 8);  /* the blocks own them now */
    val = NULL;
    if (kids && block_fit(kids, m * 8) < 0) { Py_CLEAR(kids); PyErr_NoMemory(); }
    if (kids) { forms = block_of(key, m * 8); key = NULL; }
    if (forms && block_fit(forms, m * 8) < 0) { Py_CLEAR(forms); PyErr_NoMemory(); }
    if (kids && forms) r = PyTuple_Pack(2, kids, forms);
out:
    pool_free(key); pool_free(val); pool_free(k2); pool_free(v2); free(count);
    Py_XDECREF(kids); Py_XDECREF(forms);
    PyBuffer_Release(&v); PyBuffer_Release(&d);
    return r;
}

/* sieve(words, positions, test) -> None, or (test) a block of 0/1 bytes: a probe's sieve (a
 * Bloom filter blocked by 64-bit words: a position sets, or needs, three bits of one word).
 * A position's word among the ``words`` (at most 2^32) and its bits come from MurmurHash3's
 * 64-bit finaliser of it: the word from the top 32 bits scaled, the bits from the lowest three
 * 6-bit fields. Building ors the positions' bits in; testing answers 1 where all three are set
 * (0: the positions the sieve was built from surely do not hold it). The words of positions a
 * few ahead are fetched before they are needed. One-word positions. */
#define SIEVE_AHEAD 32
static inline uint64_t sieve_word(uint64_t x, uint64_t words, uint64_t *bits) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    *bits = (1ULL << (x & 63)) | (1ULL << ((x >> 6) & 63)) | (1ULL << ((x >> 12) & 63));
    return ((x >> 32) * words) >> 32;
}

static PyObject *Board_sieve(CoreBoard *b, PyObject *args) {
    Py_buffer w, v; int test; Py_ssize_t n; PyObject *sieve;
    if (!PyArg_ParseTuple(args, "Oy*p", &sieve, &v, &test)) return NULL;
    if (PyObject_GetBuffer(sieve, &w, PyBUF_C_CONTIGUOUS | (test ? 0 : PyBUF_WRITABLE)) < 0) {
        PyBuffer_Release(&v);
        return NULL;
    }
    PyObject *r = NULL;
    uint64_t words = (uint64_t)(w.len / 8);
    if (b->W != 1 || w.len % 8 || words < 1 || words > ((uint64_t)1 << 32)) {
        PyErr_SetString(PyExc_ValueError, "sieve: one-word positions, 1 to 2^32 words");
        goto out;
    }
    if (positions(b, &v, &n) < 0) goto out;
    uint64_t *sv = (uint64_t *)w.buf;
    const uint64_t *x = (const uint64_t *)v.buf;
    if (!test) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            uint64_t bits, at;
            if (i + SIEVE_AHEAD < n) __builtin_prefetch(&sv[sieve_word(x[i + SIEVE_AHEAD], words, &bits)], 1);
            at = sieve_word(x[i], words, &bits);
            sv[at] |= bits;
        }
        Py_END_ALLOW_THREADS
        r = Py_None;
        Py_INCREF(r);
        goto out;
    }
    r = new_block(n);
    if (!r) goto out;
    char *hit = BLOCK_DATA(r);
    Py_BEGIN_ALLOW_THREADS
    const uint64_t *ring[SIEVE_AHEAD];
    uint64_t need[SIEVE_AHEAD];
    for (Py_ssize_t i = 0; i < n + SIEVE_AHEAD; i++) {
        int at = (int)(i % SIEVE_AHEAD);
        if (i >= SIEVE_AHEAD) hit[i - SIEVE_AHEAD] = (*ring[at] & need[at]) == need[at];
        if (i < n) {
            ring[at] = sv + sieve_word(x[i], words, &need[at]);
            __builtin_prefetch(ring[at]);
        }
    }
    Py_END_ALLOW_THREADS
out:
    PyBuffer_Release(&w); PyBuffer_Release(&v);
    return r;
}

/* route(positions, bits) -> (routed, counts): one-word positions grouped by partition, the
 * top ``bits`` bits of hash_1 (Fibonacci hashing: what ``engine.spill.route`` computes), by a
 * stable counting sort, so each partition's positions keep their order (sorted stay sorted);
 * counts: int64, the positions of each of the 2^bits partitions. Two passes, no GIL. */
static PyObject *Board_route(CoreBoard *b, PyObject *args) {
    Py_buffer v; int bits; Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*i", &v, &bits)) return NULL;
    PyObject *routed = NULL, *counts = NULL, *r = NULL;
    if (b->W != 1 || bits < 0 || bits > 20) {
        PyErr_SetString(PyExc_ValueError, "route: one-word positions, 0 to 20 bits");
        goto out;
    }
    if (positions(b, &v, &n) < 0) goto out;
    Py_ssize_t parts = (Py_ssize_t)1 << bits;
    routed = new_block(n * 8);
    counts = new_block(parts * 8);
    int64_t *at = malloc((size_t)parts * sizeof(int64_t));
    if (!routed || !counts || !at) { free(at); PyErr_NoMemory(); goto out; }
    const uint64_t *src = (const uint64_t *)v.buf;
    uint64_t *dst = (uint64_t *)BLOCK_DATA(routed);
    int64_t *cnt = (int64_t *)BLOCK_DATA(counts);
    Py_BEGIN_ALLOW_THREADS
    memset(cnt, 0, (size_t)parts * sizeof(int64_t));
    const int shift = 64 - bits;
    if (bits == 0) {
        cnt[0] = n;
        memcpy(dst, src, (size_t)n * 8);
    } else {
        for (Py_ssize_t i = 0; i < n; i++) cnt[hash_1(src[i]) >> shift]++;
        int64_t sum = 0;
        for (Py_ssize_t q = 0; q < parts; q++) { at[q] = sum; sum += cnt[q]; }
        for (Py_ssize_t i = 0; i < n; i++) dst[at[hash_1(src[i]) >> shift]++] = src[i];
    }
    Py_END_ALLOW_THREADS
    free(at);
    r = PyTuple_Pack(2, routed, counts);
out:
    Py_XDECREF(routed); Py_XDECREF(counts);
    PyBuffer_Release(&v);
    return r;
}

static PyMethodDef Board_methods[] = {
    {"rehash", (PyCFunction)Board_rehash, METH_VARARGS, "rehash(old, new): the dead table's positions into a larger one"},
    {"step", (PyCFunction)Board_step, METH_VARARGS, "step(positions, reverse=False, canon=False): one jump on"},
    {"degree", (PyCFunction)Board_degree, METH_VARARGS, "degree(positions, reverse=False): legal jumps per position (uint16)"},
    {"push", (PyCFunction)Board_push, METH_VARARGS, "push(cur, t_mod, t_apx, nxt, out_mod, out_apx): counts along jumps"},
    {"moves", (PyCFunction)Board_moves, METH_VARARGS, "moves(positions, reverse=False, canon=False): one move on"},
    {"canon", (PyCFunction)Board_canon, METH_VARARGS, "canon(positions): least images under the group"},
    {"permute", (PyCFunction)Board_permute, METH_VARARGS, "permute(positions, perm): images"},
    {"sort_unique", (PyCFunction)Board_sort_unique, METH_VARARGS, "sort_unique(buffer) -> distinct count"},
    {"merge", (PyCFunction)Board_merge, METH_VARARGS, "merge(buffer, count, fresh) -> None"},
    {"member", (PyCFunction)Board_member, METH_VARARGS, "member(sorted, query) -> 0/1 bytes"},
    {"route", (PyCFunction)Board_route, METH_VARARGS, "route(positions, bits) -> (grouped by partition, counts)"},
    {"sieve", (PyCFunction)Board_sieve, METH_VARARGS, "sieve(words, positions, test) -> None, or which the sieve may hold"},
    {"fresh", (PyCFunction)Board_fresh, METH_VARARGS, "fresh(parents, dead) -> (kids, forms) whose forms dead misses"},
    {"cut", (PyCFunction)Board_cut, METH_VARARGS, "cut(positions, weights, floors) -> 0/1 bytes, pagoda cuts per survivor"},
    {"keep", (PyCFunction)Board_keep, METH_VARARGS, "keep(positions, weights, floors, alone)"},
    {"full", (PyCFunction)Board_full, METH_VARARGS, "full(positions, masks, out)"},
    {"score", (PyCFunction)Board_score, METH_VARARGS, "score(positions, weights, iso, out)"},
    {NULL}
};

static PyGetSetDef Board_getset[] = {
    {"width", (getter)Board_get_width, NULL, "64-bit words per position", NULL},
    {"n", (getter)Board_get_n, NULL, "holes", NULL},
    {NULL}
};

static PyTypeObject BoardType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pegsat.engine._core.Board",
    .tp_basicsize = sizeof(CoreBoard),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Board_init,
    .tp_dealloc = (destructor)Board_dealloc,
    .tp_methods = Board_methods,
    .tp_getset = Board_getset,
    .tp_doc = "Board(n, jumps, perms): a board's jumps and symmetry group, compiled",
};

/* ---- Search ----------------------------------------------------------------------------- */

static void Search_dealloc(CoreSearch *s) {
    if (s->has_table_view) PyBuffer_Release(&s->table_view);
    if (s->has_target_view) PyBuffer_Release(&s->target_view);
    Py_XDECREF(s->table_owner); Py_XDECREF(s->target_owner); Py_XDECREF(s->board);
    free(s->stack); free(s->keys); free(s->imgs); free(s->next); free(s->path); free(s->order);
    free(s->oflip); free(s->oneed); free(s->legal); free(s->sleep); free(s->indep); free(s->can); free(s->touch); free(s->ntouch); free(s->ckeys); free(s->cidx);
    free(s->vals); free(s->delta); free(s->floors); free(s->fmax);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

/* Search(board, start, full, empty, min_pegs, max_pegs, min_left, order, table, canon,
 *        delta, floors, values, target, target_pegs)
 * start/full/empty: 16 bytes little-endian; order: int32 jump ids; table: writable buffer of
 * 2**k positions (zeroed; may be shared memory); delta: int64 [J][P] weight change of each
 * jump, floors int64 [P][K] (K parts of the goal: see pagoda_cut), values int64 [P] at the
 * start; target: sorted canonical positions
 * with target_pegs pegs (or empty): reaching one is success, any other position with that
 * many pegs is dead. */
static int Search_init(CoreSearch *s, PyObject *args, PyObject *kw) {
    CoreBoard *b; Py_buffer st, fu, em, ov, dv, flv, vv;
    PyObject *table, *target;
    int min_pegs, max_pegs, min_left, canon, target_pegs;
    if (!PyArg_ParseTuple(args, "O!y*y*y*iiiy*Opy*y*y*Oi", &BoardType, &b, &st, &fu, &em, &min_pegs, &max_pegs,
                          &min_left, &ov, &table, &canon, &dv, &flv, &vv, &target, &target_pegs))
        return -1;
    int ok = -1;
    size_t ps = b->W == 1 ? sizeof(pos1_t) : sizeof(pos2_t);
    if (st.len != 16 || fu.len != 16 || em.len != 16 || ov.len != 4 * b->J) {
        PyErr_SetString(PyExc_ValueError, "positions are 16 bytes; the order names every jump"); goto out;
    }
    s->P = (int)(vv.len / 8);
    s->K = s->P ? (int)(flv.len / 8 / s->P) : 1;
    if (dv.len != (Py_ssize_t)b->J * s->P * 8 || flv.len != (Py_ssize_t)s->P * s->K * 8 || s->K < 1 || s->K > 64) {
        PyErr_SetString(PyExc_ValueError, "pagoda deltas, floors and values do not agree"); goto out;
    }
    s->kall = s->K == 64 ? ~(uint64_t)0 : ((uint64_t)1 << s->K) - 1;
    Py_INCREF(b); s->board = b;
    if (PyObject_GetBuffer(table, &s->table_view, PyBUF_WRITABLE) < 0) goto out;
    s->has_table_view = 1; Py_INCREF(table); s->table_owner = table;
    Py_ssize_t slots = s->table_view.len / (Py_ssize_t)ps;
    if (slots < 2 || (slots & (slots - 1))) { PyErr_SetString(PyExc_ValueError, "the table holds 2**k positions"); goto out; }
    s->table = s->table_view.buf; s->mask = (uint64_t)slots - 1;
    s->bits = 0; while (((Py_ssize_t)1 << s->bits) < slots) s->bits++;
    if (target != Py_None) {
        if (PyObject_GetBuffer(target, &s->target_view, PyBUF_SIMPLE) < 0) goto out;
        s->has_target_view = 1; Py_INCREF(target); s->target_owner = target;
        s->target = s->target_view.buf; s->ntarget = s->target_view.len / (Py_ssize_t)ps;
    }
    s->target_pegs = target_pegs;
    int depth = b->n + 2;
    s->stack = calloc(depth, ps); s->keys = calloc(depth, ps); s->imgs = calloc((size_t)depth * b->G, ps);
    s->next = calloc(depth, sizeof(int)); s->path = calloc(depth, sizeof(int));
    s->order = calloc(b->J, sizeof(int));
    s->lw = (b->J + 63) / 64;
    const size_t nj = b->J ? b->J : 1, lw = s->lw ? s->lw : 1;
    s->oflip = calloc(nj, ps); s->oneed = calloc(nj, ps);
    s->legal = calloc((size_t)depth * lw, sizeof(uint64_t));
    s->sleep = calloc((size_t)depth * lw, sizeof(uint64_t));
    s->can = calloc((size_t)depth * lw, sizeof(uint64_t));
    s->indep = calloc(nj * lw, sizeof(uint64_t));
    s->touch = calloc(nj * nj, sizeof(int)); s->ntouch = calloc(nj, sizeof(int));
    s->ckeys = calloc(nj, ps); s->cidx = calloc(nj, sizeof(int));
    s->vals = calloc((size_t)depth * (s->P ? s->P : 1), sizeof(int64_t));
    s->delta = calloc((size_t)b->J * (s->P ? s->P : 1), sizeof(int64_t));
    s->floors = calloc((size_t)(s->P ? s->P : 1) * s->K, sizeof(int64_t));
    s->fmax = calloc(s->P ? s->P : 1, sizeof(int64_t));
    if (!s->fmax || !s->stack || !s->keys || !s->imgs || !s->next || !s->path || !s->order || !s->oflip || !s->oneed || !s->legal || !s->sleep || !s->indep || !s->can || !s->touch || !s->ntouch || !s->ckeys || !s->cidx || !s->vals || !s->delta || !s->floors) {
        PyErr_NoMemory(); goto out;
    }
    memcpy(s->order, ov.buf, 4 * b->J);
    for (int i = 0; i < b->J; i++)
        if (s->order[i] < 0 || s->order[i] >= b->J) { PyErr_SetString(PyExc_ValueError, "bad jump order"); goto out; }
    for (int i = 0; i < b->J; i++) {
        memcpy((char *)s->oflip + i * ps, (const char *)b->flip + (size_t)s->order[i] * ps, ps);
        memcpy((char *)s->oneed + i * ps, (const char *)b->need + (size_t)s->order[i] * ps, ps);
    }
    for (int k = 0; k < b->J; k++)
        for (int i = 0; i < b->J; i++) {
            int j = s->order[i], shared = 0;
            int hk[3] = {b->src[k], b->over[k], b->dst[k]}, hj[3] = {b->src[j], b->over[j], b->dst[j]};
            for (int x = 0; x < 3; x++) for (int y = 0; y < 3; y++) shared |= hk[x] == hj[y];
            if (!shared) s->indep[(size_t)k * s->lw + i / 64] |= (uint64_t)1 << (i % 64);
            else s->touch[(size_t)k * b->J + s->ntouch[k]++] = i;
        }
    memcpy(s->delta, dv.buf, dv.len); memcpy(s->floors, flv.buf, flv.len); memcpy(s->vals, vv.buf, vv.len);
    for (int p = 0; p < s->P; p++) {
        s->fmax[p] = s->floors[(size_t)p * s->K];
        for (int k = 1; k < s->K; k++) if (s->floors[(size_t)p * s->K + k] > s->fmax[p]) s->fmax[p] = s->floors[(size_t)p * s->K + k];
    }
    memcpy(s->stack, st.buf, ps);
    if (b->W == 1) images_1(b, *(pos1_t *)s->stack, (pos1_t *)s->imgs);
    else images_2(b, *(pos2_t *)s->stack, (pos2_t *)s->imgs);
    memcpy(s->goal_full, fu.buf, 16); memcpy(s->goal_empty, em.buf, 16);
    s->min_pegs = min_pegs; s->max_pegs = max_pegs; s->min_left = min_left; s->canon = canon;
    s->next[0] = -1; s->depth = 0;
    ok = 0;
out:
    PyBuffer_Release(&st); PyBuffer_Release(&fu); PyBuffer_Release(&em); PyBuffer_Release(&ov);
    PyBuffer_Release(&dv); PyBuffer_Release(&flv); PyBuffer_Release(&vv);
    return ok;
}

static PyObject *Search_run(CoreSearch *s, PyObject *args) {
    long long budget;
    if (!PyArg_ParseTuple(args, "L", &budget)) return NULL;
    if (s->depth < 0) return PyLong_FromLong(2);
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = s->board->W == 1 ? run_1(s, budget, 0) : run_2(s, budget, 0);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(r);
}

/* run_lanes((search, ...), budget) -> (index, code): the searches (lanes; they must share
 * one board) run interleaved in this thread, each yielding once it has asked for a node's
 * children's table slots, so one lane's memory misses overlap the others' work (a dead-table
 * read is a miss in a table of gigabytes: diamond e1's open game, one thread, 60 M nodes,
 * 2^27 slots: 3.7 M nodes/s alone, 5.0 with two lanes, 4.7 with three); until one finds a
 * plan or exhausts its tree (code 1 or 2, with its index), or budget nodes in all (code 0;
 * index -1). A lane that cannot yield (a small table: no prefetching) runs LANE_SLICE nodes
 * at a time. */
#define LANE_SLICE 4096
static PyTypeObject SearchType;

static PyObject *run_lanes(PyObject *mod, PyObject *args) {
    PyObject *seq; long long budget;
    if (!PyArg_ParseTuple(args, "O!L", &PyTuple_Type, &seq, &budget)) return NULL;
    Py_ssize_t L = PyTuple_GET_SIZE(seq);
    if (L < 1 || L > 64) { PyErr_SetString(PyExc_ValueError, "run_lanes: 1 to 64 searches"); return NULL; }
    CoreSearch *lanes[64];
    for (Py_ssize_t i = 0; i < L; i++) {
        PyObject *o = PyTuple_GET_ITEM(seq, i);
        if (!PyObject_TypeCheck(o, &SearchType)) { PyErr_SetString(PyExc_TypeError, "run_lanes: searches"); return NULL; }
        lanes[i] = (CoreSearch *)o;
        if (lanes[i]->board != lanes[0]->board) { PyErr_SetString(PyExc_ValueError, "run_lanes: one board"); return NULL; }
    }
    int W = lanes[0]->board->W, code = 0, who = -1;
    Py_BEGIN_ALLOW_THREADS
    int64_t start = 0, end;
    for (Py_ssize_t i = 0; i < L; i++) start += lanes[i]->nodes;
    end = start + budget;
    for (Py_ssize_t i = 0; i < L && who < 0; i++) if (lanes[i]->depth < 0) { who = (int)i; code = 2; }
    while (who < 0) {
        int64_t done = 0;
        for (Py_ssize_t i = 0; i < L; i++) {
            CoreSearch *s = lanes[i];
            int r = W == 1 ? run_1(s, LANE_SLICE, 1) : run_2(s, LANE_SLICE, 1);
            if (r == 1 || r == 2) { who = (int)i; code = r; break; }
            done += s->nodes;
        }
        if (who < 0 && done >= end) break;
    }
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(ii)", who, code);
}

/* The jumps from the start to the current node (the plan, once run() said 1). */
static PyObject *Search_path(CoreSearch *s, PyObject *noargs) {
    int d = s->depth < 0 ? 0 : s->depth;
    PyObject *out = PyList_New(d);
    if (!out) return NULL;
    for (int i = 0; i < d; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(s->path[i]));
    return out;
}

static PyObject *Search_stats(CoreSearch *s, PyObject *noargs) {
    return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L}", "nodes", (long long)s->nodes, "stored", (long long)s->stored,
                         "table_hits", (long long)s->hits, "pagoda_cuts", (long long)s->pruned,
                         "target_lookups", (long long)s->target_lookups);
}

static PyMethodDef Search_methods[] = {
    {"run", (PyCFunction)Search_run, METH_VARARGS, "run(budget) -> 0 budget spent, 1 found, 2 exhausted"},
    {"path", (PyCFunction)Search_path, METH_NOARGS, "the jump ids from the start to the current node"},
    {"stats", (PyCFunction)Search_stats, METH_NOARGS, "counters"},
    {NULL}
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pegsat.engine._core.Search",
    .tp_basicsize = sizeof(CoreSearch),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_doc = "a resumable depth-first search with a table of dead positions",
};

/* ---- the pool (_pool.h) as numpy's allocator and to Python ---------------------------- */

static void *np_malloc(void *ctx, size_t size) { (void)ctx; return pool_alloc(size, 0); }
static void *np_calloc(void *ctx, size_t n, size_t size) {
    (void)ctx;
    if (size && n > SIZE_MAX / size) return NULL;
    return pool_alloc(n * size, 1);
}
static void *np_realloc(void *ctx, void *p, size_t size) { (void)ctx; return pool_realloc(p, size); }
static void np_free(void *ctx, void *p, size_t size) { (void)ctx; (void)size; pool_free(p); }

static PyDataMem_Handler pool_handler = {
    "pegsat_pool", 1, {NULL, np_malloc, np_calloc, np_realloc, np_free},
};
static PyObject *pool_capsule;

/* use_pool(): numpy's arrays made in the calling context (thread, task) come from the pool. */
static PyObject *use_pool(PyObject *self, PyObject *args) {
    (void)self; (void)args;
    PyObject *old = PyDataMem_SetHandler(pool_capsule);
    if (!old) return NULL;
    Py_DECREF(old);
    Py_RETURN_NONE;
}

/* pool_limit(bytes): the most bytes the pool keeps (past them the oldest blocks go now). */
static PyObject *pool_limit(PyObject *self, PyObject *args) {
    (void)self;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "n", &limit)) return NULL;
    if (limit < 0) { PyErr_SetString(PyExc_ValueError, "pool_limit: bytes >= 0"); return NULL; }
    pthread_mutex_lock(&pool_lock);
    pool.limit = (size_t)limit;
    pthread_mutex_unlock(&pool_lock);
    pool_trim((size_t)limit);
    Py_RETURN_NONE;
}

/* pool_release(): every pooled block back to the system. */
static PyObject *pool_release(PyObject *self, PyObject *args) {
    (void)self; (void)args;
    pool_trim(0);
    Py_RETURN_NONE;
}

/* pool_stats() -> (idle bytes, idle blocks, requests served as they were, requests served by
 * trimming or growing an idle block, requests mapped fresh, limit). */
static PyObject *pool_stats(PyObject *self, PyObject *args) {
    (void)self; (void)args;
    pthread_mutex_lock(&pool_lock);
    size_t bytes = pool.bytes, limit = pool.limit;
    int n = pool.n;
    uint64_t hits = pool.hits, reshaped = pool.reshaped, fresh = pool.fresh;
    pthread_mutex_unlock(&pool_lock);
    return Py_BuildValue("(niKKKn)", (Py_ssize_t)bytes, n, (unsigned long long)hits,
                         (unsigned long long)reshaped, (unsigned long long)fresh, (Py_ssize_t)limit);
}

static PyMethodDef core_functions[] = {
    {"run_lanes", (PyCFunction)run_lanes, METH_VARARGS, "run_lanes((search, ...), budget) -> (index, code)"},
    {"use_pool", (PyCFunction)use_pool, METH_NOARGS, "use_pool(): numpy's arrays made here come from the pool"},
    {"pool_limit", (PyCFunction)pool_limit, METH_VARARGS, "pool_limit(bytes): the most bytes the pool keeps"},
    {"pool_release", (PyCFunction)pool_release, METH_NOARGS, "pool_release(): every pooled block unmapped"},
    {"pool_stats", (PyCFunction)pool_stats, METH_NOARGS, "pool_stats() -> (idle bytes, idle blocks, hits, reshaped, fresh, limit)"},
    {NULL}
};

static struct PyModuleDef coremodule = {
    PyModuleDef_HEAD_INIT, "_core", "pegsat's compiled search core", -1, core_functions,
};

PyMODINIT_FUNC PyInit__core(void) {
    import_array();
    if (!pool_capsule) {
        pool_capsule = PyCapsule_New(&pool_handler, "mem_handler", NULL);
        if (!pool_capsule) return NULL;
        pthread_atfork(pool_prefork, pool_postfork, pool_postfork);
    }
    if (PyType_Ready(&BoardType) < 0 || PyType_Ready(&SearchType) < 0 || PyType_Ready(&BlockType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&coremodule);
    if (!m) return NULL;
    Py_INCREF(&BoardType); PyModule_AddObject(m, "Board", (PyObject *)&BoardType);
    Py_INCREF(&SearchType); PyModule_AddObject(m, "Search", (PyObject *)&SearchType);
    return m;
}
