/* pegsat's independent checker, compiled: the hot loops of the checks of certificates.
 *
 * Written apart from the search core (engine/_core.c): it includes no header of the core and
 * calls none of its functions, so that it can be read, and trusted, on its own. Each function
 * has a numpy twin in checks/closure.py, checks/kit.py or checks/moves.py (named below), the reference
 * the tests hold it to (tests/test_checkcore.py), on accepted and tampered certificates alike.
 *
 * A position is a uint64: bit h is set when hole h holds a peg. Arrays come through Python's
 * buffer protocol, C-contiguous, of 8-byte items (``member``'s answer: 1-byte items); nothing
 * is kept between calls, and no call holds the GIL while it loops.
 *
 *   children(parents, need, land, flip, images, flip_images, groups, reverse[, out]) -> bytearray
 *       Every child of every parent by one jump (``reverse``: every position one jump before
 *       it), in order, parent by parent and jump by jump (with ``out``: written into it, as
 *       many parents' as it holds, and (parents done, children written) answered). A jump j
 *       moves the peg of one end of a line over the middle into the other end: it is legal
 *       when the holes of need[j] are pegged and those of land[j] empty (reversed: the other
 *       way round), and it toggles the three holes, flip[j]. With ``images`` (G symmetries
 *       x B bytes x 256: the image of each byte value of each byte of a position) each child
 *       is written as its least image: the least of its G images, the symmetries counting
 *       the identity. The image of a child x ^ flip[j] is the image of x ^ the image of
 *       flip[j] (``flip_images``: G x J), so a parent's images are made once, and only for a
 *       parent with a legal jump.
 *       (``Closure.children``.)
 *   moves(parents, flip, want, from, to, first) -> bytearray
 *       Every position one move from every parent, with repeats: a move is a chain of jumps by
 *       one peg. Jump j toggles flip[j] and is legal where the position's holes of flip[j]
 *       are want[j] (forward: its two pegs there, its landing hole empty; a move undone: the
 *       other way round); the moving peg stands on from[j] before it and on to[j] after. The
 *       jumps come sorted by from[]: first[h] .. first[h + 1] - 1 are those leaving hole h.
 *       Every chain's every prefix is a move; a parent's states (position, the peg's hole)
 *       are kept once each, hop by hop. (``moves.one_move``.)
 *   least(positions, images, out)      each position's least image. (``Closure.canonical``.)
 *   weigh(positions, table, out)       each position's weight under a pagoda: the sum of
 *                                      table[b][byte b] (B x 256 int64). (``Closure.weighs``.)
 *   excluded(positions, weigh, floors, tops, values, masks, by_class, class_masks, goal, holewise, out)
 *                                      out[i] = 1 when position i is excluded: no more pegs than
 *                                      goal[4] without being a goal position (goal: full, empty,
 *                                      least and most pegs, that count), or by the pagodas. By
 *                                      their floors: some pagoda k weighs it below floors[k] (or
 *                                      above tops[k], when tops are given: the start's weights);
 *                                      weigh is then B x 256 x K, every pagoda's weight of a byte
 *                                      value side by side, so all K weights are summed at once.
 *                                      ``holewise``: every hole its class allows (by_class[the
 *                                      parities of its pegs on class_masks]) weighs more than it
 *                                      under some pagoda (weigh: K x B x 256; values[k]: the
 *                                      pagoda's weights of the allowed holes ascending, A of them;
 *                                      masks[k][j]: the holes from the j-th on): hole after hole
 *                                      of those not yet ruled out, the pagodas tried in the order
 *                                      of the last to rule that hole out, each weighed once a
 *                                      position.
 *                                      (``Closure.excluded``.)
 *   distinct(positions) -> n           sorted ascending without repeats, in place, by a radix
 *                                      sort (highest digit first down to buckets the cache
 *                                      holds, then lowest first); the first n are the answer.
 *                                      (``closure.distinct``.)
 *   route(positions, multiplier, bits) -> (bytearray, bounds)
 *                                      the positions grouped by partition, in their order within
 *                                      each (a stable counting sort), a position's partition the
 *                                      top ``bits`` bits of its product with ``multiplier``
 *                                      modulo 2^64; bounds[q] .. bounds[q + 1] are partition q's.
 *                                      (``kit.partition`` and a stable sort.)
 *   sorted_groups(positions, out, multiplier, bits) -> bounds
 *                                      the positions grouped by partition (as ``route``), each
 *                                      partition's sorted without repeats, written to ``out``
 *                                      (``positions``: the scratch). (``kit.sorted_groups``.)
 *   part_fault(positions, holes, pegs, multiplier, bits, p) -> 0..4
 *                                      what is wrong with a part of a level, in one pass.
 *                                      (``kit.part_fault``.)
 *   vector(on) -> was                  the legal jumps tested four at a time with AVX2, where
 *                                      the processor has it (on), or one at a time.
 *   member(part, queries, out)         out[i] = 1 when the sorted ``part`` holds queries[i],
 *                                      the queries sorted too (a merge that gallops through
 *                                      the part past the queries' gaps). (``_member``.)
 *   sieve(words, positions, out)       a Bloom filter blocked by words: with ``out`` None, each
 *                                      position's three bits set in ``words``; else out[i] = 1
 *                                      when all three of position i's bits are set (0: the
 *                                      positions the words were made from surely do not hold
 *                                      it). A position's word and bits come from a mix of it
 *                                      (``spot``). (``sieve.spots``.)
 *   sieves(list, positions, multiplier, bits, out)
 *                                      out[i] = 1 when the sieve of position i's partition (the
 *                                      top ``bits`` bits of its product with ``multiplier``
 *                                      modulo 2^64), list[partition], may hold it; 0 when it
 *                                      surely does not, or that sieve is None. (``sieve.perhaps``
 *                                      partition by partition.)
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;

/* A buffer of 8-byte items (1-byte when ``one`` is 1, 4 or 8 when it is 4), writable when asked: its
   data and length (in items). */
typedef struct {
    Py_buffer view;
    Py_ssize_t n;
    int held;
} Array;

static int array_get(PyObject *obj, Array *a, int writable, int one, const char *what) {
    a->held = 0;
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &a->view, flags) < 0) return -1;
    a->held = 1;
    Py_ssize_t size = one == 1 ? 1 : one == 4 && a->view.itemsize == 4 ? 4 : 8;  /* one == 4: 4 or 8 */
    if (a->view.itemsize != size || a->view.len % size) {
        PyErr_Format(PyExc_ValueError, "%s: items of %zd bytes expected", what, size);
        return -1;
    }
    a->n = a->view.len / size;
    return 0;
}

static void array_release(Array *a) {
    if (a->held) PyBuffer_Release(&a->view);
    a->held = 0;
}

#define RELEASE_ALL(arr, k) for (int _i = 0; _i < (k); _i++) array_release(&(arr)[_i])

/* The image of x under symmetry g: its bytes mapped through g's tables and or-ed. */
static inline u64 image(const u64 *tables, Py_ssize_t nbytes, Py_ssize_t g, u64 x) {
    const u64 *t = tables + (size_t)g * nbytes * 256;
    u64 out = 0;
    for (Py_ssize_t b = 0; b < nbytes; b++) out |= t[b * 256 + ((x >> (8 * b)) & 255)];
    return out;
}

/* The number of bytes of a position the tables cover: images holds G x B x 256 entries. */
static int table_bytes(Py_ssize_t entries, Py_ssize_t groups, Py_ssize_t *nbytes) {
    if (groups <= 0 || entries % (groups * 256) || entries / (groups * 256) > 8) {
        PyErr_SetString(PyExc_ValueError, "symmetry tables: G x B x 256 entries, B at most 8");
        return -1;
    }
    *nbytes = entries / (groups * 256);
    return 0;
}

/* The legal jumps of position p: j such that p & mask[j] == want[j], their indices written to
   legal[] in order, their count returned. mask and want hold a multiple of 4 entries (padded
   with jumps never legal: mask 0, want 1), legal room for 4 more than the jumps. The plain loop
   writes each index and keeps it when the jump is legal, without a branch; where the processor
   has AVX2, four jumps are tested at once and their legal ones' indices written together
   (PACK[bits]: the lanes set in bits, packed, as four 16-bit indices). ``vector(False)`` turns
   the AVX2 loop off (the tests run both). */
static int have_avx2, use_avx2;  /* the processor has it (asked at the module's load); in use */

static Py_ssize_t legal_plain(u64 p, const u64 *mask, const u64 *want, Py_ssize_t jumps, uint16_t *legal) {
    Py_ssize_t k = 0;
    for (Py_ssize_t j = 0; j < jumps; j++) {
        legal[k] = (uint16_t)j;
        k += (p & mask[j]) == want[j];
    }
    return k;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_LOOP 1
static u64 PACK[16];

__attribute__((target("avx2,popcnt")))
static Py_ssize_t legal_avx2(u64 p, const u64 *mask, const u64 *want, Py_ssize_t jumps, uint16_t *legal) {
    const __m256i pos = _mm256_set1_epi64x((long long)p);
    Py_ssize_t k = 0;
    for (Py_ssize_t j = 0; j < jumps; j += 4) {
        __m256i m = _mm256_loadu_si256((const __m256i *)(mask + j));
        __m256i w = _mm256_loadu_si256((const __m256i *)(want + j));
        __m256i eq = _mm256_cmpeq_epi64(_mm256_and_si256(pos, m), w);  /* a lane all ones: legal */
        unsigned bits = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(eq));
        u64 four = PACK[bits] + (u64)j * 0x0001000100010001ULL;  /* the lanes' indices, plus j */
        memcpy(legal + k, &four, sizeof four);
        k += __builtin_popcount(bits);
    }
    return k;
}
#endif

static Py_ssize_t legal_jumps(u64 p, const u64 *mask, const u64 *want, Py_ssize_t jumps, uint16_t *legal) {
#ifdef HAVE_AVX2_LOOP
    if (use_avx2) return legal_avx2(p, mask, want, jumps, legal);
#endif
    return legal_plain(p, mask, want, jumps, legal);
}

static void vector_init(void) {
#ifdef HAVE_AVX2_LOOP
    for (unsigned b = 0; b < 16; b++) {
        u64 v = 0;
        for (unsigned i = 0, k = 0; i < 4; i++)
            if (b >> i & 1) v |= (u64)i << (16 * k++);
        PACK[b] = v;
    }
    __builtin_cpu_init();
    have_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#endif
    use_avx2 = have_avx2;
}

static PyObject *vector(PyObject *self, PyObject *args) {
    int on;
    if (!PyArg_ParseTuple(args, "p", &on)) return NULL;
    int was = use_avx2;
    use_avx2 = have_avx2 && on;
    return PyBool_FromLong(was);
}

/* Copies of a jump table's masks and wants, padded to a multiple of 4 with jumps never legal;
   the padded count. */
static Py_ssize_t padded(Py_ssize_t jumps, u64 *mask, u64 *want) {
    Py_ssize_t n = (jumps + 3) & ~(Py_ssize_t)3;
    for (Py_ssize_t j = jumps; j < n; j++) mask[j] = 0, want[j] = 1;
    return n;
}

static PyObject *children(PyObject *self, PyObject *args) {
    PyObject *o[6], *given = Py_None;
    int reverse;
    Py_ssize_t groups;
    if (!PyArg_ParseTuple(args, "OOOOOOnp|O", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &groups, &reverse,
                          &given))
        return NULL;
    static const char *names[6] = {"parents", "need", "land", "flip", "images", "flip_images"};
    Array a[6];
    int got = 0;
    for (; got < 6; got++)
        if (array_get(o[got], &a[got], 0, 0, names[got]) < 0) { got++; RELEASE_ALL(a, got); return NULL; }
    const u64 *x = a[0].view.buf, *need = a[1].view.buf, *land = a[2].view.buf, *flip = a[3].view.buf;
    const u64 *tables = a[4].view.buf, *fimg = a[5].view.buf;
    Py_ssize_t jumps = a[1].n, nbytes = 0, written = 0;
    const char *why = NULL;
    if (a[2].n != jumps || a[3].n != jumps) why = "need, land and flip: one entry a jump";
    else if (jumps > 1024) why = "at most 1024 jumps";
    else if (groups < 0 || groups > 64) why = "at most 64 symmetries";
    else if (groups && (table_bytes(a[4].n, groups, &nbytes) < 0 || a[5].n != groups * jumps))
        why = PyErr_Occurred() ? "" : "flip_images: G x J entries";
    if (why) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, why);
        RELEASE_ALL(a, 6);
        return NULL;
    }
    Array into = {0};
    if (given != Py_None && array_get(given, &into, 1, 0, "out") < 0) {
        array_release(&into);
        RELEASE_ALL(a, 6);
        return NULL;
    }
    u64 mask[1024 + 4], want[1024 + 4];
    for (Py_ssize_t j = 0; j < jumps; j++) {
        mask[j] = need[j] | land[j];
        want[j] = reverse ? land[j] : need[j];
    }
    Py_ssize_t tested = padded(jumps, mask, want);
    /* The children go into ``out`` when it is given, as many parents' as it holds (a parent's
       all or none), else into a buffer grown as needed (a parent has at most ``jumps``), then
       into the answer, made once: counting them first would cost as much as the legal-jump
       test itself. */
    Py_ssize_t cap = into.held ? into.n : a[0].n * 16 + jumps, i = 0;
    u64 *out = into.held ? into.view.buf : malloc((size_t)cap * sizeof(u64));
    int failed = out == NULL;
    Py_BEGIN_ALLOW_THREADS
    u64 mine[64];
    uint16_t legal[1024 + 8];
    for (; i < a[0].n && !failed; i++) {
        u64 p = x[i];
        Py_ssize_t k = legal_jumps(p, mask, want, tested, legal);
        if (!k) continue;
        if (written + k > cap) {
            if (into.held) break;  /* out is full: parents i.. are the caller's next call's */
            cap = cap + cap / 2 + jumps;
            u64 *more = realloc(out, (size_t)cap * sizeof(u64));
            if (!more) { failed = 1; break; }
            out = more;
        }
        if (!groups) {
            for (Py_ssize_t t = 0; t < k; t++) out[written++] = p ^ flip[legal[t]];
            continue;
        }
        for (Py_ssize_t g = 0; g < groups; g++) mine[g] = image(tables, nbytes, g, p);
        for (Py_ssize_t t = 0; t < k; t++) {
            Py_ssize_t j = legal[t];
            u64 c = mine[0] ^ fimg[j];
            for (Py_ssize_t g = 1; g < groups; g++) {
                u64 v = mine[g] ^ fimg[g * jumps + j];
                c = v < c ? v : c;
            }
            out[written++] = c;
        }
    }
    Py_END_ALLOW_THREADS
    PyObject *answer;
    if (into.held) {
        answer = Py_BuildValue("nn", i, written);
        array_release(&into);
    } else {
        answer = failed ? PyErr_NoMemory()
                        : PyByteArray_FromStringAndSize((const char *)out, written * (Py_ssize_t)sizeof(u64));
        free(out);
    }
    RELEASE_ALL(a, 6);
    return answer;
}

/* A state of a move being made: the position, and the hole its moving peg stands on. */
typedef struct { u64 pos; Py_ssize_t hole; } Stand;

typedef struct { Stand *at; Py_ssize_t n, cap; } Stands;

static int stands_add(Stands *s, u64 pos, Py_ssize_t hole) {
    for (Py_ssize_t i = 0; i < s->n; i++)  /* a handful a parent: a scan finds repeats */
        if (s->at[i].pos == pos && s->at[i].hole == hole) return 0;
    if (s->n == s->cap) {
        Py_ssize_t cap = s->cap ? 2 * s->cap : 64;
        Stand *at = realloc(s->at, (size_t)cap * sizeof(Stand));
        if (!at) return -1;
        s->at = at, s->cap = cap;
    }
    s->at[s->n++] = (Stand){pos, hole};
    return 0;
}

static PyObject *moves(PyObject *self, PyObject *args) {
    PyObject *o[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5])) return NULL;
    static const char *names[6] = {"parents", "flip", "want", "from", "to", "first"};
    Array a[6];
    int got = 0;
    for (; got < 6; got++)
        if (array_get(o[got], &a[got], 0, 0, names[got]) < 0) { got++; RELEASE_ALL(a, got); return NULL; }
    const u64 *x = a[0].view.buf, *flip = a[1].view.buf, *want = a[2].view.buf;
    const u64 *from = a[3].view.buf, *to = a[4].view.buf, *first = a[5].view.buf;
    Py_ssize_t jumps = a[1].n, holes = a[5].n - 1;
    int bad = a[2].n != jumps || a[3].n != jumps || a[4].n != jumps || holes < 1 || holes > 64
              || first[0] != 0 || first[holes] != (u64)jumps;
    for (Py_ssize_t j = 0; !bad && j < jumps; j++)
        bad = from[j] >= (u64)holes || to[j] >= (u64)holes || j < (Py_ssize_t)first[from[j]]
              || j >= (Py_ssize_t)first[from[j] + 1];
    if (bad || jumps > 1024) {
        PyErr_SetString(PyExc_ValueError, bad ? "moves: the jumps sorted by the hole they leave, first[h] the "
                                                "first of hole h's" : "moves: at most 1024 jumps");
        RELEASE_ALL(a, 6);
        return NULL;
    }
    u64 mask[1024 + 4], wants[1024 + 4];
    memcpy(mask, flip, (size_t)jumps * sizeof(u64));
    memcpy(wants, want, (size_t)jumps * sizeof(u64));
    Py_ssize_t tested = padded(jumps, mask, wants);
    uint16_t legal[1024 + 8];
    u64 *out = NULL;
    Py_ssize_t written = 0, cap = 0;
    int failed = 0;
    Stands cur = {0}, nxt = {0};
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < a[0].n && !failed; i++) {
        cur.n = 0;
        Py_ssize_t k = legal_jumps(x[i], mask, wants, tested, legal);  /* a move's first jump: any peg */
        for (Py_ssize_t t = 0; t < k && !failed; t++)
            failed = stands_add(&cur, x[i] ^ flip[legal[t]], (Py_ssize_t)to[legal[t]]);
        while (cur.n && !failed) {  /* every chain so far is a move; then the same peg on */
            if (written + cur.n > cap) {
                cap = 2 * (written + cur.n) + 1024;
                u64 *more = realloc(out, (size_t)cap * sizeof(u64));
                if (!more) { failed = 1; break; }
                out = more;
            }
            nxt.n = 0;
            for (Py_ssize_t k = 0; k < cur.n && !failed; k++) {
                Stand s = cur.at[k];
                out[written++] = s.pos;
                for (u64 j = first[s.hole]; j < first[s.hole + 1] && !failed; j++)
                    if ((s.pos & flip[j]) == want[j]) failed = stands_add(&nxt, s.pos ^ flip[j], (Py_ssize_t)to[j]);
            }
            Stands t = cur; cur = nxt; nxt = t;
        }
    }
    Py_END_ALLOW_THREADS
    free(cur.at);
    free(nxt.at);
    RELEASE_ALL(a, 6);
    if (failed) { free(out); return PyErr_NoMemory(); }
    PyObject *answer = PyByteArray_FromStringAndSize((const char *)out, written * (Py_ssize_t)sizeof(u64));
    free(out);
    return answer;
}

static PyObject *least(PyObject *self, PyObject *args) {
    PyObject *o[3];
    Py_ssize_t groups;
    if (!PyArg_ParseTuple(args, "OOnO", &o[0], &o[1], &groups, &o[2])) return NULL;
    Array a[3];
    int got = 0;
    for (; got < 3; got++)
        if (array_get(o[got], &a[got], got == 2, 0, "least") < 0) { got++; RELEASE_ALL(a, got); return NULL; }
    Py_ssize_t nbytes = 0;
    if (table_bytes(a[1].n, groups, &nbytes) < 0 || a[2].n != a[0].n) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "least: out must be as long as positions");
        RELEASE_ALL(a, 3);
        return NULL;
    }
    const u64 *x = a[0].view.buf, *tables = a[1].view.buf;
    u64 *out = a[2].view.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < a[0].n; i++) {
        u64 m = image(tables, nbytes, 0, x[i]);
        for (Py_ssize_t g = 1; g < groups; g++) {
            u64 v = image(tables, nbytes, g, x[i]);
            if (v < m) m = v;
        }
        out[i] = m;
    }
    Py_END_ALLOW_THREADS
    RELEASE_ALL(a, 3);
    Py_RETURN_NONE;
}

static PyObject *weigh(PyObject *self, PyObject *args) {
    PyObject *o[3];
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2])) return NULL;
    Array a[3];
    int got = 0;
    for (; got < 3; got++)
        if (array_get(o[got], &a[got], got == 2, 0, "weigh") < 0) { got++; RELEASE_ALL(a, got); return NULL; }
    if (a[1].n % 256 || a[1].n / 256 > 8 || a[2].n != a[0].n) {
        PyErr_SetString(PyExc_ValueError, "weigh: a table of B x 256 weights, out as long as positions");
        RELEASE_ALL(a, 3);
        return NULL;
    }
    const u64 *x = a[0].view.buf;
    const int64_t *table = a[1].view.buf;
    int64_t *out = a[2].view.buf;
    Py_ssize_t nbytes = a[1].n / 256;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < a[0].n; i++) {
        int64_t w = 0;
        for (Py_ssize_t b = 0; b < nbytes; b++) w += table[b * 256 + ((x[i] >> (8 * b)) & 255)];
        out[i] = w;
    }
    Py_END_ALLOW_THREADS
    RELEASE_ALL(a, 3);
    Py_RETURN_NONE;
}

/* Closure.excluded: see the top. The arrays' shapes are checked against K pagodas, B bytes,
   A allowed holes and C class weightings before the loop. */
typedef struct {  /* the hole-by-hole rule's memory */
    Py_ssize_t *order;  /* per hole, the pagodas in the order tried: the last to rule it out first */
    int64_t *weight;    /* this position's weight under pagoda k, once made (made[k] == stamp) */
    uint32_t *made, stamp;
} Holewise;

static int excluded_one(u64 x, const int64_t *weigh, Py_ssize_t npag, Py_ssize_t nbytes, const int64_t *values,
                        const u64 *masks, Py_ssize_t nallowed, u64 left, Holewise *hw) {
    if (++hw->stamp == 0) { memset(hw->made, 0, sizeof(uint32_t) * (size_t)npag); hw->stamp = 1; }
    while (left) {  /* the lowest hole not yet ruled out */
        int h = __builtin_ctzll(left);
        Py_ssize_t *order = hw->order + (size_t)h * npag, j = 0;
        for (; j < npag; j++) {
            Py_ssize_t k = order[j];
            int64_t w;
            if (hw->made[k] == hw->stamp) w = hw->weight[k];
            else {
                const int64_t *t = weigh + (size_t)k * nbytes * 256;
                w = 0;
                for (Py_ssize_t b = 0; b < nbytes; b++) w += t[b * 256 + ((x >> (8 * b)) & 255)];
                hw->weight[k] = w;
                hw->made[k] = hw->stamp;
            }
            const int64_t *v = values + (size_t)k * nallowed;
            Py_ssize_t lo = 0, hi = nallowed;  /* how many allowed holes weigh at most w */
            while (lo < hi) {
                Py_ssize_t mid = (lo + hi) / 2;
                if (v[mid] <= w) lo = mid + 1; else hi = mid;
            }
            u64 out = masks[(size_t)k * (nallowed + 1) + lo];  /* the holes weighing more than x */
            if (out >> h & 1) {
                left &= ~out;
                memmove(order + 1, order, sizeof(Py_ssize_t) * (size_t)j);  /* k to the front */
                order[0] = k;
                break;
            }
        }
        if (j == npag) return 0;  /* no pagoda rules out hole h */
    }
    return 1;
}

/* By the floors (and tops): all K weights of x summed at once, a row of K a byte; in 32 bits
   when every sum fits (four to a vector register: ``Closure`` passes such tables then). */
#define BELOW_FLOOR(name, T)                                                                              \
    static int name(u64 x, const T *weigh, Py_ssize_t npag, Py_ssize_t nbytes, const T *floors,          \
                    const T *tops, T *restrict acc) {                                                    \
        const T *restrict row = weigh + (size_t)(x & 255) * npag;                                        \
        for (Py_ssize_t k = 0; k < npag; k++) acc[k] = row[k];                                           \
        for (Py_ssize_t b = 1; b < nbytes; b++) {                                                        \
            row = weigh + ((size_t)b * 256 + ((x >> (8 * b)) & 255)) * npag;                             \
            for (Py_ssize_t k = 0; k < npag; k++) acc[k] += row[k];                                      \
        }                                                                                                \
        int out = 0;                                                                                     \
        for (Py_ssize_t k = 0; k < npag; k++) out |= acc[k] < floors[k];                                 \
        if (tops)                                                                                        \
            for (Py_ssize_t k = 0; k < npag; k++) out |= acc[k] > tops[k];                               \
        return out;                                                                                      \
    }
BELOW_FLOOR(below_floor, int64_t)
BELOW_FLOOR(below_floor32, int32_t)

/* v as an int32, clamped (a floor or top beyond any 32-bit sum: the sums are within 2^30) */
static int32_t clamp32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < -INT32_MAX ? -INT32_MAX : (int32_t)v; }

static PyObject *excluded(PyObject *self, PyObject *args) {
    PyObject *o[9];
    unsigned long long full, empty;
    Py_ssize_t least_pegs, most_pegs, lo_pegs;
    int holewise;
    if (!PyArg_ParseTuple(args, "OOOOOOOO(KKnnn)pO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7],
                          &full, &empty, &least_pegs, &most_pegs, &lo_pegs, &holewise, &o[8]))
        return NULL;
    Array a[9];
    int got = 0;
    for (; got < 9; got++)
        if (array_get(o[got], &a[got], got == 8, got == 8 ? 1 : got == 1 && !holewise ? 4 : 0, "excluded") < 0) {
            got++;
            RELEASE_ALL(a, got);
            return NULL;
        }
    int narrow = a[1].view.itemsize == 4;  /* by the floors, 32-bit weights */
    Py_ssize_t npag = a[2].n, nclass = a[7].n;
    Py_ssize_t nbytes = npag ? a[1].n / (npag * 256) : 0;
    Py_ssize_t nallowed = npag ? a[4].n / npag : 0;
    if (a[8].n != a[0].n || nbytes > 8 || a[1].n != npag * nbytes * 256 || (a[3].n && a[3].n != npag)
        || a[4].n != npag * nallowed || (holewise && a[5].n != npag * (nallowed + 1)) || nclass > 16
        || a[6].n != ((Py_ssize_t)1 << nclass)) {
        PyErr_SetString(PyExc_ValueError, "excluded: B x 256 x K or K x B x 256 weights, K floors, no or K tops, "
                        "K x A values, K x (A + 1) masks, 2^C classes, out as long as positions");
        RELEASE_ALL(a, 9);
        return NULL;
    }
    int64_t *acc = malloc(sizeof(int64_t) * 3 * (size_t)(npag + 1));  /* narrow: acc, floors, tops */
    Holewise hw = {malloc(sizeof(Py_ssize_t) * 64 * (size_t)(npag + 1)), malloc(sizeof(int64_t) * (size_t)(npag + 1)),
                   calloc((size_t)npag + 1, sizeof(uint32_t)), 0};
    if (!acc || !hw.order || !hw.weight || !hw.made) {
        free(acc); free(hw.order); free(hw.weight); free(hw.made);
        RELEASE_ALL(a, 9);
        return PyErr_NoMemory();
    }
    for (int h = 0; h < 64; h++)
        for (Py_ssize_t k = 0; k < npag; k++) hw.order[(size_t)h * npag + k] = k;
    const u64 *x = a[0].view.buf, *masks = a[5].view.buf, *by_class = a[6].view.buf, *cmask = a[7].view.buf;
    const int64_t *weigh = a[1].view.buf, *floors = a[2].view.buf, *values = a[4].view.buf;
    const int64_t *tops = a[3].n ? a[3].view.buf : NULL;
    uint8_t *out = a[8].view.buf;
    int32_t *acc32 = (int32_t *)acc, *floors32 = acc32 + npag + 1, *tops32 = floors32 + npag + 1;
    for (Py_ssize_t k = 0; narrow && k < npag; k++) {
        floors32[k] = clamp32(floors[k]);
        if (tops) tops32[k] = clamp32(tops[k]);
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < a[0].n; i++) {
        u64 p = x[i];
        Py_ssize_t pegs = __builtin_popcountll(p);
        int goal = (p & full) == full && !(p & empty) && pegs >= least_pegs && pegs <= most_pegs;
        if (pegs <= lo_pegs && !goal) { out[i] = 1; continue; }
        if (!npag) { out[i] = 0; continue; }
        if (!holewise) {
            out[i] = (uint8_t)(narrow ? below_floor32(p, (const int32_t *)weigh, npag, nbytes, floors32,
                                                      tops ? tops32 : NULL, acc32)
                                      : below_floor(p, weigh, npag, nbytes, floors, tops, acc));
            continue;
        }
        size_t sig = 0;
        for (Py_ssize_t c = 0; c < nclass; c++) sig |= (size_t)(__builtin_popcountll(p & cmask[c]) & 1) << c;
        u64 left = by_class[sig];
        out[i] = !left || excluded_one(p, weigh, npag, nbytes, values, masks, nallowed, left, &hw);
    }
    Py_END_ALLOW_THREADS
    free(acc);
    free(hw.order);
    free(hw.weight);
    free(hw.made);
    RELEASE_ALL(a, 9);
    Py_RETURN_NONE;
}

/* Sorted ascending without repeats, in place; returns how many. A radix sort that keeps its
   work in the cache: an array of more than CACHED keys is scattered by its highest digit
   into buckets (most-significant digit first), each bucket sorted the same way; a bucket of
   at most CACHED keys by least-significant digits, as few passes as its keys' bits allow
   with digits of at most 11 bits, a digit all its keys share skipped. Then the repeats
   squeezed out. -1 when the scratch buffer cannot be had. */
static int ascending(const void *a, const void *b) {
    u64 x = *(const u64 *)a, y = *(const u64 *)b;
    return (x > y) - (x < y);
}

static Py_ssize_t squeeze(u64 *x, Py_ssize_t n) {
    Py_ssize_t m = 1;
    for (Py_ssize_t i = 1; i < n; i++)
        if (x[i] != x[m - 1]) x[m++] = x[i];
    return m;
}

#define DIGIT 11  /* bits of a digit at most: 2048 counters a pass stay in the cache */
#define CACHED 65536  /* keys sorted by least-significant digits: with their scratch, 1 MB */

/* x[0..n) sorted by the keys' low ``bits`` bits (the others all equal), tmp[0..n) scratch. */
static void sort_low(u64 *x, u64 *tmp, size_t n, int bits, size_t *count) {
    if (n < 2 || bits <= 0) return;
    if (n <= 32) {  /* insertion */
        for (size_t i = 1; i < n; i++) {
            u64 v = x[i];
            size_t k = i;
            for (; k && x[k - 1] > v; k--) x[k] = x[k - 1];
            x[k] = v;
        }
        return;
    }
    if (n > CACHED) {  /* the highest digit first: buckets small enough for the cache */
        int digit = 1;  /* buckets of about CACHED / 4 keys, were the keys spread evenly */
        while (digit < DIGIT && ((size_t)CACHED << digit) < 4 * n) digit++;
        if (digit > bits) digit = bits;
        int shift = bits - digit;
        const u64 mask = ((u64)1 << digit) - 1;
        size_t start[(1 << DIGIT) + 1];
        memset(start, 0, sizeof(start));
        for (size_t i = 0; i < n; i++) start[((x[i] >> shift) & mask) + 1]++;
        for (u64 v = 0; v < mask + 1; v++) start[v + 1] += start[v];
        size_t at[1 << DIGIT];
        memcpy(at, start, sizeof(at));
        for (size_t i = 0; i < n; i++) tmp[at[(x[i] >> shift) & mask]++] = x[i];
        memcpy(x, tmp, n * sizeof(u64));
        for (u64 v = 0; v <= mask; v++)
            sort_low(x + start[v], tmp + start[v], start[v + 1] - start[v], shift, count);
        return;
    }
    int passes = (bits + DIGIT - 1) / DIGIT, digit = (bits + passes - 1) / passes;
    const u64 mask = ((u64)1 << digit) - 1;
    memset(count, 0, ((size_t)passes << digit) * sizeof(size_t));
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < passes; d++) count[((size_t)d << digit) + ((x[i] >> (digit * d)) & mask)]++;
    u64 *src = x, *dst = tmp;
    for (int d = 0; d < passes; d++) {
        size_t *c = count + ((size_t)d << digit);
        if (c[(x[0] >> (digit * d)) & mask] == n) continue;  /* one digit for all: in order */
        size_t at = 0;
        for (u64 v = 0; v <= mask; v++) { size_t k = c[v]; c[v] = at; at += k; }
        for (size_t i = 0; i < n; i++) dst[c[(src[i] >> (digit * d)) & mask]++] = src[i];
        u64 *t = src; src = dst; dst = t;
    }
    if (src != x) memcpy(x, src, n * sizeof(u64));
}

static Py_ssize_t sort_distinct(u64 *x, Py_ssize_t n) {
    if (n < 2) return n;
    Py_ssize_t i = 1;
    while (i < n && x[i - 1] <= x[i]) i++;
    if (i == n) return squeeze(x, n);  /* in order already (a level's part, a merged bucket) */
    if (n < 4096) {  /* small: the radix sort's tables would cost more than the sort */
        qsort(x, (size_t)n, sizeof(u64), ascending);
        return squeeze(x, n);
    }
    u64 any = 0;
    for (i = 0; i < n; i++) any |= x[i];
    int bits = 64;
    while (bits > 1 && !(any >> (bits - 1))) bits--;
    u64 *tmp = malloc((size_t)n * sizeof(u64));
    size_t *count = malloc(((size_t)((64 + DIGIT - 1) / DIGIT) << DIGIT) * sizeof(size_t));
    if (!tmp || !count) { free(tmp); free(count); return -1; }
    sort_low(x, tmp, (size_t)n, bits, count);
    free(tmp);
    free(count);
    return squeeze(x, n);
}

static PyObject *distinct(PyObject *self, PyObject *args) {
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O", &obj)) return NULL;
    Array a;
    if (array_get(obj, &a, 1, 0, "distinct") < 0) { array_release(&a); return NULL; }
    Py_ssize_t m;
    Py_BEGIN_ALLOW_THREADS
    m = sort_distinct(a.view.buf, a.n);
    Py_END_ALLOW_THREADS
    array_release(&a);
    if (m < 0) return PyErr_NoMemory();
    return PyLong_FromSsize_t(m);
}

static PyObject *member(PyObject *self, PyObject *args) {
    PyObject *o[3];
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2])) return NULL;
    Array a[3];
    int got = 0;
    for (; got < 3; got++)
        if (array_get(o[got], &a[got], got == 2, got == 2, "member") < 0) { got++; RELEASE_ALL(a, got); return NULL; }
    if (a[2].n != a[1].n) {
        PyErr_SetString(PyExc_ValueError, "member: out as long as the queries");
        RELEASE_ALL(a, 3);
        return NULL;
    }
    const u64 *part = a[0].view.buf, *q = a[1].view.buf;
    uint8_t *out = a[2].view.buf;
    Py_ssize_t n = a[0].n, i = 0, bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < a[1].n; k++) {
        if (k && q[k] < q[k - 1]) { bad = 1; break; }
        if (i < n && part[i] < q[k]) {  /* gallop: part[lo] < q[k], then halve (lo, hi] */
            Py_ssize_t lo = i, step = 1;
            while (lo + step < n && part[lo + step] < q[k]) { lo += step; step <<= 1; }
            Py_ssize_t hi = lo + step < n ? lo + step : n;
            while (hi - lo > 1) {
                Py_ssize_t mid = lo + (hi - lo) / 2;
                if (part[mid] < q[k]) lo = mid; else hi = mid;
            }
            i = hi;
        }
        out[k] = i < n && part[i] == q[k];
    }
    Py_END_ALLOW_THREADS
    RELEASE_ALL(a, 3);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "member: the queries are not sorted");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* A position's sieve word among ``words`` (at most 2^32) and its three bits in it: the
   position mixed (splitmix64's finaliser), the word from the mix's top 32 bits scaled to
   ``words``, the bits from its lowest three 6-bit fields. */
static inline u64 spot(u64 x, u64 words, u64 *bits) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    *bits = ((u64)1 << (x & 63)) | ((u64)1 << ((x >> 6) & 63)) | ((u64)1 << ((x >> 12) & 63));
    return ((x >> 32) * words) >> 32;
}

#define AHEAD 32  /* positions whose words are fetched before they are tested */

static PyObject *sieve(PyObject *self, PyObject *args) {
    PyObject *o[3];
    if (!PyArg_ParseTuple(args, "OOO", &o[0], &o[1], &o[2])) return NULL;
    int add = o[2] == Py_None;
    Array a[3];
    int got = 0;
    for (; got < (add ? 2 : 3); got++)
        if (array_get(o[got], &a[got], got == 0 ? add : got == 2, got == 2, "sieve") < 0) {
            got++;
            RELEASE_ALL(a, got);
            return NULL;
        }
    if (a[0].n < 1 || (u64)a[0].n > ((u64)1 << 32) || (!add && a[2].n != a[1].n)) {
        PyErr_SetString(PyExc_ValueError, "sieve: 1 to 2^32 words, and out as long as the positions");
        RELEASE_ALL(a, got);
        return NULL;
    }
    u64 *w = a[0].view.buf;
    const u64 *x = a[1].view.buf;
    const u64 words = (u64)a[0].n;
    const Py_ssize_t n = a[1].n;
    Py_BEGIN_ALLOW_THREADS
    if (add) {
        for (Py_ssize_t i = 0; i < n; i++) {
            u64 bits, at;
            if (i + AHEAD < n) {
                at = spot(x[i + AHEAD], words, &bits);
                __builtin_prefetch(&w[at], 1);
            }
            at = spot(x[i], words, &bits);
            w[at] |= bits;
        }
    } else {
        uint8_t *out = a[2].view.buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            u64 bits, at;
            if (i + AHEAD < n) {
                at = spot(x[i + AHEAD], words, &bits);
                __builtin_prefetch(&w[at]);
            }
            at = spot(x[i], words, &bits);
            out[i] = (w[at] & bits) == bits;
        }
    }
    Py_END_ALLOW_THREADS
    RELEASE_ALL(a, got);
    Py_RETURN_NONE;
}

static PyObject *sieves(PyObject *self, PyObject *args) {
    PyObject *list, *o[2];
    unsigned long long multiplier;
    int bits;
    if (!PyArg_ParseTuple(args, "O!OKiO", &PyList_Type, &list, &o[0], &multiplier, &bits, &o[1])) return NULL;
    Py_ssize_t parts = PyList_GET_SIZE(list);
    if (bits < 0 || bits > 16 || parts != ((Py_ssize_t)1 << bits)) {
        PyErr_SetString(PyExc_ValueError, "sieves: a sieve or None for each of 2^bits partitions, bits at most 16");
        return NULL;
    }
    Array a[2];
    int got = 0;
    for (; got < 2; got++)
        if (array_get(o[got], &a[got], got == 1, got == 1, "sieves") < 0) { got++; RELEASE_ALL(a, got); return NULL; }
    Array *s = calloc((size_t)parts, sizeof(Array));
    const u64 **w = calloc((size_t)parts, sizeof(u64 *));
    u64 *words = calloc((size_t)parts, sizeof(u64));
    int bad = !s || !w || !words || a[1].n != a[0].n;
    Py_ssize_t held = 0;
    for (; !bad && held < parts; held++) {
        PyObject *item = PyList_GET_ITEM(list, held);
        if (item == Py_None) continue;
        if (array_get(item, &s[held], 0, 0, "sieves") < 0 || s[held].n < 1 || (u64)s[held].n > ((u64)1 << 32)) {
            held++;
            bad = 1;
            break;
        }
        w[held] = s[held].view.buf;
        words[held] = (u64)s[held].n;
    }
    if (!bad) {
        const u64 *x = a[0].view.buf;
        uint8_t *out = a[1].view.buf;
        Py_ssize_t n = a[0].n;
        const u64 *ring[AHEAD];  /* the words of the next positions, fetched ahead, and their bits */
        u64 ring_bits[AHEAD];
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n + AHEAD; i++) {
            int r = (int)(i % AHEAD);
            if (i >= AHEAD) {  /* position i - AHEAD, fetched AHEAD positions ago */
                out[i - AHEAD] = ring[r] && (*ring[r] & ring_bits[r]) == ring_bits[r];
            }
            if (i < n) {
                u64 q = bits ? (x[i] * multiplier) >> (64 - bits) : 0;
                ring[r] = NULL;
                if (w[q]) {
                    ring[r] = w[q] + spot(x[i], words[q], &ring_bits[r]);
                    __builtin_prefetch(ring[r]);
                }
            }
        }
        Py_END_ALLOW_THREADS
    }
    for (Py_ssize_t q = 0; s && q < held; q++) array_release(&s[q]);
    free(s);
    free(w);
    free(words);
    RELEASE_ALL(a, 2);
    if (bad && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "sieves: 1 to 2^32 words a sieve, out as long as the positions");
    if (bad) return NULL;
    Py_RETURN_NONE;
}

static PyObject *route(PyObject *self, PyObject *args) {
    PyObject *obj;
    unsigned long long multiplier;
    int bits;
    if (!PyArg_ParseTuple(args, "OKi", &obj, &multiplier, &bits)) return NULL;
    if (bits < 0 || bits > 16) {
        PyErr_SetString(PyExc_ValueError, "route: at most 2^16 partitions");
        return NULL;
    }
    Array a;
    if (array_get(obj, &a, 0, 0, "route") < 0) { array_release(&a); return NULL; }
    Py_ssize_t parts = (Py_ssize_t)1 << bits;
    PyObject *answer = PyByteArray_FromStringAndSize(NULL, a.n * (Py_ssize_t)sizeof(u64));
    Py_ssize_t *count = calloc((size_t)parts + 1, sizeof(Py_ssize_t));
    if (!answer || !count) {
        Py_XDECREF(answer);
        free(count);
        array_release(&a);
        return PyErr_NoMemory();
    }
    const u64 *x = a.view.buf;
    u64 *out = (u64 *)PyByteArray_AS_STRING(answer);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < a.n; i++) count[bits ? (x[i] * multiplier) >> (64 - bits) : 0]++;
    Py_ssize_t at = 0;
    for (Py_ssize_t q = 0; q <= parts; q++) { Py_ssize_t k = count[q]; count[q] = at; at += k; }
    for (Py_ssize_t i = 0; i < a.n; i++) out[count[bits ? (x[i] * multiplier) >> (64 - bits) : 0]++] = x[i];
    Py_END_ALLOW_THREADS
    /* count[q] is now where partition q ends: the bounds, from 0 */
    PyObject *bounds = PyList_New(parts + 1);
    if (bounds) {
        PyList_SET_ITEM(bounds, 0, PyLong_FromSsize_t(0));
        for (Py_ssize_t q = 0; q < parts; q++) PyList_SET_ITEM(bounds, q + 1, PyLong_FromSsize_t(count[q]));
    }
    free(count);
    array_release(&a);
    if (!bounds) { Py_DECREF(answer); return NULL; }
    return Py_BuildValue("NN", answer, bounds);
}

/* The positions grouped by partition (as ``route``), each partition's sorted without repeats:
   one counting pass scatters them by partition and, within it, by their highest ``split``
   bits (the sort's first digit: parts of a partition a few tens of thousands of keys, sorted
   in the cache, and one pass fewer where it saves one), then each part by ``sort_low``,
   then the repeats squeezed out partition by partition. ``positions`` is the scratch; the
   answer is written to ``out``, partition q's at bounds[q] .. bounds[q + 1]. */
static PyObject *sorted_groups(PyObject *self, PyObject *args) {
    PyObject *o[2];
    unsigned long long multiplier;
    int bits;
    if (!PyArg_ParseTuple(args, "OOKi", &o[0], &o[1], &multiplier, &bits)) return NULL;
    if (bits < 0 || bits > 12) {
        PyErr_SetString(PyExc_ValueError, "sorted_groups: at most 2^12 partitions");
        return NULL;
    }
    Array a[2];
    int got = 0;
    for (; got < 2; got++)
        if (array_get(o[got], &a[got], 1, 0, "sorted_groups") < 0) { got++; RELEASE_ALL(a, got); return NULL; }
    Py_ssize_t n = a[0].n, parts = (Py_ssize_t)1 << bits;
    if (a[1].n < n) {
        PyErr_SetString(PyExc_ValueError, "sorted_groups: out as long as the positions at least");
        RELEASE_ALL(a, 2);
        return NULL;
    }
    u64 *x = a[0].view.buf, *out = a[1].view.buf, any = 0;
    for (Py_ssize_t i = 0; i < n; i++) any |= x[i];
    int keybits = 1, split = 0;
    while (keybits < 64 && any >> keybits) keybits++;
    while ((parts << split) < 4096 && split + 1 < keybits && (size_t)n > ((size_t)CACHED / 2 << (bits + split)))
        split++;  /* about CACHED / 2 keys a part at most, were they spread evenly */
    int fewer = keybits - DIGIT * ((keybits - split + DIGIT - 1) / DIGIT - 1);  /* the split saving a pass */
    if (fewer > split && fewer < keybits && (parts << fewer) <= 4096 && ((size_t)n >> (bits + fewer)) >= 4096)
        split = fewer;
    Py_ssize_t buckets = parts << split;
    size_t *start = calloc((size_t)buckets + 1, sizeof(size_t));
    size_t *count = malloc(((size_t)((64 + DIGIT - 1) / DIGIT) << DIGIT) * sizeof(size_t));
    Py_ssize_t *bounds = malloc(((size_t)parts + 1) * sizeof(Py_ssize_t));
    if (!start || !count || !bounds) {
        free(start), free(count), free(bounds);
        RELEASE_ALL(a, 2);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    const int shift = keybits - split;
    const u64 low = ((u64)1 << split) - 1;
#define BUCKET_OF(v) (((bits ? ((v) * multiplier) >> (64 - bits) : 0) << split) | (split ? (v) >> shift & low : 0))
    for (Py_ssize_t i = 0; i < n; i++) start[BUCKET_OF(x[i]) + 1]++;
    for (Py_ssize_t b = 0; b < buckets; b++) start[b + 1] += start[b];
    for (Py_ssize_t i = 0; i < n; i++) out[start[BUCKET_OF(x[i])]++] = x[i];
#undef BUCKET_OF
    /* start[b] is now where bucket b ends */
    size_t w = 0, from = 0;
    bounds[0] = 0;
    for (Py_ssize_t b = 0; b < buckets; b++) {
        sort_low(out + from, x + from, start[b] - from, shift, count);
        for (size_t i = from; i < start[b]; i++)  /* squeezed: a partition's buckets in order */
            if (w == (size_t)bounds[b >> split] || out[i] != out[w - 1]) out[w++] = out[i];
        from = start[b];
        if (((b + 1) & (((Py_ssize_t)1 << split) - 1)) == 0) bounds[(b >> split) + 1] = (Py_ssize_t)w;
    }
    Py_END_ALLOW_THREADS
    PyObject *answer = PyList_New(parts + 1);
    for (Py_ssize_t q = 0; answer && q <= parts; q++) PyList_SET_ITEM(answer, q, PyLong_FromSsize_t(bounds[q]));
    free(start), free(count), free(bounds);
    RELEASE_ALL(a, 2);
    return answer;
}

/* What is wrong with a part of a level, in one pass: 0 nothing; else the first of 1 not sorted
   without repeats, 2 a hole the board (``holes``) does not have, 3 a position without ``pegs``
   pegs (pegs < 0: not asked), 4 a position of another partition than ``p`` (the top ``bits``
   bits of its product with ``multiplier`` modulo 2^64) that any position shows.
   (``kit.part_fault``.) */
static PyObject *part_fault(PyObject *self, PyObject *args) {
    PyObject *obj;
    int holes, pegs, bits;
    unsigned long long multiplier, p;
    if (!PyArg_ParseTuple(args, "OiiKiK", &obj, &holes, &pegs, &multiplier, &bits, &p)) return NULL;
    if (holes < 1 || holes > 64 || bits < 0 || bits > 16) {
        PyErr_SetString(PyExc_ValueError, "part_fault: 1 to 64 holes, at most 2^16 partitions");
        return NULL;
    }
    Array a;
    if (array_get(obj, &a, 0, 0, "part_fault") < 0) { array_release(&a); return NULL; }
    const u64 *x = a.view.buf;
    u64 unsorted = 0, off = 0, wrong = 0, other = 0;
    const u64 board = holes == 64 ? ~(u64)0 : ((u64)1 << holes) - 1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < a.n; i++) {
        u64 v = x[i];
        unsorted |= i && v <= x[i - 1];
        off |= v & ~board;
        wrong |= pegs >= 0 && __builtin_popcountll(v) != pegs;
        other |= (bits ? (v * multiplier) >> (64 - bits) : 0) != p;
    }
    Py_END_ALLOW_THREADS
    array_release(&a);
    return PyLong_FromLong(unsorted ? 1 : off ? 2 : wrong ? 3 : other ? 4 : 0);
}

static PyMethodDef methods[] = {
    {"children", children, METH_VARARGS, "children(parents, need, land, flip, images, flip_images, groups, "
                                         "reverse) -> the children, a bytearray of uint64"},
    {"moves", moves, METH_VARARGS, "moves(parents, flip, want, from, to, first) -> every position one move "
                                   "away, a bytearray of uint64"},
    {"least", least, METH_VARARGS, "least(positions, images, groups, out): each position's least image"},
    {"weigh", weigh, METH_VARARGS, "weigh(positions, table, out): each position's weight"},
    {"excluded", excluded, METH_VARARGS, "excluded(positions, weigh, floors, tops, values, masks, "
                                         "by_class, class_masks, goal, holewise, out): which positions are excluded"},
    {"distinct", distinct, METH_VARARGS, "distinct(positions) -> n: sorted without repeats, in place"},
    {"route", route, METH_VARARGS, "route(positions, multiplier, bits) -> (positions by partition, bounds)"},
    {"vector", vector, METH_VARARGS, "vector(on) -> was: the AVX2 loop of the legal jumps on (where the "
                                     "processor has it) or off"},
    {"part_fault", part_fault, METH_VARARGS, "part_fault(positions, holes, pegs, multiplier, bits, p) -> 0, "
                                             "or what is wrong with a part of a level (1 to 4)"},
    {"sorted_groups", sorted_groups, METH_VARARGS, "sorted_groups(positions, out, multiplier, bits) -> bounds: "
                                                   "by partition, each sorted without repeats, into out"},
    {"member", member, METH_VARARGS, "member(part, sorted queries, out): which queries part holds"},
    {"sieves", sieves, METH_VARARGS, "sieves(list, positions, multiplier, bits, out): which positions the "
                                     "sieve of their partition may hold"},
    {"sieve", sieve, METH_VARARGS, "sieve(words, positions, out): the positions' bits set (out None), or "
                                   "which positions' bits are all set"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_check",
                                    "The independent checker's hot loops (checks/_check.c).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__check(void) {
    vector_init();
    return PyModule_Create(&module);
}
