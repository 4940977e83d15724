/* fast.c: the C fast path of MPI_Send and MPI_Recv (fast.h says why). */

#include <limits.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "capi.h"
#include "fast.h"

struct lamgo_fast lamgo_fast;

/* lamgo_fast_set turns the fast path on or off (fast.go). */
void lamgo_fast_set(int on) { __atomic_store_n(&lamgo_fast.on, on, __ATOMIC_RELEASE); }

/* lamgo_fast_calls is how many messages the fast path sent and received,
 * for tests (not in mpi.h). */
unsigned long long lamgo_fast_calls(void) { return __atomic_load_n(&lamgo_fast.calls, __ATOMIC_RELAXED); }

/* The engine's progress lock (a Go sync.Mutex's state word): taken as
 * its TryLock does when no one waits; given back the same way, or by
 * Go's Unlock when a goroutine waits for it. */
static int fast_trylock(void) { return lamgo_word_trylock(lamgo_fast.lock); }

static void fast_unlock(void)
{
	if (!lamgo_word_unlock(lamgo_fast.lock))
		lamgo_fast_unlock_slow();
}

/* fast_bell wakes the peer if it sleeps (futex.Bell.Ring). */
static void fast_bell(struct lamgo_fast_peer *p)
{
	if (__atomic_load_n(p->bell_sleepers, __ATOMIC_SEQ_CST) > 0) {
		__atomic_add_fetch(p->bell_seq, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, p->bell_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
}

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v, b[1] = (uint8_t)(v >> 8), b[2] = (uint8_t)(v >> 16), b[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t get64(const uint8_t *b) { return (uint64_t)get32(b) | (uint64_t)get32(b + 4) << 32; }

/* lamgo_fast_header writes an eager frame's header (core's header.encode). */
void lamgo_fast_header(uint8_t *h, uint32_t context, int32_t source, int32_t tag, uint64_t length)
{
	memset(h, 0, LAMGO_HEADER_SIZE);
	h[LAMGO_HDR_TYPE] = LAMGO_FRAME_EAGER;
	put32(h + LAMGO_HDR_CONTEXT, context);
	put32(h + LAMGO_HDR_SOURCE, (uint32_t)source);
	put32(h + LAMGO_HDR_TAG, (uint32_t)tag);
	put32(h + LAMGO_HDR_LENGTH, (uint32_t)length);
	put32(h + LAMGO_HDR_LENGTH + 4, (uint32_t)(length >> 32));
}

/* fast_bytes is the length of count elements of datatype if the fast path
 * carries them (at most LAMGO_FAST_MAX bytes of a predefined contiguous
 * type), else -1. */
static int64_t fast_bytes(const void *buf, int count, MPI_Datatype datatype, int64_t max)
{
	if (datatype <= 0 || datatype >= LAMGO_PREDEFINED_TYPES || count < 0)
		return -1;
	int64_t size = lamgo_fast.type_size[datatype];
	if (size == 0)
		return -1;
	int64_t n = (int64_t)count * size;
	if (n > max || (n > 0 && buf == NULL))
		return -1;
	return n;
}

/* fast_peer is the peer of world rank r if the fast path may reach it. */
static struct lamgo_fast_peer *fast_peer(int r)
{
	if (r < 0 || r >= lamgo_fast.size || r == lamgo_fast.rank || !lamgo_fast.peers[r].shm)
		return NULL;
	return &lamgo_fast.peers[r];
}

/* lamgo_fast_send sends as MPI_Send would if it can without the Go path,
 * and reports whether it did: the frame goes into the ring's next slot
 * when nothing is queued on the link before it (core's SendNow). */
int lamgo_fast_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	struct lamgo_fast *f = &lamgo_fast;
	if (!__atomic_load_n(&f->on, __ATOMIC_ACQUIRE) || comm != MPI_COMM_WORLD || tag < 0)
		return 0;
	int64_t n = fast_bytes(buf, count, datatype, LAMGO_FAST_MAX);
	struct lamgo_fast_peer *p = fast_peer(dest);
	if (n < 0 || p == NULL || n > p->short_ || !fast_trylock())
		return 0;
	int sent = 0;
	if (!*f->hold && *p->dead == 0 && *p->out_head == *p->out_len && !__atomic_load_n(p->link_dead, __ATOMIC_ACQUIRE)) {
		uint64_t seq = *p->out.seq;
		if (seq - *p->out.other_seq >= LAMGO_NSLOTS)
			*p->out.other_seq = __atomic_load_n(p->out.slot_tail, __ATOMIC_ACQUIRE);
		if (seq - *p->out.other_seq < LAMGO_NSLOTS) {
			uint8_t *s = p->out.slots + seq % LAMGO_NSLOTS * LAMGO_SLOT_SIZE;
			uint64_t total = LAMGO_HEADER_SIZE + (uint64_t)n;
			lamgo_fast_header(s + 8, f->context, f->rank, tag, (uint64_t)n);
			if (n > 0)
				memcpy(s + 8 + LAMGO_HEADER_SIZE, buf, (size_t)n);
			uint64_t stamp = (uint64_t)(uint32_t)(seq + 1) | total << 32;
			__atomic_store_n((uint64_t *)s, stamp, __ATOMIC_RELEASE);
			*p->out.seq = seq + 1;
			*p->sent += total;
			(*f->activity)++;
			f->calls++;
			fast_bell(p);
			sent = 1;
		}
	}
	fast_unlock();
	return sent;
}

/* fast_take takes the next frame from p's ring into buf if it is the
 * message the receive wants and nothing else could want it first. The
 * caller holds the lock. It returns 1 if it took it, 0 if nothing has
 * come, -1 if the Go path must receive. */
static int fast_take(struct lamgo_fast_peer *p, void *buf, int64_t room, int source, int tag, MPI_Status *status)
{
	struct lamgo_fast *f = &lamgo_fast;
	/* Nothing earlier may match: no receive posted, no message waiting
	 * on the communicator, nothing of the peer's read and not yet used. */
	if (*f->hold || *f->recvs != NULL || *f->msgs != NULL || *p->dead != 0 || *p->in_body || *p->rpos != *p->rend || *p->in.in_data || *p->in.off != 0 || __atomic_load_n(p->link_dead, __ATOMIC_ACQUIRE))
		return -1;
	uint64_t seq = *p->in.seq;
	uint8_t *s = p->in.slots + seq % LAMGO_NSLOTS * LAMGO_SLOT_SIZE;
	uint64_t w = __atomic_load_n((uint64_t *)s, __ATOMIC_ACQUIRE);
	if ((uint32_t)w != (uint32_t)(seq + 1))
		return 0;
	uint64_t len = w >> 32 & 0x7fffffff;
	const uint8_t *h = s + 8;
	if ((w & LAMGO_STAMP_DATA) || len < LAMGO_HEADER_SIZE || h[LAMGO_HDR_TYPE] != LAMGO_FRAME_EAGER || h[LAMGO_HDR_FLAGS] != 0)
		return -1;
	uint64_t length = get64(h + LAMGO_HDR_LENGTH);
	int32_t htag = (int32_t)get32(h + LAMGO_HDR_TAG);
	if (length != len - LAMGO_HEADER_SIZE || length > (uint64_t)room || get32(h + LAMGO_HDR_CONTEXT) != f->context ||
	    (int32_t)get32(h + LAMGO_HDR_SOURCE) != source || (tag != MPI_ANY_TAG && htag != tag))
		return -1;
	if (++f->streak >= LAMGO_FAST_STREAK) {
		f->streak = 0;
		return -1;
	}
	if (length > 0)
		memcpy(buf, h + LAMGO_HEADER_SIZE, (size_t)length);
	*p->in.seq = seq + 1;
	__atomic_store_n(p->in.slot_tail, seq + 1, __ATOMIC_RELEASE);
	*p->recvd += len;
	(*f->activity)++;
	f->calls++;
	fast_bell(p);
	if (status != MPI_STATUS_IGNORE) {
		status->MPI_SOURCE = source;
		status->MPI_TAG = htag;
		status->MPI_ERROR = MPI_SUCCESS;
		status->st_cancelled = 0;
		status->st_length = (long long)length;
	}
	return 1;
}

static int64_t fast_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* fast_polls is how many times a receive polls the ring per taking of the
 * lock (core's lockedPolls). */
enum { fast_polls = 32 };

/* lamgo_fast_recv receives as MPI_Recv would if it can without the Go
 * path, and reports whether it did. It polls the source's ring for a few
 * microseconds at most (spin_ns: fast.go's fastSpin, or less if the
 * engine's waiters spin less before they yield), then leaves the receive
 * to the Go path. */
int lamgo_fast_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	struct lamgo_fast *f = &lamgo_fast;
	if (!__atomic_load_n(&f->on, __ATOMIC_ACQUIRE) || comm != MPI_COMM_WORLD || (tag < 0 && tag != MPI_ANY_TAG))
		return 0;
	int64_t room = fast_bytes(buf, count, datatype, INT64_MAX);
	struct lamgo_fast_peer *p = fast_peer(source);
	if (room < 0 || p == NULL)
		return 0;
	int64_t end = 0;
	for (;;) {
		if (!fast_trylock())
			return 0;
		int r = 0;
		for (int k = 0; k < fast_polls && r == 0; k++)
			r = fast_take(p, buf, room, source, tag, status);
		fast_unlock();
		if (r != 0)
			return r > 0;
		int64_t now = fast_now();
		if (end == 0)
			end = now + f->spin_ns;
		else if (now >= end)
			return 0;
	}
}

int capi_Send(void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	if (lamgo_fast_send(buf, count, datatype, dest, tag, comm))
		return MPI_SUCCESS;
	return capiGo_Send(buf, count, datatype, dest, tag, comm);
}

int capi_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	if (lamgo_fast_recv(buf, count, datatype, source, tag, comm, status))
		return MPI_SUCCESS;
	return capiGo_Recv(buf, count, datatype, source, tag, comm, status);
}

/* A Sendrecv whose send the fast path takes needs only its receive: the
 * send has left, as the Go path's nonblocking one would have. */
int capi_Sendrecv(void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	int sent = lamgo_fast_send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
	if (sent && lamgo_fast_recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status))
		return MPI_SUCCESS;
	return capiGo_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status, sent);
}
