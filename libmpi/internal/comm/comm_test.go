package comm

import (
	"testing"

	"github.com/lamgo/lam/libmpi/internal/core"
	"github.com/lamgo/lam/libmpi/rpi"
)

// In a world of one, agreement takes the next free ids in turn, and the
// ids of a communicator and of its hidden context never collide with
// another communicator's.
func TestAgreeAlone(t *testing.T) {
	l := New(core.New(core.Config{Links: make([]rpi.Link, 1)}))
	world := Comm{Context: WorldContext, Group: []int{0}}
	seen := map[uint32]bool{WorldContext: true, Hidden(WorldContext): true, SelfContext: true, Hidden(SelfContext): true}
	for i := range 3 {
		c, all, err := l.Agree(world, 7, int32(i))
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 3 || all[1] != 7 || all[2] != int32(i) {
			t.Errorf("gathered %v", all)
		}
		for _, id := range []uint32{c, Hidden(c)} {
			if seen[id] {
				t.Errorf("context %d given twice", id)
			}
			seen[id] = true
		}
	}
}
