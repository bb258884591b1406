package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
)

// lastAccuracy reads the figure from the command's last line,
// "test accuracy: 97.83%", the contract scripts rely on.
func lastAccuracy(t *testing.T, out string) float64 {
	t.Helper()
	m := regexp.MustCompile(`\ntest accuracy: (\d+\.\d\d)%\n$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the output does not end with a \"test accuracy: NN.NN%%\" line:\n%s", out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestTrainMNIST trains on the real MNIST files and asserts the test
// accuracy: the MLP for the default three epochs on the CPU (the issue's
// target, 97.5%; it reaches about 98%), a shortened run on the software GPU
// (10,000 images, one epoch), which reaches about 88% (85% asserted), and
// a shortened CNN run on the CPU (10,000 images, one epoch; about 93%, 90%
// asserted). The full CNN run (98.5% or more) takes minutes and is
// measured in docs/benchmarks.md instead.
func TestTrainMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for tens of seconds")
	}
	cases := []struct {
		name    string
		model   string
		args    []string
		atLeast float64
	}{
		{"cpu mlp", "mlp", []string{"--device", "cpu"}, 97.5},
		{"webgpu:software mlp subset", "mlp", []string{"--device", "webgpu:software", "--epochs", "1", "--train-samples", "10000", "--test-samples", "2000"}, 85},
		{"cpu cnn subset", "cnn", []string{"--device", "cpu", "--model", "cnn", "--epochs", "1", "--train-samples", "10000", "--test-samples", "2000"}, 90},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dev := c.args[1]
			if _, err := device.Open(dev); err != nil {
				if errors.Is(err, errs.ErrUnavailable) && os.Getenv("TESSERA_REQUIRE_WEBGPU") != "1" {
					t.Skipf("%s: %v", dev, err)
				}
				t.Fatal(err)
			}
			save := filepath.Join(t.TempDir(), c.model+".safetensors")
			var out, errOut bytes.Buffer
			args := append([]string{"train", "--save", save}, c.args...)
			if code := run(args, &out, &errOut); code != 0 {
				t.Fatalf("exit code %d: %s", code, errOut.String())
			}
			acc := lastAccuracy(t, out.String())
			t.Logf("%s: test accuracy %.2f%%", c.name, acc)
			if acc < c.atLeast {
				t.Errorf("test accuracy %.2f%%, want at least %.2f%%", acc, c.atLeast)
			}
			if !bytes.Contains(errOut.Bytes(), []byte("samples/s")) {
				t.Errorf("no progress line on stderr:\n%s", errOut.String())
			}
			// The saved weights load into a fresh model of the same shape.
			m, _ := newModel(c.model, 1)
			if err := nn.Load(m, save); err != nil {
				t.Errorf("loading the saved weights: %v", err)
			}
		})
	}
}

// TestTrainErrors checks that bad arguments fail with a message, not a
// crash, before any training.
func TestTrainErrors(t *testing.T) {
	for _, args := range [][]string{
		{"train", "--model", "transformer", "--device", "cpu"},
		{"train", "--epochs", "0", "--device", "cpu"},
		{"train", "--batch", "-3", "--device", "cpu"},
		{"train", "--device", "nope"},
		{"train", "--data", "/nonexistent", "--device", "cpu"},
		{"train", "--lr", "-1", "--device", "cpu"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 1 || errOut.Len() == 0 {
			t.Errorf("%v: exit code %d, stderr %q; want 1 with a message", args, code, errOut.String())
		}
	}
}
