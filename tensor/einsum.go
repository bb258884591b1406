package tensor

import (
	"slices"
	"strings"

	"github.com/tessera-go/tessera/errs"
)

// Einsum evaluates the Einstein summation subscripts over operands, as
// numpy.einsum and torch.einsum: "ij,jk->ik" is a matrix product, "ii" a
// trace, "ii->i" a diagonal, "ij->ji" a transpose, "i,j->ij" an outer
// product, "bij,bjk->bik" a batched product. Labels are ASCII letters;
// "..." stands for the broadcast axes, aligned from the right as in
// NumPy's broadcasting. Without "->" the output is the broadcast axes
// followed by the labels that appear once, in alphabetical (ASCII) order.
//
// A label's axes must have one extent, or extent 1 (broadcast, as both
// libraries allow); a label repeated in one operand takes the diagonal.
// Labels missing from the output are summed. The operands are cast to
// the dtype PromoteTypes gives for all of them. It is composed of views,
// sums and batched Matmul calls, contracting the operands left to right,
// so it runs on every device and is differentiable.
func Einsum(subscripts string, operands ...*Tensor) *Tensor {
	const op = "Einsum"
	for _, t := range operands {
		if err := t.checkOperand(op); err != nil {
			return failed(err)
		}
	}
	spec, err := parseEinsum(subscripts, operands)
	if err != nil {
		return failed(err)
	}
	if len(operands) > 1 {
		dt := operands[0].DType()
		for _, t := range operands[1:] {
			dt = PromoteTypes(dt, t.DType())
		}
		cast := make([]*Tensor, len(operands))
		for i, t := range operands {
			cast[i] = t
			if t.DType() != dt {
				cast[i] = t.Cast(dt)
				defer cast[i].Release()
			}
		}
		operands = cast
	}
	size := spec.sizes
	// need(from) is the set of labels that operands from on and the
	// output use: after contracting operand i, need(i+1) is what must
	// survive.
	need := func(from int) map[int]bool {
		m := map[int]bool{}
		for _, l := range spec.out {
			m[l] = true
		}
		for _, ls := range spec.ins[from:] {
			for _, l := range ls {
				m[l] = true
			}
		}
		return m
	}
	var acc *Tensor
	var accL []int
	for i, t := range operands {
		x, xl := einsumPrepare(t, spec.ins[i], size, need(i+1), accL)
		if x.err != nil {
			return retag(op, x)
		}
		if acc == nil {
			acc, accL = x, xl
			continue
		}
		acc, accL = einsumPair(acc, accL, x, xl, size, need(i+1))
		if acc.err != nil {
			return retag(op, acc)
		}
	}
	// Sum what the output does not keep, then order the axes as it does.
	y, yl := einsumReduce(acc, accL, need(len(operands)))
	perm := make([]int, len(spec.out))
	for i, l := range spec.out {
		perm[i] = slices.Index(yl, l)
	}
	if len(perm) > 1 {
		y = y.Permute(perm...)
	}
	return retag(op, y)
}

// einsumSpec is parsed subscripts: each operand's labels (letters as
// their ASCII codes, the broadcast axes as ellipsisLabel+j), the output's,
// and every label's extent.
type einsumSpec struct {
	ins   [][]int
	out   []int
	sizes map[int]int
}

// ellipsisLabel is the first label of the broadcast axes, past the
// letters' codes.
const ellipsisLabel = 256

// parseEinsum checks the subscripts against the operands' shapes.
func parseEinsum(sub string, ops []*Tensor) (einsumSpec, error) {
	const op = "Einsum"
	bad := func(format string, args ...any) (einsumSpec, error) {
		return einsumSpec{}, errs.New("tensor", op, errs.ErrValue, "subscripts %q: "+format, append([]any{sub}, args...)...)
	}
	s := strings.ReplaceAll(sub, " ", "")
	lhs, rhs, explicit := strings.Cut(s, "->")
	terms := strings.Split(lhs, ",")
	if len(ops) == 0 {
		return bad("no operands")
	}
	if len(terms) != len(ops) {
		return bad("%d terms for %d operands", len(terms), len(ops))
	}
	type term struct {
		letters  []int
		ellipsis int // index in letters where "..." stands, or -1
	}
	parse := func(t string) (term, bool) {
		r := term{ellipsis: -1}
		for len(t) > 0 {
			switch c := t[0]; {
			case strings.HasPrefix(t, "..."):
				if r.ellipsis >= 0 {
					return r, false
				}
				r.ellipsis = len(r.letters)
				t = t[3:]
				continue
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
				r.letters = append(r.letters, int(c))
			default:
				return r, false
			}
			t = t[1:]
		}
		return r, true
	}
	spec := einsumSpec{sizes: map[int]int{}}
	terms2 := make([]term, len(terms))
	broadcast := 0 // the broadcast axes' count: the most any operand has
	for i, t := range terms {
		tm, ok := parse(t)
		if !ok {
			return bad("term %q: labels are ASCII letters, with at most one \"...\"", t)
		}
		r := ops[i].Rank()
		switch {
		case tm.ellipsis < 0 && len(tm.letters) != r:
			return einsumSpec{}, errs.New("tensor", op, errs.ErrShape, "subscripts %q: term %q has %d labels for operand %d of shape %v", sub, t, len(tm.letters), i, ops[i].lay.Shape)
		case tm.ellipsis >= 0 && len(tm.letters) > r:
			return einsumSpec{}, errs.New("tensor", op, errs.ErrShape, "subscripts %q: term %q has %d labels for operand %d of shape %v", sub, t, len(tm.letters), i, ops[i].lay.Shape)
		case tm.ellipsis >= 0:
			broadcast = max(broadcast, r-len(tm.letters))
		}
		terms2[i] = tm
	}
	count := map[int]int{}
	for i, tm := range terms2 {
		var ls []int
		if tm.ellipsis < 0 {
			ls = tm.letters
		} else {
			e := ops[i].Rank() - len(tm.letters)
			ls = append(ls, tm.letters[:tm.ellipsis]...)
			for j := range e {
				ls = append(ls, ellipsisLabel+broadcast-e+j)
			}
			ls = append(ls, tm.letters[tm.ellipsis:]...)
		}
		for ax, l := range ls {
			n := ops[i].lay.Shape[ax]
			if old, ok := spec.sizes[l]; ok && old != n && old != 1 && n != 1 {
				return einsumSpec{}, errs.New("tensor", op, errs.ErrShape, "subscripts %q: %s has extent %d in one place and %d in another (operand %d, shape %v)", sub, labelName(l), old, n, i, ops[i].lay.Shape)
			}
			if old, ok := spec.sizes[l]; !ok || old == 1 {
				spec.sizes[l] = n
			}
		}
		for _, l := range tm.letters {
			count[l]++
		}
		spec.ins = append(spec.ins, ls)
	}
	if !explicit {
		for j := range broadcast {
			spec.out = append(spec.out, ellipsisLabel+j)
		}
		var once []int
		for l, c := range count {
			if c == 1 {
				once = append(once, l)
			}
		}
		slices.Sort(once)
		spec.out = append(spec.out, once...)
		return spec, nil
	}
	tm, ok := parse(rhs)
	if !ok {
		return bad("output %q: labels are ASCII letters, with at most one \"...\"", rhs)
	}
	if tm.ellipsis < 0 && broadcast > 0 {
		return bad("the operands have %d broadcast axes, and the output has no \"...\" for them", broadcast)
	}
	for i, l := range tm.letters {
		if tm.ellipsis == i {
			for j := range broadcast {
				spec.out = append(spec.out, ellipsisLabel+j)
			}
		}
		if _, ok := count[l]; !ok {
			return bad("output label %q is in no operand", rune(l))
		}
		if slices.Contains(tm.letters[:i], l) {
			return bad("output label %q appears twice", rune(l))
		}
		spec.out = append(spec.out, l)
	}
	if tm.ellipsis == len(tm.letters) {
		for j := range broadcast {
			spec.out = append(spec.out, ellipsisLabel+j)
		}
	}
	return spec, nil
}

// labelName names a label in an error message.
func labelName(l int) string {
	if l >= ellipsisLabel {
		return "a broadcast axis"
	}
	return "label " + string(rune(l))
}

// einsumPrepare readies one operand: its repeated labels become
// diagonals, the labels needed neither later (keep) nor by the operand it
// joins (joining) are summed, and axes of extent 1 whose label is longer
// elsewhere are broadcast.
func einsumPrepare(t *Tensor, labels []int, size map[int]int, keep map[int]bool, joining []int) (*Tensor, []int) {
	x, ls := t, slices.Clone(labels)
	for {
		i, j := -1, -1
		for a := range ls {
			if b := slices.Index(ls[a+1:], ls[a]); b >= 0 {
				i, j = a, a+1+b
				break
			}
		}
		if i < 0 {
			break
		}
		// Move axes i and j last and take their diagonal: the label's
		// axis, now last.
		perm := make([]int, 0, len(ls))
		rest := make([]int, 0, len(ls))
		for a := range ls {
			if a != i && a != j {
				perm = append(perm, a)
				rest = append(rest, ls[a])
			}
		}
		perm = append(perm, i, j)
		if ext := min(x.lay.Shape[i], x.lay.Shape[j]); x.lay.Shape[i] != x.lay.Shape[j] {
			// extent 1 against the label's own: the diagonal of a
			// broadcast axis is the axis itself
			x = x.Narrow(i, 0, ext).Narrow(j, 0, ext)
		}
		x = laDiagonal(x.Permute(perm...), 0)
		ls = append(rest, ls[i])
	}
	for a, l := range ls {
		if x.lay.Shape[a] == 1 && size[l] != 1 {
			shape := slices.Clone(x.lay.Shape)
			shape[a] = size[l]
			x = x.BroadcastTo(shape...)
		}
	}
	joined := map[int]bool{}
	for l := range keep {
		joined[l] = true
	}
	for _, l := range joining {
		joined[l] = true
	}
	return einsumReduce(x, ls, joined)
}

// einsumReduce sums the axes of x whose labels keep lacks.
func einsumReduce(x *Tensor, ls []int, keep map[int]bool) (*Tensor, []int) {
	var axes []int
	var rest []int
	for a, l := range ls {
		if keep[l] {
			rest = append(rest, l)
		} else {
			axes = append(axes, a)
		}
	}
	if len(axes) == 0 {
		return x, ls
	}
	return x.Sum(axes...), rest
}

// einsumPair contracts two prepared operands: labels in both that are
// needed later are batch axes, labels in both that are not are summed by
// a batched Matmul, and each operand's own labels become its rows or
// columns. The result's labels are batch, a's own, then b's own.
func einsumPair(a *Tensor, al []int, b *Tensor, bl []int, size map[int]int, keep map[int]bool) (*Tensor, []int) {
	var batch, contract, aOwn, bOwn []int
	for _, l := range al {
		switch {
		case !slices.Contains(bl, l):
			aOwn = append(aOwn, l)
		case keep[l]:
			batch = append(batch, l)
		default:
			contract = append(contract, l)
		}
	}
	for _, l := range bl {
		if !slices.Contains(al, l) {
			bOwn = append(bOwn, l)
		}
	}
	prod := func(ls []int) int {
		p := 1
		for _, l := range ls {
			p *= size[l]
		}
		return p
	}
	arrange := func(x *Tensor, xl []int, order ...[]int) *Tensor {
		var perm []int
		for _, part := range order {
			for _, l := range part {
				perm = append(perm, slices.Index(xl, l))
			}
		}
		if len(perm) > 1 {
			x = x.Permute(perm...)
		}
		return x
	}
	nb, m, k, n := prod(batch), prod(aOwn), prod(contract), prod(bOwn)
	am := arrange(a, al, batch, aOwn, contract).Reshape(nb, m, k)
	bm := arrange(b, bl, batch, contract, bOwn).Reshape(nb, k, n)
	y := am.Matmul(bm)
	var shape, labels []int
	for _, part := range [][]int{batch, aOwn, bOwn} {
		for _, l := range part {
			shape = append(shape, size[l])
			labels = append(labels, l)
		}
	}
	return y.Reshape(shape...), labels
}
