package faults

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// usage is what a process holds: open descriptors, threads, resident
// memory.
type usage struct {
	FDs     int `json:"fds"`
	Threads int `json:"threads"`
	RSSKiB  int `json:"rss_kib"`
}

func (u usage) String() string {
	return fmt.Sprintf("%d fds, %d threads, %d KiB", u.FDs, u.Threads, u.RSSKiB)
}

// measure reads pid's usage from /proc.
func measure(pid int) (usage, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	fds, err := os.ReadDir(filepath.Join(dir, "fd"))
	if err != nil {
		return usage{}, err
	}
	u := usage{FDs: len(fds)}
	f, err := os.Open(filepath.Join(dir, "status"))
	if err != nil {
		return usage{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) == 0 {
			continue
		}
		switch k {
		case "Threads":
			u.Threads, _ = strconv.Atoi(fs[0])
		case "VmRSS":
			u.RSSKiB, _ = strconv.Atoi(fs[0])
		}
	}
	return u, sc.Err()
}

// procInfo is what /proc/<pid>/stat and exe say about a process.
type procInfo struct {
	pid, ppid int
	state     byte
	exe       string
}

// processes lists every process whose executable is one of the suite's
// binaries (zombies, which hold nothing, excluded).
func processes() []procInfo {
	ents, _ := os.ReadDir("/proc")
	var out []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, err := readProc(pid)
		if err != nil || p.state == 'Z' || !ours(p.exe) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func readProc(pid int) (procInfo, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return procInfo{}, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return procInfo{}, errors.New("bad stat")
	}
	fs := strings.Fields(string(b[i+2:]))
	if len(fs) < 2 {
		return procInfo{}, errors.New("bad stat")
	}
	p := procInfo{pid: pid, state: fs[0][0]}
	p.ppid, _ = strconv.Atoi(fs[1])
	p.exe, _ = os.Readlink(filepath.Join(dir, "exe"))
	p.exe = strings.TrimSuffix(p.exe, " (deleted)")
	return p, nil
}

// childrenOf lists the pids of parent's children running the binary tool.
func childrenOf(parent int, tool string) []int {
	var out []int
	for _, p := range processes() {
		if p.ppid == parent && p.exe == bin(tool) {
			out = append(out, p.pid)
		}
	}
	return out
}

// running lists the pids running the binary tool.
func running(tool string) []int {
	var out []int
	for _, p := range processes() {
		if p.exe == bin(tool) {
			out = append(out, p.pid)
		}
	}
	return out
}

// alive reports whether pid runs one of the suite's binaries (a zombie
// does not run; a pid reused by another program is not ours).
func alive(pid int) bool { return isOurs(pid) }

// isOurs reports whether pid runs one of the suite's binaries.
func isOurs(pid int) bool {
	p, err := readProc(pid)
	return err == nil && p.state != 'Z' && ours(p.exe)
}

// waitGone waits up to d until none of pids runs; it returns those that
// still do.
func waitGone(d time.Duration, pids ...int) []int {
	deadline := time.Now().Add(d)
	for {
		var left []int
		for _, p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killOurs stops every process running one of the suite's binaries: all
// were started by this suite, directly or by a lamd it booted.
func killOurs() {
	for range 3 {
		ps := processes()
		if len(ps) == 0 {
			return
		}
		for _, p := range ps {
			syscall.Kill(p.pid, syscall.SIGKILL)
			syscall.Kill(p.pid, syscall.SIGCONT)
		}
		pids := make([]int, len(ps))
		for i, p := range ps {
			pids[i] = p.pid
		}
		waitGone(2*time.Second, pids...)
	}
}

// linkAddr finds the TCP port pid listens on (the lamd's link port), from
// its socket descriptors and /proc/<pid>/net/tcp.
func linkAddr(pid int) (string, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	fds, err := os.ReadDir(filepath.Join(dir, "fd"))
	if err != nil {
		return "", err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, _ := os.Readlink(filepath.Join(dir, "fd", fd.Name()))
		if s, ok := strings.CutPrefix(l, "socket:["); ok {
			inodes[strings.TrimSuffix(s, "]")] = true
		}
	}
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(filepath.Join(dir, "net", table))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 10 || fs[3] != "0A" || !inodes[fs[9]] {
				continue
			}
			ip, port, ok := strings.Cut(fs[1], ":")
			if !ok {
				continue
			}
			n, err := strconv.ParseUint(port, 16, 16)
			if err != nil {
				continue
			}
			host := "[::1]"
			if a, err := strconv.ParseUint(ip, 16, 32); err == nil && table == "tcp" {
				// Little-endian; the wildcard address is reached on loopback.
				host = "127.0.0.1"
				if a != 0 {
					host = fmt.Sprintf("%d.%d.%d.%d", a&0xff, a>>8&0xff, a>>16&0xff, a>>24)
				}
			}
			return fmt.Sprintf("%s:%d", host, n), nil
		}
	}
	return "", fmt.Errorf("process %d listens on no TCP port", pid)
}
