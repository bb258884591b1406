package gpucore

import (
	"fmt"
	"testing"
)

// TestKernelCache checks hits, the bound, least-recently-used eviction and
// that every evicted kernel is handed to evict exactly once.
func TestKernelCache(t *testing.T) {
	var c KernelCache
	evicted := map[*Kernel]int{}
	built := map[string]*Kernel{}
	get := func(key string) *Kernel {
		return c.Get(key, 2, func() *Kernel {
			k := &Kernel{Template: key}
			built[key] = k
			return k
		}, func(k *Kernel) { evicted[k]++ })
	}
	a := get("a")
	if get("a") != a || c.Builds() != 1 {
		t.Fatalf("a hit rebuilt: %d builds", c.Builds())
	}
	get("b")
	get("a") // a is now the most recent; b goes first
	get("c")
	if c.Len() != 2 || evicted[built["b"]] != 1 || evicted[a] != 0 {
		t.Fatalf("after a, b, a, c under a bound of 2: %d held, evicted %v", c.Len(), evicted)
	}
	if get("a") != a || c.Builds() != 3 {
		t.Errorf("a was evicted or rebuilt: %d builds", c.Builds())
	}
	for i := range 10 {
		get(fmt.Sprint(i))
	}
	if c.Len() != 2 || c.Builds() != 13 {
		t.Errorf("%d held, %d builds; want 2 and 13", c.Len(), c.Builds())
	}
	for k, n := range evicted {
		if n != 1 {
			t.Errorf("kernel %s evicted %d times", k.Template, n)
		}
	}
}
