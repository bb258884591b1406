// where.wgsl: dst = cond ? a : b, moving the raw bits of a or b.
//#include common.wgsl
//#include ew_params.wgsl
//#include ew_dst.wgsl
//#include ew_src_a.wgsl
//#include ew_src_b.wgsl

@group(0) @binding(4) var<storage, read> cnd: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= P.n) {
        return;
    }
    let p = positions(g);
    store_dst(p.x, select(load_b(p.z), load_a(p.y), cnd[p.w] != 0u));
}
