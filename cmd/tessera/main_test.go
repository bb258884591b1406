package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		out    string
		stderr string // a substring of stderr, when not empty
	}{
		{[]string{"devices"}, 0, "cpu\n  type:     cpu", ""},
		{[]string{"demo", "--device", "cpu"}, 0, "check: matches the float64 CPU reference", ""},
		// The progress line goes to stderr, ending complete; stdout keeps
		// only the tables.
		{[]string{"bench", "--device", "cpu", "--quick"}, 0, "tessera/gonum", "bench [====================] 7/7"},
		{[]string{"demo", "--device", "nope"}, 1, "", ""},
		{[]string{"frobnicate"}, 2, "", ""},
		{nil, 2, "", ""},
		{[]string{"help"}, 0, "usage: tessera", ""},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(c.args, &out, &errOut)
			if code != c.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, c.code, errOut.String())
			}
			if !strings.Contains(out.String(), c.out) {
				t.Errorf("output lacks %q:\n%s", c.out, out.String())
			}
			if !strings.Contains(errOut.String(), c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, errOut.String())
			}
			if strings.Contains(out.String(), "[====") {
				t.Errorf("a progress bar on stdout:\n%s", out.String())
			}
			if code != 0 && errOut.Len() == 0 {
				t.Errorf("failure without a message on stderr")
			}
		})
	}
}
