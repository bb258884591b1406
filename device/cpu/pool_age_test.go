package cpu

import (
	"runtime"
	"testing"
	"time"

	"github.com/tessera-go/tessera/dtype"
)

// TestPoolAges: pooled buffers that are not reused are dropped after two
// garbage collections, so an idle pool keeps no memory; a buffer that is
// never freed leaves MemoryInUse once it is collected.
func TestPoolAges(t *testing.T) {
	d := New()
	b, err := d.Alloc(dtype.F32, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	d.Free(b)
	if d.pool.bytes == 0 {
		t.Fatal("a freed 256 KiB buffer was not pooled")
	}
	if _, err := d.Alloc(dtype.F32, 1<<16); err != nil { // never freed
		t.Fatal(err)
	}
	d.Free(mustAlloc(t, d, 1<<16))
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		d.pool.mu.Lock()
		pooled := d.pool.bytes
		d.pool.mu.Unlock()
		if pooled == 0 && d.MemoryInUse() == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after collections: pool holds %d bytes, MemoryInUse %d", pooled, d.MemoryInUse())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func mustAlloc(t *testing.T, d *Device, n int) *Buffer {
	t.Helper()
	b, err := d.Alloc(dtype.F32, n)
	if err != nil {
		t.Fatal(err)
	}
	return b.(*Buffer)
}
