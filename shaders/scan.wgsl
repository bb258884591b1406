// scan.wgsl: inclusive running sum (or product with PROD) along one axis.
// One invocation per row walks S.len elements from the row's start (the
// host splits long rows into dispatches of bounded length; a dispatch with
// S.ch.x set continues from the element before its first, written by the
// previous one). FLOAT scans F32 in F32, in order, as NumPy's cumsum does;
// otherwise the source words are integers (sign-extended with SIGNED, or
// (lo, hi) pairs of an I64 source with WIDE) and accumulate in 64 bits,
// stored as (lo, hi) pairs: the I64 result.
//#include common.wgsl

@group(0) @binding(0) var<uniform> S: SParams;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;

//#include index.wgsl FN=row_walk W=S.kept N=2

//#include int64.wgsl

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let o = group_index(wid, nwg) * 64u + lid;
    if (o >= S.nrows) {
        return;
    }
    let rp = S.off.xy + row_walk(o);
//#if FLOAT
//#if PROD
    var acc = 1.0;
//#else
    var acc = 0.0;
//#endif
    if (S.ch.x != 0u) {
        acc = bitcast<f32>(dst[rp.y - S.ax.y]);
    }
    for (var i = 0u; i < S.len; i = i + 1u) {
        let x = bitcast<f32>(src[rp.x + i32(i) * S.ax.x]);
//#if PROD
        acc = acc * x;
//#else
        acc = acc + x;
//#endif
        dst[rp.y + i32(i) * S.ax.y] = bitcast<u32>(acc);
    }
//#else
//#if PROD
    var acc = vec2<u32>(1u, 0u);
//#else
    var acc = vec2<u32>(0u, 0u);
//#endif
    if (S.ch.x != 0u) {
        let q = rp.y - S.ax.y;
        acc = vec2<u32>(dst[2 * q], dst[2 * q + 1]);
    }
    for (var i = 0u; i < S.len; i = i + 1u) {
        let p = rp.x + i32(i) * S.ax.x;
//#if WIDE
        let x = vec2<u32>(src[2 * p], src[2 * p + 1]);
//#elif SIGNED
        let w = src[p];
        let x = vec2<u32>(w, select(0u, 0xffffffffu, (w & 0x80000000u) != 0u));
//#else
        let x = vec2<u32>(src[p], 0u);
//#endif
//#if PROD
        acc = mul64(acc, x);
//#else
        acc = add64(acc, x);
//#endif
        let q = rp.y + i32(i) * S.ax.y;
        dst[2 * q] = acc.x;
        dst[2 * q + 1] = acc.y;
    }
//#endif
}
