package tensor

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// A Scope frees deterministically the tensors a piece of code makes, in
// the spirit of TensorFlow.js's tf.tidy, for code that does not want to
// wait for the collector (or the memory budget) and does not want to
// Release every intermediate by hand:
//
//	s := tensor.NewScope()
//	defer s.Close()
//	h := x.Matmul(w1).Add(b1).Relu()
//	y := s.Keep(h.Matmul(w2).Add(b2))
//
// Every tensor made on the goroutine that opened the scope, while it is
// the innermost scope open there, is tracked; Close releases them all but
// the ones passed to Keep, which move to the enclosing scope (or to no
// scope, when there is none). Tensors made by other goroutines are not
// tracked, so goroutines may open scopes of their own at once.
//
// Close interplays with the rest of the runtime as Release does: a kept
// tensor that is still pending (a recorded elementwise chain) keeps the
// inputs its graph reads, released or not, and computes when needed; a
// kept result of autograd keeps what its backward pass needs (saved
// values are held by the graph, not by the scope), so Backward may run
// after Close; and gradients accumulated into leaves are never tracked.
// Tracking costs nothing while no scope is open anywhere.
type Scope struct {
	g      uint64 // the goroutine that opened it
	parent *Scope
	mu     sync.Mutex
	ts     []*Tensor
	closed bool
}

var (
	scopesOpen atomic.Int32
	innermost  sync.Map // goroutine id -> *Scope
)

// NewScope opens a scope on the calling goroutine, inside the one open
// there, if any. Close it on the same goroutine (defer s.Close()).
func NewScope() *Scope {
	g := goid()
	s := &Scope{g: g}
	if p, ok := innermost.Load(g); ok {
		s.parent = p.(*Scope)
	}
	innermost.Store(g, s)
	scopesOpen.Add(1)
	return s
}

// WithScope runs fn in a new scope and closes it when fn returns; what fn
// passes to s.Keep survives.
func WithScope(fn func(s *Scope) error) error {
	s := NewScope()
	defer s.Close()
	return fn(s)
}

// Keep exempts t from Close and hands it to the enclosing scope (none when
// s is the outermost), and returns t, so that a result can be kept where
// it is made: y := s.Keep(x.Add(b)). Keeping a tensor made outside the
// scope, a failed tensor or nil does nothing.
func (s *Scope) Keep(t *Tensor) *Tensor {
	if t == nil {
		return t
	}
	s.mu.Lock()
	found := false
	for i, x := range s.ts {
		if x == t {
			s.ts[i] = nil
			found = true
		}
	}
	s.mu.Unlock()
	if found && s.parent != nil {
		s.parent.add(t)
	}
	return t
}

// Close releases every tensor tracked by s and not kept, closes scopes
// opened inside s and still open, and makes s's enclosing scope the
// innermost again. Closing twice does nothing.
func (s *Scope) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	ts := s.ts
	s.ts = nil
	s.mu.Unlock()
	// Inner scopes left open are closed first.
	if cur, ok := innermost.Load(s.g); ok {
		for c := cur.(*Scope); c != nil && c != s; c = c.parent {
			c.Close()
		}
	}
	if s.parent != nil {
		innermost.Store(s.g, s.parent)
	} else {
		innermost.Delete(s.g)
	}
	scopesOpen.Add(-1)
	for _, t := range ts {
		if t != nil && !t.escaped.Load() {
			t.Release()
		}
	}
}

func (s *Scope) add(t *Tensor) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.ts = append(s.ts, t)
	s.mu.Unlock()
}

// track adds t to the innermost scope open on the calling goroutine.
func track(t *Tensor) {
	if scopesOpen.Load() == 0 {
		return
	}
	if s, ok := innermost.Load(goid()); ok {
		s.(*Scope).add(t)
	}
}

// goid returns the calling goroutine's id, read from its stack header
// ("goroutine N [..."): Go offers no other way, and scopes only need it
// while one is open.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = len("goroutine ")
	if len(b) <= prefix {
		return 0
	}
	b = b[prefix:]
	end := 0
	for end < len(b) && b[end] >= '0' && b[end] <= '9' {
		end++
	}
	id, _ := strconv.ParseUint(string(b[:end]), 10, 64)
	return id
}
