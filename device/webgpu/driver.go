//go:build cgo

package webgpu

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/errs"
)

func init() { device.Register(driver{}) }

// driver is the registry entry for WebGPU devices.
type driver struct{}

// Name is the registry prefix of the driver's device names.
func (driver) Name() string { return DriverName }

// Enumerate lists "webgpu" (the best adapter) and "webgpu:software" (the
// fallback adapter) when wgpu finds them. Having no adapter is not an error.
func (driver) Enumerate() ([]device.Info, error) {
	var out []device.Info
	for _, sw := range []bool{false, true} {
		ad, err := requestAdapter(sw)
		if err != nil {
			continue
		}
		name := DriverName
		if sw {
			name = DriverName + ":software"
		}
		info := adapterInfo(ad, name, ad.GetLimits().Limits, effectiveLimits(ad.GetLimits().Limits, Options{}))
		ad.Release()
		out = append(out, info)
	}
	return out, nil
}

// Open opens "webgpu" or "webgpu:software".
func (driver) Open(name string) (device.Device, error) {
	switch name {
	case DriverName:
		return OpenWith(Options{Name: name})
	case DriverName + ":software":
		return OpenWith(Options{Software: true, Name: name})
	}
	return nil, errs.New("webgpu", "Open", errs.ErrDevice, "unknown device %q (known: %q, %q)", name, DriverName, DriverName+":software")
}

var (
	instMu  sync.Mutex
	inst    *wgpu.Instance
	instErr error
)

// instance returns the process-wide wgpu instance, created on first use
// with the primary backends (Vulkan, Metal, DX12) only.
func instance() (in *wgpu.Instance, err error) {
	instMu.Lock()
	defer instMu.Unlock()
	if inst != nil || instErr != nil {
		return inst, instErr
	}
	defer func() {
		if r := recover(); r != nil {
			instErr = errs.New("webgpu", "Open", errs.ErrUnavailable, "cannot create a wgpu instance: %v", r)
			in, err = nil, instErr
		}
	}()
	inst = wgpu.CreateInstance(&wgpu.InstanceDescriptor{Backends: wgpu.InstanceBackend_Primary})
	return inst, nil
}

// requestAdapter asks for the high-performance adapter, or the fallback
// (software) one.
func requestAdapter(software bool) (*wgpu.Adapter, error) {
	in, err := instance()
	if err != nil {
		return nil, err
	}
	instMu.Lock()
	defer instMu.Unlock()
	ad, err := in.RequestAdapter(&wgpu.RequestAdapterOptions{
		PowerPreference:      wgpu.PowerPreference_HighPerformance,
		ForceFallbackAdapter: software,
	})
	if err != nil || ad == nil {
		kind := "WebGPU"
		if software {
			kind = "software (fallback) WebGPU"
		}
		return nil, errs.New("webgpu", "Open", errs.ErrUnavailable, "no %s adapter found (on Linux install Mesa's Vulkan drivers, e.g. mesa-vulkan-drivers)", kind)
	}
	return ad, nil
}

// limits are the sizes the backend works within: the adapter's, possibly
// shrunk by Options.
type limits struct {
	maxBinding     uint64 // bytes one storage binding may cover
	maxBuffer      uint64 // bytes of one buffer
	maxWG          uint32 // workgroups per grid dimension
	storageAlign   uint64 // binding offset alignment, bytes
	uniformAlign   uint64
	maxUniform     uint64
	maxWGStorage   uint32
	maxInvocations uint32
}

// core is the part of the limits the planner works within.
func (l limits) core() gpucore.Limits {
	return gpucore.Limits{MaxBinding: l.maxBinding, MaxBuffer: l.maxBuffer, MaxWG: l.maxWG, StorageAlign: l.storageAlign}
}

func effectiveLimits(l wgpu.Limits, o Options) limits {
	e := limits{
		maxBinding:     l.MaxStorageBufferBindingSize,
		maxBuffer:      l.MaxBufferSize,
		maxWG:          l.MaxComputeWorkgroupsPerDimension,
		storageAlign:   uint64(max(l.MinStorageBufferOffsetAlignment, 4)),
		uniformAlign:   uint64(max(l.MinUniformBufferOffsetAlignment, 4)),
		maxUniform:     l.MaxUniformBufferBindingSize,
		maxWGStorage:   l.MaxComputeWorkgroupStorageSize,
		maxInvocations: l.MaxComputeInvocationsPerWorkgroup,
	}
	if o.MaxBindingSize > 0 && o.MaxBindingSize < e.maxBinding {
		e.maxBinding = o.MaxBindingSize
	}
	if o.MaxBufferSize > 0 && o.MaxBufferSize < e.maxBuffer {
		e.maxBuffer = o.MaxBufferSize
	}
	if o.MaxWorkgroupsPerDim > 0 && o.MaxWorkgroupsPerDim < e.maxWG {
		e.maxWG = o.MaxWorkgroupsPerDim
	}
	// Keep the binding limit a multiple of the alignments, so windows
	// built from it stay aligned.
	e.maxBinding &^= 255
	if e.maxBinding < 4096 {
		e.maxBinding = 4096
	}
	if e.maxWG == 0 {
		e.maxWG = 65535
	}
	return e
}

func adapterType(t wgpu.AdapterType) (string, bool) {
	switch t {
	case wgpu.AdapterType_DiscreteGPU:
		return "discrete-gpu", true
	case wgpu.AdapterType_IntegratedGPU:
		return "integrated-gpu", true
	case wgpu.AdapterType_CPU:
		return "software", false
	}
	return "virtual-gpu", false
}

func backendName(b wgpu.BackendType) string {
	switch b {
	case wgpu.BackendType_Vulkan:
		return "vulkan"
	case wgpu.BackendType_Metal:
		return "metal"
	case wgpu.BackendType_D3D12:
		return "dx12"
	case wgpu.BackendType_D3D11:
		return "dx11"
	case wgpu.BackendType_OpenGL:
		return "gl"
	case wgpu.BackendType_OpenGLES:
		return "gles"
	}
	return strings.ToLower(b.String())
}

func adapterInfo(ad *wgpu.Adapter, name string, raw wgpu.Limits, e limits) device.Info {
	p := ad.GetProperties()
	typ, hw := adapterType(p.AdapterType)
	vendor := p.VendorName
	if vendor == "" {
		vendor = fmt.Sprintf("0x%04x", p.VendorId)
	} else {
		vendor = fmt.Sprintf("%s (0x%04x)", vendor, p.VendorId)
	}
	drv := p.DriverDescription
	if drv == "" {
		drv = backendName(p.BackendType)
	}
	return device.Info{
		Name:     name,
		Type:     typ,
		Hardware: hw,
		Backend:  backendName(p.BackendType),
		Adapter:  p.Name,
		Vendor:   vendor,
		Driver:   drv,
		DTypes:   slices.Clone(gpucore.StorableDTypes),
		Compute:  slices.Clone(gpucore.ComputeDTypes),
		Limits: []device.Limit{
			{Name: "maxStorageBufferBindingSize", Value: e.maxBinding},
			{Name: "maxBufferSize", Value: e.maxBuffer},
			{Name: "maxComputeWorkgroupsPerDimension", Value: uint64(e.maxWG)},
			{Name: "minStorageBufferOffsetAlignment", Value: e.storageAlign},
			{Name: "minUniformBufferOffsetAlignment", Value: e.uniformAlign},
			{Name: "maxUniformBufferBindingSize", Value: e.maxUniform},
			{Name: "maxComputeWorkgroupStorageSize", Value: uint64(e.maxWGStorage)},
			{Name: "maxComputeInvocationsPerWorkgroup", Value: uint64(e.maxInvocations)},
			{Name: "maxStorageBuffersPerShaderStage", Value: uint64(raw.MaxStorageBuffersPerShaderStage)},
			{Name: "maxPushConstantSize", Value: uint64(raw.MaxPushConstantSize)},
		},
	}
}
