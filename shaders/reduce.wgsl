// reduce.wgsl: reduces a strided view over a set of axes.
//
// The kept axes (kshape) index outputs; the reduced axes (rshape) are
// walked as one linear range split into nchunk chunks of chunk elements.
// Work item w = (output o, chunk c) writes dst at kept position + c*pst.x.
// With DST_PARTIAL the result is an accumulator (and, for arg reductions,
// an index) that a later pass reduces again (SRC_PARTIAL); otherwise it is
// converted to the destination dtype (MEAN divides by count first). W64
// (reductions of I64, and integer Sum and Prod, ACC vec2<u32>) reads and
// writes (lo, hi) pairs throughout: sources, partial results and the I64
// output (an arg reduction's index, written as a pair, for ARG).
// SERIAL runs one work item per invocation; otherwise a workgroup shares
// one work item and combines in a tree.
//#include common.wgsl
//#include reduce_ops.wgsl

@group(0) @binding(0) var<uniform> R: RParams;

//#if W64
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
//#if DST_PARTIAL
//#if ARG
@group(0) @binding(2) var<storage, read_write> dsti: array<u32>;
//#endif
//#endif
fn store_out(p: i32, v: vec2<u32>, i: u32) {
//#if ARG
//#if DST_PARTIAL
    dst[2 * p] = v.x;
    dst[2 * p + 1] = v.y;
    dsti[p] = i;
//#else
    dst[2 * p] = i;
    dst[2 * p + 1] = 0u;
//#endif
//#else
    dst[2 * p] = v.x;
    dst[2 * p + 1] = v.y;
//#endif
}
//#elif DST_PARTIAL
@group(0) @binding(1) var<storage, read_write> dst: array<{{ACC}}>;
//#if ARG
@group(0) @binding(2) var<storage, read_write> dsti: array<u32>;
//#endif
fn store_out(p: i32, v: {{ACC}}, i: u32) {
    dst[p] = v;
//#if ARG
    dsti[p] = i;
//#endif
}
//#elif ARG
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
fn store_out(p: i32, v: {{ACC}}, i: u32) {
    dst[2 * p] = i;
    dst[2 * p + 1] = 0u;
}
//#elif D_PACKED
@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;
fn store_out(p: i32, v: f32, i: u32) {
    let q = u32(p);
    let sh = (q & 1u) * 16u;
    atomicAnd(&dst[q >> 1u], ~(0xffffu << sh));
    atomicOr(&dst[q >> 1u], f32_to_f16(v) << sh);
}
//#else
@group(0) @binding(1) var<storage, read_write> dst: array<{{ACC}}>;
fn store_out(p: i32, v: {{ACC}}, i: u32) {
    dst[p] = {{FIN}}(v);
}
//#endif

//#if W64
// I64 sources and 64-bit partial results: (lo, hi) pairs.
@group(0) @binding({{B_SRC}}) var<storage, read> src: array<u32>;
fn load_src(p: i32) -> vec2<u32> {
    return vec2<u32>(src[2 * p], src[2 * p + 1]);
}
//#if SRC_PARTIAL
//#if ARG
@group(0) @binding({{B_SRCI}}) var<storage, read> srci: array<u32>;
//#endif
//#endif
//#elif SRC_PARTIAL
@group(0) @binding({{B_SRC}}) var<storage, read> src: array<{{ACC}}>;
fn load_src(p: i32) -> {{ACC}} {
    return src[p];
}
//#if ARG
@group(0) @binding({{B_SRCI}}) var<storage, read> srci: array<u32>;
//#endif
//#elif S_PACKED
@group(0) @binding({{B_SRC}}) var<storage, read> src: array<u32>;
fn load_src(p: i32) -> f32 {
    let q = u32(p);
    return f16_to_f32(half_at(src[q >> 1u], q));
}
//#else
@group(0) @binding({{B_SRC}}) var<storage, read> src: array<{{ACC}}>;
fn load_src(p: i32) -> {{ACC}} {
    return src[p];
}
//#endif

//#include index.wgsl FN=kept_walk W=R.kept N=2
//#include index.wgsl FN=red_pos W=R.red N=2

// Source and destination positions of output o. red_pos(r) gives the
// source offset and logical index of reduced element r.
fn kept_pos(o: u32) -> vec2<i32> {
    return R.off.xy + kept_walk(o);
}

fn index_of(sp: i32, rp: vec2<i32>) -> u32 {
//#if SRC_PARTIAL
//#if ARG
    return srci[sp];
//#else
    return 0u;
//#endif
//#else
    return u32(R.off.z + rp.y);
//#endif
}

fn finish(o: u32, c: u32, kp: vec2<i32>, v: {{ACC}}, i: u32) {
    var r = v;
//#if MEAN
    r = r / R.count;
//#endif
    store_out(kp.y + i32(c) * R.pst.x, r, i);
}

//#if SERIAL
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w = group_index(wid, nwg) * 64u + lid;
    if (w >= R.nout * R.nchunk) {
        return;
    }
    let o = w / R.nchunk;
    let c = w % R.nchunk;
    let kp = kept_pos(o);
    let start = c * R.chunk;
    let end = min(start + R.chunk, R.nred);
    var acc = {{RED}}_ident();
    var ai = 0xffffffffu;
    for (var r = start; r < end; r = r + 1u) {
        let rp = red_pos(r);
        let sp = kp.x + rp.x;
        let v = load_src(sp);
//#if ARG
        let i = index_of(sp, rp);
        if ({{RED}}_better(v, i, acc, ai)) {
            acc = v;
            ai = i;
        }
//#else
        acc = {{RED}}_comb(acc, v);
//#endif
    }
    finish(o, c, kp, acc, ai);
}
//#else
var<workgroup> sv: array<{{ACC}}, {{WG}}>;
var<workgroup> si: array<u32, {{WG}}>;

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w = group_index(wid, nwg);
    if (w >= R.nout * R.nchunk) {
        return;
    }
    let o = w / R.nchunk;
    let c = w % R.nchunk;
    let kp = kept_pos(o);
    let start = c * R.chunk;
    let end = min(start + R.chunk, R.nred);
    var acc = {{RED}}_ident();
    var ai = 0xffffffffu;
    for (var r = start + lid; r < end; r = r + {{WG}}u) {
        let rp = red_pos(r);
        let sp = kp.x + rp.x;
        let v = load_src(sp);
//#if ARG
        let i = index_of(sp, rp);
        if ({{RED}}_better(v, i, acc, ai)) {
            acc = v;
            ai = i;
        }
//#else
        acc = {{RED}}_comb(acc, v);
//#endif
    }
    sv[lid] = acc;
    si[lid] = ai;
    workgroupBarrier();
    for (var s = {{WG}}u / 2u; s > 0u; s = s >> 1u) {
        if (lid < s) {
//#if ARG
            if ({{RED}}_better(sv[lid + s], si[lid + s], sv[lid], si[lid])) {
                sv[lid] = sv[lid + s];
                si[lid] = si[lid + s];
            }
//#else
            sv[lid] = {{RED}}_comb(sv[lid], sv[lid + s]);
//#endif
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        finish(o, c, kp, sv[0], si[0]);
    }
}
//#endif
