// Command crrank is a stand-in MPI rank for mpirun's side of
// checkpoint/restart: it speaks the wire-up (jobwire.Init, Table,
// Finalize) and answers checkpoint requests (jobwire.CRRank) as the
// library's rank side does, without the library.
//
//	crrank <mode> <seconds>
//
// runs for <seconds> serving checkpoints, then finalizes. Modes: ok
// (every rank writes its file and answers), err (rank 1 refuses),
// silent (rank 1 never answers), once (rank 1 answers the first
// checkpoint only), late (as ok, after 3 s before MPI_Init), nocr (rank 1 reports at MPI_Init that
// it cannot be checkpointed). A restarted rank (LAMCRRESTART set) prints
// the state it finds in its file and finalizes at once.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/lamgo/lam/shared/jobwire"
	"github.com/lamgo/lam/shared/lamclient"
	"github.com/lamgo/lam/shared/session"
	"github.com/lamgo/lam/shared/wire"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "crrank:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 3 {
		return fmt.Errorf("usage: crrank ok|err|silent|once|late|nocr <seconds>")
	}
	mode := os.Args[1]
	secs, err := strconv.ParseFloat(os.Args[2], 64)
	if err != nil {
		return err
	}
	rank, _ := strconv.Atoi(os.Getenv(jobwire.EnvRank))
	job, err := jobwire.ParseJobID(os.Getenv(jobwire.EnvJob))
	if err != nil {
		return err
	}
	if dir := os.Getenv(jobwire.EnvRestart); dir != "" {
		b, err := os.ReadFile(jobwire.RankFile(dir, rank))
		if err != nil {
			return fmt.Errorf("restart: %w", err)
		}
		fmt.Printf("rank %d restored: %s", rank, b)
		secs = 0
	}
	restarted := os.Getenv(jobwire.EnvRestart) != ""
	if mode == "late" {
		time.Sleep(3 * time.Second)
	}
	ctx := context.Background()
	dir, err := session.Resolve(session.Options{})
	if err != nil {
		return err
	}
	cl, err := lamclient.Dial(ctx, dir, os.Args[0], wire.RoleMPI)
	if err != nil {
		return err
	}
	defer cl.Close()
	pid := os.Getpid()
	in := &jobwire.Init{Rank: int32(rank), PID: int32(pid), Node: cl.Node(), RPI: "fake 1.0", Addr: "none"}
	if mode == "nocr" && rank == 1 {
		in.NoCR = "rpi fake cannot be drained"
	}
	if err := cl.Send(ctx, job.Node, job.PID, jobwire.TypeInit, in.Encode()); err != nil {
		return err
	}
	if _, err := cl.Recv(ctx, jobwire.RankEvent(pid), jobwire.TypeTable); err != nil {
		return err
	}
	fmt.Printf("rank %d running\n", rank)
	if restarted {
		fmt.Printf("rank %d restarted on n%d\n", rank, cl.Node())
	}
	until, cancel := context.WithTimeout(ctx, time.Duration(secs*float64(time.Second)))
	defer cancel()
	for {
		m, err := cl.Recv(until, jobwire.RankEvent(pid), jobwire.TypeCRRank)
		if err != nil {
			break
		}
		req, err := jobwire.DecodeCRRank(m.Data)
		if err != nil {
			return err
		}
		done := &jobwire.CRDone{Rank: int32(rank), Seq: req.Seq}
		switch {
		case mode == "silent" && rank == 1, mode == "once" && rank == 1 && req.Seq > 1:
			continue
		case mode == "err" && rank == 1:
			done.Err = "the fake rank refuses"
		default:
			n, err := write(jobwire.RankFile(req.Dir, rank), fmt.Sprintf("rank %d checkpoint %d\n", rank, req.Seq))
			if err != nil {
				done.Err = err.Error()
			}
			done.Bytes = n
		}
		if err := cl.Send(ctx, job.Node, job.PID, jobwire.TypeCRDone, done.Encode()); err != nil {
			return err
		}
		if req.Stop && done.Err == "" {
			fmt.Printf("rank %d stopped\n", rank)
			return nil // as after MPI_Finalize, without it
		}
	}
	fmt.Printf("rank %d done\n", rank)
	return cl.Send(ctx, job.Node, job.PID, jobwire.TypeFinalize, jobwire.EncodeRank(int32(rank)))
}

func write(path, s string) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		return 0, err
	}
	return int64(len(s)), f.Sync()
}
