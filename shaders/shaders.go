// Package shaders holds tessera's WGSL compute kernels and the tiny text
// generator that specialises them per dtype and operation.
//
// Kernels live in *.wgsl files embedded in the binary, so no WGSL is written
// inside Go strings. A template is plain WGSL plus three line-oriented
// directives and one inline form:
//
//	//#include other.wgsl   replaced by the named file (rendered the same way)
//	//#include f.wgsl K=V   the same, with K set to V while rendering f.wgsl
//	                        (any number of K=V arguments), so one file can
//	                        be included several times, e.g. under several
//	                        function names
//	//#if NAME  / //#if !NAME / //#elif NAME / //#else / //#endif
//	                        keep or drop lines; NAME is true when its value is
//	                        set and is neither "", "0" nor "false"
//	{{NAME}}                replaced by the value of NAME
//
// A placeholder with no value, an unbalanced conditional or a missing include
// is an error, so a typo never produces a silently different kernel.
package shaders

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.wgsl
var files embed.FS

// Names lists the embedded WGSL files, sorted; tests render every one.
func Names() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".wgsl") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// Raw returns the unrendered text of the named file.
func Raw(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("shaders: unknown file %q", name)
	}
	return string(b), nil
}

// Render returns the named template with includes, conditionals and
// placeholders resolved against vars.
func Render(name string, vars map[string]string) (string, error) {
	var sb strings.Builder
	if err := render(&sb, name, vars, 0); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// Key returns a stable text naming a specialisation (the template and its
// variables), for caching compiled pipelines.
func Key(name string, vars map[string]string) string {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteString(name)
	for _, k := range keys {
		sb.WriteString(";")
		sb.WriteString(k)
		sb.WriteString("=")
		sb.WriteString(vars[k])
	}
	return sb.String()
}

func truthy(vars map[string]string, name string) bool {
	neg := strings.HasPrefix(name, "!")
	name = strings.TrimPrefix(name, "!")
	v := vars[name]
	t := v != "" && v != "0" && v != "false"
	return t != neg
}

type cond struct {
	taken  bool // some branch of this if/elif chain was already kept
	active bool // lines are currently kept
	parent bool // the enclosing block is kept
	inElse bool
}

func render(sb *strings.Builder, name string, vars map[string]string, depth int) error {
	if depth > 8 {
		return fmt.Errorf("shaders: %s: includes nested too deeply", name)
	}
	src, err := Raw(name)
	if err != nil {
		return err
	}
	var stack []cond
	keep := func() bool { return len(stack) == 0 || stack[len(stack)-1].active }
	for i, line := range strings.Split(src, "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "//#") {
			fields := strings.Fields(strings.TrimPrefix(trim, "//#"))
			if len(fields) == 0 {
				return fmt.Errorf("shaders: %s:%d: empty directive", name, i+1)
			}
			switch fields[0] {
			case "include":
				if len(fields) < 2 {
					return fmt.Errorf("shaders: %s:%d: include needs one file", name, i+1)
				}
				if keep() {
					iv, err := includeVars(vars, fields[2:])
					if err != nil {
						return fmt.Errorf("shaders: %s:%d: %v", name, i+1, err)
					}
					if err := render(sb, fields[1], iv, depth+1); err != nil {
						return err
					}
				}
			case "if":
				if len(fields) != 2 {
					return fmt.Errorf("shaders: %s:%d: if needs one name", name, i+1)
				}
				p := keep()
				t := truthy(vars, fields[1])
				stack = append(stack, cond{taken: t, active: p && t, parent: p})
			case "elif":
				if len(stack) == 0 || stack[len(stack)-1].inElse || len(fields) != 2 {
					return fmt.Errorf("shaders: %s:%d: misplaced elif", name, i+1)
				}
				c := &stack[len(stack)-1]
				t := !c.taken && truthy(vars, fields[1])
				c.active = c.parent && t
				c.taken = c.taken || t
			case "else":
				if len(stack) == 0 || stack[len(stack)-1].inElse {
					return fmt.Errorf("shaders: %s:%d: misplaced else", name, i+1)
				}
				c := &stack[len(stack)-1]
				c.active = c.parent && !c.taken
				c.taken, c.inElse = true, true
			case "endif":
				if len(stack) == 0 {
					return fmt.Errorf("shaders: %s:%d: endif without if", name, i+1)
				}
				stack = stack[:len(stack)-1]
			default:
				return fmt.Errorf("shaders: %s:%d: unknown directive %q", name, i+1, fields[0])
			}
			continue
		}
		if !keep() {
			continue
		}
		out, err := substitute(line, vars)
		if err != nil {
			return fmt.Errorf("shaders: %s:%d: %v", name, i+1, err)
		}
		sb.WriteString(out)
		sb.WriteByte('\n')
	}
	if len(stack) != 0 {
		return fmt.Errorf("shaders: %s: %d unterminated if", name, len(stack))
	}
	return nil
}

// includeVars returns vars with the include's K=V arguments added.
func includeVars(vars map[string]string, args []string) (map[string]string, error) {
	if len(args) == 0 {
		return vars, nil
	}
	out := make(map[string]string, len(vars)+len(args))
	for k, v := range vars {
		out[k] = v
	}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("include argument %q is not NAME=VALUE", a)
		}
		out[k] = v
	}
	return out, nil
}

func substitute(line string, vars map[string]string) (string, error) {
	if !strings.Contains(line, "{{") {
		return line, nil
	}
	var sb strings.Builder
	for {
		i := strings.Index(line, "{{")
		if i < 0 {
			sb.WriteString(line)
			return sb.String(), nil
		}
		j := strings.Index(line[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unterminated placeholder")
		}
		key := line[i+2 : i+j]
		v, ok := vars[key]
		if !ok {
			return "", fmt.Errorf("no value for placeholder {{%s}}", key)
		}
		sb.WriteString(line[:i])
		sb.WriteString(v)
		line = line[i+j+2:]
	}
}
