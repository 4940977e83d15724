package self

import (
	"context"
	"strings"
	"testing"

	"github.com/lamgo/lam/libmpi/cr"
	"github.com/lamgo/lam/shared/ssi"
)

// TestQueryOpen: chosen only when asked for; LAM's parameters checked as
// LAM checked them.
func TestQueryOpen(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     []string
		query   string // error wanted from Query ("" none)
		open    string // error wanted from Open
		restart bool
	}{
		{"not asked", nil, "only when asked for", "", false},
		{"other", []string{"LAM_MPI_SSI_cr=blcr"}, "only when asked for", "", false},
		{"asked", []string{"LAM_MPI_SSI_cr=self"}, "", "", false},
		{"list", []string{"LAM_MPI_SSI_cr=blcr,self"}, "", "", false},
		{"do_restart", []string{"LAM_MPI_SSI_cr=self", "LAM_MPI_SSI_cr_self_do_restart=1"}, "", "", true},
		{"bad bool", []string{"LAM_MPI_SSI_cr=self", "LAM_MPI_SSI_cr_self_do_restart=maybe"}, "", "cr_self_do_restart", false},
		{"names", []string{"LAM_MPI_SSI_cr=self", "LAM_MPI_SSI_cr_self_checkpoint=ck", "LAM_MPI_SSI_cr_self_restart=rs"}, "", "", false},
		{"prefix and name", []string{"LAM_MPI_SSI_cr=self", "LAM_MPI_SSI_cr_self_prefix=my", "LAM_MPI_SSI_cr_self_continue=c"}, "", "not both", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := ssi.NewSettings(nil, c.env)
			pri, err := Module{}.Query(context.Background(), s)
			if c.query != "" {
				if err == nil || !strings.Contains(err.Error(), c.query) {
					t.Errorf("Query: %d %v, want %q", pri, err, c.query)
				}
				return
			}
			if err != nil || pri != 25 {
				t.Fatalf("Query: %d %v", pri, err)
			}
			j, err := Module{}.Open(s)
			if c.open != "" {
				if err == nil || !strings.Contains(err.Error(), c.open) {
					t.Errorf("Open: %v, want %q", err, c.open)
				}
				return
			}
			if err != nil || j.Name() != Name || j.Restart() != c.restart {
				t.Errorf("Open: %v %v", j, err)
			}
		})
	}
}

// TestCallbacks: a C program's functions are named by the prefix (LAM's
// lam_cr_self by default) or one by one.
func TestCallbacks(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		want cr.Callbacks
	}{
		{"default", nil, cr.Callbacks{Checkpoint: "lam_cr_self_checkpoint", Continue: "lam_cr_self_continue", Restart: "lam_cr_self_restart"}},
		{"prefix", []string{"LAM_MPI_SSI_cr_self_prefix=app"}, cr.Callbacks{Checkpoint: "app_checkpoint", Continue: "app_continue", Restart: "app_restart"}},
		{"names", []string{"LAM_MPI_SSI_cr_self_checkpoint=save", "LAM_MPI_SSI_cr_self_restart=load"},
			cr.Callbacks{Checkpoint: "save", Restart: "load", Named: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, err := Module{}.Open(ssi.NewSettings(nil, append([]string{"LAM_MPI_SSI_cr=self"}, c.env...)))
			if err != nil {
				t.Fatal(err)
			}
			if got := j.Callbacks(); got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
