package progress

import (
	"bytes"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a fake time source that tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Unix(1_000_000, 0)} }
func (c *clock) opts(o Options) Options  { o.Now = c.now; return o }
func lines(s string) []string            { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }
func count(s, sub string) int            { return strings.Count(s, sub) }
func mustEqual(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// TestLine checks a line worked out by hand: 23,040 of 60,000 after 10 s is
// 2,304/s, 36,960 left is 16.04 s, and 38.4% of 20 cells rounds to 8.
func TestLine(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	b := New(&out, 60000, c.opts(Options{Label: "epoch 1/3", Unit: "samples", Mode: Plain}))
	c.advance(10 * time.Second)
	b.Update(23040, Float("loss", 0.23449, 4), Percent("acc", 0.931))
	want := "epoch 1/3 [========>           ] 23,040/60,000  2,304 samples/s  ETA 0:16  loss 0.2345  acc 93.10%"
	mustEqual(t, "Line", b.Line(), want)
	mustEqual(t, "plain output", out.String(), want+"\n")

	c.advance(14 * time.Second) // 60,000 in 24 s: 2,500/s
	b.Update(60000)             // reaching the total leaves the line to Finish
	b.Finish(Float("loss", 0.1, 4), Percent("acc", 0.95))
	got := lines(out.String())
	if len(got) != 2 {
		t.Fatalf("%d lines, want 2: %q", len(got), got)
	}
	mustEqual(t, "final line", got[1],
		"epoch 1/3 [====================] 60,000/60,000  2,500 samples/s  time 0:24  loss 0.1000  acc 95.00%")
}

// TestLineShapes covers an empty bar, a unknown total, the first instant
// (no rate yet) and counts past the total.
func TestLineShapes(t *testing.T) {
	for _, c := range []struct {
		name        string
		total, done int
		after       time.Duration
		opt         Options
		fields      []Field
		want        string
	}{
		{"start", 100, 0, 0, Options{Width: 10}, nil, "[>         ] 0/100"},
		{"no time yet", 100, 50, 0, Options{Width: 10}, nil, "[=====>    ] 50/100"},
		{"almost", 1000, 999, time.Second, Options{Width: 10}, nil, "[=========>] 999/1,000  999 items/s  ETA 0:00"},
		{"over", 10, 12, 2 * time.Second, Options{Width: 4}, nil, "[====] 12/10  6.00 items/s"},
		{"unknown total", 0, 1234567, 10 * time.Second, Options{Label: "read", Unit: "rows"},
			[]Field{Int("errors", 3000), String("file", "a.csv")},
			"read 1,234,567 rows  123,457 rows/s  errors 3,000  file a.csv"},
		{"slow", 7, 1, 30 * time.Second, Options{Label: "bench", Unit: "cases", Width: 7}, nil,
			"bench [=>     ] 1/7  0.03 cases/s  ETA 3:00"},
		{"hours", 10, 1, 1000 * time.Second, Options{Width: 10}, nil, "[=>        ] 1/10  0.00 items/s  ETA 2:30:00"},
	} {
		clk := newClock()
		opt := clk.opts(c.opt)
		opt.Mode = Plain
		b := New(&bytes.Buffer{}, c.total, opt)
		clk.advance(c.after)
		b.Update(c.done, c.fields...)
		mustEqual(t, c.name, b.Line(), c.want)
	}
}

// TestTerminalThrottle updates every 10 ms for 10 s on a "terminal": it
// must draw at most once per 100 ms, in place, and end with one newline.
func TestTerminalThrottle(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	b := New(&out, 1000, c.opts(Options{Mode: Terminal, Unit: "samples"}))
	for i := 1; i <= 1000; i++ {
		c.advance(10 * time.Millisecond)
		b.Update(i, Float("loss", 1/float64(i), 3))
	}
	b.Finish()
	s := out.String()
	// The first update draws at once, then every 100 ms: 1 + 99, and the
	// final line.
	if n := count(s, "\r"); n < 95 || n > 101 {
		t.Errorf("%d drawings in 10 s, want about 100", n)
	}
	if count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
		t.Errorf("terminal output has %d newlines, want one at the end", count(s, "\n"))
	}
	last := s[strings.LastIndexByte(s, '\r')+1:]
	if !strings.HasPrefix(last, "[====================] 1,000/1,000  100 samples/s  time 0:10  loss 0.001") {
		t.Errorf("final line %q", last)
	}
}

// TestTerminalBlanksTail: a shorter line after a longer one is padded with
// spaces so no stale characters stay on screen.
func TestTerminalBlanksTail(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	b := New(&out, 0, c.opts(Options{Mode: Terminal}))
	b.Update(1, String("msg", "a long message"))
	c.advance(time.Second)
	b.Update(2, String("msg", "short"))
	parts := strings.Split(out.String(), "\r")
	if len(parts) != 3 {
		t.Fatalf("%d drawings, want 2: %q", len(parts)-1, out.String())
	}
	if len(parts[2]) < len(parts[1]) || strings.TrimRight(parts[2], " ") != "2 items  2.00 items/s  msg short" {
		t.Errorf("second drawing %q does not cover the first %q", parts[2], parts[1])
	}
}

// TestPlainThrottle updates every 100 ms for 12 s in plain mode: one line
// at 5 s, one at 10 s, and the final one.
func TestPlainThrottle(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	b := New(&out, 120, c.opts(Options{Mode: Plain}))
	for i := 1; i <= 120; i++ {
		c.advance(100 * time.Millisecond)
		b.Update(i)
	}
	b.Finish()
	b.Finish() // only the first prints
	b.Update(5)
	got := lines(out.String())
	want := []string{
		"[========>           ] 50/120  10.0 items/s  ETA 0:07",
		"[=================>  ] 100/120  10.0 items/s  ETA 0:02",
		"[====================] 120/120  10.0 items/s  time 0:12",
	}
	if strings.Contains(out.String(), "\r") || len(got) != len(want) {
		t.Fatalf("plain output %q, want %q", got, want)
	}
	for i := range want {
		mustEqual(t, "line", got[i], want[i])
	}
}

// TestFinishWithoutUpdates prints one line even for a task that did
// nothing, in both modes.
func TestFinishWithoutUpdates(t *testing.T) {
	for _, m := range []Mode{Plain, Terminal} {
		c := newClock()
		var out bytes.Buffer
		New(&out, 3, c.opts(Options{Mode: m, Label: "x"})).Finish()
		mustEqual(t, "finish", strings.TrimLeft(out.String(), "\r"), "x [>                   ] 0/3  time 0:00\n")
	}
}

func TestAppendCount(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {60000, "60,000"}, {1234567, "1,234,567"},
		{-1234, "-1,234"}, {math.MaxInt64, "9,223,372,036,854,775,807"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		mustEqual(t, "appendCount", string(appendCount(nil, c.n)), c.want)
	}
}

func TestAppendDuration(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0, "0:00"}, {31.4, "0:31"}, {59.6, "1:00"}, {600, "10:00"}, {3599.4, "59:59"},
		{3600, "1:00:00"}, {3723, "1:02:03"}, {math.Inf(1), "-:--"}, {math.NaN(), "-:--"},
	} {
		mustEqual(t, "appendDuration", string(appendDuration(nil, c.s)), c.want)
	}
}

// TestUpdateDoesNotAllocate: updates between drawings, fields included,
// allocate nothing, so a training loop can report every step.
func TestUpdateDoesNotAllocate(t *testing.T) {
	c := newClock()
	b := New(&bytes.Buffer{}, 1<<30, c.opts(Options{Mode: Plain}))
	b.Update(1, Float("loss", 1, 4), Percent("acc", 0.5))
	i := 1
	if n := testing.AllocsPerRun(1000, func() {
		i++
		b.Update(i, Float("loss", 1/float64(i), 4), Percent("acc", 0.5))
	}); n != 0 {
		t.Errorf("%v allocations per update", n)
	}
}

func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(&bytes.Buffer{}) || IsTerminal(w) {
		t.Error("a buffer or a pipe counts as a terminal")
	}
	if New(w, 1, Options{}).term {
		t.Error("Auto picked terminal mode for a pipe")
	}
}

// ExampleBar shows the plain line a CI log receives at the end of a task.
func ExampleBar() {
	start := time.Unix(0, 0)
	now := start
	b := New(os.Stdout, 60000, Options{Label: "epoch 1/3", Unit: "samples", Mode: Plain,
		Now: func() time.Time { return now }})
	now = start.Add(30 * time.Second)
	b.Update(60000)
	b.Finish(Float("loss", 0.0712, 4), Percent("acc", 0.9783))
	// Output:
	// epoch 1/3 [====================] 60,000/60,000  2,000 samples/s  time 0:30  loss 0.0712  acc 97.83%
}

// TestConcurrentAdd: Adds from many goroutines all count.
func TestConcurrentAdd(t *testing.T) {
	var out bytes.Buffer
	b := New(&out, 8000, Options{Mode: Terminal, Width: 4})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				b.Add(1)
			}
		})
	}
	wg.Wait()
	if l := b.Line(); !strings.HasPrefix(l, "[====] 8,000/8,000") {
		t.Errorf("after 8,000 concurrent Adds: %q", l)
	}
}
