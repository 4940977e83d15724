/* fastcoll.h: the C fast path of small collectives on MPI_COMM_WORLD
 * (fastcoll.c, fastcoll.go, docs/capi.md).
 *
 * When MPI_COMM_WORLD's collectives are the shmem module's (its processes
 * share a node), a Barrier, or a Bcast, Gather, Scatter, Allgather,
 * Alltoall, Reduce or Allreduce small enough to move in the one round that
 * carries the argument check (coll_base_check), is done here, in C, over
 * the module's shared area (libmpi/coll/shmem/area.go) and its protocol
 * (colls.go), under the communicator's own lock, without entering Go:
 * the crossing and the layers of the Go API cost a C program 2-5 times
 * the time of the collective itself. It is done here only when a call
 * with the same arguments ran in Go before and Go recorded how it ran it
 * (coll.LastCall): the way (nothing to move, one round carrying the
 * check, a Barrier that is the check) and the check's digest, which C
 * therefore never computes; at coll_base_check=1 a Bcast, Gather or
 * Scatter of one round sends the call with its data (the round's number
 * and the call's digest in the writer's lane line, with the data when they
 * fit there, the call too when the one kept in its slot is another), its
 * writers returning at once. Waits longer than the module's spin go back
 * to Go (shmem.AwaitOutside), and so does a check whose digests differ
 * (coll.Comm.Differ, or coll.Comm.JudgeOutside for a call sent with the
 * data). TestFastCollMirror checks the layout constants. */
#ifndef LAMGO_FASTCOLL_H
#define LAMGO_FASTCOLL_H

#include <stdint.h>
#include "mpi.h"

/* The area's layout (shmem's line, offSync, offDigest, syncHalf,
 * offReduce, offSleep). */
#define LAMGO_FC_LINE 128
#define LAMGO_FC_OFF_SYNC 128
#define LAMGO_FC_OFF_DIGEST (LAMGO_FC_OFF_SYNC + 16)
/* The bytes of a sync line a round's count, digests and inputs share
 * (shmem's syncHalf). */
#define LAMGO_FC_SYNC_HALF 64
#define LAMGO_FC_OFF_SLEEP 16
#define LAMGO_FC_OFF_REDUCE 8
/* coll.CallSize: the call a collective sends with its data at
 * coll_base_check=1 (LAMGO_FC_SENT), kept in the area beside its digest. */
#define LAMGO_FC_CALL_SIZE 160
/* colls.go's smallReduce: a reduction round up to this many bytes is
 * combined whole by every process that needs the result. */
#define LAMGO_FC_SMALL_REDUCE 2048
/* A process's lane (shmem's laneSlots, laneDigest, laneSleep, laneData):
 * one line per round of a call sent with its data, s mod the slots: the
 * round's number once posted, the digest of the call, the number's
 * sleepers, then up to LAMGO_FC_LANE_BYTES of the data. */
#define LAMGO_FC_LANE_SLOTS 256
#define LAMGO_FC_LANE_DIGEST 8
#define LAMGO_FC_LANE_SLEEP 16
#define LAMGO_FC_LANE_DATA 24
#define LAMGO_FC_LANE_BYTES (LAMGO_FC_LINE - LAMGO_FC_LANE_DATA)

/* A reduction's grouping (order.go): rank order, x0 ∘ (x1 ∘ (… ∘ xn-1)),
 * and lam_basic's recursive halving. */
enum { LAMGO_FC_RANK_ORDER = 0, LAMGO_FC_HALVING = 2 };

/* The collectives (a key's kind). */
enum {
	LAMGO_FC_BARRIER = 1,
	LAMGO_FC_BCAST,
	LAMGO_FC_GATHER,
	LAMGO_FC_SCATTER,
	LAMGO_FC_ALLGATHER,
	LAMGO_FC_ALLTOALL,
	LAMGO_FC_REDUCE,
	LAMGO_FC_ALLREDUCE,
};

/* How Go ran a call (an entry's way; coll.Way). */
enum {
	LAMGO_FC_NONE = 0,
	LAMGO_FC_ZERO,	  /* nothing to move: return at once */
	LAMGO_FC_CARRIED, /* one round carrying the check */
	LAMGO_FC_AGREED,  /* a Barrier that is the check */
	LAMGO_FC_CHECKED, /* a reduction's rounds after a check of its own */
	LAMGO_FC_SENT,	  /* one round with the call beside the data (coll_base_check=1) */
};

/* A buffer argument's class in a key. */
enum { LAMGO_FC_BUF = 0, LAMGO_FC_IN_PLACE, LAMGO_FC_NULL };

/* The arguments that decide how a collective runs. */
struct lamgo_fcoll_key {
	int kind, sclass, rclass;
	int scount, stype, rcount, rtype;
	int op, root;
};

/* A call Go ran, and how. kernel: a reduction's element kind and op
 * (LAMGO_FC_KERNEL), 0 if C does not reduce it; group: its grouping;
 * call: the call itself (coll.Comm.CallOf), which LAMGO_FC_SENT writes
 * beside its digest in the area when the digest there is another. */
struct lamgo_fcoll_entry {
	struct lamgo_fcoll_key key;
	int way, kernel, group;
	uint64_t digest;
	uint8_t call[LAMGO_FC_CALL_SIZE];
};

/* A reduction's kernel: element kind times 16 plus the op (MPI_MAX ..
 * MPI_BXOR, which are 1 .. 10). */
enum {
	LAMGO_FC_I8 = 1,
	LAMGO_FC_U8,
	LAMGO_FC_I16,
	LAMGO_FC_U16,
	LAMGO_FC_I32,
	LAMGO_FC_U32,
	LAMGO_FC_I64,
	LAMGO_FC_U64,
	LAMGO_FC_F32,
	LAMGO_FC_F64,
};
#define LAMGO_FC_KERNEL(kind, op) ((kind) * 16 + (op))

#define LAMGO_FC_ENTRIES 16

/* The process's view of MPI_COMM_WORLD's area (shmem.OutsideArea). */
struct lamgo_fcoll {
	int on;
	int32_t *lock; /* the communicator's lock (coll.Comm.LockWord) */
	uint8_t *mem;
	int n, me, chunk, segs, posts;
	int call_at, call_stride, call_first, pools; /* shmem.OutsideArea's Calls, CallStride, CallFirst, Pools */
	uint64_t *step, *syncs, *last_use, *last_lane, *seen_done;
	int spin_polls;
	int64_t spin_ns;
	int relaxed; /* shmem.OutsideArea.Relaxed: flags raised with a plain store */
	uint64_t calls; /* collectives the fast path ran (under the lock) */
	struct lamgo_fcoll_entry entries[LAMGO_FC_ENTRIES];
};

extern struct lamgo_fcoll lamgo_fcoll;

void lamgo_fcoll_set(int on);
unsigned long long lamgo_fcoll_calls(void);
void lamgo_fcoll_key_make(struct lamgo_fcoll_key *k, int kind, const void *sbuf, int scount, MPI_Datatype stype,
			  const void *rbuf, int rcount, MPI_Datatype rtype, MPI_Op op, int root);
int lamgo_fcoll_slot(const struct lamgo_fcoll_key *k);
int lamgo_fcoll_reduce(int kernel, const void *in, void *inout, int64_t bytes);

#endif
