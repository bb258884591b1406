// narrow.wgsl: packs one-u32-per-element U8/Bool storage into host bytes,
// four per u32, so a download moves a quarter of the data.
//#include common.wgsl

@group(0) @binding(0) var<uniform> N: NarrowParams;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w = group_index(wid, nwg) * 256u + lid;
    let first = w * 4u;
    if (first >= N.n) {
        return;
    }
    var v = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        let i = first + k;
        if (i < N.n) {
            v = v | ((src[N.src_off + i] & 0xffu) << (8u * k));
        }
    }
    dst[w] = v;
}
