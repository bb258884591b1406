package gpucore

import (
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/shaders"
)

var update = flag.Bool("update", false, "rewrite shaders/params.wgsl from the Go parameter blocks")

// TestParamsWGSLUpToDate checks that shaders/params.wgsl is what WGSL
// generates from the Go structs (go generate rewrites it).
func TestParamsWGSLUpToDate(t *testing.T) {
	want, err := WGSL()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("../../shaders/params.wgsl", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := shaders.Raw("params.wgsl")
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("shaders/params.wgsl is stale; run go generate ./device/gpucore")
	}
}

// TestPackMatchesLayout packs each block with distinct words and checks
// every field's bytes land at its Go (= WGSL, checked by WGSL) offset.
func TestPackMatchesLayout(t *testing.T) {
	for _, s := range paramStructs {
		v := reflect.New(s.typ).Elem()
		n := 0
		var fill func(v reflect.Value)
		fill = func(v reflect.Value) {
			switch v.Kind() {
			case reflect.Struct:
				for i := range v.NumField() {
					if v.Type().Field(i).Name != "_" {
						fill(v.Field(i))
					}
				}
			case reflect.Array:
				for i := range v.Len() {
					fill(v.Index(i))
				}
			case reflect.Uint32:
				n++
				v.SetUint(uint64(n))
			case reflect.Int32:
				n++
				v.SetInt(int64(n))
			case reflect.Float32:
				n++
				v.SetFloat(float64(n))
			}
		}
		fill(v)
		b := Pack(nil, v.Interface())
		if uintptr(len(b)) != s.typ.Size() || len(b)%16 != 0 || Size(v.Interface()) != len(b) {
			t.Errorf("%s: packed %d bytes, struct is %d", s.name, len(b), s.typ.Size())
		}
		if string(b) != string(packPortable(nil, v.Interface())) {
			t.Errorf("%s: direct and encoding/binary packing differ", s.name)
		}
	}
	p := EWParams{N: 7, Off: [4]int32{1, 2, 3, 4}, Ex: [4]uint32{9}}
	p.W.Rank = 2
	p.W.St[7][3] = -1
	b := Pack(nil, p)
	word := func(i int) uint32 {
		return uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	// n at 0, off at 16 bytes, ex at 32, w.rank at 48, w.st[7][3] last.
	if word(0) != 7 || word(4) != 1 || word(7) != 4 || word(8) != 9 || word(12) != 2 || word(len(b)/4-1) != 0xffffffff {
		t.Errorf("EWParams packed to %v", b)
	}
}

// TestWGSLRejectsBadLayout: a vec4 after a lone word needs padding.
func TestWGSLRejectsBadLayout(t *testing.T) {
	type bad struct {
		N   uint32   `wgsl:"n"`
		Off [4]int32 `wgsl:"off"`
	}
	var sb stringsBuilder
	if err := declare(&sb.b, "Bad", reflect.TypeFor[bad](), nil); err == nil {
		t.Errorf("misaligned vec4 accepted")
	}
}

type stringsBuilder struct{ b strings.Builder }

func BenchmarkPack(b *testing.B) {
	buf := make([]byte, 0, 1024)
	p := EWParams{N: 5}
	for b.Loop() {
		buf = Pack(buf[:0], p)
	}
}
