package integration

import (
	"testing"
	"time"
)

// TestOFICheckpoint: jobs over the ofi module, with libfabric's tcp and
// shm providers, checkpointed twice inside their MPI calls (small and
// rendezvous messages in flight), continued, ended and restarted, with
// the result of a run without checkpoints (runCRCase).
func TestOFICheckpoint(t *testing.T) {
	needOFI(t)
	buildCRTools(t)
	ctx, l := bootLocal(t, 12*time.Minute)
	for _, prov := range []string{"tcp", "shm"} {
		for _, c := range []crCase{
			{op: "sendrecv", elems: 8, iter: 600},
			{op: "issend", elems: 8, iter: 600, stop: true},
			{op: "allreduce", elems: 8, iter: 600},
			{op: "alltoall", elems: 16 << 10, iter: 300, stop: true},
			{op: "isend", elems: 64 << 10, iter: 300},
		} {
			c.rpi, c.prog = "ofi", bin("testprog-ofi")
			c.args = []string{"-ssi", "rpi_ofi_provider", prov, "-ssi", "rpi_ofi_onnode", "1"}
			t.Run(prov+"-"+c.op, func(t *testing.T) { runCRCase(t, ctx, l, c) })
		}
	}
	noneLeft(t, "testprog-ofi")
}
