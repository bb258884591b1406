// unary.wgsl: dst = OP(a) elementwise over arbitrary layouts.
//#include common.wgsl
//#include ew_params.wgsl
//#include ew_dst.wgsl
//#include ew_src_a.wgsl
//#include math.wgsl
//#include unary_ops.wgsl

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= P.n) {
        return;
    }
    let p = positions(g);
    store_dst(p.x, {{OP}}(load_a(p.y)));
}
