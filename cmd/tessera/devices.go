package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tessera-go/tessera/device"
	_ "github.com/tessera-go/tessera/tensor" // links the backends
)

func listDevices(w io.Writer) error {
	infos, err := device.List()
	for _, in := range infos {
		fmt.Fprintf(w, "%s\n", in.Name)
		fmt.Fprintf(w, "  type:     %s (hardware: %v)\n", in.Type, in.Hardware)
		fmt.Fprintf(w, "  backend:  %s\n", in.Backend)
		fmt.Fprintf(w, "  adapter:  %s\n", in.Adapter)
		if in.Vendor != "" {
			fmt.Fprintf(w, "  vendor:   %s\n", in.Vendor)
		}
		fmt.Fprintf(w, "  driver:   %s\n", in.Driver)
		names := make([]string, len(in.DTypes))
		for i, d := range in.DTypes {
			names[i] = d.String()
		}
		fmt.Fprintf(w, "  dtypes:   %s\n", strings.Join(names, " "))
		names = names[:0]
		for _, d := range in.Compute {
			names = append(names, d.String())
		}
		fmt.Fprintf(w, "  compute:  %s\n", strings.Join(names, " "))
		for _, l := range in.Limits {
			fmt.Fprintf(w, "  %-40s %d\n", l.Name+":", l.Value)
		}
	}
	if def, derr := device.Default(); derr == nil {
		fmt.Fprintf(w, "default: %s\n", def.Name())
	}
	if err != nil {
		fmt.Fprintf(w, "note: %v\n", err)
	}
	return nil
}

// openDevice opens the named device, or the default one when name is empty.
func openDevice(name string) (device.Device, error) {
	if name == "" {
		return device.Default()
	}
	return device.Open(name)
}
