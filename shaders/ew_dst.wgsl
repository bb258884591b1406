// ew_dst.wgsl: the destination binding and its store function.
//
// D_PACKED: binary16 elements packed two per u32; each store touches only
// its own half with atomics, so neighbours written by other invocations are
// kept. D_ENC converts the computed value to the 16 stored bits.
// D_WIDE: 64-bit elements stored as (lo, hi) u32 pairs.
//#if D_PACKED
@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;

fn store_dst(p: i32, v: {{DC}}) {
    let q = u32(p);
    let sh = (q & 1u) * 16u;
    let bits = {{D_ENC}}(v) & 0xffffu;
    atomicAnd(&dst[q >> 1u], ~(0xffffu << sh));
    atomicOr(&dst[q >> 1u], bits << sh);
}
//#elif D_WIDE
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

fn store_dst(p: i32, v: vec2<u32>) {
    dst[2 * p] = v.x;
    dst[2 * p + 1] = v.y;
}
//#else
@group(0) @binding(1) var<storage, read_write> dst: array<{{DC}}>;

fn store_dst(p: i32, v: {{DC}}) {
    dst[p] = v;
}
//#endif
