package gpucore

import "github.com/tessera-go/tessera/dtype"

// Widen plans unpacking n host bytes (U8 or Bool, four per word) from
// packed, a U8 buffer holding them from byte 0, into elements [off,
// off+n) of b, in pieces whose bindings fit the device limit.
func (p *Planner) Widen(b, packed Buffer, off, n int) *Plan {
	pl := &Plan{}
	k := &Kernel{Template: "widen.wgsl", Vars: map[string]string{}, RW: 1, RO: 1}
	piece := p.Lim.PieceElems(4)
	isBool := uint32(0)
	if b.DType() == dtype.Bool {
		isBool = 1
	}
	for start := 0; start < n; start += piece {
		c := min(piece, n-start)
		dw, dbase := p.Lim.Window(b, int64(off+start), int64(off+start+c), true)
		sw, sbase := p.Lim.Window(packed, int64(start/4), int64((start+c+3)/4), false)
		pl.Steps = append(pl.Steps, Dispatch{
			Kernel: k,
			Params: WidenParams{N: uint32(c), DstOff: uint32(off + start - dbase), IsBool: isBool, SrcByte: uint32(start - sbase*4)},
			Binds:  []Binding{dw, sw},
			Grid:   p.Lim.Grid((uint64(c) + ewWG - 1) / ewWG),
		})
	}
	return pl
}

// Narrow plans packing n U8/Bool elements of b from element off into dst
// (a U8 buffer of at least (n+3)/4 words), four per word, for readback.
// n must not exceed Limits.PieceElems(4).
func (p *Planner) Narrow(dst, b Buffer, off, n int) *Plan {
	k := &Kernel{Template: "narrow.wgsl", Vars: map[string]string{}, RW: 1, RO: 1}
	sw, sbase := p.Lim.Window(b, int64(off), int64(off+n), false)
	words := (n + 3) / 4
	return &Plan{Steps: []Dispatch{{
		Kernel: k,
		Params: NarrowParams{N: uint32(n), SrcOff: uint32(off - sbase)},
		Binds:  []Binding{whole(dst, true), sw},
		Grid:   p.Lim.Grid((uint64(words) + ewWG - 1) / ewWG),
	}}}
}

// CopyContiguous plans copying n elements from the start of src to
// element off of dst, both of one dtype (the bit-moving copy places F16
// data whose offset or length is not word aligned).
func (p *Planner) CopyContiguous(op string, dst Buffer, off int, src Buffer, n int) (*Plan, error) {
	d := Operand{Buf: dst, Shape: []int{n}, Strides: []int{1}, Off: off, Numel: n}
	pl := &Plan{}
	return pl, p.copy(pl, op, d, contiguous(src, []int{n}, n))
}
