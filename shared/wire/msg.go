package wire

import (
	"encoding/binary"
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
	KindInspect
	KindInspection
	KindAttach
	KindPost
	KindCredit
	kindEnd
)

// Message is one protocol message. Its fields method declares its layout
// (see Codec): that one declaration both encodes and decodes it.
type Message interface {
	Kind() Kind
	fields(*Codec)
}

// kinds holds each kind's name and its message's constructor.
var kinds = [kindEnd]struct {
	name string
	new  func() Message
}{
	KindHello:        {"hello", newMessage[Hello]},
	KindWelcome:      {"welcome", newMessage[Welcome]},
	KindError:        {"error", newMessage[Error]},
	KindOK:           {"ok", newMessage[OK]},
	KindNodesReq:     {"nodes-req", newMessage[NodesReq]},
	KindNodes:        {"nodes", newMessage[Nodes]},
	KindEcho:         {"echo", newMessage[Echo]},
	KindEchoReply:    {"echo-reply", newMessage[EchoReply]},
	KindHalt:         {"halt", newMessage[Halt]},
	KindHaltNode:     {"halt-node", newMessage[HaltNode]},
	KindHaltProgress: {"halt-progress", newMessage[HaltProgress]},
	KindSpawn:        {"spawn", newMessage[Spawn]},
	KindStarted:      {"started", newMessage[Started]},
	KindOutput:       {"output", newMessage[Output]},
	KindExited:       {"exited", newMessage[Exited]},
	KindSignal:       {"signal", newMessage[Signal]},
	KindClean:        {"clean", newMessage[Clean]},
	KindSend:         {"send", newMessage[Send]},
	KindRecv:         {"recv", newMessage[Recv]},
	KindMsg:          {"msg", newMessage[Msg]},
	KindCancel:       {"cancel", newMessage[Cancel]},
	KindAddNode:      {"add-node", newMessage[AddNode]},
	KindRemoveNode:   {"remove-node", newMessage[RemoveNode]},
	KindHeartbeat:    {"heartbeat", newMessage[Heartbeat]},
	KindLinkHello:    {"link-hello", newMessage[LinkHello]},
	KindBootHello:    {"boot-hello", newMessage[BootHello]},
	KindUniverse:     {"universe", newMessage[Universe]},
	KindStdin:        {"stdin", newMessage[Stdin]},
	KindSecretReq:    {"secret-req", newMessage[SecretReq]},
	KindSecret:       {"secret", newMessage[Secret]},
	KindFileGet:      {"file-get", newMessage[FileGet]},
	KindFileChunk:    {"file-chunk", newMessage[FileChunk]},
	KindFilePut:      {"file-put", newMessage[FilePut]},
	KindFilePath:     {"file-path", newMessage[FilePath]},
	KindInspect:      {"inspect", newMessage[Inspect]},
	KindInspection:   {"inspection", newMessage[Inspection]},
	KindAttach:       {"attach", newMessage[Attach]},
	KindPost:         {"post", newMessage[Post]},
	KindCredit:       {"credit", newMessage[Credit]},
}

func newMessage[T any, P interface {
	*T
	Message
}]() Message {
	return P(new(T))
}

func (k Kind) String() string {
	if k > 0 && k < kindEnd {
		return kinds[k].name
	}
	return fmt.Sprintf("kind(%d)", uint16(k))
}

// Node ids: real nodes are 0..MaxNodes-1.
const (
	// NoNode is "no node" (LAM's NOTNODEID).
	NoNode = -1
	// LocalNode addresses the lamd the request is sent to (LAM's LOCAL).
	LocalNode = -2
)

// node is the id of a real node.
func node(c *Codec, p *int32, what string) { c.Int32(p, what, 0, MaxNodes-1) }

// target is the node a request is for: a real node or LocalNode.
func target(c *Codec, p *int32) { c.Int32(p, "node", LocalNode, MaxNodes-1) }

// Roles of a local client.
const (
	RoleTool uint8 = 1 + iota // a command such as lamnodes
	RoleMPI                   // an MPI process
	RoleRun                   // mpirun or lamexec: owns jobs
	// RoleStream is an MPI process's second connection, which carries
	// its point-to-point traffic (the lamd rpi) once it sends Attach.
	RoleStream
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
func (m *Hello) fields(c *Codec) {
	c.U16(&m.Version)
	c.Enum(&m.Role, "role", 1, roleEnd-1)
	c.I32(&m.PID)
	c.String(&m.Name, "name", 256)
}

// Welcome answers a Hello.
type Welcome struct {
	Version  uint16
	Node     int32 // this lamd's node id
	LamdPID  int32
	Universe string // the universe's id
}

func (*Welcome) Kind() Kind { return KindWelcome }
func (m *Welcome) fields(c *Codec) {
	c.U16(&m.Version)
	node(c, &m.Node, "node")
	c.I32(&m.LamdPID)
	c.String(&m.Universe, "universe", 256)
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
func (m *Error) fields(c *Codec) {
	c.Int32(&m.Code, "code", 1, 255)
	c.String(&m.Msg, "message", MaxString)
}

func (m *Error) Error() string { return m.Msg }

// OK is a successful request's final reply when there is nothing else to
// say, and ends a stream.
type OK struct{}

func (*OK) Kind() Kind    { return KindOK }
func (*OK) fields(*Codec) {}

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

func (n *Node) fields(c *Codec) {
	node(c, &n.ID, "node id")
	c.String(&n.Host, "host", MaxHost)
	c.String(&n.Addr, "address", 256)
	c.String(&n.Link, "link", 512)
	c.Int32(&n.CPUs, "cpu count", 1, MaxCPUs)
	c.Flags(&n.Flags, "node flags", nodeFlagsAll)
}

// nodes is a node table: each node (24 bytes at least) once.
func nodes(c *Codec, p *[]Node) {
	List(c, p, "nodes", MaxNodes, 24, (*Node).fields)
	if !c.Checking() {
		return
	}
	seen := make(map[int32]bool, len(*p))
	for _, n := range *p {
		if seen[n.ID] {
			c.Fail("node n%d listed twice", n.ID)
			return
		}
		seen[n.ID] = true
	}
}

// NodesReq asks for the node table.
type NodesReq struct{}

func (*NodesReq) Kind() Kind    { return KindNodesReq }
func (*NodesReq) fields(*Codec) {}

// Nodes is the node table, sorted by id.
type Nodes struct {
	Self        int32 // the answering lamd's node
	Nodes       []Node
	HeartbeatMS int32 // the universe's heartbeat period (0: none)
}

func (*Nodes) Kind() Kind { return KindNodes }
func (m *Nodes) fields(c *Codec) {
	node(c, &m.Self, "self")
	nodes(c, &m.Nodes)
	c.Int32(&m.HeartbeatMS, "heartbeat", 0, 1<<30)
}

// Echo asks a node's lamd to send Data back (tping).
type Echo struct {
	Node int32
	Data []byte
}

func (*Echo) Kind() Kind { return KindEcho }
func (m *Echo) fields(c *Codec) {
	target(c, &m.Node)
	c.Blob(&m.Data, "echo data", MaxData)
}

// EchoReply carries the echoed data.
type EchoReply struct{ Data []byte }

func (*EchoReply) Kind() Kind        { return KindEchoReply }
func (m *EchoReply) fields(c *Codec) { c.Blob(&m.Data, "echo data", MaxData) }

// Halt asks the local lamd to halt the whole universe. The reply is a
// stream of HaltProgress, ended by OK; then the lamd exits.
type Halt struct {
	TimeoutMS int32 // how long to wait for each node's answer
}

func (*Halt) Kind() Kind        { return KindHalt }
func (m *Halt) fields(c *Codec) { c.Int32(&m.TimeoutMS, "timeout", 0, 1<<30) }

// HaltNode tells one lamd to halt (sent between lamds).
type HaltNode struct{}

func (*HaltNode) Kind() Kind    { return KindHaltNode }
func (*HaltNode) fields(*Codec) {}

// HaltProgress reports one node's answer to a halt.
type HaltProgress struct {
	Node  int32
	Host  string
	Acked bool   // the node acknowledged
	Err   string // why not
}

func (*HaltProgress) Kind() Kind { return KindHaltProgress }
func (m *HaltProgress) fields(c *Codec) {
	node(c, &m.Node, "node")
	c.String(&m.Host, "host", MaxHost)
	c.Bool(&m.Acked)
	c.String(&m.Err, "error", MaxString)
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
func (m *Spawn) fields(c *Codec) {
	target(c, &m.Node)
	c.String(&m.Job, "job", 256)
	c.Strings(&m.Argv, "arguments", MaxArgs, MaxString*2)
	if c.Checking() && (len(m.Argv) == 0 || m.Argv[0] == "") {
		c.Fail("no program to run")
	}
	c.Strings(&m.Env, "environment", MaxArgs, MaxString*2)
	c.String(&m.Dir, "directory", 4096)
	c.Flags(&m.Flags, "spawn flags", spawnFlagsAll)
}

// Started reports the pid of a spawned process.
type Started struct {
	Node int32
	PID  int32
}

func (*Started) Kind() Kind { return KindStarted }
func (m *Started) fields(c *Codec) {
	node(c, &m.Node, "node")
	c.Int32(&m.PID, "pid", 1, 1<<30)
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
func (m *Output) fields(c *Codec) {
	c.Enum(&m.Stream, "stream", Stdout, Stderr)
	c.Blob(&m.Data, "output", MaxData)
}

// Exited reports how a process ended: Status for a normal exit, or the
// signal that killed it.
type Exited struct {
	Status int32
	Signal int32
}

func (*Exited) Kind() Kind { return KindExited }
func (m *Exited) fields(c *Codec) {
	c.Int32(&m.Status, "status", 0, 255)
	c.Int32(&m.Signal, "signal", 0, 64)
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
func (m *Signal) fields(c *Codec) {
	target(c, &m.Node)
	c.String(&m.Job, "job", 256)
	c.Int32(&m.PID, "pid", 0, 1<<30)
	c.Int32(&m.Signal, "signal", 0, 64)
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
func (m *Clean) fields(c *Codec) {
	target(c, &m.Node)
	c.Enum(&m.Phase, "clean phase", 1, cleanEnd-1)
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
func (m *Send) fields(c *Codec) {
	target(c, &m.Node)
	c.I32(&m.Event)
	c.I32(&m.Type)
	c.Blob(&m.Data, "message", MaxData)
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
func (m *Recv) fields(c *Codec) {
	c.I32(&m.Event)
	c.I32(&m.Type)
	c.Bool(&m.Try)
	c.Bool(&m.Probe)
}

// Msg is a received out-of-band message.
type Msg struct {
	From  int32 // sending node
	Event int32
	Type  int32
	Data  []byte
}

func (*Msg) Kind() Kind { return KindMsg }
func (m *Msg) fields(c *Codec) {
	node(c, &m.From, "from")
	c.I32(&m.Event)
	c.I32(&m.Type)
	c.Blob(&m.Data, "message", MaxData)
}

// Cancel abandons the request with the frame's id.
type Cancel struct{}

func (*Cancel) Kind() Kind    { return KindCancel }
func (*Cancel) fields(*Codec) {}

// AddNode adds a node to the universe (lamgrow).
type AddNode struct{ Node Node }

func (*AddNode) Kind() Kind        { return KindAddNode }
func (m *AddNode) fields(c *Codec) { m.Node.fields(c) }

// RemoveNode removes a node from the universe (lamshrink).
type RemoveNode struct {
	ID     int32
	WaitMS int32 // warn its processes and wait this long first
}

func (*RemoveNode) Kind() Kind { return KindRemoveNode }
func (m *RemoveNode) fields(c *Codec) {
	node(c, &m.ID, "node")
	c.Int32(&m.WaitMS, "wait", 0, 1<<30)
}

// Heartbeat keeps a lamd link alive in fault-tolerant mode.
type Heartbeat struct{}

func (*Heartbeat) Kind() Kind    { return KindHeartbeat }
func (*Heartbeat) fields(*Codec) {}

// LinkHello opens an authenticated link between two lamds.
type LinkHello struct {
	Version  uint16
	Universe string
	Node     int32
}

func (*LinkHello) Kind() Kind { return KindLinkHello }
func (m *LinkHello) fields(c *Codec) {
	c.U16(&m.Version)
	c.String(&m.Universe, "universe", 256)
	node(c, &m.Node, "node")
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
func (m *BootHello) fields(c *Codec) {
	c.U16(&m.Version)
	node(c, &m.Node, "node")
	c.String(&m.Link, "link", 512)
	c.Int32(&m.CPUs, "cpu count", -1, MaxCPUs)
	c.I32(&m.PID)
	c.String(&m.Host, "host", MaxHost)
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
func (m *Universe) fields(c *Codec) {
	c.String(&m.ID, "universe", 256)
	nodes(c, &m.Nodes)
	c.Int32(&m.HeartbeatMS, "heartbeat", 0, 1<<30)
	c.Bool(&m.Join)
}

// Stdin carries standard input to a spawned process; the frame's id is the
// Spawn request's. EOF closes the process's stdin.
type Stdin struct {
	Data []byte
	EOF  bool
}

func (*Stdin) Kind() Kind { return KindStdin }
func (m *Stdin) fields(c *Codec) {
	c.Blob(&m.Data, "input", MaxData)
	c.Bool(&m.EOF)
}

// SecretReq asks the local lamd for the universe's secret (lamgrow needs
// it to admit a new node). Only local clients of the owner get an answer.
type SecretReq struct{}

func (*SecretReq) Kind() Kind    { return KindSecretReq }
func (*SecretReq) fields(*Codec) {}

// Secret carries the universe's secret, in hex.
type Secret struct{ Key string }

func (*Secret) Kind() Kind        { return KindSecret }
func (m *Secret) fields(c *Codec) { c.String(&m.Key, "secret", 256) }

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
func (m *FileGet) fields(c *Codec) {
	target(c, &m.Node)
	c.String(&m.Path, "path", 4096)
	if c.Checking() && m.Path == "" {
		c.Fail("empty path")
	}
}

// FileChunk is a piece of a file.
type FileChunk struct{ Data []byte }

func (*FileChunk) Kind() Kind        { return KindFileChunk }
func (m *FileChunk) fields(c *Codec) { c.Blob(&m.Data, "chunk", MaxData) }

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
func (m *FilePut) fields(c *Codec) {
	target(c, &m.Node)
	c.String(&m.Name, "name", 255)
	if c.Checking() && (m.Name == "" || m.Name == "." || m.Name == ".." || strings.ContainsAny(m.Name, "/\x00")) {
		c.Fail("bad file name %q", m.Name)
	}
	c.Bool(&m.Append)
	c.Blob(&m.Data, "data", MaxData)
}

// FilePath says where a FilePut stored the file.
type FilePath struct{ Path string }

func (*FilePath) Kind() Kind        { return KindFilePath }
func (m *FilePath) fields(c *Codec) { c.String(&m.Path, "path", 4096) }

// Attach turns the connection it arrives on (a RoleStream client's) into
// the stream of the out-of-band messages for Event with a type matching
// Type: the lamd answers OK, then writes each such message to the
// connection as a Msg frame (id 0, no flags) as soon as it arrives, the
// ones it had queued first. The client then sends Posts on it and nothing
// else. An event has one stream at a time.
type Attach struct {
	Event int32
	Type  int32
}

func (*Attach) Kind() Kind { return KindAttach }
func (m *Attach) fields(c *Codec) {
	c.I32(&m.Event)
	c.I32(&m.Type)
}

// Post is a Send whose sender does not wait for an answer: the lamd
// answers only when it cannot deliver it (an Error with the Post's id, on
// the stream). Posts from one stream arrive in the order they were
// posted. Between lamds a Post travels with frame id 0 and counts against
// the link's window (MaxWindow) until the receiving lamd returns its
// bytes in a Credit.
type Post struct {
	Node  int32
	Event int32
	Type  int32
	Data  []byte
}

func (*Post) Kind() Kind { return KindPost }

// Unmarshal decodes a Post frame's body into m, checked as Decode checks
// it; m.Data aliases body.
func (m *Post) Unmarshal(body []byte) error { return Unmarshal(body, m.fields) }
func (m *Post) fields(c *Codec) {
	target(c, &m.Node)
	c.I32(&m.Event)
	c.I32(&m.Type)
	c.Blob(&m.Data, "message", MaxData)
}

// Credit returns Bytes of a link's window: the Posts they carried have
// been delivered (or queued within bounds) by the lamd sending it.
type Credit struct {
	Bytes uint32
}

// MaxWindow bounds a Credit: no lamd has more Post bytes than this in
// flight on a link.
const MaxWindow = 1 << 30

func (*Credit) Kind() Kind { return KindCredit }
func (m *Credit) fields(c *Codec) {
	c.U32(&m.Bytes)
	if c.Checking() && m.Bytes > MaxWindow {
		c.Fail("credit of %d bytes exceeds %d", m.Bytes, MaxWindow)
	}
}

// AppendMsg appends to buf the frame of a Msg, as AppendFrame(buf, 0, 0,
// &Msg{...}) would, without a Msg to allocate (a lamd writes one per
// message it relays).
func AppendMsg(buf []byte, from, event, typ int32, data []byte) []byte {
	start := len(buf)
	buf = append(buf, make([]byte, HeaderSize+16)...)
	b := buf[start:]
	binary.BigEndian.PutUint32(b, uint32(HeaderSize-4+16+len(data)))
	binary.BigEndian.PutUint16(b[4:], uint16(KindMsg))
	binary.BigEndian.PutUint16(b[6:], 0)
	binary.BigEndian.PutUint64(b[8:], 0)
	binary.BigEndian.PutUint32(b[HeaderSize:], uint32(from))
	binary.BigEndian.PutUint32(b[HeaderSize+4:], uint32(event))
	binary.BigEndian.PutUint32(b[HeaderSize+8:], uint32(typ))
	binary.BigEndian.PutUint32(b[HeaderSize+12:], uint32(len(data)))
	return append(buf, data...)
}

// AppendPost appends to buf the frame of a Post whose Data is head
// followed by data, as AppendFrame(buf, id, 0, &Post{...}) would, without
// joining them first.
func AppendPost(buf []byte, id uint64, node, event, typ int32, head, data []byte) []byte {
	start := len(buf)
	n := len(head) + len(data)
	buf = append(buf, make([]byte, HeaderSize+16)...)
	b := buf[start:]
	binary.BigEndian.PutUint32(b, uint32(HeaderSize-4+16+n))
	binary.BigEndian.PutUint16(b[4:], uint16(KindPost))
	binary.BigEndian.PutUint16(b[6:], 0)
	binary.BigEndian.PutUint64(b[8:], id)
	binary.BigEndian.PutUint32(b[HeaderSize:], uint32(node))
	binary.BigEndian.PutUint32(b[HeaderSize+4:], uint32(event))
	binary.BigEndian.PutUint32(b[HeaderSize+8:], uint32(typ))
	binary.BigEndian.PutUint32(b[HeaderSize+12:], uint32(n))
	buf = append(buf, head...)
	return append(buf, data...)
}

// Unmarshal decodes a Msg frame's body into m, checked as Decode checks
// it; m.Data aliases body.
func (m *Msg) Unmarshal(body []byte) error { return Unmarshal(body, m.fields) }
