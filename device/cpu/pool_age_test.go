package cpu

import (
	"runtime"
	"testing"
	"time"

	"github.com/tessera-go/tessera/device"
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

// TestSmallBufferBatches: buffers below smallBuffer bytes settle through
// shared batches. Free takes a buffer's bytes out of MemoryInUse at once;
// collected buffers leave it once their whole batch is collected, so
// MemoryInUse never counts less than the live buffers hold, counts at most
// one batch's bytes more per live buffer, and returns to zero once every
// buffer is gone, even from a batch that was never filled.
func TestSmallBufferBatches(t *testing.T) {
	d := New()
	var kept []device.Buffer
	keptBytes := int64(0)
	for i := range 1000 {
		n := 1 + i%(smallBuffer/4-1) // F32 of 4 bytes up to just below smallBuffer
		b, err := d.Alloc(dtype.F32, n)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case i%100 == 0:
			kept = append(kept, b) // lives on, holding its batch
			keptBytes += int64(4 * n)
		case i%3 == 0:
			before := d.MemoryInUse()
			d.Free(b)
			d.Free(b) // twice is harmless
			if got := before - d.MemoryInUse(); got != int64(4*n) {
				t.Fatalf("Free of %d bytes took %d from MemoryInUse", 4*n, got)
			}
		}
	}
	settled := func(want func(int64) bool) int64 {
		deadline := time.Now().Add(5 * time.Second)
		for {
			runtime.GC()
			in := d.MemoryInUse()
			if want(in) || time.Now().After(deadline) {
				return in
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	limit := int64(len(kept)) * batchBytes
	// Several collections, each given time for its cleanups: one that
	// settled a batch still in use would show here.
	for range 3 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	if in := settled(func(in int64) bool { return in <= limit }); in < keptBytes || in > limit {
		t.Errorf("with %d live buffers of %d bytes: MemoryInUse %d, want %d to %d", len(kept), keptBytes, in, keptBytes, limit)
	}
	for _, b := range kept {
		if b.(*Buffer).isFreed() {
			t.Fatal("a live buffer reads as freed")
		}
	}
	runtime.KeepAlive(kept)
	kept = nil
	if in := settled(func(in int64) bool { return in == 0 }); in != 0 {
		t.Errorf("MemoryInUse %d once every small buffer is collected", in)
	}
	// Buffers of smallBuffer bytes and more settle one by one, as before.
	if _, err := d.Alloc(dtype.U8, smallBuffer); err != nil {
		t.Fatal(err)
	}
	if in := settled(func(in int64) bool { return in == 0 }); in != 0 {
		t.Errorf("MemoryInUse %d after a collected %d-byte buffer", in, smallBuffer)
	}
}
