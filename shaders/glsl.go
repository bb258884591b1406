package shaders

import (
	"fmt"
	"strings"
)

// GLSL translates a rendered WGSL compute kernel (the output of Render)
// into an equivalent GLSL 4.30 compute shader, so every GPU backend runs
// kernels from the one WGSL source and no kernel is kept as a second,
// hand-written copy.
//
// The translator parses and type-checks the WGSL subset tessera's kernels
// use, infers the type of every untyped let/var from its initializer, and
// spells the result in GLSL with WGSL's semantics kept where GLSL's
// differ: integer division and remainder by zero, shifts by 32 or more,
// zero-initialized variables and workgroup memory, component-wise select,
// round-half-to-even. Bindings keep their numbers: @binding(N) becomes
// binding = N of a std140 uniform block (var<uniform>) or a std430 shader
// storage block (var<storage>; readonly when read). A construct outside
// the subset is an error naming its line, never a silently different
// shader.
func GLSL(wgsl string) (out string, err error) {
	defer func() {
		// A translator bug must not take the caller down or pass for a
		// translation.
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("glsl: internal error: %v", r)
		}
	}()
	m, err := parseModule(wgsl)
	if err != nil {
		return "", glslError(wgsl, err)
	}
	tr, err := newTranslator(m)
	if err != nil {
		return "", glslError(wgsl, err)
	}
	if out, err = tr.module(); err != nil {
		return "", glslError(wgsl, err)
	}
	return out, nil
}

// RenderGLSL renders the named template with vars (see Render) and
// translates the result with GLSL.
func RenderGLSL(name string, vars map[string]string) (string, error) {
	src, err := Render(name, vars)
	if err != nil {
		return "", err
	}
	out, err := GLSL(src)
	if err != nil {
		return "", fmt.Errorf("shaders: %s: %w", Key(name, vars), err)
	}
	return out, nil
}

// glslError adds the offending source line to a translation error.
func glslError(src string, err error) error {
	if le, ok := err.(*lineError); ok {
		lines := strings.Split(src, "\n")
		if le.line >= 1 && le.line <= len(lines) {
			return fmt.Errorf("glsl: line %d: %s: %q", le.line, le.msg, strings.TrimSpace(lines[le.line-1]))
		}
		return fmt.Errorf("glsl: %w", err)
	}
	return fmt.Errorf("glsl: %w", err)
}
