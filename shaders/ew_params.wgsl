// ew_params.wgsl: the uniform every elementwise kernel reads (Params, from
// gpucore.EWParams) and the positions of its operands.
//
// Up to four operands (0 = destination, 1..3 = sources) share one logical
// shape of rank <= 8 (the host splits higher ranks into several
// dispatches), described by the walk P.w; P.off[k] is operand k's storage
// position of element 0, relative to the start of its binding window.

@group(0) @binding(0) var<uniform> P: Params;

//#include index.wgsl FN=walk_pos W=P.w N=4 N4=1

// Storage positions of logical element g (row-major order) in all operands.
fn positions(g: u32) -> vec4<i32> {
    return P.off + walk_pos(g);
}
