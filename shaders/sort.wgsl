// sort.wgsl: a stable sort of each row along one axis, by a bitonic network
// over (key, position) pairs: the position breaks ties, so equal keys keep
// their order and the network's instability does not show. Keys are u32
// whose order is the documented one: floats (KIND_F) with -0 equal to +0
// and every NaN last; I32 (KIND_I) biased; U8/Bool (default) as they are.
// DESC inverts the keys: the reverse order with ties still in source order
// (NaN first). Padding pairs (all ones) sort after every real pair.
//
// Default: one workgroup sorts a row of at most SN elements (a power
// of two; SN * 8 bytes of workgroup memory) and writes the sorted words to
// vals and their source positions (I64, as (lo, hi) pairs) to idx, which
// shares vals' layout at offset S.off.z.
// Rows longer than one workgroup holds take three kernels:
// BLOCK: workgroup w sorts block w % S.ch.x of row w / S.ch.x (SN
// elements) into a scratch of pairs, rows S.ch.y pairs apart.
// MERGE: invocation g places pair g of a scratch whose sorted runs are
// C.nin long into the merged run of twice that length: its position in
// its own run plus the number of pairs of the partner run before it,
// found by binary search (every pair is distinct, so the count is exact).
// EMIT: invocation g writes element g % S.len of row g / S.len from the
// final scratch, as the default kernel does.
//#include common.wgsl

fn sort_key(w: u32) -> u32 {
    var k = w;
//#if KIND_F
    if ((w & 0x7fffffffu) > 0x7f800000u) {
        k = 0xffffffffu;
    } else {
        var b = w;
        if ((b & 0x7fffffffu) == 0u) {
            b = 0u;
        }
        if ((b & 0x80000000u) != 0u) {
            k = ~b;
        } else {
            k = b | 0x80000000u;
        }
    }
//#elif KIND_I
    k = w ^ 0x80000000u;
//#endif
//#if DESC
    k = ~k;
//#endif
    return k;
}

// Whether pair (ka, ia) comes before (kb, ib).
fn before(ka: u32, ia: u32, kb: u32, ib: u32) -> bool {
    return ka < kb || (ka == kb && ia < ib);
}

//#if MERGE
@group(0) @binding(0) var<uniform> C: CParams;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= C.nitems) {
        return;
    }
    let w = C.nin;
    let row = g / C.per;
    let e = g % C.per;
    let rowBase = row * C.per;
    let base = (e / (2u * w)) * (2u * w);
    let k = src[2u * g];
    let id = src[2u * g + 1u];
    var own = e - base;
    var lo = base + w;
    var hi = min(base + 2u * w, C.per);
    var inA = true;
    if (e >= base + w) {
        own = e - base - w;
        lo = base;
        hi = base + w;
        inA = false;
    }
    // Count the partner run's pairs before (k, id).
    var a = lo;
    var b = max(lo, hi);
    loop {
        if (a >= b) {
            break;
        }
        let m = (a + b) / 2u;
        let q = 2u * (rowBase + m);
        if (before(src[q], src[q + 1u], k, id)) {
            a = m + 1u;
        } else {
            b = m;
        }
    }
    let at = rowBase + base + own + (a - lo);
    dst[2u * at] = k;
    dst[2u * at + 1u] = id;
}
//#else
@group(0) @binding(0) var<uniform> S: SParams;
//#if BLOCK
@group(0) @binding(1) var<storage, read_write> pairs: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;
//#elif EMIT
@group(0) @binding(1) var<storage, read_write> vals: array<u32>;
@group(0) @binding(2) var<storage, read_write> idx: array<u32>;
@group(0) @binding(3) var<storage, read> src: array<u32>;
@group(0) @binding(4) var<storage, read> pairs: array<u32>;
//#else
@group(0) @binding(1) var<storage, read_write> vals: array<u32>;
@group(0) @binding(2) var<storage, read_write> idx: array<u32>;
@group(0) @binding(3) var<storage, read> src: array<u32>;
//#endif

//#include index.wgsl FN=row_walk W=S.kept N=2

//#if !BLOCK
// Writes element i of the sorted row at rp, taken from source position at.
fn emit(rp: vec2<i32>, i: u32, at: u32) {
    let q = rp.y + i32(i) * S.ax.y;
    vals[q] = src[rp.x + i32(at) * S.ax.x];
    let qi = q - S.off.y + S.off.z;
    idx[2 * qi] = at;
    idx[2 * qi + 1] = 0u;
}
//#endif

//#if EMIT
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg) * 256u + lid;
    if (g >= S.nrows) {
        return;
    }
    let row = g / S.len;
    let i = g % S.len;
    let rp = S.off.xy + row_walk(row);
    emit(rp, i, pairs[2u * (row * S.ch.y + i) + 1u]);
}
//#else
var<workgroup> kk: array<u32, {{SN}}>;
var<workgroup> ii: array<u32, {{SN}}>;

// Sorts the workgroup's pairs; every invocation of the workgroup calls it.
fn bitonic(lid: u32) {
    workgroupBarrier();
    for (var k = 2u; k <= {{SN}}u; k = k << 1u) {
        for (var j = k >> 1u; j > 0u; j = j >> 1u) {
            for (var i = lid; i < {{SN}}u; i = i + {{WG}}u) {
                let l = i ^ j;
                if (l > i) {
                    let ak = kk[i];
                    let ai = ii[i];
                    let bk = kk[l];
                    let bi = ii[l];
                    if (before(bk, bi, ak, ai) == ((i & k) == 0u)) {
                        kk[i] = bk;
                        ii[i] = bi;
                        kk[l] = ak;
                        ii[l] = ai;
                    }
                }
            }
            workgroupBarrier();
        }
    }
}

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w = group_index(wid, nwg);
    if (w >= S.nrows) {
        return;
    }
//#if BLOCK
    let row = w / S.ch.x;
    let first = (w % S.ch.x) * {{SN}}u;
//#else
    let row = w;
    let first = 0u;
//#endif
    let rp = S.off.xy + row_walk(row);
    for (var i = lid; i < {{SN}}u; i = i + {{WG}}u) {
        let p = first + i;
        if (p < S.len) {
            kk[i] = sort_key(src[rp.x + i32(p) * S.ax.x]);
            ii[i] = p;
        } else {
            kk[i] = 0xffffffffu;
            ii[i] = 0xffffffffu;
        }
    }
    bitonic(lid);
//#if BLOCK
    for (var i = lid; i < {{SN}}u; i = i + {{WG}}u) {
        let q = 2u * (row * S.ch.y + first + i);
        pairs[q] = kk[i];
        pairs[q + 1u] = ii[i];
    }
//#else
    for (var i = lid; i < S.len; i = i + {{WG}}u) {
        emit(rp, i, ii[i]);
    }
//#endif
}
//#endif
//#endif
