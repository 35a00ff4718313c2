/* The depth-first search of the compiled core, for one width W (see _core_impl.h), with its
 * table of dead positions. */

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
