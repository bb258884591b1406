package devicetest

import (
	"errors"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// The contract of the optional capabilities device.Indexer, device.Scanner
// and device.Sorter, run by Run when the backend offers them. A dtype the
// backend does not handle for an operation must be refused with ErrDType.

func op(b device.Buffer, l layout.Layout) device.Operand { return device.Operand{Buf: b, Layout: l} }

func contig(shape ...int) layout.Layout { l, _ := layout.Contiguous(shape...); return l }

// refused reports whether err is the typed refusal of a dtype; any other
// error fails the test.
func refused(t *testing.T, what string, err error) bool {
	t.Helper()
	if err == nil {
		return false
	}
	if !errors.Is(err, errs.ErrDType) {
		t.Fatalf("%s: %v", what, err)
	}
	return true
}

// values returns n sample values of dt with ties (few distinct values).
func values(dt dtype.DType, n, seed int) []float64 {
	v := sample(n, -3, 3, seed)
	for i := range v {
		v[i] = math.Round(v[i]*2) / 2
		switch dt {
		case dtype.U8:
			v[i] = math.Abs(math.Round(v[i]))
		case dtype.Bool:
			v[i] = math.Max(0, math.Round(v[i])/3)
			if v[i] > 0 {
				v[i] = 1
			}
		case dtype.I32, dtype.I64:
			v[i] = math.Round(v[i])
		}
	}
	return v
}

func (h *harness) indexing(t *testing.T) {
	ix, ok := h.be.(device.Indexer)
	if !ok {
		t.Skip("no device.Indexer")
	}
	idxVals := []float64{3, 0, 1, 1, 2, 3}
	for _, dt := range h.dev.Info().Compute {
		for _, idt := range []dtype.DType{dtype.I32, dtype.I64} {
			if !h.supports(idt) {
				continue
			}
			for _, v := range views() {
				t.Run("Gather/"+dt.String()+"/"+idt.String()+"/"+v.name, func(t *testing.T) {
					stored := values(dt, 16, 3)
					src := h.buffer(dt, stored)
					idx := h.buffer(idt, idxVals)
					dst := h.output(dt, 6)
					st := h.buffer(dtype.I32, make([]float64, device.StatusLen))
					defer func() {
						for _, b := range []device.Buffer{src, idx, dst, st} {
							h.be.Free(b)
						}
					}()
					// dst[i][j] = src[i][idx[i][j]] over the 3x4 view, idx 3x2.
					err := h.safely("Gather", func() error {
						return ix.Gather(op(dst, contig(3, 2)), op(src, v.layout), op(idx, contig(3, 2)), op(st, contig(device.StatusLen)), 1)
					})
					if refused(t, "Gather", err) {
						return
					}
					lg := logical(v.layout, stored)
					want := make([]float64, 6)
					for i := range 3 {
						for j := range 2 {
							want[i*2+j] = lg[i*4+int(idxVals[i*2+j])]
						}
					}
					h.compare(t, "Gather", h.read(dst), want, dt, 0)
					if s := h.read(st); s[0] != 0 {
						t.Errorf("status %v after valid indices", s)
					}
					if got := logical(v.layout, h.read(src)); !slices.Equal(got, lg) && !slices.ContainsFunc(lg, math.IsNaN) {
						t.Errorf("source modified")
					}
				})
			}
			t.Run("Gather/bad/"+dt.String()+"/"+idt.String(), func(t *testing.T) {
				src := h.buffer(dt, values(dt, 12, 4))
				idx := h.buffer(idt, []float64{1, 4, -2, 0})
				dst := h.output(dt, 4)
				st := h.buffer(dtype.I32, make([]float64, device.StatusLen))
				defer func() {
					for _, b := range []device.Buffer{src, idx, dst, st} {
						h.be.Free(b)
					}
				}()
				err := h.safely("Gather", func() error {
					return ix.Gather(op(dst, contig(2, 2)), op(src, contig(3, 4)), op(idx, contig(2, 2)), op(st, contig(device.StatusLen)), 1)
				})
				if refused(t, "Gather", err) {
					return
				}
				s := h.read(st)
				if s[0] != 1 || !(s[1] == 4 && s[2] == 0 || s[1] == -2 && s[2] == -1) {
					t.Errorf("status %v, want [1 4 0 ...] or [1 -2 -1 ...]", s)
				}
				if got := h.read(dst); got[1] != 0 || got[2] != 0 {
					t.Errorf("bad indices wrote %v, want 0 at positions 1 and 2", got)
				}
			})
			t.Run("ScatterAdd/"+dt.String()+"/"+idt.String(), func(t *testing.T) {
				init := values(dt, 12, 5)
				srcV := values(dt, 8, 6)
				if dt == dtype.U8 {
					for i := range init {
						init[i] += 250 // wraps
					}
				}
				rows := []float64{2, 0, 2, 1, 2, 2, 0, 1} // 2x4, repeats
				dst := h.buffer(dt, init)
				idx := h.buffer(idt, rows)
				src := h.buffer(dt, srcV)
				st := h.buffer(dtype.I32, make([]float64, device.StatusLen))
				defer func() {
					for _, b := range []device.Buffer{src, idx, dst, st} {
						h.be.Free(b)
					}
				}()
				err := h.safely("ScatterAdd", func() error {
					return ix.ScatterAdd(op(dst, contig(3, 4)), op(idx, contig(2, 4)), op(src, contig(2, 4)), op(st, contig(device.StatusLen)), 0)
				})
				if refused(t, "ScatterAdd", err) {
					return
				}
				want := slices.Clone(init)
				for i := range 2 {
					for j := range 4 {
						want[int(rows[i*4+j])*4+j] += srcV[i*4+j]
					}
				}
				if dt == dtype.U8 {
					for i := range want {
						want[i] = math.Mod(math.Mod(want[i], 256), 256)
					}
				}
				h.compare(t, "ScatterAdd", h.read(dst), want, dt, 1e-6)
			})
		}
	}
}

// refScan is the running sum or product of each line of the 3x4 logical
// values along axis.
func refScan(lg []float64, axis int, prod bool) []float64 {
	out := make([]float64, 12)
	for l := range [2]int{3, 4}[1-axis] {
		acc := 0.0
		if prod {
			acc = 1
		}
		for k := range [2]int{3, 4}[axis] {
			p := l*4 + k
			if axis == 0 {
				p = k*4 + l
			}
			if prod {
				acc *= lg[p]
			} else {
				acc += lg[p]
			}
			out[p] = acc
		}
	}
	return out
}

func (h *harness) scans(t *testing.T) {
	sc, ok := h.be.(device.Scanner)
	if !ok {
		t.Skip("no device.Scanner")
	}
	for _, dt := range h.dev.Info().Compute {
		rd := device.ScanResult(dt)
		if !h.supports(rd) {
			continue
		}
		for _, v := range views() {
			for axis := range 2 {
				for _, sop := range []device.ScanOp{device.CumSum, device.CumProd} {
					t.Run(sop.String()+"/"+dt.String()+"/"+v.name+"/"+string(rune('0'+axis)), func(t *testing.T) {
						stored := values(dt, 16, 7)
						src := h.buffer(dt, stored)
						dst := h.output(rd, 12)
						defer h.be.Free(src)
						defer h.be.Free(dst)
						err := h.safely("Scan", func() error { return sc.Scan(sop, op(dst, contiguous12), op(src, v.layout), axis) })
						if refused(t, "Scan", err) {
							return
						}
						want := refScan(logical(v.layout, stored), axis, sop == device.CumProd)
						h.compare(t, sop.String(), h.read(dst), want, rd, 1e-5)
					})
				}
			}
		}
	}
}

// SortOrder is the documented stable order of a line of float64 values,
// as positions: ascending with every NaN last (and -0 equal to +0), or
// (desc) the reverse with ties still in source order, NaN first. It is a
// comparison sort with no keys, the independent reference of every sort
// test.
func SortOrder(line []float64, desc bool) []int {
	ord := make([]int, len(line))
	for i := range ord {
		ord[i] = i
	}
	less := func(a, b float64) bool { return !math.IsNaN(a) && (math.IsNaN(b) || a < b) }
	sort.SliceStable(ord, func(i, j int) bool {
		a, b := line[ord[i]], line[ord[j]]
		if desc {
			return less(b, a)
		}
		return less(a, b)
	})
	return ord
}

func (h *harness) sorting(t *testing.T) {
	so, ok := h.be.(device.Sorter)
	if !ok {
		t.Skip("no device.Sorter")
	}
	if !h.supports(dtype.I64) {
		t.Skip("no I64 for indices")
	}
	for _, dt := range h.dev.Info().Compute {
		for _, v := range views() {
			for axis := range 2 {
				for _, desc := range []bool{false, true} {
					name := dt.String() + "/" + v.name + "/" + string(rune('0'+axis))
					if desc {
						name += "/desc"
					}
					t.Run("Sort/"+name, func(t *testing.T) {
						stored := values(dt, 16, 8)
						if dt.IsFloat() {
							stored[5], stored[9], stored[2] = math.NaN(), math.Copysign(0, -1), 0
						}
						src := h.buffer(dt, stored)
						vals := h.output(dt, 12)
						idx := h.output(dtype.I64, 12)
						defer func() {
							for _, b := range []device.Buffer{src, vals, idx} {
								h.be.Free(b)
							}
						}()
						err := h.safely("Sort", func() error {
							return so.Sort(op(vals, contiguous12), op(idx, contiguous12), op(src, v.layout), axis, desc)
						})
						if refused(t, "Sort", err) {
							return
						}
						lg := logical(v.layout, stored)
						for i := range lg {
							lg[i] = round(dt, lg[i])
						}
						wantV, wantI := make([]float64, 12), make([]float64, 12)
						n, lines := [2]int{3, 4}[axis], [2]int{3, 4}[1-axis]
						for l := range lines {
							pos := func(k int) int {
								if axis == 0 {
									return k*4 + l
								}
								return l*4 + k
							}
							line := make([]float64, n)
							for k := range n {
								line[k] = lg[pos(k)]
							}
							for k, from := range SortOrder(line, desc) {
								wantV[pos(k)], wantI[pos(k)] = line[from], float64(from)
							}
						}
						h.compare(t, "Sort values", h.read(vals), wantV, dt, 0)
						h.compare(t, "Sort indices", h.read(idx), wantI, dtype.I64, 0)
					})
				}
			}
		}
	}
}

// indexErrors: malformed calls of the optional capabilities are typed
// errors.
func (h *harness) indexErrors(t *testing.T) {
	f32 := dtype.F32
	a := h.buffer(f32, sample(12, -1, 1, 8))
	out := h.output(f32, 12)
	fidx := h.buffer(f32, make([]float64, 12))
	st := h.buffer(dtype.I32, make([]float64, device.StatusLen))
	defer func() {
		for _, b := range []device.Buffer{a, out, fidx, st} {
			h.be.Free(b)
		}
	}()
	c12 := contiguous12
	var cases []struct {
		name string
		kind error
		call func() error
	}
	add := func(name string, kind error, call func() error) {
		cases = append(cases, struct {
			name string
			kind error
			call func() error
		}{name, kind, call})
	}
	if ix, ok := h.be.(device.Indexer); ok {
		add("gather float indices", errs.ErrDType, func() error { return ix.Gather(op(out, c12), op(a, c12), op(fidx, c12), op(st, contig(4)), 0) })
		add("gather bad status", errs.ErrShape, func() error { return ix.Gather(op(out, c12), op(a, c12), op(st, contig(2, 2)), op(a, contig(4)), 0) })
		add("scatter axis", errs.ErrAxis, func() error {
			i := h.output(dtype.I32, 12)
			defer h.be.Free(i)
			return ix.ScatterAdd(op(out, c12), op(i, c12), op(a, c12), op(st, contig(4)), 2)
		})
	}
	if sc, ok := h.be.(device.Scanner); ok {
		add("scan axis", errs.ErrAxis, func() error { return sc.Scan(device.CumSum, op(out, c12), op(a, c12), 2) })
		add("scan dtype", errs.ErrDType, func() error { return sc.Scan(device.CumSum, op(st, contig(4)), op(a, contig(4)), 0) })
		add("scan shape", errs.ErrShape, func() error { return sc.Scan(device.CumProd, op(out, contig(4, 3)), op(a, c12), 0) })
	}
	if so, ok := h.be.(device.Sorter); ok {
		add("sort index dtype", errs.ErrDType, func() error { return so.Sort(op(out, c12), op(fidx, c12), op(a, c12), 0, false) })
	}
	for _, c := range cases {
		err := h.safely(c.name, c.call)
		if err == nil || !errors.Is(err, c.kind) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.kind)
		}
	}
}
