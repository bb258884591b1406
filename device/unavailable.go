package device

import (
	"github.com/tessera-go/tessera/dtype"
)

// unavailable stands in for a device that could not be opened, so that CPU
// never returns nil.
type unavailable struct{ err error }

func (u unavailable) Name() string     { return "unavailable" }
func (u unavailable) Info() Info       { return Info{Name: "unavailable", Type: "none"} }
func (u unavailable) Backend() Backend { return u }
func (u unavailable) Close() error     { return nil }

func (u unavailable) Alloc(dtype.DType, int) (Buffer, error)           { return nil, u.err }
func (u unavailable) Free(Buffer)                                      {}
func (u unavailable) Upload(Buffer, int, []byte) error                 { return u.err }
func (u unavailable) Download([]byte, Buffer, int) error               { return u.err }
func (u unavailable) Fill(Operand, float64) error                      { return u.err }
func (u unavailable) Copy(_, _ Operand) error                          { return u.err }
func (u unavailable) Unary(UnaryOp, Operand, Operand) error            { return u.err }
func (u unavailable) Binary(BinaryOp, Operand, Operand, Operand) error { return u.err }
func (u unavailable) Where(_, _, _, _ Operand) error                   { return u.err }
func (u unavailable) Reduce(ReduceOp, Operand, Operand, []int) error   { return u.err }
func (u unavailable) Matmul(_, _, _ Operand) error                     { return u.err }
func (u unavailable) Sync() error                                      { return u.err }
func (u unavailable) MemoryInUse() int64                               { return 0 }
