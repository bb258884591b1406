//go:build cgo && linux

package gl

import (
	"time"
	"unsafe"

	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/shaders"
)

// program returns the GL program of a kernel template specialised by vars,
// translating the WGSL kernel to GLSL (shaders.RenderGLSL: the one kernel
// source) and compiling it on first use. Programs are cached by
// specialisation, never by shape.
func (g *gpu) program(op string, k *gpucore.Kernel) (uint32, error) {
	key := shaders.Key(k.Template, k.Vars)
	if p, ok := g.programs[key]; ok {
		return p, nil
	}
	src, err := shaders.RenderGLSL(k.Template, k.Vars)
	if err != nil {
		return 0, errs.Wrap("gl", op, errs.ErrUnsupported, err, "cannot build kernel %s", key)
	}
	p, log := glProgram(src)
	if p == 0 {
		if err := g.checkGL(op); err != nil && g.lost.Load() {
			return 0, err
		}
		return 0, errs.New("gl", op, errs.ErrUnsupported, "kernel %s does not compile: %s", key, log)
	}
	g.stats.programs.Add(1)
	g.programs[key] = p
	return p, nil
}

// dropProgram deletes a cached program (OpenGL keeps it until the
// dispatches issued with it have run).
func (g *gpu) dropProgram(k *gpucore.Kernel) {
	key := shaders.Key(k.Template, k.Vars)
	if p, ok := g.programs[key]; ok {
		glDeleteProgram(p)
		delete(g.programs, key)
	}
}

// uniform writes a parameter block to the uniform arena and binds it at
// binding 0. A full arena is orphaned: it gets fresh storage while the
// dispatches already issued keep reading the old.
func (g *gpu) uniform(params any) {
	g.packed = gpucore.Pack(g.packed[:0], params)
	size := (uint64(len(g.packed)) + 15) &^ 15
	for uint64(len(g.packed)) < size {
		g.packed = append(g.packed, 0)
	}
	off := (g.arenaOff + g.lim.uniformAlign - 1) &^ (g.lim.uniformAlign - 1)
	if off+size > arenaSize {
		glOrphan(g.arena, arenaSize, glStreamDraw)
		off = 0
	}
	glWrite(g.arena, off, g.packed)
	glBindRange(glUniformBuffer, 0, g.arena, off, size)
	g.arenaOff = off + size
}

// run executes a plan: it allocates the plan's scratch buffers, issues its
// dispatches in order with a storage barrier after each (a dispatch reads
// what the one before wrote), and frees the scratch (OpenGL orders any
// reuse after those dispatches).
func (g *gpu) run(op string, pl *gpucore.Plan) error {
	temps := make([]*gbuf, 0, len(pl.Scratch))
	defer func() {
		for _, t := range temps {
			g.freeTemp(t)
		}
	}()
	for _, s := range pl.Scratch {
		t, err := g.alloc(op, s.DT, s.N, true)
		if err != nil {
			return err
		}
		temps = append(temps, t)
	}
	var spec *gpucore.Kernel
	var prog uint32
	for _, d := range pl.Steps {
		if d.Grid[0] == 0 || d.Grid[1] == 0 || d.Grid[2] == 0 {
			continue
		}
		if d.Kernel != spec {
			var err error
			if prog, err = g.program(op, d.Kernel); err != nil {
				return err
			}
			spec = d.Kernel
			glUse(prog)
		}
		skip := false
		for j, b := range d.Binds {
			buf := resolve(b.Buf, temps)
			if buf.id == 0 || b.Size == 0 {
				skip = true // an empty operand: nothing to compute
				break
			}
			glBindRange(glShaderStorageBuffer, uint32(j+1), buf.id, b.Off, b.Size)
		}
		if skip {
			continue
		}
		g.uniform(d.Params)
		glDispatch(d.Grid[0], d.Grid[1], d.Grid[2])
		glBarrier(glShaderStorageBarrierBit)
		g.dirty = true
		g.stats.dispatches.Add(1)
		if g.sinceFence++; g.sinceFence >= fenceEvery {
			if err := g.backPressure(op); err != nil {
				return err
			}
		}
	}
	return g.checkGL(op)
}

// resolve maps a planned buffer to the device buffer it stands for.
func resolve(b gpucore.Buffer, temps []*gbuf) *gbuf {
	if s, ok := b.(*gpucore.Scratch); ok {
		return temps[s.Index]
	}
	return b.(*gbuf)
}

// bufferBarrier makes shader writes visible to glBufferSubData,
// glGetBufferSubData and glCopyBufferSubData (and orders those writes
// after the shaders' reads) when dispatches ran since the last one.
func (g *gpu) bufferBarrier() {
	if g.dirty {
		glBarrier(glBufferUpdateBarrierBit)
		g.dirty = false
	}
}

// backPressure fences the work issued so far and, with too many fences in
// flight, waits for the oldest, so the host does not run far ahead of the
// GPU (and orphaned uniform storage stays bounded).
func (g *gpu) backPressure(op string) error {
	g.sinceFence = 0
	g.fences = append(g.fences, glFence())
	for len(g.fences) > maxFences {
		f := g.fences[0]
		g.fences = g.fences[1:]
		err := g.waitFence(op, f)
		glDeleteSync(f)
		if err != nil {
			return err
		}
	}
	return nil
}

// waitIdle waits, bounded by the device's timeout, until every command
// issued so far has finished.
func (g *gpu) waitIdle(op string) error {
	g.bufferBarrier()
	f := glFence()
	err := g.waitFence(op, f)
	glDeleteSync(f)
	for _, old := range g.fences {
		glDeleteSync(old) // signalled before f
	}
	g.fences = g.fences[:0]
	g.sinceFence = 0
	return err
}

// waitSlice is the one bounded wait on a fence (glClientWaitSync); tests
// replace it to simulate a GPU that never finishes or a failed wait.
var waitSlice = glWaitFence

// waitFence waits for a fence in slices of a millisecond until it is
// signalled or the timeout passes; a timeout or a failed wait marks the
// device lost. Never an unbounded wait.
func (g *gpu) waitFence(op string, f unsafe.Pointer) error {
	if f == nil {
		if err := g.checkGL(op); err != nil {
			return err
		}
		g.markLost("glFenceSync failed")
		return g.lostError(op)
	}
	deadline := time.Now().Add(g.timeout)
	for {
		switch waitSlice(f, uint64(time.Millisecond)) {
		case glAlreadySignaled, glConditionSatisfied:
			return nil
		case glTimeoutExpired:
			if time.Now().After(deadline) {
				g.markLost("timed out waiting for the GPU after " + g.timeout.String())
				return g.lostError(op)
			}
		default:
			if err := g.checkGL(op); err != nil && g.lost.Load() {
				return err
			}
			g.markLost("glClientWaitSync failed")
			return g.lostError(op)
		}
	}
}

// Sync waits for all issued work and reports a GL error or the loss of the
// context. (OpenGL reports errors of issued work through the error flag,
// which every call drains, so there is nothing else to report.)
func (g *gpu) Sync() error {
	return g.call("Sync", func() error {
		if err := g.waitIdle("Sync"); err != nil {
			return err
		}
		if st := glResetStatus(); st != 0 {
			g.markLost("the OpenGL context was reset")
			return g.lostError("Sync")
		}
		return g.checkGL("Sync")
	})
}
