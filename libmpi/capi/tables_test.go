package main

import (
	"sync"
	"testing"
)

func TestTable(t *testing.T) {
	var tb table[string]
	a, b := "world", "self"
	tb.set(1, &a)
	tb.set(2, &b)
	if got := tb.get(1); got == nil || *got != "world" {
		t.Fatalf("get(1) = %v", got)
	}
	for _, h := range []int{-1, 0, 3, 1 << 20} {
		if tb.get(h) != nil {
			t.Errorf("get(%d) found an object", h)
		}
	}
	if tb.remove(1) {
		t.Error("a predefined handle was removed")
	}
	c := "new"
	h := tb.add(&c)
	if h != 3 {
		t.Errorf("first new handle = %d, want 3", h)
	}
	if n := tb.inUse(); n != 1 {
		t.Errorf("inUse = %d with one handle added (predefined ones not counted), want 1", n)
	}
	if !tb.remove(h) || tb.remove(h) {
		t.Error("remove twice: want true then false")
	}
	if tb.get(h) != nil || tb.entry(h) != nil {
		t.Error("a removed handle still names its object")
	}
	if n := tb.inUse(); n != 0 {
		t.Errorf("inUse = %d after the one added handle was removed, want 0", n)
	}
	if h2 := tb.add(&c); h2 != h {
		t.Errorf("freed handle not reused: got %d, want %d", h2, h)
	}
}

// Readers never lock; growing while they read must be safe (run with -race).
func TestTableConcurrent(t *testing.T) {
	var tb table[int]
	one := 1
	tb.set(1, &one)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer wg.Wait()
	defer close(stop)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if v := tb.get(1); v == nil || *v != 1 {
					t.Error("predefined handle lost while the table grew")
					return
				}
			}
		}()
	}
	hs := make([]int, 0, 5000)
	for i := 0; i < 5000; i++ {
		v := i
		hs = append(hs, tb.add(&v))
	}
	for i, h := range hs {
		if v := tb.get(h); v == nil || *v != i {
			t.Fatalf("handle %d: got %v, want %d", h, v, i)
		}
	}
}
