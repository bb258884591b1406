// ew_src_b.wgsl: source operand 'b' (binding 3) and its load function.
// S_PACKED: binary16 pairs in u32, decoded by S_DEC; S_WIDE: (lo, hi) pairs.
//#if S_PACKED
@group(0) @binding(3) var<storage, read> b: array<u32>;

fn load_b(p: i32) -> {{SC}} {
    let q = u32(p);
    return {{S_DEC}}(half_at(b[q >> 1u], q));
}
//#elif S_WIDE
@group(0) @binding(3) var<storage, read> b: array<u32>;

fn load_b(p: i32) -> vec2<u32> {
    return vec2<u32>(b[2 * p], b[2 * p + 1]);
}
//#else
@group(0) @binding(3) var<storage, read> b: array<{{SC}}>;

fn load_b(p: i32) -> {{SC}} {
    return b[p];
}
//#endif
