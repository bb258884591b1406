package tensor

import (
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// SoftmaxCrossEntropy is the cross-entropy loss of nn.CrossEntropy on the
// CPU in one pass: the mean over the N rows of logits [N, C] of
// -sum_c target[n, c] * log(softmax(logits[n])[c]), where target is the
// one-hot of labels[n] (class indices the caller has checked to lie in
// [0, C)) smoothed by s: the label's class weighs 1-s+s/C, every other
// class s/C. It is differentiable in logits: the same pass forms the
// gradient (softmax(logits) - target)/N, which Backward scales by the
// loss's gradient, so that the loss and its gradient cost one kernel each
// instead of the dozen small operations (each a realisation of a [N, C]
// tensor) of the loss written with LogSoftmax, Mul, Sum and Mean.
//
// Each row is computed in float64 from the max-shifted logits (any
// magnitude is fine) and rounded once to the logits' dtype. ok is false,
// and nothing is computed, unless logits is a float32 or float64 [N, C]
// tensor on the CPU with N = len(labels) > 0 and no error: the caller then
// writes the loss as tensor operations, which report any error.
func SoftmaxCrossEntropy(logits *Tensor, labels []int64, s float64) (loss *Tensor, ok bool) {
	const op = "SoftmaxCrossEntropy"
	if logits.checkOperand(op) != nil || logits.Device() != device.CPU() || logits.Rank() != 2 {
		return nil, false
	}
	dt := logits.DType()
	n, c := logits.lay.Shape[0], logits.lay.Shape[1]
	if (dt != dtype.F32 && dt != dtype.F64) || n == 0 || c == 0 || n != len(labels) {
		return nil, false
	}
	h, err := logits.hostContiguous(op) // realises a pending logits
	if err != nil {
		return nil, false
	}
	x := make([]float64, n*c) // the logits in row-major order
	if dt == dtype.F32 {
		for i, v := range view[float32](h.hostBytes()) {
			x[i] = float64(v)
		}
	} else {
		copy(x, view[float64](h.hostBytes()))
	}
	h.Release()
	want := logits.wantsGrad()
	var grad []float64
	if want {
		grad = make([]float64, n*c)
	}
	off, on := s/float64(c), 1-s+s/float64(c) // target weights
	total := 0.0
	e := make([]float64, c) // the row's exp(x - max)
	for i := range n {
		row := x[i*c : (i+1)*c]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = max(mx, v)
		}
		sum := 0.0
		for j, v := range row {
			e[j] = math.Exp(v - mx)
			sum += e[j]
		}
		lse := mx + math.Log(sum)
		y := int(labels[i])
		for j, v := range row {
			t := off
			if j == y {
				t = on
			}
			if t != 0 {
				total -= t * (v - lse)
			}
			if want {
				grad[i*c+j] = (e[j]/sum - t) / float64(n)
			}
		}
	}
	mean := total / float64(n)
	loss = hostTensor(op, dt, []int{}, func(b []byte) error {
		storeFloats(b, dt, []float64{mean})
		return nil
	})
	if !want || loss.err != nil {
		return loss, loss.err == nil
	}
	g := hostTensor(op, dt, []int{n, c}, func(b []byte) error {
		storeFloats(b, dt, grad)
		return nil
	})
	if g.err != nil {
		return nil, false
	}
	defer g.Release() // the graph holds its own reference
	return attach(loss, "CrossEntropy", func(gy *Tensor, saved []*Tensor) []*Tensor {
		return []*Tensor{saved[0].Mul(gy)}
	}, []*Tensor{g}, logits), true
}

// storeFloats writes v, rounded to dt (F32 or F64), into host bytes b.
func storeFloats(b []byte, dt dtype.DType, v []float64) {
	if dt == dtype.F32 {
		dst := view[float32](b)
		for i, x := range v {
			dst[i] = float32(x)
		}
		return
	}
	copy(view[float64](b), v)
}
