//go:build ofi && cgo

package ofi

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

// lamofi is one process's endpoint and what it needs: the slots are
// buffers of bufsize bytes, each with the fi_context2 its operations
// carry, so that a completion names its slot; after them come the
// context of this process's remote read or tagged receive (one at a
// time) and those of ntsend tagged sends.
typedef struct {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_mr *mr;
	void *desc;
	int waitfd;
	char *buf;
	size_t bufsize;
	size_t nslots;
	size_t ntsend;
	struct fi_context2 *ctxs; // nslots, one for a read or tagged receive, ntsend
	int64_t *pend;            // receive slots to post before the next operation
	size_t npend;
	int post_err;             // how a deferred post failed (0: it did not)
	int rma;                  // the endpoint does RMA (FI_READ, FI_REMOTE_READ)
	int tagged;               // the endpoint does tagged messages (FI_TAGGED)
	uint64_t next_key;        // the key of the next registration, where the module chooses them
} lamofi;

// lamofi_ev is one completion: the slot (-1 if none), and err when the
// operation failed.
typedef struct {
	int64_t idx;
	uint64_t flags;
	uint64_t len;
	uint64_t src;
	int32_t err;
	int32_t prov_errno;
} lamofi_ev;

#define LAMOFI_BATCH 32

// libfabric is loaded when the module is first asked for, not linked:
// an MPI program that does not use the module neither needs the library
// nor runs its providers' initializers. Only these five functions are
// symbols of the library; the rest of its API are inline calls through
// the objects these return.
static struct {
	int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
	void (*freeinfo)(struct fi_info *);
	struct fi_info *(*dupinfo)(const struct fi_info *);
	int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
	const char *(*strerror)(int);
} lamofi_fn;
static char lamofi_loaderr[256];
static pthread_once_t lamofi_once = PTHREAD_ONCE_INIT;

static void lamofi_doload(void) {
	void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		snprintf(lamofi_loaderr, sizeof lamofi_loaderr, "%s", dlerror());
		return;
	}
	lamofi_fn.getinfo = dlsym(h, "fi_getinfo");
	lamofi_fn.freeinfo = dlsym(h, "fi_freeinfo");
	lamofi_fn.dupinfo = dlsym(h, "fi_dupinfo");
	lamofi_fn.fabric = dlsym(h, "fi_fabric");
	lamofi_fn.strerror = dlsym(h, "fi_strerror");
	if (!lamofi_fn.getinfo || !lamofi_fn.freeinfo || !lamofi_fn.dupinfo || !lamofi_fn.fabric || !lamofi_fn.strerror) {
		snprintf(lamofi_loaderr, sizeof lamofi_loaderr, "libfabric.so.1 lacks fi_getinfo, fi_freeinfo, fi_dupinfo, fi_fabric or fi_strerror");
		lamofi_fn.getinfo = NULL;
	}
}

// lamofi_load loads libfabric once; NULL, or why it cannot be loaded.
static const char *lamofi_load(void) {
	pthread_once(&lamofi_once, lamofi_doload);
	return lamofi_fn.getinfo ? NULL : lamofi_loaderr;
}

static const char *lamofi_strerror(int code) {
	return lamofi_fn.strerror ? lamofi_fn.strerror(code) : strerror(code);
}

static struct fi_info *lamofi_hints(const char *prov, int rma, int tagged) {
	struct fi_info *h = lamofi_fn.dupinfo(NULL);
	if (h == NULL)
		return NULL;
	h->caps = FI_MSG | FI_SOURCE;
	if (rma)
		h->caps |= FI_RMA | FI_READ | FI_REMOTE_READ;
	if (tagged)
		h->caps |= FI_TAGGED;
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	h->ep_attr->type = FI_EP_RDM;
	h->tx_attr->msg_order = FI_ORDER_SAS;
	h->rx_attr->msg_order = FI_ORDER_SAS;
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	if (prov != NULL && prov[0] != '\0')
		h->fabric_attr->prov_name = strdup(prov);
	return h;
}

// lamofi_probe finds the first provider that serves the module and
// copies its name into name.
static int lamofi_probe(const char *prov, char *name, size_t len) {
	struct fi_info *h = lamofi_hints(prov, 0, 0), *info = NULL;
	if (h == NULL)
		return -FI_ENOMEM;
	int rc = lamofi_fn.getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &info);
	lamofi_fn.freeinfo(h);
	if (rc != 0)
		return rc;
	if (info == NULL)
		return -FI_ENODATA;
	snprintf(name, len, "%s", info->fabric_attr->prov_name);
	lamofi_fn.freeinfo(info);
	return 0;
}

static void lamofi_close(lamofi *f) {
	if (f->ep) fi_close(&f->ep->fid);
	if (f->mr) fi_close(&f->mr->fid);
	if (f->av) fi_close(&f->av->fid);
	if (f->cq) fi_close(&f->cq->fid);
	if (f->domain) fi_close(&f->domain->fid);
	if (f->fabric) fi_close(&f->fabric->fid);
	if (f->info) lamofi_fn.freeinfo(f->info);
	free(f->buf);
	free(f->ctxs);
	free(f->pend);
	free(f);
}

// lamofi_open opens an endpoint whose buffers will be of bufsize bytes
// (lamofi_alloc), with remote reads and tagged messages where asked for and the provider
// offers them; *where names the step that failed.
static int lamofi_open(const char *prov, int want_rma, int want_tagged, size_t bufsize, size_t ntsend, size_t cqsize, lamofi **out, const char **where) {
	lamofi *f = calloc(1, sizeof *f);
	if (f == NULL) {
		*where = "calloc";
		return -FI_ENOMEM;
	}
	f->waitfd = -1;
	f->bufsize = bufsize;
	f->ntsend = ntsend;
	int rc = -FI_ENODATA;
	// With remote reads and tagged messages where the provider offers
	// them, else with one of them, else without.
	for (int i = 0; i < 4; i++) {
		if (((i & 1) == 0 && !want_tagged) || ((i & 2) == 0 && !want_rma))
			continue;
		f->tagged = (i & 1) == 0;
		f->rma = (i & 2) == 0;
		struct fi_info *h = lamofi_hints(prov, f->rma, f->tagged);
		if (h == NULL) {
			rc = -FI_ENOMEM;
			*where = "fi_allocinfo";
			goto fail;
		}
		rc = lamofi_fn.getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &f->info);
		lamofi_fn.freeinfo(h);
		if (rc == 0)
			break;
	}
	if (rc) { *where = "fi_getinfo"; goto fail; }
	f->next_key = 1;
	if ((rc = lamofi_fn.fabric(f->info->fabric_attr, &f->fabric, NULL))) { *where = "fi_fabric"; goto fail; }
	if ((rc = fi_domain(f->fabric, f->info, &f->domain, NULL))) { *where = "fi_domain"; goto fail; }
	struct fi_cq_attr cq = {0};
	cq.size = cqsize;
	cq.format = FI_CQ_FORMAT_MSG;
	cq.wait_obj = FI_WAIT_FD;
	if (fi_cq_open(f->domain, &cq, &f->cq, NULL) == 0) {
		if (fi_control(&f->cq->fid, FI_GETWAIT, &f->waitfd) != 0)
			f->waitfd = -1;
	} else {
		cq.wait_obj = FI_WAIT_NONE;
		if ((rc = fi_cq_open(f->domain, &cq, &f->cq, NULL))) { *where = "fi_cq_open"; goto fail; }
	}
	struct fi_av_attr av = {0};
	av.type = FI_AV_TABLE;
	if ((rc = fi_av_open(f->domain, &av, &f->av, NULL))) { *where = "fi_av_open"; goto fail; }
	if ((rc = fi_endpoint(f->domain, f->info, &f->ep, NULL))) { *where = "fi_endpoint"; goto fail; }
	if ((rc = fi_ep_bind(f->ep, &f->av->fid, 0))) { *where = "fi_ep_bind av"; goto fail; }
	if ((rc = fi_ep_bind(f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV))) { *where = "fi_ep_bind cq"; goto fail; }
	if ((rc = fi_enable(f->ep))) { *where = "fi_enable"; goto fail; }
	*out = f;
	return 0;
fail:
	lamofi_close(f);
	return rc;
}

// lamofi_alloc gives the endpoint its nslots buffers of bufsize bytes
// (registered where the provider wants local buffers registered) and
// the operations' contexts, once: the endpoint opens before the process
// knows which peers it carries, and allocates for those only.
static int lamofi_alloc(lamofi *f, size_t nslots, const char **where) {
	if (f->ctxs != NULL) {
		*where = "buffers";
		return -FI_EALREADY;
	}
	f->nslots = nslots;
	f->ctxs = calloc(nslots + 1 + f->ntsend, sizeof *f->ctxs);
	f->pend = calloc(nslots + 1, sizeof *f->pend);
	if (nslots > 0 && posix_memalign((void **)&f->buf, 4096, f->bufsize * nslots) != 0)
		f->buf = NULL;
	if (f->ctxs == NULL || f->pend == NULL || (nslots > 0 && f->buf == NULL)) {
		*where = "buffers";
		return -FI_ENOMEM;
	}
	if (nslots > 0 && (f->info->domain_attr->mr_mode & FI_MR_LOCAL)) {
		int rc = fi_mr_reg(f->domain, f->buf, f->bufsize * nslots, FI_SEND | FI_RECV, 0, 0, 0, &f->mr, NULL);
		if (rc) {
			*where = "fi_mr_reg";
			return rc;
		}
		f->desc = fi_mr_desc(f->mr);
	}
	return 0;
}

static size_t lamofi_inject_size(lamofi *f) { return f->info->tx_attr->inject_size; }
static const char *lamofi_prov(lamofi *f) { return f->info->fabric_attr->prov_name; }

static int lamofi_name(lamofi *f, void *name, size_t *len) { return fi_getname(&f->ep->fid, name, len); }

static int lamofi_insert(lamofi *f, const void *addr, uint64_t *out) {
	fi_addr_t a = FI_ADDR_NOTAVAIL;
	int n = fi_av_insert(f->av, addr, 1, &a, 0, NULL);
	*out = a;
	return n == 1 ? 0 : (n < 0 ? n : -FI_EINVAL);
}

static ssize_t lamofi_recv(lamofi *f, size_t slot) {
	return fi_recv(f->ep, f->buf + slot * f->bufsize, f->bufsize, f->desc, FI_ADDR_UNSPEC, &f->ctxs[slot]);
}

// lamofi_flush posts the receive slots queued in pend, as far as the
// provider takes them, and returns how many are left: every call that
// sends or polls does so first, so that posting a buffer again costs no
// crossing of its own, and a send waits (-FI_EAGAIN) while some are
// left, so that a credit never goes out before its buffer is posted. A
// failure is kept in post_err.
static size_t lamofi_flush(lamofi *f) {
	size_t i = 0;
	while (i < f->npend) {
		ssize_t rc = lamofi_recv(f, f->pend[i]);
		if (rc == -FI_EAGAIN)
			break;
		i++;
		if (rc != 0) {
			f->post_err = (int)rc;
			break;
		}
	}
	if (i > 0) {
		memmove(f->pend, f->pend + i, (f->npend - i) * sizeof *f->pend);
		f->npend -= i;
	}
	return f->npend;
}

static ssize_t lamofi_send(lamofi *f, size_t slot, size_t len, uint64_t dest) {
	if (lamofi_flush(f) > 0)
		return -FI_EAGAIN;
	return fi_send(f->ep, f->buf + slot * f->bufsize, len, f->desc, dest, &f->ctxs[slot]);
}

static ssize_t lamofi_inject(lamofi *f, const void *p, size_t len, uint64_t dest) {
	if (lamofi_flush(f) > 0)
		return -FI_EAGAIN;
	return fi_inject(f->ep, p, len, dest);
}

static int64_t lamofi_slot(lamofi *f, void *ctx) {
	char *c = ctx, *base = (char *)f->ctxs;
	if (base == NULL)
		return -1;
	if (c < base || c >= base + (f->nslots + 1 + f->ntsend) * sizeof *f->ctxs)
		return -1;
	return (c - base) / sizeof *f->ctxs;
}

// lamofi_poll reads up to n completions into ev (at most one if it is
// an error); 0 when there are none.
static ssize_t lamofi_poll(lamofi *f, lamofi_ev *ev, size_t n) {
	struct fi_cq_msg_entry e[LAMOFI_BATCH];
	fi_addr_t src[LAMOFI_BATCH];
	if (n > LAMOFI_BATCH)
		n = LAMOFI_BATCH;
	lamofi_flush(f);
	ssize_t r = fi_cq_readfrom(f->cq, e, n, src);
	if (r == -FI_EAGAIN)
		return 0;
	if (r == -FI_EAVAIL) {
		struct fi_cq_err_entry ee;
		memset(&ee, 0, sizeof ee);
		ssize_t rr = fi_cq_readerr(f->cq, &ee, 0);
		if (rr == -FI_EAGAIN)
			return 0;
		if (rr < 0)
			return rr;
		ev[0].idx = lamofi_slot(f, ee.op_context);
		ev[0].flags = ee.flags;
		ev[0].len = ee.len;
		ev[0].src = FI_ADDR_NOTAVAIL;
		ev[0].err = ee.err ? ee.err : FI_EIO;
		ev[0].prov_errno = ee.prov_errno;
		return 1;
	}
	if (r < 0)
		return r;
	for (ssize_t i = 0; i < r; i++) {
		ev[i].idx = lamofi_slot(f, e[i].op_context);
		ev[i].flags = e[i].flags;
		ev[i].len = e[i].len;
		ev[i].src = src[i];
		ev[i].err = 0;
		ev[i].prov_errno = 0;
	}
	return r;
}

// lamofi_mr_reg registers [start, start+len) for the peers' reads (and
// this process's, where the provider wants local buffers registered).
static int lamofi_mr_reg(lamofi *f, uintptr_t start, size_t len, struct fid_mr **mr, uint64_t *key) {
	uint64_t want = 0;
	if (!(f->info->domain_attr->mr_mode & FI_MR_PROV_KEY))
		want = f->next_key++;
	uint64_t access = FI_SEND | FI_RECV;
	if (f->rma)
		access |= FI_READ | FI_REMOTE_READ;
	int rc = fi_mr_reg(f->domain, (void *)start, len, access, 0, want, 0, mr, NULL);
	if (rc == 0)
		*key = fi_mr_key(*mr);
	return rc;
}

static int lamofi_mr_close(struct fid_mr *mr) { return fi_close(&mr->fid); }
static void *lamofi_mr_desc(struct fid_mr *mr) { return fi_mr_desc(mr); }
static int lamofi_virt_addr(lamofi *f) { return (f->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0; }
static int lamofi_mr_local(lamofi *f) { return (f->info->domain_attr->mr_mode & FI_MR_LOCAL) != 0; }
static uint64_t lamofi_max_msg(lamofi *f) { return f->info->ep_attr->max_msg_size; }

// lamofi_read reads len bytes at raddr (key) of src into dst; its
// completion names the slot after the buffers'.
static ssize_t lamofi_read(lamofi *f, uintptr_t dst, size_t len, void *desc, uint64_t src, uint64_t raddr, uint64_t key) {
	return fi_read(f->ep, (void *)dst, len, desc, src, raddr, key, &f->ctxs[f->nslots]);
}

// lamofi_trecv posts a tagged receive of len bytes into dst; its
// completion names the slot after the buffers', as a read's does.
static ssize_t lamofi_trecv(lamofi *f, uintptr_t dst, size_t len, void *desc, uint64_t tag) {
	return fi_trecv(f->ep, (void *)dst, len, desc, FI_ADDR_UNSPEC, tag, 0, &f->ctxs[f->nslots]);
}

// lamofi_cancel_read cancels the read or tagged receive in flight.
static int lamofi_cancel_read(lamofi *f) { return fi_cancel(&f->ep->fid, &f->ctxs[f->nslots]); }

// lamofi_tsend sends len bytes at src tagged; its completion names
// tagged send i (slot nslots+1+i). It answers a pull, and so returns the
// pull's credit: it waits, as a send does, until the receive buffers
// queued for posting are posted.
static ssize_t lamofi_tsend(lamofi *f, size_t i, uintptr_t src, size_t len, void *desc, uint64_t dest, uint64_t tag) {
	if (lamofi_flush(f) > 0)
		return -FI_EAGAIN;
	return fi_tsend(f->ep, (void *)src, len, desc, dest, tag, &f->ctxs[f->nslots + 1 + i]);
}

// lamofi_tinject sends an empty tagged message, without a completion
// (an answer to a pull, as lamofi_tsend).
static ssize_t lamofi_tinject0(lamofi *f, uint64_t dest, uint64_t tag) {
	if (lamofi_flush(f) > 0)
		return -FI_EAGAIN;
	return fi_tinject(f->ep, NULL, 0, dest, tag);
}

// lamofi_trywait is 0 when the caller may sleep on the wait descriptor.
static int lamofi_trywait(lamofi *f) {
	struct fid *fids[1] = {&f->cq->fid};
	return fi_trywait(f->fabric, fids, 1);
}
*/
import "C"

import (
	"fmt"
	"strings"
	"sync/atomic"
	"unsafe"
)

// fabricError is a libfabric call that failed.
type fabricError struct {
	call string
	code int // positive FI_E* / errno
}

func (e *fabricError) Error() string {
	return fmt.Sprintf("%s: %s", e.call, C.GoString(C.lamofi_strerror(C.int(e.code))))
}

// ferr is the error of call, which returned rc.
func ferr(call string, rc int) error {
	if rc < 0 {
		rc = -rc
	}
	return &fabricError{call: call, code: rc}
}

// again is what an operation that cannot start now returns.
const again = -C.FI_EAGAIN

// softwareProviders are libfabric's providers that need no hardware.
var softwareProviders = map[string]bool{"tcp": true, "sockets": true, "udp": true, "shm": true, "net": true}

// load loads libfabric, once.
func load() error {
	if why := C.lamofi_load(); why != nil {
		return fmt.Errorf("libfabric cannot be loaded: %s", C.GoString(why))
	}
	return nil
}

func probe(prov string) (provider, error) {
	if err := load(); err != nil {
		return provider{}, err
	}
	cprov := C.CString(prov)
	defer C.free(unsafe.Pointer(cprov))
	var name [256]C.char
	if rc := C.lamofi_probe(cprov, &name[0], C.size_t(len(name))); rc != 0 {
		if prov == "" {
			return provider{}, fmt.Errorf("libfabric has no provider with reliable datagrams and ordered messages: %w", ferr("fi_getinfo", int(rc)))
		}
		return provider{}, fmt.Errorf("libfabric provider %q cannot serve the module: %w", prov, ferr("fi_getinfo", int(rc)))
	}
	p := provider{name: C.GoString(&name[0])}
	core, _, _ := strings.Cut(p.name, ";")
	p.hardware = !softwareProviders[core]
	return p, nil
}

// fabric is an open endpoint with its slots.
type fabric struct {
	f       *C.lamofi
	bufs    []byte // every slot's buffer, in C memory
	bufsize int
	evs     []C.lamofi_ev // in C memory
	evmem   unsafe.Pointer
	// Crossings into C on the message path (post, send, inject, poll),
	// and polls that found nothing: BenchmarkPingPong reports them.
	calls, empty uint64
	completions  uint64 // completions read
}

const pollBatch = C.LAMOFI_BATCH

// openFabric opens an endpoint whose buffers will be of bufsize bytes
// (alloc) and ntsend tagged sends, with remote reads (rma) and tagged
// messages (tagged) where asked for and the provider offers them.
func openFabric(prov string, rma, tagged bool, bufsize, ntsend, cqsize int) (*fabric, error) {
	if err := load(); err != nil {
		return nil, err
	}
	staleOnce.Do(removeStale)
	cprov := C.CString(prov)
	defer C.free(unsafe.Pointer(cprov))
	var f *C.lamofi
	var where *C.char
	if rc := C.lamofi_open(cprov, cbool(rma), cbool(tagged), C.size_t(bufsize), C.size_t(ntsend), C.size_t(cqsize), &f, &where); rc != 0 {
		return nil, ferr(C.GoString(where), int(rc))
	}
	fb := &fabric{f: f, bufsize: bufsize}
	fb.evmem = C.calloc(pollBatch, C.size_t(unsafe.Sizeof(C.lamofi_ev{})))
	if fb.evmem == nil {
		C.lamofi_close(f)
		return nil, fmt.Errorf("completion buffer: out of memory")
	}
	fb.evs = unsafe.Slice((*C.lamofi_ev)(fb.evmem), pollBatch)
	return fb, nil
}

// alloc gives the endpoint nslots buffers (and the contexts of its
// operations), once, before any operation.
func (fb *fabric) alloc(nslots int) error {
	var where *C.char
	if rc := C.lamofi_alloc(fb.f, C.size_t(nslots), &where); rc != 0 {
		return ferr(C.GoString(where), int(rc))
	}
	if nslots > 0 {
		fb.bufs = unsafe.Slice((*byte)(unsafe.Pointer(fb.f.buf)), fb.bufsize*nslots)
	}
	bufAllocated.Add(uint64(len(fb.bufs)))
	return nil
}

// bufAllocated counts the bytes of buffers the process's endpoints have
// allocated (tests count them).
var bufAllocated atomic.Uint64

func (fb *fabric) close() {
	C.lamofi_close(fb.f)
	C.free(fb.evmem)
	fb.f, fb.bufs, fb.evs = nil, nil, nil
}

func (fb *fabric) provider() string  { return C.GoString(C.lamofi_prov(fb.f)) }
func (fb *fabric) injectSize() int   { return int(C.lamofi_inject_size(fb.f)) }
func (fb *fabric) waitFd() int       { return int(fb.f.waitfd) }
func (fb *fabric) slots() int        { return int(fb.f.nslots) }
func (fb *fabric) slot(i int) []byte { return fb.bufs[i*fb.bufsize : (i+1)*fb.bufsize] }

func (fb *fabric) name() ([]byte, error) {
	var buf [maxName]byte
	n := C.size_t(len(buf))
	if rc := C.lamofi_name(fb.f, unsafe.Pointer(&buf[0]), &n); rc != 0 {
		return nil, ferr("fi_getname", int(rc))
	}
	if int(n) > len(buf) {
		return nil, fmt.Errorf("fi_getname: a name of %d bytes", n)
	}
	return append([]byte(nil), buf[:n]...), nil
}

func (fb *fabric) insert(name []byte) (uint64, error) {
	var a C.uint64_t
	if rc := C.lamofi_insert(fb.f, unsafe.Pointer(&name[0]), &a); rc != 0 {
		return 0, ferr("fi_av_insert", int(rc))
	}
	return uint64(a), nil
}

// post posts slot i's buffer for a receive now.
func (fb *fabric) post(i int) int {
	fb.calls++
	return int(C.lamofi_recv(fb.f, C.size_t(i)))
}

// queuePost queues slot i's buffer to be posted by the next call that
// sends or polls (lamofi_flush), without a crossing of its own.
func (fb *fabric) queuePost(i int) {
	pend := unsafe.Slice(fb.f.pend, fb.slots())
	if int(fb.f.npend) >= len(pend) { // cannot happen: a slot is queued once
		if rc := fb.post(i); rc != 0 {
			fb.f.post_err = C.int(rc)
		}
		return
	}
	pend[fb.f.npend] = C.int64_t(i)
	fb.f.npend++
}

// postErr returns, and forgets, how a queued post failed (0: none did).
func (fb *fabric) postErr() int {
	rc := int(fb.f.post_err)
	fb.f.post_err = 0
	return rc
}

// send sends the first n bytes of slot i.
func (fb *fabric) send(i, n int, dest uint64) int {
	fb.calls++
	return int(C.lamofi_send(fb.f, C.size_t(i), C.size_t(n), C.uint64_t(dest)))
}

// inject sends p, which the call copies.
func (fb *fabric) inject(p []byte, dest uint64) int {
	fb.calls++
	return int(C.lamofi_inject(fb.f, unsafe.Pointer(&p[0]), C.size_t(len(p)), C.uint64_t(dest)))
}

// poll reads completions into fb.evs and returns how many.
func (fb *fabric) poll() (int, error) {
	fb.calls++
	n := C.lamofi_poll(fb.f, &fb.evs[0], pollBatch)
	if n < 0 {
		return 0, ferr("fi_cq_read", int(n))
	}
	if n == 0 {
		fb.empty++
	}
	fb.completions += uint64(n)
	return int(n), nil
}

// event is completion i of the last poll.
func (fb *fabric) event(i int) event {
	e := &fb.evs[i]
	return event{slot: int(e.idx), recv: e.flags&C.FI_RECV != 0, n: int(e.len), src: uint64(e.src), err: int(e.err), provErr: int(e.prov_errno)}
}

// tryWait reports whether the caller may sleep on the wait descriptor.
func (fb *fabric) tryWait() bool { return C.lamofi_trywait(fb.f) == 0 }

func errText(code int) string { return C.GoString(C.lamofi_strerror(C.int(code))) }

// event is one completion.
type event struct {
	slot    int  // the slot the operation used; -1 if none
	recv    bool // a receive (else a send)
	n       int  // bytes received
	src     uint64
	err     int // FI_E* code of a failed operation; 0 if it succeeded
	provErr int
}

// Codes of failed receives that are not the endpoint's failure.
const (
	codeCanceled     = C.FI_ECANCELED
	codeAddrNotAvail = C.FI_EADDRNOTAVAIL
	codeTrunc        = C.FI_ETRUNC
	codeIO           = C.FI_EIO
)

// Remote memory access.

// rma reports whether the endpoint reads peers' memory (FI_RMA).
func (fb *fabric) rma() bool { return fb.f.rma != 0 }

// rmaSlot is the slot number a read's completion names.
func (fb *fabric) rmaSlot() int { return fb.slots() }

// virtAddr reports whether a peer's memory is addressed by its virtual
// addresses (else by offsets into a registration).
func (fb *fabric) virtAddr() bool { return C.lamofi_virt_addr(fb.f) != 0 }

// mrLocal reports whether a local buffer of a transfer must be
// registered too.
func (fb *fabric) mrLocal() bool { return C.lamofi_mr_local(fb.f) != 0 }

// maxMsg is the longest transfer.
func (fb *fabric) maxMsg() int { return int(min(uint64(C.lamofi_max_msg(fb.f)), 1<<30)) }

// mrTable registers memory for the registration cache and keeps the
// registrations by key.
type mrTable struct {
	fb  *fabric
	mrs map[uint64]*C.struct_fid_mr
}

func newMRTable(fb *fabric) *mrTable {
	return &mrTable{fb: fb, mrs: map[uint64]*C.struct_fid_mr{}}
}

func (m *mrTable) register(start, end uintptr) (uint64, error) {
	var mr *C.struct_fid_mr
	var key C.uint64_t
	if rc := C.lamofi_mr_reg(m.fb.f, C.uintptr_t(start), C.size_t(end-start), &mr, &key); rc != 0 {
		return 0, ferr("fi_mr_reg", int(rc))
	}
	if _, dup := m.mrs[uint64(key)]; dup {
		C.lamofi_mr_close(mr)
		return 0, fmt.Errorf("fi_mr_reg: key %d given twice", key)
	}
	m.mrs[uint64(key)] = mr
	return uint64(key), nil
}

func (m *mrTable) deregister(key uint64) error {
	mr := m.mrs[key]
	if mr == nil {
		return fmt.Errorf("no registration with key %d", key)
	}
	delete(m.mrs, key)
	if rc := C.lamofi_mr_close(mr); rc != 0 {
		return ferr("fi_close mr", int(rc))
	}
	return nil
}

// desc is the descriptor of the registration with key (for a local
// buffer, where the provider wants one).
func (m *mrTable) desc(key uint64) unsafe.Pointer {
	if mr := m.mrs[key]; mr != nil {
		return C.lamofi_mr_desc(mr)
	}
	return nil
}

// Tagged messages.

// tagged reports whether the endpoint sends tagged messages (FI_TAGGED).
func (fb *fabric) tagged() bool { return fb.f.tagged != 0 }

// tsendSlot is the slot number tagged send i's completion names.
func (fb *fabric) tsendSlot(i int) int { return fb.slots() + 1 + i }

// trecv posts a tagged receive of n bytes into dst; its completion
// names rmaSlot.
func (fb *fabric) trecv(dst uintptr, n int, desc unsafe.Pointer, tag uint64) int {
	return int(C.lamofi_trecv(fb.f, C.uintptr_t(dst), C.size_t(n), desc, C.uint64_t(tag)))
}

// cancelRead cancels the read or tagged receive in flight.
func (fb *fabric) cancelRead() { C.lamofi_cancel_read(fb.f) }

// tsend sends n bytes at src to dest, tagged; its completion names
// tsendSlot(i).
func (fb *fabric) tsend(i int, src uintptr, n int, desc unsafe.Pointer, dest, tag uint64) int {
	return int(C.lamofi_tsend(fb.f, C.size_t(i), C.uintptr_t(src), C.size_t(n), desc, C.uint64_t(dest), C.uint64_t(tag)))
}

// tinject0 sends an empty tagged message.
func (fb *fabric) tinject0(dest, tag uint64) int {
	return int(C.lamofi_tinject0(fb.f, C.uint64_t(dest), C.uint64_t(tag)))
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// read starts reading n bytes at raddr (key) of src into dst.
func (fb *fabric) read(dst uintptr, n int, desc unsafe.Pointer, src, raddr, key uint64) int {
	return int(C.lamofi_read(fb.f, C.uintptr_t(dst), C.size_t(n), desc, C.uint64_t(src), C.uint64_t(raddr), C.uint64_t(key)))
}
