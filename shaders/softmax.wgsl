// softmax.wgsl: softmax (or log-softmax with LOG) along one axis of a
// strided view, numerically stable: x - max is exponentiated, so no term
// overflows. A NaN in a row makes the row NaN. SERIAL gives each row to one
// invocation; otherwise a workgroup shares a row.
//#include common.wgsl
//#include ew_dst.wgsl
//#include ew_src_a.wgsl

struct SParams {
    nrows: u32,
    len: u32,
    krank: u32,
    pad: u32,
    kshape: array<vec4<u32>, 2>,
    off: vec4<i32>,
    kst: array<vec4<i32>, 4>,
    ax: vec4<i32>,
}

@group(0) @binding(0) var<uniform> S: SParams;

// Source and destination positions of the first element of row o.
fn row_pos(o: u32) -> vec2<i32> {
    var p = S.off.xy;
    if (S.krank <= 1u) {
        return p + i32(o) * vec2<i32>(S.kst[0].x, S.kst[2].x);
    }
    var rem = o;
    var ax = S.krank;
    loop {
        if (ax == 0u) {
            break;
        }
        ax = ax - 1u;
        let q = ax >> 2u;
        let r = ax & 3u;
        let e = S.kshape[q][r];
        let c = i32(rem % e);
        rem = rem / e;
        p = p + c * vec2<i32>(S.kst[q][r], S.kst[2u + q][r]);
    }
    return p;
}

fn nan_max(a: f32, b: f32) -> f32 {
    if (is_nan(a)) {
        return a;
    }
    if (is_nan(b)) {
        return b;
    }
    return select(a, b, b > a);
}

fn emit(rp: vec2<i32>, i: u32, m: f32, s: f32) {
    let x = load_a(rp.x + i32(i) * S.ax.x);
//#if LOG
    let y = (x - m) - log(s);
//#else
    let y = exp(x - m) / s;
//#endif
    store_dst(rp.y + i32(i) * S.ax.y, y);
}

//#if SERIAL
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let o = group_index(wid, nwg) * 64u + lid;
    if (o >= S.nrows) {
        return;
    }
    let rp = row_pos(o);
    var m = -f32_inf();
    for (var i = 0u; i < S.len; i = i + 1u) {
        m = nan_max(m, load_a(rp.x + i32(i) * S.ax.x));
    }
    var s = 0.0;
    for (var i = 0u; i < S.len; i = i + 1u) {
        s = s + exp(load_a(rp.x + i32(i) * S.ax.x) - m);
    }
    for (var i = 0u; i < S.len; i = i + 1u) {
        emit(rp, i, m, s);
    }
}
//#else
var<workgroup> red: array<f32, {{WG}}>;

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let o = group_index(wid, nwg);
    if (o >= S.nrows) {
        return;
    }
    let rp = row_pos(o);
    var m = -f32_inf();
    for (var i = lid; i < S.len; i = i + {{WG}}u) {
        m = nan_max(m, load_a(rp.x + i32(i) * S.ax.x));
    }
    red[lid] = m;
    workgroupBarrier();
    for (var k = {{WG}}u / 2u; k > 0u; k = k >> 1u) {
        if (lid < k) {
            red[lid] = nan_max(red[lid], red[lid + k]);
        }
        workgroupBarrier();
    }
    m = red[0];
    workgroupBarrier();
    var s = 0.0;
    for (var i = lid; i < S.len; i = i + {{WG}}u) {
        s = s + exp(load_a(rp.x + i32(i) * S.ax.x) - m);
    }
    red[lid] = s;
    workgroupBarrier();
    for (var k = {{WG}}u / 2u; k > 0u; k = k >> 1u) {
        if (lid < k) {
            red[lid] = red[lid] + red[lid + k];
        }
        workgroupBarrier();
    }
    s = red[0];
    for (var i = lid; i < S.len; i = i + {{WG}}u) {
        emit(rp, i, m, s);
    }
}
//#endif
