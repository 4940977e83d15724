/* fast.h: the C fast path of MPI_Send and MPI_Recv (fast.c, docs/capi.md).
 *
 * A small blocking send or receive on MPI_COMM_WORLD between two processes
 * of a node joined by a shared-memory link (usysv, sysv) is done here, in
 * C, without entering Go: a call from a C thread into Go costs 55-70 ns of
 * the Go runtime's, about as much as the whole message. The C code speaks
 * the engine's one protocol (libmpi/internal/core/frame.go) over the
 * shared-memory rpi's rings (libmpi/rpi/shm/ring.go) and keeps the
 * engine's own counters, under the engine's own progress lock, and acts
 * only when the engine's state says nothing else could be affected;
 * everything else goes to the Go path. The Go side publishes where that
 * state lies once, after MPI_Init (fast.go); TestFastMirror checks the
 * constants below against the Go ones. */
#ifndef LAMGO_FAST_H
#define LAMGO_FAST_H

#include <stdint.h>
#include "mpi.h"

/* The shared-memory rpi's rings (shm.SlotSize, ...). */
#define LAMGO_SLOT_SIZE 64
#define LAMGO_SLOT_DATA 56
#define LAMGO_NSLOTS 64
#define LAMGO_STAMP_DATA (1ULL << 63)

/* The engine's frames (core.HeaderSize, core.FrameEager; the header's
 * fields at these offsets, little-endian). */
#define LAMGO_HEADER_SIZE 40
#define LAMGO_FRAME_EAGER 1
#define LAMGO_HDR_TYPE 0
#define LAMGO_HDR_FLAGS 1
#define LAMGO_HDR_CONTEXT 4
#define LAMGO_HDR_SOURCE 8
#define LAMGO_HDR_TAG 12
#define LAMGO_HDR_LENGTH 16

/* The longest message the fast path carries: a frame in one slot. */
#define LAMGO_FAST_MAX (LAMGO_SLOT_DATA - LAMGO_HEADER_SIZE)

/* One receive in LAMGO_FAST_STREAK goes to the Go path even when the C
 * one could take it: Go's receive moves every link's bytes (a rendezvous
 * message of another peer's, say), which the C one leaves alone. */
#define LAMGO_FAST_STREAK 64

/* One ring's state (shm.OutsideRing); a Go int is an intptr_t, a Go bool
 * a byte. */
struct lamgo_fast_ring {
	uint8_t *slots;
	uint64_t *slot_tail;
	uint64_t *seq;
	uint64_t *other_seq; /* producer */
	intptr_t *off;       /* consumer */
	uint8_t *in_data;    /* consumer */
};

/* One peer's state (core.OutsidePeer, shm.OutsideLink). */
struct lamgo_fast_peer {
	int shm;   /* a shared-memory link: the rest is set */
	int short_; /* the link's eager limit */
	uintptr_t *dead;
	intptr_t *out_head, *out_len, *rpos, *rend;
	uint8_t *in_body;
	uint64_t *sent, *recvd;
	struct lamgo_fast_ring out, in;
	int32_t *bell_sleepers;
	uint32_t *bell_seq;
	uint32_t *link_dead;
};

/* The process's state (core.Outside). */
struct lamgo_fast {
	int on; /* set after MPI_Init, cleared before MPI_Finalize */
	int32_t *lock;
	uint8_t *hold;
	uint64_t *activity;
	void **recvs, **msgs; /* MPI_COMM_WORLD's queues */
	uint32_t context;
	int rank, size;
	int64_t spin_ns;
	int type_size[LAMGO_PREDEFINED_TYPES]; /* 0: not on the fast path */
	struct lamgo_fast_peer *peers;
	uint64_t calls; /* messages the fast path carried (under the lock) */
	int streak;     /* receives in a row it took (under the lock) */
};

extern struct lamgo_fast lamgo_fast;

/* A Go sync.Mutex's state word taken from C as its TryLock takes it when
 * no one waits, and given back the same way: lamgo_word_unlock reports
 * false when a goroutine waits, and Go's Unlock must give it back. */
static inline int lamgo_word_trylock(int32_t *w)
{
	int32_t unlocked = 0;
	return __atomic_compare_exchange_n(w, &unlocked, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline int lamgo_word_unlock(int32_t *w)
{
	int32_t locked = 1;
	return __atomic_compare_exchange_n(w, &locked, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

int lamgo_fast_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int lamgo_fast_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
void lamgo_fast_set(int on);
unsigned long long lamgo_fast_calls(void);
void lamgo_fast_header(uint8_t *h, uint32_t context, int32_t source, int32_t tag, uint64_t length);

#endif
