//#if FUSED_INPUT
// fused.wgsl, input part: input K at binding B and its loader, which
// widens f16 (S_PACKED) to f32. Included once per input by the kernel
// below, with FUSED_INPUT=1.
//#if S_PACKED
@group(0) @binding({{B}}) var<storage, read> in{{K}}: array<u32>;

fn load_in{{K}}(p: i32) -> f32 {
    let q = u32(p);
    return f16_to_f32(half_at(in{{K}}[q >> 1u], q));
}
//#else
@group(0) @binding({{B}}) var<storage, read> in{{K}}: array<f32>;

fn load_in{{K}}(p: i32) -> f32 {
    return in{{K}}[p];
}
//#endif
//#else
// fused.wgsl: a fused elementwise program (device.Program) as one kernel,
// specialised by gpucore.FusedKernel from the program's structure only.
//
// FUNCS holds one function per distinct op of the program (un_N(x) or
// bin_N(a, b), whose body is the op's shader expression from the op
// table), BODY one let per step (v0, v1, ...: an input load, a constant
// from P.c, or an op applied to earlier steps), RESULT the last step. IN0
// .. IN5 declare the inputs (bindings 2..7; the output is binding 1).
// Positions come from two walks: P.wa covers the output and up to three
// walked inputs, P.wb (WALK_B) three more; an input read at one position
// (a scalar) is not walked. F16 programs (S_PACKED, D_PACKED) compute in
// f32 and round every step's result to f16 (r16), as the unfused
// operations do. With REDUCE the program is the prologue of a reduction
// (gpucore.Planner.FusedReduce): each work item folds a chunk of one
// output's elements into a partial result instead of storing them.
//#include common.wgsl
//#include math.wgsl

// The parameter block: gpucore.FusedParams, whose declaration this must
// equal (TestFusedParamsWGSL, device/gpucore).
struct FParams {
    n: u32,
    nred: u32,
    nchunk: u32,
    chunk: u32,
    off: array<vec4<i32>, 2>,
    c: array<vec4<f32>, 16>,
    wa: Walk4,
    wb: Walk4,
}

@group(0) @binding(0) var<uniform> P: FParams;

//#include index.wgsl FN=walk_a W=P.wa N=4 N4=1
//#if WALK_B
//#include index.wgsl FN=walk_b W=P.wb N=4 N4=1
//#endif
//#if REDUCE
// A fused reduction writes one partial result (an f32 accumulator of the
// reduction RED, reduce_ops.wgsl) per work item; reduce.wgsl combines them.
@group(0) @binding(1) var<storage, read_write> red_out: array<f32>;
//#include reduce_ops.wgsl
//#else
//#include ew_dst.wgsl
//#endif
//#if IN0
//#include fused.wgsl FUSED_INPUT=1 K=0 B=2
//#endif
//#if IN1
//#include fused.wgsl FUSED_INPUT=1 K=1 B=3
//#endif
//#if IN2
//#include fused.wgsl FUSED_INPUT=1 K=2 B=4
//#endif
//#if IN3
//#include fused.wgsl FUSED_INPUT=1 K=3 B=5
//#endif
//#if IN4
//#include fused.wgsl FUSED_INPUT=1 K=4 B=6
//#endif
//#if IN5
//#include fused.wgsl FUSED_INPUT=1 K=5 B=7
//#endif
//#if S_PACKED

fn r16(x: f32) -> f32 {
    return f16_to_f32(f32_to_f16(x));
}
//#endif

{{FUNCS}}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= P.n) {
        return;
    }
//#if REDUCE
    // Work item g folds a chunk of output o's elements, which are
    // consecutive in the walk (kept axes first, reduced axes last).
    let o = g / P.nchunk;
    let start = (g % P.nchunk) * P.chunk;
    let end = min(start + P.chunk, P.nred);
    var acc = {{RED}}_ident();
    for (var r = start; r < end; r = r + 1u) {
        let e = o * P.nred + r;
        let pa = walk_a(e);
//#if WALK_B
        let pb = walk_b(e);
//#endif
{{BODY}}
        acc = {{RED}}_comb(acc, {{RESULT}});
    }
    red_out[g] = acc;
//#else
    let pa = walk_a(g);
//#if WALK_B
    let pb = walk_b(g);
//#endif
{{BODY}}
    store_dst(P.off[0][0] + pa[0], {{RESULT}});
//#endif
}
//#endif
