// sort.wgsl: a stable sort of each row along one axis, one workgroup per
// row of at most {{SN}} elements (a power of two; SN * 8 bytes of
// workgroup memory), by a bitonic network over (key, position) pairs: the
// position breaks ties, so equal keys keep their order and the network's
// instability does not show. Keys are u32 whose order is the documented
// one: floats (KIND_F) with -0 equal to +0 and every NaN last; I32
// (KIND_I) biased; U8/Bool (default) as they are. DESC inverts the keys:
// the reverse order with ties still in source order (NaN first). Rows are
// padded with keys and positions of all ones, which sort last.
//
// Writes the sorted words to vals and their source positions (I64, as
// (lo, hi) pairs) to idx, which share vals' layout at offset S.off.z.
//#include common.wgsl

@group(0) @binding(0) var<uniform> S: SParams;
@group(0) @binding(1) var<storage, read_write> vals: array<u32>;
@group(0) @binding(2) var<storage, read_write> idx: array<u32>;
@group(0) @binding(3) var<storage, read> src: array<u32>;

//#include index.wgsl FN=row_walk W=S.kept N=2

var<workgroup> kk: array<u32, {{SN}}>;
var<workgroup> ii: array<u32, {{SN}}>;

fn sort_key(w: u32) -> u32 {
//#if KIND_F
    if ((w & 0x7fffffffu) > 0x7f800000u) {
        return 0xffffffffu;
    }
    var b = w;
    if ((b & 0x7fffffffu) == 0u) {
        b = 0u;
    }
    if ((b & 0x80000000u) != 0u) {
        return ~b;
    }
    return b | 0x80000000u;
//#elif KIND_I
    return w ^ 0x80000000u;
//#else
    return w;
//#endif
}

// Whether pair (ka, ia) comes before (kb, ib).
fn before(ka: u32, ia: u32, kb: u32, ib: u32) -> bool {
    return ka < kb || (ka == kb && ia < ib);
}

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w = group_index(wid, nwg);
    if (w >= S.nrows) {
        return;
    }
    let rp = S.off.xy + row_walk(w);
    for (var i = lid; i < {{SN}}u; i = i + {{WG}}u) {
        if (i < S.len) {
            var k = sort_key(src[rp.x + i32(i) * S.ax.x]);
//#if DESC
            k = ~k;
//#endif
            kk[i] = k;
            ii[i] = i;
        } else {
            kk[i] = 0xffffffffu;
            ii[i] = 0xffffffffu;
        }
    }
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
    for (var i = lid; i < S.len; i = i + {{WG}}u) {
        let at = ii[i];
        let q = rp.y + i32(i) * S.ax.y;
        vals[q] = src[rp.x + i32(at) * S.ax.x];
        let qi = q - S.off.y + S.off.z;
        idx[2 * qi] = at;
        idx[2 * qi + 1] = 0u;
    }
}
