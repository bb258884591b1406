// Command gen writes tensor/ops_gen.go from the op table; `go generate
// ./tensor` runs it.
package main

import (
	"fmt"
	"os"

	"github.com/tessera-go/tessera/internal/opgen"
)

func main() {
	src, err := opgen.Source()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile("ops_gen.go", src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
