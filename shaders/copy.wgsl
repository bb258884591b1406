// copy.wgsl: dst = CVT(a) elementwise over arbitrary layouts; with raw
// kinds and CVT = identity it moves bits unchanged (same-dtype copies).
//#include common.wgsl
//#include ew_params.wgsl
//#include ew_dst.wgsl
//#include ew_src_a.wgsl
//#include convert.wgsl

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= P.n) {
        return;
    }
    let p = positions(g);
    store_dst(p.x, {{CVT}}(load_a(p.y)));
}
