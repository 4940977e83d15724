package mpi

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/lamgo/lam/libmpi/cr"
	"github.com/lamgo/lam/libmpi/internal/comm"
	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/internal/topo"
	"github.com/lamgo/lam/libmpi/internal/wireup"
	"github.com/lamgo/lam/shared/jobwire"
)

// Checkpoint/restart with the self cr module (mpirun -ssi cr self, with a
// drainable rpi: crtcp, usysv, sysv or lamd). A program registers what it
// does at a checkpoint:
//
//	mpi.OnCheckpoint(func(w *mpi.CheckpointWriter) error {
//		mu.Lock(); defer mu.Unlock()
//		if err := w.Comm(grid); err != nil { return err }
//		return w.Encode(state)
//	})
//	mpi.OnRestart(func(r *mpi.CheckpointReader) error {
//		var err error
//		if grid, err = r.Comm(); err != nil { return err }
//		return r.Decode(&state)
//	})
//	mpi.Init()
//
// When crcheckpoint asks, a goroutine of the library quiesces it (every
// MPI call of the program waits, a blocked one where it waits), drains the
// links with the other processes, and calls the checkpoint callback on
// that goroutine, while the program's own goroutines run on outside MPI:
// the callback must take what it writes consistently (under the program's
// lock) and must not call MPI. The continue callback runs once the library
// has resumed. A process started again from the checkpoint (crrestart)
// starts from main; its Init restores the library's state and calls the
// restart callback, which reads back what the checkpoint callback wrote,
// in the same order, before Init returns.
//
// What the library saves and restores itself: the messages that had
// arrived and that no receive had taken (they are received after the
// restart as if they had just come), the communicators the checkpoint
// callback wrote with CheckpointWriter.Comm (intracommunicators — World,
// Self and those made by Dup, Split, Create and the topology
// constructors —, with their context ids, groups, topologies and names;
// an error handler of the program's becomes MPI_ERRORS_ARE_FATAL until
// the restart callback sets it again) and the datatypes it wrote with
// CheckpointWriter.Datatype (made again by their constructors). What it
// cannot save is refused when the callback writes it: communicators and
// datatypes with cached attributes of keyvals that are not restorable
// (those of NewRestorableKeyval and NewRestorableTypeKeyval are saved and
// set again; the restart callback sets the others again). The requests of non-blocking and persistent point-to-point
// operations the callback writes (CheckpointWriter.Request) come back on
// the program's new buffers (ReadRequest). It does not restore what
// lives on the program's goroutines, which a restart does not bring
// back: calls under way, and requests the callback did not write.
// A long (rendezvous) message announced and not received is saved like
// an eager one (the drain pulls its body, and its send completes); only
// those past 4 GiB a rank (the bodies one drain pulls, in all) stay
// with their senders: Init of a restarted
// process fails when there was one (LostMessages), unless the restart
// callback discards the saved messages. The program's state must
// therefore say where it stopped in a way it can resume from
// (examples/crsolver keeps the last two iterates, the ranks agree at
// restart on the one they all have and discard the saved messages).
//
// The restart callback is called in Init only for a process started from
// a checkpoint set, or, with cr_self_do_restart=1 (LAM's self restart:
// the program was started again by lamrestart and reads its own files),
// with a reader that holds nothing.

var crHooks struct {
	mu         sync.Mutex
	checkpoint func(*CheckpointWriter) error
	cont       func() error
	restart    func(*CheckpointReader) error
}

// OnCheckpoint registers the function that writes the program's state at
// a checkpoint (nil: none; the library still saves its own). It runs on a
// goroutine of the library, with MPI quiesced.
func OnCheckpoint(f func(w *CheckpointWriter) error) {
	crHooks.mu.Lock()
	defer crHooks.mu.Unlock()
	crHooks.checkpoint = f
}

// OnContinue registers the function called after a checkpoint once MPI
// has resumed (the job goes on in the same processes).
func OnContinue(f func() error) {
	crHooks.mu.Lock()
	defer crHooks.mu.Unlock()
	crHooks.cont = f
}

// OnRestart registers the function that reads the program's state back in
// Init of a process restarted from a checkpoint. Register it before Init.
func OnRestart(f func(r *CheckpointReader) error) {
	crHooks.mu.Lock()
	defer crHooks.mu.Unlock()
	crHooks.restart = f
}

// CheckpointWriter is where the checkpoint callback writes the program's
// state: bytes (Write), Go values (Encode, with encoding/gob) and
// references to communicators (Comm), in any mix; the restart callback
// reads them back in the same order.
type CheckpointWriter struct {
	buf   bytes.Buffer
	enc   *gob.Encoder
	comms []*Comm
	attrs map[*Comm][]crAttr // the attributes of the communicators written
	types []*Datatype        // saved, in the order of saved (cr_types.go)
	saved []crType
}

// Write writes raw bytes.
func (w *CheckpointWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }

// Encode writes a Go value with encoding/gob.
func (w *CheckpointWriter) Encode(v any) error {
	if w.enc == nil {
		w.enc = gob.NewEncoder(&w.buf)
	}
	if err := w.enc.Encode(v); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// Comm writes a reference to a communicator; the library saves the
// communicator itself, once however often it is written. A nil
// communicator (MPI_COMM_NULL) reads back as nil. Its attributes go
// with it if their keyvals are restorable (NewRestorableKeyval); one
// with an attribute of another keyval cannot be saved (ErrComm).
func (w *CheckpointWriter) Comm(c *Comm) error {
	ref, err := w.commRef(c)
	if err != nil {
		return err
	}
	return w.Encode(ref)
}

// commRef is the reference to c in the checkpoint, c saved once: 0 nil,
// -1 World, -2 Self, i+1 the i-th saved communicator.
func (w *CheckpointWriter) commRef(c *Comm) (int, error) {
	if c != nil && c.ready {
		if _, ok := w.attrs[c]; !ok {
			a, err := saveAttrs(&c.attrs, c.name)
			if err != nil {
				return 0, errorf(ErrComm, "%w", err)
			}
			if w.attrs == nil {
				w.attrs = map[*Comm][]crAttr{}
			}
			w.attrs[c] = a
		}
	}
	switch {
	case c == nil:
		return 0, nil
	case c == World:
		return -1, nil
	case c == Self:
		return -2, nil
	case !c.ready:
		return 0, errorf(ErrComm, "checkpoint: %s is not a valid communicator", c.name)
	}
	i := 0
	for i < len(w.comms) && w.comms[i] != c {
		i++
	}
	if i == len(w.comms) {
		w.comms = append(w.comms, c)
	}
	return i + 1, nil
}

// Datatype writes a reference to a datatype (nil reads back as nil); the
// library saves the datatype itself, as its constructor and arguments
// (and the datatypes it was made of), once however often it is written.
// A restart makes it again with the same type map, bounds and name, and
// the attributes of restorable keyvals (NewRestorableTypeKeyval); a
// datatype with an attribute of another keyval cannot be saved (ErrType).
func (w *CheckpointWriter) Datatype(d *Datatype) error {
	ref := 0
	if d != nil {
		i, err := w.saveType(d)
		if err != nil {
			return err
		}
		ref = i + 1
	}
	return w.Encode(ref)
}

// CheckpointReader is where the restart callback reads back what the
// checkpoint callback wrote.
type CheckpointReader struct {
	r       *bufio.Reader
	dec     *gob.Decoder
	comms   []*Comm
	types   []*Datatype
	dir     string
	msgs    []core.SavedMessage
	rts     int // long messages announced and not saved
	discard bool
	starts  []*core.Request // receives ReadRequest gave back, posted after the restart callback
}

// Read reads raw bytes.
func (r *CheckpointReader) Read(p []byte) (int, error) { return r.r.Read(p) }

// Decode reads a Go value written with Encode.
func (r *CheckpointReader) Decode(v any) error {
	if r.dec == nil {
		r.dec = gob.NewDecoder(r.r) // a bufio.Reader: gob reads no further than it needs
	}
	if err := r.dec.Decode(v); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	return nil
}

// Comm reads a communicator reference written with CheckpointWriter.Comm
// and returns the communicator, restored.
func (r *CheckpointReader) Comm() (*Comm, error) {
	var ref int
	if err := r.Decode(&ref); err != nil {
		return nil, err
	}
	return r.comm(ref)
}

// comm is the communicator of reference ref (commRef).
func (r *CheckpointReader) comm(ref int) (*Comm, error) {
	switch {
	case ref == 0:
		return nil, nil
	case ref == -1:
		return World, nil
	case ref == -2:
		return Self, nil
	case ref < 0 || ref > len(r.comms):
		return nil, errorf(ErrComm, "restart: communicator reference %d, but the checkpoint saved %d", ref, len(r.comms))
	}
	return r.comms[ref-1], nil
}

// Datatype reads a datatype reference written with
// CheckpointWriter.Datatype and returns the datatype, made again.
func (r *CheckpointReader) Datatype() (*Datatype, error) {
	var ref int
	if err := r.Decode(&ref); err != nil {
		return nil, err
	}
	switch {
	case ref == 0:
		return nil, nil
	case ref < 0 || ref > len(r.types):
		return nil, errorf(ErrType, "restart: datatype reference %d, but the checkpoint saved %d", ref, len(r.types))
	}
	return r.types[ref-1], nil
}

// startAll posts the receives ReadRequest gave back.
func (r *CheckpointReader) startAll() {
	for _, q := range r.starts {
		st.engine.Start(q)
	}
	r.starts = nil
}

// Messages is the number of messages the checkpoint saved that had
// arrived and that no receive had taken. They are queued when the
// restart callback returns, to be received as if they had just come
// (after any message the callback itself receives).
func (r *CheckpointReader) Messages() int { return len(r.msgs) }

// LostMessages is the number of long (rendezvous) messages that had
// announced themselves to this process and that no receive had taken at
// the checkpoint, and whose data the checkpoint could not save: the
// drain pulls the others' bodies up to 4 GiB a rank in all, so only
// messages past that. A program whose ranks resume where they stopped would
// wait for them for ever; unless the restart callback discards the
// saved messages (it resumes from an earlier point and sends again), Init
// fails when there are any.
func (r *CheckpointReader) LostMessages() int { return r.rts }

// DiscardMessages drops the saved messages instead: for a program that
// resumes from an earlier point than where it stopped, at which those
// messages had not been sent (examples/crsolver: the ranks go back to the
// last iteration every one of them completed, and send again what
// followed).
func (r *CheckpointReader) DiscardMessages() { r.discard = true }

// Dir is the checkpoint set the process was restarted from ("" with
// cr_self_do_restart and no set).
func (r *CheckpointReader) Dir() string { return r.dir }

// The rank file: crMagic, the length of the library's part (8 bytes,
// little endian), the library's part (gob: crLibrary), then the program's
// part as its callback wrote it.
const crMagic = "LAMGOCR\x01"

// crLibrary is the library's part of a rank's checkpoint.
type crLibrary struct {
	Rank, Size int
	Comms      []crComm
	Types      []crType
	Messages   []core.SavedMessage
	// Rendezvous is how many long messages had announced themselves and
	// could not be saved (their senders held the data).
	Rendezvous int
	// WorldAttrs and SelfAttrs are World's and Self's attributes, if the
	// callback wrote them (cr_attrs.go).
	WorldAttrs, SelfAttrs []crAttr
}

// crComm is a saved communicator.
type crComm struct {
	Name    string
	Context uint32
	Group   []int // the (local) group
	Topo    *topo.Topo
	Return  bool  // its error handler was MPI_ERRORS_RETURN
	Remote  []int // an intercommunicator's remote group (nil: an intracommunicator)
	Attrs   []crAttr
}

// crCheckpointer is what the wire-up calls at a checkpoint.
func crCheckpointer() *wireup.Checkpointer {
	return &wireup.Checkpointer{Save: saveState, Continue: func() error {
		crHooks.mu.Lock()
		f := crHooks.cont
		crHooks.mu.Unlock()
		if f == nil {
			return nil
		}
		return f()
	}}
}

// saveState writes this process's checkpoint: the program's state first
// (it says which communicators to save), then the library's. The engine
// is quiesced and drained.
func saveState(out io.Writer) error {
	crHooks.mu.Lock()
	f := crHooks.checkpoint
	crHooks.mu.Unlock()
	w := &CheckpointWriter{}
	if f != nil {
		if err := f(w); err != nil {
			return fmt.Errorf("the program's checkpoint callback: %w", err)
		}
	}
	lib := crLibrary{Rank: st.rank, Size: World.Size(), Types: w.saved, WorldAttrs: w.attrs[World], SelfAttrs: w.attrs[Self]}
	lib.Messages, lib.Rendezvous = st.engine.Unmatched()
	for _, c := range w.comms {
		s := crComm{Name: c.name, Context: c.context, Group: c.group, Topo: c.topo, Return: c.Errhandler() == ErrorsReturn, Attrs: w.attrs[c]}
		if c.inter != nil {
			s.Remote = c.inter.remote
		}
		lib.Comms = append(lib.Comms, s)
	}
	var libBuf bytes.Buffer
	if err := gob.NewEncoder(&libBuf).Encode(&lib); err != nil {
		return fmt.Errorf("the library's state: %w", err)
	}
	var head [len(crMagic) + 8]byte
	copy(head[:], crMagic)
	binary.LittleEndian.PutUint64(head[len(crMagic):], uint64(libBuf.Len()))
	for _, b := range [][]byte{head[:], libBuf.Bytes(), w.buf.Bytes()} {
		if _, err := out.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// maxCRLibrary bounds the library's part of a rank file.
const maxCRLibrary = 1 << 40

// restoreState reads this process's checkpoint from the set dir, restores
// the library's state and returns the reader of the program's part
// (which the caller closes after the restart callback).
func restoreState(dir string) (*CheckpointReader, io.Closer, error) {
	path := jobwire.RankFile(dir, st.rank)
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := readState(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	r.dir = dir
	return r, f, nil
}

// readState reads a rank file's library part from f (named path) and
// restores it.
func readState(f io.Reader, path string) (*CheckpointReader, error) {
	br := bufio.NewReader(f)
	var head [len(crMagic) + 8]byte
	if _, err := io.ReadFull(br, head[:]); err != nil || string(head[:len(crMagic)]) != crMagic {
		return nil, fmt.Errorf("%s is not a LAM/Go checkpoint of a rank", path)
	}
	n := binary.LittleEndian.Uint64(head[len(crMagic):])
	if n > maxCRLibrary {
		return nil, fmt.Errorf("%s: library state of %d bytes", path, n)
	}
	var lib crLibrary
	err := gob.NewDecoder(io.LimitReader(br, int64(n))).Decode(&lib)
	if err != nil {
		return nil, fmt.Errorf("%s: the library's state: %w", path, err)
	}
	if lib.Rank != st.rank || lib.Size != World.Size() {
		return nil, fmt.Errorf("%s holds rank %d of %d, this is rank %d of %d", path, lib.Rank, lib.Size, st.rank, World.Size())
	}
	r := &CheckpointReader{r: br, rts: lib.Rendezvous}
	if r.types, err = restoreTypes(lib.Types); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Communicators are made again in the order of their context ids,
	// the same on every process whatever order each program's callback
	// referred to them in: making one sets its coll module up, which may
	// communicate among its processes.
	order := make([]int, len(lib.Comms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(lib.Comms[a].Context, lib.Comms[b].Context) })
	r.comms = make([]*Comm, len(lib.Comms))
	for _, i := range order {
		c, err := restoreComm(lib.Comms[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r.comms[i] = c
	}
	for i, c := range r.comms {
		if err := restoreAttrs(&c.attrs, c, "comm:", c.name, lib.Comms[i].Attrs); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	for _, c := range []struct {
		c     *Comm
		attrs []crAttr
	}{{World, lib.WorldAttrs}, {Self, lib.SelfAttrs}} {
		if err := restoreAttrs(&c.c.attrs, c.c, "comm:", c.c.name, c.attrs); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	r.msgs = lib.Messages
	return r, nil
}

// restoreComm makes a saved communicator again.
func restoreComm(s crComm) (*Comm, error) {
	rank := Undefined
	for i, w := range s.Group {
		if w < 0 || w >= World.Size() {
			return nil, fmt.Errorf("communicator %q: world rank %d in a world of %d", s.Name, w, World.Size())
		}
		if w == st.rank {
			rank = i
		}
	}
	if rank == Undefined || s.Context < 4 || s.Context%comm.IntraIDs != 0 {
		return nil, fmt.Errorf("communicator %q (context %d) is not one of this process's", s.Name, s.Context)
	}
	errh := ErrorsAreFatal
	if s.Return {
		errh = ErrorsReturn
	}
	c := &Comm{name: s.Name, errh: errh, topo: s.Topo}
	c.init(s.Context, s.Group, rank)
	if s.Remote == nil {
		st.comms.Reserve(s.Context)
		c.setupColl()
		return c, nil
	}
	if len(s.Remote) == 0 || s.Topo != nil {
		return nil, fmt.Errorf("intercommunicator %q: %d remote processes, topology %v", s.Name, len(s.Remote), s.Topo != nil)
	}
	for _, w := range s.Remote {
		if w < 0 || w >= World.Size() || slices.Contains(s.Group, w) {
			return nil, fmt.Errorf("intercommunicator %q: world rank %d in the remote group (world of %d, local group %v)", s.Name, w, World.Size(), s.Group)
		}
	}
	ic := newInter(s.Name, s.Context, c, slices.Clone(s.Remote))
	st.comms.Reserve(comm.LocalGroup(s.Context)) // an intercommunicator takes comm.InterIDs ids
	return ic, nil
}

// crStart is Init's part of checkpoint/restart, with the library set up:
// it restores a restarted process's state and returns the restart
// callback's call (nil: none), to be made once Init is done; after it
// the process answers checkpoints (crReady).
func crStart(p *wireup.Process) (func() error, error) {
	crHooks.mu.Lock()
	f := crHooks.restart
	crHooks.mu.Unlock()
	var call func() error
	switch dir := p.RestartDir(); {
	case dir != "":
		r, closer, err := restoreState(dir)
		if err != nil {
			return nil, err
		}
		call = func() error {
			defer closer.Close()
			if f != nil {
				if err := f(r); err != nil {
					return err
				}
			}
			if !r.discard {
				if r.rts > 0 {
					return fmt.Errorf("restart: %d long messages were on their way to this process at the checkpoint and could not be saved (their senders held the data); the program must resume from a point before they were sent and discard the saved messages (CheckpointReader.DiscardMessages)", r.rts)
				}
				st.engine.Restore(r.msgs)
			} else {
				st.engine.Discard(r.msgs)
			}
			r.startAll()
			return nil
		}
	case f != nil && p.CRJob() != nil && p.CRJob().Restart():
		call = func() error { return f(&CheckpointReader{r: bufio.NewReader(eofReader{})}) }
	}
	return call, nil
}

// crReady makes the process answer checkpoints: Init is done, and a
// restarted process has its state back.
func crReady() { st.proc.SetCheckpointer(crCheckpointer()) }

// eofReader holds nothing.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// CRCallbacks names the C functions that are the program's callbacks, as
// the job's cr module says (self: cr_self_prefix, or cr_self_checkpoint,
// cr_self_continue and cr_self_restart); ok is false outside MPI or when
// no cr module is selected. The C binding (libmpi.so) looks them up in
// the process; a Go program registers functions instead.
func CRCallbacks() (cb cr.Callbacks, ok bool) {
	if st.proc == nil {
		return cr.Callbacks{}, false
	}
	j := st.proc.CRJob()
	if j == nil {
		return cr.Callbacks{}, false
	}
	return j.Callbacks(), true
}
