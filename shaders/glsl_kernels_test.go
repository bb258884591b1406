package shaders_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/shaders"
)

// kernelSpec is one specialisation of a kernel template, as the GPU
// planner (device/gpucore) asks for it.
type kernelSpec struct {
	name string
	vars map[string]string
}

func (s kernelSpec) String() string { return shaders.Key(s.name, s.vars) }

// The dtypes the GPU backends hold, and how they sit in storage; these
// mirror gpucore's storageVars, computeType, cvtFrom/cvtTo, accType and
// redName.
var gpuDTypes = []dtype.DType{dtype.F32, dtype.F16, dtype.I32, dtype.U8, dtype.Bool, dtype.I64}

func storageVars(v map[string]string, prefix string, dt dtype.DType, raw bool) {
	ty, conv, f16 := prefix+"C", prefix+"_ENC", "f32_to_f16"
	if prefix == "S" {
		conv, f16 = "S_DEC", "f16_to_f32"
	}
	switch {
	case dt == dtype.F16:
		v[prefix+"_PACKED"] = "1"
		if raw {
			v[ty], v[conv] = "u32", "u32"
		} else {
			v[ty], v[conv] = "f32", f16
		}
	case dt == dtype.I64:
		v[prefix+"_WIDE"] = "1"
	case raw:
		v[ty] = "u32"
	default:
		v[ty] = computeType(dt)
	}
}

func ewVars(dst, src dtype.DType, raw bool) map[string]string {
	v := map[string]string{}
	storageVars(v, "D", dst, raw)
	storageVars(v, "S", src, raw)
	return v
}

func computeType(dt dtype.DType) string {
	switch dt {
	case dtype.F32, dtype.F16:
		return "f32"
	case dtype.I32:
		return "i32"
	}
	return "u32"
}

func shaderExpr(s device.Shader, dt dtype.DType) string {
	switch dt {
	case dtype.F32, dtype.F16:
		return s.F32
	case dtype.I32:
		return s.I32
	}
	return s.U8
}

func cvtFrom(dt dtype.DType) string {
	switch dt {
	case dtype.F32, dtype.F16:
		return "f"
	case dtype.I32:
		return "i"
	case dtype.I64:
		return "l"
	}
	return "u"
}

func cvtTo(dt dtype.DType) string {
	switch dt {
	case dtype.Bool:
		return "b"
	case dtype.U8:
		return "u8"
	}
	return cvtFrom(dt)
}

func accType(dt dtype.DType) string {
	switch dt {
	case dtype.F32, dtype.F16:
		return "f32"
	case dtype.I32:
		return "i32"
	}
	return "u32"
}

func redName(op device.ReduceOp) string {
	switch op {
	case device.Sum, device.Mean:
		return "sum"
	case device.Prod:
		return "prod"
	case device.Max, device.Any:
		return "max"
	case device.Min, device.All:
		return "min"
	case device.ArgMax:
		return "argmax"
	}
	return "argmin"
}

const redWG = "64"

func with(v map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, x := range v {
		out[k] = x
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// kernelSpecs lists the specialisations the GPU backends use: every dtype
// variant of the elementwise kernels, every op expression of the op
// table, every reduction pass, the softmax passes and the matmul variants.
func kernelSpecs() []kernelSpec {
	var out []kernelSpec
	add := func(name string, v map[string]string) { out = append(out, kernelSpec{name, v}) }

	for _, dt := range gpuDTypes {
		v := map[string]string{}
		storageVars(v, "D", dt, true)
		add("fill.wgsl", v)
		add("where.wgsl", ewVars(dt, dt, true))
		for _, st := range gpuDTypes {
			raw := dt == st
			v := ewVars(dt, st, raw)
			switch {
			case raw && dt == dtype.I64:
				v["CVT"] = "cvt_l_l"
			case raw:
				v["CVT"] = "cvt_raw"
			default:
				v["CVT"] = "cvt_" + cvtFrom(st) + "_" + cvtTo(dt)
			}
			add("copy.wgsl", v)
		}
	}
	computeDTs := []dtype.DType{dtype.F32, dtype.F16, dtype.I32, dtype.U8, dtype.Bool}
	for _, op := range device.UnaryOps() {
		def, _ := op.Def()
		for _, dt := range computeDTs {
			res, err := op.Result("test", dt)
			if err != nil {
				continue
			}
			v := with(ewVars(res, dt, false), "OP_EXPR", shaderExpr(def.Shader, dt), "OP_T", computeType(dt), "OP_R", computeType(dt))
			if def.Predicate {
				v["OP_R"] = "u32"
			}
			add("unary.wgsl", v)
		}
	}
	for _, op := range device.BinaryOps() {
		def, _ := op.Def()
		for _, dt := range computeDTs {
			res, err := op.Result("test", dt, dt)
			if err != nil {
				continue
			}
			v := with(ewVars(res, dt, false), "OP_EXPR", shaderExpr(def.Shader, dt), "OP_T", computeType(dt), "OP_R", computeType(dt))
			if def.Compare {
				v["OP_R"] = "u32"
			}
			add("binary.wgsl", v)
		}
	}
	for _, op := range device.ReduceOps() {
		for _, dt := range computeDTs {
			outDT, err := op.Result("test", dt)
			if err != nil {
				continue
			}
			acc := accType(dt)
			base := map[string]string{"ACC": acc, "RED": redName(op) + "_" + acc, "WG": redWG}
			for _, serial := range []bool{false, true} {
				// A single pass, a first pass writing partial results, and a
				// second pass reading them.
				for _, pass := range []string{"single", "first", "second"} {
					v := with(base)
					nrw := 1
					if pass == "first" {
						v["DST_PARTIAL"] = "1"
						if op.IsArg() {
							nrw = 2
						}
					} else if !op.IsArg() {
						switch outDT {
						case dtype.F16:
							v["D_PACKED"] = "1"
						case dtype.F32:
							v["FIN"] = "fin_f32"
						case dtype.I32:
							v["FIN"] = "fin_i32"
						case dtype.U8:
							v["FIN"] = "fin_u8"
						case dtype.Bool:
							v["FIN"] = "fin_bool"
						}
						if op == device.Mean {
							v["MEAN"] = "1"
						}
					}
					if op.IsArg() {
						v["ARG"] = "1"
					}
					v["B_SRC"] = fmt.Sprint(nrw + 1)
					if pass == "second" {
						v["SRC_PARTIAL"] = "1"
						if op.IsArg() {
							v["B_SRCI"] = fmt.Sprint(nrw + 2)
						}
					} else if dt == dtype.F16 {
						v["S_PACKED"] = "1"
					}
					if serial {
						v["SERIAL"] = "1"
					}
					add("reduce.wgsl", v)
				}
			}
		}
	}
	// Integer Sum and Prod of I64 (gpucore.accType "w64"): (lo, hi) pairs
	// in sources, partial results and output.
	for _, op := range []device.ReduceOp{device.Sum, device.Prod} {
		for _, serial := range []bool{false, true} {
			for _, pass := range []string{"single", "first", "second"} {
				v := map[string]string{"ACC": "vec2<u32>", "RED": redName(op) + "_w64", "WG": redWG, "W64": "1", "B_SRC": "2"}
				switch pass {
				case "first":
					v["DST_PARTIAL"] = "1"
				case "second":
					v["SRC_PARTIAL"] = "1"
				}
				if serial {
					v["SERIAL"] = "1"
				}
				add("reduce.wgsl", v)
			}
		}
	}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16} {
		for _, log := range []string{"", "LOG"} {
			for _, sw := range [][]string{nil, {"SERIAL"}, {"STATS"}, {"EMIT"}} {
				v := with(ewVars(dt, dt, false), "WG", redWG)
				if sw != nil && sw[0] == "STATS" {
					v = with(ewVars(dtype.F32, dt, false), "WG", redWG)
				}
				if sw != nil && sw[0] == "EMIT" {
					delete(v, "WG")
				}
				for _, s := range sw {
					v[s] = "1"
				}
				if log != "" {
					v[log] = "1"
				}
				add("softmax.wgsl", v)
			}
		}
	}
	add("softmax.wgsl", map[string]string{"WG": redWG, "COMBINE": "1"})
	// attention.wgsl (gpucore.Planner.Attention): no mask, causal, a Bool
	// or a float mask.
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16} {
		for _, sw := range [][]string{nil, {"CAUSAL"}, {"EXPLICIT", "MASK_BOOL"}, {"EXPLICIT", "MASK_FLOAT"}} {
			v := with(ewVars(dt, dt, false), "WG", redWG)
			for _, s := range sw {
				v[s] = "1"
			}
			add("attention.wgsl", v)
		}
	}
	// norm.wgsl (gpucore.Planner.Norm): LayerNorm (CENTRED) with any of
	// weight and bias, RMSNorm with or without a weight.
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16} {
		for mask := 0; mask < 8; mask++ {
			v := with(ewVars(dt, dt, false), "WG", redWG)
			if mask&1 != 0 {
				v["CENTRED"] = "1"
			}
			if mask&2 != 0 {
				v["HAS_W"] = "1"
			}
			if mask&4 != 0 {
				if mask&1 == 0 {
					continue // RMSNorm has no bias
				}
				v["HAS_B"] = "1"
			}
			add("norm.wgsl", v)
		}
	}
	add("widen.wgsl", map[string]string{})
	add("narrow.wgsl", map[string]string{})

	for _, variant := range []string{"NAIVE", "REGBLOCK", "SHARED"} {
		for mask := 0; mask < 8; mask++ {
			base := map[string]string{variant: "1"}
			if mask&1 != 0 {
				base["TRANS_A"] = "1"
			}
			if mask&2 != 0 {
				base["TRANS_B"] = "1"
			}
			accum := mask&4 != 0
			if accum {
				base["ACCUM"] = "1"
			}
			// f32 operands; under REGBLOCK any of A, B, C may take vec4 loads.
			vecs := []int{0}
			if variant == "REGBLOCK" {
				vecs = []int{0, 1, 2, 3, 4, 5, 6, 7}
			}
			for _, vm := range vecs {
				v := with(base)
				for i, k := range []string{"VEC_A", "VEC_B", "VEC_C"} {
					if vm&(1<<i) != 0 {
						v[k] = "1"
					}
				}
				add("matmul.wgsl", v)
			}
			// f16 operands (packed); C is f16 too unless the product
			// accumulates in an f32 scratch.
			v := with(base, "A_PACKED", "1", "B_PACKED", "1")
			if !accum {
				add("matmul.wgsl", with(v, "C_PACKED", "1"))
			}
			if variant == "REGBLOCK" {
				add("matmul.wgsl", with(v, "VEC_C", "1"))
			} else {
				add("matmul.wgsl", v)
			}
		}
	}
	// Fused programs (gpucore.FusedKernel): one chaining every float op
	// with a constant, and one of six inputs (a scalar among them, so the
	// second walk is used), per float dtype.
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16} {
		p := device.Program{DType: dt, Steps: []device.Step{
			{Kind: device.StepInput, Input: 0}, {Kind: device.StepConst, Const: 0.5}}}
		for _, op := range device.UnaryOps() {
			if _, err := op.Result("test", dt); err == nil && !op.IsPredicate() {
				p.Steps = append(p.Steps, device.Step{Kind: device.StepUnary, Unary: op, A: len(p.Steps) - 1})
			}
		}
		for _, op := range device.BinaryOps() {
			if _, err := op.Result("test", dt, dt); err == nil && !op.IsComparison() {
				p.Steps = append(p.Steps, device.Step{Kind: device.StepBinary, Binary: op, A: len(p.Steps) - 1, B: 1})
			}
		}
		k := gpucore.FusedKernel(p, []bool{false})
		add(k.Template, k.Vars)
		p = device.Program{DType: dt}
		for i := range 6 {
			p.Steps = append(p.Steps, device.Step{Kind: device.StepInput, Input: i})
			if i > 0 {
				p.Steps = append(p.Steps, device.Step{Kind: device.StepBinary, Binary: device.Mul, A: len(p.Steps) - 2, B: len(p.Steps) - 1})
			}
		}
		k = gpucore.FusedKernel(p, []bool{false, false, true, false, false, false})
		add(k.Template, k.Vars)
	}
	// gather.wgsl (gpucore.Planner.Gather, ScatterAdd), scan.wgsl (Scan),
	// sort.wgsl (Sort: SN a power of two up to gpucore.SortRowMax, WG
	// min(64, SN); the BLOCK, MERGE and EMIT passes of long rows).
	for _, mode := range []string{"", "ATOMIC", "ATOMIC FLOAT", "LOOP"} {
		for _, i64 := range []bool{false, true} {
			v := map[string]string{}
			for _, m := range strings.Fields(mode) {
				v[m] = "1"
			}
			if i64 {
				v["IDX64"] = "1"
			}
			add("gather.wgsl", v)
		}
	}
	for _, kind := range []string{"FLOAT", "SIGNED", "WIDE", ""} {
		for _, prod := range []bool{false, true} {
			v := map[string]string{}
			if kind != "" {
				v[kind] = "1"
			}
			if prod {
				v["PROD"] = "1"
			}
			add("scan.wgsl", v)
		}
	}
	for _, kind := range []string{"KIND_F", "KIND_I", ""} {
		for _, desc := range []bool{false, true} {
			for sn := 2; sn <= 2048; sn *= 2 {
				v := map[string]string{"SN": strconv.Itoa(sn), "WG": strconv.Itoa(min(64, sn))}
				if kind != "" {
					v[kind] = "1"
				}
				if desc {
					v["DESC"] = "1"
				}
				add("sort.wgsl", v)
			}
			v := map[string]string{"BLOCK": "1", "SN": "2048", "WG": "64"}
			if kind != "" {
				v[kind] = "1"
			}
			if desc {
				v["DESC"] = "1"
			}
			add("sort.wgsl", v)
		}
	}
	add("sort.wgsl", map[string]string{"MERGE": "1"})
	add("sort.wgsl", map[string]string{"EMIT": "1"})
	return out
}

// entryTemplates lists the templates that hold a compute entry point (the
// others are include-only helpers).
func entryTemplates(t *testing.T) []string {
	var out []string
	for _, name := range shaders.Names() {
		src, err := shaders.Raw(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(src, "@compute") {
			out = append(out, name)
		}
	}
	return out
}

func TestGLSLSpecsCoverEveryKernel(t *testing.T) {
	covered := map[string]int{}
	for _, s := range kernelSpecs() {
		covered[s.name]++
	}
	for _, name := range entryTemplates(t) {
		if covered[name] == 0 {
			t.Errorf("kernel template %s has no specialisation in kernelSpecs (glsl_kernels_test.go): add the ones its planner uses", name)
		}
	}
}

// translated is one distinct GLSL translation and the specialisations that
// produce it.
type translated struct {
	glsl  string
	specs []string
}

func translateAll(t *testing.T) []*translated {
	t.Helper()
	byText := map[[32]byte]*translated{}
	var order []*translated
	n := 0
	for _, s := range kernelSpecs() {
		src, err := shaders.Render(s.name, s.vars)
		if err != nil {
			// Rendering is the renderer's business (shaders_test.go); a
			// specialisation it refuses is reported, not translated.
			t.Errorf("%s: render: %v", s, err)
			continue
		}
		out, err := shaders.GLSL(src)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		n++
		if !strings.HasPrefix(out, "#version 430\n") {
			t.Errorf("%s: output does not start with #version 430", s)
		}
		again, _ := shaders.GLSL(src)
		if again != out {
			t.Errorf("%s: translation is not deterministic", s)
		}
		h := sha256.Sum256([]byte(out))
		tr := byText[h]
		if tr == nil {
			tr = &translated{glsl: out}
			byText[h] = tr
			order = append(order, tr)
		}
		tr.specs = append(tr.specs, s.String())
	}
	t.Logf("%d specialisations translated, %d distinct GLSL shaders", n, len(order))
	return order
}

// glslang finds glslangValidator, skipping the test when it is missing
// unless TESSERA_REQUIRE_GLSLANG=1.
func glslang(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("glslangValidator")
	if err != nil {
		if os.Getenv("TESSERA_REQUIRE_GLSLANG") == "1" {
			t.Fatal("glslangValidator not found and TESSERA_REQUIRE_GLSLANG=1 (apt-get install glslang-tools, or run ci/install-deps.sh)")
		}
		t.Skip("glslangValidator not found (Debian package glslang-tools); set TESSERA_REQUIRE_GLSLANG=1 to require it")
	}
	return p
}

// frontEnd checks GLSL files with glslangValidator's GLSL 4.30 front end,
// many files per run (the front end does not link them), and returns the
// complaint about each file it rejects.
func frontEnd(tool string, files []string) map[string]string {
	bad := map[string]string{}
	for len(files) > 0 {
		n := min(len(files), 64)
		chunk := files[:n]
		files = files[n:]
		if err := exec.Command(tool, append([]string{"-S", "comp"}, chunk...)...).Run(); err == nil {
			continue
		}
		for _, f := range chunk { // find the culprits one by one
			if out, err := exec.Command(tool, "-S", "comp", f).CombinedOutput(); err != nil {
				bad[f] = fmt.Sprintf("glslangValidator -S comp: %v\n%s", err, out)
			}
		}
	}
	return bad
}

// spirvCheck compiles a GLSL file to SPIR-V under OpenGL semantics and,
// when spirv-val is installed, validates that for OpenGL 4.5. It returns
// the tools' complaint, or "" when the shader is accepted.
func spirvCheck(tool, comp string) string {
	spv := strings.TrimSuffix(comp, ".comp") + ".spv"
	if out, err := exec.Command(tool, "-S", "comp", "--target-env", "opengl", "-o", spv, comp).CombinedOutput(); err != nil {
		return fmt.Sprintf("glslangValidator -S comp --target-env opengl: %v\n%s", err, out)
	}
	if val, err := exec.LookPath("spirv-val"); err == nil {
		if out, err := exec.Command(val, "--target-env", "opengl4.5", spv).CombinedOutput(); err != nil {
			return fmt.Sprintf("spirv-val --target-env opengl4.5: %v\n%s", err, out)
		}
	}
	return ""
}

var glslangLine = regexp.MustCompile(`ERROR: [^:]*:(\d+):`)

// excerpt shows the GLSL lines a compiler complaint names.
func excerpt(glsl, complaint string) string {
	lines := strings.Split(glsl, "\n")
	var sb strings.Builder
	seen := map[int]bool{}
	for _, m := range glslangLine.FindAllStringSubmatch(complaint, 8) {
		n, _ := strconv.Atoi(m[1])
		for i := n - 2; i <= n+1; i++ {
			if i >= 1 && i <= len(lines) && !seen[i] {
				seen[i] = true
				fmt.Fprintf(&sb, "%5d  %s\n", i, lines[i-1])
			}
		}
	}
	return sb.String()
}

// TestGLSLKernelsCompile translates every specialisation and compiles each
// distinct result with glslangValidator: the GLSL 4.30 front end for all,
// then SPIR-V generation under OpenGL semantics (--target-env opengl) and
// spirv-val for all, or for every fourth under -short.
func TestGLSLKernelsCompile(t *testing.T) {
	all := translateAll(t)
	if t.Failed() {
		return
	}
	tool := glslang(t)
	dir := t.TempDir()
	files := make([]string, len(all))
	for i, tr := range all {
		files[i] = filepath.Join(dir, fmt.Sprintf("k%03d.comp", i))
		if err := os.WriteFile(files[i], []byte(tr.glsl), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	failed := 0
	report := func(i int, msg string) {
		failed++
		if failed <= 5 {
			tr := all[i]
			t.Errorf("%s (and %d more specialisations with the same GLSL):\n%s\n%s", tr.specs[0], len(tr.specs)-1, msg, excerpt(tr.glsl, msg))
		}
	}
	bad := frontEnd(tool, files)
	for i, f := range files {
		if msg, ok := bad[f]; ok {
			report(i, msg)
		}
	}

	step := 1
	if testing.Short() {
		step = 4
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	jobs := make(chan int)
	for w := 0; w < min(runtime.NumCPU(), 4); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if msg := spirvCheck(tool, files[i]); msg != "" {
					mu.Lock()
					report(i, msg)
					mu.Unlock()
				}
			}
		}()
	}
	checked := 0
	for i := range files {
		if _, isBad := bad[files[i]]; !isBad && i%step == 0 {
			jobs <- i
			checked++
		}
	}
	close(jobs)
	wg.Wait()
	if failed > 0 {
		t.Errorf("%d of %d distinct GLSL shaders were rejected", failed, len(all))
		return
	}
	t.Logf("all %d distinct GLSL shaders pass the GLSL 4.30 front end; %d compiled to SPIR-V for OpenGL and validated", len(all), checked)
}

// TestGLSLOneSource guards "one kernel source": GLSL is only ever produced
// from the WGSL templates by the translator, never kept beside them. It
// fails on any GLSL shader file in the module, and on a #version line in
// non-test Go code outside this package.
func TestGLSLOneSource(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found above shaders/: %v", err)
	}
	shaderExt := map[string]bool{".glsl": true, ".comp": true, ".vert": true, ".frag": true, ".geom": true, ".tesc": true, ".tese": true, ".glslc": true}
	version := []byte("#version ")
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if shaderExt[filepath.Ext(path)] {
			t.Errorf("%s: a GLSL shader file in the tree; kernels live only in shaders/*.wgsl and GLSL is generated by shaders.GLSL / RenderGLSL", rel)
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && filepath.Dir(rel) != "shaders" {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if bytes.Contains(b, version) {
				t.Errorf("%s: contains a GLSL #version line; write kernels in shaders/*.wgsl and translate them with shaders.RenderGLSL", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The templates themselves are WGSL only.
	for _, name := range shaders.Names() {
		src, _ := shaders.Raw(name)
		if strings.Contains(src, "#version") {
			t.Errorf("%s contains GLSL", name)
		}
	}
}

// TestGLSLSpecCount reports the size of the table (and keeps it from
// silently shrinking to nothing).
func TestGLSLSpecCount(t *testing.T) {
	count := map[string]int{}
	for _, s := range kernelSpecs() {
		count[s.name]++
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-14s %d specialisations", n, count[n])
	}
	if len(kernelSpecs()) < 100 {
		t.Errorf("only %d specialisations", len(kernelSpecs()))
	}
}
