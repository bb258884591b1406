// widen.wgsl: unpacks host bytes (U8 or Bool, four per u32) into the
// one-u32-per-element storage those dtypes use on the GPU.
//#include common.wgsl

@group(0) @binding(0) var<uniform> W: WidenParams;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= W.n) {
        return;
    }
    let byte = W.src_byte + g;
    var v = (src[byte >> 2u] >> ((byte & 3u) * 8u)) & 0xffu;
    if (W.is_bool != 0u) {
        v = select(0u, 1u, v != 0u);
    }
    dst[W.dst_off + g] = v;
}
