package cpu

import (
	"sync"
	"testing"

	"github.com/tessera-go/tessera/dtype"
)

// TestPool checks that freed large buffers are reused, that the pool stays
// within its bound, and that concurrent use is safe (run with -race).
func TestPool(t *testing.T) {
	d := New()
	b, err := d.Alloc(dtype.F32, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	first := &b.(*Buffer).words[0]
	d.Free(b)
	c, _ := d.Alloc(dtype.F32, 1<<16-5) // same size class
	if &c.(*Buffer).words[0] != first {
		t.Error("a freed buffer of the same size class was not reused")
	}
	d.Free(c)
	d.Free(c) // twice is harmless
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				n := (1 + (g*200+i)%40) << 14
				b, err := d.Alloc(dtype.F64, n)
				if err != nil {
					t.Error(err)
					return
				}
				d.Free(b)
			}
		})
	}
	wg.Wait()
	if d.pool.bytes > poolLimit() {
		t.Errorf("pool holds %d bytes, limit %d", d.pool.bytes, poolLimit())
	}
	if d.MemoryInUse() != 0 {
		t.Errorf("MemoryInUse %d after freeing everything", d.MemoryInUse())
	}
}
