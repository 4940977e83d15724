package wire

import (
	"fmt"
	"strings"
)

// Kind identifies a message type.
type Kind uint16

// Message kinds. Numbers are part of the protocol: append, never reuse.
const (
	KindHello Kind = 1 + iota
	KindWelcome
	KindError
	KindOK
	KindNodesReq
	KindNodes
	KindEcho
	KindEchoReply
	KindHalt
	KindHaltNode
	KindHaltProgress
	KindSpawn
	KindStarted
	KindOutput
	KindExited
	KindSignal
	KindClean
	KindSend
	KindRecv
	KindMsg
	KindCancel
	KindAddNode
	KindRemoveNode
	KindHeartbeat
	KindLinkHello
	KindBootHello
	KindUniverse
	KindStdin
	KindSecretReq
	KindSecret
	KindFileGet
	KindFileChunk
	KindFilePut
	KindFilePath
	kindEnd
)

var kindNames = [...]string{"", "hello", "welcome", "error", "ok", "nodes-req", "nodes", "echo", "echo-reply",
	"halt", "halt-node", "halt-progress", "spawn", "started", "output", "exited", "signal", "clean", "send",
	"recv", "msg", "cancel", "add-node", "remove-node", "heartbeat", "link-hello", "boot-hello", "universe", "stdin",
	"secret-req", "secret", "file-get", "file-chunk", "file-put", "file-path"}

func (k Kind) String() string {
	if k > 0 && k < kindEnd {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint16(k))
}

// Message is one protocol message.
type Message interface {
	Kind() Kind
	encode(*Encoder)
	decode(*Decoder)
}

var kinds = map[Kind]func() Message{
	KindHello:        func() Message { return new(Hello) },
	KindWelcome:      func() Message { return new(Welcome) },
	KindError:        func() Message { return new(Error) },
	KindOK:           func() Message { return new(OK) },
	KindNodesReq:     func() Message { return new(NodesReq) },
	KindNodes:        func() Message { return new(Nodes) },
	KindEcho:         func() Message { return new(Echo) },
	KindEchoReply:    func() Message { return new(EchoReply) },
	KindHalt:         func() Message { return new(Halt) },
	KindHaltNode:     func() Message { return new(HaltNode) },
	KindHaltProgress: func() Message { return new(HaltProgress) },
	KindSpawn:        func() Message { return new(Spawn) },
	KindStarted:      func() Message { return new(Started) },
	KindOutput:       func() Message { return new(Output) },
	KindExited:       func() Message { return new(Exited) },
	KindSignal:       func() Message { return new(Signal) },
	KindClean:        func() Message { return new(Clean) },
	KindSend:         func() Message { return new(Send) },
	KindRecv:         func() Message { return new(Recv) },
	KindMsg:          func() Message { return new(Msg) },
	KindCancel:       func() Message { return new(Cancel) },
	KindAddNode:      func() Message { return new(AddNode) },
	KindRemoveNode:   func() Message { return new(RemoveNode) },
	KindHeartbeat:    func() Message { return new(Heartbeat) },
	KindLinkHello:    func() Message { return new(LinkHello) },
	KindBootHello:    func() Message { return new(BootHello) },
	KindUniverse:     func() Message { return new(Universe) },
	KindStdin:        func() Message { return new(Stdin) },
	KindSecretReq:    func() Message { return new(SecretReq) },
	KindSecret:       func() Message { return new(Secret) },
	KindFileGet:      func() Message { return new(FileGet) },
	KindFileChunk:    func() Message { return new(FileChunk) },
	KindFilePut:      func() Message { return new(FilePut) },
	KindFilePath:     func() Message { return new(FilePath) },
}

// Node ids: real nodes are 0..MaxNodes-1.
const (
	// NoNode is "no node" (LAM's NOTNODEID).
	NoNode = -1
	// LocalNode addresses the lamd the request is sent to (LAM's LOCAL).
	LocalNode = -2
)

func nodeID(d *Decoder, what string, allowLocal bool) int32 {
	lo := 0
	if allowLocal {
		lo = LocalNode
	}
	return int32(d.Int(what, lo, MaxNodes-1))
}

// Roles of a local client.
const (
	RoleTool uint8 = 1 + iota // a command such as lamnodes
	RoleMPI                   // an MPI process
	RoleRun                   // mpirun or lamexec: owns jobs
	roleEnd
)

// Hello opens a local connection.
type Hello struct {
	Version uint16
	Role    uint8
	PID     int32
	Name    string // the program's name, for logs
}

func (*Hello) Kind() Kind { return KindHello }
func (m *Hello) encode(e *Encoder) {
	e.U16(m.Version)
	e.U8(m.Role)
	e.I32(m.PID)
	e.String(m.Name)
}
func (m *Hello) decode(d *Decoder) {
	m.Version = d.U16()
	m.Role = d.U8()
	if d.Err() == nil && (m.Role == 0 || m.Role >= roleEnd) {
		d.Fail("unknown role %d", m.Role)
	}
	m.PID = d.I32()
	m.Name = d.String("name", 256)
}

// Welcome answers a Hello.
type Welcome struct {
	Version  uint16
	Node     int32 // this lamd's node id
	LamdPID  int32
	Universe string // the universe's id
}

func (*Welcome) Kind() Kind { return KindWelcome }
func (m *Welcome) encode(e *Encoder) {
	e.U16(m.Version)
	e.I32(m.Node)
	e.I32(m.LamdPID)
	e.String(m.Universe)
}
func (m *Welcome) decode(d *Decoder) {
	m.Version = d.U16()
	m.Node = nodeID(d, "node", false)
	m.LamdPID = d.I32()
	m.Universe = d.String("universe", 256)
}

// Error codes, numbered like LAM's errors as a shell sees them, so a
// tool can exit with the code it receives.
const (
	CodeFailed    int32 = 1   // anything else
	CodeNoEntry   int32 = 2   // ENOENT: no such program
	CodePerm      int32 = 13  // EACCES
	CodeDeadNode  int32 = 202 // EDEADNODE: the node's lamd is gone
	CodeTimeout   int32 = 213 // LAM_ERR_TO
	CodeBadNode   int32 = 229 // EBADNODE: no such node
	CodeCancelled int32 = 125 // ECANCELED
	CodeVersion   int32 = 71  // EPROTO: protocol version mismatch
	CodeHalting   int32 = 108 // ESHUTDOWN: the lamd is halting
	CodeFull      int32 = 105 // ENOBUFS: a buffer limit was reached
)

// Error is a failed request's final reply.
type Error struct {
	Code int32
	Msg  string
}

func (*Error) Kind() Kind { return KindError }
func (m *Error) encode(e *Encoder) {
	e.I32(m.Code)
	e.String(m.Msg)
}
func (m *Error) decode(d *Decoder) {
	m.Code = int32(d.Int("code", 1, 255))
	m.Msg = d.String("message", MaxString)
}

func (m *Error) Error() string { return m.Msg }

// OK is a successful request's final reply when there is nothing else to
// say, and ends a stream.
type OK struct{}

func (*OK) Kind() Kind        { return KindOK }
func (*OK) encode(*Encoder)   {}
func (*OK) decode(d *Decoder) {}

// Node flags.
const (
	NodeNoSchedule uint32 = 1 << iota // schedule=no: N and C skip it
	NodeOrigin                        // where lamboot ran
	NodeDead                          // its lamd stopped answering
	nodeFlagsAll   = NodeNoSchedule | NodeOrigin | NodeDead
)

// Node is one entry of the universe's node table.
type Node struct {
	ID    int32
	Host  string // the name the boot schema gave
	Addr  string // its IP address
	Link  string // host:port of its lamd's link listener
	CPUs  int32
	Flags uint32
}

func (n *Node) encode(e *Encoder) {
	e.I32(n.ID)
	e.String(n.Host)
	e.String(n.Addr)
	e.String(n.Link)
	e.I32(n.CPUs)
	e.U32(n.Flags)
}

func (n *Node) decode(d *Decoder) {
	n.ID = nodeID(d, "node id", false)
	n.Host = d.String("host", 1024)
	n.Addr = d.String("address", 256)
	n.Link = d.String("link", 512)
	n.CPUs = int32(d.Int("cpu count", 1, 1<<24))
	n.Flags = d.U32()
	if d.Err() == nil && n.Flags&^nodeFlagsAll != 0 {
		d.Fail("unknown node flags %#x", n.Flags)
	}
}

func encodeNodes(e *Encoder, ns []Node) {
	e.U32(uint32(len(ns)))
	for i := range ns {
		ns[i].encode(e)
	}
}

func decodeNodes(d *Decoder) []Node {
	n := d.U32()
	if d.Err() != nil {
		return nil
	}
	if n > MaxNodes {
		d.Fail("%d nodes exceed %d", n, MaxNodes)
		return nil
	}
	// A node takes at least 24 bytes on the wire.
	if uint64(n)*24 > uint64(len(d.buf)-d.off) {
		d.Fail("truncated node table")
		return nil
	}
	out := make([]Node, n)
	seen := make(map[int32]bool, n)
	for i := range out {
		out[i].decode(d)
		if d.Err() == nil && seen[out[i].ID] {
			d.Fail("node n%d listed twice", out[i].ID)
		}
		seen[out[i].ID] = true
	}
	return out
}

// NodesReq asks for the node table.
type NodesReq struct{}

func (*NodesReq) Kind() Kind      { return KindNodesReq }
func (*NodesReq) encode(*Encoder) {}
func (*NodesReq) decode(*Decoder) {}

// Nodes is the node table, sorted by id.
type Nodes struct {
	Self        int32 // the answering lamd's node
	Nodes       []Node
	HeartbeatMS int32 // the universe's heartbeat period (0: none)
}

func (*Nodes) Kind() Kind { return KindNodes }
func (m *Nodes) encode(e *Encoder) {
	e.I32(m.Self)
	encodeNodes(e, m.Nodes)
	e.I32(m.HeartbeatMS)
}
func (m *Nodes) decode(d *Decoder) {
	m.Self = nodeID(d, "self", false)
	m.Nodes = decodeNodes(d)
	m.HeartbeatMS = int32(d.Int("heartbeat", 0, 1<<30))
}

// Echo asks a node's lamd to send Data back (tping).
type Echo struct {
	Node int32
	Data []byte
}

func (*Echo) Kind() Kind { return KindEcho }
func (m *Echo) encode(e *Encoder) {
	e.I32(m.Node)
	e.Blob(m.Data)
}
func (m *Echo) decode(d *Decoder) {
	m.Node = nodeID(d, "node", true)
	m.Data = d.Blob("echo data", MaxData)
}

// EchoReply carries the echoed data.
type EchoReply struct{ Data []byte }

func (*EchoReply) Kind() Kind          { return KindEchoReply }
func (m *EchoReply) encode(e *Encoder) { e.Blob(m.Data) }
func (m *EchoReply) decode(d *Decoder) { m.Data = d.Blob("echo data", MaxData) }

// Halt asks the local lamd to halt the whole universe. The reply is a
// stream of HaltProgress, ended by OK; then the lamd exits.
type Halt struct {
	TimeoutMS int32 // how long to wait for each node's answer
}

func (*Halt) Kind() Kind          { return KindHalt }
func (m *Halt) encode(e *Encoder) { e.I32(m.TimeoutMS) }
func (m *Halt) decode(d *Decoder) { m.TimeoutMS = int32(d.Int("timeout", 0, 1<<30)) }

// HaltNode tells one lamd to halt (sent between lamds).
type HaltNode struct{}

func (*HaltNode) Kind() Kind      { return KindHaltNode }
func (*HaltNode) encode(*Encoder) {}
func (*HaltNode) decode(*Decoder) {}

// HaltProgress reports one node's answer to a halt.
type HaltProgress struct {
	Node  int32
	Host  string
	Acked bool   // the node acknowledged
	Err   string // why not
}

func (*HaltProgress) Kind() Kind { return KindHaltProgress }
func (m *HaltProgress) encode(e *Encoder) {
	e.I32(m.Node)
	e.String(m.Host)
	e.Bool(m.Acked)
	e.String(m.Err)
}
func (m *HaltProgress) decode(d *Decoder) {
	m.Node = nodeID(d, "node", false)
	m.Host = d.String("host", 1024)
	m.Acked = d.Bool()
	m.Err = d.String("error", MaxString)
}

// Spawn flags.
const (
	SpawnNoWait        uint32 = 1 << iota // detach: no output, no exit report
	SpawnStdin                            // the requester will send Stdin frames
	SpawnTryDir                           // fall back to $HOME if Dir does not exist (LAM's default)
	SpawnRemoveProgram                    // the program was loaded with FilePut: delete it after the exit
	spawnFlagsAll      = SpawnNoWait | SpawnStdin | SpawnTryDir | SpawnRemoveProgram
)

// Spawn starts a process on a node. The reply stream is Started, then
// Output frames, then Exited as the last frame (or an Error).
type Spawn struct {
	Node  int32
	Job   string // the job it belongs to, for KillJob and lamclean
	Argv  []string
	Env   []string // added to the lamd's environment
	Dir   string
	Flags uint32
}

func (*Spawn) Kind() Kind { return KindSpawn }
func (m *Spawn) encode(e *Encoder) {
	e.I32(m.Node)
	e.String(m.Job)
	e.Strings(m.Argv)
	e.Strings(m.Env)
	e.String(m.Dir)
	e.U32(m.Flags)
}
func (m *Spawn) decode(d *Decoder) {
	m.Node = nodeID(d, "node", true)
	m.Job = d.String("job", 256)
	m.Argv = d.Strings("arguments", MaxArgs, MaxString*2)
	if d.Err() == nil && (len(m.Argv) == 0 || m.Argv[0] == "") {
		d.Fail("no program to run")
	}
	m.Env = d.Strings("environment", MaxArgs, MaxString*2)
	m.Dir = d.String("directory", 4096)
	m.Flags = d.U32()
	if d.Err() == nil && m.Flags&^spawnFlagsAll != 0 {
		d.Fail("unknown spawn flags %#x", m.Flags)
	}
}

// Started reports the pid of a spawned process.
type Started struct {
	Node int32
	PID  int32
}

func (*Started) Kind() Kind { return KindStarted }
func (m *Started) encode(e *Encoder) {
	e.I32(m.Node)
	e.I32(m.PID)
}
func (m *Started) decode(d *Decoder) {
	m.Node = nodeID(d, "node", false)
	m.PID = int32(d.Int("pid", 1, 1<<30))
}

// Streams of Output.
const (
	Stdout uint8 = 1
	Stderr uint8 = 2
)

// Output carries whole lines (or a final partial line) of a process's
// standard output or error.
type Output struct {
	Stream uint8
	Data   []byte
}

func (*Output) Kind() Kind { return KindOutput }
func (m *Output) encode(e *Encoder) {
	e.U8(m.Stream)
	e.Blob(m.Data)
}
func (m *Output) decode(d *Decoder) {
	m.Stream = d.U8()
	if d.Err() == nil && m.Stream != Stdout && m.Stream != Stderr {
		d.Fail("unknown stream %d", m.Stream)
	}
	m.Data = d.Blob("output", MaxData)
}

// Exited reports how a process ended: Status for a normal exit, or the
// signal that killed it.
type Exited struct {
	Status int32
	Signal int32
}

func (*Exited) Kind() Kind { return KindExited }
func (m *Exited) encode(e *Encoder) {
	e.I32(m.Status)
	e.I32(m.Signal)
}
func (m *Exited) decode(d *Decoder) {
	m.Status = int32(d.Int("status", 0, 255))
	m.Signal = int32(d.Int("signal", 0, 64))
}

// Signal sends a signal to the processes a lamd started: one pid, every
// process of a job, or (Job and PID empty) every user process.
type Signal struct {
	Node   int32
	Job    string
	PID    int32
	Signal int32
}

func (*Signal) Kind() Kind { return KindSignal }
func (m *Signal) encode(e *Encoder) {
	e.I32(m.Node)
	e.String(m.Job)
	e.I32(m.PID)
	e.I32(m.Signal)
}
func (m *Signal) decode(d *Decoder) {
	m.Node = nodeID(d, "node", true)
	m.Job = d.String("job", 256)
	m.PID = int32(d.Int("pid", 0, 1<<30))
	m.Signal = int32(d.Int("signal", 0, 64))
}

// Clean phases (lamclean).
const (
	CleanKill     uint8 = 1 + iota // kill user processes
	CleanFiles                     // close files (nothing to do here)
	CleanTraces                    // drop traces (nothing to do here)
	CleanObjects                   // drop published names
	CleanMessages                  // drop buffered messages
	cleanEnd
)

// Clean runs one lamclean phase on one node.
type Clean struct {
	Node  int32
	Phase uint8
}

func (*Clean) Kind() Kind { return KindClean }
func (m *Clean) encode(e *Encoder) {
	e.I32(m.Node)
	e.U8(m.Phase)
}
func (m *Clean) decode(d *Decoder) {
	m.Node = nodeID(d, "node", true)
	m.Phase = d.U8()
	if d.Err() == nil && (m.Phase == 0 || m.Phase >= cleanEnd) {
		d.Fail("unknown clean phase %d", m.Phase)
	}
}

// Send delivers an out-of-band message to a node, addressed like LAM's
// nsend: event and type. Messages from one sender arrive in order.
type Send struct {
	Node  int32
	Event int32
	Type  int32
	Data  []byte
}

func (*Send) Kind() Kind { return KindSend }
func (m *Send) encode(e *Encoder) {
	e.I32(m.Node)
	e.I32(m.Event)
	e.I32(m.Type)
	e.Blob(m.Data)
}
func (m *Send) decode(d *Decoder) {
	m.Node = nodeID(d, "node", true)
	m.Event = d.I32()
	m.Type = d.I32()
	m.Data = d.Blob("message", MaxData)
}

// Recv waits for an out-of-band message to this node with Event and a
// matching Type (types match when either is 0 or they share a bit).
type Recv struct {
	Event int32
	Type  int32
	Try   bool // do not wait: Error CodeNoEntry if none is there
	Probe bool // do not remove the message
}

func (*Recv) Kind() Kind { return KindRecv }
func (m *Recv) encode(e *Encoder) {
	e.I32(m.Event)
	e.I32(m.Type)
	e.Bool(m.Try)
	e.Bool(m.Probe)
}
func (m *Recv) decode(d *Decoder) {
	m.Event = d.I32()
	m.Type = d.I32()
	m.Try = d.Bool()
	m.Probe = d.Bool()
}

// Msg is a received out-of-band message.
type Msg struct {
	From  int32 // sending node
	Event int32
	Type  int32
	Data  []byte
}

func (*Msg) Kind() Kind { return KindMsg }
func (m *Msg) encode(e *Encoder) {
	e.I32(m.From)
	e.I32(m.Event)
	e.I32(m.Type)
	e.Blob(m.Data)
}
func (m *Msg) decode(d *Decoder) {
	m.From = nodeID(d, "from", false)
	m.Event = d.I32()
	m.Type = d.I32()
	m.Data = d.Blob("message", MaxData)
}

// Cancel abandons the request with the frame's id.
type Cancel struct{}

func (*Cancel) Kind() Kind      { return KindCancel }
func (*Cancel) encode(*Encoder) {}
func (*Cancel) decode(*Decoder) {}

// AddNode adds a node to the universe (lamgrow).
type AddNode struct{ Node Node }

func (*AddNode) Kind() Kind          { return KindAddNode }
func (m *AddNode) encode(e *Encoder) { m.Node.encode(e) }
func (m *AddNode) decode(d *Decoder) { m.Node.decode(d) }

// RemoveNode removes a node from the universe (lamshrink).
type RemoveNode struct {
	ID     int32
	WaitMS int32 // warn its processes and wait this long first
}

func (*RemoveNode) Kind() Kind { return KindRemoveNode }
func (m *RemoveNode) encode(e *Encoder) {
	e.I32(m.ID)
	e.I32(m.WaitMS)
}
func (m *RemoveNode) decode(d *Decoder) {
	m.ID = nodeID(d, "node", false)
	m.WaitMS = int32(d.Int("wait", 0, 1<<30))
}

// Heartbeat keeps a lamd link alive in fault-tolerant mode.
type Heartbeat struct{}

func (*Heartbeat) Kind() Kind      { return KindHeartbeat }
func (*Heartbeat) encode(*Encoder) {}
func (*Heartbeat) decode(*Decoder) {}

// LinkHello opens an authenticated link between two lamds.
type LinkHello struct {
	Version  uint16
	Universe string
	Node     int32
}

func (*LinkHello) Kind() Kind { return KindLinkHello }
func (m *LinkHello) encode(e *Encoder) {
	e.U16(m.Version)
	e.String(m.Universe)
	e.I32(m.Node)
}
func (m *LinkHello) decode(d *Decoder) {
	m.Version = d.U16()
	m.Universe = d.String("universe", 256)
	m.Node = nodeID(d, "node", false)
}

// BootHello is a new lamd's callback to the booting tool: where it can be
// reached.
type BootHello struct {
	Version uint16
	Node    int32
	Link    string // host:port of its link listener
	CPUs    int32  // -1: keep the boot schema's count
	PID     int32
	Host    string // its host name
}

func (*BootHello) Kind() Kind { return KindBootHello }
func (m *BootHello) encode(e *Encoder) {
	e.U16(m.Version)
	e.I32(m.Node)
	e.String(m.Link)
	e.I32(m.CPUs)
	e.I32(m.PID)
	e.String(m.Host)
}
func (m *BootHello) decode(d *Decoder) {
	m.Version = d.U16()
	m.Node = nodeID(d, "node", false)
	m.Link = d.String("link", 512)
	m.CPUs = int32(d.Int("cpu count", -1, 1<<24))
	m.PID = d.I32()
	m.Host = d.String("host", 1024)
}

// Universe is the whole node table, sent by the booting tool to every new
// lamd once all have called back.
type Universe struct {
	ID    string
	Nodes []Node
	// HeartbeatMS is the heartbeat period in fault-tolerant mode; 0 means
	// no heartbeats.
	HeartbeatMS int32
	// Join is set when the new lamd joins a running universe (lamgrow):
	// it links to every node rather than only the lower ids.
	Join bool
}

func (*Universe) Kind() Kind { return KindUniverse }
func (m *Universe) encode(e *Encoder) {
	e.String(m.ID)
	encodeNodes(e, m.Nodes)
	e.I32(m.HeartbeatMS)
	e.Bool(m.Join)
}
func (m *Universe) decode(d *Decoder) {
	m.ID = d.String("universe", 256)
	m.Nodes = decodeNodes(d)
	m.HeartbeatMS = int32(d.Int("heartbeat", 0, 1<<30))
	m.Join = d.Bool()
}

// Stdin carries standard input to a spawned process; the frame's id is the
// Spawn request's. EOF closes the process's stdin.
type Stdin struct {
	Data []byte
	EOF  bool
}

func (*Stdin) Kind() Kind { return KindStdin }
func (m *Stdin) encode(e *Encoder) {
	e.Blob(m.Data)
	e.Bool(m.EOF)
}
func (m *Stdin) decode(d *Decoder) {
	m.Data = d.Blob("input", MaxData)
	m.EOF = d.Bool()
}

// SecretReq asks the local lamd for the universe's secret (lamgrow needs
// it to admit a new node). Only local clients of the owner get an answer.
type SecretReq struct{}

func (*SecretReq) Kind() Kind      { return KindSecretReq }
func (*SecretReq) encode(*Encoder) {}
func (*SecretReq) decode(*Decoder) {}

// Secret carries the universe's secret, in hex.
type Secret struct{ Key string }

func (*Secret) Kind() Kind          { return KindSecret }
func (m *Secret) encode(e *Encoder) { e.String(m.Key) }
func (m *Secret) decode(d *Decoder) { m.Key = d.String("secret", 256) }

// MaxFile bounds a file moved with FileGet and FilePut.
const MaxFile = 1 << 30

// FileGet asks a node's lamd for a program (found in its PATH when the
// name has no slash), for mpirun -s. The reply is FileChunk frames, then
// OK.
type FileGet struct {
	Node int32
	Path string
}

func (*FileGet) Kind() Kind { return KindFileGet }
func (m *FileGet) encode(e *Encoder) {
	e.I32(m.Node)
	e.String(m.Path)
}
func (m *FileGet) decode(d *Decoder) {
	m.Node = nodeID(d, "node", true)
	m.Path = d.String("path", 4096)
	if d.Err() == nil && m.Path == "" {
		d.Fail("empty path")
	}
}

// FileChunk is a piece of a file.
type FileChunk struct{ Data []byte }

func (*FileChunk) Kind() Kind          { return KindFileChunk }
func (m *FileChunk) encode(e *Encoder) { e.Blob(m.Data) }
func (m *FileChunk) decode(d *Decoder) { m.Data = d.Blob("chunk", MaxData) }

// FilePut stores a piece of a program in a node's session directory, for
// mpirun -s: the first piece creates the file, later ones (Append) extend
// it. The reply is FilePath.
type FilePut struct {
	Node   int32
	Name   string // a plain file name
	Append bool
	Data   []byte
}

func (*FilePut) Kind() Kind { return KindFilePut }
func (m *FilePut) encode(e *Encoder) {
	e.I32(m.Node)
	e.String(m.Name)
	e.Bool(m.Append)
	e.Blob(m.Data)
}
func (m *FilePut) decode(d *Decoder) {
	m.Node = nodeID(d, "node", true)
	m.Name = d.String("name", 255)
	if d.Err() == nil && (m.Name == "" || m.Name == "." || m.Name == ".." || strings.ContainsAny(m.Name, "/\x00")) {
		d.Fail("bad file name %q", m.Name)
	}
	m.Append = d.Bool()
	m.Data = d.Blob("data", MaxData)
}

// FilePath says where a FilePut stored the file.
type FilePath struct{ Path string }

func (*FilePath) Kind() Kind          { return KindFilePath }
func (m *FilePath) encode(e *Encoder) { e.String(m.Path) }
func (m *FilePath) decode(d *Decoder) { m.Path = d.String("path", 4096) }
