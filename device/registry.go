package device

import (
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/tessera-go/tessera/errs"
)

// Driver is a backend's entry in the registry.
type Driver interface {
	// Name is the prefix of the device names the driver opens ("cpu").
	Name() string
	// Enumerate lists the devices the driver can open on this machine.
	Enumerate() ([]Info, error)
	// Open opens the named device ("webgpu", "webgpu:software", "webgpu:1").
	Open(name string) (Device, error)
}

var (
	regMu   sync.Mutex
	drivers = map[string]Driver{}
	opened  = map[string]Device{}
)

// optInDrivers maps the driver names of tessera's opt-in backends to the
// package a program imports to link them. Backends are linked like
// database/sql drivers: a program that wants the GPU adds a blank import,
// and one that does not stays free of cgo and of the GPU libraries. Open
// uses the table to say which import a missing backend needs.
var optInDrivers = map[string]string{
	"webgpu": "github.com/tessera-go/tessera/device/webgpu",
	"gl":     "github.com/tessera-go/tessera/device/gl",
}

// Register adds a driver; backends call it from init. Registering a name
// twice replaces the earlier driver.
func Register(d Driver) {
	regMu.Lock()
	defer regMu.Unlock()
	drivers[d.Name()] = d
}

func driverFor(name string) (Driver, bool) {
	prefix, _, _ := strings.Cut(name, ":")
	regMu.Lock()
	defer regMu.Unlock()
	d, ok := drivers[prefix]
	return d, ok
}

// Open returns the named device, opening it on first use. Devices are shared:
// opening the same name again returns the same Device until it is closed.
func Open(name string) (Device, error) {
	d, ok := driverFor(name)
	if !ok {
		prefix, _, _ := strings.Cut(name, ":")
		if pkg, known := optInDrivers[prefix]; known {
			return nil, errs.New("device", "Open", errs.ErrUnavailable, "device %q: the %s backend is not linked into this program; add import _ %q", name, prefix, pkg)
		}
		return nil, errs.New("device", "Open", errs.ErrDevice, "unknown device %q (known: %s)", name, strings.Join(driverNames(), ", "))
	}
	regMu.Lock()
	if dev, ok := opened[name]; ok {
		regMu.Unlock()
		return dev, nil
	}
	regMu.Unlock()
	dev, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	regMu.Lock()
	defer regMu.Unlock()
	if prev, ok := opened[name]; ok { // another goroutine won the race
		go dev.Close()
		return prev, nil
	}
	opened[name] = dev
	return dev, nil
}

// Forget removes a closed device from the registry's cache; backends call it
// from Close so a later Open starts afresh.
func Forget(dev Device) {
	regMu.Lock()
	defer regMu.Unlock()
	for k, v := range opened {
		if v == dev {
			delete(opened, k)
		}
	}
}

func driverNames() []string {
	regMu.Lock()
	defer regMu.Unlock()
	var names []string
	for n := range drivers {
		names = append(names, n)
	}
	sortDrivers(names)
	return names
}

// sortDrivers orders driver names by driverRank, then by name.
func sortDrivers(names []string) {
	sort.Slice(names, func(i, j int) bool {
		ri, rj := driverRank(names[i]), driverRank(names[j])
		return ri < rj || ri == rj && names[i] < names[j]
	})
}

// driverRank orders drivers in List, and so in Default's choice of a
// hardware GPU: WebGPU (Vulkan, Metal, DX12) before OpenGL, which is there
// for GPUs WebGPU cannot reach; other drivers after both, by name.
func driverRank(name string) int {
	switch name {
	case "cpu":
		return 0
	case "webgpu":
		return 1
	case "gl":
		return 2
	}
	return 3
}

// List describes every device every registered driver can open, CPU first,
// then WebGPU's, then OpenGL's (see driverRank).
// A driver that fails to enumerate contributes nothing; its error is
// returned alongside the others' devices.
func List() ([]Info, error) {
	var out []Info
	var firstErr error
	for _, n := range driverNames() {
		d, _ := driverFor(n)
		infos, err := d.Enumerate()
		if err != nil && firstErr == nil {
			firstErr = err
		}
		out = append(out, infos...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Type == "cpu" && out[j].Type != "cpu" })
	return out, firstErr
}

// Default picks the device to run on: the one named by the TESSERA_DEVICE
// environment variable if set, else the first hardware GPU, else the CPU.
// A software adapter is chosen only when asked for by name.
func Default() (Device, error) {
	if name := os.Getenv("TESSERA_DEVICE"); name != "" {
		return Open(name)
	}
	infos, _ := List()
	for _, in := range infos {
		if in.Hardware && in.Type != "cpu" {
			if dev, err := Open(in.Name); err == nil {
				return dev, nil
			}
		}
	}
	return Open("cpu")
}

// CPU returns the CPU device, which is always available when the cpu
// backend is linked (importing tensor links it). Without it, CPU reports
// the failure through a device whose every call returns ErrUnavailable.
func CPU() Device {
	dev, err := Open("cpu")
	if err != nil {
		return unavailable{err: err}
	}
	return dev
}
