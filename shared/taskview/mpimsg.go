package taskview

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/wire"
)

// msgFormat is mpimsg's line: LAM's columns.
const msgFormat = "%-14s %-14s %-7s %-8s %-8s %-11s %s\n"

// lamd rpi traffic in a lamd's queue (libmpi/rpi/lamd's message type).
const rpiLamdType = 16

// MsgOptions are mpimsg's options.
type MsgOptions struct {
	GPS bool
	// Limit is the number of messages shown (LAM's -B); 0 is no limit.
	Limit int
	// All shows the collectives' traffic too (LAM's -a).
	All bool
	// Seq, when positive, selects one message (LAM's -c, -d, -m <#>).
	Seq int
	// Comm, Type, Body print the selected message's communicator,
	// datatype or contents (LAM's -c, -d, -m) instead of the table.
	Comm, Type, Body bool
	// Elements bounds the bytes of contents printed (LAM's -e); 0 is all.
	Elements int
}

// msgRow is one message as mpimsg lists it.
type msgRow struct {
	node                 int32
	seq                  int
	src, dest, tag, comm string
	count, dtype         string
	queued               *wire.QueuedMsg // a lamd's queued message (has contents)
}

// rows lists the messages of the nodes: on each node, the MPI messages
// waiting unmatched in its processes' queues, then the messages in its
// lamd's out-of-band queue, numbered from 1 per node.
func rows(nodes []Node, o MsgOptions) (out []msgRow, more bool) {
	for _, n := range nodes {
		seq := 0
		for _, p := range n.Procs {
			st := p.Status
			if st == nil {
				continue
			}
			more = more || st.More
			for _, m := range st.Pending {
				seq++
				if m.Coll && !o.All {
					continue
				}
				src := "ANY"
				switch {
				case o.GPS && m.From >= 0:
					src = strconv.Itoa(int(m.From))
				case m.From >= 0:
					src = fmt.Sprintf("%d/%d", m.From, m.Source)
				}
				dest := fmt.Sprintf("%d", st.Rank)
				if o.GPS {
					dest = fmt.Sprintf("n%d,p%d", p.Node, st.PID)
				}
				tag := strconv.Itoa(int(m.Tag))
				comm := m.Comm
				if m.Coll {
					comm += "*"
				}
				out = append(out, msgRow{node: n.ID, seq: seq, src: src, dest: dest, tag: tag, comm: comm,
					count: strconv.FormatInt(m.Bytes, 10), dtype: "BYTE"})
			}
		}
		more = more || n.More
		for i := range n.Queue {
			q := &n.Queue[i]
			seq++
			dest := fmt.Sprintf("event %d", q.Event)
			if q.Event < 0 {
				dest = "p" + strconv.Itoa(int(-q.Event))
				if rank, ok := rankOfPID(nodes, n.ID, -q.Event); ok && !o.GPS {
					dest = strconv.Itoa(int(rank))
				}
			}
			comm := "OOB"
			switch {
			case q.Event == jobwire.EventTrace:
				comm, dest = "TRACE", "lamtrace" // a rank's trace records (mpirun -t)
			case q.Type == rpiLamdType:
				comm = "RPI"
			}
			out = append(out, msgRow{node: n.ID, seq: seq, src: "n" + strconv.Itoa(int(q.From)), dest: dest,
				tag: strconv.Itoa(int(q.Type)), comm: comm, count: strconv.Itoa(int(q.Len)), dtype: "BYTE", queued: q})
		}
	}
	return out, more
}

// PrintMsgs writes mpimsg's table (or, with Comm, Type or Body, the one
// selected message's details) and returns how many messages it showed.
// Each line ends with where the message waits: its node and number there.
func PrintMsgs(w io.Writer, nodes []Node, o MsgOptions) int {
	list, more := rows(nodes, o)
	vertical := o.Comm || o.Type || o.Body
	if !vertical {
		src, dst := "SRC (G/L)", "DEST (G/L)"
		if o.GPS {
			src, dst = "SRC (GPS/L)", "DEST (GPS/L)"
		}
		fmt.Fprintf(w, msgFormat, src, dst, "TAG", "COMM", "COUNT", "DATATYPE", "MSG")
	}
	shown := 0
	for _, r := range list {
		if o.Seq > 0 && r.seq != o.Seq {
			continue
		}
		if o.Limit > 0 && shown >= o.Limit {
			more = true
			break
		}
		shown++
		switch {
		case o.Comm:
			fmt.Fprintf(w, "MESSAGE:\t%s #%d\nCOMM:\t%s\n\n", r.dest, r.seq, r.comm)
		case o.Type:
			fmt.Fprintf(w, "MESSAGE:\t%s #%d\nDATATYPE:\t%s\n\n", r.dest, r.seq, r.dtype)
		case o.Body:
			dump(w, r, o.Elements)
		default:
			fmt.Fprintf(w, msgFormat, r.src, r.dest, r.tag, r.comm, r.count, r.dtype, fmt.Sprintf("n%d,#%d", r.node, r.seq))
		}
	}
	if more && !vertical {
		fmt.Fprintln(w, "...and more buffered messages...")
	}
	return shown
}

// dump prints a message's contents as od does: offsets in octal, bytes in
// hex, 16 a line, at most max bytes (0: all that travelled).
func dump(w io.Writer, r msgRow, max int) {
	fmt.Fprintf(w, "MESSAGE: %s #%d\n", r.dest, r.seq)
	if r.queued == nil {
		fmt.Fprintln(w, "the contents stay in the receiving process's memory; only its envelope is known")
		fmt.Fprintln(w)
		return
	}
	head := r.queued.Head
	if max > 0 && len(head) > max {
		head = head[:max]
	}
	for off := 0; off < len(head); off += 16 {
		var b strings.Builder
		for _, c := range head[off:min(off+16, len(head))] {
			fmt.Fprintf(&b, " %02x", c)
		}
		fmt.Fprintf(w, "%07o%s\n", off, b.String())
	}
	if int(r.queued.Len) > len(head) {
		fmt.Fprintln(w, "...and more message data...")
	}
	fmt.Fprintln(w)
}

func rankOfPID(nodes []Node, node, pid int32) (int32, bool) {
	for _, n := range nodes {
		if n.ID != node {
			continue
		}
		for _, p := range n.Procs {
			if p.Info.PID == pid && p.Rank() >= 0 {
				return p.Rank(), true
			}
		}
	}
	return 0, false
}
