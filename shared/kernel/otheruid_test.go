package kernel_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lamgo/lam/shared/kernel/kerneltest"
	"github.com/lamgo/lam/shared/testenv"
	"github.com/lamgo/lam/shared/wire"
)

// TestMain lets the test binary act as a client of another uid: with
// KERNEL_TEST_DIAL set it says hello to that socket and prints the answer.
// With KERNEL_TEST_LAMD_PREFIX set it runs a lone lamd (lamdHelper).
func TestMain(m *testing.M) {
	if prefix := os.Getenv(lamdHelperPrefix); prefix != "" {
		os.Exit(lamdHelper(prefix))
	}
	if path := os.Getenv("KERNEL_TEST_DIAL"); path != "" {
		nc, err := net.Dial("unix", path)
		if err != nil {
			fmt.Println("dial:", err)
			os.Exit(3)
		}
		c := wire.NewConn(nc)
		c.Write(1, 0, &wire.Hello{Version: wire.Version, Role: wire.RoleTool, Name: "intruder"}, time.Second)
		nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		f, err := c.Read()
		if err != nil {
			fmt.Println("read:", err)
			os.Exit(4)
		}
		if e, ok := f.Msg.(*wire.Error); ok {
			fmt.Printf("error %d: %s\n", e.Code, e.Msg)
			os.Exit(0)
		}
		fmt.Println("answered:", f.Kind)
		os.Exit(5)
	}
	code := m.Run()
	fuzzStop()
	os.Exit(code)
}

// Another uid that reaches the socket is refused by the lamd itself (the
// session directory's mode normally stops it earlier).
func TestOtherUIDRefused(t *testing.T) {
	testenv.RequireRoot(t)
	client := testenv.CopyForOthers(t)
	dir := filepath.Dir(client)
	prefix := filepath.Join(dir, "sessions")
	os.Mkdir(prefix, 0o755)
	u := kerneltest.Start(t, kerneltest.Options{Nodes: 1, Prefix: prefix})
	// Open the way on purpose, only for this test.
	os.Chmod(u.Dirs[0].Path, 0o711)
	os.Chmod(u.Dirs[0].Socket(), 0o666)
	cmd := exec.Command(client)
	cmd.Env = []string{"KERNEL_TEST_DIAL=" + u.Dirs[0].Socket()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("client as uid 65534: %v: %s", err, out)
	}
	if !strings.HasPrefix(string(out), fmt.Sprintf("error %d:", wire.CodePerm)) || !strings.Contains(string(out), "uid 65534 may not use it") {
		t.Errorf("another uid got: %s", out)
	}
	// And the owner still gets served.
	if _, err := u.Client(t, 0).Nodes(ctx(t)); err != nil {
		t.Errorf("owner refused after an intruder: %v", err)
	}
}
