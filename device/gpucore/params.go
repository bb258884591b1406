package gpucore

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"unsafe"
)

// Parameter blocks: the uniform each kernel reads, defined once here. The
// WGSL struct declarations in shaders/params.wgsl are generated from these
// types (see WGSL), and Pack writes a value's fields in order, so the two
// cannot disagree. Fields are u32, i32 or f32 words: a [4]T is a vec4<T>,
// a [N][4]T an array<vec4<T>, N> (uniform arrays need a 16-byte stride), a
// nested struct a struct, and a blank [k]uint32 is k padding words. The
// wgsl tag names a field in the shader.

// maxRank is the most axes a walk describes. Layouts are merged first;
// axes beyond it that still remain are covered by several dispatches (see
// hostAxes), so any rank runs.
const maxRank = 8

// Walk4 describes how a flat index over a shape of at most 8 axes maps to
// positions in up to four operands: operand k's stride along axis i is
// St[2k + i/4][i%4]. shaders/index.wgsl walks it.
type Walk4 struct {
	Rank  uint32 `wgsl:"rank"`
	_     [3]uint32
	Shape [2][4]uint32 `wgsl:"shape"`
	St    [8][4]int32  `wgsl:"st"`
}

// Walk2 is Walk4 for two operands.
type Walk2 struct {
	Rank  uint32 `wgsl:"rank"`
	_     [3]uint32
	Shape [2][4]uint32 `wgsl:"shape"`
	St    [4][4]int32  `wgsl:"st"`
}

// EWParams is the uniform of the elementwise kernels (ew_params.wgsl):
// operand 0 is the destination, 1..3 the sources; Off[k] is operand k's
// position of element 0 within its binding window; Ex carries extra words
// (the fill value).
type EWParams struct {
	N   uint32 `wgsl:"n"`
	_   [3]uint32
	Off [4]int32  `wgsl:"off"`
	Ex  [4]uint32 `wgsl:"ex"`
	W   Walk4     `wgsl:"w"`
}

// ReduceParams is the uniform of reduce.wgsl: NOut outputs over the kept
// walk (source, destination strides), each reducing NRed elements over the
// reduced walk (source strides, logical index strides) in NChunk chunks of
// Chunk. Off holds the source, destination and index-base positions; with
// partial output Pst.x is the stride between chunk results.
type ReduceParams struct {
	NOut   uint32  `wgsl:"nout"`
	NRed   uint32  `wgsl:"nred"`
	NChunk uint32  `wgsl:"nchunk"`
	Chunk  uint32  `wgsl:"chunk"`
	Count  float32 `wgsl:"count"`
	_      [3]uint32
	Off    [4]int32 `wgsl:"off"`
	Pst    [4]int32 `wgsl:"pst"`
	Kept   Walk2    `wgsl:"kept"`
	Red    Walk2    `wgsl:"red"`
}

// SoftmaxParams is the uniform of softmax.wgsl's row kernels: NRows work
// items over the kept walk (source, destination strides), rows of Len
// elements; Off.xy are the source and destination positions of row 0,
// Ax.xy the strides along the softmax axis; for STATS Ch.xy are the chunk
// length and chunks per row. scan.wgsl and sort.wgsl, row kernels too,
// read the same block (their files say what Ch and Off.z hold for them).
type SoftmaxParams struct {
	NRows uint32 `wgsl:"nrows"`
	Len   uint32 `wgsl:"len"`
	_     [2]uint32
	Off   [4]int32  `wgsl:"off"`
	Ax    [4]int32  `wgsl:"ax"`
	Ch    [4]uint32 `wgsl:"ch"`
	Kept  Walk2     `wgsl:"kept"`
}

// NormParams is the uniform of norm.wgsl: NRows rows of Len elements,
// one workgroup each. Off holds the positions of row 0 of the source,
// destination and statistics; Rs their row strides and Cs their strides
// along a row (for the statistics, from the mean to the rstd); Aff the
// weight's position and stride, then the bias's.
type NormParams struct {
	NRows uint32  `wgsl:"nrows"`
	Len   uint32  `wgsl:"len"`
	Eps   float32 `wgsl:"eps"`
	_     [1]uint32
	Off   [4]int32 `wgsl:"off"`
	Rs    [4]int32 `wgsl:"rs"`
	Cs    [4]int32 `wgsl:"cs"`
	Aff   [4]int32 `wgsl:"aff"`
}

// AttnParams is the uniform of attention.wgsl for one batch element: L
// queries of E against S keys, values of Ev; Off holds the positions of
// the q, k, v and mask matrices, Ld their row strides and Cs their strides
// along a row; Dst the destination's position, row and column strides.
type AttnParams struct {
	L     uint32  `wgsl:"l"`
	S     uint32  `wgsl:"s"`
	E     uint32  `wgsl:"e"`
	Ev    uint32  `wgsl:"ev"`
	Scale float32 `wgsl:"scale"`
	_     [3]uint32
	Off   [4]int32 `wgsl:"off"`
	Ld    [4]int32 `wgsl:"ld"`
	Cs    [4]int32 `wgsl:"cs"`
	Dst   [4]int32 `wgsl:"dst"`
}

// CombineParams is the uniform of softmax.wgsl's COMBINE pass: NItems
// work items merge up to Per of NIn pairs per row into NOut.
type CombineParams struct {
	NItems uint32 `wgsl:"nitems"`
	NIn    uint32 `wgsl:"nin"`
	Per    uint32 `wgsl:"per"`
	NOut   uint32 `wgsl:"nout"`
}

// MatmulParams is the uniform of matmul.wgsl: A, B, C are (offset, ld,
// batch stride, unused) of each operand; Base is (row0, batch0, col0).
type MatmulParams struct {
	M    uint32    `wgsl:"m"`
	N    uint32    `wgsl:"n"`
	K    uint32    `wgsl:"k"`
	Rows uint32    `wgsl:"rows"`
	A    [4]int32  `wgsl:"a"`
	B    [4]int32  `wgsl:"b"`
	C    [4]int32  `wgsl:"c"`
	Base [4]uint32 `wgsl:"base"`
}

// ScatterParams is the uniform of gather.wgsl's LOOP variant (a float
// ScatterAdd without atomics): N targets walk W (destination, source with
// its axis stride 0, indices with their axis stride 0); a target's axis
// coordinate is (g / Inner) % Ext. Off holds the destination, source,
// index and status positions; Ax.xy the source and index strides along the
// axis, Ax.zw the first index position and the count this dispatch sums.
type ScatterParams struct {
	N     uint32 `wgsl:"n"`
	Ext   uint32 `wgsl:"ext"`
	Inner uint32 `wgsl:"inner"`
	_     [1]uint32
	Off   [4]int32 `wgsl:"off"`
	Ax    [4]int32 `wgsl:"ax"`
	W     Walk4    `wgsl:"w"`
}

// NarrowParams is the uniform of narrow.wgsl.
type NarrowParams struct {
	N      uint32 `wgsl:"n"`
	SrcOff uint32 `wgsl:"src_off"`
	_      [2]uint32
}

// WidenParams is the uniform of widen.wgsl.
type WidenParams struct {
	N       uint32 `wgsl:"n"`
	DstOff  uint32 `wgsl:"dst_off"`
	IsBool  uint32 `wgsl:"is_bool"`
	SrcByte uint32 `wgsl:"src_byte"`
}

// paramStructs are the parameter blocks and their WGSL names, in
// declaration order (a struct after those it contains).
var paramStructs = []struct {
	name string
	typ  reflect.Type
}{
	{"Walk4", reflect.TypeFor[Walk4]()},
	{"Walk2", reflect.TypeFor[Walk2]()},
	{"Params", reflect.TypeFor[EWParams]()},
	{"RParams", reflect.TypeFor[ReduceParams]()},
	{"SParams", reflect.TypeFor[SoftmaxParams]()},
	{"CParams", reflect.TypeFor[CombineParams]()},
	{"NParams", reflect.TypeFor[NormParams]()},
	{"AParams", reflect.TypeFor[AttnParams]()},
	{"MParams", reflect.TypeFor[MatmulParams]()},
	{"XParams", reflect.TypeFor[ScatterParams]()},
	{"NarrowParams", reflect.TypeFor[NarrowParams]()},
	{"WidenParams", reflect.TypeFor[WidenParams]()},
}

// Pack appends the bytes of parameter block p (a value of a type above),
// little-endian, as the uniform holds them: its fields in order. WGSL
// checks that the blocks have no Go padding and that every field sits at
// its uniform offset, so on little-endian hosts the struct's memory is
// those bytes and is copied directly (encoding/binary's reflection costs
// about 2 us a block, a tenth of a small operation); elsewhere
// encoding/binary writes them.
func Pack(dst []byte, p any) []byte {
	if littleEndian {
		switch v := p.(type) {
		case EWParams:
			return appendRaw(dst, &v)
		case ReduceParams:
			return appendRaw(dst, &v)
		case SoftmaxParams:
			return appendRaw(dst, &v)
		case CombineParams:
			return appendRaw(dst, &v)
		case NormParams:
			return appendRaw(dst, &v)
		case AttnParams:
			return appendRaw(dst, &v)
		case MatmulParams:
			return appendRaw(dst, &v)
		case ScatterParams:
			return appendRaw(dst, &v)
		case NarrowParams:
			return appendRaw(dst, &v)
		case WidenParams:
			return appendRaw(dst, &v)
		}
	}
	return packPortable(dst, p)
}

// packPortable is Pack through encoding/binary.
func packPortable(dst []byte, p any) []byte {
	out, err := binary.Append(dst, binary.LittleEndian, p)
	if err != nil {
		panic("gpucore: cannot pack parameter block: " + err.Error())
	}
	return out
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// appendRaw appends the memory of *v.
func appendRaw[T any](dst []byte, v *T) []byte {
	return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))...)
}

// Size is the byte size of parameter block p.
func Size(p any) int {
	switch p.(type) {
	case EWParams:
		return int(unsafe.Sizeof(EWParams{}))
	case ReduceParams:
		return int(unsafe.Sizeof(ReduceParams{}))
	case SoftmaxParams:
		return int(unsafe.Sizeof(SoftmaxParams{}))
	case CombineParams:
		return int(unsafe.Sizeof(CombineParams{}))
	case NormParams:
		return int(unsafe.Sizeof(NormParams{}))
	case AttnParams:
		return int(unsafe.Sizeof(AttnParams{}))
	case MatmulParams:
		return int(unsafe.Sizeof(MatmulParams{}))
	case ScatterParams:
		return int(unsafe.Sizeof(ScatterParams{}))
	case NarrowParams:
		return int(unsafe.Sizeof(NarrowParams{}))
	case WidenParams:
		return int(unsafe.Sizeof(WidenParams{}))
	}
	return binary.Size(p)
}

// WGSL returns the WGSL declarations of every parameter block: the text of
// shaders/params.wgsl. It fails when a Go field does not sit at the offset
// the WGSL uniform layout gives it.
func WGSL() (string, error) {
	var sb strings.Builder
	sb.WriteString("// params.wgsl: the kernels' parameter blocks. GENERATED from the Go\n")
	sb.WriteString("// structs of device/gpucore/params.go by `go generate ./device/gpucore`;\n")
	sb.WriteString("// do not edit.\n")
	names := map[reflect.Type]string{}
	for _, s := range paramStructs {
		names[s.typ] = s.name
		sb.WriteString("\n")
		if err := declare(&sb, s.name, s.typ, names); err != nil {
			return "", err
		}
	}
	return sb.String(), nil
}

// declare writes the WGSL struct for t and checks its layout.
func declare(sb *strings.Builder, name string, t reflect.Type, names map[reflect.Type]string) error {
	fmt.Fprintf(sb, "struct %s {\n", name)
	off, pad := uintptr(0), 0
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "_" {
			if f.Type.Kind() != reflect.Array || f.Type.Elem().Kind() != reflect.Uint32 || f.Offset != off {
				return fmt.Errorf("gpucore: %s: padding must be a [k]uint32 at offset %d", name, off)
			}
			for range f.Type.Len() {
				fmt.Fprintf(sb, "    pad%d: u32,\n", pad)
				pad++
			}
			off += f.Type.Size()
			continue
		}
		wt, align, err := wgslType(f.Type, names)
		if err != nil {
			return fmt.Errorf("gpucore: %s.%s: %v", name, f.Name, err)
		}
		off = (off + align - 1) &^ (align - 1)
		tag := f.Tag.Get("wgsl")
		if tag == "" {
			return fmt.Errorf("gpucore: %s.%s has no wgsl tag", name, f.Name)
		}
		if f.Offset != off {
			return fmt.Errorf("gpucore: %s.%s is at byte %d in Go but %d in the WGSL uniform layout; add padding", name, f.Name, f.Offset, off)
		}
		fmt.Fprintf(sb, "    %s: %s,\n", tag, wt)
		off += f.Type.Size()
	}
	if off%16 != 0 || off != t.Size() {
		return fmt.Errorf("gpucore: %s is %d bytes, not a multiple of 16; add padding", name, off)
	}
	sb.WriteString("}\n")
	return nil
}

// wgslType maps a Go field type to its WGSL type and uniform alignment.
func wgslType(t reflect.Type, names map[reflect.Type]string) (string, uintptr, error) {
	scalar := func(k reflect.Kind) (string, bool) {
		switch k {
		case reflect.Uint32:
			return "u32", true
		case reflect.Int32:
			return "i32", true
		case reflect.Float32:
			return "f32", true
		}
		return "", false
	}
	if s, ok := scalar(t.Kind()); ok {
		return s, 4, nil
	}
	switch t.Kind() {
	case reflect.Array:
		e := t.Elem()
		if s, ok := scalar(e.Kind()); ok && t.Len() == 4 {
			return "vec4<" + s + ">", 16, nil
		}
		if e.Kind() == reflect.Array && e.Len() == 4 {
			if s, ok := scalar(e.Elem().Kind()); ok {
				return fmt.Sprintf("array<vec4<%s>, %d>", s, t.Len()), 16, nil
			}
		}
	case reflect.Struct:
		if n, ok := names[t]; ok {
			return n, 16, nil
		}
		return "", 0, fmt.Errorf("struct %s is not declared before use", t)
	}
	return "", 0, fmt.Errorf("type %s has no uniform form (use words, [4]T or [N][4]T)", t)
}
