package cpu_test

import (
	"testing"

	"github.com/tessera-go/tessera/device/cpu"
	"github.com/tessera-go/tessera/device/devicetest"
)

func TestBackendContract(t *testing.T) {
	devicetest.Run(t, cpu.New())
}
