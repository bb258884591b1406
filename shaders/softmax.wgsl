// softmax.wgsl: softmax (or log-softmax with LOG) along one axis of a
// strided view, numerically stable: x - max is exponentiated, so no term
// overflows. A NaN in a row makes the row NaN.
//
// Every loop of an invocation is bounded by the host's plan, never by the
// row length alone: drivers stop or time out long per-invocation loops
// (lavapipe after 65535 iterations).
//
// Default: the whole row in one dispatch. SERIAL gives each (short) row to
// one invocation; otherwise a workgroup shares a row of at most the host's
// smRowMax elements.
// STATS: a workgroup reduces one chunk of a row to the pair (m, s): its
// maximum and the sum of exp(x - m), stored at the row's scratch position
// plus 2 * chunk.
// COMBINE: a workgroup merges up to S.per pairs of one row of a [rows, nin]
// pair array into one pair of a [rows, nout] array.
// EMIT: an elementwise pass writing each element from its row's final pair.
//#include common.wgsl

fn nan_max(a: f32, b: f32) -> f32 {
    if (is_nan(a)) {
        return a;
    }
    if (is_nan(b)) {
        return b;
    }
    return select(a, b, b > a);
}

// The contribution of a partial pair (m, s) to a sum of exp(x - mx). A
// chunk that is all -Inf adds nothing (its own s is NaN: -Inf - -Inf).
fn pair_term(m: f32, s: f32, mx: f32) -> f32 {
    if (bitcast<u32>(m) == 0xff800000u) {
        return 0.0;
    }
    return s * exp(m - mx);
}

//#if EMIT
//#include ew_params.wgsl
//#include ew_dst.wgsl
//#include ew_src_a.wgsl
@group(0) @binding(3) var<storage, read> stats: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= P.n) {
        return;
    }
    let p = positions(g);
    let m = stats[p.z];
    let s = stats[p.z + 1];
    let x = load_a(p.y);
//#if LOG
    store_dst(p.x, (x - m) - log(s));
//#else
    store_dst(p.x, exp(x - m) / s);
//#endif
}
//#elif COMBINE
@group(0) @binding(0) var<uniform> S: CParams;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;
var<workgroup> red: array<f32, {{WG}}>;

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w = group_index(wid, nwg);
    if (w >= S.nitems) {
        return;
    }
    let row = w / S.nout;
    let c = w % S.nout;
    let base = row * S.nin;
    let start = c * S.per;
    let end = min(start + S.per, S.nin);
    var m = -f32_inf();
    for (var i = start + lid; i < end; i = i + {{WG}}u) {
        m = nan_max(m, src[2u * (base + i)]);
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
    for (var i = start + lid; i < end; i = i + {{WG}}u) {
        let q = 2u * (base + i);
        s = s + pair_term(src[q], src[q + 1u], m);
    }
    red[lid] = s;
    workgroupBarrier();
    for (var k = {{WG}}u / 2u; k > 0u; k = k >> 1u) {
        if (lid < k) {
            red[lid] = red[lid] + red[lid + k];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        dst[2u * w] = m;
        dst[2u * w + 1u] = red[0];
    }
}
//#else
//#include ew_dst.wgsl
//#include ew_src_a.wgsl

// SParams (gpucore.SoftmaxParams): off.x/y are the source and destination
// positions of row 0; the walk kept has the kept-axis strides of source and
// destination; ax.x/y: strides along the softmax axis. STATS: the
// destination is the pair scratch and ch.x/y are the chunk length and the
// chunks per row (nrows counts work items, rows times chunks).
@group(0) @binding(0) var<uniform> S: SParams;

//#include index.wgsl FN=row_walk W=S.kept N=2

// Source and destination positions of the first element of row o.
fn row_pos(o: u32) -> vec2<i32> {
    return S.off.xy + row_walk(o);
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
    let w = group_index(wid, nwg);
    if (w >= S.nrows) {
        return;
    }
//#if STATS
    let o = w / S.ch.y;
    let c = w % S.ch.y;
    let start = c * S.ch.x;
    let end = min(start + S.ch.x, S.len);
//#else
    let o = w;
    let start = 0u;
    let end = S.len;
//#endif
    let rp = row_pos(o);
    var m = -f32_inf();
    for (var i = start + lid; i < end; i = i + {{WG}}u) {
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
    for (var i = start + lid; i < end; i = i + {{WG}}u) {
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
//#if STATS
    if (lid == 0u) {
        store_dst(rp.y + 2 * i32(c), m);
        store_dst(rp.y + 2 * i32(c) + 1, s);
    }
//#else
    for (var i = lid; i < S.len; i = i + {{WG}}u) {
        emit(rp, i, m, s);
    }
//#endif
}
//#endif
//#endif
