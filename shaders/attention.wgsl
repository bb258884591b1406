// attention.wgsl: fused scaled dot-product attention (device.Attender) of
// one batch element, one workgroup per query row i, never storing the row's
// scores:
//
//  1. each invocation folds the scores of keys lid, lid + WG, ... into a
//     running (maximum, sum of exp(score - maximum)) pair; the workgroup
//     merges the pairs (NaN wins, an all -Inf part adds nothing);
//  2. for each chunk of WG output columns, the keys are visited in tiles of
//     WG: each invocation recomputes one key's score, stores its
//     probability exp(s - m) / l in workgroup memory, and each invocation
//     then adds probability times v for its column over the tile.
//
// Every key is multiplied, a masked one by probability 0, as the unfused
// formula does, so NaN or Inf in v reaches the row the same way. MASK_BOOL:
// a widened Bool mask (0 masks the score to -Inf); MASK_FLOAT: a mask of
// q's dtype added to the scores; CAUSAL: keys j > i masked. With an explicit
// mask, a row with no key taking part (no true entry; no float entry above
// -Inf, or a NaN) has every probability 0. EXPLICIT marks either mask.
//
// Bindings: 1 the destination, 2 q, 3 k, 4 v, 5 the mask. Loops run at most
// S / WG, E or Ev / WG times; the host refuses sizes beyond a driver's loop
// limit.
//#include common.wgsl
//#include ew_dst.wgsl

@group(0) @binding(0) var<uniform> A: AParams;
//#include ew_src_n.wgsl NAME=qs BIND=2 LOAD=load_q
//#include ew_src_n.wgsl NAME=ks BIND=3 LOAD=load_k
//#include ew_src_n.wgsl NAME=vs BIND=4 LOAD=load_v
//#if MASK_BOOL
@group(0) @binding(5) var<storage, read> ms: array<u32>;
//#elif MASK_FLOAT
//#include ew_src_n.wgsl NAME=ms BIND=5 LOAD=load_m
//#endif

var<workgroup> red_m: array<f32, {{WG}}>;
var<workgroup> red_l: array<f32, {{WG}}>;
var<workgroup> red_a: array<u32, {{WG}}>;
var<workgroup> prob: array<f32, {{WG}}>;

fn is_ninf(x: f32) -> bool {
    return bitcast<u32>(x) == 0xff800000u;
}

// Merges two (maximum, sum) pairs: NaN wins; a pair whose maximum is -Inf
// holds no term.
fn merge(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    if (is_nan(a.x) || is_nan(b.x) || is_nan(a.y) || is_nan(b.y)) {
        return vec2<f32>(f32_nan(), f32_nan());
    }
    if (is_ninf(a.x)) {
        return b;
    }
    if (is_ninf(b.x)) {
        return a;
    }
    let m = max(a.x, b.x);
    return vec2<f32>(m, a.y * exp(a.x - m) + b.y * exp(b.x - m));
}

// The masked, scaled score of query i against key j, and what the mask
// says of j as bits: 1 it takes part (always, without an explicit mask),
// 2 the float mask is NaN there. A row attends when the bits of its keys
// together are exactly 1 (a NaN in a float mask row makes its maximum NaN,
// which the unfused formula counts as no key).
fn score(i: u32, j: u32) -> vec2<f32> {
//#if CAUSAL
    if (j > i) {
        return vec2<f32>(-f32_inf(), 1.0);
    }
//#endif
    let qo = A.off.x + i32(i) * A.ld.x;
    let ko = A.off.y + i32(j) * A.ld.y;
    var s = 0.0;
    for (var e = 0u; e < A.e; e = e + 1u) {
        s = s + load_q(qo + i32(e) * A.cs.x) * load_k(ko + i32(e) * A.cs.y);
    }
    s = s * A.scale;
//#if MASK_BOOL
    if (ms[A.off.w + i32(i) * A.ld.w + i32(j) * A.cs.w] == 0u) {
        return vec2<f32>(-f32_inf(), 0.0);
    }
//#elif MASK_FLOAT
    let mv = load_m(A.off.w + i32(i) * A.ld.w + i32(j) * A.cs.w);
    s = s + mv;
    if (is_nan(mv)) {
        return vec2<f32>(s, 2.0);
    }
    if (is_ninf(mv)) {
        return vec2<f32>(s, 0.0);
    }
//#endif
    return vec2<f32>(s, 1.0);
}

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = group_index(wid, nwg);
    if (i >= A.l) {
        return;
    }
    var acc = vec2<f32>(-f32_inf(), 0.0);
    var att = 0u;
    for (var j = lid; j < A.s; j = j + {{WG}}u) {
        let sc = score(i, j);
        acc = merge(acc, vec2<f32>(sc.x, 1.0));
        att = att | u32(sc.y);
    }
    red_m[lid] = acc.x;
    red_l[lid] = acc.y;
    red_a[lid] = att;
    workgroupBarrier();
    for (var k = {{WG}}u / 2u; k > 0u; k = k >> 1u) {
        if (lid < k) {
            let r = merge(vec2<f32>(red_m[lid], red_l[lid]), vec2<f32>(red_m[lid + k], red_l[lid + k]));
            red_m[lid] = r.x;
            red_l[lid] = r.y;
            red_a[lid] = red_a[lid] | red_a[lid + k];
        }
        workgroupBarrier();
    }
    let m = red_m[0];
    let l = red_l[0];
//#if EXPLICIT
    let attends = red_a[0] == 1u;
//#else
    let attends = true;
//#endif
    workgroupBarrier();
    let yo = A.dst.x + i32(i) * A.dst.y;
    for (var c0 = 0u; c0 < A.ev; c0 = c0 + {{WG}}u) {
        let e = c0 + lid;
        var sum = 0.0;
        for (var t0 = 0u; t0 < A.s; t0 = t0 + {{WG}}u) {
            let j = t0 + lid;
            var p = 0.0;
            if (j < A.s && attends) {
                let sc = score(i, j);
                if (is_nan(m) || is_nan(l)) {
                    p = f32_nan();
                } else if (!is_ninf(sc.x)) {
                    p = exp(sc.x - m) / l;
                } else if (is_ninf(m)) {
                    p = f32_nan(); // every score -Inf with keys taking part: 0/0, as softmax
                }
            }
            prob[lid] = p;
            workgroupBarrier();
            if (e < A.ev) {
                let nt = min({{WG}}u, A.s - t0);
                for (var t = 0u; t < nt; t = t + 1u) {
                    sum = sum + prob[t] * load_v(A.off.z + i32(t0 + t) * A.ld.z + i32(e) * A.cs.z);
                }
            }
            workgroupBarrier();
        }
        if (e < A.ev) {
            store_dst(yo + i32(e) * A.dst.z, sum);
        }
    }
}
