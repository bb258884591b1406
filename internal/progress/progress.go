// Package progress draws a progress line for long-running commands
// (training, benchmarks):
//
//	epoch 1/3 [=====>              ] 23,040/60,000  1,234 samples/s  ETA 0:31  loss 0.2345  acc 93.10%
//
// On a terminal the line is redrawn in place with '\r' at most ten times a
// second; anywhere else (a CI log, a file, a pipe) a plain line is printed
// at most every five seconds, so logs stay short. Finish always prints the
// final line. Progress goes to standard error by default, so a command's
// standard output stays parseable.
package progress

import (
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"time"
)

// Mode says how a Bar writes.
type Mode int

const (
	// Auto picks Terminal when the writer is a character device (and
	// $TERM is not "dumb"), Plain otherwise.
	Auto Mode = iota
	// Terminal redraws one line in place with a carriage return.
	Terminal
	// Plain prints whole lines, each ending in a newline.
	Plain
)

// Default redraw intervals of the two modes.
const (
	TerminalInterval = 100 * time.Millisecond
	PlainInterval    = 5 * time.Second
)

// Options configures a Bar; the zero value is usable.
type Options struct {
	// Label starts the line, e.g. "epoch 1/3".
	Label string
	// Unit names what is counted, for the rate ("samples" gives
	// "1,234 samples/s"); the default is "items".
	Unit string
	// Width is the number of cells of the bar; the default is 20.
	Width int
	// Mode picks terminal or plain output; the default is Auto.
	Mode Mode
	// Interval is the least time between two drawings; the default is
	// TerminalInterval or PlainInterval by mode.
	Interval time.Duration
	// Now is the clock, for tests; the default is time.Now.
	Now func() time.Time
}

// fieldKind says how a Field's value is formatted.
type fieldKind uint8

const (
	kindString fieldKind = iota
	kindFloat
	kindPercent
	kindInt
)

// Field is one caller-supplied "key value" pair shown after the rate and
// ETA. Values are kept unformatted until the line is drawn, so passing
// fields on every update costs nothing between drawings.
type Field struct {
	key  string
	kind fieldKind
	prec int
	f    float64
	i    int64
	s    string
}

// Float shows v with prec digits after the point: Float("loss", 0.23449, 4)
// reads "loss 0.2345".
func Float(key string, v float64, prec int) Field {
	return Field{key: key, kind: kindFloat, f: v, prec: prec}
}

// Percent shows a fraction as a percentage with two decimals:
// Percent("acc", 0.931) reads "acc 93.10%".
func Percent(key string, frac float64) Field {
	return Field{key: key, kind: kindPercent, f: frac}
}

// Int shows v with thousands separators: Int("step", 12345) reads
// "step 12,345".
func Int(key string, v int) Field { return Field{key: key, kind: kindInt, i: int64(v)} }

// String shows v as is.
func String(key, v string) Field { return Field{key: key, kind: kindString, s: v} }

// Bar tracks the progress of one task towards a total and draws it. Its
// methods are safe for concurrent use. Write errors are ignored: progress
// is a display, never a reason to fail the work it reports on.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	opt      Options
	term     bool
	total    int
	done     int
	fields   []Field
	start    time.Time
	last     time.Time // of the last drawing; start before the first in plain mode
	drawn    bool
	finished bool
	prevLen  int    // length of the last terminal line, to blank its tail
	buf      []byte // the line, reused between drawings
}

// New returns a Bar counting towards total (0 or less: unknown, shown as a
// count without a bar or ETA) that writes to w (nil: standard error). The
// clock starts now.
func New(w io.Writer, total int, opt Options) *Bar {
	if w == nil {
		w = os.Stderr
	}
	if opt.Unit == "" {
		opt.Unit = "items"
	}
	if opt.Width <= 0 {
		opt.Width = 20
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	term := opt.Mode == Terminal || (opt.Mode == Auto && IsTerminal(w))
	if opt.Interval <= 0 {
		opt.Interval = PlainInterval
		if term {
			opt.Interval = TerminalInterval
		}
	}
	b := &Bar{w: w, opt: opt, term: term, total: total, start: opt.Now()}
	b.last = b.start
	return b
}

// IsTerminal reports whether w is a character device such as a terminal
// (and $TERM is not "dumb"), where redrawing in place works.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Update sets the count done so far and, when any are given, replaces the
// extra fields; it draws when the interval since the last drawing has
// passed (on a terminal, the first update draws at once). In plain mode an
// update that reaches the total does not draw: Finish prints that line.
func (b *Bar) Update(done int, fields ...Field) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.update(done, fields)
}

// Add is Update with the count increased by n.
func (b *Bar) Add(n int, fields ...Field) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.update(b.done+n, fields)
}

// update is Update with b.mu held.
func (b *Bar) update(done int, fields []Field) {
	if b.finished {
		return
	}
	b.set(done, fields)
	now := b.opt.Now()
	if now.Sub(b.last) < b.opt.Interval && (!b.term || b.drawn) || !b.term && b.total > 0 && done >= b.total {
		return
	}
	b.draw(now, false)
}

// Finish sets the fields, when any are given, and prints the final line,
// with the elapsed time in place of the ETA, ending it with a newline. Only
// the first call prints; later updates are ignored.
func (b *Bar) Finish(fields ...Field) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.set(b.done, fields)
	b.draw(b.opt.Now(), true)
	b.finished = true
}

// Elapsed is the time since New.
func (b *Bar) Elapsed() time.Duration { return b.opt.Now().Sub(b.start) }

// Line returns the line as it would be drawn now (without '\r' or newline).
func (b *Bar) Line() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.format(b.opt.Now(), false, nil))
}

// set records done and replaces the fields when some are given, reusing
// the field slice so steady updates do not allocate.
func (b *Bar) set(done int, fields []Field) {
	if b.finished {
		return
	}
	b.done = done
	if len(fields) > 0 {
		b.fields = append(b.fields[:0], fields...)
	}
}

// draw writes the line: in place on a terminal, as a new line otherwise.
func (b *Bar) draw(now time.Time, final bool) {
	b.last, b.drawn = now, true
	buf := b.buf[:0]
	if b.term {
		buf = append(buf, '\r')
	}
	buf = b.format(now, final, buf)
	if b.term {
		n := len(buf) - 1
		for i := n; i < b.prevLen; i++ {
			buf = append(buf, ' ')
		}
		b.prevLen = n
	}
	if final || !b.term {
		buf = append(buf, '\n')
	}
	b.buf = buf
	_, _ = b.w.Write(buf)
}

// format appends the line's text to buf.
func (b *Bar) format(now time.Time, final bool, buf []byte) []byte {
	if b.opt.Label != "" {
		buf = append(buf, b.opt.Label...)
		buf = append(buf, ' ')
	}
	elapsed := now.Sub(b.start).Seconds()
	if b.total > 0 {
		buf = append(buf, '[')
		w := b.opt.Width
		fill := int(math.Round(float64(w) * min(1, max(0, float64(b.done)/float64(b.total)))))
		if b.done < b.total && fill == w {
			fill = w - 1 // a full bar means done
		}
		for i := range w {
			switch {
			case i < fill:
				buf = append(buf, '=')
			case i == fill && b.done < b.total:
				buf = append(buf, '>')
			default:
				buf = append(buf, ' ')
			}
		}
		buf = append(buf, "] "...)
		buf = appendCount(buf, int64(b.done))
		buf = append(buf, '/')
		buf = appendCount(buf, int64(b.total))
	} else {
		buf = appendCount(buf, int64(b.done))
		buf = append(buf, ' ')
		buf = append(buf, b.opt.Unit...)
	}
	if elapsed > 0 && b.done > 0 {
		rate := float64(b.done) / elapsed
		buf = append(buf, "  "...)
		buf = appendRate(buf, rate)
		buf = append(buf, ' ')
		buf = append(buf, b.opt.Unit...)
		buf = append(buf, "/s"...)
		switch {
		case final:
			buf = append(buf, "  time "...)
			buf = appendDuration(buf, elapsed)
		case b.total > 0 && b.done < b.total:
			buf = append(buf, "  ETA "...)
			buf = appendDuration(buf, float64(b.total-b.done)/rate)
		}
	} else if final {
		buf = append(buf, "  time "...)
		buf = appendDuration(buf, max(0, elapsed))
	}
	for _, f := range b.fields {
		buf = append(buf, "  "...)
		buf = append(buf, f.key...)
		buf = append(buf, ' ')
		switch f.kind {
		case kindFloat:
			buf = strconv.AppendFloat(buf, f.f, 'f', f.prec, 64)
		case kindPercent:
			buf = strconv.AppendFloat(buf, 100*f.f, 'f', 2, 64)
			buf = append(buf, '%')
		case kindInt:
			buf = appendCount(buf, f.i)
		default:
			buf = append(buf, f.s...)
		}
	}
	return buf
}

// appendCount appends n with a comma between groups of three digits.
func appendCount(buf []byte, n int64) []byte {
	if n < 0 {
		buf = append(buf, '-')
		if n == math.MinInt64 {
			return append(buf, "9,223,372,036,854,775,808"...)
		}
		n = -n
	}
	var digits [20]byte
	s := strconv.AppendInt(digits[:0], n, 10)
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, c)
	}
	return buf
}

// appendRate appends a rate: whole and grouped from 100 up, else with
// enough decimals to show two significant digits.
func appendRate(buf []byte, r float64) []byte {
	switch {
	case math.IsInf(r, 0) || math.IsNaN(r):
		return append(buf, '-')
	case r >= 100:
		return appendCount(buf, int64(math.Round(r)))
	case r >= 10:
		return strconv.AppendFloat(buf, r, 'f', 1, 64)
	}
	return strconv.AppendFloat(buf, r, 'f', 2, 64)
}

// appendDuration appends seconds as m:ss, or h:mm:ss from an hour up,
// rounded to the nearest second.
func appendDuration(buf []byte, sec float64) []byte {
	if math.IsInf(sec, 0) || math.IsNaN(sec) || sec > 1e8 {
		return append(buf, "-:--"...)
	}
	s := int64(math.Round(sec))
	h, m := s/3600, s/60%60
	if h > 0 {
		buf = strconv.AppendInt(buf, h, 10)
		buf = append(buf, ':')
		buf = append(buf, byte('0'+m/10), byte('0'+m%10))
	} else {
		buf = strconv.AppendInt(buf, m, 10)
	}
	s %= 60
	return append(buf, ':', byte('0'+s/10), byte('0'+s%10))
}
