package taskview

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/wire"
)

// taskFormat is mpitask's line: LAM's columns and widths.
const taskFormat = "%-20.20s %-13.13s %-10.10s %-6.6s %-6.6s %-7.7s %s\n"

// TaskOptions are mpitask's output options.
type TaskOptions struct {
	GPS bool // name processes by node and pid (LAM's GPS) rather than rank
	// Comm and Type print, for each blocked process, its call's
	// communicator or datatype instead of the table (LAM's -c, -d).
	Comm, Type bool
}

// PrintTasks writes mpitask's table: a title line, then one line per
// process: running, blocked in an MPI call (with its peer or root, tag,
// communicator, count and datatype as the call has them), finalized.
func PrintTasks(w io.Writer, nodes []Node, o TaskOptions) {
	title := "TASK (G/L)"
	if o.GPS {
		title = "TASK (GPS/L)"
	}
	if !o.Comm && !o.Type {
		fmt.Fprintf(w, taskFormat, title, "FUNCTION", "PEER|ROOT", "TAG", "COMM", "COUNT", "DATATYPE")
	}
	for _, n := range nodes {
		for _, p := range n.Procs {
			switch {
			case !o.Comm && !o.Type:
				printTask(w, &p, o)
			case p.Status == nil || p.Status.State != jobwire.StateBlocked:
			case o.Type && p.Status.Call.Datatype != "":
				fmt.Fprintf(w, "%s:\t%s\nDATATYPE:\t%s\n\n", title, who(&p, o), p.Status.Call.Datatype)
			case o.Comm && p.Status.Call.Comm != "":
				fmt.Fprintf(w, "%s:\t%s\nCOMM:\t%s\n\n", title, who(&p, o), p.Status.Call.Comm)
			}
		}
	}
}

// who names a process in the TASK column: "<rank> <program>", or with GPS
// "n<node>,p<pid> <program>".
func who(p *Proc, o TaskOptions) string {
	name := p.Info.Name
	if p.Status != nil && p.Status.Program != "" {
		name = p.Status.Program
	}
	id := "?"
	switch {
	case o.GPS:
		id = fmt.Sprintf("n%d,p%d", p.Node, p.Info.PID)
	case p.Rank() >= 0:
		id = strconv.Itoa(int(p.Rank()))
	}
	if name == "" {
		return id
	}
	return id + " " + name
}

func printTask(w io.Writer, p *Proc, o TaskOptions) {
	task := who(p, o)
	st := p.Status
	if st == nil {
		state := "<system>"
		switch p.Info.State {
		case wire.ProcFinalized:
			state = "<finalized>"
		case wire.ProcStarting:
			state = "<starting>"
		case wire.ProcSilent:
			state = "<no answer>"
		}
		fmt.Fprintf(w, "%-20.20s %s\n", task, state)
		return
	}
	switch st.State {
	case jobwire.StateRunning:
		fmt.Fprintf(w, "%-20.20s <running>\n", task)
		return
	case jobwire.StateFinalized:
		fmt.Fprintf(w, "%-20.20s <finalized>\n", task)
		return
	}
	c := st.Call
	// Blocked, the process is named by its world rank and its rank in the
	// call's communicator, as LAM did (known here for WORLD and SELF).
	if !o.GPS {
		switch c.Comm {
		case "WORLD":
			task = fmt.Sprintf("%d/%d", st.Rank, st.Rank) + strings.TrimPrefix(task, strconv.Itoa(int(st.Rank)))
		case "SELF":
			task = fmt.Sprintf("%d/0", st.Rank) + strings.TrimPrefix(task, strconv.Itoa(int(st.Rank)))
		}
	}
	peer, tag, count, dtype := "", "", "", ""
	switch {
	case c.Peer == -1:
		peer = "ANY"
	case c.Peer >= 0 && o.GPS:
		peer = strconv.Itoa(int(c.Peer))
	case c.Peer >= 0 && c.PeerW >= 0 && c.PeerW != c.Peer:
		peer = fmt.Sprintf("%d/%d", c.PeerW, c.Peer)
	case c.Peer >= 0:
		peer = fmt.Sprintf("%d/%d", c.Peer, c.Peer)
	}
	switch {
	case c.Tag == -1:
		tag = "ANY"
	case c.Tag >= 0:
		tag = strconv.Itoa(int(c.Tag))
	}
	if c.Datatype != "" {
		count, dtype = strconv.Itoa(int(c.Count)), c.Datatype
	}
	fmt.Fprintf(w, taskFormat, task, c.Func, peer, tag, c.Comm, count, dtype)
}
