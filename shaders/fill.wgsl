// fill.wgsl: writes the bit pattern in P.ex to every element of dst.
//#include common.wgsl
//#include ew_params.wgsl
//#include ew_dst.wgsl

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= P.n) {
        return;
    }
    let p = positions(g);
//#if D_WIDE
    store_dst(p.x, P.ex.xy);
//#else
    store_dst(p.x, P.ex.x);
//#endif
}
