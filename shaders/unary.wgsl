// unary.wgsl: dst = op(a) elementwise over arbitrary layouts. The op's body
// is its descriptor's shader expression (device/optable.go) in x, of the
// compute type OP_T, with a result of type OP_R (u32 0 or 1 for
// predicates).
//#include common.wgsl
//#include ew_params.wgsl
//#include ew_dst.wgsl
//#include ew_src_a.wgsl
//#include math.wgsl
//#if OP_W64
//#include int64.wgsl
//#endif

fn apply_op(x: {{OP_T}}) -> {{OP_R}} {
    return {{OP_EXPR}};
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= P.n) {
        return;
    }
    let p = positions(g);
    store_dst(p.x, apply_op(load_a(p.y)));
}
