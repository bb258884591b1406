// Command tessera lists devices, runs a demo model and benchmarks tessera's
// backends.
//
//	tessera devices                  list every device with its details
//	tessera demo [--device NAME]     a seeded 2-layer MLP forward pass, checked against the CPU
//	tessera bench [--device NAME]    matmul and elementwise throughput, side by side with gonum
//
// Without --device, the best available device is used (TESSERA_DEVICE
// overrides it), falling back to the CPU.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `usage: tessera <command> [flags]

commands:
  devices            list every device with its details
  demo [--device D]  run a seeded 2-layer MLP forward pass on D and check it against the CPU
  bench [--device D] [--quick]
                     matmul GFLOP/s and elementwise GB/s, side by side with gonum

D is a device name such as cpu, webgpu, webgpu:software, gl or gl:software; the default is
the best available device (TESSERA_DEVICE overrides it).`)
}

// run executes one command and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	cmd, rest := args[0], args[1:]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	devName := fs.String("device", "", "device to run on (default: best available)")
	quick := fs.Bool("quick", false, "bench: small sizes only")
	seed := fs.Uint64("seed", 42, "demo: random seed")
	switch cmd {
	case "devices", "demo", "bench":
		if err := fs.Parse(rest); err != nil {
			return 2
		}
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "tessera: unknown command %q\n\n", cmd)
		usage(stderr)
		return 2
	}
	var err error
	switch cmd {
	case "devices":
		err = listDevices(stdout)
	case "demo":
		err = demo(stdout, *devName, *seed)
	case "bench":
		err = bench(stdout, *devName, *quick)
	}
	if err != nil {
		fmt.Fprintln(stderr, "tessera:", err)
		return 1
	}
	return 0
}
