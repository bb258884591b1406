// gather.wgsl: Gather and ScatterAdd along one axis with the indices on the
// device (I32, or I64 with IDX64 as (lo, hi) word pairs). Values move as
// 32-bit words (F32, I32, and U8/Bool held in u32), or, for I64 values
// (VAL64: Gather, and ScatterAdd by LOOP with 64-bit additions), as
// (lo, hi) word pairs.
//
// An index outside [0, extent) is never followed: Gather writes 0 for it,
// ScatterAdd skips it, and the first one seen is recorded in the status
// words (flag, low word, high word) for the host to read later.
//
// Default (Gather) and ATOMIC (I32 ScatterAdd): one invocation per
// index position p over the walk P.w of (destination or target, source,
// indices); P.ex.x is the extent along the axis, P.ex.y the stride along
// it of the operand the index addresses, P.ex.z the status position.
// ATOMIC adds with atomicAdd (wrapping, as integer addition does); with
// FLOAT too it adds f32 with exchanges only (WGSL has no float atomics and
// the GLSL translator no compare-exchange): an invocation takes the value
// out (leaving 0), puts back the value plus its own, and if the exchange
// returns a value other invocations deposited meanwhile, adds that in the
// same way until it gets 0 back. Every deposit ends in the sum; the order
// of the additions is not fixed.
// LOOP (F32 and I64 ScatterAdd, deterministic, no atomics): one invocation per
// destination element in the indices' box; it sums, in index order, the
// sources whose index names its axis coordinate, over X.ax.w indices from
// X.ax.z (the host splits long axes into several dispatches).
//#include common.wgsl
//#if VAL64
//#include int64.wgsl
//#endif

//#if LOOP
@group(0) @binding(0) var<uniform> X: XParams;
//#include index.wgsl FN=walk_pos W=X.w N=4 N4=1
//#else
//#include ew_params.wgsl
//#endif

//#if ATOMIC
@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;
//#else
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
//#endif
@group(0) @binding(2) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> src: array<u32>;
@group(0) @binding(4) var<storage, read> ix: array<u32>;

// The index at position q as (low word, high word, 1 if in [0, ext)).
fn index_at(q: i32, ext: u32) -> vec3<u32> {
//#if IDX64
    let lo = ix[2 * q];
    let hi = ix[2 * q + 1];
//#else
    let lo = ix[q];
    let hi = select(0u, 0xffffffffu, (lo & 0x80000000u) != 0u);
//#endif
    return vec3<u32>(lo, hi, select(0u, 1u, hi == 0u && lo < ext));
}

// Records a bad index in the status words at so, once.
fn report(v: vec3<u32>, so: u32) {
    if (atomicExchange(&status[so], 1u) == 0u) {
        atomicStore(&status[so + 1u], v.x);
        atomicStore(&status[so + 2u], v.y);
    }
}

//#if LOOP
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= X.n) {
        return;
    }
    let p = X.off + walk_pos(g);
    let c = (g / X.inner) % X.ext;
//#if VAL64
    var acc = vec2<u32>(dst[2 * p.x], dst[2 * p.x + 1]);
//#else
    var acc = bitcast<f32>(dst[p.x]);
//#endif
    for (var j = 0u; j < u32(X.ax.w); j = j + 1u) {
        let k = X.ax.z + i32(j);
        let v = index_at(p.z + k * X.ax.y, X.ext);
        if (v.z == 0u) {
            if (c == 0u) {
                report(v, u32(X.off.w));
            }
        } else if (v.x == c) {
//#if VAL64
            let q = p.y + k * X.ax.x;
            acc = add64(acc, vec2<u32>(src[2 * q], src[2 * q + 1]));
//#else
            acc = acc + bitcast<f32>(src[p.y + k * X.ax.x]);
//#endif
        }
    }
//#if VAL64
    dst[2 * p.x] = acc.x;
    dst[2 * p.x + 1] = acc.y;
//#else
    dst[p.x] = bitcast<u32>(acc);
//#endif
}
//#else
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= P.n) {
        return;
    }
    let p = positions(g);
    let v = index_at(p.z, P.ex.x);
//#if ATOMIC
    if (v.z == 0u) {
        report(v, P.ex.z);
        return;
    }
    let q = p.x + i32(v.x) * bitcast<i32>(P.ex.y);
//#if FLOAT
    var add = bitcast<f32>(src[p.y]);
    loop {
        let cur = bitcast<f32>(atomicExchange(&dst[q], 0u));
        let back = atomicExchange(&dst[q], bitcast<u32>(cur + add));
        if ((back & 0x7fffffffu) == 0u) {
            break;
        }
        add = bitcast<f32>(back);
    }
//#else
    atomicAdd(&dst[q], src[p.y]);
//#endif
//#elif VAL64
    var x = vec2<u32>(0u, 0u);
    if (v.z == 1u) {
        let q = p.y + i32(v.x) * bitcast<i32>(P.ex.y);
        x = vec2<u32>(src[2 * q], src[2 * q + 1]);
    } else {
        report(v, P.ex.z);
    }
    dst[2 * p.x] = x.x;
    dst[2 * p.x + 1] = x.y;
//#else
    var x = 0u;
    if (v.z == 1u) {
        x = src[p.y + i32(v.x) * bitcast<i32>(P.ex.y)];
    } else {
        report(v, P.ex.z);
    }
    dst[p.x] = x;
//#endif
}
//#endif
