package shaders_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/shaders"
)

// Unit tests of the WGSL-to-GLSL translator on small kernels, one construct
// at a time: what the output must contain, and (when glslangValidator is
// installed) that it compiles.

// kernel wraps module-scope declarations and a main body into a kernel.
func kernel(decls, body string) string {
	return decls + `
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
` + body + `
}
`
}

const bufs = `
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> fin: array<f32>;
@group(0) @binding(3) var<storage, read_write> fout: array<f32>;
`

var glslCases = []struct {
	name string
	src  string
	want []string // substrings of the GLSL
	not  []string // substrings it must not have
}{
	{"types", kernel(bufs, `
    var a: vec4<f32>;
    var b: vec3<i32>;
    var c: vec2<u32>;
    var d: vec4<bool>;
    var e: f32;
    var f: bool;
    var m: mat4x4<f32>;
    var v4 = vec4f(1.0, 2.0, 3.0, 4.0);
    var h = vec3u(1u, 2u, 3u);
    fout[0] = a.x + e + m[1][2] + v4.w;
    out[0] = u32(b.y) + c.x + h.z + select(0u, 1u, d.z || f);`),
		[]string{"vec4 a = vec4(0.0);", "ivec3 b = ivec3(0);", "uvec2 c = uvec2(0u);", "bvec4 d = bvec4(false);",
			"float e = 0.0;", "bool f = false;", "mat4 m = mat4(0.0);", "vec4 v4 = vec4(1.0, 2.0, 3.0, 4.0);", "uvec3 h = uvec3(1u, 2u, 3u);"}, nil},
	{"arrays", kernel(bufs+`var<private> table: array<u32, 3>;`, `
    var t: array<u32, 3>;
    t[1] = 5u;
    let k = array<f32, 2>(1.0, 2.0);
    var nested: array<array<i32, 2>, 3>;
    nested[2][1] = 7;
    out[lid] = t[1] + table[2] + arrayLength(&out) + u32(nested[2][1]);
    fout[lid] = k[1] + fin[lid];`),
		[]string{"uint t[3] = uint[3](0u, 0u, 0u);", "float k[2] = float[2](1.0, 2.0);", "uint table[3] = uint[3](0u, 0u, 0u);",
			"int nested[3][2] = int[3][2](int[2](0, 0), int[2](0, 0), int[2](0, 0));", "uint(out_.length())", "float fin[];", "uint out_[];"}, nil},
	{"uniform and storage blocks", kernel(`
struct Inner {
    x: vec4<u32>,
}
struct Params {
    n: u32,
    scale: f32,
    pad0: u32,
    pad1: u32,
    shape: array<vec4<u32>, 2>,
    inner: Inner,
}
@group(0) @binding(0) var<uniform> P: Params;
struct Buf {
    count: u32,
    data: array<f32>,
}
@group(0) @binding(1) var<storage, read_write> B: Buf;
@group(0) @binding(2) var<storage, read> R: array<vec4<f32>>;`, `
    B.data[lid] = R[lid].y * P.scale + f32(P.shape[1].z + P.inner.x.w);
    B.count = arrayLength(&B.data);`),
		[]string{"layout(std140, binding = 0) uniform tsr_block_P {\n    Params P;\n};", "struct Inner {\n    uvec4 x;\n};",
			"layout(std430, binding = 1) buffer tsr_block_B {\n    uint count;\n    float data[];\n} B;",
			"layout(std430, binding = 2) readonly buffer tsr_block_R {\n    vec4 R[];\n};", "uint(B.data.length())"},
		[]string{"struct Buf"}},
	{"atomics", kernel(`@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> cnt: array<atomic<i32>>;`, `
    let i = lid;
    let sh = (i & 1u) * 16u;
    atomicAnd(&dst[i >> 1u], ~(0xffffu << sh));
    atomicOr(&dst[i >> 1u], 5u << sh);
    let old = atomicAdd(&dst[0], 1u);
    atomicSub(&dst[1], old);
    atomicStore(&dst[2], atomicLoad(&dst[3]));
    atomicMax(&cnt[0], -3);
    _ = atomicExchange(&cnt[1], 2);`),
		[]string{"uint dst[];", "atomicAnd(dst[(i >> 1u)], (~(0xffffu << (sh & 31u))));", "atomicOr(dst[(i >> 1u)], (5u << (sh & 31u)));",
			"uint old = atomicAdd(dst[0], 1u);", "atomicAdd(dst[1], 0u - old);", "atomicExchange(dst[2], atomicOr(dst[3], 0u));",
			"atomicMax(cnt[0], -3);", "atomicExchange(cnt[1], 2);"}, nil},
	{"workgroup memory and barriers", kernel(bufs+`var<workgroup> tile: array<f32, 128>;
var<workgroup> flag: u32;`, `
    tile[lid] = fin[lid];
    workgroupBarrier();
    if (lid == 0u) {
        flag = 1u;
    }
    storageBarrier();
    fout[lid] = tile[127u - lid] + f32(flag);`),
		[]string{"shared float tile[128];", "shared uint flag;",
			"for (uint tsr_i = gl_LocalInvocationIndex; tsr_i < 128u; tsr_i += 64u) {\n        tile[tsr_i] = 0.0;",
			"if (gl_LocalInvocationIndex == 0u) {\n        flag = 0u;", "memoryBarrierShared(); barrier();", "memoryBarrierBuffer(); barrier();"}, nil},
	{"functions", kernel(bufs+`
fn twice(x: f32) -> f32 { return later(x) * 2.0; }
fn later(x: f32) -> f32 { return x + 1.0; }
fn pair(a: u32, b: i32) -> vec2<u32> { return vec2<u32>(a, u32(b)); }
fn nothing() { }`, `
    nothing();
    fout[lid] = twice(fin[lid]);
    out[lid] = pair(lid, -1).y;`),
		[]string{"float twice(float x);", "float later(float x);", "uvec2 pair(uint a, int b);", "void nothing();",
			"float twice(float x) {\n    return (later(x) * 2.0);\n}", "return uvec2(a, uint(b));"}, nil},
	{"let and var inference", kernel(bufs+`
struct S { a: vec4<f32>, b: u32, }
@group(0) @binding(0) var<uniform> U: S;
fn mk() -> S { return S(vec4<f32>(1.0), 2u); }`, `
    let x = 1u;
    let y = 2.0;
    let z = vec2<i32>(1, 2).y;
    let w = U.a.xy;
    var k = 3;
    let q = mk();
    let r = q.a.zyx;
    let idx = fin[lid];
    let cmp = w < vec2<f32>(0.5);
    let mm = mat2x2<f32>(w, w) * w;
    let col = mat4x4<f32>()[2];
    var acc = 0.0;
    acc += y * f32(z + k) + r.x + idx + col.x;
    fout[lid] = select(acc, mm.x, cmp.x) ;
    out[lid] = x + q.b;`),
		[]string{"uint x = 1u;", "float y = 2.0;", "int z = ivec2(1, 2).y;", "vec2 w = U.a.xy;",
			"int k = 3;", "S q = mk();", "vec3 r = q.a.zyx;", "float idx = fin[lid];", "bvec2 cmp = lessThan(w, vec2(0.5));",
			"vec2 mm = (mat2(w, w) * w);", "vec4 col = mat4(0.0)[2];", "float acc = 0.0;", "acc = (acc + "}, nil},
	{"control flow", kernel(bufs, `
    var s = 0u;
    var i = 0u;
    loop {
        if (i >= 10u) {
            break;
        }
        i = i + 1u;
        if (i == 3u) {
            continue;
        } else if (i == 4u) {
            s = s + 2u;
        } else {
            s = s + 1u;
        }
    }
    for (var j = 0u; j < 4u; j++) {
        let j = 2u;
        s += j;
    }
    while (s > 100u) {
        s = s / 2u;
    }
    var n = 0u;
    loop {
        n++;
        if (n == 2u) {
            continue;
        }
        continuing {
            s = s + n;
            break if n >= 5u;
        }
    }
    out[lid] = s;`),
		[]string{"for (;;) {", "break;", "continue;", "} else if (i == 4u) {", "} else {",
			"for (uint j = 0u; j < 4u; j++) {\n        {\n            uint j = 2u;",
			"while (s > 100u) {", "s = (s / 2u);", "if (n == 2u) {\n            {\n                s = (s + n);\n                if (n >= 5u) {\n                    break;\n                }\n                continue;",
		}, nil},
	{"select", kernel(bufs+`
fn side() -> f32 { fout[0] = 1.0; return 2.0; }`, `
    let c = lid > 3u;
    let a = select(1.0, 2.0, c);
    let v = select(vec4<u32>(1u), vec4<u32>(2u), vec4<bool>(c, !c, c, c));
    let b = select(a, side(), c);
    let abstract = select(0, 1, c);
    out[lid] = v.y + u32(abstract);
    fout[lid] = a + b;`),
		[]string{"float a = (c ? 2.0 : 1.0);", "tsr_select_uvec4_bvec4(uvec4(1u), uvec4(2u), bvec4(c, (!c), c, c))",
			"uvec4 tsr_select_uvec4_bvec4(uvec4 f, uvec4 t, bvec4 c) { return uvec4(c.x ? t.x : f.x, c.y ? t.y : f.y, c.z ? t.z : f.z, c.w ? t.w : f.w); }",
			"float b = tsr_select_float_bool(a, side(), c);", "int abstract = (c ? 1 : 0);"}, nil},
	{"bitcasts and conversions", kernel(bufs, `
    let u = out[lid];
    let f = bitcast<f32>(u);
    let i = bitcast<i32>(u);
    let back = bitcast<u32>(f) + bitcast<u32>(i);
    let fi = bitcast<i32>(f);
    let fromi = bitcast<f32>(i);
    let conv = u32(f) + u32(i) + u32(3) ;
    let fl = f32(i) + f32(3) + fromi;
    let big = bitcast<i32>(0x80000000u);
    let v = vec4<f32>(vec2<f32>(1.0, 2.0), 3.0, f32(fi));
    out[lid] = back + conv;
    fout[lid] = fl + v.w + f32(big);`),
		[]string{"float f = uintBitsToFloat(u);", "int i = int(u);", "uint back = (floatBitsToUint(f) + uint(i));", "int fi = floatBitsToInt(f);",
			"float fromi = intBitsToFloat(i);", "uint conv = ((uint(f) + uint(i)) + 3u);", "float fl = ((float(i) + 3.0) + fromi);",
			"int big = int(0x80000000u);", "vec4 v = vec4(vec2(1.0, 2.0), 3.0, float(fi));"}, nil},
	{"literals and abstract constants", kernel(bufs+`
const N = 4u;
const HALF = 0.5;
const K: i32 = 7;
fn f32_inf() -> f32 { return bitcast<f32>(0x7f800000u); }`, `
    let a = 0xffu;
    let b: u32 = 4294967295;
    let c = 1.0 / 3.0 * fin[0];
    let d = -2147483648;
    let e = 2 * fin[1];
    let g = -f32_inf();
    let h = 1e3;
    let i = 2.5f;
    let j = 1f;
    let arr = array<u32, N>(1u, 2u, 3u, 4u);
    var k = HALF + f32(K);
    out[lid] = a + b + arr[N - 1u];
    fout[lid] = c + f32(d) + e + g + h + i + j + k;`),
		[]string{"uint a = 0xffu;", "uint b = 4294967295u;", "float c = (0.33333334 * fin[0]);", "int d = (-2147483647 - 1);",
			"float e = (2.0 * fin[1]);", "float g = (-f32_inf());", "float h = 1000.0;", "float i = 2.5;", "float j = 1.0;",
			"uint arr[4] = uint[4](1u, 2u, 3u, 4u);", "float k = (0.5 + float(K));", "const int K = 7;", "const uint N = 4u;"}, nil},
	{"builtins", `@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8, 4, 2)
fn entry(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
         @builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    out[li] = gid.x + l.y + wid.z + nwg.x;
}`,
		[]string{"layout(local_size_x = 8, local_size_y = 4, local_size_z = 2) in;", "void main() {", "uvec3 gid = gl_GlobalInvocationID;",
			"uvec3 l = gl_LocalInvocationID;", "uint li = gl_LocalInvocationIndex;", "uvec3 wid = gl_WorkGroupID;", "uvec3 nwg = gl_NumWorkGroups;"},
		[]string{"entry"}},
	{"math builtins", kernel(bufs, `
    let x = fin[lid];
    let u = out[lid];
    let i = i32(u);
    let a = inverseSqrt(x) + fma(x, x, 1.0) + round(x) + exp2(x) + log2(x) + trunc(x) + clamp(x, 0.0, 1.0);
    let b = min(x, 2.0) + max(x, -1.0) + abs(x) + sign(x) + floor(x) + ceil(x) + sqrt(x) + exp(x) + log(x);
    let c = sin(x) + cos(x) + tan(x) + pow(x, 2.0) + atan2(x, 1.0) + fract(x) + saturate(x) + mix(x, 1.0, 0.5);
    let d = countOneBits(u) + reverseBits(u) + firstLeadingBit(u) + firstTrailingBit(u) + extractBits(u, 1u, 3u) + insertBits(u, 1u, 2u, 3u);
    let e = u32(abs(i) + min(i, 3)) + max(u, 1u) + clamp(u, 1u, 9u) + abs(u);
    let v = vec3<f32>(x, 1.0, 2.0);
    let g = dot(v, v) + length(v) + distance(v, v) + cross(v, v).x + normalize(v).y;
    let h = all(v > vec3<f32>(0.0)) || any(v < vec3<f32>(0.0)) || all(true);
    out[lid] = d + u32(e) + select(0u, 1u, h);
    fout[lid] = a + b + c + g;`),
		[]string{"inversesqrt(x)", "fma(x, x, 1.0)", "roundEven(x)", "exp2(x)", "log2(x)", "trunc(x)", "clamp(x, 0.0, 1.0)",
			"min(x, 2.0)", "max(x, -1.0)", "atan(x, 1.0)", "clamp(x, 0.0, 1.0)", "mix(x, 1.0, 0.5)",
			"uint(bitCount(u))", "bitfieldReverse(u)", "((uint((abs(i) + min(i, 3))) + max(u, 1u)) + clamp(u, 1u, 9u)) + (u))", "uint(findMSB(u))", "uint(findLSB(u))", "bitfieldExtract(u, int(1u), int(3u))",
			"bitfieldInsert(u, 1u, int(2u), int(3u))", "abs(i)", "min(i, 3)", "max(u, 1u)", "clamp(u, 1u, 9u)", "all(greaterThan(v, vec3(0.0)))",
			"any(lessThan(v, vec3(0.0)))", "(true)", "cross(v, v).x"},
		[]string{"round(x)", "inverseSqrt", "countOneBits", "abs(u)"}},
	{"pointer parameters", kernel(bufs+`
fn bump(p: ptr<function, u32>, by: u32) {
    *p = *p + by;
}
fn bump2(p: ptr<function, u32>) {
    bump(p, 2u);
}`, `
    var v = 1u;
    bump(&v, 3u);
    bump2(&v);
    out[lid] = v;`),
		[]string{"void bump(inout uint p, uint by) {\n    p = (p + by);", "bump(v, 3u);", "bump(p, 2u);", "bump2(v);"}, nil},
	{"integer division and shifts keep WGSL semantics", kernel(bufs, `
    let a = out[0];
    let b = out[1];
    let i = i32(a);
    let j = i32(b);
    let q = a / b + a % b + a / 4u + a % 8u;
    let r = i / j + i % j + i / 2 + i / -1;
    let s = (a << b) + (a >> 3u) + u32(i >> b);
    var t = a;
    t /= b;
    t <<= b;
    let fm = fin[0] % fin[1];
    out[lid] = q + u32(r) + s + t;
    fout[lid] = fm;`),
		[]string{"tsr_div_u32(a, b)", "tsr_rem_u32(a, b)", "(a / 4u)", "(a % 8u)", "tsr_div_i32(i, j)", "tsr_rem_i32(i, j)", "(i / 2)",
			"tsr_div_i32(i, -1)", "(a << (b & 31u))", "(a >> 3u)", "(i >> (b & 31u))", "t = tsr_div_u32(t, b);", "t = (t << (b & 31u));",
			"float fm = tsr_fmod_float(fin[0], fin[1]);", "uint tsr_div_u32(uint a, uint b) { return b == 0u ? a : a / b; }",
			"float tsr_fmod_float(float a, float b) { return a - b * trunc(a / b); }"}, nil},
	{"GLSL reserved names are renamed", kernel(bufs+`
fn sample(input: u32) -> u32 { return input; }
struct filter { half: u32, }`, `
    let half = sample(1u);
    let output = filter(half);
    var gl_thing = 2u;
    var tsr_x = 3u;
    out[lid] = output.half + gl_thing + tsr_x;`),
		[]string{"uint sample_(uint input_)", "uint half_ = sample_(1u);", "filter_ output_ = filter_(half_);", "uint wgl_thing = 2u;",
			"uint wtsr_x = 3u;", "output_.half_"}, nil},
	{"bool operators", kernel(bufs+`
fn side() -> bool { out[0] = 1u; return true; }`, `
    let a = lid > 1u;
    let b = lid < 9u;
    let c = (a & b) | (a ^ b);
    let d = a & side();
    let e = !(a && b) || c;
    out[lid] = select(0u, 1u, c && d && e);`),
		[]string{"bool c = ((a && b) || (a != b));", "bool d = tsr_bool_and(a, side());", "bool e = ((!(a && b)) || c);"}, nil},
}

func translateOrFail(t *testing.T, src string) string {
	t.Helper()
	out, err := shaders.GLSL(src)
	if err != nil {
		t.Fatalf("GLSL: %v", err)
	}
	return out
}

func TestGLSLConstructs(t *testing.T) {
	outs := map[string]string{}
	for _, c := range glslCases {
		t.Run(c.name, func(t *testing.T) {
			out := translateOrFail(t, c.src)
			outs[c.name] = out
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(out, w) {
					t.Errorf("output has %q", w)
				}
			}
			if t.Failed() {
				t.Logf("GLSL:\n%s", out)
			}
		})
	}
	// Every snippet's translation also compiles.
	if t.Failed() {
		return
	}
	tool := glslang(t)
	dir := t.TempDir()
	var files []string
	byFile := map[string]string{}
	for _, c := range glslCases {
		f := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".comp")
		if err := os.WriteFile(f, []byte(outs[c.name]), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		byFile[f] = c.name
	}
	for f, msg := range frontEnd(tool, files) {
		t.Errorf("%s: %s\n%s", byFile[f], msg, excerpt(outs[byFile[f]], msg))
	}
	for _, f := range files {
		if msg := spirvCheck(tool, f); msg != "" {
			t.Errorf("%s: %s\n%s", byFile[f], msg, excerpt(outs[byFile[f]], msg))
		}
	}
}

// TestGLSLCatchesBadGLSL checks that the compile helpers report a shader
// glslang rejects, so a passing kernel table means something.
func TestGLSLCatchesBadGLSL(t *testing.T) {
	tool := glslang(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.comp")
	bad := filepath.Join(dir, "bad.comp")
	os.WriteFile(good, []byte("#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}\n"), 0o644)
	os.WriteFile(bad, []byte("#version 430\nlayout(local_size_x = 1) in;\nvoid main() { uint x = 1.5; }\n"), 0o644)
	got := frontEnd(tool, []string{good, bad})
	if _, ok := got[bad]; !ok || len(got) != 1 {
		t.Errorf("front end check: %v", got)
	}
	if msg := spirvCheck(tool, bad); msg == "" {
		t.Errorf("SPIR-V check accepted a bad shader")
	}
	if msg := spirvCheck(tool, good); msg != "" {
		t.Errorf("SPIR-V check rejected a good shader: %s", msg)
	}
}

func TestGLSLErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"switch", kernel(bufs, "\n    switch (lid) { default: {} }"), "line 9: unsupported: switch statements"},
		{"unknown function", kernel(bufs, "\n    out[0] = frobnicate(1u);"), "line 9: unsupported or unknown function frobnicate"},
		{"f16 type", kernel("@group(0) @binding(1) var<storage, read> h: array<f16>;", ""), "line 1: unsupported type f16"},
		{"f16 literal", kernel(bufs, "\n    let h = 1h;"), "line 9: f16 literals are not supported"},
		{"hex float", kernel(bufs, "\n    let h = 0x1p3;"), "hexadecimal float literals"},
		{"group 1", kernel("@group(1) @binding(0) var<storage, read> x: array<u32>;", ""), "line 1: x needs @group(0) @binding(N)"},
		{"no binding", kernel("@group(0) var<storage, read> x: array<u32>;", ""), "needs @group(0) @binding(N)"},
		{"uniform stride", kernel("struct U { a: array<u32, 4>, }\n@group(0) @binding(0) var<uniform> u: U;", ""), "u.a (array<u32, 4>): element stride 4 in WGSL but 16 in std140"},
		{"uniform struct offset", kernel("struct In { a: u32, }\nstruct U { x: u32, y: In, }\n@group(0) @binding(0) var<uniform> u: U;", ""), "line 3: u.y: offset 4 in WGSL but 16 in std140"},
		{"rename collision", kernel(bufs, "\n    let half = 1u;\n    let half_ = 2u;"), "cannot rename half to half_"},
		{"uniform mat2", kernel("struct U { a: mat2x2<f32>, }\n@group(0) @binding(0) var<uniform> u: U;", ""), "u.a (mat2x2<f32>): element stride 8 in WGSL but 16 in std140"},
		{"two entry points", kernel(bufs, "") + "@compute @workgroup_size(1) fn other() {}\n", "more than one compute entry point"},
		{"no entry point", bufs + "fn f() {}\n", "no @compute entry point"},
		{"pointer let", kernel(bufs, "\n    var v = 1u;\n    let p = &v;"), "line 10: pointer-typed let declarations are not supported"},
		{"undeclared", kernel(bufs, "\n    out[0] = nope;"), "line 9: undeclared identifier nope"},
		{"mismatch", kernel(bufs, "\n    let x: u32 = 1.5;"), "line 9: cannot initialize u32 with abstract-float"},
		{"mismatched operands", kernel(bufs, "\n    out[0] = lid + 1;\n    out[1] = lid + i32(1);"), "line 10: +: mismatched operands u32 and i32"},
		{"compare exchange", kernel("@group(0) @binding(1) var<storage, read_write> a: array<atomic<u32>>;",
			"\n    let r = atomicCompareExchangeWeak(&a[0], 0u, 1u);"), "line 5: unsupported or unknown function atomicCompareExchangeWeak"},
		{"vector integer division", kernel(bufs, "\n    let v = vec2<u32>(lid) / vec2<u32>(gid.xy);"), "line 9: integer vector '/' by a non-constant divisor"},
		{"override", "override n: u32 = 4u;\n" + kernel(bufs, ""), "line 1: unsupported: override declarations"},
		{"texture", kernel("@group(0) @binding(0) var t: texture_2d<f32>;", ""), "line 1: unsupported type texture_2d"},
		{"builtin", "@compute @workgroup_size(1)\nfn main(@builtin(subgroup_size) s: u32) {}\n", "unsupported builtin subgroup_size"},
		{"builtin type", "@compute @workgroup_size(1)\nfn main(@builtin(global_invocation_id) g: vec3<i32>) {}\n", "@builtin(global_invocation_id) has type vec3<u32>, not vec3<i32>"},
		{"assign to let", kernel(bufs, "\n    let x = 1u;\n    x = 2u;"), "line 10: cannot assign to let x"},
		{"assign to read-only", kernel(bufs, "\n    fin[0] = 1.0;"), "line 9: cannot assign to read-only fin"},
		{"workgroup size", "@compute @workgroup_size(2000)\nfn main() {}\n", "@workgroup_size argument 1 must be a constant in 1..1024"},
		{"shift by 40", kernel(bufs, "\n    out[0] = lid << 40u;"), "line 9: shift by 40"},
		{"negative to u32", kernel(bufs, "\n    let x: u32 = -1;"), "constant -1 out of u32 range"},
		{"struct attributes", "struct S { @size(16) a: u32, }\n" + kernel(bufs, ""), "line 1: unsupported struct member attribute @size"},
		{"unterminated", kernel(bufs, "\n    if (lid == 0u) {"), "unexpected end of input"},
		{"discard", kernel(bufs, "\n    discard;"), "line 9: unsupported: discard"},
		{"location", "@compute @workgroup_size(1)\nfn main(@location(0) x: f32) {}\n", "line 2: unsupported parameter attribute @location"},
		{"wrong arity", kernel(bufs, "\n    out[0] = max(lid);"), "line 9: max takes 2 arguments, not 1"},
		{"return type", kernel(bufs+"fn f() -> u32 { return 1.5; }", ""), "f returns u32, not abstract-float"},
		{"assign to parameter", kernel(bufs+"fn f(x: u32) -> u32 { x = 2u; return x; }", ""), "cannot assign to parameter x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := shaders.GLSL(c.src)
			if err == nil {
				t.Fatalf("no error; GLSL:\n%s", out)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "glsl: ") {
				t.Errorf("error %q lacks the glsl: prefix", err)
			}
		})
	}
}

// TestGLSLErrorQuotesLine checks that an error shows the offending line.
func TestGLSLErrorQuotesLine(t *testing.T) {
	_, err := shaders.GLSL(kernel(bufs, "\n    switch (lid) { default: {} }"))
	if err == nil || !strings.Contains(err.Error(), `"switch (lid) { default: {} }"`) {
		t.Errorf("error %v does not quote the line", err)
	}
}

func TestRenderGLSL(t *testing.T) {
	out, err := shaders.RenderGLSL("fill.wgsl", map[string]string{"DC": "u32"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "#version 430\n") || !strings.Contains(out, "void main()") {
		t.Errorf("unexpected output:\n%s", out)
	}
	if _, err := shaders.RenderGLSL("fill.wgsl", nil); err == nil {
		t.Errorf("render error not reported")
	}
	if _, err := shaders.RenderGLSL("common.wgsl", nil); err == nil || !strings.Contains(err.Error(), "no @compute entry point") {
		t.Errorf("include-only template: %v", err)
	}
}

// FuzzGLSL checks that the translator never panics and that whatever it
// accepts starts as a GLSL 4.30 compute shader. The seeds are rendered
// kernels and the unit-test snippets.
func FuzzGLSL(f *testing.F) {
	for _, c := range glslCases {
		f.Add(c.src)
	}
	for _, name := range []string{"unary.wgsl", "reduce.wgsl", "matmul.wgsl", "softmax.wgsl"} {
		for _, s := range kernelSpecs() {
			if s.name == name {
				if src, err := shaders.Render(s.name, s.vars); err == nil {
					f.Add(src)
				}
				break
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		out, err := shaders.GLSL(src)
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Errorf("translator panicked: %v", err)
		}
		if err == nil && !strings.HasPrefix(out, "#version 430\n") {
			t.Errorf("accepted output without #version 430")
		}
	})
}
