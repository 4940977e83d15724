/* fastcoll.c: the C fast path of small collectives on MPI_COMM_WORLD
 * (fastcoll.h says why and when). Each function below mirrors the Go
 * function of libmpi/coll/shmem it names. */

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "capi.h"
#include "fast.h"
#include "fastcoll.h"

struct lamgo_fcoll lamgo_fcoll;

/* lamgo_fcoll_set turns the fast path on or off (fastcoll.go). */
void lamgo_fcoll_set(int on) { __atomic_store_n(&lamgo_fcoll.on, on, __ATOMIC_RELEASE); }

/* lamgo_fcoll_calls is how many collectives the fast path ran, for tests
 * (not in mpi.h). */
unsigned long long lamgo_fcoll_calls(void) { return __atomic_load_n(&lamgo_fcoll.calls, __ATOMIC_RELAXED); }

static int buf_class(const void *b)
{
	if (b == MPI_IN_PLACE)
		return LAMGO_FC_IN_PLACE;
	return b == NULL ? LAMGO_FC_NULL : LAMGO_FC_BUF;
}

/* lamgo_fcoll_key_make is the key of a call (Go makes its keys here too). */
void lamgo_fcoll_key_make(struct lamgo_fcoll_key *k, int kind, const void *sbuf, int scount, MPI_Datatype stype,
			  const void *rbuf, int rcount, MPI_Datatype rtype, MPI_Op op, int root)
{
	k->kind = kind;
	k->sclass = buf_class(sbuf);
	k->rclass = buf_class(rbuf);
	k->scount = scount;
	k->stype = stype;
	k->rcount = rcount;
	k->rtype = rtype;
	k->op = op;
	k->root = root;
}

/* lamgo_fcoll_slot is the entry a key is kept in. */
int lamgo_fcoll_slot(const struct lamgo_fcoll_key *k)
{
	unsigned h = (unsigned)k->kind * 7u + (unsigned)k->sclass * 3u + (unsigned)k->rclass * 5u + (unsigned)k->scount * 11u +
		     (unsigned)k->stype * 13u + (unsigned)k->rcount * 17u + (unsigned)k->rtype * 19u + (unsigned)k->op * 23u +
		     (unsigned)k->root * 29u;
	return (int)(h % LAMGO_FC_ENTRIES);
}

static int key_equal(const struct lamgo_fcoll_key *a, const struct lamgo_fcoll_key *b)
{
	return a->kind == b->kind && a->sclass == b->sclass && a->rclass == b->rclass && a->scount == b->scount &&
	       a->stype == b->stype && a->rcount == b->rcount && a->rtype == b->rtype && a->op == b->op && a->root == b->root;
}

/* The communicator's lock (a Go sync.Mutex's state word), as fast.c takes
 * the engine's. */
static int fc_trylock(void) { return lamgo_word_trylock(lamgo_fcoll.lock); }

static void fc_unlock(void)
{
	if (!lamgo_word_unlock(lamgo_fcoll.lock))
		lamgo_fcoll_unlock_slow();
}

/* A flag of the area: its round number and its sleepers' count. */
struct fc_flag {
	int off, sleep;
};

static uint64_t *fc_u64(int off) { return (uint64_t *)(lamgo_fcoll.mem + off); }

/* geometry.syncStride and syncAt: the sync line of synchronising round
 * k, one of two used in turn, each counting the arrivals at its rounds. */
static int fc_sync_stride(void) { return (LAMGO_FC_OFF_DIGEST - LAMGO_FC_OFF_SYNC + 8 * lamgo_fcoll.n + LAMGO_FC_LINE - 1) / LAMGO_FC_LINE * LAMGO_FC_LINE; }

static int fc_sync_at(uint64_t k) { return LAMGO_FC_OFF_SYNC + (int)(k & 1) * fc_sync_stride(); }

static struct fc_flag fc_arrived(uint64_t k) { return (struct fc_flag){fc_sync_at(k), fc_sync_at(k) + 8}; }

static struct fc_flag fc_done(int i)
{
	int off = lamgo_fcoll.posts + (lamgo_fcoll.n + i) * LAMGO_FC_LINE;
	return (struct fc_flag){off, off + LAMGO_FC_OFF_SLEEP};
}

static uint64_t fc_load(struct fc_flag f) { return __atomic_load_n(fc_u64(f.off), __ATOMIC_SEQ_CST); }

/* flag.wake */
static void fc_wake(struct fc_flag f)
{
	if (__atomic_load_n((int32_t *)(lamgo_fcoll.mem + f.sleep), __ATOMIC_SEQ_CST) > 0)
		syscall(SYS_futex, lamgo_fcoll.mem + f.off, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static int64_t fc_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The yields a wait makes here before it goes to Go, when the node's
 * processors are oversubscribed (no spin): the peer waited for is then
 * often descheduled on this processor, and a yield lets it run at once,
 * where a call into Go costs a cgo crossing. Fewer than Go's 256 between
 * two checks that the peer lives. */
#define FC_YIELDS 64

/* fence.Pause: the spin-wait hint. */
static void fc_pause(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#endif
}

/* area.await: the module's spin here (and, oversubscribed, its first
 * yields), the rest of the wait (yields, sleeps, the check that the
 * process waited for lives) in Go. */
static int fc_await(struct fc_flag f, uint64_t s, int who)
{
	if (fc_load(f) >= s)
		return MPI_SUCCESS;
	for (int i = 0; i < lamgo_fcoll.spin_polls; i++) {
		if (fc_load(f) >= s)
			return MPI_SUCCESS;
		fc_pause();
	}
	if (lamgo_fcoll.spin_ns > 0) {
		int64_t end = fc_now() + lamgo_fcoll.spin_ns;
		do {
			for (int i = 0; i < 1024; i++) {
				if (fc_load(f) >= s)
					return MPI_SUCCESS;
				fc_pause();
			}
		} while (fc_now() < end);
	} else {
		for (int i = 0; i < FC_YIELDS; i++) {
			syscall(SYS_sched_yield);
			if (fc_load(f) >= s)
				return MPI_SUCCESS;
		}
	}
	return lamgo_fcoll_await(f.off, f.sleep, s, who);
}

/* area.in */
static uint8_t *fc_in(int i, uint64_t s)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	return a->mem + a->pools + (int64_t)i * 2 * a->segs * a->chunk + (int64_t)(s % (uint64_t)a->segs) * a->chunk;
}

/* area.claimOf: waits until every process finished round last[b], then
 * makes s that round. */
static int fc_claim_of(uint64_t *last, int b, uint64_t s)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	uint64_t u = last[b];
	if (u > 0) {
		for (int q = 0; q < a->n; q++) {
			if (q == a->me || a->seen_done[q] >= u)
				continue;
			int rc = fc_await(fc_done(q), u, q);
			if (rc != MPI_SUCCESS)
				return rc;
			a->seen_done[q] = fc_load(fc_done(q));
		}
	}
	last[b] = s;
	return MPI_SUCCESS;
}

/* area.claim */
static int fc_claim(uint64_t s) { return fc_claim_of(lamgo_fcoll.last_use, (int)(s % (uint64_t)lamgo_fcoll.segs), s); }

static uint64_t *fc_digest(int i, uint64_t k) { return fc_u64(fc_sync_at(k) + LAMGO_FC_OFF_DIGEST - LAMGO_FC_OFF_SYNC + 8 * i); }

/* area.sync: a synchronising round; k is its number. */
static int fc_sync(uint64_t *k)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	*k = ++*a->syncs;
	uint64_t all = (*k + 1) / 2 * (uint64_t)a->n;
	if (__atomic_add_fetch(fc_u64(fc_sync_at(*k)), 1, __ATOMIC_SEQ_CST) == all) {
		fc_wake(fc_arrived(*k));
		return MPI_SUCCESS;
	}
	return fc_await(fc_arrived(*k), all, -1);
}

/* area.arrive: a synchronising round that compares digests. */
static int fc_arrive(uint64_t digest, int *same)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	__atomic_store_n(fc_digest(a->me, *a->syncs + 1), digest, __ATOMIC_SEQ_CST);
	uint64_t k;
	int rc = fc_sync(&k);
	if (rc != MPI_SUCCESS)
		return rc;
	*same = 1;
	for (int q = 0; q < a->n; q++)
		*same = *same && __atomic_load_n(fc_digest(q, k), __ATOMIC_SEQ_CST) == digest;
	return MPI_SUCCESS;
}

/* area.publish: where this process is registered for membarrier's global
 * expedited barriers (shmem.OutsideArea.Relaxed, package fence), a plain
 * store then a load of the sleepers in program order (a waiter's
 * membarrier orders them before it sleeps); else sequentially
 * consistent. */
static void fc_publish(struct fc_flag f, uint64_t s)
{
	if (lamgo_fcoll.relaxed) {
		__atomic_store_n(fc_u64(f.off), s, __ATOMIC_RELEASE);
		__atomic_signal_fence(__ATOMIC_SEQ_CST); /* the load below stays after the store */
		if (__atomic_load_n((int32_t *)(lamgo_fcoll.mem + f.sleep), __ATOMIC_RELAXED) > 0)
			syscall(SYS_futex, lamgo_fcoll.mem + f.off, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
		return;
	}
	__atomic_store_n(fc_u64(f.off), s, __ATOMIC_SEQ_CST);
	fc_wake(f);
}

/* fence.Claim: asks for the line at p for writing (a hint). */
static void fc_claim_line(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1);
#endif
}

/* area.finish */
static void fc_finish(uint64_t s) { fc_publish(fc_done(lamgo_fcoll.me), s); }

/* area.posted and area.reduced: a post line's two flags. */
static struct fc_flag fc_posted(int i)
{
	int off = lamgo_fcoll.posts + i * LAMGO_FC_LINE;
	return (struct fc_flag){off, off + LAMGO_FC_OFF_SLEEP};
}

static struct fc_flag fc_reduced(int i)
{
	int off = lamgo_fcoll.posts + i * LAMGO_FC_LINE;
	return (struct fc_flag){off + LAMGO_FC_OFF_REDUCE, off + LAMGO_FC_OFF_SLEEP + 4};
}

/* area.out */
static uint8_t *fc_out(int i, uint64_t s) { return fc_in(i, s) + (int64_t)lamgo_fcoll.segs * lamgo_fcoll.chunk; }

/* The registers of a reduction by recursive halving (evaluator.reg), one
 * per depth, of the area's chunk, made before a call that needs them. */
static uint8_t *fc_regs[32];

static int fc_make_regs(void)
{
	for (int d = 0; (1 << d) < lamgo_fcoll.n && d < 32; d++)
		if (fc_regs[d] == NULL && (fc_regs[d] = malloc((size_t)lamgo_fcoll.chunk)) == NULL)
			return 0;
	return 1;
}

/* geometry.syncSlot, syncFits and area.syncData: a small reduction's
 * inputs in the synchronising line beside the digests, each process's
 * two slots where they lie whatever the size of a call. */
static int64_t fc_sync_slot(void)
{
	int n = lamgo_fcoll.n;
	int64_t room = LAMGO_FC_SYNC_HALF - (LAMGO_FC_OFF_DIGEST - LAMGO_FC_OFF_SYNC) - 8 * n;
	return room > 0 ? room / n / 8 * 8 : 0;
}

static int fc_sync_fits(int64_t m) { return m <= fc_sync_slot(); }

static uint8_t *fc_sync_data(int i, uint64_t k)
{
	return lamgo_fcoll.mem + fc_sync_at(k) + LAMGO_FC_OFF_DIGEST - LAMGO_FC_OFF_SYNC + 8 * lamgo_fcoll.n + (int64_t)i * fc_sync_slot();
}

/* Where fc_combine finds the inputs: round s's buffers, or, while
 * fc_src_k is a synchronising round's number, that round's inputs in the
 * synchronising line (syncedRound). */
static uint64_t fc_src_k;

static uint8_t *fc_input(int q, uint64_t s) { return fc_src_k ? fc_sync_data(q, fc_src_k) : fc_in(q, s); }

/* evaluator.halving: the new ranks congruent to base modulo stride
 * combined into dst, over bytes [lo, lo+m) of round s's inputs; p is the
 * power of two, rem the pairs. */
static void fc_halving(int kernel, uint64_t s, int64_t lo, int64_t m, int p, int rem, int stride, int base, uint8_t *dst, int depth)
{
	if (stride == p) {
		if (base < rem) {
			memcpy(dst, fc_input(2 * base + 1, s) + lo, (size_t)m);
			lamgo_fcoll_reduce(kernel, fc_input(2 * base, s) + lo, dst, m);
			return;
		}
		memcpy(dst, fc_input(base + rem, s) + lo, (size_t)m);
		return;
	}
	fc_halving(kernel, s, lo, m, p, rem, 2 * stride, base, dst, depth + 1);
	uint8_t *t = fc_regs[depth];
	fc_halving(kernel, s, lo, m, p, rem, 2 * stride, base + stride, t, depth + 1);
	lamgo_fcoll_reduce(kernel, t, dst, m);
}

/* area.combine: bytes [lo, hi) of every process's input of round s
 * reduced into dst in the entry's grouping (evaluator.run). */
static void fc_combine(const struct lamgo_fcoll_entry *e, uint64_t s, int64_t lo, int64_t hi, uint8_t *dst)
{
	int n = lamgo_fcoll.n;
	int64_t m = hi - lo;
	if (m <= 0)
		return;
	if (e->group == LAMGO_FC_HALVING) {
		int p = 1;
		while (p * 2 <= n)
			p *= 2;
		fc_halving(e->kernel, s, lo, m, p, n - p, 1, 0, dst, 0);
		return;
	}
	/* rank order: x0 ∘ (x1 ∘ (… ∘ xn-1)) */
	memcpy(dst, fc_input(n - 1, s) + lo, (size_t)m);
	for (int i = n - 2; i >= 0; i--)
		lamgo_fcoll_reduce(e->kernel, fc_input(i, s) + lo, dst, m);
}

/* One collective's buffers as colls.go has them: send and recv (NULL
 * where Go's slice is nil), m bytes per process (Scatter and Alltoall:
 * per block), the root. */
struct fc_call {
	int kind;
	const uint8_t *send;
	uint8_t *recv;
	int64_t m;
	int root;
	int esize; /* a reduction's element size */
};

/* Whether this process writes its part of the round (carriedRound's writes). */
static int fc_writes(const struct fc_call *c)
{
	int me = lamgo_fcoll.me;
	switch (c->kind) {
	case LAMGO_FC_BCAST:
	case LAMGO_FC_SCATTER:
		return me == c->root;
	case LAMGO_FC_GATHER:
		return me != c->root;
	}
	return 1;
}

/* The write closures of colls.go's carried rounds. */
static void fc_write(const struct fc_call *c, uint8_t *in)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	int per = a->chunk / a->n;
	switch (c->kind) {
	case LAMGO_FC_SCATTER:
		for (int q = 0; q < a->n; q++)
			if (q != c->root)
				memcpy(in + (int64_t)q * per, c->send + q * c->m, (size_t)c->m);
		return;
	case LAMGO_FC_ALLTOALL:
		for (int q = 0; q < a->n; q++)
			memcpy(in + (int64_t)q * per, c->send + q * c->m, (size_t)c->m);
		return;
	}
	memcpy(in, c->send, (size_t)c->m); /* Bcast: send is the buffer */
}

/* The read closures of colls.go's carried rounds. */
static void fc_read(const struct lamgo_fcoll_entry *e, const struct fc_call *c, uint64_t s)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	int per = a->chunk / a->n, me = a->me;
	size_t m = (size_t)c->m;
	switch (c->kind) {
	case LAMGO_FC_BCAST:
		if (me != c->root)
			memcpy(c->recv, fc_in(c->root, s), m);
		return;
	case LAMGO_FC_GATHER:
		if (me != c->root)
			return;
		for (int q = 0; q < a->n; q++) {
			if (q != c->root)
				memcpy(c->recv + q * m, fc_in(q, s), m);
			else if (c->send != NULL)
				memcpy(c->recv + q * m, c->send, m);
		}
		return;
	case LAMGO_FC_SCATTER:
		if (me != c->root)
			memcpy(c->recv, fc_in(c->root, s) + (int64_t)me * per, m);
		else if (c->recv != NULL)
			memcpy(c->recv, c->send + me * m, m);
		return;
	case LAMGO_FC_ALLGATHER:
		for (int q = 0; q < a->n; q++)
			memcpy(c->recv + q * m, fc_in(q, s), m);
		return;
	case LAMGO_FC_ALLTOALL:
		for (int q = 0; q < a->n; q++)
			memcpy(c->recv + q * m, fc_in(q, s) + (int64_t)me * per, m);
		return;
	case LAMGO_FC_REDUCE:
	case LAMGO_FC_ALLREDUCE:
		if (c->recv != NULL)
			fc_combine(e, s, 0, c->m, c->recv);
		return;
	}
}

/* area.spanBufs: the buffers of a round past one buffer. */
static int fc_span_bufs(void) { return lamgo_fcoll.segs / 8 > 1 ? lamgo_fcoll.segs / 8 : 1; }

/* area.nextSpan: a data round of bufs adjacent buffers (the first of
 * them with bufs-1 more after it in the pool; the numbers skipped name no
 * round) or of one; returns its first round number, and the step is its
 * last. */
static uint64_t fc_begin(int bufs)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	uint64_t first = *a->step + 1, segs = (uint64_t)a->segs;
	if (bufs > 1 && first % segs + (uint64_t)bufs > segs)
		first += segs - first % segs;
	*a->step = first + (uint64_t)bufs - 1;
	return first;
}

/* reduction's rounds after a check of its own (colls.go): each round,
 * every process posts its piece of input; then either the processes that
 * need the result combine the whole piece (small rounds), or each
 * combines one slice into its output buffer and those that need the
 * result copy every slice. */
static int fc_reduction(const struct lamgo_fcoll_entry *e, const struct fc_call *c)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	int n = a->n, me = a->me, all = c->kind == LAMGO_FC_ALLREDUCE;
	int wants = all || me == c->root;
	int64_t size = c->m, per = a->chunk / c->esize * c->esize;
	/* More than a buffer: rounds of a span (area.spanBufs buffers). */
	int spans = size > per, bufs = spans ? fc_span_bufs() : 1;
	if (spans)
		per = (int64_t)bufs * a->chunk / c->esize * c->esize;
	int64_t rounds = size > per ? (size + per - 1) / per : 1;
	int rc;
	for (int64_t k = 0; k < rounds; k++) {
		uint64_t first = fc_begin(bufs), s = *a->step;
		int64_t lo = k * per < size ? k * per : size, hi = (k + 1) * per < size ? (k + 1) * per : size;
		if (hi > lo) {
			for (int j = 0; j < bufs; j++)
				if ((rc = fc_claim(first + (uint64_t)j)) != MPI_SUCCESS)
					return rc;
			memcpy(fc_in(me, first), c->send + lo, (size_t)(hi - lo));
		}
		int small = hi - lo <= LAMGO_FC_SMALL_REDUCE;
		if (small && all) {
			uint64_t sk;
			if ((rc = fc_sync(&sk)) != MPI_SUCCESS)
				return rc;
			fc_combine(e, first, 0, hi - lo, c->recv + lo);
			fc_finish(s);
			continue;
		}
		fc_publish(fc_posted(me), s);
		if (wants || !small)
			for (int q = 0; q < n; q++)
				if (q != me && (rc = fc_await(fc_posted(q), s, q)) != MPI_SUCCESS)
					return rc;
		if (small) {
			if (wants)
				fc_combine(e, first, 0, hi - lo, c->recv + lo);
			fc_finish(s);
			continue;
		}
		int64_t elems = (hi - lo) / c->esize;
		int64_t slo = me * elems / n * c->esize, shi = (me + 1) * elems / n * c->esize;
		fc_combine(e, first, slo, shi, fc_out(me, first) + slo);
		fc_publish(fc_reduced(me), s);
		if (wants) {
			for (int q = 0; q < n; q++) {
				if (q != me && (rc = fc_await(fc_reduced(q), s, q)) != MPI_SUCCESS)
					return rc;
				int64_t qlo = q * elems / n * c->esize, qhi = (q + 1) * elems / n * c->esize;
				memcpy(c->recv + lo + qlo, fc_out(q, first) + qlo, (size_t)(qhi - qlo));
			}
		}
		fc_finish(s);
	}
	return MPI_SUCCESS;
}

/* area.lane, posting, laneDigest, laneData, callDigest and call:
 * process i's lane line of round s, the flag in it, the digest and the
 * data there, and its call of round s with that call's digest. */
static int fc_call_off(int i) { return lamgo_fcoll.call_at + i * lamgo_fcoll.call_stride; }

static int fc_lane(int i, uint64_t s) { return fc_call_off(i) + (int)(s % LAMGO_FC_LANE_SLOTS) * LAMGO_FC_LINE; }

static struct fc_flag fc_posting(int i, uint64_t s) { return (struct fc_flag){fc_lane(i, s), fc_lane(i, s) + LAMGO_FC_LANE_SLEEP}; }

static uint64_t *fc_lane_digest(int i, uint64_t s) { return fc_u64(fc_lane(i, s) + LAMGO_FC_LANE_DIGEST); }

static uint8_t *fc_lane_data(int i, uint64_t s) { return lamgo_fcoll.mem + fc_lane(i, s) + LAMGO_FC_LANE_DATA; }

static uint64_t *fc_call_digest(int i, uint64_t s)
{
	return fc_u64(fc_call_off(i) + LAMGO_FC_LANE_SLOTS * LAMGO_FC_LINE + 8 * (int)(s % LAMGO_FC_LANE_SLOTS));
}

static uint8_t *fc_call(int i, uint64_t s)
{
	return lamgo_fcoll.mem + fc_call_off(i) + lamgo_fcoll.call_first + (int)(s % LAMGO_FC_LANE_SLOTS) * LAMGO_FC_CALL_SIZE;
}

/* area.claimLane */
static int fc_claim_lane(uint64_t s) { return fc_claim_of(lamgo_fcoll.last_lane, (int)(s % LAMGO_FC_LANE_SLOTS), s); }

/* area.postCall: the call, when the one kept in its slot is another, the
 * digest, then the round's number in this process's lane line. */
static void fc_post_call(const struct lamgo_fcoll_entry *e, uint64_t s)
{
	uint64_t *d = fc_call_digest(lamgo_fcoll.me, s);
	if (__atomic_load_n(d, __ATOMIC_RELAXED) != e->digest || e->digest == 0) {
		memcpy(fc_call(lamgo_fcoll.me, s), e->call, LAMGO_FC_CALL_SIZE);
		__atomic_store_n(d, e->digest, __ATOMIC_RELEASE);
	}
	__atomic_store_n(fc_lane_digest(lamgo_fcoll.me, s), e->digest, __ATOMIC_RELEASE);
	fc_publish(fc_posting(lamgo_fcoll.me, s), s);
}

/* inLane: whether the writer's bytes of a call (a Scatter's n pieces
 * together, end to end) move in its lane line. */
static int fc_in_lane(const struct fc_call *c)
{
	int64_t size = c->kind == LAMGO_FC_SCATTER ? c->m * lamgo_fcoll.n : c->m;
	return size <= LAMGO_FC_LANE_BYTES;
}

/* sentRound's write closures: in is the lane line's data or the buffer. */
static void fc_write_sent(const struct fc_call *c, uint8_t *in, int lane)
{
	if (c->kind == LAMGO_FC_SCATTER && lane) {
		for (int q = 0; q < lamgo_fcoll.n; q++)
			if (q != c->root)
				memcpy(in + q * c->m, c->send + q * c->m, (size_t)c->m);
		return;
	}
	fc_write(c, in);
}

/* The part of round s that process q wrote, read by this one (sentRound's
 * read closures). */
static void fc_read_sent(const struct fc_call *c, int q, uint64_t s, int lane)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	size_t m = (size_t)c->m;
	uint8_t *in = lane ? fc_lane_data(q, s) : fc_in(q, s);
	int64_t per = lane ? c->m : a->chunk / a->n;
	switch (c->kind) {
	case LAMGO_FC_BCAST:
		memcpy(c->recv, in, m);
		return;
	case LAMGO_FC_GATHER:
		memcpy(c->recv + q * m, in, m);
		return;
	case LAMGO_FC_SCATTER:
		memcpy(c->recv, in + a->me * per, m);
		return;
	}
}

/* fc_sent runs a call as colls.go's sentRound does (coll_base_check=1): a
 * process that writes claims its lane line (and, unless the data fit
 * there, its buffer), writes, posts its call and the round in the lane
 * line, and returns; the others wait for the lane lines, compare the
 * digests and read the data of the calls that agree. The first process
 * whose call differs is judged in Go (lamgo_fcoll_judge: the error and its
 * handler); the caller holds the lock. */
static int fc_sent(const struct lamgo_fcoll_entry *e, int slot, const struct fc_call *c)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	uint64_t s = ++*a->step;
	int rc, me = a->me, lane = fc_in_lane(c);
	a->calls++;
	if (fc_writes(c)) {
		if ((rc = fc_claim_lane(s)) != MPI_SUCCESS)
			return rc;
		if (lane) {
			fc_write_sent(c, fc_lane_data(me, s), 1);
		} else {
			if ((rc = fc_claim(s)) != MPI_SUCCESS)
				return rc;
			fc_write_sent(c, fc_in(me, s), 0);
		}
		fc_post_call(e, s);
		fc_claim_line(a->mem + fc_lane(me, s + 1)); /* as sentRound */
		if (c->kind == LAMGO_FC_SCATTER && c->recv != NULL)
			memcpy(c->recv, c->send + me * c->m, (size_t)c->m);
		fc_finish(s);
		return MPI_SUCCESS;
	}
	if (c->kind == LAMGO_FC_GATHER && c->send != NULL)
		memcpy(c->recv + me * c->m, c->send, (size_t)c->m);
	int first = MPI_SUCCESS, judged = 0;
	for (int q = 0; q < a->n; q++) {
		if (q == me || (c->kind == LAMGO_FC_GATHER) == (q == c->root))
			continue;
		if ((rc = fc_await(fc_posting(q, s), s, q)) != MPI_SUCCESS)
			return rc;
		if (__atomic_load_n(fc_lane_digest(q, s), __ATOMIC_SEQ_CST) != e->digest) {
			if (judged)
				continue; /* Go said what differs for the first */
			judged = 1;
			if ((first = lamgo_fcoll_judge(slot, (int)(fc_call(q, s) - a->mem))) != MPI_SUCCESS)
				continue;
		}
		fc_read_sent(c, q, s, lane);
	}
	fc_finish(s);
	return first;
}

/* fc_round runs a call as colls.go's carriedRound does, a Barrier as
 * area.agree does, or a reduction as Run does after the check of its own
 * (area.agree, then reduction's rounds); the caller holds the lock. */
static int fc_round(const struct lamgo_fcoll_entry *e, int slot, const struct fc_call *c)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	uint64_t s = ++*a->step;
	int rc;
	/* syncedRound: a small reduction's inputs in the synchronising line. */
	int synced = e->way == LAMGO_FC_CARRIED && (c->kind == LAMGO_FC_REDUCE || c->kind == LAMGO_FC_ALLREDUCE) &&
		     fc_sync_fits(c->m);
	if (synced) {
		fc_write(c, fc_sync_data(a->me, *a->syncs + 1));
	} else if (e->way == LAMGO_FC_CARRIED && fc_writes(c)) {
		if ((rc = fc_claim(s)) != MPI_SUCCESS)
			return rc;
		fc_write(c, fc_in(a->me, s));
	}
	int same = 0;
	rc = fc_arrive(e->digest, &same);
	if (rc == MPI_SUCCESS && same && e->way == LAMGO_FC_CARRIED) {
		if (synced)
			fc_src_k = *a->syncs;
		fc_read(e, c, s);
		fc_src_k = 0;
	}
	fc_finish(s);
	a->calls++;
	if (rc == MPI_SUCCESS && !same)
		return lamgo_fcoll_differ(slot);
	if (rc == MPI_SUCCESS && e->way == LAMGO_FC_CHECKED)
		rc = fc_reduction(e, c);
	return rc;
}

/* fc_try runs a call in C if it can: it returns -1 when the Go path must. */
static int fc_try(const struct lamgo_fcoll_key *k, struct fc_call *c)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	if (!__atomic_load_n(&a->on, __ATOMIC_ACQUIRE))
		return -1;
	int slot = lamgo_fcoll_slot(k);
	if (!fc_trylock())
		return -1;
	const struct lamgo_fcoll_entry *e = &a->entries[slot];
	int rc = -1;
	if (e->way != LAMGO_FC_NONE && key_equal(&e->key, k) && (c->kind < LAMGO_FC_REDUCE || e->kernel != 0 || e->way == LAMGO_FC_ZERO) &&
	    (e->group != LAMGO_FC_HALVING || fc_make_regs())) {
		if (e->way == LAMGO_FC_ZERO)
			rc = MPI_SUCCESS;
		else if (e->way == LAMGO_FC_SENT)
			rc = fc_sent(e, slot, c);
		else
			rc = fc_round(e, slot, c);
	}
	fc_unlock();
	return rc;
}

/* fc_bytes is count elements of a predefined contiguous type in bytes, or
 * -1 (fast.c's table of sizes). */
static int64_t fc_bytes(int count, MPI_Datatype t)
{
	if (t <= 0 || t >= LAMGO_PREDEFINED_TYPES || count < 0 || lamgo_fast.type_size[t] == 0)
		return -1;
	return (int64_t)count * lamgo_fast.type_size[t];
}

/* fc_overlap reports whether [p, p+n) and [q, q+k) overlap (Go's path
 * says what is wrong with such arguments). */
static int fc_overlap(const void *p, int64_t n, const void *q, int64_t k)
{
	const uint8_t *x = p, *y = q;
	return n > 0 && k > 0 && x < y + k && y < x + n;
}

/* A buffer the C path may use for n bytes: real, or unused. */
static int fc_usable(const void *b, int64_t n) { return n == 0 || (b != NULL && b != MPI_IN_PLACE); }

int capi_Barrier(MPI_Comm comm)
{
	if (comm == MPI_COMM_WORLD) {
		struct lamgo_fcoll_key k;
		lamgo_fcoll_key_make(&k, LAMGO_FC_BARRIER, NULL, 0, 0, NULL, 0, 0, 0, 0);
		struct fc_call c = {.kind = LAMGO_FC_BARRIER};
		int rc = fc_try(&k, &c);
		if (rc >= 0)
			return rc;
	}
	return capiGo_Barrier(comm);
}

int capi_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	int64_t n = fc_bytes(count, datatype);
	if (comm == MPI_COMM_WORLD && n >= 0 && fc_usable(buf, n)) {
		struct lamgo_fcoll_key k;
		lamgo_fcoll_key_make(&k, LAMGO_FC_BCAST, buf, count, datatype, NULL, 0, 0, 0, root);
		struct fc_call c = {.kind = LAMGO_FC_BCAST, .send = buf, .recv = buf, .m = n, .root = root};
		int rc = fc_try(&k, &c);
		if (rc >= 0)
			return rc;
	}
	return capiGo_Bcast(buf, count, datatype, root, comm);
}

int capi_Gather(void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	int me = a->me, isroot = root == me;
	int64_t s = fc_bytes(sendcount, sendtype), r = fc_bytes(recvcount, recvtype);
	int ok = comm == MPI_COMM_WORLD && s >= 0 && r >= 0;
	if (ok && isroot)
		ok = fc_usable(recvbuf, r) && (sendbuf == MPI_IN_PLACE || (fc_usable(sendbuf, s) && !fc_overlap(sendbuf, s, recvbuf, r * a->n)));
	else if (ok)
		ok = fc_usable(sendbuf, s);
	if (ok) {
		struct lamgo_fcoll_key k;
		lamgo_fcoll_key_make(&k, LAMGO_FC_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, root);
		struct fc_call c = {.kind = LAMGO_FC_GATHER, .send = sendbuf == MPI_IN_PLACE ? NULL : sendbuf, .recv = recvbuf,
				    .m = isroot ? r : s, .root = root};
		int rc = fc_try(&k, &c);
		if (rc >= 0)
			return rc;
	}
	return capiGo_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int capi_Scatter(void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	int me = a->me, isroot = root == me;
	int64_t s = fc_bytes(sendcount, sendtype), r = fc_bytes(recvcount, recvtype);
	int ok = comm == MPI_COMM_WORLD && s >= 0 && r >= 0;
	if (ok && isroot)
		ok = fc_usable(sendbuf, s) && (recvbuf == MPI_IN_PLACE || (fc_usable(recvbuf, r) && !fc_overlap(sendbuf, s * a->n, recvbuf, r)));
	else if (ok)
		ok = fc_usable(recvbuf, r);
	if (ok) {
		struct lamgo_fcoll_key k;
		lamgo_fcoll_key_make(&k, LAMGO_FC_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, root);
		struct fc_call c = {.kind = LAMGO_FC_SCATTER, .send = sendbuf, .recv = recvbuf == MPI_IN_PLACE ? NULL : recvbuf,
				    .m = isroot ? s : r, .root = root};
		int rc = fc_try(&k, &c);
		if (rc >= 0)
			return rc;
	}
	return capiGo_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

/* Allgather and Alltoall: send may be MPI_IN_PLACE, recv holds n parts. */
static int fc_all(int kind, void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
	struct lamgo_fcoll *a = &lamgo_fcoll;
	int64_t s = fc_bytes(sendcount, sendtype), r = fc_bytes(recvcount, recvtype);
	int64_t sn = kind == LAMGO_FC_ALLTOALL ? s * a->n : s;
	if (s < 0 || r < 0 || !fc_usable(recvbuf, r * a->n) ||
	    (sendbuf != MPI_IN_PLACE && (!fc_usable(sendbuf, sn) || fc_overlap(sendbuf, sn, recvbuf, r * a->n))))
		return -1;
	struct lamgo_fcoll_key k;
	lamgo_fcoll_key_make(&k, kind, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, 0);
	const uint8_t *send = sendbuf;
	if (sendbuf == MPI_IN_PLACE)
		send = kind == LAMGO_FC_ALLGATHER ? (uint8_t *)recvbuf + a->me * r : recvbuf;
	struct fc_call c = {.kind = kind, .send = send, .recv = recvbuf, .m = r};
	return fc_try(&k, &c);
}

int capi_Allgather(void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	if (comm == MPI_COMM_WORLD) {
		int rc = fc_all(LAMGO_FC_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
		if (rc >= 0)
			return rc;
	}
	return capiGo_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int capi_Alltoall(void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	if (comm == MPI_COMM_WORLD) {
		int rc = fc_all(LAMGO_FC_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
		if (rc >= 0)
			return rc;
	}
	return capiGo_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int capi_Reduce(void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	int64_t n = fc_bytes(count, datatype);
	int isroot = root == lamgo_fcoll.me;
	int ok = comm == MPI_COMM_WORLD && n >= 0;
	if (ok && isroot)
		ok = fc_usable(recvbuf, n) && (sendbuf == MPI_IN_PLACE || (fc_usable(sendbuf, n) && !fc_overlap(sendbuf, n, recvbuf, n)));
	else if (ok)
		ok = fc_usable(sendbuf, n);
	if (ok) {
		struct lamgo_fcoll_key k;
		lamgo_fcoll_key_make(&k, LAMGO_FC_REDUCE, sendbuf, count, datatype, recvbuf, count, datatype, op, root);
		struct fc_call c = {.kind = LAMGO_FC_REDUCE, .send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
				    .recv = isroot ? recvbuf : NULL, .m = n, .root = root, .esize = lamgo_fast.type_size[datatype]};
		int rc = fc_try(&k, &c);
		if (rc >= 0)
			return rc;
	}
	return capiGo_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int capi_Allreduce(void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	int64_t n = fc_bytes(count, datatype);
	if (comm == MPI_COMM_WORLD && n >= 0 && fc_usable(recvbuf, n) &&
	    (sendbuf == MPI_IN_PLACE || (fc_usable(sendbuf, n) && !fc_overlap(sendbuf, n, recvbuf, n)))) {
		struct lamgo_fcoll_key k;
		lamgo_fcoll_key_make(&k, LAMGO_FC_ALLREDUCE, sendbuf, count, datatype, recvbuf, count, datatype, op, 0);
		struct fc_call c = {.kind = LAMGO_FC_ALLREDUCE, .send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, .recv = recvbuf, .m = n,
				    .esize = lamgo_fast.type_size[datatype]};
		int rc = fc_try(&k, &c);
		if (rc >= 0)
			return rc;
	}
	return capiGo_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

/* The kernels of the predefined ops C runs (libmpi/internal/reduce's, in
 * the same order of operands: inout[i] = in[i] ∘ inout[i]; integer sums
 * and products wrap, as Go's do, computed unsigned); Go chooses
 * the kernel (fastcoll.go's fcKernel), and gives floating-point types only
 * the sum and the product, whose results C computes bit for bit as Go. */
#define FC_LOOP(T, expr)                                      \
	do {                                                  \
		const T *x = in;                              \
		T *y = inout;                                 \
		int64_t len = bytes / (int64_t)sizeof(T);     \
		for (int64_t i = 0; i < len; i++) {           \
			T a = x[i], b = y[i];                 \
			y[i] = (expr);                        \
		}                                             \
	} while (0)

#define FC_INT_OPS(T, U)                                               \
	switch (op) {                                                  \
	case 1: FC_LOOP(T, a > b ? a : b); return 0;                   \
	case 2: FC_LOOP(T, a < b ? a : b); return 0;                   \
	case 3: FC_LOOP(T, (T)((U)a + (U)b)); return 0;                \
	case 4: FC_LOOP(T, (T)((U)a * (U)b)); return 0;                \
	case 5: FC_LOOP(T, (T)(a != 0 && b != 0)); return 0;           \
	case 6: FC_LOOP(T, (T)(a & b)); return 0;                      \
	case 7: FC_LOOP(T, (T)(a != 0 || b != 0)); return 0;           \
	case 8: FC_LOOP(T, (T)(a | b)); return 0;                      \
	case 9: FC_LOOP(T, (T)((a != 0) != (b != 0))); return 0;       \
	case 10: FC_LOOP(T, (T)(a ^ b)); return 0;                     \
	}                                                              \
	return -1

#define FC_FLOAT_OPS(T)                            \
	switch (op) {                              \
	case 3: FC_LOOP(T, a + b); return 0;       \
	case 4: FC_LOOP(T, a * b); return 0;       \
	}                                          \
	return -1

/* lamgo_fcoll_reduce combines in into inout with a kernel (0, or -1 for a
 * kernel it does not have). */
int lamgo_fcoll_reduce(int kernel, const void *in, void *inout, int64_t bytes)
{
	int op = kernel % 16;
	switch (kernel / 16) {
	case LAMGO_FC_I8: FC_INT_OPS(int8_t, uint32_t);
	case LAMGO_FC_U8: FC_INT_OPS(uint8_t, uint32_t);
	case LAMGO_FC_I16: FC_INT_OPS(int16_t, uint32_t);
	case LAMGO_FC_U16: FC_INT_OPS(uint16_t, uint32_t);
	case LAMGO_FC_I32: FC_INT_OPS(int32_t, uint32_t);
	case LAMGO_FC_U32: FC_INT_OPS(uint32_t, uint32_t);
	case LAMGO_FC_I64: FC_INT_OPS(int64_t, uint64_t);
	case LAMGO_FC_U64: FC_INT_OPS(uint64_t, uint64_t);
	case LAMGO_FC_F32: FC_FLOAT_OPS(float);
	case LAMGO_FC_F64: FC_FLOAT_OPS(double);
	}
	return -1;
}
