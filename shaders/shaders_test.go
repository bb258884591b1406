package shaders

import (
	"strings"
	"testing"
)

func TestRenderDirectives(t *testing.T) {
	// Every kernel template renders with its switches off and no values
	// left unresolved beyond those it names.
	for _, name := range Names() {
		src, err := Raw(name)
		if err != nil || src == "" {
			t.Fatalf("%s: %v", name, err)
		}
	}
	out, err := Render("fill.wgsl", map[string]string{"DC": "u32"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fn is_nan", "struct Params", "array<u32>", "store_dst(p.x, P.ex.x)"} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered fill.wgsl lacks %q", want)
		}
	}
	if strings.Contains(out, "{{") || strings.Contains(out, "//#") {
		t.Errorf("directives left in output")
	}
	wide, err := Render("fill.wgsl", map[string]string{"D_WIDE": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(wide, "P.ex.xy") || strings.Contains(wide, "store_dst(p.x, P.ex.x);") {
		t.Errorf("conditional branches not selected:\n%s", wide)
	}
}

func TestRenderErrors(t *testing.T) {
	if _, err := Render("fill.wgsl", nil); err == nil {
		t.Errorf("missing placeholder value not reported")
	}
	if _, err := Render("no-such.wgsl", nil); err == nil {
		t.Errorf("unknown template not reported")
	}
}

func TestKeyStable(t *testing.T) {
	a := Key("x.wgsl", map[string]string{"B": "2", "A": "1"})
	b := Key("x.wgsl", map[string]string{"A": "1", "B": "2"})
	if a != b || a != "x.wgsl;A=1;B=2" {
		t.Errorf("keys %q and %q", a, b)
	}
}

func TestTruthy(t *testing.T) {
	v := map[string]string{"ON": "1", "OFF": "0", "NO": "false", "EMPTY": ""}
	for name, want := range map[string]bool{"ON": true, "OFF": false, "NO": false, "EMPTY": false, "MISSING": false, "!ON": false, "!OFF": true} {
		if got := truthy(v, name); got != want {
			t.Errorf("truthy(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestIncludeArguments(t *testing.T) {
	out, err := Render("reduce.wgsl", map[string]string{"ACC": "f32", "RED": "sum_f32", "WG": "64", "B_SRC": "2", "FIN": "fin_f32"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fn kept_walk(g: u32) -> vec2<i32>", "fn red_pos(g: u32) -> vec2<i32>", "R.red.st[q][r]", "struct Walk2"} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered reduce.wgsl lacks %q", want)
		}
	}
	if strings.Contains(out, "{{FN}}") {
		t.Errorf("include argument not substituted")
	}
	if _, err := Render("ew_params.wgsl", nil); err != nil {
		t.Errorf("ew_params.wgsl: %v", err)
	}
}
