package wire

// Inspect asks a node's lamd what its MPI processes are doing (mpitask)
// and which messages wait in its out-of-band queue and in its processes'
// unexpected queues (mpimsg). The lamd asks each of its MPI processes and
// answers with one Inspection.
type Inspect struct {
	Node int32
	// Msgs asks for the queues too.
	Msgs bool
	// MaxMsgs bounds the messages listed per queue.
	MaxMsgs int32
}

func (*Inspect) Kind() Kind { return KindInspect }
func (m *Inspect) fields(c *Codec) {
	target(c, &m.Node)
	c.Bool(&m.Msgs)
	c.Int32(&m.MaxMsgs, "message limit", 0, MaxInspectMsgs)
}

// Limits of an Inspection.
const (
	MaxInspectProcs = 4096
	MaxInspectMsgs  = 4096
	// MaxInspectHead is how much of a queued message's body is shown.
	MaxInspectHead = 256
	maxStatus      = 1 << 20
)

// States of an inspected process, as the lamd knows it.
const (
	ProcAnswered  uint8 = 1 + iota // Status holds the process's own answer
	ProcSilent                     // an MPI process that did not answer in time
	ProcFinalized                  // it left MPI (its connection closed) and still runs
	ProcStarting                   // started as a rank, not yet in MPI_Init
	procStateEnd
)

// InspectedProc is one process of the node.
type InspectedProc struct {
	PID   int32
	Name  string // the program
	Rank  int32  // its rank from its start environment, or -1
	Job   string
	State uint8
	// Status is the process's answer (jobwire.Status), passed on as is.
	Status []byte
}

func (p *InspectedProc) fields(c *Codec) {
	c.Int32(&p.PID, "pid", 1, 1<<30)
	c.String(&p.Name, "program", MaxString)
	c.Int32(&p.Rank, "rank", -1, 1<<30)
	c.String(&p.Job, "job", 256)
	c.Enum(&p.State, "process state", 1, procStateEnd-1)
	c.Blob(&p.Status, "process status", maxStatus)
}

// QueuedMsg is an out-of-band message waiting in a lamd.
type QueuedMsg struct {
	Seq   int32 // its place in the queue, from 1
	From  int32 // sending node
	Event int32
	Type  int32
	Len   int32
	Head  []byte // the first bytes of its body
}

func (q *QueuedMsg) fields(c *Codec) {
	c.Int32(&q.Seq, "sequence", 0, 1<<30)
	node(c, &q.From, "from")
	c.I32(&q.Event)
	c.I32(&q.Type)
	c.Int32(&q.Len, "length", 0, MaxData)
	c.Blob(&q.Head, "message head", MaxInspectHead)
}

// Inspection is a node's answer to Inspect.
type Inspection struct {
	Node  int32
	Procs []InspectedProc
	Queue []QueuedMsg
	// More: the queue holds more messages than listed.
	More bool
}

func (*Inspection) Kind() Kind { return KindInspection }
func (m *Inspection) fields(c *Codec) {
	node(c, &m.Node, "node")
	List(c, &m.Procs, "processes", MaxInspectProcs, 19, (*InspectedProc).fields)
	List(c, &m.Queue, "queued messages", MaxInspectMsgs, 24, (*QueuedMsg).fields)
	c.Bool(&m.More)
}
