// norm.wgsl: row-wise normalisation (device.Normer), one workgroup per row
// of N.len elements: LayerNorm with CENTRED ((x - mean) * rstd), RMSNorm
// without it (x * rstd), where rstd = 1 / sqrt(var + eps) and var is the
// mean of the squared deviations from the mean (two passes over the row,
// each reduced in workgroup memory, so it never cancels as E[x^2] - E[x]^2
// would); then times the weight (HAS_W) and plus the bias (HAS_B). The row's
// mean (0 without CENTRED) and rstd go to the f32 statistics, which the
// gradient reads. F16 rows are decoded to f32 and the result rounded once.
//
// Bindings: 1 the destination, 2 the statistics (read-write), 3 the source,
// then the weight and the bias when present. Every
// invocation loops over at most N.len / WG elements; the host refuses rows
// for which that exceeds a driver's loop limit.
//#include common.wgsl
//#include ew_dst.wgsl

@group(0) @binding(0) var<uniform> N: NParams;
@group(0) @binding(2) var<storage, read_write> stats: array<f32>;
//#include ew_src_n.wgsl NAME=xs BIND=3 LOAD=load_x
//#if HAS_W
//#include ew_src_n.wgsl NAME=ws BIND=4 LOAD=load_w
//#endif
//#if HAS_B
//#if HAS_W
//#include ew_src_n.wgsl NAME=bs BIND=5 LOAD=load_b
//#else
//#include ew_src_n.wgsl NAME=bs BIND=4 LOAD=load_b
//#endif
//#endif

var<workgroup> red: array<f32, {{WG}}>;

// The sum of every invocation's v, returned to all of them.
fn wg_sum(lid: u32, v: f32) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var k = {{WG}}u / 2u; k > 0u; k = k >> 1u) {
        if (lid < k) {
            red[lid] = red[lid] + red[lid + k];
        }
        workgroupBarrier();
    }
    let s = red[0];
    workgroupBarrier();
    return s;
}

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let r = group_index(wid, nwg);
    if (r >= N.nrows) {
        return;
    }
    let xo = N.off.x + i32(r) * N.rs.x;
    let yo = N.off.y + i32(r) * N.rs.y;
    let inv = 1.0 / f32(N.len);
    var mean = 0.0;
//#if CENTRED
    var s = 0.0;
    for (var i = lid; i < N.len; i = i + {{WG}}u) {
        s = s + load_x(xo + i32(i) * N.cs.x);
    }
    mean = wg_sum(lid, s) * inv;
//#endif
    var q = 0.0;
    for (var i = lid; i < N.len; i = i + {{WG}}u) {
        let d = load_x(xo + i32(i) * N.cs.x) - mean;
        q = q + d * d;
    }
    let rstd = 1.0 / sqrt(wg_sum(lid, q) * inv + N.eps);
    for (var i = lid; i < N.len; i = i + {{WG}}u) {
        var y = (load_x(xo + i32(i) * N.cs.x) - mean) * rstd;
//#if HAS_W
        y = y * load_w(N.aff.x + i32(i) * N.aff.y);
//#endif
//#if HAS_B
        y = y + load_b(N.aff.z + i32(i) * N.aff.w);
//#endif
        store_dst(yo + i32(i) * N.cs.y, y);
    }
    if (lid == 0u) {
        let so = N.off.z + i32(r) * N.rs.z;
        stats[so] = mean;
        stats[so + N.cs.z] = rstd;
    }
}
