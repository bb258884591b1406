package gpucore

import "container/list"

// KernelCache keeps the kernel specialisations of fused programs by
// structural key (FusedKey), evicting the least recently used beyond a
// bound. A process realises few program structures (a loop repeats one),
// but nothing else bounds them, and each holds a compiled GPU program.
//
// The zero value is ready to use. A KernelCache is not safe for concurrent
// use: each executor calls it under its own lock or on its owner thread.
type KernelCache struct {
	byKey  map[string]*list.Element // of *cacheEntry
	lru    list.List                // front: most recently used
	builds int
}

type cacheEntry struct {
	key    string
	kernel *Kernel
}

// Get returns the kernel of key, calling build on first use. Before
// building it evicts least recently used entries until fewer than max
// remain, handing each evicted kernel to evict, which releases its
// compiled program.
func (c *KernelCache) Get(key string, max int, build func() *Kernel, evict func(*Kernel)) *Kernel {
	if c.byKey == nil {
		c.byKey = map[string]*list.Element{}
	}
	if e, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*cacheEntry).kernel
	}
	for c.lru.Len() > 0 && c.lru.Len() >= max {
		old := c.lru.Remove(c.lru.Back()).(*cacheEntry)
		delete(c.byKey, old.key)
		evict(old.kernel)
	}
	k := build()
	c.builds++
	c.byKey[key] = c.lru.PushFront(&cacheEntry{key: key, kernel: k})
	return k
}

// Len is the number of kernels held.
func (c *KernelCache) Len() int { return c.lru.Len() }

// Builds is the number of kernels built since the cache was made (each
// compiles one GPU program).
func (c *KernelCache) Builds() int { return c.builds }
