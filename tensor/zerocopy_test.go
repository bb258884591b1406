package tensor_test

import (
	"runtime"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
	"github.com/tessera-go/tessera/transfer"
)

// TestUploadZeroCopy moves transposed and narrowed views to every non-CPU
// device: exactly the span's bytes are uploaded, no host buffer of the
// tensor's size is allocated on the way, and the values survive.
func TestUploadZeroCopy(t *testing.T) {
	const n = 512 // a 1 MiB f32 matrix
	base := tensor.RandN(dtype.F32, 7, n, n)
	views := []struct {
		name string
		x    *tensor.Tensor
		span int64
	}{
		{"transposed", base.T(), 4 * n * n},
		{"narrowed", base.Narrow(0, 100, 200).Narrow(1, 10, 300), 4 * (199*n + 300)},
	}
	for _, dev := range testDevices(t) {
		if dev.Info().Type == "cpu" {
			continue
		}
		for _, v := range views {
			t.Run(dev.Name()+"/"+v.name, func(t *testing.T) {
				var m0, m1 runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m0)
				before := transfer.Stats()
				g := v.x.To(dev)
				if err := dev.Backend().Sync(); err != nil {
					t.Fatal(err)
				}
				after := transfer.Stats()
				runtime.ReadMemStats(&m1)
				if d := after.Uploaded - before.Uploaded; d != v.span {
					t.Errorf("uploaded %d bytes, want the span's %d", d, v.span)
				}
				if grew := m1.TotalAlloc - m0.TotalAlloc; grew > uint64(v.span)/4 {
					t.Errorf("allocated %d host bytes uploading a %d-byte span", grew, v.span)
				}
				if !slices.Equal(g.Strides(), v.x.Strides()) {
					t.Errorf("strides %v, want the view's %v", g.Strides(), v.x.Strides())
				}
				ok, err := tensor.Equal(g.To(base.Device()), v.x)
				if err != nil || !ok {
					t.Errorf("values changed in transit (%v)", err)
				}
				g.Release()
			})
		}
	}
}

// TestToBetweenDevices moves a strided view along every pair of devices
// (CPU and GPU, and two GPU devices through the host) and checks that the
// logical values survive each hop.
func TestToBetweenDevices(t *testing.T) {
	devs := testDevices(t)
	for _, name := range []string{"webgpu", "gl"} {
		if gpu, err := device.Open(name); err == nil && !slices.Contains(devs, gpu) {
			devs = append(devs, gpu) // another GPU device (possibly the same adapter)
		}
	}
	x := tensor.Arange(dtype.F32, 0, 60, 1).Reshape(3, 4, 5).Permute(2, 0, 1).Narrow(0, 1, 3)
	want, _ := x.Float64s()
	for _, from := range devs {
		for _, to := range devs {
			t.Run(from.Name()+"->"+to.Name(), func(t *testing.T) {
				a := x.To(from)
				b := a.To(to)
				got, err := b.Float64s()
				if err != nil || !slices.Equal(got, want) {
					t.Errorf("values %v (%v), want %v", got, err, want)
				}
				if b.Device() != to {
					t.Errorf("landed on %v", b.Device().Name())
				}
				a.Release()
				b.Release()
			})
		}
	}
}
